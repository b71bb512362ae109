#!/bin/sh
# Fails when an exported dynamic symbol lacks the vp_ prefix, when an exported function is
# missing from the map file, or when the map file and the VP_API declarations in the
# public headers disagree, or (given CHANGELOG.md) when an exported function is not
# recorded there by name.
# usage: check-symbols.sh LIB.so MAPFILE INCLUDE_DIR [GENERATED_INCLUDE_DIR [CHANGELOG]]
set -eu
lib=$1 map=$2 inc=$3 geninc=${4:-} changelog=${5:-}
NM=${NM:-nm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$NM" -D --defined-only "$lib" | awk '$2 ~ /^[TtDdBbRrVvWw]$/ {print $3}' | sed 's/@.*//' \
    | grep -v '^VRAMPLAN_' | sort -u > "$tmp/exported"
sed -e 's,/\*.*\*/,,' "$map" | tr -d ' \t' | grep -E '^vp_[a-z0-9_]+;$' | tr -d ';' \
    | sort > "$tmp/map"
find "$inc" ${geninc:+"$geninc"} -name '*.h' -exec cat {} + | tr '\n' ' ' \
    | grep -oE 'VP_API[^;]*;' | grep -oE '[a-z_][a-z0-9_]*[[:space:]]*\(' | grep '^vp_' \
    | tr -d ' (' | sort -u > "$tmp/headers"

rc=0
bad=$(grep -v '^vp_' "$tmp/exported" || true)
if [ -n "$bad" ]; then
    echo "exported symbols without the vp_ prefix:"; echo "$bad"; rc=1
fi
if ! diff -u "$tmp/map" "$tmp/exported" > "$tmp/d1"; then
    echo "map file (-) and exported symbols (+) differ:"; cat "$tmp/d1"; rc=1
fi
if ! diff -u "$tmp/map" "$tmp/headers" > "$tmp/d2"; then
    echo "map file (-) and VP_API declarations in include/ (+) differ:"; cat "$tmp/d2"; rc=1
fi
if [ -n "$changelog" ]; then
    missing=$(while read -r f; do
        grep -q "\`$f\`" "$changelog" || echo "$f"
    done < "$tmp/map")
    if [ -n "$missing" ]; then
        echo "exported functions not recorded in $changelog:"; echo "$missing"; rc=1
    fi
fi
n=$(wc -l < "$tmp/exported")
[ "$rc" -eq 0 ] && echo "ok: $n exported symbols, all vp_, map, headers${changelog:+ and changelog} agree"
exit "$rc"
