/* tests/test_format_capture_files.c: a capture directory read once (format/capture_files.h): the index's segments in its order, the directory's by name without one, the segments being written, the snapshots with their values sidecars and boundary lines (a name outside the directory left out), a malformed index an error at its byte, an index, a segment, a sidecar or a snapshot that is a link, a FIFO or a sparse file refused (format/input_file.h); and the run directory's names (format/control_file.h). */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/check_run.h"
#include "format/capture_files.h"
#include "format/capture_layout.h"
#include "format/control_file.h"
#include "format/input_file.h"
#include "format/memprof.h"
#include "format/snapshot.h"
#include "format/snapshot_values.h"
#include "format/stacks.h"
#include "format/whole_file.h"

static char dir[64];

static void setup(void)
{
  snprintf(dir, sizeof dir, "/tmp/ljleak-files-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
  char command[128];
  snprintf(command, sizeof command, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(command), 0);
}

static void put(const char *name, const char *text)
{
  char path[256];
  capture_layout_join(dir, name, path, sizeof path);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

static const char *base(const char *path)
{
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

START_TEST(test_an_index_lists_segments_snapshots_and_their_boundary_lines)
{
  put("index", "ljleak-index\tversion=1\ncapture\tpid=7\tsample=0\n"
               "segment\tseq=2\tfile=seg-0002.memprof\tevents=1\tcomplete=1\n"
               "segment\tseq=1\tfile=../seg-0001.memprof\tevents=1\tcomplete=1\n"
               "boundary\tseq=4\tsegment=2\tevents=0\tcause=gc\n"
               "snapshot\tboundary=4\tfile=snap-0004.heap\n"
               "boundary\tseq=5\tsegment=2\tevents=1\tcause=exit\n"
               "snapshot\tboundary=5\tfile=snap-0005.heap\n"
               "snapshot\tboundary=9\tfile=../snap-0009.heap\n"
               "snapshot\tboundary=8\tfile=snap-0008.heap\n");
  put("seg-0002.memprof", "");
  put("seg-0001.memprof", "");  /* in the directory, but the index lists no such name here */
  put("seg-0003.memprof.part", "");
  put("snap-0004.heap", "");
  put("snap-0004.values", "");
  put("snap-0005.heap", "");
  struct capture_files files;
  struct format_error error;
  ck_assert_int_eq(capture_files_open(&files, dir, &error), FORMAT_OK);
  ck_assert_int_eq(files.has_index, 1);
  ck_assert_str_eq(files.index_error.message, "");
  ck_assert_uint_eq(files.segment_count, 1);
  ck_assert_str_eq(base(files.segments[0]), "seg-0002.memprof");
  ck_assert_uint_eq(files.part_count, 1);
  ck_assert_str_eq(base(files.parts[0]), "seg-0003.memprof.part");
  ck_assert_uint_eq(files.snapshot_count, 3);  /* ../snap-0009.heap is no file of the directory */
  ck_assert_str_eq(base(files.snapshots[0].path), "snap-0004.heap");
  ck_assert_str_eq(base(files.snapshots[0].values_path), "snap-0004.values");
  ck_assert_uint_eq(files.snapshots[0].boundary, 0);
  ck_assert_ptr_null(files.snapshots[1].values_path);
  ck_assert_uint_eq(files.snapshots[1].boundary, 1);
  ck_assert_uint_eq(files.snapshots[2].line->boundary, 8);
  ck_assert_uint_eq(files.snapshots[2].boundary, CAPTURE_FILES_NONE);  /* no boundary line has seq 8 */
  capture_files_free(&files);
}
END_TEST

START_TEST(test_a_finished_segment_not_yet_listed_is_read_as_the_last)
{
  /* Stopped between naming segment 3 finished and listing it: it comes first among the
   * segments being written; a later finished file is no segment of this capture. */
  put("index", "ljleak-index\tversion=1\ncapture\tpid=7\tsample=0\n"
               "segment\tseq=1\tfile=seg-0001.memprof\tevents=1\tcomplete=1\n"
               "segment\tseq=2\tfile=seg-0002.memprof\tevents=1\tcomplete=1\n");
  put("seg-0001.memprof", "");
  put("seg-0002.memprof", "");
  put("seg-0003.memprof.gz", "");
  put("seg-0004.memprof.gz.part", "");
  put("seg-0009.memprof", "");
  struct capture_files files;
  struct format_error error;
  ck_assert_int_eq(capture_files_open(&files, dir, &error), FORMAT_OK);
  ck_assert_uint_eq(files.segment_count, 2);
  ck_assert_uint_eq(files.part_count, 2);
  ck_assert_str_eq(base(files.parts[0]), "seg-0003.memprof.gz");
  ck_assert_str_eq(base(files.parts[1]), "seg-0004.memprof.gz.part");
  capture_files_free(&files);
  /* A stop line: the capture ended and listed every segment it made; seg-0003 is not its. */
  put("index", "ljleak-index\tversion=1\ncapture\tpid=7\tsample=0\n"
               "segment\tseq=1\tfile=seg-0001.memprof\tevents=1\tcomplete=1\n"
               "segment\tseq=2\tfile=seg-0002.memprof\tevents=1\tcomplete=1\n"
               "stop\ttime=1.5\treason=exit\n");
  ck_assert_int_eq(capture_files_open(&files, dir, &error), FORMAT_OK);
  ck_assert_uint_eq(files.part_count, 1);
  ck_assert_str_eq(base(files.parts[0]), "seg-0004.memprof.gz.part");
  capture_files_free(&files);
}
END_TEST

START_TEST(test_without_an_index_the_segments_go_by_name)
{
  put("b.memprof", "");
  put("a.bin", "");
  put("notes.txt", "");
  struct capture_files files;
  struct format_error error;
  ck_assert_int_eq(capture_files_open(&files, dir, &error), FORMAT_OK);
  ck_assert_int_eq(files.has_index, 0);
  ck_assert_ptr_nonnull(strstr(files.index_error.message, "/index: cannot open"));
  ck_assert_uint_eq(files.segment_count, 2);
  ck_assert_str_eq(base(files.segments[0]), "a.bin");
  ck_assert_str_eq(base(files.segments[1]), "b.memprof");
  ck_assert_uint_eq(files.snapshot_count, 0);
  capture_files_free(&files);
}
END_TEST

START_TEST(test_a_malformed_index_is_an_error_at_its_byte)
{
  put("index", "ljleak-index\tversion=1\nsegment\tseq=x\n");
  struct capture_files files;
  struct format_error error;
  ck_assert_int_eq(capture_files_open(&files, dir, &error), FORMAT_BAD_INPUT);
  char expected[128];
  snprintf(expected, sizeof expected, "%s/index: byte 31: segment line", dir);
  ck_assert_msg(!strncmp(error.message, expected, strlen(expected)), "%s", error.message);
  capture_files_free(&files);
  char missing[96];
  snprintf(missing, sizeof missing, "%s/none", dir);
  ck_assert_int_eq(capture_files_open(&files, missing, &error), FORMAT_IO);
  ck_assert_ptr_nonnull(strstr(error.message, "/none: cannot open the directory"));
  capture_files_free(&files);
}
END_TEST

/* An index that is a link is not followed, nor one that is a FIFO waited on: each is refused,
 * naming it, rather than read as no index (which loses the capture's boundaries). */
START_TEST(test_an_index_that_is_a_link_or_a_fifo_is_refused)
{
  put("real", "ljleak-index\tversion=1\ncapture\tpid=7\n");
  char index_path[128], expected[192];
  capture_layout_join(dir, "index", index_path, sizeof index_path);
  ck_assert_int_eq(symlink("real", index_path), 0);
  struct capture_files files;
  struct format_error error;
  ck_assert_int_eq(capture_files_open(&files, dir, &error), FORMAT_IO);
  snprintf(expected, sizeof expected, "%s: not a regular file (a link, not followed", index_path);
  ck_assert_msg(!strncmp(error.message, expected, strlen(expected)), "%s", error.message);
  capture_files_free(&files);
  ck_assert_int_eq(unlink(index_path), 0);
  ck_assert_int_eq(mkfifo(index_path, 0600), 0);
  ck_assert_int_eq(capture_files_open(&files, dir, &error), FORMAT_IO);  /* no writer: it would wait */
  snprintf(expected, sizeof expected, "%s: not a regular file (a FIFO): refused", index_path);
  ck_assert_str_eq(error.message, expected);
  capture_files_free(&files);
}
END_TEST

/* What a file is decides whether it is opened (format/input_file.h): one found in a capture
 * directory only as a regular file, not through a link; one the user named through links, and a
 * FIFO as a stream; a device never (a name of either kind), nor a directory. */
START_TEST(test_input_files_are_opened_by_kind)
{
  char regular[128], link_path[128], fifo[128], to_null[128];
  put("seg-0001.memprof", "x");
  capture_layout_join(dir, "seg-0001.memprof", regular, sizeof regular);
  capture_layout_join(dir, "seg-0002.memprof", link_path, sizeof link_path);
  capture_layout_join(dir, "seg-0003.memprof", fifo, sizeof fifo);
  capture_layout_join(dir, "seg-0004.memprof", to_null, sizeof to_null);
  ck_assert_int_eq(symlink("seg-0001.memprof", link_path), 0);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  ck_assert_int_eq(symlink("/dev/null", to_null), 0);
  struct format_error error;
  int fd = input_file_open(AT_FDCWD, regular, regular, INPUT_FILE_FOUND, &error);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
  close(fd);
  ck_assert_int_eq(input_file_open(AT_FDCWD, link_path, link_path, INPUT_FILE_FOUND, &error), -1);
  ck_assert_ptr_nonnull(strstr(error.message, "seg-0002.memprof: not a regular file (a link"));
  ck_assert_int_eq(input_file_open(AT_FDCWD, fifo, fifo, INPUT_FILE_FOUND, &error), -1);
  ck_assert_ptr_nonnull(strstr(error.message, "seg-0003.memprof: not a regular file (a FIFO): refused"));
  for (int how = INPUT_FILE_NAMED; how <= INPUT_FILE_FOUND; how++) {
    ck_assert_int_eq(input_file_open(AT_FDCWD, to_null, to_null, (enum input_file_how)how, &error), -1);
    ck_assert_int_eq(error.status, FORMAT_IO);
  }
  ck_assert_ptr_nonnull(strstr(error.message, "seg-0004.memprof: not a regular file (a link"));
  ck_assert_int_eq(input_file_open(AT_FDCWD, to_null, to_null, INPUT_FILE_NAMED, &error), -1);
  ck_assert_ptr_nonnull(strstr(error.message, "seg-0004.memprof: not a regular file (a character device)"));
  ck_assert_int_eq(input_file_open(AT_FDCWD, dir, dir, INPUT_FILE_NAMED, &error), -1);
  ck_assert_ptr_nonnull(strstr(error.message, "not a regular file (a directory)"));
  ck_assert_int_ge(fd = input_file_open(AT_FDCWD, link_path, link_path, INPUT_FILE_NAMED, &error), 0);
  char byte = 0;
  ck_assert_int_eq(read(fd, &byte, 1), 1);
  ck_assert_int_eq(byte, 'x');
  close(fd);
  int writer = open(fifo, O_RDWR);  /* a writer there: reading it as a named stream does not wait */
  ck_assert_int_ge(writer, 0);
  ck_assert_int_eq(write(writer, "y", 1), 1);
  ck_assert_int_ge(fd = input_file_open(AT_FDCWD, fifo, fifo, INPUT_FILE_NAMED, &error), 0);
  ck_assert_int_eq(read(fd, &byte, 1), 1);
  ck_assert_int_eq(byte, 'y');
  close(fd);
  close(writer);
}
END_TEST

/* The readers of a capture's files take them as found: a FIFO in the place of a segment, its
 * sidecar or a snapshot is refused at once, not read. */
START_TEST(test_the_readers_refuse_a_fifo_found_in_a_capture)
{
  const char *names[] = {"seg-0001.memprof", "seg-0001.stacks", "snap-0001.heap", "snap-0001.values"};
  char path[4][128];
  for (int i = 0; i < 4; i++) {
    capture_layout_join(dir, names[i], path[i], sizeof path[i]);
    ck_assert_int_eq(mkfifo(path[i], 0600), 0);
  }
  struct format_error error;
  ck_assert_ptr_null(memprof_reader_open_as(path[0], INPUT_FILE_FOUND, &error));
  ck_assert_ptr_nonnull(strstr(error.message, "seg-0001.memprof: not a regular file (a FIFO)"));
  ck_assert_ptr_null(stacks_reader_open(path[1], &error));
  ck_assert_ptr_nonnull(strstr(error.message, "seg-0001.stacks: not a regular file (a FIFO)"));
  struct snapshot snapshot;
  ck_assert_int_eq(snapshot_read_file(&snapshot, path[2], INPUT_FILE_FOUND, &error), FORMAT_IO);
  ck_assert_ptr_nonnull(strstr(error.message, "snap-0001.heap: not a regular file (a FIFO)"));
  struct snapshot_values values;
  ck_assert_int_eq(snapshot_values_read_file(&values, path[3], INPUT_FILE_FOUND, &error), FORMAT_IO);
  ck_assert_ptr_nonnull(strstr(error.message, "snap-0001.values: not a regular file (a FIFO)"));
}
END_TEST

/* A capture's file with a hole is refused where it is found (the collector writes none; its
 * zeros would cost the reader memory and time they cost its owner no disk), before a byte of it
 * is read: the index, a segment, a sidecar, a snapshot, a values sidecar, the hole at its start
 * or after data; the same file named by the user is read, and a found file without a hole is read
 * from its first byte. */
START_TEST(test_a_sparse_file_found_in_a_capture_is_refused)
{
  const char *names[] = {"index", "seg-0001.memprof", "seg-0001.stacks", "snap-0001.heap", "snap-0001.values"};
  char path[5][128];
  for (int i = 0; i < 5; i++) {
    capture_layout_join(dir, names[i], path[i], sizeof path[i]);
    int fd = open(path[i], O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    if (i % 2)  /* data first, then the hole */
      ck_assert_int_eq(write(fd, "ljhs", 4), 4);
    ck_assert_int_eq(ftruncate(fd, (off_t)1 << 40), 0);  /* a terabyte, on no disk */
    close(fd);
  }
  int probe = open(path[0], O_RDONLY);
  off_t hole = lseek(probe, 0, SEEK_HOLE);
  close(probe);
  ck_assert_msg(hole == 0, "the file system of %s cannot tell holes: this test needs one that can", dir);
  struct format_error error;
  char *data;
  size_t size;
  ck_assert_int_eq(whole_file_read(path[0], INPUT_FILE_FOUND, &data, &size, &error), FORMAT_IO);
  ck_assert_ptr_nonnull(strstr(error.message, "index: a sparse file (a hole at byte 0): refused"));
  ck_assert_ptr_null(memprof_reader_open_as(path[1], INPUT_FILE_FOUND, &error));
  ck_assert_ptr_nonnull(strstr(error.message, "seg-0001.memprof: a sparse file (a hole at byte 4096): refused"));
  ck_assert_ptr_null(stacks_reader_open(path[2], &error));
  ck_assert_ptr_nonnull(strstr(error.message, "seg-0001.stacks: a sparse file (a hole at byte 0)"));
  struct snapshot snapshot;
  ck_assert_int_eq(snapshot_read_file(&snapshot, path[3], INPUT_FILE_FOUND, &error), FORMAT_IO);
  ck_assert_ptr_nonnull(strstr(error.message, "snap-0001.heap: a sparse file (a hole at byte 4096)"));
  struct snapshot_values values;
  ck_assert_int_eq(snapshot_values_read_file(&values, path[4], INPUT_FILE_FOUND, &error), FORMAT_IO);
  ck_assert_ptr_nonnull(strstr(error.message, "snap-0001.values: a sparse file (a hole at byte 0)"));
  int fd = input_file_open(AT_FDCWD, path[1], path[1], INPUT_FILE_NAMED, &error);
  ck_assert_int_ge(fd, 0);
  char head[4];
  ck_assert_int_eq(read(fd, head, 4), 4);
  ck_assert_int_eq(memcmp(head, "ljhs", 4), 0);
  close(fd);
  put("seg-0002.memprof", "whole");
  capture_layout_join(dir, "seg-0002.memprof", path[0], sizeof path[0]);
  ck_assert_int_ge(fd = input_file_open(AT_FDCWD, path[0], path[0], INPUT_FILE_FOUND, &error), 0);
  ck_assert_int_eq(read(fd, head, 4), 4);
  ck_assert_int_eq(memcmp(head, "whol", 4), 0);
  close(fd);
}
END_TEST

/* A file read whole: every byte, then a NUL; a regular file, an empty one, and a FIFO the user
 * names, read until its writer closes it. */
START_TEST(test_a_file_is_read_whole)
{
  enum { SIZE = 100003 };
  char *text = malloc(SIZE + 1);
  ck_assert_ptr_nonnull(text);
  for (size_t i = 0; i < SIZE; i++)
    text[i] = (char)('a' + i % 26);
  text[SIZE] = '\0';
  put("big", text);
  put("empty", "");
  char path[256], *data;
  size_t size;
  struct format_error error;
  capture_layout_join(dir, "big", path, sizeof path);
  ck_assert_int_eq(whole_file_read(path, INPUT_FILE_FOUND, &data, &size, &error), FORMAT_OK);
  ck_assert_uint_eq(size, SIZE);
  ck_assert_int_eq(memcmp(data, text, SIZE + 1), 0);
  free(data);
  capture_layout_join(dir, "empty", path, sizeof path);
  ck_assert_int_eq(whole_file_read(path, INPUT_FILE_FOUND, &data, &size, &error), FORMAT_OK);
  ck_assert_uint_eq(size, 0);
  ck_assert_int_eq(data[0], '\0');
  free(data);
  capture_layout_join(dir, "fifo", path, sizeof path);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  pid_t child = fork();
  ck_assert_int_ge(child, 0);
  if (child == 0) {
    alarm(60);  /* no reader ever (the read failed before its open): not blocked for ever */
    int fd = open(path, O_WRONLY);
    int wrote = fd >= 0 && write(fd, text, SIZE) == SIZE;
    free(text);  /* the child's too: valgrind checks it at its exit */
    _exit(wrote ? 0 : 1);
  }
  ck_assert_int_eq(whole_file_read(path, INPUT_FILE_NAMED, &data, &size, &error), FORMAT_OK);
  int status;
  ck_assert_int_eq(waitpid(child, &status, 0), child);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ck_assert_uint_eq(size, SIZE);
  ck_assert_int_eq(memcmp(data, text, SIZE + 1), 0);
  free(data);
  free(text);
}
END_TEST

START_TEST(test_the_run_directory_names)
{
  char out[64];
  ck_assert_uint_eq(control_file_default_run_dir(1000, out, sizeof out), 16);
  ck_assert_str_eq(out, "/tmp/ljleak-1000");
  ck_assert_uint_eq(control_file_default_run_dir(1000, out, 16), 0);
  ck_assert_uint_eq(control_file_name(42, CONTROL_FILE_NAME_REGISTRATION, out, sizeof out), 2);
  ck_assert_str_eq(out, "42");
  ck_assert_uint_eq(control_file_name(42, CONTROL_FILE_NAME_REQUEST, out, sizeof out), 10);
  ck_assert_str_eq(out, "42.request");
  ck_assert_uint_eq(control_file_name(42, CONTROL_FILE_NAME_NEXT, out, sizeof out), 6);
  ck_assert_str_eq(out, "42.tmp");
  ck_assert_uint_eq(control_file_name(42, CONTROL_FILE_NAME_NEXT, out, 6), 0);
  ck_assert_uint_eq(capture_layout_directory_of("a/b/c.heap", out, sizeof out), 3);
  ck_assert_str_eq(out, "a/b");
  ck_assert_uint_eq(capture_layout_directory_of("c.heap", out, sizeof out), 1);
  ck_assert_str_eq(out, ".");
  ck_assert_uint_eq(capture_layout_directory_of("/c.heap", out, sizeof out), 1);
  ck_assert_str_eq(out, "/");
}
END_TEST

int main(void)
{
  Suite *suite = suite_create("format_capture_files");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_an_index_lists_segments_snapshots_and_their_boundary_lines);
  tcase_add_test(tc, test_a_finished_segment_not_yet_listed_is_read_as_the_last);
  tcase_add_test(tc, test_without_an_index_the_segments_go_by_name);
  tcase_add_test(tc, test_a_malformed_index_is_an_error_at_its_byte);
  tcase_add_test(tc, test_an_index_that_is_a_link_or_a_fifo_is_refused);
  tcase_add_test(tc, test_input_files_are_opened_by_kind);
  tcase_add_test(tc, test_the_readers_refuse_a_fifo_found_in_a_capture);
  tcase_add_test(tc, test_a_sparse_file_found_in_a_capture_is_refused);
  tcase_add_test(tc, test_the_run_directory_names);
  tcase_add_test(tc, test_a_file_is_read_whole);
  suite_add_tcase(suite, tc);
  return check_run(suite);
}
