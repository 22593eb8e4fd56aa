# fixtures.bash: what model.sh and int8.sh share, sourced with the test's name as $1 (not a test of
# its own: tests/run.sh runs the *.sh scripts). It finds the fixtures, skips the
# test loudly when there are none (a student's clone; with KIT_REQUIRE_FIXTURES, as in CI, it
# fails), makes a scratch folder and defines the checks.
#   SHARED is the folder holding fixtures/ and reference/ (or fixtures itself, with reference/
#   beside it); BIN is bin, or build-t4/bin under make test-gpu-t4.
cd "$(dirname "$0")/../.."
BIN=${BIN:-bin}
SHARED=${SHARED:-../shared}
if [ -d "$SHARED/fixtures" ]; then FIX=$SHARED/fixtures REF=$SHARED/reference
else FIX=$SHARED REF=$SHARED/../reference; fi
if [ ! -d "$FIX/tiny-llama" ]; then
  r=${KIT_REQUIRE_FIXTURES:+1}; echo "$1: 0 passed, ${r:-0} failed, $((1 - ${r:-0})) skipped (no fixtures at $FIX: set SHARED to the course's shared folder)"; exit ${r:-0}
fi
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
pass=0; fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $2"; fi; }
# the first N of two comma lists are equal
same() { [ "$(echo "$1" | cut -d, -f1-"$3")" = "$(echo "$2" | cut -d, -f1-"$3")" ]; }
# the largest |a - b| of two float32 files, or size-mismatch
maxdiff() { python3 - "$1" "$2" <<'EOF'
import array, sys
a, b = array.array('f'), array.array('f')
a.frombytes(open(sys.argv[1], 'rb').read()); b.frombytes(open(sys.argv[2], 'rb').read())
print(max(abs(x - y) for x, y in zip(a, b)) if len(a) == len(b) and a else 'size-mismatch')
EOF
}
