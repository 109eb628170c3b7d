# bench/collector.mk: `make bench` part for the collector: its overhead on an allocation-heavy JIT-on workload.
BENCHES += bench-collector
BENCH_COLLECTOR_RUNS ?= 7
BENCH_COLLECTOR_ROUNDS ?= 500

.PHONY: bench-collector
bench-collector: $(BUILD)/ljleak
	BUILD=$(BUILD) RUNS=$(BENCH_COLLECTOR_RUNS) ROUNDS=$(BENCH_COLLECTOR_ROUNDS) sh bench/overhead.sh
