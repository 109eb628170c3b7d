/* format/uleb128.c: unsigned LEB128, the integer encoding of memprof streams, stack sidecars and protobuf (pprof's varints). */
#include "format/encode.h"
#include "format/memprof.h"

size_t memprof_uleb128_encode(uint8_t *out, uint64_t value)
{
  return (size_t)(memprof_encode_uleb(out, value) - out);  /* the encoder the allocator hook inlines */
}

int memprof_uleb128_decode(const uint8_t *in, size_t available, uint64_t *value)
{
  uint64_t result = 0;
  for (int i = 0; i < MEMPROF_ULEB128_MAX; i++) {
    if ((size_t)i >= available)
      return 0;
    uint8_t byte = in[i];
    uint64_t group = byte & 0x7f;
    /* The tenth byte holds bit 63 only; anything more overflows. */
    if (i == MEMPROF_ULEB128_MAX - 1 && group > 1)
      return -1;
    result |= group << (7 * i);
    if (!(byte & 0x80)) {
      *value = result;
      return i + 1;
    }
  }
  return -1;
}
