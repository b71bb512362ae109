"""Importing the binding stays cheap: the library is found by its known names first, and
nothing slow (ctypes.util, which pulls in subprocess; glob; re; json) is imported unless it
is needed."""

import os
import subprocess
import sys
import types
import unittest
from unittest import mock

from vramplan import _lib

# Imported by `import vramplan` only when a known name cannot be loaded, or on first use.
_SLOW = ("ctypes.util", "subprocess", "glob", "re", "json")


def _run(code):
    """`code` in a fresh interpreter with this process's environment; its stdout."""
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env=dict(os.environ))
    return out.stdout


class ImportTest(unittest.TestCase):
    def test_import_loads_nothing_slow(self):
        # modules the interpreter had before (site may import re) do not count
        code = ("import sys; before = set(sys.modules); import vramplan; "
                "print(' '.join(sorted(set(sys.modules) - before)))")
        new = _run(code).split()
        self.assertIn("vramplan._lib", new)
        for name in _SLOW:
            self.assertNotIn(name, new, "import vramplan imported %s" % name)

    def test_functions_bound_on_first_use(self):
        # binding every function of the table at import cost more than the rest of it
        code = ("import vramplan\n"
                "L = vramplan.L\n"
                "print(sum(k.startswith('vp_') for k in vars(L)))\n"
                "v = L.vp_version_string()\n"
                "print(type(v).__name__, sorted(k for k in vars(L) if k.startswith('vp_')))")
        first, second = _run(code).splitlines()
        self.assertEqual(first, "0")
        self.assertEqual(second, "bytes ['vp_version_string']")

    def test_a_function_the_library_lacks(self):
        from vramplan import _ffi

        class Old:  # a library without vp_plan_json
            def __getitem__(self, name):
                raise AttributeError(name)

        with self.assertRaises(ImportError) as cm:
            _ffi.bind(Old())
        self.assertIn("vp_plan_json", str(cm.exception))
        bound = _ffi.Bound(Old())
        with self.assertRaises(AttributeError) as cm:
            bound.vp_estimate_json
        self.assertIn("libvramplan >= 0.2 with vp_estimate_json", str(cm.exception))
        with self.assertRaises(AttributeError):
            bound.not_a_function

    def test_known_names_before_ctypes_util(self):
        code = ("import sys; from vramplan import _lib; names = []\n"
                "for p in _lib._candidates():\n"
                "    names.append(p)\n"
                "    if p == _lib.SONAME: break\n"
                "print('ctypes.util' in sys.modules, len(names))")
        loaded, count = _run(code).split()
        self.assertEqual(loaded, "False")
        self.assertGreaterEqual(int(count), 2)

    def test_ctypes_util_is_the_last_resort(self):
        fake = types.ModuleType("ctypes.util")
        fake.find_library = lambda name: "/found/by/ctypes.util/lib%s.so.0" % name
        with mock.patch.dict(sys.modules, {"ctypes.util": fake}), \
                mock.patch.dict(os.environ, {"VRAMPLAN_LIBRARY": "/first/libvramplan.so.0"}):
            names = list(_lib._candidates())
        self.assertEqual(names[0], "/first/libvramplan.so.0")
        self.assertEqual(names[-2], _lib.SONAME)
        self.assertEqual(names[-1], "/found/by/ctypes.util/libvramplan.so.0")

    def test_build_trees_by_name(self):
        import tempfile
        with tempfile.TemporaryDirectory() as root:
            for name in ("build-b", "builddir", "build-a", "other", "build-file"):
                path = os.path.join(root, name)
                if name == "build-file":
                    open(path, "w").close()
                else:
                    os.mkdir(path)
            found = [os.path.relpath(p, root) for p in _lib._build_trees(root)]
        self.assertEqual(found, [os.path.join(n, "lib", _lib.SONAME)
                                 for n in ("build-a", "build-b", "builddir")])
        self.assertEqual(list(_lib._build_trees(os.path.join(root, "gone"))), [])


if __name__ == "__main__":
    unittest.main()
