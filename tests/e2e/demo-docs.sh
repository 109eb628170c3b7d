#!/bin/sh
# tests/e2e/demo-docs.sh: the man page renders without warnings and, with the
# README, documents every command, option and environment variable that the
# built ljleak has; README links resolve; make install puts the page in place.
E2E_NAME=docs
. tests/e2e/lib.sh

# Rendering: groff's warnings on (-ww), output discarded; any message fails.
if command -v groff >/dev/null; then
  groff -man -ww -z docs/ljleak.1 >"$tmp/groff.err" 2>&1
  check "man_page_renders_without_groff_warnings" test ! -s "$tmp/groff.err"
  [ -s "$tmp/groff.err" ] && cat "$tmp/groff.err"
  LC_ALL=C.UTF-8 MANWIDTH=80 groff -man -Tutf8 docs/ljleak.1 >"$tmp/page.txt" 2>/dev/null
  check "man_page_text_starts_with_its_title" grep -q '^LJLEAK(1)' "$tmp/page.txt"
elif command -v mandoc >/dev/null; then
  mandoc -T lint -W warning docs/ljleak.1 >"$tmp/lint" 2>&1
  check "man_page_passes_mandoc_lint" test ! -s "$tmp/lint"
else
  echo "skip man_page_renders: neither groff nor mandoc is installed"
fi

for section in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS ENVIRONMENT "EXIT STATUS" FILES EXAMPLES; do
  check "man_page_has_section_$(echo "$section" | tr ' ' _)" grep -q "^\.SH \"\{0,1\}$section\"\{0,1\}\$" docs/ljleak.1
done

# Every subcommand of the built binary, and every long option of its --help,
# is in both the man page and the README (man escapes '-' as '\-').
man_plain=$tmp/man.plain
sed 's/\\-/-/g; s/\\f[BIRP]//g' docs/ljleak.1 > "$man_plain"
commands=$("$LJLEAK" --help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')
check "ljleak_help_lists_commands" test -n "$commands"
for c in $commands; do
  check "man_page_documents_command_$c" grep -q "^\.SS.*$c" docs/ljleak.1
  check "readme_documents_command_$c" grep -q "ljleak $c" README.md
  for o in $("$LJLEAK" "$c" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    [ "$o" = --help ] && continue
    check "man_page_documents_${c}_option_$o" grep -q -- "$o" "$man_plain"
    check "readme_documents_${c}_option_$o" grep -q -- "$o" README.md
  done
done

# The CI scripts: every long option of their --help is in the README.
for script in compare-builds capture; do
  for o in $(ci/$script --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    [ "$o" = --help ] && continue
    check "readme_documents_${script}_option_$o" grep -q -- "$o" README.md
  done
done

# Environment variables: the ones the collector reads (from its sources and
# its doc) are in the man page's ENVIRONMENT and in the README.
# (Quoted names only: header guards are not variables; LJLEAK_TEST_* are test hooks.)
vars=$(cat collector/*.c collector/*.h cli/*.c 2>/dev/null | grep -o '"LJLEAK_[A-Z_]*[A-Z]"' | tr -d '"' |
       grep -v '^LJLEAK_TEST_' | sort -u)
for v in LJLEAK_DIR LJLEAK_ROOT LJLEAK_PERIOD LJLEAK_MAX_BYTES LJLEAK_MAX_TOTAL_BYTES LJLEAK_SAMPLE \
         LJLEAK_GZIP LJLEAK_DURATION LJLEAK_FORCE_GC LJLEAK_SIGNAL LJLEAK_START $vars; do
  echo "$v"
done | sort -u > "$tmp/vars"
while read -r v; do
  check "man_page_documents_$v" grep -q "$v" "$man_plain"
  check "readme_documents_$v" grep -q "$v" README.md
done < "$tmp/vars"

# README: the two-command quick start, and every relative link resolves.
check "readme_quick_start_is_make_demo_and_make_check" \
  sh -c 'grep -q "^    make demo\$" README.md && grep -q "^    make check\$" README.md'
for link in $(grep -o '](\([^)#:]*\))' README.md | sed 's/^](//; s/)$//' | sort -u); do
  check "readme_link_resolves_$link" test -e "$link"
done

# make install puts the page and the CI scripts where they belong.
if make -s BUILD="$BUILD" install DESTDIR="$tmp/root" PREFIX=/usr >"$tmp/install.log" 2>&1; then
  check "install_puts_man_page_in_man1" cmp -s docs/ljleak.1 "$tmp/root/usr/share/man/man1/ljleak.1"
  check "install_puts_compare_builds_beside_ljleak" test -x "$tmp/root/usr/bin/ljleak-compare-builds"
  check "install_puts_capture_beside_ljleak" test -x "$tmp/root/usr/bin/ljleak-capture"
else
  cat "$tmp/install.log"
  bad "make_install_succeeds"
fi

finish
