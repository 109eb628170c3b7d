/* tests/test_merge.c: ljleak merge's model: any grouping of generated results gives the same figures and bytes; the figures; labels; bad input named. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "merge/merge.h"
#include "merge/merge_internal.h"
#include "report/report.h"
#include "tests/check_run.h"

/* ---- Generated results --------------------------------------------------------- */

#define SITE_POOL 30
#define BOUNDARIES 8

/* A small deterministic generator (xorshift), so that every run tests the same results. */
static uint64_t rng_state;
static uint64_t rng(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static char *copy_text(const char *text)
{
  char *copy = strdup(text);
  ck_assert_ptr_nonnull(copy);
  return copy;
}

/* Capture number c's result, as JSON text (ljleak diff --format json). */
static char *generated_result(size_t c, enum diff_mode mode)
{
  static const enum diff_verdict verdicts[] = {DIFF_VERDICT_GROWING, DIFF_VERDICT_STEADY,
                                               DIFF_VERDICT_UNDECIDED, DIFF_VERDICT_SHRINKING,
                                               DIFF_VERDICT_INSUFFICIENT, DIFF_VERDICT_STEADY};
  struct diff_result r;
  memset(&r, 0, sizeof r);
  r.mode = mode;
  diff_options_default(&r.options);
  char text[128];
  snprintf(text, sizeof text, "host-%zu", c % 7);
  r.capture.host = copy_text(text);
  snprintf(text, sizeof text, "captures/ljleak-%zu", c);
  r.capture.path = copy_text(text);
  r.capture.command = copy_text("luajit app.lua");
  r.capture.exe = copy_text("/usr/bin/luajit");
  r.capture.luajit_version = copy_text("LuaJIT 2.1.0-beta3");
  r.capture.pid = (long)(1000 + c);
  r.capture.start_time = 1763745600.0 + 100.0 * (double)c;
  r.capture.stop_time = r.capture.start_time + 90;
  r.capture.boundary_count = BOUNDARIES;
  r.capture.truncated = c % 5 == 3;   /* a capture cut: the merge, and merges of it, say so */
  r.capture.boundary_times = calloc(BOUNDARIES, sizeof *r.capture.boundary_times);
  for (size_t b = 0; b < BOUNDARIES; b++)
    r.capture.boundary_times[b] = r.capture.start_time + 10.0 * (double)(b + 1);
  snprintf(text, sizeof text, "1.4.%zu", c % 3);
  ck_assert_int_eq(diff_capture_add_label(&r.capture, "release", 7, text, strlen(text)), 0);
  if (c % 2)
    ck_assert_int_eq(diff_capture_add_label(&r.capture, "role", 4, "api", 3), 0);
  r.sites = calloc(SITE_POOL, sizeof *r.sites);
  for (size_t s = 0; s < SITE_POOL; s++) {
    if (rng() % 3 == 0)
      continue;   /* not seen in this capture */
    struct diff_site *site = &r.sites[r.site_count++];
    snprintf(text, sizeof text, "@app.lua:%zu", 10 + s);
    site->name = copy_text(text);
    site->id = XXH3_64bits(site->name, strlen(site->name));
    site->kind = DIFF_SITE_LUA;
    site->source_file = copy_text("app.lua");
    site->source_line = 10 + s;
    /* Site 0 grows wherever release is 1.4.2 (c % 3 == 2): a label tells. */
    site->verdict = s == 0 ? (c % 3 == 2 ? DIFF_VERDICT_GROWING : DIFF_VERDICT_STEADY)
                           : verdicts[rng() % (sizeof verdicts / sizeof verdicts[0])];
    if (mode == DIFF_MODE_BASE && site->verdict == DIFF_VERDICT_GROWING)
      site->verdict = DIFF_VERDICT_NEW;
    site->count = BOUNDARIES;
    site->live_bytes = calloc(BOUNDARIES, sizeof *site->live_bytes);
    for (size_t b = 0; b < BOUNDARIES; b++)
      site->live_bytes[b] = rng() % 100000;
    site->growth_bytes_per_segment = (double)(rng() % 20000) - 5000.0 + 0.25;
    site->growth_bytes_per_second = site->growth_bytes_per_segment / 10;
    site->trend_p_value = NAN;
  }
  diff_result_fill_facts(&r);
  char *json = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&json, &size);
  struct report_options options = {0, NULL, 0, 0};
  struct format_error error;
  ck_assert_int_eq(report_render(&r, REPORT_FORMAT_JSON, &options, out, &error), 0);
  fclose(out);
  diff_result_free(&r);
  return json;
}

#define CAPTURES 24
static char *results[CAPTURES];
static char names[CAPTURES][32];

static void make_results(void)
{
  rng_state = 0x9e3779b97f4a7c15u;
  for (size_t c = 0; c < CAPTURES; c++) {
    results[c] = generated_result(c, DIFF_MODE_TREND);
    snprintf(names[c], sizeof names[c], "result-%02zu.json", c);
  }
}

static void free_results(void)
{
  for (size_t c = 0; c < CAPTURES; c++)
    free(results[c]);
}

static char *render(const struct merge *m, enum merge_format format)
{
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  struct format_error error;
  ck_assert_int_eq(merge_render(m, format, out, &error), 0);
  fclose(out);
  return text;
}

/* The merge of inputs (names and texts), finished, as JSON. */
static char *merge_of(size_t count, const char *const *input_names, char *const *texts,
                      size_t min_captures)
{
  struct merge m;
  struct format_error err;
  merge_init(&m);
  for (size_t i = 0; i < count; i++)
    ck_assert_msg(merge_add_text(&m, input_names[i], texts[i], strlen(texts[i]), &err) == FORMAT_OK,
                  "%s", err.message);
  ck_assert_msg(merge_finish(&m, min_captures, &err) == FORMAT_OK, "%s", err.message);
  char *json = render(&m, MERGE_FORMAT_JSON);
  merge_free(&m);
  return json;
}

/* ---- Associativity ---------------------------------------------------------------- */

