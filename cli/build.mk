# cli/build.mk: the ljleak front end; one file per subcommand.
CLI_SRCS += cli/main.c cli/options.c cli/output.c cli/summary.c cli/run.c cli/diff.c cli/report.c
CLI_SRCS += cli/info.c
CLI_SRCS += cli/snapshot.c
CLI_SRCS += cli/control.c
CLI_SRCS += cli/merge.c
# ljleak run runs LuaJIT in its own process
LUAJIT_SRCS += cli/run.c
# ljleak control against a running process that loaded the collector
E2E_TESTS += tests/e2e/control.sh
