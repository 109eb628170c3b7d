/* tests/test_report_stacks.c: stacks in the result model and the reports: verdicts by stack, base mode by stack, pprof (decoded here), folded stacks, JSON round trip, text, the HTML flame graph's data, chunk names that forge frames. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "diff/diff.h"
#include "diff/result.h"
#include "format/json_read.h"
#include "format/utf8.h"
#include "report/report.h"
#include "tests/check_run.h"
#include "tests/diff_result_fixture.h"
#include "tests/report_golden.h"

#define SITE_ID 0x10u
#define LEAK_NAME "@t.lua:40;@t.lua:21;@t.lua:10"
#define STEADY_NAME "@t.lua:41;@t.lua:31;@t.lua:10"

static const uint64_t site_series[] = {16384, 24576, 32768, 40960, 49152, 57344};
static const uint64_t leak_series[] = {8192, 16384, 24576, 32768, 40960, 49152};
static const uint64_t leak_blocks[] = {1, 2, 3, 4, 5, 6};
static const uint64_t steady_series[] = {8192, 8192, 8192, 8192, 8192, 12288};
static const uint64_t steady_blocks[] = {1, 1, 1, 1, 1, 2};

/* A stack of the helper at @t.lua:10 (defined at 9), called at caller_line
 * in a function defined at caller_defined, from the main chunk at main_line. */
static void add_stack(struct diff_result *r, const char *name, enum diff_verdict verdict,
                      const uint64_t *series, const uint64_t *blocks, uint64_t caller_defined,
                      uint64_t main_line)
{
  struct diff_site *stacks = realloc(r->stacks, (r->stack_count + 1) * sizeof *stacks);
  ck_assert_ptr_nonnull(stacks);
  r->stacks = stacks;
  struct diff_site *s = &stacks[r->stack_count++];
  memset(s, 0, sizeof *s);
  s->name = strdup(name);
  s->id = SITE_ID + r->stack_count;
  s->kind = DIFF_SITE_LUA;
  s->source_file = strdup("t.lua");
  s->source_line = 10;
  s->verdict = verdict;
  s->base_verdict = DIFF_VERDICT_INSUFFICIENT;
  s->count = 6;
  s->live_bytes = fixture_series_copy(series, 6);
  s->live_blocks = fixture_series_copy(blocks, 6);
  s->growth_bytes_per_segment = verdict == DIFF_VERDICT_GROWING ? 8192 : 0;
  s->allocs = 6;
  s->is_stack = 1;
  s->site_id = SITE_ID;
  s->frame_count = 3;
  s->frames = calloc(3, sizeof *s->frames);
  const uint64_t defined[] = {9, caller_defined, 0}, lines[] = {10, caller_defined + 1, main_line};
  for (int i = 0; i < 3; i++)
    s->frames[i] = (struct diff_frame){STACKS_FRAME_LUA, strdup("@t.lua"), defined[i], lines[i]};
}

/* One growing site, @t.lua:10, held by a leaking and a steady caller. */
static void two_callers(struct diff_result *r)
{
  fixture_result(r, DIFF_MODE_TREND, 6);
  struct diff_site *site = fixture_add_site(r, "@t.lua:10", DIFF_VERDICT_GROWING, site_series, 6);
  site->id = SITE_ID;
  site->kind = DIFF_SITE_LUA;
  site->source_file = strdup("t.lua");
  site->source_line = 10;
  site->growth_bytes_per_segment = 8192;
  add_stack(r, LEAK_NAME, DIFF_VERDICT_GROWING, leak_series, leak_blocks, 20, 40);
  add_stack(r, STEADY_NAME, DIFF_VERDICT_STEADY, steady_series, steady_blocks, 30, 41);
  r->flagged = 1;
}

/* Renders a result, its facts found after its last change (built by hand). */
static char *render(struct diff_result *r, enum report_format format,
                    const struct report_options *options, size_t *size)
{
  char *text = NULL;
  struct format_error error;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  diff_result_fill_facts(r);
  ck_assert_int_eq(report_render(r, format, options, out, &error), 0);
  fclose(out);
  if (size)
    *size = length;
  return text;
}

