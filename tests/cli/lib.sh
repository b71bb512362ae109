# Helpers shared by the CLI test scripts (sourced). Each script sets exe, then calls run,
# has, lacks, empty and same, and ends with finish.
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
lacks() { # lacks NAME FILE TEXT
    if grep -qF -- "$3" "$2"; then echo "FAIL $1: '$3' in $(basename "$2")"; cat "$2"
        fails=$((fails + 1)); else passes=$((passes + 1)); fi
}
empty() { # empty NAME FILE
    if [ -s "$2" ]; then echo "FAIL $1: $(basename "$2") not empty"; cat "$2"; fails=$((fails + 1));
    else passes=$((passes + 1)); fi
}
same() { # same NAME GOT WANT
    if [ "$2" = "$3" ]; then passes=$((passes + 1)); else
        echo "FAIL $1: '$2', want '$3'"; fails=$((fails + 1)); fi
}
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
finish() {
    echo "$passes passed, $fails failed"
    [ "$fails" -eq 0 ]
}
