# tests/e2e/nginx_setup.sh: sourced by tests/e2e/nginx.sh and bench/nginx.sh
# after tests/e2e/lib.sh: unpacks Debian's nginx, its Lua module and their
# Lua libraries into $BUILD/nginx/root (apt-get download + dpkg -x, once;
# skips when they cannot be downloaded), finds the collector built for
# OpenResty's LuaJIT, and writes $tmp/nginx.conf: testdata/nginx/nginx.conf
# with this run's paths and a free port (NGINX_SED: more sed expressions).
# Gives nginx (the command), workers_of MASTER, port, client, worker_user.
NGINX_DIR=$BUILD/nginx
ngx=$NGINX_DIR/root
master="" load=""
cleanup() {
  [ -z "$load" ] || kill "$load" 2>/dev/null
  if [ -n "$master" ] && kill -0 "$master" 2>/dev/null; then
    kill -QUIT "$master" 2>/dev/null
    n=0; while kill -0 "$master" 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
    kill -KILL "$master" 2>/dev/null
  fi
  wait 2>/dev/null
  [ -n "${E2E_KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT

# The packages, unpacked into $BUILD/nginx/root once (apt-get download + dpkg -x).
packages="nginx libnginx-mod-http-lua libnginx-mod-http-ndk lua-resty-core lua-resty-lrucache libpcre3"
if [ ! -f "$ngx/.ljleak-unpacked" ]; then
  rm -rf "$NGINX_DIR/debs" "$ngx" && mkdir -p "$NGINX_DIR/debs" "$ngx"
  # shellcheck disable=SC2086
  if ! (cd "$NGINX_DIR/debs" && apt-get download $packages) >"$NGINX_DIR/download.log" 2>&1; then
    tail -n 3 "$NGINX_DIR/download.log"
    echo "skip nginx: cannot download $packages (apt-get update, or a network, is missing)"
    finish
    exit
  fi
  for deb in "$NGINX_DIR"/debs/*.deb; do dpkg -x "$deb" "$ngx" || exit 1; done
  touch "$ngx/.ljleak-unpacked"
fi

# The collector built for OpenResty's LuaJIT: this build's, if it is for
# luajit2, else make other-luajit's (built now if missing).
if [ "$(sh mk/luajit.sh installed)" = luajit2 ]; then
  cmod=$(cd "$BUILD/lua" && pwd) libdir=""
else
  other=$BUILD/other-luajit
  if [ ! -f "$other/lua/ljleak/collector.so" ]; then
    make --no-print-directory BUILD="$BUILD" other-luajit >"$tmp/other.log" 2>&1 ||
      { tail -n 20 "$tmp/other.log"; bad "make_other_luajit"; finish; exit; }
  fi
  cmod=$(cd "$other/lua" && pwd)
  libdir=$(dirname "$(ls "$other"/root/usr/lib/*/libluajit-5.1.so.2)")
  libdir=$(cd "$libdir" && pwd)
fi
ngx=$(cd "$ngx" && pwd)
nginx_bin=$ngx/usr/sbin/nginx
ngx_libs=$(dirname "$(ls "$ngx"/usr/lib/*/libpcre.so.3 2>/dev/null | head -n 1)")
export LD_LIBRARY_PATH="$libdir${libdir:+:}$ngx_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LJLEAK
client=$BUILD/bench/nginx_client
[ -x "$client" ] || make --no-print-directory BUILD="$BUILD" "$client" >/dev/null ||
  { bad "build_nginx_client"; finish; exit; }

# The workers' user: nobody when root (as the config says), else this user.
chmod 711 "$tmp"
if [ "$(id -u)" = 0 ]; then
  worker_user=nobody
else
  worker_user=$(id -un)
  echo "note: not root: nginx cannot switch user, its workers run as $worker_user (the config's user line is left out)"
fi
worker_uid=$(id -u "$worker_user")
mkdir -p "$tmp/prefix/temp" "$tmp/app" "$tmp/caps" "$tmp/run"
cp testdata/nginx/app.lua "$tmp/app/"
chmod 755 "$tmp/app" "$tmp/prefix"
chmod 644 "$tmp/app/app.lua"
chmod 700 "$tmp/run"
[ "$worker_user" = "$(id -un)" ] || chown "$worker_user" "$tmp/caps" "$tmp/run" "$tmp/prefix/temp"

# The README's config, with this test's paths and a free port.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
       echo $((20000 + $$ % 20000)))
sed -e "s#/usr/lib/nginx/modules/#$ngx/usr/lib/nginx/modules/#" \
    -e "s#^pid /run/nginx-app.pid;#pid $tmp/nginx.pid;#" \
    -e "s#^error_log /var/log/nginx/app-error.log notice;#error_log $tmp/error.log notice;#" \
    -e "s#=/var/cache/ljleak;#=$tmp/caps;#" \
    -e "s#=/run/ljleak;#=$tmp/run;#" \
    -e "s#LJLEAK_PERIOD=2;#LJLEAK_PERIOD=0.5;#" \
    -e "s#/var/cache/nginx-app/#$tmp/prefix/temp/#" \
    -e "s#/srv/app/#$tmp/app/#" \
    -e "s#/usr/share/lua/5.1/#$ngx/usr/share/lua/5.1/#" \
    -e "s#/usr/local/lib/lua/5.1/#$cmod/#" \
    -e "s#listen 127.0.0.1:8080;#listen 127.0.0.1:$port;#" \
    ${NGINX_SED:+-e "$NGINX_SED"} \
    testdata/nginx/nginx.conf > "$tmp/nginx.conf"
[ "$(id -u)" = 0 ] || sed -i '/^user nobody nogroup;$/d' "$tmp/nginx.conf"
nginx() { "$nginx_bin" -p "$tmp/prefix" -c "$tmp/nginx.conf" -e "$tmp/error.log" "$@"; }
# Starts nginx and sets master to its pid (empty when it did not start within 5 s).
nginx_start() {
  nginx
  n=0; until [ -s "$tmp/nginx.pid" ] || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done
  master=$(cat "$tmp/nginx.pid" 2>/dev/null)
  # The pid file comes before the workers: wait for testdata/nginx's worker_processes, so a
  # script that lists them (to attach, to see them serve on) lists them all.
  n=0; until [ -z "$master" ] || [ "$(workers_of "$master" | wc -w)" -ge 2 ] || [ $n -ge 100 ]; do
    sleep 0.1; n=$((n + 1)); done
}
workers_of() { for s in /proc/[0-9]*/stat; do sed 's/.*) //' "$s" 2>/dev/null | awk -v p="$1" -v f="$s" '$2 == p { split(f, a, "/"); print a[3] }'; done | sort -n | tr '\n' ' '; }
