# diff/build.mk: the differential engine (aggregation, trends, comparisons); needs format.
diff_SRCS := diff/live_map.c diff/site_table.c diff/source.c diff/segment.c diff/aggregate.c \
  diff/aggregate_read.c diff/trend.c diff/trend_stats.c diff/trend_drops.c diff/model.c diff/result.c diff/compare.c diff/allow.c diff/stack_table.c \
  diff/segment_stacks.c diff/result_stacks.c diff/holders.c diff/holders_graph.c diff/holders_path.c \
  diff/holders_analyse.c diff/holders_join.c diff/holders_keys.c diff/holders_top.c diff/containers.c diff/survivors.c diff/suspects.c diff/suspects_group.c \
  diff/segment_piece.c
# the result model's JSON: its writer and its reader (docs/json-schema.md)
diff_SRCS += diff/result_json_write.c diff/result_json_read.c diff/json_fields.c
# --values: the suspects' strings and keys from the snapshots' values sidecars
diff_SRCS += diff/values.c
# ljleak busted: a verdict per test, each from its own capture
diff_SRCS += diff/tests.c

# the engine: aggregation and modes (tests/test_diff.c), trends (tests/test_diff_trend.c)
TEST_SUITES += test_diff test_diff_trend
test_diff_LIBS = diff format container
test_diff_trend_LIBS = diff format container
# boundary lines cut segments into pieces (tests/test_diff_boundary.c)
TEST_SUITES += test_diff_boundary
test_diff_boundary_LIBS = diff format container
# undecided sites, the outcome, the warm-up, deciding again (tests/test_diff_decide.c);
# the allow-list (tests/test_diff_allow.c)
TEST_SUITES += test_diff_decide test_diff_allow
test_diff_decide_LIBS = diff format container
test_diff_allow_LIBS = diff format container
# growth by call stack: stack sidecars, --by stack, base mode by stack (tests/test_diff_stacks.c)
TEST_SUITES += test_diff_stacks
test_diff_stacks_LIBS = diff format container
# the dominator tree on hand-built graphs, holder paths on a hand-built snapshot (tests/test_diff_holders.c)
TEST_SUITES += test_diff_holders
test_diff_holders_LIBS = diff format container
# leak suspects: growing sites grouped by the container that holds them, the VM's work by its
# stacks, kinds (tests/test_diff_suspects.c)
TEST_SUITES += test_diff_suspects
test_diff_suspects_LIBS = diff format container
# ljleak busted's verdict per test: each test's capture judged on its runs, budgets, the JIT's
# sites (tests/test_diff_tests.c)
TEST_SUITES += test_diff_tests
test_diff_tests_LIBS = diff format container
# the corpus of workloads with known answers, captured by ljleak run and diffed
E2E_TESTS += tests/e2e/diff-cli.sh tests/e2e/diff-corpus.sh
# holder paths and retained sizes of growing sites, from the capture's heap snapshot
E2E_TESTS += tests/e2e/holders.sh
# one leak, one finding: a real event bus's growing sites grouped into one leak suspect
E2E_TESTS += tests/e2e/suspects.sh
# --values: a capture's leaked strings and keys shown on request only, and never otherwise
E2E_TESTS += tests/e2e/values.sh
# every workload with no option at all, short and long: a leak never passes
E2E_TESTS += tests/e2e/diff-defaults.sh
# a string kept and appended to: flagged at forced boundaries, inconclusive (never a pass) at own ones
E2E_TESTS += tests/e2e/diff-append.sh
# two workloads for a minute each with no option: thousands of cycles, 512 boundaries judged
E2E_TESTS += tests/e2e/diff-long.sh
