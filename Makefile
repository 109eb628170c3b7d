# ljleak: build, test, benchmark, install. Each stage adds its sources and
# checks in its own build.mk; this file holds the shared rules.

SHELL := /bin/bash
CC ?= cc
PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
OPT ?= -O2 -g
SANITIZE ?=

# Debian packages, by what needs them. LUAJIT_DEPS are those of the LuaJIT
# the build is for (mk/luajit.mk): Debian's, or OpenResty's when installed.
DEPS_BUILD = $(LUAJIT_DEPS) libxxhash-dev zlib1g-dev pkg-config dpkg-dev
DEPS_CHECK = $(DEPS_BUILD) check valgrind clang libclang-rt-14-dev chromium golang-go lua-cjson lua-lpeg parallel gdb lua-busted

# PKG_CFLAGS, PKG_LIBS (xxhash, zlib), CHECK_CFLAGS, CHECK_LIBS and
# LUAJIT_PKG_LIBS: what pkg-config says, written once per make by the config
# step (below) into CONFIG_MK, after the packages are installed.
CONFIG_MK = $(BUILD)/config.mk

WARNINGS = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# LuaJIT's headers (LUAJIT_CFLAGS, mk/luajit.mk) only for the sources of
# LUAJIT_SRCS: in a recipe, $< is the source being compiled.
CPPFLAGS_ALL = -D_GNU_SOURCE -I. $(if $(filter $<,$(LUAJIT_SRCS)),$(LUAJIT_CFLAGS)) $(PKG_CFLAGS)
# Hidden by default: collector.so is loaded into other people's processes and
# exports only what collector/ljleak_collector.h marks LJLEAK_API.
CFLAGS_ALL = -std=c11 $(OPT) $(WARNINGS) $(SANITIZE) -fPIC -fvisibility=hidden -MMD -MP $(CFLAGS)
LDFLAGS_ALL = $(SANITIZE) $(LDFLAGS)
# What every program and the collector module link; programs add LuaJIT's
# library (the module takes LuaJIT's symbols from the process it loads into).
SYSTEM_LIBS = $(PKG_LIBS) -lm -lpthread -ldl
LIBS_ALL = $(LUAJIT_LIBS) $(SYSTEM_LIBS)

# The stages, each a folder and a library $(BUILD)/libNAME.a, in link order:
# a stage comes before the stages it uses. This is the only place the order is
# stated; every link line takes its archives in this order.
STAGES := collector merge report diff summary format container

# Every folder with a build.mk. Each one's build.mk lists, for a stage NAME,
# its library sources in NAME_SRCS, and beside them the stage's own Check
# suites, end-to-end scripts, fuzzers and benchmarks. A suite tests/T.c names
# the stages it links in T_LIBS, in any order.
BUILD_DIRS := container format diff summary report merge collector cli bench ci

CLI_SRCS :=        # the ljleak front end (cli/)
LUAJIT_SRCS :=     # the sources that include LuaJIT's headers: the collector's, and those that run LuaJIT
TEST_SUITES :=     # Check suites: tests/NAME.c becomes $(BUILD)/tests/NAME
E2E_TESTS :=       # end-to-end scripts run by make check, after the suites
BENCHES :=         # phony targets run by make bench
FUZZERS :=         # libFuzzer targets: tests/fuzz/NAME.c
ALL_TARGETS :=     # everything make builds beyond ljleak
INSTALL_TARGETS := # phony targets run by make install

.PHONY: all demo check check-layout check-suites check-sanitize check-valgrind check-e2e bench fuzz install clean \
        deps-build deps-check FORCE
all: $(BUILD)/ljleak

# The config step: every goal but those of CONFIG_FREE_GOALS runs it first,
# to its end, before anything compiles (even under -j): make reads CONFIG_MK,
# so it remakes it before any goal and then reads it again. It checks the
# Debian packages the goals need (mk/deps.sh: installs them as root, else
# prints the apt-get line and stops; the check packages for check*, fuzz*,
# a suite or a fuzzer), fetches the LuaJIT source (LUAJIT_SOURCE_STEP,
# mk/luajit.mk) and writes pkg-config's answers. It runs on every make, not
# on make's restart, and rewrites CONFIG_MK only when it changes (so make
# restarts only then: a fresh tree, a package installed).
CONFIG_FREE_GOALS := clean deps-build deps-check check-layout
CHECK_GOALS := check check-% fuzz fuzz-% $(BUILD)/tests/% $(BUILD)/fuzz/%
CONFIG_DEPS = $(if $(filter $(CHECK_GOALS),$(MAKECMDGOALS)),$(DEPS_CHECK),$(DEPS_BUILD))
$(CONFIG_MK): $(if $(MAKE_RESTARTS),,FORCE)
	@sh mk/deps.sh $(CONFIG_DEPS)
	@$(LUAJIT_SOURCE_STEP)
	@mkdir -p $(dir $(LUAJIT_IDENTITY_H))
	@sh mk/luajit.sh identity $(LUAJIT_SRC_DIR) > $(LUAJIT_IDENTITY_H).tmp && \
	  if cmp -s $(LUAJIT_IDENTITY_H).tmp $(LUAJIT_IDENTITY_H); then rm -f $(LUAJIT_IDENTITY_H).tmp; \
	  else mv $(LUAJIT_IDENTITY_H).tmp $(LUAJIT_IDENTITY_H); fi
	@sh mk/config.sh $(if $(LUAJIT_ROOT),,luajit) > $@.tmp && \
	  if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
