/* tests/test_diff_suspects.c: leak suspects from hand-built results with holders and containers: sites grouped by their container, the VM's work by its stacks, a C site alone, a site under two containers, no snapshot; and from a hand-built heap snapshot, two sites whose blocks are parts of the same tables counting each table once (docs/diff.md, "Leak suspects"). */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diff/holders.h"
#include "diff/suspects.h"
#include "format/snapshot.h"
#include "tests/bytes.h"
#include "tests/check_run.h"

static char *dup_text(const char *text)
{
  char *copy = strdup(text);
  ck_assert_ptr_nonnull(copy);
  return copy;
}

/* A flagged site (growing, 5 boundaries rising by growth a boundary). */
static void make_site(struct diff_site *site, const char *name, enum diff_site_kind kind, double growth)
{
  memset(site, 0, sizeof *site);
  site->name = dup_text(name);
  site->id = (uint64_t)(uintptr_t)site->name;  /* unique within the test */
  site->kind = kind;
  site->verdict = DIFF_VERDICT_GROWING;
  site->count = 5;
  site->live_bytes = calloc(5, sizeof *site->live_bytes);
  ck_assert_ptr_nonnull(site->live_bytes);
  for (size_t i = 0; i < 5; i++)
    site->live_bytes[i] = (uint64_t)(growth * (double)i);
  site->growth_bytes_per_segment = growth;
  site->growth_bytes_per_second = growth * 10;
  site->trend_p_value = 0.001;
}

/* A holder path and the container the snapshot pass found for the site. */
static void hold(struct diff_site *site, const char *path, uint64_t address, uint64_t retained,
                 uint64_t bytes, enum snapshot_type type, uint64_t objects)
{
  site->holder_count = 1;
  site->holders = calloc(1, sizeof *site->holders);
  ck_assert_ptr_nonnull(site->holders);
  site->holders[0].path = dup_text(path);
  site->holders[0].holder_type = dup_text("table");
  site->holders[0].objects = objects;
  site->holders[0].bytes = bytes;
  site->holders[0].retained_bytes = retained;
  site->holders_boundary = 5;
  site->kinds[type - 1].objects = objects;
  site->kinds[type - 1].bytes = bytes;
  site->container = calloc(1, sizeof *site->container);
  ck_assert_ptr_nonnull(site->container);
  site->container->address = address;
  site->container->type = dup_text("table");
  site->container->path = dup_text("_G.events.handlers");
  site->container->named = 1;
  site->container->retained_bytes = retained;
  site->container->objects = objects;
  site->container->bytes = bytes;
  site->container->kinds[type - 1] = site->kinds[type - 1];  /* all of them under it */
  site->container->boundary = 5;
}

static void make_result(struct diff_result *r, size_t count)
{
  memset(r, 0, sizeof *r);
  diff_options_default(&r->options);
  r->mode = DIFF_MODE_TREND;
  r->capture.boundary_count = 5;
  r->capture.snapshots = 1;
  r->site_count = count;
  r->sites = calloc(count, sizeof *r->sites);
  ck_assert_ptr_nonnull(r->sites);
}

static void finish(struct diff_result *r)
{
  diff_result_fill_facts(r);
  ck_assert_int_eq(diff_suspects_find(r), 0);
}

START_TEST(test_five_sites_under_one_container_make_one_suspect)
{
  struct diff_result r;
  make_result(&r, 6);
  /* In the engine's order (fastest first); the list's own growth too (its array part). */
  const char *names[5] = {"@bus.lua:24", "@bus.lua:27", "@bus.lua:23", "@bus.lua:22", "@bus.lua:10"};
  double growth[5] = {9600, 4500, 3000, 2800, 1000};
  enum snapshot_type types[5] = {SNAPSHOT_TABLE, SNAPSHOT_LUA_FUNCTION, SNAPSHOT_TABLE,
                                 SNAPSHOT_STRING, SNAPSHOT_TABLE};
  for (size_t i = 0; i < 5; i++) {
    make_site(&r.sites[i], names[i], DIFF_SITE_LUA, growth[i]);
    hold(&r.sites[i], i == 4 ? "_G.events.handlers" : "_G.events.handlers[*]", 0x1000, 1 << 20,
         (uint64_t)growth[i] * 60, types[i], 3000);
  }
  make_site(&r.sites[5], "@bus.lua:40", DIFF_SITE_LUA, 0);
  r.sites[5].verdict = DIFF_VERDICT_STEADY;
  finish(&r);
  ck_assert_uint_eq(r.facts.tally.flagged, 5);
  ck_assert(r.suspects_grouped);
  ck_assert_uint_eq(r.suspect_count, 1);
  const struct diff_suspect *s = &r.suspects[0];
  ck_assert_uint_eq(s->site_count, 5);
  for (size_t i = 0; i < 5; i++) {
    ck_assert_uint_eq(s->sites[i], i);  /* by growth */
    ck_assert_uint_eq(s->cause[i], SIZE_MAX);
  }
  ck_assert_double_eq(s->growth_bytes_per_segment, 9600 + 4500 + 3000 + 2800 + 1000);
  ck_assert_uint_eq(s->retained_bytes, 1 << 20);
  ck_assert_uint_eq(s->kinds[SNAPSHOT_TABLE - 1].objects, 9000);
  ck_assert_uint_eq(s->kinds[SNAPSHOT_STRING - 1].objects, 3000);
  ck_assert_uint_eq(s->kinds[SNAPSHOT_LUA_FUNCTION - 1].objects, 3000);
  ck_assert_str_eq(r.sites[s->named_site].container->path, "_G.events.handlers");
  ck_assert_uint_eq(diff_suspects_alone(&r), 0);
  ck_assert_ptr_eq(diff_suspects_of(&r, 5), NULL);
  ck_assert_ptr_eq(diff_suspects_of(&r, 3), s);
  diff_result_free(&r);
}
END_TEST

