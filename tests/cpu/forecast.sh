#!/bin/bash
# bin/forecast on a hand-made results/replay.tsv of two steps, fitted on an H200 (latency 4 us,
# gaps 1 and 0.5 us, sync 8 us):
#   eager_b1_d14  host-bound: five 2 us kernels launched 30 us apart, the host handing over at
#                 150 us; its TPOT is the host's, 150 + 8 = 158 us, on any GPU
#   graph_b1_d0   GPU-bound: one graph of five GEMVs of 100 MB under PDL, 24 us each; on a GPU 2x
#                 faster its TPOT is a little more than half (latency, gaps and sync stay), 10x
#                 faster far from a tenth, and on the T4 (240 GB/s, no PDL) longer
# Then --gpu (a table and keys of its own; a name of the forecast's own or a malformed value
# refused), the default path under $KIT_RESULTS, and files that are not replay.tsv: exit 1,
# one "error:" sentence naming the file (and the line), nothing on stdout.
cd "$(dirname "$0")/../.."
bin=${BIN:-bin}/forecast
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if eval "$2"; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi; }
[ -x $bin ] || { echo "$bin is not built (make $bin)"; echo "forecast: 0 passed, 1 failed"; exit 1; }

{
  printf '# a hand-made replay.tsv\ngpu\th200\t4800\t989\t1\n'
  printf 'fit\tlatency_us\t4\nfit\tgap_us\t1\nfit\tgap_pdl_us\t0.5\nfit\tsync_us\t8\n'
  for c in gather elementwise copy reduce cat gemm gemm_reduce attention other; do
    printf 'class\t%s\t0.85\t0.6\t2\t0\t1\n' $c
  done
  printf 'class\tgemv\t0.9\t0.6\t1\t5\t0\n'
  printf 'step\teager_b1_d14\t0\t0\t150\t0.16\t6.3\t5\n'
  for t in 0 30 60 90 120; do printf 'op\telementwise\t100000\t0\t%s\t2.02\n' $t; done
  printf 'step\tgraph_b1_d0\t1\t1\t3\t0.135\t90\t5\n'
  for i in 1 2 3 4 5; do printf 'op\tgemv\t1e8\t2e8\t0\t24.1\n'; done
} >"$tmp/replay.tsv"

$bin --file "$tmp/replay.tsv" >"$tmp/out" 2>"$tmp/err"; rc=$?
ok "a replay.tsv: exit 0, nothing on stderr" "[ $rc = 0 ] && [ ! -s $tmp/err ]"
v() { sed -n "s/^$1=//p" "$tmp/out"; }   # v KEY: its value
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(a != "" && b != "" && d * d <= t * t) }'; }
for g in fitted t4 2x 10x t4_c0.5 t4_c2; do
  ok "a table and keys for $g" "grep -q '^## $g: ' $tmp/out && [ -n \"\$(v forecast_${g}_tpot_ms_graph_b1_d0)\" ] && [ -n \"\$(v forecast_${g}_busy_eager_b1_d14)\" ]"
done
ok "the fit printed: gemv's e and c, the constants" \
   "grep -qE '^gemv +0\.900 +0\.60\* +1\.000 +5$' $tmp/out && grep -q '^latency_us=4 gap_us=1 gap_pdl_us=0.5 sync_us=8$' $tmp/out"
ok "the assumptions said: carried over, the host's submit times, f assumed, what 2x and 10x keep" \
   "grep -q '^# assumptions: e, f and c are h200.s, carried over' $tmp/out && grep -q 'submit times' $tmp/out && grep -q 'f = 0.6 is assumed' $tmp/out && grep -q 'the host, the launch latency, the gaps and sync stay as measured' $tmp/out"

h=$(v forecast_fitted_tpot_ms_eager_b1_d14) h4=$(v forecast_t4_tpot_ms_eager_b1_d14) h10=$(v forecast_10x_tpot_ms_eager_b1_d14)
ok "host-bound: the replay's TPOT is the host's hand-over + sync, 0.158 ms ($h)" "near '$h' 0.158 1e-6"
ok "host-bound: the T4's TPOT is the replay's ($h4 and $h) and 10x's too ($h10)" "near '$h4' '$h' 1e-6 && near '$h10' '$h' 1e-6"
ok "the fitted table shows the measured TPOT and busy beside the replay" "grep -qE '^eager_b1_d14 +0\.16 +6\.3 +0\.158 ' $tmp/out"

