/* diff/tests.c: a verdict per test of a suite run under ljleak busted (diff/tests.h, docs/busted.md). */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/tests.h"
#include "format/capture_index.h"
#include "format/test_list.h"

static char *tests_strdup(const char *text)
{
  return text ? strdup(text) : NULL;
}

static char *tests_printf(const char *format, const char *a, const char *b)
{
  int n = snprintf(NULL, 0, format, a, b);
  char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (text)
    snprintf(text, (size_t)n + 1, format, a, b);
  return text;
}

static const char *tests_holder_of(const struct diff_site *site)
{
  if (site->container && site->container->path)
    return site->container->path;
  return site->holder_count ? site->holders[0].path : NULL;
}

/* Whether a site that rose with every run kept little in the last one: under a quarter of what
 * it kept per run before. A cache that fills up to its bound in the measured runs looks like a
 * leak until its last run (2:4 runs of an LRU of 1000 entries filled 200 a run: +24 KB a run,
 * then +396 B); a test that leaks keeps about as much in every run. */
static int tests_levelled(const struct diff_site *site, size_t warmup)
{
  if (!site->live_bytes || site->count < warmup + 3)
    return 0;
  const uint64_t *live = site->live_bytes + warmup;
  size_t n = site->count - warmup;
  if (live[n - 1] <= live[0])
    return 0;
  double before = (double)(live[n - 2] - (live[n - 2] < live[0] ? live[n - 2] : live[0])) / (double)(n - 2);
  double last = live[n - 1] > live[n - 2] ? (double)(live[n - 1] - live[n - 2]) : 0;
  return before > 0 && last * 4 < before;
}

/* The test as ljleak busted's helper holds it while the test's last snapshot is taken: a local
 * of its frame (lua/ljleak/busted.lua, repeat_test). A path through it named the helper,
 * "(local element in function@ljleak.busted:72-156).run ▸ upvalue kept"; it now says what the
 * suite wrote: "the test's function ▸ upvalue kept", and for a global the spec set (busted keeps
 * a spec's globals in its test's env), "_G.AUDIT_TRAIL". In place: the text only gets shorter. */
static void tests_name_the_function(char *path)
{
  static const char frame[] = "(local element in function@ljleak.busted:";
  static const struct { const char *field, *name; } names[] = {{").run", "the test's function"},
                                                                {").env", "_G"}};
  const char *end = path && !strncmp(path, frame, sizeof frame - 1) ? strchr(path, ')') : NULL;
  for (size_t i = 0; end && i < sizeof names / sizeof names[0]; i++) {
    size_t field = strlen(names[i].field), name = strlen(names[i].name);
    const char *rest = end + field;
    if (strncmp(end, names[i].field, field) || (*rest && *rest != '.' && *rest != ' ' && *rest != '['))
      continue;
    memmove(path + name, rest, strlen(rest) + 1);
    memcpy(path, names[i].name, name);
    return;
  }
}

static void tests_name_the_functions(struct diff_result *result)
{
  for (size_t i = 0; i < result->site_count; i++) {
    struct diff_site *s = &result->sites[i];
    for (size_t h = 0; h < s->holder_count; h++)
      tests_name_the_function(s->holders[h].path);
    if (s->container)
      tests_name_the_function(s->container->path);
  }
  for (size_t i = 0; i < result->container_count; i++)
    tests_name_the_function(result->containers[i].path);
}

