/* diff/tests.h: a verdict per test of a suite run under ljleak busted: each test's own capture judged as a run, then the test leaking, steady, undecided or skipped. */
#ifndef LJLEAK_DIFF_TESTS_H
#define LJLEAK_DIFF_TESTS_H

#include <stddef.h>
#include <stdint.h>

#include "diff/diff.h"

enum diff_test_verdict {
  DIFF_TEST_STEADY,           /* no site of it grew with its runs */
  DIFF_TEST_LEAKING,          /* a site grew with every run: growing, not allowed */
  DIFF_TEST_UNDECIDED,        /* the runs cannot tell (reason says why) */
  DIFF_TEST_SKIPPED           /* pending, or not run: nothing measured */
};

/* A test name pattern and the bytes per run it may keep (as pytest-memray's limit_leaks). */
struct diff_test_budget {
  char *pattern;              /* shell glob on the test's full name: "DESCRIBE NAME" */
  double bytes_per_run;
};

struct diff_test {
  char *name, *describe, *file, *full_name;  /* full_name: describe and name, as busted prints it */
  uint64_t line;
  char *status;               /* busted's: success, failure, error, pending */
  char *message;              /* busted's failure or error message, or NULL */
  uint64_t warmup, runs;
  enum diff_test_verdict verdict;
  char *reason;               /* why it is undecided or skipped, or what it keeps; never NULL */
  double growth_per_run;      /* bytes per run of its leaking (or rising) sites, summed */
  char *site;                 /* its lead leaking site, or NULL */
  char *holder;               /* what holds that site's blocks (a holder path), or NULL */
  const struct diff_test_budget *budget;  /* the budget its name matched, or NULL */
  int allowed;                /* leaking or undecided within its budget: does not fail the run */
  int jit_only;               /* steady, but the JIT's own sites rose with its runs (bounded) */
  int has_result;             /* result holds its capture's result (leaking or undecided) */
  struct diff_result result;
};

struct diff_tests {
  char *directory;
  size_t count;
  struct diff_test *tests;
  size_t leaking, undecided, steady, skipped, allowed;
  size_t failed;              /* busted failures and errors */
  enum diff_outcome outcome;  /* flagged when a test leaks (not allowed); else inconclusive when
                                 one is undecided, or no test was measured; else pass */
};

/* Reads DIR/tests (format/test_list.h) and judges each test's capture
 * DIR/NNNN with options (its allow-list too), the boundaries of its runs
 * only (those the collector forced), its last warm-up run's the first
 * judged; then budgets (count of them). Errors name the file and byte. */
enum format_status diff_tests_judge(const char *directory, const struct diff_options *options,
                                    const struct diff_test_budget *budgets, size_t budget_count,
                                    struct diff_tests *tests, struct format_error *err);

/* The verdict of one test from its capture's result (facts filled) and the
 * test's runs; fills verdict, reason, growth_per_run, site, holder, jit_only.
 * 0, or -1 when out of memory. */
int diff_test_decide(struct diff_test *test, const struct diff_result *result, uint64_t failed_run);

/* Applies budgets to a judged test: the first pattern that matches its full name. */
void diff_test_apply_budget(struct diff_test *test, const struct diff_test_budget *budgets,
                            size_t count);

/* Counts and the outcome, from the tests' verdicts. */
void diff_tests_tally(struct diff_tests *tests);

const char *diff_test_verdict_name(enum diff_test_verdict verdict);

void diff_tests_free(struct diff_tests *tests);

#endif
