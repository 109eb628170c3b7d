# cli/build.mk: the ljleak front end; one file per subcommand.
CLI_SRCS += cli/main.c cli/options.c cli/output.c cli/summary.c cli/run.c cli/diff.c cli/report.c
CLI_SRCS += cli/info.c
