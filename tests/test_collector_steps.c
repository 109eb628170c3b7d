/* tests/test_collector_steps.c: the snapshots of the middle of a run take their full cycle in steps (collector/gc_steps.c): the program runs between them, and a program with a hook of its own, or one that sets a hook or stops its GC meanwhile, keeps what it set (tests/lua/collector_snapshot_steps.lua checks the program's side). */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/check_run.h"
#include "tests/collector_capture.h"
#include "format/capture_index.h"

/* Runs the program in MODE under ljleak run --snapshots SNAPSHOTS, JIT on or off, and puts the
 * path of the capture's index in index (size bytes). The program checks its side itself
 * (exit 0). */
static void run_capture(const char *mode, int jit, int snapshots, char *index, size_t size)
{
  char dir[1024], cap[1100], path[1200];
  char name[64];
  snprintf(name, sizeof name, "%s-%s", mode, jit ? "on" : "off");
  scratch(dir, sizeof dir, name);
  snprintf(cap, sizeof cap, "%s/cap", dir);
  ck_assert_msg(sh("'%s/ljleak' run -j %s --snapshots %d -o '%s' tests/lua/collector_snapshot_steps.lua %s "
                   ">'%s/out' 2>&1",
                   build_dir(), jit ? "on" : "off", snapshots, cap, mode, dir) == 0,
                "%s: %s", name, slurp(strcat(strcpy(path, dir), "/out")));
  ck_assert_int_lt(snprintf(index, size, "%s/index", cap), (int)size);
}

/* run_capture with --snapshots 3, its index read into *index. */
static void run_mode(const char *mode, int jit, struct capture_index *index)
{
  char path[1200];
  run_capture(mode, jit, 3, path, sizeof path);
  struct format_error error;
  ck_assert_int_eq(capture_index_read_file(index, path, &error), FORMAT_OK);
}

/* The boundaries of snapshots of the middle of the run taken on the 80 MB heap (64 MiB or more
 * live: in steps; cause "snapshot", the cycle's own: their snapshot may have been dropped since):
 * how many, and of them how many saw the program's events while their cycle ran (more than
 * PROGRAM_EVENTS between young_from and the boundary's events: a cycle in one go has a few of
 * its own, the VM's). */
#define PROGRAM_EVENTS 64
static void heap_snapshots(const struct capture_index *index, int *taken, int *stepped)
{
  *taken = *stepped = 0;
  for (size_t i = 0; i < index->boundary_count; i++) {
    const struct capture_index_boundary *b = &index->boundaries[i];
    if (b->heap_bytes < 70u << 20 || !b->cause || strcmp(b->cause, "snapshot"))
      continue;
    (*taken)++;
    *stepped += b->events - b->young_from > PROGRAM_EVENTS;
  }
}

/* Runs MODE and checks its snapshots on the heap: one or more, each cycle in steps (all of
 * them see the program's events) or in one go (none does). */
static void check_heap_snapshots(const char *mode, int jit, int in_steps)
{
  struct capture_index index;
  run_mode(mode, jit, &index);
  int taken, stepped;
  heap_snapshots(&index, &taken, &stepped);
  ck_assert_int_ge(taken, 1);
  ck_assert_int_eq(stepped, in_steps ? taken : 0);
  capture_index_free(&index);
}

/* Every snapshot of the middle of a run on a large heap runs its cycle in steps, the program
 * between them; the boundary is the cycle's own ("snapshot"). */
START_TEST(test_a_snapshot_of_the_middle_runs_its_cycle_in_steps)
{
  check_heap_snapshots("steps", _i, 1);
}
END_TEST

/* A program with a count hook of its own: the cycle runs in one go (no event of the program
 * within it), and the hook is the program's after it. */
START_TEST(test_a_program_with_its_own_hook_keeps_it_and_the_snapshot_runs_in_one_go)
{
  check_heap_snapshots("own_hook", _i, 0);
}
END_TEST

/* A program that sets a hook, or stops its GC, while a snapshot's cycle runs in steps keeps
 * what it set (the program checks); the capture goes on, with boundaries after it. */
START_TEST(test_a_program_that_sets_a_hook_or_stops_its_gc_meanwhile_keeps_it)
{
  static const char *const modes[] = {"set_hook", "stop_gc"};
  for (int m = 0; m < 2; m++) {
    struct capture_index index;
    run_mode(modes[m], _i, &index);
    ck_assert_uint_ge(index.boundary_count, 3);
    ck_assert_str_eq(index.boundaries[index.boundary_count - 1].cause, "exit");
    capture_index_free(&index);
  }
}
END_TEST

/* A loop that runs compiled (JIT on: no safe point but every 256 rounds, where it calls the
 * collector) while snapshots of the middle of the run are taken on the 80 MB heap: each holds
 * the live heap and a little garbage, not what the loop made after the VM's own steps ended
 * the cycle on a trace (twice the live heap, before the sweep ran in one go at the safe point
 * after the marking). With the JIT off, the steps end the cycle and the same holds. Every
 * snapshot line of the index counts, those of snapshots dropped since among them. */
START_TEST(test_a_compiled_loop_s_snapshots_hold_the_live_heap)
{
  char path[1200];
  run_capture("compiled", _i, 8, path, sizeof path);
  char *text = slurp(path);
  uint64_t least = UINT64_MAX, most = 0;
  size_t large = 0;
  for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    const char *objects = strstr(line, "\tobjects="), *bytes = strstr(line, "\tobject_bytes="), *end = strchr(line, '\n');
    if (strncmp(line, "snapshot\t", 9) || !objects || !bytes || (end && objects > end) || (end && bytes > end))
      continue;
    uint64_t n = strtoull(objects + 9, NULL, 10);
    if (strtoull(bytes + 14, NULL, 10) < 70u << 20)
      continue;
    large++;
    least = n < least ? n : least;
    most = n > most ? n : most;
  }
  free(text);
  ck_assert_uint_ge(large, 3);
  ck_assert_msg(most * 4 <= least * 5, "a snapshot of %" PRIu64 " objects where %" PRIu64 " are live", most, least);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("collector_steps");
  TCase *tc = tcase_create("steps");
  tcase_set_timeout(tc, 240);
  tcase_add_loop_test(tc, test_a_snapshot_of_the_middle_runs_its_cycle_in_steps, 0, 2);
  tcase_add_loop_test(tc, test_a_program_with_its_own_hook_keeps_it_and_the_snapshot_runs_in_one_go, 0, 2);
  tcase_add_loop_test(tc, test_a_program_that_sets_a_hook_or_stops_its_gc_meanwhile_keeps_it, 0, 2);
  tcase_add_loop_test(tc, test_a_compiled_loop_s_snapshots_hold_the_live_heap, 0, 2);
  suite_add_tcase(s, tc);
  return check_run(s);
}
