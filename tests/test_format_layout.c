/* tests/test_format_layout.c: the names of a capture directory's files (format/capture_layout.h). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_run.h"
#include "format/capture_layout.h"

START_TEST(test_segment_and_part_names)
{
  char out[CAPTURE_LAYOUT_NAME_MAX];
  ck_assert_uint_eq(capture_layout_segment_name(1, 0, out, sizeof out), 16);
  ck_assert_str_eq(out, "seg-0001.memprof");
  ck_assert_uint_eq(capture_layout_segment_name(12345, 1, out, sizeof out), 20);
  ck_assert_str_eq(out, "seg-12345.memprof.gz");
  ck_assert_uint_gt(capture_layout_segment_name(UINT64_MAX, 1, out, sizeof out), 0);
  ck_assert_uint_eq(capture_layout_segment_name(1, 0, out, 16), 0);   /* no room for the NUL */
  ck_assert_uint_eq(capture_layout_part_name("seg-0002.memprof.gz", out, sizeof out), 24);
  ck_assert_str_eq(out, "seg-0002.memprof.gz.part");
}
END_TEST

START_TEST(test_snapshot_name_of_a_boundary)
{
  char out[64];
  ck_assert_uint_eq(capture_layout_snapshot_name(3, out, sizeof out), 14);
  ck_assert_str_eq(out, "snap-0003.heap");
  ck_assert_uint_eq(capture_layout_snapshot_name(123456, out, sizeof out), 16);
  ck_assert_str_eq(out, "snap-123456.heap");
  ck_assert_uint_eq(capture_layout_snapshot_name(3, out, 14), 0);  /* no room for the NUL */
}
END_TEST

START_TEST(test_sidecar_name_of_a_segment)
{
  char out[64];
  ck_assert_uint_eq(capture_layout_sidecar_name("d/seg-0001.memprof", out, sizeof out), 17);
  ck_assert_str_eq(out, "d/seg-0001.stacks");
  ck_assert_uint_gt(capture_layout_sidecar_name("seg-0002.memprof.gz", out, sizeof out), 0);
  ck_assert_str_eq(out, "seg-0002.stacks.gz");
  ck_assert_uint_gt(capture_layout_sidecar_name("seg-0003.memprof.gz.part", out, sizeof out), 0);
  ck_assert_str_eq(out, "seg-0003.stacks.gz.part");
  ck_assert_uint_gt(capture_layout_sidecar_name("seg-0004.memprof.part", out, sizeof out), 0);
  ck_assert_str_eq(out, "seg-0004.stacks.part");
  ck_assert_uint_eq(capture_layout_sidecar_name("seg-0001.txt", out, sizeof out), 0);
  ck_assert_uint_eq(capture_layout_sidecar_name(".part", out, sizeof out), 0);
  ck_assert_uint_eq(capture_layout_sidecar_name("d/seg-0001.memprof", out, 17), 0);
}
END_TEST

/* What a reader takes for a segment: the collector's names, Tarantool's
 * *.bin, any *.memprof or *.gz; a .part that is no sidecar is the segment
 * being written; sidecars, the index and anything else are not segments. */
START_TEST(test_values_name_of_a_snapshot)
{
  char out[64];
  ck_assert_uint_eq(capture_layout_values_name("snap-0003.heap", out, sizeof out), 16);
  ck_assert_str_eq(out, "snap-0003.values");
  ck_assert_uint_gt(capture_layout_values_name("cap/snap-0003.heap.part", out, sizeof out), 0);
  ck_assert_str_eq(out, "cap/snap-0003.values.part");
  ck_assert_uint_eq(capture_layout_values_name("seg-0001.memprof", out, sizeof out), 0);
  ck_assert_uint_eq(capture_layout_values_name(".heap", out, sizeof out), 0);
  ck_assert_uint_eq(capture_layout_values_name("snap-0003.heap", out, 16), 0);  /* no room for the NUL */
}
END_TEST

START_TEST(test_names_are_classified)
{
  static const struct {
    const char *name;
    enum capture_layout_kind kind;
  } cases[] = {
    {"seg-0001.memprof", CAPTURE_LAYOUT_SEGMENT},
    {"seg-0001.memprof.gz", CAPTURE_LAYOUT_SEGMENT},
    {"memprof.bin", CAPTURE_LAYOUT_SEGMENT},
    {"old.gz", CAPTURE_LAYOUT_SEGMENT},
    {"seg-0002.memprof.part", CAPTURE_LAYOUT_SEGMENT_PART},
    {"seg-0002.memprof.gz.part", CAPTURE_LAYOUT_SEGMENT_PART},
    {"seg-0001.stacks", CAPTURE_LAYOUT_SIDECAR},
    {"seg-0001.stacks.gz", CAPTURE_LAYOUT_SIDECAR},
    {"seg-0002.stacks.part", CAPTURE_LAYOUT_SIDECAR},
    {"seg-0002.stacks.gz.part", CAPTURE_LAYOUT_SIDECAR},
    {"snap-0003.heap", CAPTURE_LAYOUT_SNAPSHOT},
    {"snap-0003.heap.part", CAPTURE_LAYOUT_SNAPSHOT},
    {"snap-0003.values", CAPTURE_LAYOUT_VALUES},
    {"snap-0003.values.part", CAPTURE_LAYOUT_VALUES},
    {"index", CAPTURE_LAYOUT_OTHER},
    {"report.html", CAPTURE_LAYOUT_OTHER},
    {".memprof", CAPTURE_LAYOUT_OTHER},
    {".gz", CAPTURE_LAYOUT_OTHER},
    {".part", CAPTURE_LAYOUT_OTHER},
    {".stacks", CAPTURE_LAYOUT_OTHER},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    ck_assert_msg(capture_layout_classify(cases[i].name) == cases[i].kind, "%s", cases[i].name);
}
END_TEST

START_TEST(test_join_puts_one_slash)
{
  char out[32];
  ck_assert_uint_eq(capture_layout_join("cap", CAPTURE_LAYOUT_INDEX, out, sizeof out), 9);
  ck_assert_str_eq(out, "cap/index");
  ck_assert_uint_eq(capture_layout_join("cap/", "index", out, sizeof out), 9);
  ck_assert_str_eq(out, "cap/index");
  ck_assert_uint_eq(capture_layout_join("cap", "index", out, 9), 0);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("format_layout");
  TCase *tc = tcase_create("names");
  tcase_add_test(tc, test_segment_and_part_names);
  tcase_add_test(tc, test_sidecar_name_of_a_segment);
  tcase_add_test(tc, test_snapshot_name_of_a_boundary);
  tcase_add_test(tc, test_values_name_of_a_snapshot);
  tcase_add_test(tc, test_names_are_classified);
  tcase_add_test(tc, test_join_puts_one_slash);
  suite_add_tcase(s, tc);
  return check_run(s);
}
