# bench/build.mk: the parts of `make bench`, one per stage measured.

# The collector: its overhead on an allocation-heavy JIT-on workload.
BENCHES += bench-collector
BENCH_COLLECTOR_RUNS ?= 7
BENCH_COLLECTOR_ROUNDS ?= 500
BENCH_COLLECTOR_SAMPLED_RUNS ?= 41
BENCH_COLLECTOR_SAMPLED_ROUNDS ?= 100
BENCH_COLLECTOR_AB_ROUNDS ?= 20
BENCH_COLLECTOR_AB_PAIRS ?= 101

# In one process, runs without and with a sampled capture in turns (see the file).
LUAJIT_SRCS += bench/sampled_ab.c
$(BUILD)/bench/sampled_ab: bench/sampled_ab.c $(call stage_archives,collector format container)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< \
	  $(call stage_archives,collector format container) $(LIBS_ALL)

.PHONY: bench-collector
bench-collector: $(BUILD)/ljleak $(BUILD)/bench/sampled_ab
	BUILD=$(BUILD) RUNS=$(BENCH_COLLECTOR_RUNS) ROUNDS=$(BENCH_COLLECTOR_ROUNDS) \
	  SAMPLED_RUNS=$(BENCH_COLLECTOR_SAMPLED_RUNS) SAMPLED_ROUNDS=$(BENCH_COLLECTOR_SAMPLED_ROUNDS) bash bench/overhead.sh
	@rm -rf $(BUILD)/bench/sampled-ab
	@mkdir -p $(BUILD)/bench/sampled-ab
	@echo "== sampled capture in one process, runs in turns: bench/overhead.lua $(BENCH_COLLECTOR_AB_ROUNDS), $(BENCH_COLLECTOR_AB_PAIRS) pairs"
	$(BUILD)/bench/sampled_ab bench/overhead.lua $(BENCH_COLLECTOR_AB_ROUNDS) \
	  $(BENCH_COLLECTOR_AB_PAIRS) $(BUILD)/bench/sampled-ab

# The walk that learns C functions' Lua names when a capture starts, over
# 1,000 C functions in 50 modules (target 5 ms).
BENCHES += bench-cname-walk
LUAJIT_SRCS += bench/cname_walk.c
$(BUILD)/bench/cname_walk: bench/cname_walk.c $(call stage_archives,collector format container)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< \
	  $(call stage_archives,collector format container) $(LIBS_ALL)

.PHONY: bench-cname-walk
bench-cname-walk: $(BUILD)/bench/cname_walk
	@echo "== naming walk of C functions (bench/cname_walk.c)"
	$(BUILD)/bench/cname_walk

# The collector: what the boundaries forced to cover the run cost.
BENCHES += bench-boundaries
BENCH_BOUNDARIES_RUNS ?= 5

.PHONY: bench-boundaries
bench-boundaries: $(BUILD)/ljleak
	BUILD=$(BUILD) RUNS=$(BENCH_BOUNDARIES_RUNS) bash bench/boundaries.sh

# ljleak diff: what the second reading that measures fill-and-flush floors costs.
BENCHES += bench-floors
BENCH_FLOORS_RUNS ?= 5

.PHONY: bench-floors
bench-floors: $(BUILD)/ljleak
	BUILD=$(BUILD) RUNS=$(BENCH_FLOORS_RUNS) bash bench/floors.sh

# ljleak diff on steady programs: each steady workload of testdata/workloads
# captured BENCH_STEADY_RUNS times with no option at its default length (the
# documented minimum; BENCH_STEADY_COUNTS lists others), in full and sampled,
# beside a CPU-bound neighbour (BENCH_STEADY_NEIGHBOUR=0: none); the count of
# exits 0/1/5 per workload (a steady program exits 0; a sampled capture 0 or 5
# naming its floor, never 1). BENCH_STEADY_WORKLOADS picks some; BEFORE=PATH
# judges the same captures with another ljleak too. About 30 minutes at the
# defaults on a busy 2-CPU machine; not part of `make bench`.
BENCH_STEADY_RUNS ?= 20
BENCH_STEADY_COUNTS ?= default
BENCH_STEADY_SAMPLE ?= 512k
BENCH_STEADY_NEIGHBOUR ?= 1
BENCH_STEADY_WORKLOADS ?=

.PHONY: bench-steady-runs
bench-steady-runs: $(BUILD)/ljleak
	BUILD=$(BUILD) RUNS=$(BENCH_STEADY_RUNS) COUNTS="$(BENCH_STEADY_COUNTS)" \
	  SAMPLE=$(BENCH_STEADY_SAMPLE) NEIGHBOUR=$(BENCH_STEADY_NEIGHBOUR) \
	  WORKLOADS="$(BENCH_STEADY_WORKLOADS)" sh bench/steady-runs.sh