START_TEST(test_stack_verdicts_from_the_series_name_the_leaking_caller)
{
  struct diff_result r;
  two_callers(&r);
  r.stacks[0].verdict = r.stacks[1].verdict = DIFF_VERDICT_INSUFFICIENT;
  struct diff_options options = r.options;
  struct format_error err;
  ck_assert_int_eq(diff_decide(&r, &options, &err), FORMAT_OK);
  ck_assert_int_eq(r.sites[0].verdict, DIFF_VERDICT_GROWING);
  ck_assert_str_eq(r.stacks[0].name, LEAK_NAME);
  ck_assert_int_eq(r.stacks[0].verdict, DIFF_VERDICT_GROWING);
  ck_assert(r.stacks[0].growth_bytes_per_segment == 8192);
  ck_assert_str_eq(r.stacks[1].name, STEADY_NAME);
  ck_assert_int_eq(r.stacks[1].verdict, DIFF_VERDICT_STEADY);
  ck_assert(r.stacks[1].growth_bytes_per_segment == 0);
  /* By stack: the stacks become the rows; one is flagged. */
  diff_result_by_stack(&r);
  ck_assert_uint_eq(r.site_count, 2);
  ck_assert_uint_eq(r.stack_count, 0);
  ck_assert_uint_eq(r.flagged, 1);
  ck_assert_int_eq(r.options.by, DIFF_BY_STACK);
  ck_assert_str_eq(r.sites[0].name, LEAK_NAME);
  diff_result_free(&r);
}
END_TEST

START_TEST(test_base_mode_by_stack_makes_the_new_caller_new)
{
  struct diff_result r;
  two_callers(&r);
  r.mode = DIFF_MODE_BASE;
  r.base.boundary_count = 6;
  /* The base had the steady caller only, as steady. */
  struct diff_site *steady = &r.stacks[1];
  steady->base_count = 6;
  steady->base_live_bytes = fixture_series_copy(steady_series, 6);
  struct diff_site *site = &r.sites[0];
  site->base_count = 6;
  site->base_live_bytes = fixture_series_copy(steady_series, 6);
  struct diff_options options = r.options;
  struct format_error err;
  ck_assert_int_eq(diff_decide(&r, &options, &err), FORMAT_OK);
  ck_assert_int_eq(r.sites[0].verdict, DIFF_VERDICT_NEW);
  ck_assert_str_eq(r.stacks[0].name, LEAK_NAME);
  ck_assert_int_eq(r.stacks[0].verdict, DIFF_VERDICT_NEW);
  ck_assert_int_eq(r.stacks[0].base_verdict, DIFF_VERDICT_INSUFFICIENT);
  ck_assert_int_eq(r.stacks[1].verdict, DIFF_VERDICT_STEADY);
  ck_assert_int_eq(r.stacks[1].base_verdict, DIFF_VERDICT_STEADY);
  diff_result_free(&r);
}
END_TEST

START_TEST(test_folded_stacks_match_golden_and_options)
{
  struct diff_result r;
  two_callers(&r);
  struct report_options options = {0, NULL, 0, 0};
  char *text = render(&r, REPORT_FORMAT_FOLDED, &options, NULL);
  check_golden(text, "stacks.folded");
  free(text);
  options.growth = 1;  /* only what grew, by how much */
  text = render(&r, REPORT_FORMAT_FOLDED, &options, NULL);
  ck_assert_str_eq(text, LEAK_NAME " 40960\n" STEADY_NAME " 4096\n");
  free(text);
  options.growth = 0;
  options.boundary = 3;
  text = render(&r, REPORT_FORMAT_FOLDED, &options, NULL);
  ck_assert_str_eq(text, LEAK_NAME " 24576\n" STEADY_NAME " 8192\n");
  free(text);
  options.boundary = 7;  /* past the last boundary */
  struct format_error error;
  FILE *out = fopen("/dev/null", "w");
  ck_assert_int_eq(report_render(&r, REPORT_FORMAT_FOLDED, &options, out, &error), FORMAT_USAGE);
  fclose(out);
  ck_assert_str_eq(error.message, "--boundary 7: the result has boundaries 1 to 6");
  diff_result_free(&r);
}
END_TEST

/* ---- A protobuf walker for the profile ------------------------------------------ */

