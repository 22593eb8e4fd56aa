#!/bin/bash
# Runs every test of one suite (cpu or gpu) and adds up their "N passed, N failed" lines.
#   tests/run.sh cpu   the compiled tests in build/tests/cpu and the scripts tests/cpu/*.sh
#   tests/run.sh gpu   the same for gpu
# A test that exits non-zero without printing a count is one failure; so is one that cannot be
# run (no execute bit). Logs: $BUILD/tests/SUITE/*.log
suite=${1:?cpu or gpu}
cd "$(dirname "$0")/.."
export SHARED=${SHARED:-../shared}
export BUILD=${BUILD:-build}
pass=0; fail=0; skip=0
for t in "$BUILD"/tests/"$suite"/* tests/"$suite"/*.sh; do
  case "$t" in *.log) continue;; esac
  [ -e "$t" ] || continue   # an empty folder: the pattern itself
  if [ ! -x "$t" ] || [ -d "$t" ]; then
    fail=$((fail + 1)); printf '%-4s %-34s not executable: chmod +x %s\n' FAIL "$(basename "$t")" "$t"; continue
  fi
  log="$BUILD/tests/$suite/$(basename "$t").log"
  start=$(date +%s.%N)
  "$t" >"$log" 2>&1; rc=$?
  secs=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $start}")
  line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  p=$(echo "$line" | sed -nE 's/(^|.*[^0-9])([0-9]+) passed, ([0-9]+) failed.*/\2/p')
  f=$(echo "$line" | sed -nE 's/(^|.*[^0-9])([0-9]+) passed, ([0-9]+) failed.*/\3/p')
  k=$(grep -E '[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$log" | tail -1 | sed -nE 's/.* ([0-9]+) skipped.*/\1/p')
  if [ -z "$line" ]; then p=0; f=1; fi
  if [ "$rc" != 0 ] && [ "${f:-0}" = 0 ]; then f=1; fi
  pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + ${k:-0}))
  status=ok; [ "${k:-0}" != 0 ] && status=skip; [ "$f" != 0 ] && status=FAIL
  printf '%-4s %-34s %3s passed %3s failed  %5ss\n' "$status" "$(basename "$t")" "$p" "$f" "$secs"
  [ "$f" != 0 ] && grep -E '^FAIL|error|Error' "$log" | head -8 | sed 's/^/       /'
  [ "${k:-0}" != 0 ] && grep -E 'skipped' "$log" | head -1 | sed 's/^/       /'
done
if [ "$skip" = 0 ]; then echo "$pass passed, $fail failed"; else echo "$pass passed, $fail failed, $skip skipped"; fi
[ "$fail" = 0 ]
