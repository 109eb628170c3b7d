/* tests/test_collector_vm.c: the VM's own allocations named and placed: chunks compiled at their loading lines with their stacks, the string table's resizes as the site "VM: string table" under the stack that made them, and VM sites as C symbols that Tarantool's parser reads. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_run.h"
#include "tests/collector_capture.h"

#define COMPILE "tests/lua/collector_vm_compile.lua"
#define STRINGS "tests/lua/collector_vm_strings.lua"
/* How Tarantool's parser (and the capture reader here) names the string
 * table's site: a C symbol at its pseudo address (collector/attrib.h). */
#define STRING_TABLE_SITE "VM: string table:0x10"

static const struct site_total *must_site(const struct capture_read *r, const char *name)
{
  for (int i = 0; i < r->nsites; i++)
    if (!strcmp(r->sites[i].name, name))
      return &r->sites[i];
  ck_abort_msg("no site %s", name);
  return NULL;
}

static uint64_t allocs_at(const struct capture_read *r, const char *name)
{
  for (int i = 0; i < r->nsites; i++)
    if (!strcmp(r->sites[i].name, name))
      return r->sites[i].allocs + r->sites[i].reallocs;
  return 0;
}

/* Runs ljleak run ARGS into scratch NAME, then ljleak diff --format json of
 * it into NAME/result.json; returns the capture read. */
static struct capture_read *run_with_result(const char *name, const char *args, char *json,
                                            size_t size)
{
  char dir[512], cap[640];
  scratch(dir, sizeof dir, name);
  snprintf(cap, sizeof cap, "%s/cap", dir);
  snprintf(json, size, "%s/result.json", dir);
  ck_assert_int_eq(sh("'%s/ljleak' run -o '%s' %s >/dev/null", build_dir(), cap, args), 0);
  /* diff's exit status says whether something grows; only the JSON is read. */
  sh("'%s/ljleak' diff --format json '%s' > '%s' 2>/dev/null", build_dir(), cap, json);
  return read_capture(cap, NULL);
}

/* Whether the JSON result holds the exact string text. */
static int json_has(const char *json, const char *text)
{
  return sh("grep -q -F -e '%s' '%s'", text, json) == 0;
}

/* 3000 chunks compiled, a third each by loadstring, load and require (a
 * module file, unloaded each time): every chunk's compilation is charged
 * to the line that asked for it, none to INTERNAL or to require's loader,
 * and each such site's stack is the loop's line then the loading line. */
static void check_compile(const char *name, const char *jit)
{
  char json[1200], args[256];
  snprintf(args, sizeof args, "%s %s", jit, COMPILE);
  struct capture_read *r = run_with_result(name, args, json, sizeof json);
  for (int s = 0; s < r->segments; s++)
    ck_assert_int_eq(r->status[s], FORMAT_END);
  /* Each chunk's lexer, parser and prototype: a dozen blocks or more. */
  ck_assert_uint_ge(must_site(r, "@" COMPILE ":7")->allocs, 1000 * 10);
  ck_assert_uint_ge(must_site(r, "@" COMPILE ":9")->allocs, 1000 * 10);
  ck_assert_uint_ge(must_site(r, "@" COMPILE ":12")->allocs, 1000 * 10);
  ck_assert_uint_eq(allocs_at(r, "INTERNAL"), 0);
  /* What require itself allocates (its loader's file name and buffer) is
   * the C functions'; the compilation is not. */
  uint64_t c_allocs = 0;
  for (int i = 0; i < r->nsites; i++)
    if (!strncmp(r->sites[i].name, "lib", 3))
      c_allocs += r->sites[i].allocs;
  ck_assert_uint_lt(c_allocs, 1000);
  ck_assert(json_has(json, "\"name\": \"@" COMPILE ":7\""));
  ck_assert(json_has(json, "@" COMPILE ":16;@" COMPILE ":7\""));
  ck_assert(json_has(json, "@" COMPILE ":16;@" COMPILE ":9\""));
  ck_assert(json_has(json, "@" COMPILE ":16;@" COMPILE ":12\""));
  free(r);
}

START_TEST(test_compiled_chunks_are_charged_to_their_loading_lines_with_their_stacks)
{
  check_compile("compile", "");
}
END_TEST

/* With the JIT off the loaders are called by the interpreter, with it on
 * through calls stitched to the loop's trace: the same lines either way. */
START_TEST(test_compiled_chunks_are_charged_to_their_loading_lines_with_the_jit_off)
{
  check_compile("compile-jitoff", "-j off");
}
END_TEST

/* 50,000 strings kept: the string table doubles several times. Each resize
 * is the site "VM: string table" (all its allocations are resizes), none is
 * INTERNAL or the line's, and its stack is the line that interned the
 * string, under its caller. The JSON result and ljleak summary name it. */
START_TEST(test_string_table_resizes_are_a_named_vm_site_under_their_stack)
{
  char json[1200];
  struct capture_read *r = run_with_result("strings", STRINGS, json, sizeof json);
  const struct site_total *t = must_site(r, STRING_TABLE_SITE);
  ck_assert_uint_ge(t->allocs, 5);   /* 50,000 strings: 512 slots to 64 Ki, and more */
  ck_assert_uint_eq(t->table_resizes, t->allocs);
  ck_assert_uint_eq(allocs_at(r, "INTERNAL"), 0);
  ck_assert_uint_eq(must_site(r, "@" STRINGS ":4")->table_resizes, 0);
  ck_assert_uint_ge(must_site(r, "@" STRINGS ":4")->allocs, 50000);
  ck_assert_uint_le(must_site(r, "@" STRINGS ":4")->allocs, 50000 + 16);
  ck_assert(json_has(json, "\"name\": \"VM: string table\""));
  ck_assert(json_has(json, "@" STRINGS ":7;@" STRINGS ":4;VM: string table\""));
  free(r);
  char dir[1024];
  scratch_path(dir, sizeof dir, "strings");
  ck_assert_int_eq(sh("'%s/ljleak' summary '%s'/cap/seg-*.memprof | grep -q '^" STRING_TABLE_SITE ": '",
                      build_dir(), dir), 0);
}
END_TEST

/* A VM site is an ordinary C symbol of the stream, emitted once per
 * segment before its first event, so every segment (cut small here) reads
 * to its end and names it as Tarantool's parser does; the trace recorder
 * and the compiler work for the loop and have their sites too. */
START_TEST(test_vm_sites_are_c_symbols_in_every_segment)
{
  char json[1200];
  struct capture_read *r =
    run_with_result("segments", "--max-bytes 64k " STRINGS, json, sizeof json);
  ck_assert_int_ge(r->segments, 3);
  for (int s = 0; s < r->segments; s++)
    ck_assert_int_eq(r->status[s], FORMAT_END);
  ck_assert_uint_ge(must_site(r, STRING_TABLE_SITE)->allocs, 5);
  ck_assert_uint_ge(must_site(r, "VM: trace recorder:0x30")->allocs, 1);
  ck_assert_uint_ge(must_site(r, "VM: trace compiler:0x40")->allocs, 1);   /* the trace saved */
  free(r);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("collector_vm");
  TCase *tc = tcase_create("vm");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_compiled_chunks_are_charged_to_their_loading_lines_with_their_stacks);
  tcase_add_test(tc, test_compiled_chunks_are_charged_to_their_loading_lines_with_the_jit_off);
  tcase_add_test(tc, test_string_table_resizes_are_a_named_vm_site_under_their_stack);
  tcase_add_test(tc, test_vm_sites_are_c_symbols_in_every_segment);
  suite_add_tcase(s, tc);
  return check_run(s);
}
