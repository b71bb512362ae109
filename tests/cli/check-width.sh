#!/bin/sh
# Every line a person reads fits 100 columns when stdout is not a terminal: estimate (text
# and Markdown), plan, diagnose and fit of every example sheet, inspect of every model file
# they name and of every config in tests/data/configs, cards, and every help text.
# Columns are characters (UTF-8 continuation bytes do not count).
# usage: check-width.sh VRAMPLAN TESTS_DIR EXAMPLES_DIR
set -u
exe=$1 tests=$2 examples=$3
. "$(dirname "$0")/lib.sh"

# fits NAME ARGS...: runs the command (exit 0) and checks each line of its stdout
fits() {
    name=$1; shift
    run "$name" 0 "$@" || return
    LC_ALL=C tr -d '\200-\277' < "$tmp/out" > "$tmp/cols"
    wide=$(LC_ALL=C awk 'length($0) > 100 { print NR ": " length($0) " columns"; exit }' "$tmp/cols")
    if [ -n "$wide" ]; then bad "$name: line $wide"; else ok; fi
}

for s in "$examples"/*.toml; do
    b=$(basename "$s" .toml)
    fits "estimate-$b" estimate "$s"
    fits "estimate-cap-$b" estimate "$s" --capacity "24 GB"
    fits "estimate-md-$b" estimate "$s" --markdown
    fits "plan-$b" plan "$s"
    fits "diagnose-$b" diagnose "$s"
    for t in context concurrency microbatch; do
        "$exe" fit "$s" --solve $t --capacity "80 GB" > /dev/null 2>&1 && fits "fit-$t-$b" fit "$s" --solve $t --capacity "80 GB"
    done
    # the model file the sheet names, relative to the sheet's folder
    m=$(sed -n 's/^\(config\|checkpoint\) *= *"\(.*\)"/\2/p' "$s" | head -n 1)
    [ -n "$m" ] && fits "inspect-$b" inspect "$examples/$m"
done
for c in "$tests"/data/configs/*/config.json; do
    "$exe" inspect "$c" > /dev/null 2>&1 && fits "inspect-$(basename "$(dirname "$c")")" inspect "$c"
done
fits inspect-gguf-tensors inspect "$tests/fuzz/corpus/gguf/llama" --tensors
fits inspect-st-tensors inspect "$tests/fuzz/corpus/safetensors/small" --tensors
fits seed
fits cards cards
fits help --help
for c in estimate fit plan diagnose inspect init cards; do
    fits "help-$c" "$c" --help
done
# the red-team sheets too: hostile names and long texts stay within the width
for s in "$tests"/data/redteam/*.toml; do
    for c in estimate plan diagnose; do
        "$exe" $c "$s" > /dev/null 2>&1 && fits "$c-redteam-$(basename "$s" .toml)" $c "$s"
    done
done

# --width: narrower and wider layouts
run width-80 0 estimate "$examples/llama-3.1-8b-lora.toml" --width 80
LC_ALL=C tr -d '\200-\277' < "$tmp/out" | LC_ALL=C awk 'length($0) > 80 { bad = 1 } END { exit bad }' && ok || bad "width-80: a line over 80 columns"
run width-bad 2 estimate "$examples/seed.toml" --width 20
has width-bad-msg "$tmp/err" "--width takes a number of columns"

finish