START_TEST(test_suspects_are_ordered_by_the_growth_they_hold)
{
  struct diff_result r;
  make_result(&r, 3);
  make_site(&r.sites[0], "@a.lua:1", DIFF_SITE_LUA, 5000);
  hold(&r.sites[0], "_G.small[*]", 0x1000, 10000, 5000, SNAPSHOT_TABLE, 10);
  make_site(&r.sites[1], "@b.lua:1", DIFF_SITE_LUA, 4000);
  hold(&r.sites[1], "_G.big[*]", 0x2000, 90000, 4000, SNAPSHOT_TABLE, 10);
  make_site(&r.sites[2], "@b.lua:2", DIFF_SITE_LUA, 3000);
  hold(&r.sites[2], "_G.big[*]", 0x2000, 90000, 3000, SNAPSHOT_STRING, 10);
  finish(&r);
  ck_assert_uint_eq(r.suspect_count, 2);
  ck_assert_double_eq(r.suspects[0].growth_bytes_per_segment, 7000);  /* b's two sites */
  ck_assert_uint_eq(r.suspects[0].site_count, 2);
  ck_assert_uint_eq(r.suspects[0].retained_bytes, 90000);
  ck_assert_double_eq(r.suspects[1].growth_bytes_per_segment, 5000);
  diff_result_free(&r);
}
END_TEST

/* A weak-keyed cache's values (site 0, growing fastest) whose keys a list holds (site 1's
 * container): one suspect, the list's, with the values' site first and their bytes in what it
 * retains; a third site's weak-keyed values whose key holder grows at no flagged site stay a
 * suspect of their own. */
START_TEST(test_a_weak_keyed_tables_values_go_with_the_suspect_that_holds_their_keys)
{
  struct diff_result r;
  make_result(&r, 3);
  make_site(&r.sites[0], "@app.lua:19", DIFF_SITE_LUA, 2800);
  hold(&r.sites[0], "_G.session_data[*]", 0x3000, 110000, 109000, SNAPSHOT_TABLE, 1000);
  free(r.sites[0].container->path);
  r.sites[0].container->path = dup_text("_G.session_data");
  r.sites[0].container->key_address = 0x2000;
  make_site(&r.sites[1], "@app.lua:17", DIFF_SITE_LUA, 2100);
  hold(&r.sites[1], "_G.sessions[*]", 0x2000, 94000, 86000, SNAPSHOT_TABLE, 1000);
  make_site(&r.sites[2], "@app.lua:30", DIFF_SITE_LUA, 1000);
  hold(&r.sites[2], "_G.other[*]", 0x5000, 40000, 30000, SNAPSHOT_TABLE, 100);
  r.sites[2].container->key_address = 0x9000;
  finish(&r);
  ck_assert_uint_eq(r.suspect_count, 2);
  const struct diff_suspect *s = &r.suspects[0];
  ck_assert_uint_eq(s->site_count, 2);
  ck_assert_uint_eq(s->sites[0], 0);  /* in the result's order */
  ck_assert_uint_eq(s->sites[1], 1);
  ck_assert_uint_eq(s->cause[0], SIZE_MAX);
  ck_assert_uint_eq(r.sites[s->named_site].container->address, 0x2000);
  ck_assert_int_eq(diff_suspect_through_keys(&r, s, 0), 1);
  ck_assert_int_eq(diff_suspect_through_keys(&r, s, 1), 0);
  ck_assert_uint_eq(s->retained_bytes, 94000 + 109000);
  ck_assert_double_eq(s->growth_bytes_per_segment, 2800 + 2100);
  ck_assert_uint_eq(s->kinds[SNAPSHOT_TABLE - 1].objects, 2000);
  ck_assert_ptr_eq(diff_suspects_of(&r, 0), s);
  ck_assert_uint_eq(r.suspects[1].site_count, 1);
  ck_assert_uint_eq(r.suspects[1].sites[0], 2);
  ck_assert_int_eq(diff_suspect_through_keys(&r, &r.suspects[1], 0), 0);
  diff_result_free(&r);
}
END_TEST

/* A list's records grow at one line (site 0); the line that appends them grows the list's own
 * slots in steps, undecided on its own (site 1, the same container): one leak, so it goes under
 * the list's suspect, its bytes in what the suspect holds, its growth not in the suspect's. An
 * undecided site of another container (site 2) stays apart, in no suspect. */
START_TEST(test_an_undecided_site_of_a_suspects_container_goes_under_it)
{
  struct diff_result r;
  make_result(&r, 3);
  make_site(&r.sites[0], "cjson.decode", DIFF_SITE_C, 84000);
  hold(&r.sites[0], "_G.history[*]", 0x2000, 5000000, 4700000, SNAPSHOT_TABLE, 40000);
  make_site(&r.sites[1], "@app.lua:8", DIFF_SITE_LUA, 3300);
  hold(&r.sites[1], "_G.history (its slots)", 0x2000, 5000000, 262144, SNAPSHOT_TABLE, 1);
  r.sites[1].verdict = DIFF_VERDICT_UNDECIDED;
  make_site(&r.sites[2], "@app.lua:30", DIFF_SITE_LUA, 1000);
  hold(&r.sites[2], "_G.other[*]", 0x5000, 40000, 30000, SNAPSHOT_TABLE, 100);
  r.sites[2].verdict = DIFF_VERDICT_UNDECIDED;
  finish(&r);
  ck_assert_uint_eq(r.facts.tally.flagged, 1);
  ck_assert_uint_eq(r.suspect_count, 1);
  const struct diff_suspect *s = &r.suspects[0];
  ck_assert_uint_eq(s->site_count, 2);
  ck_assert_uint_eq(s->sites[0], 0);
  ck_assert_uint_eq(s->sites[1], 1);
  ck_assert_uint_eq(s->bytes, 4700000 + 262144);
  ck_assert_double_eq(s->growth_bytes_per_segment, 84000);
  ck_assert_ptr_eq(diff_suspects_of(&r, 1), s);
  ck_assert_ptr_eq(diff_suspects_of(&r, 2), NULL);
  ck_assert_uint_eq(diff_suspects_alone(&r), 0);
  diff_result_free(&r);
}
END_TEST

/* A stack of site with its leaf Lua frame at chunk:line, live bytes at the last boundary. */
static void add_stack(struct diff_result *r, const struct diff_site *site, const char *chunk,
                      uint64_t line, uint64_t live)
{
  struct diff_site *bigger = realloc(r->stacks, (r->stack_count + 1) * sizeof *bigger);
  ck_assert_ptr_nonnull(bigger);
  r->stacks = bigger;
  struct diff_site *stack = &r->stacks[r->stack_count++];
  make_site(stack, "a stack", site->kind, 100);
  stack->is_stack = 1;
  stack->site_id = site->id;
  stack->live_bytes[4] = live;
  stack->frame_count = 2;
  stack->frames = calloc(2, sizeof *stack->frames);
  ck_assert_ptr_nonnull(stack->frames);
  stack->frames[0] = (struct diff_frame){STACKS_FRAME_C, dup_text("lj_str_new"), 0, 0};
  stack->frames[1] = (struct diff_frame){STACKS_FRAME_LUA, dup_text(chunk), 20, line};
}

