#!/bin/bash
# bin/check_answers: ✓ / ✗ / not run on crafted rows, the grammar, exit codes, --mine,
# --wrong (each claim caught by its wrong measurement, or missed) and --forecast; and
# the shipped answers/claims.tsv against a complete rows file (every claim decidable and
# true on plausible numbers) and against none (every claim "not run": nothing checked, exit 1);
# likewise a --mine file that compared nothing (empty, comments only, misspelt keys) is exit 1.
# Nothing passes unchecked: a side that is not a finite number is ✗ with its reason, and an
# empty claims file, a folder or an over-long line is one error and exit 1.
cd "$(dirname "$0")/../.."
bin=bin/check_answers
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; cat $tmp/out 2>/dev/null | head -20; fi; }
check() { $bin "$@" >$tmp/out 2>&1; rc=$?; }

T=$'\t'
cat > $tmp/rows.tsv <<EOF
day${T}key${T}theory${T}measured${T}unit${T}note
day09${T}a${T}-${T}1${T}x${T}
day09${T}b${T}2${T}3${T}x${T}
day10${T}gemms_per_step${T}155${T}155${T}count${T}
day10${T}unmeasured${T}5${T}-${T}ms${T}
day11${T}a${T}-${T}100${T}x${T}
EOF
claims() { printf 'question\tclaim\tsentence\n'; for c in "$@"; do printf 'Q1\t%s\tsays so\n' "$c"; done; }

claims 'day09.a + day09.b * 2 == 7' '(day09.a + day09.b) * 2 == 8' 'day09.b - day09.a - 1 == 1' \
       'day09.b / day09.a / 3 == 1' '-day09.a < 0' 'theory(day09.b) == 2' 'day10.gemms_per_step == 155' \
       'day09.a < day09.b and day09.b <= 3 and day09.b >= 3 and day09.a != day09.b' \
       'day09.a == 1.0000001' 'day11.a > day09.a' > $tmp/true.tsv
check $tmp/true.tsv $tmp/rows.tsv
ok "true claims: exit 0" "[ $rc = 0 ]"
ok "true claims: ten ✓" "[ \$(grep -c '^✓' $tmp/out) = 10 ]"
ok "true claims: the count line" "grep -q '^claims=10 ok=10 failed=0 not_run=0' $tmp/out"
ok "the values used are printed" "grep -q 'day09.a=1  day09.b=3' $tmp/out"
ok "day.key picks the day (day11.a is not day09.a)" "grep -q 'day11.a=100  day09.a=1' $tmp/out"

claims 'day09.a > day09.b' 'day09.b == 3' > $tmp/false.tsv
check $tmp/false.tsv $tmp/rows.tsv
ok "a false claim: exit 1" "[ $rc = 1 ]"
ok "a false claim: ✗ with its values and its sentence" "grep -q '^✗ Q1  day09.a > day09.b' $tmp/out && grep -q 'claimed: says so' $tmp/out"
ok "a false claim: counted" "grep -q '^claims=2 ok=1 failed=1 not_run=0' $tmp/out"
ok "== is not 'close enough' beyond 6 digits" "claims 'day09.a == 1.001' > $tmp/eq.tsv; check $tmp/eq.tsv $tmp/rows.tsv; [ \$rc = 1 ]"

claims 'day11.busy_x > 1' 'theory(day09.a) > 0' 'day10.unmeasured > 0' 'day09.a < 2' > $tmp/missing.tsv
check $tmp/missing.tsv $tmp/rows.tsv
ok "not run is not a failure: exit 0" "[ $rc = 0 ]"
ok "a missing row: not run (make day11)" "grep -q '^- Q1  not run (make day11): day11.busy_x is not in the rows' $tmp/out"
ok "a missing theory: not run" "grep -q 'not run (make day09): day09.a has no theory value' $tmp/out"
ok "an unmeasured row: not run" "grep -q 'not run (make day10): day10.unmeasured was not measured' $tmp/out"
ok "not run is counted and explained" "grep -q '^claims=4 ok=1 failed=0 not_run=3  (not run is not a pass' $tmp/out"
claims 'day11.busy_x > 1' 'day09.a > 5' > $tmp/mixed.tsv
check $tmp/mixed.tsv $tmp/rows.tsv
ok "not run + ✗: exit 1" "[ $rc = 1 ]"

