#!/usr/bin/env python3
"""The library and the CLI under a 32-bit size_t (suites web and m32).

Builds lib/*.c and tools/*.c with `CC -m32` (Debian: gcc-multilib) and the project's
warning flags plus -Werror, so the library stays warning-free where size_t is 32 bits (as
in the WebAssembly page), then runs the same commands with the 32-bit and the 64-bit CLI and
requires identical stdout, stderr and exit status: every JSON output (estimate, plan, fit,
diagnose, inspect, cards) over the example sheets, the sheets under tests/data and every
config.json under tests/data/configs.

Exit 77 (skipped) when the compiler cannot build and run a -m32 program.
Usage: check-32bit.py CC VRAMPLAN64 SOURCE_ROOT BUILD_INCLUDE
"""
import glob
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

WARNINGS = ['-Wall', '-Wextra', '-Wpedantic', '-Wconversion', '-Wsign-conversion', '-Wshadow',
            '-Wstrict-prototypes', '-Wmissing-prototypes', '-Wformat=2', '-Wvla', '-Werror']


def main():
    cc, cli64, root, build_include = sys.argv[1:5]
    cc = shlex.split(cc)
    work = tempfile.mkdtemp(prefix='vramplan-m32-')
    try:
        probe = os.path.join(work, 'probe.c')
        with open(probe, 'w') as f:
            f.write('#include <stdint.h>\nint main(void) { return SIZE_MAX == UINT32_MAX ? 0 : 1; }\n')
        r = subprocess.run(cc + ['-m32', probe, '-o', probe + '.exe'], capture_output=True)
        if r.returncode != 0:
            print('SKIP: %s -m32 cannot build a 32-bit program (Debian: apt-get install '
                  'gcc-multilib)' % ' '.join(cc))
            return 77
        try:
            ran = subprocess.run([probe + '.exe']).returncode
        except OSError as e:  # a kernel without 32-bit support: "Exec format error"
            ran = e
        sources = sorted(glob.glob(os.path.join(root, 'lib', '*.c')) +
                         glob.glob(os.path.join(root, 'tools', '*.c')))
        flags = ['-m32', '-std=c11', '-O2', '-I' + os.path.join(root, 'include'),
                 '-I' + build_include] + WARNINGS

        def compile_one(src):
            obj = os.path.join(work, os.path.basename(os.path.dirname(src)) + '-' +
                               os.path.basename(src) + '.o')
            r = subprocess.run(cc + flags + ['-c', src, '-o', obj], capture_output=True, text=True)
            return obj, r

        with ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(compile_one, sources))
        bad = [r for _, r in results if r.returncode != 0]
        for r in bad:
            sys.stdout.write(r.stderr)
        if bad:
            print('FAIL: %d source(s) do not build warning-free with -m32' % len(bad))
            return 1
        cli32 = os.path.join(work, 'vramplan32')
        r = subprocess.run(cc + ['-m32', '-o', cli32] + [o for o, _ in results] + ['-lm'],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stderr)
            print('FAIL: the 32-bit CLI does not link')
            return 1
        print('ok   %d sources build warning-free with %s -m32 (size_t is 32 bits)'
              % (len(sources), ' '.join(cc)))
        if ran != 0:  # built and linked, but nothing 32-bit runs here: no outputs to compare
            print('SKIP: this machine cannot run a 32-bit program (%s): the 32-bit build is '
                  'checked, its outputs are not compared' % ran)
            return 77

        sheets = sorted(glob.glob(os.path.join(root, 'examples', '*.toml')) +
                        glob.glob(os.path.join(root, 'tests', 'data', '**', '*.toml'),
                                  recursive=True))
        configs = sorted(glob.glob(os.path.join(root, 'tests', 'data', 'configs', '*',
                                                'config.json')))
        runs = [['cards', '--json']]
        for s in sheets:
            runs += [['estimate', s, '--json'], ['plan', s, '--json'], ['diagnose', s, '--json'],
                     ['estimate', s, '--json', '--capacity', 'RTX 4090'],
                     ['fit', s, '--solve', 'context', '--capacity', '80 GB', '--json']]
        for c in configs:
            runs.append(['inspect', c, '--json'])
        failed = same_ok = 0
        for args in runs:
            a = subprocess.run([cli64] + args, capture_output=True)
            b = subprocess.run([cli32] + args, capture_output=True)
            if (a.returncode, a.stdout, a.stderr) != (b.returncode, b.stdout, b.stderr):
                failed += 1
                print('FAIL vramplan %s: 64-bit exit %d, %d B out; 32-bit exit %d, %d B out'
                      % (' '.join(os.path.relpath(x, root) if os.path.isabs(x) else x for x in args),
                         a.returncode, len(a.stdout), b.returncode, len(b.stdout)))
                print('     64: %s\n     32: %s' % ((a.stdout or a.stderr)[:300],
                                                    (b.stdout or b.stderr)[:300]))
            elif a.returncode == 0:
                same_ok += 1
        print('%s %d commands over %d sheets and %d configs: the same bytes from the 32-bit and '
              'the 64-bit CLI (%d with exit 0)' % ('FAIL' if failed else 'ok  ', len(runs),
                                                  len(sheets), len(configs), same_ok))
        return 1 if failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
