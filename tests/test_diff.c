/* tests/test_diff.c: the engine's aggregation: live map across segments, realloc, collisions, sampling, cut segments, modes. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check_run.h"
#include "diff/aggregate.h"
#include "diff/source.h"
#include "diff/diff.h"
#include "diff/live_map.h"
#include "diff/sampling.h"
#include "diff/site_table.h"
#include "tests/diff_fixture.h"

static char dir[512];

static void setup(void)
{
  fixture_directory(dir, sizeof dir, "diff");
}

static void teardown(void)
{
  fixture_remove(dir);
}

static void segment_file(char *out, size_t size, int number)
{
  snprintf(out, size, "%s/seg-%04d.memprof", dir, number);
}

/* Starts writing segment number of the capture in dir. */
static void begin_segment(struct fixture_segment *s, int number)
{
  char path[600];
  segment_file(path, sizeof path, number);
  fixture_begin(s, path);
}

/* Runs diff_trend over dir with default options; min_boundaries 1 asks for no more
 * boundaries than the p-value needs (diff_boundaries_needed). */
static void run_trend(struct diff_result *result, int jobs)
{
  struct diff_options options;
  diff_options_default(&options);
  options.min_boundaries = 1;
  options.jobs = jobs;
  struct format_error err;
  const char *paths[1] = {dir};
  ck_assert_int_eq(diff_trend(paths, 1, &options, result, &err), FORMAT_OK);
}

static const struct diff_site *find_site(const struct diff_result *result, const char *name)
{
  for (size_t i = 0; i < result->site_count; i++)
    if (!strcmp(result->sites[i].name, name))
      return &result->sites[i];
  ck_abort_msg("no site %s", name);
  return NULL;
}

static void assert_series(const uint64_t *series, size_t count, const uint64_t *expected, size_t n)
{
  ck_assert_uint_eq(count, n);
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(series[i] == expected[i], "boundary %zu: %llu, want %llu", i + 1,
                  (unsigned long long)series[i], (unsigned long long)expected[i]);
}

START_TEST(test_block_born_in_segment_1_and_freed_in_3_is_charged_until_3)
{
  struct fixture_segment s;
  begin_segment(&s, 1);
  fixture_alloc(&s, 10, 0xa000, 100);
  fixture_end(&s, 0);
  begin_segment(&s, 2);
  fixture_alloc(&s, 20, 0xb000, 8);
  fixture_end(&s, 0);
  begin_segment(&s, 3);
  fixture_free(&s, 30, 0xa000, 100);
  fixture_end(&s, 0);

  struct diff_result result;
  run_trend(&result, 1);
  ck_assert_uint_eq(result.capture.boundary_count, 3);
  ck_assert_uint_eq(result.capture.events, 3);
  const struct diff_site *site = find_site(&result, "@t.lua:10");
  assert_series(site->live_bytes, site->count, (const uint64_t[]){100, 100, 0}, 3);
  assert_series(site->live_blocks, site->count, (const uint64_t[]){1, 1, 0}, 3);
  assert_series(site->alloc_bytes, site->count, (const uint64_t[]){100, 0, 0}, 3);
  assert_series(site->free_bytes, site->count, (const uint64_t[]){0, 0, 100}, 3);
  ck_assert_uint_eq(site->allocs, 1);
  ck_assert_uint_eq(site->frees, 1);
  /* the freeing line made nothing: it is not charged */
  const struct diff_site *freer = NULL;
  for (size_t i = 0; i < result.site_count; i++)
    if (!strcmp(result.sites[i].name, "@t.lua:30"))
      freer = &result.sites[i];
  ck_assert_ptr_null(freer);
  const struct diff_site *later = find_site(&result, "@t.lua:20");
  assert_series(later->live_bytes, later->count, (const uint64_t[]){0, 8, 8}, 3);
  diff_result_free(&result);
}
END_TEST

START_TEST(test_free_of_unknown_address_is_ignored)
{
  struct fixture_segment s;
  begin_segment(&s, 1);
  fixture_free(&s, 10, 0xdead0, 64);          /* made before the capture */
  fixture_realloc(&s, 11, 0xbeef0, 32, 0xc000, 48);  /* the old half is unknown too */
  fixture_alloc(&s, 12, 0xd000, 16);
  fixture_end(&s, 0);

  struct diff_result result;
  run_trend(&result, 1);
  ck_assert_uint_eq(result.site_count, 2);
  const struct diff_site *realloc_site = find_site(&result, "@t.lua:11");
  assert_series(realloc_site->live_bytes, realloc_site->count, (const uint64_t[]){48}, 1);
  assert_series(realloc_site->free_bytes, realloc_site->count, (const uint64_t[]){0}, 1);
  const struct diff_site *alloc_site = find_site(&result, "@t.lua:12");
  assert_series(alloc_site->live_bytes, alloc_site->count, (const uint64_t[]){16}, 1);
  ck_assert_uint_eq(alloc_site->frees, 0);
  diff_result_free(&result);
}
END_TEST

START_TEST(test_alloc_over_live_address_closes_old_block)
{
  struct fixture_segment s;
  begin_segment(&s, 1);
  fixture_alloc(&s, 10, 0xa000, 100);
  fixture_alloc(&s, 11, 0xb000, 10);
  fixture_alloc(&s, 12, 0xb000, 20);  /* same segment: closes line 11's block */
  fixture_end(&s, 0);
  begin_segment(&s, 2);
  fixture_alloc(&s, 13, 0xa000, 50);  /* a later segment: closes line 10's block */
  fixture_end(&s, 0);

  struct diff_result result;
  run_trend(&result, 1);
  const struct diff_site *site = find_site(&result, "@t.lua:10");
  assert_series(site->live_bytes, site->count, (const uint64_t[]){100, 0}, 2);
  assert_series(site->free_bytes, site->count, (const uint64_t[]){0, 100}, 2);
  site = find_site(&result, "@t.lua:11");
  assert_series(site->live_bytes, site->count, (const uint64_t[]){0, 0}, 2);
  assert_series(site->alloc_bytes, site->count, (const uint64_t[]){10, 0}, 2);
  assert_series(site->free_bytes, site->count, (const uint64_t[]){10, 0}, 2);
  site = find_site(&result, "@t.lua:12");
  assert_series(site->live_bytes, site->count, (const uint64_t[]){20, 20}, 2);
  site = find_site(&result, "@t.lua:13");
  assert_series(site->live_bytes, site->count, (const uint64_t[]){0, 50}, 2);
  diff_result_free(&result);
}
END_TEST

START_TEST(test_realloc_frees_old_block_and_charges_new_one_to_realloc_site)
{
  struct fixture_segment s;
  begin_segment(&s, 1);
  fixture_alloc(&s, 10, 0xa000, 100);
  fixture_end(&s, 0);
  begin_segment(&s, 2);
  fixture_realloc(&s, 20, 0xa000, 100, 0xe000, 200);
  fixture_realloc(&s, 21, 0xe000, 200, 0xe000, 300);  /* in place */
  fixture_end(&s, 0);

  struct diff_result result;
  run_trend(&result, 1);
  const struct diff_site *site = find_site(&result, "@t.lua:10");
  assert_series(site->live_bytes, site->count, (const uint64_t[]){100, 0}, 2);
  assert_series(site->free_bytes, site->count, (const uint64_t[]){0, 100}, 2);
  site = find_site(&result, "@t.lua:20");
  assert_series(site->live_bytes, site->count, (const uint64_t[]){0, 0}, 2);
  assert_series(site->alloc_bytes, site->count, (const uint64_t[]){0, 200}, 2);
  assert_series(site->free_bytes, site->count, (const uint64_t[]){0, 200}, 2);
  site = find_site(&result, "@t.lua:21");
  assert_series(site->live_bytes, site->count, (const uint64_t[]){0, 300}, 2);
  assert_series(site->live_blocks, site->count, (const uint64_t[]){0, 1}, 2);
  diff_result_free(&result);
}
END_TEST