for bad in 'day09.a' 'day09.a > ' 'day09.a >> 1' 'day09 > 1' 'day09.a > 1 or day09.b > 1' 'theory day09.a > 1' '(day09.a > 1'; do
  claims "$bad" > $tmp/bad.tsv
  check $tmp/bad.tsv $tmp/rows.tsv
  ok "grammar error '$bad': exit 1 naming the line" "[ $rc = 1 ] && grep -q 'bad.tsv line 2: ' $tmp/out"
done
printf 'Q1\tday09.a > 0\n' > $tmp/twofields.tsv
check $tmp/twofields.tsv $tmp/rows.tsv
ok "a line without its sentence: exit 1" "[ $rc = 1 ] && grep -q 'twofields.tsv line 1 is not' $tmp/out"
check $tmp/nope.tsv $tmp/rows.tsv
ok "no claims file: exit 1, one sentence" "[ $rc = 1 ] && grep -q 'cannot read .*nope.tsv' $tmp/out"
check $tmp/true.tsv
ok "wrong arguments: usage" "[ $rc = 1 ] && grep -q 'usage:' $tmp/out"

# Not finite: a row measured inf (or -inf, or 1e999 in a claim, or a division by zero) equals
# nothing and bounds nothing, also where arithmetic would hide it (1 / inf = 0; found by fuzzing)
cat > $tmp/inf_rows.tsv <<EOF
day${T}key${T}theory${T}measured${T}unit${T}note
day09${T}x${T}-${T}inf${T}ms${T}
day09${T}y${T}-inf${T}-inf${T}ms${T}
day09${T}z${T}-${T}0${T}ms${T}
day09${T}one${T}-${T}1${T}ms${T}
EOF
for c in 'day09.x == 5' 'day09.x <= 0' 'day09.x > 1' 'day09.x != 3' 'day09.y < 0' 'theory(day09.y) == day09.y' \
         '-1e999 == 3' 'day09.one / day09.z > 1' 'day09.z / day09.z == 0' 'day09.one > 0 and day09.x >= 0' \
         '1 / day09.x != 2' '1 / (1 / day09.z) == 0' 'day09.x * 0 < 1' '1 / 1e999 == 0'; do
  claims "$c" > $tmp/inf.tsv
  check $tmp/inf.tsv $tmp/inf_rows.tsv
  ok "'$c' with a side that is not finite: ✗, exit 1" "[ $rc = 1 ] && grep -q '^✗ Q1' $tmp/out && grep -q '^claims=1 ok=0 failed=1' $tmp/out"
  ok "'$c': the reason is said" "grep -qE '^      invalid: .+ is -?(inf|nan), not a finite number' $tmp/out"
done
printf 'day\tkey\ttheory\tmeasured\tunit\tnote\nday09\tx\t-\tnan\tms\t\n' > $tmp/nan_rows.tsv
claims 'day09.x == 5' > $tmp/nan.tsv
check $tmp/nan.tsv $tmp/nan_rows.tsv
ok "a row measured nan: exit 1 naming the file and line" "[ $rc = 1 ] && grep -q '^error: .*nan_rows.tsv line 2 is not' $tmp/out"

