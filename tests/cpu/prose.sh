#!/bin/bash
# bin/check_prose, the grammar on hand-made prose against a hand-made reference of two H200
# runs (tpot_ms 1.00 and 1.10 ms measured; floor_ms theory 0.46 only; a PyTorch row beside):
# a quote whose range holds both runs passes, one that leaves a run out fails, a missing row
# fails, a GPU with no run is reported (passes), a number with a unit and no source fails and
# the lesson's, a datasheet's and a published one pass; a .cu essay is its first comment only,
# a notebook its markdown cells;
# --fix rewrites a stale quote to the runs' range. Then the kit's own prose against
# answers/reference (make check-prose): every quote holds every reference run; and copies of
# it, one with a range moved off the runs, one with an unsourced number, fail.
cd "$(dirname "$0")/../.."
bin=${BIN:-bin}/check_prose
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if eval "$2"; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi; }
[ -x $bin ] || { echo "$bin is not built (make $bin)"; echo "prose: 0 passed, 1 failed"; exit 1; }

mkdir -p "$tmp/ref/runs" "$tmp/ref/pytorch"
for v in 1.00 1.10; do
  printf 'day\tkey\ttheory\tmeasured\tunit\tnote\nday07\tgpu\t-\t90\tcc\tNVIDIA H200, driver 13.0\n' >"$tmp/ref/runs/rows_$v.tsv"
  printf 'day09\ttpot_ms\t0.46\t%s\tms\t\nday11\tforecast_t4_tpot_ms\t9.6\t-\tms\t\n' $v >>"$tmp/ref/runs/rows_$v.tsv"
done
printf 'day\tkey\ttheory\tmeasured\tunit\tnote\ntrace\ttrace_tpot_ms\t-\t56.1\tms\t\n' >"$tmp/ref/pytorch/rows.tsv"
run() { printf '%s\n' "$1" >"$tmp/p.md"; $bin --ref "$tmp/ref" "$tmp/p.md" >"$tmp/out" 2>&1; }

run 'It takes `tpot_ms` 1.0–1.1 ms (H200), and `day09.tpot_ms` 0.95-1.14 ms (H200).'
ok "a range that holds both runs passes" '[ $? = 0 ] && grep -q "quotes=2 ok=2 failed=0" "$tmp/out"'
run 'It takes `tpot_ms` 1.02–1.1 ms (H200).'
ok "a range that leaves a run out fails, naming it" '[ $? = 1 ] && grep -q "p.md:1: .tpot_ms. 1.02–1.1 ms (H200): run 1.s value is 1, outside" "$tmp/out"'
run 'It takes `tpot_ms` 1.05 ms (H200).'
ok "a single value is its own range at its precision: 1.05 does not hold 1.00" '[ $? = 1 ]'
run 'It takes `tpot_ms` 1 ms (H200).'
ok "1 holds 1.00 and 1.10 at its precision (0.5 to 1.5)" '[ $? = 0 ]'
run 'It takes `tpot_msx` 1.0 ms (H200).'
ok "a row no run has fails" '[ $? = 1 ] && grep -q "no such row" "$tmp/out"'
run 'The floor is `tpot_ms`'"'"'s theory 0.46 ms (H200); the T4 `forecast_t4_tpot_ms` 9.6 ms (H200 runs), PyTorch `trace_tpot_ms` 56.1 ms (H200).'
ok "the theory column, a forecast's (no measured value) and the PyTorch run's rows" '[ $? = 0 ] && grep -q "quotes=3 ok=3" "$tmp/out"'
run 'Both: `tpot_ms` 1.0–1.1 ms and `tpot_ms` 1.1 ms (H200).'
ok "the GPU later in the sentence holds for the quotes before it (and 1.1 leaves 1.00 out)" '[ $? = 1 ] && grep -q "failed=1" "$tmp/out"'
run 'It takes `tpot_ms` 1.0–1.1 ms. On an A100 `tpot_ms` 0.7 ms (A100).'
ok "a quote with no GPU fails" '[ $? = 1 ] && grep -q "no GPU named" "$tmp/out"'
run 'It takes `tpot_ms` 1.0–1.1 ms (H200); an A100 took `tpot_ms` 0.7 ms (A100).'
ok "a GPU with no reference run is reported, not failed" '[ $? = 0 ] && grep -q "reported=1" "$tmp/out"'
run 'It takes `tpot_ms` 1.0–1.1 ms (H200), and the step takes 3.5 ms.'
ok "a number with a unit and no source fails" '[ $? = 1 ] && grep -q "\"3.5 ms\": a number with a unit" "$tmp/out"'
run 'It takes `tpot_ms` 1.0–1.1 ms (H200). The lesson: 15–30 ms a token; the datasheet says 320 GB/s; llama.cpp gets 71–87 tok/s (published).'
ok "the lesson's, a datasheet's and a published number pass" '[ $? = 0 ] && grep -q "unmarked=0" "$tmp/out"'
run 'It takes `tpot_ms` 1.0–1.1 ms (H200) on sm_75 and day07, with 3 steps of `--dispatch-us 14` and 4th v29.'
ok "names with digits, counts without a unit and code are not numbers to source" '[ $? = 0 ]'
printf 'day08\tevents_minus_wall_us\t-\t-8\tus\t\n' >>"$tmp/ref/runs/rows_1.00.tsv"
printf 'day08\tevents_minus_wall_us\t-\t-7.5\tus\t\n' >>"$tmp/ref/runs/rows_1.10.tsv"
run 'Events read `events_minus_wall_us` -8.8 to -7.1 us (H200) less than the wall clock.'
ok "a range of negative numbers, \"to\" between them, is one quote" '[ $? = 0 ] && grep -q "quotes=1 ok=1 failed=0 unmarked=0" "$tmp/out"'
run 'Nothing quoted here.'
ok "prose with no quote at all checked nothing: exit 1" '[ $? = 1 ]'
printf '/* day99: `tpot_ms` 1.0-1.1 ms (H200),\n * and over two lines `tpot_ms`\n * 1.00-1.10 ms (H200). */\nint x = 5; /* 7 ms */\n' >"$tmp/d.cu"
$bin --ref "$tmp/ref" "$tmp/d.cu" >"$tmp/out" 2>&1
ok "a .cu essay is its first comment, its stars and line breaks folded" '[ $? = 0 ] && grep -q "quotes=2 ok=2 failed=0 unmarked=0" "$tmp/out"'
printf '{"nbformat": 4, "cells": [{"cell_type": "code", "source": ["x = 3.5 # ms"]},
  {"cell_type": "markdown", "source": ["A step takes `tpot_ms` 1.0–1.1 ms (H200),\\n", "or `tpot_ms` 2 ms (H200)."]}]}' >"$tmp/n.ipynb"
