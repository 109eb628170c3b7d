/* tests/test_collector_encode.c: the collector's inline encoder writes what the format writer writes. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_run.h"
#include "collector/encode.h"
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

START_TEST(test_encode_uleb_matches_format_at_every_length)
{
  for (int i = 0; i < 200000; i++) {
    uint64_t v = i < 64 ? (i == 0 ? 0 : (1ull << (i % 64)) - 1) : any_value();
    uint8_t a[MEMPROF_ULEB128_MAX + 8], b[MEMPROF_ULEB128_MAX];
    size_t n = (size_t)(encode_uleb(a, v) - a);
    ck_assert_uint_eq(n, memprof_uleb128_encode(b, v));
    ck_assert_int_eq(memcmp(a, b, n), 0);
  }
}
END_TEST

START_TEST(test_encode_event_matches_writer_bytes)
{
  static uint8_t buf_a[1 << 16], buf_b[1 << 16];
  struct memprof_writer a, b;
  memprof_writer_init(&a, buf_a, sizeof buf_a, sink_null, NULL);
  memprof_writer_init(&b, buf_b, sizeof buf_b, sink_null, NULL);
  for (int i = 0; i < 500; i++) {
    struct memprof_event e = {
      .kind = (enum memprof_event_kind)(1 + next() % 3),
      .source = (enum memprof_source)(1 + next() % 4),
    };
    e.location = e.source == MEMPROF_SOURCE_INTERNAL ? 0 : any_value();
    e.line = e.source == MEMPROF_SOURCE_LUA ? any_value() : 0;
    if (e.kind != MEMPROF_EVENT_ALLOC) {
      e.old_address = any_value();
      e.old_size = any_value();
    }
    if (e.kind != MEMPROF_EVENT_FREE) {
      e.new_address = any_value();
      e.new_size = any_value();
    }
    ck_assert_int_eq(encode_event(&a, &e), 0);
    ck_assert_int_eq(memprof_writer_event(&b, &e), 0);
  }
  ck_assert_uint_eq(a.used, b.used);
  ck_assert_uint_eq(a.bytes_written, b.bytes_written);
  ck_assert_int_eq(memcmp(buf_a, buf_b, a.used), 0);
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
