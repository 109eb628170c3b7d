/* collector/snapshot_values.c: the values option: a heap snapshot's values sidecar, the first bytes of every live string and the first keys of every table (docs/snapshot-format.md, "Values"). */
#include "collector/snapshot_values.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/capture_dir.h"
#include "collector/seg_out.h"
#include "collector/text.h"
#include "format/capture_layout.h"
#include "format/snapshot.h"
#include "format/snapshot_values.h"
#include "lj_tab.h"

/* Values can be secrets: this file runs only with the values option, reads what the snapshot's
 * walk reads (the string table's chains, the list of all objects) and writes only beside it. */

#define VALUES_BUFFER_SIZE (64 * 1024)  /* mmap'd: nothing on the Lua heap, nothing from malloc */

_Static_assert(VALUES_BUFFER_SIZE >= SNAPSHOT_VALUES_RECORD_MAX, "a record fits the buffer");

struct values_walk {
  struct seg_out out;
  struct snapshot_values_writer writer;
  uint8_t *buffer;
};

static int values_sink(void *context, const uint8_t *data, size_t size)
{
  struct values_walk *w = context;
  return coll_seg_out_write(&w->out, data, size);
}

/* A key as the sidecar records it: a string's bytes, a number, a boolean, else its type. */
static struct snapshot_values_key values_key(cTValue *key)
{
  struct snapshot_values_key k;
  memset(&k, 0, sizeof k);
  if (tvisstr(key)) {
    k.kind = SNAPSHOT_VALUES_KEY_STRING;
    k.text = strVdata(key);
    k.length = strV(key)->len;
  } else if (tvisint(key)) {
    k.kind = SNAPSHOT_VALUES_KEY_NUMBER;
    k.number = (double)intV(key);
  } else if (tvisnum(key)) {
    k.kind = SNAPSHOT_VALUES_KEY_NUMBER;
    k.number = numV(key);
  } else if (tvisbool(key)) {
    k.kind = tvistrue(key) ? SNAPSHOT_VALUES_KEY_TRUE : SNAPSHOT_VALUES_KEY_FALSE;
  } else {
    k.kind = SNAPSHOT_VALUES_KEY_OBJECT;
    k.type = tvistab(key) ? SNAPSHOT_TABLE
           : tvisfunc(key) ? (isluafunc(funcV(key)) ? SNAPSHOT_LUA_FUNCTION : SNAPSHOT_C_FUNCTION)
           : tvisthread(key) ? SNAPSHOT_THREAD
           : tvisudata(key) ? SNAPSHOT_USERDATA
           : tviscdata(key) ? SNAPSHOT_CDATA
           : 0;  /* a light userdata */
  }
  return k;
}

/* A table's first keys: its hash part's, in node order, then its array part's indices (a
 * growing map shows what it is keyed by; a list, that it is one). */
static int values_table(struct values_walk *w, GCtab *t, uint32_t wanted)
{
  struct snapshot_values_key keys[SNAPSHOT_VALUES_KEYS_MAX];
  TValue index;
  uint32_t count = 0;
  uint64_t entries = 0;
  Node *node = noderef(t->node);
  for (uint32_t i = 0; t->hmask && i <= t->hmask; i++) {
    if (tvisnil(&node[i].val))
      continue;
    entries++;
    if (count < wanted)
      keys[count++] = values_key(&node[i].key);
  }
  for (uint32_t i = 0; i < t->asize; i++) {
    if (tvisnil(arrayslot(t, i)))
      continue;
    entries++;
    if (count < wanted) {
      setnumV(&index, (lua_Number)i);
      keys[count++] = values_key(&index);
    }
  }
  return snapshot_values_writer_table(&w->writer, (uint64_t)(uintptr_t)t, entries, keys, count);
}

