#!/bin/sh
# Help per command: each exits 0 and names its options, the sheet keys it reads and the
# allowed values of the enumerated keys; every key it names is a key of the sheet, and every
# list of allowed values is the library's own. The man page comes from the same text.
# Mistyped commands and options get a suggestion.
# usage: check-help.sh VRAMPLAN EXAMPLES_DIR [MAN_PAGE]
set -u
exe=$1 examples=$2 manpage=${3:-}
. "$(dirname "$0")/lib.sh"
seed=$examples/seed.toml

for c in estimate fit plan diagnose inspect init cards; do
    run "help-$c" 0 "$c" --help
    has "help-$c-usage" "$tmp/out" "usage: vramplan $c"
    has "help-$c-options" "$tmp/out" "options:"
    empty "help-$c-stderr" "$tmp/err"
    cp "$tmp/out" "$tmp/help-$c"
    run "help-cmd-$c" 0 help "$c"
    if cmp -s "$tmp/out" "$tmp/help-$c"; then ok; else bad "help $c differs from $c --help"; fi
    run "help-short-$c" 0 "$c" -h
done
# the keys and values the issue names
for k in context concurrency weights framework kv_cache optimizer checkpointing sharding \
         "[workload]" "[layout]" "[reserve]" --capacity --svg --set --context; do
    has "help-estimate-$k" "$tmp/help-estimate" "$k"
done
for v in "vllm, sglang, transformers, llama.cpp, ollama," "other, none (default)" "nf4" "gptq-int<b>-g<g>" \
         "none (default), selective, full" "none (default), ddp, zero1, zero2, zero3, fsdp" \
         "auto (default), bf16, fp16, fp32, fp8, q8_0, q4_0" "adamw (default), adamw-8bit"; do
    has "help-estimate-values" "$tmp/help-estimate" "$v"
done
has help-plan-offer "$tmp/help-plan" "[[offer]]"
has help-plan-claim "$tmp/help-plan" "evidence.claim"
has help-diagnose-measurement "$tmp/help-diagnose" "[[measurement]]"
has help-init-task "$tmp/help-init" "--task"
has help-fit-solve "$tmp/help-fit" "--solve"

# each list of allowed values is the library's: set a value nobody has and compare the
# choices its error lists with the help's ("a (default), b" -> "a|b")
# (a wrapped line continues with 28 spaces: joined first)
joined() {
    awk '/^                            [^ ]/ { sub(/^ +/, " "); line = line $0; next }
         { if (NR > 1) print line; line = $0 } END { print line }' "$1"
}
for c in estimate plan; do
    joined "$tmp/help-$c" | sed -n 's/^  \([a-z_]*\.[a-z_]*\)  *\([a-z].*\)$/\1 \2/p' | grep -v '^workload.weights ' |
    while read -r key values; do
        want=$(printf '%s' "$values" | sed 's/ (default)//g; s/, /|/g')
        set_key=$key
        case $key in evidence.*|measurement.*) set_key=${key%%.*}.0.${key#*.} ;; esac
        "$exe" estimate "$seed" --set "$set_key=zzzz" > /dev/null 2> "$tmp/e"
        if grep -qF "is not one of: $want" "$tmp/e"; then echo ok; else
            echo "bad help-values-$key: help '$want', library: $(cat "$tmp/e")"; fi
    done
done > "$tmp/values"
n=$(grep -c '^ok$' "$tmp/values"); passes=$((passes + n))
[ "$n" -ge 15 ] && ok || bad "help-values: only $n enumerated keys checked"
grep '^bad' "$tmp/values" | while read -r line; do echo "FAIL ${line#bad }"; done
fails=$((fails + $(grep -c '^bad' "$tmp/values")))
# the weight formats the library lists are all in the help
"$exe" estimate "$seed" --weights zzzz > /dev/null 2> "$tmp/e"
for w in $(sed -n 's/.*; use \(.*\) or gguf-<type>.*/\1/p' "$tmp/e" | tr -d ','); do
    has "help-weights-$w" "$tmp/help-estimate" "$w"
done
# every key the help names for [sheet], [model], [workload], [layout], [[offer]] and
# [[measurement]] is a key of the sheet
for c in estimate plan; do
    awk '/^                 [^ ]/ { sub(/^ +/, " "); line = line $0; next }
         { if (NR > 1) print line; line = $0 } END { print line }' "$tmp/help-$c" |
    grep -E '^  \[\[?(sheet|model|workload|layout|offer|measurement)\]' | grep -v 'every key' |
    while read -r table keys; do
        t=$(printf '%s' "$table" | tr -d '[]')
        case $t in offer|measurement) t=$t.0 ;; esac
        for k in $(printf '%s' "$keys" | tr ',' ' '); do
            case $k in *[!a-z_]*) continue ;; esac
            "$exe" estimate "$seed" --set "$t.$k=1" > /dev/null 2> "$tmp/e"
            if grep -q "unknown key\|not a sheet key" "$tmp/e"; then echo "bad $t.$k"; else echo ok; fi
        done
    done
done > "$tmp/keys"
n=$(grep -c '^ok$' "$tmp/keys"); passes=$((passes + n))
[ "$n" -ge 40 ] && ok || bad "help-keys: only $n keys checked"
grep '^bad' "$tmp/keys" | while read -r line; do echo "FAIL help names no sheet key ${line#bad }"; done
fails=$((fails + $(grep -c '^bad' "$tmp/keys")))

# the program's help lists every command
run help-main 0 --help
for c in estimate fit plan diagnose inspect init cards; do has "help-main-$c" "$tmp/out" "vramplan $c"; done
run help-unknown 2 help frobnicate
# the man page, from the same text
run man 0 --man
has man-th "$tmp/out" ".TH VRAMPLAN 1"
has man-commands "$tmp/out" ".SH COMMANDS"
has man-values "$tmp/out" ".SH ALLOWED VALUES"
has man-estimate "$tmp/out" '.SS "estimate"'
# the page the build installs is this one
if [ -n "$manpage" ] && [ -f "$manpage" ]; then
    if cmp -s "$manpage" "$tmp/out"; then ok; else bad "man: $manpage differs from --man"; fi
fi
if command -v groff > /dev/null 2>&1; then
    groff -man -Tutf8 -ww -z "$tmp/out" 2> "$tmp/groff"
    empty man-groff-warnings "$tmp/groff"
fi

# suggestions for a mistyped command or option
run typo-command 2 estmate "$seed"
has typo-command-suggest "$tmp/err" "did you mean 'estimate'?"
run typo-option 2 estimate "$seed" --capcity "24 GB"
has typo-option-suggest "$tmp/err" "did you mean '--capacity'?"
run typo-override 2 plan "$seed" --contxt 4096
has typo-override-suggest "$tmp/err" "did you mean '--context'?"
run typo-solve 2 fit "$seed" --solve contxt --capacity "24 GB"
has typo-solve-suggest "$tmp/err" "did you mean 'context'?"

finish
