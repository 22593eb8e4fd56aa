#!/bin/bash
# The emulated dispatcher's built-in table is reproducible: bin/trace_stats --dispatch-table on
# the fixture trace prints the C initializer that common/gpu/dispatch.c holds, line for line
# (test_dispatch.c holds the numbers to the fixture; this, the text to the command its comment
# names). The slower host's trace prints its own table; a file that is not there is one error
# sentence and exit 1. Without the fixtures the checks that need them are skipped (failed
# under KIT_REQUIRE_FIXTURES=1, as in CI).
cd "$(dirname "$0")/../.."
SHARED=${SHARED:-../shared}
bin=${BIN:-bin}/trace_stats src=common/gpu/dispatch.c fix=$SHARED/fixtures/torch-trace
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 skip=0
ok() { if eval "$2"; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi; }
skipped() {
  if [ -n "$KIT_REQUIRE_FIXTURES" ]; then fail=$((fail + $1)); echo "FAIL $2: no fixture at $fix"
  else skip=$((skip + $1)); echo "skipped: $2 (no $fix: set SHARED to the course's shared folder)"; fi
}

ok "--help names --dispatch-table" "$bin --help | grep -q -- '--dispatch-table'"
ok "$src names the command that makes its table" \
   "grep -qF 'bin/trace_stats --dispatch-table ../shared/fixtures/torch-trace/trace_hf_eager_b1.json' $src"

if [ -f "$fix/trace_hf_eager_b1.json" ]; then
  $bin --dispatch-table "$fix/trace_hf_eager_b1.json" >"$tmp/table.txt" 2>"$tmp/err.txt"; rc=$?
  ok "the fixture's table: exit 0, nothing on stderr" "[ $rc = 0 ] && [ ! -s $tmp/err.txt ]"
  ok "six lines: a comment, the four lines of .q, .median_us and .n" "[ \$(wc -l <$tmp/table.txt) = 6 ]"
  n=0
  while IFS= read -r line; do
    n=$((n + 1))
    ok "$src holds line $n as printed: $line" "grep -qxF -- \"\$line\" $src"
  done <"$tmp/table.txt"
  ok "the fixture's median and count" "grep -qxF '    .median_us = 13.933, .n = 2772,' $tmp/table.txt"
else
  skipped 9 "the fixture's table"
fi
if [ -f "$fix/trace_hf_eager_b1_host2.json.gz" ]; then
  $bin --dispatch-table "$fix/trace_hf_eager_b1_host2.json.gz" >"$tmp/host2.txt" 2>&1; rc=$?
  ok "the slower host's trace (gzipped): its own median, 31.2 us" \
     "[ $rc = 0 ] && grep -qxF '    .median_us = 31.220, .n = 2772,' $tmp/host2.txt"
else
  skipped 1 "the slower host's table"
fi

$bin --dispatch-table /nonexistent/trace.json >"$tmp/out.txt" 2>"$tmp/err.txt"; rc=$?
ok "a trace that is not there: exit 1, one error sentence naming it, nothing on stdout" \
   "[ $rc = 1 ] && [ ! -s $tmp/out.txt ] && [ \$(wc -l <$tmp/err.txt) = 1 ] && grep -q '^error: .*/nonexistent/trace.json' $tmp/err.txt"

if [ "$skip" = 0 ]; then echo "dispatch_table: $pass passed, $fail failed"
else echo "dispatch_table: $pass passed, $fail failed, $skip skipped"; fi
[ "$fail" = 0 ]