# Nothing to check is not a pass
: > $tmp/empty.tsv
check $tmp/empty.tsv $tmp/rows.tsv
ok "an empty claims file: exit 1, one sentence" "[ $rc = 1 ] && [ \$(grep -c '^error: .*empty.tsv holds no claims' $tmp/out) = 1 ]"
printf '# only a comment\nquestion\tclaim\tsentence\n\n' > $tmp/comments.tsv
check $tmp/comments.tsv $tmp/rows.tsv
ok "a claims file of comments only: exit 1" "[ $rc = 1 ] && grep -q 'comments.tsv holds no claims' $tmp/out"
mkdir $tmp/dir
check $tmp/dir $tmp/rows.tsv
ok "a folder as the claims: exit 1 naming it" "[ $rc = 1 ] && grep -q \"^error: $tmp/dir is a folder, not a file\" $tmp/out"
check $tmp/true.tsv $tmp/dir
ok "a folder as the rows: exit 1 naming it" "[ $rc = 1 ] && grep -q \"^error: $tmp/dir is a folder, not a file\" $tmp/out"
check $tmp/true.tsv $tmp/rows.tsv --mine $tmp/dir
ok "a folder as --mine: exit 1 naming it" "[ $rc = 1 ] && grep -q \"^error: $tmp/dir is a folder, not a file\" $tmp/out"
mkfifo $tmp/fifo
timeout 10 $bin $tmp/fifo $tmp/rows.tsv >$tmp/out 2>&1; rc=$?
ok "a FIFO as the claims: exit 1 at once, naming it" "[ $rc = 1 ] && grep -q 'fifo is a FIFO (named pipe), not a file' $tmp/out"
claims 'day09.a > 0' 'day09.b > 1' > $tmp/long.tsv
printf 'Q2\tday09.a > 0\t%s\n' "$(head -c 2100 /dev/zero | tr '\0' x)" >> $tmp/long.tsv
check $tmp/long.tsv $tmp/rows.tsv
ok "a claims line over 2047 characters: exit 1 naming its line" "[ $rc = 1 ] && grep -q '^error: .*long.tsv line 4 is longer than 2047 characters' $tmp/out"
printf 'Q2\tday09.a > 0\t%s\n' "$(head -c 2032 /dev/zero | tr '\0' x)" > $tmp/long_ok.tsv
check $tmp/long_ok.tsv $tmp/rows.tsv
ok "a claims line of 2047 characters is read whole" "[ $rc = 0 ] && [ \$(head -1 $tmp/long_ok.tsv | tr -d '\n' | wc -c) = 2047 ]"
{ cat $tmp/rows.tsv; printf 'day09\tlong\t-\t1\tx\t%s\n' "$(head -c 2100 /dev/zero | tr '\0' x)"; } > $tmp/long_rows.tsv
check $tmp/true.tsv $tmp/long_rows.tsv
ok "a rows line over 2047 characters: exit 1 naming its line" "[ $rc = 1 ] && grep -q '^error: .*long_rows.tsv line 7 is longer than 2047 characters' $tmp/out"
printf 'day10.gemms_per_step = 155 %s\n' "$(head -c 600 /dev/zero | tr '\0' x)" > $tmp/mine_long.txt
check $tmp/true.tsv $tmp/rows.tsv --mine $tmp/mine_long.txt
ok "a --mine line over 511 characters: exit 1 naming it" "[ $rc = 1 ] && grep -q '^error: .*mine_long.txt line 1 is longer than 511 characters' $tmp/out"

# --mine: a student's numbers against the measured ones, 10% tolerance
cat > $tmp/mine.txt <<EOF
# my numbers
day10.gemms_per_step = 150      (close enough)
gemms_per_step: 155
day09.b = 3.5
day11.nothing = 2
EOF
check $tmp/true.tsv $tmp/rows.tsv --mine $tmp/mine.txt
ok "--mine: within 10% (day.key = n)" "grep -q '^✓ day10.gemms_per_step = 150, measured 155 count: within 10%' $tmp/out"
ok "--mine: key: n form" "grep -q '^✓ day10.gemms_per_step = 155' $tmp/out"
ok "--mine: outside 10%" "grep -q '^✗ day09.b = 3.5, measured 3 x: outside 10%' $tmp/out"
ok "--mine: missing row is not run" "grep -q '^- nothing = 2: not run' $tmp/out"
ok "--mine: the tolerance is said" "grep -q 'tolerance: within 10% of measured' $tmp/out"
ok "--mine: counts" "grep -q '^mine=4 within=2 outside=1 not_run=1' $tmp/out"
ok "--mine: an outside number -> exit 1" "[ $rc = 1 ]"
printf 'day10.gemms_per_step = 155\n' > $tmp/mine_ok.txt
check $tmp/true.tsv $tmp/rows.tsv --mine $tmp/mine_ok.txt
ok "--mine: all within -> exit 0" "[ $rc = 0 ]"
printf 'day09.x = 5\n' > $tmp/mine_inf.txt
check $tmp/true.tsv $tmp/inf_rows.tsv --mine $tmp/mine_inf.txt
ok "--mine against a row measured inf: ✗, exit 1" "[ $rc = 1 ] && grep -q '^✗ day09.x = 5, measured inf ms: not a finite number' $tmp/out"
printf 'day10.gemms_per_step = inf\n' > $tmp/mine_inf.txt
check $tmp/true.tsv $tmp/rows.tsv --mine $tmp/mine_inf.txt
ok "--mine: inf is not within 10%" "[ $rc = 1 ] && grep -q '^✗ day10.gemms_per_step = inf' $tmp/out"
printf 'a: 1\n' > $tmp/mine_amb.txt
check $tmp/true.tsv $tmp/rows.tsv --mine $tmp/mine_amb.txt
ok "--mine: a key two days have -> exit 1, asks for day.key" "[ $rc = 1 ] && grep -q 'write it as day.key' $tmp/out"
printf 'gemms per step is 155\n' > $tmp/mine_bad.txt
check $tmp/true.tsv $tmp/rows.tsv --mine $tmp/mine_bad.txt
ok "--mine: an unreadable line -> exit 1 naming it" "[ $rc = 1 ] && grep -q 'mine_bad.txt line 1 is not' $tmp/out"

