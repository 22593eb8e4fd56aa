#!/bin/bash
# day12's report on seven rows files: every row (tests/data/rows_full.tsv), some days
# missing, none, rows measured inf, persistent mode refused by day09 (its reason in
# persistent_not_run), and every row with your PyTorch run's, with and without its untraced TPOT. The program must exit 0; the table must be there,
# say "not run (make dayNN)" exactly where a row is missing, "invalid (inf)" where a row is
# not a finite number (never banded), and never hold a blank, "nan" or "inf" cell; every
# image it links must sit beside it under a relative name.
cd "$(dirname "$0")/../.."
bin=bin/day12_report
full=tests/data/rows_full.tsv
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }

# The table's lines, and the "measured" column (the 5th field between pipes).
table() { sed -n '/^| item |/,/^$/p' "$1/REPORT.md" | tail -n +3 | grep '^|'; }
measured() { table "$1" | awk -F' [|] ' '{print $4}'; }
# Each item's key and day, from the program's own list (day12_report/report.c).
# (a key with %.0f takes the dispatcher's median, 14 us unless rows.tsv says otherwise)
items() { grep -oE '^    \{"[^"]+", "day[0-9]+", "[a-z0-9_%.]+"' day12_report/report.c |
          sed -E 's/.*"(day[0-9]+)", "([a-z0-9_%.]+)"/\1 \2/; s/%\.0f/14/'; }

run() {   # run DIR: the report for DIR/rows.tsv; its exit code in DIR/rc
  KIT_RESULTS=$1 $bin >"$1/out.txt" 2>&1
  echo $? >"$1/rc"
}
common_checks() {   # common_checks DIR NAME
  local d=$1 n=$2
  ok "$n: exits 0" "[ \"\$(cat $d/rc)\" = 0 ]"
  ok "$n: writes REPORT.md" "[ -s $d/REPORT.md ]"
  ok "$n: has the table header" "grep -q '^| item | theory for this GPU | the lesson' $d/REPORT.md"
  ok "$n: one table line per item ($(items | wc -l))" "[ $(table $d | wc -l) = $(items | wc -l) ]"
  ok "$n: no nan/inf anywhere but in 'invalid (inf)'" "! sed -E 's/invalid \\(-?inf\\)//g' $d/REPORT.md | grep -qiwE 'nan|-?inf'"
  ok "$n: no blank cell in the table" "! table $d | grep -qE '\\|  *\\|'"
  ok "$n: no blank measured cell" "! measured $d | grep -qE '^ *$'"
  ok "$n: the experiment log is there" "grep -q '^## The profiling loop' $d/REPORT.md"
  local missing_links=0
  for f in $(grep -oE '!\[[^]]*\]\([^)]+\)' $d/REPORT.md | sed -E 's/.*\(([^)]+)\)/\1/'); do
    case "$f" in /*|*/*) missing_links=$((missing_links + 1)); echo "  not relative: $f";; esac
    [ -f "$d/$f" ] || { missing_links=$((missing_links + 1)); echo "  linked but missing: $f"; }
  done
  ok "$n: every linked image is a file beside REPORT.md" "[ $missing_links = 0 ]"
  # "not run (make dayNN)" exactly on the items whose row is missing, naming its day
  local wrong=0 i=0
  while read -r day key; do
    i=$((i + 1))
    line=$(table $d | sed -n "${i}p")
    if awk -F'\t' -v k="$key" '$2 == k && $4 != "-" {f = 1} END {exit !f}' "$d/rows.tsv" 2>/dev/null; then
      echo "$line" | grep -q 'not run' && { wrong=$((wrong + 1)); echo "  $key is in the rows but says not run"; }
    else
      echo "$line" | grep -q "not run (make $day)" || { wrong=$((wrong + 1)); echo "  $key is missing but its line is: $line"; }
    fi
  done < <(items)
  ok "$n: 'not run (make dayNN)' exactly where rows are missing" "[ $wrong = 0 ]"
}

# 1. every row
mkdir -p $tmp/full && cp $full $tmp/full/rows.tsv
printf '1.5\n2.5\n30\n' > $tmp/full/gaps_eager_b1_d0.tsv
run $tmp/full
common_checks $tmp/full full
ok "full: no 'not run' in the table" "! table $tmp/full | grep -q 'not run'"
for png in tpot_modes busy gaps sweep_tpot sweep_busy parts; do
  ok "full: $png.png written and linked" "[ -s $tmp/full/$png.png ] && grep -q '($png.png)' $tmp/full/REPORT.md"
