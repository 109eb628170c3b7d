/* tests/test_report.c: the report stage: golden outputs, JSON round trips, strict parsing, escaping. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/check_run.h"
#include "tests/report_golden.h"
#include "format/utf8.h"
#include "diff/suspects.h"
#include "report/report.h"

/* Run with LJLEAK_UPDATE_GOLDEN=1 to rewrite testdata/report/ after a deliberate change. */

/* ---- Hand-built results ----------------------------------------------------- */

static double boundary_times[8] = {1763745610.125, 1763745620.125, 1763745630.125,
                                   1763745640.125, 1763745650.125, 1763745660.125,
                                   1763745670.125, 1763745680.125};
static uint64_t gc_cycles[8] = {3, 6, 9, 12, 15, 18, 21, 24};
static uint64_t heap_bytes[8] = {1843200, 1900544, 1966080, 2031616,
                                 2097152, 2162688, 2228224, 2293760};

static uint64_t leak_live[8] = {0, 9600, 19200, 28800, 38400, 48000, 57600, 67200};
static uint64_t leak_blocks[8] = {0, 100, 200, 300, 400, 500, 600, 700};
static uint64_t leak_alloc[8] = {0, 9600, 9600, 9600, 9600, 9600, 9600, 9600};
static uint64_t leak_free[8] = {0, 0, 0, 0, 0, 0, 0, 0};

static uint64_t trace_live[8] = {2048, 4096, 6144, 8192, 10240, 12288, 14336, 16384};
static uint64_t lru_live[8] = {8192, 6144, 8192, 7168, 8192, 6144, 8192, 7168};
static uint64_t lru_blocks[8] = {128, 96, 128, 112, 128, 96, 128, 112};
static uint64_t lru_alloc[8] = {8192, 40960, 41984, 40960, 41984, 40960, 41984, 40960};
static uint64_t lru_free[8] = {0, 43008, 39936, 41984, 40960, 43008, 39936, 41984};
static uint64_t cfunc_live[8] = {512, 512, 512, 512, 512, 512, 512, 512};
static uint64_t internal_live[8] = {65536, 61440, 57344, 53248, 49152, 45056, 40960, 36864};
static uint64_t short_live[2] = {100, 200};

static uint64_t base_leak_live[8] = {0, 0, 0, 0, 0, 0, 0, 0};
static uint64_t base_trace_live[8] = {1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192};

static void fill_capture(struct diff_capture *c, const char *path)
{
  c->path = (char *)path;
  c->command = (char *)"luajit app.lua 8080";
  c->host = (char *)"web-1";
  c->pid = 4242;
  c->luajit_version = (char *)"LuaJIT 2.1.0-beta3";
  c->sample_bytes = 0;
  c->boundary_count = 8;
  c->boundary_times = boundary_times;
  c->gc_cycles = gc_cycles;
  c->heap_bytes = heap_bytes;
  c->start_time = 1763745600.125;
  c->events = 1234567;
  c->truncated = 0;
}

static struct diff_site sites[6];

static void fill_sites(void)
{
  memset(sites, 0, sizeof sites);
  sites[0] = (struct diff_site){
      .name = (char *)"@testdata/report/app.lua:16", .id = 0x9e3779b97f4a7c15u,
      .kind = DIFF_SITE_LUA, .source_file = (char *)"testdata/report/app.lua",
      .source_line = 16, .verdict = DIFF_VERDICT_GROWING, .count = 8, .live_bytes = leak_live,
      .live_blocks = leak_blocks, .alloc_bytes = leak_alloc, .free_bytes = leak_free,
      .allocs = 700, .frees = 0, .growth_bytes_per_segment = 9600,
      .growth_bytes_per_second = 960, .trend_statistic = 28, .trend_p_value = 0.00012400793650793651};
  sites[1] = (struct diff_site){
      .name = (char *)"TRACE started at @testdata/report/app.lua:16", .id = 0xffffffffffffffffu,
      .kind = DIFF_SITE_TRACE, .source_file = (char *)"testdata/report/app.lua",
      .source_line = 16, .verdict = DIFF_VERDICT_GROWING, .count = 8, .live_bytes = trace_live,
      .allocs = 64, .frees = 0, .growth_bytes_per_segment = 2048,
      .growth_bytes_per_second = 204.8, .trend_statistic = 28, .trend_p_value = 0.000124};
  sites[2] = (struct diff_site){
      .name = (char *)"@testdata/report/app.lua:11", .id = 1, .kind = DIFF_SITE_LUA,
      .source_file = (char *)"testdata/report/app.lua", .source_line = 11,
      .verdict = DIFF_VERDICT_STEADY, .count = 8, .live_bytes = lru_live,
      .live_blocks = lru_blocks, .alloc_bytes = lru_alloc, .free_bytes = lru_free,
      .allocs = 4540, .frees = 4428, .growth_bytes_per_segment = 0,
      .growth_bytes_per_second = 0, .trend_statistic = 1, .trend_p_value = 0.5};
  sites[3] = (struct diff_site){
      .name = (char *)"string.rep", .id = 0x00000000deadbeefu, .kind = DIFF_SITE_C,
      .verdict = DIFF_VERDICT_STEADY, .count = 8, .live_bytes = cfunc_live, .allocs = 8,
      .frees = 0, .trend_p_value = 1};
  sites[4] = (struct diff_site){
      .name = (char *)"INTERNAL", .id = 2, .kind = DIFF_SITE_INTERNAL,
      .verdict = DIFF_VERDICT_SHRINKING, .count = 8, .live_bytes = internal_live,
      .allocs = 30, .frees = 290, .growth_bytes_per_segment = -4096,
      .growth_bytes_per_second = -409.6, .trend_statistic = -28, .trend_p_value = 1};
  sites[5] = (struct diff_site){
      .name = (char *)"@testdata/report/app.lua:3", .id = 3, .kind = DIFF_SITE_LUA,
      .source_file = (char *)"testdata/report/app.lua", .source_line = 3,
      .verdict = DIFF_VERDICT_INSUFFICIENT, .count = 2, .live_bytes = short_live, .allocs = 2,
      .growth_bytes_per_segment = 100, .trend_p_value = NAN};
}

/* The leak's holders, as a capture with heap snapshots gives them. */
static struct diff_holder leak_holders[2] = {
    {.path = (char *)"upvalue sessions of function@testdata/report/app.lua:15[*]", .objects = 700,
     .bytes = 67200, .holder_type = (char *)"table", .retained_bytes = 75776},
    {.path = (char *)"_LOADED.app.cache<metatable>.__index[*]", .objects = 3, .bytes = 288,
     .holder_type = (char *)"table", .retained_bytes = 1024}};

static struct diff_result trend_result(void)
{
  struct diff_result r;
  memset(&r, 0, sizeof r);
  fill_sites();
  r.mode = DIFF_MODE_TREND;
  r.options = (struct diff_options){.min_boundaries = 8, .max_p_value = 0.01,
                                    .min_growth_bytes = 4096, .worse_ratio = 2, .jobs = 1};
  fill_capture(&r.capture, "captures/run-1");
  r.capture.snapshots = 2;
  sites[0].holders_boundary = 8;
  sites[0].holder_count = 2;
  sites[0].holders = leak_holders;
  r.site_count = 6;
  r.sites = sites;
  r.flagged = 2;
  return r;
}

static struct diff_result base_result(void)
{
  struct diff_result r = trend_result();
  r.mode = DIFF_MODE_BASE;
  fill_capture(&r.base, "captures/base");
  r.base.command = (char *)"luajit app-base.lua 8080";
  r.base.pid = 4100;
  sites[0].verdict = DIFF_VERDICT_NEW;
  sites[0].base_verdict = DIFF_VERDICT_STEADY;
  sites[0].base_count = 8;
  sites[0].base_live_bytes = base_leak_live;
  sites[1].verdict = DIFF_VERDICT_GROWING;
  sites[1].base_verdict = DIFF_VERDICT_GROWING;
  sites[1].base_count = 8;
  sites[1].base_live_bytes = base_trace_live;
  sites[1].base_growth_bytes_per_segment = 1024;
  r.flagged = 1;
  return r;
}

static struct diff_result range_result(void)
{
  struct diff_result r = trend_result();
  r.mode = DIFF_MODE_RANGE;
  r.capture.snapshots = 0;  /* a capture without heap snapshots: no holders */
  sites[0].holder_count = 0;
  sites[0].holders = NULL;
  r.options.range_from = 2;
  r.options.range_to = 7;
  sites[0].range_delta_bytes = 48000;
  sites[1].range_delta_bytes = 10240;
  sites[2].range_delta_bytes = 2048;
  sites[4].range_delta_bytes = -20480;
  return r;
}

static uint64_t hostile_live[4] = {0, 100, 200, 300};

/* Names and sources as a hostile capture could carry them. */
static struct diff_result hostile_result(void)
{
  static struct diff_site hostile[3];
  struct diff_result r;
  memset(&r, 0, sizeof r);
  memset(hostile, 0, sizeof hostile);
  hostile[0] = (struct diff_site){
      .name = (char *)"@<script>alert(1)</script>.lua:1", .id = 7, .kind = DIFF_SITE_LUA,
      .source_file = (char *)"hostile.lua", .source_line = 1, .verdict = DIFF_VERDICT_GROWING,
      .count = 4, .live_bytes = hostile_live, .allocs = 3, .growth_bytes_per_segment = 100,
      .growth_bytes_per_second = 10, .trend_p_value = 0.0417};
  static struct diff_holder hostile_holders[1] = {
      {.path = (char *)"_G[\"<img src=x onerror=alert(1)>`\"][*]", .objects = 3, .bytes = 300,
       .holder_type = (char *)"table", .retained_bytes = 400}};
  hostile[0].holder_count = 1;
  hostile[0].holders = hostile_holders;
  hostile[0].holders_boundary = 3;
  hostile[1] = (struct diff_site){
      .name = (char *)"@x.lua:2 <img src=x onerror=alert(1)> | `tick` & \"q\" 'a' \x1b[2J",
      .id = 8, .kind = DIFF_SITE_LUA, .source_file = (char *)"hostile.lua", .source_line = 2,
      .verdict = DIFF_VERDICT_GROWING, .count = 4, .live_bytes = hostile_live, .allocs = 3,
      .growth_bytes_per_segment = 100, .trend_p_value = 0.0417};
  hostile[2] = (struct diff_site){
      .name = (char *)"]]></failure><script>document.title='pwned'</script>\xff\xfe",
      .id = 9, .kind = DIFF_SITE_C, .verdict = DIFF_VERDICT_STEADY, .count = 4,
      .live_bytes = hostile_live, .trend_p_value = 1};
  r.mode = DIFF_MODE_TREND;
  r.options.min_boundaries = 4;
  r.capture.path = (char *)"caps/<b>bold</b>";
  r.capture.command = (char *)"luajit -e \"<script>document.title='pwned'</script>\"";
  r.capture.host = (char *)"<img src=x onerror=\"document.title='pwned'\">";
  r.capture.luajit_version = (char *)"LuaJIT </title><script>alert(2)</script>";
  r.capture.boundary_count = 4;
  r.site_count = 3;
  r.sites = hostile;
  r.flagged = 2;
  return r;
}

/* ---- Helpers -------------------------------------------------------------------- */

/* Renders a hand-built result, its facts found after its last change. */
static char *render(struct diff_result *r, enum report_format format, int color,
                    const char *source_root)
{
  char *text = NULL;
  struct format_error error;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(out);
  struct report_options options = {color, source_root, 0, 0};
  diff_result_fill_facts(r);
  ck_assert_msg(report_render(r, format, &options, out, &error) == 0, "%s", error.message);
  fclose(out);
  return text;
}

static void read_json_text(const char *json, struct diff_result *back)
{
  struct format_error error;
  ck_assert_msg(diff_result_read_json_text("t.json", json, strlen(json), back, &error) == 0,
                "%s", error.message);
}

static void expect_json_error(const char *json, const char *expected)
{
  struct diff_result back;
  struct format_error error;
  ck_assert_int_eq(diff_result_read_json_text("t.json", json, strlen(json), &back, &error),
                   FORMAT_BAD_INPUT);
  ck_assert_str_eq(error.message, expected);
  ck_assert_ptr_null(back.sites);
}

/* ---- Golden outputs ---------------------------------------------------------- */

START_TEST(test_text_trend_report_matches_golden)
{
  struct diff_result r = trend_result();
  char *text = render(&r, REPORT_FORMAT_TEXT, 0, NULL);
  check_golden(text, "trend.txt");
  ck_assert_ptr_null(strchr(text, '\033'));
  free(text);
}
END_TEST

START_TEST(test_text_base_report_puts_new_and_worse_first_beside_the_base)
{
  struct diff_result r = base_result();
  char *text = render(&r, REPORT_FORMAT_TEXT, 0, NULL);
  check_golden(text, "base.txt");
  const char *new_row = strstr(text, "\nnew ");
  const char *both = strstr(text, "growing in the candidate as in the base");
  ck_assert_ptr_nonnull(new_row);
  ck_assert_ptr_nonnull(both);
  ck_assert(new_row < both);
  free(text);
}
END_TEST