struct field {
  unsigned number, wire;
  uint64_t value;             /* varint */
  const uint8_t *bytes;       /* length-delimited */
  size_t length;
};

static uint64_t varint(const uint8_t **at, const uint8_t *end)
{
  uint64_t value = 0;
  for (int shift = 0; *at < end && shift < 64; shift += 7) {
    uint8_t b = *(*at)++;
    value |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80))
      return value;
  }
  ck_abort_msg("a varint runs past its message");
  return 0;
}

/* The next field of [*at, end), or 0 at the end. */
static int next_field(const uint8_t **at, const uint8_t *end, struct field *f)
{
  if (*at >= end)
    return 0;
  uint64_t key = varint(at, end);
  f->number = (unsigned)(key >> 3);
  f->wire = (unsigned)(key & 7);
  if (f->wire == 0) {
    f->value = varint(at, end);
  } else if (f->wire == 2) {
    f->length = (size_t)varint(at, end);
    if (f->length > (size_t)(end - *at))
      ck_abort_msg("field %u runs past its message", f->number);
    f->bytes = *at;
    *at += f->length;
  } else {
    ck_abort_msg("unexpected wire type %u", f->wire);
  }
  return 1;
}

/* The varint of field number in a message (0 when absent). */
static uint64_t message_uint(const uint8_t *bytes, size_t length, unsigned number)
{
  const uint8_t *at = bytes;
  struct field f;
  uint64_t value = 0;
  while (next_field(&at, bytes + length, &f))
    if (f.number == number && f.wire == 0)
      value = f.value;
  return value;
}

/* The packed varints of field number: up to max into out; returns the count. */
static size_t message_packed(const uint8_t *bytes, size_t length, unsigned number, uint64_t *out,
                             size_t max)
{
  const uint8_t *at = bytes;
  struct field f;
  size_t n = 0;
  while (next_field(&at, bytes + length, &f))
    if (f.number == number && f.wire == 2) {
      const uint8_t *p = f.bytes;
      while (p < f.bytes + f.length && n < max)
        out[n++] = varint(&p, f.bytes + f.length);
    }
  return n;
}

static uint8_t *gunzip(const char *data, size_t size, size_t *out_size)
{
  ck_assert_uint_ge(size, 2);
  ck_assert_uint_eq((uint8_t)data[0], 0x1f);  /* the gzip magic */
  ck_assert_uint_eq((uint8_t)data[1], 0x8b);
  size_t capacity = 1 << 20;
  uint8_t *out = malloc(capacity);
  z_stream z;
  memset(&z, 0, sizeof z);
  ck_assert_int_eq(inflateInit2(&z, 15 + 16), Z_OK);
  z.next_in = (Bytef *)data;
  z.avail_in = (uInt)size;
  z.next_out = out;
  z.avail_out = (uInt)capacity;
  ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
  *out_size = capacity - z.avail_out;
  inflateEnd(&z);
  return out;
}

#define MAX_ITEMS 64
struct profile {
  const char *strings[MAX_ITEMS];
  size_t string_lengths[MAX_ITEMS], string_count;
  uint64_t sample_types[MAX_ITEMS][2];
  size_t sample_type_count;
  struct field samples[MAX_ITEMS], locations[MAX_ITEMS], functions[MAX_ITEMS];
  size_t sample_count, location_count, function_count;
  uint64_t default_sample_type;
};

static void decode_profile(const uint8_t *bytes, size_t length, struct profile *p)
{
  memset(p, 0, sizeof *p);
  const uint8_t *at = bytes;
  struct field f;
  while (next_field(&at, bytes + length, &f)) {
    if (f.number == 6) {
      ck_assert_uint_lt(p->string_count, MAX_ITEMS);
      p->strings[p->string_count] = (const char *)f.bytes;
      p->string_lengths[p->string_count++] = f.length;
    } else if (f.number == 1) {
      p->sample_types[p->sample_type_count][0] = message_uint(f.bytes, f.length, 1);
      p->sample_types[p->sample_type_count++][1] = message_uint(f.bytes, f.length, 2);
    } else if (f.number == 2) {
      p->samples[p->sample_count++] = f;
    } else if (f.number == 4) {
      p->locations[p->location_count++] = f;
    } else if (f.number == 5) {
      p->functions[p->function_count++] = f;
    } else if (f.number == 14) {
      p->default_sample_type = f.value;
    }
  }
}