int diff_test_decide(struct diff_test *test, const struct diff_result *result, uint64_t failed_run)
{
  const struct diff_site *lead = NULL, *rose = NULL, *small = NULL;
  int jit = 0, levelled = 0;
  test->growth_per_run = 0;
  for (size_t i = 0; i < result->site_count; i++) {
    const struct diff_site *s = &result->sites[i];
    /* a significant rise too small to count (--min-growth): steady, but said */
    if (s->verdict == DIFF_VERDICT_STEADY && !diff_site_is_jit(s->name) && s->growth_bytes_per_segment > 0 &&
        s->trend_p_value <= result->options.max_p_value &&
        (!small || s->growth_bytes_per_segment > small->growth_bytes_per_segment))
      small = s;
    if (!s->facts.flagged && !s->facts.rose_undecided)
      continue;
    if (diff_site_is_jit(s->name)) {  /* bounded: no leak of the test's */
      jit = 1;
      continue;
    }
    if (s->facts.flagged && !tests_levelled(s, result->options.warmup)) {
      if (!lead)
        lead = s;
      test->growth_per_run += s->growth_bytes_per_segment;
    } else if (!rose || (s->facts.flagged && !levelled)) {
      rose = s;  /* a flagged site that levelled off comes first */
      levelled = s->facts.flagged;
    }
  }
  const char *why;
  char count[128];
  if (lead) {
    test->verdict = DIFF_TEST_LEAKING;
    test->site = tests_strdup(lead->name);
    test->holder = tests_strdup(tests_holder_of(lead));
    why = test->holder ? "keeps more at %s with every run, held by %s" : "keeps more at %s with every run%s";
    test->reason = tests_printf(why, lead->name, test->holder ? test->holder : "");
  } else if (failed_run) {
    test->verdict = DIFF_TEST_UNDECIDED;
    snprintf(count, sizeof count, "%llu", (unsigned long long)failed_run);
    test->reason = tests_printf("run %s failed where the first passed: its runs are not alike%s", count, "");
  } else if (rose) {
    test->verdict = DIFF_TEST_UNDECIDED;
    test->growth_per_run = rose->growth_bytes_per_segment;
    test->site = tests_strdup(rose->name);
    if (levelled)
      test->reason = tests_printf("%s rose with every run, but kept under a quarter as much in the last: a "
                                  "bound reached (a cache full)?%s more runs decide it (--repeat)",
                                  rose->name, "");
    else
      test->reason = tests_printf("%s rose, but its runs cannot show a trend%s; more runs decide it (--repeat)",
                                  rose->name, result->facts.needed > result->facts.judged ? " (too few runs)" : "");
  } else if (result->facts.outcome == DIFF_OUTCOME_INCONCLUSIVE && !jit) {
    test->verdict = DIFF_TEST_UNDECIDED;
    snprintf(count, sizeof count, "%zu", result->facts.judged);
    test->reason = tests_printf("only %s boundaries measured: nothing could be judged%s", count, "");
  } else if (small && !jit) {
    test->verdict = DIFF_TEST_STEADY;
    snprintf(count, sizeof count, "%.0f B a run, under the growth threshold (--min-growth %.0f B in all)",
             small->growth_bytes_per_segment, result->options.min_growth_bytes);
    test->reason = tests_printf("nothing it keeps grows with its runs by enough to count: %s rose %s", small->name,
                                count);
  } else {
    test->verdict = DIFF_TEST_STEADY;
    test->jit_only = jit;
    test->reason = tests_printf("%s%s", "nothing it keeps grows with its runs",
                                jit ? " (the JIT compiled traces in its runs: bounded, not charged)" : "");
  }
  return test->reason ? 0 : -1;
}

void diff_test_apply_budget(struct diff_test *test, const struct diff_test_budget *budgets, size_t count)
{
  for (size_t i = 0; i < count; i++)
    if (fnmatch(budgets[i].pattern, test->full_name, 0) == 0) {
      test->budget = &budgets[i];
      break;
    }
  /* An undecided test is held to its budget only by a site that rose: one whose capture did not
   * read, whose runs failed or were too few has no bytes per run to be within. */
  test->allowed = test->budget &&
                  (test->verdict == DIFF_TEST_LEAKING || (test->verdict == DIFF_TEST_UNDECIDED && test->site)) &&
                  test->growth_per_run <= test->budget->bytes_per_run;
}