done
ok "full: no timeline PNG -> says not run (make day11)" "grep -q 'decode-step timelines: not run (make day11)' $tmp/full/REPORT.md"
ok "full: the ratio is placed in the lesson's band" "grep -q \"ratio 44.7: in the lesson's > 6 band\" $tmp/full/REPORT.md"
ok "full: graph row says what graphs removed" "grep -q 'graph mode cuts the launches per step from 468 to 1; busy ratio 7.06% → 90.2%' $tmp/full/REPORT.md"
ok "full: says the weights are synthetic" "grep -q 'Weights: synthetic' $tmp/full/REPORT.md"
ok "full: the log gives the int8 floor (day09's theory)" "grep -q 'bandwidth: 0.242 ms = 4124 tok/s, against 16-bit.s 0.457 ms' $tmp/full/REPORT.md"
ok "full: step 3's prediction = graph - the fused GEMV path / 2 (0.887 - 0.769 / 2)" "grep -q '^| 3a | now memory-bound: read fewer bytes (predicted ≈ 0.502 ms' $tmp/full/REPORT.md"
ok "full: step 3a, unfused int8, measured, slower, with its bytes" "grep -q '^| 3a | .* | 1.94 ms | .* | TPOT +119%; more bytes, not fewer: a step moves 5.17 GB of weights against fp16.s 2.07' $tmp/full/REPORT.md"
ok "full: step 3b, fused int8, measured, faster, half the bytes, against the 16-bit floor" "grep -q '^| 3b | .* | 0.641 ms | .* | TPOT -27.7%; 1.04 GB a step, 0.501× fp16.s; 1.40× the 16-bit floor' $tmp/full/REPORT.md"
ok "full: the unfused row comes before the fused one" "[ \$(grep -n '^| 3a |' $tmp/full/REPORT.md | cut -d: -f1) -lt \$(grep -n '^| 3b |' $tmp/full/REPORT.md | cut -d: -f1) ]"
ok "full: the headline rows say they are the emulated HF eager regime" "[ \$(table $tmp/full | grep -c 'emulated HF eager') -ge 9 ]"
ok "full: a faster GPU (mistake #14): the eager step stays, the graph step follows, from day11's forecast rows" "grep -qE '^\*\*A faster GPU \(mistake #14\)\.\*\* day11.s timeline model .*The emulated HF eager step: [0-9.]+ ms measured, 24.6 ms on 2×, 24.6 ms on 10× .*The graph step: [0-9.]+ ms, 0.465 ms, 0.115 ms' $tmp/full/REPORT.md"
ok "full: beyond the week: persistent's TPOT and ratio beside graph's, and what it removed" "grep -q 'Beyond the week: one kernel per step.*TPOT 0.62 ms, 1.36× the floor, against graph.s 0.847 ms (-26.8%), bare C launches; with the dispatcher 0.662 ms against graph.s 0.887 ms.*kernels per step, each a boundary the next kernel waits at, 113 → 1; busy ratio, bare C, batch 1: 98.7% against graph.s 94.1% (day11)' $tmp/full/REPORT.md"
ok "full: the loop starts from the emulated HF eager step, one change a line" "grep -q '^| 1 | .* | CUDA graph of the same kernels' $tmp/full/REPORT.md && grep -q '^| 2 | .* | the kit.s fused kernels' $tmp/full/REPORT.md"

# 2. day10 and day11's busy rows missing, a timeline present
mkdir -p $tmp/some
grep -vE '^day10|busy_' $full > $tmp/some/rows.tsv
cp $tmp/full/parts.png $tmp/some/timeline_eager.png
run $tmp/some
common_checks $tmp/some some
ok "some: day10's six items say not run (make day10)" "[ $(table $tmp/some | grep -c 'not run (make day10)') = 6 ]"
ok "some: without day10 step 3 has no prediction, and still its measurements" "grep -q '^| 3a | now memory-bound: read fewer bytes | .* | 1.94 ms |' $tmp/some/REPORT.md"
ok "some: the parts chart says not run (make day10)" "grep -q 'GPU time by model part: not run (make day10)' $tmp/some/REPORT.md"
ok "some: the busy chart says not run (make day11)" "grep -q 'busy ratio per configuration: not run (make day11)' $tmp/some/REPORT.md"
ok "some: a present timeline is embedded" "grep -q '(timeline_eager.png)' $tmp/some/REPORT.md"
ok "some: the absent one says not run (make day11)" "grep -q 'timeline, graph: not run (make day11)' $tmp/some/REPORT.md"
ok "some: no parts.png drawn" "[ ! -e $tmp/some/parts.png ]"