# graph_b1_d0 by hand: dur = 1e8 / (4800e3 x 0.9) + 1 = 24.148 us; 4 + 5 dur + 4 x 0.5 + 8
g=$(v forecast_fitted_tpot_ms_graph_b1_d0) g2=$(v forecast_2x_tpot_ms_graph_b1_d0) g10=$(v forecast_10x_tpot_ms_graph_b1_d0)
g4=$(v forecast_t4_tpot_ms_graph_b1_d0)
want=$(awk 'BEGIN { d = 1e8 / (4800e3 * 0.9) + 1; printf "%.9g", (4 + 5 * d + 4 * 0.5 + 8) / 1e3 }')
ok "GPU-bound: the replay's TPOT by hand, $want ms ($g)" "near '$g' '$want' 1e-6"
ok "GPU-bound: 2x faster about half the TPOT ($g2 of $g: more than half, latency, gaps and sync stay)" \
   "awk 'BEGIN { r = $g2 / $g; exit !(r > 0.5 && r < 0.6) }'"
ok "GPU-bound: 10x faster far from a tenth ($g10 of $g)" "awk 'BEGIN { r = $g10 / $g; exit !(r > 0.15 && r < 0.25) }'"
want4=$(awk 'BEGIN { d = 1e8 / (240e3 * 0.9) + 1; printf "%.9g", (4 + 5 * d + 4 * 1 + 8) / 1e3 }')
ok "GPU-bound on the T4: its bandwidth and no PDL, $want4 ms ($g4)" "near '$g4' '$want4' 1e-5"
b=$(v forecast_fitted_busy_graph_b1_d0)
ok "GPU-bound: busy near 90% ($b)" "awk 'BEGIN { exit !($b > 85 && $b < 95) }'"
c05=$(v forecast_t4_c0.5_busy_eager_b1_d14) c1=$(v forecast_t4_busy_eager_b1_d14) c2=$(v forecast_t4_c2_busy_eager_b1_d14)
ok "the T4 with c halved and doubled: the host-bound step's busy follows c ($c05 < $c1 < $c2)" \
   "awk 'BEGIN { exit !($c05 < $c1 && $c1 < $c2) }'"

$bin --file "$tmp/replay.tsv" --gpu a100,1555,312,0 >"$tmp/out" 2>"$tmp/err"; rc=$?
a=$(v forecast_a100_tpot_ms_graph_b1_d0)
wanta=$(awk 'BEGIN { d = 1e8 / (1555e3 * 0.9) + 1; printf "%.9g", (4 + 5 * d + 4 * 1 + 8) / 1e3 }')
ok "--gpu a100,1555,312,0: a table of its own, no PDL: $wanta ms ($a)" "[ $rc = 0 ] && grep -q '^## a100: ' $tmp/out && near '$a' '$wanta' 1e-5"
refuses() {   # refuses WHAT PATTERN ARGS...: exit 1, stdout empty, one error line matching PATTERN
  local what=$1 pat=$2; shift 2
  $bin "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  ok "$what: exit 1, one error sentence, nothing on stdout" \
     "[ $rc = 1 ] && [ ! -s $tmp/out ] && [ \$(wc -l <$tmp/err) = 1 ] && grep -q -- \"$pat\" $tmp/err"
}
refuses "--gpu with three fields" "^error: forecast: --gpu a100,1555,312: 3 fields, not 4" --file "$tmp/replay.tsv" --gpu a100,1555,312
refuses "--gpu with a bandwidth of 0" "^error: forecast: --gpu a100,0,312,0: the bandwidth '0' is not a number of GB/s above 0" \
        --file "$tmp/replay.tsv" --gpu a100,0,312,0
refuses "--gpu named t4" "^error: forecast: --gpu t4,320,65,0: the name t4 is one of the forecast's own" --file "$tmp/replay.tsv" --gpu t4,320,65,0

mkdir "$tmp/results" && cp "$tmp/replay.tsv" "$tmp/results/"
KIT_RESULTS=$tmp/results $bin >"$tmp/out" 2>&1; rc=$?
ok "no --file: \$KIT_RESULTS/replay.tsv" "[ $rc = 0 ] && grep -q \"^forecast: $tmp/results/replay.tsv, 2 steps\" $tmp/out"
refuses "a file that is not there" "^error: cannot read $tmp/none.tsv; day11 writes it" --file "$tmp/none.tsv"
head -n -1 "$tmp/replay.tsv" >"$tmp/short.tsv"
refuses "a file cut short" "^error: $tmp/short.tsv line 27: step graph_b1_d0 has 4 op lines, not the 5" --file "$tmp/short.tsv"
sed 's/^op\tgemv\t1e8/op\tgemv\t1e8x/' "$tmp/replay.tsv" >"$tmp/bad.tsv"
refuses "a bad number" "^error: $tmp/bad.tsv line 24: bytes '1e8x' is not a number" --file "$tmp/bad.tsv"

echo "forecast: $pass passed, $fail failed"
[ "$fail" = 0 ]