START_TEST(test_the_vm_string_table_goes_under_the_suspect_its_stack_ends_at)
{
  struct diff_result r;
  make_result(&r, 4);
  make_site(&r.sites[0], "@bus.lua:22", DIFF_SITE_LUA, 5000);
  hold(&r.sites[0], "_G.events.handlers[*].id", 0x1000, 50000, 20000, SNAPSHOT_STRING, 3000);
  make_site(&r.sites[1], "@other.lua:5", DIFF_SITE_LUA, 4000);
  hold(&r.sites[1], "_G.other[*]", 0x2000, 40000, 16000, SNAPSHOT_TABLE, 100);
  make_site(&r.sites[2], "VM: string table", DIFF_SITE_C, 3000);
  make_site(&r.sites[3], "cjson.decode", DIFF_SITE_C, 2000);  /* a C library's memory */
  /* Most of the string table's live bytes come from the leaking line, some from the other. */
  add_stack(&r, &r.sites[2], "@bus.lua", 22, 60000);
  add_stack(&r, &r.sites[2], "@other.lua", 5, 1000);
  add_stack(&r, &r.sites[3], "@bus.lua", 22, 9000);  /* C memory: no stack makes it the VM's work */
  finish(&r);
  ck_assert_uint_eq(r.suspect_count, 2);
  const struct diff_suspect *bus = diff_suspects_of(&r, 0);
  ck_assert_ptr_nonnull(bus);
  ck_assert_ptr_eq(diff_suspects_of(&r, 2), bus);
  ck_assert_uint_eq(bus->site_count, 2);
  ck_assert_uint_eq(bus->sites[1], 2);
  ck_assert_uint_eq(bus->cause[1], 0);  /* the VM's work for @bus.lua:22 */
  ck_assert_double_eq(bus->growth_bytes_per_segment, 8000);
  ck_assert_ptr_eq(diff_suspects_of(&r, 3), NULL);  /* cjson.decode stays alone */
  ck_assert_uint_eq(diff_suspects_alone(&r), 1);
  diff_result_free(&r);
}
END_TEST

/* The VM's work with a container that holds little of it (VM: GC's 64 KiB of stack growth, of
 * no object, and a coroutine's 472 B stack): not a suspect of its own ("thread (main thread)"),
 * but the VM's work for the line its stacks end at. */
START_TEST(test_the_vms_work_with_a_small_container_goes_under_its_lines_suspect)
{
  struct diff_result r;
  make_result(&r, 2);
  make_site(&r.sites[0], "@log.lua:6", DIFF_SITE_LUA, 7000);
  hold(&r.sites[0], "local log in main chunk@log.lua", 0x1000, 100000, 28000, SNAPSHOT_STRING, 1);
  make_site(&r.sites[1], "VM: GC", DIFF_SITE_INTERNAL, 2200);  /* 8.8 KB live at the last */
  hold(&r.sites[1], "main thread", 0x3000, 472, 472, SNAPSHOT_THREAD, 1);
  add_stack(&r, &r.sites[1], "@log.lua", 6, 8800);
  finish(&r);
  ck_assert_uint_eq(r.suspect_count, 1);
  const struct diff_suspect *log = diff_suspects_of(&r, 0);
  ck_assert_ptr_nonnull(log);
  ck_assert_ptr_eq(diff_suspects_of(&r, 1), log);
  ck_assert_uint_eq(log->site_count, 2);
  diff_result_free(&r);
}
END_TEST

/* A chunk name the program chose (a Latin-1 file name, a ';'): the stack's leaf label is
 * cleaned (utf8_name_text), the site's name is not, and they still name one line. */
START_TEST(test_the_string_table_follows_a_chunk_named_in_latin1)
{
  struct diff_result r;
  make_result(&r, 2);
  make_site(&r.sites[0], "@caf\xe9;bus.lua:22", DIFF_SITE_LUA, 5000);
  hold(&r.sites[0], "_G.events.handlers[*].id", 0x1000, 50000, 20000, SNAPSHOT_STRING, 3000);
  make_site(&r.sites[1], "VM: string table", DIFF_SITE_C, 3000);
  add_stack(&r, &r.sites[1], "@caf\xe9;bus.lua", 22, 60000);
  finish(&r);
  ck_assert_uint_eq(r.suspect_count, 1);
  const struct diff_suspect *bus = diff_suspects_of(&r, 0);
  ck_assert_ptr_nonnull(bus);
  ck_assert_ptr_eq(diff_suspects_of(&r, 1), bus);
  ck_assert_uint_eq(bus->site_count, 2);
  ck_assert_uint_eq(bus->cause[1], 0);
  diff_result_free(&r);
}
END_TEST

START_TEST(test_a_c_site_without_a_container_stays_alone)
{
  struct diff_result r;
  make_result(&r, 2);
  make_site(&r.sites[0], "@app.lua:3", DIFF_SITE_LUA, 5000);
  hold(&r.sites[0], "_G.list[*]", 0x1000, 50000, 20000, SNAPSHOT_TABLE, 300);
  make_site(&r.sites[1], "ffi_alloc", DIFF_SITE_C, 9000);
  finish(&r);
  ck_assert_uint_eq(r.suspect_count, 1);
  ck_assert_uint_eq(r.suspects[0].site_count, 1);
  ck_assert_ptr_eq(diff_suspects_of(&r, 1), NULL);
  ck_assert_uint_eq(diff_suspects_alone(&r), 1);
  diff_result_free(&r);
}
END_TEST

START_TEST(test_a_site_under_two_containers_goes_to_the_one_holding_most)
{
  /* The snapshot pass gives each site the container that keeps more than half of its bytes
   * (test_diff_suspects' snapshot case below); here a site whose container is the bigger
   * share's joins the suspect of that container, not the other's. */
  struct diff_result r;
  make_result(&r, 3);
  make_site(&r.sites[0], "@a.lua:1", DIFF_SITE_LUA, 5000);
  hold(&r.sites[0], "_G.a[*]", 0xa000, 30000, 20000, SNAPSHOT_TABLE, 100);
  make_site(&r.sites[1], "@b.lua:1", DIFF_SITE_LUA, 4000);
  hold(&r.sites[1], "_G.b[*]", 0xb000, 30000, 20000, SNAPSHOT_TABLE, 100);
  make_site(&r.sites[2], "@both.lua:1", DIFF_SITE_LUA, 3000);
  hold(&r.sites[2], "_G.b[*]", 0xb000, 30000, 6000, SNAPSHOT_TABLE, 60);
  finish(&r);
  ck_assert_ptr_eq(diff_suspects_of(&r, 2), diff_suspects_of(&r, 1));
  ck_assert_ptr_ne(diff_suspects_of(&r, 2), diff_suspects_of(&r, 0));
  diff_result_free(&r);
}
END_TEST

