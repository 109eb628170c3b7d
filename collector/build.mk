# collector/build.mk: the in-process collector (allocator hook, attribution, segments),
# its Lua module and its C API. It reads private LuaJIT state, so it compiles
# against the private headers of the installed LuaJIT (mk/luajit.mk): fetched
# with `apt-get source` (collector/luajit-src.sh) into $(BUILD)/luajit-src, or
# taken from LUAJIT_SRC=DIR (an unpacked LuaJIT source tree).
collector_SRCS := collector/addr_map.c collector/attach.c collector/attrib.c collector/boundary.c collector/callstack.c \
  collector/capture.c collector/capture_dir.c collector/frame.c collector/control.c collector/hook_full.c collector/hook_sampled.c collector/hook_slow.c \
  collector/layout.c collector/module.c collector/options.c collector/seg_out.c \
  collector/segments.c collector/snapshot.c collector/snapshot_objects.c collector/stub.c collector/symbols.c collector/cname.c collector/elf_symbols.c collector/trace_line.c \
  collector/trace_map.c collector/trace_map_find.c collector/trace_record.c collector/text.c collector/signal.c \
  collector/site.c collector/trace_log.c collector/index.c collector/state.c \
  collector/maps.c collector/state_scan.c collector/gc_steps.c collector/gc_full.c
# the values option's sidecar beside each heap snapshot (off by default: values can be secrets)
collector_SRCS += collector/snapshot_values.c
LUAJIT_SRCS += $(collector_SRCS)

# The private headers come from the same tree as the public ones
# (mk/luajit.mk). The build flags of Debian's packages (debian/rules adds no
# -D that changes the layout) are the defaults of lj_arch.h, GC64 on amd64.

# The Lua module: the collector, the format codec and the containers in one shared object
# whose Lua symbols come from the host process. It is never unloaded
# (-z nodelete): lua_close unloads C modules before it frees the last
# blocks through the hook.
COLLECTOR_SO = $(BUILD)/lua/ljleak/collector.so
ALL_TARGETS += $(COLLECTOR_SO)
$(COLLECTOR_SO): $(collector_SRCS:%.c=$(BUILD)/%.o) $(format_SRCS:%.c=$(BUILD)/%.o) \
  $(container_SRCS:%.c=$(BUILD)/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -shared -Wl,-z,nodelete -o $@ $^ $(SYSTEM_LIBS)

# Debian's luajit searches /usr/local/lib/lua/5.1 and, for /usr,
# /usr/lib/x86_64-linux-gnu/lua/5.1.
LUA_CMOD_DIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/x86_64-linux-gnu/lua/5.1,$(PREFIX)/lib/lua/5.1)
INSTALL_TARGETS += install-collector
.PHONY: install-collector
install-collector: $(COLLECTOR_SO)
	install -d $(DESTDIR)$(LUA_CMOD_DIR)/ljleak
	install -m 644 $(COLLECTOR_SO) $(DESTDIR)$(LUA_CMOD_DIR)/ljleak/collector.so
	install -d $(DESTDIR)$(PREFIX)/include
	install -m 644 collector/ljleak_collector.h $(DESTDIR)$(PREFIX)/include/ljleak_collector.h
