#!/bin/sh
# vramplan inspect ORG/NAME[@REVISION] and a sheet's [model] repo: models read from a local
# Hugging Face cache laid out as the hub client lays it out (refs, snapshots linking into
# blobs), never from the network; a repository that is not there is exit 1 with the
# folder looked at and the download command.
# usage: check-hfcache.sh VRAMPLAN TESTS_DIR
set -u
exe=$1 tests=$2
case $exe in /*) ;; *) exe=$(pwd)/$exe ;; esac
case $tests in /*) ;; *) tests=$(pwd)/$tests ;; esac
. "$(dirname "$0")/lib.sh"
commit=0123456789abcdef0123456789abcdef01234567
repo=$tmp/hub/models--google--medgemma-27b-it
mkdir -p "$repo/blobs" "$repo/refs" "$repo/snapshots/$commit"
cp "$tests/data/configs/google__medgemma-27b-it/config.json" "$repo/blobs/aaaa"
cp "$tests/data/configs/google__medgemma-27b-it/index.json" "$repo/blobs/bbbb"
ln -s ../../blobs/aaaa "$repo/snapshots/$commit/config.json"
ln -s ../../blobs/bbbb "$repo/snapshots/$commit/model.safetensors.index.json"
printf %s "$commit" > "$repo/refs/main"
# a tag whose snapshot holds only config.json
commit2=fedcba9876543210fedcba9876543210fedcba98
mkdir -p "$repo/snapshots/$commit2"
ln -s ../../blobs/aaaa "$repo/snapshots/$commit2/config.json"
printf '%s\n' "$commit2" > "$repo/refs/config-only"
export HF_HUB_CACHE="$tmp/hub"

run inspect-repo 0 inspect google/medgemma-27b-it
has inspect-repo-format "$tmp/out" "safetensors-index"
has inspect-repo-total "$tmp/out" "54,864,813,280"
run inspect-repo-rev 0 inspect "google/medgemma-27b-it@$commit" --json
has inspect-repo-json "$tmp/out" '"vision_type": "siglip"'
run inspect-repo-tag 0 inspect "google/medgemma-27b-it@config-only" --json
has inspect-repo-parts "$tmp/out" '"vision": {"parameters": 416866032'
run inspect-repo-text 0 inspect "google/medgemma-27b-it@config-only"
has inspect-repo-vision-row "$tmp/out" "vision encoder"
run inspect-missing 1 inspect meta-llama/Llama-3.1-8B
has inspect-missing-path "$tmp/err" "$tmp/hub/models--meta-llama--Llama-3.1-8B"
has inspect-missing-cmd "$tmp/err" "huggingface-cli download meta-llama/Llama-3.1-8B"
run inspect-bad-rev 1 inspect google/medgemma-27b-it@../x
has inspect-bad-rev-msg "$tmp/err" "revision"

# a sheet naming the repository
printf '[model]\nrepo = "google/medgemma-27b-it"\n\n[workload]\nweights = "bf16"\ncontext = 4096\nframework = "none"\nimages = 1\n' > "$tmp/s.toml"
run sheet-repo 0 estimate "$tmp/s.toml" --json
has sheet-repo-vision "$tmp/out" '"id": "vision_encoder"'
has sheet-repo-act "$tmp/out" '"id": "vision_activations"'
printf '[model]\nrepo = "google/gemma-3-4b-it"\n' > "$tmp/m.toml"
run sheet-repo-missing 1 estimate "$tmp/m.toml"
has sheet-repo-missing-pos "$tmp/err" "m.toml:2:8:"

# a snapshot of the index without its shards, config.json beside it: config.json counts
run rt-no-shards 0 inspect google/medgemma-27b-it
has rt-no-shards-says "$tmp/out" "the counts above are config.json's (beside the index)"
# ---- red team (issue 15): a cache that is not what the hub client writes ----
bad=$tmp/hub/models--rt--bad
mkdir -p "$bad/refs" "$bad/snapshots/$commit"
# a ref that is a FIFO: refused at once (never a blocked read)
mkfifo "$bad/refs/fifo"
run rt-ref-fifo 1 inspect rt/bad@fifo
has rt-ref-fifo-says "$tmp/err" "refs/fifo: not a regular file (a FIFO)"
# a ref naming a path outside the cache, not a commit
printf '../../../../etc\n' > "$bad/refs/out"
run rt-ref-out 1 inspect rt/bad@out
has rt-ref-out-says "$tmp/err" "a ref must hold one 40-hex commit hash"
# config.json a symlink loop: the repository is "not in the cache", not a hang or crash
ln -s loop2 "$bad/snapshots/$commit/loop1"; ln -s loop1 "$bad/snapshots/$commit/loop2"
ln -s loop1 "$bad/snapshots/$commit/config.json"
run rt-loop 1 inspect "rt/bad@$commit"
has rt-loop-says "$tmp/err" "not in the local Hugging Face cache: no config.json"
empty rt-loop-out "$tmp/out"
# two GGUF files: the answer says how to name one (the snapshot's path)
rm "$bad/snapshots/$commit/config.json"
: > "$bad/snapshots/$commit/a.gguf"; : > "$bad/snapshots/$commit/b.gguf"
run rt-two-gguf 1 inspect "rt/bad@$commit"
has rt-two-gguf-says "$tmp/err" "holds 2 GGUF files; name one instead of the repository: [model] checkpoint = \"$bad/snapshots/$commit/FILE.gguf\""
# ids that are paths or flags are refused before any file is looked at
for id in "rt/.." "rt--x/bad" "rt/ba--d" "/etc/passwd/x"; do
    "$exe" inspect "$id" > "$tmp/out" 2> "$tmp/err"
    [ $? -ne 0 ] && [ ! -s "$tmp/out" ] && passes=$((passes + 1)) || bad "rt-id '$id'"
done
finish