START_TEST(test_text_range_report_matches_golden)
{
  struct diff_result r = range_result();
  char *text = render(&r, REPORT_FORMAT_TEXT, 0, NULL);
  check_golden(text, "range.txt");
  free(text);
}
END_TEST

START_TEST(test_text_colour_only_when_asked)
{
  struct diff_result r = trend_result();
  char *plain = render(&r, REPORT_FORMAT_TEXT, 0, NULL);
  char *colored = render(&r, REPORT_FORMAT_TEXT, 1, NULL);
  ck_assert_ptr_null(strchr(plain, '\033'));
  ck_assert(strncmp(colored, "\033[1;31mljleak: 2 of 6 sites growing", 35) == 0);
  free(plain);
  free(colored);
}
END_TEST

START_TEST(test_text_escapes_control_characters_in_names)
{
  struct diff_result r = hostile_result();
  char *text = render(&r, REPORT_FORMAT_TEXT, 0, NULL);
  ck_assert_ptr_null(strchr(text, '\033'));
  ck_assert_ptr_nonnull(strstr(text, "'a' \\x1b[2J\n"));
  ck_assert_ptr_nonnull(strstr(text, "</script>\\xff\\xfe"));  /* bytes that are not UTF-8 */
  free(text);
}
END_TEST

/* ---- Names that would drive or disguise a terminal, or mention someone ------------ */

/* Every control but newline, every bidi control, U+2028 and U+2029, and
 * every byte that is not part of well-formed UTF-8, in a rendering: none may
 * be there raw (what utf8_terminal_unsafe lists). */
static void assert_nothing_raw(const char *text, const char *what)
{
  size_t length = strlen(text);
  for (size_t i = 0; i < length;) {
    uint32_t cp;
    size_t used = utf8_decode(text + i, length - i, &cp);
    ck_assert_msg(!(cp == 0xfffd && used == 1), "%s: byte 0x%02x at %zu is not UTF-8", what,
                  (unsigned char)text[i], i);
    ck_assert_msg(cp == '\n' || !utf8_terminal_unsafe(cp), "%s: U+%04x raw at byte %zu", what,
                  (unsigned)cp, i);
    i += used;
  }
}

/* Every '@' of Markdown text inside a code span: a run of N backticks opens
 * one and the next run of exactly N on the same line closes it; outside
 * one, a backslash escapes the character after it. */
static void assert_mentions_in_code_spans(const char *md)
{
  const char *p = md;
  while (*p) {
    if (*p == '\\' && p[1] && p[1] != '\n') {
      p += 2;
      continue;
    }
    if (*p == '`') {
      size_t n = strspn(p, "`");
      const char *q = p + n, *close = NULL;
      while (*q && *q != '\n' && !close) {
        size_t m = strspn(q, "`");
        if (m == n)
          close = q;
        q += m ? m : 1;
      }
      p = close ? close + n : p + n;
      continue;
    }
    ck_assert_msg(*p != '@', "an @ outside a code span at byte %zu: %.40s", (size_t)(p - md),
                  p > md + 20 ? p - 20 : md);
    p++;
  }
}

static uint64_t spoof_live[8] = {0, 9600, 19200, 28800, 38400, 48000, 57600, 67200};

static struct diff_allowance spoof_rule = {
    .pattern = (char *)"@vendor/\xe2\x80\xae*.lua:*", .budget = (char *)"32k/boundary",
    .budget_bytes = 32768, .comment = (char *)"cached per tenant\xe2\x80\xae\x1b[2J",
    .file = (char *)"ci/allow\xe2\x81\xa6.txt", .line = 2, .growth = 9600};

/* Site names as a hostile capture could carry them, each growing: a right-
 * to-left override, a line separator, a C1 CSI, ESC and a raw CSI byte,
 * every other bidi control with a cut and an overlong sequence, backticks
 * and '|', and a name that starts and ends with a backtick. */
static struct diff_result spoof_result(void)
{
  static struct diff_site spoof[8];
  static struct diff_holder spoof_holders[1] = {
      {.path = (char *)"_G[\"@holder\xe2\x80\xa8x`y\"][*]", .objects = 3, .bytes = 300,
       .holder_type = (char *)"table\x1b[31m", .retained_bytes = 400}};
  static struct diff_container spoof_containers[1] = {
      {.type = (char *)"table\xe2\x80\x8f", .site = (char *)"@pool.lua:31\xe2\x80\xae",
       .path = (char *)"_G.pool[\"@x\xc2\x9b\"]", .boundaries = {4, 8}, .entries = {10, 20},
       .bytes = {100, 200}}};
  static const char *const names[] = {
      "@evil\xe2\x80\xae" "aul.lua:1",
      "@app.lua:2\xe2\x80\xa8@fake.lua:9",
      "@c1.lua:3 \xc2\x9b" "31m",
      "@esc.lua:4 \x1b]0;pwned\x07 \x9b" "2J",
      "@all.lua:5 \xd8\x9c\xe2\x80\x8e\xe2\x80\x8f\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad"
      "\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9\xe2\x80\xa9\xc0\xaf\xe2\x80",
      "@tick`s.lua:6 | ``x``",
      "`@edge.lua:7`",
      "@vendor/\xe2\x80\xae" "json.lua:8",
  };
  struct diff_result r;
  memset(&r, 0, sizeof r);
  memset(spoof, 0, sizeof spoof);
  for (size_t i = 0; i < 8; i++)
    spoof[i] = (struct diff_site){
        .name = (char *)names[i], .id = 100 + i, .kind = DIFF_SITE_LUA,
        .verdict = DIFF_VERDICT_GROWING, .count = 8, .live_bytes = spoof_live, .allocs = 700,
        .growth_bytes_per_segment = 9600 - (double)i, .trend_statistic = 28,
        .trend_p_value = 0.000124};
  spoof[2].kind = DIFF_SITE_C;
  spoof[2].library = (char *)"lib\xe2\x81\xa6" "evil.so";
  spoof[0].holders_boundary = 8;
  spoof[0].holder_count = 1;
  spoof[0].holders = spoof_holders;
  spoof[7].allowance = &spoof_rule;
  spoof[7].allowed = 1;
  r.mode = DIFF_MODE_TREND;
  r.options = (struct diff_options){.min_boundaries = 8, .max_p_value = 0.01,
                                    .min_growth_bytes = 4096, .worse_ratio = 2, .jobs = 1};
  fill_capture(&r.capture, "captures/\xe2\x80\xae" "run");
  r.capture.command = (char *)"luajit \xe2\x80\xae" "evil.lua\x1b[2J";
  r.capture.host = (char *)"web\xc2\x9b" "1";
  r.capture.snapshots = 2;
  r.site_count = 8;
  r.sites = spoof;
  r.containers = spoof_containers;
  r.container_count = 1;
  r.flagged = 7;
  return r;
}

START_TEST(test_text_escapes_bidi_controls_line_separators_and_bytes_not_utf8)
{
  struct diff_result r = spoof_result();
  char *text = render(&r, REPORT_FORMAT_TEXT, 0, NULL);
  assert_nothing_raw(text, "text");
  ck_assert_ptr_nonnull(strstr(text, "  @evil\\u202eaul.lua:1\n"));
  ck_assert_ptr_nonnull(strstr(text, "  @app.lua:2\\u2028@fake.lua:9\n"));
  ck_assert_ptr_nonnull(strstr(text, "  @c1.lua:3 \\u009b31m (lib\\u2066evil.so)\n"));
  ck_assert_ptr_nonnull(strstr(text, "  @esc.lua:4 \\x1b]0;pwned\\x07 \\x9b2J\n"));
  ck_assert_ptr_nonnull(strstr(text, "  @all.lua:5 \\u061c\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d"
                                     "\\u2066\\u2067\\u2068\\u2069\\u2029\\xc0\\xaf\\xe2\\x80\n"));
  /* The capture, the holder, the container and the allow-list rule as well. */
  ck_assert_ptr_nonnull(strstr(text, "capture   luajit \\u202eevil.lua\\x1b[2J\n"));
  ck_assert_ptr_nonnull(strstr(text, " on web\\u009b1, "));
  ck_assert_ptr_nonnull(strstr(text, "    _G[\"@holder\\u2028x`y\"][*]  (3 objects, 300 B; the "
                                     "table\\x1b[31m keeps 400 B alive)\n"));
  ck_assert_ptr_nonnull(strstr(text, "  table\\u200f made at @pool.lua:31\\u202e, held by "
                                     "_G.pool[\"@x\\u009b\"]: "));
  ck_assert_ptr_nonnull(strstr(text, "(ci/allow\\u2066.txt line 2: @vendor/\\u202e*.lua:*): "
                                     "cached per tenant\\u202e\\x1b[2J\n"));
  free(text);
  /* Colour is the only escape sequence, and it is ours. */
  text = render(&r, REPORT_FORMAT_TEXT, 1, NULL);
  ck_assert_ptr_null(strstr(text, "\x1b]"));
  ck_assert_ptr_null(strstr(text, "\xe2\x80\xae"));
  free(text);
}
END_TEST

START_TEST(test_markdown_puts_every_name_in_a_code_span_and_escapes_bidi_controls)
{
  struct diff_result r = spoof_result();
  char *md = render(&r, REPORT_FORMAT_MARKDOWN, 0, NULL);
  assert_nothing_raw(md, "markdown");
  assert_mentions_in_code_spans(md);
  ck_assert_ptr_nonnull(strstr(md, "| `@evil\\u202eaul.lua:1` | growing |"));
  ck_assert_ptr_nonnull(strstr(md, "| `@app.lua:2\\u2028@fake.lua:9` | growing |"));
  ck_assert_ptr_nonnull(strstr(md, "| `@c1.lua:3 \\u009b31m` (`lib\\u2066evil.so`) | growing |"));
  ck_assert_ptr_nonnull(strstr(md, "| `@esc.lua:4 \\x1b]0;pwned\\x07 \\x9b2J` | growing |"));
  /* Backticks: a fence longer than any run in the name, padded where the
   * name starts or ends with one; '|' in a table cell as \|. */
  ck_assert_ptr_nonnull(strstr(md, "| ``` @tick`s.lua:6 \\| ``x`` ``` | growing |"));
  ck_assert_ptr_nonnull(strstr(md, "| `` `@edge.lua:7` `` | growing |"));
  /* Holders, containers and the allow-list, each name a code span. */
  ck_assert_ptr_nonnull(strstr(md, "\n* `@evil\\u202eaul.lua:1`\n"
                                   "  * ``_G[\"@holder\\u2028x`y\"][*]``: 3 objects, 300 B; the "
                                   "table\\x1b\\[31m keeps 400 B alive\n"));
  ck_assert_ptr_nonnull(strstr(md, "* table\\u200f made at `@pool.lua:31\\u202e`, held by "
                                   "`_G.pool[\"@x\\u009b\"]`: "));
  ck_assert_ptr_nonnull(strstr(md, "* `@vendor/\\u202ejson.lua:8`: +9.4 KiB per boundary, within "
                                   "32k/boundary (ci/allow\\u2066.txt line 2: "
                                   "`@vendor/\\u202e*.lua:*`): cached per tenant\\u202e\\x1b\\[2J\n"));
  free(md);
}
END_TEST

START_TEST(test_markdown_summary_matches_golden)
{
  struct diff_result r = trend_result();
  char *text = render(&r, REPORT_FORMAT_MARKDOWN, 0, NULL);
  check_golden(text, "trend.md");
  free(text);
  r = base_result();
  text = render(&r, REPORT_FORMAT_MARKDOWN, 0, NULL);
  check_golden(text, "base.md");
  free(text);
}
END_TEST

START_TEST(test_markdown_escapes_pipes_backticks_and_html)
{
  struct diff_result r = hostile_result();
  char *text = render(&r, REPORT_FORMAT_MARKDOWN, 0, NULL);
  /* Names are code spans: inside one, '<' and '&' are text, never markup. */
  ck_assert_ptr_nonnull(strstr(text, "| `@<script>alert(1)</script>.lua:1` | growing |"));
  ck_assert_ptr_nonnull(strstr(
      text, "| ``@x.lua:2 <img src=x onerror=alert(1)> \\| `tick` & \"q\" 'a' \\x1b[2J`` |"));
  /* Outside a code span there is no '<' but those of the names. */
  ck_assert_ptr_null(strstr(text, "<script>document"));
  assert_mentions_in_code_spans(text);
  free(text);
}
END_TEST

START_TEST(test_junit_matches_golden)
{
  struct diff_result r = trend_result();
  char *text = render(&r, REPORT_FORMAT_JUNIT, 0, NULL);
  check_golden(text, "trend.junit.xml");
  free(text);
  r = base_result();
  text = render(&r, REPORT_FORMAT_JUNIT, 0, NULL);
  check_golden(text, "base.junit.xml");
  free(text);
}
END_TEST