# ljleak diff: aggregation speed with -j 1 and -j 2 on a generated capture of
# BENCH_DIFF_SEGMENTS segments (kept in $(BUILD)/bench and reused).
BENCHES += bench-diff
BENCH_DIFF_SEGMENTS ?= 100
BENCH_DIFF_EVENTS_PER_SEGMENT ?= 500000
BENCH_DIFF_RUNS ?= 5

$(BUILD)/bench/diff-gen: bench/diff-gen.c $(call stage_archives,format container)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(call stage_archives,format container) $(LIBS_ALL)

.PHONY: bench-diff
bench-diff: $(BUILD)/ljleak $(BUILD)/bench/diff-gen $(BUILD)/bench/run_timed $(BUILD)/bench/read_limit
	BUILD=$(BUILD) SEGMENTS=$(BENCH_DIFF_SEGMENTS) PER=$(BENCH_DIFF_EVENTS_PER_SEGMENT) \
	  RUNS=$(BENCH_DIFF_RUNS) sh bench/diff.sh

# The same capture with a stack sidecar per segment: what following stacks costs.
BENCHES += bench-diff-stacks
$(BUILD)/bench/stacks-gen: bench/stacks-gen.c $(call stage_archives,format container)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(call stage_archives,format container) $(LIBS_ALL)

.PHONY: bench-diff-stacks
bench-diff-stacks: $(BUILD)/ljleak $(BUILD)/bench/diff-gen $(BUILD)/bench/stacks-gen $(BUILD)/bench/run_timed \
  $(BUILD)/bench/read_limit
	BUILD=$(BUILD) SEGMENTS=$(BENCH_DIFF_SEGMENTS) PER=$(BENCH_DIFF_EVENTS_PER_SEGMENT) \
	  RUNS=$(BENCH_DIFF_RUNS) STACKS=1 sh bench/diff.sh

# ljleak diff: judging about 2,800 sites over about 500 boundaries of a sampled capture
# (bench/many_sites.lua); BENCH_DIFF_SITES_BEFORE=PATH judges it with that ljleak too.
BENCHES += bench-diff-sites
BENCH_DIFF_SITES_RUNS ?= 5
BENCH_DIFF_SITES_BEFORE ?=

.PHONY: bench-diff-sites
bench-diff-sites: $(BUILD)/ljleak $(COLLECTOR_SO)
	BUILD=$(BUILD) RUNS=$(BENCH_DIFF_SITES_RUNS) BEFORE=$(BENCH_DIFF_SITES_BEFORE) bash bench/diff-sites.sh

# ljleak summary: a synthetic stream generator and a timed runner.
BENCHES += bench-summary
BENCH_SUMMARY_EVENTS ?= 10000000
BENCH_SUMMARY_RUNS ?= 9

$(BUILD)/bench/gen_stream: bench/gen_stream.c $(call stage_archives,format container)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(call stage_archives,format container) $(LIBS_ALL)

$(BUILD)/bench/run_timed: bench/run_timed.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $<

.PHONY: bench-summary
bench-summary: $(BUILD)/ljleak $(BUILD)/bench/gen_stream $(BUILD)/bench/run_timed $(BUILD)/bench/read_limit
	BUILD=$(BUILD) EVENTS=$(BENCH_SUMMARY_EVENTS) RUNS=$(BENCH_SUMMARY_RUNS) sh bench/summary.sh

# The pause of a full GC cycle that the collector forces (edge_gc, --every,
# collector.boundary()), per 100 MB of live heap, without and with a capture.
BENCHES += bench-gc-pause
BENCH_GC_PAUSE_MB ?= 100 400
.PHONY: bench-gc-pause
bench-gc-pause: $(BUILD)/ljleak $(COLLECTOR_SO)
	@rm -rf $(BUILD)/bench/gc-pause && mkdir -p $(BUILD)/bench/gc-pause
	@echo "== full GC cycle pause per 100 MB of live heap (bench/gc_pause.lua)"
	@for mb in $(BENCH_GC_PAUSE_MB); do \
	  luajit bench/gc_pause.lua $$mb || exit 1; \
	  $(BUILD)/ljleak run -o $(BUILD)/bench/gc-pause/$$mb bench/gc_pause.lua $$mb || exit 1; \
	  $(BUILD)/ljleak run --sample 512k -o $(BUILD)/bench/gc-pause/$$mb-sampled bench/gc_pause.lua $$mb || exit 1; \
	done

