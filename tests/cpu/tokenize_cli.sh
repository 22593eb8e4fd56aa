#!/bin/bash
# tokenize_cli: bin/tokenize on a few texts (ids as Hugging Face tokenizers gives them), the
# --decode round trip, an unknown or empty id and bad tokenizer.json files (exit 1, one "error:" line
# naming the id or the field, no crash); then the tokenizer under AddressSanitizer/UBSan
# ($BUILD/asan/tokenizer_check, on the fixture and on the bad files) with no sanitizer report.
cd "$(dirname "$0")/../.."
SHARED=${SHARED:-../shared}
if [ ! -d "$SHARED/fixtures" ]; then   # a student's clone: skip, loudly; CI (KIT_REQUIRE_FIXTURES): fail
  r=${KIT_REQUIRE_FIXTURES:+1}; echo "tokenize_cli: 0 passed, ${r:-0} failed, $((1 - ${r:-0})) skipped (no fixtures at $SHARED/fixtures: set SHARED to the course's shared folder)"; exit ${r:-0}
fi
BUILD=${BUILD:-build}
TOK=$SHARED/fixtures/llama-tokenizer/tokenizer.json
ASAN=$BUILD/asan/tokenizer_check
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect() { # NAME GOT WANT
  if [ "$2" == "$3" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); printf 'FAIL %s: got [%s], want [%s]\n' "$1" "$2" "$3"; fi
}
# NAME GREP-PATTERN COMMAND...: exit 1, nothing on stdout, one stderr line "error: ..." matching
fails_with() {
  local name=$1 pattern=$2; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  expect "$name: exit code" "$rc" 1
  expect "$name: stdout" "$(cat "$tmp/out")" ""
  expect "$name: stderr lines" "$(wc -l <"$tmp/err")" 1
  grep -qE "^error: .*$pattern" "$tmp/err"
  expect "$name: message names '$pattern'" "$?" 0
  expect "$name: sanitizer reports" "$(grep -cE 'Sanitizer|runtime error' "$tmp/err")" 0
}

[ -x bin/tokenize ] || { echo "bin/tokenize is not built (make bin/tokenize)"; echo "tokenize_cli: 0 passed, 1 failed"; exit 1; }
expect "Hello world!" "$(bin/tokenize --tokenizer "$TOK" -- Hello world!)" "ids=1,15043,3186,29991"
expect "--no-bos" "$(bin/tokenize --tokenizer "$TOK" --no-bos -- "中文测试：大语言模型推理")" \
  "ids=29871,30275,30333,31851,31787,30383,30257,31505,31243,31382,30883,233,145,171,30687"
expect "special tokens in the text" "$(bin/tokenize --tokenizer "$TOK" -- "<s> not a special token </s>")" \
  "ids=1,1,29871,451,263,4266,5993,29871,2"
for text in "Hello world!" "emoji 🦙🚀 and 🤖" "  two leading spaces, tab	and 1234567890"; do
  ids=$(bin/tokenize --tokenizer "$TOK" -- "$text")
  expect "round trip of '$text'" "$(bin/tokenize --tokenizer "$TOK" --decode -- "$ids")" "$text"
done
expect "--decode of bare ids" "$(bin/tokenize --tokenizer "$TOK" --decode -- 1 29871 243 162 169 156)" "🦙"
bin/tokenize --help | grep -q -- --decode
expect "--help" "$?" 0

fails_with "unknown id" "id 32000 .*vocab size is 32000" bin/tokenize --tokenizer "$TOK" --decode -- 1,15043,32000
fails_with "negative id" "id -1 " bin/tokenize --tokenizer "$TOK" --decode -- 1,-1
fails_with "not an id" "'x7' is not a token id" bin/tokenize --tokenizer "$TOK" --decode -- 1,x7
fails_with "ids= with no ids" "nothing to decode: 'ids=' holds no ids" bin/tokenize --tokenizer "$TOK" --decode -- ids=
fails_with "only separators" "nothing to decode" bin/tokenize --tokenizer "$TOK" --decode -- " , "
fails_with "an empty id between two commas" "'15043,,3186' holds an empty id at position 2" bin/tokenize --tokenizer "$TOK" --decode -- 15043,,3186
fails_with "an empty id at the end" "'15043,,' holds an empty id at position 2" bin/tokenize --tokenizer "$TOK" --decode -- 15043,,
fails_with "a comma at the start" "',15043' holds an empty id at position 1" bin/tokenize --tokenizer "$TOK" --decode -- ,15043
expect "spaces beside the commas are not ids" "$(bin/tokenize --tokenizer "$TOK" --decode -- "ids=1, 15043 ,3186")" "Hello world"
mkdir "$tmp/tok_dir.json"
fails_with "a folder as the tokenizer" "tok_dir.json is a folder, not a file" bin/tokenize --tokenizer "$tmp/tok_dir.json" -- hi
fails_with "missing tokenizer" "no tokenizer at $tmp/none.json" bin/tokenize --tokenizer "$tmp/none.json" -- hi

# Bad tokenizer.json files, each one edit away from the fixture, and what the error must name.
bad() { sed "$2" "$TOK" >"$tmp/$1.json"; }
head -c 100000 "$TOK" >"$tmp/truncated.json"
bad no_model 's/"model": {/"model_": {/'
bad no_vocab 's/"vocab": {/"vocab_": {/'
bad vocab_list 's/"vocab": {/"vocab": [], "v": {/'
bad no_merges 's/"merges": \[/"merges_": [/'
bad merge_oov 's/"merges": \["▁ t", /"merges": ["▁ zq", /'
bad merge_int 's/"merges": \["▁ t", /"merges": [7, /'
bad id_string 's/"<0x41>": 68/"<0x41>": "68"/'
bad no_byte_fallback 's/"byte_fallback": true/"byte_fallback": false/'
bad normalizer 's/"prepend": "▁"/"prepend": "_"/'
declare -A field=([truncated]="not a JSON object" [no_model]="model is missing" [no_vocab]="model.vocab is missing"
  [vocab_list]="model.vocab is missing or not an object" [no_merges]="model.merges is missing"
  [merge_oov]='model.merges\[0\] uses "zq"' [merge_int]='model.merges\[0\] is neither'
  [id_string]='model.vocab\["<0x41>"\] is not an id' [no_byte_fallback]="model.byte_fallback is not true"
  [normalizer]="normalizer is not Llama's")
for f in "${!field[@]}"; do
  fails_with "$f.json" "${field[$f]}" bin/tokenize --tokenizer "$tmp/$f.json" -- hi
done

# The same under AddressSanitizer/UBSan.
if [ -x "$ASAN" ]; then
  "$ASAN" >"$tmp/asan" 2>&1
  expect "asan: exit code" "$?" 0
  expect "asan: its checks" "$(grep -c ' 0 failed' "$tmp/asan")" 1
  expect "asan: sanitizer reports" "$(grep -cE 'Sanitizer|runtime error' "$tmp/asan")" 0
  for f in "${!field[@]}"; do
    fails_with "asan $f.json" "${field[$f]}" "$ASAN" "$tmp/$f.json"
  done
else
  expect "$ASAN is built (make $ASAN)" no yes
fi
echo "tokenize_cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
