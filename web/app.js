/*
 * The calculator page (docs/web.md). The sheet's TOML text is the state: the form edits it
 * line by line (comments and order stay), every change runs the library on it (vramplan.js,
 * vramplan.wasm) and the URL fragment holds it (#sheet=base64url(TOML)), so a sizing can be
 * shared by link. No framework, no network: the module is the only file fetched.
 */
(function () {
  'use strict';

  const t0 = performance.now();
  /* examples/seed.toml (tests/web checks that the two are the same text) */
  const SEED = `# The seed scenario (DESIGN.md): a 7e9-parameter model in 16-bit weights, served for
# inference on one card, with a named 6 GiB reserve. No architecture is given, so the KV
# cache and activations cannot be computed: they are listed as unknowns, not zeros.
[sheet]
title = "Seed: 7B parameters, 16-bit inference, 6 GiB reserve"

[model]
name = "7B chat model (seed pages)"
parameters = 7_000_000_000

[workload]
task = "inference"
weights = "fp16"
framework = "none"        # the seed calculator's behaviour: no assumed overheads

[reserve]
other = "6 GiB"
`;
  const WEIGHT_FORMATS = ['fp32', 'bf16', 'fp16', 'fp8', 'int8', 'fp8-block128', 'nf4', 'fp4',
    'nf4-dq', 'fp4-dq', 'int8-bnb', 'gptq-int4-g128', 'awq-int4-g128', 'mxfp4'];
  const GIB = 1n << 30n, GB = 1000000000n;
  const $ = (id) => document.getElementById(id);

  const page = {
    vp: null,
    text: '',
    capacity: '',
    model: null,      /* {name, info} of the chosen model file */
    sideFiles: [],    /* names of the files given beside it ([draft], mmproj, lora_adapters) */
    result: null,     /* the last answer of run() */
    raw: null,        /* the estimate's JSON text as the module wrote it (exact integers) */
    timing: { load_ms: null, edits_ms: [] },
  };
  window.vramplanPage = page;

  /* ---- numbers: exact integers from the module's JSON ----------------------------------- */

  const big = (x) => (typeof x === 'bigint' ? x : BigInt(x));
  /* digits grouped by commas (toLocaleString builds a formatter per call: too slow here) */
  const group = (digits) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const bytesText = (x) => (big(x) < 0n ? '-' + group(String(-big(x))) : group(String(x)));
  /* x / unit with two decimals, rounded half up: the library's vp_bytes_format_number() */
  function unitText(x, unit) {
    let v = big(x);
    const neg = v < 0n;
    if (neg)
      v = -v;
    let q = (v * 100n) / unit;
    const r = (v * 100n) % unit;
    if (2n * r >= unit)
      q += 1n;
    const s = group(String(q / 100n)) + '.' + String(q % 100n).padStart(2, '0');
    return (neg ? '-' : '') + s;
  }
  const gib = (x) => unitText(x, GIB), gb = (x) => unitText(x, GB);
  const triple = (x) => bytesText(x) + ' B = ' + gib(x) + ' GiB = ' + gb(x) + ' GB';

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class')
        e.className = v;
      else if (k === 'style')
        e.style.cssText = v;
      else
        e.setAttribute(k, v);
    }
    for (const kid of kids)
      if (kid !== null && kid !== undefined)
        e.append(kid instanceof Node ? kid : String(kid));
    return e;
  }

  /* ---- the URL fragment: #sheet=base64url(UTF-8 TOML)&capacity=… ----------------------- */

  function b64urlEncode(text) {
    const bytes = new TextEncoder().encode(text);
    let bin = '';
    for (let i = 0; i < bytes.length; i += 8192)
      bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
    return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function b64urlDecode(s) {
    const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4);
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++)
      bytes[i] = bin.charCodeAt(i);
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  }
  function readFragment() {
    const params = new URLSearchParams(location.hash.slice(1));
    const out = { sheet: null, capacity: params.get('capacity') || '' };
    if (params.has('sheet')) {
      try {
        out.sheet = b64urlDecode(params.get('sheet'));
      } catch (e) {
        out.error = 'the link\'s #sheet= is not base64url of UTF-8 text';
      }
    }
    return out;
  }
  function fragment() {
    let h = '#sheet=' + b64urlEncode(page.text);
    if (page.capacity)
      h += '&capacity=' + encodeURIComponent(page.capacity);
    return h;
  }
  function writeFragment() {
    clearTimeout(page.fragmentTimer);
    page.fragmentTimer = null;
    const h = fragment();
    if (location.hash !== h)
      history.replaceState(null, '', h);
    $('share').href = h;
  }
  /* The address follows the sheet shortly after the last edit: typing stays fast (a
   * replaceState costs up to a few ms, and browsers throttle bursts of them). */
  function scheduleFragment() {
    if (page.fragmentTimer === null || page.fragmentTimer === undefined)
      page.fragmentTimer = setTimeout(writeFragment, 120);
  }

  /* ---- editing the TOML text line by line ---------------------------------------------- */

  /* The line ranges of a table: [name] (index null) or the index-th [[name]]. */
  function sections(lines) {
    const out = [];
    let cur = { name: '', array: false, start: 0, end: lines.length };
    out.push(cur);
    lines.forEach((line, i) => {
      const m = /^\s*(\[\[?)\s*([A-Za-z0-9_.-]+)\s*\]\]?\s*(#.*)?$/.exec(line);
      if (m) {
        cur.end = i;
        cur = { name: m[2], array: m[1] === '[[', start: i, end: lines.length };
        out.push(cur);
      }
    });
    return out;
  }
  function findSection(lines, table, index) {
    const all = sections(lines);
    if (index === null || index === undefined)
      return all.find((s) => s.name === table && !s.array) || null;
    return all.filter((s) => s.name === table && s.array)[index] || null;
  }
  const keyRe = (key) => new RegExp('^\\s*(?:"' + key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') +
    '"|' + key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + ')\\s*=');
  function bareKey(key) {
    return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
  }

  /* Set (valueText: TOML text of the value) or remove (null) table[index].key in text. */
  function spliceKey(text, table, index, key, valueText) {
    const lines = text.split('\n');
    const sec = findSection(lines, table, index);
    const line = bareKey(key) + ' = ' + valueText;
    if (sec === null) {
      if (valueText === null)
        return text;
      let t = text.replace(/\n*$/, '');
      t += (t ? '\n\n' : '') + (index === null || index === undefined ? '[' + table + ']'
        : '[[' + table + ']]') + '\n' + line + '\n';
      return t;
    }
    const re = keyRe(key);
    for (let i = sec.start + (sec.name ? 1 : 0); i < sec.end; i++) {
      if (re.test(lines[i])) {
        if (valueText === null)
          lines.splice(i, 1);
        else
          lines[i] = line;
        return lines.join('\n');
      }
    }
    if (valueText === null)
      return text;
    let at = sec.end;
    while (at > sec.start + 1 && /^\s*$/.test(lines[at - 1]))
      at--;
    lines.splice(at, 0, line);
    return lines.join('\n');
  }

  /* A form value as TOML text: strings quoted, integers as digits (with _ allowed). */
  function tomlValue(v, type) {
    v = v.trim();
    if (v === '')
      return null;
    if (type === 'int' && /^[0-9][0-9_]*$/.test(v))
      return v;
    if (type === 'int')
      return v; /* left as typed: the library says what is wrong, at its line */
    return JSON.stringify(v);
  }

  /* The reserves of the text's [reserve] table: [name, size text] in order. */
  function reserves(text) {
    const lines = text.split('\n');
    const sec = findSection(lines, 'reserve', null);
    const out = [];
    if (!sec)
      return out;
    for (let i = sec.start + 1; i < sec.end; i++) {
      const m = /^\s*(?:"((?:[^"\\]|\\.)*)"|([A-Za-z0-9_-]+))\s*=\s*"([^"]*)"/.exec(lines[i]);
      if (m)
        out.push([m[1] !== undefined ? JSON.parse('"' + m[1] + '"') : m[2], m[3]]);
    }
    return out;
  }

  /* ---- running the library -------------------------------------------------------------- */

  function setText(text, from) {
    page.text = text;
    if (from !== 'toml')
      $('toml').value = text;
    recompute();
  }

  function recompute() {
    const t = performance.now();
    const ans = page.vp.run(page.text, page.capacity);
    page.result = ans;
    const same = page.vp.lastText === page.raw;
    page.raw = page.vp.lastText;
    if (!same)
      render(ans); /* an edit that changes no figure (a comment, a blank) redraws nothing */
    scheduleFragment();
    return performance.now() - t;
  }

  function showError(box, ans) {
    const e = ans.error;
    box.hidden = false;
    box.textContent = '';
    const where = e.line ? 'line ' + e.line + ', column ' + e.column : '';
    box.append(el('strong', { class: 'pos' }, e.line ? e.source + ':' + e.line + ':' + e.column
      : (e.source || ans.where)), ': ', e.message, ' (' + e.status + ')');
    if (e.line && (ans.where === 'sheet' || ans.where === 'edit')) {
      const line = page.text.split('\n')[e.line - 1] || '';
      box.append(el('pre', { class: 'snippet' }, String(e.line).padStart(4) + ' | ' + line +
        '\n' + ' '.repeat(7 + Math.max(0, e.column - 1)) + '^ ' + where));
    }
  }

  function render(ans) {
    const terr = $('toml-error'), eerr = $('estimate-error');
    terr.hidden = true;
    eerr.hidden = true;
    $('result-pane').classList.toggle('stale', !ans.ok);
    if (!ans.ok && ans.where === 'sheet') {
      showError(terr, ans);
      $('status').textContent = 'the sheet has an error at line ' + ans.error.line + ', column ' +
        ans.error.column + (page.shown ? ': the results below are from the last valid sheet' : '');
      return;
    }
    if (ans.fields)
      fillForm(ans.fields);
    if (!ans.ok) {
      showError(eerr, ans);
      $('status').textContent = 'the estimate failed: ' + ans.error.message;
      return;
    }
    $('status').textContent = 'ready: vramplan ' + page.version + ' (WebAssembly)';
    renderEstimate(ans.estimate);
    renderPlan(ans);
    page.shown = true;
  }

  /* ---- the form ------------------------------------------------------------------------- */

  function fillForm(fields) {
    for (const input of document.querySelectorAll('[data-key]')) {
      if (input === document.activeElement)
        continue;
      const v = fields[input.dataset.key];
      input.value = v === null || v === undefined ? '' : String(v);
    }
    const list = $('reserves');
    list.textContent = '';
    for (const [name, size] of reserves(page.text)) {
      const del = el('button', { type: 'button' }, 'remove');
      del.addEventListener('click', () => setText(spliceKey(page.text, 'reserve', null, name, null)));
      list.append(el('div', { class: 'row' }, el('code', {}, name), ' = ', el('code', {}, size), ' ', del));
    }
    renderOfferForm(fields.offers || []);
    const cfg = fields['model.config'] || fields['model.checkpoint'];
    const info = $('model-info');
    if (cfg && !(page.model && baseName(cfg) === page.model.name))
      info.textContent = 'The sheet names ' + (fields['model.config'] ? 'config' : 'checkpoint') +
        ' = "' + cfg + '": choose that file above (a page reads no path).';
    else if (page.model)
      info.textContent = modelText(page.model);
    else
      info.textContent = '';
  }

  function baseName(p) {
    return String(p).split(/[\\/]/).pop();
  }
  function modelText(m) {
    const i = m.info;
    return m.name + ': ' + i.format + (i.model_type ? ', ' + i.model_type : '') + ', ' +
      bytesText(i.parameters) + ' parameters, weights ' +
      triple(i.total_bytes) + (i.kv_bytes_per_token !== null
        ? ', KV cache ' + bytesText(i.kv_bytes_per_token) + ' B per token' : '') +
      (i.vision_type ? '; vision tower ' + i.vision_type + ': ' + ['text', 'vision', 'projector']
        .map((p) => p + ' ' + bytesText(i.parts[p].parameters) + ' parameters, ' +
          triple(i.parts[p].bytes)).join('; ') : '');
  }

  function onField(input) {
    const [table, key] = input.dataset.key.split('.');
    const v = tomlValue(input.value, input.dataset.type);
    const t = performance.now();
    setText(spliceKey(page.text, table, null, key, v));
    page.timing.edits_ms.push(performance.now() - t);
  }

  const OFFER_COLS = ['id', 'gpu', 'count', 'memory', 'price', 'duration'];
  function renderOfferForm(offers) {
    const body = $('offers-form').tBodies[0];
    if (body.contains(document.activeElement))
      return;
    body.textContent = '';
    offers.forEach((o, n) => {
      const tr = el('tr');
      for (const c of OFFER_COLS) {
        const input = el('input', { 'data-offer': String(n), 'data-col': c, 'aria-label': 'offer ' + (n + 1) + ' ' + c });
        if (c === 'gpu')
          input.setAttribute('list', 'card-names');
        input.value = o[c] === null || o[c] === undefined ? '' : String(o[c]);
        input.addEventListener('change', () => {
          setText(spliceKey(page.text, 'offer', n, c, tomlValue(input.value, c === 'count' ? 'int' : 'string')));
        });
        tr.append(el('td', {}, input));
      }
      const del = el('button', { type: 'button' }, 'remove');
      del.addEventListener('click', () => {
        const lines = page.text.split('\n');
        const sec = findSection(lines, 'offer', n);
        if (sec) {
          lines.splice(sec.start, sec.end - sec.start);
          setText(lines.join('\n'));
        }
      });
      tr.append(el('td', {}, del));
      body.append(tr);
    });
  }

  /* ---- results -------------------------------------------------------------------------- */

  const PHASE_ABBR = { load: 'load', prefill: 'pref', decode: 'dec', forward: 'fwd',
    backward: 'bwd', optimizer_step: 'step', eval: 'eval', export: 'exp' };

  /* one colour per item row, distinct for neighbours (Okabe-Ito, then Tableau) */
  const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442',
    '#4E79A7', '#F28E2B', '#59A14F', '#B07AA1', '#76B7B2', '#EDC948', '#FF9DA7', '#9C755F',
    '#BAB0AC', '#E15759'];
  function itemColour(id, i) {
    return PALETTE[i % PALETTE.length];
  }

  function renderEstimate(est) {
    $('weights-only').textContent = est.weights_only_bytes === null ? 'unknown'
      : triple(est.weights_only_bytes);
    if (est.peak_bytes !== null)
      $('peak').textContent = triple(est.peak_bytes) + ' in ' + est.peak_phase;
    else
      $('peak').textContent = 'unknown (needs ' + est.unknowns.map((u) => u.id).join(', ') + ')' +
        (est.peak_lower_bound_bytes !== null ? '; at least ' + triple(est.peak_lower_bound_bytes) : '');
    if (est.envelope_bytes !== null)
      $('envelope').textContent = triple(est.envelope_bytes);
    else
      $('envelope').textContent = est.envelope_lower_bound_bytes !== null
        ? 'at least ' + triple(est.envelope_lower_bound_bytes) + ' (the items that could be computed)'
        : 'unknown';
    $('gpus').textContent = est.gpus + ' GPU(s); figures are per GPU' +
      (est.per_stage.length > 1 ? ', ' + est.per_stage.length + ' pipeline stages' : '');

    const v = $('verdict');
    if (est.verdict) {
      v.hidden = false;
      const cap = triple(est.capacity_bytes) + ' (' + est.capacity_from + ')';
      if (est.verdict.fits === null)
        v.textContent = 'cannot tell against ' + cap + ': ' + est.verdict.reason;
      else
        v.textContent = (est.verdict.fits ? 'fits ' : 'does not fit ') + cap + ': margin ' +
          bytesText(est.verdict.margin_bytes) + ' B = ' + gib(est.verdict.margin_bytes) +
          ' GiB, decided in ' + est.verdict.phase;
      v.className = 'verdict ' + (est.verdict.fits === true ? 'fit' : est.verdict.fits === false ? 'excluded' : 'to_confirm');
    } else {
      v.hidden = true;
    }

    const notes = $('notes');
    notes.textContent = '';
    const list = (title, arr, cls) => {
      if (!arr.length)
        return;
      notes.append(el('h3', {}, title));
      const ul = el('ul', { class: cls });
      for (const a of arr)
        ul.append(el('li', {}, a));
      notes.append(ul);
    };
    list('Unknowns: conditions to confirm', est.unknowns.map((u) => u.id + ': ' + u.needs), 'unknowns');
    list('Assumed because the sheet is silent', est.assumptions, 'assumptions');
    list('Warnings', est.warnings, 'warnings');
    if (est.kv_pool_bytes !== undefined) {
      const fw = page.result && page.result.fields ? page.result.fields['workload.framework'] : null;
      list((fw === 'sglang' ? 'SGLang' : 'vLLM') + ' KV-cache pool',
        ['pool ' + triple(est.kv_pool_bytes) + ': ' + bytesText(est.kv_blocks) +
          (fw === 'sglang' ? ' pages, ' : ' blocks, ') + bytesText(est.kv_tokens) + ' tokens'], 'kv');
    }

    const phases = Object.keys(est.phases);
    const html = [];
    est.per_stage.forEach((st) => {
      if (est.per_stage.length > 1)
        html.push('<h3>Stage ' + st.stage + ': GPUs ' + st.first_gpu + '–' +
          (st.first_gpu + st.gpus - 1) + '</h3>');
      html.push(itemsTable(st, phases), phaseTable(st, phases, est), phaseBars(st, phases, est));
    });
    if (est.host_ram)
      html.push(hostTable(est.host_ram));
    $('stages').innerHTML = html.join('');
  }

  /* llama.cpp / Ollama: what stays in host RAM, and its peak */
  function hostTable(h) {
    const phases = Object.keys(h.phases);
    const out = ['<table class="items host"><caption>Host RAM (what llama.cpp keeps off the GPU): peak ',
      esc(triple(h.peak_bytes)), ' in ', esc(h.peak_phase), '</caption><thead><tr>', th('#'),
      th('item'), th('basis')];
    for (const p of phases)
      out.push(th(PHASE_ABBR[p] || p, 'ph', p));
    out.push(th('bytes [B]', 'num'), th('[GiB]', 'num'), th('[GB]', 'num'), th('how'), '</tr></thead><tbody>');
    h.items.forEach((it, i) => {
      out.push('<tr class="basis-', esc(it.basis), '">', td(i + 1), td(it.id), td(it.basis));
      for (const p of phases)
        out.push(td(it.phases.includes(p) ? 'x' : '.', 'ph'));
      out.push(td(bytesText(it.bytes), 'num'), td(gib(it.bytes), 'num'), td(gb(it.bytes), 'num'),
        td(it.how, 'how'), '</tr>');
    });
    out.push('<tr class="total">', td(''), td('total per phase'), td(''));
    for (const p of phases)
      out.push(td(gib(h.phases[p]), 'ph'));
    out.push(td(bytesText(h.peak_bytes), 'num'), td(gib(h.peak_bytes), 'num'), td(gb(h.peak_bytes), 'num'),
      td('peak (' + h.peak_phase + ')', 'how'), '</tr></tbody></table>');
    return out.join('');
  }

  /* The tables and bars are built as HTML text (one parse) rather than node by node: an
   * edit redraws them all, and this is the larger part of an edit's time. */
  const ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
  const esc = (v) => String(v).replace(/[&<>"']/g, (c) => ESC[c]);
  const td = (v, cls) => '<td' + (cls ? ' class="' + cls + '"' : '') + '>' + esc(v) + '</td>';
  const th = (v, cls, title) => '<th' + (cls ? ' class="' + cls + '"' : '') +
    (title ? ' title="' + esc(title) + '"' : '') + '>' + esc(v) + '</th>';

  function itemsTable(st, phases) {
    const h = ['<table class="items"><caption>Items per GPU (x: live in the phase)</caption><thead><tr>',
      th('#'), th('item'), th('basis')];
    for (const p of phases)
      h.push(th(PHASE_ABBR[p] || p, 'ph', p));
    h.push(th('bytes [B]', 'num'), th('[GiB]', 'num'), th('[GB]', 'num'), th('how'), '</tr></thead><tbody>');
    st.items.forEach((it, i) => {
      h.push('<tr class="basis-', esc(it.basis), '">', td(i + 1),
        '<td><span class="swatch" style="background:', itemColour(it.id, i), '"></span>', esc(it.id), '</td>',
        td(it.basis));
      for (const p of phases)
        h.push(td(it.phases.includes(p) ? 'x' : '.', 'ph'));
      h.push(td(bytesText(it.bytes), 'num'), td(gib(it.bytes), 'num'), td(gb(it.bytes), 'num'),
        td(it.how, 'how'), '</tr>');
    });
    h.push('</tbody></table>');
    return h.join('');
  }

  function phaseTable(st, phases, est) {
    const h = ['<table class="phases"><caption>Per-phase totals per GPU (', esc(est.counter),
      ' counter; tensors alone in the last column)</caption><thead><tr>', th('phase'),
      th('bytes [B]', 'num'), th('[GiB]', 'num'), th('[GB]', 'num'), th('allocated [B]', 'num'),
      '</tr></thead><tbody>'];
    for (const p of phases) {
      const b = st.phases[p];
      h.push('<tr>', td(p), td(bytesText(b), 'num'), td(gib(b), 'num'), td(gb(b), 'num'),
        td(bytesText(st.phases_allocated[p]), 'num'), '</tr>');
    }
    h.push('</tbody></table>');
    return h.join('');
  }

  /* One stacked bar per phase: each live item a segment, widths to one scale (the largest
   * phase or the capacity), the capacity as a line. */
  function phaseBars(st, phases, est) {
    let scale = 1n;
    for (const p of phases)
      if (big(st.phases[p]) > scale)
        scale = big(st.phases[p]);
    const cap = est.capacity_bytes !== undefined ? big(est.capacity_bytes) : null;
    if (cap !== null && cap > scale)
      scale = cap;
    const pct = (x) => Number((big(x) * 100000n) / scale) / 1000;
    const h = ['<div class="bars" role="img" aria-label="memory per phase, stacked by item">'];
    for (const p of phases) {
      h.push('<div class="barrow" data-phase="', esc(p), '"><span class="barlabel">', esc(p),
        '</span><div class="bar">');
      st.items.forEach((it, i) => {
        if (it.phases.includes(p) && big(it.bytes) !== 0n)
          h.push('<span class="seg" style="width:', pct(it.bytes), '%;background:', itemColour(it.id, i),
            '" title="', esc(it.id + ': ' + triple(it.bytes)), '"></span>');
      });
      if (cap !== null)
        h.push('<span class="cap" style="left:', pct(cap), '%" title="', esc('capacity ' + triple(cap)), '"></span>');
      h.push('</div><span class="bartotal">', gib(st.phases[p]), ' GiB</span></div>');
    }
    h.push('</div>');
    return h.join('');
  }

  function renderPlan(ans) {
    const box = $('plan');
    box.textContent = '';
    $('sizing').textContent = ans.sizing_markdown || '';
    $('download-md').disabled = !ans.sizing_markdown;
    if (!ans.plan) {
      const e = ans.plan_error;
      box.append(el('p', { class: 'error' }, 'plan: ' + (e.line ? e.source + ':' + e.line + ':' + e.column + ': ' : '') +
        e.message + ' (' + e.status + ')'));
      return;
    }
    if (!ans.plan.candidates.length) {
      box.append(el('p', { class: 'hint' }, 'Add offers to classify them (fit, to_confirm, excluded) and rank them.'));
      return;
    }
    const body = el('tbody');
    for (const c of ans.plan.candidates) {
      const reqs = el('ul', { class: 'reqs' });
      for (const r of c.requirements)
        reqs.append(el('li', { class: r.verdict }, el('strong', {}, r.id + ': ' + r.verdict), ' ',
          r.condition, r.evidence ? ' [' + r.evidence + ']' : ''));
      body.append(el('tr', { class: c.verdict },
        el('td', {}, c.offer), el('td', { class: 'verdict-cell' }, c.verdict),
        el('td', { class: 'num' }, c.rank === null ? '–' : c.rank),
        el('td', {}, c.total_cost || '–'),
        el('td', { class: 'num' }, c.margin_bytes === null ? 'unknown'
          : bytesText(c.margin_bytes) + ' B = ' + gib(c.margin_bytes) + ' GiB'),
        el('td', {}, reqs)));
    }
    box.append(el('table', { class: 'candidates' },
      el('caption', {}, 'Candidates: adopted only when every requirement is fit; ranked by cost, margin, schedule'),
      el('thead', {}, el('tr', {}, el('th', {}, 'offer'), el('th', {}, 'verdict'),
        el('th', { class: 'num' }, 'rank'), el('th', {}, 'total cost'), el('th', { class: 'num' }, 'margin [B], [GiB]'),
        el('th', {}, 'requirements'))), body));
  }

  /* ---- model files: only the header bytes, through Blob.slice -------------------------- */

  async function sliceBytes(file, start, end) {
    return new Uint8Array(await file.slice(start, end).arrayBuffer());
  }

  /* reg(kind, bytes, fileSize, name): page.vp.model (the model file) or page.vp.file (a
   * file the sheet names beside it); name: the name it is kept under (default: the file's) */
  async function readModel(file, reg, name) {
    reg = reg || ((k, b, n, nm) => page.vp.model(k, b, n, nm));
    name = name || file.name;
    const lower = name.toLowerCase();
    if (lower.endsWith('.safetensors')) {
      const head = await sliceBytes(file, 0, 8);
      if (head.length < 8)
        return { ans: reg('safetensors', head, file.size, name), key: 'checkpoint' };
      const n = new DataView(head.buffer).getBigUint64(0, true);
      const want = n > 100000000n ? 8 : 8 + Number(n); /* the reader refuses > 100 MB */
      return { ans: reg('safetensors', await sliceBytes(file, 0, want), file.size, name), key: 'checkpoint' };
    }
    if (lower.endsWith('.gguf')) {
      /* the header's length is known only by reading it: grow the slice until it is whole */
      let len = Math.min(file.size, 1 << 20), ans;
      for (;;) {
        ans = reg('gguf', await sliceBytes(file, 0, len), file.size, name);
        if (ans.ok || ans.error.status !== 'VP_ETRUNCATED' || len >= file.size || len >= (256 << 20))
          break;
        len = Math.min(file.size, len * 4, 256 << 20);
      }
      return { ans, key: 'checkpoint' };
    }
    if (lower.endsWith('.index.json'))
      return { ans: { ok: false, error: { status: 'VP_EUNSUPPORTED', message: 'an index names shard files a page cannot open: choose config.json or one .safetensors shard', line: 0, column: 0 } } };
    if (file.size > 16 << 20)
      return { ans: { ok: false, error: { status: 'VP_ELIMIT', message: 'a config.json over 16 MiB is not a config', line: 0, column: 0 } } };
    return { ans: reg('config', await sliceBytes(file, 0, file.size), file.size, name), key: 'config' };
  }

  async function onModelFile(file) {
    const { ans, key } = await readModel(file);
    if (!ans.ok) {
      const e = ans.error;
      $('model-info').textContent = file.name + (e.line ? ':' + e.line + ':' + e.column : '') + ': ' + e.message;
      $('model-info').className = 'error';
      return;
    }
    $('model-info').className = 'hint';
    page.model = { name: file.name, info: ans.model, raw: page.vp.lastText };
    const f = page.result && page.result.fields ? page.result.fields : {};
    let text = page.text;
    const named = f['model.' + key];
    if (!(named && baseName(named) === file.name))
      text = spliceKey(text, 'model', null, key, JSON.stringify(file.name));
    setText(text);
  }

  /* The files the sheet names beside the model: [draft] config or checkpoint,
   * workload.mmproj, workload.lora_adapters. Each is read header only, like the model, and
   * kept by name in the module; the library looks them up by the paths the sheet gives
   * (the file's name ends the path) when it runs. */
  async function onSideFiles(files) {
    page.vp.file(null);
    const shown = [], names = [];
    for (const file of files) {
      const name = file.webkitRelativePath || file.name;
      const { ans } = await readModel(file, (k, b, n, nm) => page.vp.file(k, b, n, nm), name);
      if (ans.ok) {
        names.push(name);
        shown.push(name + ': ' + modelText({ name, info: ans.model }).slice(name.length + 2));
      } else {
        const e = ans.error;
        shown.push(name + (e.line ? ':' + e.line + ':' + e.column : '') + ': ' + e.message +
          ' (not used)');
      }
    }
    page.sideFiles = names;
    const box = $('side-info');
    box.textContent = '';
    for (const line of shown)
      box.append(el('div', {}, line));
    recompute();
  }

  /* ---- downloads ------------------------------------------------------------------------ */

  function download(name, text, type) {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = el('a', { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  /* ---- start ---------------------------------------------------------------------------- */

  function wire() {
    for (const input of document.querySelectorAll('[data-key]'))
      input.addEventListener('change', () => onField(input));
    $('toml').addEventListener('input', () => {
      const t = performance.now();
      page.text = $('toml').value;
      recompute();
      page.timing.edits_ms.push(performance.now() - t);
    });
    $('capacity').addEventListener('change', () => {
      page.capacity = $('capacity').value.trim();
      recompute();
    });
    $('reserve-add').addEventListener('click', () => {
      const name = $('reserve-name').value.trim(), size = $('reserve-size').value.trim();
      if (!name || !size)
        return;
      setText(spliceKey(page.text, 'reserve', null, name, JSON.stringify(size)));
      $('reserve-name').value = '';
      $('reserve-size').value = '';
    });
    $('offer-add').addEventListener('click', () => {
      const n = page.result && page.result.fields ? page.result.fields.offers.length : 0;
      setText(page.text.replace(/\n*$/, '') + '\n\n[[offer]]\nid = "offer-' + (n + 1) +
        '"\ngpu = "RTX 4090"\ncount = 1\nmemory = "24 GB"\n');
    });
    $('model-file').addEventListener('change', (ev) => {
      const f = ev.target.files && ev.target.files[0];
      if (f)
        onModelFile(f).catch((e) => { $('model-info').textContent = String(e); });
    });
    $('side-files').addEventListener('change', (ev) => {
      onSideFiles([...(ev.target.files || [])]).catch((e) => { $('side-info').textContent = String(e); });
    });
    for (const b of document.querySelectorAll('[data-fit]'))
      b.addEventListener('click', () => {
        const ans = page.vp.fit(page.text, b.dataset.fit, page.capacity);
        let text = ans.ok
          ? 'largest ' + ans.target + ' that fits ' + triple(ans.capacity_bytes) + ' per GPU (' +
            ans.capacity_from + '): ' + bytesText(ans.value)
          : b.dataset.fit + ': ' + ans.error.message + (ans.error.status === 'VP_EMISSING'
            ? ' (give a capacity: a card or a quantity)' : '');
        if (ans.ok && ans.target === 'gpu_layers')
          text += ' of ' + ans.layers_total + ' (' + (ans.output_layer_on_gpu ? 'the output layer and ' : '') +
            ans.repeating_layers_on_gpu + ' repeating layers on the GPU); GPU peak ' +
            triple(ans.gpu_peak_bytes) + '; host RAM needed ' + triple(ans.host_ram_bytes) +
            ' (' + ans.host_ram_phase + ')';
        $('fit-result').textContent = text;
      });
    $('download-toml').addEventListener('click', () =>
      download('sheet.toml', page.text, 'application/toml'));
    $('download-md').addEventListener('click', () =>
      page.result && page.result.sizing_markdown &&
      download('sizing-sheet.md', page.result.sizing_markdown, 'text/markdown'));
    $('tidy').addEventListener('click', () => {
      const ans = page.vp.edit(page.text, []);
      if (ans.ok)
        setText(ans.text);
    });
    $('share').addEventListener('click', writeFragment);
    window.addEventListener('pagehide', writeFragment);
    window.addEventListener('hashchange', () => {
      const fr = readFragment();
      if (fr.sheet !== null && fr.sheet !== page.text) {
        page.capacity = fr.capacity;
        $('capacity').value = fr.capacity;
        setText(fr.sheet);
      }
    });
  }

  async function start() {
    try {
      page.vp = await window.Vramplan.load('vramplan.wasm');
    } catch (e) {
      $('status').textContent = 'cannot start: ' + e.message +
        ' (serve this folder over HTTP: python3 -m http.server)';
      $('status').className = 'status error';
      return;
    }
    const cat = page.vp.cards();
    page.version = cat.version;
    $('version').textContent = cat.version;
    for (const c of cat.cards)
      $('card-names').append(el('option', { value: c.name }));
    for (const w of WEIGHT_FORMATS)
      $('weight-formats').append(el('option', { value: w }));
    wire();
    const fr = readFragment();
    page.capacity = fr.capacity;
    $('capacity').value = fr.capacity;
    setText(fr.sheet !== null ? fr.sheet : SEED);
    if (fr.error)
      $('status').textContent = fr.error + '; the seed example is shown';
    writeFragment();
    page.timing.load_ms = performance.now();
    page.timing.script_ms = performance.now() - t0;
    document.documentElement.dataset.ready = '1';
  }

  page.seed = SEED;
  page.spliceKey = spliceKey;
  page.setText = setText;
  page.recompute = recompute;
  page.render = render;
  page.b64urlEncode = b64urlEncode;
  start();
})();
