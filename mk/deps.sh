#!/bin/sh
# Checks that the Debian packages a make target needs are installed; installs
# them with apt-get when run as root, otherwise prints the install line and fails.
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
if [ "$(id -u)" = 0 ]; then
  echo "ljleak: installing missing packages:$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 || exit 1
  apt-get install -y -qq --no-install-recommends $missing >&2 || exit 1
  exit 0
fi
echo "ljleak: missing Debian packages:$missing" >&2
echo "ljleak: install them with:" >&2
echo "  sudo apt-get install$missing" >&2
exit 1
