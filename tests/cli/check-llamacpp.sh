#!/bin/sh
# The llama.cpp / Ollama profile from the command line, on the example sheet
# examples/llama.cpp/llama-3.1-8b-q4km-8gb.toml beside a header-only copy of the Llama 3.1 8B
# Q4_K_M GGUF (tests/data/gguf, written by make-gguf with its tensor data as a hole).
# usage: check-llamacpp.sh VRAMPLAN MAKE_GGUF TESTS_DIR EXAMPLES_DIR
set -u
exe=$1 make_gguf=$2 tests=$3 examples=$4
. "$(dirname "$0")/lib.sh"

cp "$examples/llama.cpp/llama-3.1-8b-q4km-8gb.toml" "$tmp/sheet.toml"
"$make_gguf" "$tests/data/gguf/Meta-Llama-3.1-8B-Instruct-Q4_K_M" \
    "$tmp/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf" || bad "make-gguf"

# 32k context on an 8 GB card: 19 of 33 layers (peak 7,812,636,672 B; margin 187,363,328 B)
run fit-32k 0 fit "$tmp/sheet.toml" --solve gpu_layers --capacity "8 GB"
has fit-32k-layers "$tmp/out" "largest gpu_layers that fits 7.45 GiB per GPU (--capacity): 19 of 33"
has fit-32k-host "$tmp/out" "host RAM needed:"
has fit-32k-margin "$tmp/out" "margin: 187,363,328 B"
has fit-32k-gpu-kv "$tmp/out" "2,415,919,104"
has fit-32k-host-table "$tmp/out" "host RAM (what llama.cpp keeps off the GPU)"
empty fit-32k-stderr "$tmp/err"
run fit-32k-json 0 fit "$tmp/sheet.toml" --solve gpu_layers --capacity "8 GB" --json
has fit-32k-json-value "$tmp/out" '"solve": "gpu_layers", "value": 19, "layers_total": 33'
has fit-32k-json-margin "$tmp/out" '"fits": true, "margin_bytes": 187363328'
has fit-32k-json-host "$tmp/out" '"host_ram": {"peak_bytes": '
has fit-32k-json-gpu "$tmp/out" '"gpu_items": [{"id": "weights", "bytes": 2785828864'
# with flash attention: 27
run fit-32k-fa 0 fit "$tmp/sheet.toml" --solve gpu_layers --capacity "8 GB" --set workload.flash_attention=true --json
has fit-32k-fa-value "$tmp/out" '"value": 27,'
# 8k on 8 GB, and 32k on 24 GB: every layer
run fit-8k 0 fit "$tmp/sheet.toml" --solve gpu_layers --capacity "8 GB" --context 8192 --json
has fit-8k-all "$tmp/out" '"value": 33, "layers_total": 33'
has fit-8k-margin "$tmp/out" '"margin_bytes": 1407086336'
run fit-24 0 fit "$tmp/sheet.toml" --solve gpu_layers --capacity "24 GB" --json
has fit-24-all "$tmp/out" '"value": 33, "layers_total": 33'

# estimate: the GPU items and the host's, in text and JSON
run est 0 estimate "$tmp/sheet.toml" --capacity "8 GB" --set workload.gpu_layers=19
has est-host "$tmp/out" "host RAM peak:"
has est-fits "$tmp/out" "verdict: fits, margin 187,363,328 B"
run est-json 0 estimate "$tmp/sheet.toml" --json --set workload.gpu_layers=19
has est-json-host "$tmp/out" '"host_ram": {"peak_bytes": '
has est-json-kv "$tmp/out" '{"id": "kv_cache", "bytes": 2415919104'
run est-all 0 estimate "$tmp/sheet.toml" --capacity "8 GB" --context 8192 --json
has est-all-weights "$tmp/out" '{"id": "weights", "bytes": 4617396480'
has est-all-compute "$tmp/out" '{"id": "activations", "bytes": 587202560'

# Ollama: num_ctx × NUM_PARALLEL cells (2048 × 4 = 8192: KV 1 GiB)
run ollama 0 estimate "$tmp/sheet.toml" --json --set workload.framework=ollama \
    --set workload.parallel=4 --context 2048
has ollama-kv "$tmp/out" '{"id": "kv_cache", "bytes": 1073741824'
has ollama-assumed "$tmp/out" '"framework profile: ollama'

# mmproj: a projector GGUF's tensor bytes are an item (here the same file, for the mechanics)
cp "$tmp/sheet.toml" "$tmp/mm.toml"
printf 'mmproj = "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf"\n' >> "$tmp/mm.toml"
run mmproj 0 estimate "$tmp/mm.toml" --json
has mmproj-item "$tmp/out" '{"id": "mmproj", "bytes": 4912898304'
printf 'mmproj = "missing.gguf"\n' >> "$tmp/sheet.toml"
run mmproj-missing 1 estimate "$tmp/sheet.toml"
has mmproj-missing-says "$tmp/err" "missing.gguf"

# the solver on a sheet the profile does not apply to: exit 1 with the reason
run fit-vllm 1 fit "$examples/llama-3.1-8b-vllm.toml" --solve gpu_layers --capacity "24 GB"
has fit-vllm-says "$tmp/err" "--solve gpu_layers needs framework"
# a misspelt target suggests it
run fit-typo 2 fit "$examples/llama-3.1-8b-vllm.toml" --solve gpu_layer --capacity "24 GB"
has fit-typo-says "$tmp/err" "did you mean 'gpu_layers'?"
# gpu_layers below -1
run bad-layers 1 estimate "$examples/seed.toml" --set workload.gpu_layers=-3
has bad-layers-says "$tmp/err" "gpu_layers must be -1 (all) or zero or more"

