/* format/control_file.c: the control files' parsers (docs/control-format.md): a registration with errors at their byte offset, and a request in place without the heap (the allocator hook takes requests); the writers are control_file_write.c. */
#include "format/control_file.h"
#include "format/message.h"
#include "format/whole_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- The registration ---------------------------------------------------- */

int control_file_process_started(long pid, unsigned long long *started)
{
  char path[64], text[1024];
  if (pid)
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  else
    snprintf(path, sizeof path, "/proc/self/stat");
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0)
    return -1;
  text[n] = '\0';
  const char *p = strrchr(text, ')');   /* the command may hold spaces */
  if (!p)
    return -1;
  int field = 2;
  for (p++; *p && field < 22; p++)
    if (*p == ' ')
      field++;
  char *end;
  *started = strtoull(p, &end, 10);
  return end == p ? -1 : 0;
}

struct parser {
  struct control_file_registration *r;
  const char *name;
  struct control_file_error *error;
};

static enum control_file_status parse_fail(struct parser *p, size_t offset, const char *format, ...)
  __attribute__((format(printf, 3, 4)));
static enum control_file_status parse_fail(struct parser *p, size_t offset, const char *format, ...)
{
  struct control_file_error *e = p->error;
  e->status = CONTROL_FILE_MALFORMED;
  e->offset = offset;
  va_list args;
  va_start(args, format);
  format_message_at(e->message, sizeof e->message, p->name, offset, format, args);
  va_end(args);
  return e->status;
}

static enum control_file_status parse_no_memory(struct parser *p)
{
  p->error->status = CONTROL_FILE_NO_MEMORY;
  snprintf(p->error->message, sizeof p->error->message, "%s: out of memory", p->name);
  return p->error->status;
}

/* Decimal digits only, at least one, no overflow. */
static int parse_u64(const char *text, uint64_t limit, uint64_t *out)
{
  uint64_t value = 0;
  if (!*text)
    return -1;
  for (; *text; text++) {
    unsigned digit = (unsigned)(*text - '0');
    if (digit > 9 || value > (limit - digit) / 10)
      return -1;
    value = value * 10 + digit;
  }
  *out = value;
  return 0;
}

static int parse_long(const char *text, long *out)
{
  int negative = *text == '-';
  uint64_t magnitude;
  uint64_t limit = negative ? (uint64_t)LONG_MAX + 1 : (uint64_t)LONG_MAX;
  if (parse_u64(text + negative, limit, &magnitude) != 0)
    return -1;
  *out = negative ? -(long)(magnitude - 1) - 1 : (long)magnitude;
  return 0;
}

enum field_kind { FIELD_LONG, FIELD_U64, FIELD_TEXT };

static const struct {
  const char *key;
  unsigned bit;
  enum field_kind kind;
  size_t offset;
} registration_fields[] = {
#define FIELD(key, bit, kind) {#key, bit, kind, offsetof(struct control_file_registration, key)}
  FIELD(pid, CONTROL_FILE_HAS_PID, FIELD_LONG),
  FIELD(ppid, CONTROL_FILE_HAS_PPID, FIELD_LONG),
  FIELD(uid, CONTROL_FILE_HAS_UID, FIELD_U64),
  FIELD(started, CONTROL_FILE_HAS_STARTED, FIELD_U64),
  FIELD(exe, CONTROL_FILE_HAS_EXE, FIELD_TEXT),
  FIELD(luajit, CONTROL_FILE_HAS_LUAJIT, FIELD_TEXT),
  FIELD(poll, CONTROL_FILE_HAS_POLL, FIELD_TEXT),
  FIELD(request_file, CONTROL_FILE_HAS_REQUEST_FILE, FIELD_TEXT),
  FIELD(root, CONTROL_FILE_HAS_ROOT, FIELD_TEXT),
  FIELD(state, CONTROL_FILE_HAS_STATE, FIELD_TEXT),
  FIELD(dir, CONTROL_FILE_HAS_DIR, FIELD_TEXT),
  FIELD(request, CONTROL_FILE_HAS_REQUEST, FIELD_TEXT),
  FIELD(result, CONTROL_FILE_HAS_RESULT, FIELD_TEXT),
  FIELD(error, CONTROL_FILE_HAS_ERROR, FIELD_TEXT),
#undef FIELD
};