/* The graph: node 0 the roots, 1 a global table, 2 and 3 two tables under it, a objects under
 * 2 and b under 3 (10 bytes each, the site's); *container gets the rule's answer. */
static void container_of_split(uint32_t a, uint32_t b, uint32_t *container)
{
  uint32_t n = 4 + a + b, first[64], succ[64], e = 0;
  uint64_t bytes[64] = {0};
  unsigned char own[64] = {0};
  ck_assert_uint_lt(n, 60);
  first[0] = e, succ[e++] = 1;
  first[1] = e, succ[e++] = 2, succ[e++] = 3;
  first[2] = e;
  for (uint32_t i = 0; i < a; i++)
    succ[e++] = 4 + i;
  first[3] = e;
  for (uint32_t i = 0; i < b; i++)
    succ[e++] = 4 + a + i;
  for (uint32_t v = 4; v < n; v++) {
    first[v] = e;
    own[v] = 1;
    bytes[v] = 10;
  }
  first[n] = e;
  ck_assert_int_eq(diff_suspects_container_node(n, first, succ, 0, bytes, own, container), 0);
}

START_TEST(test_the_container_is_the_one_holding_most_of_the_sites_bytes)
{
  uint32_t container;
  container_of_split(6, 4, &container);
  ck_assert_uint_eq(container, 2);  /* 60% under 2 */
  container_of_split(3, 7, &container);
  ck_assert_uint_eq(container, 3);
  container_of_split(5, 5, &container);
  ck_assert_uint_eq(container, 1);  /* neither holds most: the table that holds both */
  container_of_split(10, 0, &container);
  ck_assert_uint_eq(container, 2);
}
END_TEST

START_TEST(test_a_chain_of_the_sites_objects_is_held_by_its_head)
{
  /* 0 -> 1 (a global table) -> 2 -> 3 -> 4 -> 5: the site made 2..5 (a linked list). */
  uint32_t first[7] = {0, 1, 2, 3, 4, 5, 5}, succ[5] = {1, 2, 3, 4, 5}, container;
  uint64_t bytes[6] = {0, 0, 8, 8, 8, 8};
  unsigned char own[6] = {0, 0, 1, 1, 1, 1};
  ck_assert_int_eq(diff_suspects_container_node(6, first, succ, 0, bytes, own, &container), 0);
  ck_assert_uint_eq(container, 2);
}
END_TEST

START_TEST(test_no_snapshot_no_suspects)
{
  struct diff_result r;
  make_result(&r, 2);
  r.capture.snapshots = 0;
  make_site(&r.sites[0], "@app.lua:3", DIFF_SITE_LUA, 5000);
  make_site(&r.sites[1], "VM: string table", DIFF_SITE_C, 9000);
  finish(&r);
  ck_assert_uint_eq(r.suspect_count, 0);
  ck_assert(!r.suspects_grouped);
  ck_assert_uint_eq(diff_suspects_alone(&r), 2);
  diff_result_free(&r);
}
END_TEST

/* A snapshot being written into memory (snapshot_begin), read back into a struct snapshot when
 * it ends (snapshot_end). */
struct snapshot_memory {
  struct snapshot_writer w;
  struct bytes out;
  uint8_t *buffer;
};

static void snapshot_begin(struct snapshot_memory *m)
{
  size_t capacity = 8192;
  memset(m, 0, sizeof *m);
  m->buffer = malloc(2 * capacity);
  ck_assert_ptr_nonnull(m->buffer);
  struct snapshot_capture capture = {4242, 1763745600125, 3, 1, 100, 1763745605310, 4096, 0};
  snapshot_writer_init(&m->w, m->buffer, m->buffer + capacity, capacity, bytes_sink, &m->out);
  ck_assert_int_eq(snapshot_writer_begin(&m->w, &capture), 0);
}

static void snapshot_end(struct snapshot_memory *m, uint64_t root, struct snapshot *s)
{
  ck_assert_int_eq(snapshot_writer_root(&m->w, snapshot_writer_string(&m->w, "globals", 7), 0, root), 0);
  ck_assert_int_eq(snapshot_writer_end(&m->w), 0);
  free(m->buffer);
  struct format_error error;
  ck_assert_int_eq(snapshot_read_memory(s, m->out.data, m->out.size, "heap", &error), FORMAT_OK);
  free(m->out.data);
}

/* A heap snapshot: _G.list holds three tables, each with a hash part of its own block. */
static void write_tables(struct snapshot *s)
{
  struct snapshot_memory m;
  snapshot_begin(&m);
  struct snapshot_writer *w = &m.w;
  uint32_t list = snapshot_writer_string(w, "list", 4);
  struct snapshot_wire_object g = {SNAPSHOT_TABLE, 0, 0x1000, 40, 1, 0, NULL, 0};
  ck_assert_int_eq(snapshot_writer_object(w, &g), 0);
  ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_FIELD, 0, list, 0, 0x2000), 0);
  struct snapshot_wire_object l = {SNAPSHOT_TABLE, 0, 0x2000, 40, 3, 0, NULL, 0};
  ck_assert_int_eq(snapshot_writer_object(w, &l), 0);
  for (int i = 0; i < 3; i++)
    ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_INDEX, 0, 0, i + 1, 0x3000 + 0x100 * (uint64_t)i), 0);
  for (int i = 0; i < 3; i++) {
    struct snapshot_block hash = {0x3080 + 0x100 * (uint64_t)i, 64};
    struct snapshot_wire_object t = {SNAPSHOT_TABLE, 0, 0x3000 + 0x100 * (uint64_t)i, 40, 1, 0, &hash, 1};
    ck_assert_int_eq(snapshot_writer_object(w, &t), 0);
  }
  snapshot_end(&m, 0x1000, s);
}

