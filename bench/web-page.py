#!/usr/bin/env python3
"""The calculator page's speed in headless Chromium (not a test: figures to read).

- page load to first result: performance.now() when the first estimate is on screen
  (navigation start = 0: HTML, scripts, fetching and compiling vramplan.wasm, one run), over
  fresh loads of the seed sheet and of a LoRA sheet with its config.json;
- an edit: a form field changed (context), timed in the page from the change event to the
  rendered result (splice the line, run the library, redraw), and the library call alone;
- as a baseline measured in the same run, the native CLI's `vramplan estimate --json` on the
  same sheet (a process start included).

Reports min and median. Targets (issue 14): load < 300 ms, edit < 5 ms.
Usage: web-page.py BUILDDIR/web VRAMPLAN SOURCE_ROOT [ROUNDS]
"""
import base64
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'web'))
import cdp  # noqa: E402


def stats(xs):
    return 'min %.2f ms, median %.2f ms (n=%d)' % (min(xs), statistics.median(xs), len(xs))


def main():
    webdir, cli, root = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 15
    if not os.path.exists(os.path.join(webdir, 'vramplan.wasm')) or cdp.find_browser() is None:
        print('SKIP: the page is not built or no Chromium')
        return 77
    sheets = [('seed', os.path.join(root, 'examples', 'seed.toml'), None),
              ('llama-3.1-8b-lora', os.path.join(root, 'examples', 'llama-3.1-8b-lora.toml'),
               os.path.join(root, 'tests', 'data', 'configs', 'meta-llama__Meta-Llama-3.1-8B',
                            'config.json'))]
    srv = cdp.Server(webdir)
    b = cdp.Browser()
    try:
        for label, path, model in sheets:
            text = open(path, encoding='utf-8').read()
            frag = '#sheet=' + base64.urlsafe_b64encode(text.encode()).decode().rstrip('=')
            loads, edits, calls = [], [], []
            for r in range(rounds):
                b.navigate(srv.url('index.html?r=%d%s' % (r, frag)))
                b.wait("document.documentElement.dataset.ready === '1' && location.search === '?r=%d'" % r)
                loads.append(b.eval('vramplanPage.timing.load_ms'))
            if model:
                b.set_files('#model-file', [model])
                b.wait('vramplanPage.model !== null')
            for i in range(rounds * 4):
                ms = b.eval("""(() => {
                    const f = document.querySelector('[data-key="workload.context"]');
                    f.value = String(%d);
                    const t = performance.now();
                    f.dispatchEvent(new Event('change'));
                    const page = performance.now() - t;
                    const t2 = performance.now();
                    vramplanPage.vp.run(vramplanPage.text, vramplanPage.capacity);
                    return [page, performance.now() - t2];
                })()""" % (1024 + 256 * i))
                edits.append(ms[0])
                calls.append(ms[1])
            native = []
            for _ in range(rounds):
                t = time.perf_counter()
                subprocess.run([cli, 'estimate', path, '--json'], check=True, stdout=subprocess.DEVNULL)
                native.append((time.perf_counter() - t) * 1000)
            print('%s: page load to first result: %s' % (label, stats(loads)))
            print('%s: edit (context) to redrawn result: %s' % (label, stats(edits)))
            print('%s: the library call alone (wasm run): %s' % (label, stats(calls)))
            print('%s: baseline, native CLI estimate --json (process): %s; wasm run / CLI = %.2f'
                  % (label, stats(native), statistics.median(calls) / statistics.median(native)))
    finally:
        b.close()
        srv.close()
    return 0


if __name__ == '__main__':
    sys.exit(main())
