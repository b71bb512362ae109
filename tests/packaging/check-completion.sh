#!/bin/bash
# The bash completion (completions/vramplan.bash) loads in a plain bash, registers itself
# for `vramplan`, completes every command of `vramplan --help`, every option of each
# `vramplan COMMAND --help`, the values of enumerated options and sheet files.
# usage: check-completion.sh VRAMPLAN COMPLETION_FILE SOURCE_ROOT
set -u
exe=$1 comp=$2 root=$3
TMPDIR_COMP=$(mktemp -d)
failed=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; failed=$((failed + 1)); }

# shellcheck disable=SC1090
if source "$comp"; then ok "sources in bash $BASH_VERSION"; else bad "does not source"; exit 1; fi
if complete -p vramplan 2>/dev/null | grep -q -- '-F _vramplan'; then ok "registered: $(complete -p vramplan)"
else bad "no completion registered for vramplan"; fi

# c WORD...: the candidates for the last word, one per line, sorted
c() {
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _vramplan
    printf '%s\n' "${COMPREPLY[@]}" | sort
}
has() { # has LABEL CANDIDATES WORD...
    local label=$1 got=$2 w; shift 2
    for w in "$@"; do
        printf '%s\n' "$got" | grep -qxF -- "$w" || { bad "$label: '$w' not offered (got: $(echo $got))"; return; }
    done
    ok "$label"
}

commands=$("$exe" --help | sed -n '/^commands:/,/^$/p' | grep -oE '^  [a-z]+' | tr -d ' ')
# shellcheck disable=SC2086
has "commands of vramplan --help" "$(c vramplan '')" $commands help
has "a command from its prefix" "$(c vramplan est)" estimate
has "top-level options" "$(c vramplan --)" --help --version --man
for cmd in $commands; do
    opts=$("$exe" "$cmd" --help | grep -E '^  -' | cut -c1-26 | grep -oE -- '--?[a-z][a-z-]*' | grep -vx -- -h)
    # shellcheck disable=SC2086
    offered=$(c vramplan "$cmd" sheet.toml -)
    # shellcheck disable=SC2086
    has "$cmd: every option of its --help ($(echo $opts | wc -w))" "$offered" $opts
    # shellcheck disable=SC2046
    extra=$(printf '%s\n' "$offered" | grep -vxF -e --help $(printf -- '-e %s ' $opts))
    if [ -z "$extra" ]; then ok "$cmd: no option its --help lacks"; else bad "$cmd: offers $(echo $extra)"; fi
done
has "--solve values" "$(c vramplan fit x.toml --solve '')" context concurrency microbatch
has "--framework values" "$(c vramplan estimate x.toml --framework '')" vllm transformers llama.cpp other none
has "--task values" "$(c vramplan init --task '')" inference lora qlora full
has "--kv-cache values" "$(c vramplan estimate x.toml --kv-cache f)" fp16 fp32 fp8
has "help COMMAND" "$(c vramplan help p)" plan
cd "$root" || exit 1
has "sheets: *.toml files" "$(c vramplan estimate examples/seed)" examples/seed.toml examples/seed-plan.toml
got=$(c vramplan estimate examples/hel)
if [ -z "$got" ]; then ok "sheets: a .c file is not offered"; else bad "sheets: offered $got"; fi
has "inspect: model files" "$(c vramplan inspect tests/data/configs/meta-llama__Meta-Llama-3.1-8B/con)" \
    tests/data/configs/meta-llama__Meta-Llama-3.1-8B/config.json
# a name with a space stays one candidate
mkdir -p "$TMPDIR_COMP/with space" && : > "$TMPDIR_COMP/with space/a sheet.toml"
has "a sheet whose path has spaces" "$(c vramplan estimate "$TMPDIR_COMP/with space/a")" \
    "$TMPDIR_COMP/with space/a sheet.toml"
rm -rf "$TMPDIR_COMP"
echo "$failed failed"
[ "$failed" -eq 0 ]