START_TEST(test_site_hash_collisions_never_merge_sites)
{
  struct diff_site_table table;
  ck_assert_int_eq(diff_site_table_init(&table), 0);
  ck_assert_int_eq(diff_site_table_set_hash_mask(&table, 0), 0);  /* every name in one bucket */
  char name[32];
  for (int i = 0; i < 200; i++) {
    uint32_t index;
    int length = snprintf(name, sizeof name, "@app.lua:%d", i);
    ck_assert_int_eq(diff_site_table_intern(&table, name, (size_t)length, DIFF_SITE_LUA, &index), 0);
    ck_assert_uint_eq(index, (uint32_t)i);
  }
  ck_assert_uint_eq(table.count, 200);
  for (int i = 0; i < 200; i++) {
    int length = snprintf(name, sizeof name, "@app.lua:%d", i);
    ck_assert_uint_eq(diff_site_table_find(&table, name, (size_t)length), (uint32_t)i);
    ck_assert_uint_eq(table.ids[i], diff_site_table_hash(name, (size_t)length));
  }
  ck_assert_uint_eq(diff_site_table_find(&table, "@app.lua:200", 12), DIFF_SITE_TABLE_NONE);
  diff_site_table_release(&table);
}
END_TEST

START_TEST(test_live_map_remove_dead_keeps_every_live_block)
{
  struct diff_live_map map;
  ck_assert_int_eq(diff_live_map_init(&map), 0);
  /* clustered addresses, as an allocator gives, so that probe runs are long */
  for (uint64_t i = 1; i <= 5000; i++) {
    int created;
    struct diff_live_block *block = diff_live_map_insert(&map, i * 16, &created);
    ck_assert_ptr_nonnull(block);
    block->site = i % 3 ? (uint32_t)i : DIFF_LIVE_MAP_DEAD;
    ck_assert_int_eq(live_map_set_size(&map, block, i % 7 ? i : UINT64_C(1) << 33), 0);
  }
  diff_live_map_remove_dead(&map);
  ck_assert_uint_eq(map.count, 5000 - 5000 / 3);
  for (uint64_t i = 1; i <= 5000; i++) {
    const struct diff_live_block *block = diff_live_map_find(&map, i * 16);
    if (i % 3 == 0) {
      ck_assert_ptr_null(block);
      continue;
    }
    ck_assert_ptr_nonnull(block);
    ck_assert_uint_eq(block->site, (uint32_t)i);
    ck_assert_uint_eq(live_map_size(&map, block), i % 7 ? i : UINT64_C(1) << 33);
  }
  diff_live_map_release(&map);
}
END_TEST

/* Segment 1 makes 1000 blocks at @a.lua:1; segment 2 (few addresses: the
 * capture's map takes them one by one) frees 10 and reallocates 5 of them to
 * @b.lua:2; segment 3 (as many addresses as the capture holds: its map becomes
 * the capture's) frees 300 more, makes 600 new ones at @b.lua:2 and 1 over a
 * live block. */
START_TEST(test_merge_by_address_and_by_taking_the_segment_map_agree)
{
  struct diff_aggregate aggregate;
  ck_assert_int_eq(diff_aggregate_init(&aggregate, 0), 0);
  for (int number = 0; number < 3; number++) {
    struct diff_segment_aggregate segment;
    ck_assert_int_eq(diff_segment_aggregate_init(&segment), 0);
    uint32_t a, b;
    ck_assert_int_eq(diff_segment_aggregate_site(&segment, "@a.lua:1", 8, DIFF_SITE_LUA, &a), 0);
    ck_assert_int_eq(diff_segment_aggregate_site(&segment, "@b.lua:2", 8, DIFF_SITE_LUA, &b), 0);
    if (number == 0)
      for (uint64_t i = 0; i < 1000; i++)
        ck_assert_int_eq(diff_segment_aggregate_alloc(&segment, a, 0x10000 + i * 32, live_map_hash(0x10000 + i * 32), 100, 0), 0);
    if (number == 1) {
      for (uint64_t i = 0; i < 10; i++)
        ck_assert_int_eq(diff_segment_aggregate_free(&segment, 0x10000 + i * 32, live_map_hash(0x10000 + i * 32), 0), 0);
      for (uint64_t i = 10; i < 15; i++) {
        uint64_t address = 0x10000 + i * 32;
        ck_assert_int_eq(diff_segment_aggregate_free(&segment, address, live_map_hash(address), 0), 0);
        ck_assert_int_eq(diff_segment_aggregate_alloc(&segment, b, address, live_map_hash(address), 40, 0), 0);
      }
    }
    if (number == 2) {
      for (uint64_t i = 100; i < 400; i++)
        ck_assert_int_eq(diff_segment_aggregate_free(&segment, 0x10000 + i * 32, live_map_hash(0x10000 + i * 32), 0), 0);
      for (uint64_t i = 0; i < 600; i++)
        ck_assert_int_eq(diff_segment_aggregate_alloc(&segment, b, 0x90000 + i * 32, live_map_hash(0x90000 + i * 32), 8, 0), 0);
      ck_assert_int_eq(diff_segment_aggregate_alloc(&segment, b, 0x10000 + 999 * 32, live_map_hash(0x10000 + 999 * 32), 8, 0), 0);
    }
    ck_assert_int_eq(diff_segment_aggregate_end_piece(&segment, 1, 0), 0);
    ck_assert_int_eq(diff_aggregate_merge(&aggregate, &segment), 0);
    diff_segment_aggregate_release(&segment);
  }
  uint32_t a = diff_site_table_find(&aggregate.sites, "@a.lua:1", 8);
  uint32_t b = diff_site_table_find(&aggregate.sites, "@b.lua:2", 8);
  ck_assert_uint_eq(aggregate.data[a].series_live_bytes[0], 100000);
  ck_assert_uint_eq(aggregate.data[a].series_live_bytes[1], 98500);
  ck_assert_uint_eq(aggregate.data[b].series_live_bytes[1], 200);
  ck_assert_uint_eq(aggregate.data[a].series_live_bytes[2], 68400);
  ck_assert_uint_eq(aggregate.data[b].series_live_bytes[2], 200 + 4808);
  ck_assert_uint_eq(aggregate.live.count, 990 - 300 + 600);
  const struct diff_live_block *block = diff_live_map_find(&aggregate.live, 0x10000 + 999 * 32);
  ck_assert_ptr_nonnull(block);
  ck_assert_uint_eq(block->site, b);
  ck_assert_uint_eq(live_map_size(&aggregate.live, block), 8);
  ck_assert_ptr_null(diff_live_map_find(&aggregate.live, 0x10000));
  ck_assert_ptr_null(diff_live_map_find(&aggregate.live, 0x10000 + 100 * 32));
  block = diff_live_map_find(&aggregate.live, 0x10000 + 12 * 32);
  ck_assert_ptr_nonnull(block);
  ck_assert_uint_eq(block->site, b);
  diff_aggregate_release(&aggregate);
}
END_TEST

/* An address whose hash (keyed_slots_hash, a bijection) is hash. */
static uint64_t address_with_hash(uint64_t hash)
{
  const uint64_t multiplier = UINT64_C(0xd6e8feb86659fd93);
  uint64_t inverse = multiplier;  /* Newton's iteration: exact mod 2^64 after five steps */
  for (int i = 0; i < 5; i++)
    inverse *= 2 - multiplier * inverse;
  uint64_t x = hash ^ hash >> 32;
  x *= inverse;
  x ^= x >> 32;
  ck_assert_uint_eq(keyed_slots_hash(x), hash);
  return x;
}

