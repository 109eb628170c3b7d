/* tests/test_format_encode.c: the inline event encoder (format/encode.h) against memprof_writer_event, byte for byte. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_run.h"
#include "format/encode.h"
#include "format/memprof.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* A value of random bit length, so every ULEB128 length is covered. */
static uint64_t any_value(void)
{
  unsigned bits = (unsigned)(next() % 65);
  return bits == 0 ? 0 : bits == 64 ? next() : next() & ((1ull << bits) - 1);
}

static int sink_null(void *context, const uint8_t *data, size_t size)
{
  (void)context;
  (void)data;
  (void)size;
  return 0;
}

/* Each encoder (plain, small, word: portable and, where the CPU has it,
 * pdep) writes every value as the format does, whatever its length, and
 * the boundaries of the fast paths. */
START_TEST(test_encode_uleb_matches_format_at_every_length)
{
  static const uint64_t edges[] = {0x7f, 0x80, 0x3fff, 0x4000, (1ull << 42) - 1, 1ull << 42,
                                   (1ull << 49) - 1, 1ull << 49, (1ull << 56) - 1, 1ull << 56,
                                   UINT64_MAX};
  for (int e = 0; e < 4; e++) {
    for (int i = 0; i < 200000; i++) {
      uint64_t v = i < 64                    ? (i == 0 ? 0 : (1ull << (i % 64)) - 1)
                   : i < 64 + (int)(sizeof edges / sizeof edges[0]) ? edges[i - 64]
                                             : any_value();
      uint8_t a[MEMPROF_ULEB128_MAX + 8], b[MEMPROF_ULEB128_MAX];
      memset(a, 0xa5, sizeof a);
      uint8_t *end = e == 0   ? memprof_encode_uleb(a, v)
                     : e == 1 ? memprof_encode_uleb_small(a, v)
                              : memprof_encode_uleb_word(a, v, e == 3 && memprof_cpu_fast_pext());
      size_t n = (size_t)(end - a);
      /* One check per value, not two assertions: Check reports each
       * assertion to its parent process, which took most of the run. */
      if (n != memprof_uleb128_encode(b, v) || memcmp(a, b, n) != 0)
        ck_abort_msg("encoder %d wrote %zu bytes for %#llx, not the format's", e, n,
                     (unsigned long long)v);
    }
  }
}
END_TEST

/* Every kind and source, fields of every length; the fields an event's
 * kind and source do not carry hold noise, which must not be written. */
START_TEST(test_encode_event_matches_writer_bytes)
{
  static uint8_t buf_a[1 << 16], buf_b[1 << 16];
  for (int round = 0; round < 40; round++) {
    struct memprof_writer a, b;
    memprof_writer_init(&a, buf_a, sizeof buf_a, sink_null, NULL);
    memprof_writer_init(&b, buf_b, sizeof buf_b, sink_null, NULL);
    for (int i = 0; i < 500; i++) {
      struct memprof_event e = {
        .kind = (enum memprof_event_kind)(1 + next() % 3),
        .source = (enum memprof_source)(1 + next() % 4),
        .location = any_value(),
        .line = any_value(),
        .old_address = any_value(),
        .old_size = any_value(),
        .new_address = any_value(),
        .new_size = any_value(),
      };
      ck_assert_int_eq(memprof_encode_event(&a, &e, round % 2 && memprof_cpu_fast_pext()), 0);
      ck_assert_int_eq(memprof_writer_event(&b, &e), 0);
    }
    ck_assert_uint_eq(a.used, b.used);
    ck_assert_uint_eq(a.bytes_written, b.bytes_written);
    ck_assert_int_eq(memcmp(buf_a, buf_b, a.used), 0);
  }
}
END_TEST

int main(void)
{
  Suite *s = suite_create("collector_encode");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_encode_uleb_matches_format_at_every_length);
  tcase_add_test(tc, test_encode_event_matches_writer_bytes);
  suite_add_tcase(s, tc);
  return check_run(s);
}