$bin --ref "$tmp/ref" "$tmp/n.ipynb" >"$tmp/out" 2>&1
ok "a notebook's markdown cells are prose (its code cells are not), a failure names the cell" \
  '[ $? = 1 ] && grep -q "quotes=2 ok=1 failed=1 unmarked=0" "$tmp/out" && grep -q "n.ipynb:2: .tpot_ms. 2 ms" "$tmp/out"'
printf 'It takes `tpot_ms` 1.02–1.04 ms (H200) and `tpot_ms`'"'"'s theory 0.50 ms (H200).\n' >"$tmp/f.md"
$bin --fix --ref "$tmp/ref" "$tmp/f.md" >"$tmp/out" 2>&1
ok "--fix rewrites stale quotes to the runs' range at their precision" \
  'grep -q "fixed=2" "$tmp/out" && grep -q "^It takes .tpot_ms. 1.00–1.10 ms (H200) and .tpot_ms.'"'"'s theory 0.46 ms (H200).$" "$tmp/f.md"'
$bin --ref "$tmp/ref" "$tmp/f.md" >/dev/null 2>&1
ok "and the fixed file passes" '[ $? = 0 ]'

# the kit's own prose (make check-prose's files) against the reference runs
prose="README.md week2.ipynb answers/README.md answers/reference/README.md $(ls day*/*.cu) day12_report/report.c"
$bin $prose >"$tmp/out" 2>&1
ok "the kit's prose quotes every reference run within its ranges, and sources every other number: $(tail -1 "$tmp/out")" \
  '[ $? = 0 ]'
grep "^[a-zA-Z0-9_/.]*:[0-9]*:" "$tmp/out" | head -20
# and a copy of an essay with one range moved off the runs, or an unsourced number, fails
mkdir -p "$tmp/copy"
sed "0,/\(\`[a-z0-9_]*\` \)\([0-9.]*\)[–-]\([0-9.]*\) \([a-zµ%]*\) (H200)/s//\1999-1000 \4 (H200)/" \
  answers/reference/README.md >"$tmp/copy/README.md"
$bin "$tmp/copy/README.md" >"$tmp/out" 2>&1
ok "a copy of answers/reference/README.md with a range off the runs fails" '[ $? = 1 ] && grep -q "outside 999-1000" "$tmp/out"'
cp day09_ttft_tpot/ttft_tpot.cu "$tmp/copy/essay.cu"
sed -i '3s/$/ It takes 7.5 ms./' "$tmp/copy/essay.cu"
$bin "$tmp/copy/essay.cu" >"$tmp/out" 2>&1
ok "a copy of day09's essay with an unsourced number fails" '[ $? = 1 ] && grep -q "\"7.5 ms\": a number with a unit" "$tmp/out"'

echo "prose: $pass passed, $fail failed"
[ "$fail" = 0 ]
