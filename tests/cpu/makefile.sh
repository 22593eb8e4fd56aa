#!/bin/bash
# The Makefile's own behaviour, from make's dry runs (make -n) and cheap real targets, never
# `make test` itself (this runs inside it):
#   - CC: gcc unless the user names one (make CC=..., or CC in the environment).
#   - a path with a space (or a quote) in SHARED, MODEL, MODEL_DIR or MINE reaches the command
#     as one argument: a missing fixtures folder gives the tests' "skipped" sentence, not a
#     shell error; the days get --model 'the folder'; check-answers reads the --mine file.
#   - make dist, in a small copy of the kit: in a git clone, the last commit, and one line naming
#     each file not committed; with no .git (an unpacked kit.tar.gz), or inside another
#     repository, the folder as it is less build outputs and hidden folders; all under kit/,
#     week2.ipynb (the Colab notebook) and VERSION (tools/version.sh's) among them. In the kit's
#     own clone: its last commit, what make dist archives there, holds week2.ipynb (pack.sh:
#     what VERSION says, and how an unpacked kit builds it in).
#   - make reference keeps answers/reference/README.md and pytorch/ and feeds pytorch/rows.tsv
#     to day12 (its recipe from make's database; its two steps on a scratch copy).
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

# Paths with a space and a quote. args LINE: the words the shell makes of a recipe line's
# arguments, each in [], the program itself left out.
sp="$tmp/my files/it's here"
mkdir -p "$sp/my model"
args() { local line=$1 prog=${1%% *}; bash -c "printf '[%s]' ${line#"$prog"}"; }
recipe test SHARED="$sp/no fixtures"
line=$(sed 's#tests/run.sh cpu$#tests/cpu/tokenize_cli.sh#' $tmp/out)
env -u KIT_REQUIRE_FIXTURES bash -c "$line" > $tmp/out 2>&1
ok "make test SHARED='a b': a missing folder is the tests' skipped sentence, naming it whole" \
   "grep -qF \"tokenize_cli: 0 passed, 0 failed, 1 skipped (no fixtures at $sp/no fixtures/fixtures\" $tmp/out"
for t in test-gpu test-gpu-t4 fuzz; do
  make -n --no-print-directory $t SHARED="$sp/no fixtures" 2>&1 | sed -n '/SHARED=/,$p' | sed 's/\\$//' | tr '\n' ' ' > $tmp/out   # one line
  line=$(sed -E 's#(tests/run.sh (cpu|gpu)|tests/cpu/fuzz.sh) *$#printenv SHARED#' $tmp/out)
  ok "make $t: SHARED reaches its tests whole" "[ \"\$(bash -c \"\$line\" 2>&1)\" = \"\$sp/no fixtures\" ]"
done
recipe day07 MODEL="$sp/my model"
ok "make day07 MODEL='a b': --model and the folder, two arguments" "[ \"\$(args \"\$(cat $tmp/out)\")\" = \"[--model][\$sp/my model]\" ]"
: > "$sp/my model/model.safetensors"
recipe day08 MODEL_DIR="$sp/my model"
ok "make day08 MODEL_DIR='a b': its weights are found and passed whole" "[ \"\$(args \"\$(cat $tmp/out)\")\" = \"[--model][\$sp/my model]\" ]"
recipe model MODEL_DIR="$sp/my model"
ok "make model MODEL_DIR='a b': one argument" "[ \"\$(args \"\$(cat $tmp/out)\")\" = \"[\$sp/my model]\" ]"
printf 'day10.gemms_per_step = 155\n' > "$sp/my numbers.txt"
recipe check-answers MINE="$sp/my numbers.txt"
line=$(cat $tmp/out)
bash -c "$line" > $tmp/out 2>&1
ok "make check-answers MINE='a b': the file is read" "grep -qF \"your numbers against the measured ones ($sp/my numbers.txt)\" $tmp/out"