# --mine that compared nothing has passed nothing, as for the claims: no number, or none whose
# row was measured (a misspelt key, a day not run) is exit 1 with a sentence
mine_rc() { check $tmp/true.tsv $tmp/rows.tsv --mine "$1"; }
: > $tmp/mine_empty.txt
mine_rc $tmp/mine_empty.txt
ok "--mine: an empty file -> exit 1, one sentence" "[ \$rc = 1 ] && [ \$(grep -c '^error: .*mine_empty.txt (--mine) holds no number' $tmp/out) = 1 ]"
printf '# my numbers\n\n   # later\n' > $tmp/mine_comments.txt
mine_rc $tmp/mine_comments.txt
ok "--mine: comments only -> exit 1" "[ \$rc = 1 ] && grep -q '^error: .*mine_comments.txt (--mine) holds no number' $tmp/out"
printf 'day10.gemms_per_stp = 155\ngems_per_step: 155\nday10.unmeasured = 5\n' > $tmp/mine_typo.txt
mine_rc $tmp/mine_typo.txt
ok "--mine: only misspelt or unmeasured keys -> exit 1, naming the count" "[ \$rc = 1 ] && grep -q '^error: no number of .*mine_typo.txt (--mine) could be compared (3 not run)' $tmp/out"
ok "--mine: a misspelt key is not run, with a hint" "grep -q '^- gemms_per_stp = 155: not run (.*rows.tsv has no row day10.gemms_per_stp: check its spelling' $tmp/out"
ok "--mine: an unmeasured row is not run, said so" "grep -q '^- unmeasured = 5: not run (day10.unmeasured was not measured)' $tmp/out"
printf 'gems_per_step: 155\nday10.gemms_per_step = 155\n' > $tmp/mine_some.txt
mine_rc $tmp/mine_some.txt
ok "--mine: a typo beside a compared number: shown as not run, exit 0" "[ \$rc = 0 ] && grep -q '^mine=2 within=1 outside=0 not_run=1' $tmp/out"
printf '\xef\xbb\xbfday10.gemms_per_step = 155\n' > $tmp/mine_bom.txt
mine_rc $tmp/mine_bom.txt
ok "--mine: a UTF-8 byte-order mark at the start is skipped" "[ \$rc = 0 ] && grep -q '^✓ day10.gemms_per_step = 155' $tmp/out"

# a row under its floor (report_floored marked it IMPOSSIBLE) fails the check, whatever the claims
{ cat $tmp/rows.tsv; printf 'day09\ttpot_ms_graph\t0.457\t0.192\tms\tIMPOSSIBLE: below its floor (0.457 ms); graph\n'; } > $tmp/imp.tsv
check $tmp/true.tsv $tmp/imp.tsv
ok "a time under its floor: exit 1, named, counted as failed" "[ \$rc = 1 ] && grep -q '^✗ day09.tpot_ms_graph = 0.192 ms: a measurement error' $tmp/out && grep -q '^claims=10 ok=10 failed=1 ' $tmp/out"