static int string_is(const struct profile *p, uint64_t index, const char *text)
{
  return index < p->string_count && p->string_lengths[index] == strlen(text) &&
         !memcmp(p->strings[index], text, p->string_lengths[index]);
}

/* "name start_line line" of a location id, via its line's function. */
static void describe_location(const struct profile *p, uint64_t id, char *out, size_t size)
{
  for (size_t i = 0; i < p->location_count; i++) {
    const struct field *l = &p->locations[i];
    if (message_uint(l->bytes, l->length, 1) != id)
      continue;
    const uint8_t *at = l->bytes;
    struct field f;
    while (next_field(&at, l->bytes + l->length, &f))
      if (f.number == 4) {
        uint64_t function = message_uint(f.bytes, f.length, 1), line = message_uint(f.bytes, f.length, 2);
        for (size_t j = 0; j < p->function_count; j++) {
          const struct field *fn = &p->functions[j];
          if (message_uint(fn->bytes, fn->length, 1) != function)
            continue;
          uint64_t name = message_uint(fn->bytes, fn->length, 2);
          uint64_t file = message_uint(fn->bytes, fn->length, 4);
          snprintf(out, size, "%.*s %.*s %llu %llu", (int)p->string_lengths[name], p->strings[name],
                   (int)p->string_lengths[file], p->strings[file],
                   (unsigned long long)message_uint(fn->bytes, fn->length, 5),
                   (unsigned long long)line);
          return;
        }
      }
  }
  snprintf(out, size, "location %llu not found", (unsigned long long)id);
}

START_TEST(test_pprof_profile_decodes_to_exact_strings_and_values)
{
  struct diff_result r;
  two_callers(&r);
  struct report_options options = {0, NULL, 0, 0};
  size_t size, length;
  char *gz = render(&r, REPORT_FORMAT_PPROF, &options, &size);
  uint8_t *bytes = gunzip(gz, size, &length);
  struct profile p;
  decode_profile(bytes, length, &p);
  static const char *const strings[] = {
      "", "inuse_space", "bytes", "inuse_objects", "count", "growth_space", "growth_objects",
      "@t.lua:9", "t.lua", "@t.lua:20", "@t.lua:0", "verdict", "growing", "@t.lua:30", "steady",
      "ljleak: inuse at boundary 6; growth from boundary 1 to 6"};
  ck_assert_uint_eq(p.string_count, sizeof strings / sizeof *strings);
  for (size_t i = 0; i < p.string_count; i++)
    if (!string_is(&p, i, strings[i]))
      ck_abort_msg("string %zu is '%.*s', expected '%s'", i, (int)p.string_lengths[i], p.strings[i],
                   strings[i]);
  ck_assert_uint_eq(p.sample_type_count, 4);
  static const uint64_t types[4][2] = {{1, 2}, {3, 4}, {5, 2}, {6, 4}};
  for (int i = 0; i < 4; i++)
    if (p.sample_types[i][0] != types[i][0] || p.sample_types[i][1] != types[i][1])
      ck_abort_msg("sample type %d is (%llu, %llu)", i, (unsigned long long)p.sample_types[i][0],
                   (unsigned long long)p.sample_types[i][1]);
  ck_assert_uint_eq(p.default_sample_type, 1);  /* inuse_space */
  ck_assert_uint_eq(p.function_count, 4);
  ck_assert_uint_eq(p.location_count, 5);
  ck_assert_uint_eq(p.sample_count, 2);
  static const uint64_t values[2][4] = {{49152, 6, 40960, 5}, {12288, 2, 4096, 1}};
  static const char *const frames[2][3] = {
      {"@t.lua:9 t.lua 9 10", "@t.lua:20 t.lua 20 21", "@t.lua:0 t.lua 0 40"},
      {"@t.lua:9 t.lua 9 10", "@t.lua:30 t.lua 30 31", "@t.lua:0 t.lua 0 41"}};
  for (int s = 0; s < 2; s++) {
    uint64_t got[8], ids[8];
    const struct field *sample = &p.samples[s];
    ck_assert_uint_eq(message_packed(sample->bytes, sample->length, 2, got, 8), 4);
    for (int v = 0; v < 4; v++)
      if (got[v] != values[s][v])
        ck_abort_msg("sample %d value %d is %llu, expected %llu", s, v, (unsigned long long)got[v],
                     (unsigned long long)values[s][v]);
    ck_assert_uint_eq(message_packed(sample->bytes, sample->length, 1, ids, 8), 3);
    for (int f = 0; f < 3; f++) {  /* leaf first */
      char text[128];
      describe_location(&p, ids[f], text, sizeof text);
      if (strcmp(text, frames[s][f]))
        ck_abort_msg("sample %d frame %d is '%s', expected '%s'", s, f, text, frames[s][f]);
    }
  }
  free(bytes);
  free(gz);
  /* --pprof-growth: growth_space is the default sample type. */
  options.growth = 1;
  gz = render(&r, REPORT_FORMAT_PPROF, &options, &size);
  bytes = gunzip(gz, size, &length);
  decode_profile(bytes, length, &p);
  ck_assert_uint_eq(p.default_sample_type, 5);
  free(bytes);
  free(gz);
  diff_result_free(&r);
}
END_TEST

