# bash completion for vramplan (installed as share/bash-completion/completions/vramplan,
# where bash-completion loads it on first use; or `source` this file).
# Commands, each command's options, the values of enumerated options, sheets (*.toml) and
# model files. Needs nothing but bash itself (not the bash-completion package's helpers).
# tests/packaging/check-completion.sh checks that every option of `vramplan COMMAND --help`
# is offered here.

_vramplan()
{
    local cur prev cmd i
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=
    [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
    local commands="estimate fit plan diagnose inspect init cards help"
    local overrides="--context --concurrency --microbatch --weights --kv-cache --framework
        --gpus --tp --pp --utilization --max-num-batched-tokens --max-num-seqs --set --width"
    cmd=
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            -*) ;;
            *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done

    # the value of an option
    case $prev in
        --solve) COMPREPLY=($(compgen -W "context concurrency microbatch" -- "$cur")); return ;;
        --framework) COMPREPLY=($(compgen -W "vllm transformers llama.cpp other none" -- "$cur")); return ;;
        --task) COMPREPLY=($(compgen -W "inference lora qlora full" -- "$cur")); return ;;
        --kv-cache) COMPREPLY=($(compgen -W "auto bf16 fp16 fp32 fp8" -- "$cur")); return ;;
        --weights)
            COMPREPLY=($(compgen -W "fp32 bf16 fp16 fp8 int8 fp8-block128 nf4 fp4 nf4-dq fp4-dq
                int8-bnb gptq-int4-g128 awq-int4-g128 mxfp4" -- "$cur")); return ;;
        --rank)
            COMPREPLY=($(compgen -W "cost,margin,schedule cost,schedule,margin margin,cost,schedule
                margin,schedule,cost schedule,cost,margin schedule,margin,cost" -- "$cur")); return ;;
        --svg|-o|--model) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --capacity|--context|--concurrency|--microbatch|--gpus|--tp|--pp|--utilization|\
        --max-num-batched-tokens|--max-num-seqs|--set|--width)
            return ;;
    esac

    local opts
    case $cmd in
        '')
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "--help --version --man" -- "$cur"))
            else
                COMPREPLY=($(compgen -W "$commands" -- "$cur"))
            fi
            return ;;
        estimate) opts="--json --markdown --capacity --svg $overrides" ;;
        fit) opts="--solve --capacity --json $overrides" ;;
        plan) opts="--json --markdown --rank --svg $overrides" ;;
        diagnose) opts="--json $overrides" ;;
        inspect) opts="--json --markdown --tensors --width" ;;
        init) opts="--model --task --framework -o --force" ;;
        cards) opts="--json --markdown --width" ;;
        help) COMPREPLY=($(compgen -W "$commands" -- "$cur")); return ;;
        *) return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
        return
    fi
    case $cmd in
        inspect) COMPREPLY=($(compgen -f -- "$cur")) ;;
        init|cards) ;;
        *) COMPREPLY=($(compgen -f -X '!*.toml' -- "$cur") $(compgen -d -- "$cur")) ;;
    esac
}
complete -o filenames -o bashdefault -F _vramplan vramplan
