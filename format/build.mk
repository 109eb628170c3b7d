# format/build.mk: the memprof codec, its Check suites and its fuzz target.
format_SRCS := format/uleb128.c format/reader.c format/reader_input.c format/writer.c format/symtab.c format/units.c \
  format/whole_file.c format/input_file.c format/error.c format/capture_layout.c format/key_value.c format/utf8.c \
  format/json_write.c format/json_read.c

# format/error.c: the one error type's messages, cut at the buffer's end
$(call check_suite,test_format_error,format container)
# format/capture_layout.c: the capture directory's file names
$(call check_suite,test_format_layout,format container)
# format/json_write.c: members a line, one-line records and arrays among them
$(call check_suite,test_format_json_write,format container)
# format/utf8.c: text for a terminal, escaped
$(call check_suite,test_format_utf8,format container)
# format/uleb128.c
$(call check_suite,test_uleb128,format container)
# format/reader.c
$(call check_suite,test_format_reader,format container)
# format/writer.c
$(call check_suite,test_format_writer,format container)
# format/encode.h, the encoder the collector's hook inlines, against format/writer.c
$(call check_suite,test_format_encode,format container)
# format/symtab.c
$(call check_suite,test_format_symtab,format container)
# the reader on cut, corrupt and unusual input
$(call check_suite,test_format_bad_input,format container)
# the same suite with the reader compiled in, with a 4 KiB window
$(call check_suite,test_format_small_window,format container)
# the batch event call against one record at a time
$(call check_suite,test_format_batch,format container)

# The reader's libFuzzer target (tests/fuzz/fuzz_reader.c), built with clang's
# fuzzer and sanitizers from the format sources, with a 1 KiB reader window
# so that refills and names longer than the window happen on small inputs.
# `make fuzz` runs it on a copy of the seed corpus.
$(call fuzz_target,fuzz_reader,format container,tests/fuzz/corpus/reader/*,-DMEMPROF_READER_WINDOW=1024)
# format/capture_index.c (parser) and capture_index_write.c (writer): the capture index, the collector's exact bytes
format_SRCS += format/capture_index.c format/capture_index_write.c
# format/test_list.c: the test list of ljleak busted (DIR/tests)
format_SRCS += format/test_list.c
# format/capture_files.c: a capture directory read once (its index, segments and snapshots)
format_SRCS += format/capture_files.c
$(call check_suite,test_format_capture_files,format container)
$(call check_suite,test_format_index,format container)

# The index parser's libFuzzer target (tests/fuzz/fuzz_index.c): any bytes are
# parsed; what parses is written back and read again, and prefixes of it (a
# process killed mid-write) read too. `make fuzz` runs it on a copy of the seeds.
$(call fuzz_target,fuzz_index,format container,tests/fuzz/corpus/index/*)
# format/stacks_write.c (encoder) and stacks_read.c (decoder): the stack sidecar (docs/stacks-format.md)
format_SRCS += format/stacks_write.c format/stacks_read.c
$(call check_suite,test_format_stacks,format container)

# The sidecar reader's libFuzzer target (tests/fuzz/fuzz_stacks.c), with a
# 64-byte read chunk so that refills and records longer than the buffer
# happen on small inputs. `make fuzz` runs it on a copy of the seeds.
$(call fuzz_target,fuzz_stacks,format container,tests/fuzz/corpus/stacks/*,-DSTACKS_READER_CHUNK=64)
# format/control_file.c (parsers) and control_file_write.c (writers): the control
# channel's registration and request files (docs/control-format.md)
format_SRCS += format/control_file.c format/control_file_write.c
$(call check_suite,test_format_control,format container)

# The control files' libFuzzer target (tests/fuzz/fuzz_control.c): any bytes
# are parsed as a registration and as a request; what parses is written back
# and reads back the same, and prefixes of it read too. `make fuzz` runs it on
# a copy of the seeds.
$(call fuzz_target,fuzz_control,format container,tests/fuzz/corpus/control/*)
# format/snapshot_write.c (encoder), snapshot_read.c (decoder) and snapshot_index.c (its objects by address, the lookups): heap snapshots (docs/snapshot-format.md)
format_SRCS += format/snapshot_write.c format/snapshot_read.c format/snapshot_index.c
$(call check_suite,test_format_snapshot,format container)

# The snapshot reader's libFuzzer target (tests/fuzz/fuzz_snapshot.c): any bytes are read; an
# error names a byte inside the input; what reads is written again and reads back the same, and
# its prefixes (a cut file) read as cut. `make fuzz` runs it on a copy of the seeds.
$(call fuzz_target,fuzz_snapshot,format container,tests/fuzz/corpus/snapshot/*)
# format/snapshot_values.c: a heap snapshot's values sidecar, written only on request (docs/snapshot-format.md, "Values")
format_SRCS += format/snapshot_values.c
$(call check_suite,test_format_snapshot_values,format container)

# The values sidecar reader's libFuzzer target (tests/fuzz/fuzz_values.c): any bytes are read; an
# error names a byte inside the input; what reads is written again and reads back the same, and
# its prefixes read as cut. `make fuzz` runs it on a copy of the seeds.
$(call fuzz_target,fuzz_values,format container,tests/fuzz/corpus/values/*)
# format/test_list.c: every field written and read back, cut files, bad input at its byte
$(call check_suite,test_format_test_list,format container)

# The test list reader's libFuzzer target (tests/fuzz/fuzz_test_list.c): any bytes are parsed; an
# error names a byte inside the input; what parses is written back and reads back the same, and
# its prefixes keep their complete lines. `make fuzz` runs it on a copy of the seeds.
$(call fuzz_target,fuzz_test_list,format container,tests/fuzz/corpus/test_list/*)
