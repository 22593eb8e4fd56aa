#!/bin/bash
# bin/trace_stats: (1) on the fixture, a real torch.profiler trace, against the independent
# analysis in its expected.txt: counts exactly, ratios and shares within 0.5 percentage
# points, gap times within 0.5 us, span and kernel time within expected.txt's 4 digits; the
# same gzipped; (2) --rows writes day "trace" rows once, and day12 shows them beside the
# kit's values; (2a, 2c) values the trace cannot give (no launch calls) are "-" with why,
# in rows.tsv too, and day12 shows them as not measured; (2b) control characters in names
# stay inside their key=value; (2d) overlapping step windows are read in one sweep; (2e)
# absurd times are warned of; (2f) --tpot-ms: the busy ratio of the step as it runs and the
# tracer's cost against the fixtures' own CPU-side step times and expected.txt's kernel time,
# a TPOT below the kernel time refused, --label in the notes, and day12's section with and
# without them; (3) bad input through bin/trace_stats and the AddressSanitizer
# build of the reader ($BUILD/asan/trace_check): exit 1 and exactly one "error:" sentence
# naming the file and what is wrong, never a crash; (3b) memory stays bounded whatever one
# value holds; (4) the ASan sweep: every prefix and many one-byte changes of a small trace
# parse or fail with a sentence; (5) without the fixtures, the checks that need them are
# skipped and counted as skipped (KIT_REQUIRE_FIXTURES=1, as in CI: failed), and nothing
# else fails: this script runs itself once more without them.
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$0")/../.."
SHARED=${SHARED:-../shared} BUILD=${BUILD:-build}
bin=bin/trace_stats asan=$BUILD/asan/trace_check
fix=$SHARED/fixtures/torch-trace
tmp=$(mktemp -d /tmp/kit_trace_stats.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=exitcode=99:detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=98
pass=0 fail=0 skip=0
ok() { if eval "$2"; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
# skipped N WHAT: N checks that need the fixture, skipped when it is not there (a kit unpacked
# without ../shared), failed when the fixtures are required (CI: KIT_REQUIRE_FIXTURES=1)
skipped() {
  if [ -n "$KIT_REQUIRE_FIXTURES" ]; then fail=$((fail + $1)); echo "FAIL: $2: no fixture at $fix"
  else skip=$((skip + $1)); echo "skipped: $2 (no $fix: set SHARED to the course's shared folder)"; fi
}

# ---- 1. the fixture against expected.txt -------------------------------------------------
if [ ! -f "$fix/trace_hf_eager_b1.json" ]; then
  skipped 1 "the fixture checks"
else
  $bin "$fix/trace_hf_eager_b1.json" >"$tmp/out.txt" 2>&1; rc=$?
  ok "the fixture: exit 0" "[ $rc = 0 ]"
  # key=value pairs of the medians and top lines (not the per-step lines), one a line
  grep -vE '^(step=|#|trace=)' "$tmp/out.txt" | tr ' ' '\n' | grep '=' >"$tmp/ours.txt"
  grep -v '^#' "$fix/expected.txt" | tr ' ' '\n' | grep '=' >"$tmp/want.txt"
  while IFS='=' read -r key want; do
    got=$(awk -F= -v k="$key" '$1 == k {print $2; exit}' "$tmp/ours.txt")
    case "$key" in
      steps|kernels|linear|gaps) rule="exactly"; cond="[ '$got' = '$want' ]";;
      busy|host_bound)           rule="within 0.005"; cond="awk 'BEGIN{exit !(($got - $want)^2 <= 0.005^2)}'";;
      top*_share)                rule="within 0.5 points"; cond="awk 'BEGIN{exit !(($got - $want)^2 <= 0.5^2)}'";;
      gap_*_us)                  rule="within 0.5 us"; cond="awk 'BEGIN{exit !(($got - $want)^2 <= 0.5^2)}'";;
      span_us|gpu_us)            rule="within 0.05%"; cond="awk 'BEGIN{d = $got - $want; exit !(d * d <= (0.0005 * $want)^2 + 0.25)}'";;
      top*_name)                 rule="the same"; cond="[ '$got' = '$want' ]";;
      *)                         rule="(no rule)"; cond=false;;
    esac
    [ -n "$got" ] || cond=false
    ok "fixture $key=${got:-missing}, expected.txt $want, $rule" "$cond"
  done <"$tmp/want.txt"
  ok "fixture: every expected key checked ($(wc -l <"$tmp/want.txt") keys)" "[ $(wc -l <"$tmp/want.txt") -ge 13 ]"
  ok "fixture: the skipped kinds counted" "grep -q 'skipped=5753 skipped_kinds=\"ac2g:5692 ph=M:58 Trace:1 ph=i:2\"' $tmp/out.txt"
  ok "fixture: one line per step" "[ \$(grep -c '^step=[345] kernels=925 ' $tmp/out.txt) = 3 ]"
  ok "fixture: the top kernels' part, from aten::linear" "[ \$(grep -c 'top[123]_part=linear' $tmp/out.txt) = 3 ]"
  ok "fixture: the --dispatch-us suggestion" "grep -qE '^dispatch_us=1[0-9.]+$' $tmp/out.txt && grep -q -- '--dispatch-us 14 ' $tmp/out.txt"
  # the longest host pause a step (read off the JSON by hand: 214, 148 and 230 us, each before another op;
  # the slower host's trace: 67.4, 69.4 and 66.6 ms, each before layer 0's aten::scaled_dot_product_attention)
  ok "fixture: the longest pause, in a different place in each step" \
    "grep -qx 'longest_pause_us=214.1 (in a different place in each step)' $tmp/out.txt"
  # 3233 cpu_op and user_annotation events start inside each CPU-side step (read with python's json),
  # the ProfilerStep mark among them
  ok "fixture: the host ranges a step, the ProfilerStep mark left out" "grep -qx 'host_ranges=3232' $tmp/out.txt"
  $bin "$fix/trace_hf_eager_b1_host2.json.gz" >"$tmp/host2.txt" 2>&1
  ok "the slower host's trace: one pause of 67 ms a step, before the SDPA op" \
    "grep -qx 'longest_pause_us=6.745e+04 (before the launch of aten::scaled_dot_product_attention)' $tmp/host2.txt"

  gzip -c "$fix/trace_hf_eager_b1.json" >"$tmp/trace.json.gz"
  $bin "$tmp/trace.json.gz" >"$tmp/gz.txt" 2>&1
  ok "the gzipped fixture: the same numbers" "diff <(tail -n +2 $tmp/out.txt) <(tail -n +2 $tmp/gz.txt) >/dev/null"

  # ---- 2. --rows, and day12's section ------------------------------------------------------
  mkdir -p "$tmp/res" && cp tests/data/rows_full.tsv "$tmp/res/rows.tsv"
  KIT_RESULTS=$tmp/res bin/day12_report >/dev/null 2>&1
  ok "day12 without trace rows: the section says not run, and what to run" \
     "sed -n '/^## Your PyTorch run/,\$p' $tmp/res/REPORT.md >$tmp/sec0.md && grep -q '^Not run: .python3 tools/torch_decode.py.' $tmp/sec0.md && ! grep -q '^| measure |' $tmp/sec0.md"
  KIT_RESULTS=$tmp/res $bin --rows "$fix/trace_hf_eager_b1.json" >"$tmp/rows_out.txt" 2>&1
  KIT_RESULTS=$tmp/res $bin --rows "$fix/trace_hf_eager_b1.json" >/dev/null 2>&1
  ntrace=$(grep -c '^trace	trace_' "$tmp/res/rows.tsv")
  ok "--rows twice: 24 rows of day trace, not 48 ($ntrace)" "[ $ntrace = 24 ]"
  ok "--rows keeps the other days' rows" "[ \$(grep -vc '^trace	' $tmp/res/rows.tsv) = \$(grep -c . tests/data/rows_full.tsv) ]"
  ok "--rows: busy in %, top1 with its name and part" "grep -qP '^trace\ttrace_busy\t-\t8\\.89\\d*\t%\t' $tmp/res/rows.tsv && grep -qP '^trace\ttrace_top1_share\t-\t26\\.9\\d*\t%\tnvjet_sm90_hsh_64x8_64x16_4x1_v_bz_TNT -> linear' $tmp/res/rows.tsv"
  KIT_RESULTS=$tmp/res bin/day12_report >/dev/null 2>&1
  sec=$(sed -n '/^## Your PyTorch run/,$p' "$tmp/res/REPORT.md")
  ok "day12: the section is there" "[ -n \"\$sec\" ]"
  ok "day12: the typical gap, the kit's d14 47 us beside the trace's 18.5" "echo \"\$sec\" | grep -q '^| Typical gap (median) | 47.0 µs | 18.5 µs |'"
  ok "day12: busy on the traced timeline, the kit's 5.9% beside the trace's 8.9%" "echo \"\$sec\" | grep -q '^| GPU busy ratio on the traced timeline (union ÷ span) | 5.93% | 8.90% |'"
  ok "day12: --dispatch-us, the kit's median 14 beside the run's 14.1" "echo \"\$sec\" | grep -qE '^\\| Host time per launch beyond the call .*\\| 14 µs \\| 14.1 µs \\|'"
  ok "day12: kernels per step, 925 from the trace" "echo \"\$sec\" | grep -qE '^\\| Kernels per step \\| [0-9]+ \\| 925 \\|'"
  ok "day12: the top kernel's name in the trace column" "echo \"\$sec\" | grep -q 'nvjet_sm90_hsh_64x8_64x16_4x1_v_bz_TNT. → linear, 27.0%'"
  ok "day12: the suggested --dispatch-us" "echo \"\$sec\" | grep -q -- '--dispatch-us 14'"
  ok "day12: no blank or nan cell in the section" "! echo \"\$sec\" | grep -qiE '\\|  *\\||\\bnan\\b'"

  # ---- 2a. the fixture without its launch calls: those values are not measured, never 0 ------
  sed -e 's/"cat": "cuda_runtime"/"cat": "cuda_runtime_cut"/' -e 's/"cat": "cuda_driver"/"cat": "cuda_driver_cut"/' \
    "$fix/trace_hf_eager_b1.json" >"$tmp/noapi.json"
  mkdir -p "$tmp/res2" && cp tests/data/rows_full.tsv "$tmp/res2/rows.tsv"
  KIT_RESULTS=$tmp/res2 $bin --rows "$tmp/noapi.json" >"$tmp/noapi.txt" 2>&1; rc=$?
  ok "no launch calls: exit 0, the kernel values as measured" "[ $rc = 0 ] && grep -qx 'kernels=925' $tmp/noapi.txt && grep -qx 'busy=0.08898' $tmp/noapi.txt"
  ok "no launch calls: launches, host_bound, host_bound_gaps, the launch times: - with why, none 0" \
    "[ \$(grep -cE '^(launches|host_bound|host_bound_gaps|cpu_per_launch_us|launch_call_us|dispatch_us)=- \\(not measured: no cuda_runtime/cuda_driver launch call' $tmp/noapi.txt) = 6 ] && ! grep -qE '^(launches|host_bound|host_bound_gaps)=0' $tmp/noapi.txt && ! grep -q 'dispatch-us' $tmp/noapi.txt"
  ok "no launch calls: rows.tsv holds - for them, the note says why" \
    "grep -qP '^trace\\ttrace_host_bound\\t-\\t-\\t%\\tnoapi.json, median of 3 ProfilerSteps; not measured: no cuda_runtime' $tmp/res2/rows.tsv && [ \$(grep -cP '^trace\\t[a-z_]+\\t-\\t-\\t.*not measured: no cuda_runtime' $tmp/res2/rows.tsv) = 7 ]"
  KIT_RESULTS=$tmp/res2 bin/day12_report >/dev/null 2>&1
  sec=$(sed -n '/^## Your PyTorch run/,$p' "$tmp/res2/REPORT.md")
  ok "no launch calls: day12 shows them as not measured (—), not 0" \
    "echo \"\$sec\" | grep -qE '^\\| Launch calls per step \\| [0-9]+ \\| — \\|' && echo \"\$sec\" | grep -qE '^\\| Host-bound gap time \\(whole gaps\\) \\| [0-9.]+% \\| — \\|' && echo \"\$sec\" | grep -q '^| Kernels per step | [0-9]* | 925 |' && ! echo \"\$sec\" | grep -qE '\\| 0%? \\|\$'"

  # ---- 2f. --tpot-ms: the step as it runs against the step under the profiler -----------------
  # The traced step, independently of the kit's reader: the median "dur" of the CPU-side
  # (user_annotation) ProfilerStep events, read off the JSON text with grep; the kernel time
  # per step from expected.txt. busy_untraced = gpu_us / X; tracer_pct = traced / X - 1.
  cpu_steps_ms() { grep -A1 '"cat": "user_annotation", "name": "ProfilerStep#' | grep -oE '"dur": [0-9.]+' |
                   awk '{print $2 / 1000}' | sort -g | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
  near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN {exit !(a != "" && b != "" && (a - b)^2 <= t^2)}'; }
  val() { awk -F= -v k="$1" '$1 == k {print $2; exit}' "$2"; }
  traced=$(cpu_steps_ms <"$fix/trace_hf_eager_b1.json")
  gpu_us=$(val gpu_us "$fix/expected.txt")
  label="torch 2.11, transformers 5.17, NVIDIA H200, random fp16 weights"
  mkdir -p "$tmp/res3" && cp tests/data/rows_full.tsv "$tmp/res3/rows.tsv"
  KIT_RESULTS=$tmp/res3 $bin --rows --tpot-ms 20 --label "$label" "$fix/trace_hf_eager_b1.json" >"$tmp/tpot.txt" 2>"$tmp/tpot.err"; rc=$?
  ok "--tpot-ms 20: exit 0, no warning" "[ $rc = 0 ] && [ ! -s $tmp/tpot.err ]"
  ok "--tpot-ms 20: tpot_ms_untraced=20" "grep -qx 'tpot_ms_untraced=20' $tmp/tpot.txt"
  ok "--tpot-ms 20: tpot_ms_traced=$(val tpot_ms_traced $tmp/tpot.txt), the JSON's CPU-side steps $traced ms" \
     "[ -n '$traced' ] && near \"\$(val tpot_ms_traced $tmp/tpot.txt)\" $traced 0.005"
  ok "--tpot-ms 20: busy_untraced=$(val busy_untraced $tmp/tpot.txt) = expected.txt's gpu_us $gpu_us / 20 ms" \
     "near \"\$(val busy_untraced $tmp/tpot.txt)\" \$(awk 'BEGIN {print $gpu_us / 1000 / 20}') 0.0005"
  ok "--tpot-ms 20: tracer_pct=$(val tracer_pct $tmp/tpot.txt) = ($traced / 20 - 1) x 100" \
     "near \"\$(val tracer_pct $tmp/tpot.txt)\" \$(awk 'BEGIN {print 100 * ($traced / 20 - 1)}') 0.05"
  ok "--tpot-ms 20: tracer_us_per_launch=$(val tracer_us_per_launch $tmp/tpot.txt) = ($traced - 20) ms / $(val launches $tmp/tpot.txt) launches" \
     "near \"\$(val tracer_us_per_launch $tmp/tpot.txt)\" \$(awk -v n=\"\$(val launches $tmp/tpot.txt)\" 'BEGIN {print ($traced - 20) * 1000 / n}') 0.01"
  ok "--rows --tpot-ms: the five rows, the label in their notes" \
     "grep -qP '^trace\ttrace_tpot_ms_untraced\t-\t20\tms\t\Q$label\E; trace_hf_eager_b1.json, median of 3 ProfilerSteps; the decode step timed without' $tmp/res3/rows.tsv && grep -qP '^trace\ttrace_busy_untraced\t-\t11\.0\d*\t%\t' $tmp/res3/rows.tsv && grep -qP '^trace\ttrace_tpot_ms_traced\t-\t25\.2\d*\tms\t' $tmp/res3/rows.tsv && grep -qP '^trace\ttrace_tracer_pct\t-\t26\.\d*\t%\t' $tmp/res3/rows.tsv && grep -qP '^trace\ttrace_tracer_us_per_launch\t-\t5\.6\d*\tus\t' $tmp/res3/rows.tsv"
  ok "--rows --tpot-ms: the label in trace_steps' note" "grep -qP '^trace\ttrace_steps\t-\t3\tcount\t\Q$label\E; trace_hf_eager_b1.json' $tmp/res3/rows.tsv"
  # the other host's trace: a slower host, the same kernels
  traced2=$(gzip -dc "$fix/trace_hf_eager_b1_host2.json.gz" | cpu_steps_ms)
  $bin --tpot-ms 100 "$fix/trace_hf_eager_b1_host2.json.gz" >"$tmp/tpot2.txt" 2>&1
  ok "host2 --tpot-ms 100: tpot_ms_traced=$(val tpot_ms_traced $tmp/tpot2.txt), the JSON's $traced2 ms (4 digits); busy_untraced = $(val gpu_us $fix/expected_host2.txt) us / 100 ms" \
     "near \"\$(val tpot_ms_traced $tmp/tpot2.txt)\" $traced2 0.05 && near \"\$(val busy_untraced $tmp/tpot2.txt)\" \$(awk 'BEGIN {print $(val gpu_us $fix/expected_host2.txt) / 1000 / 100}') 0.0005"
  # without --tpot-ms: the traced step is measured, the rest is not, never 0
  ok "no --tpot-ms: tpot_ms_traced measured, the four others - with why" \
     "near \"\$(val tpot_ms_traced $tmp/out.txt)\" $traced 0.005 && [ \$(grep -cE '^(tpot_ms_untraced|busy_untraced|tracer_pct|tracer_us_per_launch)=- \\(not measured: no --tpot-ms: tools/torch_decode.py' $tmp/out.txt) = 4 ]"
  ok "no --tpot-ms, --rows: those rows are -, their notes say why" \
     "[ \$(grep -cP '^trace\t(trace_tpot_ms_untraced|trace_busy_untraced|trace_tracer_pct|trace_tracer_us_per_launch)\t-\t-\t[^\t]*\t.*not measured: no --tpot-ms' $tmp/res/rows.tsv) = 4 ] && grep -qP '^trace\ttrace_tpot_ms_traced\t-\t25\.2' $tmp/res/rows.tsv"
  # a TPOT below the kernel time is impossible: an error, nothing written, never a busy over 100%
  cp "$tmp/res3/rows.tsv" "$tmp/res3/before.tsv"
  KIT_RESULTS=$tmp/res3 $bin --rows --tpot-ms 2 "$fix/trace_hf_eager_b1.json" >"$tmp/low.txt" 2>"$tmp/low.err"; rc=$?
  ok "--tpot-ms 2 < 2.218 ms of kernels: exit 1, one error naming both" \
     "[ $rc = 1 ] && [ \$(grep -c . $tmp/low.err) = 1 ] && grep -q '^error: .*trace_hf_eager_b1.json: --tpot-ms 2 is less than the trace.s kernel time per step, 2.218 ms' $tmp/low.err"
  ok "--tpot-ms 2: no busy printed, rows.tsv untouched" "! grep -q busy_untraced $tmp/low.txt && cmp -s $tmp/res3/rows.tsv $tmp/res3/before.tsv"
  $bin --tpot-ms 2.218 "$fix/trace_hf_eager_b1.json" >"$tmp/edge.txt" 2>&1; rc=$?
  ok "--tpot-ms at the kernel time (2.218 ms, rounded up by the 4 digits): busy_untraced at most 1" \
     "{ [ $rc = 0 ] && awk -F= '\$1 == \"busy_untraced\" {exit !(\$2 <= 1)}' $tmp/edge.txt; } || { [ $rc = 1 ] && grep -q 'less than the trace' $tmp/edge.txt; }"

  # day12's section: the untraced TPOT and the busy ratio of the step as it runs, or not measured
  KIT_RESULTS=$tmp/res3 bin/day12_report >/dev/null 2>&1
  sec=$(sed -n '/^## Your PyTorch run/,$p' "$tmp/res3/REPORT.md")
  ok "day12 with --tpot-ms: the label says what made the run" "echo \"\$sec\" | grep -qF '$label'"
  ok "day12 with --tpot-ms: TPOT untraced, the kit's beside 20 ms" "echo \"\$sec\" | grep -qE '^\\| Decode step \\(TPOT\\), timed without a profiler \\| [0-9.]+ ms \\| 20 ms \\|'"
  ok "day12 with --tpot-ms: the busy ratio of the step as it runs, 11.1%" "echo \"\$sec\" | grep -qE '^\\| GPU busy ratio of the step as it runs .* \\| [0-9.]+% \\| 11.1% \\|'"
  ok "day12 with --tpot-ms: the tracer's cost, 26.2%" "echo \"\$sec\" | grep -qE '^\\| The profiler.s cost .*\\| 26.2% \\|'"
  ok "day12: names the versions the kit's eager step mirrors" "echo \"\$sec\" | grep -q 'transformers 5.17 with torch 2.11'"
  ok "day12 with --tpot-ms: no blank or nan cell" "! echo \"\$sec\" | grep -qiE '\\|  *\\||\\bnan\\b'"
  sec=$(sed -n '/^## Your PyTorch run/,$p' "$tmp/res/REPORT.md")
  ok "day12 without --tpot-ms: the TPOT and busy rows say not measured, with the script to run" \
     "echo \"\$sec\" | grep -qE '^\\| Decode step \\(TPOT\\), timed without a profiler \\| .* \\| not measured \\(run tools/torch_decode.py\\) \\|' && echo \"\$sec\" | grep -qE '^\\| GPU busy ratio of the step as it runs .* \\| not measured \\(run tools/torch_decode.py\\) \\|'"
  ok "day12 without --tpot-ms: the traced step is there" "echo \"\$sec\" | grep -qE '^\\| Decode step under the profiler .* \\| 25.2 ms \\|'"
fi

# ---- 2b. text from the trace stays inside its key=value ----------------------------------------
# A kernel name and an event kind holding a newline, a carriage return, an escape and a
# quote: each becomes a space (') as in rows.tsv's notes, so no second busy= line appears.
printf '%s' '{"traceEvents": [{"ph":"X","cat":"kernel","name":"k\nbusy=0.99\u001b[2J\"q","ts":10,"dur":5,"args":{"correlation":1}},
  {"ph":"X","cat":"odd\r\nkind=1\"","name":"x","ts":1,"dur":1}]}' >"$tmp/control.json"
