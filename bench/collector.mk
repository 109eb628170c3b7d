# bench/collector.mk: `make bench` part for the collector: its overhead on an allocation-heavy JIT-on workload.
BENCHES += bench-collector
BENCH_COLLECTOR_RUNS ?= 7
BENCH_COLLECTOR_ROUNDS ?= 500
BENCH_COLLECTOR_SAMPLED_RUNS ?= 41
BENCH_COLLECTOR_SAMPLED_ROUNDS ?= 100
BENCH_COLLECTOR_AB_ROUNDS ?= 20
BENCH_COLLECTOR_AB_PAIRS ?= 101

# In one process, runs without and with a sampled capture in turns (see the file).
$(BUILD)/bench/sampled_ab: bench/sampled_ab.c $(BUILD)/libcollector.a $(BUILD)/libformat.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(BUILD)/libcollector.a \
	  $(BUILD)/libformat.a $(LIBS_ALL)

.PHONY: bench-collector
bench-collector: $(BUILD)/ljleak $(BUILD)/bench/sampled_ab
	BUILD=$(BUILD) RUNS=$(BENCH_COLLECTOR_RUNS) ROUNDS=$(BENCH_COLLECTOR_ROUNDS) \
	  SAMPLED_RUNS=$(BENCH_COLLECTOR_SAMPLED_RUNS) SAMPLED_ROUNDS=$(BENCH_COLLECTOR_SAMPLED_ROUNDS) bash bench/overhead.sh
	@rm -rf $(BUILD)/bench/sampled-ab
	@mkdir -p $(BUILD)/bench/sampled-ab
	@echo "== sampled capture in one process, runs in turns: bench/overhead.lua $(BENCH_COLLECTOR_AB_ROUNDS), $(BENCH_COLLECTOR_AB_PAIRS) pairs"
	$(BUILD)/bench/sampled_ab bench/overhead.lua $(BENCH_COLLECTOR_AB_ROUNDS) \
	  $(BENCH_COLLECTOR_AB_PAIRS) $(BUILD)/bench/sampled-ab