START_TEST(test_any_grouping_of_results_gives_the_same_merge)
{
  make_results();
  const char *all_names[CAPTURES];
  for (size_t c = 0; c < CAPTURES; c++)
    all_names[c] = names[c];
  char *at_once = merge_of(CAPTURES, all_names, results, 2);
  /* Random groupings: results split into groups, each merged, then the
   * merges (and in one round a raw result beside them) merged. */
  for (int round = 0; round < 6; round++) {
    size_t order[CAPTURES];
    for (size_t c = 0; c < CAPTURES; c++)
      order[c] = c;
    for (size_t c = CAPTURES - 1; c > 0; c--) {
      size_t other = (size_t)(rng() % (c + 1));
      size_t t = order[c];
      order[c] = order[other];
      order[other] = t;
    }
    char *merges[CAPTURES];
    const char *merge_names[CAPTURES];
    size_t merge_count = 0;
    for (size_t at = 0; at < CAPTURES;) {
      size_t take = 1 + (size_t)(rng() % 7);
      if (at + take > CAPTURES)
        take = CAPTURES - at;
      char *texts[CAPTURES];
      const char *group_names[CAPTURES];
      for (size_t i = 0; i < take; i++) {
        texts[i] = results[order[at + i]];
        group_names[i] = names[order[at + i]];
      }
      if (round == 5 && take == 1) {
        merges[merge_count] = copy_text(texts[0]);   /* a result beside merges */
        merge_names[merge_count++] = group_names[0];
      } else {
        merges[merge_count] = merge_of(take, group_names, texts, 1 + (size_t)(rng() % 3));
        merge_names[merge_count++] = "group.json";
      }
      at += take;
    }
    /* Merge the merges in pairs, then all: a tree of depth three. */
    char *pairs[CAPTURES];
    const char *pair_names[CAPTURES];
    size_t pair_count = 0;
    for (size_t i = 0; i < merge_count; i += 2) {
      size_t take = i + 1 < merge_count ? 2 : 1;
      pairs[pair_count] = merge_of(take, merge_names + i, merges + i, 1);
      pair_names[pair_count++] = "pair.json";
    }
    char *grouped = merge_of(pair_count, pair_names, pairs, 2);
    ck_assert_msg(!strcmp(at_once, grouped), "round %d: the grouped merge differs", round);
    for (size_t i = 0; i < merge_count; i++)
      free(merges[i]);
    for (size_t i = 0; i < pair_count; i++)
      free(pairs[i]);
    free(grouped);
  }
  free(at_once);
  free_results();
}
END_TEST

START_TEST(test_merging_in_any_order_gives_the_same_text_and_html)
{
  make_results();
  const char *forward[CAPTURES], *backward_names[CAPTURES];
  char *backward[CAPTURES];
  for (size_t c = 0; c < CAPTURES; c++) {
    forward[c] = names[c];
    backward[c] = results[CAPTURES - 1 - c];
    backward_names[c] = names[CAPTURES - 1 - c];
  }
  static const enum merge_format formats[] = {MERGE_FORMAT_TEXT, MERGE_FORMAT_HTML,
                                              MERGE_FORMAT_MARKDOWN, MERGE_FORMAT_JUNIT};
  for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
    char *texts[2];
    for (int direction = 0; direction < 2; direction++) {
      struct merge m;
      struct format_error err;
      merge_init(&m);
      for (size_t c = 0; c < CAPTURES; c++) {
        const char *name = direction ? backward_names[c] : forward[c];
        const char *text = direction ? backward[c] : results[c];
        ck_assert_int_eq(merge_add_text(&m, name, text, strlen(text), &err), FORMAT_OK);
      }
      ck_assert_int_eq(merge_finish(&m, 1, &err), FORMAT_OK);
      texts[direction] = render(&m, formats[f]);
      merge_free(&m);
    }
    ck_assert_str_eq(texts[0], texts[1]);
    free(texts[0]);
    free(texts[1]);
  }
  free_results();
}
END_TEST

START_TEST(test_reading_on_threads_gives_the_same_merge_and_the_same_first_error)
{
  make_results();
  char dir[] = "/tmp/ljleak-test-merge-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[1024];
  for (size_t c = 0; c < CAPTURES; c++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[c]);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(results[c], f);
    fclose(f);
  }
  const char *inputs[] = {dir};
  char *json[2];
  size_t jobs[2] = {1, 5};
  for (int i = 0; i < 2; i++) {
    struct merge m;
    struct format_error err;
    merge_init(&m);
    ck_assert_msg(merge_add_paths(&m, inputs, 1, jobs[i], &err) == FORMAT_OK, "%s", err.message);
    ck_assert_int_eq(merge_finish(&m, 1, &err), FORMAT_OK);
    ck_assert_uint_eq(m.capture_count, CAPTURES);
    json[i] = render(&m, MERGE_FORMAT_JSON);
    merge_free(&m);
  }
  ck_assert_str_eq(json[0], json[1]);
  free(json[0]);
  free(json[1]);
  /* Two bad files: the first in name order is the one named, for any jobs. */
  snprintf(path, sizeof path, "%s/result-05.json", dir);
  FILE *f = fopen(path, "w");
  fputs("{\"ljleak_result\": 1, \"mode\": \"trend\"", f);
  fclose(f);
  snprintf(path, sizeof path, "%s/result-07.json", dir);
  f = fopen(path, "w");
  fputs("[]", f);
  fclose(f);
  for (int i = 0; i < 2; i++) {
    struct merge m;
    struct format_error err;
    merge_init(&m);
    ck_assert_int_eq(merge_add_paths(&m, inputs, 1, jobs[i], &err), FORMAT_BAD_INPUT);
    ck_assert_msg(strstr(err.message, "/result-05.json: byte 36: expected"), "%s", err.message);
    merge_free(&m);
  }
  for (size_t c = 0; c < CAPTURES; c++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[c]);
    unlink(path);
  }
  rmdir(dir);
  free_results();
}
END_TEST

/* ---- The figures ---------------------------------------------------------------- */

/* A result of one site with the given verdict, growth and last live bytes. */
static char *one_site_result(size_t c, enum diff_verdict verdict, double growth, uint64_t live,
                             const char *release)
{
  char text[4096];
  snprintf(text, sizeof text,
           "{\"ljleak_result\": 1, \"mode\": \"trend\", \"capture\": {\"host\": \"h%zu\", \"pid\": %zu, "
           "\"start_time\": %zu, \"boundary_count\": 2, \"boundary_times\": [%zu, %zu], "
           "\"labels\": {\"release\": \"%s\"}}, "
           "\"sites\": [{\"name\": \"@leak.lua:1\", \"verdict\": \"%s\", \"series\": [0, %llu], "
           "\"growth_bytes_per_segment\": %.17g, \"growth_bytes_per_second\": %.17g}]}",
           c, c, 1000 * c + 1, 1000 * c + 5, 1000 * c + 10, release, diff_verdict_name(verdict),
           (unsigned long long)live, growth, growth / 10);
  return copy_text(text);
}

/* JUnit: a site undecided in a capture (what makes the merge inconclusive, exit 5) is an error
 * of type undecided, as ljleak diff's JUnit has it; it was a passing testcase. */
