#!/bin/bash
# tools/get_model.sh (what `make model` runs) against a stand-in hub: HF_ENDPOINT pointed at a
# local folder through file:// URLs, which curl serves with sizes and resumes like HTTP.
# A fresh download, a second run that downloads nothing, a partial file resumed, a file
# longer than the server's started over, and an unreachable hub that says what to do.
cd "$(dirname "$0")/../.."
get=$PWD/tools/get_model.sh
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
if ! command -v curl >/dev/null; then   # skipped, loudly; CI (KIT_REQUIRE_FIXTURES) has curl, so there it fails
  r=${KIT_REQUIRE_FIXTURES:+1}; echo "get_model: 0 passed, ${r:-0} failed, $((1 - ${r:-0})) skipped (no curl: apt-get install curl)"; exit ${r:-0}
fi

hub=$tmp/hub/TinyLlama/TinyLlama-1.1B-Chat-v1.0/resolve/main
mkdir -p "$hub"
for f in config.json tokenizer.json model.safetensors; do head -c $((3000 + ${#f} * 997)) /dev/urandom >"$hub/$f"; done
fetch() { HF_ENDPOINT=file://$tmp/hub "$get" "$tmp/$1" >"$tmp/out.txt" 2>&1; }
same() { for f in config.json tokenizer.json model.safetensors; do cmp -s "$hub/$f" "$tmp/$1/$f" || return 1; done; }

fetch m; rc=$?
ok "fresh: exit 0" "[ $rc = 0 ]"
ok "fresh: the three files, byte for byte" "same m"
ok "fresh: says where the model is" "grep -q \"model ready in $tmp/m\" $tmp/out.txt"
fetch m
ok "again: nothing downloaded" "! grep -q downloading $tmp/out.txt && [ \$(grep -c ': complete' $tmp/out.txt) = 3 ]"
head -c 1000 "$hub/model.safetensors" >"$tmp/m/model.safetensors"
fetch m; rc=$?
ok "a partial file: resumed to the server's bytes" "[ $rc = 0 ] && same m && grep -q 'Resuming' $tmp/out.txt"
cat "$hub/config.json" "$hub/config.json" >"$tmp/m/config.json"
fetch m; rc=$?
ok "a file longer than the server's: started over" "[ $rc = 0 ] && same m"
HF_ENDPOINT=file://$tmp/nowhere "$get" "$tmp/n" >"$tmp/out.txt" 2>&1; rc=$?
ok "no hub: exit 1, says to check the network or HF_ENDPOINT" "[ $rc = 1 ] && grep -q 'HF_ENDPOINT' $tmp/out.txt"
"$get" >"$tmp/out.txt" 2>&1; rc=$?
ok "no DIR: usage" "[ $rc != 0 ] && grep -q 'usage' $tmp/out.txt"

echo "get_model: $pass passed, $fail failed"
[ $fail = 0 ]
