/* tests/test_format_symtab.c: symbol table and location names, rule by rule, as Tarantool's parser prints them. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_run.h"
#include "format/memprof.h"

#define FIXTURES "testdata/tarantool-memprof/"

static struct memprof_symtab *table;

static void setup(void)
{
  table = memprof_symtab_new();
  ck_assert_ptr_nonnull(table);
}

static void teardown(void)
{
  memprof_symtab_free(table);
}

static void add_lua(uint64_t address, const char *chunk, uint64_t line)
{
  struct memprof_symbol s = {MEMPROF_SYMBOL_LUA, address, line, 0, chunk, strlen(chunk)};
  ck_assert_int_eq(memprof_symtab_add(table, &s), 0);
}

static void add_c(uint64_t address, const char *name)
{
  struct memprof_symbol s = {MEMPROF_SYMBOL_C, address, 0, 0, name, strlen(name)};
  ck_assert_int_eq(memprof_symtab_add(table, &s), 0);
}

static void add_trace(uint64_t trace, uint64_t address, uint64_t line)
{
  struct memprof_symbol s = {MEMPROF_SYMBOL_TRACE, address, line, trace, NULL, 0};
  ck_assert_int_eq(memprof_symtab_add(table, &s), 0);
}

/* The name of an event's location under a naming. */
static const char *name_of(enum memprof_source source, uint64_t location, uint64_t line,
                           enum memprof_naming naming)
{
  static char out[512];
  struct memprof_event e = {MEMPROF_EVENT_ALLOC, source, location, line, 0, 0, 1, 1};
  size_t length = memprof_symtab_name(table, &e, naming, out, sizeof out);
  ck_assert_uint_eq(length, strlen(out));
  return out;
}

#define TARANTOOL MEMPROF_NAMING_TARANTOOL
#define STABLE MEMPROF_NAMING_STABLE

START_TEST(test_internal_source_and_address_zero_are_internal)
{
  add_lua(0, "@zero.lua", 1);
  add_c(0, "at_zero");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_INTERNAL, 0, 0, TARANTOOL), "INTERNAL");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_INTERNAL, 0, 0, STABLE), "INTERNAL");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_LUA, 0, 5, TARANTOOL), "INTERNAL");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_C, 0, 0, TARANTOOL), "INTERNAL");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_TRACE, 0, 0, TARANTOOL), "INTERNAL");
}
END_TEST

START_TEST(test_lua_location_is_chunk_and_current_line)
{
  add_lua(0x4000, "@app/handler.lua", 40);
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_LUA, 0x4000, 42, TARANTOOL), "@app/handler.lua:42");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_LUA, 0x4000, 42, STABLE), "@app/handler.lua:42");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_LUA, 0x4000, 0, TARANTOOL), "@app/handler.lua:0");
}
END_TEST

START_TEST(test_later_lua_symbol_at_same_address_replaces_earlier)
{
  add_lua(0x4000, "@old.lua", 1);
  add_lua(0x4000, "@new.lua", 1);
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_LUA, 0x4000, 3, TARANTOOL), "@new.lua:3");
}
END_TEST

START_TEST(test_chunks_with_newline_get_aliases_in_order_of_first_appearance)
{
  add_lua(0x100, "return 1\n", 1);
  add_lua(0x200, "@plain.lua", 1);
  add_lua(0x300, "local x\nreturn x", 1);
  add_lua(0x400, "return 1\n", 1);  /* same text again: same alias */
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_LUA, 0x100, 2, TARANTOOL), "function_alias_1:2");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_LUA, 0x300, 1, TARANTOOL), "function_alias_2:1");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_LUA, 0x400, 7, TARANTOOL), "function_alias_1:7");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_LUA, 0x200, 7, TARANTOOL), "@plain.lua:7");
  ck_assert_uint_eq(memprof_symtab_alias_count(table), 2);
  size_t length = 0;
  const char *text = memprof_symtab_alias_source(table, 0, &length);
  ck_assert_uint_eq(length, 9);
  ck_assert_int_eq(memcmp(text, "return 1\n", 9), 0);
  text = memprof_symtab_alias_source(table, 1, &length);
  ck_assert_uint_eq(length, 16);
  ck_assert_int_eq(memcmp(text, "local x\nreturn x", 16), 0);
  ck_assert_ptr_null(memprof_symtab_alias_source(table, 2, &length));
}
END_TEST

