#!/bin/bash
# version.sh: the kit's version, one word: what the Makefile builds in (KIT_VERSION: day12's
# report names it), make dist writes into its archive (kit/VERSION) and make pack names its
# archive after.
#   In a git clone whose root is the kit: git describe --always --dirty --tags (the last tag and
#   the commits since, or the commit; -dirty when tracked files differ from it). With --commit,
#   the last commit's, never -dirty: what make dist archives.
#   Anywhere else (an unpacked kit.tar.gz has no .git): the first line of the VERSION file make
#   dist wrote there; without one, "unknown".
#   KIT_VERSION set in the environment wins over both: for a copy of the tree whose .git is not
#   its own (a working tree copied to another machine with an older .git beside it).
# Only letters, digits and . _ + - are kept, so the word is safe in a file name and a C string.
cd "$(dirname "$0")/.." || exit 1
v=
top=$(git rev-parse --show-toplevel 2>/dev/null)
if [ -n "$KIT_VERSION" ]; then
  v=$KIT_VERSION
elif [ -n "$top" ] && [ "$top" -ef . ] && git rev-parse -q --verify HEAD >/dev/null; then
  if [ "$1" = --commit ]; then v=$(git describe --always --tags HEAD); else v=$(git describe --always --dirty --tags); fi
elif [ -f VERSION ]; then
  v=$(head -1 VERSION)
fi
v=$(printf '%s' "$v" | tr -cd 'A-Za-z0-9._+-')
echo "${v:-unknown}"
