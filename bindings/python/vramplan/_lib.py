"""Finding and loading libvramplan.

Search order: the VRAMPLAN_LIBRARY environment variable; a libvramplan.so.0 beside this
package or in a Meson build tree above it (build*/lib, builddir/lib); the SONAME
libvramplan.so.0 through the dynamic loader; and only when none of these loads,
ctypes.util.find_library("vramplan"), then the libdir pkg-config gives for vramplan (after
`meson install` into a prefix the loader does not search, or before `ldconfig` ran). The
loaded library's version must be at least MIN_VERSION.

The known names come first so that importing the binding costs no more than loading the
library: ctypes.util (which imports subprocess and runs ldconfig or gcc on some systems) and
glob are used only as the last resort, when every known name failed.
"""

import ctypes
import os

MIN_VERSION = 100  # 0.1.0 as MAJOR*10000 + MINOR*100 + PATCH

SONAME = "libvramplan.so.0"

_HERE = os.path.dirname(os.path.abspath(__file__))


def _build_trees(root):
    """libvramplan.so.0 in the Meson build folders of `root` (build*, builddir), by name."""
    try:
        names = sorted(e.name for e in os.scandir(root)
                       if e.name.startswith("build") and e.is_dir())
    except OSError:
        return
    for name in names:
        yield os.path.join(root, name, "lib", SONAME)


def _candidates():
    """The known names, in order; then what ctypes.util finds (imported only now)."""
    env = os.environ.get("VRAMPLAN_LIBRARY")
    if env:
        yield env
    yield os.path.join(_HERE, SONAME)
    yield from _build_trees(os.path.abspath(os.path.join(_HERE, "..", "..", "..")))
    yield SONAME
    # slow (subprocess, and an ldconfig or compiler run): the last resort
    from ctypes.util import find_library
    found = find_library("vramplan")
    if found:
        yield found
    libdir = _pkg_config_libdir()
    if libdir:
        yield os.path.join(libdir, SONAME)


def _pkg_config_libdir():
    """`pkg-config --variable=libdir vramplan`, or None (no pkg-config, not installed)."""
    import subprocess
    try:
        r = subprocess.run(["pkg-config", "--variable=libdir", "vramplan"], capture_output=True,
                           text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout.strip() or None if r.returncode == 0 else None


def load():
    """Load the shared object and check its version; raise ImportError with hints."""
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (absent)")
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            tried.append("%s (%s)" % (path, exc))
            continue
        lib.vp_version_number.restype = ctypes.c_uint
        lib.vp_version_number.argtypes = []
        version = lib.vp_version_number()
        if version < MIN_VERSION:
            raise ImportError("libvramplan %d.%d.%d at %s is older than this binding needs "
                              "(0.1.0)" % (version // 10000, version // 100 % 100, version % 100, path))
        return lib, path
    raise ImportError("libvramplan.so.0 not found; tried: %s. Build it (meson setup build && "
                      "meson compile -C build), install it (meson install), or set "
                      "VRAMPLAN_LIBRARY to its path." % "; ".join(tried))
