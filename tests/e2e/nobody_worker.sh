# tests/e2e/nobody_worker.sh: what the attack scripts (security.sh,
# security-steps.sh) share; sourced after lib.sh, as root. Gives LJLEAK
# (exported) and LJLEAK_ABS, COLLECTOR_PATH, as_nobody, wait_for, the
# worker's run directory $run (nobody's, 0700), and start_worker ROOT
# [VAR=VALUE...] / stop_worker: testdata/apps/worker.lua as nobody with the
# collector, registered in $run, its pid in $worker.
export LJLEAK
LJLEAK_ABS=$(realpath "$LJLEAK")
COLLECTOR_PATH="$(realpath "$BUILD")/lua/?.so;;"
chmod 711 "$tmp"
worker=""
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
wait_for() { local n=0; until eval "$1" || [ $n -ge 150 ]; do sleep 0.1; n=$((n + 1)); done; eval "$1"; }
run=$tmp/run
mkdir -p "$run" && chown nobody:nogroup "$run" && chmod 700 "$run"
start_worker() {
  local root=$1
  shift
  setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
    env LUA_CPATH="$COLLECTOR_PATH" LJLEAK_RUN_DIR="$run" LJLEAK_ROOT="$root" \
    LJLEAK_PERIOD=0.25 LJLEAK_FORCE_GC=1 "$@" \
    luajit -l ljleak.collector testdata/apps/worker.lua 120 >"$tmp/worker.log" 2>&1 &
  worker=$!
  wait_for "[ -f '$run/$worker' ]"
}
stop_worker() { kill "$worker" 2>/dev/null; wait "$worker" 2>/dev/null; worker=""; }
