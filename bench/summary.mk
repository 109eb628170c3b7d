# bench/summary.mk: `make bench` part for ljleak summary: a synthetic stream generator and a timed runner.
BENCHES += bench-summary
BENCH_SUMMARY_EVENTS ?= 10000000
BENCH_SUMMARY_RUNS ?= 9

$(BUILD)/bench/gen_stream: bench/gen_stream.c $(BUILD)/libformat.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(BUILD)/libformat.a $(LIBS_ALL)

$(BUILD)/bench/run_timed: bench/run_timed.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $<

.PHONY: bench-summary
bench-summary: $(BUILD)/ljleak $(BUILD)/bench/gen_stream $(BUILD)/bench/run_timed
	BUILD=$(BUILD) EVENTS=$(BENCH_SUMMARY_EVENTS) RUNS=$(BENCH_SUMMARY_RUNS) sh bench/summary.sh