void diff_tests_tally(struct diff_tests *tests)
{
  tests->leaking = tests->undecided = tests->steady = tests->skipped = tests->allowed = tests->failed = 0;
  size_t measured = 0;
  int flagged = 0, inconclusive = 0;
  for (size_t i = 0; i < tests->count; i++) {
    const struct diff_test *t = &tests->tests[i];
    if (t->status && (!strcmp(t->status, "failure") || !strcmp(t->status, "error")))
      tests->failed++;
    if (t->allowed)
      tests->allowed++;
    switch (t->verdict) {
    case DIFF_TEST_LEAKING:
      tests->leaking++;
      flagged |= !t->allowed;
      measured++;
      break;
    case DIFF_TEST_UNDECIDED:
      tests->undecided++;
      inconclusive |= !t->allowed;
      break;
    case DIFF_TEST_STEADY:
      tests->steady++;
      measured++;
      break;
    case DIFF_TEST_SKIPPED:
      tests->skipped++;
      break;
    }
  }
  tests->outcome = flagged ? DIFF_OUTCOME_FLAGGED
                 : (inconclusive || measured == 0) ? DIFF_OUTCOME_INCONCLUSIVE : DIFF_OUTCOME_PASS;
}

const char *diff_test_verdict_name(enum diff_test_verdict verdict)
{
  switch (verdict) {
  case DIFF_TEST_STEADY: return "steady";
  case DIFF_TEST_LEAKING: return "leaking";
  case DIFF_TEST_UNDECIDED: return "undecided";
  case DIFF_TEST_SKIPPED: return "skipped";
  }
  return "unknown";
}

static char *tests_join(const char *directory, const char *name)
{
  size_t n = strlen(directory) + strlen(name) + 2;
  char *path = malloc(n);
  if (path)
    snprintf(path, n, "%s/%s", directory, name);
  return path;
}

static int tests_copy_entry(struct diff_test *t, const struct test_list_test *e)
{
  t->name = tests_strdup(e->name);
  t->describe = tests_strdup(e->describe ? e->describe : "");
  t->file = tests_strdup(e->file ? e->file : "");
  t->status = tests_strdup(e->status);
  t->message = tests_strdup(e->message);
  t->line = e->line;
  t->warmup = e->warmup;
  t->runs = e->runs;
  if (!t->name || !t->describe || !t->file || !t->status || (e->message && !t->message))
    return -1;
  t->full_name = *t->describe ? tests_printf("%s %s", t->describe, t->name) : tests_strdup(t->name);
  return t->full_name ? 0 : -1;
}

