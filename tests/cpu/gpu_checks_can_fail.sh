#!/bin/bash
# The GPU day test tests/gpu/days_07_09.sh can fail. It runs here, without a GPU, against fake
# day programs: each writes its day's rows of a reference run (answers/reference/runs/*.tsv,
# made on a real GPU) into KIT_RESULTS/rows.tsv and prints the lines the test reads: the GPU in
# one line, a few answers, progress on stderr (and day09 its chart). On the rows as measured the test must pass; with one thing broken (a value
# past its floor or its bound, a row gone, every day exiting 1, an error line, the GPU line in
# the old form or missing, more than 40 lines, no chart) it must report that check as FAIL.
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $2"; fi; }

# The fake day programs. FAKE_ROWS: the reference rows; FAKE_SET "day key column value": one
# cell changed (column 3 theory, 4 measured; value "gone" drops the row); FAKE_RC: the exit
# code of every run; FAKE_LOG: one more line a day prints; FAKE_GPU: the GPU line day07 and
# day08 print instead of theirs; FAKE_LINES: that many more lines.
mkdir -p "$tmp/bin"
for b in day07_warmup day08_timing day09_ttft_tpot; do
  cat > "$tmp/bin/$b" <<EOF
#!/bin/bash
day=${b%%_*}
case "\$1" in
  --help) echo "usage: $b [--model DIR]"; exit 0 ;;
  "") ;;
  *) echo "error: \$day: unknown option \$1 (see --help)" >&2; exit 1 ;;
esac
rows=\$KIT_RESULTS/rows.tsv
[ -f "\$rows" ] || head -1 "\$FAKE_ROWS" > "\$rows"
set -- \$FAKE_SET
awk -F'\t' -v OFS='\t' -v d="\$day" -v sd="\$1" -v sk="\$2" -v sc="\$3" -v sv="\$4" '
  FNR == 1 { file++ }
  file == 1 && \$1 != d { print; next }                 # the other days stay
  file == 2 && \$1 == d {
    if (\$1 == sd && \$2 == sk) { if (sv == "gone") next; \$sc = sv }
    print }' "\$rows" "\$FAKE_ROWS" > "\$rows.new" && mv "\$rows.new" "\$rows"
gpu='gpu_name="NVIDIA H200" cc=9.0 code_arch=sm_90 bw_gbs=4800 cuda_driver=13.0 cuda_runtime=13.0 (--verbose: every fact)'
echo "\${FAKE_GPU-\$gpu}"
[ \$day = day09 ] && [ -z "\$FAKE_NOPNG" ] && echo "a PNG" > "\$KIT_RESULTS/gemv_curve.png"
echo "[1/1] \$day (0 s)" >&2
awk -F'\t' -v d="\$day" '\$1 == d { print \$2 "=" \$4 " unit=" \$5 " theory=" \$3; if (++n == 12) exit }' "\$FAKE_ROWS"
[ -n "\$FAKE_LINES" ] && seq "\$FAKE_LINES"
if [ \$day = day09 ] && ! grep -q "^day09	tpot_ms_persistent	" "\$FAKE_ROWS"; then
  echo "persistent: not run: \$(awk -F'\t' '\$2 == "persistent_not_run" { print \$6 }' "\$FAKE_ROWS")"
fi
[ -n "\$FAKE_LOG" ] && echo "\$FAKE_LOG"
exit \${FAKE_RC:-0}
EOF
  chmod +x "$tmp/bin/$b"
done

# run [ENV=...]: days_07_09.sh on the fake days; its output in $tmp/out
run() { env BIN="$tmp/bin" KIT_GPU= "$@" tests/gpu/days_07_09.sh > "$tmp/out" 2>&1; }
cell() { awk -F'\t' -v d="$1" -v k="$2" -v c="$3" '$1 == d && $2 == k { print $c }' "$ref"; }
times() { awk -v a="$1" -v f="$2" 'BEGIN { printf "%.6g", a * f }'; }

runs=$(ls answers/reference/runs/rows_*.tsv 2>/dev/null)
[ -n "$runs" ]; ok $? "answers/reference/runs holds reference runs"
for ref in $runs; do
  name=$(basename "$ref")
  run FAKE_ROWS="$ref"
  grep -qE '^days_07_09: [0-9]+ passed, 0 failed' "$tmp/out"; ok $? "$name as measured: $(tail -1 "$tmp/out"); $(grep -m3 '^FAIL' "$tmp/out" | tr '\n' ';')"
done
ref=$(echo "$runs" | head -1)

