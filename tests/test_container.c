/* tests/test_container.c: the generic containers (container/): array growth and its overflow checks, binary search by a key member. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "container/array.h"
#include "container/sorted.h"
#include "tests/check_run.h"

START_TEST(test_reserve_doubles_from_the_first_capacity_and_keeps_the_items)
{
  uint32_t *items = NULL;
  size_t capacity = 0;
  ck_assert_int_eq(array_reserve((void **)&items, &capacity, 1, sizeof *items), 0);
  ck_assert_uint_eq(capacity, ARRAY_FIRST_CAPACITY);
  for (uint32_t i = 0; i < 16; i++)
    items[i] = i * 7;
  ck_assert_int_eq(array_reserve((void **)&items, &capacity, 17, sizeof *items), 0);
  ck_assert_uint_eq(capacity, 32);
  ck_assert_int_eq(array_reserve((void **)&items, &capacity, 100, sizeof *items), 0);
  ck_assert_uint_eq(capacity, 128);  /* doubled until it holds them: 64, then 128 */
  for (uint32_t i = 0; i < 16; i++)
    ck_assert_uint_eq(items[i], i * 7);
  free(items);
}
END_TEST

START_TEST(test_reserve_within_the_capacity_keeps_the_array)
{
  uint64_t *items = NULL;
  size_t capacity = 0;
  ck_assert_int_eq(array_reserve((void **)&items, &capacity, 10, sizeof *items), 0);
  uint64_t *before = items;
  ck_assert_int_eq(array_reserve((void **)&items, &capacity, 16, sizeof *items), 0);
  ck_assert_ptr_eq(items, before);
  ck_assert_uint_eq(capacity, 16);
  ck_assert_int_eq(array_reserve((void **)&items, &capacity, 0, sizeof *items), 0);
  ck_assert_uint_eq(capacity, 16);
  free(items);
}
END_TEST

/* capacity * item_size past SIZE_MAX: refused before any allocation, the array as it was. */
START_TEST(test_grow_refuses_a_size_in_bytes_that_overflows)
{
  char *items = NULL;
  size_t capacity = 0;
  ck_assert_int_eq(array_reserve((void **)&items, &capacity, 16, 1), 0);
  char *before = items;
  size_t item_size = SIZE_MAX / 20;  /* 16 of them fit, 32 do not */
  ck_assert_int_eq(array_grow((void **)&items, &capacity, 17, item_size), -1);
  ck_assert_ptr_eq(items, before);
  ck_assert_uint_eq(capacity, 16);
  char *none = NULL;
  size_t none_capacity = 0;
  ck_assert_int_eq(array_grow((void **)&none, &none_capacity, 1, SIZE_MAX / 8), -1);
  ck_assert_ptr_null(none);
  ck_assert_uint_eq(none_capacity, 0);
  free(items);
}
END_TEST

/* A capacity that would wrap when doubled: refused, never a smaller array. */
START_TEST(test_grow_refuses_a_capacity_that_cannot_double)
{
  char *items = malloc(1);
  ck_assert_ptr_nonnull(items);
  size_t capacity = SIZE_MAX / 2 + 1;  /* claimed, never allocated: the check comes first */
  ck_assert_int_eq(array_grow((void **)&items, &capacity, capacity + 1, 1), -1);
  ck_assert_uint_eq(capacity, SIZE_MAX / 2 + 1);
  char *none = NULL;
  size_t none_capacity = 0;
  ck_assert_int_eq(array_grow((void **)&none, &none_capacity, SIZE_MAX, 1), -1);
  ck_assert_ptr_null(none);
  ck_assert_uint_eq(none_capacity, 0);
  free(items);
}
END_TEST

START_TEST(test_resize_is_exact_and_refuses_an_overflow)
{
  uint64_t *items = NULL;
  ck_assert_int_eq(array_resize((void **)&items, 3, sizeof *items), 0);
  items[0] = 1, items[1] = 2, items[2] = 3;
  ck_assert_int_eq(array_resize((void **)&items, 5, sizeof *items), 0);
  ck_assert_uint_eq(items[2], 3);
  uint64_t *before = items;
  ck_assert_int_eq(array_resize((void **)&items, SIZE_MAX / sizeof *items + 1, sizeof *items), -1);
  ck_assert_ptr_eq(items, before);
  ck_assert_uint_eq(items[0], 1);
  ck_assert_int_eq(array_resize((void **)&items, 0, sizeof *items), 0);  /* not a failure */
  ck_assert_ptr_nonnull(items);
  free(items);
}
END_TEST

/* Records sorted by a 4-byte and by an 8-byte key member: the first not below the key, or hi. */
START_TEST(test_lower_bound_finds_the_first_key_not_below)
{
  struct record {
    uint32_t narrow;
    uint64_t wide;
  } records[] = {{1, 10}, {3, 30}, {3, 30}, {7, UINT64_MAX}};
  size_t n = sizeof records / sizeof records[0];
  ck_assert_uint_eq(sorted_lower_bound(records, sizeof records[0], SORTED_KEY(struct record, narrow), 0, n, 0), 0);
  ck_assert_uint_eq(sorted_lower_bound(records, sizeof records[0], SORTED_KEY(struct record, narrow), 0, n, 3), 1);
  ck_assert_uint_eq(sorted_lower_bound(records, sizeof records[0], SORTED_KEY(struct record, narrow), 0, n, 4), 3);
  ck_assert_uint_eq(sorted_lower_bound(records, sizeof records[0], SORTED_KEY(struct record, narrow), 0, n, 8), n);
  ck_assert_uint_eq(sorted_lower_bound(records, sizeof records[0], SORTED_KEY(struct record, wide), 0, n, 30), 1);
  ck_assert_uint_eq(sorted_lower_bound(records, sizeof records[0], SORTED_KEY(struct record, wide), 0, n, UINT64_MAX),
                    3);
  ck_assert_uint_eq(sorted_lower_bound(records, sizeof records[0], SORTED_KEY(struct record, wide), 2, 3, 10), 2);
  ck_assert_uint_eq(sorted_lower_bound(records, sizeof records[0], SORTED_KEY(struct record, wide), 0, 0, 10), 0);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("container");
  TCase *array = tcase_create("array");
  tcase_add_test(array, test_reserve_doubles_from_the_first_capacity_and_keeps_the_items);
  tcase_add_test(array, test_reserve_within_the_capacity_keeps_the_array);
  tcase_add_test(array, test_grow_refuses_a_size_in_bytes_that_overflows);
  tcase_add_test(array, test_grow_refuses_a_capacity_that_cannot_double);
  tcase_add_test(array, test_resize_is_exact_and_refuses_an_overflow);
  suite_add_tcase(s, array);
  TCase *sorted = tcase_create("sorted");
  tcase_add_test(sorted, test_lower_bound_finds_the_first_key_not_below);
  suite_add_tcase(s, sorted);
  return check_run(s);
}
