#!/bin/bash
# dist.sh: the kit as one archive, kit.tar.gz, every file under kit/, for a student to upload
# to Colab (what `make dist` runs; it works on the folder this script sits in, tools/..).
#   - In a git clone whose root is the kit: the files git tracks, as committed (HEAD). What is
#     not committed (an edited, new, staged or deleted file) is not in the archive, and one
#     line names each such file, so nothing is left out without a word.
#   - Anywhere else (an unpacked kit.tar.gz has no .git; a kit inside some other repository):
#     the folder as it is, less what the kit builds or downloads (build/, build-*/, bin/,
#     results/, models/, kit.tar.gz) and hidden folders (.git, .ipynb_checkpoints, ...).
cd "$(dirname "$0")/.." || exit 1
out=kit.tar.gz
top=$(git rev-parse --show-toplevel 2>/dev/null)
if [ -n "$top" ] && [ "$top" -ef . ] && git rev-parse -q --verify HEAD >/dev/null; then
  git archive --format=tar.gz --prefix=kit/ -o "$out" HEAD || exit 1
  # git status -z: "XY path" (a rename: "XY new" then "old"), ignored files not listed
  left=()
  while IFS= read -r -d '' e; do
    xy=${e:0:2} path=${e:3}
    case "$xy" in
      '??') what=untracked ;;
      *D*) what=deleted ;;
      *A*) what="added, not committed" ;;
      *R*) what=renamed; IFS= read -r -d '' _ ;;   # the old name follows: skip it
      *) what=modified ;;
    esac
    left+=("$path ($what)")
  done < <(git status --porcelain=v1 -z --untracked-files=all)
  if [ ${#left[@]} -gt 0 ]; then
    list=$(printf '%s, ' "${left[@]}")
    echo "warning: kit.tar.gz holds the last commit ($(git rev-parse --short HEAD)), so these ${#left[@]} uncommitted" \
         "changes are not in it: ${list%, }; commit them (git add, git commit) and run make dist again to include them" >&2
  fi
  echo "wrote $out ($(du -h "$out" | cut -f1)) from the last commit: upload it to Colab and unpack it with  tar xzf $out"
else
  # every file but the outputs and hidden folders, as ./path, names NUL-separated; tar stores
  # ./path as kit/path (the S flag leaves symbolic links' targets as they are)
  find . \( -path ./build -o -path './build-*' -o -path ./bin -o -path ./results -o -path ./models \
            -o \( -type d -name '.?*' \) \) -prune -o ! -type d ! -path "./$out" ! -path "./$out.tmp" -print0 |
    LC_ALL=C sort -z |
    tar -czf "$out.tmp" --null --no-recursion -T - --transform 's,^\.,kit,S' || { rm -f "$out.tmp"; exit 1; }
  mv "$out.tmp" "$out" || exit 1
  echo "wrote $out ($(du -h "$out" | cut -f1)) from this folder as it is (not a git clone of the kit; build outputs" \
       "and hidden folders left out): upload it to Colab and unpack it with  tar xzf $out"
fi
