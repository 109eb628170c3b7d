# diff/engine.mk: the differential engine (aggregation, trends, comparisons); needs format.
STAGES += diff
diff_SRCS := diff/live_map.c diff/site_table.c diff/capture.c diff/segment.c diff/aggregate.c \
  diff/trend.c diff/result.c diff/compare.c
# the corpus of workloads with known answers, captured by ljleak run and diffed
E2E_TESTS += tests/e2e/diff-corpus.sh