START_TEST(test_junit_has_an_undecided_site_as_an_error)
{
  char *texts[3] = {one_site_result(1, DIFF_VERDICT_UNDECIDED, 300, 900, "1.4.2"),
                    one_site_result(2, DIFF_VERDICT_STEADY, 0, 800, "1.4.1"),
                    one_site_result(3, DIFF_VERDICT_GROWING, 500, 700, "1.4.2")};
  const char *input_names[3] = {"a.json", "b.json", "c.json"};
  struct merge m;
  struct format_error err;
  merge_init(&m);
  for (size_t i = 0; i < 2; i++)
    ck_assert_int_eq(merge_add_text(&m, input_names[i], texts[i], strlen(texts[i]), &err), FORMAT_OK);
  ck_assert_int_eq(merge_finish(&m, 1, &err), FORMAT_OK);
  ck_assert_int_eq(m.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  char *xml = render(&m, MERGE_FORMAT_JUNIT);
  ck_assert_msg(strstr(xml, "<testsuites name=\"ljleak merge\" tests=\"1\" failures=\"0\" errors=\"1\">"),
                "%s", xml);
  ck_assert_msg(strstr(xml, "<error type=\"undecided\" message=\"undecided in 1 of 2 captures\"/>"), "%s", xml);
  free(xml);
  merge_free(&m);
  /* Growing in another capture: a failure, which the error does not hide. */
  merge_init(&m);
  for (size_t i = 0; i < 3; i++)
    ck_assert_int_eq(merge_add_text(&m, input_names[i], texts[i], strlen(texts[i]), &err), FORMAT_OK);
  ck_assert_int_eq(merge_finish(&m, 1, &err), FORMAT_OK);
  xml = render(&m, MERGE_FORMAT_JUNIT);
  ck_assert_msg(strstr(xml, "failures=\"1\" errors=\"0\"") && strstr(xml, "<failure message=\"growing in 1 of 3"),
                "%s", xml);
  free(xml);
  merge_free(&m);
  for (size_t i = 0; i < 3; i++)
    free(texts[i]);
}
END_TEST

/* A result of capture c with two sites, @leak.lua:1 and @other.lua:2, of the given verdicts. */
static char *two_site_result(size_t c, enum diff_verdict leak, enum diff_verdict other)
{
  char text[4096];
  snprintf(text, sizeof text,
           "{\"ljleak_result\": 1, \"mode\": \"trend\", \"capture\": {\"host\": \"h%zu\", \"pid\": %zu, "
           "\"start_time\": %zu, \"boundary_count\": 2, \"boundary_times\": [%zu, %zu]}, \"sites\": ["
           "{\"name\": \"@leak.lua:1\", \"verdict\": \"%s\", \"series\": [0, 900], "
           "\"growth_bytes_per_segment\": 450, \"growth_bytes_per_second\": 45}, "
           "{\"name\": \"@other.lua:2\", \"verdict\": \"%s\", \"series\": [0, 800], "
           "\"growth_bytes_per_segment\": 400, \"growth_bytes_per_second\": 40}]}",
           c, c, 1000 * c + 1, 1000 * c + 5, 1000 * c + 10, diff_verdict_name(leak), diff_verdict_name(other));
  return copy_text(text);
}

/* The merge of two results, at least k captures to flag: its outcome, and its text and JUnit. */
static enum diff_outcome two_merged(char *a, char *b, size_t k, char **text, char **xml)
{
  const char *input_names[2] = {"a.json", "b.json"};
  char *texts[2] = {a, b};
  struct merge m;
  struct format_error err;
  merge_init(&m);
  for (size_t i = 0; i < 2; i++)
    ck_assert_int_eq(merge_add_text(&m, input_names[i], texts[i], strlen(texts[i]), &err), FORMAT_OK);
  ck_assert_int_eq(merge_finish(&m, k, &err), FORMAT_OK);
  enum diff_outcome outcome = m.outcome;
  *text = render(&m, MERGE_FORMAT_TEXT);
  *xml = render(&m, MERGE_FORMAT_JUNIT);
  merge_free(&m);
  free(a), free(b);
  return outcome;
}

/* A site short of --min-captures is undecided for the merge when its undecided captures could
 * bring it there, whatever the captures' own outcomes (each flagged by another site here): the
 * merge is inconclusive (exit 5), says why, and JUnit has the error; it passed (exit 0). One
 * that no outcome of its undecided captures could bring there is not: a pass, and no error in
 * JUnit (which had one, beside the exit 0). */
START_TEST(test_a_site_undecided_short_of_min_captures_leaves_the_merge_inconclusive)
{
  char *text, *xml;
  enum diff_outcome outcome = two_merged(two_site_result(1, DIFF_VERDICT_GROWING, DIFF_VERDICT_STEADY),
                                         two_site_result(2, DIFF_VERDICT_UNDECIDED, DIFF_VERDICT_GROWING), 2,
                                         &text, &xml);
  ck_assert_int_eq(outcome, DIFF_OUTCOME_INCONCLUSIVE);
  ck_assert_msg(strstr(text, "ljleak merge: 0 of 2 sites growing on at least 2 of 2 captures; inconclusive: "
                             "1 site undecided short of 2 captures\n") != NULL, "%s", text);
  ck_assert_msg(strstr(xml, "errors=\"1\"") && strstr(xml, "<error type=\"undecided\" message=\"undecided in 1 of 2"),
                "%s", xml);
  free(text), free(xml);
  outcome = two_merged(two_site_result(1, DIFF_VERDICT_STEADY, DIFF_VERDICT_GROWING),
                       two_site_result(2, DIFF_VERDICT_UNDECIDED, DIFF_VERDICT_GROWING), 3, &text, &xml);
  ck_assert_int_eq(outcome, DIFF_OUTCOME_PASS);
  ck_assert_msg(strstr(xml, "failures=\"0\" errors=\"0\"") && !strstr(xml, "<error"), "%s", xml);
  ck_assert_msg(!strstr(text, "inconclusive:"), "%s", text);
  free(text), free(xml);
}
END_TEST

/* The markdown of the merge of one result, text. */
static char *markdown_of(const char *text)
{
  struct merge m;
  struct format_error err;
  merge_init(&m);
  ck_assert_msg(merge_add_text(&m, "r.json", text, strlen(text), &err) == FORMAT_OK, "%s", err.message);
  ck_assert_msg(merge_finish(&m, 1, &err) == FORMAT_OK, "%s", err.message);
  char *md = render(&m, MERGE_FORMAT_MARKDOWN);
  merge_free(&m);
  return md;
}

/* Markdown lists the first 40 growing sites and says how many more there are, as the text
 * does; the 5 past them went unsaid. */
START_TEST(test_markdown_says_how_many_sites_it_leaves_out)
{
  char text[16384];
  size_t used = (size_t)snprintf(text, sizeof text,
                                 "{\"ljleak_result\": 1, \"mode\": \"trend\", \"capture\": {\"host\": \"h\", "
                                 "\"pid\": 1, \"start_time\": 1, \"boundary_count\": 2, \"boundary_times\": [5, 10]}, "
                                 "\"sites\": [");
  for (int i = 0; i < 47; i++)
    used += (size_t)snprintf(text + used, sizeof text - used,
                             "%s{\"name\": \"@leak.lua:%d\", \"verdict\": \"%s\", \"series\": [0, %d], "
                             "\"growth_bytes_per_segment\": %d, \"growth_bytes_per_second\": 1}",
                             i ? ", " : "", i + 1, i < 45 ? "growing" : "steady", 1000 + i, 1000 + i);
  snprintf(text + used, sizeof text - used, "]}");
  char *md = markdown_of(text);
  ck_assert_msg(strstr(md, "\nand 5 more sites growing or undecided (every site is in the JSON).\n"),
                "%s", md);
  free(md);
}
END_TEST

/* Markdown: a site's name is a code span (no `@name` mention, no '|' ending the cell, a bidi
 * control escaped), and the label text beside it carries no mention or bidi control either. */
START_TEST(test_markdown_names_are_code_spans_and_labels_carry_no_mention)
{
  const char *text =
      "{\"ljleak_result\": 1, \"mode\": \"trend\", \"capture\": {\"host\": \"h\", \"pid\": 1, "
      "\"start_time\": 1, \"boundary_count\": 2, \"boundary_times\": [5, 10], "
      "\"labels\": {\"release\": \"1@owner\\u2066\"}}, "
      "\"sites\": [{\"name\": \"@evil\\u202e|x.lua:1\", \"verdict\": \"growing\", \"series\": [0, 100], "
      "\"growth_bytes_per_segment\": 50, \"growth_bytes_per_second\": 5}]}";
  char *md = markdown_of(text);
  ck_assert_msg(strstr(md, "| `@evil\\u202e\\|x.lua:1` |") != NULL, "%s", md);
  ck_assert_msg(strstr(md, "release=1&#64;owner") != NULL, "%s", md);
  ck_assert_ptr_null(strstr(md, "\xe2\x80\xae"));
  ck_assert_ptr_null(strstr(md, "\xe2\x81\xa6"));
  ck_assert_ptr_null(strstr(md, " @"));
  free(md);
}
END_TEST

/* A capture that saw no site (an empty result) still merges and renders in every format:
 * the fuzzer found the sort of no sites passing a null pointer. */
START_TEST(test_a_result_without_sites_merges_and_renders)
{
  const char *text =
      "{\"ljleak_result\": 1, \"mode\": \"trend\", \"capture\": {\"host\": \"h\", \"pid\": 1, "
      "\"start_time\": 1, \"boundary_count\": 0, \"boundary_times\": []}, \"sites\": []}";
  struct merge m;
  struct format_error err;
  merge_init(&m);
  ck_assert_int_eq(merge_add_text(&m, "empty.json", text, strlen(text), &err), FORMAT_OK);
  ck_assert_msg(merge_finish(&m, 1, &err) == FORMAT_OK, "%s", err.message);
  ck_assert_uint_eq(m.capture_count, 1);
  ck_assert_uint_eq(m.site_count, 0);
  ck_assert_int_ne(m.outcome, DIFF_OUTCOME_FLAGGED);
  for (int format = MERGE_FORMAT_TEXT; format <= MERGE_FORMAT_JUNIT; format++)
    free(render(&m, (enum merge_format)format));
  merge_free(&m);
}
END_TEST

/* A capture that stopped on a write error keeps its reason through a merge, and through a
 * merge of that merge; the text's capture line says it stopped early. */
START_TEST(test_a_capture_stopped_by_a_write_error_says_so_in_the_merge)
{
  const char *text =
      "{\"ljleak_result\": 1, \"mode\": \"trend\", \"capture\": {\"host\": \"h\", \"pid\": 1, "
      "\"start_time\": 1, \"boundary_count\": 2, \"boundary_times\": [5, 10], "
      "\"stop_time\": 11, \"stop_reason\": \"write-error\"}, "
      "\"sites\": [{\"name\": \"@x.lua:1\", \"verdict\": \"steady\", \"series\": [0, 0], "
      "\"growth_bytes_per_segment\": 0, \"growth_bytes_per_second\": 0}]}";
  struct merge m;
  struct format_error err;
  merge_init(&m);
  ck_assert_msg(merge_add_text(&m, "r.json", text, strlen(text), &err) == FORMAT_OK, "%s", err.message);
  ck_assert_msg(merge_finish(&m, 1, &err) == FORMAT_OK, "%s", err.message);
  char *json = render(&m, MERGE_FORMAT_JSON), *plain = render(&m, MERGE_FORMAT_TEXT);
  merge_free(&m);
  ck_assert_msg(strstr(json, "\"stop_reason\": \"write-error\"") != NULL, "%s", json);
  ck_assert_msg(strstr(plain, "(stopped early: write-error)") != NULL, "%s", plain);
  merge_init(&m);
  ck_assert_msg(merge_add_text(&m, "m.json", json, strlen(json), &err) == FORMAT_OK, "%s", err.message);
  ck_assert_msg(merge_finish(&m, 1, &err) == FORMAT_OK, "%s", err.message);
  ck_assert_str_eq(m.captures[0].info.stop_reason, "write-error");
  merge_free(&m);
  free(json);
  free(plain);
}
END_TEST

/* A merge inconclusive only because a capture cannot tell (a sampling floor, too few
 * boundaries), with no site undecided: JUnit has one test case in error that says so. */
START_TEST(test_junit_of_an_inconclusive_merge_without_undecided_sites_is_not_green)
{
  const char *text =
      "{\"ljleak_result\": 1, \"mode\": \"trend\", \"outcome\": \"inconclusive\", \"capture\": "
      "{\"host\": \"h\", \"pid\": 1, \"start_time\": 1, \"boundary_count\": 0, \"boundary_times\": []}, "
      "\"sites\": []}";
  struct merge m;
  struct format_error err;
  merge_init(&m);
  ck_assert_msg(merge_add_text(&m, "r.json", text, strlen(text), &err) == FORMAT_OK, "%s", err.message);
  ck_assert_msg(merge_finish(&m, 1, &err) == FORMAT_OK, "%s", err.message);
  ck_assert_int_eq(m.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  char *xml = render(&m, MERGE_FORMAT_JUNIT);
  ck_assert_msg(strstr(xml, "tests=\"1\" failures=\"0\" errors=\"1\"") != NULL, "%s", xml);
  ck_assert_msg(strstr(xml, "name=\"ljleak merge verdict\">\n      <error type=\"inconclusive\" "
                            "message=\"1 of 1 captures cannot tell") != NULL, "%s", xml);
  free(xml);
  char *plain = render(&m, MERGE_FORMAT_TEXT);
  ck_assert_msg(strstr(plain, "0 of 0 sites growing on at least 1 of 1 captures; inconclusive: 1 capture "
                              "cannot tell\n") != NULL, "%s", plain);
  free(plain);
  merge_free(&m);
  /* Results by stack: the headline counts stacks. */
  char by_stack[1024];
  snprintf(by_stack, sizeof by_stack, "{\"ljleak_result\": 1, \"mode\": \"trend\", \"options\": {\"by\": \"stack\"},%s",
           strchr(text, '{') + strlen("{\"ljleak_result\": 1, \"mode\": \"trend\","));
  merge_init(&m);
  ck_assert_msg(merge_add_text(&m, "s.json", by_stack, strlen(by_stack), &err) == FORMAT_OK, "%s", err.message);
  ck_assert_msg(merge_finish(&m, 1, &err) == FORMAT_OK, "%s", err.message);
  plain = render(&m, MERGE_FORMAT_TEXT);
  ck_assert_msg(strstr(plain, "ljleak merge: 0 of 0 stacks growing") == plain, "%s", plain);
  free(plain);
  merge_free(&m);
}
END_TEST

/* A result written before leak suspects (no suspects, kinds or containers) and one written
 * with them merge alike: the same site, counted in both captures. */
START_TEST(test_old_and_new_results_with_suspects_merge)
{
  const char *old =
      "{\"ljleak_result\": 1, \"mode\": \"trend\", \"capture\": {\"host\": \"h\", \"pid\": 1, "
      "\"start_time\": 1, \"boundary_count\": 2, \"boundary_times\": [5, 10], \"snapshots\": 1}, "
      "\"sites\": [{\"name\": \"@bus.lua:24\", \"verdict\": \"growing\", \"series\": [0, 100], "
      "\"growth_bytes_per_segment\": 50, \"growth_bytes_per_second\": 5, \"holders\": [{\"path\": "
      "\"_G.events.handlers[*]\", \"objects\": 2, \"bytes\": 100, \"holder_type\": \"table\", "
      "\"retained_bytes\": 300}], \"holders_boundary\": 2}]}";
  const char *fresh =
      "{\"ljleak_result\": 1, \"mode\": \"trend\", \"capture\": {\"host\": \"h\", \"pid\": 2, "
      "\"start_time\": 2, \"boundary_count\": 2, \"boundary_times\": [5, 10], \"snapshots\": 1}, "
      "\"suspects\": [{\"path\": \"_G.events.handlers\", \"type\": \"table\", \"sites\": "
      "[{\"name\": \"@bus.lua:24\", \"objects\": 2, \"bytes\": 100}]}], "
      "\"sites\": [{\"name\": \"@bus.lua:24\", \"verdict\": \"growing\", \"series\": [0, 120], "
      "\"growth_bytes_per_segment\": 60, \"growth_bytes_per_second\": 6, \"holders\": [{\"path\": "
      "\"_G.events.handlers[*]\", \"objects\": 2, \"bytes\": 120, \"holder_type\": \"table\", "
      "\"retained_bytes\": 300}], \"holders_boundary\": 2, \"kinds\": [{\"kind\": \"table\", "
      "\"objects\": 2, \"bytes\": 120}, {\"kind\": \"a kind of later\", \"objects\": 1}], "
      "\"container\": {\"address\": \"0x7f001000\", \"type\": \"table\", \"path\": "
      "\"_G.events.handlers\", \"named\": true, \"site\": \"@bus.lua:8\", \"retained_bytes\": 300, "
      "\"objects\": 2, \"bytes\": 120, \"boundary\": 2}}]}";
  const char *names_in[2] = {"old.json", "new.json"};
  char *texts[2] = {copy_text(old), copy_text(fresh)};
  struct merge m;
  struct format_error err;
  merge_init(&m);
  for (size_t i = 0; i < 2; i++)
    ck_assert_msg(merge_add_text(&m, names_in[i], texts[i], strlen(texts[i]), &err) == FORMAT_OK, "%s",
                  err.message);
  ck_assert_msg(merge_finish(&m, 1, &err) == FORMAT_OK, "%s", err.message);
  ck_assert_uint_eq(m.capture_count, 2);
  ck_assert_uint_eq(m.site_count, 1);
  ck_assert_int_eq(m.outcome, DIFF_OUTCOME_FLAGGED);
  for (int format = MERGE_FORMAT_TEXT; format <= MERGE_FORMAT_JUNIT; format++)
    free(render(&m, (enum merge_format)format));
  merge_free(&m);
  /* A malformed suspects member is an error naming the file. */
  char *bad = copy_text(fresh);
  memcpy(strstr(bad, "\"suspects\": [") + 12, "3", 1);
  const char *bad_name[1] = {"bad.json"};
  merge_init(&m);
  ck_assert_int_ne(merge_add_text(&m, bad_name[0], bad, strlen(bad), &err), FORMAT_OK);
  ck_assert_msg(strstr(err.message, "bad.json: byte ") == err.message, "%s", err.message);
  merge_free(&m);
  free(bad);
  free(texts[0]);
  free(texts[1]);
}
END_TEST

/* A time no time_t holds (the fuzzer's 1.8e48 seconds) is shown as unknown, not converted. */
/* A capture that was cut is said to be so in the merge, and in a merge of that merge. */
START_TEST(test_a_cut_capture_is_marked_through_merges_of_merges)
{
  rng_state = 0x9e3779b97f4a7c15u;
  char *texts[2] = {generated_result(3, DIFF_MODE_TREND), generated_result(4, DIFF_MODE_TREND)};
  ck_assert_ptr_nonnull(strstr(texts[0], "\"truncated\": true"));
  const char *input_names[2] = {"cut.json", "whole.json"};
  char *once = merge_of(2, input_names, texts, 1);
  ck_assert_ptr_nonnull(strstr(once, "\"truncated\": true"));
  ck_assert_ptr_nonnull(strstr(once, "\"truncated\": false"));
  const char *merge_name = "merge.json";
  char *twice = merge_of(1, &merge_name, &once, 1);
  ck_assert_str_eq(twice, once);
  struct merge m;
  struct format_error err;
  merge_init(&m);
  ck_assert_int_eq(merge_add_text(&m, merge_name, twice, strlen(twice), &err), FORMAT_OK);
  ck_assert_int_eq(merge_finish(&m, 1, &err), FORMAT_OK);
  char *text = render(&m, MERGE_FORMAT_TEXT);
  const char *line = strstr(text, "  cut.json  (cut: read up to its last complete event)\n");
  ck_assert_msg(line != NULL, "%s", text);
  ck_assert_ptr_null(strstr(text, "whole.json  (cut"));
  free(text);
  merge_free(&m);
  free(twice);
  free(once);
  free(texts[0]);
  free(texts[1]);
}
END_TEST

START_TEST(test_a_time_beyond_the_calendar_renders_as_unknown)
{
  const char *text =
      "{\"ljleak_result\": 1, \"mode\": \"trend\", \"capture\": {\"host\": \"h\", \"pid\": 1, "
      "\"start_time\": 1.8e48, \"stop_time\": 1.9e48, \"boundary_count\": 2, "
      "\"boundary_times\": [1.8e48, 1.9e48]}, \"sites\": []}";
  struct merge m;
  struct format_error err;
  merge_init(&m);
  ck_assert_int_eq(merge_add_text(&m, "far.json", text, strlen(text), &err), FORMAT_OK);
  ck_assert_msg(merge_finish(&m, 1, &err) == FORMAT_OK, "%s", err.message);
  char *rendered = render(&m, MERGE_FORMAT_TEXT);
  ck_assert_ptr_null(strstr(rendered, "1970"));
  free(rendered);
  free(render(&m, MERGE_FORMAT_HTML));
  merge_free(&m);
}
END_TEST

/* A growth a result leaves null is none, as the merge's reader reads it:
 * a merge of it reads back to the same figures (the fuzzer's find). */
START_TEST(test_a_null_growth_counts_as_none_and_reads_back_alike)
{
  const char *text =
      "{\"ljleak_result\": 1, \"mode\": \"trend\", \"capture\": {\"host\": \"h\", \"pid\": 1, "
      "\"start_time\": 1, \"boundary_count\": 2, \"boundary_times\": [5, 10]}, "
      "\"sites\": [{\"name\": \"@a.lua:1\", \"verdict\": \"growing\", \"series\": [0, 10], "
      "\"growth_bytes_per_segment\": null, \"growth_bytes_per_second\": null}]}";
  char *first = merge_of(1, (const char *const[]){"null.json"}, (char *const[]){(char *)text}, 1);
  ck_assert_ptr_null(strstr(first, "e999"));
  char *again = merge_of(1, (const char *const[]){"merged.json"}, (char *const[]){first}, 1);
  ck_assert_str_eq(first, again);
  free(first);
  free(again);
}
END_TEST

START_TEST(test_figures_are_counts_medians_largest_and_sums)
{
  char *texts[5] = {
      one_site_result(1, DIFF_VERDICT_GROWING, 100, 1000, "1.4.2"),
      one_site_result(2, DIFF_VERDICT_GROWING, 300, 5000, "1.4.2"),
      one_site_result(3, DIFF_VERDICT_UNDECIDED, 40, 200, "1.4.2"),
      one_site_result(4, DIFF_VERDICT_STEADY, 0, 700, "1.4.1"),
      one_site_result(5, DIFF_VERDICT_SHRINKING, -20, 100, "1.4.1"),
  };
  struct merge m;
  struct format_error err;
  merge_init(&m);
  for (size_t i = 0; i < 5; i++)
    ck_assert_int_eq(merge_add_text(&m, "r.json", texts[i], strlen(texts[i]), &err), FORMAT_OK);
  ck_assert_int_eq(merge_finish(&m, 2, &err), FORMAT_OK);
  ck_assert_uint_eq(m.capture_count, 5);
  ck_assert_uint_eq(m.site_count, 1);
  const struct merge_site *s = &m.sites[0];
  ck_assert_uint_eq(s->seen, 5);
  ck_assert_uint_eq(s->growing, 2);
  ck_assert_uint_eq(s->undecided, 1);
  ck_assert_uint_eq(s->steady, 2);
  ck_assert(s->growth_median == 40);           /* -20, 0, 40, 100, 300 */
  ck_assert(s->growth_max == 300);
  ck_assert_uint_eq(s->per_second_count, 5);
  ck_assert(s->growth_per_second_median == 4);
  ck_assert(s->growth_per_second_max == 30);
  ck_assert_uint_eq(s->live_sum, 7000);
  ck_assert_uint_eq(s->live_max, 5000);
  ck_assert_uint_eq(m.flagged, 1);
  ck_assert_int_eq(m.outcome, DIFF_OUTCOME_FLAGGED);
  char line[256];
  merge_site_by_label(&m, s, "release", line, sizeof line);
  ck_assert_str_eq(line, "growing on 2 of 3 captures labelled release=1.4.2, on 0 of 2 of release=1.4.1");
  char *text = render(&m, MERGE_FORMAT_TEXT);
  ck_assert_ptr_nonnull(strstr(text, "growing on 2 of 3 captures labelled release=1.4.2, on 0 of 2 of release=1.4.1"));
  free(text);
  /* Three captures needed: nothing flagged, one capture inconclusive. */
  ck_assert_int_eq(merge_finish(&m, 3, &err), FORMAT_OK);
  ck_assert_uint_eq(m.flagged, 0);
  ck_assert_int_eq(m.outcome, DIFF_OUTCOME_INCONCLUSIVE);
  merge_free(&m);
  for (size_t i = 0; i < 5; i++)
    free(texts[i]);
}
END_TEST

START_TEST(test_an_even_count_has_the_mean_of_the_middle_two_as_median)
{
  char *a = one_site_result(1, DIFF_VERDICT_STEADY, 10, 1, "a");
  char *b = one_site_result(2, DIFF_VERDICT_STEADY, 30, 1, "b");
  struct merge m;
  struct format_error err;
  merge_init(&m);
  ck_assert_int_eq(merge_add_text(&m, "a.json", a, strlen(a), &err), FORMAT_OK);
  ck_assert_int_eq(merge_add_text(&m, "b.json", b, strlen(b), &err), FORMAT_OK);
  ck_assert_int_eq(merge_finish(&m, 1, &err), FORMAT_OK);
  ck_assert(m.sites[0].growth_median == 20);
  ck_assert_int_eq(m.outcome, DIFF_OUTCOME_PASS);
  merge_free(&m);
  free(a);
  free(b);
}
END_TEST

/* ---- Bad input ------------------------------------------------------------------ */

static void expect_error(const char *const *input_names, const char *const *texts, size_t count,
                         const char *message)
{
  struct merge m;
  struct format_error err;
  merge_init(&m);
  enum format_status status = FORMAT_OK;
  for (size_t i = 0; i < count && status == FORMAT_OK; i++)
    status = merge_add_text(&m, input_names[i], texts[i], strlen(texts[i]), &err);
  if (status == FORMAT_OK)
    status = merge_finish(&m, 1, &err);
  ck_assert_int_eq(status, FORMAT_BAD_INPUT);
  ck_assert_msg(strstr(err.message, message), "'%s' lacks '%s'", err.message, message);
  merge_free(&m);
}

START_TEST(test_an_unknown_version_is_an_error_naming_the_file)
{
  const char *names2[] = {"future.json"};
  const char *result[] = {"{\"ljleak_result\": 2, \"mode\": \"trend\", \"sites\": []}"};
  expect_error(names2, result, 1, "future.json: byte 18: ljleak_result 2 is not a version");
  const char *merge_text[] = {"{\"ljleak_merge\": 2, \"mode\": \"trend\", \"by\": \"site\", "
                              "\"captures\": [], \"sites\": []}"};
  expect_error(names2, merge_text, 1, "future.json: byte 17: ljleak_merge is not a version");
}
END_TEST

START_TEST(test_a_truncated_json_is_an_error_naming_the_file)
{
  rng_state = 1;
  char *whole = generated_result(0, DIFF_MODE_TREND);
  whole[strlen(whole) / 2] = '\0';
  const char *input_names[] = {"cut.json"};
  const char *texts[] = {whole};
  expect_error(input_names, texts, 1, "cut.json: byte ");
  free(whole);
}
END_TEST

START_TEST(test_a_trend_result_mixed_with_base_results_is_an_error_naming_both)
{
  rng_state = 2;
  char *base = generated_result(0, DIFF_MODE_BASE);
  char *trend = generated_result(1, DIFF_MODE_TREND);
  const char *input_names[] = {"base-0.json", "trend-1.json"};
  const char *texts[] = {base, trend};
  expect_error(input_names, texts, 2,
               "trend-1.json: a trend result, but base-0.json is a base result");
  /* Inside a merge too: the merge's file is named. */
  char *merged = merge_of(1, input_names, (char *const *)texts, 1);
  const char *nested_names[] = {"trend-1.json", "fleet.json"};
  const char *nested[] = {trend, merged};
  expect_error(nested_names, nested, 2, "fleet.json: a base result, but trend-1.json is a trend result");
  free(merged);
  free(base);
  free(trend);
}
END_TEST

START_TEST(test_the_same_capture_twice_is_an_error_naming_both_files)
{
  rng_state = 3;
  char *one = generated_result(4, DIFF_MODE_TREND);
  const char *input_names[] = {"a/result.json", "b/result.json"};
  const char *texts[] = {one, one};
  expect_error(input_names, texts, 2, "a/result.json and b/result.json are results of the same capture");
  /* The same capture listed by two merges: the merges are named too. */
  char *merged = merge_of(1, (const char *const[]){"a/result.json"}, (char *const[]){one}, 1);
  const char *merge_names[] = {"night-1.json", "night-2.json"};
  const char *merges[] = {merged, merged};
  expect_error(merge_names, merges, 2,
               "a/result.json and a/result.json (listed in night-1.json and night-2.json) are results "
               "of the same capture");
  free(merged);
  /* The same capture given to its diffs by other paths (caps/web-1, ./caps/web-1/, its absolute
   * path, a copy): one capture, not three; it was counted three times. */
  const char *paths[] = {"captures/ljleak-4", "./captures/ljleak-4/", "/srv/copy/ljleak-4"};
  char *typed[3];
  for (int i = 0; i < 3; i++) {
    char from[64];
    snprintf(from, sizeof from, "\"path\": \"%s\"", paths[0]);
    char *at = strstr(one, from);
    ck_assert_ptr_nonnull(at);
    size_t head = (size_t)(at - one), length = strlen(one) + 64;
    typed[i] = malloc(length);
    snprintf(typed[i], length, "%.*s\"path\": \"%s\"%s", (int)head, one, paths[i], at + strlen(from));
  }
  const char *typed_names[] = {"r1.json", "r2.json", "r3.json"};
  expect_error(typed_names, (const char *const *)typed, 3, "r2.json and r3.json are results of the same capture");
  for (int i = 0; i < 3; i++)
    free(typed[i]);
  free(one);
}
END_TEST

/* A result without a start time has no identity merge_finish can tell; the same file given
 * twice (named twice, by name and in its directory, through a link) was counted twice. */
START_TEST(test_the_same_file_twice_is_an_error_naming_both)
{
  char dir[] = "/tmp/ljleak-test-merge-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[1024], link_path[1024];
  snprintf(path, sizeof path, "%s/hand.json", dir);
  snprintf(link_path, sizeof link_path, "%s/link.json", dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs("{\"ljleak_result\": 1, \"mode\": \"trend\", \"sites\": [{\"name\": \"@a.lua:1\", "
        "\"verdict\": \"growing\", \"series\": [1, 2], \"growth_bytes_per_segment\": 1000}]}", f);
  fclose(f);
  const char *twice[][2] = {{path, path}, {dir, path}};
  char expected[2100];
  for (int i = 0; i < 2; i++) {
    struct merge m;
    struct format_error err;
    merge_init(&m);
    ck_assert_int_eq(merge_add_paths(&m, twice[i], 2, 1, &err), FORMAT_BAD_INPUT);
    snprintf(expected, sizeof expected, "%s and %s are the same file: merge each result once", path, path);
    ck_assert_str_eq(err.message, expected);
    merge_free(&m);
  }
  ck_assert_int_eq(symlink(path, link_path), 0);
  struct merge m;
  struct format_error err;
  merge_init(&m);
  const char *inputs[] = {dir};
  ck_assert_int_eq(merge_add_paths(&m, inputs, 1, 2, &err), FORMAT_BAD_INPUT);
  ck_assert_msg(strstr(err.message, "are the same file"), "%s", err.message);
  merge_free(&m);
  /* Once: one capture. */
  unlink(link_path);
  merge_init(&m);
  ck_assert_int_eq(merge_add_paths(&m, inputs, 1, 1, &err), FORMAT_OK);
  ck_assert_int_eq(merge_finish(&m, 1, &err), FORMAT_OK);
  ck_assert_uint_eq(m.capture_count, 1);
  merge_free(&m);
  unlink(path);
  rmdir(dir);
}
END_TEST

START_TEST(test_a_result_listing_a_site_twice_is_an_error_naming_the_file)
{
  const char *input_names[] = {"twice.json"};
  const char *texts[] = {"{\"ljleak_result\": 1, \"mode\": \"trend\", \"sites\": ["
                         "{\"name\": \"@a.lua:1\", \"verdict\": \"steady\", \"series\": [1], "
                         "\"growth_bytes_per_segment\": 0}, "
                         "{\"name\": \"@a.lua:1\", \"verdict\": \"growing\", \"series\": [2], "
                         "\"growth_bytes_per_segment\": 1}]}"};
  expect_error(input_names, texts, 1, "twice.json: the site \"@a.lua:1\" is listed twice");
}
END_TEST

START_TEST(test_a_merge_with_a_bad_value_is_an_error_at_its_byte)
{
  const char *input_names[] = {"m.json"};
  const char *past[] = {"{\"ljleak_merge\": 1, \"mode\": \"trend\", \"by\": \"site\", \"captures\": "
                        "[{\"source\": \"r.json\", \"outcome\": \"pass\"}], \"sites\": [{\"name\": "
                        "\"x\", \"id\": \"0000000000000001\", \"kind\": \"c\", \"in\": [1], "
                        "\"verdicts\": [\"steady\"], \"flagged_in\": [false], \"undecided_in\": "
                        "[false], \"growth_bytes_per_boundary\": [0], \"growth_bytes_per_second\": "
                        "[0], \"live_bytes\": [0]}]}"};
  expect_error(input_names, past, 1, "m.json: byte 176: in: a capture index past the captures");
  const char *label[] = {"{\"ljleak_merge\": 1, \"mode\": \"trend\", \"by\": \"site\", \"captures\": "
                         "[{\"source\": \"r.json\", \"outcome\": \"pass\", \"labels\": {\"a\": "
                         "\"x\\u001b[2J\"}}], \"sites\": []}"};
  expect_error(input_names, label, 1, "m.json: byte 120: a label must be KEY: VALUE");
  const char *neither[] = {"[1, 2]"};
  expect_error(input_names, neither, 1, "m.json: byte 0: neither a diff result");
  /* Numbers are read by the result reader's members (diff/json_fields.h): a pid past 64 bits
   * is refused as the result reader refuses it, and live bytes past 2^64-1 are named so. */
  const char *pid[] = {"{\"ljleak_merge\": 1, \"mode\": \"trend\", \"by\": \"site\", \"captures\": "
                       "[{\"source\": \"r.json\", \"outcome\": \"pass\", \"pid\": "
                       "99999999999999999999}], \"sites\": []}"};
  expect_error(input_names, pid, 1, "m.json: byte 111: pid must be a whole number");
  const char *live[] = {"{\"ljleak_merge\": 1, \"mode\": \"trend\", \"by\": \"site\", \"captures\": "
                        "[{\"source\": \"r.json\", \"outcome\": \"pass\"}], \"sites\": [{\"name\": "
                        "\"x\", \"id\": \"0000000000000001\", \"kind\": \"c\", \"in\": [0], "
                        "\"verdicts\": [\"steady\"], \"flagged_in\": [false], \"undecided_in\": "
                        "[false], \"growth_bytes_per_boundary\": [0], \"growth_bytes_per_second\": "
                        "[0], \"live_bytes\": [18446744073709551616]}]}"};
  expect_error(input_names, live, 1, "live_bytes is larger than 2^64-1");
}
END_TEST

/* ---- Sites by id and name (container/index_table.h) -------------------------------- */

/* Through the index's growth, two names under one id (an XXH3-64 collision) and merge_finish's new
 * order, a name and its id find their one site. */
START_TEST(test_sites_are_found_by_id_and_name_through_growth_and_finish)
{
  enum { SITES = 5000 };
  struct merge m;
  struct format_error err;
  merge_init(&m);
  char name[32];
  for (int round = 0; round < 2; round++)  /* made, then found */
    for (int i = 0; i < SITES; i++) {
      int length = snprintf(name, sizeof name, "@app.lua:%d", i);
      struct merge_site *site = merge_site_get(&m, name, XXH3_64bits(name, (size_t)length), DIFF_SITE_LUA);
      ck_assert_ptr_nonnull(site);
      ck_assert_uint_eq((size_t)(site - m.sites), (size_t)i);
      ck_assert_str_eq(site->name, name);
    }
  ck_assert_uint_eq(m.site_count, SITES);
  struct merge_site *twin = merge_site_get(&m, "twin-a", 42, DIFF_SITE_C);
  ck_assert_ptr_nonnull(twin);
  ck_assert_uint_eq((size_t)(twin - m.sites), SITES);
  twin = merge_site_get(&m, "twin-b", 42, DIFF_SITE_C);
  ck_assert_ptr_nonnull(twin);
  ck_assert_uint_eq((size_t)(twin - m.sites), SITES + 1);
  ck_assert_str_eq(merge_site_get(&m, "twin-a", 42, DIFF_SITE_C)->name, "twin-a");
  ck_assert_uint_eq(m.site_count, SITES + 2);
  ck_assert_msg(merge_finish(&m, 1, &err) == FORMAT_OK, "%s", err.message);
  for (size_t i = 0; i < m.site_count; i++) {
    struct merge_site *site = &m.sites[i];
    ck_assert_ptr_eq(merge_site_get(&m, site->name, site->id, site->kind), site);
  }
  ck_assert_uint_eq(m.site_count, SITES + 2);
  merge_free(&m);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("merge");
  TCase *tc = tcase_create("merge");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_any_grouping_of_results_gives_the_same_merge);
  tcase_add_test(tc, test_sites_are_found_by_id_and_name_through_growth_and_finish);
  tcase_add_test(tc, test_old_and_new_results_with_suspects_merge);
  tcase_add_test(tc, test_merging_in_any_order_gives_the_same_text_and_html);
  tcase_add_test(tc, test_reading_on_threads_gives_the_same_merge_and_the_same_first_error);
  tcase_add_test(tc, test_figures_are_counts_medians_largest_and_sums);
  tcase_add_test(tc, test_a_result_without_sites_merges_and_renders);
  tcase_add_test(tc, test_junit_of_an_inconclusive_merge_without_undecided_sites_is_not_green);
  tcase_add_test(tc, test_a_capture_stopped_by_a_write_error_says_so_in_the_merge);
  tcase_add_test(tc, test_a_time_beyond_the_calendar_renders_as_unknown);
  tcase_add_test(tc, test_a_cut_capture_is_marked_through_merges_of_merges);
  tcase_add_test(tc, test_junit_has_an_undecided_site_as_an_error);
  tcase_add_test(tc, test_a_site_undecided_short_of_min_captures_leaves_the_merge_inconclusive);
  tcase_add_test(tc, test_markdown_says_how_many_sites_it_leaves_out);
  tcase_add_test(tc, test_a_null_growth_counts_as_none_and_reads_back_alike);
  tcase_add_test(tc, test_an_even_count_has_the_mean_of_the_middle_two_as_median);
  tcase_add_test(tc, test_an_unknown_version_is_an_error_naming_the_file);
  tcase_add_test(tc, test_a_truncated_json_is_an_error_naming_the_file);
  tcase_add_test(tc, test_a_trend_result_mixed_with_base_results_is_an_error_naming_both);
  tcase_add_test(tc, test_the_same_capture_twice_is_an_error_naming_both_files);
  tcase_add_test(tc, test_the_same_file_twice_is_an_error_naming_both);
  tcase_add_test(tc, test_a_merge_with_a_bad_value_is_an_error_at_its_byte);
  tcase_add_test(tc, test_a_result_listing_a_site_twice_is_an_error_naming_the_file);
  tcase_add_test(tc, test_markdown_names_are_code_spans_and_labels_carry_no_mention);
  suite_add_tcase(s, tc);
  return check_run(s);
}
