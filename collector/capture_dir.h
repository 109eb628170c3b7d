/* collector/capture_dir.h: the capture directory, made and then held open, so that every file of
 * the capture is created, renamed and reopened relative to that handle: never through a link, and
 * never in a directory another user could change (docs/security.md). */
#ifndef LJLEAK_COLLECTOR_CAPTURE_DIR_H
#define LJLEAK_COLLECTOR_CAPTURE_DIR_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "collector/ljleak_collector.h"

/* The capture directory: its name (for messages and the index) and its handle. */
struct coll_capture_dir {
  int fd;                       /* -1: none open */
  char path[PATH_MAX];
};

/* Whether root (NULL: the working directory) leaves room for a capture directory's name in a
 * path: 0, or -1 with why in err. */
int coll_capture_dir_root_check(const char *root, char *err, size_t err_size);

/* Makes and opens the capture directory into d: opt->dir (new, or existing,
 * empty and this user's), else a new ljleak-<pid>-<time> in opt->root (else the working
 * directory), which must be a directory, not a link, owned by this user or root, and not
 * writable by all without the sticky bit. The directory is mode 0700. 0, or -1 with why in
 * err. */
int coll_capture_dir_open(struct coll_capture_dir *d, const struct ljleak_collector_options *opt, char *err,
                          size_t err_size);

/* Closes d->fd (after the last file of the capture). */
void coll_capture_dir_close(struct coll_capture_dir *d);

/* Creates name in the capture directory for writing: a new file (O_EXCL, never a link's target),
 * mode 0600, appending if append. The descriptor, or -1 with errno. */
int coll_capture_dir_create(const struct coll_capture_dir *d, const char *name, int append);

/* Renames from over to, both in the capture directory (a link at to is replaced, not
 * followed). 0, or -1 with errno. */
int coll_capture_dir_rename(const struct coll_capture_dir *d, const char *from, const char *to);

/* Removes name from the capture directory (a link is removed, not followed). 0, or -1 with
 * errno. */
int coll_capture_dir_remove(const struct coll_capture_dir *d, const char *name);

/* "name (uid N)", or "uid N" when the user has no name, into out. */
void coll_capture_dir_user(uid_t uid, char *out, size_t size);

#endif
