#!/bin/sh
# The command-line contract: exit 0 / 1 / 2, messages on stderr, units in column headers.
# usage: check-cli.sh VRAMPLAN VERSION TESTS_DIR
set -u
exe=$1 version=$2 tests=$3 examples=$4
cfg=$tests/data/configs
. "$(dirname "$0")/lib.sh" # run, has, lacks, empty, same, finish; $tmp

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
# the README's excerpt of this output is true, line by line
awk '/alone prints the seed worked example/ { f = 1; next } f && /^```$/ { if (g) exit; g = 1; next } g' \
    "$tests/../README.md" > "$tmp/excerpt"
[ -s "$tmp/excerpt" ] && passes=$((passes + 1)) || { echo "FAIL readme-excerpt: not found"; fails=$((fails + 1)); }
while IFS= read -r line; do
    [ -z "$line" ] && continue
    if grep -qxF -- "$line" "$tmp/out"; then passes=$((passes + 1)); else
        echo "FAIL readme-excerpt: '$line' is not in vramplan's output"; fails=$((fails + 1)); fi
done < "$tmp/excerpt"

run version 0 --version
has version-text "$tmp/out" "vramplan $version"
run version-short 0 -V
run help 0 --help
has help-usage "$tmp/out" "usage: vramplan"
run help-short 0 -h
# text that cannot be written is an error, not a success (exit 1, said on stderr): the
# direct writers (--version, --help, --man, COMMAND --help, help COMMAND) and a command
if [ -w /dev/full ]; then
    for args in --version --help --man "estimate --help" "help plan" cards; do
        # shellcheck disable=SC2086
        "$exe" $args > /dev/full 2> "$tmp/err"
        got=$?
        if [ "$got" -eq 1 ] && grep -q "cannot write to stdout" "$tmp/err"; then
            passes=$((passes + 1))
        else
            echo "FAIL full-stdout ($args): exit $got, want 1"; cat "$tmp/err"; fails=$((fails + 1))
        fi
    done
fi

run bad-option 2 --frobnicate
empty bad-option-stdout "$tmp/out"
has bad-option-stderr "$tmp/err" "unknown option '--frobnicate'"
run bad-command 2 frobnicate
empty bad-command-stdout "$tmp/out"
has bad-command-stderr "$tmp/err" "unknown command"

# inspect: config.json, JSON output for scripts
run inspect-json 0 inspect "$cfg/meta-llama__Meta-Llama-3.1-8B/config.json" --json
has inspect-params "$tmp/out" '"parameters": 8030261248'
has inspect-kv "$tmp/out" '"kv_bytes_per_token": 131072'
has inspect-total "$tmp/out" '"total_bytes": 16060522496'
has inspect-format "$tmp/out" '"format": "config"'
empty inspect-json-stderr "$tmp/err"
if command -v python3 >/dev/null 2>&1; then
    if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out"; then
        passes=$((passes + 1)); else echo "FAIL inspect-json-valid"; fails=$((fails + 1)); fi
