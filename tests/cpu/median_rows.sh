#!/bin/bash
# bin/median_rows (make reference's medians over three runs): each row is the median run's
# whole row, its theory and note beside its own value; the lower middle run for an even
# count; a row some runs lack says in how many it was measured. What it writes, its own
# reader takes back: inf stays inf (never -nan), a long note is cut to fit with its
# "(median of ...)" kept. Runs that disagree on a unit, or a run holding a key twice, are
# refused with one sentence naming the key and the file.
cd "$(dirname "$0")/../.."
bin=bin/median_rows
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; cat $tmp/out 2>/dev/null | head -20; fi; }
[ -x $bin ] || { echo "$bin is not built (make $bin)"; echo "median_rows: 0 passed, 1 failed"; exit 1; }
T=$'\t'
run() {   # run NAME ROWS...: a rows.tsv of the given lines (day key theory measured unit note, | for tab)
  local f=$tmp/$1.tsv; shift
  printf 'day\tkey\ttheory\tmeasured\tunit\tnote\n' > $f
  for l in "$@"; do printf '%s\n' "$l" | tr '|' '\t' >> $f; done
}
med() { $bin "$@" >$tmp/out 2>&1; rc=$?; }
row() { grep "^$1$T$2$T" $tmp/med.tsv | tr '\t' '|'; }   # row DAY KEY: the output's line, | for tab

run r1 'day09|tpot|10|10|ms|+0% over theory' 'day09|both|-|5|ms|' 'day10|only1|-|7|x|one' 'day10|none|2|-|ms|no value'
run r2 'day09|tpot|10.1|10.76|ms|+7.6% over theory' 'day09|both|-|1|ms|' 'day10|none|2|-|ms|no value'
run r3 'day09|tpot|10|11|ms|+10% over theory' 'day09|both|-|inf|ms|' 'day10|none|2|-|ms|no value'
med $tmp/med.tsv $tmp/r1.tsv $tmp/r2.tsv $tmp/r3.tsv
ok "three runs: exit 0, every row written" "[ \$rc = 0 ] && grep -q '^median_rows: 4 rows, medians over 3 runs' $tmp/out"
ok "the median run's row whole: its theory and note beside its value" "[ \"\$(row day09 tpot)\" = 'day09|tpot|10.1|10.76|ms|+7.6% over theory' ]"
ok "inf is a value like another (median of 5, 1, inf is 5)" "[ \"\$(row day09 both)\" = 'day09|both|-|5|ms|' ]"
ok "a row of one run of three says so" "[ \"\$(row day10 only1)\" = 'day10|only1|-|7|x|one (median of 1 of 3 runs)' ]"
ok "a row no run measured stays unmeasured" "[ \"\$(row day10 none)\" = 'day10|none|2|-|ms|no value' ]"
med $tmp/med2.tsv $tmp/med.tsv
ok "the output reads back" "[ \$rc = 0 ]"

run e1 'day09|tpot|10|12|ms|+20%' && run e2 'day09|tpot|11|11|ms|+0%'
med $tmp/med.tsv $tmp/e1.tsv $tmp/e2.tsv
ok "two runs: the lower middle run's row, not an average no run measured" "[ \$rc = 0 ] && [ \"\$(row day09 tpot)\" = 'day09|tpot|11|11|ms|+0%' ]"

run i1 'day09|x|-|inf|ms|' 'day09|y|-|-inf|ms|'
med $tmp/med.tsv $tmp/i1.tsv $tmp/i1.tsv $tmp/i1.tsv
ok "every run inf: inf, not nan" "[ \$rc = 0 ] && [ \"\$(row day09 x)\" = 'day09|x|-|inf|ms|' ] && [ \"\$(row day09 y)\" = 'day09|y|-|-inf|ms|' ]"
med $tmp/med2.tsv $tmp/med.tsv
ok "every run inf: the output reads back" "[ \$rc = 0 ]"

long=$(printf 'é%.0s' $(seq 127))   # 254 bytes of two-byte characters
run l1 "day09|x|-|1|ms|$long" && run l2 "day09|y|-|1|ms|"
med $tmp/med.tsv $tmp/l1.tsv $tmp/l1.tsv $tmp/l2.tsv
ok "a long note of a row some runs lack: exit 0, its '(median of ...)' kept" "[ \$rc = 0 ] && row day09 x | grep -q 'éé (median of 2 of 3 runs)\$'"
ok "a long note: cut to rows.tsv's 255 bytes, whole characters" "n=\$(row day09 x | cut -d'|' -f6); [ \$(printf %s \"\$n\" | wc -c) -le 255 ] && printf %s \"\$n\" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1"
med $tmp/med2.tsv $tmp/med.tsv
ok "a long note: the output reads back" "[ \$rc = 0 ]"

run u1 'day09|tpot|-|10|ms|' && run u2 'day09|tpot|-|10000|us|'
med $tmp/med.tsv $tmp/u1.tsv $tmp/u1.tsv $tmp/u2.tsv
ok "runs in two units: exit 1, one sentence naming the key, the units and the files" "[ \$rc = 1 ] && [ \$(grep -c '^error: ' $tmp/out) = 1 ] && grep -q \"^error: day09.tpot is in 'ms' in .*u1.tsv but in 'us' in .*u2.tsv: a median needs one unit\" $tmp/out"
run d1 'day09|tpot|-|10|ms|' 'day09|tpot|-|11|ms|'
med $tmp/med.tsv $tmp/u1.tsv $tmp/d1.tsv
ok "a key twice in one run: exit 1 naming the file and the key" "[ \$rc = 1 ] && grep -q '^error: .*d1.tsv holds day09.tpot twice' $tmp/out"
med $tmp/med.tsv $tmp/none.tsv
ok "a run that is not there: exit 1 naming it" "[ \$rc = 1 ] && grep -q '^error: .*none.tsv: no rows' $tmp/out"
med $tmp/med.tsv
ok "no run at all: exit 1, one sentence with the usage" "[ \$rc = 1 ] && [ \$(grep -c '^error: ' $tmp/out) = 1 ] && grep -q '^error: median_rows: OUT.tsv and 1 to 16 RUN.tsv wanted, 1 given (usage: bin/median_rows OUT.tsv RUN1.tsv' $tmp/out"

echo "median_rows: $pass passed, $fail failed"
[ $fail = 0 ]
