#!/bin/sh
# Checks that the Debian packages a make target needs are installed; installs
# them with apt-get when run as root, otherwise prints the install line and fails.
# apt-get may never remove or replace an installed package (--no-remove): a
# list that would (e.g. Debian's luajit while OpenResty's luajit2 is
# installed; the two conflict) fails with the line to run by hand instead.
# LJLEAK_DEPS_SIMULATE=1 runs `apt-get -s` (no update, no root needed) in
# place of the install, to test this decision.
# usage: mk/deps.sh PACKAGE...
missing=""
for pkg in "$@"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)
  case "$status" in
    *"install ok installed"*) ;;
    *) missing="$missing $pkg" ;;
  esac
done
[ -z "$missing" ] && exit 0
refused() {
  echo "ljleak: installing$missing would remove or replace installed packages; not done." >&2
  echo "ljleak: OpenResty's luajit2 and Debian's luajit conflict: build for the installed" >&2
  echo "ljleak: one (make LUAJIT=luajit2 or LUAJIT=luajit), or install by hand with:" >&2
  echo "  sudo apt-get install$missing" >&2
  exit 1
}
# apt-get -s: whether the install can be done without removing anything.
simulate() {
  # shellcheck disable=SC2086
  sim=$(apt-get -s -qq install --no-install-recommends --no-remove $missing 2>&1) && return 0
  case "$sim" in *"remove is disabled"*) refused ;; esac
  echo "$sim" >&2
  exit 1
}
if [ "${LJLEAK_DEPS_SIMULATE:-0}" = 1 ]; then
  simulate
  echo "ljleak: would install:$missing" >&2
  exit 0
fi
if [ "$(id -u)" = 0 ]; then
  echo "ljleak: installing missing packages:$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 || exit 1
  simulate
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends --no-remove $missing >&2 || exit 1
  exit 0
fi
echo "ljleak: missing Debian packages:$missing" >&2
echo "ljleak: install them with:" >&2
echo "  sudo apt-get install$missing" >&2
exit 1
