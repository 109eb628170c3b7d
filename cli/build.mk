# cli/build.mk: the ljleak front end; one file per subcommand.
CLI_SRCS += cli/main.c cli/options.c cli/output.c cli/summary.c cli/run.c cli/diff.c cli/report.c
CLI_SRCS += cli/info.c
CLI_SRCS += cli/snapshot.c
CLI_SRCS += cli/control.c
CLI_SRCS += cli/merge.c
# ljleak attach: the collector loaded into a running process through gdb
CLI_SRCS += cli/attach.c cli/attach_gdb.c cli/attach_dir.c cli/attach_reader.c
# ljleak run runs LuaJIT in its own process
LUAJIT_SRCS += cli/run.c
# ljleak busted: busted's suite in ljleak run's process, with lua/ljleak/busted.lua built in
CLI_SRCS += cli/busted.c
LUAJIT_SRCS += cli/busted.c
BUSTED_LUA_H = $(BUILD)/gen/busted_lua.h
$(BUILD)/cli/busted.o: $(BUSTED_LUA_H)
$(BUSTED_LUA_H): lua/ljleak/busted.lua
	@mkdir -p $(dir $@)
	{ echo '/* generated from lua/ljleak/busted.lua by cli/build.mk */'; \
	  echo 'static const char busted_lua[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/  "/' -e 's/$$/\\n"/' $<; \
	  echo ';'; } > $@.tmp && mv $@.tmp $@
# ljleak busted on testdata/busted (also on the other LuaJIT)
E2E_TESTS += tests/e2e/busted.sh
# ljleak control against a running process that loaded the collector
E2E_TESTS += tests/e2e/control.sh
# ljleak attach: plain luajit processes captured through gdb, twice; refusals; no safe point
E2E_TESTS += tests/e2e/attach.sh
# ljleak attach into a worker of nginx (OpenResty's LuaJIT) that never loaded the collector, under load
E2E_TESTS += tests/e2e/nginx-attach.sh
# ljleak attach into a C host on this build's LuaJIT that calls into Lua per request, under load
E2E_TESTS += tests/e2e/host-attach.sh
$(BUILD)/tests/attach_host: tests/attach_host.c
	@mkdir -p $(dir $@)
	$(CC) -D_GNU_SOURCE $(LUAJIT_CFLAGS) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< $(LUAJIT_LIBS) -lm -ldl
