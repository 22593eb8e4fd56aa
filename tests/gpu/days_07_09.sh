#!/bin/bash
# days_07_09: bin/day07_warmup, bin/day08_timing and bin/day09_ttft_tpot on the synthetic
# default, into a scratch results folder: each exits 0 and writes every row of the contract,
# --help works and a bad argument is one sentence and exit 1; each prints the GPU in one line
# and at most 40 lines on stdout; and the
# lessons' claims hold on this GPU: the first generate is slower than a warm one, an unsynced matmul "beats" the
# peak, the synced one does not, a TPOT is never below its floor, graph beats eager, a prefill
# stays under its roofline; day09's int8 rows: against the int8 floor, a fused int8 step
# moving half of fp16's weight bytes and an unfused one more (whether fused int8 is faster is
# a claim, answers/claims.tsv); beyond the week, persistent mode's rows where it runs, else the
# reason it does not and no TPOT (skipped). A row counts only when it holds a measured, finite number; a
# claim that needs this GPU's datasheet peak, on a GPU the kit has none for, is counted as
# skipped and says so.
cd "$(dirname "$0")/../.."
BIN=${BIN:-bin}   # build-t4/bin under make test-gpu-t4
pass=0 fail=0 skip=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KIT_RESULTS=$tmp
rows=$tmp/rows.tsv

ok() { # EXIT-CODE NAME (the code first: a $(...) in NAME would reset $? before ok read it)
  if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $2"; fi
}
declare -A CELL   # "day key column" -> the cell, read once the days have run (load_rows)
load_rows() {
  local d k th me u no
  while IFS=$'\t' read -r d k th me u no; do CELL["$d $k 3"]=$th CELL["$d $k 4"]=$me CELL["$d $k 6"]=$no; done < "$rows"
}
col() { printf '%s\n' "${CELL[$1 $2 $3]}"; }
row() { col "$1" "$2" 4; }
theory() { col "$1" "$2" 3; }
has_row() { [[ "${CELL[$1 $2 4]}" =~ ^-?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$ ]]; }   # measured: a finite number, not "-"
holds() { awk "BEGIN { exit !($1) }"; }   # an awk condition over numbers

for b in day07_warmup day08_timing day09_ttft_tpot; do
  [ -x $BIN/$b ] || { echo "$BIN/$b is not built (make $BIN/$b)"; echo "days_07_09: 0 passed, 1 failed"; exit 1; }
  $BIN/$b --help >"$tmp/help" 2>&1; ok $? "$b --help exits 0"
  grep -q "^usage: $b" "$tmp/help"; ok $? "$b --help prints its usage"
  $BIN/$b --no-such-flag >/dev/null 2>"$tmp/err"; rc=$?
  [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ]; ok $? "$b: a bad argument is one sentence and exit 1 (rc $rc)"
done

# the one GPU line a day prints by default (common/gpu/gpu.cu, gpu_facts_print)
gpu_line='^gpu_name="[^"]+" cc=[0-9]+\.[0-9]+( t4_path=emulated)? code_arch=sm_[0-9]+ bw_gbs=[0-9]+ '
for b in day07_warmup day08_timing day09_ttft_tpot; do
  $BIN/$b >"$tmp/$b.log" 2>"$tmp/$b.err"; ok $? "$b exits 0 (stdout: $(tail -1 "$tmp/$b.log"); stderr: $(tail -1 "$tmp/$b.err"))"
  cp "$tmp/$b.log" "$tmp/$b.err" "${BUILD:-build}/tests/gpu/" 2>/dev/null
  grep -qE "$gpu_line" "$tmp/$b.log"; ok $? "$b prints the GPU in one line (gpu_name=\"...\" cc= code_arch= bw_gbs=)"
  n=$(wc -l < "$tmp/$b.log"); [ "$n" -le 40 ]; ok $? "$b prints at most 40 lines on stdout by default ($n)"
  echo "stdout_lines $b=$n"
done

load_rows
for k in gpu context_ms cublas_handle_ms load_ms load_gbs weight_gb first_gemm_ms second_gemm_ms \
         first_generate_ms warm_generate_ms first_over_warm warm_range_pct fit_7b_gb; do
  has_row day07 $k; ok $? "day07 row $k"
done
for k in time_nosync_ms time_sync_after_ms time_sync_both_ms time_events_ms matmul_nosync_tflops \
         matmul_synced_tflops implicit_sync_d2h_ms implicit_sync_malloc_ms implicit_sync_free_ms \
         implicit_sync_legacy_ms bench_range_pct_nosync bench_range_pct_sync events_minus_wall_us; do
  has_row day08 $k; ok $? "day08 row $k"
