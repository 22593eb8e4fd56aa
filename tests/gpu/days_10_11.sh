#!/bin/bash
# days_10_11: bin/day10_profiler and bin/day11_gaps on the synthetic default, into a scratch
# results folder: both exit 0 and write their rows, print the GPU in one line and at most 40
# lines on stdout (day10 --verbose prints more, the same rows), eager runs exactly 155 GEMM
# calls per step, every Chrome trace parses as JSON with kernel events, the gap lists hold
# numbers, the timeline PNGs are PNGs, and the CUDA graph keeps the GPU busier than eager at
# batch 1; and day10 without CUPTI (another profiler attached) still runs and says so.
# RESULTS_DIR=dir keeps the outputs (rows, traces, PNGs, the days' stdout and stderr) there instead.
cd "$(dirname "$0")/../.."
BIN=${BIN:-bin}   # build-t4/bin under make test-gpu-t4
pass=0 fail=0
if [ -n "$RESULTS_DIR" ]; then tmp=$RESULTS_DIR; mkdir -p "$tmp" && rm -f "$tmp/rows.tsv"
else tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT; fi
export KIT_RESULTS=$tmp
rows=$tmp/rows.tsv

ok() { # EXIT-CODE NAME (the code first: a $(...) in NAME would reset $?)
  if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $2"; fi
}
row() { awk -F'\t' -v d="$1" -v k="$2" '$1 == d && $2 == k { print $4 }' "$rows"; }
note() { awk -F'\t' -v d="$1" -v k="$2" '$1 == d && $2 == k { print $6 }' "$rows"; }
has_row() { [ -n "$(row "$1" "$2")" ]; }

for b in day10_profiler day11_gaps; do
  [ -x $BIN/$b ] || { echo "$BIN/$b is not built (make $BIN/$b)"; echo "days_10_11: 0 passed, 1 failed"; exit 1; }
done

$BIN/day10_profiler >"$tmp/day10.log" 2>"$tmp/day10.err"
ok $? "day10_profiler exits 0 (stdout: $(tail -1 "$tmp/day10.log"); stderr: $(tail -1 "$tmp/day10.err"))"
$BIN/day11_gaps >"$tmp/day11.log" 2>"$tmp/day11.err"
ok $? "day11_gaps exits 0 (stdout: $(tail -1 "$tmp/day11.log"); stderr: $(tail -1 "$tmp/day11.err"))"
# the default's shape: the one GPU line (common/gpu/gpu.cu, gpu_facts_print), at most 40 lines
for d in day10 day11; do
  grep -qE '^gpu_name="[^"]+" cc=[0-9]+\.[0-9]+( t4_path=emulated)? code_arch=sm_[0-9]+ bw_gbs=[0-9]+ ' "$tmp/$d.log"
  ok $? "$d prints the GPU in one line (gpu_name=\"...\" cc= code_arch= bw_gbs=)"
  n=$(wc -l < "$tmp/$d.log"); [ "$n" -le 40 ]; ok $? "$d prints at most 40 lines on stdout by default ($n)"
  echo "stdout_lines $d=$n"
done
# --verbose: every row and line, the rows the same (day10: the shorter of the two)
mkdir -p "$tmp/verbose"
KIT_RESULTS=$tmp/verbose $BIN/day10_profiler --verbose >"$tmp/day10_verbose.log" 2>&1
ok $? "day10_profiler --verbose exits 0 (log: $(tail -1 "$tmp/day10_verbose.log"))"
[ "$(wc -l < "$tmp/day10_verbose.log")" -gt "$(wc -l < "$tmp/day10.log")" ] && grep -q '^dispatch_source="built-in: ' "$tmp/day10_verbose.log"
ok $? "day10 --verbose prints more than the default, where its dispatcher's distribution came from among it"
# (as sets: day10 writes part_ms_* and family_share_* ranked by time, and two parts close in
# time may swap places from one run to the next)
[ "$(cut -f1,2 "$tmp/verbose/rows.tsv" | sort)" = "$(awk -F'\t' '$1 == "day" || $1 == "day10"' "$rows" | cut -f1,2 | sort)" ]
ok $? "day10 writes the same rows with and without --verbose"

# day10: the rows, the 155, the table
for k in kernels_per_step gemms_per_step nvtx_ops_per_step top1_share top2_share top3_share family_top1_share \
         family_top2_share family_top3_share family_share_linear family_share_elementwise family_share_attention \
         gemm_ms_per_step gemm_bw_eff gemm_path_ms_fused profiler_overhead_pct busy; do
  has_row day10 $k; ok $? "day10 row $k"
