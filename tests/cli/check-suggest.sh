#!/bin/sh
# Mistakes a new user makes get a suggestion: a misspelled key, table or value names the
# closest known one; a JSON file given as a sheet says so; 7e9 where an integer is needed
# says how to write it. Exit 1 (bad input), nothing on stdout.
# usage: check-suggest.sh VRAMPLAN TESTS_DIR EXAMPLES_DIR
set -u
exe=$1 tests=$2 examples=$3
. "$(dirname "$0")/lib.sh"
cfg=$tests/data/configs

sheet() { printf '%b' "$2" > "$tmp/$1.toml"; }

# a misspelled key, in the file and through --set
sheet key '[model]\nparameters = 7_000_000_000\n[workload]\nweights = "fp16"\ncontxt = 4096\n'
run key 1 estimate "$tmp/key.toml"
has key-where "$tmp/err" "key.toml:5:1: unknown key \"contxt\" in [workload]"
has key-suggest "$tmp/err" 'did you mean "context"?'
empty key-stdout "$tmp/out"
run set-key 1 estimate "$examples/seed.toml" --set workload.concurency=4
has set-key-suggest "$tmp/err" 'did you mean "workload.concurrency"?'
run set-table 1 estimate "$examples/seed.toml" --set wrkload.context=4096
has set-table-suggest "$tmp/err" 'did you mean "workload.context"?'
run set-array 1 plan "$examples/seed-plan.toml" --set ofer.0.count=2
has set-array-suggest "$tmp/err" 'did you mean "offer.0.count"?'
# a misspelled table
sheet table '[worklaod]\ncontext = 4096\n'
run table 1 estimate "$tmp/table.toml"
has table-suggest "$tmp/err" 'did you mean [workload]?'
# a misspelled framework, in the file and through the flag
sheet fw '[model]\nparameters = 7_000_000_000\n[workload]\nweights = "fp16"\nframework = "vlm"\n'
run fw 1 estimate "$tmp/fw.toml"
has fw-where "$tmp/err" "fw.toml:5:13:"
has fw-suggest "$tmp/err" 'did you mean "vllm"?'
run fw-flag 1 estimate "$examples/seed.toml" --framework transformer
has fw-flag-suggest "$tmp/err" 'did you mean "transformers"?'
run fw-case 1 estimate "$examples/seed.toml" --framework VLLM
has fw-case-suggest "$tmp/err" 'did you mean "vllm"?'
# other enumerations and the weight formats
run opt 1 estimate "$examples/seed.toml" --set workload.optimizer=adamw8bit
has opt-suggest "$tmp/err" 'did you mean "adamw-8bit"?'
run weights 1 estimate "$examples/seed.toml" --weights bf61
has weights-suggest "$tmp/err" 'did you mean "bf16"?'
run sharding 1 estimate "$examples/seed.toml" --set layout.sharding=zero-3
has sharding-suggest "$tmp/err" 'did you mean "zero3"?'
# nothing close: no suggestion, the choices are still listed
run far 1 estimate "$examples/seed.toml" --framework xyzzy
lacks far-no-suggest "$tmp/err" "did you mean"
has far-choices "$tmp/err" "vllm|sglang|transformers|llama.cpp|ollama|other|none"
# a long misspelling is not compared beyond the key limit (no suggestion, no crash)
long=$(printf 'k%.0s' $(seq 1 300))
sheet long "[workload]\n$long = 1\n"
run long 1 estimate "$tmp/long.toml"
lacks long-no-suggest "$tmp/err" "did you mean"

# JSON where a sheet is expected
run json-sheet 1 estimate "$cfg/meta-llama__Meta-Llama-3.1-8B/config.json"
has json-sheet-says "$tmp/err" "is JSON, not a sheet"
has json-sheet-inspect "$tmp/err" "vramplan inspect"
has json-sheet-init "$tmp/err" "vramplan init --model"
empty json-sheet-stdout "$tmp/out"
printf '  \n{"a": 1}\n' > "$tmp/other.json"
run json-sheet-plan 1 plan "$tmp/other.json"
has json-sheet-plan-says "$tmp/err" "is JSON, not a sheet"
# telling what a file is never blocks: a FIFO is refused at once, not read
if command -v mkfifo > /dev/null 2>&1 && command -v timeout > /dev/null 2>&1 && mkfifo "$tmp/fifo"; then
    timeout 10 "$exe" estimate "$tmp/fifo" > "$tmp/out" 2> "$tmp/err"
    same fifo-not-blocked "$?" 1
    has fifo-regular "$tmp/err" "not a regular file"
fi

# 7e9 where an integer is needed: the error shows the integer to write
sheet sci '[model]\nparameters = 7e9\n'
run sci 1 estimate "$tmp/sci.toml"
has sci-where "$tmp/err" "sci.toml:2:14:"
has sci-suggest "$tmp/err" "write 7_000_000_000"
sheet sci2 '[model]\nparameters = 1.5e3\n[workload]\ncontext = 8.192e3\n'
run sci2 1 estimate "$tmp/sci2.toml"
has sci2-suggest "$tmp/err" "write 1_500"
run sci-set 1 estimate "$examples/seed.toml" --context 3.2e4
has sci-set-suggest "$tmp/err" "write 32_000"
sheet frac '[model]\nparameters = 7.5\n'
run frac 1 estimate "$tmp/frac.toml"
lacks frac-no-suggest "$tmp/err" "write "

finish
