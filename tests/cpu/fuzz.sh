#!/bin/bash
# fuzz: the libFuzzer targets of tests/fuzz/ (built by make with clang, ASan and UBSan).
#   as a test (make test)          each target runs once over its seeds and over the inputs
#                                  of tests/fuzz/regress/TARGET/ (what fuzzing once found):
#                                  a regression test of a few seconds
#   KIT_FUZZ_SECONDS=N (make fuzz, FUZZ_SECONDS; CI: 20)
#                                  each target is fuzzed for N seconds with -seed=1,
#                                  KIT_FUZZ_JOBS at a time; its corpus grows in
#                                  $BUILD/fuzz/corpus/TARGET, its findings land in
#                                  $BUILD/fuzz/findings/TARGET-* (crash-, leak-, timeout-, oom-)
# KIT_FUZZ_TARGETS: which targets (default: every one built). The seeds are made from the
# fixtures at each run ($BUILD/fuzz/seeds SHARED $BUILD/fuzz/data). One line per target:
#   fuzz_TARGET seconds=20 cpu_s=19.8 execs=412345 findings=0 corpus=311
# (seconds: the wall-clock budget; cpu_s: the CPU time the target had of it)
# then "fuzz: N passed, N failed", a target passing when it ran to the end with no finding.
cd "$(dirname "$0")/../.."
SHARED=${SHARED:-../shared} BUILD=${BUILD:-build}
secs=${KIT_FUZZ_SECONDS:-0} jobs=${KIT_FUZZ_JOBS:-$(nproc)}
targets=${KIT_FUZZ_TARGETS:-$(ls "$BUILD/fuzz/bin" 2>/dev/null)}

skip() {   # skip REASON: skipped, loudly; failed where it was asked for (CI: KIT_FUZZ_SECONDS or KIT_REQUIRE_FIXTURES)
  local r=; [ "$secs" != 0 ] || [ -n "$KIT_REQUIRE_FIXTURES" ] && r=1
  echo "fuzz: 0 passed, ${r:-0} failed, $((1 - ${r:-0})) skipped ($1)"; exit ${r:-0}
}
[ -d "$SHARED/fixtures" ] || skip "no fixtures at $SHARED/fixtures to make the seeds from: set SHARED"
for t in $targets; do
  [ -x "$BUILD/fuzz/bin/$t" ] || skip "$BUILD/fuzz/bin/$t is not built: make fuzz-build needs clang (apt-get install clang)"
done
[ -n "$targets" ] || skip "no fuzz target is built: make fuzz-build needs clang (apt-get install clang)"

export KIT_FUZZ_DATA=$PWD/$BUILD/fuzz/data SHARED
export TMPDIR=$([ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")   # each input is a file: keep them in memory
export UBSAN_OPTIONS=print_stacktrace=1
"$BUILD/fuzz/seeds" "$SHARED" "$KIT_FUZZ_DATA" >/dev/null || { echo "fuzz: 0 passed, 1 failed (the seeds could not be made)"; exit 1; }
mkdir -p "$BUILD/fuzz/findings" "$BUILD/fuzz/logs"
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT

run() {   # run TARGET: one libFuzzer run, its log in $BUILD/fuzz/logs/TARGET.log, its exit code in .rc,
          # its CPU seconds (user + system, from the subshell's `times`) in .cpu
  local t=$1 log=$BUILD/fuzz/logs/$1.log dirs=("$KIT_FUZZ_DATA/$1")
  [ -d "tests/fuzz/regress/$t" ] && dirs+=("tests/fuzz/regress/$t")
  local mode=(-runs=0 "$scratch/$t")
  if [ "$secs" != 0 ]; then mkdir -p "$BUILD/fuzz/corpus/$t"; mode=(-max_total_time="$secs" -seed=1 "$BUILD/fuzz/corpus/$t"); fi
  mkdir -p "$scratch/$t"
  ( "$BUILD/fuzz/bin/$t" -close_fd_mask=3 -print_final_stats=1 -timeout=30 -rss_limit_mb=2048 \
      -artifact_prefix="$BUILD/fuzz/findings/$t-" "${mode[@]}" "${dirs[@]}" >"$log" 2>&1
    echo $? >"$log.rc"
    times >"$log.times"   # (here, not in a pipe: a pipe's subshell has no children of its own)
    awk 'NR == 2 { split($1 " " $2, t, /[ms ]+/); printf "%.1f\n", 60 * t[1] + t[2] + 60 * t[3] + t[4] }' "$log.times" >"$log.cpu" )
}

declare -A before
for t in $targets; do
  before[$t]=$(ls "$BUILD/fuzz/findings/" | grep -c "^$t-")
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  run "$t" &
done
wait

pass=0 fail=0
for t in $targets; do
  log=$BUILD/fuzz/logs/$t.log
  rc=$(cat "$log.rc" 2>/dev/null || echo 1)
  execs=$(sed -nE 's/^stat::number_of_executed_units: ([0-9]+).*/\1/p' "$log" | tail -1)
  found=$(( $(ls "$BUILD/fuzz/findings/" | grep -c "^$t-") - ${before[$t]} ))
  corpus=$( [ "$secs" != 0 ] && ls "$BUILD/fuzz/corpus/$t" | wc -l || echo -)
  echo "fuzz_$t seconds=$secs cpu_s=$(cat "$log.cpu" 2>/dev/null) execs=${execs:-0} findings=$found corpus=$corpus"
  if [ "$rc" = 0 ] && [ "$found" = 0 ] && [ -n "$execs" ]; then pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL fuzz_$t: exit code $rc, $found new finding(s) in $BUILD/fuzz/findings/ (log: $log)"
    grep -E 'ERROR|SUMMARY|fuzz invariant|runtime error|Test unit written' "$log" | head -6 | sed 's/^/       /'
  fi
done
echo "fuzz: $pass passed, $fail failed"
[ "$fail" = 0 ]