/* Stable names of aliased chunks come from the source, not from the order:
 * a chunk keeps its name when another one appears first (as in the next
 * segment), and two sources never share one. */
START_TEST(test_stable_alias_name_is_the_source_hash)
{
  add_lua(0x100, "return 1\n", 1);
  add_lua(0x300, "local x\nreturn x", 1);
  char first[64], other[64];
  snprintf(first, sizeof first, "%s", name_of(MEMPROF_SOURCE_LUA, 0x100, 2, STABLE));
  snprintf(other, sizeof other, "%s", name_of(MEMPROF_SOURCE_LUA, 0x300, 2, STABLE));
  ck_assert_int_eq(strncmp(first, "function_alias_", 15), 0);
  ck_assert_uint_eq(strlen(first), strlen("function_alias_") + 16 + strlen(":2"));
  ck_assert_str_ne(first, other);
  /* A new table where the other chunk comes first: "return 1\n" is alias 2
   * there for Tarantool, and keeps its stable name. */
  memprof_symtab_free(table);
  table = memprof_symtab_new();
  ck_assert_ptr_nonnull(table);
  add_lua(0x300, "local x\nreturn x", 1);
  add_lua(0x500, "return 1\n", 1);
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_LUA, 0x500, 2, TARANTOOL), "function_alias_2:2");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_LUA, 0x500, 2, STABLE), first);
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_LUA, 0x300, 2, STABLE), other);
}
END_TEST

START_TEST(test_trace_is_named_by_its_start_location)
{
  add_lua(0x4000, "@a.lua", 1);
  add_trace(3, 0x4000, 5);
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_TRACE, 3, 0, TARANTOOL), "TRACE [3] started at @a.lua:5");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_TRACE, 3, 0, STABLE), "TRACE started at @a.lua:5");
}
END_TEST

START_TEST(test_unknown_trace_has_only_its_number)
{
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_TRACE, 17, 0, TARANTOOL), "TRACE [17]");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_TRACE, 17, 0, STABLE), "TRACE");
}
END_TEST

START_TEST(test_reused_trace_number_takes_latest_start)
{
  add_lua(0x4000, "@a.lua", 1);
  add_lua(0x5000, "load\nme", 1);
  add_trace(2, 0x4000, 5);
  add_trace(2, 0x5000, 9);
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_TRACE, 2, 0, TARANTOOL),
                   "TRACE [2] started at function_alias_1:9");
}
END_TEST

START_TEST(test_trace_start_at_unknown_proto_or_zero)
{
  add_c(0x1000, "lj_vm_foo");
  add_trace(4, 0x1234, 8);
  add_trace(5, 0, 8);
  add_trace(6, 0x10, 8);
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_TRACE, 4, 0, TARANTOOL),
                   "TRACE [4] started at lj_vm_foo:0x1000");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_TRACE, 4, 0, STABLE), "TRACE started at lj_vm_foo");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_TRACE, 5, 0, TARANTOOL), "TRACE [5] started at INTERNAL");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_TRACE, 6, 0, TARANTOOL), "TRACE [6] started at CFUNC 0x10");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_TRACE, 6, 0, STABLE), "TRACE started at CFUNC");
}
END_TEST

START_TEST(test_c_location_takes_nearest_symbol_at_or_below)
{
  add_c(0x7f0000002000, "memcpy");
  add_c(0x7f0000001000, "malloc");
  add_c(0x7f0000003000, "free");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_C, 0x7f0000001000, 0, TARANTOOL), "malloc:0x7f0000001000");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_C, 0x7f0000001fff, 0, TARANTOOL), "malloc:0x7f0000001000");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_C, 0x7f0000002001, 0, TARANTOOL), "memcpy:0x7f0000002000");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_C, 0xffffffffffffffff, 0, TARANTOOL),
                   "free:0x7f0000003000");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_C, 0x7f0000002001, 0, STABLE), "memcpy");
}
END_TEST

