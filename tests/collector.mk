# tests of collector/ and ljleak run (they run $(BUILD)/ljleak and the module)
TEST_SUITES += test_collector
test_collector_LIBS = format
$(BUILD)/tests/test_collector: | $(BUILD)/ljleak $(COLLECTOR_SO)
E2E_TESTS += tests/e2e/collector.sh
# the collector's inline encoder against format/writer.c
TEST_SUITES += test_collector_encode
test_collector_encode_LIBS = format
# the C API, in this test program as in an embedding host
TEST_SUITES += test_collector_api
test_collector_api_LIBS = collector format
# an LD_PRELOAD shim that fails write() or fsync() on one file with EIO
$(BUILD)/tests/fault_io.so: tests/fault_io.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -shared -o $@ $< -ldl
$(BUILD)/tests/test_collector: | $(BUILD)/tests/fault_io.so