START_TEST(test_junit_escapes_hostile_names)
{
  struct diff_result r = hostile_result();
  char *text = render(&r, REPORT_FORMAT_JUNIT, 0, NULL);
  check_golden(text, "hostile.junit.xml");
  ck_assert_ptr_null(strstr(text, "<script"));
  ck_assert_ptr_null(strstr(text, "<img"));
  ck_assert_ptr_null(strstr(text, "]]>"));
  ck_assert_ptr_null(strchr(text, '\033'));
  ck_assert_ptr_nonnull(strstr(
      text, "<testcase name=\"@&lt;script&gt;alert(1)&lt;/script&gt;.lua:1\" classname=\"ljleak.trend\">"));
  free(text);
}
END_TEST

/* A flagged result with an insufficient site: Markdown's count of sites
 * without a verdict is JUnit's errors (the facts' undecided count), and
 * each format names the site; Markdown once left it out. */
START_TEST(test_markdown_text_and_junit_agree_on_sites_without_a_verdict)
{
  struct diff_result r = trend_result();
  diff_result_fill_facts(&r);
  ck_assert_uint_eq(r.facts.tally.undecided, 1);
  char *junit = render(&r, REPORT_FORMAT_JUNIT, 0, NULL);
  char *md = render(&r, REPORT_FORMAT_MARKDOWN, 0, NULL);
  char *text = render(&r, REPORT_FORMAT_TEXT, 0, NULL);
  ck_assert_ptr_nonnull(strstr(junit, "failures=\"2\" errors=\"1\""));
  ck_assert_ptr_nonnull(strstr(junit, "<error type=\"insufficient\""));
  ck_assert_ptr_nonnull(strstr(md, ":warning: 1 site has no verdict yet"));
  ck_assert_ptr_nonnull(strstr(md, "| `@testdata/report/app.lua:3` | insufficient |"));
  ck_assert_ptr_nonnull(strstr(text, "too few boundaries (1): @testdata/report/app.lua:3\n"));
  free(junit);
  free(md);
  free(text);
}
END_TEST

START_TEST(test_json_result_matches_golden)
{
  struct diff_result r = trend_result();
  char *text = render(&r, REPORT_FORMAT_JSON, 0, NULL);
  check_golden(text, "trend.json");
  free(text);
  r = base_result();
  text = render(&r, REPORT_FORMAT_JSON, 0, NULL);
  check_golden(text, "base.json");
  free(text);
  r = range_result();
  text = render(&r, REPORT_FORMAT_JSON, 0, NULL);
  check_golden(text, "range.json");
  free(text);
  r = hostile_result();
  text = render(&r, REPORT_FORMAT_JSON, 0, NULL);
  check_golden(text, "hostile.json");
  free(text);
}
END_TEST

/* ---- JSON round trips ------------------------------------------------------------ */

static void check_round_trip(struct diff_result r, const char *source_root)
{
  static const enum report_format formats[] = {REPORT_FORMAT_TEXT, REPORT_FORMAT_HTML,
                                               REPORT_FORMAT_JSON, REPORT_FORMAT_JUNIT,
                                               REPORT_FORMAT_MARKDOWN};
  char *json = render(&r, REPORT_FORMAT_JSON, 0, NULL);
  struct diff_result back;
  read_json_text(json, &back);
  ck_assert_uint_eq(back.site_count, r.site_count);
  ck_assert_uint_eq(back.flagged, r.flagged);
  for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++)
    for (int color = 0; color <= 1; color++) {
      char *direct = render(&r, formats[f], color, source_root);
      char *again = render(&back, formats[f], color, source_root);
      ck_assert_msg(strcmp(direct, again) == 0, "format %zu colour %d differs", f, color);
      free(direct);
      free(again);
    }
  diff_result_free(&back);
  ck_assert_ptr_null(back.sites);
  free(json);
}

START_TEST(test_json_round_trip_renders_identically_in_every_format)
{
  check_round_trip(trend_result(), NULL);
  check_round_trip(base_result(), NULL);
  check_round_trip(range_result(), NULL);
  /* JSON saves a byte that is not UTF-8 as U+FFFD (text and Markdown show
   * the byte escaped, \\xff): the names as JSON gives them back. */
  struct diff_result hostile = hostile_result();
  hostile.sites[2].name =
      (char *)"]]></failure><script>document.title='pwned'</script>\xef\xbf\xbd\xef\xbf\xbd";
  check_round_trip(hostile, "testdata/report");
}
END_TEST

/* Base mode: a new site where the base grew at another line of its file that the candidate
 * lacks (the same leak moved?): named beside it in the text, kept in the JSON. */
START_TEST(test_a_new_site_names_the_base_line_it_may_have_moved_from)
{
  struct diff_result r = base_result();
  sites[0].base_moved = (char *)"@testdata/report/app.lua:14";
  char *text = render(&r, REPORT_FORMAT_TEXT, 0, NULL);
  ck_assert_ptr_nonnull(strstr(text, "\n  @testdata/report/app.lua:16  in the base at @testdata/report/app.lua:14\n"));
  free(text);
  char *json = render(&r, REPORT_FORMAT_JSON, 0, NULL);
  ck_assert_ptr_nonnull(strstr(json, "\"base_moved\": \"@testdata/report/app.lua:14\""));
  free(json);
  check_round_trip(r, NULL);
  sites[0].base_moved = NULL;
}
END_TEST

/* Base mode: the base's leaks that the candidate does not grow, listed as such in the text and
 * Markdown (a site steady in the candidate whose base grew; one the candidate lacks, base_gone),
 * kept in the JSON; nothing of it in trend mode. */
START_TEST(test_the_bases_leaks_the_candidate_does_not_grow_are_listed)
{
  static struct diff_base_gone gone[1] = {{(char *)"@testdata/report/old.lua:9", 2048}};
  struct diff_result r = base_result();
  sites[2].base_verdict = DIFF_VERDICT_GROWING;
  sites[2].base_growth_bytes_per_segment = 4096;
  r.base_gone = gone;
  r.base_gone_count = 1;
  char *text = render(&r, REPORT_FORMAT_TEXT, 0, NULL);
  ck_assert_ptr_nonnull(strstr(text, "\ngrew in the base, not in the candidate (2):\n"
                                     "  @testdata/report/app.lua:11: steady in the candidate; +4.0 KiB per boundary in the base\n"
                                     "  @testdata/report/old.lua:9: absent from the candidate (fixed, or renamed); +2.0 KiB per boundary in the base\n"));
  free(text);
  char *md = render(&r, REPORT_FORMAT_MARKDOWN, 0, NULL);
  ck_assert_ptr_nonnull(strstr(md, "grew in the base, not in the candidate (2):\n\n"
                                   "* `@testdata/report/app.lua:11`: steady in the candidate; +4.0 KiB per boundary in the base\n"));
  free(md);
  char *json = render(&r, REPORT_FORMAT_JSON, 0, NULL);
  ck_assert_ptr_nonnull(strstr(json, "\"base_gone\": [\n    {\"name\": \"@testdata/report/old.lua:9\", \"growth_bytes_per_segment\": 2048}\n  ]"));
  free(json);
  check_round_trip(r, NULL);
  r.mode = DIFF_MODE_TREND;
  text = render(&r, REPORT_FORMAT_TEXT, 0, NULL);
  ck_assert_ptr_null(strstr(text, "grew in the base"));
  free(text);
  sites[2].base_verdict = DIFF_VERDICT_INSUFFICIENT;
  sites[2].base_growth_bytes_per_segment = 0;
}
END_TEST

/* Why undecided sites have no verdict, which their series cannot tell again: growing only at
 * the forced boundaries, let go at the end, growing with young blocks counted, held briefly.
 * ljleak report of the JSON says the same. */
START_TEST(test_json_round_trip_keeps_why_a_site_is_undecided)
{
  struct diff_result r = trend_result();
  sites[2].verdict = DIFF_VERDICT_UNDECIDED;
  sites[2].forced_growing = 1;
  sites[3].verdict = DIFF_VERDICT_UNDECIDED;
  sites[3].released_at_end = 1;
  char *json = render(&r, REPORT_FORMAT_JSON, 0, NULL);
  ck_assert_ptr_nonnull(strstr(json, "\"forced_growing\": true"));
  ck_assert_ptr_nonnull(strstr(json, "\"released_at_end\": true"));
  struct diff_result back;
  read_json_text(json, &back);
  ck_assert_int_eq(back.sites[2].forced_growing, 1);
  ck_assert_int_eq(back.sites[3].released_at_end, 1);
  ck_assert_int_eq(back.sites[0].forced_growing + back.sites[0].released_at_end, 0);
  diff_result_free(&back);
  free(json);
  check_round_trip(r, NULL);
  /* One cause alone, and nothing flagged: the outcome's reason, in the report of the JSON too. */
  sites[0].verdict = sites[1].verdict = sites[3].verdict = DIFF_VERDICT_STEADY;
  sites[3].released_at_end = 0;
  r.flagged = 0;
  json = render(&r, REPORT_FORMAT_JSON, 0, NULL);
  read_json_text(json, &back);
  char *text = render(&back, REPORT_FORMAT_TEXT, 0, NULL);
  ck_assert_ptr_nonnull(strstr(text, "at the full cycles the collector forced, but not at the program's own"));
  free(text);
  diff_result_free(&back);
  free(json);
  /* Growing with its young blocks counted: kept in the JSON, said with what to do. */
  sites[2].forced_growing = 0;
  sites[2].young_growing = 1;
  json = render(&r, REPORT_FORMAT_JSON, 0, NULL);
  ck_assert_ptr_nonnull(strstr(json, "\"young_growing\": true"));
  read_json_text(json, &back);
  ck_assert_int_eq(back.sites[2].young_growing, 1);
  ck_assert_int_eq(back.sites[0].young_growing, 0);
  text = render(&back, REPORT_FORMAT_TEXT, 0, NULL);
  ck_assert_ptr_nonnull(strstr(text, "grows with the blocks born during each boundary's cycle counted"));
  free(text);
  text = render(&back, REPORT_FORMAT_JUNIT, 0, NULL);
  ck_assert_ptr_nonnull(strstr(text, "its newest copy young at every boundary"));
  free(text);
  diff_result_free(&back);
  free(json);
  sites[2].young_growing = 0;
  /* Rose, then held its level to the end for fewer boundaries than it rose for: kept in the
   * JSON, said as a cache that filled or a leak that paused. */
  sites[2].held_briefly = 1;
  json = render(&r, REPORT_FORMAT_JSON, 0, NULL);
  ck_assert_ptr_nonnull(strstr(json, "\"held_briefly\": true"));
  read_json_text(json, &back);
  ck_assert_int_eq(back.sites[2].held_briefly, 1);
  ck_assert_int_eq(back.sites[0].held_briefly, 0);
  text = render(&back, REPORT_FORMAT_TEXT, 0, NULL);
  ck_assert_ptr_nonnull(strstr(text, "then held its level to the end, for fewer boundaries than it rose for: "
                                     "a cache that filled, or a leak that paused; a longer run tells"));
  free(text);
  text = render(&back, REPORT_FORMAT_JUNIT, 0, NULL);
  ck_assert_ptr_nonnull(strstr(text, "held its level to the end for fewer boundaries than it rose for"));
  free(text);
  diff_result_free(&back);
  free(json);
  sites[2].held_briefly = 0;
}
END_TEST

/* What the round trip above leaves out: a name that is not UTF-8. The saved
 * JSON holds U+FFFD for each bad byte, so ljleak report shows U+FFFD where
 * ljleak diff showed \\xHH; either is safe on a terminal. */
START_TEST(test_json_saves_bytes_that_are_not_utf8_as_u_fffd)
{
  struct diff_result r = hostile_result();
  char *json = render(&r, REPORT_FORMAT_JSON, 0, NULL);
  struct diff_result back;
  read_json_text(json, &back);
  char *direct = render(&r, REPORT_FORMAT_TEXT, 0, NULL);
  char *again = render(&back, REPORT_FORMAT_TEXT, 0, NULL);
  ck_assert_ptr_nonnull(strstr(direct, "</script>\\xff\\xfe"));
  ck_assert_ptr_nonnull(strstr(again, "</script>\xef\xbf\xbd\xef\xbf\xbd"));
  free(direct);
  free(again);
  diff_result_free(&back);
  free(json);
}
END_TEST

/* Work done and forced flags per boundary (from the index's boundary lines)
 * round trip; a result without them writes neither member, as results did
 * before there were boundary lines, and reads back without them. */