START_TEST(test_c_location_below_every_symbol_is_cfunc_hex)
{
  add_c(0x7f0000001000, "malloc");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_C, 0xabc, 0, TARANTOOL), "CFUNC 0xabc");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_C, 0xabc, 0, STABLE), "CFUNC");
}
END_TEST

START_TEST(test_c_location_with_no_symbols_is_cfunc_hex)
{
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_C, 0x1, 0, TARANTOOL), "CFUNC 0x1");
}
END_TEST

START_TEST(test_c_symbol_at_zero_prints_as_zero)
{
  /* Lua's %#x prints 0 without the 0x prefix. */
  add_c(0, "null_page");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_C, 0x20, 0, TARANTOOL), "null_page:0");
}
END_TEST

START_TEST(test_later_c_symbol_at_same_address_replaces_earlier)
{
  add_c(0x5000, "first");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_C, 0x5001, 0, TARANTOOL), "first:0x5000");
  add_c(0x5000, "second");
  add_c(0x4000, "below");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_C, 0x5001, 0, TARANTOOL), "second:0x5000");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_C, 0x4001, 0, TARANTOOL), "below:0x4000");
  add_c(0x5000, "third");
  add_c(0x5000, "fourth");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_C, 0x5000, 0, STABLE), "fourth");
}
END_TEST

START_TEST(test_lua_location_with_unknown_proto_falls_back_to_c_lookup)
{
  add_c(0x1000, "lj_BC_FUNCC");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_LUA, 0x1010, 5, TARANTOOL), "lj_BC_FUNCC:0x1000");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_LUA, 0x10, 5, TARANTOOL), "CFUNC 0x10");
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_LUA, 0x10, 5, STABLE), "CFUNC");
}
END_TEST

START_TEST(test_c_location_that_is_a_lua_proto_is_named_as_lua)
{
  /* Tarantool looks a C address up among prototypes first. */
  add_lua(0x3000, "@p.lua", 1);
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_C, 0x3000, 0, TARANTOOL), "@p.lua:0");
}
END_TEST

START_TEST(test_name_is_truncated_but_full_length_returned)
{
  add_lua(0x4000, "@a-rather-long-chunk-name.lua", 1);
  struct memprof_event e = {MEMPROF_EVENT_ALLOC, MEMPROF_SOURCE_LUA, 0x4000, 123, 0, 0, 1, 1};
  char out[8];
  ck_assert_uint_eq(memprof_symtab_name(table, &e, TARANTOOL, out, sizeof out), 33);
  ck_assert_str_eq(out, "@a-rath");
  ck_assert_uint_eq(memprof_symtab_name(table, &e, TARANTOOL, NULL, 0), 33);
}
END_TEST

START_TEST(test_many_c_symbols_in_any_order)
{
  /* 200000 symbols added in descending order, looked up after each batch. */
  char name[32];
  for (int batch = 0; batch < 4; batch++) {
    for (int i = 0; i < 50000; i++) {
      uint64_t n = (uint64_t)(200000 - (batch * 50000 + i));
      snprintf(name, sizeof name, "f%llu", (unsigned long long)n);
      add_c(n * 16, name);
    }
    uint64_t lowest = (uint64_t)(200000 - (batch * 50000 + 49999));
    snprintf(name, sizeof name, "f%llu:%#llx", (unsigned long long)lowest,
             (unsigned long long)(lowest * 16));
    ck_assert_str_eq(name_of(MEMPROF_SOURCE_C, lowest * 16 + 15, 0, TARANTOOL), name);
  }
  ck_assert_str_eq(name_of(MEMPROF_SOURCE_C, 100000 * 16 + 3, 0, STABLE), "f100000");
}
END_TEST

/* Returns 1 if line (up to ": N events") names a location seen in names. */
static int name_listed(char **names, size_t count, const char *name, size_t length)
{
  for (size_t i = 0; i < count; i++)
    if (strlen(names[i]) == length && memcmp(names[i], name, length) == 0)
      return 1;
  return 0;
}