done
[ "$(row day10 gemms_per_step)" = 155 ]; ok $? "eager: 155 GEMM calls per step, got '$(row day10 gemms_per_step)'"
grep -q '^gemms_check=ok' "$tmp/day10.log"; ok $? "day10 prints gemms_check=ok"
grep -q 'Name (kernel)' "$tmp/day10.log"; ok $? "day10 prints the profiler's table"
grep -q '^top1=.* part=' "$tmp/day10.log"; ok $? "day10 maps the top kernel to a model part"
f1=$(awk -F'\t' '$1 == "day10" && $2 == "family_top1_share" { print $6 }' "$rows")
case "$f1" in linear:*) true;; *) false;; esac; ok $? "day10's top family is the linear layers ($f1)"
w=$(sed -n 's/^gemm_calls_window=\([0-9]*\) (counted over the \([0-9]*\) steps.*/\1 \2/p' "$tmp/day10.log")
awk -v w="$w" -v g="$(row day10 gemms_per_step)" 'BEGIN { split(w, a, " "); exit !(a[1] > 0 && a[1] == a[2] * g) }'
ok $? "day10 counts the GEMM calls over its window's steps ($w; $(row day10 gemms_per_step) a step)"
busy=$(sed -n 's/^fused_step: busy \([0-9.]*\) ms.*/\1/p' "$tmp/day10.log")
awk -v p="$(row day10 gemm_path_ms_fused)" -v b="$busy" 'BEGIN { exit !(p > 0.3 * b && p <= b) }'
ok $? "the fused step's GEMVs hold 30-100% of its path ($(row day10 gemm_path_ms_fused) of '$busy' ms)"

# day11: a row set per configuration, the sweep, the crossover
cfgs=""
for m in eager graph_eager fused graph; do for b in 1 32; do for d in 0 14; do cfgs="$cfgs ${m}_b${b}_d${d}"; done; done; done
config_rows() {   # config_rows CFG: day11's nine rows of a configuration, its busy ratio in (0, 100]
  local c=$1 n=0 b
  for k in busy gpu_ms_per_step gap_median_us gap_p90_us gaps_per_step host_bound launch_api_us tpot_ms busy_traced; do
    has_row day11 ${k}_$c && n=$((n + 1))
  done
  [ $n = 9 ]; ok $? "day11 rows of $c ($n of 9)"
  b=$(row day11 busy_$c)
  awk -v b="$b" 'BEGIN { exit !(b > 0 && b <= 100) }'; ok $? "day11 busy_$c = $b% lies in (0, 100]"
}
for c in $cfgs; do config_rows $c; done
for k in tracer_us_per_launch tracer_pct_full_eager_b1_d0 tracer_pct_kernels_eager_b1_d0; do
  has_row day11 $k; ok $? "day11 row $k"
done
for c in eager_b1_d14 graph_b1_d0; do   # NVML: a row, or one line saying why not
  has_row day11 nvml_util_$c || grep -q "^nvml_util_$c=not available" "$tmp/day11.log"
  ok $? "day11 nvml_util_$c: a row or 'not available'"
done
b10=$(row day10 busy) b11=$(row day11 busy_eager_b1_d14)   # day10's default: eager, batch 1, the default dispatcher
awk -v a="$b10" -v b="$b11" 'BEGIN { d = a - b; exit !(a != "" && b != "" && d <= 3 && d >= -3) }'
ok $? "day10's busy ($b10%) and day11's busy_eager_b1_d14 ($b11%) agree within 3 points"
for d in 0 5 10 14 20; do
  has_row day11 sweep_tpot_ms_d$d && has_row day11 sweep_busy_d$d; ok $? "day11 sweep rows d$d"
done
has_row day11 crossover_us; ok $? "day11 row crossover_us"
# the dispatcher each day drew from: the default median, and a spread above it (the built-in table's
# p90 is 2.9x the median, its mean 1.49x)
for d in day10 day11; do
  m=$(row $d dispatch_median_us) p=$(row $d dispatch_p90_us) a=$(row $d dispatch_mean_us)
  awk -v m="$m" -v p="$p" -v a="$a" 'BEGIN { exit !(m == 14 && p > 2.5 * m && a > 1.3 * m && a < p) }'
  ok $? "$d's dispatcher: median $m, p90 $p, mean $a us"
  case "$(note $d dispatch_median_us)" in *"drawn from built-in: "*) true;; *) false;; esac
  ok $? "$d's dispatcher: the row says where its distribution came from ($(note $d dispatch_median_us))"