# broken RE ENV...: with one thing broken the test fails, and the FAIL line matches RE
broken() {
  local re=$1; shift
  run FAKE_ROWS="$ref" "$@"
  grep -qE '^days_07_09: [0-9]+ passed, [1-9][0-9]* failed' "$tmp/out" && grep -qE "^FAIL .*$re" "$tmp/out"
  ok $? "broken ($*): a FAIL matching '$re' ($(tail -1 "$tmp/out"))"
}
broken "exits 0" FAKE_RC=1
broken "prints no measurement error" FAKE_LOG="error: tpot_ms 0.1 ms is below its floor"
broken "day07_warmup prints the GPU in one line" FAKE_GPU="gpu_name=NVIDIA H200"
broken "day08_timing prints the GPU in one line" FAKE_GPU=""
broken "day07_warmup prints at most 40 lines" FAKE_LINES=30
broken "day09 draws results/gemv_curve.png" FAKE_NOPNG=1
broken "no GEMV timed under its bytes' floor" FAKE_SET="day09 gemv_us_int8_tl_gate_up 4 $(times "$(cell day09 gemv_us_int8_tl_gate_up 3)" 0.5)"
broken "int8 pays more on Llama-2-7B's layer" FAKE_SET="day09 gemv_int8_speedup_7b_layer 4 $(cell day09 gemv_int8_speedup_tl_layer 4)"
for r in "day07 first_over_warm" "day08 matmul_synced_tflops" "day09 tpot_ms_graph" "day09 step_gb_int8"; do
  broken "row ${r#* }" FAKE_SET="$r 4 gone"
done
broken "first generate slower" FAKE_SET="day07 first_over_warm 4 0.9"
broken "first GEMM of a shape slower" FAKE_SET="day07 first_gemm_ms 4 $(cell day07 second_gemm_ms 4)"
broken "device memory after load" FAKE_SET="day07 weight_gb 4 $(times "$(cell day07 weight_gb 3)" 0.5)"
broken "device memory after load" FAKE_SET="day07 weight_gb 4 $(times "$(cell day07 weight_gb 3)" 2)"
broken "unsynced matmul TFLOP/s above the peak" FAKE_SET="day08 matmul_nosync_tflops 4 1"
broken "synced matmul TFLOP/s below the peak" FAKE_SET="day08 matmul_synced_tflops 4 1e6"
broken "sync-after-only includes the queued prefill" FAKE_SET="day08 time_sync_after_graph_ms 4 0"
broken "cudaMemcpy waits for queued work" FAKE_SET="day08 implicit_sync_d2h_ms 4 1"
broken "bench without its first sync spreads more" FAKE_SET="day08 bench_range_pct_nosync 4 0"
for k in tpot_ms tpot_ms_events tpot_ms_eager tpot_ms_fused tpot_ms_graph tpot_ms_graph_d14 ttft_ms ttft_ms_bare \
         tpot_ms_int8_graph tpot_ms_int8_fused tpot_ms_int8_unfused_graph ttft_ms_int8; do
  broken "day09 $k .* not below its floor" FAKE_SET="day09 $k 4 $(times "$(cell day09 $k 3)" 0.1)"
done
broken "dispatcher makes the eager step longer" FAKE_SET="day09 tpot_ms 4 $(times "$(cell day09 tpot_ms_eager 4)" 0.9)"
broken "graph TPOT < eager TPOT" FAKE_SET="day09 tpot_ms_graph 4 $(times "$(cell day09 tpot_ms_eager 4)" 1.1)"
broken "int8 floor .* about half" FAKE_SET="day09 tpot_ms_int8_graph 3 $(cell day09 tpot_ms_graph 3)"
broken "fused int8 step moves half" FAKE_SET="day09 step_gb_int8 4 $(cell day09 step_gb 4)"
broken "unfused int8 step moves more" FAKE_SET="day09 step_gb_int8_unfused 4 $(times "$(cell day09 step_gb 4)" 0.5)"
broken "unfused int8 graph TPOT > fp16" FAKE_SET="day09 tpot_ms_int8_unfused_graph 4 $(cell day09 tpot_ms_graph 4)"
broken "total/8 overstates TPOT" FAKE_SET="day09 total_over_n_ms_8_long 4 $(cell day09 total_over_n_ms_8_long 3)"
broken "prefill .* not above its roofline" FAKE_SET="day09 prefill_tflops_200 4 $(times "$(cell day09 prefill_tflops_200 3)" 2)"
if [ -n "$(cell day09 tpot_ms_persistent 4)" ]; then
  broken "tpot_ms_persistent .* not below its floor" FAKE_SET="day09 tpot_ms_persistent 4 $(times "$(cell day09 tpot_ms_persistent 3)" 0.1)"
  broken "persistent runs one kernel a step" FAKE_SET="day09 kernels_persistent 4 2"
fi

echo "gpu_checks_can_fail: $pass passed, $fail failed"
[ "$fail" = 0 ]
