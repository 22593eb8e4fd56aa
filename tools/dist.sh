#!/bin/bash
# dist.sh: the kit as one archive, kit.tar.gz, every file under kit/, for a student to upload
# to Colab (what `make dist` runs; it works on the folder this script sits in, tools/..).
#   - In a git clone whose root is the kit: the files git tracks, as committed (HEAD). What is
#     not committed (an edited, new, staged or deleted file) is not in the archive, and one
#     line names each such file, so nothing is left out without a word.
#   - Anywhere else (an unpacked kit.tar.gz has no .git; a kit inside some other repository):
#     the folder as it is, less what the kit builds or downloads (build/, build-*/, bin/,
#     results/, models/, kit.tar.gz) and hidden folders (.git, .ipynb_checkpoints, ...).
# Either way the archive holds kit/VERSION, the kit's version (tools/version.sh: the commit
# archived, or this folder's own VERSION), which the unpacked kit, having no .git, builds in.
cd "$(dirname "$0")/.." || exit 1
out=kit.tar.gz
stage=$(mktemp -d) || exit 1
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/kit"
top=$(git rev-parse --show-toplevel 2>/dev/null)
if [ -n "$top" ] && [ "$top" -ef . ] && git rev-parse -q --verify HEAD >/dev/null; then
  from="the last commit"
  tools/version.sh --commit > "$stage/kit/VERSION" && git archive --format=tar --prefix=kit/ -o "$stage/kit.tar" HEAD || exit 1
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
else
  from="this folder as it is (not a git clone of the kit; build outputs and hidden folders left out)"
  # every file but the outputs, hidden folders and VERSION (written afresh), as ./path, names
  # NUL-separated; tar stores ./path as kit/path (the S flag leaves symbolic links' targets as
  # they are)
  tools/version.sh > "$stage/kit/VERSION" || exit 1
  find . \( -path ./build -o -path './build-*' -o -path ./bin -o -path ./results -o -path ./models \
            -o \( -type d -name '.?*' \) \) -prune -o ! -type d ! -path "./$out" ! -path ./VERSION -print0 |
    LC_ALL=C sort -z |
    tar -cf "$stage/kit.tar" --null --no-recursion -T - --transform 's,^\.,kit,S' || exit 1
fi
tar -rf "$stage/kit.tar" -C "$stage" kit/VERSION && gzip -n "$stage/kit.tar" && mv "$stage/kit.tar.gz" "$out" || exit 1
echo "wrote $out ($(du -h "$out" | cut -f1)), version $(cat "$stage/kit/VERSION"), from $from: upload it to Colab and" \
     "unpack it with  tar xzf $out"
