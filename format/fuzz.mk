# format/: the libFuzzer target of the reader (tests/fuzz/fuzz_reader.c), built with
# clang's fuzzer and sanitizers straight from the format sources. `make fuzz` runs it
# for FUZZ_SECONDS on a copy of the seed corpus and fails if it finds a crash.
FUZZERS += fuzz_reader
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
# A 1 KiB reader window, so that refills and names longer than the window happen on small inputs.
FUZZ_FLAGS = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -O1 -g \
  -DMEMPROF_READER_WINDOW=1024
FUZZ_FORMAT_SRCS = $(wildcard format/*.c)

$(BUILD)/fuzz/fuzz_reader: tests/fuzz/fuzz_reader.c $(FUZZ_FORMAT_SRCS) format/memprof.h format/decode.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS_ALL) -std=c11 $(WARNINGS) $(FUZZ_FLAGS) -o $@ \
	  tests/fuzz/fuzz_reader.c $(FUZZ_FORMAT_SRCS) $(PKG_LIBS)

.PHONY: fuzz-fuzz_reader
fuzz-fuzz_reader: $(BUILD)/fuzz/fuzz_reader
	@rm -rf $(BUILD)/fuzz/reader-corpus && mkdir -p $(BUILD)/fuzz/reader-corpus
	cp tests/fuzz/corpus/reader/* $(BUILD)/fuzz/reader-corpus/
	$(BUILD)/fuzz/fuzz_reader -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/ \
	  $(BUILD)/fuzz/reader-corpus