# --wrong: each claim that holds must fail under its wrong measurement (fields 4 and 5)
{ printf 'question\tclaim\tsentence\twrong\tmistake\n'
  printf 'Q1\tday09.a < day09.b\tholds\tday09.a = day09.b * 2\ta swapped\n'
  printf 'Q2\tday09.a > 0\tholds\tday09.a = day09.a * 2\tdoubled\n'
  printf 'Q3\tday09.b > 0\tholds\n'
  printf 'Q4\tday09.a > 5\tdoes not hold\tday09.a = 1\tnothing\n'
  printf 'Q5\tday09.a > 0\tholds\tday09.a = day09.zz\ta row not there\n'
  printf 'Q6 machine\tday09.b - theory(day09.b) == 1\ta bar\tday09.b = 2 * theory(day09.b)\tdoubled\n'; } > $tmp/wrong.tsv
check $tmp/wrong.tsv $tmp/rows.tsv
ok "five fields: the plain check reads the first three" "[ \$rc = 1 ] && grep -q '^✗ Q4  day09.a > 5' $tmp/out && grep -q 'claimed: does not hold\$' $tmp/out"
check $tmp/wrong.tsv $tmp/rows.tsv --wrong
ok "--wrong: a missed claim is exit 1, counted" "[ \$rc = 1 ] && grep -q '^wrong=6 caught=2 missed=3 not_checked=1\$' $tmp/out"
ok "--wrong: caught, with the mistake and the values" "grep -A4 '^✗ as it must be  Q1  day09.a < day09.b' $tmp/out | grep -q 'wrong measurement: a swapped' && grep -q '      wrong: day09.a=6  day09.b=3' $tmp/out"
ok "--wrong: a machine claim is checked too" "grep -q '^✗ as it must be  Q6 machine  ' $tmp/out"
ok "--wrong: a claim that still holds is missed" "grep -A5 '^MISSED Q2 ' $tmp/out | grep -q 'it still holds under them: the claim cannot tell that mistake from a right measurement'"
ok "--wrong: a claim with no wrong field is missed" "grep -A1 '^MISSED Q3 ' $tmp/out | grep -q 'no wrong measurement: every claim must name the mistake it catches'"
ok "--wrong: edits that cannot be applied are missed" "grep -A5 '^MISSED Q5 ' $tmp/out | grep -q 'its edits could not be applied (day09.zz is not in the rows)'"
ok "--wrong: a claim that does not hold is not checked" "grep -q '^- Q4  not checked: it does not hold on .*rows.tsv as given' $tmp/out"
{ printf 'question\tclaim\tsentence\n'; printf 'Q1\tday09.a < day09.b\tholds\tday09.a = day09.b * 2\ta swapped\n'; } > $tmp/caught.tsv
check $tmp/caught.tsv $tmp/rows.tsv --wrong
ok "--wrong: every claim caught is exit 0" "[ \$rc = 0 ] && grep -q '^wrong=1 caught=1 missed=0 not_checked=0' $tmp/out"
check $tmp/caught.tsv $tmp/absent.tsv --wrong
ok "--wrong: none checked is exit 1" "[ \$rc = 1 ] && grep -q '^error: no claim of .*caught.tsv could be checked under its wrong measurement' $tmp/out"
{ printf 'question\tclaim\tsentence\n'; printf 'Q1\tday09.a < day09.b\tholds\tday09.nope = 1\tx\n'; } > $tmp/edit_nope.tsv
check $tmp/edit_nope.tsv $tmp/rows.tsv --wrong
ok "--wrong: an edit of a row not there: exit 1 naming the line and the key" "[ \$rc = 1 ] && grep -q '^error: .*edit_nope.tsv line 2, wrong measurement: it sets day09.nope, which is not in the rows' $tmp/out"

# --forecast GPU: rows measured as their twins forecast_GPU_<key> of the same day forecast them
{ cat $tmp/rows.tsv
  printf 'day11\tforecast_t4_a\t300\t-\tx\t\n'
  printf 'day11\tforecast_t4_c_half_a\t1\t-\tx\tno row c_half_a: no twin\n'
  printf 'day09\tforecast_t4_unmeasured\t9\t-\tx\tday09 has no row unmeasured: no twin\n'
  printf 'day10\tforecast_t4_unmeasured\t9\t-\tx\t\n'; } > $tmp/forecast_rows.tsv