# 3. no rows at all
mkdir -p $tmp/none
run $tmp/none
common_checks $tmp/none none
ok "none: every item says not run" "[ $(table $tmp/none | grep -c 'not run (make day') = $(items | wc -l) ]"
ok "none: every chart says not run" "[ $(grep -c '^\*[^*].*not run (make day' $tmp/none/REPORT.md) = 6 ]"
ok "none: no PNG drawn" "[ -z \"\$(ls $tmp/none/*.png 2>/dev/null)\" ]"
ok "none: the log says which day to run" "grep -q '^| 0 |.*not run (make day09).*not run (make day11)' $tmp/none/REPORT.md"
ok "none: the faster GPU says which day to run" "grep -q '^\*\*A faster GPU (mistake #14)\.\*\* Not run (make day11)' $tmp/none/REPORT.md"
ok "none: beyond the week says which day to run" "grep -q 'Beyond the week: one kernel per step.*TPOT not run (make day09)\.\$' $tmp/none/REPORT.md"
ok "none: no blank cell in the log" "! grep '^| [0-9] |' $tmp/none/REPORT.md | grep -qE '\\|  *\\|'"

# 4. rows that are not finite numbers: shown as invalid, never banded, never "nan"
mkdir -p $tmp/inf
sed -E -e 's/^(day09\tratio\t[^\t]*\t)[^\t]*/\1inf/' -e 's/^(day09\ttpot_ms_graph_eager_d14\t[^\t]*\t)[^\t]*/\1inf/' \
       -e 's/^(day11\tbusy_eager_b32_d14\t[^\t]*\t)[^\t]*/\1-inf/' -e 's/^(day09\tttft_ms\t)[^\t]*/\1inf/' \
       -e 's/^(day07\tgpu\t-\t)90/\11e300/' $full > $tmp/inf/rows.tsv
run $tmp/inf
common_checks $tmp/inf inf
ok "inf: the edits took" "[ \$(grep -cE '[[:space:]]-?inf[[:space:]]|1e300' $tmp/inf/rows.tsv) = 5 ]"
ok "inf: the ratio is invalid (inf), not placed in a band" "grep -q '^| Ratio = TPOT ÷ floor, emulated HF eager | .* | invalid (inf) | a measurement that is not a finite number: rerun make day09 |\$' $tmp/inf/REPORT.md"
ok "inf: no band for it" "! grep '^| Ratio' $tmp/inf/REPORT.md | grep -q band"
ok "inf: busy at batch 32 is invalid (-inf)" "grep -q '^| GPU busy ratio, batch 32, emulated HF eager | .* | invalid (-inf) |' $tmp/inf/REPORT.md"
ok "inf: an infinite theory is invalid too" "grep -q '^| TTFT (200-token prompt), emulated HF eager | invalid (inf) |' $tmp/inf/REPORT.md"
ok "inf: a compute capability of 1e300 is invalid, not cast" "grep -q 'invalid compute capability' $tmp/inf/REPORT.md"
ok "inf: the log's graph_eager step is invalid (inf)" "grep -q '^| 1 |.* | invalid (inf) |' $tmp/inf/REPORT.md"

# 5. persistent mode refused by day09 (its reason in persistent_not_run, no TPOT rows): the reason
mkdir -p $tmp/refused
grep -v persistent $full > $tmp/refused/rows.tsv
printf 'day09\tpersistent_not_run\t-\t-\t-\tpersistent mode needs an sm_90 GPU and kernels built for it; these kernels were built for an older GPU\n' >> $tmp/refused/rows.tsv
run $tmp/refused
common_checks $tmp/refused refused
ok "refused: no 'not run' in the table (persistent is not one of its items)" "! table $tmp/refused | grep -q 'not run'"
ok "refused: beyond the week gives day09's reason" "grep -q 'Beyond the week: one kernel per step.*Not run (day09): persistent mode needs an sm_90 GPU and kernels built for it; these kernels were built for an older GPU\$' $tmp/refused/REPORT.md"
ok "refused: items and not_run as without the row" "grep -q 'items=$(items | wc -l) not_run=0 ' $tmp/refused/out.txt"

