/* format/stacks_write.c: the stack sidecar's one encoder (docs/stacks-format.md), into a caller-owned buffer; never allocates. */
#include <string.h>

#include "format/stacks.h"

/* Most bytes a frame takes: kind, name id, two lines. */
#define FRAME_MAX (1 + 5 + 2 * MEMPROF_ULEB128_MAX)
/* Most bytes of a record without its string or frames. */
#define RECORD_HEAD_MAX (1 + 3 * MEMPROF_ULEB128_MAX)

void stacks_writer_init(struct stacks_writer *w, uint8_t *buffer, size_t capacity,
                        memprof_sink_fn sink, void *sink_context)
{
  memset(w, 0, sizeof *w);
  memprof_writer_init(&w->out, buffer, capacity, sink, sink_context);
  w->out.failed = capacity < STACKS_WRITER_MIN_CAPACITY;
}

int stacks_writer_flush(struct stacks_writer *w)
{
  return memprof_writer_flush(&w->out);
}

static void put_uleb(struct stacks_writer *w, uint64_t value)
{
  size_t n = memprof_uleb128_encode(w->out.buffer + w->out.used, value);
  w->out.used += n;
  w->out.bytes_written += n;
}

static void put_byte(struct stacks_writer *w, uint8_t byte)
{
  w->out.buffer[w->out.used++] = byte;
  w->out.bytes_written++;
}

int stacks_writer_header(struct stacks_writer *w)
{
  static const uint8_t header[STACKS_HEADER_BYTES] = {'l', 'j', 's', 't', STACKS_VERSION, 0, 0, 0};
  if (memprof_writer_reserve(&w->out, sizeof header) != 0)
    return -1;
  memcpy(w->out.buffer + w->out.used, header, sizeof header);
  w->out.used += sizeof header;
  w->out.bytes_written += sizeof header;
  return 0;
}

uint32_t stacks_writer_string(struct stacks_writer *w, const char *bytes, size_t length)
{
  if (memprof_writer_reserve(&w->out, RECORD_HEAD_MAX) != 0)
    return 0;
  put_byte(w, STACKS_TAG_STRING);
  put_uleb(w, length);
  while (length > 0) {
    if (memprof_writer_reserve(&w->out, 1) != 0)
      return 0;
    size_t n = w->out.capacity - w->out.used;
    if (n > length)
      n = length;
    memcpy(w->out.buffer + w->out.used, bytes, n);
    w->out.used += n;
    w->out.bytes_written += n;
    bytes += n;
    length -= n;
  }
  return ++w->strings;
}

uint32_t stacks_writer_stack(struct stacks_writer *w, const struct stacks_wire_frame *frames,
                             uint32_t frame_count, uint32_t flags)
{
  if (frame_count > STACKS_MAX_FRAMES || memprof_writer_reserve(&w->out, RECORD_HEAD_MAX) != 0)
    return 0;
  put_byte(w, STACKS_TAG_STACK);
  put_uleb(w, flags);
  put_uleb(w, frame_count);
  for (uint32_t i = 0; i < frame_count; i++) {
    if (memprof_writer_reserve(&w->out, FRAME_MAX) != 0)
      return 0;
    put_byte(w, (uint8_t)frames[i].kind);
    put_uleb(w, frames[i].name);
    put_uleb(w, frames[i].defined);
    put_uleb(w, frames[i].line);
  }
  return ++w->stacks;
}

int stacks_writer_event(struct stacks_writer *w, uint64_t event, uint32_t stack_id)
{
  if (event < w->next_event || memprof_writer_reserve(&w->out, RECORD_HEAD_MAX) != 0)
    return -1;
  /* The number as the events skipped since the last record's: mostly one byte. */
  put_byte(w, STACKS_TAG_EVENT);
  put_uleb(w, event - w->next_event);
  put_uleb(w, stack_id);
  w->next_event = event + 1;
  return 0;
}

int stacks_writer_end(struct stacks_writer *w)
{
  if (memprof_writer_reserve(&w->out, 1) != 0)
    return -1;
  put_byte(w, STACKS_TAG_END);
  return 0;
}