START_TEST(test_basic_jiton_names_match_tarantool_output)
{
  struct format_error err;
  struct memprof_reader *r = memprof_reader_open(FIXTURES "basic-jiton.bin", &err);
  ck_assert_ptr_nonnull(r);
  struct memprof_record rec;
  char *names[256];
  size_t count = 0;
  char name[512];
  while (memprof_reader_next(r, &rec) == FORMAT_OK) {
    if (rec.type == MEMPROF_RECORD_SYMBOL) {
      ck_assert_int_eq(memprof_symtab_add(table, &rec.symbol), 0);
      continue;
    }
    /* Names as of the moment of the event, as Tarantool's parser makes them. */
    memprof_symtab_name(table, &rec.event, TARANTOOL, name, sizeof name);
    if (!name_listed(names, count, name, strlen(name))) {
      ck_assert_uint_lt(count, 256);
      names[count++] = strdup(name);
    }
  }
  ck_assert_int_eq(memprof_reader_next(r, &rec), FORMAT_END);
  memprof_reader_close(r);
  ck_assert_uint_eq(memprof_symtab_alias_count(table), 1);

  FILE *f = fopen(FIXTURES "basic-jiton.parse-memprof.txt", "r");
  ck_assert_ptr_nonnull(f);
  char line[1024];
  int checked = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    if (line[0] == '\t' && line[1] == '\t') {  /* an Overrides: entry */
      size_t length = strcspn(line + 2, "\n");
      ck_assert_msg(name_listed(names, count, line + 2, length), "not named: %s", line);
      checked++;
      continue;
    }
    char *events = strstr(line, ": ");
    if (line[0] == '\t' || events == NULL || strstr(line, " events\t") == NULL)
      continue;
    ck_assert_msg(name_listed(names, count, line, (size_t)(events - line)), "not named: %s", line);
    checked++;
  }
  fclose(f);
  ck_assert_int_eq(checked, 39 + 40);  /* location lines + Overrides: entries */
  for (size_t i = 0; i < count; i++)
    free(names[i]);
}
END_TEST

/* Locations over protos, C symbols and traces, named before and after each
 * symbol of a sequence: every one whose name changes (either naming) is
 * reported renamed, and the ones named below are not. */
struct renames_location {
  enum memprof_source source;
  uint64_t location, line;
};

static const struct renames_location renames_locations[] = {
    {MEMPROF_SOURCE_INTERNAL, 0, 0},  {MEMPROF_SOURCE_LUA, 0x1000, 3}, {MEMPROF_SOURCE_LUA, 0x2000, 7},
    {MEMPROF_SOURCE_LUA, 0x5800, 2},  {MEMPROF_SOURCE_C, 0x1000, 0},   {MEMPROF_SOURCE_C, 0x5010, 0},
    {MEMPROF_SOURCE_C, 0x4010, 0},    {MEMPROF_SOURCE_C, 0x9000, 0},   {MEMPROF_SOURCE_TRACE, 1, 0},
    {MEMPROF_SOURCE_TRACE, 2, 0},     {MEMPROF_SOURCE_TRACE, 3, 0},    {MEMPROF_SOURCE_TRACE, 0, 0},
};
#define RENAMES_LOCATIONS (sizeof renames_locations / sizeof *renames_locations)

static void renames_names(char names[][2][128])
{
  for (size_t i = 0; i < RENAMES_LOCATIONS; i++) {
    const struct renames_location *l = &renames_locations[i];
    snprintf(names[i][0], sizeof names[i][0], "%s", name_of(l->source, l->location, l->line, TARANTOOL));
    snprintf(names[i][1], sizeof names[i][1], "%s", name_of(l->source, l->location, l->line, STABLE));
  }
}

/* Adds symbol; returns a bit per location that renames reports. */
static unsigned renames_after(const struct memprof_symbol *symbol)
{
  char before[RENAMES_LOCATIONS][2][128], after[RENAMES_LOCATIONS][2][128];
  renames_names(before);
  ck_assert_int_eq(memprof_symtab_add(table, symbol), 0);
  renames_names(after);
  unsigned reported = 0;
  for (size_t i = 0; i < RENAMES_LOCATIONS; i++) {
    const struct renames_location *l = &renames_locations[i];
    int renamed = memprof_symtab_renames(table, symbol, l->source, l->location);
    if (strcmp(before[i][0], after[i][0]) || strcmp(before[i][1], after[i][1]))
      ck_assert_msg(renamed, "location %zu changed name (%s to %s) unreported", i, before[i][0], after[i][0]);
    reported |= (unsigned)renamed << i;
  }
  return reported;
}

