#!/bin/sh
# mk/config.sh: prints BUILD/config.mk, what pkg-config says about the
# libraries the build uses, for the Makefile's config step (after mk/deps.sh
# has installed them). With `luajit`, LuaJIT's library too (not for a
# LuaJIT unpacked privately: mk/luajit.mk links that one by its path).
# usage: mk/config.sh [luajit]
set -eu
need() {
  out=$(pkg-config "$@") || {
    echo "ljleak: pkg-config $* failed (are the packages of mk/deps.sh installed?)" >&2
    exit 1
  }
  echo "$out"
}
echo "# Written by mk/config.sh, the Makefile's config step."
echo "PKG_CFLAGS := $(need --cflags libxxhash zlib)"
echo "PKG_LIBS := $(need --libs libxxhash zlib)"
# check is a package of make check's only: empty when it is not installed.
echo "CHECK_CFLAGS := $(pkg-config --cflags check 2>/dev/null || :)"
echo "CHECK_LIBS := $(pkg-config --libs check 2>/dev/null || :)"
if [ "${1:-}" = luajit ]; then
  echo "LUAJIT_PKG_LIBS := $(need --libs luajit)"
fi