fi
run inspect-table 0 inspect "$cfg/openai__gpt-oss-20b/config.json"
has inspect-table-units "$tmp/out" "bytes [B]"
has inspect-table-gib "$tmp/out" "[GiB]"
has inspect-table-mxfp4 "$tmp/out" "mxfp4"
has inspect-table-assumed "$tmp/out" "assumed"
# index with its config beside it
run inspect-index 0 inspect "$cfg/tiiuae__falcon-7b/index.json" --json
has inspect-index-total "$tmp/out" '"index_total_size": 14434379520'
has inspect-index-type "$tmp/out" '"model_type": "RefinedWebModel"'
# its shards absent: config.json's counts (the same as inspect config.json)
has inspect-index-params "$tmp/out" '"parameters": 6921720704'
has inspect-index-bytes "$tmp/out" '"total_bytes": 13843441408'
# without config.json: nothing counted, null (never a 0 read as a count)
cp "$cfg/tiiuae__falcon-7b/index.json" "$tmp/model.safetensors.index.json"
run inspect-index-alone 0 inspect "$tmp/model.safetensors.index.json" --json
has inspect-index-alone-params "$tmp/out" '"parameters": null'
has inspect-index-alone-bytes "$tmp/out" '"total_bytes": null'
has inspect-index-alone-total "$tmp/out" '"index_total_size": 14434379520'
run inspect-index-alone-text 0 inspect "$tmp/model.safetensors.index.json"
has inspect-index-alone-says "$tmp/out" "nothing above is counted (0 means unknown here)"
rm -f "$tmp/model.safetensors.index.json"
# binary checkpoints told by their first bytes
run inspect-gguf 0 inspect "$tests/fuzz/corpus/gguf/llama" --json --tensors
has inspect-gguf-format "$tmp/out" '"format": "gguf"'
has inspect-gguf-q4k "$tmp/out" '"Q4_K"'
run inspect-st 0 inspect "$tests/fuzz/corpus/safetensors/small" --json
has inspect-st-format "$tmp/out" '"format": "safetensors"'
has inspect-st-tensors "$tmp/out" '"tensors": 3'
# bad input: exit 1, file:line:col on stderr, nothing on stdout
run inspect-bad 1 inspect "$tests/fuzz/corpus/config/bad-heads"
empty inspect-bad-stdout "$tmp/out"
has inspect-bad-where "$tmp/err" "bad-heads:1:"
run inspect-unsupported 1 inspect "$cfg/Qwen__Qwen-72B__qwen1/config.json"
has inspect-unsupported-msg "$tmp/err" 'config.json:20:17: unsupported model_type "qwen"'
empty inspect-unsupported-stdout "$tmp/out"
run inspect-trunc 1 inspect "$tests/fuzz/corpus/gguf/huge-count"
has inspect-trunc-offset "$tmp/err" "huge-count: byte"
run inspect-missing 1 inspect /nonexistent/config.json
empty inspect-missing-stdout "$tmp/out"
run inspect-usage 2 inspect
run inspect-usage-opt 2 inspect x.json --frob

# estimate: the seed sheet, JSON for scripts
run est-seed 0 estimate "$examples/seed.toml" --json
has est-seed-wo "$tmp/out" '"weights_only_bytes": 14000000000'
has est-seed-env "$tmp/out" '"envelope_lower_bound_bytes": 20442450944'
has est-seed-peak-null "$tmp/out" '"peak_bytes": null'
has est-seed-unknown "$tmp/out" '{"id": "kv_cache", "needs":'
has est-seed-items "$tmp/out" '"id": "reserve:other", "bytes": 6442450944, "basis": "assumed"'
has est-seed-perstage "$tmp/out" '"per_stage": [{"stage": 0, "first_gpu": 0, "gpus": 1'
if command -v python3 >/dev/null 2>&1; then
    if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out"; then
        passes=$((passes + 1)); else echo "FAIL est-json-valid"; fails=$((fails + 1)); fi