# ---- red team (issue 15): hostile and edge inputs to the profile ----
cp "$examples/llama.cpp/llama-3.1-8b-q4km-8gb.toml" "$tmp/base.toml"
# lora_adapters and [draft] with a GGUF checkpoint: counted (the profile skipped them)
cp "$tests/data/serving/lora-tiny-r8.gguf" "$tmp/"
{ cat "$tmp/base.toml"; echo 'lora_adapters = ["lora-tiny-r8.gguf"]'; } > "$tmp/la.toml"
run rt-adapter 0 estimate "$tmp/la.toml" --capacity "24 GB" --json
has rt-adapter-item "$tmp/out" '{"id": "adapter:lora-tiny-r8", "bytes": 8192'
{ cat "$tmp/base.toml"; printf '[draft]\ncheckpoint = "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf"\nspeculative_tokens = 4\n'; } > "$tmp/dr.toml"
run rt-draft 0 estimate "$tmp/dr.toml" --capacity "24 GB"
has rt-draft-weights "$tmp/out" "draft:weights       computed    x    x    x   4,912,898,304"
has rt-draft-kv "$tmp/out" "draft:kv_cache"
run rt-draft-fit 0 fit "$tmp/dr.toml" --solve gpu_layers --capacity "24 GB" --json
# all 33 layers still fit 24 GB; the margin is the draft's 4,912,898,304 + 4,295,491,584 +
# 524,288 B less than without it (12,524,916,480 B)
has rt-draft-fit-margin "$tmp/out" '"value": 33, "layers_total": 33'
has rt-draft-fit-margin "$tmp/out" '"margin_bytes": 3316002304'
# an adapter name longer than an item id takes is refused, never cut (two would merge)
long=adapter-with-a-very-long-name-for-customer-support-v1
cp "$tests/data/serving/lora-tiny-r8.gguf" "$tmp/$long.gguf"
{ cat "$tmp/base.toml"; echo "lora_adapters = [\"$long.gguf\"]"; } > "$tmp/lal.toml"
run rt-adapter-long 1 estimate "$tmp/lal.toml"
has rt-adapter-long-says "$tmp/err" 'lal.toml:26:17: lora_adapters: the file name "'"$long"'.gguf" is longer than 47 bytes'
empty rt-adapter-long-out "$tmp/out"
# an escaped control character in a path is refused, not read as another file's name
{ cat "$tmp/base.toml"; printf '%s\n' 'lora_adapters = ["lora-tiny-r8\n.gguf"]'; } > "$tmp/lan.toml"
run rt-adapter-ctl 1 estimate "$tmp/lan.toml"
has rt-adapter-ctl-says "$tmp/err" "lan.toml:26:17: lora_adapters: a path with a control character"
# mmproj that cannot be read: the sheet's position and the key, then the reader's words
mkfifo "$tmp/fifo.gguf" 2>/dev/null
for mm in "fifo.gguf|not a regular file (a FIFO)" ".|not a regular file (a folder)" \
          "|an empty path" "base.toml|not a config.json"; do
    { cat "$tmp/base.toml"; echo "mmproj = \"${mm%%|*}\""; } > "$tmp/mmx.toml"
    run "rt-mmproj-${mm%%|*}" 1 estimate "$tmp/mmx.toml"
    has "rt-mmproj-${mm%%|*}-says" "$tmp/err" "mmx.toml:26:10: workload.mmproj: "
    has "rt-mmproj-${mm%%|*}-why" "$tmp/err" "${mm#*|}"
done
# the profile's semantic errors point at the key
sed 's/^kv_cache = "fp16"/kv_cache = "q8_0"/' "$tmp/base.toml" > "$tmp/q8.toml"
run rt-q8-nofa 1 estimate "$tmp/q8.toml"
has rt-q8-nofa-at "$tmp/err" 'q8.toml:25:12: kv_cache = "q8_0" needs flash_attention = true'
sed 's/^parallel = 1 /parallel = 16777216 /' "$tmp/base.toml" > "$tmp/par.toml"
run rt-parallel-limit 1 estimate "$tmp/par.toml"
has rt-parallel-limit-at "$tmp/err" "par.toml:20:12: context × parallel = 549755813888 cells is beyond"
empty rt-parallel-limit-out "$tmp/out"
# fit --solve context / concurrency on the profile: the search's probes past the profile's
# limit are "too large", not an error (was exit 1: "context × parallel = 2^39 cells"); with
# parallel stated, concurrency solves the slots (was 2^40: concurrency changed nothing)
run rt-fit-context 0 fit "$tmp/base.toml" --solve context --capacity "24 GB"
has rt-fit-context-value "$tmp/out" "largest context that fits 22.35 GiB per GPU (--capacity): 95744"
run rt-fit-context-next 0 estimate "$tmp/base.toml" --capacity "24 GB" --context 95745
has rt-fit-context-next-no "$tmp/out" "verdict: does not fit"
run rt-fit-slots 0 fit "$tmp/base.toml" --solve concurrency --capacity "24 GB" --json
has rt-fit-slots-value "$tmp/out" '"solve": "concurrency", "value": 2,'
run rt-fit-slots-next 0 estimate "$tmp/base.toml" --capacity "24 GB" --set workload.parallel=3
has rt-fit-slots-next-no "$tmp/out" "verdict: does not fit"
finish