$bin "$tmp/control.json" >"$tmp/control.txt" 2>&1; rc=$?
ok "control characters: exit 0, one busy= line, no kind= line ($(grep -c '^busy=' "$tmp/control.txt") busy=)" \
  "[ $rc = 0 ] && [ \$(grep -c '^busy=' $tmp/control.txt) = 1 ] && ! grep -q '^kind=' $tmp/control.txt && ! grep -q \$'\\e' $tmp/control.txt"
ok "control characters: the name and kind as spaces, quoted" \
  "grep -qF \"top1_name=\\\"k busy=0.99 [2J'q\\\"\" $tmp/control.txt && grep -qF \"skipped_kinds=\\\"odd  kind=1':1\\\"\" $tmp/control.txt"

# ---- 2c. a trace without launch calls, made here: its gaps' host-bound share is not measured
printf '{"traceEvents": [%s, %s, %s]}' '{"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#2","ts":0,"dur":100}' \
  '{"ph":"X","cat":"kernel","name":"a","ts":10,"dur":5,"args":{"correlation":1}}' \
  '{"ph":"X","cat":"kernel","name":"b","ts":30,"dur":5,"args":{"correlation":2}}' >"$tmp/no_calls.json"
$bin "$tmp/no_calls.json" >"$tmp/no_calls.txt" 2>&1; rc=$?
ok "a trace without launch calls: exit 0, gaps=1, host_bound=- with why, launches=-" \
  "[ $rc = 0 ] && grep -qx 'gaps=1' $tmp/no_calls.txt && grep -q '^host_bound=- (not measured: no cuda_runtime/cuda_driver launch call' $tmp/no_calls.txt && grep -q '^launches=- (not measured' $tmp/no_calls.txt"