fi
# a parameter count alone: no numeric peak anywhere, the conditions listed, exit 0
printf '[model]\nparameters = 3_000_000_000\n' > "$tmp/params.toml"
run est-params 0 estimate "$tmp/params.toml" --json
has est-params-null "$tmp/out" '"peak_bytes": null, "peak_phase": null, "peak_lower_bound_bytes": null'
has est-params-needs "$tmp/out" '"id": "weights", "needs": "workload.weights (the weight format)"'
run est-params-text 0 estimate "$tmp/params.toml"
has est-params-unknown "$tmp/out" "modeled peak: unknown (needs weights"
has est-params-first "$tmp/out" "unknown: weights: needs workload.weights"
has est-params-fw "$tmp/out" "warning: workload.framework is not set"
# a card name is a capacity: resolved with its source, one verdict line
run est-card 0 estimate "$examples/qwen2.5-7b-transformers.toml" --capacity "RTX 4090"
has est-card-verdict "$tmp/out" "verdict: does not fit, short by"
has est-card-verdict-at "$tmp/out" "  at 23.61 GiB per GPU (RTX 4090: documentation: the total CUDA reports to a process)"
run est-card-fits 0 estimate "$examples/qwen2.5-7b-transformers.toml" --capacity "H100 SXM" --json
has est-card-fits-json "$tmp/out" '"verdict": {"fits": true, "margin_bytes": '
run est-card-unknown 0 estimate "$examples/seed.toml" --capacity "H100"
has est-card-cannot "$tmp/out" "cannot tell: the computed items fit, but kv_cache, activations, logits are unknown"
run est-card-short 0 estimate "$examples/seed.toml" --capacity "T4"
has est-card-short-text "$tmp/out" "does not fit, short by"
run est-card-bad 1 estimate "$examples/seed.toml" --capacity "RTX 4900"
has est-card-bad-list "$tmp/err" 'unknown card "RTX 4900"; the catalog has RTX 3090, RTX 4090'
empty est-card-bad-out "$tmp/out"
run est-card-ambiguous 1 estimate "$examples/seed.toml" --capacity "A100"
has est-card-ambiguous-msg "$tmp/err" "ambiguous: A100 40GB or A100 80GB"
run cards 0 cards
has cards-header "$tmp/out" "nvidia-smi [MiB]"
has cards-h100 "$tmp/out" "H100 SXM"
run cards-json 0 cards --json
has cards-json-4090 "$tmp/out" '{"name": "RTX 4090", "nominal_bytes": 24000000000, "reported_bytes": 25757220864'
run cards-usage 2 cards --bogus
run est-md 0 estimate "$examples/seed.toml" --markdown
has est-md-table "$tmp/out" "| # | item | basis | load | pref | dec | bytes [B] | [GiB] | [GB] |"
has est-md-how "$tmp/out" '2. **reserve:other**: named reserve [reserve] other = "6 GiB"'
run est-table 0 estimate "$examples/mixtral-8x7b-2gpu.toml" --capacity "79.19 GiB"
has est-table-gpu1 "$tmp/out" "GPUs 0-1 (per GPU"
has est-table-pool "$tmp/out" "vLLM KV pool at 79.19 GiB per GPU"
# flags override sheet keys; a bad value is bad input
run est-override 0 estimate "$examples/llama-3.1-8b-vllm.toml" --json --context 2048 --concurrency 4
has est-override-kv "$tmp/out" '"id": "kv_cache", "bytes": 1073741824'
run est-badvalue 1 estimate "$examples/seed.toml" --context abc
empty est-badvalue-out "$tmp/out"
# a bad --capacity is bad input too (1), not a usage error
run est-badcap 1 estimate "$examples/seed.toml" --capacity "24 Gb"
empty est-badcap-out "$tmp/out"
run fit-zerocap 1 fit "$examples/qwen2.5-7b-transformers.toml" --solve context --capacity "0 GB"
# --set of a key that names a file reads that file (relative to the sheet's folder, as in
# the file), not the one the sheet names; a missing one is bad input; a value the sheet
# contradicts is refused
run est-set-config 0 estimate "$examples/seed.toml" --json \
    --set "model.config=$cfg/Qwen__Qwen3-8B/config.json" --set workload.context=4096
has est-set-config-read "$tmp/out" "Σ tensors of qwen3"
lacks est-set-config-no-unknown "$tmp/out" "needs model.config"
run est-set-config-missing 1 estimate "$examples/seed.toml" --set model.config=missing/config.json
has est-set-config-missing-says "$tmp/err" "missing/config.json"
empty est-set-config-missing-stdout "$tmp/out"
run est-set-contradiction 1 estimate "$examples/seed.toml" --set layout.gpus=2 \
    --set layout.tensor_parallel=4