START_TEST(test_json_boundary_allocated_and_forced_round_trip_and_are_optional)
{
  static uint64_t allocated[8] = {0, 1048576, 2097152, 3145728, 4194304, 5242880, 6291456, 7340032};
  static unsigned char forced[8] = {1, 0, 0, 0, 1, 0, 0, 1};
  struct diff_result r = trend_result();
  char *plain = render(&r, REPORT_FORMAT_JSON, 0, NULL);
  ck_assert_ptr_null(strstr(plain, "boundary_allocated"));
  ck_assert_ptr_null(strstr(plain, "boundary_forced"));
  struct diff_result back;
  read_json_text(plain, &back);
  ck_assert_ptr_null(back.capture.allocated);
  ck_assert_ptr_null(back.capture.forced);
  diff_result_free(&back);
  free(plain);

  r.capture.allocated = allocated;
  r.capture.forced = forced;
  char *json = render(&r, REPORT_FORMAT_JSON, 0, NULL);
  ck_assert_ptr_nonnull(strstr(json, "\"boundary_allocated\": [0, 1048576, 2097152, 3145728, 4194304, "
                                     "5242880, 6291456, 7340032]"));
  const char *flags = strstr(json, "\"boundary_forced\": [true, false, false, false, true, false, false, true]");
  ck_assert_ptr_nonnull(flags);
  read_json_text(json, &back);
  ck_assert_ptr_nonnull(back.capture.allocated);
  ck_assert_ptr_nonnull(back.capture.forced);
  for (size_t i = 0; i < 8; i++) {
    ck_assert_uint_eq(back.capture.allocated[i], allocated[i]);
    ck_assert_uint_eq(back.capture.forced[i], forced[i]);
  }
  diff_result_free(&back);

  /* As many elements as boundaries, and booleans. */
  size_t at = (size_t)(strchr(flags, '[') - json);
  char *bad = malloc(strlen(json) + 64);
  ck_assert_ptr_nonnull(bad);
  snprintf(bad, strlen(json) + 64, "%.*s[true]%s", (int)at, json, strchr(json + at, ']') + 1);
  char expected[128];
  snprintf(expected, sizeof expected, "t.json: byte %zu: boundary_forced has 1 elements, expected 8", at);
  expect_json_error(bad, expected);
  snprintf(bad, strlen(json) + 64, "%.*s[1, 0, 0, 0, 1, 0, 0, 1]%s", (int)at, json, strchr(json + at, ']') + 1);
  snprintf(expected, sizeof expected, "t.json: byte %zu: boundary_forced must be true or false", at + 1);
  expect_json_error(bad, expected);
  free(bad);
  free(json);
}
END_TEST

/* The capture's stop reason: kept in the JSON (absent without one, as before it), and a
 * write error's (or --max-total-bytes') is a warning in the text and HTML headers, as a
 * --duration's or a stop's end is a note that the process ran on (the coverage then of the
 * captured work, not the run's); an exit's is neither. */
START_TEST(test_a_stop_by_a_write_error_is_a_warning_in_every_header)
{
  static const char warning[] = "the capture stopped early: the collector could not write";
  struct diff_result r = trend_result();
  char *plain = render(&r, REPORT_FORMAT_JSON, 0, NULL);
  ck_assert_ptr_null(strstr(plain, "stop_reason"));
  free(plain);
  static const char *const reasons[] = {"exit", "write-error", "max-total-bytes", "duration", "stop"};
  for (int k = 0; k < 5; k++) {
    r.capture.stop_reason = (char *)reasons[k];
    char *json = render(&r, REPORT_FORMAT_JSON, 0, NULL);
    struct diff_result back;
    read_json_text(json, &back);
    ck_assert_str_eq(back.capture.stop_reason, reasons[k]);
    diff_result_free(&back);
    free(json);
    char *text = render(&r, REPORT_FORMAT_TEXT, 0, NULL);
    char *html = render(&r, REPORT_FORMAT_HTML, 0, NULL);
    ck_assert_int_eq(strstr(text, warning) != NULL, k == 1);
    ck_assert_int_eq(strstr(html, warning) != NULL, k == 1);
    ck_assert_int_eq(strstr(text, "stopped early at its --max-total-bytes limit") != NULL, k == 2);
    /* An end the user chose, while the process ran on: not the run's work that was covered. */
    ck_assert_int_eq(strstr(text, "the capture ended at its --duration, and the process ran on unrecorded") != NULL, k == 3);
    ck_assert_int_eq(strstr(text, "the capture was stopped (ljleak control stop") != NULL, k == 4);
    free(text);
    free(html);
  }
}
END_TEST

START_TEST(test_json_round_trip_keeps_every_field)
{
  struct diff_result r = base_result();
  char *json = render(&r, REPORT_FORMAT_JSON, 0, NULL);
  struct diff_result back;
  read_json_text(json, &back);
  ck_assert_int_eq(back.mode, DIFF_MODE_BASE);
  ck_assert_uint_eq(back.options.min_boundaries, 8);
  ck_assert(back.options.max_p_value == 0.01);
  ck_assert_str_eq(back.capture.command, "luajit app.lua 8080");
  ck_assert_str_eq(back.base.command, "luajit app-base.lua 8080");
  ck_assert_int_eq(back.base.pid, 4100);
  ck_assert_uint_eq(back.capture.boundary_count, 8);
  ck_assert(back.capture.boundary_times[7] == 1763745680.125);
  ck_assert_uint_eq(back.capture.heap_bytes[7], 2293760);
  ck_assert_uint_eq(back.capture.gc_cycles[7], 24);
  ck_assert(back.capture.start_time == 1763745600.125);
  ck_assert_uint_eq(back.capture.events, 1234567);
  const struct diff_site *s = &back.sites[0];
  ck_assert_str_eq(s->name, "@testdata/report/app.lua:16");
  ck_assert_uint_eq(s->id, 0x9e3779b97f4a7c15u);
  ck_assert_int_eq(s->kind, DIFF_SITE_LUA);
  ck_assert_str_eq(s->source_file, "testdata/report/app.lua");
  ck_assert_uint_eq(s->source_line, 16);
  ck_assert_int_eq(s->verdict, DIFF_VERDICT_NEW);
  ck_assert_int_eq(s->base_verdict, DIFF_VERDICT_STEADY);
  ck_assert_uint_eq(s->count, 8);
  ck_assert_uint_eq(s->live_bytes[7], 67200);
  ck_assert_uint_eq(s->live_blocks[7], 700);
  ck_assert_uint_eq(s->alloc_bytes[1], 9600);
  ck_assert_uint_eq(s->free_bytes[1], 0);
  ck_assert(s->trend_p_value == 0.00012400793650793651);
  ck_assert_uint_eq(s->base_count, 8);
  ck_assert_uint_eq(back.sites[1].id, UINT64_MAX);
  ck_assert(back.sites[1].base_growth_bytes_per_segment == 1024);
  ck_assert_ptr_null(back.sites[1].live_blocks);
  ck_assert_ptr_null(back.sites[3].source_file);
  ck_assert(isnan(back.sites[5].trend_p_value));
  diff_result_free(&back);
  free(json);
}
END_TEST

START_TEST(test_json_doubles_and_64_bit_integers_round_trip_exactly)
{
  static const double doubles[] = {0.1, 1.0 / 3, -0.0, 5e-324, DBL_MAX, -DBL_MIN, 1e21,
                                   123456789.125, 0.30000000000000004, INFINITY, -INFINITY};
  static uint64_t big[3] = {UINT64_MAX, (uint64_t)1 << 53 | 1, 0};
  struct diff_site site = {.name = (char *)"s", .verdict = DIFF_VERDICT_STEADY, .count = 3,
                           .live_bytes = big, .allocs = UINT64_MAX,
                           .range_delta_bytes = INT64_MIN};
  struct diff_result r;
  memset(&r, 0, sizeof r);
  r.site_count = 1;
  r.sites = &site;
  for (size_t i = 0; i < sizeof doubles / sizeof doubles[0]; i++) {
    site.growth_bytes_per_segment = doubles[i];
    char *json = render(&r, REPORT_FORMAT_JSON, 0, NULL);
    struct diff_result back;
    read_json_text(json, &back);
    double d = back.sites[0].growth_bytes_per_segment;
    ck_assert_msg(memcmp(&d, &doubles[i], sizeof d) == 0, "double %zu: %.17g", i, d);
    ck_assert_uint_eq(back.sites[0].live_bytes[0], UINT64_MAX);
    ck_assert_uint_eq(back.sites[0].live_bytes[1], ((uint64_t)1 << 53) + 1);
    ck_assert_uint_eq(back.sites[0].allocs, UINT64_MAX);
    ck_assert(back.sites[0].range_delta_bytes == INT64_MIN);
    diff_result_free(&back);
    free(json);
  }
  /* The shortest text is chosen: 0.1 is written as 0.1, not 0.10000000000000001. */
  site.growth_bytes_per_segment = 0.1;
  char *json = render(&r, REPORT_FORMAT_JSON, 0, NULL);
  ck_assert_ptr_nonnull(strstr(json, "\"growth_bytes_per_segment\": 0.1,\n"));
  ck_assert_ptr_nonnull(strstr(json, "\"series\": [18446744073709551615, 9007199254740993, 0],"));
  ck_assert_ptr_nonnull(strstr(json, "\"range_delta_bytes\": -9223372036854775808,\n"));
  free(json);
}
END_TEST

START_TEST(test_json_reader_accepts_the_minimal_result)
{
  struct diff_result back;
  read_json_text("{\"ljleak_result\":1,\"mode\":\"trend\",\"sites\":[{\"name\":\"@a.lua:1\","
                 "\"verdict\":\"growing\",\"series\":[1,2,3],\"growth_bytes_per_segment\":1,"
                 "\"future_field\":{\"x\":[null]}}]}",
                 &back);
  ck_assert_uint_eq(back.site_count, 1);
  ck_assert_uint_eq(back.flagged, 1);
  ck_assert_str_eq(back.sites[0].name, "@a.lua:1");
  ck_assert_uint_eq(back.sites[0].count, 3);
  ck_assert_uint_eq(back.sites[0].live_bytes[2], 3);
  diff_result_free(&back);
}
END_TEST

START_TEST(test_json_reader_keeps_a_saved_flagged_count_and_counts_a_missing_one)
{
  /* A trend result carrying a "new" site (saved by hand): the model's
   * definition flags it beside the growing one. */
  static const char saved_sites[] =
      "\"sites\":[{\"name\":\"@a.lua:1\",\"verdict\":\"growing\",\"series\":[1,2],"
      "\"growth_bytes_per_segment\":1},{\"name\":\"@a.lua:2\",\"verdict\":\"new\","
      "\"series\":[1,2],\"growth_bytes_per_segment\":1},{\"name\":\"@a.lua:3\","
      "\"verdict\":\"steady\",\"series\":[1,1],\"growth_bytes_per_segment\":0}]}";
  char text[1024];
  struct diff_result back;
  snprintf(text, sizeof text, "{\"ljleak_result\":1,\"mode\":\"trend\",%s", saved_sites);
  read_json_text(text, &back);
  ck_assert_uint_eq(back.flagged, 2);
  diff_result_free(&back);
  snprintf(text, sizeof text, "{\"ljleak_result\":1,\"mode\":\"trend\",\"flagged\":0,%s",
           saved_sites);
  read_json_text(text, &back);
  ck_assert_uint_eq(back.flagged, 0);
  ck_assert_uint_eq(back.facts.tally.flagged, 2);  /* the facts count them all the same */
  diff_result_free(&back);
  snprintf(text, sizeof text, "{\"ljleak_result\":1,\"mode\":\"base\",%s", saved_sites);
  read_json_text(text, &back);
  ck_assert_uint_eq(back.flagged, 1);
  diff_result_free(&back);
}
END_TEST

START_TEST(test_json_reader_decodes_escapes_and_surrogate_pairs)
{
  struct diff_result back;
  read_json_text("{\"ljleak_result\":1,\"mode\":\"trend\",\"sites\":[{\"name\":"
                 "\"\\u003c\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\xe2\x82\xac\","
                 "\"verdict\":\"steady\",\"series\":[],\"growth_bytes_per_segment\":0}]}",
                 &back);
  ck_assert_str_eq(back.sites[0].name,
                   "<\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80\xe2\x82\xac");
  ck_assert_ptr_nonnull(back.sites[0].live_bytes);
  ck_assert_uint_eq(back.sites[0].count, 0);
  diff_result_free(&back);
}
END_TEST