# Heap snapshots: the pause per 100 MB of live heap beside a full GC cycle's on the same heap:
# of a snapshot of the middle of a run (ljleak run's default snapshots: its cycle in steps, the
# walk at its end; bench/snapshot_scheduled.lua, wall time, the longest stop the program sees,
# JIT on and off), and of an explicit collector.snapshot() (a full cycle and the walk in one
# stop; bench/snapshot_pause.lua, CPU time); and the bytes written per object with its
# references on the demo's service (testdata/demo/service.lua, the snapshots of ljleak run's
# default: one in the middle, one at the end). Targets: a scheduled snapshot's pause within one
# full cycle; the walk no slower than the full cycle; 32 bytes or fewer per object.
BENCHES += bench-snapshot
BENCH_SNAPSHOT_MB ?= 100
BENCH_SNAPSHOT_DEMO_SECONDS ?= 10
.PHONY: bench-snapshot
bench-snapshot: $(BUILD)/ljleak $(COLLECTOR_SO)
	@rm -rf $(BUILD)/bench/snapshot && mkdir -p $(BUILD)/bench/snapshot
	@echo "== a scheduled heap snapshot's pause per 100 MB of live heap (bench/snapshot_scheduled.lua)"
	@for mb in $(BENCH_SNAPSHOT_MB); do for jit in on off; do \
	  echo "JIT $$jit:"; \
	  $(BUILD)/ljleak run -j $$jit --snapshots 8 -o $(BUILD)/bench/snapshot/$$mb-scheduled-$$jit \
	    bench/snapshot_scheduled.lua $$mb || exit 1; \
	  echo "JIT $$jit, the snapshots' own stops (LJLEAK_VOLUME_BOUNDARIES=0: no cycle forced for the volume, each a full cycle in one stop, bench-boundaries):"; \
	  LJLEAK_VOLUME_BOUNDARIES=0 $(BUILD)/ljleak run -j $$jit --snapshots 8 -o $(BUILD)/bench/snapshot/$$mb-scheduled-$$jit-novolume \
	    bench/snapshot_scheduled.lua $$mb || exit 1; \
	done; done
	@echo "== an explicit collector.snapshot()'s pause per 100 MB of live heap (bench/snapshot_pause.lua)"
	@for mb in $(BENCH_SNAPSHOT_MB); do \
	  $(BUILD)/ljleak run --snapshots none -o $(BUILD)/bench/snapshot/$$mb bench/snapshot_pause.lua $$mb || exit 1; \
	done
	@echo "== heap snapshot bytes per object with its references, on the demo's service"
	@$(BUILD)/ljleak run -o $(BUILD)/bench/snapshot/demo --every 1M testdata/demo/service.lua \
	  $(BENCH_SNAPSHOT_DEMO_SECONDS) >/dev/null || exit 1
	@for f in $$($(BUILD)/ljleak info --get snapshot_files $(BUILD)/bench/snapshot/demo); do \
	  $(BUILD)/ljleak snapshot $(BUILD)/bench/snapshot/demo/$$f | head -1 | tr '\t' '\n' | \
	  awk -v file=$$f -v bytes=$$(wc -c < $(BUILD)/bench/snapshot/demo/$$f) -F= \
	    '$$1 == "objects" { n = $$2 } $$1 == "references" { r = $$2 } \
	     END { printf "%s: %d objects, %d references, %d bytes: %.1f bytes per object with its references\n", \
	       file, n, r, bytes, bytes / n }' || exit 1; \
	done

# nginx: the request rate of a Lua location of the test nginx without a
# capture, with a sampled and with a full one, and the forced cycles' cost
# on a growing heap (bench/nginx.sh; the packages as tests/e2e/nginx.sh).
BENCHES += bench-nginx
.PHONY: bench-nginx
bench-nginx: $(BUILD)/ljleak $(BUILD)/bench/nginx_client
	BUILD=$(BUILD) sh bench/nginx.sh

# ljleak merge: the time and peak memory of merging BENCH_MERGE_RESULTS diff
# results of a fleet (generated once by bench/merge-gen.c into $(BUILD)/bench),
# and of merging that merge again; the target is 10,000 results in 10 s and
# 500 MB or less.
BENCHES += bench-merge
BENCH_MERGE_RESULTS ?= 10000
BENCH_MERGE_RUNS ?= 3

$(BUILD)/bench/merge-gen: bench/merge-gen.c $(call stage_archives,report diff format container)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< \
	  $(call stage_archives,report diff format container) $(LIBS_ALL)

.PHONY: bench-merge
bench-merge: $(BUILD)/ljleak $(BUILD)/bench/merge-gen $(BUILD)/bench/run_timed
	BUILD=$(BUILD) RESULTS=$(BENCH_MERGE_RESULTS) RUNS=$(BENCH_MERGE_RUNS) sh bench/merge.sh

# The physical limit of reading a stream on this machine (decoding and one
# table update per event), printed beside the diff and summary figures.
$(BUILD)/bench/read_limit: bench/read_limit.c $(call stage_archives,format container)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(call stage_archives,format container) $(LIBS_ALL)

