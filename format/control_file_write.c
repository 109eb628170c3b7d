/* format/control_file_write.c: the control files' writers (docs/control-format.md): the registration into a caller's buffer without the heap or stdio (the allocator hook writes it), and a request. */
#include "format/control_file.h"

#include <stdio.h>
#include <string.h>

/* Text being put into a caller's buffer. Invariant: used <= size - 1. */
struct out {
  char *data;
  size_t size;
  size_t used;
  int full;       /* something was cut */
};

/* Appends n bytes, as many as fit; with values, a newline or carriage return
 * becomes '?' so that the value stays on its line. */
static void out_put(struct out *o, const char *text, size_t n, int value)
{
  size_t room = o->size - 1 - o->used;
  if (n > room) {
    n = room;
    o->full = 1;
  }
  for (size_t i = 0; i < n; i++) {
    char c = text[i];
    o->data[o->used + i] = value && (c == '\n' || c == '\r') ? '?' : c;
  }
  o->used += n;
}

static void out_text(struct out *o, const char *text)
{
  out_put(o, text, strlen(text), 0);
}

static void out_u64(struct out *o, uint64_t value)
{
  char digits[24];
  size_t n = sizeof digits;
  do {
    digits[--n] = (char)('0' + value % 10);
    value /= 10;
  } while (value);
  out_put(o, digits + n, sizeof digits - n, 0);
}

static void out_long(struct out *o, long value)
{
  if (value < 0) {
    out_text(o, "-");
    out_u64(o, (uint64_t)(-(value + 1)) + 1);
  } else {
    out_u64(o, (uint64_t)value);
  }
}

static void out_number_line(struct out *o, const char *key, long signed_value, uint64_t value,
                            int is_signed)
{
  out_text(o, key);
  out_text(o, "=");
  if (is_signed)
    out_long(o, signed_value);
  else
    out_u64(o, value);
  out_text(o, "\n");
}

static void out_value_line(struct out *o, const char *key, const char *value)
{
  out_text(o, key);
  out_text(o, "=");
  if (value)
    out_put(o, value, strlen(value), 1);
  out_text(o, "\n");
}

size_t control_file_write_registration(char *buffer, size_t size,
                                       const struct control_file_registration *r)
{
  if (size < 2) {
    if (size)
      buffer[0] = '\0';
    return 0;
  }
  struct out o = {buffer, size, 0, 0};
  out_text(&o, "ljleak-registration\t1\n");
  out_number_line(&o, "pid", r->pid, 0, 1);
  out_number_line(&o, "ppid", r->ppid, 0, 1);
  out_number_line(&o, "uid", 0, r->uid, 0);
  out_number_line(&o, "started", 0, r->started, 0);
  out_value_line(&o, "exe", r->exe);
  out_value_line(&o, "luajit", r->luajit);
  out_value_line(&o, "poll", r->poll);
  out_value_line(&o, "request_file", r->request_file);
  out_value_line(&o, "root", r->root);
  out_value_line(&o, "state", r->state);
  out_value_line(&o, "dir", r->dir);
  out_value_line(&o, "request", r->request);
  out_value_line(&o, "result", r->result);
  out_value_line(&o, "error", r->error);
  /* Cut: the line the cut went through keeps no newline, so that a reader drops it (its value
   * may be cut, and even its key) rather than take a part of it for the whole. */
  buffer[o.used] = '\0';
  return o.used;
}

static size_t request_fail(struct format_error *error, char *buffer, size_t size,
                           const char *what, const char *text)
{
  format_error_clear(error);
  format_error_set(error, FORMAT_UNWRITABLE, "%s%s", what, text ? text : "");
  if (size)
    buffer[0] = '\0';
  return 0;
}

size_t control_file_write_request(char *buffer, size_t size, const struct control_file_request *request,
                                  struct format_error *error)
{
  const char *action = request->action ? request->action : "";
  if (strcmp(action, "start") && strcmp(action, "stop"))
    return request_fail(error, buffer, size, "the action is not start or stop: ", action);
  if (request->id && strpbrk(request->id, "\n"))
    return request_fail(error, buffer, size, "the request's id holds a newline", NULL);
  for (size_t i = 0; i < request->option_count; i++) {
    const char *line = request->options[i], *eq = strchr(line, '=');
    if (!eq || eq == line)
      return request_fail(error, buffer, size, "an option is not KEY=VALUE: ", line);
    if ((eq - line == 2 && !memcmp(line, "id", 2)) || (eq - line == 6 && !memcmp(line, "action", 6)))
      return request_fail(error, buffer, size, "an option may not be id or action: ", line);
    if (strchr(line, '\n'))
      return request_fail(error, buffer, size, "an option holds a newline", NULL);
  }
  size_t limit = size && size - 1 < CONTROL_FILE_REQUEST_MAX ? size - 1 : CONTROL_FILE_REQUEST_MAX;
  if (size < 2) {
    char limit_text[32];
    snprintf(limit_text, sizeof limit_text, "%zu bytes", size ? size - 1 : 0);
    return request_fail(error, buffer, size, "the request is longer than ", limit_text);
  }
  struct out o = {buffer, size, 0, 0};
  if (request->id) {
    out_text(&o, "id=");
    out_text(&o, request->id);
    out_text(&o, "\n");
  }
  out_text(&o, "action=");
  out_text(&o, action);
  out_text(&o, "\n");
  for (size_t i = 0; i < request->option_count; i++) {
    out_text(&o, request->options[i]);
    out_text(&o, "\n");
  }
  if (o.full || o.used > limit) {
    char limit_text[32];
    snprintf(limit_text, sizeof limit_text, "%zu bytes", limit);
    return request_fail(error, buffer, size, "the request is longer than ", limit_text);
  }
  buffer[o.used] = '\0';
  format_error_clear(error);
  return o.used;
}

/* snprintf's length, or 0 when it failed or did not fit. */
static size_t control_fit(int n, size_t size)
{
  return n < 0 || (size_t)n >= size ? 0 : (size_t)n;
}

size_t control_file_default_run_dir(unsigned long uid, char *out, size_t size)
{
  return control_fit(snprintf(out, size, "/tmp/ljleak-%lu", uid), size);
}

size_t control_file_name(long pid, enum control_file_name which, char *out, size_t size)
{
  static const char *const suffix[] = {"", ".request", ".tmp"};
  return control_fit(snprintf(out, size, "%ld%s", pid, suffix[which]), size);
}
