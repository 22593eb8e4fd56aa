#!/bin/bash
# tools/run_notebook.py, the mechanics, on a hand-made notebook of shell and Python cells (the
# kit's own week2.ipynb needs a GPU and is not run here): Python cells share one namespace; a
# ! line runs in bash in the current folder and its exit status does not stop the cell; %cd
# moves every later cell; a %%bash cell is one script; IPython.display's Markdown and Image are
# saved as text/markdown and image/png; a markdown cell is left alone; a cell that raises stops
# the run with its error saved, the cells after it keep no output; exit 1 then. The copy is
# --out's, the notebook itself untouched; --out naming the notebook is refused. No python3: skipped.
cd "$(dirname "$0")/../.."
script=$PWD/tools/run_notebook.py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if eval "$2"; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; tail -5 "$tmp/log" 2>/dev/null; fi; }
if ! command -v python3 >/dev/null; then
  echo "skipped: no python3 here"; echo "run_notebook: 0 passed, 0 failed, 1 skipped"; exit 0
fi

# The notebook, written by python3 so its JSON is right; each cell's source as in a .ipynb.
mkdir -p "$tmp/work/sub" && printf 'PNG' > "$tmp/work/sub/pic.png"
cat > "$tmp/make.py" <<'EOF'
import json, sys
def cell(kind, text):
    c = {"cell_type": kind, "metadata": {}, "source": text.splitlines(True)}
    if kind == "code":
        c.update(outputs=[], execution_count=None)
    return c
cells = [
    cell("code", 'x = 41\nprint("python", x + 1)'),
    cell("markdown", "# not run\n!echo never"),
    cell("code", '!echo shell $((6 * 7)) > /dev/stderr\n!exit 3\nprint("after", x)'),
    cell("code", "%cd sub\n!pwd\nimport os\nprint(os.path.basename(os.getcwd()))"),
    cell("code", "%%bash\nfor i in 1 2; do echo bash $i; done\nexit 0"),
    cell("code", 'from IPython.display import Markdown, Image, display\ndisplay(Markdown("# hi\\nthere"))\ndisplay(Image("pic.png"))'),
    cell("code", "def f():\n    return x\n\nprint('f', f())"),
    cell("code", 'raise ValueError("stop here")'),
    cell("code", 'print("never")'),
]
json.dump({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}, open(sys.argv[1], "w"), indent=1)
EOF
python3 "$tmp/make.py" "$tmp/t.ipynb" && cp "$tmp/t.ipynb" "$tmp/before.ipynb"
(cd "$tmp/work" && python3 "$script" ../t.ipynb --out ../run.ipynb) > "$tmp/log" 2>&1; rc=$?
ok "it ran and stopped at the error: exit 1, the summary line" \
   "[ $rc = 1 ] && grep -q '^run_notebook: 7 code cells run, 1 ! commands exited non-zero, stopped at an error; wrote $tmp/run.ipynb' $tmp/log"
ok "the notebook itself is untouched" "cmp -s $tmp/t.ipynb $tmp/before.ipynb"

# out N: cell N's outputs (1-based) as "type name: text" lines, its execution_count first
cat > "$tmp/show.py" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))["cells"][int(sys.argv[2]) - 1]
print("count", c.get("execution_count"))
for o in c.get("outputs", []):
    if o["output_type"] == "stream":
        print(o["name"] + ":", "".join(o["text"]).replace("\n", "|"))
    elif o["output_type"] == "display_data":
        d = o["data"]
        print("display:", "".join(d["text/markdown"]).replace("\n", "|") if "text/markdown" in d else "png " + d.get("image/png", ""))
    else:
        print(o["output_type"] + ":", o.get("ename"), o.get("evalue"))
EOF
out() { python3 "$tmp/show.py" "$tmp/run.ipynb" "$1" | tr '\n' '~'; }
ok "a Python cell: its print, execution_count 1" "[ \"\$(out 1)\" = 'count 1~stdout: python 42|~' ]"
ok "a markdown cell: left alone" "[ \"\$(out 2)\" = 'count None~' ]"
ok "! lines through bash (stderr kept), a failing one does not stop the cell, the namespace shared" \
   "[ \"\$(out 3)\" = 'count 2~stdout: shell 42|after 41|~' ]"
ok "%cd moves the folder for the ! line and the Python after it" "[ \"\$(out 4)\" = \"count 3~stdout: $tmp/work/sub|$tmp/work/sub|sub|~\" ]"
ok "a %%bash cell: one script" "[ \"\$(out 5)\" = 'count 4~stdout: bash 1|bash 2|~' ]"
ok "Markdown and Image saved as display data (the PNG's bytes in base64), in %cd's folder" \
   "[ \"\$(out 6)\" = 'count 5~display: # hi|there~display: png UE5H~' ]"
ok "a block over several lines, blank ones included" "[ \"\$(out 7)\" = 'count 6~stdout: f 41|~' ]"
ok "the cell that raises: its error saved" "[ \"\$(out 8)\" = 'count 7~error: ValueError stop here~' ]"
ok "the cell after it: not run, no output" "[ \"\$(out 9)\" = 'count None~' ]"
ok "the echo on the terminal: each cell's output as it came" "grep -q '^--- cell 4 \\[3\\]' $tmp/log && grep -q '^bash 2' $tmp/log"

python3 "$tmp/make.py" "$tmp/t.ipynb"
python3 "$script" "$tmp/t.ipynb" --out "$tmp/t.ipynb" > "$tmp/log" 2>&1; rc=$?
ok "--out naming the notebook itself: refused, the notebook untouched" \
   "[ $rc = 2 ] && grep -q 'is the notebook itself' $tmp/log && cmp -s $tmp/t.ipynb $tmp/before.ipynb"
ok "no __pycache__ left in tools/" "[ ! -e tools/__pycache__ ]"

echo "run_notebook: $pass passed, $fail failed"
[ "$fail" = 0 ]
