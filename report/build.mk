# report/build.mk: the report stage (text, HTML, JSON, JUnit, Markdown, progress bar) and its checks.
STAGES += report
report_SRCS := report/render.c report/common.c report/json.c report/json_write.c \
  report/json_read.c report/text.c report/html.c report/junit.c report/markdown.c \
  report/progress.c

# The renderers against golden files, JSON round trips, the strict parser.
TEST_SUITES += test_report
test_report_LIBS = report
# The progress bar and colour choice, on pipes, memory streams and a pty.
TEST_SUITES += test_report_progress
test_report_progress_LIBS = report
# ljleak report end to end, and the HTML page in headless Chromium.
E2E_TESTS += tests/e2e/report.sh tests/e2e/report-browser.sh
