#!/bin/sh
# collector/luajit-src.sh: fetches the source of a LuaJIT package (for its
# private headers, and its public ones: the collector compiles against one
# tree) with a private apt configuration whose deb-src lines are derived from
# the machine's own Debian sources.
# usage: collector/luajit-src.sh OUTDIR [SOURCE [VERSION]]
# SOURCE is the Debian source package: luajit (Debian's LuaJIT, the default)
# or luajit2 (OpenResty's fork); VERSION defaults to that of its installed
# library (libluajit-5.1-2 or libluajit2-5.1-2). Leaves the unpacked tree in
# OUTDIR/luajit-src and "SOURCE=VERSION" in OUTDIR/luajit-src/.ljleak-version.
# The system's apt configuration is not touched.
set -eu
out=$1
source_pkg=${2:-luajit}
case "$source_pkg" in
  luajit) pkg=libluajit-5.1-2 ;;
  luajit2) pkg=libluajit2-5.1-2 ;;
  *) echo "ljleak: unknown LuaJIT source package $source_pkg (luajit or luajit2)" >&2; exit 1 ;;
esac
mkdir -p "$out"
out=$(cd "$out" && pwd)
want=${3:-}
if [ -z "$want" ]; then
  want=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) || want=""
fi
[ -n "$want" ] || {
  echo "ljleak: $pkg is not installed; install it, or pass LUAJIT_SRC=DIR" >&2
  exit 1
}
if [ -f "$out/luajit-src/.ljleak-version" ] &&
   [ "$(cat "$out/luajit-src/.ljleak-version")" = "$source_pkg=$want" ]; then
  exit 0
fi

apt_dir=$out/apt
rm -rf "$apt_dir" "$out/luajit-src"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/fetch"
list=$apt_dir/sources.list
: > "$list"

codename=$(. /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-}")

# Keeps only suites of this release (codename, codename-updates, ...), so
# third-party repositories do not take part.
suite_ok() {
  [ -z "$codename" ] && return 0
  case "$1" in "$codename"|"$codename"-*|"$codename"/*) return 0 ;; esac
  return 1
}

# One-line format: "deb [options] URI SUITE COMPONENTS..." becomes deb-src.
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] || continue
  sed -e 's/#.*//' "$f" | while read -r type rest; do
    [ "$type" = deb ] || continue
    opts=""
    case "$rest" in
      \[*) opts="${rest%%]*}]"; rest="${rest#*]}" ;;
    esac
    set -- $rest
    [ $# -ge 3 ] || continue
    suite_ok "$2" || continue
    echo "deb-src $opts $*" >> "$list"
  done
done

# deb822 format: each stanza with Types containing deb becomes deb-src lines.
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  awk -v codename="$codename" '
    function flush(   n, s, i, opts) {
      if (types ~ /(^| )deb( |$)/ && uris != "" && suites != "" && enabled != "no") {
        opts = ""
        if (signed != "") opts = "[signed-by=" signed "]"
        n = split(suites, s, " ")
        for (i = 1; i <= n; i++) {
          if (codename == "" || s[i] == codename || index(s[i], codename "-") == 1 ||
              index(s[i], codename "/") == 1) {
            split(uris, u, " ")
            for (j in u) print "deb-src " opts " " u[j] " " s[i] " " comps
          }
        }
      }
      types = uris = suites = comps = signed = enabled = ""
    }
    /^[ \t]*#/ { next }
    /^[ \t]*$/ { flush(); next }
    {
      key = tolower($1); sub(/:$/, "", key)
      val = $0; sub(/^[^:]*:[ \t]*/, "", val)
      if (key == "types") types = val
      else if (key == "uris") uris = val
      else if (key == "suites") suites = val
      else if (key == "components") comps = val
      else if (key == "signed-by") signed = val
      else if (key == "enabled") enabled = tolower(val)
    }
    END { flush() }
  ' "$f" >> "$list"
done

if [ ! -s "$list" ]; then
  echo "ljleak: no Debian sources found in /etc/apt to derive deb-src entries from;" >&2
  echo "ljleak: pass LUAJIT_SRC=DIR (an unpacked LuaJIT source tree) instead" >&2
  exit 1
fi

apt_opts="-o Dir::Etc::SourceList=$list -o Dir::Etc::SourceParts=/dev/null
  -o Dir::State::Lists=$apt_dir/lists -o Dir::Cache=$apt_dir/cache
  -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
  -o Debug::NoLocking=1 -o APT::Sandbox::User=root"
# shellcheck disable=SC2086
apt-get -qq $apt_opts update >&2 || {
  echo "ljleak: apt-get update with the derived deb-src entries failed" >&2
  exit 1
}
# shellcheck disable=SC2086
(cd "$apt_dir/fetch" && apt-get -qq $apt_opts source "$source_pkg=$want" >&2) || {
  echo "ljleak: apt-get source $source_pkg=$want failed (is that version still in the archive?);" >&2
  echo "ljleak: pass LUAJIT_SRC=DIR (the unpacked source of $source_pkg $want) instead" >&2
  exit 1
}
dsc=$(ls "$apt_dir/fetch/${source_pkg}"_*.dsc 2>/dev/null | head -n 1)
got=$(sed -n 's/^Version: *//p' "$dsc" | head -n 1)
if [ "$got" != "$want" ]; then
  echo "ljleak: fetched LuaJIT source $got but $pkg $want is wanted; refusing to build" >&2
  exit 1
fi
src=$(find "$apt_dir/fetch" -mindepth 1 -maxdepth 1 -type d | head -n 1)
[ -f "$src/src/lj_obj.h" ] || {
  echo "ljleak: unpacked source has no src/lj_obj.h" >&2
  exit 1
}
mv "$src" "$out/luajit-src"
echo "$source_pkg=$want" > "$out/luajit-src/.ljleak-version"
rm -rf "$apt_dir/fetch" "$apt_dir/cache/archives"