/* Grows a map of 1024 slots (768 blocks make it grow) holding crowded
 * blocks, whose homes are among the last slots before and after the growth
 * to 2048 (so that they wrap around the end), and blocks at clustered
 * addresses; every block is found with its site afterwards, and after half
 * of them are removed. */
static void grow_with_crowded_end(int crowded)
{
  struct diff_live_map map;
  ck_assert_int_eq(diff_live_map_init(&map), 0);
  ck_assert_uint_eq(map.slot_count, 1024);
  uint64_t addresses[800];
  for (int i = 0; i < 800; i++) {
    /* A home is the hash's low 32 bits scaled to the slot count: bits 21 to
     * 31 all set but the lowest two put it in the last four of 2048 slots
     * and the last two of 1024. */
    addresses[i] = i < crowded ? address_with_hash((uint64_t)(2047 - i % 4) << 21 | (uint64_t)i)
                               : UINT64_C(0x7f0000000000) + (uint64_t)i * 48;
    int created;
    struct diff_live_block *block = diff_live_map_insert(&map, addresses[i], &created);
    ck_assert_ptr_nonnull(block);
    ck_assert_int_eq(created, 1);
    block->site = (uint32_t)i;
    block->size = (uint32_t)i + 1;
  }
  ck_assert_uint_eq(map.slot_count, 2048);
  ck_assert_uint_eq(map.count, 800);
  for (int i = 0; i < 800; i++) {
    const struct diff_live_block *block = diff_live_map_find(&map, addresses[i]);
    ck_assert_ptr_nonnull(block);
    ck_assert_uint_eq(block->site, (uint32_t)i);
    ck_assert_uint_eq(block->size, (uint32_t)i + 1);
  }
  for (int i = 0; i < 800; i += 2)
    ck_assert_int_eq(diff_live_map_remove(&map, addresses[i], NULL, NULL), 1);
  for (int i = 0; i < 800; i++)
    ck_assert((diff_live_map_find(&map, addresses[i]) != NULL) == (i % 2 == 1));
  diff_live_map_release(&map);
}

START_TEST(test_live_map_grows_in_place_with_a_crowded_end)
{
  grow_with_crowded_end(40);
}
END_TEST

/* 600 blocks homed at the end: most of them wrap onto slot 0 and after,
 * and wait to be placed last. */
START_TEST(test_live_map_grows_in_place_with_a_very_crowded_end)
{
  grow_with_crowded_end(600);
}
END_TEST

/* Blocks put, some taken out again, through many growths (doubling, then
 * by a quarter past 16 MiB of slots: a million slots); every block is found
 * in its slot, and the map holds at most 4/3 of its blocks' slots and, once
 * it grows by quarters, at least 3/5 of them. */
START_TEST(test_live_map_keeps_every_block_through_growths)
{
  enum { BLOCKS = 2000000 };
  struct diff_live_map map;
  ck_assert_int_eq(diff_live_map_init(&map), 0);
  uint64_t random = 88172645463325252u;
  size_t live = 0;
  for (uint64_t i = 0; i < BLOCKS; i++) {
    random ^= random << 13;  /* xorshift64: scattered addresses among clustered ones */
    random ^= random >> 7;
    random ^= random << 17;
    uint64_t address = i % 3 ? UINT64_C(0x55aa00000000) + i * 32 : random | 1;
    int created;
    struct diff_live_block *block = diff_live_map_insert(&map, address, &created);
    if (!block)
      ck_abort_msg("insert %llu failed", (unsigned long long)i);
    block->site = (uint32_t)(address >> 4);
    live += (size_t)created;
    if (i % 7 == 6 && (i - 1) % 3) {  /* a block freed again: the slots churn as they grow */
      uint64_t gone = UINT64_C(0x55aa00000000) + (i - 1) * 32;
      if (diff_live_map_remove(&map, gone, NULL, NULL) != 1)
        ck_abort_msg("block %llu not found", (unsigned long long)(i - 1));
      live--;
    }
  }
  ck_assert_uint_eq(map.count, live);
  ck_assert_uint_le(map.count * 4, map.slot_count * 3);
  ck_assert_uint_ge(map.slot_count * sizeof *map.slots, (size_t)16 << 20);
  ck_assert_uint_ge(map.count * 5, map.slot_count * 3);
  size_t found = 0;
  for (size_t i = 0; i < map.slot_count; i++) {
    const struct diff_live_block *slot = &map.slots[i];
    if (!slot->address)
      continue;
    if (diff_live_map_find(&map, slot->address) != slot || slot->site != (uint32_t)(slot->address >> 4))
      ck_abort_msg("slot %zu: not found where it is, or with another site", i);
    found++;
  }
  ck_assert_uint_eq(found, live);
  diff_live_map_release(&map);
}
END_TEST

START_TEST(test_colliding_sites_keep_their_own_series_across_segments)
{
  struct diff_aggregate aggregate;
  ck_assert_int_eq(diff_aggregate_init(&aggregate, 0), 0);
  ck_assert_int_eq(diff_site_table_set_hash_mask(&aggregate.sites, 0), 0);
  for (int segment_number = 0; segment_number < 2; segment_number++) {
    struct diff_segment_aggregate segment;
    ck_assert_int_eq(diff_segment_aggregate_init(&segment), 0);
    ck_assert_int_eq(diff_site_table_set_hash_mask(&segment.sites, 0), 0);
    uint32_t first_index, second_index;
    /* the second segment meets the names in the other order */
    const char *first = segment_number ? "@b.lua:2" : "@a.lua:1";
    const char *second = segment_number ? "@a.lua:1" : "@b.lua:2";
    ck_assert_int_eq(diff_segment_aggregate_site(&segment, first, 8, DIFF_SITE_LUA, &first_index), 0);
    ck_assert_int_eq(diff_segment_aggregate_site(&segment, second, 8, DIFF_SITE_LUA, &second_index), 0);
    ck_assert_uint_ne(first_index, second_index);
    uint32_t a = diff_site_table_find(&segment.sites, "@a.lua:1", 8);
    uint32_t b = diff_site_table_find(&segment.sites, "@b.lua:2", 8);
    ck_assert_uint_eq(a, segment_number ? second_index : first_index);
    uint64_t address_a = 0x1000 + 0x100 * (uint64_t)segment_number;
    uint64_t address_b = 0x9000 + 0x100 * (uint64_t)segment_number;
    ck_assert_int_eq(diff_segment_aggregate_alloc(&segment, a, address_a, live_map_hash(address_a), 10, 0), 0);
    ck_assert_int_eq(diff_segment_aggregate_alloc(&segment, b, address_b, live_map_hash(address_b), 1000, 0), 0);
    ck_assert_int_eq(diff_segment_aggregate_end_piece(&segment, 1, 0), 0);  /* the segment is one piece */
    ck_assert_int_eq(diff_aggregate_merge(&aggregate, &segment), 0);
    diff_segment_aggregate_release(&segment);
  }
  ck_assert_uint_eq(aggregate.sites.count, 2);
  uint32_t a = diff_site_table_find(&aggregate.sites, "@a.lua:1", 8);
  uint32_t b = diff_site_table_find(&aggregate.sites, "@b.lua:2", 8);
  ck_assert_uint_eq(aggregate.data[a].series_live_bytes[0], 10);
  ck_assert_uint_eq(aggregate.data[a].series_live_bytes[1], 20);
  ck_assert_uint_eq(aggregate.data[b].series_live_bytes[0], 1000);
  ck_assert_uint_eq(aggregate.data[b].series_live_bytes[1], 2000);
  diff_aggregate_release(&aggregate);
}
END_TEST

