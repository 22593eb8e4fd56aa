#!/usr/bin/env python3
"""run_notebook.py: a notebook's code cells run in order, without Jupyter, the outputs saved.

For a machine with a GPU and no Jupyter (the kit's week2.ipynb end to end, say), from the kit:
  python3 tools/run_notebook.py week2.ipynb --out /tmp/week2-run.ipynb
It reads NOTEBOOK, runs each code cell in the folder it was started in, the way IPython would:
  !COMMAND      a line run by bash (the current folder, the output kept); its exit status does
                not stop the cell, as in IPython
  %cd DIR       changes the folder for everything after it
  %%bash        on a cell's first line: the rest of the cell is one bash script
  anything else Python, run in one namespace shared by every cell (consecutive lines run
                together, so a block may span lines, but not a ! or % line)
IPython.display's display, Markdown and Image are stand-ins here: a Markdown is saved as
text/markdown, an Image (a file) as image/png, so the saved copy shows charts where they were.
Not done: IPython's $var and {expr} expansion in ! lines, other magics (an error), input().
Each cell's output is echoed as it comes and written into the copy, with its execution_count;
the copy is saved after every cell (--out FILE; NOTEBOOK itself is never written). A cell that
raises stops the run, as "Run all" does (the error is saved in that cell; the cells after it
keep no output). Exit 0 when every cell ran with no error and every ! command exited 0, else 1.
Not part of make test (the kit's notebook needs a GPU); tests/cpu/run_notebook.sh runs it on a
small notebook of shell and Python cells.
"""
import argparse, base64, json, os, subprocess, sys, traceback, types

outputs = []   # the running cell's outputs, in order


def add_stream(name, text):
    if outputs and outputs[-1].get("output_type") == "stream" and outputs[-1]["name"] == name:
        outputs[-1]["text"] += text
    else:
        outputs.append({"output_type": "stream", "name": name, "text": text})


class Tee:
    """sys.stdout or sys.stderr: echoed to the terminal and kept as the cell's stream output."""
    def __init__(self, name, real):
        self.name, self.real = name, real

    def write(self, s):
        self.real.write(s)
        add_stream(self.name, s)
        return len(s)

    def flush(self):
        self.real.flush()


class Markdown:
    def __init__(self, data=None, filename=None):
        self.data = open(filename).read() if filename else data


class Image:
    def __init__(self, filename=None, data=None, **_):
        self.filename, self.data = filename, data if data is not None else open(filename, "rb").read()


def display(*objs, **_):
    for o in objs:
        if isinstance(o, Markdown):
            data = {"text/markdown": o.data, "text/plain": "<Markdown>"}
        elif isinstance(o, Image):
            data = {"image/png": base64.b64encode(o.data).decode(), "text/plain": "<Image %s>" % o.filename}
        else:
            data = {"text/plain": repr(o)}
        sys.__stdout__.write("[display] %s\n" % data["text/plain"])
        outputs.append({"output_type": "display_data", "data": data, "metadata": {}})


def stand_in_ipython():
    """IPython and IPython.display as this file's stand-ins, for the cells' imports."""
    ipython, disp = types.ModuleType("IPython"), types.ModuleType("IPython.display")
    disp.display, disp.Markdown, disp.Image = display, Markdown, Image
    ipython.display = disp
    sys.modules["IPython"], sys.modules["IPython.display"] = ipython, disp


def shell(cmd):
    """A ! line (or a %%bash cell's body) through bash, its output kept; the exit status."""
    p = subprocess.Popen(["bash", "-c", cmd], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    for line in iter(p.stdout.readline, b""):
        sys.stdout.write(line.decode("utf-8", "replace"))
    return p.wait()


def run_cell(source, ns, name):
    """Runs one code cell; returns the ! commands that exited non-zero. Raises what the cell raises."""
    failed = []
    if source.startswith("%%bash"):
        rc = shell(source.split("\n", 1)[1] if "\n" in source else "")
        return ["%%%%bash cell (exit %d)" % rc] if rc else []
    chunk = []

    def flush():
        if any(l.strip() for l in chunk):
            exec(compile("\n".join(chunk) + "\n", name, "exec"), ns)
        chunk.clear()

    for line in source.split("\n"):
        if line.startswith("!"):
            flush()
            rc = shell(line[1:])
            if rc:
                failed.append("!%s (exit %d)" % (line[1:], rc))
        elif line.startswith("%cd"):
            flush()
            os.chdir(os.path.expanduser(line[3:].strip() or "~"))
            print(os.getcwd())
        elif line.startswith("%"):
            raise RuntimeError("run_notebook.py does not know the magic " + line.split()[0])
        elif line.lstrip().startswith(("!", "%")):
            raise RuntimeError("run_notebook.py runs ! and % lines only at the start of a line: " + line.strip())
        else:
            chunk.append(line)
    flush()
    return failed


def main():
    global outputs
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("notebook")
    ap.add_argument("--out", required=True, help="the copy with the outputs (never NOTEBOOK itself)")
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    if os.path.exists(a.notebook) and os.path.exists(out) and os.path.samefile(a.notebook, out):
        ap.error("--out %s is the notebook itself: give another file" % a.out)
    nb = json.load(open(a.notebook))
    stand_in_ipython()
    ns = {"__name__": "__main__"}
    count, failed, raised = 0, [], False

    def save():
        with open(out, "w") as f:
            json.dump(nb, f, indent=1, ensure_ascii=False)
            f.write("\n")

    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        count += 1
        outputs = []
        print("--- cell %d [%d]" % (i + 1, count), flush=True)
        sys.stdout, sys.stderr = Tee("stdout", sys.__stdout__), Tee("stderr", sys.__stderr__)
        try:
            failed += ["cell %d: %s" % (i + 1, f) for f in run_cell(src, ns, "<cell %d>" % (i + 1))]
        except BaseException as e:   # SystemExit too: a cell's raise SystemExit(message) stops the run
            raised = True
            tb = traceback.format_exception(type(e), e, e.__traceback__)
            sys.__stderr__.write("".join(tb))
            outputs.append({"output_type": "error", "ename": type(e).__name__, "evalue": str(e), "traceback": tb})
        finally:
            sys.stdout.flush()
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        for o in outputs:   # nbformat keeps text as a list of lines
            if "text" in o:
                o["text"] = o["text"].splitlines(True)
            if "text/markdown" in o.get("data", {}):
                o["data"]["text/markdown"] = o["data"]["text/markdown"].splitlines(True)
        cell["outputs"], cell["execution_count"] = outputs, count
        save()
        if raised:
            break
    save()
    print("run_notebook: %d code cells run, %d ! commands exited non-zero, %s; wrote %s"
          % (count, len(failed), "stopped at an error" if raised else "no error", out))
    for f in failed:
        print("  " + f)
    return 1 if raised or failed else 0


if __name__ == "__main__":
    sys.exit(main())
