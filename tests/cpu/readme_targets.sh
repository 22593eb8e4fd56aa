#!/bin/bash
# Every `make X` that README.md and answers/README.md tell a reader to type names a target
# the Makefile has. Commands are taken from code (``` blocks and `spans`); the targets
# from make's own database (make -pRrq), so pattern rules like $(DAYS) count.
cd "$(dirname "$0")/../.."
pass=0; fail=0
targets=$(make -pRrq 2>/dev/null | grep -E '^[A-Za-z0-9_.-]+:' | cut -d: -f1 | sort -u)
[ -n "$targets" ] || { echo "readme_targets: make -pRrq listed no targets"; echo "readme_targets: 0 passed, 1 failed"; exit 1; }

code() {   # the code in a markdown file: fenced blocks whole, inline spans one a line
  awk '/^```/ {inside = !inside; next} inside' "$1"
  awk '!/^```/' "$1" | grep -oE '`[^`]+`' | tr -d '`'
}
for doc in README.md answers/README.md; do
  [ -f "$doc" ] || { fail=$((fail + 1)); echo "FAIL: $doc is missing"; continue; }
  n=0
  # "make a b VAR=1 -j4 ; ..." -> a, b: the words after make up to a separator, no VAR= or -flags
  for t in $(code "$doc" | grep -oE '(^|[^A-Za-z0-9_/.-])make( +[^ ;&|#)]+)*' |
             sed -E 's/^[^m]*make//' | tr ' ' '\n' | grep -vE '=|^-|^$'); do
    n=$((n + 1))
    if echo "$targets" | grep -qx -- "$t"; then pass=$((pass + 1))
    else fail=$((fail + 1)); echo "FAIL: $doc says 'make $t' but the Makefile has no target $t"; fi
  done
  [ $n -gt 0 ] || { fail=$((fail + 1)); echo "FAIL: $doc names no make target at all"; }
done
echo "readme_targets: $pass passed, $fail failed"
[ $fail = 0 ]
