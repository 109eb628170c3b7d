/* collector/capture_dir.h: the capture directory, made and then held open, so that every file of
 * the capture is created, renamed and reopened relative to that handle: never through a link, and
 * never in a directory another user could change (docs/security.md). */
#ifndef LJLEAK_COLLECTOR_CAPTURE_DIR_H
#define LJLEAK_COLLECTOR_CAPTURE_DIR_H

#include <stddef.h>
#include <sys/types.h>

#include "collector/ljleak_collector.h"

struct capture;

/* Makes and opens the capture directory into c->dir and c->dir_fd: opt->dir (new, or existing,
 * empty and this user's), else a new ljleak-<pid>-<time> in opt->root (else the working
 * directory), which must be a directory, not a link, owned by this user or root, and not
 * writable by all without the sticky bit. The directory is mode 0700. 0, or -1 with why in
 * err. */
int capture_dir_open(struct capture *c, const struct ljleak_collector_options *opt, char *err,
                     size_t err_size);

/* Closes c->dir_fd (after the last file of the capture). */
void capture_dir_close(struct capture *c);

/* Creates name in the capture directory for writing: a new file (O_EXCL, never a link's target),
 * mode 0600, appending if append. The descriptor, or -1 with errno. */
int capture_dir_create(const struct capture *c, const char *name, int append);

/* Renames from over to, both in the capture directory (a link at to is replaced, not
 * followed). 0, or -1 with errno. */
int capture_dir_rename(const struct capture *c, const char *from, const char *to);

/* Removes name from the capture directory (a link is removed, not followed). 0, or -1 with
 * errno. */
int capture_dir_remove(const struct capture *c, const char *name);

/* "name (uid N)", or "uid N" when the user has no name, into out. */
void capture_dir_user(uid_t uid, char *out, size_t size);

#endif