START_TEST(test_two_sites_making_blocks_of_the_same_tables_count_each_table_once)
{
  /* One line makes three tables, the next grows their hash parts: six blocks, three tables. */
  struct snapshot s;
  write_tables(&s);
  struct diff_result r;
  make_result(&r, 2);
  make_site(&r.sites[0], "@a.lua:1", DIFF_SITE_LUA, 5000);
  make_site(&r.sites[1], "@a.lua:2", DIFF_SITE_LUA, 3000);
  struct diff_holders_block *blocks = malloc(6 * sizeof *blocks);  /* taken: freed once joined */
  ck_assert_ptr_nonnull(blocks);
  for (uint32_t i = 0; i < 3; i++) {
    blocks[i] = (struct diff_holders_block){0x3000 + 0x100 * (uint64_t)i, 40, 0};
    blocks[3 + i] = (struct diff_holders_block){0x3080 + 0x100 * (uint64_t)i, 64, 1};
  }
  struct diff_site *wanted[2] = {&r.sites[0], &r.sites[1]};
  ck_assert_int_eq(diff_holders_analyse_suspects(&s, &blocks, 6, wanted, 2, NULL, 5, NULL, 0), 0);
  ck_assert_ptr_null(blocks);
  snapshot_free(&s);
  for (size_t i = 0; i < 2; i++) {  /* each site: its three tables, once */
    ck_assert_uint_eq(r.sites[i].kinds[SNAPSHOT_TABLE - 1].objects, 3);
    ck_assert_ptr_nonnull(r.sites[i].container);
    ck_assert_uint_eq(r.sites[i].container->address, 0x2000);
    ck_assert_uint_eq(r.sites[i].container->objects, 3);
  }
  ck_assert_uint_eq(r.sites[0].kinds[SNAPSHOT_TABLE - 1].bytes, 3 * 40);
  ck_assert_uint_eq(r.sites[1].kinds[SNAPSHOT_TABLE - 1].bytes, 3 * 64);
  /* the first made the tables; the second only their hash parts (said "the slots of 3 tables") */
  ck_assert_uint_eq(r.sites[0].kinds[SNAPSHOT_TABLE - 1].parts, 0);
  ck_assert_uint_eq(r.sites[1].kinds[SNAPSHOT_TABLE - 1].parts, 3);
  ck_assert_uint_eq(r.sites[1].kinds[SNAPSHOT_TABLE - 1].part_bytes, 3 * 64);
  ck_assert_uint_eq(r.sites[1].container->kinds[SNAPSHOT_TABLE - 1].parts, 3);
  finish(&r);
  ck_assert_uint_eq(r.suspect_count, 1);
  const struct diff_suspect *suspect = &r.suspects[0];
  ck_assert_uint_eq(suspect->site_count, 2);
  ck_assert_uint_eq(suspect->kinds[SNAPSHOT_TABLE - 1].objects, 3);  /* not 6 */
  ck_assert_uint_eq(suspect->kinds[SNAPSHOT_TABLE - 1].bytes, 3 * 40 + 3 * 64);
  ck_assert_uint_eq(suspect->kinds[SNAPSHOT_TABLE - 1].parts, 0);  /* an object once, whole */
  ck_assert_uint_eq(suspect->objects, 3);
  ck_assert_uint_eq(suspect->bytes, 3 * 40 + 3 * 64);
  diff_result_free(&r);
}
END_TEST

/* A heap snapshot: _G.window holds three tables, _G.slow a fourth (its one entry). */
static void write_window_and_slow(struct snapshot *s)
{
  struct snapshot_memory m;
  snapshot_begin(&m);
  struct snapshot_writer *w = &m.w;
  uint32_t window = snapshot_writer_string(w, "window", 6), slow = snapshot_writer_string(w, "slow", 4);
  struct snapshot_wire_object g = {SNAPSHOT_TABLE, 0, 0x1000, 40, 2, 0, NULL, 0};
  ck_assert_int_eq(snapshot_writer_object(w, &g), 0);
  ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_FIELD, 0, window, 0, 0x2000), 0);
  ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_FIELD, 0, slow, 0, 0x2100), 0);
  struct snapshot_wire_object wt = {SNAPSHOT_TABLE, 0, 0x2000, 40, 3, 0, NULL, 0};
  ck_assert_int_eq(snapshot_writer_object(w, &wt), 0);
  for (int i = 0; i < 3; i++)
    ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_INDEX, 0, 0, i + 1, 0x3000 + 0x100 * (uint64_t)i), 0);
  struct snapshot_wire_object st = {SNAPSHOT_TABLE, 0, 0x2100, 40, 1, 0, NULL, 0};
  ck_assert_int_eq(snapshot_writer_object(w, &st), 0);
  ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_INDEX, 0, 0, 1, 0x3300), 0);
  for (int i = 0; i < 4; i++) {
    struct snapshot_wire_object t = {SNAPSHOT_TABLE, 0, 0x3000 + 0x100 * (uint64_t)i, 40, 0, 0, NULL, 0};
    ck_assert_int_eq(snapshot_writer_object(w, &t), 0);
  }
  snapshot_end(&m, 0x1000, s);
}

/* The container of one site's four tables in write_window_and_slow's snapshot (boundary 5), with
 * growing the growing containers. */
static uint64_t container_with(const struct diff_container *growing, size_t count)
{
  struct snapshot s;
  write_window_and_slow(&s);
  struct diff_result r;
  make_result(&r, 1);
  make_site(&r.sites[0], "@metrics.lua:18", DIFF_SITE_LUA, 5000);
  struct diff_holders_block *blocks = malloc(4 * sizeof *blocks);  /* taken: freed once joined */
  ck_assert_ptr_nonnull(blocks);
  for (uint32_t i = 0; i < 4; i++)
    blocks[i] = (struct diff_holders_block){0x3000 + 0x100 * (uint64_t)i, 40, 0};
  struct diff_site *wanted[1] = {&r.sites[0]};
  ck_assert_int_eq(diff_holders_analyse_suspects(&s, &blocks, 4, wanted, 1, NULL, 5, growing, count), 0);
  snapshot_free(&s);
  ck_assert_ptr_nonnull(r.sites[0].container);
  uint64_t address = r.sites[0].container->address;
  if (address == 0x2100) {  /* what the growing list holds of the site, and its name */
    ck_assert_uint_eq(r.sites[0].container->objects, 1);
    ck_assert_uint_eq(r.sites[0].container->bytes, 40);
    ck_assert_uint_eq(r.sites[0].kinds[SNAPSHOT_TABLE - 1].objects, 4);
  }
  diff_result_free(&r);
  return address;
}