# ---- 2d. overlapping ProfilerStep windows: sorted once, swept once ------------------------------
# 2600 steps whose windows all overlap (0.94 MB; the old analysis read every window's kernels
# again for each step: 8 s here). Each window is cut where the next begins, said once per side.
awk -v n=2600 'BEGIN { printf "{\"traceEvents\": [\n"; for (i = 0; i < n; i++) {
  printf "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"ts\":%d,\"dur\":%d},\n", i, 100 + i, 10 * n
  printf "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#%d\",\"ts\":%d,\"dur\":%d},\n", i, 100 + i, 10 * n + 100
  printf "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":%d,\"dur\":2,\"args\":{\"correlation\":%d}},\n", 101 + 10 * i, i + 1
  printf "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"ts\":%d,\"dur\":3,\"args\":{\"correlation\":%d}}%s\n", i % 5, 106 + 10 * i + n, i + 1, i < n - 1 ? "," : "" }
  printf "]}\n" }' >"$tmp/overlap.json"
t0=$(date +%s%N); timeout 20 $bin "$tmp/overlap.json" >"$tmp/overlap.txt" 2>&1; rc=$?; ms=$(( ($(date +%s%N) - t0) / 1000000 ))
ok "overlapping windows: 2600 steps in $ms ms (under 2 s), exit $rc" "[ $rc = 0 ] && [ $ms -lt 2000 ]"
ok "overlapping windows: one warning per side, naming the first pair" \
  "[ \$(grep -c \"^warning: 2599 of the 2600 steps' [GC]PU-side windows overlap the next one (the first: ProfilerStep#0, ts 100.000 to\" $tmp/overlap.txt) = 2 ]"

