# bench/diff.mk: `make bench` part for ljleak diff: aggregation speed with -j 1 and -j 2 on a
# generated capture of BENCH_DIFF_SEGMENTS segments (kept in $(BUILD)/bench and reused).
BENCHES += bench-diff
BENCH_DIFF_SEGMENTS ?= 100
BENCH_DIFF_EVENTS_PER_SEGMENT ?= 500000
BENCH_DIFF_RUNS ?= 5

$(BUILD)/bench/diff-gen: bench/diff-gen.c $(BUILD)/libformat.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(BUILD)/libformat.a $(LIBS_ALL)

.PHONY: bench-diff
bench-diff: $(BUILD)/ljleak $(BUILD)/bench/diff-gen $(BUILD)/bench/run_timed
	BUILD=$(BUILD) SEGMENTS=$(BENCH_DIFF_SEGMENTS) PER=$(BENCH_DIFF_EVENTS_PER_SEGMENT) \
	  RUNS=$(BENCH_DIFF_RUNS) sh bench/diff.sh