START_TEST(test_json_reader_reports_file_and_byte_of_syntax_errors)
{
  expect_json_error("", "t.json: byte 0: expected a JSON value, found the end of the input");
  expect_json_error("{\"a\":1,}", "t.json: byte 7: expected a member name in quotes, found '}'");
  expect_json_error("[1,2,]", "t.json: byte 5: expected a JSON value, found ']'");
  expect_json_error("{\"a\":1} x", "t.json: byte 8: unexpected text after the JSON value");
  expect_json_error("{\"a\":1,\"a\":2}", "t.json: byte 7: duplicate member name");
  expect_json_error("// c\n{}", "t.json: byte 0: expected a JSON value, found '/'");
  expect_json_error("[01]", "t.json: byte 2: leading zero in number");
  expect_json_error("[1.]", "t.json: byte 3: expected a digit after the decimal point");
  expect_json_error("[1e+]", "t.json: byte 4: expected a digit in the exponent");
  expect_json_error("[-]", "t.json: byte 2: expected a digit in number");
  expect_json_error("[\"a\x01\"]", "t.json: byte 3: control character 0x01 in string (must be escaped)");
  expect_json_error("[\"\xc3\x28\"]", "t.json: byte 2: invalid UTF-8 in string");
  expect_json_error("[\"\xed\xa0\x80\"]", "t.json: byte 2: invalid UTF-8 in string");
  expect_json_error("[\"\\ud800x\"]", "t.json: byte 2: high surrogate without a low one in \\u escape");
  expect_json_error("[\"\\udc00\"]", "t.json: byte 2: lone low surrogate in \\u escape");
  expect_json_error("[\"\\u12g4\"]", "t.json: byte 6: bad hex digit in \\u escape");
  expect_json_error("[\"\\u0000\"]", "t.json: byte 2: \\u0000 in a string is not supported");
  expect_json_error("[\"\\x\"]", "t.json: byte 2: unknown escape in string");
  expect_json_error("[\"abc", "t.json: byte 1: unterminated string");
  expect_json_error("[tru]", "t.json: byte 1: expected a JSON value, found 't'");
  expect_json_error("{\"a\" 1}", "t.json: byte 5: expected ':' after a member name, found '1'");
  expect_json_error("[1 2]", "t.json: byte 3: expected ',' or ']' in array, found '2'");
  expect_json_error("\xef\xbb\xbf{}", "t.json: byte 0: expected a JSON value, found byte 0xef");
  char deep[200];
  memset(deep, '[', sizeof deep);
  deep[sizeof deep - 1] = '\0';
  expect_json_error(deep, "t.json: byte 65: nested deeper than 64 levels");
}
END_TEST

START_TEST(test_json_reader_reports_file_and_byte_of_schema_errors)
{
  expect_json_error("[]", "t.json: byte 0: the result must be an object");
  expect_json_error("{\"mode\":\"trend\",\"sites\":[]}", "t.json: byte 0: missing member \"ljleak_result\"");
  expect_json_error("{\"ljleak_result\":2,\"mode\":\"trend\",\"sites\":[]}",
                    "t.json: byte 17: ljleak_result 2 is not a version this reader knows (1)");
  expect_json_error("{\"ljleak_result\":1,\"mode\":\"sideways\",\"sites\":[]}",
                    "t.json: byte 26: mode must be one of \"trend\", \"range\", \"base\"");
  expect_json_error("{\"ljleak_result\":1,\"mode\":\"trend\",\"sites\":[{\"name\":\"a\","
                    "\"verdict\":\"leaky\",\"series\":[],\"growth_bytes_per_segment\":0}]}",
                    "t.json: byte 65: verdict must be one of \"growing\", \"steady\", "
                    "\"shrinking\", \"insufficient\", \"new\", \"worse\", \"undecided\"");
  expect_json_error("{\"ljleak_result\":1,\"mode\":\"trend\",\"sites\":[{\"name\":\"a\","
                    "\"verdict\":\"steady\",\"series\":[1,-2],\"growth_bytes_per_segment\":0}]}",
                    "t.json: byte 86: series must be a whole number >= 0");
  expect_json_error("{\"ljleak_result\":1,\"mode\":\"trend\",\"sites\":[{\"name\":\"a\","
                    "\"verdict\":\"steady\",\"series\":[18446744073709551616],"
                    "\"growth_bytes_per_segment\":0}]}",
                    "t.json: byte 84: series is larger than 2^64-1");
  expect_json_error("{\"ljleak_result\":1,\"mode\":\"trend\",\"sites\":[{\"name\":\"a\","
                    "\"verdict\":\"steady\",\"series\":[1],\"live_blocks\":[1,2],"
                    "\"growth_bytes_per_segment\":0}]}",
                    "t.json: byte 101: live_blocks has 2 elements, expected 1");
  expect_json_error("{\"ljleak_result\":1,\"mode\":\"trend\",\"sites\":[{\"name\":\"a\","
                    "\"verdict\":\"steady\",\"series\":[1]}]}",
                    "t.json: byte 43: missing member \"growth_bytes_per_segment\"");
  expect_json_error("{\"ljleak_result\":1,\"mode\":\"trend\",\"sites\":[{\"name\":\"a\",\"id\":"
                    "\"12345678901234567\",\"verdict\":\"steady\",\"series\":[1],"
                    "\"growth_bytes_per_segment\":0}]}",
                    "t.json: byte 60: id must be a string of 1 to 16 hex digits");
  expect_json_error("{\"ljleak_result\":1,\"mode\":\"trend\",\"capture\":{\"boundary_count\":2,"
                    "\"heap_bytes\":[1]},\"sites\":[]}",
                    "t.json: byte 77: heap_bytes has 1 elements, expected 2");
  expect_json_error("{\"ljleak_result\":1,\"mode\":\"trend\",\"sites\":[{\"name\":\"a\","
                    "\"verdict\":\"steady\",\"series\":[1],\"growth_bytes_per_segment\":0,"
                    "\"kinds\":[{\"kind\":\"table\",\"objects\":1,\"bytes\":64,\"parts\":2,\"part_bytes\":64}]}]}",
                    "t.json: byte 125: a kind's parts must be some of its objects, and their bytes of its bytes");
}
END_TEST

START_TEST(test_read_json_names_the_file_and_reads_saved_results)
{
  struct diff_result back;
  struct format_error error;
  ck_assert_int_eq(diff_result_read_json("testdata/report/no-such.json", &back, &error),
                   FORMAT_IO);
  ck_assert_str_eq(error.message, "testdata/report/no-such.json: No such file or directory");
  ck_assert_int_eq(diff_result_read_json("testdata/report/trend.json", &back, &error), 0);
  struct diff_result r = trend_result();
  char *direct = render(&r, REPORT_FORMAT_TEXT, 0, NULL);
  char *again = render(&back, REPORT_FORMAT_TEXT, 0, NULL);
  ck_assert_str_eq(direct, again);
  free(direct);
  free(again);
  diff_result_free(&back);
}
END_TEST

/* ---- HTML ----------------------------------------------------------------------- */

START_TEST(test_html_escapes_everything_from_the_capture)
{
  struct diff_result r = hostile_result();
  char *html = render(&r, REPORT_FORMAT_HTML, 0, "testdata/report");
  ck_assert_ptr_null(strstr(html, "<script>alert"));
  ck_assert_ptr_null(strstr(html, "<img"));
  ck_assert_ptr_null(strstr(html, "<b>bold"));
  ck_assert_ptr_null(strstr(html, "</title><script>"));
  /* Exactly one script element: the page's own. */
  const char *script = strstr(html, "<script");
  ck_assert_ptr_nonnull(script);
  ck_assert_ptr_null(strstr(script + 1, "<script"));
  ck_assert_ptr_nonnull(strstr(html, "<code>@&lt;script&gt;alert(1)&lt;/script&gt;.lua:1</code>"));
  ck_assert_ptr_nonnull(
      strstr(html, "<b>1</b>-- &lt;img src=x onerror=alert(1)&gt; in a comment"));
  ck_assert_ptr_nonnull(strstr(html, "&lt;/pre&gt;&lt;script&gt;document.title=&quot;pwned&quot;"));
  ck_assert_ptr_nonnull(strstr(html, "&lt;img src=x onerror=&quot;document.title=&#39;pwned&#39;&quot;&gt;"));
  ck_assert_ptr_nonnull(strstr(html, "&#39;a&#39; \xef\xbf\xbd[2J</code>"));
  free(html);
}
END_TEST

START_TEST(test_html_references_nothing_outside_the_file)
{
  struct diff_result results[4] = {trend_result(), base_result(), range_result(),
                                   hostile_result()};
  for (int i = 0; i < 4; i++) {
    char *html = render(&results[i], REPORT_FORMAT_HTML, 0, "testdata/report");
    ck_assert_ptr_null(strstr(html, "http:"));
    ck_assert_ptr_null(strstr(html, "https:"));
    ck_assert_ptr_null(strstr(html, "//"));
    /* src= only as escaped text from the hostile capture, never an attribute. */
    size_t sources = 0, escaped = 0;
    for (const char *p = html; (p = strstr(p, "src=")); p++)
      sources++;
    for (const char *p = html; (p = strstr(p, "&lt;img src=")); p++)
      escaped++;
    ck_assert_uint_eq(sources, escaped);
    ck_assert_ptr_null(strstr(html, "href="));
    ck_assert_ptr_null(strstr(html, "url("));
    ck_assert_ptr_null(strstr(html, "@import"));
    ck_assert_ptr_nonnull(strstr(html, "content=\"default-src 'none';"));
    free(html);
  }
}
END_TEST

START_TEST(test_html_shows_metadata_chart_table_and_sources)
{
  struct diff_result r = trend_result();
  char *html = render(&r, REPORT_FORMAT_HTML, 0, ".");
  ck_assert_ptr_nonnull(strstr(html, "<h1>2 of 6 sites growing</h1>"));
  ck_assert_ptr_nonnull(strstr(html, "<dt>command</dt><dd><code>luajit app.lua 8080</code></dd>"));
  ck_assert_ptr_nonnull(strstr(html, "<dt>host</dt><dd>web-1</dd>"));
  ck_assert_ptr_nonnull(strstr(html, "<dt>pid</dt><dd>4242</dd>"));
  ck_assert_ptr_nonnull(strstr(html, "<dt>LuaJIT</dt><dd>LuaJIT 2.1.0-beta3</dd>"));
  ck_assert_ptr_nonnull(strstr(html, "<dt>time span</dt><dd>1m 20s from 2025-11-21 17:20:00 UTC</dd>"));
  ck_assert_ptr_nonnull(strstr(html, "<dt>GC cycles</dt><dd>24</dd>"));
  ck_assert_ptr_nonnull(strstr(html, "<dt>sampling</dt><dd>every event recorded</dd>"));
  ck_assert_ptr_nonnull(strstr(html, "<h2>Lua heap at each boundary</h2>"));
  ck_assert_ptr_nonnull(strstr(html, "<table class=\"sortable\" id=\"sites\">"));
  /* Six rows, six sparklines, and the leaking line with its neighbours. */
  size_t rows = 0, sparks = 0;
  for (const char *p = html; (p = strstr(p, "<tr class=\"row")); p++)
    rows++;
  for (const char *p = html; (p = strstr(p, "<svg class=\"spark\"")); p++)
    sparks++;
  ck_assert_uint_eq(rows, 6);
  ck_assert_uint_eq(sparks, 6);
  ck_assert_ptr_nonnull(strstr(html, "<span class=\"hit\"><b>16</b>  sessions[#sessions + 1] = "
                                     "{ id = request.id, user = request.user }</span>"));
  ck_assert_ptr_nonnull(strstr(html, "<span><b>13</b>end</span>"));
  ck_assert_ptr_nonnull(strstr(html, "<span><b>19</b>end</span></pre>"));
  free(html);
}
END_TEST

START_TEST(test_html_base_mode_shows_base_and_candidate_side_by_side)
{
  struct diff_result r = base_result();
  char *html = render(&r, REPORT_FORMAT_HTML, 0, NULL);
  const char *base = strstr(html, "<h3>Base</h3>");
  const char *candidate = strstr(html, "<h3>Candidate</h3>");
  ck_assert_ptr_nonnull(base);
  ck_assert_ptr_nonnull(candidate);
  ck_assert(base < candidate);
  ck_assert_ptr_nonnull(strstr(html, "<code>luajit app-base.lua 8080</code>"));
  ck_assert_ptr_nonnull(strstr(html, "<th title=\"growth per boundary in the base\">base/boundary</th>"));
  ck_assert_ptr_nonnull(strstr(html, "<th class=\"spark\">base series</th>"));
  ck_assert_ptr_nonnull(strstr(html, "live bytes, all sites (base)"));
  ck_assert_ptr_nonnull(strstr(html, "<h1>1 new and 0 worse in the candidate</h1>"));
  free(html);
}
END_TEST

START_TEST(test_html_reads_only_lua_sources)
{
  struct diff_result r = trend_result();
  sites[0].source_file = (char *)"testdata/report/trend.txt";  /* exists, not Lua */
  char *html = render(&r, REPORT_FORMAT_HTML, 0, ".");
  ck_assert_ptr_null(strstr(html, "ljleak: 2 of 6 sites growing"));
  ck_assert_ptr_nonnull(strstr(html, "<p class=\"kind\">source not shown: not a .lua file</p>"));
  ck_assert_ptr_nonnull(strstr(html, "<b>16</b>  sessions[#sessions + 1]"));  /* site 2 still */
  free(html);
}
END_TEST

