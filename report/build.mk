# report/build.mk: the report stage (text, HTML, JSON, JUnit, Markdown, progress bar) and its checks.
STAGES += report
report_SRCS := report/render.c report/common.c report/json.c report/json_write.c \
  report/json_read.c report/text.c report/html.c report/junit.c report/markdown.c \
  report/progress.c
