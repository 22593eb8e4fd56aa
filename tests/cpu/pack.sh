#!/bin/bash
# make pack and the kit's version, on scratch copies (never the kit's own results/ or kit.tar.gz):
#   - tools/pack.sh on a made-up results folder: one archive, results-<version>-<gpu>.tar.gz,
#     holding one folder of that name with the results' files as they are and MACHINE.txt (the
#     kit's version, the GPU, driver and its CUDA from nvidia-smi, nvcc, torch, transformers,
#     python, the date; a MACHINE.txt among the results is not the one packed). With no GPU
#     here the name and MACHINE.txt take day07's gpu row; with no rows.tsv, one sentence and
#     exit 1; --machine prints MACHINE.txt alone; make pack runs it.
#   - the version (tools/version.sh): in a small git kit, the tag, -dirty when a tracked file
#     changed, the commits since the tag after one more; make dist's archive carries VERSION
#     (the last commit's, never -dirty) and week2.ipynb; the unpacked archive, with no .git,
#     takes its version from VERSION, and so does its Makefile (KIT_VERSION).
cd "$(dirname "$0")/../.."
unset MAKEFLAGS MFLAGS MAKELEVEL   # the make test that runs this: its variables stay there
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if eval "$2"; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; head -5 "$tmp/out"; fi; }
version=$(tools/version.sh)

# a results folder and two fake nvidia-smi: a T4, and none
res=$tmp/res
mkdir -p "$res" "$tmp/t4" "$tmp/nogpu" "$tmp/packs"
printf 'day\tkey\ttheory\tmeasured\tunit\tnote\nday07\tgpu\t-\t75\tcc\tNVIDIA H200, driver 13.0, runtime 13.0\nday09\ttpot_ms\t0.457\t21.6\tms\tx\n' > "$res/rows.tsv"
echo '# Week 2 report' > "$res/REPORT.md"; printf 'PNG' > "$res/busy.png"; echo 'kit=an older pack' > "$res/MACHINE.txt"
cat > "$tmp/t4/nvidia-smi" <<'SMI'
#!/bin/bash
case "$*" in
  -L) echo "GPU 0: Tesla T4 (UUID: GPU-0)" ;;
  *name,memory.total,compute_cap*) echo "Tesla T4, 15360 MiB, 7.5" ;;
  *--query-gpu=name*) echo "Tesla T4" ;;
  *driver_version*) echo "550.54.15" ;;
  "") echo "| NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4     |" ;;
  *) exit 1 ;;
esac
SMI
printf '#!/bin/bash\nexit 9\n' > "$tmp/nogpu/nvidia-smi"
chmod +x "$tmp/t4/nvidia-smi" "$tmp/nogpu/nvidia-smi"

# on a T4
PATH=$tmp/t4:$PATH KIT_RESULTS=$res tools/pack.sh "$tmp/packs" > "$tmp/out" 2>&1; rc=$?
stem=results-$version-Tesla_T4
ok "pack on a T4: exit 0, one archive, named $stem.tar.gz" "[ $rc = 0 ] && [ \"\$(ls $tmp/packs)\" = $stem.tar.gz ]"
tar tzf "$tmp/packs/$stem.tar.gz" | grep -v '/$' | LC_ALL=C sort | tr '\n' ' ' > "$tmp/members"
ok "its folder: the results' files and one MACHINE.txt" \
   "[ \"\$(cat $tmp/members)\" = '$stem/MACHINE.txt $stem/REPORT.md $stem/busy.png $stem/rows.tsv ' ]"
mkdir "$tmp/x" && tar xzf "$tmp/packs/$stem.tar.gz" -C "$tmp/x"
ok "rows.tsv and the report, as they are" "cmp -s $res/rows.tsv $tmp/x/$stem/rows.tsv && cmp -s $res/REPORT.md $tmp/x/$stem/REPORT.md"
m=$tmp/x/$stem/MACHINE.txt
ok "MACHINE.txt: the kit's version, the GPU, its driver and CUDA, nvcc, torch, transformers, python, the date" \
   "grep -qx 'kit_version=$version' $m && grep -qx 'gpu=Tesla T4, 15360 MiB, 7.5' $m && grep -qx 'driver=550.54.15' $m &&
    grep -qx 'driver_cuda=12.4' $m && grep -q '^nvcc=.' $m && grep -q '^torch=.' $m && grep -q '^transformers=.' $m &&
    grep -q '^python=.' $m && grep -qE '^date=[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} UTC$' $m && ! grep -q older $m"
ok "MACHINE.txt: key=value lines only" "! grep -qv '^[a-z_]*=' $m"
if command -v python3 >/dev/null && ! python3 -c 'import torch' 2>/dev/null; then
  ok "MACHINE.txt: torch that python3 cannot import, said so" "grep -qx 'torch=unknown (python3 cannot import torch)' $m"
