#!/usr/bin/env python3
"""The calculator page in a real browser (suite web): serves BUILDDIR/web on a loopback port
and drives headless Chromium over the DevTools protocol.

- the seed sheet passed in the fragment shows 13.04 GiB weights only and a 19.04 GiB envelope
  (a lower bound: the KV cache is unknown without an architecture), and the page's built-in
  seed is examples/seed.toml;
- an invalid sheet shows its error at the line and column the command-line tool reports;
- for every examples/*.toml, with the model file it names chosen in the file input (read
  with Blob.slice), the page's estimate (and plan, where the sheet has offers) equals
  `vramplan estimate --json` (and `plan --json`): every integer byte-exact, every string
  the same;
- the files a sheet names beside the model ([draft], lora_adapters) are given with the
  "files the sheet names" input; one not given is an error naming the key and the file;
- llama.cpp partial offload (a header-only GGUF of Llama 3.1 8B Q4_K_M, as tests/cli): the
  estimate with its host_ram member equals the CLI's, the host RAM table is shown, and
  "most GPU layers" equals `fit --solve gpu_layers`;
- a form edit rewrites the sheet text and the fragment, and recomputes.

Exit 77 (skipped) when Chromium or the page (the wasm toolchain) is absent.
Usage: test-page.py WEBDIR|'' VRAMPLAN SOURCE_ROOT MAKE_GGUF
"""
import glob
import json
import os
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def b64url(text):
    import base64
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip('=')


def load(b, srv, n, sheet, capacity=''):
    """Open the page with the sheet in its fragment; wait for the first result."""
    frag = '#sheet=' + b64url(sheet) + ('&capacity=' + capacity if capacity else '')
    b.navigate(srv.url('index.html?n=%d%s' % (n, frag)))
    b.wait("document.documentElement.dataset.ready === '1' && "
           "location.search === '?n=%d'" % n)
    return b.eval('vramplanPage.timing.load_ms')