has est-set-contradiction-says "$tmp/err" "is not a multiple of"
run est-set-mmproj-missing 1 estimate "$examples/seed.toml" --set workload.mmproj=missing.gguf
has est-set-mmproj-missing-says "$tmp/err" "missing.gguf: cannot open"
lacks est-set-mmproj-no-position "$tmp/err" "byte 0"
# the values are one edit: their order does not matter (gpus 1 before tp 1 under tp 2),
# and of two values of one key the later wins
run est-set-order-1 0 estimate "$examples/llama-3.1-70b-fp8-2gpu.toml" --json --gpus 1 --tp 1
has est-set-order-1-gpus "$tmp/out" '"gpus": 1,'
run est-set-order-2 0 estimate "$examples/llama-3.1-70b-fp8-2gpu.toml" --json --tp 1 --gpus 1
has est-set-order-2-gpus "$tmp/out" '"gpus": 1,'
run est-set-last-wins 0 estimate "$examples/seed.toml" --json --gpus 4 --gpus 2
has est-set-last-wins-gpus "$tmp/out" '"gpus": 2,'
# --set takes the quoted keys a file takes, '=' inside the quotes included
run est-set-quoted 0 estimate "$examples/seed.toml" --set 'reserve."a=b c"=1 GiB'
has est-set-quoted-id "$tmp/out" 'reserve:a=b c'
has est-set-quoted-peak "$tmp/out" "21,516,192,768"
# names from files cannot forge lines or Markdown columns
printf '[model]\nparameters = 7_000_000_000\n[workload]\nweights = "fp16"\n[reserve]\n"x\\ny|z" = "1 GiB"\n' > "$tmp/ctl.toml"
run est-ctl 0 estimate "$tmp/ctl.toml"
has est-ctl-escaped "$tmp/out" 'reserve:x\ny|z'
run est-ctl-md 0 estimate "$tmp/ctl.toml" --markdown
has est-ctl-md-escaped "$tmp/out" '| reserve:x\ny\|z |'
run plan-ctl-md 0 plan "$tmp/ctl.toml" --markdown
has plan-ctl-md-escaped "$tmp/out" '| assumed | reserve:x\ny\|z |'
has plan-md-invalidated "$tmp/out" '| invalidated by | a longer context'
run est-badsheet 1 estimate "$tests/fuzz/corpus/sheet/bad-unit"
has est-badsheet-where "$tmp/err" "bad-unit:2:9:"
empty est-badsheet-stdout "$tmp/out"
run est-usage 2 estimate
run est-usage-opt 2 estimate "$examples/seed.toml" --frob
# fit: capacity from the sheet's device_total evidence, or --capacity
run fit-vllm 0 fit "$examples/llama-3.1-8b-vllm.toml" --solve concurrency --json
has fit-vllm-solve "$tmp/out" '"solve": "concurrency"'
has fit-vllm-tokens "$tmp/out" '"kv_tokens": '
has fit-vllm-conc "$tmp/out" '"max_concurrency": '
run fit-ctx 0 fit "$examples/qwen2.5-7b-transformers.toml" --solve context --capacity "80 GB"
has fit-ctx-text "$tmp/out" "largest context that fits"
has fit-ctx-capped "$tmp/out" "capped at the model's declared maximum context 32768 (max_position_embeddings);"
has fit-ctx-memory "$tmp/out" "  memory alone would allow "
run fit-ctx-json 0 fit "$examples/qwen2.5-7b-transformers.toml" --solve context --capacity "80 GB" --json
has fit-ctx-json-cap "$tmp/out" '"value": 32768, "memory_limit": '
has fit-ctx-json-max "$tmp/out" '"model_max_context": 32768'
run fit-nocap 2 fit "$examples/seed.toml" --solve context
has fit-nocap-msg "$tmp/err" "--capacity"
run fit-noarch 1 fit "$examples/seed.toml" --solve context --capacity "24 GB"
run fit-usage 2 fit "$examples/seed.toml" --solve speed --capacity "24 GB"

