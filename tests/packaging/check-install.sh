#!/bin/sh
# What `meson install` and `pip install ./bindings/python` give a user:
# - meson install (into a scratch DESTDIR) puts the CLI, the manual page vramplan.1, the bash
#   completion and, when it was built, the calculator page where they belong;
# - `pip install --no-index ./bindings/python` works offline in a fresh virtual environment
#   (the build backend is the standard library), with and without build isolation;
# - the installed package, run from outside the source tree with no VRAMPLAN_LIBRARY, finds
#   the installed library through pkg-config's libdir (what it does after `meson install`
#   when the dynamic loader does not know the prefix yet) and computes the seed figure.
# Exit 77 when python3 cannot make a virtual environment with pip (Debian: python3-venv).
# With -Ddocs=enabled, the HTML API reference is installed in DATADIR/doc/vramplan/html.
# usage: check-install.sh BUILD_DIR SOURCE_DIR PREFIX LIBDIR DATADIR MANDIR WEB_BUILT DOCS_ENABLED
set -u
build=$1 src=$2 prefix=$3 libdir=$4 datadir=$5 mandir=$6 web=$7 docs=${8:-false}
failed=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; failed=$((failed + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
abs() { case $1 in /*) echo "$1" ;; *) echo "$prefix/$1" ;; esac; }
libdir=$(abs "$libdir") datadir=$(abs "$datadir") mandir=$(abs "$mandir")

meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >"$tmp/install.log" 2>&1 \
    || { cat "$tmp/install.log"; echo "FAIL meson install"; exit 1; }
root=$tmp/root
for f in "$prefix/bin/vramplan" "$mandir/man1/vramplan.1" "$libdir/libvramplan.so.0" \
         "$libdir/pkgconfig/vramplan.pc"; do
    if [ -f "$root$f" ]; then ok "installed $f"; else bad "not installed: $f"; fi
done
comp=$(find "$root" -path '*/bash-completion/completions/vramplan' | head -n 1)
if [ -n "$comp" ]; then ok "installed ${comp#"$root"}"; else bad "no bash completion installed"; fi
if [ -n "$comp" ] && bash -c ". '$comp' && complete -p vramplan" >/dev/null 2>&1; then
    ok "the installed completion loads in bash"
else
    bad "the installed completion does not load"
fi
if [ "$web" = true ]; then
    for f in index.html app.js vramplan.js style.css vramplan.wasm; do
        [ -f "$root$datadir/vramplan/web/$f" ] || bad "page not installed: $datadir/vramplan/web/$f"
    done
    ok "the page is installed in $datadir/vramplan/web"
fi

if [ "$docs" = true ]; then
    f=$datadir/doc/vramplan/html/index.html
    if [ -f "$root$f" ]; then ok "installed the HTML API reference: $f"; else bad "not installed: $f"; fi
fi

py=${PYTHON:-python3}
if ! "$py" -m venv "$tmp/venv" >/dev/null 2>&1 || [ ! -x "$tmp/venv/bin/pip" ]; then
    echo "SKIP: $py -m venv cannot make a virtual environment with pip (Debian: python3-venv)"
    exit 77
fi
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PYTHONDONTWRITEBYTECODE=1
# a copy, so that the source tree is not written and the package cannot see a build tree
mkdir -p "$tmp/src/bindings" && cp -R "$src/bindings/python" "$tmp/src/bindings/python" \
    && cp "$src/meson.build" "$tmp/src/meson.build"
rm -rf "$tmp/src/bindings/python/tests"
for mode in --no-build-isolation ""; do
    # shellcheck disable=SC2086
    if "$tmp/venv/bin/pip" install --quiet --no-index $mode "$tmp/src/bindings/python" >"$tmp/pip.log" 2>&1; then
        ok "pip install --no-index ${mode:-(build isolation)} ./bindings/python"
    else
        cat "$tmp/pip.log"; bad "pip install --no-index $mode"
    fi
done
version=$(sed -n "s/.*version: '\([0-9.]*\)'.*/\1/p" "$src/meson.build" | head -n 1)
got=$("$tmp/venv/bin/pip" show vramplan 2>/dev/null | sed -n 's/^Version: //p')
if [ "$got" = "$version" ]; then ok "the package's version is the library's ($got)"; else bad "version '$got', meson.build says '$version'"; fi

pcdir=$root$libdir/pkgconfig
out=$(cd "$tmp" && env -u VRAMPLAN_LIBRARY -u PYTHONPATH -u LD_LIBRARY_PATH \
      PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$root" "$tmp/venv/bin/python" -c '
import vramplan
print(vramplan.LIBRARY_PATH)
print(vramplan.Bytes(14000000000), vramplan.__file__)' 2>&1)
echo "$out" | sed 's/^/     /'
case $out in
    "$root$libdir/libvramplan.so.0"*"13.04 GiB $tmp/venv/"*) ok "the installed package loads the installed library through pkg-config's libdir" ;;
    *) bad "the installed package did not load $root$libdir/libvramplan.so.0" ;;
esac
echo "$failed failed"
[ "$failed" -eq 0 ]