# ---- 2e. absurd times: a warning naming the event, the numbers still reported ------------------
# A 3 s kernel in a 1 ms step; a step of two minutes; Kineto's ts=0 dur=0 kernel beside real
# ones, with no steps: a 61-day span.
G='{"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#1","ts":1000,"dur":1000}'
printf '{"traceEvents": [%s, %s, %s]}' "$G" '{"ph":"X","cat":"kernel","name":"long_one","ts":1010,"dur":3000000,"args":{"correlation":1}}' \
  '{"ph":"X","cat":"kernel","name":"short_one","ts":1500,"dur":5,"args":{"correlation":2}}' >"$tmp/long_kernel.json"
printf '{"traceEvents": [%s, %s]}' '{"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#4","ts":1000,"dur":120000000}' \
  '{"ph":"X","cat":"kernel","name":"k","ts":1010,"dur":5,"args":{"correlation":1}}' >"$tmp/long_step.json"
printf '{"traceEvents": [%s, %s]}' '{"ph":"X","cat":"kernel","name":"lost","ts":0,"dur":0,"args":{"correlation":1}}' \
  '{"ph":"X","cat":"kernel","name":"real","ts":5273662947019.227,"dur":5,"args":{"correlation":2}}' >"$tmp/ts_zero.json"
warned() {   # warned NAME WANT FILE: exit 0, the numbers printed, one warning line holding WANT on stderr
  $bin "$3" >"$tmp/w.out" 2>"$tmp/w.err"; local rc=$?
  ok "absurd times, $1: exit $rc, warned: $(head -1 "$tmp/w.err")" \
    "[ $rc = 0 ] && grep -q '^busy=' $tmp/w.out && [ \$(grep -c . $tmp/w.err) = 1 ] && grep -qF -- \"warning: $2\" $tmp/w.err"
}
warned long_kernel 'kernel \"long_one\" at ts 1010.000 us lasts 3000000.000 us, longer than its step ProfilerStep#1 (1000.000 us)' "$tmp/long_kernel.json"
warned long_step "ProfilerStep#4's window lasts 120.0 s (ts 1000.000 to 120001000.000 us), over a minute" "$tmp/long_step.json"
warned ts_zero "the trace's kernels span 5273662.9 s, from kernel \\\"lost\\\" at ts 0.000 us to kernel \\\"real\\\" ending" "$tmp/ts_zero.json"