# training
run train-json 0 estimate "$examples/llama-3.1-8b-lora.toml" --json
has train-trainable "$tmp/out" '"trainable_parameters": 41943040'
has train-task "$tmp/out" '"task": "lora"'
has train-phases "$tmp/out" '"optimizer_step": '
run train-zero3 0 estimate "$examples/zero3-8gpu-full.toml"
has train-zero3-gpus "$tmp/out" "GPUs 0-7 (per GPU"
run fit-mb 0 fit "$examples/llama-3.1-8b-lora.toml" --solve microbatch --capacity "24 GB" --json
has fit-mb-solve "$tmp/out" '"solve": "microbatch"'
run fit-mb-infer 1 fit "$examples/seed.toml" --solve microbatch --capacity "24 GB"

# plan and diagnose
run plan-json 0 plan "$examples/seed-plan.toml" --json
has plan-4090 "$tmp/out" '{"offer": "rtx4090-1x-3d", "verdict": "to_confirm", "rank": null, "total_cost": "47.14 USD"'
has plan-16gb "$tmp/out" '{"offer": "16gb-1x-3d", "verdict": "excluded"'
has plan-req "$tmp/out" '"requirements": [{"id": "memory", "verdict": '
has plan-sizing "$tmp/out" '"sizing_sheet": {"model": '
if command -v python3 >/dev/null 2>&1; then
    if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out"; then
        passes=$((passes + 1)); else echo "FAIL plan-json-valid"; fails=$((fails + 1)); fi
fi
run plan-text 0 plan "$examples/seed-plan.toml"
has plan-text-sizing "$tmp/out" "SIZING SHEET"
has plan-text-excluded "$tmp/out" "16gb-1x-3d: excluded"
run plan-md 0 plan "$examples/seed-plan.toml" --markdown
has plan-md-table "$tmp/out" "| requirement | verdict | condition |"
run plan-rank-bad 2 plan "$examples/seed-plan.toml" --rank speed
run plan-usage 2 plan
run plan-rank-missing 2 plan "$examples/seed-plan.toml" --rank
# overrides reach plan: fp32 weights (28,000,000,000 B + 6 GiB = 32.08 GiB) exclude the 4090
run plan-override 0 plan "$examples/seed-plan.toml" --weights fp32 --json
has plan-override-4090 "$tmp/out" '{"offer": "rtx4090-1x-3d", "verdict": "excluded"'
has plan-override-6000 "$tmp/out" '{"offer": "rtx6000ada-1x-3d", "verdict": "to_confirm"'
run diag-set-bad 1 diagnose "$examples/seed-plan.toml" --set workload.kontext=1
empty diag-set-bad-out "$tmp/out"
has diag-set-bad-msg "$tmp/err" 'unknown key "workload.kontext"'
run diag 0 diagnose "$examples/seed-plan.toml" --json
has diag-none "$tmp/out" '"first_overflow": null'

# hostile sheets from a red-team review (tests/data/redteam): each was a wrong verdict,
# a raw control character or a lost figure before its fix
rt=$tests/data/redteam
mem() { # the memory verdict of the first candidate
    "$exe" plan "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["candidates"][0]["requirements"][0]["verdict"])'
}
same() { # same NAME GOT WANT
    if [ "$2" = "$3" ]; then passes=$((passes + 1)); else
        echo "FAIL $1: '$2', want '$3'"; fails=$((fails + 1)); fi
}
if command -v python3 >/dev/null 2>&1; then
    same rt-oom-larger-context "$(mem "$rt/oomev.toml")" to_confirm
    same rt-oom-smaller-context "$(mem "$rt/oomev2.toml")" excluded
    same rt-card-evidence-oom "$(mem "$rt/gpupeak.toml")" excluded
    same rt-oom-unstated-concurrency "$(mem "$rt/oomnc.toml")" to_confirm
    # another model's run does not count: the modeled 32.57 GiB decides against 23.99 GiB
    same rt-other-model-run "$(mem "$rt/noww3.toml")" excluded
    # the margin is what the measured run leaves (79 - 70 GiB), never a wrapped model figure
    same rt-margin-no-wrap "$("$exe" plan "$rt/wrap.toml" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["candidates"][0]["margin_bytes"])')" 9663676416
    same rt-24GB-generous "$(mem "$rt/generous.toml")" to_confirm
    same rt-long-title "$("$exe" estimate "$rt/longtitle.toml" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["title"] is None)')" False
    for c in estimate plan diagnose; do
        if "$exe" $c "$rt/hostile.toml" --json | python3 -m json.tool >/dev/null; then
            passes=$((passes + 1)); else echo "FAIL rt-hostile-json-$c"; fails=$((fails + 1)); fi
    done