START_TEST(test_html_source_missing_is_said_not_fatal)
{
  struct diff_result r = trend_result();
  char *html = render(&r, REPORT_FORMAT_HTML, 0, "no/such/root");
  ck_assert_ptr_null(strstr(html, "<pre class=\"src\">"));
  ck_assert_ptr_nonnull(strstr(html, "<code>@testdata/report/app.lua:16</code>"));
  ck_assert_ptr_nonnull(strstr(html, "Source excerpts: none, the source root <code>no/such/root</code> "
                                     "cannot be opened: No such file or directory."));
  free(html);
}
END_TEST

/* ---- Sources beneath --source-root ------------------------------------------------- */

/* A tree made once for the tcase (an unchecked fixture: made and removed
 * outside the forked tests):
 *   DIR/outside.lua                a file beside the root
 *   DIR/root/ok.lua                nine lines, "local v1 = 1" to "local v9 = 9"
 *   DIR/root/sub/inner.lua
 *   DIR/root/link.lua -> ok.lua    a link in the last component (to a file beneath)
 *   DIR/root/linkdir -> sub        a link in a middle directory
 *   DIR/root/fifo.lua              a FIFO: opening it to read would block
 *   DIR/root/dir.lua/              a directory
 *   DIR/root/big.lua               one byte over the cap (sparse)
 *   DIR/root/edge.lua              exactly the cap (sparse) */
static char source_dir[256], source_root[300];

static void source_path(char *path, size_t size, const char *name)
{
  ck_assert_int_lt(snprintf(path, size, "%s/%s", source_dir, name), (int)size);
}

static void source_write(const char *name, const char *text, off_t size)
{
  char path[400];
  source_path(path, sizeof path, name);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  if (size)
    ck_assert_int_eq(ftruncate(fd, size), 0);
  ck_assert_int_eq(close(fd), 0);
}

static const char *const source_tree[] = {
    "root/ok.lua", "root/sub/inner.lua", "root/link.lua", "root/linkdir", "root/fifo.lua",
    "root/big.lua", "root/edge.lua", "outside.lua"};

static void source_tree_make(void)
{
  const char *tmp = getenv("TMPDIR");
  snprintf(source_dir, sizeof source_dir, "%s/ljleak-source.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(source_dir));
  char path[400];
  source_path(source_root, sizeof source_root, "root");
  ck_assert_int_eq(mkdir(source_root, 0755), 0);
  source_path(path, sizeof path, "root/sub");
  ck_assert_int_eq(mkdir(path, 0755), 0);
  source_path(path, sizeof path, "root/dir.lua");
  ck_assert_int_eq(mkdir(path, 0755), 0);
  source_write("root/ok.lua", "local v1 = 1\nlocal v2 = 2\nlocal v3 = 3\nlocal v4 = 4\nlocal v5 = 5\n"
                              "local v6 = 6\nlocal v7 = 7\nlocal v8 = 8\nlocal v9 = 9\n", 0);
  source_write("root/sub/inner.lua", "return 'inner'\n", 0);
  source_write("outside.lua", "return 'outside'\n", 0);
  source_write("root/big.lua", "-- big\n", (off_t)REPORT_SOURCE_MAX_BYTES + 1);
  source_write("root/edge.lua", "-- edge\n", (off_t)REPORT_SOURCE_MAX_BYTES);
  source_path(path, sizeof path, "root/link.lua");
  ck_assert_int_eq(symlink("ok.lua", path), 0);
  source_path(path, sizeof path, "root/linkdir");
  ck_assert_int_eq(symlink("sub", path), 0);
  source_path(path, sizeof path, "root/fifo.lua");
  ck_assert_int_eq(mkfifo(path, 0644), 0);
}

static void source_tree_remove(void)
{
  char path[400];
  for (size_t i = 0; i < sizeof source_tree / sizeof source_tree[0]; i++) {
    source_path(path, sizeof path, source_tree[i]);
    unlink(path);
  }
  static const char *const dirs[] = {"root/sub", "root/dir.lua", "root", ""};
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
    source_path(path, sizeof path, dirs[i]);
    rmdir(path);
  }
}

static enum report_source_status read_beneath(const char *name, enum report_source_resolve resolve,
                                              struct report_source *source)
{
  int root = open(source_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  ck_assert_int_ge(root, 0);
  enum report_source_status status = report_source_read(root, name, resolve, source);
  ck_assert_int_eq(close(root), 0);
  if (status != REPORT_SOURCE_OK)
    ck_assert_ptr_null(source->text);
  return status;
}

/* Each refusal, by openat2 and by the component walk alike. */
START_TEST(test_source_read_only_regular_files_beneath_the_root)
{
  enum report_source_resolve resolve = _i ? REPORT_SOURCE_WALK : REPORT_SOURCE_OPENAT2;
  struct report_source source;
  ck_assert_int_eq(read_beneath("ok.lua", resolve, &source), REPORT_SOURCE_OK);
  ck_assert_uint_eq(source.length, 9 * 13);
  ck_assert(!strncmp(source.text, "local v1 = 1\nlocal v2 = 2\n", 26));
  free(source.text);
  ck_assert_int_eq(read_beneath("sub/inner.lua", resolve, &source), REPORT_SOURCE_OK);
  ck_assert_str_eq(source.text, "return 'inner'\n");
  free(source.text);
  ck_assert_int_eq(read_beneath("./sub//inner.lua", resolve, &source), REPORT_SOURCE_OK);
  free(source.text);
  ck_assert_int_eq(read_beneath("edge.lua", resolve, &source), REPORT_SOURCE_OK);
  ck_assert_uint_eq(source.length, REPORT_SOURCE_MAX_BYTES);
  free(source.text);

  char absolute[400];
  source_path(absolute, sizeof absolute, "root/ok.lua");
  ck_assert_int_eq(read_beneath(absolute, resolve, &source), REPORT_SOURCE_BAD_NAME);
  ck_assert_int_eq(read_beneath("../outside.lua", resolve, &source), REPORT_SOURCE_BAD_NAME);
  ck_assert_int_eq(read_beneath("sub/../ok.lua", resolve, &source), REPORT_SOURCE_BAD_NAME);
  ck_assert_int_eq(read_beneath("sub/..", resolve, &source), REPORT_SOURCE_BAD_NAME);
  ck_assert_int_eq(read_beneath("", resolve, &source), REPORT_SOURCE_BAD_NAME);
  ck_assert_int_eq(read_beneath("sub/", resolve, &source), REPORT_SOURCE_BAD_NAME);
  ck_assert_int_eq(read_beneath("link.lua", resolve, &source), REPORT_SOURCE_LINK);
  ck_assert_int_eq(read_beneath("linkdir/inner.lua", resolve, &source), REPORT_SOURCE_LINK);
  ck_assert_int_eq(read_beneath("fifo.lua", resolve, &source), REPORT_SOURCE_NOT_REGULAR);
  ck_assert_int_eq(read_beneath("dir.lua", resolve, &source), REPORT_SOURCE_NOT_REGULAR);
  ck_assert_int_eq(read_beneath("big.lua", resolve, &source), REPORT_SOURCE_TOO_LARGE);
  ck_assert_int_eq(read_beneath("missing.lua", resolve, &source), REPORT_SOURCE_MISSING);
  ck_assert_int_eq(read_beneath("ok.lua/x.lua", resolve, &source), REPORT_SOURCE_MISSING);
  ck_assert_int_eq(read_beneath("no/such/x.lua", resolve, &source), REPORT_SOURCE_MISSING);
}
END_TEST

START_TEST(test_source_refusals_say_why)
{
  struct report_source source = {NULL, 0, EACCES};
  char why[128];
  report_source_why(REPORT_SOURCE_LINK, &source, why, sizeof why);
  ck_assert_str_eq(why, "a symbolic link on the way");
  report_source_why(REPORT_SOURCE_TOO_LARGE, &source, why, sizeof why);
  ck_assert_str_eq(why, "larger than 4.0 MiB");
  report_source_why(REPORT_SOURCE_UNREADABLE, &source, why, sizeof why);
  ck_assert_str_eq(why, "Permission denied");
}
END_TEST

/* The page under a root: the excerpt of a plain file; for every refused
 * name no excerpt, a note saying why, and the page is whole. */
START_TEST(test_html_reads_sources_only_beneath_the_root)
{
  struct diff_result r = trend_result();
  sites[0].source_file = (char *)"ok.lua";
  sites[0].source_line = 5;
  char *html = render(&r, REPORT_FORMAT_HTML, 0, source_root);
  ck_assert_ptr_nonnull(strstr(html, "<pre class=\"src\"><span><b>2</b>local v2 = 2</span>"));
  ck_assert_ptr_nonnull(strstr(html, "<span class=\"hit\"><b>5</b>local v5 = 5</span>"));
  ck_assert_ptr_nonnull(strstr(html, "<span><b>8</b>local v8 = 8</span></pre>"));
  ck_assert_ptr_null(strstr(html, "id=\"sources\""));  /* no note above the table */
  free(html);

  char absolute[400];
  source_path(absolute, sizeof absolute, "root/ok.lua");
  const struct {
    const char *name, *why;
  } refused[] = {
      {absolute, "not a name beneath the source root (absolute, or with ..)"},
      {"../outside.lua", "not a name beneath the source root (absolute, or with ..)"},
      {"sub/../ok.lua", "not a name beneath the source root (absolute, or with ..)"},
      {"link.lua", "a symbolic link on the way"},
      {"linkdir/inner.lua", "a symbolic link on the way"},
      {"fifo.lua", "not a regular file"},
      {"dir.lua", "not a regular file"},
      {"big.lua", "larger than 4.0 MiB"},
  };
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    r = trend_result();
    sites[0].source_file = (char *)refused[i].name;
    sites[0].source_line = 1;
    html = render(&r, REPORT_FORMAT_HTML, 0, source_root);
    ck_assert_msg(!strstr(html, "<pre class=\"src\">"), "%s has an excerpt", refused[i].name);
    ck_assert_ptr_null(strstr(html, "local v1"));
    ck_assert_ptr_null(strstr(html, "outside"));
    char note[200];
    snprintf(note, sizeof note, "<p class=\"kind\">source not shown: %s</p>", refused[i].why);
    ck_assert_msg(strstr(html, note) != NULL, "%s: no note '%s'", refused[i].name, note);
    ck_assert_ptr_nonnull(strstr(html, "</table>"));
    ck_assert_ptr_nonnull(strstr(html, "</html>\n"));
    free(html);
  }
}
END_TEST

/* No root: no file is opened, not even a readable one under the current
 * directory (the FIFO would block an open to read), and the page says how
 * to get excerpts, above the table and where a flagged site's would be. */
START_TEST(test_html_without_a_source_root_reads_nothing)
{
  struct diff_result r = trend_result();
  char fifo[400];
  source_path(fifo, sizeof fifo, "root/fifo.lua");
  sites[1].source_file = fifo;  /* sites[0] and [2]: testdata/report/app.lua, readable */
  char *html = render(&r, REPORT_FORMAT_HTML, 0, NULL);
  ck_assert_ptr_null(strstr(html, "<pre class=\"src\">"));
  ck_assert_ptr_null(strstr(html, "sessions[#sessions + 1]"));
  ck_assert_ptr_nonnull(strstr(html, "<p class=\"kind\" id=\"sources\">Source excerpts: give "
                                     "<code>--source-root DIR</code>, the directory the chunk "
                                     "names are relative to"));
  size_t notes = 0;
  for (const char *p = html; (p = strstr(p, "<p class=\"kind\">source excerpt: give --source-root "
                                            "DIR (the directory the chunk names are relative to)</p>"));
       p++)
    notes++;
  ck_assert_uint_eq(notes, 2);  /* the two flagged sites */
  ck_assert_ptr_null(strstr(html, "<details><summary>"));  /* nothing folded for the others */
  free(html);

  /* A result without a Lua site has nothing to say about sources. */
  r = trend_result();
  for (size_t i = 0; i < r.site_count; i++)
    sites[i].source_line = 0;
  html = render(&r, REPORT_FORMAT_HTML, 0, NULL);
  ck_assert_ptr_null(strstr(html, "Source excerpts"));
  ck_assert_ptr_null(strstr(html, "source excerpt:"));
  free(html);
}
END_TEST

/* ---- Small pieces ------------------------------------------------------------------ */

START_TEST(test_format_names_parse)
{
  enum report_format f;
  ck_assert_int_eq(report_format_parse("markdown", &f), 0);
  ck_assert_int_eq(f, REPORT_FORMAT_MARKDOWN);
  ck_assert_int_eq(report_format_parse("junit", &f), 0);
  ck_assert_int_eq(f, REPORT_FORMAT_JUNIT);
  ck_assert_int_eq(report_format_parse("HTML", &f), -1);
  ck_assert_int_eq(report_format_parse("", &f), -1);
}
END_TEST

