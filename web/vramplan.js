/*
 * Loads vramplan.wasm (libvramplan built for wasm32-wasi) and wraps its exports
 * (web/glue.c) as functions of strings that return parsed JSON.
 *
 * The module imports a few WASI calls from wasi-libc's start-up and stdio. The library
 * itself makes no system call on the page's paths (sheets and model headers arrive as
 * bytes), so every WASI call is answered by a stub: the clock and random bytes from the
 * browser, writes to stdout/stderr to the console, no environment, no arguments, no
 * pre-opened folders (a file open fails as it would without permission), and ENOSYS for
 * anything else. Nothing is fetched but the module itself.
 */
(function (global) {
  'use strict';

  const ERRNO_SUCCESS = 0, ERRNO_BADF = 8, ERRNO_NOSYS = 52;

  function wasiImports(getMemory) {
    const view = () => new DataView(getMemory().buffer);
    const lines = { 1: '', 2: '' };
    const known = {
      fd_write(fd, iovs, iovsLen, nwritten) {
        const v = view();
        let n = 0;
        for (let i = 0; i < iovsLen; i++) {
          const ptr = v.getUint32(iovs + 8 * i, true), len = v.getUint32(iovs + 8 * i + 4, true);
          if (fd === 1 || fd === 2)
            lines[fd] += new TextDecoder().decode(new Uint8Array(getMemory().buffer, ptr, len));
          n += len;
        }
        for (const k of [1, 2]) {
          let nl;
          while ((nl = lines[k].indexOf('\n')) >= 0) {
            (k === 1 ? console.log : console.warn)('vramplan.wasm: ' + lines[k].slice(0, nl));
            lines[k] = lines[k].slice(nl + 1);
          }
        }
        v.setUint32(nwritten, n, true);
        return fd === 1 || fd === 2 ? ERRNO_SUCCESS : ERRNO_BADF;
      },
      clock_time_get(id, precision, out) {
        const ns = BigInt(Math.round(id === 0 ? Date.now() * 1e6 : performance.now() * 1e6));
        view().setBigUint64(out, ns, true);
        return ERRNO_SUCCESS;
      },
      random_get(buf, len) {
        const bytes = new Uint8Array(getMemory().buffer, buf, len);
        for (let off = 0; off < len; off += 65536)
          crypto.getRandomValues(bytes.subarray(off, Math.min(len, off + 65536)));
        return ERRNO_SUCCESS;
      },
      environ_sizes_get(count, size) {
        view().setUint32(count, 0, true);
        view().setUint32(size, 0, true);
        return ERRNO_SUCCESS;
      },
      environ_get() { return ERRNO_SUCCESS; },
      args_sizes_get(count, size) {
        view().setUint32(count, 0, true);
        view().setUint32(size, 0, true);
        return ERRNO_SUCCESS;
      },
      args_get() { return ERRNO_SUCCESS; },
      fd_prestat_get() { return ERRNO_BADF; }, /* no pre-opened folders */
      fd_fdstat_get(fd) { return fd <= 2 ? ERRNO_NOSYS : ERRNO_BADF; },
      fd_close() { return ERRNO_BADF; },
      proc_exit(code) { throw new Error('vramplan.wasm exited with status ' + code); },
    };
    return known;
  }

  /* Every import the module declares gets a function: a known one, or ENOSYS. */
  function importObject(module, getMemory) {
    const known = wasiImports(getMemory);
    const imports = {};
    for (const imp of WebAssembly.Module.imports(module)) {
      if (imp.kind !== 'function')
        continue;
      imports[imp.module] = imports[imp.module] || {};
      imports[imp.module][imp.name] = known[imp.name] || (() => ERRNO_NOSYS);
    }
    return imports;
  }

  function wrap(instance) {
    const x = instance.exports;
    const enc = new TextEncoder(), dec = new TextDecoder();
    const mem = () => new Uint8Array(x.memory.buffer);

    /* bytes into a block of the module's memory (NUL-terminated); the caller frees it */
    function put(bytes) {
      const p = x.vpw_alloc(bytes.length + 1);
      if (!p)
        throw new Error('vramplan.wasm: out of memory');
      const m = mem();
      m.set(bytes, p);
      m[p + bytes.length] = 0;
      return p;
    }
    /* the answer's text (kept as api.lastText), parsed; integers beyond 2^53 stay exact
     * (BigInt) where the browser gives a reviver the source text of each value */
    function take(p) {
      if (!p)
        throw new Error('vramplan.wasm: out of memory');
      const m = mem();
      const end = m.indexOf(0, p);
      const text = dec.decode(m.subarray(p, end));
      x.vpw_free(p);
      api.lastText = text;
      return JSON.parse(text, function (k, v, ctx) {
        if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v) && ctx &&
            typeof ctx.source === 'string' && /^-?[0-9]+$/.test(ctx.source))
          return BigInt(ctx.source);
        return v;
      });
    }
    /* call fn with (text, length) for the first string and C strings for the rest */
    function call(fn, text, ...strings) {
      const bytes = enc.encode(text);
      const ptrs = [put(bytes), ...strings.map((s) => put(enc.encode(s || '')))];
      try {
        return take(fn(ptrs[0], bytes.length, ...ptrs.slice(1)));
      } finally {
        for (const p of ptrs)
          x.vpw_free(p);
      }
    }
    /* a file's header bytes handed to fn (vpw_model or vpw_file), which owns them */
    function header(fn, kind, bytes, fileSize, name) {
      const k = { config: 1, safetensors: 2, gguf: 3 }[kind] || 0;
      const data = put(bytes || new Uint8Array(0)); /* owned by the module from here */
      const n = put(enc.encode(name || ''));
      try {
        return take(fn(k, data, bytes ? bytes.length : 0, fileSize || 0, n));
      } finally {
        x.vpw_free(n);
      }
    }
    const api = {
      lastText: null,
      /* estimate (and plan, when the sheet has offers) of a sheet against a capacity */
      run: (sheet, capacity) => call(x.vpw_run, sheet, capacity),
      /* the sheet with edits applied: [[key, value|null], ...]; null removes the key */
      edit: (sheet, edits) => call(x.vpw_edit, sheet,
        edits.map(([k, v]) => k + '\t' + (v === null ? '\x01' : v) + '\n').join('')),
      fit: (sheet, target, capacity) => call(x.vpw_fit, sheet, target, capacity),
      cards: () => take(x.vpw_cards()),
      /* kind: 'config' | 'safetensors' | 'gguf' | null (forget); bytes: Uint8Array */
      model: (kind, bytes, fileSize, name) => header(x.vpw_model, kind, bytes, fileSize, name),
      /* a file the sheet names beside the model ([draft], mmproj, lora_adapters), looked up
       * by its name when the sheet is run; kind null forgets them all */
      file: (kind, bytes, fileSize, name) => header(x.vpw_file, kind, bytes, fileSize, name),
    };
    return api;
  }

  /* Fetch, compile and start the module; resolves to the wrapped API. The module compiles
   * while it downloads when the server names its type (application/wasm), and the browser
   * may then keep the compiled code for the next visit; otherwise from the whole bytes. */
  async function load(url) {
    url = url || 'vramplan.wasm';
    const resp = await fetch(url);
    if (!resp.ok)
      throw new Error('cannot load ' + url + ': HTTP ' + resp.status);
    let module;
    const type = (resp.headers.get('Content-Type') || '').split(';')[0].trim();
    if (WebAssembly.compileStreaming && type === 'application/wasm')
      module = await WebAssembly.compileStreaming(resp);
    else
      module = await WebAssembly.compile(await resp.arrayBuffer());
    let instance = null;
    const imports = importObject(module, () => instance.exports.memory);
    instance = await WebAssembly.instantiate(module, imports);
    if (instance.exports._initialize)
      instance.exports._initialize();
    return wrap(instance);
  }

  global.Vramplan = { load };
})(typeof window !== 'undefined' ? window : globalThis);