/* _G.shards holds two lists of two sessions each; _G.data, a weak-keyed table, holds a value
 * per session, keyed by it. No one object dominates most of the keys (each list two of four),
 * so the values' key holder is the nearest object that dominates them all, the table of shards:
 * they go under its suspect (two suspects before, the weak table one). */
static void write_shards(struct snapshot *s)
{
  struct snapshot_memory m;
  snapshot_begin(&m);
  struct snapshot_writer *w = &m.w;
  uint32_t shards = snapshot_writer_string(w, "shards", 6), data = snapshot_writer_string(w, "data", 4);
  uint32_t table = snapshot_writer_string(w, "[table]", 7);
  struct snapshot_wire_object g = {SNAPSHOT_TABLE, 0, 0x1000, 40, 2, 0, NULL, 0};
  ck_assert_int_eq(snapshot_writer_object(w, &g), 0);
  ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_FIELD, 0, shards, 0, 0x2000), 0);
  ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_FIELD, 0, data, 0, 0x4000), 0);
  struct snapshot_wire_object sh = {SNAPSHOT_TABLE, 0, 0x2000, 40, 2, 0, NULL, 0};
  ck_assert_int_eq(snapshot_writer_object(w, &sh), 0);
  for (int i = 0; i < 2; i++)
    ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_INDEX, 0, 0, i + 1, 0x2100 + 0x100 * (uint64_t)i), 0);
  for (int i = 0; i < 2; i++) {
    struct snapshot_wire_object l = {SNAPSHOT_TABLE, 0, 0x2100 + 0x100 * (uint64_t)i, 40, 2, 0, NULL, 0};
    ck_assert_int_eq(snapshot_writer_object(w, &l), 0);
    for (int j = 0; j < 2; j++)
      ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_INDEX, 0, 0, j + 1,
                                                 0x3000 + 0x100 * (uint64_t)(2 * i + j)), 0);
  }
  for (int k = 0; k < 4; k++) {
    struct snapshot_wire_object session = {SNAPSHOT_TABLE, 0, 0x3000 + 0x100 * (uint64_t)k, 40, 1, 0, NULL, 0};
    ck_assert_int_eq(snapshot_writer_object(w, &session), 0);
  }
  struct snapshot_wire_object weak = {SNAPSHOT_TABLE, SNAPSHOT_FLAG_WEAK_KEYS, 0x4000, 40, 4, 0, NULL, 0};
  ck_assert_int_eq(snapshot_writer_object(w, &weak), 0);
  for (int k = 0; k < 4; k++) {
    ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_KEYED, 0, table, 0, 0x5000 + 0x100 * (uint64_t)k), 0);
    ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_KEY, 1, table, 0, 0x3000 + 0x100 * (uint64_t)k), 0);
  }
  for (int k = 0; k < 4; k++) {
    struct snapshot_wire_object value = {SNAPSHOT_TABLE, 0, 0x5000 + 0x100 * (uint64_t)k, 48, 2, 0, NULL, 0};
    ck_assert_int_eq(snapshot_writer_object(w, &value), 0);
  }
  snapshot_end(&m, 0x1000, s);
}

START_TEST(test_keys_spread_over_lists_are_held_by_what_holds_the_lists)
{
  struct snapshot s;
  write_shards(&s);
  struct diff_result r;
  make_result(&r, 2);
  make_site(&r.sites[0], "@a.lua:8", DIFF_SITE_LUA, 5000);   /* the sessions */
  make_site(&r.sites[1], "@a.lua:10", DIFF_SITE_LUA, 3000);  /* their data */
  struct diff_holders_block *blocks = malloc(8 * sizeof *blocks);  /* taken: freed once joined */
  ck_assert_ptr_nonnull(blocks);
  for (uint32_t k = 0; k < 4; k++) {
    blocks[k] = (struct diff_holders_block){0x3000 + 0x100 * (uint64_t)k, 40, 0};
    blocks[4 + k] = (struct diff_holders_block){0x5000 + 0x100 * (uint64_t)k, 48, 1};
  }
  struct diff_site *wanted[2] = {&r.sites[0], &r.sites[1]};
  ck_assert_int_eq(diff_holders_analyse_suspects(&s, &blocks, 8, wanted, 2, NULL, 5, NULL, 0), 0);
  snapshot_free(&s);
  ck_assert_ptr_nonnull(r.sites[0].container);
  ck_assert_uint_eq(r.sites[0].container->address, 0x2000);
  ck_assert_ptr_nonnull(r.sites[1].container);
  ck_assert_uint_eq(r.sites[1].container->address, 0x4000);
  ck_assert_uint_eq(r.sites[1].container->key_address, 0x2000);
  finish(&r);
  ck_assert_uint_eq(r.suspect_count, 1);
  ck_assert_uint_eq(r.suspects[0].site_count, 2);
  ck_assert_int_eq(diff_suspect_through_keys(&r, &r.suspects[0], 0) + diff_suspect_through_keys(&r, &r.suspects[0], 1), 1);
  diff_result_free(&r);
}
END_TEST

/* _G.a and _G.b, two lists, hold four handles (a all four, or two each when split); _G.index, a
 * weak table with its slots in a block of their own, refers weakly to each handle: by id as a
 * weak-valued table, or as a weak-keyed set. */
static void write_weak_slots(struct snapshot *s, unsigned weak, int split)
{
  struct snapshot_memory m;
  snapshot_begin(&m);
  struct snapshot_writer *w = &m.w;
  uint32_t a = snapshot_writer_string(w, "a", 1), b = snapshot_writer_string(w, "b", 1);
  uint32_t index = snapshot_writer_string(w, "index", 5), table = snapshot_writer_string(w, "[table]", 7);
  struct snapshot_wire_object g = {SNAPSHOT_TABLE, 0, 0x1000, 40, 3, 0, NULL, 0};
  ck_assert_int_eq(snapshot_writer_object(w, &g), 0);
  ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_FIELD, 0, a, 0, 0x2000), 0);
  ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_FIELD, 0, b, 0, 0x2100), 0);
  ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_FIELD, 0, index, 0, 0x4000), 0);
  for (int l = 0; l < 2; l++) {
    struct snapshot_wire_object list = {SNAPSHOT_TABLE, 0, 0x2000 + 0x100 * (uint64_t)l, 40, 4, 0, NULL, 0};
    ck_assert_int_eq(snapshot_writer_object(w, &list), 0);
    for (int k = 0; k < 4; k++)
      if (split ? k % 2 == l : l == 0)
        ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_INDEX, 0, 0, k + 1, 0x3000 + 0x100 * (uint64_t)k), 0);
  }
  for (int k = 0; k < 4; k++) {
    struct snapshot_wire_object handle = {SNAPSHOT_TABLE, 0, 0x3000 + 0x100 * (uint64_t)k, 40, 1, 0, NULL, 0};
    ck_assert_int_eq(snapshot_writer_object(w, &handle), 0);
  }
  struct snapshot_block slots = {0x4800, 256};
  struct snapshot_wire_object weak_table = {SNAPSHOT_TABLE, weak, 0x4000, 40, 4, 0, &slots, 1};
  ck_assert_int_eq(snapshot_writer_object(w, &weak_table), 0);
  for (int k = 0; k < 4; k++) {
    uint64_t handle = 0x3000 + 0x100 * (uint64_t)k;
    if (weak == SNAPSHOT_FLAG_WEAK_VALUES)
      ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_INDEX, 1, 0, 3 * k + 1, handle), 0);
    else
      ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_KEY, 1, table, 0, handle), 0);
  }
  snapshot_end(&m, 0x1000, s);
}

