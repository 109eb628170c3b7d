#!/bin/sh
# tests/e2e/luajit-deps.sh: which LuaJIT the build picks and which packages
# make asks for, with a fake dpkg-query saying what is installed (and that
# make all, missing them, stops at its config step before compiling); mk/deps.sh
# never lets apt-get remove a package (apt-get -s on this machine, and the
# flags of the real install through a fake apt-get). Needs no root.
E2E_NAME=luajit-deps
. tests/e2e/lib.sh

# A dpkg-query that knows only the packages listed in $FAKE_INSTALLED.
mkdir -p "$tmp/bin"
cat > "$tmp/bin/dpkg-query" <<'EOF'
#!/bin/sh
for pkg; do :; done
case " $FAKE_INSTALLED " in
  *" $pkg "*) case "$*" in *Status*) echo "install ok installed" ;; *) echo "9.9-fake" ;; esac ;;
  *) echo "dpkg-query: no packages found matching $pkg" >&2; exit 1 ;;
esac
EOF
chmod +x "$tmp/bin/dpkg-query"
fake() { FAKE_INSTALLED="$1" PATH="$tmp/bin:$PATH"; export FAKE_INSTALLED PATH; }
real_path=$PATH

# deps_line: the packages make deps-build would ask mk/deps.sh for.
deps_line() { make -n -s BUILD="$tmp/b" deps-build 2>/dev/null | grep 'mk/deps.sh'; }

fake "libluajit2-5.1-2 luajit2"
check "openresty_installed_picks_luajit2" test "$(sh mk/luajit.sh installed)" = luajit2
line=$(deps_line)
check "openresty_installed_asks_for_its_dev_package" sh -c "echo '$line' | grep -q ' luajit2 libluajit2-5.1-dev '"
check "openresty_installed_never_asks_for_debians" sh -c "! echo '$line' | grep -qE ' (luajit|libluajit-5\.1-dev|libluajit-5\.1-2) '"

fake "libluajit-5.1-2 luajit"
check "debian_installed_picks_luajit" test "$(sh mk/luajit.sh installed)" = luajit
line=$(deps_line)
check "debian_installed_asks_for_luajit_and_its_dev" sh -c "echo '$line' | grep -q ' luajit libluajit-5.1-dev '"

fake ""
check "nothing_installed_picks_debians" test "$(sh mk/luajit.sh installed)" = luajit
check "make_luajit_luajit2_asks_for_the_forks_packages" \
  sh -c "make -n -s BUILD='$tmp/b' LUAJIT=luajit2 deps-build | grep -q ' luajit2 libluajit2-5.1-dev '"

# A fresh machine, as a user: the config step runs first, to its end, even
# under -j, so make all stops with the install line before compiling anything.
printf '#!/bin/sh\necho 1000\n' > "$tmp/bin/id"
chmod +x "$tmp/bin/id"
make -j2 BUILD="$tmp/fresh" all > "$tmp/fresh.out" 2>&1
check "make_all_on_a_fresh_machine_fails" test $? -ne 0
check "make_all_on_a_fresh_machine_gives_the_install_line" \
  grep -qx '  sudo apt-get install luajit libluajit-5.1-dev libxxhash-dev zlib1g-dev pkg-config dpkg-dev' "$tmp/fresh.out"
check "make_all_on_a_fresh_machine_compiles_nothing" test -z "$(find "$tmp/fresh" -name '*.o' 2>/dev/null)"
rm -f "$tmp/bin/id"
line=$(make -n -s BUILD="$tmp/b" LUAJIT=luajit2 LUAJIT_ROOT="$tmp/root" deps-build | grep 'mk/deps.sh')
check "a_privately_unpacked_luajit_asks_for_no_luajit_package" sh -c \
  "echo '$line' | grep -q ' libxxhash-dev ' && ! echo '$line' | grep -q luajit"

make -n -s BUILD="$tmp/b" LUAJIT=/usr/bin/luajit deps-build > /dev/null 2> "$tmp/bad.err"
check "make_refuses_a_luajit_that_is_no_package" sh -c \
  "grep -q 'LUAJIT=/usr/bin/luajit: name the LuaJIT by its Debian source package, luajit or luajit2' '$tmp/bad.err'"

# The real install line: -y and --no-remove (a fake root and apt-get that log).
cat > "$tmp/bin/id" <<'EOF'
#!/bin/sh
echo 0
EOF
cat > "$tmp/bin/apt-get" <<EOF
#!/bin/sh
echo "\$*" >> "$tmp/apt.log"
EOF
chmod +x "$tmp/bin/id" "$tmp/bin/apt-get"
sh mk/deps.sh luajit libluajit-5.1-dev 2>/dev/null
check "install_runs_without_removing" grep -q -- '^install -y -qq --no-install-recommends --no-remove luajit libluajit-5.1-dev$' "$tmp/apt.log"
check "install_is_simulated_first" grep -q -- '^-s -qq install --no-install-recommends --no-remove luajit libluajit-5.1-dev$' "$tmp/apt.log"
rm -f "$tmp/bin/id" "$tmp/bin/apt-get"

# The real apt-get -s: with Debian's LuaJIT installed here, OpenResty's
# packages would replace it, which deps.sh refuses; Debian's are fine.
PATH=$real_path
if dpkg-query -W -f='${Status}' libluajit-5.1-2 2>/dev/null | grep -q "install ok installed"; then
  fake ""
  LJLEAK_DEPS_SIMULATE=1 sh mk/deps.sh luajit2 libluajit2-5.1-dev > "$tmp/out" 2>&1
  check "simulated_fork_install_is_refused" test $? = 1
  check "refusal_says_why_and_gives_the_line" sh -c "grep -q 'would remove or replace installed packages' '$tmp/out' &&
    grep -qx '  sudo apt-get install luajit2 libluajit2-5.1-dev' '$tmp/out'"
  LJLEAK_DEPS_SIMULATE=1 sh mk/deps.sh luajit libluajit-5.1-dev > "$tmp/out" 2>&1
  check "simulated_debian_install_is_allowed" test $? = 0
  PATH=$real_path
  check "debians_luajit_is_still_installed" sh -c \
    "dpkg-query -W -f='\${Status}' libluajit-5.1-2 | grep -q 'install ok installed'"
else
  echo "skip simulated_fork_install_is_refused (Debian's libluajit-5.1-2 is not installed here)"
fi

finish
