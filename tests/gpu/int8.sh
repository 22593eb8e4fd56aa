#!/bin/bash
# int8.sh: the int8 weight-only model (bin/tinyllama --quant int8 | int8_unfused) against the
# int8 CPU reference (--cpu --quant int8: the same quantizer, fp32 arithmetic), and what int8
# trades against fp16.
#   1. the tiny fixture: in every mode, both ways to run int8 give the reference's 16 greedy
#      tokens, and the prompt's logits within 2e-2 of the reference's;
#   2. a TinyLlama-shaped model made here by hf_reference.py (needs torch + transformers): the
#      first 8 greedy tokens are the reference's in every mode (a random-weight model has
#      near-ties that fp16 activations tip, as model.sh allows for fp16), fused = graph, and
#      the step's weight bytes are half of fp16's;
#   3. int8 against fp16 (--vs-fp16 64): top-1 agreement and max |dlogit| printed, on both.
# SHARED, BIN: see fixtures.bash. Prints "int8: N passed, N failed".
source "$(dirname "$0")/fixtures.bash" int8
# how many of the first 16 of two comma lists are equal
agree16() { paste -d' ' <(echo "$1" | tr , '\n') <(echo "$2" | tr , '\n') | awk '$1 == $2 {n++} END {print n + 0}'; }
below() { python3 -c "import sys; sys.exit(0 if float('$1') < $2 else 1)" 2>/dev/null; }
tokens() { sed -n 's/^tokens=//p' "$1"; }
key() { sed -n "s/^$2=//p" "$1" | head -1; }

# 1. the tiny fixture
$BIN/tinyllama --model "$FIX/tiny-llama" --cpu --quant int8 --new 16 --dump-logits "$TMP/cpu.f32" >"$TMP/cpu" 2>&1
want=$(tokens "$TMP/cpu")
check '[ -n "$want" ]' "the int8 CPU reference ran on the fixture ($(tail -1 "$TMP/cpu"))"
echo "tiny cpu int8: tokens=$want"
for quant in int8 int8_unfused; do
  for mode in eager fused graph graph_eager; do
    $BIN/tinyllama --model "$FIX/tiny-llama" --quant $quant --new 16 --mode $mode --dump-logits "$TMP/l.f32" >"$TMP/out" 2>&1
    got=$(tokens "$TMP/out")
    check 'same "$got" "$want" 16' "tiny $quant $mode: tokens $got, the int8 CPU reference's $want"
    d=$(maxdiff "$TMP/l.f32" "$TMP/cpu.f32")
    check 'below "$d" 2e-2' "tiny $quant $mode: prompt logits differ from the int8 CPU reference's by $d (limit 2e-2)"
    echo "tiny $quant $mode: tokens=$got max_logit_diff=$d step_weight_gb=$(key "$TMP/out" step_weight_gb)"
  done
done
$BIN/tinyllama --model "$FIX/tiny-llama" --quant int8 --new 4 --vs-fp16 64 >"$TMP/vs" 2>&1
check 'grep -q "^vs_fp16: top1_agree=[0-9]*/64 .*max_dlogit=[0-9.]*" "$TMP/vs"' "tiny --vs-fp16 64 printed no comparison ($(tail -1 "$TMP/vs"))"
echo "tiny $(grep '^vs_fp16: top1' "$TMP/vs")"

# 2. a TinyLlama-shaped model from transformers
if python3 "$REF/hf_reference.py" --shape tinyllama --out "$TMP/tl" >"$TMP/ref.log" 2>&1; then
  $BIN/tinyllama --model "$TMP/tl" --cpu --quant int8 --new 16 >"$TMP/cpu" 2>&1
  want=$(tokens "$TMP/cpu")
  check '[ -n "$want" ]' "the int8 CPU reference ran on the TinyLlama shape ($(tail -1 "$TMP/cpu"))"
  echo "tinyllama cpu int8: tokens=$want $(grep '^cpu_tpot_ms=' "$TMP/cpu")"
  for quant in int8 int8_unfused; do
    first=
    for mode in eager fused graph graph_eager; do
      $BIN/tinyllama --model "$TMP/tl" --quant $quant --new 16 --mode $mode >"$TMP/out" 2>&1
      got=$(tokens "$TMP/out")
      [ $mode = fused ] && first=$got
      check 'same "$got" "$want" 8' "tinyllama $quant $mode: tokens $got, the int8 CPU reference's $want (first 8 must agree)"
      [ $mode = graph ] && check '[ "$got" = "$first" ]' "tinyllama $quant graph: tokens $got differ from fused's $first"
      echo "tinyllama $quant $mode: tokens=$got ($(agree16 "$got" "$want") of 16 the reference's) $(grep -E '^(tpot_ms|step_weight_gb)=' "$TMP/out" | tr '\n' ' ')"
    done
  done
  $BIN/tinyllama --model "$TMP/tl" --mode graph --new 4 >"$TMP/f16" 2>&1
  $BIN/tinyllama --model "$TMP/tl" --quant int8 --mode graph --new 4 --vs-fp16 64 >"$TMP/vs" 2>&1
  b16=$(key "$TMP/f16" step_weight_gb) b8=$(key "$TMP/vs" step_weight_gb)
  check 'python3 -c "import sys; r = $b8 / $b16; sys.exit(0 if 0.475 < r < 0.525 else 1)"' \
        "tinyllama: int8 graph step moves $b8 GB of weights, fp16 $b16: not half (+-5%)"
  check 'grep -q "^vs_fp16: top1_agree=[0-9]*/64 .*max_dlogit=[0-9.]*" "$TMP/vs"' "tinyllama --vs-fp16 64 printed no comparison ($(tail -1 "$TMP/vs"))"
  echo "tinyllama step_weight_gb: fp16 $b16, int8 $b8"
  echo "tinyllama $(grep '^vs_fp16: top1' "$TMP/vs") (random weights: int8 may tip their near-ties; a real checkpoint agrees on most tokens)"
else
  fail=$((fail + 1)); echo "FAIL hf_reference.py --shape tinyllama did not run (needs torch + transformers):"
  tail -3 "$TMP/ref.log"
fi
echo "int8: $pass passed, $fail failed"
[ $fail = 0 ]
