# report/fuzz.mk: the libFuzzer target of the JSON result reader (tests/fuzz/fuzz_report_json.c),
# seeded with the saved results of testdata/report/. `make fuzz` runs it for FUZZ_SECONDS.
FUZZERS += fuzz_report_json
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_REPORT_FLAGS = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -O1 -g
FUZZ_REPORT_SRCS = $(report_SRCS)

$(BUILD)/fuzz/fuzz_report_json: tests/fuzz/fuzz_report_json.c $(FUZZ_REPORT_SRCS) report/report.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS_ALL) -std=c11 $(WARNINGS) $(FUZZ_REPORT_FLAGS) -o $@ \
	  tests/fuzz/fuzz_report_json.c $(FUZZ_REPORT_SRCS) -lm

.PHONY: fuzz-fuzz_report_json
fuzz-fuzz_report_json: $(BUILD)/fuzz/fuzz_report_json
	@rm -rf $(BUILD)/fuzz/report-json-corpus && mkdir -p $(BUILD)/fuzz/report-json-corpus
	cp testdata/report/*.json $(BUILD)/fuzz/report-json-corpus/
	$(BUILD)/fuzz/fuzz_report_json -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/ \
	  $(BUILD)/fuzz/report-json-corpus
