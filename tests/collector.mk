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
# Debian's LuaJIT source built without GC64 (as Tarantool's streams were made)
# and the collector module built against it, for the byte-fidelity test. A
# plain build whatever SANITIZE is: the module loads into that luajit.
NOGC64 = $(BUILD)/nogc64
$(NOGC64)/luajit/src/luajit: $(LUAJIT_SRC_STAMP)
	@rm -rf $(NOGC64)/luajit && mkdir -p $(NOGC64)
	cp -a $(LUAJIT_SRC_DIR) $(NOGC64)/luajit
	$(MAKE) -C $(NOGC64)/luajit XCFLAGS=-DLUAJIT_DISABLE_GC64 > $(NOGC64)/luajit.log 2>&1 || \
	  { tail -n 20 $(NOGC64)/luajit.log; exit 1; }
$(NOGC64)/lua/ljleak/collector.so: $(NOGC64)/luajit/src/luajit $(collector_SRCS) $(format_SRCS)
	$(MAKE) --no-print-directory BUILD=$(NOGC64) LUAJIT_SRC=$(NOGC64)/luajit SANITIZE= \
	  OPT="-O2 -g" CFLAGS=-DLUAJIT_DISABLE_GC64 $@
$(BUILD)/tests/test_collector: | $(NOGC64)/lua/ljleak/collector.so
# the sampling stub made at run time, against fake state
TEST_SUITES += test_collector_stub
test_collector_stub_LIBS = collector