# make dist in a small kit: the Makefile, tools/dist.sh and version.sh, .gitignore, the notebook and two files
# (the kit's own .gitignore: were it to ignore week2.ipynb, git add -A would leave it out)
d=$tmp/dist/kit
mkdir -p "$d/tools" "$d/sub" && cp Makefile .gitignore week2.ipynb "$d/" && cp tools/dist.sh tools/version.sh "$d/tools/"
echo committed > "$d/a.txt" && echo b > "$d/sub/b.txt"
g() { git -C "$d" -c user.name=kit -c user.email=kit@example.invalid -c commit.gpgsign=false "$@"; }
members() { tar tzf "$d/kit.tar.gz" | grep -v '/$' | LC_ALL=C sort | tr '\n' ' '; }
dist() { make -C "$d" --no-print-directory dist > $tmp/out 2>&1; rc=$?; }
if command -v git >/dev/null; then
  g init -q && g add -A && g commit -qm kit
  dist
  ok "make dist, all committed: exit 0, the tracked files under kit/, no warning" \
     "[ \$rc = 0 ] && [ \"\$(members)\" = 'kit/.gitignore kit/Makefile kit/VERSION kit/a.txt kit/sub/b.txt kit/tools/dist.sh kit/tools/version.sh kit/week2.ipynb ' ] && ! grep -q warning $tmp/out"
  echo edited >> "$d/a.txt"; echo new > "$d/new file.txt"; rm "$d/sub/b.txt"; mkdir "$d/bin" "$d/results"; echo x > "$d/bin/prog"
  dist
  ok "make dist with uncommitted changes: one line naming each, not the ignored outputs" \
     "[ \$rc = 0 ] && [ \$(grep -c '^warning: ' $tmp/out) = 1 ] && grep -q '^warning: .* these 3 uncommitted changes are not in it: a.txt (modified), sub/b.txt (deleted), new file.txt (untracked); commit them' $tmp/out"
  ok "make dist with uncommitted changes: the archive is the last commit" \
     "[ \"\$(members)\" = 'kit/.gitignore kit/Makefile kit/VERSION kit/a.txt kit/sub/b.txt kit/tools/dist.sh kit/tools/version.sh kit/week2.ipynb ' ] && [ \"\$(tar xzOf $d/kit.tar.gz kit/a.txt)\" = committed ]"
  mkdir -p "$d/.ipynb_checkpoints" "$d/build-t4" && touch "$d/.ipynb_checkpoints/x" "$d/build-t4/y" "$d/models"
  mv "$d/.git" "$tmp/dist/.git"          # the kit inside another repository: its folder, not that one
  dist
  ok "make dist in a kit inside another repository: the folder as it is" \
     "[ \$rc = 0 ] && [ \"\$(members)\" = 'kit/.gitignore kit/Makefile kit/VERSION kit/a.txt kit/new file.txt kit/tools/dist.sh kit/tools/version.sh kit/week2.ipynb ' ] && grep -q 'from this folder as it is' $tmp/out"
  rm -rf "$tmp/dist/.git"
  dist
  ok "make dist with no .git (an unpacked kit): the folder, less bin/ build-*/ models results/ hidden folders and kit.tar.gz" \
     "[ \$rc = 0 ] && [ \"\$(members)\" = 'kit/.gitignore kit/Makefile kit/VERSION kit/a.txt kit/new file.txt kit/tools/dist.sh kit/tools/version.sh kit/week2.ipynb ' ]"
  ok "make dist with no .git: the files as they are now" "[ \"\$(tar xzOf $d/kit.tar.gz kit/a.txt | tail -1)\" = edited ]"
  # the kit's own make dist: in a clone of the kit, the last commit is what it archives
  if [ "$(git rev-parse --show-toplevel 2>/dev/null)" -ef . ]; then
    ok "make dist carries week2.ipynb: the kit's last commit holds it" "git cat-file -e HEAD:week2.ipynb 2>/dev/null"
  fi
else
  fail=$((fail + 1)); echo "FAIL: make dist's checks need git (apt-get install -y git)"
fi