done

# the files: traces parse, gap lists are numbers, PNGs are PNGs
for c in $cfgs; do
  f=$tmp/trace_$c.json
  python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))
k = [e for e in t["traceEvents"] if e.get("cat") == "kernel"]
sys.exit(0 if k and all("dur" in e and "ts" in e for e in k) else 1)' "$f" 2>/dev/null
  ok $? "trace_$c.json parses and holds kernel events"
  g=$tmp/gaps_$c.tsv
  [ -f "$g" ] && awk '!/^[0-9]+(\.[0-9]+)?$/ { bad = 1 } END { exit bad }' "$g"; ok $? "gaps_$c.tsv: one number per line"
done
for p in timeline_eager timeline_graph; do
  [ "$(head -c 8 "$tmp/$p.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
  ok $? "$p.png is a PNG"
done

# the lesson's claim: a CUDA graph removes the launch gaps
ge=$(row day11 busy_eager_b1_d0) gg=$(row day11 busy_graph_b1_d0)
awk -v e="$ge" -v g="$gg" 'BEGIN { exit !(e != "" && g != "" && g + 0 > e + 0) }'
ok $? "busy graph b1 ($gg%) > busy eager b1 ($ge%)"

# the timeline model (day11 section 8): every configuration replayed within 10% of its untraced
# TPOT and 5 points of its busy ratio, batch 32 (held out of the fit) within 8; T4 and faster-GPU
# forecasts for every configuration and the two headline steps; the saved steps replay in
# bin/forecast. f, which batch 1 cannot show, from the kit's GEMV timed alone at 32 rows
theory() { awk -F'\t' -v d="$1" -v k="$2" '$1 == d && $2 == k { print $3 }' "$rows"; }
f=$(row day11 replay_f_gemv)
case "$(note day11 replay_f_gemv)" in *"GEMV alone at 32 rows"*) awk -v f="$f" 'BEGIN { exit !(f > 0 && f <= 1) }';; *) false;; esac
ok $? "day11 calibrates the GEMVs' f alone at 32 rows: f = $f ($(note day11 replay_f_gemv))"
for c in $cfgs; do
  t=$(theory day11 forecast_t4_tpot_ms_$c) b=$(theory day11 forecast_t4_busy_$c) g=$(theory day11 forecast_t4_gpu_ms_per_step_$c)
  awk -v t="$t" -v b="$b" -v g="$g" 'BEGIN { exit !(t > 0 && b > 0 && b <= 100 && g > 0 && g <= t) }'
  ok $? "day11 forecasts $c on a T4: $t ms, $b%, $g ms of kernels"
  t=$(theory day11 replay_tpot_ms_$c) m=$(row day11 replay_tpot_ms_$c)
  awk -v t="$t" -v m="$m" 'BEGIN { exit !(t > 0 && m > 0 && t < 1.1 * m && t > 0.9 * m) }'
  ok $? "day11 replays $c within 10%: $t ms against $m ms measured"
  # busy: 5 points at batch 1, 8 held out at batch 32 (its cuBLAS GEMMs run a little slower than
  # their bytes say, which batch 1 cannot show: the step's GPU time is 1.13x batch 1's, not 1.04x);
  # a graph's bar is never tighter than its two measurements of the same kernels (d0 and d14 differ
  # only in the one launch; their busy ratios have been 8 points apart on the T4 path)
  t=$(theory day11 replay_busy_$c) m=$(row day11 replay_busy_$c) pts=5
  case $c in *_b32_*) pts=8;; esac
  case $c in graph*_d0) tw=$(row day11 busy_${c%_d0}_d14);; graph*_d14) tw=$(row day11 busy_${c%_d14}_d0);; *) tw=$m;; esac
  pts=$(awk -v p=$pts -v m="$m" -v w="$tw" 'BEGIN { d = m - w; if (d < 0) d = -d; print (d > p ? d : p) }')
  awk -v t="$t" -v m="$m" -v p=$pts 'BEGIN { exit !(t != "" && m != "" && t - m <= p && m - t <= p) }'
  ok $? "day11 replays $c's busy within $pts points: $t% against $m% measured"
