#!/bin/sh
# vramplan init: a starter sheet that estimates as written, with every key of its task, the
# model named relative to the sheet's folder; never replacing a file without --force.
# usage: check-init.sh VRAMPLAN TESTS_DIR
set -u
exe=$1 tests=$2
case $exe in /*) ;; *) exe=$(pwd)/$exe ;; esac
. "$(dirname "$0")/lib.sh"
cfg=$tests/data/configs/meta-llama__Meta-Llama-3.1-8B/config.json
# the tests run from another folder than the sheet's: paths must not depend on the cwd
case $cfg in /*) ;; *) cfg=$(pwd)/$cfg ;; esac

# the issue's command: init --model ... --task qlora -o x.toml && estimate x.toml
mkdir -p "$tmp/sub/deeper"
run init-qlora 0 init --model "$cfg" --task qlora -o "$tmp/sub/deeper/x.toml"
has init-qlora-says "$tmp/out" "wrote $tmp/sub/deeper/x.toml"
has init-qlora-relative "$tmp/sub/deeper/x.toml" 'config = "../../'
run init-qlora-estimate 0 estimate "$tmp/sub/deeper/x.toml"
has init-qlora-peak "$tmp/out" "modeled peak: "
lacks init-qlora-no-unknown "$tmp/out" "unknown"
has init-qlora-nf4 "$tmp/out" "in nf4"
run init-qlora-json 0 estimate "$tmp/sub/deeper/x.toml" --json
has init-qlora-unknowns "$tmp/out" '"unknowns": []'
lacks init-qlora-peak-null "$tmp/out" '"peak_bytes": null'
(cd "$tmp" && "$exe" estimate sub/deeper/x.toml > /dev/null 2>&1) && ok || bad "init-qlora: estimate from another folder"

# every task, with the model and without: the sheet estimates, with the task's keys
for task in inference lora qlora full; do
    run "init-$task" 0 init --model "$cfg" --task $task -o "$tmp/$task.toml"
    run "init-$task-estimate" 0 estimate "$tmp/$task.toml" --json
    has "init-$task-known" "$tmp/out" '"unknowns": []'
    has "init-$task-task" "$tmp/out" "\"task\": \"$task\""
    run "init-$task-plain" 0 init --task $task
    cp "$tmp/out" "$tmp/$task-plain.toml"
    run "init-$task-plain-estimate" 0 estimate "$tmp/$task-plain.toml"
    # the keys the task uses, set or commented with their default
    case $task in
        inference) keys="task weights kv_cache context concurrency framework gpu_memory_utilization max_num_batched_tokens max_num_seqs block_size gpus tensor_parallel pipeline_parallel" ;;
        full) keys="task weights context microbatch grad_accumulation optimizer master_weights optimizer_dtype checkpointing cross_entropy export framework gpus tensor_parallel pipeline_parallel sharding" ;;
        *) keys="task weights context microbatch grad_accumulation optimizer optimizer_dtype checkpointing cross_entropy export lora_rank lora_targets unquantized_dtype framework gpus tensor_parallel pipeline_parallel sharding" ;;
    esac
    for k in $keys; do
        if grep -Eq "^(# )?$k = " "$tmp/$task.toml"; then ok; else bad "init-$task: no key $k"; fi
    done
    # every commented key is one the sheet takes, with a value it accepts
    sed 's/^# \([a-z_]* = \)/\1/' "$tmp/$task.toml" > "$tmp/$task-all.toml"
    run "init-$task-uncommented" 0 estimate "$tmp/$task-all.toml"
    # within 100 columns
    LC_ALL=C tr -d '\200-\277' < "$tmp/$task.toml" | LC_ALL=C awk 'length($0) > 100 { b = 1 } END { exit b }' \
        && ok || bad "init-$task: a line over 100 columns"
done
has init-vllm-default "$tmp/inference.toml" 'framework = "vllm"'
has init-transformers-default "$tmp/lora.toml" 'framework = "transformers"'
run init-framework 0 init --task inference --framework llama.cpp
has init-framework-set "$tmp/out" 'framework = "llama.cpp"'
lacks init-framework-no-vllm-keys "$tmp/out" "gpu_memory_utilization"
# a model whose modules PEFT's default names (q_proj, v_proj) miss: all linear modules
run init-gpt2 0 init --model "$tests/data/configs/openai-community__gpt2/config.mlc_preset.json" --task lora
has init-gpt2-targets "$tmp/out" 'lora_targets = ["all-linear"]'

# an existing file is kept unless --force
printf 'keep me\n' > "$tmp/exists.toml"
run init-exists 1 init --task lora -o "$tmp/exists.toml"
has init-exists-msg "$tmp/err" "exists: --force replaces it"
same init-exists-kept "$(cat "$tmp/exists.toml")" "keep me"
run init-force 0 init --task lora -o "$tmp/exists.toml" --force
has init-force-replaced "$tmp/exists.toml" 'task = "lora"'
left=$(ls "$tmp" | grep -c '\.tmp\.' || true)
same init-no-temporary "$left" 0

# bad input and usage errors: nothing written
run init-bad-model 1 init --model "$tmp/none.json" -o "$tmp/never.toml"
[ -e "$tmp/never.toml" ] && bad "init-bad-model: a file was written" || ok
run init-json-model 1 init --model "$tmp/exists.toml" -o "$tmp/never.toml"
[ -e "$tmp/never.toml" ] && bad "init-json-model: a file was written" || ok
run init-bad-task 2 init --task qlra
has init-bad-task-suggest "$tmp/err" "did you mean 'qlora'?"
run init-bad-framework 2 init --framework vlm
has init-bad-framework-suggest "$tmp/err" "did you mean 'vllm'?"
run init-bad-option 2 init --tsk lora
has init-bad-option-suggest "$tmp/err" "did you mean '--task'?"
run init-missing-value 2 init -o
run init-no-folder 1 init -o "$tmp/no/such/folder/x.toml"
empty init-no-folder-stdout "$tmp/out"

finish
