#!/bin/bash
# Every claim of answers/claims.tsv can fail. For each claim: it holds on a complete, plausible
# rows file (tests/data/rows_full.tsv), and some change to the rows it names breaks it: one
# named row's measured value (or its theory, where the claim reads theory(...)) scaled by
# 0.001, 1000, -1 or set to 0 must turn its ✓ into ✗. A claim no such change can break is
# true by construction and fails this test.
cd "$(dirname "$0")/../.."
bin=${BIN:-bin}/check_answers
full=tests/data/rows_full.tsv
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { if [ "$1" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $2"; fi; }

# verdict CLAIM_FILE ROWS -> the first mark check_answers prints for the claim (✓, ✗ or -)
verdict() { $bin "$1" "$2" 2>/dev/null | grep -m1 -oE '^(✓|✗|-)'; }

n=0
while IFS=$'\t' read -r q expr sentence; do
  case "$q" in ''|'#'*|question) continue;; esac
  n=$((n + 1))
  printf 'question\tclaim\tsentence\n%s\t%s\t%s\n' "$q" "$expr" "$sentence" > "$tmp/one.tsv"
  [ "$(verdict "$tmp/one.tsv" "$full")" = "✓" ]; ok $? "claim $n ($q) holds on $full: $expr"
  broken=""
  for ref in $(echo "$expr" | grep -oE 'day[0-9]+\.[A-Za-z0-9_]+' | sort -u); do
    day=${ref%%.*} key=${ref#*.}
    cols=4; echo "$expr" | grep -q "theory($ref)" && cols="4 3"
    for col in $cols; do
      for f in 0.001 1000 -1 0; do
        awk -F'\t' -v OFS='\t' -v d="$day" -v k="$key" -v c="$col" -v f="$f" \
          '$1 == d && $2 == k && $c != "-" { $c = $c * f } { print }' "$full" > "$tmp/rows.tsv"
        if [ "$(verdict "$tmp/one.tsv" "$tmp/rows.tsv")" = "✗" ]; then broken="$ref col $col x $f"; break 3; fi
      done
    done
  done
  [ -n "$broken" ]; ok $? "claim $n ($q) can fail (no change to its rows broke it): $expr"
done < answers/claims.tsv
[ "$n" -gt 20 ]; ok $? "answers/claims.tsv holds the claims ($n)"
echo "claims_can_fail: $pass passed, $fail failed"
[ "$fail" = 0 ]