done
for k in ttft_ms tpot_ms ratio tok_s mbu ttft_over_tpot ttft_ms_sub ttft_ms_stream ttft_ms_events \
         tpot_ms_sub tpot_ms_stream tpot_ms_events tpot_ms_sub_graph tpot_ms_stream_graph tpot_ms_events_graph \
         tpot_ms_eager ratio_eager mbu_eager tpot_ms_fused \
         ratio_fused mbu_fused tpot_ms_graph ratio_graph mbu_graph total_over_n_ms_8 total_over_n_ms_64 \
         prefill_intensity_200 prefill_tflops_200 dispatch_median_us dispatch_cost_ms ttft_ms_bare tpot_ms_graph_eager \
         tpot_ms_eager_d14 tpot_ms_graph_eager_d14 tpot_ms_fused_d14 tpot_ms_graph_d14 step_gb \
         tpot_ms_int8_fused tpot_ms_int8_graph tpot_ms_int8_graph_d14 ttft_ms_int8 ratio16_int8_graph step_gb_int8 \
         tpot_ms_int8_unfused_fused tpot_ms_int8_unfused_graph tpot_ms_int8_unfused_graph_d14 ttft_ms_int8_unfused \
         step_gb_int8_unfused kernels_eager kernels_graph; do
  has_row day09 $k; ok $? "day09 row $k"
done

# the lessons' claims, on this GPU
holds "$(row day07 first_over_warm) > 1"; ok $? "first generate slower than a warm one ($(row day07 first_over_warm)x)"
holds "$(row day07 first_gemm_ms) > $(row day07 second_gemm_ms)"; ok $? "first GEMM of a shape slower than the second"
w=$(row day07 weight_gb) t=$(theory day07 weight_gb)
holds "$w >= $t && $w < 1.5 * $t"; ok $? "device memory after load ($w GB) is the fp16 weights ($t GB) plus a little"
p=$(theory day08 matmul_nosync_tflops)
if [ "$p" != "-" ]; then
  holds "$(row day08 matmul_nosync_tflops) > $p"; ok $? "unsynced matmul TFLOP/s above the peak $p"
  holds "$(row day08 matmul_synced_tflops) < $p"; ok $? "synced matmul TFLOP/s below the peak $p"
else
  skip=$((skip + 2)); echo "skipped: unsynced/synced matmul against the peak (no datasheet peak for this GPU in common/model/theory.c)"
fi
holds "$(row day08 time_sync_after_graph_ms) > $(row day08 time_sync_both_graph_ms)"; ok $? "sync-after-only includes the queued prefill (graph step)"
holds "$(row day08 implicit_sync_d2h_ms) > 25"; ok $? "a device-to-host cudaMemcpy waits for queued work"
holds "$(row day08 bench_range_pct_nosync) > $(row day08 bench_range_pct_sync)"; ok $? "bench without its first sync spreads more"
for k in tpot_ms tpot_ms_events tpot_ms_eager tpot_ms_fused tpot_ms_graph tpot_ms_graph_d14 ttft_ms ttft_ms_bare \
         tpot_ms_int8_graph tpot_ms_int8_fused tpot_ms_int8_unfused_graph ttft_ms_int8; do
  holds "$(row day09 $k) >= $(theory day09 $k)"; ok $? "day09 $k $(row day09 $k) not below its floor $(theory day09 $k)"
done
! grep -q '^error' "$tmp/day09_ttft_tpot.log"; ok $? "day09 prints no measurement error"
holds "$(row day09 tpot_ms) > $(row day09 tpot_ms_eager)"; ok $? "the emulated dispatcher makes the eager step longer"
holds "$(row day09 tpot_ms_graph) < $(row day09 tpot_ms_eager)"; ok $? "graph TPOT < eager TPOT"
holds "$(theory day09 tpot_ms_int8_graph) < 0.55 * $(theory day09 tpot_ms_graph)"; ok $? "the int8 floor ($(theory day09 tpot_ms_int8_graph) ms) is about half the 16-bit one"
r=$(awk "BEGIN { print $(row day09 step_gb_int8) / $(row day09 step_gb) }")
holds "$r > 0.475 && $r < 0.525"; ok $? "a fused int8 step moves half of fp16's weight bytes ($r)"
holds "$(row day09 step_gb_int8_unfused) > $(row day09 step_gb)"; ok $? "an unfused int8 step moves more weight bytes than fp16's"
holds "$(row day09 tpot_ms_int8_unfused_graph) > $(row day09 tpot_ms_graph)"; ok $? "unfused int8 graph TPOT > fp16 graph TPOT"
holds "$(row day09 total_over_n_ms_8_long) > 1.3 * $(theory day09 total_over_n_ms_8_long)"; ok $? "1024-token prompt: total/8 overstates TPOT by more than 30%"
r=$(theory day09 prefill_tflops_200)
if [ "$r" != "-" ]; then
  holds "$(row day09 prefill_tflops_200) <= 1.05 * $r"; ok $? "200-token prefill $(row day09 prefill_tflops_200) TFLOP/s not above its roofline $r"
