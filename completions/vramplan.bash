# bash completion for vramplan (installed as share/bash-completion/completions/vramplan,
# where bash-completion loads it on first use; or `source` this file).
# Commands, each command's options, the values of enumerated options, sheets (*.toml) and
# model files. Needs nothing but bash itself (not the bash-completion package's helpers).
# tests/packaging/check-completion.sh checks that every option of `vramplan COMMAND --help`
# is offered here.

# COMPREPLY from compgen's words for the current word, one per line (names with spaces
# stay whole)
_vramplan_reply()
{
    mapfile -t COMPREPLY < <(compgen "$@" -- "$cur")
}

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
        --solve) _vramplan_reply -W "context concurrency microbatch"; return ;;
        --framework) _vramplan_reply -W "vllm transformers llama.cpp other none"; return ;;
        --task) _vramplan_reply -W "inference lora qlora full"; return ;;
        --kv-cache) _vramplan_reply -W "auto bf16 fp16 fp32 fp8"; return ;;
        --weights)
            _vramplan_reply -W "fp32 bf16 fp16 fp8 int8 fp8-block128 nf4 fp4 nf4-dq fp4-dq
                int8-bnb gptq-int4-g128 awq-int4-g128 mxfp4"; return ;;
        --rank)
            _vramplan_reply -W "cost,margin,schedule cost,schedule,margin margin,cost,schedule
                margin,schedule,cost schedule,cost,margin schedule,margin,cost"; return ;;
        --svg|-o|--model) _vramplan_reply -f; return ;;
        --capacity|--context|--concurrency|--microbatch|--gpus|--tp|--pp|--utilization|\
        --max-num-batched-tokens|--max-num-seqs|--set|--width)
            return ;;
    esac

    local opts
    case $cmd in
        '')
            if [[ $cur == -* ]]; then
                _vramplan_reply -W "--help --version --man"
            else
                _vramplan_reply -W "$commands"
            fi
            return ;;
        estimate) opts="--json --markdown --capacity --svg $overrides" ;;
        fit) opts="--solve --capacity --json $overrides" ;;
        plan) opts="--json --markdown --rank --svg $overrides" ;;
        diagnose) opts="--json $overrides" ;;
        inspect) opts="--json --markdown --tensors --width" ;;
        init) opts="--model --task --framework -o --force" ;;
        cards) opts="--json --markdown --width" ;;
        help) _vramplan_reply -W "$commands"; return ;;
        *) return ;;
    esac
    if [[ $cur == -* ]]; then
        _vramplan_reply -W "$opts --help"
        return
    fi
    case $cmd in
        inspect) _vramplan_reply -f ;;
        init|cards) ;;
        *) mapfile -t COMPREPLY < <(compgen -f -X '!*.toml' -- "$cur"; compgen -d -- "$cur") ;;
    esac
}
complete -o filenames -o bashdefault -F _vramplan vramplan