/* The handles (site 0) and the weak table's slots (site 1), joined with write_weak_slots's heap. */
static void analyse_weak_slots(struct diff_result *r, unsigned weak, int split)
{
  struct snapshot s;
  write_weak_slots(&s, weak, split);
  make_result(r, 2);
  make_site(&r->sites[0], "@a.lua:8", DIFF_SITE_LUA, 5000);   /* the handles */
  make_site(&r->sites[1], "@a.lua:10", DIFF_SITE_LUA, 3000);  /* the index's slots */
  struct diff_holders_block *blocks = malloc(5 * sizeof *blocks);  /* taken: freed once joined */
  ck_assert_ptr_nonnull(blocks);
  for (uint32_t k = 0; k < 4; k++)
    blocks[k] = (struct diff_holders_block){0x3000 + 0x100 * (uint64_t)k, 40, 0};
  blocks[4] = (struct diff_holders_block){0x4800, 256, 1};
  struct diff_site *wanted[2] = {&r->sites[0], &r->sites[1]};
  ck_assert_int_eq(diff_holders_analyse_suspects(&s, &blocks, 5, wanted, 2, NULL, 5, NULL, 0), 0);
  snapshot_free(&s);
  ck_assert_ptr_nonnull(r->sites[1].container);
  ck_assert_uint_eq(r->sites[1].container->address, 0x4000);  /* the table holds its slots */
  finish(r);
}

/* A weak table's slots grow while what it refers to weakly lives: with a list that keeps every
 * handle, they go under the list's suspect, the list's leak (two suspects before); with the
 * handles in two lists, neither holding most, they stay a suspect of their own. */
START_TEST(test_a_weak_tables_slots_go_with_the_suspect_that_holds_its_entries)
{
  const unsigned weak[2] = {SNAPSHOT_FLAG_WEAK_VALUES, SNAPSHOT_FLAG_WEAK_KEYS};
  for (int i = 0; i < 2; i++) {
    struct diff_result r;
    analyse_weak_slots(&r, weak[i], 0);
    ck_assert_uint_eq(r.sites[0].container->address, 0x2000);
    ck_assert_uint_eq(r.sites[1].container->key_address, 0x2000);
    ck_assert_int_eq(r.sites[1].container->key_slots, (int)weak[i]);
    ck_assert_str_eq(diff_key_slots_name(r.sites[1].container->key_slots), i ? "weak keys" : "weak values");
    ck_assert_uint_eq(r.suspect_count, 1);
    ck_assert_uint_eq(r.suspects[0].site_count, 2);
    ck_assert_int_eq(diff_suspect_through_keys(&r, &r.suspects[0], 1), 1);
    ck_assert_uint_eq(r.suspects[0].retained_bytes, 40 + 4 * 40 + 256);  /* the list, its handles, the slots */
    diff_result_free(&r);
    analyse_weak_slots(&r, weak[i], 1);
    ck_assert_uint_eq(r.sites[1].container->key_address, 0);
    ck_assert_int_eq(r.sites[1].container->key_slots, 0);
    ck_assert_uint_eq(r.suspect_count, 2);
    diff_result_free(&r);
  }
}
END_TEST

/* Two weak-keyed tables keyed by the nodes of one list, a value each per node (sites 0 and 1):
 * the keys' dominators are each the node before, no majority, and the walks to their common
 * dominator grow with the list (a quarter of its square). The walks' budget is the snapshot's:
 * once the first site spends it, the second gets none either (it wrapped to SIZE_MAX, and the
 * second site walked without bound). */
START_TEST(test_the_key_holders_walks_have_one_budget)
{
  enum { NODES = 200 };
  struct snapshot_memory m;
  snapshot_begin(&m);
  struct snapshot_writer *w = &m.w;
  uint32_t chain = snapshot_writer_string(w, "chain", 5), next = snapshot_writer_string(w, "next", 4);
  uint32_t a = snapshot_writer_string(w, "a", 1), b = snapshot_writer_string(w, "b", 1);
  uint32_t table = snapshot_writer_string(w, "[table]", 7);
  struct snapshot_wire_object g = {SNAPSHOT_TABLE, 0, 0x1000, 40, 3, 0, NULL, 0};
  ck_assert_int_eq(snapshot_writer_object(w, &g), 0);
  ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_FIELD, 0, chain, 0, 0x10000), 0);
  ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_FIELD, 0, a, 0, 0x4000), 0);
  ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_FIELD, 0, b, 0, 0x5000), 0);
  for (uint64_t i = 0; i < NODES; i++) {
    struct snapshot_wire_object node = {SNAPSHOT_TABLE, 0, 0x10000 + 0x100 * i, 40, 1, 0, NULL, 0};
    ck_assert_int_eq(snapshot_writer_object(w, &node), 0);
    if (i + 1 < NODES)
      ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_FIELD, 0, next, 0, 0x10000 + 0x100 * (i + 1)), 0);
  }
  for (uint64_t t = 0; t < 2; t++) {
    struct snapshot_wire_object weak = {SNAPSHOT_TABLE, SNAPSHOT_FLAG_WEAK_KEYS, 0x4000 + 0x1000 * t, 40, NODES, 0, NULL, 0};
    ck_assert_int_eq(snapshot_writer_object(w, &weak), 0);
    for (uint64_t i = 0; i < NODES; i++) {
      ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_KEYED, 0, table, 0, 0x100000 * (t + 1) + 0x100 * i), 0);
      ck_assert_int_eq(snapshot_writer_reference(w, SNAPSHOT_REF_KEY, 1, table, 0, 0x10000 + 0x100 * i), 0);
    }
  }
  for (uint64_t t = 0; t < 2; t++)
    for (uint64_t i = 0; i < NODES; i++) {
      struct snapshot_wire_object value = {SNAPSHOT_TABLE, 0, 0x100000 * (t + 1) + 0x100 * i, 48, 1, 0, NULL, 0};
      ck_assert_int_eq(snapshot_writer_object(w, &value), 0);
    }
  struct snapshot s;
  snapshot_end(&m, 0x1000, &s);
  struct diff_result r;
  make_result(&r, 2);
  make_site(&r.sites[0], "@a.lua:3", DIFF_SITE_LUA, 5000);
  make_site(&r.sites[1], "@a.lua:4", DIFF_SITE_LUA, 4000);
  struct diff_holders_block *blocks = malloc(2 * NODES * sizeof *blocks);  /* taken */
  ck_assert_ptr_nonnull(blocks);
  for (uint32_t t = 0; t < 2; t++)
    for (uint64_t i = 0; i < NODES; i++)
      blocks[t * NODES + i] = (struct diff_holders_block){0x100000 * (t + 1) + 0x100 * i, 48, t};
  struct diff_site *wanted[2] = {&r.sites[0], &r.sites[1]};
  ck_assert_int_eq(diff_holders_analyse_suspects(&s, &blocks, 2 * NODES, wanted, 2, NULL, 5, NULL, 0), 0);
  snapshot_free(&s);
  for (int i = 0; i < 2; i++) {
    ck_assert_ptr_nonnull(r.sites[i].container);
    ck_assert_uint_eq(r.sites[i].container->key_address, 0);
  }
  diff_result_free(&r);
}
END_TEST

