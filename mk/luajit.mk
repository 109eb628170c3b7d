# mk/luajit.mk: which LuaJIT ljleak is built for, and where its headers and
# library come from (included by the Makefile before the stages' build.mk).
#
# LUAJIT names it by its Debian source package: luajit (Debian's LuaJIT,
# library package libluajit-5.1-2) or luajit2 (OpenResty's fork,
# libluajit2-5.1-2, which conflicts with Debian's). By default it is the one
# whose library is installed (mk/luajit.sh installed). Its source, fetched by
# collector/luajit-src.sh at the installed version, gives the sources of
# LUAJIT_SRCS (the collector's, and those that run LuaJIT; no other stage
# sees them) its headers: the collector its private ones, and all of them its
# public ones (the very files the -dev package installs), so both come from
# one tree.
# LUAJIT_SRC=DIR takes an unpacked source tree instead. LUAJIT_ROOT=DIR links
# against the library of a `dpkg -x` tree (make other-luajit) and fetches the
# source of the version unpacked there. One build directory per LuaJIT.
ifeq ($(origin LUAJIT),undefined)
LUAJIT := $(shell sh mk/luajit.sh installed)
else ifeq ($(filter luajit luajit2,$(LUAJIT)),)
$(error LUAJIT=$(LUAJIT): name the LuaJIT by its Debian source package, luajit or luajit2)
endif
LUAJIT_ROOT ?=
# The packages to install: none with LUAJIT_ROOT, whose LuaJIT is unpacked
# privately (it would conflict with the installed one).
LUAJIT_DEPS = $(if $(LUAJIT_ROOT),,$(if $(filter luajit2,$(LUAJIT)),luajit2 libluajit2-5.1-dev,luajit libluajit-5.1-dev))

# LUAJIT_SOURCE_STEP, a command of the config step (Makefile): the tree
# is fetched (collector/luajit-src.sh returns at once when it is the wanted
# one, and fetches it again when the installed version or LUAJIT changed),
# or LUAJIT_SRC is checked. LUAJIT_SRC_STAMP exists after it.
ifeq ($(LUAJIT_SRC),)
LUAJIT_SRC_DIR = $(BUILD)/luajit-src
LUAJIT_SRC_STAMP = $(BUILD)/luajit-src/.ljleak-version
LUAJIT_SOURCE_STEP = sh collector/luajit-src.sh $(BUILD) $(LUAJIT) \
  $(if $(LUAJIT_ROOT),"$$(sed 's/^[^=]*=//' $(LUAJIT_ROOT)/.ljleak-version)")
else
LUAJIT_SRC_DIR = $(LUAJIT_SRC)
LUAJIT_SRC_STAMP = $(LUAJIT_SRC)/src/lj_obj.h
LUAJIT_SOURCE_STEP = test -f $(LUAJIT_SRC_STAMP) || \
  { echo "ljleak: LUAJIT_SRC=$(LUAJIT_SRC) has no src/lj_obj.h: not a LuaJIT source tree" >&2; exit 1; }
endif

# What the collector names as the LuaJIT it was built for (collector/layout.c),
# written by the config step, only when it changes. What is compiled from
# LUAJIT_SRCS depends on it (Makefile): the tree's headers come in with
# -isystem, which -MMD does not track, so a new tree rebuilds those through
# this file.
LUAJIT_IDENTITY_H = $(BUILD)/gen/luajit_identity.h

