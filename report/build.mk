# report/build.mk: the report stage (text, HTML, JSON, JUnit, Markdown, progress bar) and its
# checks; it needs diff for the result model and its JSON, format for the UTF-8 writers.
report_SRCS := report/render.c report/common.c report/fixed.c report/escape.c report/text.c report/html.c report/html_chart.c report/junit.c report/markdown.c \
  report/progress.c report/folded.c report/pprof.c report/flame.c report/source.c report/html_suspects.c \
  report/html_page.c
# ljleak busted's per-test result
report_SRCS += report/tests.c

# The renderers against golden files, JSON round trips, the strict parser.
TEST_SUITES += test_report
test_report_LIBS = report diff format container
# INCONCLUSIVE, undecided and allowed sites, the warm-up, in every format.
TEST_SUITES += test_report_outcome
test_report_outcome_LIBS = report diff format container
# Stacks: verdicts and base mode by stack, pprof (decoded), folded, JSON, text, the flame graph's data.
TEST_SUITES += test_report_stacks
test_report_stacks_LIBS = report diff format container
# Each format's one escaper on a hostile name, byte for byte; busted's text escaping its names.
TEST_SUITES += test_report_escape
test_report_escape_LIBS = report diff format container
# The progress bar and colour choice, on pipes, memory streams and a pty.
TEST_SUITES += test_report_progress
test_report_progress_LIBS = report diff format container
# --values: shown only when asked for, cut and escaped in words, the JSON's values read back.
TEST_SUITES += test_report_values
test_report_values_LIBS = report diff format container
# ljleak report end to end, and the HTML page in headless Chromium.
E2E_TESTS += tests/e2e/report.sh tests/e2e/report-browser.sh
# Stacks through ljleak report: --by stack, folded, pprof read by go tool pprof; the
# flame graph in headless Chromium.
E2E_TESTS += tests/e2e/stacks.sh tests/e2e/stacks-browser.sh
# A helper with a leaking and a steady caller, captured with stacks (JIT on and off),
# through diff, --by stack, folded, pprof and --base by stack.
E2E_TESTS += tests/e2e/stacks-capture.sh

# The JSON result reader's libFuzzer target (tests/fuzz/fuzz_report_json.c),
# seeded with the saved results of testdata/report/; of diff it uses the
# result model and its JSON (diff/model.c, diff/result_json_read.c).
FUZZERS += fuzz_report_json
fuzz_report_json_STAGES = report diff format container
fuzz_report_json_SEEDS = testdata/report/*.json