# One stream read by ljleak diff and ljleak summary beside the physical
# limit (bench/read_limit), and their bytes per live block on streams that
# end with millions of live blocks: two live counts at different points of
# the maps' growth cycles, and the worst of them.
BENCHES += bench-read
BENCH_READ_EVENTS ?= 10000000
BENCH_READ_LIVE ?= 3000000 2200000
BENCH_READ_RUNS ?= 5

.PHONY: bench-read
bench-read: $(BUILD)/ljleak $(BUILD)/bench/gen_stream $(BUILD)/bench/run_timed $(BUILD)/bench/read_limit
	BUILD=$(BUILD) EVENTS=$(BENCH_READ_EVENTS) LIVE="$(BENCH_READ_LIVE)" RUNS=$(BENCH_READ_RUNS) sh bench/read.sh

# The holder analysis (diff/holders.c) on a generated heap snapshot of a million objects: the
# time to read it and to find the paths and retained sizes (medians of BENCH_HOLDERS_ROUNDS runs, wall
# and CPU time), and the peak memory.
BENCHES += bench-holders
BENCH_HOLDERS_OBJECTS ?= 1000000
BENCH_HOLDERS_ROUNDS ?= 5
$(BUILD)/bench/holders: bench/holders.c $(call stage_archives,diff format container)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(call stage_archives,diff format container) $(LIBS_ALL)

.PHONY: bench-holders
bench-holders: $(BUILD)/bench/holders
	@echo "== holder analysis: a heap snapshot of $(BENCH_HOLDERS_OBJECTS) objects"
	$(BUILD)/bench/holders $(BUILD)/bench/holders.heap $(BENCH_HOLDERS_OBJECTS) $(BENCH_HOLDERS_ROUNDS)
	@rm -f $(BUILD)/bench/holders.heap

# ljleak diff with holders on a growing linked list of 100,000 and of 1,000,000 nodes
# (testdata/holders/chain.lua), against the same diff without the heap snapshot: the holder
# analysis is linear in objects and references (medians of BENCH_HOLDERS_CHAIN_RUNS pairs,
# wall and CPU time, and the ratios).
BENCHES += bench-holders-chain
BENCH_HOLDERS_CHAIN_NODES ?= 100000 1000000
BENCH_HOLDERS_CHAIN_RUNS ?= 5

.PHONY: bench-holders-chain
bench-holders-chain: $(BUILD)/ljleak $(COLLECTOR_SO)
	@echo "== holder analysis of a growing linked list (testdata/holders/chain.lua)"
	BUILD=$(BUILD) NODES="$(BENCH_HOLDERS_CHAIN_NODES)" RUNS=$(BENCH_HOLDERS_CHAIN_RUNS) bash bench/holders-chain.sh

# ljleak diff with holders and leak suspects on a capture of a heap of about 150 MB that grows
# (bench/holders_heap.lua), against the same diff without the heap snapshot: medians of
# BENCH_HOLDERS_HEAP_RUNS alternating pairs of wall, CPU and peak RSS, and their ratios (the
# target: 1.5x the time, 2x the memory); and the snapshot's reading alone (bench/snapshot_read),
# the part of that cost no analysis of the snapshot read whole avoids.
BENCHES += bench-holders-heap
BENCH_HOLDERS_HEAP_RECORDS ?= 250000
BENCH_HOLDERS_HEAP_RUNS ?= 5

$(BUILD)/bench/snapshot_read: bench/snapshot_read.c $(call stage_archives,format container)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(call stage_archives,format container) $(LIBS_ALL)

.PHONY: bench-holders-heap
bench-holders-heap: $(BUILD)/ljleak $(COLLECTOR_SO) $(BUILD)/bench/snapshot_read
	@echo "== holder analysis of a growing heap of about 150 MB (bench/holders_heap.lua)"
	BUILD=$(BUILD) RECORDS=$(BENCH_HOLDERS_HEAP_RECORDS) RUNS=$(BENCH_HOLDERS_HEAP_RUNS) bash bench/holders-heap.sh

# ljleak attach: the longest pause of a running luajit loop while it is attached to, beside gdb
# alone with and without the separate debug files, and no attach (bench/attach-pause.sh).
BENCHES += bench-attach
.PHONY: bench-attach
bench-attach: $(BUILD)/ljleak $(COLLECTOR_SO)
	BUILD=$(BUILD) sh bench/attach-pause.sh

# ljleak attach into an nginx worker: the slowest request under steady load with an attach and
# heap snapshot in the middle, beside a run without (bench/nginx-attach.sh).
BENCHES += bench-nginx-attach
.PHONY: bench-nginx-attach
bench-nginx-attach: $(BUILD)/ljleak $(BUILD)/bench/nginx_client
	BUILD=$(BUILD) sh bench/nginx-attach.sh