FORCE:
ifneq ($(filter-out $(CONFIG_FREE_GOALS),$(or $(MAKECMDGOALS),all)),)
include $(CONFIG_MK)
endif

# Only the packages, nothing built (the config step checks them anyway).
deps-build:
	@sh mk/deps.sh $(DEPS_BUILD)
deps-check:
	@sh mk/deps.sh $(DEPS_CHECK)

# make fuzz: each libFuzzer target of FUZZERS runs for FUZZ_SECONDS on a fresh
# copy of its seeds, and fails on a crash. A stage's build.mk adds NAME
# (tests/fuzz/NAME.c) to FUZZERS and names, as a suite does, the stages it
# is built from in NAME_STAGES (any order), its seed files in NAME_SEEDS and
# any compile flags of its own in NAME_FLAGS. The fuzzer's objects, the
# harness's and those stages' sources (their NAME_SRCS), are compiled with
# FUZZ_CC and FUZZ_FLAGS into $(BUILD)/fuzz/NAME.objs/.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_FLAGS = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -O1 -g
define fuzz_build
$(1)_OBJS = $$(patsubst %.c,$(BUILD)/fuzz/$(1).objs/%.o,tests/fuzz/$(1).c \
  $$(foreach s,$$(filter $$($(1)_STAGES),$(STAGES)),$$($$(s)_SRCS)))
$(BUILD)/fuzz/$(1).objs/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(FUZZ_CC) $$(CPPFLAGS_ALL) -std=c11 $$(WARNINGS) $$(FUZZ_FLAGS) $$($(1)_FLAGS) -MMD -MP -c $$< -o $$@
-include $$(wildcard $$($(1)_OBJS:.o=.d))
$(BUILD)/fuzz/$(1): $$($(1)_OBJS)
	$$(FUZZ_CC) $$(FUZZ_FLAGS) -o $$@ $$($(1)_OBJS) $$(SYSTEM_LIBS)
.PHONY: fuzz-$(1)
fuzz-$(1): $(BUILD)/fuzz/$(1)
	@rm -rf $(BUILD)/fuzz/$(1)-corpus && mkdir -p $(BUILD)/fuzz/$(1)-corpus
	cp $$($(1)_SEEDS) $(BUILD)/fuzz/$(1)-corpus/
	$(BUILD)/fuzz/$(1) -max_total_time=$$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/ \
	  $(BUILD)/fuzz/$(1)-corpus
endef

# $(call check_suite,NAME,STAGES): the Check suite tests/NAME.c, linked with STAGES.
check_suite = $(eval TEST_SUITES += $(1))$(eval $(1)_LIBS = $(2))
# $(call fuzz_target,NAME,STAGES,SEEDS[,FLAGS]): the libFuzzer target tests/fuzz/NAME.c (above).
fuzz_target = $(eval FUZZERS += $(1))$(eval $(1)_STAGES = $(2))$(eval $(1)_SEEDS = $(3))$(eval $(1)_FLAGS = $(4))

# The archives of a list of stages, in link order. Defined before the
# build.mk files, whose prerequisites ($(call stage_archives,...)) expand as
# they are read.
stage_archives = $(patsubst %,$(BUILD)/lib%.a,$(filter $(1),$(STAGES)))