fi
# tables, Markdown and wrapped text keep every name escaped: no control byte but the newline
for c in estimate plan diagnose; do
    for f in "" --markdown; do
        [ "$c" = diagnose ] && [ -n "$f" ] && continue
        "$exe" $c "$rt/hostile.toml" $f --width 60 > "$tmp/h" 2>&1
        if LC_ALL=C tr -d '\n' < "$tmp/h" | LC_ALL=C grep -q "$(printf '[\001-\037\177]')"; then
            echo "FAIL rt-hostile-escaped-$c$f: a raw control character"; fails=$((fails + 1))
        else passes=$((passes + 1)); fi
    done
done
run rt-vllm-reserve 0 estimate "$rt/vres.toml" --capacity "80 GB"
has rt-vllm-reserve-verdict "$tmp/out" "does not fit"
run rt-quality 0 plan "$rt/quality.toml"
if grep -q "quality *fit" "$tmp/out"; then echo "FAIL rt-quality: '0.30 (n=1000)' met >= 0.45"
    fails=$((fails + 1)); else passes=$((passes + 1)); fi
run rt-capacity-source 0 estimate "$rt/cap.toml"
has rt-capacity-source-report "$tmp/out" "23.90 GiB per GPU (the smallest device-reported total in the sheet)"
run rt-diag-tp 0 diagnose "$rt/diag-tp.toml"
has rt-diag-tp-gpus "$tmp/out" "16 GPUs instead of 8"
run rt-ctl-err 1 plan "$rt/ctlerr.toml"
if grep -q "$(printf '\033')" "$tmp/err"; then echo "FAIL rt-ctl-err: ESC on stderr"
    fails=$((fails + 1)); else passes=$((passes + 1)); fi
has rt-ctl-err-escaped "$tmp/err" 'X\x1B[31mRED\x07'

# issue 15 red team: the new engine profiles and inputs
# the SGLang profile is named (fw_name read past its table after VP_FRAMEWORK_SGLANG = 7)
run rt15-sglang-name 0 estimate "$examples/llama-3.1-8b-sglang.toml" --capacity "80 GB"
has rt15-sglang-name-text "$tmp/out" "framework profile: sglang (SGLang token pool"

# a tiny mem_fraction_static: no pool, and the warning names the fraction as written
run rt15-sglang-mfs-tiny 0 estimate "$rt/sglang-mfs-tiny.toml" --capacity "80 GB"
has rt15-sglang-mfs-tiny-says "$tmp/out" "mem_fraction_static 1/10000000000000000000"
has rt15-sglang-mfs-tiny-pool "$tmp/out" "0 pages, 0 tokens"

# [draft] parameters alone: 600,000,000 × 2 B in the target's bf16, the format assumed
run rt15-draft-params 0 estimate "$rt/draft-parameters.toml" --capacity "80 GB" --json
has rt15-draft-params-bytes "$tmp/out" '{"id": "draft:weights", "bytes": 1200000000'
has rt15-draft-params-assumed "$tmp/out" "draft.weights: the target's format"

finish
