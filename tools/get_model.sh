#!/bin/bash
# get_model.sh DIR: downloads TinyLlama-1.1B-Chat-v1.0 (config.json, tokenizer.json and the
# 2.2 GB model.safetensors in bfloat16) from the Hugging Face hub into DIR, resuming a
# partial download, and checks every file's size against the server's.
#   tools/get_model.sh models/TinyLlama-1.1B-Chat-v1.0        (what `make model` runs)
# HF_ENDPOINT (e.g. a mirror) replaces https://huggingface.co.
dir=${1:?usage: tools/get_model.sh DIR}
base=${HF_ENDPOINT:-https://huggingface.co}/TinyLlama/TinyLlama-1.1B-Chat-v1.0/resolve/main
command -v curl >/dev/null || { echo "error: curl is not installed; run: apt-get install -y curl" >&2; exit 1; }
mkdir -p "$dir" || exit 1

# The file's size on the server: a HEAD request following redirects. Large files answer
# with x-linked-size on the hub's redirect; otherwise the last hop's Content-Length counts.
remote_size() {
  curl -fsIL --retry 3 "$1" | tr -d '\r' |
    awk 'tolower($1) == "x-linked-size:" { x = $2 } tolower($1) == "content-length:" { c = $2 }
         END { print (x != "" ? x : c) }'
}
local_size() { if [ -f "$1" ]; then wc -c <"$1" | tr -d ' '; else echo 0; fi; }

for f in config.json tokenizer.json model.safetensors; do
  url=$base/$f out=$dir/$f
  want=$(remote_size "$url")
  have=$(local_size "$out")
  if [ -n "$want" ] && [ "$have" = "$want" ]; then echo "$out: complete ($have bytes)"; continue; fi
  if [ -n "$want" ] && [ "$have" -gt "$want" ]; then rm -f "$out"; fi   # not a prefix: start over
  echo "$out: downloading $url"
  curl -fL --retry 5 --retry-delay 3 -C - -o "$out" "$url" ||
    { echo "error: downloading $url failed; check the network (or set HF_ENDPOINT to a mirror) and run this again, it resumes" >&2; exit 1; }
  have=$(local_size "$out")
  if [ -z "$want" ]; then
    echo "$out: $have bytes (the server did not say its size, so it is unchecked)"
  elif [ "$have" != "$want" ]; then
    echo "error: $out has $have bytes but the server has $want; run this again to resume, or delete $out to start over" >&2
    exit 1
  else
    echo "$out: complete ($have bytes)"
  fi
done
echo "model ready in $dir: bin/tinyllama --model $dir --prompt \"The llama is\""