LUAJIT_CFLAGS = -isystem $(LUAJIT_SRC_DIR)/src -I$(BUILD)/gen
LUAJIT_LIBDIR = $(if $(LUAJIT_ROOT),$(patsubst %/,%,$(dir $(firstword $(wildcard $(LUAJIT_ROOT)/usr/lib/*/libluajit-5.1.so)))))
LUAJIT_LIBS = $(if $(LUAJIT_ROOT),-L$(LUAJIT_LIBDIR) -lluajit-5.1,$(LUAJIT_PKG_LIBS))

# make other-luajit: the LuaJIT this build is not for (OpenResty's luajit2
# when it is for Debian's luajit, and the reverse), unpacked privately from
# its Debian packages (apt-get download + dpkg -x, never installed), with
# ljleak and the collector module built for it. Stable paths:
#   $(BUILD)/other-luajit/root/    the dpkg -x tree: usr/bin/luajit,
#       usr/lib/<multiarch>/libluajit-5.1.so.2, usr/include/luajit-2.1/,
#       usr/share/luajit-2.1.0-beta3/jit/; root/.ljleak-version is SOURCE=VERSION
#   $(BUILD)/other-luajit/ljleak   linked against root's library
#   $(BUILD)/other-luajit/lua/ljleak/collector.so
#   $(BUILD)/other-luajit/env.sh   sourced: LD_LIBRARY_PATH (root's library),
#       PATH (root's luajit and this ljleak first), LUA_PATH (root's jit.*
#       modules), LUA_CPATH (this collector module), LJLEAK_LUAJIT_ROOT
OTHER_LUAJIT = $(if $(filter luajit2,$(LUAJIT)),luajit,luajit2)
OTHER_LUAJIT_DIR = $(BUILD)/other-luajit
OTHER_LUAJIT_MAKE = $(MAKE) --no-print-directory BUILD=$(OTHER_LUAJIT_DIR) LUAJIT=$(OTHER_LUAJIT) \
  LUAJIT_ROOT=$(abspath $(OTHER_LUAJIT_DIR))/root LUAJIT_SRC= SANITIZE= OPT="$(OPT)"
.PHONY: other-luajit
other-luajit:
	@sh mk/luajit.sh unpack $(OTHER_LUAJIT_DIR) $(OTHER_LUAJIT)
	@$(OTHER_LUAJIT_MAKE) -j2 $(OTHER_LUAJIT_DIR)/ljleak $(OTHER_LUAJIT_DIR)/lua/ljleak/collector.so

# make check-other-luajit (a step of make check): on that other LuaJIT, the
# collector's suites that run a VM (the module in luajit and ljleak run, its
# JIT attribution, the call stacks it records, the VM's own sites, the C API in a host program, heap
# snapshots' sizes against its allocator, the collector's own full
# collections; the other suites do not touch LuaJIT), tests/e2e/luajit.sh (a leaking workload's
# capture and diff, and each build's collector refusing the other's VM),
# collector.sh, c-names.sh (C functions named through that VM's tables)
# snapshot.sh (heap snapshots of that VM), holders.sh (their holders) and
# values.sh (their values sidecars) and busted.sh (ljleak busted on a busted suite).
# Run from env.sh.
OTHER_LUAJIT_SUITES = test_collector test_collector_jit test_collector_stacks test_collector_vm test_collector_api test_collector_snapshot test_collector_steps \
  test_collector_gc_full
OTHER_LUAJIT_E2E = tests/e2e/luajit.sh tests/e2e/collector.sh tests/e2e/c-names.sh tests/e2e/snapshot.sh tests/e2e/holders.sh tests/e2e/values.sh tests/e2e/busted.sh
.PHONY: check-other-luajit
check-other-luajit: other-luajit $(BUILD)/lua/ljleak/collector.so
	@$(OTHER_LUAJIT_MAKE) -j2 $(OTHER_LUAJIT_SUITES:%=$(OTHER_LUAJIT_DIR)/tests/%) >/dev/null
	@set -e; host_luajit=$$(command -v luajit); . $(OTHER_LUAJIT_DIR)/env.sh; \
	for t in $(OTHER_LUAJIT_SUITES); do \
	  echo "== $(OTHER_LUAJIT) $(OTHER_LUAJIT_DIR)/tests/$$t"; \
	  CK_FORK=yes BUILD=$(OTHER_LUAJIT_DIR) $(OTHER_LUAJIT_DIR)/tests/$$t; done; \
	for t in $(OTHER_LUAJIT_E2E); do echo "== $(OTHER_LUAJIT) $$t"; \
	  BUILD=$(OTHER_LUAJIT_DIR) CROSS_BUILD=$(abspath $(BUILD)) CROSS_LUAJIT=$$host_luajit sh $$t; done
