# tests/e2e/lib.sh: what the end-to-end scripts share; sourced after setting E2E_NAME (the
# scratch directory's name). Gives BUILD and LJLEAK, ok/bad/check counting into pass and fail,
# $tmp (removed at exit unless the script sets its own trap), and finish.
BUILD=${BUILD:-build}
LJLEAK=$BUILD/ljleak
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ljleak-$E2E_NAME.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# finish: the totals line that mk/check-total.sh adds up, and the exit status.
finish() { echo "$pass passed, $fail failed"; [ "$fail" = 0 ]; }