START_TEST(test_sampled_capture_is_scaled_back_by_the_rate)
{
  /* N = 1000: a 1000-byte block is kept with probability 1 - 1/e, so it stands
   * for 1 / (1 - e^-1) = 1.58198 blocks: 1582 bytes, 2 blocks (rounded). */
  ck_assert_uint_eq(sampling_bytes(1000, 1000), 1582);
  ck_assert_uint_eq(sampling_blocks(1000, 1000), 2);
  /* a 10-byte block: weight 100.5008 */
  ck_assert_uint_eq(sampling_bytes(1000, 10), 1005);
  ck_assert_uint_eq(sampling_blocks(1000, 10), 101);
  ck_assert_uint_eq(sampling_bytes(0, 10), 10);
  ck_assert_uint_eq(sampling_blocks(0, 10), 1);

  char path[600];
  struct fixture_segment s;
  fixture_begin(&s, fixture_path(path, sizeof path, dir, "seg-0001.memprof"));
  fixture_alloc(&s, 10, 0xa000, 1000);
  fixture_alloc(&s, 11, 0xb000, 10);
  fixture_end(&s, 0);
  fixture_begin(&s, fixture_path(path, sizeof path, dir, "seg-0002.memprof"));
  fixture_free(&s, 12, 0xa000, 1000);
  fixture_end(&s, 0);
  FILE *index = fopen(fixture_path(path, sizeof path, dir, "index"), "w");
  ck_assert_ptr_nonnull(index);
  fputs("ljleak-index\tversion=1\n"
        "capture\tpid=1\tsample=1000\n"
        "segment\tseq=1\tfile=seg-0001.memprof\tend=100.5\tsample=1000\tcomplete=1\n"
        "segment\tseq=2\tfile=seg-0002.memprof\tend=110.5\tsample=1000\tcomplete=1\n",
        index);
  fclose(index);

  struct diff_result result;
  run_trend(&result, 1);
  ck_assert_uint_eq(result.capture.sample_bytes, 1000);
  const struct diff_site *site = find_site(&result, "@t.lua:10");
  assert_series(site->live_bytes, site->count, (const uint64_t[]){1582, 0}, 2);
  assert_series(site->live_blocks, site->count, (const uint64_t[]){2, 0}, 2);
  assert_series(site->free_bytes, site->count, (const uint64_t[]){0, 1582}, 2);
  ck_assert_uint_eq(site->allocs, 2);
  site = find_site(&result, "@t.lua:11");
  assert_series(site->live_bytes, site->count, (const uint64_t[]){1005, 1005}, 2);
  ck_assert_ptr_nonnull(result.capture.boundary_times);
  ck_assert(result.capture.boundary_times[1] == 110.5);
  diff_result_free(&result);
}
END_TEST

static int warnings;
static char last_warning[512];

static void count_warning(void *context, const char *message)
{
  (void)context;
  warnings++;
  snprintf(last_warning, sizeof last_warning, "%s", message);
}

/* Two whole segments in the index, and a .part cut in the middle of an event. */
static void write_capture_with_part(void)
{
  char path[600];
  struct fixture_segment s;
  fixture_begin(&s, fixture_path(path, sizeof path, dir, "seg-0001.memprof"));
  fixture_alloc(&s, 10, 0xa000, 100);
  fixture_end(&s, 0);
  fixture_begin(&s, fixture_path(path, sizeof path, dir, "seg-0002.memprof"));
  fixture_alloc(&s, 10, 0xb000, 100);
  fixture_end(&s, 0);
  fixture_begin(&s, fixture_path(path, sizeof path, dir, "seg-0003.memprof.part"));
  fixture_alloc(&s, 10, 0xc000, 100);
  fixture_end(&s, 1);
  FILE *index = fopen(fixture_path(path, sizeof path, dir, "index"), "w");
  ck_assert_ptr_nonnull(index);
  fputs("ljleak-index\tversion=1\n"
        "capture\tpid=7\thost=h\tcommand=luajit app.lua\tsample=0\n"
        "segment\tseq=1\tfile=seg-0001.memprof\tgc_cycles=3\theap_bytes=5000\tcomplete=1\n"
        "segment\tseq=2\tfile=seg-0002.memprof\tgc_cycles=5\theap_bytes=6000\tcomplete=1\n",
        index);
  fclose(index);
}

START_TEST(test_cut_part_segment_is_used_up_to_its_last_complete_event)
{
  write_capture_with_part();
  struct diff_options options;
  diff_options_default(&options);
  options.min_boundaries = 1;
  options.warn = count_warning;
  warnings = 0;
  struct diff_result result;
  struct format_error err;
  const char *paths[1] = {dir};
  ck_assert_int_eq(diff_trend(paths, 1, &options, &result, &err), FORMAT_OK);
  ck_assert_int_eq(warnings, 1);
  ck_assert_ptr_nonnull(strstr(last_warning, "seg-0003.memprof.part"));
  ck_assert_ptr_nonnull(strstr(last_warning, "byte"));
  ck_assert_int_eq(result.capture.truncated, 1);
  /* The .part ended on no GC cycle: its events count, its end is no boundary. */
  ck_assert_uint_eq(result.capture.boundary_count, 2);
  ck_assert_uint_eq(result.capture.pid, 7);
  ck_assert_str_eq(result.capture.command, "luajit app.lua");
  ck_assert_ptr_nonnull(result.capture.gc_cycles);
  ck_assert_uint_eq(result.capture.gc_cycles[1], 5);
  const struct diff_site *site = find_site(&result, "@t.lua:10");
  assert_series(site->live_bytes, site->count, (const uint64_t[]){100, 200}, 2);
  ck_assert_uint_eq(site->allocs, 3);
  diff_result_free(&result);

  options.strict = 1;
  ck_assert_int_eq(diff_trend(paths, 1, &options, &result, &err), FORMAT_CUT);
  ck_assert_ptr_nonnull(strstr(err.message, "seg-0003.memprof.part"));
}
END_TEST

/* A segment the index lists as cut short (a stop, an exit) ended on no GC
 * cycle: the garbage it made is still live at its end, so it is no boundary. */
START_TEST(test_segment_cut_short_is_no_boundary)
{
  char path[600];
  struct fixture_segment s;
  fixture_begin(&s, fixture_path(path, sizeof path, dir, "seg-0001.memprof"));
  fixture_alloc(&s, 10, 0xa000, 100);
  fixture_end(&s, 0);
  fixture_begin(&s, fixture_path(path, sizeof path, dir, "seg-0002.memprof"));
  fixture_alloc(&s, 10, 0xb000, 100);
  fixture_alloc(&s, 11, 0xc000, 5000);  /* garbage no cycle has seen yet */
  fixture_end(&s, 0);
  FILE *index = fopen(fixture_path(path, sizeof path, dir, "index"), "w");
  ck_assert_ptr_nonnull(index);
  fputs("ljleak-index\tversion=1\n"
        "capture\tpid=7\thost=h\tcommand=luajit app.lua\tsample=0\n"
        "segment\tseq=1\tfile=seg-0001.memprof\tgc_cycles=3\tcomplete=1\n"
        "segment\tseq=2\tfile=seg-0002.memprof\tgc_cycles=3\tcomplete=0\n",
        index);
  fclose(index);
  struct diff_options options;
  diff_options_default(&options);
  options.min_boundaries = 1;
  struct diff_result result;
  struct format_error err;
  const char *paths[1] = {dir};
  ck_assert_int_eq(diff_trend(paths, 1, &options, &result, &err), FORMAT_OK);
  ck_assert_uint_eq(result.capture.boundary_count, 1);
  const struct diff_site *site = find_site(&result, "@t.lua:10");
  assert_series(site->live_bytes, site->count, (const uint64_t[]){100}, 1);
  ck_assert_uint_eq(site->allocs, 2);
  site = find_site(&result, "@t.lua:11");
  assert_series(site->live_bytes, site->count, (const uint64_t[]){0}, 1);
  diff_result_free(&result);
}
END_TEST

