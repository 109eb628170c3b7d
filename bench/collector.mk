# bench/collector.mk: `make bench` part for the collector: its overhead on an allocation-heavy JIT-on workload.
BENCHES += bench-collector
BENCH_COLLECTOR_RUNS ?= 7
BENCH_COLLECTOR_ROUNDS ?= 500
BENCH_COLLECTOR_SAMPLED_RUNS ?= 41
BENCH_COLLECTOR_SAMPLED_ROUNDS ?= 100

.PHONY: bench-collector
bench-collector: $(BUILD)/ljleak
	BUILD=$(BUILD) RUNS=$(BENCH_COLLECTOR_RUNS) ROUNDS=$(BENCH_COLLECTOR_ROUNDS) \
	  SAMPLED_RUNS=$(BENCH_COLLECTOR_SAMPLED_RUNS) SAMPLED_ROUNDS=$(BENCH_COLLECTOR_SAMPLED_ROUNDS) bash bench/overhead.sh