# The LuaJIT built for (LUAJIT, LUAJIT_SRC, LUAJIT_ROOT) and make other-luajit:
# the other one, unpacked privately, with ljleak and the collector built for
# it under $(BUILD)/other-luajit (paths and env.sh described in mk/luajit.mk).
include mk/luajit.mk
include $(BUILD_DIRS:%=%/build.mk)
# After every build.mk: a fuzzer's stages may list their sources in several.
$(foreach f,$(FUZZERS),$(eval $(call fuzz_build,$(f))))
# What compiles against LuaJIT's tree is rebuilt when the tree changes
# (LUAJIT_IDENTITY_H): -MMD does not follow -isystem headers.
$(LUAJIT_SRCS:%.c=$(BUILD)/%.o) $(patsubst %.c,$(BUILD)/%,$(filter tests/% bench/%,$(LUAJIT_SRCS))): \
  $(LUAJIT_IDENTITY_H)

all: $(ALL_TARGETS)

CLI_OBJS = $(CLI_SRCS:%.c=$(BUILD)/%.o)
STAGE_ARCHIVES = $(STAGES:%=$(BUILD)/lib%.a)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CPPFLAGS) $(CFLAGS_ALL) -c $< -o $@

define stage_archive
$(BUILD)/lib$(1).a: $$($(1)_SRCS:%.c=$(BUILD)/%.o)
	@rm -f $$@
	ar rcs $$@ $$^
endef
$(foreach s,$(STAGES),$(eval $(call stage_archive,$(s))))

$(BUILD)/ljleak: $(CLI_OBJS) $(STAGE_ARCHIVES)
	$(CC) $(LDFLAGS_ALL) -o $@ $(CLI_OBJS) $(STAGE_ARCHIVES) $(LIBS_ALL)

.SECONDEXPANSION:
$(BUILD)/tests/%: tests/%.c $$(call stage_archives,$$($$*_LIBS))
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CHECK_CFLAGS) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $< \
	  $(call stage_archives,$($*_LIBS)) $(CHECK_LIBS) $(LIBS_ALL)

# make check: the suites, the same suites under ASan+UBSan and under valgrind,
# the end-to-end scripts, then the collector's suites and a capture on the
# other LuaJIT (mk/luajit.mk); the last line totals every step.
CHECK_LOG = $(BUILD)/check.log
check: all
	@mkdir -p $(BUILD) && rm -f $(CHECK_LOG)
	@for step in check-layout check-suites check-sanitize check-valgrind check-e2e check-other-luajit; do \
	  $(MAKE) --no-print-directory $$step 2>&1 | tee -a $(CHECK_LOG); \
	  test $${PIPESTATUS[0]} -eq 0 || { sh mk/check-total.sh $(CHECK_LOG); exit 1; }; \
	done; sh mk/check-total.sh $(CHECK_LOG)

# No include cycle between the files of a stage: a file calls down, never back up
# (tests/layout-check.sh), in every stage.
LAYOUT_STAGES := collector format diff summary report merge cli container
check-layout:
	@BUILD=$(BUILD) sh tests/layout-check.sh $(LAYOUT_STAGES)

check-suites: $(TEST_SUITES:%=$(BUILD)/tests/%)
	@set -e; for t in $^; do echo "== $$t"; CK_FORK=yes $$t; done

SANITIZE_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
check-sanitize:
	$(MAKE) BUILD=$(BUILD)/sanitize OPT="-O1 -g" SANITIZE="$(SANITIZE_FLAGS)" check-suites

# Each suite under memcheck, two at a time; any error or definite leak fails.
VALGRIND = valgrind -q --error-exitcode=99 --leak-check=full \
  --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect
check-valgrind: $(TEST_SUITES:%=$(BUILD)/tests/%)
	@rm -rf $(BUILD)/valgrind
	@$(MAKE) --no-print-directory -j2 $(TEST_SUITES:%=$(BUILD)/valgrind/%.log)

$(BUILD)/valgrind/%.log: $(BUILD)/tests/%
	@mkdir -p $(dir $@)
	@if CK_FORK=no BUILD=$(BUILD) $(VALGRIND) $< > $@.tmp 2>&1; then \
	  echo "== valgrind $<"; tail -n 1 $@.tmp; mv $@.tmp $@; \
	else echo "== valgrind $< FAILED"; cat $@.tmp; rm -f $@.tmp; exit 1; fi

check-e2e: all
	@set -e; for t in $(E2E_TESTS); do echo "== $$t"; BUILD=$(BUILD) sh $$t; done

bench: all $(BENCHES)

fuzz: $(FUZZERS:%=fuzz-%)

install: all $(INSTALL_TARGETS)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/ljleak $(DESTDIR)$(PREFIX)/bin/ljleak

clean:
	rm -rf $(BUILD)

-include $(wildcard $(BUILD)/*/*.d $(BUILD)/*/*/*.d)

# make demo: the main job end to end (mk/demo.sh says what it runs).
demo: all
	BUILD=$(BUILD) sh mk/demo.sh
