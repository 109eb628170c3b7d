# merge/build.mk: the merge stage (ljleak merge: a fleet's diff results in one) and its checks;
# it reads diff results with the model's reader (diff_result_read_json_value), merges with
# format's JSON parser and writer, and renders with report's pieces of text and escapers.
merge_SRCS := merge/merge.c merge/merge_read.c merge/merge_json.c merge/merge_text.c \
  merge/merge_html.c

# Associativity on generated results (any grouping gives the same figures and bytes),
# the figures themselves, labels, and bad input naming the file.
TEST_SUITES += test_merge
test_merge_LIBS = merge report diff format container

# ljleak merge end to end: labels from ljleak run and start{} to the merged report,
# exit codes, bad input.
E2E_TESTS += tests/e2e/merge.sh

# The merge input reader's libFuzzer target (tests/fuzz/fuzz_merge.c): any bytes are
# read as a diff result or a merge; what reads is finished, written as JSON and read
# again to the same bytes. Seeded with the saved results of testdata/report/ and
# the merges of testdata/merge/.
FUZZERS += fuzz_merge
fuzz_merge_STAGES = merge report diff format container
fuzz_merge_SEEDS = testdata/report/*.json testdata/merge/*.json
