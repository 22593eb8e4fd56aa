#!/bin/bash
# args_cli: every program's command line under common/args.c's rules, with no GPU: --help is the
# usage on stdout and exit 0; an unknown flag, a flag with no value, a malformed or out-of-range
# number and a wrong count of words are one "error:" sentence naming the program and the flag,
# exit 1, nothing on stdout. The GPU programs refuse in the parser, before they touch the GPU
# (a GPU message would be a second line), so this runs anywhere.
cd "$(dirname "$0")/../.."
BIN=${BIN:-bin}
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# refuses PROGRAM "SENTENCE" ARGS...: exit 1, stdout empty, stderr exactly "error: SENTENCE"
refuses() {
  local prog=$1 want=$2; shift 2
  [ -x "$BIN/$prog" ] || { fail=$((fail + 1)); echo "FAIL $BIN/$prog is not built (make $BIN/$prog)"; return; }
  timeout 20 "$BIN/$prog" "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$? why=""
  [ "$rc" = 1 ] || why="exit code $rc, want 1"
  [ -z "$why" ] && [ -s "$tmp/out" ] && why="stdout not empty: $(head -1 "$tmp/out")"
  [ -z "$why" ] && [ "$(cat "$tmp/err")" != "error: $want" ] && why="stderr is [$(head -3 "$tmp/err")], want [error: $want]"
  if [ -z "$why" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $prog $*: $why"; fi
}

programs="day07_warmup day08_timing day09_ttft_tpot day10_profiler day11_gaps day12_report bench tinyllama
          tokenize trace_stats check_answers median_rows forecast"
for p in $programs; do
  [ -x "$BIN/$p" ] || { fail=$((fail + 1)); echo "FAIL $BIN/$p is not built (make $BIN/$p)"; continue; }
  "$BIN/$p" --help >"$tmp/out" 2>"$tmp/err"; rc=$?
  if [ $rc = 0 ] && grep -qE "^usage: (bin/)?$p( |$)" "$tmp/out" && [ ! -s "$tmp/err" ]; then pass=$((pass + 1))
  else fail=$((fail + 1)); echo "FAIL $p --help: exit $rc, $(head -1 "$tmp/out") $(head -1 "$tmp/err")"; fi
  name=${p%%_*}; case $p in day*) ;; *) name=$p;; esac   # day09_ttft_tpot says "day09"
  refuses $p "$name: unknown option --bogus (see --help)" --bogus
done

# the days and the GPU tools: numbers, values, zero
d="the median microseconds the emulated dispatcher busy-waits before each launch; 0 = no dispatcher, the kit's bare C launches"
refuses bench "bench: --new 3x: give a whole number from 2 to 4096 (tokens to generate)" --new 3x
refuses bench "bench: --new 1: give a whole number from 2 to 4096 (tokens to generate)" --new 1
refuses bench "bench: --prompt -5: give a whole number from 1 to 1000000 (prompt tokens)" --prompt -5
refuses bench "bench: --runs 65: give a whole number from 1 to 64 (measured generates per configuration)" --runs 65
refuses bench "bench: --new needs a value (tokens to generate)" --runs 2 --new
refuses bench "bench: --runs 64 x (--new 100 - 1) = 6336 decode steps a configuration; give at most 4096" --runs 64 --new 100
refuses tinyllama "tinyllama: --new 16.0: give a whole number from 1 to 1000000000 (tokens to generate)" --new 16.0
refuses tinyllama "tinyllama: --seed -1: give a whole number from 0 to 1000000000 (the synthetic weights' seed)" --seed -1
refuses tinyllama "tinyllama: --batch 0x4: give a whole number from 1 to 1000000000 (GPU batch rows)" --batch 0x4
refuses tinyllama "tinyllama: --dispatch-us nan: give a number from 0 to 1000 ($d)" --dispatch-us nan
refuses tinyllama "tinyllama: --dispatch-us inf: give a number from 0 to 1000 ($d)" --dispatch-us inf
refuses tinyllama "tinyllama: --mode slow: give one of eager, fused, graph, graph_eager or persistent" --mode slow
refuses tinyllama "tinyllama: --quant needs a value (one of fp16, int8 or int8_unfused)" --cpu --quant
refuses day07_warmup "day07: --model needs a value (a folder with config.json and model.safetensors)" --model
refuses day07_warmup "day07: unexpected argument 'gemm': day07 takes only the flags --help lists" gemm
refuses day08_timing "day08: unexpected argument 'models': day08 takes only the flags --help lists" models
refuses day09_ttft_tpot "day09: --dispatch-us 40us: give a number from 0 to 1000 ($d)" --dispatch-us 40us
refuses day09_ttft_tpot "day09: --dispatch-us 1001: give a number from 0 to 1000 ($d)" --dispatch-us 1001
refuses day09_ttft_tpot "day09: --dispatch-us 0 would repeat the bare-C rows (tpot_ms_<mode>) day09 always measures; give the emulated dispatcher's cost, above 0" --dispatch-us 0
refuses day10_profiler "day10: --batch 3x: give a whole number from 1 to 256 (rows decoded together)" --batch 3x
refuses day10_profiler "day10: --batch 257: give a whole number from 1 to 256 (rows decoded together)" --batch 257
refuses day10_profiler "day10: --dispatch-us -1: give a number from 0 to 1000 ($d)" --dispatch-us -1
refuses day10_profiler "day10: --mode eagerly: give one of eager, fused, graph, graph_eager or persistent" --mode eagerly
refuses day11_gaps "day11: --dispatch-us 1e9: give a number from 0 to 1000 ($d)" --dispatch-us 1e9
# --dispatch-from: the trace is read right after parsing, before the GPU: a missing file, a trace
# whose steps hold too few launch calls to make a distribution
nofile="/nonexistent/trace.json: no such file, or not a regular file (give a trace from torch.profiler's export_chrome_trace, or the kit's results/trace_*.json)"
for p in day09_ttft_tpot day10_profiler day11_gaps tinyllama; do
  name=${p%%_*}; [ $p = tinyllama ] && name=tinyllama
  refuses $p "$name: --dispatch-from $nofile" --dispatch-from /nonexistent/trace.json
