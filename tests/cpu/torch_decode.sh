#!/bin/bash
# tools/torch_decode.py without a GPU (and maybe without PyTorch): it compiles, --help is its
# usage, a bad command line is refused by argparse before torch is touched, and with no GPU in
# sight (CUDA_VISIBLE_DEVICES empty, so a GPU machine's make test runs nothing either) it is
# one "error:" line, exit 1: no torch, or torch seeing no GPU. Its measurements run on a GPU
# (README, "Your own PyTorch run"). No python3 here: skipped.
cd "$(dirname "$0")/../.."
script=tools/torch_decode.py
pass=0 fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ok() { if eval "$2"; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL: $1"; head -5 "$tmp/err" 2>/dev/null; fi; }
if ! command -v python3 >/dev/null; then
  echo "skipped: no python3 here"; echo "torch_decode: 0 passed, 0 failed, 1 skipped"; exit 0
fi
py() { CUDA_VISIBLE_DEVICES= timeout 120 python3 "$script" "$@" >"$tmp/out" 2>"$tmp/err"; }

ok "compiles (py_compile, into a scratch folder)" \
   "python3 -c 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' $script $tmp/c.pyc 2>$tmp/err"
py --help; rc=$?
ok "--help: exit 0, the usage names --random, --config, --steps and --trace" \
   "[ $rc = 0 ] && grep -q '^usage: torch_decode.py' $tmp/out && grep -q -- '--random' $tmp/out && grep -q -- '--config' $tmp/out && grep -q -- '--steps' $tmp/out && grep -q -- '--trace' $tmp/out"
ok "the header says what it measures: the untraced TPOT, the profiler's schedule, bin/trace_stats --tpot-ms" \
   "grep -q 'WITHOUT the' $script && grep -q 'schedule(wait=1, warmup=2, active=3)' $script && grep -q 'trace_stats --rows --tpot-ms' $script"
py --steps 19; rc=$?
ok "--steps 19: refused (the median of 20 or more)" "[ $rc = 2 ] && grep -q 'error: --steps 19: give 20 or more' $tmp/err"
py --config /no/such.json; rc=$?
ok "--config without --random: refused" "[ $rc = 2 ] && grep -q 'error: --config sets the shape of --random' $tmp/err"
py --random --config /no/such.json; rc=$?
ok "--config to no file: refused, naming it" "[ $rc = 2 ] && grep -q 'error: --config /no/such.json: no such file' $tmp/err"
py --random --steps 20 --trace $tmp/t.json; rc=$?
ok "no GPU in sight: exit 1, one error line, no trace ($(head -1 $tmp/err))" \
   "[ $rc = 1 ] && [ \$(grep -c . $tmp/err) = 1 ] && grep -qE '^error: (No module named|torch sees no CUDA GPU)' $tmp/err && [ ! -e $tmp/t.json ]"
ok "no __pycache__ left in tools/" "[ ! -e tools/__pycache__ ]"

echo "torch_decode: $pass passed, $fail failed"
[ "$fail" = 0 ]