/* One complete line (NUL-terminated in the copy) at offset. */
static enum control_file_status parse_line(struct parser *p, char *line, size_t length, size_t offset)
{
  struct control_file_registration *r = p->r;
  if (memchr(line, '\0', length))
    return parse_fail(p, offset + strlen(line), "a NUL byte");
  if (offset == 0) {
    static const char header[] = "ljleak-registration\t";
    if (strncmp(line, header, sizeof header - 1))
      return parse_fail(p, 0, "the first line is not the ljleak-registration header");
    if (parse_u64(line + sizeof header - 1, UINT64_MAX, &r->version) != 0)
      return parse_fail(p, sizeof header - 1, "the header's version is not a whole number");
    r->has_header = 1;
    return CONTROL_FILE_OK;
  }
  if (length == 0)
    return CONTROL_FILE_OK;
  char *equals = strchr(line, '=');
  if (!equals)
    return parse_fail(p, offset, "a line without '='");
  *equals = '\0';
  char *value = equals + 1;
  for (size_t i = 0; i < sizeof registration_fields / sizeof registration_fields[0]; i++) {
    if (strcmp(line, registration_fields[i].key))
      continue;
    if (r->keys & registration_fields[i].bit)
      return parse_fail(p, offset, "%s given twice", line);
    r->keys |= registration_fields[i].bit;
    char *field = (char *)r + registration_fields[i].offset;
    switch (registration_fields[i].kind) {
    case FIELD_LONG:
      if (parse_long(value, (long *)(void *)field) != 0)
        return parse_fail(p, offset, "%s is not a whole number", line);
      break;
    case FIELD_U64:
      if (parse_u64(value, UINT64_MAX, (uint64_t *)(void *)field) != 0)
        return parse_fail(p, offset, "%s is not a whole number", line);
      break;
    case FIELD_TEXT:
      *(const char **)(void *)field = value;
      break;
    }
    return CONTROL_FILE_OK;
  }
  return CONTROL_FILE_OK;   /* a key of a later version */
}

enum control_file_status control_file_parse_registration(struct control_file_registration *r,
                                                         const char *data, size_t size,
                                                         const char *name,
                                                         struct control_file_error *error)
{
  memset(r, 0, sizeof *r);
  memset(error, 0, sizeof *error);
  struct parser p = {r, name ? name : "registration", error};
  r->text = size < SIZE_MAX ? malloc(size + 1) : NULL;
  if (!r->text)
    return parse_no_memory(&p);
  if (size)
    memcpy(r->text, data, size);
  r->text[size] = '\0';
  enum control_file_status status = CONTROL_FILE_OK;
  for (size_t offset = 0; offset < size && status == CONTROL_FILE_OK;) {
    char *line = r->text + offset;
    char *newline = memchr(line, '\n', size - offset);
    if (!newline) {   /* cut while it was written: even its key may be cut */
      r->last_line_cut = 1;
      r->last_line_offset = offset;
      break;
    }
    size_t length = (size_t)(newline - line);
    *newline = '\0';
    status = parse_line(&p, line, length, offset);
    offset += length + 1;
  }
  if (status != CONTROL_FILE_OK) {
    control_file_registration_free(r);
    return status;
  }
  return CONTROL_FILE_OK;
}

enum control_file_status control_file_read_registration(struct control_file_registration *r,
                                                        const char *path,
                                                        struct control_file_error *error)
{
  memset(r, 0, sizeof *r);
  memset(error, 0, sizeof *error);
  char *data;
  size_t size;
  enum whole_file_status read = whole_file_read(path, &data, &size, &error->system_error,
                                                error->message, sizeof error->message);
  if (read != WHOLE_FILE_OK) {
    error->status = read == WHOLE_FILE_NO_MEMORY ? CONTROL_FILE_NO_MEMORY : CONTROL_FILE_UNREADABLE;
    return error->status;
  }
  enum control_file_status status = control_file_parse_registration(r, data, size, path, error);
  free(data);
  return status;
}

void control_file_registration_free(struct control_file_registration *r)
{
  free(r->text);
  memset(r, 0, sizeof *r);
}

/* ---- The request ---------------------------------------------------------- */

static enum control_file_status request_fail(struct control_file_error *error, size_t offset)
{
  error->status = CONTROL_FILE_MALFORMED;
  error->offset = offset;
  return error->status;
}

enum control_file_status control_file_parse_request(char *text, struct control_file_request *request,
                                                    control_file_request_option_fn option,
                                                    void *context, struct control_file_error *error)
{
  request->id = request->action = NULL;
  request->options = NULL;
  request->option_count = 0;
  error->status = CONTROL_FILE_OK;
  error->offset = 0;
  error->system_error = 0;
  error->message[0] = '\0';
  char *at = text;
  while (*at) {
    char *line = at, *newline = strchr(at, '\n');
    at = newline ? newline + 1 : line + strlen(line);
    if (newline)
      *newline = '\0';
    if (line == newline)
      continue;   /* an empty line */
    size_t offset = (size_t)(line - text);
    char *eq = strchr(line, '=');
    if (!eq) {
      snprintf(error->message, sizeof error->message, "bad request line '%s'", line);
      return request_fail(error, offset);
    }
    *eq = '\0';
    char *value = eq + 1;
    if (!strcmp(line, "id"))
      request->id = value;
    else if (!strcmp(line, "action"))
      request->action = value;
    else if (option(context, line, value, error->message, sizeof error->message) != 0)
      return request_fail(error, offset);
  }
  if (!request->action || (strcmp(request->action, "start") && strcmp(request->action, "stop"))) {
    snprintf(error->message, sizeof error->message, "the request has no action start or stop");
    return request_fail(error, (size_t)(at - text));
  }
  return CONTROL_FILE_OK;
}