done
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"correlation": 1}}]}' >"$tmp/one.json"
refuses tinyllama "tinyllama: --dispatch-from $tmp/one.json: 0 intervals between launch calls (cuda_runtime/cuda_driver cudaLaunchKernel*, cuLaunchKernel*) inside the profiled steps, too few for a distribution (at least 10; a decode step has hundreds): profile whole decode steps with their CPU side (ProfilerActivity.CPU and CUDA)" --dispatch-from "$tmp/one.json" --dispatch-us 3
for z in 0 0.5; do
  refuses day11_gaps "day11: --dispatch-us $z would repeat the bare-C rows (<mode>_b<batch>_d0) day11 always measures (rows name the cost in whole microseconds); give the emulated dispatcher's cost, above 0.5" --dispatch-us $z
done

# the host tools: values and words
refuses tokenize "tokenize: --tokenizer needs a value (a tokenizer.json)" --tokenizer
refuses trace_stats "trace_stats: no trace given (usage: bin/trace_stats [--rows] [--tpot-ms MS] [--label TEXT] FILE.json[.gz])" --rows
t="the decode step in ms, timed without the profiler: tools/torch_decode.py prints it as tpot_ms="
for x in 0 -20 nan inf 20ms 1e9; do
  refuses trace_stats "trace_stats: --tpot-ms $x: give a number from 0.001 to 60000 ($t)" --tpot-ms $x a.json
done
refuses trace_stats "trace_stats: --label has 121 characters: give 1 to 120 (it goes into each row's note)" \
  --label "$(printf 'x%.0s' $(seq 121))" a.json
refuses trace_stats "trace_stats: --label has 0 characters: give 1 to 120 (it goes into each row's note)" --label "" a.json
refuses trace_stats "trace_stats: one trace at a time: a.json and b.json" a.json b.json
refuses check_answers "check_answers: claims.tsv and rows.tsv wanted, 1 given (usage: bin/check_answers answers/claims.tsv results/rows.tsv [--mine FILE | --wrong | --forecast GPU])" claims.tsv
refuses check_answers "check_answers: --mine needs a value (a file of your numbers, one a line)" claims.tsv rows.tsv --mine
refuses check_answers "check_answers: --forecast needs a value (the GPU whose forecast rows to read: t4 for forecast_t4_<key>)" claims.tsv rows.tsv --forecast
refuses median_rows "median_rows: no OUT.tsv and 1 to 16 RUN.tsv given (usage: bin/median_rows OUT.tsv RUN1.tsv [RUN2.tsv ...])"
refuses median_rows "median_rows: OUT.tsv and 1 to 16 RUN.tsv wanted, 18 given (usage: bin/median_rows OUT.tsv RUN1.tsv [RUN2.tsv ...])" $(seq 1 18)
refuses day12_report "day12: unexpected argument 'results': day12 takes only the flags --help lists" results

echo "args_cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
