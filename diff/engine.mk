# diff/engine.mk: the differential engine (aggregation, trends, comparisons); needs format.
STAGES += diff
diff_SRCS := diff/live_map.c diff/site_table.c diff/capture.c diff/segment.c diff/aggregate.c \
  diff/trend.c diff/result.c diff/compare.c