# ---- 3. bad input: one sentence, exit 1 ----------------------------------------------------
K='{"ph":"X","cat":"kernel","name":"k","ts":10,"dur":5,"args":{"correlation":1}}'
bad() { printf '%s' "$2" >"$tmp/$1.json"; }
bad empty ''
bad not_json 'hello'
bad cut_in_events '{"traceEvents": ['
bad cut_in_event '{"traceEvents": [{"ph":"X"'
bad cut_after_events "{\"traceEvents\": [$K] "
bad event_not_json '{"traceEvents": [{"ph":"X","cat":"kernel",}]}'
bad unmatched "{\"traceEvents\": [$K] }}"
bad doc_not_json "{\"traceEvents\": [$K], \"x\": tru}"
bad no_comma "{\"traceEvents\": [$K $K]}"
S1='{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","ts":100,"dur":100}'
S2='{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","ts":10000,"dur":100}'
bad two_sessions "{\"traceEvents\": [$S1, $K, $S2, {\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":10010,\"dur\":5,\"args\":{\"correlation\":2}}]}"
bad outside_steps "{\"traceEvents\": [$S1, {\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":500,\"dur\":5,\"args\":{\"correlation\":1}}]}"
bad brace_for_key "{ {\"traceEvents\": [$K]}"
bad after_the_end "{\"traceEvents\": [$K]} {"
bad wrong_closer "{\"x\": [1}, \"traceEvents\": [$K]}"
bad split_literal "{\"x\": tr ue, \"traceEvents\": [$K]}"
bad not_an_object '{"traceEvents": [1]}'
bad trailing_comma "{\"traceEvents\": [$K,]}"
bad no_trace_events '{"events": []}'
bad no_kernels '{"traceEvents": [{"ph":"X","cat":"cpu_op","name":"aten::mm","ts":1,"dur":1}]}'
bad no_ts '{"traceEvents": [{"ph":"X","cat":"kernel","name":"k","dur":5,"args":{"correlation":1}}]}'
bad string_dur '{"traceEvents": [{"ph":"X","cat":"kernel","name":"k","ts":5,"dur":"5","args":{"correlation":1}}]}'
bad negative_dur '{"traceEvents": [{"ph":"X","cat":"kernel","name":"k","ts":5,"dur":-5,"args":{"correlation":1}}]}'
bad huge_ts '{"traceEvents": [{"ph":"X","cat":"kernel","name":"k","ts":1e300,"dur":5,"args":{"correlation":1}}]}'
bad no_correlation '{"traceEvents": [{"ph":"X","cat":"kernel","name":"k","ts":5,"dur":5}]}'
bad call_no_correlation "{\"traceEvents\": [$K, {\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"ts\":1,\"dur\":1}]}"
bad no_name '{"traceEvents": [{"ph":"X","cat":"kernel","ts":5,"dur":5,"args":{"correlation":1}}]}'
bad deep_event "{\"traceEvents\": [{\"args\": $(printf '[%.0s' {1..3000})$(printf ']%.0s' {1..3000})}]}"
bad deep_doc "{\"x\": $(printf '[%.0s' {1..3000})$(printf ']%.0s' {1..3000}), \"traceEvents\": [$K]}"
printf '{"traceEvents": [{"ph":"X","cat":"kernel","name":"k\0","ts":5,"dur":5,"args":{"correlation":1}} \0]}' >"$tmp/nul_byte.json"
# a real trace cut inside an event, gzipped: past the first of the reader's 1 MiB pieces
[ -f "$fix/trace_hf_eager_b1.json" ] && head -c 2000000 "$fix/trace_hf_eager_b1.json" | gzip >"$tmp/cut_fixture.json.gz"
gzip -c "$tmp/not_json.json" | head -c 20 >"$tmp/cut_gzip.json.gz"
mkdir "$tmp/a_folder.json"