static int values_walk_heap(struct values_walk *w, global_State *g)
{
  /* Strings chain from the string table's anchors; an anchor's low bit is a flag of the table's. */
  for (MSize i = 0; i <= g->str.mask; i++)
    for (GCobj *o = (GCobj *)(gcrefu(g->str.tab[i]) & ~(uintptr_t)1); o; o = gcnext(o)) {
      GCstr *s = gco2str(o);
      if (snapshot_values_writer_string(&w->writer, (uint64_t)(uintptr_t)s, strdata(s), s->len) != 0)
        return -1;
    }
  uint32_t wanted = w->writer.keys;
  for (GCobj *o = gcref(g->gc.root); o; o = gcnext(o))
    if (o->gch.gct == ~LJ_TTAB && values_table(w, gco2tab(o), wanted) != 0)
      return -1;
  return 0;
}

int coll_snapshot_values_take(const struct coll_capture_dir *dir, double start_wall, uint64_t boundary,
                              lua_State *L, const char *name, char *err, size_t err_size)
{
  coll_snapshot_values_prune(dir);
  char values[CAPTURE_LAYOUT_NAME_MAX], part[CAPTURE_LAYOUT_NAME_MAX];
  if (!capture_layout_values_name(name, values, sizeof values) ||
      !capture_layout_part_name(values, part, sizeof part)) {
    coll_text_error(err, err_size, "cannot name the values of %s%s", name, "");
    return -1;
  }
  struct values_walk w;
  memset(&w, 0, sizeof w);
  w.out.fd = -1;
  w.buffer = mmap(NULL, VALUES_BUFFER_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (w.buffer == MAP_FAILED) {
    coll_text_error(err, err_size, "cannot write the values of a heap snapshot: %s%s", strerror(ENOMEM), "");
    return -1;
  }
  if (coll_seg_out_open(&w.out, coll_capture_dir_create(dir, part, 0), 0, NULL, 0) != 0) {
    munmap(w.buffer, VALUES_BUFFER_SIZE);
    coll_text_error(err, err_size, "cannot create %s in the capture directory: %s", part, strerror(w.out.error));
    return -1;
  }
  snapshot_values_writer_init(&w.writer, w.buffer, VALUES_BUFFER_SIZE, values_sink, &w);
  struct snapshot_values_capture who = {
    .pid = (uint64_t)getpid(),
    .start_ms = (uint64_t)(start_wall * 1000.0 + 0.5),  /* as the snapshot's CAPTURE chunk */
    .boundary = boundary,
    .shown = SNAPSHOT_VALUES_DEFAULT_SHOWN,
    .keys = SNAPSHOT_VALUES_DEFAULT_KEYS,
  };
  int failed = snapshot_values_writer_begin(&w.writer, &who) != 0 || values_walk_heap(&w, G(L)) != 0 ||
               snapshot_values_writer_end(&w.writer) != 0;
  munmap(w.buffer, VALUES_BUFFER_SIZE);
  if (failed || coll_seg_out_finish(&w.out) != 0 || coll_capture_dir_rename(dir, part, values) != 0) {
    int why = w.out.error ? w.out.error : errno ? errno : EIO;
    coll_seg_out_abandon(&w.out);
    coll_capture_dir_remove(dir, part);
    coll_text_error(err, err_size, "cannot write the values %s: %s", part, strerror(why));
    return -1;
  }
  return 0;
}

void coll_snapshot_values_prune(const struct coll_capture_dir *capture_dir)
{
  if (capture_dir->fd < 0)
    return;
  int fd = openat(capture_dir->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
  if (!dir) {
    if (fd >= 0)
      close(fd);
    return;
  }
  struct dirent *entry;
  while ((entry = readdir(dir))) {
    const char *values = entry->d_name;
    size_t length = strlen(values);
    /* A finished sidecar: snap-NNNN.values, whose snapshot is snap-NNNN.heap. */
    if (capture_layout_classify(values) != CAPTURE_LAYOUT_VALUES || length <= 7 ||
        strcmp(values + length - 7, ".values") || length >= CAPTURE_LAYOUT_NAME_MAX)
      continue;
    char heap[CAPTURE_LAYOUT_NAME_MAX + 8];
    memcpy(heap, values, length - 7);
    memcpy(heap + length - 7, ".heap", 6);
    struct stat st;
    if (fstatat(capture_dir->fd, heap, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
      coll_capture_dir_remove(capture_dir, values);
  }
  closedir(dir);
}
