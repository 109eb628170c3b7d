/* collector/seg_out.c: segment file output with optional zlib (see seg_out.h). */
#include "collector/seg_out.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static int write_all(struct seg_out *out, const uint8_t *data, size_t size)
{
  while (size > 0) {
    ssize_t n = write(out->fd, data, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      out->error = errno;
      return -1;
    }
    if (n == 0) {
      out->error = EIO;
      return -1;
    }
    data += n;
    size -= (size_t)n;
    out->disk_bytes += (uint64_t)n;
  }
  return 0;
}

int coll_seg_out_open(struct seg_out *out, int fd, int gzip, uint8_t *zbuf, size_t zcap)
{
  int why = errno;
  memset(out, 0, sizeof *out);
  out->fd = fd;
  if (out->fd < 0) {
    out->error = why ? why : EIO;
    return -1;
  }
  out->gzip = gzip;
  out->zbuf = zbuf;
  out->zcap = zcap;
  if (gzip) {
    /* 15 + 16: a gzip wrapper; level 1 keeps the hook cheap. zlib's own
     * memory comes from malloc, never from the Lua allocator. */
    if (deflateInit2(&out->z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      close(out->fd);
      out->fd = -1;
      out->error = ENOMEM;
      return -1;
    }
    out->z_ready = 1;
  }
  return 0;
}

static int deflate_run(struct seg_out *out, const uint8_t *data, size_t size, int flush)
{
  out->z.next_in = (Bytef *)(uintptr_t)data;
  out->z.avail_in = (uInt)size;
  for (;;) {
    out->z.next_out = out->zbuf;
    out->z.avail_out = (uInt)out->zcap;
    int rc = deflate(&out->z, flush);
    if (rc == Z_STREAM_ERROR) {
      out->error = EIO;
      return -1;
    }
    size_t have = out->zcap - out->z.avail_out;
    if (have && write_all(out, out->zbuf, have) != 0)
      return -1;
    if (flush == Z_FINISH ? rc == Z_STREAM_END : out->z.avail_out != 0)
      return 0;
  }
}

int coll_seg_out_write(struct seg_out *out, const uint8_t *data, size_t size)
{
  if (out->fd < 0 || out->error)
    return -1;
  if (!out->gzip)
    return write_all(out, data, size);
  return deflate_run(out, data, size, Z_SYNC_FLUSH);
}

int coll_seg_out_finish(struct seg_out *out)
{
  int rc = 0;
  if (out->fd < 0)
    return -1;
  if (out->gzip && !out->error && deflate_run(out, NULL, 0, Z_FINISH) != 0)
    rc = -1;
  if (out->error)
    rc = -1;
  if (close(out->fd) != 0 && rc == 0) {
    out->error = errno;
    rc = -1;
  }
  out->fd = -1;
  if (out->z_ready) {
    deflateEnd(&out->z);
    out->z_ready = 0;
  }
  return rc;
}

void coll_seg_out_abandon(struct seg_out *out)
{
  if (out->fd >= 0)
    close(out->fd);
  out->fd = -1;
  if (out->z_ready) {
    deflateEnd(&out->z);
    out->z_ready = 0;
  }
}
