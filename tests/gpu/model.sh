#!/bin/bash
# model.sh: bin/tinyllama on the GPU against Hugging Face transformers.
#   1. the tiny fixture (bf16 on disk): greedy tokens = transformers' fp16 ones, logits at
#      every prompt position within 2e-2 of its fp32 logits.f32, in every mode;
#   2. a TinyLlama-shaped model made here by hf_reference.py (needs torch + transformers):
#      the first 8 greedy tokens = transformers' fp16 ones, and all four modes agree.
# SHARED, BIN: see fixtures.bash. Prints "model: N passed, N failed".
source "$(dirname "$0")/fixtures.bash" model
field() { python3 -c 'import json,sys; print(",".join(map(str, json.load(open(sys.argv[1]))[sys.argv[2]])))' "$1" "$2"; }

# 1. the tiny fixture
want=$(field "$FIX/tiny-llama/expected.json" greedy_fp16)
for mode in eager fused graph graph_eager; do
  $BIN/tinyllama --model "$FIX/tiny-llama" --new 16 --mode $mode --dump-logits "$TMP/l.f32" >"$TMP/out" 2>&1
  got=$(sed -n 's/^tokens=//p' "$TMP/out")
  check 'same "$got" "$want" 16' "tiny $mode: tokens $got, transformers fp16 $want"
  d=$(maxdiff "$TMP/l.f32" "$FIX/tiny-llama/logits.f32")
  check 'python3 -c "import sys; sys.exit(0 if float(\"$d\") < 2e-2 else 1)" 2>/dev/null' \
        "tiny $mode: logits differ from logits.f32 by $d (limit 2e-2)"
  echo "tiny $mode: tokens=$got max_logit_diff=$d"
done

# 1b. make test-gpu-t4 builds compute_75 PTX alone: the same binaries without the switch (this
# GPU's own limits, its sm_90 branches compiled out) must take the T4's paths too, by what the
# kernels were compiled for, and give the same tokens; and no time under its floor (bench).
if [ "$KIT_GPU" = t4 ]; then
  for mode in eager fused graph; do
    KIT_GPU= $BIN/tinyllama --model "$FIX/tiny-llama" --new 16 --mode $mode >"$TMP/out" 2>&1
    got=$(sed -n 's/^tokens=//p' "$TMP/out")
    check 'same "$got" "$want" 16' "compute_75 build without the switch, tiny $mode: tokens $got, transformers fp16 $want"
  done
  KIT_GPU= KIT_RESULTS=$TMP $BIN/bench --runs 1 --new 8 >"$TMP/bench" 2>&1; rc=$?
  check '[ $rc = 0 ] && ! grep -q "^error" "$TMP/bench"' "compute_75 build without the switch: bench exits 0 with no time under the floor ($(grep -m1 '^error' "$TMP/bench"))"
  grep -E '^bench mode=(eager|graph) +batch=1 ' "$TMP/bench"
fi

# 2. a TinyLlama-shaped model from transformers
if python3 "$REF/hf_reference.py" --shape tinyllama --out "$TMP/tl" >"$TMP/ref.log" 2>&1; then
  want=$(field "$TMP/tl/expected.json" greedy_fp16)
  first=
  for mode in eager fused graph graph_eager; do
    $BIN/tinyllama --model "$TMP/tl" --new 16 --mode $mode >"$TMP/out" 2>&1
    got=$(sed -n 's/^tokens=//p' "$TMP/out")
    [ -z "$first" ] && first=$got
    check 'same "$got" "$want" 8' "tinyllama $mode: tokens $got, transformers fp16 $want (first 8 must agree)"
    check '[ "$got" = "$first" ]' "tinyllama $mode: tokens $got differ from eager's $first"
    echo "tinyllama $mode: tokens=$got $(grep -E '^(load_gbs|tpot_ms)=' "$TMP/out" | tr '\n' ' ')"
  done
  echo "tinyllama transformers fp16: $want"
else
  fail=$((fail + 1)); echo "FAIL hf_reference.py --shape tinyllama did not run (needs torch + transformers):"
  tail -3 "$TMP/ref.log"
fi
echo "model: $pass passed, $fail failed"
[ $fail = 0 ]
