#!/bin/sh
# The command-line contract: exit 0 / 1 / 2, messages on stderr, units in column headers.
# usage: check-cli.sh VRAMPLAN VERSION
set -u
exe=$1 version=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 passes=0

# run NAME EXPECTED_STATUS ARGS...  -> stdout in $tmp/out, stderr in $tmp/err
run() {
    name=$1 want=$2; shift 2
    "$exe" "$@" > "$tmp/out" 2> "$tmp/err"
    got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL $name: exit $got, want $want"; cat "$tmp/err"; fails=$((fails + 1)); return 1
    fi
    passes=$((passes + 1))
}
has() { # has NAME FILE TEXT
    if grep -qF -- "$3" "$2"; then passes=$((passes + 1)); else
        echo "FAIL $1: '$3' not in $(basename "$2")"; cat "$2"; fails=$((fails + 1)); fi
}
empty() { # empty NAME FILE
    if [ -s "$2" ]; then echo "FAIL $1: $(basename "$2") not empty"; cat "$2"; fails=$((fails + 1));
    else passes=$((passes + 1)); fi
}

run seed 0
has seed-weights "$tmp/out" "14,000,000,000"
has seed-gib "$tmp/out" "13.04"
has seed-envelope "$tmp/out" "20,442,450,944"
has seed-envelope-gib "$tmp/out" "19.04"
has seed-card "$tmp/out" "22.35"
has seed-header-units "$tmp/out" "bytes [B]"
has seed-header-gib "$tmp/out" "[GiB]"
has seed-envelope-label "$tmp/out" "conservative envelope"
empty seed-stderr "$tmp/err"

run version 0 --version
has version-text "$tmp/out" "vramplan $version"
run version-short 0 -V
run help 0 --help
has help-usage "$tmp/out" "usage: vramplan"
run help-short 0 -h

run bad-option 2 --frobnicate
empty bad-option-stdout "$tmp/out"
has bad-option-stderr "$tmp/err" "unknown option '--frobnicate'"
run bad-command 2 frobnicate
empty bad-command-stdout "$tmp/out"
has bad-command-stderr "$tmp/err" "unknown command"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
