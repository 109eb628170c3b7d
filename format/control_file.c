/* format/control_file.c: the control files' parsers (docs/control-format.md): a registration with errors at their byte offset, and a request in place without the heap (the allocator hook takes requests); the writers are control_file_write.c. */
#include "format/control_file.h"
#include "format/key_value.h"

#include <fcntl.h>
#include <stddef.h>
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

#define KEY(member, bit, kind) {#member, bit, KEY_VALUE_##kind, offsetof(struct control_file_registration, member)}
static const struct key_value_key registration_keys[] = {
  KEY(pid, CONTROL_FILE_HAS_PID, LONG),
  KEY(ppid, CONTROL_FILE_HAS_PPID, LONG),
  KEY(uid, CONTROL_FILE_HAS_UID, U64),
  KEY(started, CONTROL_FILE_HAS_STARTED, U64),
  KEY(exe, CONTROL_FILE_HAS_EXE, TEXT),
  KEY(luajit, CONTROL_FILE_HAS_LUAJIT, TEXT),
  KEY(poll, CONTROL_FILE_HAS_POLL, TEXT),
  KEY(request_file, CONTROL_FILE_HAS_REQUEST_FILE, TEXT),
  KEY(root, CONTROL_FILE_HAS_ROOT, TEXT),
  KEY(state, CONTROL_FILE_HAS_STATE, TEXT),
  KEY(dir, CONTROL_FILE_HAS_DIR, TEXT),
  KEY(request, CONTROL_FILE_HAS_REQUEST, TEXT),
  KEY(result, CONTROL_FILE_HAS_RESULT, TEXT),
  KEY(error, CONTROL_FILE_HAS_ERROR, TEXT),
};
#undef KEY

/* One complete line (NUL-terminated in the copy). */
static int parse_line(struct key_value_reader *reader, struct control_file_registration *r,
                      const struct key_value_line *line)
{
  size_t offset = line->offset;
  if (memchr(line->start, '\0', line->length))
    return key_value_fail(reader, offset + strlen(line->start), "a NUL byte");
  if (offset == 0) {
    static const char header[] = "ljleak-registration\t";
    size_t prefix = sizeof header - 1;
    if (strncmp(line->start, header, prefix))
      return key_value_fail(reader, 0, "the first line is not the ljleak-registration header");
    if (key_value_parse_u64(line->start + prefix, line->length - prefix, UINT64_MAX, &r->version) != 0)
      return key_value_fail(reader, prefix, "the header's version is not a whole number");
    r->has_header = 1;
    return 0;
  }
  if (line->length == 0)
    return 0;
  struct key_value_field field;
  if (key_value_split(line->start, line->length, offset, &field) != 0)
    return key_value_fail(reader, offset, "a line without '='");
  const struct key_value_key *taken;
  return key_value_take(reader, "", registration_keys,
                        sizeof registration_keys / sizeof registration_keys[0], r, &r->keys, &field,
                        &taken);
}

/* Reads the lines of the reader's text into r, which takes the text. */
static enum format_status parse_text(struct key_value_reader *reader,
                                     struct control_file_registration *r,
                                     struct format_error *error)
{
  r->text = reader->text;
  int rc = 0;
  struct key_value_line line;
  while (rc == 0 && key_value_next_line(reader, &line)) {
    if (line.cut) {   /* cut while it was written: even its key may be cut */
      r->last_line_cut = 1;
      r->last_line_offset = line.offset;
      break;
    }
    rc = parse_line(reader, r, &line);
  }
  if (rc != 0) {
    control_file_registration_free(r);
    return error->status;
  }
  return FORMAT_OK;
}

enum format_status control_file_parse_registration(struct control_file_registration *r,
                                                   const char *data, size_t size,
                                                   const char *name,
                                                   struct format_error *error)
{
  memset(r, 0, sizeof *r);
  format_error_clear(error);
  struct key_value_reader reader;
  if (key_value_reader_copy(&reader, data, size, name ? name : "registration", error) != 0)
    return error->status;
  return parse_text(&reader, r, error);
}

enum format_status control_file_read_registration(struct control_file_registration *r,
                                                  const char *path,
                                                  struct format_error *error)
{
  memset(r, 0, sizeof *r);
  struct key_value_reader reader;
  if (key_value_reader_read_file(&reader, path, error) != FORMAT_OK)
    return error->status;
  return parse_text(&reader, r, error);
}

void control_file_registration_free(struct control_file_registration *r)
{
  free(r->text);
  memset(r, 0, sizeof *r);
}

/* ---- The request ---------------------------------------------------------- */

/* A request's messages name no file: they are what the collector answers. */
static enum format_status request_fail(struct format_error *error, size_t offset)
{
  error->offset = offset;
  return error->status = FORMAT_BAD_INPUT;
}

enum format_status control_file_parse_request(char *text, struct control_file_request *request,
                                              control_file_request_option_fn option,
                                              void *context, struct format_error *error)
{
  request->id = request->action = NULL;
  request->options = NULL;
  request->option_count = 0;
  format_error_clear(error);
  struct key_value_reader reader;
  key_value_reader_in_place(&reader, text, strlen(text), "request", error);
  struct key_value_line line;
  while (key_value_next_line(&reader, &line)) {
    if (line.length == 0)
      continue;   /* an empty line */
    struct key_value_field field;
    if (key_value_split(line.start, line.length, line.offset, &field) != 0) {
      format_error_set(error, FORMAT_BAD_INPUT, "bad request line '%s'", line.start);
      return request_fail(error, line.offset);
    }
    if (!strcmp(field.key, "id"))
      request->id = field.value;
    else if (!strcmp(field.key, "action"))
      request->action = field.value;
    else if (option(context, field.key, field.value, error->message, sizeof error->message) != 0)
      return request_fail(error, line.offset);
  }
  if (!request->action || (strcmp(request->action, "start") && strcmp(request->action, "stop"))) {
    format_error_set(error, FORMAT_BAD_INPUT, "the request has no action start or stop");
    return request_fail(error, reader.size);
  }
  return FORMAT_OK;
}

int control_file_ptrace_scope(const char *path)
{
  FILE *f = fopen(path, "r");
  int scope = 0;
  if (!f)
    return 0;
  if (fscanf(f, "%d", &scope) != 1)
    scope = 0;
  fclose(f);
  return scope;
}