# make reference keeps answers/reference/README.md and pytorch/ (a PyTorch run's rows and
# printout) and feeds those rows to day12: its recipe, from make's database, clears through
# reference-clear (no rm -rf of the whole folder) and adds them through reference-pytorch before
# day12; both steps run for real on a scratch copy (REF, and a results/ of its own).
make -pRrq 2>/dev/null | awk '/^reference:/ {on = 1; next} on && /^#/ {next} on && /^[^\t]/ {exit} on' > $tmp/recipe
ok "make reference: no rm -rf of answers/reference in its recipe" "[ -s $tmp/recipe ] && ! grep -qE 'rm -rf [^ ]*REF' $tmp/recipe"
ok "make reference: reference-clear first, then the runs; reference-pytorch after the medians, before day12" \
   "awk '/reference-clear/ {a = NR} /median_rows/ {b = NR} /reference-pytorch/ {c = NR} /day12_/ && !d {d = NR} END {exit !(a && a < b && b < c && c < d)}' $tmp/recipe"
r=$tmp/refkit
mkdir -p "$r/answers/reference/pytorch" "$r/answers/reference/runs" "$r/results" && cp Makefile "$r/"
ref=$r/answers/reference
for f in README.md REPORT.md rows.tsv CHECK.txt busy.png runs/rows_1.tsv pytorch/README.md pytorch/torch_decode.txt; do echo "$f" > "$ref/$f"; done
printf 'day\tkey\ttheory\tmeasured\tunit\tnote\ntrace\ttrace_tpot_ms_untraced\t-\t20.5\tms\ttorch 2.11, transformers 5.17, NVIDIA H200\ntrace\ttrace_busy_untraced\t-\t10.8\t%%\tx\n' > "$ref/pytorch/rows.tsv"
printf 'day\tkey\ttheory\tmeasured\tunit\tnote\nday09\ttpot_ms\t0.457\t21.6\tms\tx\ntrace\ttrace_busy_untraced\t-\t50\t%%\tan older run of your own\n' > "$r/results/rows.tsv"
make -C "$r" --no-print-directory reference-clear > $tmp/out 2>&1; rc=$?
ok "reference-clear: keeps README.md and pytorch/ whole, removes the rest, leaves runs/ empty" \
   "[ $rc = 0 ] && [ \"\$(cd $ref && find . -type f | LC_ALL=C sort | tr '\n' ' ')\" = './README.md ./pytorch/README.md ./pytorch/rows.tsv ./pytorch/torch_decode.txt ' ] && [ -d $ref/runs ] && [ -z \"\$(ls -A $ref/runs)\" ] && [ \"\$(cat $ref/README.md)\" = README.md ]"
make -C "$r" --no-print-directory reference-pytorch > $tmp/out 2>&1; rc=$?
ok "reference-pytorch: the PyTorch rows replace results/rows.tsv's day trace, the other days stay" \
   "[ $rc = 0 ] && grep -q 'the PyTorch run.s 2 rows' $tmp/out && [ \"\$(cut -f1,2,4 $r/results/rows.tsv | tr '\t\n' ',,')\" = 'day,key,measured,day09,tpot_ms,21.6,trace,trace_tpot_ms_untraced,20.5,trace,trace_busy_untraced,10.8,' ]"
rm "$ref/pytorch/rows.tsv"; cp "$r/results/rows.tsv" $tmp/before.tsv
make -C "$r" --no-print-directory reference-pytorch > $tmp/out 2>&1; rc=$?
ok "reference-pytorch without pytorch/rows.tsv: says so, the rows untouched" \
   "[ $rc = 0 ] && grep -q 'no answers/reference/pytorch/rows.tsv, so the report.s Your PyTorch run says not run' $tmp/out && cmp -s $tmp/before.tsv $r/results/rows.tsv"
ok "answers/reference/pytorch/README.md is committed and gives the command that fills the folder" \
   "grep -q 'KIT_RESULTS=answers/reference/pytorch python3 tools/torch_decode.py --random' answers/reference/pytorch/README.md"

echo "makefile: $pass passed, $fail failed"
[ $fail = 0 ]