START_TEST(test_unreadable_segment_is_an_input_error)
{
  char path[600];
  FILE *f = fopen(fixture_path(path, sizeof path, dir, "seg-0001.bin"), "w");
  fputs("not a memprof stream", f);
  fclose(f);
  struct diff_options options;
  diff_options_default(&options);
  struct diff_result result;
  struct format_error err;
  const char *paths[1] = {dir};
  ck_assert_int_eq(diff_trend(paths, 1, &options, &result, &err), FORMAT_BAD_INPUT);
  ck_assert_ptr_nonnull(strstr(err.message, "seg-0001.bin"));
  const char *missing[1] = {"no/such/capture"};
  ck_assert_int_eq(diff_trend(missing, 1, &options, &result, &err), FORMAT_IO);
  ck_assert_int_eq(format_status_is_input(err.status), 1);
}
END_TEST

/* Many segments with blocks that live across several of them. */
static void write_long_capture(int segments)
{
  for (int k = 1; k <= segments; k++) {
    struct fixture_segment s;
    begin_segment(&s, k);
    for (uint64_t i = 0; i < 500; i++) {
      uint64_t address = 0x10000 + 16 * ((i * 7 + (uint64_t)k * 131) % 700);
      fixture_alloc(&s, 10 + i % 5, address, 8 + i % 13);
      if (i % 3 == 0)
        fixture_free(&s, 20, 0x10000 + 16 * ((i * 11 + (uint64_t)k * 17) % 700), 0);
    }
    fixture_alloc(&s, 30, 0x900000 + 64 * (uint64_t)k, 64);  /* a leak */
    fixture_end(&s, 0);
  }
}

START_TEST(test_parallel_reading_gives_the_sequential_result)
{
  write_long_capture(12);
  struct diff_result one, two;
  run_trend(&one, 1);
  run_trend(&two, 2);
  ck_assert_uint_eq(one.site_count, two.site_count);
  ck_assert_uint_eq(one.capture.events, two.capture.events);
  for (size_t i = 0; i < one.site_count; i++) {
    const struct diff_site *a = &one.sites[i], *b = &two.sites[i];
    ck_assert_str_eq(a->name, b->name);
    ck_assert_int_eq(a->verdict, b->verdict);
    ck_assert_uint_eq(a->allocs, b->allocs);
    ck_assert_uint_eq(a->frees, b->frees);
    for (size_t k = 0; k < a->count; k++) {
      ck_assert_uint_eq(a->live_bytes[k], b->live_bytes[k]);
      ck_assert_uint_eq(a->alloc_bytes[k], b->alloc_bytes[k]);
      ck_assert_uint_eq(a->free_bytes[k], b->free_bytes[k]);
    }
  }
  const struct diff_site *leak = find_site(&two, "@t.lua:30");
  ck_assert_int_eq(leak->verdict, DIFF_VERDICT_STEADY);  /* 768 bytes: under min_growth */
  ck_assert_uint_eq(leak->live_bytes[11], 12 * 64);
  ck_assert(leak->growth_bytes_per_segment == 64);
  diff_result_free(&one);
  diff_result_free(&two);
}
END_TEST

/* A leak of 1000 bytes per segment at line 30, a constant 5000 at line 40. */
static void write_trend_capture(const char *directory, int segments, uint64_t leak_size)
{
  char path[600];
  for (int k = 1; k <= segments; k++) {
    struct fixture_segment s;
    snprintf(path, sizeof path, "%s/seg-%04d.memprof", directory, k);
    fixture_begin(&s, path);
    if (k == 1)
      fixture_alloc(&s, 40, 0x50000, 5000);
    fixture_alloc(&s, 30, 0x900000 + 0x1000 * (uint64_t)k, leak_size);
    fixture_end(&s, 0);
  }
}

START_TEST(test_range_mode_gives_delta_between_two_boundaries)
{
  write_trend_capture(dir, 10, 1000);
  struct diff_options options;
  diff_options_default(&options);
  options.range_from = 2;
  options.range_to = 7;
  struct diff_result result;
  struct format_error err;
  const char *paths[1] = {dir};
  ck_assert_int_eq(diff_range(paths, 1, &options, &result, &err), FORMAT_OK);
  ck_assert_int_eq(result.mode, DIFF_MODE_RANGE);
  ck_assert_uint_eq(result.flagged, 1);
  ck_assert_str_eq(result.sites[0].name, "@t.lua:30");
  ck_assert_int_eq(result.sites[0].range_delta_bytes, 5000);
  ck_assert_int_eq(result.sites[0].verdict, DIFF_VERDICT_GROWING);
  ck_assert(result.sites[0].growth_bytes_per_segment == 1000);
  ck_assert_str_eq(result.sites[1].name, "@t.lua:40");
  ck_assert_int_eq(result.sites[1].range_delta_bytes, 0);
  ck_assert_int_eq(result.sites[1].verdict, DIFF_VERDICT_STEADY);
  diff_result_free(&result);

  options.range_from = 7;
  options.range_to = 11;
  ck_assert_int_eq(diff_range(paths, 1, &options, &result, &err), FORMAT_USAGE);
}
END_TEST

START_TEST(test_base_mode_gives_new_and_worse)
{
  char base_dir[600], same_dir[600], worse_dir[600];
  fixture_path(base_dir, sizeof base_dir, dir, "base");
  fixture_path(same_dir, sizeof same_dir, dir, "same");
  fixture_path(worse_dir, sizeof worse_dir, dir, "worse");
  char command[2000];
  snprintf(command, sizeof command, "mkdir -p '%s' '%s' '%s'", base_dir, same_dir, worse_dir);
  ck_assert_int_eq(system(command), 0);
  write_trend_capture(base_dir, 10, 1000);
  write_trend_capture(same_dir, 10, 1500);   /* 1.5 times as fast: not worse */
  write_trend_capture(worse_dir, 10, 2000);  /* twice as fast: worse */
  struct diff_options options;
  diff_options_default(&options);
  struct diff_result result;
  struct format_error err;
  const char *base[1] = {base_dir}, *same[1] = {same_dir}, *worse[1] = {worse_dir};

  ck_assert_int_eq(diff_base(base, 1, same, 1, &options, &result, &err), FORMAT_OK);
  ck_assert_uint_eq(result.flagged, 0);
  ck_assert_int_eq(find_site(&result, "@t.lua:30")->verdict, DIFF_VERDICT_GROWING);
  ck_assert_int_eq(find_site(&result, "@t.lua:30")->base_verdict, DIFF_VERDICT_GROWING);
  ck_assert_uint_eq(find_site(&result, "@t.lua:30")->base_count, 10);
  ck_assert_uint_eq(result.base_gone_count, 0);  /* the candidate has the base's leak */
  diff_result_free(&result);

  ck_assert_int_eq(diff_base(base, 1, worse, 1, &options, &result, &err), FORMAT_OK);
  ck_assert_uint_eq(result.flagged, 1);
  ck_assert_str_eq(result.sites[0].name, "@t.lua:30");
  ck_assert_int_eq(result.sites[0].verdict, DIFF_VERDICT_WORSE);
  ck_assert(result.sites[0].base_growth_bytes_per_segment == 1000);
  ck_assert(result.sites[0].growth_bytes_per_segment == 2000);
  diff_result_free(&result);

  /* base: only the constant site (line 40); candidate leaks at line 30 */
  char steady_dir[600];
  fixture_path(steady_dir, sizeof steady_dir, dir, "steady");
  snprintf(command, sizeof command, "mkdir -p '%s'", steady_dir);
  ck_assert_int_eq(system(command), 0);
  write_trend_capture(steady_dir, 10, 0);
  const char *steady[1] = {steady_dir};
  ck_assert_int_eq(diff_base(steady, 1, base, 1, &options, &result, &err), FORMAT_OK);
  ck_assert_uint_eq(result.flagged, 1);
  ck_assert_str_eq(result.sites[0].name, "@t.lua:30");
  ck_assert_int_eq(result.sites[0].verdict, DIFF_VERDICT_NEW);
  ck_assert_int_eq(result.sites[0].base_verdict, DIFF_VERDICT_STEADY);
  ck_assert_uint_eq(result.sites[0].base_count, 10);
  ck_assert_int_eq(find_site(&result, "@t.lua:40")->verdict, DIFF_VERDICT_STEADY);
  diff_result_free(&result);
  ck_assert_int_eq(diff_base(base, 1, steady, 1, &options, &result, &err), FORMAT_OK);
  ck_assert_uint_eq(result.flagged, 0);
  ck_assert_uint_eq(result.base_gone_count, 0);  /* line 30 is there, steady: the report says so */
  diff_result_free(&result);
  /* a candidate without line 30 at all: the base's leak there is gone (fixed, or renamed) */
  char gone_dir[600];
  fixture_path(gone_dir, sizeof gone_dir, dir, "gone");
  snprintf(command, sizeof command, "mkdir -p '%s'", gone_dir);
  ck_assert_int_eq(system(command), 0);
  for (int k = 1; k <= 10; k++) {
    struct fixture_segment seg;
    char path[700];
    snprintf(path, sizeof path, "%s/seg-%04d.memprof", gone_dir, k);
    fixture_begin(&seg, path);
    fixture_alloc(&seg, 40, 0x50000 + 0x1000 * (uint64_t)k, k == 1 ? 5000 : 0);
    fixture_end(&seg, 0);
  }
  const char *gone[1] = {gone_dir};
  ck_assert_int_eq(diff_base(base, 1, gone, 1, &options, &result, &err), FORMAT_OK);
  ck_assert_uint_eq(result.flagged, 0);
  for (size_t i = 0; i < result.site_count; i++)
    ck_assert_str_ne(result.sites[i].name, "@t.lua:30");
  ck_assert_uint_eq(result.base_gone_count, 1);
  ck_assert_str_eq(result.base_gone[0].name, "@t.lua:30");
  ck_assert(result.base_gone[0].growth_bytes_per_segment == 1000);
  diff_result_free(&result);
}
END_TEST