def cli_json(vramplan, *args):
    r = subprocess.run([vramplan] + list(args), capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError('%s: exit %d: %s' % (' '.join(args), r.returncode, r.stderr))
    return json.loads(r.stdout)


def bytesgroup(n):
    return '{:,}'.format(n)


def model_path(sheet_path, text):
    m = re.search(r'^\s*(config|checkpoint)\s*=\s*"([^"]+)"', text, re.M)
    if not m:
        return None
    return os.path.normpath(os.path.join(os.path.dirname(sheet_path), m.group(2)))


def side_files(sheet_path, text):
    """The files the sheet names beside its model, as (key, path) pairs."""
    t = tomllib.loads(text)
    d = os.path.dirname(sheet_path)
    out = []
    draft = t.get('draft', {})
    for k in ('config', 'checkpoint'):
        if k in draft:
            out.append(('draft.' + k, draft[k]))
            break
    w = t.get('workload', {})
    if 'mmproj' in w:
        out.append(('workload.mmproj', w['mmproj']))
    for a in w.get('lora_adapters', []):
        out.append(('workload.lora_adapters', a))
    return [(k, os.path.normpath(os.path.join(d, p))) for k, p in out]


def give_side_files(b, paths):
    b.set_files('#side-files', paths)
    b.wait('vramplanPage.sideFiles.length === %d' % len(paths))


def main():
    webdir, vramplan, root, make_gguf = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    if not webdir or not os.path.exists(os.path.join(webdir, 'vramplan.wasm')):
        print('SKIP: the page is not built (-Dweb: clang, lld, wasi-libc, '
              'libclang-rt-14-dev-wasm32)')
        return 77
    browser = cdp.find_browser()
    if browser is None:
        print('SKIP: no Chromium (Debian: apt-get install chromium)')
        return 77
    srv = cdp.Server(webdir)
    b = cdp.Browser(browser)
    loads = []
    try:
        seed_path = os.path.join(root, 'examples', 'seed.toml')
        seed = open(seed_path, encoding='utf-8').read()

        # 1. the seed, from the fragment
        loads.append(load(b, srv, 0, seed))
        wo = b.eval("document.getElementById('weights-only').textContent")
        env = b.eval("document.getElementById('envelope').textContent")
        check('13.04 GiB' in wo and wo.startswith('14,000,000,000 B'),
              'seed: weights only reads 14,000,000,000 B = 13.04 GiB (%r)' % wo)
        check('19.04 GiB' in env, 'seed: envelope reads 19.04 GiB (%r)' % env)
        check(b.eval('vramplanPage.seed') == seed, "the page's built-in seed is examples/seed.toml")
        bars = b.eval("[...document.querySelectorAll('.barrow')].map(r => r.dataset.phase + ':' + "
                      "r.querySelectorAll('.seg').length).join(' ')")
        check(bars == 'load:2 prefill:2 decode:2',
              'seed: one stacked bar per phase, one segment per item (%s)' % bars)

        # the page opened without a fragment shows the seed example
        b.navigate(srv.url('index.html?n=bare'))
        b.wait("document.documentElement.dataset.ready === '1' && location.search === '?n=bare'")
        wo = b.eval("document.getElementById('weights-only').textContent")
        check('13.04 GiB' in wo and b.eval('location.hash') == '#sheet=' + b64url(seed),
              'no fragment: the seed example, and the fragment then holds it (%r)' % wo)

        # 2. an invalid sheet: the error at the CLI's line and column, in the TOML view
        bad = seed.replace('parameters = 7_000_000_000', 'parameters = "7e9"')
        bad_path = os.path.join(os.environ.get('TMPDIR', '/tmp'), 'vramplan-web-bad-%d.toml' % os.getpid())
        with open(bad_path, 'w', encoding='utf-8') as f:
            f.write(bad)
        r = subprocess.run([vramplan, 'estimate', bad_path], capture_output=True, text=True)
        os.unlink(bad_path)
        m = re.search(re.escape(bad_path) + r':(\d+):(\d+): (.*)', r.stderr)
        check(r.returncode == 1 and m is not None, 'CLI: the invalid sheet fails with line:col (%s)' % r.stderr.strip())
        load(b, srv, 1, bad)
        shown = b.eval("(() => { const e = document.getElementById('toml-error'); "
                       "return e.hidden ? '' : e.textContent; })()")
        if m:
            check('sheet.toml:%s:%s' % (m.group(1), m.group(2)) in shown and m.group(3) in shown,
                  'page: the TOML view shows sheet.toml:%s:%s and the message (%r)'
                  % (m.group(1), m.group(2), shown[:160]))

        # 3. every example sheet: the page's JSON equals the CLI's
        examples = sorted(glob.glob(os.path.join(root, 'examples', '*.toml')))
        check(len(examples) >= 10, '%d example sheets' % len(examples))
        for n, path in enumerate(examples, start=2):
            name = os.path.basename(path)
            text = open(path, encoding='utf-8').read()
            loads.append(load(b, srv, n, text))
            sides = side_files(path, text)
            if sides:
                # not given yet: an error naming the key and the file, at the key's line
                ans = json.loads(b.eval('vramplanPage.raw'))
                key, first = sides[0]
                msg = (ans.get('error') or {}).get('message', '')
                check(not ans.get('ok') and key in msg and os.path.basename(first) in msg and
                      ans['error'].get('line', 0) > 0 and
                      b.eval("!document.getElementById('toml-error').hidden"),
                      '%s: without its %s file the page says so (%r)' % (name, key, msg[:200]))
                give_side_files(b, [p for _, p in sides])
            model = model_path(path, text)
            if model:
                b.set_files('#model-file', [model])
                b.wait("vramplanPage.model !== null && vramplanPage.model.name === %s && "
                       "vramplanPage.result.ok !== undefined && "
                       "JSON.parse(vramplanPage.raw).estimate !== undefined && "
                       "JSON.parse(vramplanPage.raw).estimate.weights_only_bytes !== null"
                       % json.dumps(os.path.basename(model)))
                info = json.loads(b.eval('vramplanPage.model.raw'))['model']
                check(info == cli_json(vramplan, 'inspect', model, '--json'),
                      '%s: the model file read in the page equals `inspect --json` (%s parameters)'
                      % (name, info.get('parameters')))
            check(b.eval('vramplanPage.text') == text, '%s: the sheet text is unchanged' % name)
            ans = json.loads(b.eval('vramplanPage.raw'))
            if not ans.get('ok'):
                check(False, '%s: the page failed: %s' % (name, ans.get('error')))
                continue
            want = cli_json(vramplan, 'estimate', path, '--json')
            got = ans['estimate']
            for d in (want, got):
                d.pop('sheet', None)
            check(got == want, '%s: estimate equals the CLI\'s --json (peak %s B, envelope %s B, %d items)'
                  % (name, got.get('peak_bytes'), got.get('envelope_bytes'), len(got.get('items', []))))
            if got != want:
                for k in sorted(set(want) | set(got)):
                    if want.get(k) != got.get(k):
                        print('     %s: cli %s\n     %s: page %s' % (k, json.dumps(want.get(k))[:300],
                                                                    k, json.dumps(got.get(k))[:300]))
            drafts = sorted(i['id'] for i in want['items'] if i['id'].startswith('draft:'))
            if drafts:
                rows = b.eval("[...document.querySelectorAll('table.items tbody tr')].map(r => "
                              "r.cells[1].textContent).filter(t => t.startsWith('draft:')).sort()")
                check(rows == drafts, '%s: the items table shows %s' % (name, ', '.join(rows)))
            pw = cli_json(vramplan, 'plan', path, '--json')
            pg = ans['plan']
            for d in (pw, pg):
                d.pop('sheet', None)
            check(pg == pw, '%s: plan and sizing sheet equal the CLI\'s --json (%d candidates)'
                  % (name, len(pg['candidates'])))
            check(b.eval("document.getElementById('sizing').textContent.startsWith('## Sizing sheet')"),
                  '%s: the sizing sheet is shown in Markdown' % name)

        # 4. checkpoint headers through the file input: the fuzz corpus's valid GGUF and
        # safetensors files, and a 32 MiB safetensors file of which only the header is read
        tmpdir = tempfile.mkdtemp(prefix='vramplan-web-')
        try:
            files = []
            for src, dst in (('gguf/llama', 'llama.gguf'), ('gguf/v2', 'v2.gguf'),
                             ('safetensors/bnb', 'bnb.safetensors'),
                             ('safetensors/small', 'small.safetensors')):
                shutil.copyfile(os.path.join(root, 'tests', 'fuzz', 'corpus', src),
                                os.path.join(tmpdir, dst))
                files.append(os.path.join(tmpdir, dst))
            header = json.dumps({'model.embed_tokens.weight': {
                'dtype': 'BF16', 'shape': [4096, 4096], 'data_offsets': [0, 4096 * 4096 * 2]}}).encode()
            big = os.path.join(tmpdir, 'big.safetensors')
            with open(big, 'wb') as f:
                f.write(struct.pack('<Q', len(header)) + header)
                f.truncate(8 + len(header) + 4096 * 4096 * 2)  # sparse: nothing written
            files.append(big)
            for n, path in enumerate(files, start=50):
                fname = os.path.basename(path)
                load(b, srv, n, seed)
                b.eval("""(() => { window.sliced = 0; window.wholeReads = 0;
                    const slice = Blob.prototype.slice;
                    Blob.prototype.slice = function (a, z) {
                        window.sliced += Math.min(z === undefined ? this.size : z, this.size) - (a || 0);
                        return slice.apply(this, arguments); };
                    for (const m of ['arrayBuffer', 'text', 'stream'])
                        File.prototype[m] = function () { window.wholeReads++;
                            return Blob.prototype[m].apply(this, arguments); }; })()""")
                b.set_files('#model-file', [path])
                b.wait('vramplanPage.model !== null && vramplanPage.model.name === %s' % json.dumps(fname))
                info = json.loads(b.eval('vramplanPage.model.raw'))['model']
                want = cli_json(vramplan, 'inspect', path, '--json')
                check(info == want, '%s: read in the page equals `inspect --json` (%s, %s parameters)'
                      % (fname, info.get('format'), info.get('parameters')))
                sliced, whole = b.eval('[window.sliced, window.wholeReads]')
                size = os.path.getsize(path)
                check(whole == 0 and sliced <= min(size, 1 << 20) + 8,
                      '%s: %d of %d bytes read, by Blob.slice only' % (fname, sliced, size))
                text = b.eval('vramplanPage.text')
                check('checkpoint = "%s"' % fname in text, '%s: the sheet names the checkpoint' % fname)
            check(sliced == 8 + 8 + len(header), 'big.safetensors: the 8-byte length, then 8 + %d '
                  'header bytes' % len(header))
        finally:
            shutil.rmtree(tmpdir, ignore_errors=True)

        # 4b. a vision tower: the model panel shows its parts, as `inspect --json` counts them
        vis = os.path.join(root, 'tests', 'data', 'configs-written',
                           'meta-llama__Llama-3.2-11B-Vision', 'config.json')
        load(b, srv, 70, seed)
        b.set_files('#model-file', [vis])
        b.wait('vramplanPage.model !== null && vramplanPage.model.name === "config.json"')
        want = cli_json(vramplan, 'inspect', vis, '--json')
        info = json.loads(b.eval('vramplanPage.model.raw'))['model']
        panel = b.eval("document.getElementById('model-info').textContent")
        check(info == want and want['vision_type'] and
              ('vision ' + bytesgroup(want['parts']['vision']['parameters']) + ' parameters') in panel,
              'vision: the model panel shows the %s tower\'s parts (%r)' % (want['vision_type'], panel[-160:]))

        # 5. the largest concurrency for a card, as `vramplan fit`
        vllm = os.path.join(root, 'examples', 'llama-3.1-8b-vllm.toml')
        load(b, srv, 80, open(vllm, encoding='utf-8').read())
        b.set_files('#model-file', [model_path(vllm, open(vllm, encoding='utf-8').read())])
        b.wait('vramplanPage.model !== null')
        fit = cli_json(vramplan, 'fit', vllm, '--solve', 'concurrency', '--capacity', 'H100 SXM', '--json')
        shown = b.eval("""(() => { const c = document.getElementById('capacity');
            c.value = 'H100 SXM'; c.dispatchEvent(new Event('change'));
            document.querySelector('[data-fit="concurrency"]').click();
            return document.getElementById('fit-result').textContent; })()""")
        check(shown.endswith(': %d' % fit['value']) and '84,943,715,696 B' in shown,
              'fit: the largest concurrency on an H100 SXM is the CLI\'s %d (%r)' % (fit['value'], shown))

        # 5b. llama.cpp partial offload and a LoRA adapter beside the model: host RAM items
        # and peak as the CLI's JSON, the host table, and the most layers that fit 8 GB
        tmpdir = tempfile.mkdtemp(prefix='vramplan-web-llama-')
        try:
            gguf = os.path.join(tmpdir, 'Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf')
            subprocess.run([make_gguf, os.path.join(root, 'tests', 'data', 'gguf',
                                                     'Meta-Llama-3.1-8B-Instruct-Q4_K_M'), gguf],
                           check=True)
            adapter = os.path.join(tmpdir, 'lora-tiny-r8.gguf')
            shutil.copyfile(os.path.join(root, 'tests', 'data', 'serving', 'lora-tiny-r8.gguf'),
                            adapter)
            text = open(os.path.join(root, 'examples', 'llama.cpp',
                                     'llama-3.1-8b-q4km-8gb.toml'), encoding='utf-8').read()
            text = text.replace('gpu_layers = -1 ', 'gpu_layers = 19 ', 1)
            text = text.replace('[workload]\n', '[workload]\nlora_adapters = ["lora-tiny-r8.gguf"]\n', 1)
            spath = os.path.join(tmpdir, 'sheet.toml')
            with open(spath, 'w', encoding='utf-8') as f:
                f.write(text)
            load(b, srv, 85, text)
            msg = (json.loads(b.eval('vramplanPage.raw')).get('error') or {}).get('message', '')
            check('workload.lora_adapters' in msg and 'lora-tiny-r8.gguf' in msg,
                  'llama.cpp: without the adapter file the page names the key and the file (%r)' % msg[:160])
            give_side_files(b, [adapter])
            b.set_files('#model-file', [gguf])
            b.wait('vramplanPage.model !== null && vramplanPage.result.ok === true && '
                   'JSON.parse(vramplanPage.raw).estimate.host_ram !== undefined', timeout=60)
            got = json.loads(b.eval('vramplanPage.raw'))['estimate']
            want = cli_json(vramplan, 'estimate', spath, '--json')
            for d in (want, got):
                d.pop('sheet', None)
            ids = [i['id'] for i in got.get('items', [])]
            check(got == want and 'host_ram' in want,
                  'llama.cpp: estimate with host_ram equals the CLI\'s --json (host peak %s B, items %s)'
                  % (got.get('host_ram', {}).get('peak_bytes'), ', '.join(ids)))
            if got != want:
                for k in sorted(set(want) | set(got)):
                    if want.get(k) != got.get(k):
                        print('     %s: cli %s\n     %s: page %s' % (k, json.dumps(want.get(k))[:300],
                                                                    k, json.dumps(got.get(k))[:300]))
            cap = b.eval("(() => { const c = document.querySelector('table.host caption'); "
                         "return c ? c.textContent : ''; })()")
            check('Host RAM' in cap and bytesgroup(want['host_ram']['peak_bytes']) in cap,
                  'llama.cpp: the host RAM table shows the peak (%r)' % cap)
            fit = cli_json(vramplan, 'fit', spath, '--solve', 'gpu_layers', '--capacity', '8 GB', '--json')
            shown = b.eval("""(() => { const c = document.getElementById('capacity');
                c.value = '8 GB'; c.dispatchEvent(new Event('change'));
                document.querySelector('[data-fit="gpu_layers"]').click();
                return document.getElementById('fit-result').textContent; })()""")
            check(fit['value'] == 19 and ': 19 of 33 ' in shown and
                  bytesgroup(fit['host_ram_bytes']) in shown,
                  'fit: the most GPU layers in 8 GB is the CLI\'s %d, with its host RAM (%r)'
                  % (fit['value'], shown[:200]))
            # the adapter file's tensors as an item adapter:<stem> (tests/data/serving: 8,192 B)
            cfg = os.path.join(root, 'tests', 'data', 'configs', 'meta-llama__Meta-Llama-3.1-8B',
                               'config.json')
            text = ('[model]\nconfig = "config.json"\n[workload]\nframework = "llama.cpp"\n'
                    'context = 4096\nlora_adapters = ["lora-tiny-r8.gguf"]\n')
            spath = os.path.join(tmpdir, 'adapter.toml')
            with open(spath, 'w', encoding='utf-8') as f:
                f.write(text)
            shutil.copyfile(cfg, os.path.join(tmpdir, 'config.json'))
            load(b, srv, 86, text)
            give_side_files(b, [adapter])
            b.set_files('#model-file', [os.path.join(tmpdir, 'config.json')])
            b.wait('vramplanPage.model !== null && vramplanPage.result.ok === true && '
                   'JSON.parse(vramplanPage.raw).estimate.weights_only_bytes !== null')
            got = json.loads(b.eval('vramplanPage.raw'))['estimate']
            want = cli_json(vramplan, 'estimate', spath, '--json')
            for d in (want, got):
                d.pop('sheet', None)
            ad = [i['bytes'] for i in got['items'] if i['id'] == 'adapter:lora-tiny-r8']
            check(got == want and ad == [8192],
                  'lora_adapters: the page\'s estimate equals the CLI\'s, adapter:lora-tiny-r8 = %s B' % ad)
        finally:
            shutil.rmtree(tmpdir, ignore_errors=True)

        # 6. a form edit: the text, the fragment and the result follow
        load(b, srv, 99, seed)
        b.eval("(() => { const i = document.querySelector('[data-key=\"model.parameters\"]'); "
               "i.value = '13000000000'; i.dispatchEvent(new Event('change')); })()")
        wo = b.eval("document.getElementById('weights-only').textContent")
        check('24.21 GiB' in wo and wo.startswith('26,000,000,000 B'),
              'edit: 13e9 parameters give 26,000,000,000 B = 24.21 GiB (%r)' % wo)
        text = b.eval('vramplanPage.text')
        check('parameters = 13000000000' in text and text.startswith('# The seed scenario'),
              'edit: the line is rewritten in place, comments kept')
        want = '#sheet=' + b64url(text)
        b.wait('location.hash === %s' % json.dumps(want), timeout=5)
        check(b.eval('location.hash') == want, 'edit: the fragment holds the new sheet')

        # 7. an offer added with the form: the plan of the new text, as `vramplan plan`
        b.eval("document.getElementById('offer-add').click()")
        b.wait('vramplanPage.result.plan !== null')
        text = b.eval('vramplanPage.text')
        path = os.path.join(os.environ.get('TMPDIR', '/tmp'), 'vramplan-web-offer-%d.toml' % os.getpid())
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)
        try:
            want = cli_json(vramplan, 'plan', path, '--json')
        finally:
            os.unlink(path)
        got = json.loads(b.eval('vramplanPage.raw'))['plan']
        for d in (want, got):
            d.pop('sheet', None)
        rows = b.eval("[...document.querySelectorAll('table.candidates tbody tr')].map(r => "
                      "r.cells[0].textContent + ':' + r.cells[1].textContent).join(' ')")
        check(got == want and rows == 'offer-1:' + want['candidates'][0]['verdict'],
              'add offer: [[offer]] appended, its plan equals `vramplan plan --json` (%s)' % rows)
    finally:
        b.close()
        srv.close()
    if loads:
        print('page load to first result: min %.1f ms, median %.1f ms over %d loads'
              % (min(loads), statistics.median(loads), len(loads)))
    print('%d failed' % len(failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