else
  skip=$((skip + 1)); echo "skipped: the 200-token prefill against its roofline (no datasheet peak for this GPU in common/model/theory.c)"
fi
# day09's section 7b: the GEMV curve's rows, fits and chart; no GEMV under its bytes' floor
for k in gemv_us_fp16_tl_gate_up gemv_us_int8_tl_gate_up gemv_fit_c_us_fp16 gemv_fit_e_fp16 gemv_fit_c_us_int8 \
         gemv_fit_e_int8 gemv_int8_speedup_tl_layer; do
  has_row day09 $k; ok $? "day09 row $k"
done
n=$(awk -F'\t' '$1 == "day09" && $2 ~ /^gemv_us_/ && $4 + 0 < $3 + 0' "$rows" | wc -l)
[ "$n" = 0 ]; ok $? "day09: no GEMV timed under its bytes' floor ($n are)"
if has_row day09 gemv_int8_speedup_7b_layer; then
  holds "$(row day09 gemv_int8_speedup_7b_layer) > $(row day09 gemv_int8_speedup_tl_layer)"
  ok $? "int8 pays more on Llama-2-7B's layer ($(row day09 gemv_int8_speedup_7b_layer)x) than on TinyLlama's ($(row day09 gemv_int8_speedup_tl_layer)x)"
fi
[ -s "$tmp/gemv_curve.png" ]; ok $? "day09 draws results/gemv_curve.png"
# beyond the week, day09's section 8: persistent mode's rows where it runs, else its reason and no TPOT
why=$(sed -n 's/^persistent: not run: //p' "$tmp/day09_ttft_tpot.log")
if [ -n "$why" ]; then
  skip=$((skip + 1)); echo "skipped: day09's persistent rows (not run: $why)"
  ! has_row day09 tpot_ms_persistent && [ -n "$(col day09 persistent_not_run 6)" ]
  ok $? "day09: persistent not run: no TPOT row, the reason in persistent_not_run"
else
  for k in tpot_ms_persistent tpot_ms_persistent_d14 ratio_persistent kernels_persistent; do
    has_row day09 $k; ok $? "day09 row $k"
  done
  holds "$(row day09 tpot_ms_persistent) >= $(theory day09 tpot_ms_persistent)"; ok $? "day09 tpot_ms_persistent $(row day09 tpot_ms_persistent) not below its floor"
  holds "$(row day09 kernels_persistent) == 1"; ok $? "day09: persistent runs one kernel a step ($(row day09 kernels_persistent))"
fi
if [ "$KIT_GPU" = t4 ]; then   # make test-gpu-t4: the T4's path ran, and every row says so
  # sm_75 code: no sm_90 path (gpu_sm90_paths)
  grep -qE '^gpu_name=.* cc=7\.5 t4_path=emulated code_arch=sm_75 ' "$tmp/day09_ttft_tpot.log" &&
    grep -qE '^gpu_name=.* cc=7\.5 t4_path=emulated code_arch=sm_75 ' "$tmp/day07_warmup.log"
  ok $? "T4 switch: kernels compiled for sm_75, sm_90 paths off"
  n=$(awk -F'\t' 'NR > 1 && $6 !~ /emulated T4 path on .*: timings are that GPU.s/' "$rows" | wc -l)
  [ "$n" = 0 ]; ok $? "T4 switch: every row's note says it is the emulated T4 path ($n do not)"
fi

if [ "$skip" = 0 ]; then echo "days_07_09: $pass passed, $fail failed"
else echo "days_07_09: $pass passed, $fail failed, $skip skipped"; fi
[ "$fail" = 0 ]