START_TEST(test_tarantool_segments_flag_the_sessions_site_only)
{
  struct diff_options options;
  diff_options_default(&options);
  struct diff_result result;
  struct format_error err;
  const char *paths[1] = {"testdata/tarantool-memprof/segments"};
  for (int jobs = 1; jobs <= 2; jobs++) {
    options.jobs = jobs;
    ck_assert_int_eq(diff_trend(paths, 1, &options, &result, &err), FORMAT_OK);
    ck_assert_uint_eq(result.capture.boundary_count, 6);
    ck_assert_uint_eq(result.flagged, 2);
    ck_assert_str_eq(result.sites[0].name, "TRACE started at @segments.lua:14");
    ck_assert_str_eq(result.sites[1].name, "@segments.lua:14");
    for (size_t i = 0; i < result.site_count; i++) {
      const struct diff_site *site = &result.sites[i];
      if (site->source_line != 14)
        ck_assert_msg(site->verdict != DIFF_VERDICT_GROWING, "%s grows", site->name);
    }
    ck_assert_int_ne(find_site(&result, "TRACE started at @segments.lua:22")->verdict,
                     DIFF_VERDICT_GROWING);
    diff_result_free(&result);
  }
}
END_TEST

/* Writes dir/index listing seg-0001.memprof .. seg-N.memprof; young_from[k]
 * is segment k+1's key, or UINT64_MAX to leave the key out. */
static void write_index_with_young(int segments, const uint64_t *young_from)
{
  char path[600];
  FILE *index = fopen(fixture_path(path, sizeof path, dir, "index"), "w");
  ck_assert_ptr_nonnull(index);
  fputs("ljleak-index\tversion=1\ncapture\tpid=1\tsample=0\n", index);
  for (int k = 1; k <= segments; k++) {
    fprintf(index, "segment\tseq=%d\tfile=seg-%04d.memprof\tend=%d\tcomplete=1", k, k, 100 + k);
    if (young_from[k - 1] != UINT64_MAX)
      fprintf(index, "\tyoung_from=%llu", (unsigned long long)young_from[k - 1]);
    fputc('\n', index);
  }
  fclose(index);
}

START_TEST(test_young_block_is_counted_at_the_next_boundary)
{
  struct fixture_segment s;
  begin_segment(&s, 1);                              /* young_from=2 */
  fixture_alloc(&s, 10, 0xa000, 100);                /* event 0: old */
  fixture_free(&s, 10, 0xdead0, 8);                  /* event 1: unknown address, still an event */
  fixture_alloc(&s, 10, 0xb000, 50);                 /* event 2: young, live at boundary 1 */
  fixture_alloc(&s, 11, 0xc000, 30);                 /* event 3: young, freed in segment 2 */
  fixture_realloc(&s, 12, 0xa000, 100, 0xd000, 200); /* event 4: as old as the block it moves */
  fixture_end(&s, 0);
  begin_segment(&s, 2);                              /* young_from=1 */
  fixture_free(&s, 20, 0xc000, 30);                  /* event 0: the young block dies */
  fixture_alloc(&s, 11, 0xe000, 70);                 /* event 1: young */
  fixture_alloc(&s, 13, 0xf000, 9);                  /* event 2: young, freed in the segment */
  fixture_free(&s, 20, 0xf000, 9);
  fixture_end(&s, 0);
  begin_segment(&s, 3);                              /* no young_from: every live block counts */
  fixture_alloc(&s, 14, 0x10000, 5);
  fixture_end(&s, 0);
  write_index_with_young(3, (const uint64_t[]){2, 1, UINT64_MAX});

  for (int jobs = 1; jobs <= 2; jobs++) {
    struct diff_result result;
    run_trend(&result, jobs);
    ck_assert_uint_eq(result.capture.boundary_count, 3);
    const struct diff_site *site = find_site(&result, "@t.lua:10");
    assert_series(site->live_bytes, site->count, (const uint64_t[]){0, 50, 50}, 3);
    assert_series(site->live_blocks, site->count, (const uint64_t[]){0, 1, 1}, 3);
    assert_series(site->alloc_bytes, site->count, (const uint64_t[]){150, 0, 0}, 3);
    assert_series(site->free_bytes, site->count, (const uint64_t[]){100, 0, 0}, 3);
    site = find_site(&result, "@t.lua:11");  /* the young block freed in segment 2: never counted */
    assert_series(site->live_bytes, site->count, (const uint64_t[]){0, 0, 70}, 3);
    assert_series(site->live_blocks, site->count, (const uint64_t[]){0, 0, 1}, 3);
    assert_series(site->alloc_bytes, site->count, (const uint64_t[]){30, 70, 0}, 3);
    assert_series(site->free_bytes, site->count, (const uint64_t[]){0, 30, 0}, 3);
    site = find_site(&result, "@t.lua:12");  /* a table part resized in the final cycle */
    assert_series(site->live_bytes, site->count, (const uint64_t[]){200, 200, 200}, 3);
    site = find_site(&result, "@t.lua:13");
    assert_series(site->live_bytes, site->count, (const uint64_t[]){0, 0, 0}, 3);
    assert_series(site->alloc_bytes, site->count, (const uint64_t[]){0, 9, 0}, 3);
    site = find_site(&result, "@t.lua:14");
    assert_series(site->live_bytes, site->count, (const uint64_t[]){0, 0, 5}, 3);
    diff_result_free(&result);
  }
}
END_TEST