# expect NAME "STRING1|STRING2" COMMAND...: exit 1, exactly one error line holding every STRING
expect() {
  local name=$1 want=$2; shift 2
  [ -x "$1" ] || { echo "FAIL $name: $1 is missing (make test builds it)"; fail=$((fail + 1)); return; }
  "$@" >/dev/null 2>"$tmp/stderr"; local rc=$? why=""
  [ "$rc" = 1 ] || why="exit code $rc, want 1"
  grep -qE 'Sanitizer|runtime error' "$tmp/stderr" && why="sanitizer report"
  [ -z "$why" ] && [ "$(grep -c '^error: ' "$tmp/stderr")" != 1 ] && why="want exactly one 'error:' line"
  local IFS='|' s
  for s in $want; do [ -z "$why" ] && ! grep -qF -- "$s" "$tmp/stderr" && why="the error does not say '$s'"; done
  if [ -z "$why" ]; then pass=$((pass + 1)); echo "ok   $name ($(basename "$1")): $(head -1 "$tmp/stderr")"
  else fail=$((fail + 1)); echo "FAIL $name ($(basename "$1")): $why"; head -5 "$tmp/stderr" | sed 's/^/       /'; fi
}
both() { local name=$1 want=$2 file=$3; expect "$name" "$file|$want" $bin "$file"; expect "$name" "$file|$want" $asan "$file"; }
both empty "it is empty" "$tmp/empty.json"
both not_json "starts with 'h'" "$tmp/not_json.json"
both cut_in_events "ends inside traceEvents, after 0 events" "$tmp/cut_in_events.json"
both cut_in_event "ends inside traceEvents[0]" "$tmp/cut_in_event.json"
both cut_after_events "ends before its JSON does" "$tmp/cut_after_events.json"
both event_not_json "traceEvents[0] (byte 17) is not valid JSON" "$tmp/event_not_json.json"
both unmatched "unmatched '}'" "$tmp/unmatched.json"
both doc_not_json "JSON around traceEvents is not valid|tru}" "$tmp/doc_not_json.json"
both no_comma "where ',' or ']' belongs" "$tmp/no_comma.json"
both two_sessions "ProfilerStep#1 has two separate CPU-side ranges, traceEvents[0] at ts 100.000 us and traceEvents[2] at ts 10000.000 us|two profiling sessions in one file" "$tmp/two_sessions.json"
both outside_steps "no kernel starts inside any of the 1 ProfilerStep windows (ProfilerStep#1 to #1, CPU side, ts 100.000 to 200.000 us), while the trace's 1 kernel run from ts 500.000 to 505.000 us|prof.step() is likely misplaced" "$tmp/outside_steps.json"
both brace_for_key "'{' at byte 2, where a key (a string in quotes) or the object's '}' belongs" "$tmp/brace_for_key.json"
both after_the_end "'{' at byte 97 comes after the JSON document ended" "$tmp/after_the_end.json"
both wrong_closer "'}' at byte 8 closes a '['" "$tmp/wrong_closer.json"
both split_literal "'u' at byte 9, where ',' or '}' belongs" "$tmp/split_literal.json"
both not_an_object "traceEvents[0] (byte 17) is not an event object" "$tmp/not_an_object.json"
both trailing_comma "traceEvents[1]|is not an event object but starts with ']'" "$tmp/trailing_comma.json"
both no_trace_events 'no "traceEvents" array' "$tmp/no_trace_events.json"
both no_kernels "no GPU kernel events|ProfilerActivity.CUDA" "$tmp/no_kernels.json"
both no_ts 'traceEvents[0]|has no valid "ts"' "$tmp/no_ts.json"
both string_dur 'has no valid "dur"' "$tmp/string_dur.json"
both negative_dur 'has no valid "dur"' "$tmp/negative_dur.json"
both huge_ts 'has no valid "ts"' "$tmp/huge_ts.json"
both no_correlation 'cat "kernel") has no valid "args": {"correlation"' "$tmp/no_correlation.json"
both call_no_correlation 'traceEvents[1]|cat "cuda_runtime") has no valid "args": {"correlation"' "$tmp/call_no_correlation.json"
both no_name 'has no valid "name"' "$tmp/no_name.json"
both deep_event "traceEvents[0] (byte 17) is not valid JSON" "$tmp/deep_event.json"
both deep_doc "JSON around traceEvents is not valid" "$tmp/deep_doc.json"
both nul_byte "'\\x00' at byte 95" "$tmp/nul_byte.json"
if [ -f "$tmp/cut_fixture.json.gz" ]; then both cut_fixture_gz "cut short" "$tmp/cut_fixture.json.gz"
else skipped 2 "cut_fixture_gz, the fixture cut short"; fi
both cut_gzip "gzip data ends early" "$tmp/cut_gzip.json.gz"
both missing_file "no such file" "$tmp/absent.json"
both a_folder "not a regular file" "$tmp/a_folder.json"
expect no_argument "no trace given" $bin
expect unknown_option "unknown option --bogus" $bin --bogus "$tmp/empty.json"
expect two_files "one trace at a time" $bin "$tmp/empty.json" "$tmp/not_json.json"

