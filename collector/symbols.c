/* collector/symbols.c: the symbols of a segment, emitted into its stream the first time an event names them. */
#include <string.h>

#include "collector/index.h"
#include "collector/symbols.h"

void coll_symbols_reset(struct coll_capture *c)
{
  coll_addr_map_clear(&c->sym_lua);
  coll_addr_map_clear(&c->sym_trace);
  coll_addr_map_clear(&c->sym_c);
  c->last_proto = NULL;
  c->last_trace = 0;
  coll_trace_line_new_segment(&c->lines); /* cached trace lines had their symbols in the last one */
  coll_interp_site_void(&c->interp);      /* and so had the interpreter's cached sites */
}

__attribute__((noinline)) void coll_symbols_emit_lua_slow(struct coll_capture *c, const GCproto *pt,
                                                          uint64_t fp)
{
  uint64_t *seen = coll_addr_map_find(&c->sym_lua, (uint64_t)(uintptr_t)pt);
  if (!seen || *seen != fp) {
    if (seen)
      coll_interp_site_void(&c->interp);   /* another prototype at pt: its sites had this symbol */
    GCstr *name = proto_chunkname(pt);
    struct memprof_symbol sym = {
      .kind = MEMPROF_SYMBOL_LUA,
      .address = (uint64_t)(uintptr_t)pt,
      .line = (uint64_t)pt->firstline,
      .name = name ? strdata(name) : "",
      .name_length = name ? name->len : 0,
    };
    memprof_writer_symbol_event(&c->writer, &sym);
    coll_addr_map_put(&c->sym_lua, (uint64_t)(uintptr_t)pt, fp);
  }
  c->last_proto = pt;
  c->last_proto_fp = fp;
}

__attribute__((noinline)) void coll_symbols_emit_trace_slow(struct coll_capture *c, uint64_t traceno,
                                                            GCtrace *T)
{
#if LJ_HASJIT
  GCproto *pt = (GCproto *)gcref(T->startpt);
  const BCIns *startpc = mref(T->startpc, const BCIns);
  uint64_t fp = coll_symbols_trace_fingerprint(T);
  uint64_t *seen = coll_addr_map_find(&c->sym_trace, traceno);
  if (seen && *seen == fp) {
    c->last_trace = traceno;
    c->last_trace_fp = fp;
    return;
  }
  uint64_t line = 0;
  if (pt && pt->gct == ~LJ_TPROTO) {
    coll_symbols_emit_lua(c, pt);
    if (startpc >= proto_bc(pt) && startpc < proto_bc(pt) + pt->sizebc)
      line = coll_attrib_proto_line(pt, proto_bcpos(pt, startpc));
  }
  struct memprof_symbol sym = {
    .kind = MEMPROF_SYMBOL_TRACE,
    .address = (uint64_t)(uintptr_t)pt,
    .line = line,
    .trace = traceno,
    .name = "",
    .name_length = 0,
  };
  memprof_writer_symbol_event(&c->writer, &sym);
  coll_addr_map_put(&c->sym_trace, traceno, fp);
  c->last_trace = traceno;
  c->last_trace_fp = fp;
#else
  (void)c;
  (void)traceno;
  (void)T;
#endif
}

void coll_symbols_emit_c(struct coll_capture *c, uint64_t address)
{
  if (coll_addr_map_find(&c->sym_c, address))
    return;
  char scratch[512];
  struct cname_entry entry;
  coll_cname_name(&c->cnames, c->g, address, &entry, scratch, sizeof scratch);
  struct memprof_symbol sym = {
    .kind = MEMPROF_SYMBOL_C,
    .address = address,
    .name = entry.name,
    .name_length = entry.name_length,
  };
  memprof_writer_symbol_event(&c->writer, &sym);
  coll_addr_map_put(&c->sym_c, address, 1);
  if (!entry.indexed && coll_index_c_function(&c->index, &entry) == 0)
    coll_cname_set_indexed(&c->cnames, address);
}