fi

# with no GPU here: day07's gpu row names it
PATH=$tmp/nogpu:$PATH KIT_RESULTS=$res tools/pack.sh "$tmp/packs" > "$tmp/out" 2>&1; rc=$?
stem=results-$version-NVIDIA_H200
ok "pack with no GPU here: the archive named after day07's gpu row ($stem.tar.gz)" "[ $rc = 0 ] && [ -f $tmp/packs/$stem.tar.gz ]"
tar xzOf "$tmp/packs/$stem.tar.gz" "$stem/MACHINE.txt" > "$tmp/machine" 2>/dev/null
ok "its MACHINE.txt says there is no GPU here and gives the row" \
   "grep -qx \"gpu=none here (nvidia-smi lists none); day07's gpu row: NVIDIA H200, driver 13.0, runtime 13.0\" $tmp/machine"
PATH=$tmp/nogpu:$PATH KIT_RESULTS=$res tools/pack.sh --machine > "$tmp/out" 2>&1; rc=$?
ok "pack --machine: MACHINE.txt on stdout, nothing packed" "[ $rc = 0 ] && grep -qx 'kit_version=$version' $tmp/out && [ \$(ls $tmp/packs | wc -l) = 2 ]"
mkdir -p "$tmp/empty"
KIT_RESULTS=$tmp/empty tools/pack.sh "$tmp/packs" > "$tmp/out" 2>&1; rc=$?
ok "pack with no rows.tsv: one sentence, exit 1, nothing packed" \
   "[ $rc = 1 ] && [ \$(wc -l < $tmp/out) = 1 ] && grep -q 'has no rows.tsv: run the days first' $tmp/out && [ \$(ls $tmp/packs | wc -l) = 2 ]"
ok "make pack runs tools/pack.sh" "[ \"\$(make -n --no-print-directory pack 2>&1 | tail -1)\" = tools/pack.sh ]"

# the version, in a small git kit: Makefile, the two scripts, the notebook, a file
if command -v git >/dev/null; then
  d=$tmp/kit/kit
  mkdir -p "$d/tools" && cp Makefile .gitignore week2.ipynb "$d/" && cp tools/dist.sh tools/version.sh "$d/tools/" && echo a > "$d/a.txt"
  g() { git -C "$d" -c user.name=kit -c user.email=kit@example.invalid -c commit.gpgsign=false "$@"; }
  g init -q && g add -A && g commit -qm kit && g tag v9.9
  ok "version: the tag" "[ \"\$($d/tools/version.sh)\" = v9.9 ]"
  echo b >> "$d/a.txt"
  ok "version: -dirty when a tracked file changed; --commit: the commit's" \
     "[ \"\$($d/tools/version.sh)\" = v9.9-dirty ] && [ \"\$($d/tools/version.sh --commit)\" = v9.9 ]"
  ok "the Makefile's KIT_VERSION: the same" "make -C $d -pRrq 2>/dev/null | grep -qx 'KIT_VERSION := v9.9-dirty'"
  g commit -qam more
  v=$(g describe --always --tags)
  ok "version: the commits since the tag ($v)" "[ \"\$($d/tools/version.sh)\" = $v ] && [[ $v == v9.9-1-g* ]]"
  echo c >> "$d/a.txt"
  make -C "$d" --no-print-directory dist > "$tmp/out" 2>&1; rc=$?
  ok "make dist: kit/VERSION is the last commit's ($v), and kit/week2.ipynb is in the archive" \
     "[ $rc = 0 ] && [ \"\$(tar xzOf $d/kit.tar.gz kit/VERSION)\" = $v ] && tar tzf $d/kit.tar.gz | grep -qx kit/week2.ipynb && grep -q 'version $v' $tmp/out"
  mkdir "$tmp/unpacked" && tar xzf "$d/kit.tar.gz" -C "$tmp/unpacked"
  u=$tmp/unpacked/kit
  ok "the unpacked kit (no .git): its version is VERSION's, and its Makefile's KIT_VERSION" \
     "[ ! -e $u/.git ] && [ \"\$($u/tools/version.sh)\" = $v ] && make -C $u -pRrq 2>/dev/null | grep -qx 'KIT_VERSION := $v'"
  make -C "$u" --no-print-directory dist > "$tmp/out" 2>&1; rc=$?
  ok "make dist in the unpacked kit: VERSION carried on" "[ $rc = 0 ] && [ \"\$(tar xzOf $u/kit.tar.gz kit/VERSION)\" = $v ]"
  rm "$u/VERSION"
  ok "no .git and no VERSION: unknown" "[ \"\$($u/tools/version.sh)\" = unknown ]"
else
  fail=$((fail + 1)); echo "FAIL: the version checks need git (apt-get install -y git)"
fi

echo "pack: $pass passed, $fail failed"
[ "$fail" = 0 ]