/* Segment k: the churn garbage of segment k-1 is freed, the leak (line 30)
 * keeps 1000 more bytes, steady churn comes and goes; then the final GC cycle
 * starts (event 2k + 1, returned in young_from) and the churn site (line 40)
 * makes k garbage blocks of 1000 bytes that this cycle cannot collect yet:
 * the longer the heap, the longer the cycle, the more young garbage. */
static uint64_t write_churn_with_young_garbage(int k)
{
  struct fixture_segment s;
  begin_segment(&s, k);
  uint64_t events = 0;
  for (int i = 0; i < k - 1; i++, events++)
    fixture_free(&s, 50, 0x800000 + 0x1000 * (uint64_t)(k - 1) * 64 + 0x1000 * (uint64_t)i, 1000);
  fixture_alloc(&s, 30, 0x100000 + 0x1000 * (uint64_t)k, 1000);
  events++;
  for (int i = 0; i < k + 1; i++, events += 2) {
    fixture_alloc(&s, 40, 0x700000, 1000);
    fixture_free(&s, 50, 0x700000, 1000);
  }
  uint64_t young_from = events;
  for (int i = 0; i < k; i++)
    fixture_alloc(&s, 40, 0x800000 + 0x1000 * (uint64_t)k * 64 + 0x1000 * (uint64_t)i, 1000);
  fixture_end(&s, 0);
  return young_from;
}

static void write_leak_amid_young_churn(int segments, int with_young_from)
{
  uint64_t young_from[16];
  ck_assert_int_le(segments, 16);
  for (int k = 1; k <= segments; k++) {
    young_from[k - 1] = write_churn_with_young_garbage(k);
    if (!with_young_from)
      young_from[k - 1] = UINT64_MAX;
  }
  write_index_with_young(segments, young_from);
}

START_TEST(test_young_churn_growing_with_a_leak_is_steady)
{
  write_leak_amid_young_churn(12, 1);
  for (int jobs = 1; jobs <= 2; jobs++) {
    struct diff_result result;
    run_trend(&result, jobs);
    ck_assert_uint_eq(result.flagged, 1);
    const struct diff_site *leak = find_site(&result, "@t.lua:30");
    ck_assert_int_eq(leak->verdict, DIFF_VERDICT_GROWING);
    ck_assert_uint_eq(leak->live_bytes[0], 1000);
    ck_assert_uint_eq(leak->live_bytes[11], 12000);
    const struct diff_site *churn = find_site(&result, "@t.lua:40");
    ck_assert_int_eq(churn->verdict, DIFF_VERDICT_STEADY);
    for (size_t i = 0; i < churn->count; i++)
      ck_assert_uint_eq(churn->live_bytes[i], 0);
    /* what it allocated is still reported: k + 1 churned blocks and k young ones */
    ck_assert_uint_eq(churn->alloc_bytes[11], (12 + 1 + 12) * 1000);
    diff_result_free(&result);
  }
}
END_TEST

START_TEST(test_without_young_from_young_churn_counts_and_grows)
{
  /* The capture above without the key (Tarantool's segments, older
   * captures): every live block counts, so the churn looks like a leak. */
  write_leak_amid_young_churn(12, 0);
  struct diff_result result;
  run_trend(&result, 1);
  ck_assert_uint_eq(result.flagged, 2);
  const struct diff_site *churn = find_site(&result, "@t.lua:40");
  ck_assert_int_eq(churn->verdict, DIFF_VERDICT_GROWING);
  ck_assert_uint_eq(churn->live_bytes[0], 1000);
  ck_assert_uint_eq(churn->live_bytes[11], 12000);
  diff_result_free(&result);
}
END_TEST

START_TEST(test_blocks_of_4_gib_and_more_keep_their_exact_sizes)
{
  const uint64_t gib = 1ull << 30;
  struct fixture_segment s;
  begin_segment(&s, 1);
  fixture_alloc(&s, 10, 0xa000, 5 * gib);
  fixture_alloc(&s, 11, 0xb000, 6 * gib);
  fixture_alloc(&s, 12, 0xb000, 7 * gib);  /* closes the 6 GiB block */
  fixture_alloc(&s, 13, 0xc000, 8 * gib);
  fixture_free(&s, 20, 0xc000, 8 * gib);
  fixture_alloc(&s, 13, 0xc000, 3);        /* a small block where a big one was */
  fixture_end(&s, 0);
  begin_segment(&s, 2);
  fixture_free(&s, 20, 0xa000, 5 * gib);
  fixture_alloc(&s, 14, 0xd000, 0xffffffffull);  /* the first size kept aside */
  fixture_alloc(&s, 15, 0xe000, 0xfffffffeull);  /* the last one kept in the slot */
  fixture_end(&s, 0);

  for (int jobs = 1; jobs <= 2; jobs++) {
    struct diff_result result;
    run_trend(&result, jobs);
    const struct diff_site *site = find_site(&result, "@t.lua:10");
    assert_series(site->live_bytes, site->count, (const uint64_t[]){5 * gib, 0}, 2);
    assert_series(site->free_bytes, site->count, (const uint64_t[]){0, 5 * gib}, 2);
    site = find_site(&result, "@t.lua:11");
    assert_series(site->live_bytes, site->count, (const uint64_t[]){0, 0}, 2);
    assert_series(site->free_bytes, site->count, (const uint64_t[]){6 * gib, 0}, 2);
    site = find_site(&result, "@t.lua:12");
    assert_series(site->live_bytes, site->count, (const uint64_t[]){7 * gib, 7 * gib}, 2);
    site = find_site(&result, "@t.lua:13");
    assert_series(site->live_bytes, site->count, (const uint64_t[]){3, 3}, 2);
    assert_series(site->alloc_bytes, site->count, (const uint64_t[]){8 * gib + 3, 0}, 2);
    assert_series(site->free_bytes, site->count, (const uint64_t[]){8 * gib, 0}, 2);
    site = find_site(&result, "@t.lua:14");
    assert_series(site->live_bytes, site->count, (const uint64_t[]){0, 0xffffffffull}, 2);
    site = find_site(&result, "@t.lua:15");
    assert_series(site->live_bytes, site->count, (const uint64_t[]){0, 0xfffffffeull}, 2);
    diff_result_free(&result);
  }
}
END_TEST

START_TEST(test_parallel_reading_stops_at_a_corrupt_segment_in_the_middle)
{
  write_long_capture(12);
  char path[600];
  segment_file(path, sizeof path, 7);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs("not a memprof stream", f);
  fclose(f);
  for (int jobs = 1; jobs <= 3; jobs++) {
    struct diff_options options;
    diff_options_default(&options);
    options.jobs = jobs;
    struct diff_result result;
    struct format_error err;
    const char *paths[1] = {dir};
    ck_assert_int_eq(diff_trend(paths, 1, &options, &result, &err), FORMAT_BAD_INPUT);
    ck_assert_ptr_nonnull(strstr(err.message, "seg-0007.memprof"));
  }
}
END_TEST

/* ---- The result model -------------------------------------------------------- */

START_TEST(test_flagged_is_new_or_worse_in_every_mode_and_growing_outside_base)
{
  /* Columns: trend, range, base. */
  static const struct {
    enum diff_verdict verdict;
    int flagged[3];
  } table[] = {
      {DIFF_VERDICT_INSUFFICIENT, {0, 0, 0}}, {DIFF_VERDICT_STEADY, {0, 0, 0}},
      {DIFF_VERDICT_SHRINKING, {0, 0, 0}},    {DIFF_VERDICT_GROWING, {1, 1, 0}},
      {DIFF_VERDICT_NEW, {1, 1, 1}},          {DIFF_VERDICT_WORSE, {1, 1, 1}}};
  static const enum diff_mode modes[3] = {DIFF_MODE_TREND, DIFF_MODE_RANGE, DIFF_MODE_BASE};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    for (size_t m = 0; m < 3; m++) {
      struct diff_site site = {.verdict = table[i].verdict};
      ck_assert_msg(diff_site_flagged(modes[m], &site) == table[i].flagged[m], "%s in %s",
                    diff_verdict_name(table[i].verdict), diff_mode_name(modes[m]));
    }
}
END_TEST