START_TEST(test_json_round_trip_keeps_stacks)
{
  struct diff_result r, back;
  two_callers(&r);
  size_t size;
  char *json = render(&r, REPORT_FORMAT_JSON, NULL, &size);
  check_golden(json, "stacks.json");  /* also the e2e scripts' saved result with stacks */
  ck_assert_ptr_nonnull(strstr(json, "\"stacks\": ["));
  ck_assert_ptr_nonnull(strstr(json, "\"site_id\": \"0000000000000010\""));
  struct format_error error;
  ck_assert_int_eq(diff_result_read_json_text("r.json", json, size, &back, &error), 0);
  ck_assert_uint_eq(back.stack_count, 2);
  const struct diff_site *leak = &back.stacks[0];
  ck_assert_str_eq(leak->name, LEAK_NAME);
  ck_assert_int_eq(leak->is_stack, 1);
  ck_assert_uint_eq(leak->site_id, SITE_ID);
  ck_assert_uint_eq(leak->frame_count, 3);
  ck_assert_int_eq(leak->frames[1].kind, STACKS_FRAME_LUA);
  ck_assert_str_eq(leak->frames[1].name, "@t.lua");
  ck_assert_uint_eq(leak->frames[1].defined, 20);
  ck_assert_uint_eq(leak->frames[1].line, 21);
  ck_assert_uint_eq(leak->live_blocks[5], 6);
  ck_assert_int_eq(back.sites[0].is_stack, 0);
  /* Written again, byte for byte the same; by stack too. */
  char *again = render(&back, REPORT_FORMAT_JSON, NULL, NULL);
  ck_assert_str_eq(again, json);
  free(again);
  diff_result_by_stack(&back);
  char *by_stack = render(&back, REPORT_FORMAT_JSON, NULL, &size);
  ck_assert_ptr_nonnull(strstr(by_stack, "\"by\": \"stack\""));
  struct diff_result third;
  ck_assert_int_eq(diff_result_read_json_text("s.json", by_stack, size, &third, &error), 0);
  ck_assert_int_eq(third.options.by, DIFF_BY_STACK);
  ck_assert_uint_eq(third.site_count, 2);
  ck_assert_uint_eq(third.sites[1].frames[1].line, 31);
  diff_result_free(&third);
  free(by_stack);
  /* A bad frame kind is an error at its offset. */
  char *bad = strdup(json);
  char *kind = strstr(bad, "\"kind\": \"lua\", \"name\"");
  ck_assert_ptr_nonnull(kind);
  memcpy(kind + 9, "xyz", 3);
  struct diff_result broken;
  ck_assert_int_eq(diff_result_read_json_text("b.json", bad, strlen(bad), &broken, &error), FORMAT_BAD_INPUT);
  ck_assert_msg(strstr(error.message, "a frame's kind must be one of") != NULL, "%s", error.message);
  free(bad);
  free(json);
  diff_result_free(&back);
  diff_result_free(&r);
}
END_TEST