done
for c in eager_b1_d14 graph_b1_d0; do
  n=0
  for k in forecast_2x_tpot_ms forecast_10x_tpot_ms forecast_2x_busy forecast_10x_busy forecast_t4_c_half_tpot_ms \
           forecast_t4_c_double_tpot_ms; do [ -n "$(theory day11 ${k}_$c)" ] && n=$((n + 1)); done
  [ $n = 6 ]; ok $? "day11 forecast rows of $c on faster GPUs and the T4's sensitivity ($n of 6)"
done
e1=$(row day11 tpot_ms_eager_b1_d14) e10=$(theory day11 forecast_10x_tpot_ms_eager_b1_d14)
g1=$(row day11 tpot_ms_graph_b1_d0) g10=$(theory day11 forecast_10x_tpot_ms_graph_b1_d0)
awk -v e1="$e1" -v e10="$e10" -v g1="$g1" -v g10="$g10" 'BEGIN { exit !(e10 > 0.8 * e1 && g10 < 0.5 * g1) }'
ok $? "mistake #14: 10x the GPU moves the overhead-bound step little ($e1 -> $e10 ms), the graph step a lot ($g1 -> $g10 ms)"
if [ -x $BIN/forecast ]; then
  $BIN/forecast --file "$tmp/replay.tsv" >"$tmp/forecast.log" 2>&1; ok $? "bin/forecast replays day11's replay.tsv"
  grep -q "^forecast_t4_tpot_ms_eager_b1_d14=" "$tmp/forecast.log"; ok $? "bin/forecast prints the T4 forecast of eager_b1_d14"
fi

# beyond the week: persistent mode where this GPU and build run it (its nine rows, one kernel,
# no gap inside a step), else no rows and the one line saying why not
if has_row day11 tpot_ms_persistent_b1_d0; then
  config_rows persistent_b1_d0
  g=$(row day11 gaps_per_step_persistent_b1_d0) l=$(row day11 launches_per_step_persistent_b1_d0)
  awk -v g="$g" -v l="$l" 'BEGIN { exit !(g == 0 && l == 1) }'
  ok $? "day11 persistent: $g gaps inside a step, $l launch a step"
  grep -q '^persistent_b1_d0: kernels_per_step=1 gaps_per_step=0.0 busy_pct=' "$tmp/day11.log"
  ok $? "day11 prints persistent's line: one kernel, no gap"
else
  grep -q '^persistent=not run (' "$tmp/day11.log"; ok $? "day11 persistent: no TPOT row, and a line says why not"
  ! has_row day11 busy_persistent_b1_d0; ok $? "day11 persistent not run: no persistent rows"
fi

# Without a trace: under another CUPTI client (Nsight Compute, told to profile no kernel)
# day10 cannot subscribe; it must say why, exit 0, count from the launch path and time the step.
skipped=""
if command -v ncu >/dev/null; then
  mkdir -p "$tmp/nocupti"
  KIT_RESULTS=$tmp/nocupti ncu --kernel-name 'regex:^no_kernel_is_called_this$' $BIN/day10_profiler \
    >"$tmp/day10_nocupti.log" 2>&1
  ok $? "day10 under ncu exits 0 (log: $(tail -2 "$tmp/day10_nocupti.log"))"
  grep -q '^trace: CUPTI unavailable' "$tmp/day10_nocupti.log"; ok $? "day10 under ncu says CUPTI is unavailable and why"
  grep -q '^trace=off' "$tmp/day10_nocupti.log"; ok $? "day10 under ncu says what it does without a trace"
  rows=$tmp/nocupti/rows.tsv has_row day10 tpot_ms_untraced
  ok $? "day10 under ncu still times the step (tpot_ms_untraced)"
else
  skipped=", 1 skipped (no ncu on the PATH: the no-CUPTI path was not run)"
fi

if [ "$KIT_GPU" = t4 ]; then   # make test-gpu-t4: every row says it is the emulated T4 path
  n=$(awk -F'\t' 'NR > 1 && $6 !~ /emulated T4 path on .*: timings are that GPU.s/' "$rows" | wc -l)
  [ "$n" = 0 ]; ok $? "T4 switch: every row's note says it is the emulated T4 path ($n do not)"
fi

echo "days_10_11: $pass passed, $fail failed$skipped"
[ "$fail" = 0 ]