# ---- 3b. memory: bounded by what is kept, never by one value ---------------------------------
# Each under a 128 MiB address-space limit (ulimit -v; the fixture reads in about 8 MB of
# memory): a 1 MB .gz holding one 1 GiB string fails at once naming its event; a value of
# 2 MB beside the events and a 70 KB name fail the same way; 32 MiB of whitespace and 8 MiB
# of skipped events read in a few MB. Peak RSS from /usr/bin/time where it is installed.
if [ -n "$KIT_TRACE_STATS_INNER" ]; then echo "(the memory checks: in the outer run)"; else
head -c 1048576 /dev/zero | tr '\0' a | gzip -c >"$tmp/a1.gz"       # gzip members concatenate:
for i in $(seq 32); do cat "$tmp/a1.gz"; done >"$tmp/a32.gz"        # 1 KB of .gz per MiB of 'a'
{ printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "' | gzip -c
  for i in $(seq 32); do cat "$tmp/a32.gz"; done
  printf '"}]}' | gzip -c; } >"$tmp/huge_string.json.gz"
{ printf '{"x": "'; head -c 2000000 /dev/zero | tr '\0' a; printf '", "traceEvents": [%s]}' "$K"; } >"$tmp/huge_doc_value.json"
{ printf '{"traceEvents": [{"ph":"X","cat":"kernel","name":"'; head -c 70000 /dev/zero | tr '\0' a
  printf '","ts":1,"dur":1,"args":{"correlation":1}}]}'; } >"$tmp/huge_name.json"
{ printf '{"traceEvents": [%s,' "$K"; head -c 33554432 /dev/zero | tr '\0' ' '; printf '%s]}' "$K"; } | gzip -1 >"$tmp/spaces.json.gz"
{ printf '{"traceEvents": [%s' "$K"; F='{"ph": "s", "id": 9, "pid": 1, "tid": 1, "ts": 115, "cat": "ac2g", "name": "ac2g"}'
  yes ",$F" | head -c 8388608 | grep -v '[^}]$'; printf ']}'; } | gzip -1 >"$tmp/skipped.json.gz"