START_TEST(test_text_lists_a_sites_stacks_leaking_first)
{
  struct diff_result r;
  two_callers(&r);
  char *text = render(&r, REPORT_FORMAT_TEXT, NULL, NULL);
  const char *header = strstr(text, "stacks that hold the growth, by site");
  ck_assert_ptr_nonnull(header);
  const char *leak = strstr(header, "    growing");
  const char *steady = strstr(header, "    steady");
  ck_assert_ptr_nonnull(leak);
  ck_assert_ptr_nonnull(steady);
  ck_assert(leak < steady);
  ck_assert_ptr_nonnull(strstr(leak, LEAK_NAME "\n"));
  ck_assert(strstr(leak, LEAK_NAME) < steady);
  free(text);
  diff_result_free(&r);
}
END_TEST

START_TEST(test_markdown_names_the_leaking_caller_under_its_site)
{
  struct diff_result r;
  two_callers(&r);
  char *text = render(&r, REPORT_FORMAT_MARKDOWN, NULL, NULL);
  ck_assert_ptr_nonnull(strstr(text, "\nStacks that hold the growth (root first):\n\n"
                                     "* `@t.lua:10`\n"
                                     "  * growing, +8.0 KiB/boundary: `@t.lua:40;@t.lua:21;@t.lua:10`\n"
                                     "  * steady, 0 B/boundary: `@t.lua:41;@t.lua:31;@t.lua:10`\n"));
  free(text);
  diff_result_free(&r);
}
END_TEST

START_TEST(test_junit_failure_names_the_sites_stacks)
{
  struct diff_result r;
  two_callers(&r);
  char *text = render(&r, REPORT_FORMAT_JUNIT, NULL, NULL);
  ck_assert_ptr_nonnull(strstr(text, " 57344\nstacks (root first): growing +8.0 KiB/boundary: "
                                     LEAK_NAME "; steady 0 B/boundary: " STEADY_NAME "</failure>"));
  free(text);
  diff_result_free(&r);
}
END_TEST

/* The flame graph's data in the page: each stack that grew, with its frames
 * and its growth, the numbers the JSON result gives. */
START_TEST(test_html_flame_data_matches_the_json)
{
  struct diff_result r;
  two_callers(&r);
  char *html = render(&r, REPORT_FORMAT_HTML, NULL, NULL);
  const char *open = strstr(html, "<script type=\"application/json\" id=\"flame-data\">");
  ck_assert_ptr_nonnull(open);
  open = strchr(open, '>') + 1;
  const char *close = strstr(open, "</script>");
  ck_assert_ptr_nonnull(close);
  struct json_read_value data;
  struct format_error error;
  ck_assert_int_eq(json_read_parse(open, (size_t)(close - open), "flame-data", &data, &error), 0);
  const struct json_read_value *stacks = json_read_object_get(&data, "stacks");
  ck_assert_ptr_nonnull(stacks);
  ck_assert_uint_eq(stacks->count, 2);  /* the steady caller's last step is drawn too */
  const struct json_read_value *frames = json_read_object_get(&stacks->items[0], "frames");
  ck_assert_uint_eq(frames->count, 3);
  ck_assert_str_eq(frames->items[0].text, "@t.lua:40");
  ck_assert_str_eq(frames->items[1].text, "@t.lua:21");
  ck_assert_str_eq(frames->items[2].text, "@t.lua:10");
  /* Its bytes: the JSON result's series, last less first. */
  uint64_t growth = r.stacks[0].live_bytes[5] - r.stacks[0].live_bytes[0];
  char expected[32];
  snprintf(expected, sizeof expected, "%llu", (unsigned long long)growth);
  ck_assert_str_eq(json_read_object_get(&stacks->items[0], "bytes")->text, expected);
  ck_assert_str_eq(json_read_object_get(&stacks->items[0], "verdict")->text, "growing");
  ck_assert_str_eq(json_read_object_get(&stacks->items[1], "bytes")->text, "4096");
  ck_assert_str_eq(json_read_object_get(&stacks->items[1], "verdict")->text, "steady");
  json_read_free(&data);
  ck_assert_ptr_nonnull(strstr(html, "<svg id=\"flame\""));
  ck_assert_ptr_nonnull(strstr(html, "<li class=\"stack\" data-verdict=\"growing\">"));
  free(html);
  diff_result_free(&r);
  /* A result without stacks has no flame graph: the page is as before. */
  fixture_result(&r, DIFF_MODE_TREND, 6);
  fixture_add_site(&r, "@t.lua:10", DIFF_VERDICT_GROWING, site_series, 6);
  html = render(&r, REPORT_FORMAT_HTML, NULL, NULL);
  ck_assert_ptr_null(strstr(html, "flame"));
  free(html);
  diff_result_free(&r);
}
END_TEST

