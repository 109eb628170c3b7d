/* tests/test_uleb128.c: ULEB128 encoding and decoding at every length and edge. */
#include <check.h>
#include <stdlib.h>

#include "tests/check_run.h"
#include "format/memprof.h"

START_TEST(test_uleb128_round_trips_boundaries)
{
  static const uint64_t values[] = {0, 1, 127, 128, 16383, 16384, UINT32_MAX,
                                    (uint64_t)1 << 63, UINT64_MAX};
  static const size_t lengths[] = {1, 1, 1, 2, 2, 3, 5, 10, 10};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    uint8_t buf[MEMPROF_ULEB128_MAX];
    uint64_t back = 0;
    size_t n = memprof_uleb128_encode(buf, values[i]);
    ck_assert_uint_eq(n, lengths[i]);
    ck_assert_int_eq(memprof_uleb128_decode(buf, n, &back), (int)n);
    ck_assert_uint_eq(back, values[i]);
    ck_assert_int_eq(memprof_uleb128_decode(buf, n - 1, &back), 0);
  }
}
END_TEST

START_TEST(test_uleb128_rejects_overlong_and_overflow)
{
  uint8_t overlong[11] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
  uint8_t overflow[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
  uint64_t v;
  ck_assert_int_eq(memprof_uleb128_decode(overlong, sizeof overlong, &v), -1);
  ck_assert_int_eq(memprof_uleb128_decode(overflow, sizeof overflow, &v), -1);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("uleb128");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_uleb128_round_trips_boundaries);
  tcase_add_test(tc, test_uleb128_rejects_overlong_and_overflow);
  suite_add_tcase(s, tc);
  return check_run(s);
}
