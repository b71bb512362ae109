"""Finding and loading libvramplan.

Search order: the VRAMPLAN_LIBRARY environment variable; a libvramplan.so.0 beside this
package or in a Meson build tree above it (build*/lib); the SONAME libvramplan.so.0 through
the dynamic loader; ctypes.util.find_library("vramplan"). The loaded library's version must
be at least MIN_VERSION.
"""

import ctypes
import ctypes.util
import glob
import os

MIN_VERSION = 100  # 0.1.0 as MAJOR*10000 + MINOR*100 + PATCH

_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    env = os.environ.get("VRAMPLAN_LIBRARY")
    if env:
        yield env
    yield os.path.join(_HERE, "libvramplan.so.0")
    root = os.path.abspath(os.path.join(_HERE, "..", "..", ".."))
    for pattern in ("build*/lib/libvramplan.so.0", "builddir/lib/libvramplan.so.0"):
        for path in sorted(glob.glob(os.path.join(root, pattern))):
            yield path
    yield "libvramplan.so.0"
    found = ctypes.util.find_library("vramplan")
    if found:
        yield found


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