START_TEST(test_flagged_count_follows_the_mode)
{
  struct diff_result r = trend_result();
  diff_result_fill_facts(&r);
  ck_assert_uint_eq(r.facts.tally.flagged, 2);
  r = base_result();
  diff_result_fill_facts(&r);
  ck_assert_uint_eq(r.facts.tally.flagged, 1);
}
END_TEST

START_TEST(test_render_reports_write_errors)
{
  struct diff_result r = trend_result();
  FILE *full = fopen("/dev/full", "w");
  if (!full)
    return;  /* no /dev/full here: nothing to prove */
  struct format_error error;
  struct report_options options = {0, NULL, 0, 0};
  diff_result_fill_facts(&r);
  ck_assert_int_eq(report_render(&r, REPORT_FORMAT_TEXT, &options, full, &error), FORMAT_IO);
  ck_assert_str_eq(error.message, "cannot write the report: No space left on device");
  fclose(full);
}
END_TEST

/* A result's facts are found when it is made or read; a renderer given one
 * without them would print a pass. */
START_TEST(test_render_refuses_a_result_without_its_facts)
{
  struct diff_result r = trend_result();
  char *text = NULL;
  struct format_error error;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(out);
  struct report_options options = {0, NULL, 0, 0};
  ck_assert_int_eq(report_render(&r, REPORT_FORMAT_TEXT, &options, out, &error), FORMAT_USAGE);
  fclose(out);
  ck_assert_uint_eq(size, 0);
  ck_assert_str_eq(error.message, "the result's facts are not filled (diff_result_fill_facts)");
  free(text);
}
END_TEST

/* ---- Leak suspects ---------------------------------------------------------------- */

static struct diff_site_container bus_container = {
    .address = 0x1000, .type = (char *)"table", .path = (char *)"_G.events.handlers", .named = 1,
    .site = (char *)"@bus.lua:8", .retained_bytes = 1 << 20, .objects = 700, .bytes = 67200,
    .kinds = {[SNAPSHOT_TABLE - 1] = {700, 67200, 0, 0}}, .boundary = 8};
static struct diff_site_container bus_container_b = {
    .address = 0x1000, .type = (char *)"table", .path = (char *)"_G.events.handlers", .named = 1,
    .site = (char *)"@bus.lua:8", .retained_bytes = 1 << 20, .objects = 700, .bytes = 14336,
    .kinds = {[SNAPSHOT_LUA_FUNCTION - 1] = {700, 14336, 0, 0}}, .boundary = 8};

/* The trend result's two growing Lua sites held by one list, and its C site growing on its own. */
static struct diff_result suspect_result(void)
{
  struct diff_result r = trend_result();
  sites[0].container = &bus_container;
  sites[0].kinds[SNAPSHOT_TABLE - 1] = (struct diff_kind_count){700, 67200, 0, 0};
  sites[1].container = &bus_container_b;
  sites[1].kinds[SNAPSHOT_LUA_FUNCTION - 1] = (struct diff_kind_count){700, 14336, 0, 0};
  sites[3].verdict = DIFF_VERDICT_GROWING;  /* string.rep: a C function's memory */
  sites[3].growth_bytes_per_segment = 512;
  sites[3].trend_p_value = 0.001;
  diff_result_fill_facts(&r);
  r.flagged = r.facts.tally.flagged;
  ck_assert_int_eq(diff_suspects_find(&r), 0);
  return r;
}

static void suspect_result_done(struct diff_result *r)
{
  diff_suspects_free(r);
  sites[0].container = sites[1].container = NULL;
  memset(sites[0].kinds, 0, sizeof sites[0].kinds);
  memset(sites[1].kinds, 0, sizeof sites[1].kinds);
}

static char *render_grouped(const struct diff_result *r, enum report_format format)
{
  char *text = NULL;
  struct format_error error;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(out);
  struct report_options options = {0, NULL, 0, 0};
  ck_assert_msg(report_render(r, format, &options, out, &error) == 0, "%s", error.message);
  fclose(out);
  return text;
}

static void assert_before(const char *text, const char *first, const char *then)
{
  const char *a = strstr(text, first), *b = strstr(text, then);
  ck_assert_msg(a && b && a < b, "'%s' is not before '%s' in:\n%s", first, then, text);
}

START_TEST(test_every_format_leads_with_the_suspects)
{
  struct diff_result r = suspect_result();
  ck_assert_uint_eq(r.suspect_count, 1);
  ck_assert_uint_eq(r.suspects[0].site_count, 2);
  char *text = render_grouped(&r, REPORT_FORMAT_TEXT);
  ck_assert_msg(strstr(text, "ljleak: 1 leak suspect and 1 other finding, 3 growing sites (of 6), ") == text,
                "%s", text);
  assert_before(text, "leak suspects (", "growing, fastest first:");
  assert_before(text, "1. table _G.events.handlers, made at @bus.lua:8", "on their own");
  ck_assert_ptr_nonnull(strstr(text, "holds 700 tables (65.6 KiB); the suspect retains 1.0 MiB, of which this site 65.6 KiB"));
  ck_assert_ptr_nonnull(strstr(text, "what would be freed if the container were let go"));
  assert_before(text, "on their own", "string.rep");  /* a C function alone */
  free(text);
  char *md = render_grouped(&r, REPORT_FORMAT_MARKDOWN);
  ck_assert_msg(strstr(md, "### ljleak: 1 leak suspect and 1 other finding, 3 growing sites") == md, "%s", md);
  assert_before(md, "#### Leak suspects", "| site |");
  assert_before(md, "1. table `_G.events.handlers`", "#### On their own");
  free(md);
  char *html = render_grouped(&r, REPORT_FORMAT_HTML);
  assert_before(html, "<h1>1 leak suspect and 1 other finding, 3 growing sites (of 6)</h1>", "<h2>Leak suspects</h2>");
  assert_before(html, "<h2>Leak suspects</h2>", "<h2>Sites");
  free(html);
  char *json = render_grouped(&r, REPORT_FORMAT_JSON);
  assert_before(json, "\"suspects\": [", "\"sites\": [");
  ck_assert_ptr_nonnull(strstr(json, "{\"kind\": \"table\", \"objects\": 700, \"bytes\": 67200}"));
  ck_assert_ptr_nonnull(strstr(json, "\"container\": {"));
  free(json);
  suspect_result_done(&r);
}
END_TEST

static size_t count_of(const char *text, const char *what)
{
  size_t n = 0;
  for (const char *at = strstr(text, what); at; at = strstr(at + 1, what))
    n++;
  return n;
}

/* An undecided site of the suspect's container (the list's slots, grown in steps at the line
 * that appends) is under the suspect, saying it is undecided on its own, in every format and
 * in the JSON; read back, the suspect has it again. What it holds is the slots of a table, not
 * a table it made (it read "holds 1 table"). */
START_TEST(test_an_undecided_site_of_the_suspects_container_is_under_it)
{
  static struct diff_site_container slots = {
      .address = 0x1000, .type = (char *)"table", .path = (char *)"_G.events.handlers", .named = 1,
      .site = (char *)"@bus.lua:8", .retained_bytes = 1 << 20, .objects = 1, .bytes = 8192,
      .kinds = {[SNAPSHOT_TABLE - 1] = {1, 8192, 1, 8192}}, .boundary = 8};
  struct diff_result grouped = suspect_result();
  sites[2].verdict = DIFF_VERDICT_UNDECIDED;
  sites[2].container = &slots;
  sites[2].kinds[SNAPSHOT_TABLE - 1] = (struct diff_kind_count){1, 8192, 1, 8192};
  diff_result_fill_facts(&grouped);
  ck_assert_int_eq(diff_suspects_find(&grouped), 0);
  ck_assert_uint_eq(grouped.suspect_count, 1);
  ck_assert_uint_eq(grouped.suspects[0].site_count, 3);
  char *text = render_grouped(&grouped, REPORT_FORMAT_TEXT);
  ck_assert_ptr_nonnull(strstr(text, "3 sites under it"));
  ck_assert_ptr_nonnull(strstr(text, "@testdata/report/app.lua:11: undecided on its own; holds the slots of 1 table (8.0 KiB)"));
  free(text);
  char *md = render_grouped(&grouped, REPORT_FORMAT_MARKDOWN);
  ck_assert_ptr_nonnull(strstr(md, "undecided on its own; holds the slots of 1 table"));
  free(md);
  /* JUnit: in the suspect's failure, and still an error of its own, as the suite counts it. */
  char *xml = render_grouped(&grouped, REPORT_FORMAT_JUNIT);
  ck_assert_ptr_nonnull(strstr(xml, "undecided on its own; holds the slots of 1 table"));
  ck_assert_uint_eq(count_of(xml, "<error "), grouped.facts.tally.undecided);
  free(xml);
  char *json = render_grouped(&grouped, REPORT_FORMAT_JSON);
  ck_assert_ptr_nonnull(strstr(json, "\"name\": \"@testdata/report/app.lua:11\", \"objects\": 1, \"bytes\": 8192, \"undecided\": true"));
  struct diff_result back;
  /* the slots it made are parts of the table, said as such, and read back */
  ck_assert_ptr_nonnull(strstr(json, "\"kind\": \"table\", \"objects\": 1, \"bytes\": 8192, \"parts\": 1, \"part_bytes\": 8192"));
  read_json_text(json, &back);
  ck_assert_uint_eq(back.suspect_count, 1);
  ck_assert_uint_eq(back.suspects[0].site_count, 3);
  ck_assert_uint_eq(back.sites[2].kinds[SNAPSHOT_TABLE - 1].parts, 1);
  ck_assert_uint_eq(back.sites[2].kinds[SNAPSHOT_TABLE - 1].part_bytes, 8192);
  diff_result_free(&back);
  free(json);
  suspect_result_done(&grouped);
  sites[2].container = NULL;
  sites[2].verdict = DIFF_VERDICT_STEADY;
  memset(sites[2].kinds, 0, sizeof sites[2].kinds);
}
END_TEST

/* A weak-valued index's slots (site 2: the line that indexes the handlers by id) grow while the
 * list keeps the handlers: under the list's suspect, saying why, in the text, Markdown and
 * JSON; read back, the same; a key_slots the reader does not know names its byte. */
START_TEST(test_a_weak_tables_slots_under_the_suspect_say_why)
{
  static struct diff_site_container index = {
      .address = 0x2000, .type = (char *)"table", .path = (char *)"events.index", .named = 1,
      .site = (char *)"@bus.lua:9", .retained_bytes = 8192, .objects = 1, .bytes = 8192,
      .kinds = {[SNAPSHOT_TABLE - 1] = {1, 8192, 1, 8192}}, .boundary = 8, .key_address = 0x1000,
      .key_slots = SNAPSHOT_FLAG_WEAK_VALUES};
  struct diff_result grouped = suspect_result();
  sites[2].verdict = DIFF_VERDICT_GROWING;
  sites[2].growth_bytes_per_segment = 256;
  sites[2].trend_p_value = 0.001;
  sites[2].container = &index;
  sites[2].kinds[SNAPSHOT_TABLE - 1] = (struct diff_kind_count){1, 8192, 1, 8192};
  diff_result_fill_facts(&grouped);
  ck_assert_int_eq(diff_suspects_find(&grouped), 0);
  ck_assert_uint_eq(grouped.suspect_count, 1);
  ck_assert_uint_eq(grouped.suspects[0].site_count, 3);
  const char *why = "holds the slots of 1 table (8.0 KiB); that table (events.index) keeps its entries while "
                    "their weak values live, and this suspect holds those";
  char *text = render_grouped(&grouped, REPORT_FORMAT_TEXT);
  ck_assert_msg(strstr(text, why) != NULL, "%s", text);
  free(text);
  char *md = render_grouped(&grouped, REPORT_FORMAT_MARKDOWN);
  ck_assert_msg(strstr(md, why) != NULL, "%s", md);
  free(md);
  char *json = render_grouped(&grouped, REPORT_FORMAT_JSON);
  ck_assert_ptr_nonnull(strstr(json, "\"key_address\": \"0x1000\""));
  ck_assert_ptr_nonnull(strstr(json, "\"key_slots\": \"weak values\""));
  ck_assert_ptr_nonnull(strstr(json, "\"through_keys_of\": \"events.index\""));
  struct diff_result back;
  read_json_text(json, &back);
  ck_assert_int_eq(back.sites[2].container->key_slots, SNAPSHOT_FLAG_WEAK_VALUES);
  ck_assert_uint_eq(back.suspects[0].site_count, 3);
  diff_result_free(&back);
  free(json);
  suspect_result_done(&grouped);
  sites[2].container = NULL;
  sites[2].verdict = DIFF_VERDICT_STEADY;
  sites[2].growth_bytes_per_segment = 0;
  sites[2].trend_p_value = 0.5;
  memset(sites[2].kinds, 0, sizeof sites[2].kinds);
  expect_json_error("{\"ljleak_result\":1,\"mode\":\"trend\",\"sites\":[{\"name\":\"a\","
                    "\"verdict\":\"steady\",\"series\":[1],\"growth_bytes_per_segment\":0,"
                    "\"container\":{\"address\":\"0x10\",\"type\":\"table\",\"path\":\"t\","
                    "\"key_address\":\"0x20\",\"key_slots\":\"weak\"}}]}",
                    "t.json: byte 205: key_slots must be one of \"weak keys\", \"weak values\", "
                    "\"weak keys and values\"");
}
END_TEST

