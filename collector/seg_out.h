/* collector/seg_out.h: writes one segment file, plain or gzip, straight to its descriptor. */
#ifndef LJLEAK_COLLECTOR_SEG_OUT_H
#define LJLEAK_COLLECTOR_SEG_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

struct seg_out {
  int fd;
  int gzip;
  int z_ready;
  z_stream z;
  uint8_t *zbuf;          /* deflate output, caller-owned */
  size_t zcap;
  uint64_t disk_bytes;    /* bytes written to the file */
  int error;              /* errno of the first failure, 0 if none */
};

/* Takes fd, a file just created for writing (coll_capture_dir_create), or -1 when creating it failed
 * (errno says why). zbuf/zcap are used for gzip output. Returns 0 or -1 (errno in out->error). */
int coll_seg_out_open(struct seg_out *out, int fd, int gzip, uint8_t *zbuf, size_t zcap);

/* Writes data; with gzip, compresses it and ends with a sync flush so the
 * file decompresses up to here even if the process dies next. 0 or -1. */
int coll_seg_out_write(struct seg_out *out, const uint8_t *data, size_t size);

/* Ends the gzip member and closes. 0 or -1. Writeback is left to the
 * kernel: asking for it in the host's thread blocks on the disk queue (an
 * fsync of a 16 MB segment took 9 ms on the development machine, and
 * starting the writeback of a 780 MB one with sync_file_range 0.4 s). A
 * process killed later loses nothing; an OS crash may cut the newest files,
 * which readers then read up to their last whole event. */
int coll_seg_out_finish(struct seg_out *out);

/* Closes without finishing (after an error). */
void coll_seg_out_abandon(struct seg_out *out);

#endif