/* A chunk name the captured program chose: a ';' (a frame separator), ESC
 * and a byte that is not UTF-8; cleaned as a label, what a frame shows. */
#define HOSTILE_CHUNK "@evil\x1b\xff.lua;main;@t.lua"
#define HOSTILE_LABEL "@evil_\xef\xbf\xbd.lua_main_@t.lua"
#define LONG_CHUNK_X 509  /* "@", 509 x and a 2-byte é: the 512-byte label cuts the é whole */

/* A stack of site (with its frames, leaf first) named as the diff names it. */
static void add_named_stack(struct diff_result *r, const char *site, const struct diff_frame *frames,
                            uint32_t count)
{
  add_stack(r, "", DIFF_VERDICT_GROWING, leak_series, leak_blocks, 0, 0);
  struct diff_site *s = &r->stacks[r->stack_count - 1];
  for (size_t i = 0; i < s->frame_count; i++)
    free(s->frames[i].name);
  free(s->name);
  struct diff_stack_entry entry = {0, count, s->frames};
  for (uint32_t i = 0; i < count; i++)
    s->frames[i] = (struct diff_frame){frames[i].kind, strdup(frames[i].name), frames[i].defined,
                                       frames[i].line};
  s->frame_count = count;
  s->name = diff_result_stack_name(&entry, site);
}

static void hostile_stacks(struct diff_result *r, char *long_chunk)
{
  fixture_result(r, DIFF_MODE_TREND, 6);
  fixture_add_site(r, HOSTILE_CHUNK ":1", DIFF_VERDICT_GROWING, site_series, 6)->id = SITE_ID;
  const struct diff_frame hostile[] = {{STACKS_FRAME_LUA, HOSTILE_CHUNK, 0, 1},
                                       {STACKS_FRAME_LUA, "@t.lua", 0, 4}};
  add_named_stack(r, HOSTILE_CHUNK ":1", hostile, 2);
  /* A VM site of a forged name under a Lua frame whose name is cut. */
  memset(long_chunk, 'x', LONG_CHUNK_X + 1);
  long_chunk[0] = '@';
  strcpy(long_chunk + LONG_CHUNK_X + 1, "\xc3\xa9");
  const struct diff_frame cut[] = {{STACKS_FRAME_LUA, long_chunk, 0, 7}};
  add_named_stack(r, "VM;@t.lua:4\x07", cut, 1);
}

/* Every string of a profile is UTF-8 without a control character. */
static void check_clean_strings(const struct profile *p)
{
  for (size_t i = 0; i < p->string_count; i++)
    for (size_t at = 0, used; at < p->string_lengths[i]; at += used) {
      uint32_t cp;
      used = utf8_decode(p->strings[i] + at, p->string_lengths[i] - at, &cp);
      if ((cp == 0xfffd && used == 1) || utf8_terminal_unsafe(cp))
        ck_abort_msg("string %zu has %02x at %zu", i, (unsigned char)p->strings[i][at], at);
    }
}