mem() {   # mem NAME WANT FILE: exit 1 with WANT in its one error line (WANT empty: exit 0), under the limit
  local name=$1 want=$2 file=$3 why="" rss=- t0 secs
  t0=$(date +%s%N)
  if [ -x /usr/bin/time ]; then ( ulimit -v 131072; exec /usr/bin/time -f %M -o "$tmp/rss" $bin "$file" ) >/dev/null 2>"$tmp/stderr"
  else ( ulimit -v 131072; exec $bin "$file" ) >/dev/null 2>"$tmp/stderr"; fi
  local rc=$?
  secs=$(( ($(date +%s%N) - t0) / 1000000000 ))
  [ -x /usr/bin/time ] && rss=$(tail -1 "$tmp/rss") && sed -i '/^Command exited/d' "$tmp/stderr"
  if [ -z "$want" ]; then [ "$rc" = 0 ] || why="exit code $rc, want 0"
  else
    [ "$rc" = 1 ] || why="exit code $rc, want 1"
    [ -z "$why" ] && [ "$(grep -c '^error: ' "$tmp/stderr")" != 1 ] && why="want exactly one 'error:' line"
    [ -z "$why" ] && ! grep -qF -- "$want" "$tmp/stderr" && why="the error does not say '$want'"
  fi
  [ -z "$why" ] && [ "$rss" != - ] && [ "$rss" -gt 32768 ] && why="peak RSS $rss KB, over 32 MB"
  [ -z "$why" ] && [ "$secs" -gt 20 ] && why="$secs s, over 20 s"
  if [ -z "$why" ]; then pass=$((pass + 1)); echo "ok   memory $name: peak RSS ${rss} KB, ${secs} s: $(head -1 "$tmp/stderr")"
  else fail=$((fail + 1)); echo "FAIL memory $name: $why"; head -3 "$tmp/stderr" | sed 's/^/       /'; fi
}
mem huge_string "traceEvents[0] (byte 17) runs past 1 MiB without its closing '}'" "$tmp/huge_string.json.gz"
mem huge_doc_value "the JSON around traceEvents passes 1 MiB at byte 1048577" "$tmp/huge_doc_value.json"
mem huge_name 'traceEvents[0] (byte 17, cat "kernel") has a name of 70000 bytes' "$tmp/huge_name.json"
mem whitespace "" "$tmp/spaces.json.gz"
mem skipped_events "" "$tmp/skipped.json.gz"
[ -f "$fix/trace_hf_eager_b1.json" ] && mem the_fixture "" "$fix/trace_hf_eager_b1.json"
both huge_doc_value "passes 1 MiB" "$tmp/huge_doc_value.json"
both huge_name "has a name of 70000 bytes" "$tmp/huge_name.json"
fi

# ---- 4. the sweep under ASan --------------------------------------------------------------
printf '%s\n' '{"traceEvents": [' \
  '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 100, "dur": 100},' \
  '{"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#1", "pid": 0, "tid": 7, "ts": 150, "dur": 50},' \
  '{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 110, "dur": 20, "args": {"External id": 1}},' \
  '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 115, "dur": 5, "args": {"correlation": 9, "External id": 1}},' \
  '{"ph": "X", "cat": "kernel", "name": "k\"}]", "pid": 0, "tid": 7, "ts": 150, "dur": 20, "args": {"correlation": 9, "External id": 1}},' \
  '{"ph": "s", "id": 9, "pid": 1, "tid": 1, "ts": 115, "cat": "ac2g", "name": "ac2g"}' \
  '], "traceName": "sweep"}' >"$tmp/small.json"
if [ -n "$KIT_TRACE_STATS_INNER" ]; then
  echo "(the sweep: in the outer run)"
elif [ -x "$asan" ]; then
  "$asan" --sweep "$tmp/small.json" >"$tmp/sweep.txt" 2>&1; rc=$?
  ok "ASan sweep: $(head -1 "$tmp/sweep.txt")" "[ $rc = 0 ] && grep -q 'parsed, .* failed with a sentence' $tmp/sweep.txt && ! grep -qE 'Sanitizer|runtime error' $tmp/sweep.txt"
else
  ok "ASan sweep: $asan is missing" false
fi

# ---- 5. without the fixtures --------------------------------------------------------------
# The script again (without its sweep) with SHARED pointing nowhere: the checks that need the
# fixture say skipped, and none fails; with KIT_REQUIRE_FIXTURES=1 they fail.
if [ -z "$KIT_TRACE_STATS_INNER" ]; then
  inner() { SHARED=$tmp/no-shared KIT_TRACE_STATS_INNER=1 KIT_REQUIRE_FIXTURES=$1 "$self" >"$tmp/inner$1.txt" 2>&1; }
  # (its count line is quoted without the words tests/run.sh adds up: "75 ok / 0 FAIL / 3 skip")
  counts() { tail -1 "$1" | sed -E 's/.* ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 ok \/ \2 FAIL \/ \3 skip/; s/.* ([0-9]+) passed, ([0-9]+) failed$/\1 ok \/ \2 FAIL/'; }
  inner ""; rc=$?
  ok "without the fixtures: $(counts "$tmp/inner.txt")" "[ $rc = 0 ] && tail -1 $tmp/inner.txt | grep -qE ' 0 failed, [1-9][0-9]* skipped\$'"
  inner 1; rc=$?
  ok "without the fixtures, KIT_REQUIRE_FIXTURES=1: $(counts "$tmp/inner1.txt")" "[ $rc != 0 ] && tail -1 $tmp/inner1.txt | grep -qE ' [1-9][0-9]* failed\$'"
fi

if [ "$skip" = 0 ]; then echo "trace_stats: $pass passed, $fail failed"
else echo "trace_stats: $pass passed, $fail failed, $skip skipped"; fi
[ "$fail" = 0 ]
