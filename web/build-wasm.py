#!/usr/bin/env python3
"""Build web/vramplan.wasm: compile the library's sources and web/glue.c for wasm32-wasi,
link them once as a reactor (no main; the page calls the exports), write a Make depfile
(every header each source includes, so that Ninja rebuilds on any header change) and print
the module's size, raw and gzipped.

Usage: build-wasm.py CLANG OUTPUT DEPFILE CFLAGS... -- SOURCES... -- LDFLAGS...
"""
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor


def main():
    clang, out, depfile = sys.argv[1:4]
    rest = sys.argv[4:]
    i = rest.index('--')
    j = rest.index('--', i + 1)
    cflags, sources, ldflags = rest[:i], rest[i + 1:j], rest[j + 1:]
    target = ['--target=wasm32-wasi']
    work = tempfile.mkdtemp(prefix='vramplan-wasm-', dir=os.path.dirname(os.path.abspath(out)))
    try:
        jobs = []
        for k, src in enumerate(sources):
            obj = os.path.join(work, '%02d-%s.o' % (k, os.path.basename(src)))
            dep = obj + '.d'
            jobs.append((src, obj, dep,
                         [clang] + target + cflags + ['-MD', '-MF', dep, '-c', src, '-o', obj]))
        workers = max(1, min(len(jobs), int(os.environ.get('VP_WASM_JOBS', '2'))))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            codes = list(pool.map(lambda j: subprocess.run(j[3]).returncode, jobs))
        if any(codes):
            return 1
        tmp = out + '.tmp'
        link = [clang] + target + ['-mexec-model=reactor', '-o', tmp] + \
            [j[1] for j in jobs] + ldflags
        if subprocess.run(link).returncode != 0:
            return 1
        deps = set()
        for j in jobs:
            with open(j[2]) as f:
                text = f.read().replace('\\\n', ' ')
            deps.update(text.split(':', 1)[1].split())
        with open(depfile + '.tmp', 'w') as f:
            f.write('%s: %s\n' % (out, ' \\\n  '.join(sorted(deps))))
        os.replace(depfile + '.tmp', depfile)
        os.replace(tmp, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    with open(out, 'rb') as f:
        data = f.read()
    gz = len(gzip.compress(data, 9))
    print('web: %s: %s B (gzip -9: %s B)' % (os.path.basename(out), format(len(data), ','),
                                            format(gz, ',')))
    return 0


if __name__ == '__main__':
    sys.exit(main())
