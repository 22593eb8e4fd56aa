#!/bin/bash
# pack.sh: the results to take away, one archive, results-<version>-<gpu>.tar.gz (what `make
# pack` runs; the notebook's last cell downloads it). It holds one folder of that name: every
# file of the results folder ($KIT_RESULTS, else results/) and MACHINE.txt, what made them, a
# key=value a line: the kit's version (tools/version.sh), the GPU, its driver and the driver's
# CUDA (nvidia-smi; with no GPU here, the gpu row day07 wrote), nvcc's release, torch's and
# transformers' versions when python3 imports them, python's, and the date. An instructor
# unpacks a T4's pack as answers/reference-t4/ (README.md says how).
#   tools/pack.sh [DIR]      the archive in DIR (default: the kit's folder)
#   tools/pack.sh --machine  MACHINE.txt alone, on stdout (make reference keeps it)
cd "$(dirname "$0")/.." || exit 1
results=${KIT_RESULTS:-results}

# the first line a command prints, or "unknown (WHY)"
say() {
  local out
  out=$(bash -c "$1" 2>/dev/null | head -1)
  echo "${out:-unknown ($2)}"
}
gpu_row() { [ -f "$results/rows.tsv" ] && awk -F'\t' '$1 == "day07" && $2 == "gpu" { print $6; exit }' "$results/rows.tsv"; }
machine() {
  echo "kit_version=$(tools/version.sh)"
  if nvidia-smi -L >/dev/null 2>&1; then
    echo "gpu=$(say 'nvidia-smi --query-gpu=name,memory.total,compute_cap --format=csv,noheader' 'nvidia-smi did not say')"
    echo "driver=$(say 'nvidia-smi --query-gpu=driver_version --format=csv,noheader' 'nvidia-smi did not say')"
    echo "driver_cuda=$(say "nvidia-smi | grep -o 'CUDA Version: *[0-9.]*' | grep -o '[0-9.]*\$'" 'nvidia-smi did not say')"
  else
    local row
    row=$(gpu_row)
    echo "gpu=none here (nvidia-smi lists none); day07's gpu row: ${row:-none}"
  fi
  echo "nvcc=$(say 'nvcc --version | grep release' 'no nvcc on the PATH')"
  echo "torch=$(say 'python3 -c "import torch; print(torch.__version__, \"cuda\", torch.version.cuda)"' 'python3 cannot import torch')"
  echo "transformers=$(say 'python3 -c "import transformers; print(transformers.__version__)"' 'python3 cannot import transformers')"
  echo "python=$(say 'python3 --version' 'no python3')"
  echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
}

if [ "$1" = --machine ]; then machine; exit; fi
dir=${1:-.}
[ -f "$results/rows.tsv" ] || { echo "pack: $results has no rows.tsv: run the days first (make all, or one: make day07)" >&2; exit 1; }
[ -d "$dir" ] || { echo "pack: $dir is not a folder to write the archive into" >&2; exit 1; }
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
[ -n "$gpu" ] || gpu=$(gpu_row | cut -d, -f1)
stem=results-$(tools/version.sh)-$(echo "${gpu:-unknown}" | tr ' ' _ | tr -cd 'A-Za-z0-9._+-')
stage=$(mktemp -d) || exit 1
trap 'rm -rf "$stage"' EXIT
# the folder as links to the results' files (an older MACHINE.txt among them left out), and
# MACHINE.txt; tar -h stores what the links point at
mkdir "$stage/$stem" && machine > "$stage/$stem/MACHINE.txt" || exit 1
for f in "$results"/*; do
  [ "${f##*/}" = MACHINE.txt ] || ln -s "$(realpath "$f")" "$stage/$stem/" || exit 1
done
tar -czhf "$stage/pack.tar.gz" -C "$stage" "$stem" && mv "$stage/pack.tar.gz" "$dir/$stem.tar.gz" || exit 1
echo "wrote $dir/$stem.tar.gz ($(du -h "$dir/$stem.tar.gz" | cut -f1)): $results/ and MACHINE.txt, to download or" \
     "keep on Drive"