# The collector's checks.
# ljleak run and the Lua module (they run $(BUILD)/ljleak and the module)
TEST_SUITES += test_collector
LUAJIT_SRCS += tests/test_collector.c
test_collector_LIBS = format container
$(BUILD)/tests/test_collector: | $(BUILD)/ljleak $(COLLECTOR_SO)
E2E_TESTS += tests/e2e/collector.sh
# testdata/jit: the same allocating lines with the JIT on as with -j off (a table)
E2E_TESTS += tests/e2e/jit-corpus.sh
# heap snapshots of a program whose holders are known, JIT on and off (also on the other LuaJIT)
E2E_TESTS += tests/e2e/snapshot.sh
# what collector.so and ljleak export (nm -D)
E2E_TESTS += tests/e2e/symbols.sh
# C functions by their Lua names (lua-cjson, lua-lpeg), ELF symbols, the
# runner's frame, in every output format (also on the other LuaJIT)
E2E_TESTS += tests/e2e/c-names.sh
# allocations of compiled code charged to their lines (ljleak run and the module)
TEST_SUITES += test_collector_jit
LUAJIT_SRCS += tests/test_collector_jit.c
test_collector_jit_LIBS = collector format container
$(BUILD)/tests/test_collector_jit: | $(BUILD)/ljleak $(COLLECTOR_SO)
# the VM's own allocations named (attrib.c): chunks compiled at their loading
# lines, the string table's site, VM sites in every segment
TEST_SUITES += test_collector_vm
test_collector_vm_LIBS = format container
$(BUILD)/tests/test_collector_vm: | $(BUILD)/ljleak $(COLLECTOR_SO)
# call stacks (collector/callstack.c): a helper's two callers with exact lines,
# JIT on and off, sampled, cut, gzip, a capture killed mid-run
TEST_SUITES += test_collector_stacks
test_collector_stacks_LIBS = format container
$(BUILD)/tests/test_collector_stacks: | $(BUILD)/ljleak $(COLLECTOR_SO)
# the snapshots of the middle of a run take their cycle in steps (gc_steps.c); a program's own
# hook and a GC it stops meanwhile are kept, JIT on and off
TEST_SUITES += test_collector_steps
test_collector_steps_LIBS = format container
$(BUILD)/tests/test_collector_steps: | $(BUILD)/ljleak $(COLLECTOR_SO)
# the C API, in this test program as in an embedding host
TEST_SUITES += test_collector_api
LUAJIT_SRCS += tests/test_collector_api.c
test_collector_api_LIBS = collector format container
# the collector's own full collections free what LuaJIT's full collection frees, from any GC phase
TEST_SUITES += test_collector_gc_full
LUAJIT_SRCS += tests/test_collector_gc_full.c
test_collector_gc_full_LIBS = collector format container
# heap snapshots: every allocator block is one object or part with its exact size (the stream,
# the snapshot and a tracking allocator agree), JIT on and off
TEST_SUITES += test_collector_snapshot
LUAJIT_SRCS += tests/test_collector_snapshot.c
test_collector_snapshot_LIBS = collector format container
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
# Its sources and the headers they include: the make below rebuilds what
# they changed (its own -MMD files know which objects), but only runs when
# one did.
$(NOGC64)/lua/ljleak/collector.so: $(NOGC64)/luajit/src/luajit $(collector_SRCS) $(format_SRCS) $(container_SRCS) \
  $(wildcard collector/*.h format/*.h container/*.h)
	$(MAKE) --no-print-directory BUILD=$(NOGC64) LUAJIT_SRC=$(NOGC64)/luajit SANITIZE= \
	  OPT="-O2 -g" CFLAGS=-DLUAJIT_DISABLE_GC64 $@
# It holds for Debian's LuaJIT; on OpenResty's the test is left out
# (tests/test_collector.c) and nothing is built for it.
ifneq ($(LUAJIT),luajit2)
$(BUILD)/tests/test_collector: | $(NOGC64)/lua/ljleak/collector.so
endif
# the index's held boundary lines (collector/index.h)
TEST_SUITES += test_collector_index
LUAJIT_SRCS += tests/test_collector_index.c
test_collector_index_LIBS = collector format container
# the sampling stub made at run time, against fake state
TEST_SUITES += test_collector_stub
LUAJIT_SRCS += tests/test_collector_stub.c
test_collector_stub_LIBS = collector
# the limits of the options (collector/options.c), their parsers, the
# start/stop signal, and starts past a limit (C API and start{}) refused
TEST_SUITES += test_collector_options
LUAJIT_SRCS += tests/test_collector_options.c
test_collector_options_LIBS = collector format container
$(BUILD)/tests/test_collector_options: | $(BUILD)/ljleak $(COLLECTOR_SO) $(BUILD)/tests/fault_io.so
# the LuaJIT built for: mk/deps.sh and mk/luajit.sh choose packages and never
# remove one (a fake dpkg-query, apt-get -s); a capture and a diff name it
# (run again on the other LuaJIT by make check-other-luajit)
E2E_TESTS += tests/e2e/luajit-deps.sh tests/e2e/luajit.sh
