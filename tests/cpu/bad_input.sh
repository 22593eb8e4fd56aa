#!/bin/bash
# Bad model folders, made from the tiny fixture with standard tools, each run through
# bin/tinyllama --cpu and the AddressSanitizer build of the parsers ($BUILD/asan/parse_check).
# Every one must end in exit code 1 and exactly one "error:" sentence that names the file,
# field or tensor at fault, within 60 s: no sanitizer report, no crash, no hang. Config values
# at their extremes are refused by name; so are a FIFO or a folder where a file belongs.
cd "$(dirname "$0")/../.."
SHARED=${SHARED:-../shared} BUILD=${BUILD:-build}
if [ ! -d "$SHARED/fixtures" ]; then   # a student's clone: skip, loudly; CI (KIT_REQUIRE_FIXTURES): fail
  r=${KIT_REQUIRE_FIXTURES:+1}; echo "bad_input: 0 passed, ${r:-0} failed, $((1 - ${r:-0})) skipped (no fixtures at $SHARED/fixtures: set SHARED to the course's shared folder)"; exit ${r:-0}
fi
fix=$SHARED/fixtures/tiny-llama
tmp=$(mktemp -d /tmp/kit_bad_input.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# (a program that dies on bad input does not free first: leaks are checked on good input only)
export ASAN_OPTIONS=exitcode=99:detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=98
pass=0 fail=0

# expect NAME "STRING1|STRING2" COMMAND...: exit 1, one error line holding every STRING
expect() {
  local name=$1 want=$2; shift 2
  local err=$tmp/stderr rc
  [ -x "$1" ] || { echo "FAIL $name: $1 is missing (make programs)"; fail=$((fail + 1)); return; }
  timeout 60 "$@" >/dev/null 2>"$err"; rc=$?
  local why=""
  [ "$rc" = 1 ] || why="exit code $rc, want 1"
  grep -qE 'Sanitizer|runtime error' "$err" && why="sanitizer report"
  [ -z "$why" ] && [ "$(grep -c '^error: ' "$err")" != 1 ] && why="want exactly one 'error:' line"
  local IFS='|'
  for s in $want; do [ -z "$why" ] && ! grep -qF -- "$s" "$err" && why="the error does not name '$s'"; done
  if [ -z "$why" ]; then pass=$((pass + 1)); echo "ok   $name ($(basename "$1")): $(head -1 "$err")"
  else fail=$((fail + 1)); echo "FAIL $name ($(basename "$1")): $why"; head -5 "$err" | sed 's/^/       /'; fi
}
# both programs on one model folder
expect_both() {
  expect "$1" "$2" bin/tinyllama --cpu --new 2 --model "$3"
  expect "$1" "$2" "$BUILD/asan/parse_check" "$3"
}
# new_case NAME: a folder with the fixture's config.json and a private copy of the weights
new_case() { mkdir "$tmp/$1" && cp "$fix/config.json" "$fix/model.safetensors" "$tmp/$1/" && chmod u+w "$tmp/$1"/*; }
# patch FILE OLD NEW: overwrite the first OLD in the file's first 64 KiB with NEW (same length)
patch() {
  local at; at=$(head -c 65536 "$1" | grep -obUaF -m1 -- "$2" | head -1 | cut -d: -f1)
  [ -n "$at" ] && printf '%s' "$3" | dd of="$1" bs=1 seek="$at" conv=notrunc status=none
}

# the untouched fixture passes (and leaks nothing)
for prog in bin/tinyllama "$BUILD/asan/parse_check"; do
  args=(); [ "$prog" = bin/tinyllama ] && args=(--cpu --new 2 --model)
  if ASAN_OPTIONS=exitcode=99:detect_leaks=1 "$prog" "${args[@]}" "$fix" >/dev/null 2>"$tmp/stderr" && ! grep -q . "$tmp/stderr"; then pass=$((pass + 1))
  else fail=$((fail + 1)); echo "FAIL the good fixture ($prog)"; head -5 "$tmp/stderr"; fi
done

new_case truncated;  head -c 4000000 "$fix/model.safetensors" >"$tmp/truncated/model.safetensors"
expect_both truncated "model.safetensors|lm_head.weight|outside the data area" "$tmp/truncated"
new_case empty;      : >"$tmp/empty/model.safetensors"
expect_both empty "model.safetensors|too short" "$tmp/empty"
new_case no_weights; rm "$tmp/no_weights/model.safetensors"
expect_both no_weights "no_weights: no model.safetensors" "$tmp/no_weights"
new_case hdr_len;    printf '\x00\x00\x00\x01\x00\x00\x00\x00' | dd of="$tmp/hdr_len/model.safetensors" conv=notrunc status=none
expect_both header_length_past_end "model.safetensors|header length 16777216" "$tmp/hdr_len"
new_case bad_json;   patch "$tmp/bad_json/model.safetensors" '"lm_head.weight":' '"lm_head.weight";'
expect_both invalid_json_header "model.safetensors|not a valid JSON" "$tmp/bad_json"
new_case dtype;      patch "$tmp/dtype/model.safetensors" '"BF16"' '"BOOL"'
expect_both unknown_dtype "model.safetensors|lm_head.weight|BOOL" "$tmp/dtype"
new_case size_lie;   patch "$tmp/size_lie/model.safetensors" '[0,4096000]' '[0,4096002]'
expect_both offsets_vs_shape "lm_head.weight|4096002 bytes" "$tmp/size_lie"
new_case overlap;    patch "$tmp/overlap/model.safetensors" '[4096000,8192000]' '[4095000,8191000]'
expect_both overlapping_tensors "overlap|model.embed_tokens.weight" "$tmp/overlap"
new_case shape;      patch "$tmp/shape/model.safetensors" '[176,64]' '[64,176]'
expect_both shape_mismatch "model.layers.0.mlp.gate_proj.weight|[64, 176]|expected [176, 64]" "$tmp/shape"
new_case missing;    patch "$tmp/missing/model.safetensors" '"model.norm.weight"' '"model.norX.weight"'
expect_both missing_tensor "model.norm.weight|missing" "$tmp/missing"

# config.json: a missing field, invalid values, not JSON
cfg_case() {  # cfg_case NAME SED_SCRIPT: the fixture with config.json edited by sed
  mkdir "$tmp/$1" && ln -s "$(realpath "$fix/model.safetensors")" "$tmp/$1/" && sed "$2" "$fix/config.json" >"$tmp/$1/config.json"
}
cfg_case no_kv_heads '/num_key_value_heads/d'
expect_both missing_config_field "config.json|'num_key_value_heads' is missing" "$tmp/no_kv_heads"
cfg_case heads '/num_attention_heads/s/4/3/'
expect_both heads_not_multiple "config.json|num_attention_heads (3)|num_key_value_heads (2)" "$tmp/heads"
cfg_case layers '/num_hidden_layers/s/2/-2/'
expect_both negative_layers "config.json|'num_hidden_layers' must be an integer in 1..1024" "$tmp/layers"
cfg_case act 's/"silu"/"gelu"/'
expect_both unsupported_act "config.json|'hidden_act' is \"gelu\"" "$tmp/act"
cfg_case dtype_cfg 's/"bfloat16"/"int8"/'
expect_both unsupported_dtype "config.json|'dtype'" "$tmp/dtype_cfg"
cfg_case rope '/"rope_type"/s/default/yarn/'
expect_both rope_type "config.json|'rope_parameters.rope_type' is not \"default\"" "$tmp/rope"
cfg_case scaling 's/"pad_token_id": null/"rope_scaling": {"type": "linear", "factor": 2.0}/'
expect_both rope_scaling_set "config.json|'rope_scaling' is set" "$tmp/scaling"
cfg_case cfg_json 's/"vocab_size": 32000/"vocab_size": 32000,,/'
expect_both config_not_json "config.json|not valid JSON" "$tmp/cfg_json"

# config values at their extremes: each bounded to what the kit runs, checked after narrowing
cfg_case big_dim '/"hidden_size"/s/64/2147483647/'
expect_both hidden_size_2e31 "config.json|'hidden_size' must be an integer in 1..65536" "$tmp/big_dim"
cfg_case big_ffn '/"intermediate_size"/s/176/2147483000/'
expect_both intermediate_size_2e31 "config.json|'intermediate_size' must be an integer in 1..262144" "$tmp/big_ffn"
cfg_case many_layers '/"num_hidden_layers"/s/2/268435456/'
expect_both layers_2e28 "config.json|'num_hidden_layers' must be an integer in 1..1024" "$tmp/many_layers"
cfg_case long_ctx '/"max_position_embeddings"/s/256/2147483647/'
expect_both positions_2e31 "config.json|'max_position_embeddings' must be an integer in 1..1048576" "$tmp/long_ctx"
cfg_case tiny_vocab '/"vocab_size"/s/32000/3/'
expect_both vocab_3 "config.json|'vocab_size' must be an integer in 4..16777216" "$tmp/tiny_vocab"
cfg_case eps_huge '/"rms_norm_eps"/s/1e-05/1e300/'
expect_both eps_1e300 "config.json|'rms_norm_eps' must be a number in (0, 1]" "$tmp/eps_huge"
cfg_case eps_tiny '/"rms_norm_eps"/s/1e-05/1e-50/'
expect_both eps_0_as_float "config.json|'rms_norm_eps' must be a number in (0, 1] that a float holds above 0" "$tmp/eps_tiny"
cfg_case theta_huge '/"rope_theta"/s/10000.0/1e39/'
expect_both rope_theta_1e39 "config.json|'rope_parameters.rope_theta' must be a number in (0, 1e+12]" "$tmp/theta_huge"
cfg_case bos_vocab '/"bos_token_id"/s/1/32000/'
expect_both bos_id_vocab "config.json|'bos_token_id' must be a token id, an integer in 0..31999" "$tmp/bos_vocab"
cfg_case eos_vocab '/"eos_token_id"/s/2/[99999]/'
expect_both eos_id_list_vocab "config.json|'eos_token_id' must be a token id" "$tmp/eos_vocab"

# a FIFO or a folder where a file belongs: one sentence at once, never a hang or silence
mkdir "$tmp/fifo_cfg" && ln -s "$(realpath "$fix/model.safetensors")" "$tmp/fifo_cfg/" && mkfifo "$tmp/fifo_cfg/config.json"
expect_both config_fifo "fifo_cfg/config.json is a FIFO (named pipe), not a file" "$tmp/fifo_cfg"
mkdir -p "$tmp/dir_cfg/config.json" && ln -s "$(realpath "$fix/model.safetensors")" "$tmp/dir_cfg/"
expect_both config_folder "dir_cfg/config.json is a folder, not a file" "$tmp/dir_cfg"
mkdir "$tmp/fifo_st" && cp "$fix/config.json" "$tmp/fifo_st/" && mkfifo "$tmp/fifo_st/model.safetensors"
expect_both weights_fifo "fifo_st/model.safetensors: not a regular file" "$tmp/fifo_st"
mkdir -p "$tmp/dir_tok/tokenizer.json" && ln -s "$(realpath "$fix/config.json")" "$(realpath "$fix/model.safetensors")" "$tmp/dir_tok/"
expect_both tokenizer_folder "dir_tok/tokenizer.json is a folder, not a file" "$tmp/dir_tok"

# no GPU: the GPU path says so in one sentence and points at --cpu (on a machine without one)
if ! nvidia-smi -L >/dev/null 2>&1; then
  expect no_gpu_suggests_cpu "no usable CUDA GPU|--cpu" bin/tinyllama --model "$fix" --new 2
fi

# safetensors headers written here: the fixture's data area under an edited header
hlen=$(od -An -tu8 -N8 "$fix/model.safetensors" | tr -d ' ')
header=$(dd if="$fix/model.safetensors" bs=1 skip=8 count="$hlen" status=none)
le64() { local i; for i in 0 1 2 3 4 5 6 7; do printf "\\x$(printf %02x $(( ($1 >> (8 * i)) & 255 )))"; done; }
st_case() {   # st_case NAME HEADER [DATA_FILE]: a folder with the config and model.safetensors
  mkdir "$tmp/$1" && cp "$fix/config.json" "$tmp/$1/"
  { le64 ${#2}; printf '%s' "$2"; tail -c +$((9 + hlen)) "${3:-$fix/model.safetensors}"; } >"$tmp/$1/model.safetensors"
}
empty='"zz.empty":{"dtype":"BF16","shape":[0],"data_offsets":[0,0]}'
st_case empty_first "{$empty,${header#\{}"
st_case empty_last "${header%\}*},$empty}"
for c in empty_first empty_last; do
  for prog in bin/tinyllama "$BUILD/asan/parse_check"; do
    args=(); [ "$prog" = bin/tinyllama ] && args=(--cpu --new 2 --model)
    if timeout 60 "$prog" "${args[@]}" "$tmp/$c" >/dev/null 2>"$tmp/stderr"; then pass=$((pass + 1))
    else fail=$((fail + 1)); echo "FAIL a zero-size tensor at lm_head's start is accepted in any key order ($c, $prog)"; head -3 "$tmp/stderr"; fi
  done
done
st_case empty_inside "${header%\}*},\"zz.empty\":{\"dtype\":\"BF16\",\"shape\":[0],\"data_offsets\":[100,100]}}"
expect_both zero_size_inside_another "model.safetensors|tensors 'lm_head.weight' and 'zz.empty' overlap" "$tmp/empty_inside"
# 120000 tensors with one name twice: found by sorting once, in seconds (checking each name
# against all before it took minutes)
many=$(awk 'BEGIN { printf "{"; for (i = 0; i < 120000; i++) printf "\"t%d\":{\"dtype\":\"F16\",\"shape\":[0],\"data_offsets\":[0,0]},", i;
                    printf "\"t77777\":{\"dtype\":\"F16\",\"shape\":[0],\"data_offsets\":[0,0]}}" }')
: >"$tmp/no_data"
st_case many_tensors "$many" "$tmp/no_data"
expect_both duplicate_among_120000 "model.safetensors|tensor 't77777' appears twice" "$tmp/many_tensors"
# the same tensor in two shards of an index
mkdir "$tmp/two_shards" && cp "$fix/config.json" "$tmp/two_shards/"
one='{"x":{"dtype":"F16","shape":[1],"data_offsets":[0,2]}}'
for k in 1 2; do { le64 ${#one}; printf '%s\0\0' "$one"; } >"$tmp/two_shards/s$k.safetensors"; done
printf '{"weight_map": {"x": "s1.safetensors", "y": "s2.safetensors"}}' >"$tmp/two_shards/model.safetensors.index.json"
expect_both tensor_in_two_shards "s1.safetensors|s2.safetensors|tensor 'x' is in both" "$tmp/two_shards"

# a prompt longer than the context (256 positions), and one that leaves no room for --new
long=$(seq -s, 1 300) fits=$(seq -s, 1 250)
expect prompt_too_long "config.json|300 tokens|max_position_embeddings is 256" \
  bin/tinyllama --cpu --model "$fix" --prompt-ids "$long"
expect new_past_context "config.json|--new 10|use --new 7 or less" \
  bin/tinyllama --cpu --model "$fix" --prompt-ids "$fits" --new 10

# the weights' format: one of three names; the fp16 comparison only for int8, on the GPU
expect quant_unknown "--quant int4|fp16, int8 or int8_unfused" bin/tinyllama --cpu --model "$fix" --quant int4
expect vs_fp16_on_cpu "--vs-fp16|--quant int8|without --cpu" bin/tinyllama --cpu --model "$fix" --quant int8 --vs-fp16 8

echo "bad_input: $pass passed, $fail failed"
[ "$fail" = 0 ]
