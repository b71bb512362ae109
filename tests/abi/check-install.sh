#!/bin/sh
# Installs the build into a scratch DESTDIR, then compiles and runs the README's C example
# (examples/hello.c, which README.md must quote verbatim) through pkg-config alone, and a
# program calling every component estimator (tests/abi/components.c) as C11 and, given a C++
# compiler, as C++17, warning-free.
# usage: check-install.sh BUILD_DIR SOURCE_DIR CC PREFIX LIBDIR [SANITIZE [CXX]]
set -eu
build=$1 src=$2 cc=$3 prefix=$4 libdir=$5 sanitize=${6:-none} cxx=${7:-}
# a sanitized library needs a sanitized program
sanflags=
case $sanitize in none|'') ;; *) sanflags="-fsanitize=$sanitize" ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The README quotes examples/hello.c exactly.
awk '/^```c$/{on=1; next} /^```$/{if(on){exit}} on' "$src/README.md" > "$tmp/readme.c"
if ! cmp -s "$tmp/readme.c" "$src/examples/hello.c"; then
    echo "README.md's C example differs from examples/hello.c:"
    diff -u "$src/examples/hello.c" "$tmp/readme.c" || true
    exit 1
fi
lines=$(grep -cv '^[[:space:]]*$' "$src/examples/hello.c")
echo "README example: $lines non-blank lines"

# everything that installs must exist, even when only this suite was asked for
meson compile -C "$1" >/dev/null || exit 1
meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >/dev/null
case $libdir in /*) ;; *) libdir="$prefix/$libdir" ;; esac
pcdir="$tmp/root$libdir/pkgconfig"
[ -f "$pcdir/vramplan.pc" ] || { echo "no vramplan.pc in $pcdir"; exit 1; }
[ -f "$tmp/root$prefix/include/vramplan.h" ] || { echo "vramplan.h not installed"; exit 1; }
[ -f "$tmp/root$prefix/include/vramplan/version.h" ] || { echo "version.h not installed"; exit 1; }
[ -L "$tmp/root$libdir/libvramplan.so" ] || { echo "libvramplan.so link not installed"; exit 1; }
soname=$(objdump -p "$tmp/root$libdir/libvramplan.so" 2>/dev/null | awk '/SONAME/ {print $2}')
[ "$soname" = "libvramplan.so.0" ] || { echo "SONAME is '$soname'"; exit 1; }

flags=$(PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_LIBDIR="$pcdir" \
        pkg-config --define-variable=prefix="$tmp/root$prefix" --cflags --libs vramplan)
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror $sanflags -o "$tmp/hello" "$src/examples/hello.c" $flags
out=$(LD_LIBRARY_PATH="$tmp/root$libdir" "$tmp/hello")
echo "$out"
case $out in
    *"14000000000 B = 13.04 GiB"*) ;;
    *) echo "unexpected output"; exit 1 ;;
esac

# The component estimators, the structured workload and the evidence classifier from the
# installed headers: <vramplan.h> alone, as C11 and as C++17.
config="$src/tests/data/configs/meta-llama__Meta-Llama-3.1-8B/config.json"
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Wextra -Wpedantic -Wconversion -Werror $sanflags -o "$tmp/components" \
    "$src/tests/abi/components.c" $flags
run_components() {
    out=$(LD_LIBRARY_PATH="$tmp/root$libdir" "$1" "$config")
    echo "$out" | sed "s/^/$2: /"
    case $out in
        *"kv 131072"*"trainable 6815744"*"memory to_confirm (total counted)"*) ;;
        *) echo "$2: unexpected output"; exit 1 ;;
    esac
}
run_components "$tmp/components" "C11"
if [ -n "$cxx" ]; then
    # shellcheck disable=SC2086
    "$cxx" -x c++ -std=c++17 -Wall -Wextra -Wpedantic -Werror $sanflags -o "$tmp/components-cpp" \
        "$src/tests/abi/components.c" -x none $flags
    run_components "$tmp/components-cpp" "C++17"
fi