START_TEST(test_renames_reports_every_location_a_symbol_renames)
{
  struct memprof_symbol lua = {MEMPROF_SYMBOL_LUA, 0x1000, 1, 0, "@a.lua", 6};
  ck_assert_uint_eq(renames_after(&lua), 1u << 1 | 1u << 4);  /* the proto's Lua and C locations */
  struct memprof_symbol trace = {MEMPROF_SYMBOL_TRACE, 0x1000, 3, 1, NULL, 0};
  ck_assert_uint_eq(renames_after(&trace), 1u << 8);  /* that trace alone */
  struct memprof_symbol trace2 = {MEMPROF_SYMBOL_TRACE, 0x2000, 7, 2, NULL, 0};
  ck_assert_uint_eq(renames_after(&trace2), 1u << 9);
  struct memprof_symbol lua2 = {MEMPROF_SYMBOL_LUA, 0x2000, 1, 0, "@b.lua", 6};
  ck_assert_uint_eq(renames_after(&lua2), 1u << 2 | 1u << 9);  /* and the trace starting there */
  struct memprof_symbol c = {MEMPROF_SYMBOL_C, 0x5000, 0, 0, "f", 1};
  ck_assert_uint_eq(renames_after(&c), 1u << 3 | 1u << 5 | 1u << 7);  /* every address from it up */
  struct memprof_symbol c2 = {MEMPROF_SYMBOL_C, 0x4000, 0, 0, "g", 1};
  ck_assert_uint_eq(renames_after(&c2), 1u << 3 | 1u << 5 | 1u << 6 | 1u << 7);
  struct memprof_symbol lua3 = {MEMPROF_SYMBOL_LUA, 0x5800, 1, 0, "@c.lua", 6};  /* over a C floor */
  ck_assert_uint_eq(renames_after(&lua3), 1u << 3);
  struct memprof_symbol again = {MEMPROF_SYMBOL_TRACE, 0x5800, 2, 1, NULL, 0};  /* a reused number */
  ck_assert_uint_eq(renames_after(&again), 1u << 8);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("format_symtab");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_internal_source_and_address_zero_are_internal);
  tcase_add_test(tc, test_renames_reports_every_location_a_symbol_renames);
  tcase_add_test(tc, test_lua_location_is_chunk_and_current_line);
  tcase_add_test(tc, test_later_lua_symbol_at_same_address_replaces_earlier);
  tcase_add_test(tc, test_chunks_with_newline_get_aliases_in_order_of_first_appearance);
  tcase_add_test(tc, test_stable_alias_name_is_the_source_hash);
  tcase_add_test(tc, test_trace_is_named_by_its_start_location);
  tcase_add_test(tc, test_unknown_trace_has_only_its_number);
  tcase_add_test(tc, test_reused_trace_number_takes_latest_start);
  tcase_add_test(tc, test_trace_start_at_unknown_proto_or_zero);
  tcase_add_test(tc, test_c_location_takes_nearest_symbol_at_or_below);
  tcase_add_test(tc, test_c_location_below_every_symbol_is_cfunc_hex);
  tcase_add_test(tc, test_c_location_with_no_symbols_is_cfunc_hex);
  tcase_add_test(tc, test_c_symbol_at_zero_prints_as_zero);
  tcase_add_test(tc, test_later_c_symbol_at_same_address_replaces_earlier);
  tcase_add_test(tc, test_lua_location_with_unknown_proto_falls_back_to_c_lookup);
  tcase_add_test(tc, test_c_location_that_is_a_lua_proto_is_named_as_lua);
  tcase_add_test(tc, test_name_is_truncated_but_full_length_returned);
  tcase_add_test(tc, test_many_c_symbols_in_any_order);
  tcase_add_test(tc, test_basic_jiton_names_match_tarantool_output);
  suite_add_tcase(s, tc);
  return check_run(s);
}