/* One test's capture, judged as a run on its runs' boundaries. */
static enum format_status tests_judge_one(const char *directory, const struct test_list_test *e,
                                          const struct diff_options *options, struct diff_test *t,
                                          struct format_error *err)
{
  int pending = !strcmp(e->status, "pending");
  if ((pending && !e->capture) || (!e->capture && !e->capture_error)) {
    t->verdict = DIFF_TEST_SKIPPED;
    t->reason = tests_printf("%s%s", !strcmp(e->status, "pending") ? "pending: never run" : "not run",
                             !strcmp(e->status, "error") ? ": busted's error outside a test's body" : "");
    return t->reason ? FORMAT_OK : FORMAT_NO_MEMORY;
  }
  if (!e->capture) {
    t->verdict = DIFF_TEST_UNDECIDED;
    t->reason = tests_printf("no capture: %s%s", e->capture_error, "");
    return t->reason ? FORMAT_OK : FORMAT_NO_MEMORY;
  }
  char *path = tests_join(directory, e->capture);
  if (!path)
    return FORMAT_NO_MEMORY;
  struct diff_options o = *options;
  o.forced_only = 1;            /* the runs' boundaries, not the program's own cycles */
  o.warmup = e->warmup > 0 ? (size_t)e->warmup - 1 : 0;  /* the last warm-up run's is the first judged */
  o.progress = NULL;
  const char *paths[1] = {path};
  enum format_status status = diff_trend(paths, 1, &o, &t->result, err);
  free(path);
  if (format_status_is_input(status)) {
    /* One test's capture that does not read leaves that test undecided, not the run unread. */
    t->verdict = DIFF_TEST_UNDECIDED;
    t->reason = tests_printf("its capture does not read: %s%s", err->message, "");
    format_error_clear(err);
    return t->reason ? FORMAT_OK : FORMAT_NO_MEMORY;
  }
  if (status != FORMAT_OK)
    return status;
  /* ljleak busted stops each test's capture after its last run (collector.stop()): the end it
   * planned, not a process that ran on unrecorded (report_stop_warning's "stop"). */
  struct diff_capture *c = &t->result.capture;
  if (c->stop_reason && !strcmp(c->stop_reason, capture_index_stop_reason_name(CAPTURE_INDEX_REASON_STOP))) {
    free(c->stop_reason);
    c->stop_reason = NULL;
  }
  tests_name_the_functions(&t->result);
  if (diff_test_decide(t, &t->result, e->failed_run) < 0) {
    diff_result_free(&t->result);
    return FORMAT_NO_MEMORY;
  }
  if (pending && t->verdict != DIFF_TEST_LEAKING) {
    /* pending() in its body, after some of it ran: skipped, unless what ran leaks */
    free(t->reason);
    free(t->site);
    free(t->holder);
    t->site = t->holder = NULL;
    t->growth_per_run = 0;
    t->jit_only = 0;
    t->verdict = DIFF_TEST_SKIPPED;
    t->reason = tests_printf("%s%s", "pending in its body: nothing it ran leaks", "");
    diff_result_free(&t->result);
    return t->reason ? FORMAT_OK : FORMAT_NO_MEMORY;
  }
  if (t->verdict == DIFF_TEST_LEAKING || t->verdict == DIFF_TEST_UNDECIDED)
    t->has_result = 1;  /* its sites, stacks and holders, for the reports */
  else
    diff_result_free(&t->result);
  return FORMAT_OK;
}

enum format_status diff_tests_judge(const char *directory, const struct diff_options *options,
                                    const struct diff_test_budget *budgets, size_t budget_count,
                                    struct diff_tests *tests, struct format_error *err)
{
  memset(tests, 0, sizeof *tests);
  format_error_clear(err);
  struct test_list list;
  char *list_path = tests_join(directory, TEST_LIST_FILE);
  tests->directory = tests_strdup(directory);
  if (!list_path || !tests->directory) {
    free(list_path);
    diff_tests_free(tests);
    return format_error_set(err, FORMAT_NO_MEMORY, "out of memory");
  }
  if (test_list_read(list_path, &list, err) != 0) {
    free(list_path);
    diff_tests_free(tests);
    return err->status;
  }
  free(list_path);
  enum format_status status = FORMAT_OK;
  tests->tests = calloc(list.count ? list.count : 1, sizeof *tests->tests);
  if (!tests->tests)
    status = FORMAT_NO_MEMORY;
  for (size_t i = 0; status == FORMAT_OK && i < list.count; i++) {
    struct diff_test *t = &tests->tests[i];
    tests->count++;
    if (tests_copy_entry(t, &list.tests[i]) < 0)
      status = FORMAT_NO_MEMORY;
    else
      status = tests_judge_one(directory, &list.tests[i], options, t, err);
    if (status == FORMAT_OK)
      diff_test_apply_budget(t, budgets, budget_count);
  }
  test_list_free(&list);
  if (status != FORMAT_OK) {
    if (err->status == FORMAT_OK) {
      format_error_set(err, status, "out of memory");
    }
    diff_tests_free(tests);
    return status;
  }
  diff_tests_tally(tests);
  return FORMAT_OK;
}

void diff_tests_free(struct diff_tests *tests)
{
  for (size_t i = 0; i < tests->count; i++) {
    struct diff_test *t = &tests->tests[i];
    free(t->name);
    free(t->describe);
    free(t->file);
    free(t->full_name);
    free(t->status);
    free(t->message);
    free(t->reason);
    free(t->site);
    free(t->holder);
    if (t->has_result)
      diff_result_free(&t->result);
  }
  free(tests->tests);
  free(tests->directory);
  memset(tests, 0, sizeof *tests);
}