START_TEST(test_a_growing_list_holds_the_growth_that_a_flushed_window_outnumbers)
{
  /* The window holds three of the four tables, but only the slow list grows. */
  ck_assert_uint_eq(container_with(NULL, 0), 0x2000);
  struct diff_container slow = {0x2100, "table", NULL, "_G.slow", {3, 5}, {0, 1}, {40, 56}};
  ck_assert_uint_eq(container_with(&slow, 1), 0x2100);
  /* Its entries are mostly the site's at this snapshot, not at the other one: a tenth or more. */
  slow.boundaries[0] = 5, slow.boundaries[1] = 9;
  ck_assert_uint_eq(container_with(&slow, 1), 0x2100);
  slow.entries[0] = 11;  /* one table of the site among eleven entries: it grows with something else */
  ck_assert_uint_eq(container_with(&slow, 1), 0x2000);
  slow.entries[0] = 10;
  ck_assert_uint_eq(container_with(&slow, 1), 0x2100);
  /* Not at this snapshot's boundary: it may not be the same object here. */
  slow.boundaries[0] = 7;
  ck_assert_uint_eq(container_with(&slow, 1), 0x2000);
  /* Another type at that address, or no object there: not taken. */
  struct diff_container other = {0x2100, "userdata", NULL, "_G.slow", {3, 5}, {0, 1}, {40, 56}};
  ck_assert_uint_eq(container_with(&other, 1), 0x2000);
  other = (struct diff_container){0x2200, "table", NULL, "_G.gone", {3, 5}, {0, 1}, {40, 56}};
  ck_assert_uint_eq(container_with(&other, 1), 0x2000);
  /* The rule's own container grows: kept, though another growing list holds some too. */
  struct diff_container both[2] = {{0x2100, "table", NULL, "_G.slow", {3, 5}, {0, 1}, {40, 56}},
                                   {0x2000, "table", NULL, "_G.window", {3, 5}, {1, 3}, {40, 88}}};
  ck_assert_uint_eq(container_with(both, 2), 0x2000);
}
END_TEST

START_TEST(test_kind_names_parse_back)
{
  for (size_t k = 0; k < DIFF_KIND_COUNT; k++) {
    size_t back = SIZE_MAX;
    ck_assert_int_eq(diff_kind_parse(diff_kind_name(k), &back), 0);
    ck_assert_uint_eq(back, k);
  }
  size_t kind;
  ck_assert_int_eq(diff_kind_parse("continued", &kind), -1);
  ck_assert_str_eq(diff_kind_words(SNAPSHOT_THREAD - 1), "coroutines");
  ck_assert_str_eq(diff_kind_words(SNAPSHOT_LUA_FUNCTION - 1), "closures");
  ck_assert_str_eq(diff_kind_name(SNAPSHOT_TABLE - 1), "table");
}
END_TEST

int main(void)
{
  Suite *s = suite_create("diff_suspects");
  TCase *group = tcase_create("group");
  tcase_add_test(group, test_five_sites_under_one_container_make_one_suspect);
  tcase_add_test(group, test_suspects_are_ordered_by_the_growth_they_hold);
  tcase_add_test(group, test_a_weak_keyed_tables_values_go_with_the_suspect_that_holds_their_keys);
  tcase_add_test(group, test_an_undecided_site_of_a_suspects_container_goes_under_it);
  tcase_add_test(group, test_the_vm_string_table_goes_under_the_suspect_its_stack_ends_at);
  tcase_add_test(group, test_the_vms_work_with_a_small_container_goes_under_its_lines_suspect);
  tcase_add_test(group, test_the_string_table_follows_a_chunk_named_in_latin1);
  tcase_add_test(group, test_a_c_site_without_a_container_stays_alone);
  tcase_add_test(group, test_a_site_under_two_containers_goes_to_the_one_holding_most);
  tcase_add_test(group, test_no_snapshot_no_suspects);
  tcase_add_test(group, test_the_container_is_the_one_holding_most_of_the_sites_bytes);
  tcase_add_test(group, test_a_chain_of_the_sites_objects_is_held_by_its_head);
  tcase_add_test(group, test_two_sites_making_blocks_of_the_same_tables_count_each_table_once);
  tcase_add_test(group, test_keys_spread_over_lists_are_held_by_what_holds_the_lists);
  tcase_add_test(group, test_the_key_holders_walks_have_one_budget);
  tcase_add_test(group, test_a_weak_tables_slots_go_with_the_suspect_that_holds_its_entries);
  tcase_add_test(group, test_a_growing_list_holds_the_growth_that_a_flushed_window_outnumbers);
  tcase_add_test(group, test_kind_names_parse_back);
  suite_add_tcase(s, group);
  return check_run(s);
}