START_TEST(test_junit_fails_once_per_suspect_with_its_sites_in_the_message)
{
  struct diff_result r = suspect_result();
  char *xml = render_grouped(&r, REPORT_FORMAT_JUNIT);
  ck_assert_uint_eq(count_of(xml, "<failure "), 2);  /* the suspect, and string.rep alone */
  ck_assert_ptr_nonnull(strstr(xml, "failures=\"2\""));
  /* A test case per site: the suspect's failure is its lead site's, with that site's verdict. */
  ck_assert_uint_eq(count_of(xml, "<testcase "), r.site_count);
  char lead[256];
  snprintf(lead, sizeof lead, "<testcase name=\"%s\" classname=\"ljleak.trend\">\n      <failure type=\"growing\" message=\"leak suspect 1: table _G.events.handlers", sites[0].name);
  const char *failure = strstr(xml, lead);
  ck_assert_msg(failure != NULL, "%s", xml);
  failure = strstr(failure, "message=\"");
  const char *end = strchr(failure + 10, '"');
  ck_assert(strstr(failure, sites[1].name) < end);
  ck_assert_uint_eq(count_of(xml, "<system-out>under leak suspect 1 (its failure is in "), r.suspects[0].site_count - 1);
  free(xml);
  suspect_result_done(&r);
}
END_TEST

START_TEST(test_json_round_trip_keeps_the_suspects)
{
  static const enum report_format formats[] = {REPORT_FORMAT_TEXT, REPORT_FORMAT_HTML,
                                               REPORT_FORMAT_JSON, REPORT_FORMAT_JUNIT,
                                               REPORT_FORMAT_MARKDOWN};
  struct diff_result r = suspect_result();
  char *json = render_grouped(&r, REPORT_FORMAT_JSON);
  struct diff_result back;
  read_json_text(json, &back);
  ck_assert_uint_eq(back.suspect_count, 1);
  ck_assert_uint_eq(back.suspects[0].site_count, 2);
  ck_assert_str_eq(back.sites[0].container->path, "_G.events.handlers");
  ck_assert_uint_eq(back.sites[0].container->address, 0x1000);
  ck_assert_uint_eq(back.sites[0].kinds[SNAPSHOT_TABLE - 1].objects, 700);
  ck_assert_uint_eq(back.sites[0].container->kinds[SNAPSHOT_TABLE - 1].objects, 700);
  ck_assert_uint_eq(back.suspects[0].kinds[SNAPSHOT_LUA_FUNCTION - 1].bytes, 14336);
  for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
    char *direct = render_grouped(&r, formats[f]), *again = render_grouped(&back, formats[f]);
    ck_assert_msg(strcmp(direct, again) == 0, "format %zu differs", f);
    free(direct);
    free(again);
  }
  diff_result_free(&back);
  free(json);
  suspect_result_done(&r);
  /* A bad container is refused with its place. */
  expect_json_error("{\"ljleak_result\": 1, \"mode\": \"trend\", \"sites\": [{\"name\": \"a\", "
                    "\"verdict\": \"growing\", \"series\": [1], \"growth_bytes_per_segment\": 1, "
                    "\"container\": {\"address\": \"0xZZ\", \"type\": \"table\", \"path\": \"p\"}}]}",
                    "t.json: byte 155: a container's address must be a string of 0x and up to 16 "
                    "lowercase hex digits");
  expect_json_error("{\"ljleak_result\": 1, \"mode\": \"trend\", \"suspects\": 3, \"sites\": []}",
                    "t.json: byte 50: suspects must be an array");
}
END_TEST

/* The start of a result with one growing site, as an older ljleak wrote it; its site's last members
 * follow. */
#define OLD_RESULT_SITE                                                                                  \
  "{\"ljleak_result\": 1, \"mode\": \"trend\", \"capture\": {\"snapshots\": 1, "                        \
  "\"boundary_count\": 5}, \"sites\": [{\"name\": \"@a.lua:1\", \"verdict\": \"growing\", "              \
  "\"series\": [0, 1, 2, 3, 9000], \"growth_bytes_per_segment\": 1000, \"trend_p_value\": 0.001, "

START_TEST(test_a_container_without_its_kinds_takes_the_sites)
{
  /* Written before a container's kinds were saved: the suspect counts its site's kinds. */
  const char *old = OLD_RESULT_SITE "\"kinds\": [{\"kind\": \"table\", \"objects\": 3, "
                    "\"bytes\": 9000}], \"container\": {\"address\": \"0x1000\", \"type\": \"table\", "
                    "\"path\": \"_G.list\", \"named\": true, \"retained_bytes\": 9100, \"objects\": 3, "
                    "\"bytes\": 9000, \"boundary\": 5}}]}";
  struct diff_result back;
  read_json_text(old, &back);
  ck_assert_uint_eq(back.suspect_count, 1);
  ck_assert_uint_eq(back.sites[0].container->kinds[SNAPSHOT_TABLE - 1].objects, 3);
  ck_assert_uint_eq(back.suspects[0].kinds[SNAPSHOT_TABLE - 1].objects, 3);
  ck_assert_uint_eq(back.suspects[0].kinds[SNAPSHOT_TABLE - 1].bytes, 9000);
  char *json = render_grouped(&back, REPORT_FORMAT_JSON);  /* and written with them */
  const char *container = strstr(json, "\"container\"");
  ck_assert_ptr_nonnull(container);
  ck_assert_ptr_nonnull(strstr(container, "\"kinds\": [\n          {\"kind\": \"table\", \"objects\": 3, \"bytes\": 9000}"));
  free(json);
  diff_result_free(&back);
}
END_TEST

START_TEST(test_an_old_result_without_suspects_reads_and_renders_ungrouped)
{
  /* Holders, but no container and no suspects: written before them. */
  const char *old = OLD_RESULT_SITE "\"holders\": [{\"path\": \"_G.list[*]\", \"objects\": 3, "
                    "\"bytes\": 9000, \"holder_type\": \"table\", \"retained_bytes\": 9100}]}]}";
  struct diff_result back;
  read_json_text(old, &back);
  ck_assert_uint_eq(back.suspect_count, 0);
  ck_assert(!back.suspects_grouped);
  char *text = render_grouped(&back, REPORT_FORMAT_TEXT);
  ck_assert_msg(strstr(text, "ljleak: 1 of 1 sites growing") == text, "%s", text);
  ck_assert_ptr_nonnull(strstr(text, "sites not grouped into leak suspects"));
  free(text);
  char *xml = render_grouped(&back, REPORT_FORMAT_JUNIT);
  ck_assert_uint_eq(count_of(xml, "<failure "), 1);
  free(xml);
  diff_result_free(&back);
  /* The saved results of earlier versions read too. */
  struct format_error error;
  const char *files[] = {"testdata/report/trend.json", "testdata/report/base.json",
                         "testdata/report/range.json", "testdata/report/undecided.json"};
  for (size_t i = 0; i < 4; i++) {
    ck_assert_msg(diff_result_read_json(files[i], &back, &error) == 0, "%s", error.message);
    ck_assert_uint_eq(back.suspect_count, 0);
    char *again = render_grouped(&back, REPORT_FORMAT_TEXT);
    free(again);
    diff_result_free(&back);
  }
  /* No heap snapshot: the report says the sites are not grouped. */
  struct diff_result bare = range_result();
  bare.mode = DIFF_MODE_TREND;
  bare.capture.snapshots = 0;
  diff_result_fill_facts(&bare);
  ck_assert_int_eq(diff_suspects_find(&bare), 0);
  char *plain = render_grouped(&bare, REPORT_FORMAT_TEXT);
  ck_assert_ptr_nonnull(strstr(plain, "no heap snapshot: sites not grouped"));
  free(plain);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("report");
  TCase *golden = tcase_create("golden");
  tcase_add_test(golden, test_text_trend_report_matches_golden);
  tcase_add_test(golden, test_text_base_report_puts_new_and_worse_first_beside_the_base);
  tcase_add_test(golden, test_text_range_report_matches_golden);
  tcase_add_test(golden, test_text_colour_only_when_asked);
  tcase_add_test(golden, test_text_escapes_control_characters_in_names);
  tcase_add_test(golden, test_markdown_summary_matches_golden);
  tcase_add_test(golden, test_markdown_escapes_pipes_backticks_and_html);
  tcase_add_test(golden, test_text_escapes_bidi_controls_line_separators_and_bytes_not_utf8);
  tcase_add_test(golden, test_markdown_puts_every_name_in_a_code_span_and_escapes_bidi_controls);
  tcase_add_test(golden, test_junit_matches_golden);
  tcase_add_test(golden, test_junit_escapes_hostile_names);
  tcase_add_test(golden, test_markdown_text_and_junit_agree_on_sites_without_a_verdict);
  tcase_add_test(golden, test_json_result_matches_golden);
  suite_add_tcase(s, golden);
  TCase *json = tcase_create("json");
  tcase_add_test(json, test_json_round_trip_renders_identically_in_every_format);
  tcase_add_test(json, test_json_saves_bytes_that_are_not_utf8_as_u_fffd);
  tcase_add_test(json, test_json_round_trip_keeps_every_field);
  tcase_add_test(json, test_a_stop_by_a_write_error_is_a_warning_in_every_header);
  tcase_add_test(json, test_json_boundary_allocated_and_forced_round_trip_and_are_optional);
  tcase_add_test(json, test_json_round_trip_keeps_why_a_site_is_undecided);
  tcase_add_test(json, test_a_new_site_names_the_base_line_it_may_have_moved_from);
  tcase_add_test(json, test_the_bases_leaks_the_candidate_does_not_grow_are_listed);
  tcase_add_test(json, test_json_doubles_and_64_bit_integers_round_trip_exactly);
  tcase_add_test(json, test_json_reader_accepts_the_minimal_result);
  tcase_add_test(json, test_json_reader_keeps_a_saved_flagged_count_and_counts_a_missing_one);
  tcase_add_test(json, test_json_reader_decodes_escapes_and_surrogate_pairs);
  tcase_add_test(json, test_json_reader_reports_file_and_byte_of_syntax_errors);
  tcase_add_test(json, test_json_reader_reports_file_and_byte_of_schema_errors);
  tcase_add_test(json, test_read_json_names_the_file_and_reads_saved_results);
  suite_add_tcase(s, json);
  TCase *html = tcase_create("html");
  tcase_add_test(html, test_html_escapes_everything_from_the_capture);
  tcase_add_test(html, test_html_references_nothing_outside_the_file);
  tcase_add_test(html, test_html_shows_metadata_chart_table_and_sources);
  tcase_add_test(html, test_html_base_mode_shows_base_and_candidate_side_by_side);
  tcase_add_test(html, test_html_source_missing_is_said_not_fatal);
  tcase_add_test(html, test_html_reads_only_lua_sources);
  suite_add_tcase(s, html);
  TCase *sources = tcase_create("sources");
  tcase_add_unchecked_fixture(sources, source_tree_make, source_tree_remove);
  tcase_add_loop_test(sources, test_source_read_only_regular_files_beneath_the_root, 0, 2);
  tcase_add_test(sources, test_source_refusals_say_why);
  tcase_add_test(sources, test_html_reads_sources_only_beneath_the_root);
  tcase_add_test(sources, test_html_without_a_source_root_reads_nothing);
  suite_add_tcase(s, sources);
  TCase *suspects = tcase_create("suspects");
  tcase_add_test(suspects, test_every_format_leads_with_the_suspects);
  tcase_add_test(suspects, test_an_undecided_site_of_the_suspects_container_is_under_it);
  tcase_add_test(suspects, test_a_weak_tables_slots_under_the_suspect_say_why);
  tcase_add_test(suspects, test_junit_fails_once_per_suspect_with_its_sites_in_the_message);
  tcase_add_test(suspects, test_json_round_trip_keeps_the_suspects);
  tcase_add_test(suspects, test_an_old_result_without_suspects_reads_and_renders_ungrouped);
  tcase_add_test(suspects, test_a_container_without_its_kinds_takes_the_sites);
  suite_add_tcase(s, suspects);
  TCase *small = tcase_create("small");
  tcase_add_test(small, test_format_names_parse);
  tcase_add_test(small, test_flagged_count_follows_the_mode);
  tcase_add_test(small, test_render_reports_write_errors);
  tcase_add_test(small, test_render_refuses_a_result_without_its_facts);
  suite_add_tcase(s, small);
  return check_run(s);
}