START_TEST(test_a_chunk_name_with_a_separator_forges_no_frame)
{
  struct diff_result r;
  char long_chunk[LONG_CHUNK_X + 4], expected[2048];
  hostile_stacks(&r, long_chunk);
  /* The real frames, the leaf's label once, the VM site cleaned after them. */
  ck_assert_str_eq(r.stacks[0].name, "@t.lua:4;" HOSTILE_LABEL ":1");
  snprintf(expected, sizeof expected, "@t.lua:4;" HOSTILE_LABEL ":1 49152\n%.*s;VM_@t.lua:4_ 49152\n",
           LONG_CHUNK_X + 1, long_chunk);
  char *text = render(&r, REPORT_FORMAT_FOLDED, &(struct report_options){0, NULL, 0, 0}, NULL);
  ck_assert_str_eq(text, expected);
  free(text);
  /* pprof: the leaf is the frame, the VM site first; names cut between characters. */
  size_t size, length;
  char *gz = render(&r, REPORT_FORMAT_PPROF, &(struct report_options){0, NULL, 0, 0}, &size);
  uint8_t *bytes = gunzip(gz, size, &length);
  struct profile p;
  decode_profile(bytes, length, &p);
  check_clean_strings(&p);
  uint64_t ids[8];
  char got[2048];
  ck_assert_uint_eq(message_packed(p.samples[0].bytes, p.samples[0].length, 1, ids, 8), 2);
  describe_location(&p, ids[0], got, sizeof got);
  ck_assert_str_eq(got, HOSTILE_LABEL ":0 evil_\xef\xbf\xbd.lua;main;@t.lua 0 1");
  ck_assert_uint_eq(message_packed(p.samples[1].bytes, p.samples[1].length, 1, ids, 8), 2);
  describe_location(&p, ids[0], got, sizeof got);
  ck_assert_str_eq(got, "VM_@t.lua:4_ t.lua 0 10");
  describe_location(&p, ids[1], got, sizeof got);
  snprintf(expected, sizeof expected, "%.*s %s 0 7", LONG_CHUNK_X + 1, long_chunk, long_chunk + 1);
  ck_assert_str_eq(got, expected);
  free(bytes);
  free(gz);
  /* The flame graph's frames: the real ones. */
  char *html = render(&r, REPORT_FORMAT_HTML, NULL, NULL);
  const char *open = strchr(strstr(html, "id=\"flame-data\">"), '>') + 1;
  struct json_read_value data;
  struct format_error error;
  ck_assert_int_eq(json_read_parse(open, (size_t)(strstr(open, "</script>") - open), "flame", &data,
                                   &error), 0);
  const struct json_read_value *frames =
      json_read_object_get(&json_read_object_get(&data, "stacks")->items[0], "frames");
  ck_assert_uint_eq(frames->count, 2);
  ck_assert_str_eq(frames->items[0].text, "@t.lua:4");
  ck_assert_str_eq(frames->items[1].text, HOSTILE_LABEL ":1");
  json_read_free(&data);
  free(html);
  diff_result_free(&r);
  /* Without stacks, the site's name is one frame, cleaned alike. */
  fixture_result(&r, DIFF_MODE_TREND, 6);
  fixture_add_site(&r, HOSTILE_CHUNK ":1", DIFF_VERDICT_GROWING, site_series, 6);
  text = render(&r, REPORT_FORMAT_FOLDED, &(struct report_options){0, NULL, 0, 0}, NULL);
  ck_assert_str_eq(text, HOSTILE_LABEL ":1 57344\n");
  free(text);
  gz = render(&r, REPORT_FORMAT_PPROF, &(struct report_options){0, NULL, 0, 0}, &size);
  bytes = gunzip(gz, size, &length);
  decode_profile(bytes, length, &p);
  check_clean_strings(&p);
  free(bytes);
  free(gz);
  diff_result_free(&r);
}
END_TEST

static Suite *stacks_suite(void)
{
  Suite *s = suite_create("report_stacks");
  TCase *c = tcase_create("stacks");
  tcase_add_test(c, test_stack_verdicts_from_the_series_name_the_leaking_caller);
  tcase_add_test(c, test_base_mode_by_stack_makes_the_new_caller_new);
  tcase_add_test(c, test_folded_stacks_match_golden_and_options);
  tcase_add_test(c, test_pprof_profile_decodes_to_exact_strings_and_values);
  tcase_add_test(c, test_json_round_trip_keeps_stacks);
  tcase_add_test(c, test_text_lists_a_sites_stacks_leaking_first);
  tcase_add_test(c, test_html_flame_data_matches_the_json);
  tcase_add_test(c, test_markdown_names_the_leaking_caller_under_its_site);
  tcase_add_test(c, test_junit_failure_names_the_sites_stacks);
  tcase_add_test(c, test_a_chunk_name_with_a_separator_forges_no_frame);
  suite_add_tcase(s, c);
  return s;
}

int main(void)
{
  return check_run(stacks_suite());
}
