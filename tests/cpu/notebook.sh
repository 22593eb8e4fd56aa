#!/bin/bash
# week2.ipynb, the kit's Colab notebook, through bin/check_notebook (tools/check_notebook.c):
#   - the kit's own notebook passes: valid JSON, nbformat 4, kernel python3, every cell with
#     cell_type, source, metadata (and an id), code cells saved with outputs [] and
#     execution_count null; every `make TARGET` of a `!make ...` line is a target of the
#     Makefile, asked of make itself (make -pRrq, its database, as readme_targets.sh does for
#     README.md, so pattern rules like $(DAYS) count); it names the days' targets;
#   - the torch cell is README.md's: the one fenced block of README.md with a line starting
#     with ! that names torch_decode.py, byte for byte against the notebook's one code cell with
#     such a line (its source joined, plus the newline a notebook's last line lacks). Exact text
#     is the simplest comparison that cannot pass on a drifted copy: any edit on either side, a
#     second copy, or none, fails;
#   - broken copies each fail, exit 1, naming what: bad JSON, nbformat 3, a `!make nosuchtarget`
#     (and one commented out), a saved output, an execution_count, a cell without metadata, two
#     cells with one id, README's torch cell drifted, the notebook's torch cell drifted;
#   - python3's json module reads the notebook too (when python3 is here).
# make dist carries the notebook: tests/cpu/makefile.sh (its dist checks).
cd "$(dirname "$0")/../.."
bin=${BIN:-bin}/check_notebook
nb=week2.ipynb
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if eval "$2"; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; head -5 "$tmp/out"; fi; }
[ -x $bin ] || { echo "$bin is not built (make $bin)"; echo "notebook: 0 passed, 1 failed"; exit 1; }
[ -f $nb ] || { echo "FAIL: $nb is missing"; echo "notebook: 0 passed, 1 failed"; exit 1; }

unset MAKEFLAGS MFLAGS MAKELEVEL   # the make test that runs this: its variables stay there
make -pRrq 2>/dev/null | grep -E '^[A-Za-z0-9_.-]+:' | cut -d: -f1 | sort -u > "$tmp/targets"
ok "make -pRrq lists the Makefile's targets" "grep -qx day07 $tmp/targets && grep -qx check-answers $tmp/targets"
check() { $bin --targets "$tmp/targets" --readme "${2:-README.md}" "$1" > "$tmp/out" 2>&1; }

check $nb; rc=$?
ok "the kit's $nb passes ($(tail -1 $tmp/out))" "[ $rc = 0 ] && grep -q ', 0 failures$' $tmp/out"
$bin --list-make $nb > "$tmp/out" 2>&1
ok "its !make lines name programs, day07 ... day12, check-answers" \
   "(for t in programs day07 day08 day09 day10 day11 day12 check-answers; do grep -q \": make \$t\$\" $tmp/out || exit 1; done)"
if command -v python3 >/dev/null; then
  cat > "$tmp/read.py" <<'EOF'
import json, sys
nb = json.load(open(sys.argv[1]))
code = [c for c in nb["cells"] if c["cell_type"] == "code"]
assert nb["nbformat"] == 4 and all(c["outputs"] == [] for c in code)
assert 'KIT_URL = ""' in "".join(code[0]["source"]).splitlines(), "KIT_URL is not in the first code cell"
EOF
  python3 "$tmp/read.py" $nb > "$tmp/out" 2>&1
  ok "python3's json reads it: nbformat 4, no outputs, KIT_URL = \"\" in the first code cell" "[ $? = 0 ]"
fi

# broken copies: each must fail, exit 1, with its own sentence
broken() {   # broken WHAT PATTERN FILE [README]: exit 1 and a line matching PATTERN
  local what=$1 pat=$2; check "$3" "$4"; local rc=$?
  ok "$what: refused" "[ $rc = 1 ] && grep -q -- \"$pat\" $tmp/out"
}
head -c 2000 $nb > "$tmp/cut.ipynb"
broken "a notebook cut short (bad JSON)" "not valid JSON (it stops being JSON at line" "$tmp/cut.ipynb"
sed 's/"nbformat": 4,/"nbformat": 3,/' $nb > "$tmp/v3.ipynb"
broken "nbformat 3" "nbformat is 3, not 4" "$tmp/v3.ipynb"
sed 's/"!make day08"/"!make nosuchtarget"/' $nb > "$tmp/target.ipynb"
broken "a !make nosuchtarget" "names make target nosuchtarget, which the Makefile does not have" "$tmp/target.ipynb"
sed 's/"# !make model"/"# !make nosuchmodel"/' $nb > "$tmp/target2.ipynb"
broken "a commented-out !make nosuchmodel" "names make target nosuchmodel" "$tmp/target2.ipynb"
sed '0,/"outputs": \[\]/s//"outputs": [{"output_type": "stream", "name": "stdout", "text": ["x"]}]/' $nb > "$tmp/out.ipynb"
broken "a saved output" "saved with 1 outputs: clear them" "$tmp/out.ipynb"
sed '0,/"execution_count": null/s//"execution_count": 3/' $nb > "$tmp/count.ipynb"
broken "a saved execution_count" "saved with an execution_count" "$tmp/count.ipynb"
sed '0,/"metadata": {},/s///' $nb > "$tmp/meta.ipynb"
broken "a cell without metadata" "cell 1: no metadata object" "$tmp/meta.ipynb"
sed 's/"id": "day08"/"id": "day07"/' $nb > "$tmp/ids.ipynb"
broken "two cells with one id" "id day07 is cell" "$tmp/ids.ipynb"
sed 's|^!python3 tools/torch_decode.py$|!python3 tools/torch_decode.py --random|' README.md > "$tmp/README.md"
broken "README's torch cell drifted" "the torch cell is not README.md's copy" $nb "$tmp/README.md"
sed 's|"!python3 tools/torch_decode.py\\n"|"!python3 tools/torch_decode.py --steps 40\\n"|' $nb > "$tmp/torch.ipynb"
broken "the notebook's torch cell drifted" "its line 1 is .!python3 tools/torch_decode.py --steps 40." "$tmp/torch.ipynb"
{ cat README.md; printf '\n```\n!python3 tools/torch_decode.py\n```\n'; } > "$tmp/README2.md"
broken "a second torch block in README" "2 fenced blocks with a line that starts with ! and names torch_decode.py, not 1" $nb "$tmp/README2.md"
for f in "$tmp"/cut.ipynb "$tmp"/v3.ipynb "$tmp"/target.ipynb "$tmp"/out.ipynb; do
  cmp -s "$f" $nb && { fail=$((fail + 1)); echo "FAIL the broken copy $f is the notebook itself (the sed missed)"; }
done

echo "notebook: $pass passed, $fail failed"
[ "$fail" = 0 ]