# 7. your PyTorch run (day "trace" rows, as tools/torch_decode.py writes them through
# bin/trace_stats --rows): with the untraced TPOT, the section fills the TPOT, busy and tracer
# lines beside the kit's and says which versions made the run; without it (no --tpot-ms: "-"
# with the reason), those lines say not measured and what to run; with no trace rows at all,
# the section says not run. Made by hand here; tests/cpu/trace_stats.sh does it from a real trace.
trace_rows() {   # trace_rows TPOT: the rows of a run whose untraced TPOT is TPOT ms (- = not given)
  local n="torch 2.11, transformers 5.17, NVIDIA H200, random fp16 weights; hf_trace.json, median of 3 ProfilerSteps"
  local why="not measured: no --tpot-ms: tools/torch_decode.py times the step without the profiler and passes it"
  printf 'trace\t%s\t-\t%s\t%s\t%s\n' trace_steps 3 count "$n" trace_kernels_per_step 925 count "$n" \
    trace_gpu_ms_per_step 2.2 ms "$n" trace_busy 8.9 % "$n" trace_tpot_ms_traced 25 ms "$n"
  if [ "$1" = - ]; then
    for k in tpot_ms_untraced:ms busy_untraced:% tracer_pct:% tracer_us_per_launch:us; do
      printf 'trace\ttrace_%s\t-\t-\t%s\t%s; %s\n' "${k%%:*}" "${k#*:}" "$n" "$why"; done
  else
    printf 'trace\t%s\t-\t%s\t%s\t%s\n' trace_tpot_ms_untraced "$1" ms "$n" trace_busy_untraced \
      "$(awk "BEGIN {print 100 * 2.2 / $1}")" % "$n" trace_tracer_pct "$(awk "BEGIN {print 100 * (25 / $1 - 1)}")" % "$n"
  fi
}
section() { sed -n '/^## Your PyTorch run/,/^## /p' "$1/REPORT.md"; }
mkdir -p $tmp/torch $tmp/torch_no_tpot
{ cat $full; trace_rows 20; } > $tmp/torch/rows.tsv
{ cat $full; trace_rows -; } > $tmp/torch_no_tpot/rows.tsv
run $tmp/torch; run $tmp/torch_no_tpot
common_checks $tmp/torch torch
ok "torch: the run's label, and the versions the kit's eager step mirrors" \
   "section $tmp/torch | grep -q '^Your run: torch 2.11, transformers 5.17, NVIDIA H200, random fp16 weights;' && section $tmp/torch | grep -q 'mirrors the decode step of transformers 5.17 with torch 2.11'"
ok "torch: the untraced TPOT beside the kit's (day11, d40)" "section $tmp/torch | grep -q '^| Decode step (TPOT), timed without a profiler | 21.5 ms | 20 ms | 0.929× the kit.s |'"
ok "torch: the busy ratio of the step as it runs, 2.2 / 20 ms" "section $tmp/torch | grep -q '^| GPU busy ratio of the step as it runs (kernel time ÷ untraced TPOT) | 7.06% | 11% | +3.94 points; kernel time 2.20 ms a step, 1.45× the kit.s, over a step 0.929× the kit.s: the kernel time sets the difference |'"
ok "torch: the tracer's cost, 25 / 20 ms - 1" "section $tmp/torch | grep -q '^| The profiler.s cost (traced step ÷ untraced − 1) | 29.5% | 25% | -4.50 points |'"
ok "torch: a line with a row on one side only: — for the difference" "section $tmp/torch | grep -q '^| Launch calls per step | 468 | — | — |'"
ok "torch: no blank or nan cell, four columns" "! section $tmp/torch | grep -qE '\\|  *\\||\\bnan\\b' && [ \$(section $tmp/torch | grep -c '^| .* | .* | .* | .* |\$') -ge 20 ]"
ok "torch, no --tpot-ms: TPOT, busy and the tracer's cost say not measured and what to run" \
   "[ \$(section $tmp/torch_no_tpot | grep -c '| not measured (run tools/torch_decode.py) | — |\$') = 4 ]"
ok "torch, no --tpot-ms: the traced step is still there" "section $tmp/torch_no_tpot | grep -q '^| Decode step under the profiler | 5.14 ms | 25 ms |'"
mkdir -p $tmp/torch_inf
sed -E 's/^(trace\ttrace_tpot_ms_traced\t-\t)[^\t]*/\1inf/' $tmp/torch/rows.tsv > $tmp/torch_inf/rows.tsv
run $tmp/torch_inf
ok "torch, a row of the run measured inf: invalid (inf), no difference computed" \
   "section $tmp/torch_inf | grep -q '^| Decode step under the profiler | 5.14 ms | invalid (inf) | — |'"
ok "full (no trace rows): the section says not run and what to run" \
   "section $tmp/full | grep -q '^Not run: .python3 tools/torch_decode.py.' && ! section $tmp/full | grep -q '^| measure |'"

# 6. a results folder that is not there: one sentence, exit 1
KIT_RESULTS=$tmp/absent $bin >$tmp/absent.txt 2>&1; rc=$?
ok "absent folder: exit 1" "[ $rc = 1 ]"
ok "absent folder: one sentence naming the file" "[ \$(wc -l < $tmp/absent.txt) -le 2 ] && grep -q 'cannot write .*REPORT.md' $tmp/absent.txt"

echo "report: $pass passed, $fail failed"
[ $fail = 0 ]
