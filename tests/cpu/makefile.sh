#!/bin/bash
# The Makefile's own behaviour, from make's dry runs (make -n) and cheap real targets, never
# `make test` itself (this runs inside it):
#   - CC: gcc unless the user names one (make CC=..., or CC in the environment).
cd "$(dirname "$0")/../.."
unset MAKEFLAGS MFLAGS MAKELEVEL   # the make test that runs this: its variables and jobserver stay there
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; cat $tmp/out 2>/dev/null | head -20; fi; }
# the last line make -n prints for a target: its own recipe (what precedes it builds its inputs)
recipe() { make -n --no-print-directory "$@" 2>&1 | tail -1 > $tmp/out; }

# CC: make's built-in default (cc) must not hide the kit's (gcc); a user's choice wins
env -u CC make -n --no-print-directory -W tools/tokenize.c bin/tokenize > $tmp/out 2>&1
ok "CC: gcc by default" "tail -1 $tmp/out | grep -q '^gcc .*tools/tokenize.c'"
recipe -W tools/tokenize.c bin/tokenize CC=clang
ok "CC: make CC=clang wins" "grep -q '^clang .*tools/tokenize.c' $tmp/out"
CC=clang make -n --no-print-directory -W tools/tokenize.c bin/tokenize > $tmp/out 2>&1
ok "CC: CC=clang in the environment wins" "tail -1 $tmp/out | grep -q '^clang .*tools/tokenize.c'"

echo "makefile: $pass passed, $fail failed"
[ $fail = 0 ]
