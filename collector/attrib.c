/* collector/attrib.c: attributes an allocation to a Lua line, a trace, a C function or INTERNAL. */
#include "collector/attrib.h"

#include <stddef.h>

uint64_t coll_attrib_proto_line(const GCproto *pt, BCPos pos)
{
  const void *lineinfo = proto_lineinfo(pt);
  if (pos > pt->sizebc || !lineinfo)
    return 0;
  BCLine first = pt->firstline;
  if (pos == pt->sizebc)
    return (uint64_t)(first + pt->numline);
  if (pos == 0)
    return (uint64_t)first;
  pos--;
  if (pt->numline < 256)
    return (uint64_t)(first + (BCLine)((const uint8_t *)lineinfo)[pos]);
  if (pt->numline < 65536)
    return (uint64_t)(first + (BCLine)((const uint16_t *)lineinfo)[pos]);
  return (uint64_t)(first + (BCLine)((const uint32_t *)lineinfo)[pos]);
}

uint32_t coll_attrib_line_before(const GCproto *pt, const BCIns *pc)
{
  if (!pc || pc <= proto_bc(pt) || pc > proto_bc(pt) + pt->sizebc)
    return 0;
  return (uint32_t)coll_attrib_proto_line(pt, proto_bcpos(pt, pc) - 1);
}

static const char *const vm_names[ATTRIB_VM_COUNT] = {
  [ATTRIB_VM_STRING_TABLE] = "VM: string table",
  [ATTRIB_VM_GC] = "VM: GC",
  [ATTRIB_VM_RECORDER] = "VM: trace recorder",
  [ATTRIB_VM_COMPILER] = "VM: trace compiler",
  [ATTRIB_VM_TRACE_EXIT] = "VM: trace exit",
};

const char *coll_attrib_vm_name(uint64_t address)
{
  uint64_t work = address / 16;
  if (address % 16 != 0 || work == ATTRIB_VM_NONE || work >= ATTRIB_VM_COUNT)
    return NULL;
  return vm_names[work];
}