claims 'day11.a > 200' 'day10.unmeasured > theory(day10.unmeasured)' 'day11.a < day09.a' 'day11.a < 200' > $tmp/forecast.tsv
check $tmp/forecast.tsv $tmp/forecast_rows.tsv --forecast t4
ok "--forecast: a forecast claim ✗ is exit 1, counted" "[ \$rc = 1 ] && grep -q '^forecast=t4 claims=4 ok=2 failed=1 not_forecast=1\$' $tmp/out"
ok "--forecast: the twin's forecast is the measured value, theory() the row's own" "grep -q '^✓ Q1  day11.a > 200' $tmp/out && grep -q 'day10.unmeasured=9  theory(day10.unmeasured)=5' $tmp/out"
ok "--forecast: a row with no twin is not forecast" "grep -q '^- Q1  not forecast: day09.a has no twin day09.forecast_t4_a  day11.a < day09.a' $tmp/out"
claims 'day11.a > 200' 'day09.a > 0' > $tmp/forecast_ok.tsv
check $tmp/forecast_ok.tsv $tmp/forecast_rows.tsv --forecast t4
ok "--forecast: every forecast claim ✓ is exit 0" "[ \$rc = 0 ] && grep -q '^forecast=t4 claims=2 ok=1 failed=0 not_forecast=1' $tmp/out"
check $tmp/forecast_ok.tsv $tmp/forecast_rows.tsv --forecast a100
ok "--forecast: no twin for that GPU is exit 1, one sentence" "[ \$rc = 1 ] && grep -q '^error: .*forecast_rows.tsv has no row forecast_a100_<key> beside a row <key> of its day' $tmp/out"
check $tmp/forecast_ok.tsv $tmp/forecast_rows.tsv --forecast t
ok "--forecast: a GPU's name is whole (t is not t4)" "[ \$rc = 1 ] && grep -q 'has no row forecast_t_<key>' $tmp/out"
for two in '--wrong --forecast t4' '--mine x --wrong' '--forecast t4 --mine x'; do
  check $tmp/forecast_ok.tsv $tmp/forecast_rows.tsv $two
  ok "$two: one question at a time, exit 1" "[ \$rc = 1 ] && grep -q 'each ask a question of their own' $tmp/out"
done

# the shipped claims
n=$(grep -cvE "^(#|question$T|\$)" answers/claims.tsv)
m=$(grep -cE "^[A-Z][0-9]+ machine$T" answers/claims.tsv); n=$((n - m))
check answers/claims.tsv tests/data/rows_full.tsv
ok "shipped claims on a complete rows file: all ✓" "[ $rc = 0 ] && grep -q \"^claims=$n ok=$n failed=0 not_run=0 machine=$m machine_ok=$m machine_failed=0\" $tmp/out"
check answers/claims.tsv $tmp/absent.tsv
ok "shipped claims on no rows: all not run, and nothing checked is exit 1" "[ $rc = 1 ] && grep -q \"^claims=$n ok=0 failed=0 not_run=$n machine=$m machine_ok=0 machine_failed=0 machine_not_run=$m\" $tmp/out && grep -q '^error: no claim of answers/claims.tsv could be checked' $tmp/out"

# a claim marked "machine" is printed in its own section; its ✗ does not fail the check
{ printf 'question\tclaim\tsentence\n'; printf 'A1\tday09.a < day09.b\tholds\n'; printf 'A1 machine\tday09.b < 1\ta bar\n'; } > $tmp/machine.tsv
check $tmp/machine.tsv $tmp/rows.tsv
ok "a failing machine claim: shown under its own heading, counted, exit 0" "[ \$rc = 0 ] && grep -q '^machine-dependent bars' $tmp/out && grep -q '^✗ A1 machine day09.b < 1' $tmp/out && grep -q '^claims=1 ok=1 failed=0 not_run=0 machine=1 machine_ok=0 machine_failed=1' $tmp/out"
ok "every question has a claim" "(for q in A1 A2 A3 A4 A5 S1 S2 S3 S4 S5 S6; do grep -q \"^\$q\$T\" answers/claims.tsv || exit 1; done)"
ok "every question of claims.tsv has its section in answers/README.md" "(for q in \$(cut -f1 answers/claims.tsv | grep -E '^[ASM][0-9]+\$' | sort -u); do grep -q \"^### \$q \" answers/README.md || { echo \"  no '### \$q ' heading\"; exit 1; }; done)"

echo "claims: $pass passed, $fail failed"
[ $fail = 0 ]
