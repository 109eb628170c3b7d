# collector/: the in-process collector (allocator hook, attribution, segments),
# its Lua module and its C API. It reads private LuaJIT state, so it compiles
# against the private headers of the installed LuaJIT: fetched with
# `apt-get source` (collector/luajit-src.sh) into $(BUILD)/luajit-src, or taken
# from LUAJIT_SRC=DIR (an unpacked LuaJIT source tree).
STAGES += collector
collector_SRCS := collector/addr_map.c collector/attrib.c collector/capture.c \
  collector/layout.c collector/module.c collector/options.c collector/seg_out.c \
  collector/stub.c

ifeq ($(LUAJIT_SRC),)
LUAJIT_SRC_DIR = $(BUILD)/luajit-src
LUAJIT_SRC_STAMP = $(BUILD)/luajit-src/.ljleak-version
$(LUAJIT_SRC_STAMP): collector/luajit-src.sh
	sh collector/luajit-src.sh $(BUILD)
else
LUAJIT_SRC_DIR = $(LUAJIT_SRC)
LUAJIT_SRC_STAMP = $(LUAJIT_SRC)/src/lj_obj.h
endif

# The private headers come first for the collector's own objects only; the
# build flags of Debian's package (debian/rules adds no -D that changes the
# layout) are the defaults of lj_arch.h, GC64 on amd64.
$(BUILD)/collector/%.o: CPPFLAGS += -isystem $(LUAJIT_SRC_DIR)/src
$(collector_SRCS:%.c=$(BUILD)/%.o): | $(LUAJIT_SRC_STAMP)

# The Lua module: the collector and the format codec in one shared object
# whose Lua symbols come from the host process. It is never unloaded
# (-z nodelete): lua_close unloads C modules before it frees the last
# blocks through the hook.
COLLECTOR_SO = $(BUILD)/lua/ljleak/collector.so
ALL_TARGETS += $(COLLECTOR_SO)
$(COLLECTOR_SO): $(collector_SRCS:%.c=$(BUILD)/%.o) $(format_SRCS:%.c=$(BUILD)/%.o)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -shared -Wl,-z,nodelete -o $@ $^ -lxxhash -lz -lm -ldl

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