START_TEST(test_flagged_count_counts_the_sites_flagged_in_the_results_mode)
{
  struct diff_site sites[4] = {{.verdict = DIFF_VERDICT_GROWING}, {.verdict = DIFF_VERDICT_NEW},
                               {.verdict = DIFF_VERDICT_STEADY}, {.verdict = DIFF_VERDICT_WORSE}};
  struct diff_result result = {.mode = DIFF_MODE_TREND, .site_count = 4, .sites = sites};
  diff_result_fill_facts(&result);
  ck_assert_uint_eq(result.facts.tally.flagged, 3);
  ck_assert_int_eq(sites[1].facts.flagged, 1);
  ck_assert_int_eq(sites[2].facts.flagged, 0);
  result.mode = DIFF_MODE_BASE;
  diff_result_fill_facts(&result);
  ck_assert_uint_eq(result.facts.tally.flagged, 2);
  ck_assert_int_eq(sites[0].facts.flagged, 0);
  result.site_count = 0;
  diff_result_fill_facts(&result);
  ck_assert_uint_eq(result.facts.tally.flagged, 0);
}
END_TEST

START_TEST(test_model_names_parse_back_and_unknown_values_are_refused)
{
  for (int v = DIFF_VERDICT_INSUFFICIENT; v <= DIFF_VERDICT_WORSE; v++) {
    enum diff_verdict back = DIFF_VERDICT_STEADY;
    ck_assert_int_eq(diff_verdict_parse(diff_verdict_name((enum diff_verdict)v), &back), 0);
    ck_assert_int_eq(back, v);
  }
  for (int m = DIFF_MODE_TREND; m <= DIFF_MODE_BASE; m++) {
    enum diff_mode back = DIFF_MODE_TREND;
    ck_assert_int_eq(diff_mode_parse(diff_mode_name((enum diff_mode)m), &back), 0);
    ck_assert_int_eq(back, m);
  }
  for (int k = DIFF_SITE_INTERNAL; k <= DIFF_SITE_C; k++) {
    enum diff_site_kind back = DIFF_SITE_LUA;
    ck_assert_int_eq(diff_site_kind_parse(diff_site_kind_name((enum diff_site_kind)k), &back), 0);
    ck_assert_int_eq(back, k);
  }
  ck_assert_str_eq(diff_mode_name(DIFF_MODE_RANGE), "range");
  ck_assert_str_eq(diff_site_kind_name(DIFF_SITE_TRACE), "trace");
  ck_assert_str_eq(diff_verdict_name((enum diff_verdict)99), "unknown");
  ck_assert_str_eq(diff_mode_name((enum diff_mode)99), "unknown");
  enum diff_verdict verdict = DIFF_VERDICT_STEADY;
  ck_assert_int_eq(diff_verdict_parse("Growing", &verdict), -1);
  ck_assert_int_eq(diff_verdict_parse("unknown", &verdict), -1);
  ck_assert_int_eq(verdict, DIFF_VERDICT_STEADY);
  enum diff_mode mode = DIFF_MODE_BASE;
  ck_assert_int_eq(diff_mode_parse("", &mode), -1);
  ck_assert_int_eq(mode, DIFF_MODE_BASE);
  enum diff_site_kind kind = DIFF_SITE_C;
  ck_assert_int_eq(diff_site_kind_parse("C", &kind), -1);
  ck_assert_int_eq(kind, DIFF_SITE_C);
}
END_TEST

START_TEST(test_result_free_releases_everything_and_zeroes_the_result)
{
  struct diff_result result;
  memset(&result, 0, sizeof result);
  result.mode = DIFF_MODE_BASE;
  result.capture.path = strdup("cap");
  result.capture.boundary_times = calloc(2, sizeof(double));
  result.base.host = strdup("host");
  result.site_count = 1;
  result.sites = calloc(1, sizeof *result.sites);
  ck_assert_ptr_nonnull(result.sites);
  result.sites[0].name = strdup("@a.lua:1");
  result.sites[0].live_bytes = calloc(3, sizeof(uint64_t));
  result.sites[0].base_live_bytes = calloc(3, sizeof(uint64_t));
  result.flagged = 1;
  diff_result_free(&result);  /* valgrind and ASan check that nothing is left */
  ck_assert_ptr_null(result.sites);
  ck_assert_ptr_null(result.capture.path);
  ck_assert_ptr_null(result.base.host);
  ck_assert_uint_eq(result.site_count, 0);
  ck_assert_uint_eq(result.flagged, 0);
  diff_result_free(&result);  /* twice is harmless */
  diff_result_free(NULL);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("diff");
  TCase *tc = tcase_create("aggregation");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_block_born_in_segment_1_and_freed_in_3_is_charged_until_3);
  tcase_add_test(tc, test_free_of_unknown_address_is_ignored);
  tcase_add_test(tc, test_live_map_remove_dead_keeps_every_live_block);
  tcase_add_test(tc, test_live_map_grows_in_place_with_a_crowded_end);
  tcase_add_test(tc, test_live_map_grows_in_place_with_a_very_crowded_end);
  tcase_add_test(tc, test_live_map_keeps_every_block_through_growths);
  tcase_add_test(tc, test_merge_by_address_and_by_taking_the_segment_map_agree);
  tcase_add_test(tc, test_alloc_over_live_address_closes_old_block);
  tcase_add_test(tc, test_realloc_frees_old_block_and_charges_new_one_to_realloc_site);
  tcase_add_test(tc, test_site_hash_collisions_never_merge_sites);
  tcase_add_test(tc, test_colliding_sites_keep_their_own_series_across_segments);
  tcase_add_test(tc, test_sampled_capture_is_scaled_back_by_the_rate);
  tcase_add_test(tc, test_cut_part_segment_is_used_up_to_its_last_complete_event);
  tcase_add_test(tc, test_segment_cut_short_is_no_boundary);
  tcase_add_test(tc, test_unreadable_segment_is_an_input_error);
  tcase_add_test(tc, test_parallel_reading_gives_the_sequential_result);
  tcase_add_test(tc, test_range_mode_gives_delta_between_two_boundaries);
  tcase_add_test(tc, test_base_mode_gives_new_and_worse);
  tcase_add_test(tc, test_tarantool_segments_flag_the_sessions_site_only);
  tcase_add_test(tc, test_young_block_is_counted_at_the_next_boundary);
  tcase_add_test(tc, test_young_churn_growing_with_a_leak_is_steady);
  tcase_add_test(tc, test_without_young_from_young_churn_counts_and_grows);
  tcase_add_test(tc, test_blocks_of_4_gib_and_more_keep_their_exact_sizes);
  tcase_add_test(tc, test_parallel_reading_stops_at_a_corrupt_segment_in_the_middle);
  suite_add_tcase(s, tc);
  TCase *model = tcase_create("model");
  tcase_add_test(model, test_flagged_is_new_or_worse_in_every_mode_and_growing_outside_base);
  tcase_add_test(model, test_flagged_count_counts_the_sites_flagged_in_the_results_mode);
  tcase_add_test(model, test_model_names_parse_back_and_unknown_values_are_refused);
  tcase_add_test(model, test_result_free_releases_everything_and_zeroes_the_result);
  suite_add_tcase(s, model);
  return check_run(s);
}
