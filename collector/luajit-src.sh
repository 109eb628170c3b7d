#!/bin/sh
# collector/luajit-src.sh: fetches the source of the installed LuaJIT package
# (for its private headers) with a private apt configuration whose deb-src
# lines are derived from the machine's own Debian sources.
# usage: collector/luajit-src.sh OUTDIR
# Leaves the unpacked tree in OUTDIR/luajit-src and its version in
# OUTDIR/luajit-src/.ljleak-version. The system's apt configuration is not touched.
set -eu
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
pkg=libluajit-5.1-2
want=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) || {
  echo "ljleak: $pkg is not installed; install libluajit-5.1-dev or pass LUAJIT_SRC=DIR" >&2
  exit 1
}
if [ -f "$out/luajit-src/.ljleak-version" ] &&
   [ "$(cat "$out/luajit-src/.ljleak-version")" = "$want" ]; then
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
(cd "$apt_dir/fetch" && apt-get -qq $apt_opts source "luajit=$want" >&2) || {
  echo "ljleak: apt-get source luajit=$want failed (is that version still in the archive?);" >&2
  echo "ljleak: pass LUAJIT_SRC=DIR (the unpacked source of LuaJIT $want) instead" >&2
  exit 1
}
dsc=$(ls "$apt_dir/fetch"/luajit_*.dsc 2>/dev/null | head -n 1)
got=$(sed -n 's/^Version: *//p' "$dsc" | head -n 1)
if [ "$got" != "$want" ]; then
  echo "ljleak: fetched LuaJIT source $got but $pkg $want is installed; refusing to build" >&2
  exit 1
fi
src=$(find "$apt_dir/fetch" -mindepth 1 -maxdepth 1 -type d | head -n 1)
[ -f "$src/src/lj_obj.h" ] || {
  echo "ljleak: unpacked source has no src/lj_obj.h" >&2
  exit 1
}
mv "$src" "$out/luajit-src"
echo "$want" > "$out/luajit-src/.ljleak-version"
rm -rf "$apt_dir/fetch" "$apt_dir/cache/archives"
