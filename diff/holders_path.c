/* diff/holders_path.c: a holder's path as the programmer names it: globals, modules, locals, upvalues, keys collapsed to [*] (docs/diff.md, "Holders"). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/holders.h"
#include "diff/holders_graph.h"
#include "diff/holders_path.h"

/* ---- Paths ------------------------------------------------------------------ */

static void text_clear(struct holders_text *t)
{
  t->len = 0;
  t->buf[0] = '\0';
  t->full = 0;
}

static void text_put(struct holders_text *t, const char *s)
{
  size_t room = sizeof t->buf - 1 - t->len, n = strlen(s);
  if (n > room) {
    n = room;
    t->full = 1;
  }
  memcpy(t->buf + t->len, s, n);
  t->len += n;
  t->buf[t->len] = '\0';
}

/* The text in parentheses: "(local pool in main chunk@app.lua)". */
static void text_parenthesize(struct holders_text *t)
{
  size_t keep = t->len < sizeof t->buf - 2 ? t->len : sizeof t->buf - 2;  /* room for "(" */
  t->full |= keep < t->len;
  memmove(t->buf + 1, t->buf, keep);
  t->buf[0] = '(';
  t->len = keep + 1;
  t->buf[t->len] = '\0';
  text_put(t, ")");
}

/* Ends the text with suffix, and with " ..." before it when the path was cut (or the text
 * would not fit): room made for both, the text cut at a character's start, so that a cut
 * text always says so. */
void holders_text_end(struct holders_text *t, int cut, const char *suffix)
{
  static const char elision[] = " ...";
  size_t tail = strlen(suffix);
  int elide = cut || t->full || t->len + tail > sizeof t->buf - 1;
  if (elide)
    tail += sizeof elision - 1;
  if (t->len + tail > sizeof t->buf - 1) {
    t->len = tail < sizeof t->buf - 1 ? sizeof t->buf - 1 - tail : 0;
    while (t->len && ((unsigned char)t->buf[t->len] & 0xc0) == 0x80)
      t->len--;
    t->buf[t->len] = '\0';
  }
  if (elide)
    text_put(t, elision);
  text_put(t, suffix);
  t->full = 0;  /* said so: a suffix added later cuts nothing more */
}

static int holders_identifier(const char *s)
{
  if (!*s || (*s >= '0' && *s <= '9'))
    return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
      return 0;
  return 1;
}

/* The name of a function object: its prototype's ("function@app.lua:3"). */
static const char *holders_function_name(const struct snapshot *snapshot, const struct snapshot_object *f)
{
  if (f->type == SNAPSHOT_C_FUNCTION)
    return "C function";
  for (size_t r = f->first_reference; r < f->first_reference + f->reference_count; r++) {
    const struct snapshot_reference *ref = &snapshot->references[r];
    if (ref->kind == SNAPSHOT_REF_OTHER && !strcmp(snapshot_string(snapshot, ref->text), "prototype")) {
      const struct snapshot_object *p = ref->object != SNAPSHOT_NO_OBJECT ? &snapshot->objects[ref->object] : NULL;
      if (p && p->name)
        return snapshot_string(snapshot, p->name);
    }
  }
  return "function";
}

/* The steps from the root to v, at most HOLDERS_DEPTH (*cut: v lies deeper; the steps end at
 * g->top[v], so a path costs that many steps however deep v is): edges' (source node,
 * reference), root end first. */
static size_t holders_steps(const struct holders_graph *g, uint32_t v, uint32_t *from, size_t *refs,
                            int *cut)
{
  uint32_t path[HOLDERS_DEPTH];
  size_t depth = 0;
  *cut = g->top[v] != v;
  for (uint32_t w = g->top[v]; w != g->n && depth < HOLDERS_DEPTH; w = g->parent[w])
    path[depth++] = w;
  for (size_t i = 0; i < depth; i++) {
    uint32_t w = path[depth - 1 - i];
    from[i] = g->parent[w];
    refs[i] = g->parent_ref[w];
  }
  return depth;
}

/* Whether a step from node from by reference ref, of kind, whose label is string text, is
 * shown as [*]: array slots and other keys always, string keys when one object leads to the
 * site's objects under several, unless the code writes the key (holders_graph.written) and
 * they are few enough for code to name (DIFF_HOLDERS_NAMED_MAX). */
static int holders_kind_collapsed(const struct holders_graph *g, const struct holders_marks *marks,
                                  uint32_t from, unsigned kind, uint32_t text, size_t ref)
{
  if (from == g->n)
    return 0;
  if (kind == SNAPSHOT_REF_INDEX || kind == SNAPSHOT_REF_KEYED || kind == SNAPSHOT_REF_KEY)
    return 1;
  /* a key of its own (one table uses it), made at run time: "token-17"; not a field every
   * record has ("name"), nor one the code names (_G.left and _G.right, handlers.shutdown) */
  if (kind != SNAPSHOT_REF_FIELD || marks->labels[from] < HOLDERS_FEW || marks->source[text] == HOLDERS_MULTI)
    return 0;
  uint32_t key = holders_key_of(g->snapshot, (uint32_t)ref);
  return key == DIFF_HOLDERS_NONE || !g->written || !g->written[key] || marks->labels[from] == HOLDERS_MULTI;
}

int holders_collapsed(const struct holders_graph *g, const struct holders_marks *marks, uint32_t from,
                      size_t ref)
{
  const struct snapshot_reference *r = from == g->n ? NULL : &g->snapshot->references[ref];
  return r && holders_kind_collapsed(g, marks, from, r->kind, holders_text_id(r), ref);
}

int holders_step_collapsed(const struct holders_graph *g, const struct holders_marks *marks, uint32_t v)
{
  uint32_t from = g->parent[v];
  return from != g->n &&
         holders_kind_collapsed(g, marks, from, g->step_kind[v], g->step_text[v], g->parent_ref[v]);
}

/* The text wrapped: "getmetatable(_G.instance)". */
static void text_wrap(struct holders_text *t, const char *before, const char *after)
{
  size_t add = strlen(before);
  size_t keep = t->len < sizeof t->buf - 1 - add ? t->len : sizeof t->buf - 1 - add;
  t->full |= keep < t->len;
  memmove(t->buf + add, t->buf, keep);
  memcpy(t->buf, before, add);
  t->len = keep + add;
  t->buf[t->len] = '\0';
  text_put(t, after);
}

/* A module's require name as written: dotted identifiers ("events", "pl.utils"). */
static int holders_module_name(const char *s)
{
  char part[SNAPSHOT_LABEL_MAX + 1];
  for (;;) {
    size_t len = strcspn(s, ".");
    if (len > SNAPSHOT_LABEL_MAX)
      return 0;
    memcpy(part, s, len);
    part[len] = '\0';
    if (!holders_identifier(part))
      return 0;
    if (!s[len])
      return 1;
    s += len + 1;
  }
}

/* The path of v as a person reads it, from the roots (docs/diff.md, "Holders"): a module by its
 * require name ("auth.tokens[*]"), a global ("_G.records[*]"), the registry's other entries
 * ("registry.KEY"), a thread's local, from where it is named ("local pool in main chunk@app.lua";
 * a coroutine's after the coroutine's path, "sched.parked[*] ▸ local buf in function@app.lua:3"),
 * an upvalue after the path of its function ("router.resolve ▸ upvalue cache[*]"), a metatable
 * as getmetatable(...), another root in parentheses ("(ffi finalizers)"), a run of one field
 * once ("_G.chain(.next)*"). A path of more than HOLDERS_DEPTH steps shows its first
 * HOLDERS_DEPTH and " ..." ("_G.chain(.next)* ..."), so that every object deeper along it has one
 * text; one through a temporary says so. The note of a weak-keyed table's value is
 * holders_note's. *holder is the object the first [*] comes from, counted again where the
 * text starts anew (a module, a main thread's local, a slot, a frame, an upvalue no path
 * names); else where a run that ends the path starts (a list's head); else v's parent, or where
 * the last step shown leaves from. */
/* Where holders_render_path is along a path. */
struct holders_render {
  struct holders_text *t;
  uint32_t *holder;
  int skip_value;             /* the step before was an upvalue: its value object is not a step */
  int after_anchor;           /* the step before named a local or slot of a frame */
  int anchor_temporary;       /* that anchor is a temporary (a slot no local names) */
  const char *temporary_in;   /* the function of the first temporary shown */
  size_t temporary_len;
  char label[SNAPSHOT_LABEL_MAX + 64];
};

/* A root's step: "_G", "registry", or "(main thread)". */
static void holders_put_root(const struct snapshot *s, struct holders_render *w, size_t root)
{
  const char *name = snapshot_string(s, s->roots[root].text);
  if (!strcmp(name, "globals"))
    text_put(w->t, "_G");
  else if (!strcmp(name, "registry"))
    text_put(w->t, "registry");
  else {
    snprintf(w->label, sizeof w->label, "(%s)", name);
    text_put(w->t, w->label);
  }
}

/* Whether the path so far to coroutine from is a named one (no temporary on it), which what the
 * coroutine holds is said after. */
static int holders_coroutine_named(const struct holders_graph *g, const struct holders_render *w,
                                   uint32_t from)
{
  return from != g->main_thread && w->t->len && !w->anchor_temporary &&
         !(g->how[from] & HOLDERS_VIA_TEMPORARY);
}

/* A local or a slot of a frame: a new anchor, "local pool in main chunk@app.lua"; a coroutine's
 * after the path of the coroutine, named: "sched.parked[*] ▸ local buf in function@app.lua:3",
 * whose holder stays the path's (the parked coroutines' buffers are one text, and what keeps
 * them all is sched.parked); else "... in coroutine ...". */
static void holders_put_local(const struct holders_graph *g, struct holders_render *w, uint32_t from,
                              const char *text)
{
  const char *in = strstr(text, " in ");
  if (holders_coroutine_named(g, w, from) && !strncmp(text, "local ", 6)) {
    text_put(w->t, " \xe2\x96\xb8 ");
    text_put(w->t, text);
    w->after_anchor = 1;
    w->anchor_temporary = 0;
    return;
  }
  text_clear(w->t);
  *w->holder = DIFF_HOLDERS_NONE;
  if (in && from != g->main_thread)
    snprintf(w->label, sizeof w->label, "%.*s in coroutine %s", (int)(in - text), text, in + 4);
  else
    snprintf(w->label, sizeof w->label, "%s", text);
  text_put(w->t, w->label);
  w->after_anchor = 1;
  w->anchor_temporary = text[0] == 's';
  if (w->anchor_temporary && !w->temporary_in && in) {
    w->temporary_in = in + 4;
    w->temporary_len = strlen(w->temporary_in);
  }
}

/* A step that is not a root's, a module's nor package.loaded: from object from by reference r,
 * to object to. */
static void holders_put_step(const struct holders_graph *g, struct holders_render *w, uint32_t from,
                             const struct snapshot_reference *r, uint32_t to, int collapsed)
{
  const struct snapshot *s = g->snapshot;
  const struct snapshot_object *o = &s->objects[from];
  const char *text = snapshot_string(s, holders_text_id(r));
  struct holders_text *t = w->t;
  int thread_local = r->kind == SNAPSHOT_REF_OTHER && o->type == SNAPSHOT_THREAD &&
                     (!strncmp(text, "local ", 6) || !strncmp(text, "slot ", 5));
  int upvalue = r->kind == SNAPSHOT_REF_OTHER && !strncmp(text, "upvalue ", 8);
  int metatable = r->kind == SNAPSHOT_REF_OTHER && !strcmp(text, "metatable");
  if (w->after_anchor && !collapsed && !(r->kind == SNAPSHOT_REF_FIELD && !holders_identifier(text)) &&
      !upvalue && !metatable && !thread_local) {
    /* "(local pool in main chunk@app.lua).listeners": a field after an anchor's file name */
    text_parenthesize(t);
  }
  w->after_anchor = 0;
  if (collapsed) {
    if (*w->holder == DIFF_HOLDERS_NONE)
      *w->holder = from;
    text_put(t, r->kind == SNAPSHOT_REF_KEY ? "[key *]" : "[*]");
  } else if (r->kind == SNAPSHOT_REF_FIELD) {
    if (holders_identifier(text)) {
      if (t->len)
        text_put(t, ".");
      text_put(t, text);
    } else {
      text_put(t, "[\"");
      text_put(t, text);
      text_put(t, "\"]");
    }
  } else if (upvalue) {
    /* after the path of its function: "router.resolve ▸ upvalue cache"; a holder a [*] on that
     * path named stays (the upvalues of every handler in a list have one text, and the list
     * keeps them all) */
    if (t->len) {
      text_put(t, " \xe2\x96\xb8 ");
      text_put(t, text);
    } else {
      *w->holder = DIFF_HOLDERS_NONE;
      snprintf(w->label, sizeof w->label, "%s of %s", text, holders_function_name(s, o));
      text_put(t, w->label);
    }
    w->skip_value = 1;
  } else if (thread_local) {
    holders_put_local(g, w, from, text);
  } else if (r->kind == SNAPSHOT_REF_OTHER && o->type == SNAPSHOT_THREAD && !strcmp(text, "frame")) {
    /* the function a frame runs: after a coroutine's named path ("pipeline.source ▸ upvalue 1 ▸
     * running function@..."), its holder kept; else a new anchor */
    snprintf(w->label, sizeof w->label, "running %s", holders_function_name(s, &s->objects[to]));
    if (holders_coroutine_named(g, w, from)) {
      text_put(t, " \xe2\x96\xb8 ");
    } else {
      text_clear(t);
      *w->holder = DIFF_HOLDERS_NONE;
    }
    text_put(t, w->label);
  } else if (metatable) {
    text_wrap(t, "getmetatable(", ")");
  } else {
    text_put(t, "<");
    text_put(t, snapshot_label(s, r, w->label, sizeof w->label));
    text_put(t, ">");
  }
}

/* The steps of a run of one field from step i: 2 or more steps by the same identifier, not
 * collapsed (a linked list: "next", "next", ...), else 0. Never from a root's object nor from
 * package.loaded: a global's or a module's step is its name ("_G.config.config" is no list). */
static size_t holders_run(const struct holders_graph *g, const struct holders_marks *marks, const uint32_t *from,
                          const size_t *refs, size_t i, size_t depth)
{
  const struct snapshot *s = g->snapshot;
  const struct snapshot_reference *first = &s->references[refs[i]];
  if (i == 0 || from[i] == g->n || from[i - 1] == g->n || from[i] == g->loaded ||
      first->kind != SNAPSHOT_REF_FIELD || holders_collapsed(g, marks, from[i], refs[i]) ||
      !holders_identifier(snapshot_string(s, holders_text_id(first))))
    return 0;
  size_t j = i + 1;
  while (j < depth && from[j] != g->n && s->references[refs[j]].kind == SNAPSHOT_REF_FIELD &&
         holders_text_id(&s->references[refs[j]]) == holders_text_id(first) &&
         !holders_collapsed(g, marks, from[j], refs[j]))
    j++;
  return j - i >= 2 ? j - i : 0;
}

/* A run of one field (holders_run) said once: "_G.chain(.next)*", whatever its length, so that
 * the nodes of a list have one text. */
static void holders_put_run(const struct holders_graph *g, struct holders_render *w, const struct snapshot_reference *r)
{
  if (w->after_anchor)
    text_parenthesize(w->t);
  w->after_anchor = 0;
  text_put(w->t, "(.");
  text_put(w->t, snapshot_string(g->snapshot, holders_text_id(r)));
  text_put(w->t, ")*");
}

void holders_render_path(const struct holders_graph *g, const struct holders_marks *marks, uint32_t v,
                         struct holders_text *t, uint32_t *holder)
{
  const struct snapshot *s = g->snapshot;
  uint32_t from[HOLDERS_DEPTH];
  size_t refs[HOLDERS_DEPTH];
  int cut;
  size_t depth = holders_steps(g, v, from, refs, &cut);
  struct holders_render w = {.t = t, .holder = holder};
  uint32_t run_from = DIFF_HOLDERS_NONE;  /* where a run that ends the steps starts */
  text_clear(t);
  *holder = DIFF_HOLDERS_NONE;
  for (size_t i = 0; i < depth; i++) {
    uint32_t to = i + 1 < depth ? from[i + 1] : g->top[v];
    if (from[i] == g->n) {
      holders_put_root(s, &w, refs[i]);
      continue;
    }
    const struct snapshot_object *o = &s->objects[from[i]];
    const struct snapshot_reference *r = &s->references[refs[i]];
    if (w.skip_value && o->type == SNAPSHOT_UPVALUE) {
      w.skip_value = 0;
      continue;
    }
    w.skip_value = 0;
    size_t run = holders_run(g, marks, from, refs, i, depth);
    if (run) {
      holders_put_run(g, &w, r);
      run_from = i + run == depth ? from[i] : DIFF_HOLDERS_NONE;
      i += run - 1;
      continue;
    }
    int collapsed = holders_collapsed(g, marks, from[i], refs[i]);
    if (to == g->loaded && from[i] == g->registry) {
      text_clear(t);
      text_put(t, "package.loaded");
    } else if (from[i] == g->loaded && r->kind == SNAPSHOT_REF_FIELD && !collapsed) {
      const char *text = snapshot_string(s, holders_text_id(r));
      text_clear(t);  /* a module: its require name */
      *holder = DIFF_HOLDERS_NONE;
      if (holders_module_name(text)) {
        text_put(t, text);
      } else {
        text_put(t, "package.loaded[\"");
        text_put(t, text);
        text_put(t, "\"]");
      }
    } else {
      holders_put_step(g, &w, from[i], r, to, collapsed);
    }
  }
  if (g->how[v] & HOLDERS_VIA_TEMPORARY) {
    if (w.anchor_temporary || !w.temporary_len)
      snprintf(w.label, sizeof w.label, " (only through a temporary)");
    else
      snprintf(w.label, sizeof w.label, " (only through a temporary of %.*s)", (int)w.temporary_len,
               w.temporary_in);
  } else {
    w.label[0] = '\0';
  }
  holders_text_end(t, cut, w.label);
  /* The nodes of a list: held by its head, which keeps them all alive, not each by the one
   * before it. */
  if (*holder == DIFF_HOLDERS_NONE && run_from != DIFF_HOLDERS_NONE)
    *holder = run_from;
  if (*holder == DIFF_HOLDERS_NONE && depth)  /* held by a root itself: the object is its own holder */
    *holder = from[depth - 1] == g->n ? v : from[depth - 1];
}

#define HOLDERS_KEY_TEXT 400        /* bytes of a key's path in a note */

/* The note of v when its path goes through a weak-keyed table's value: it lives while its key
 * lives, and who holds the key (its own path), or that the key is held only through that
 * value: a cycle LuaJIT's weak keys never collect (no ephemerons). "" when v's path does not. */
void holders_note(const struct holders_graph *g, const struct holders_marks *keys, uint32_t v,
                  struct holders_text *note)
{
  text_clear(note);
  uint32_t step = g->key_step ? g->key_step[v] : DIFF_HOLDERS_NONE;
  if (step == DIFF_HOLDERS_NONE)
    return;
  uint32_t key = holders_key_of(g->snapshot, step), holder;
  if (key == DIFF_HOLDERS_NONE || g->parent[key] == DIFF_HOLDERS_NONE) {
    text_put(note, " (lives while its key lives; the key has no path from a root)");
  } else if (g->key_step[key] == step) {
    text_put(note, " (lives while its key lives, and the key is held only through this value: "
                   "a cycle that weak keys never collect in LuaJIT)");
  } else {
    struct holders_text k;
    holders_render_path(g, keys, key, &k, &holder);
    if (k.len > HOLDERS_KEY_TEXT) {
      k.len = HOLDERS_KEY_TEXT;
      while (k.len && ((unsigned char)k.buf[k.len] & 0xc0) == 0x80)
        k.len--;
      k.buf[k.len] = '\0';
      text_put(&k, " ...");
    }
    text_put(note, " (lives while its key lives; the key is held by ");
    text_put(note, k.buf);
    if (g->key_step[key] != DIFF_HOLDERS_NONE)
      text_put(note, ", itself while its own key lives");
    text_put(note, ")");
  }
}

/* The whole text of v: its path and its note. */
void holders_render(const struct holders_graph *g, const struct holders_marks *marks, uint32_t v,
                    struct holders_text *t, uint32_t *holder)
{
  struct holders_text note;
  holders_render_path(g, marks, v, t, holder);
  holders_note(g, marks, v, &note);
  if (note.len)
    holders_text_end(t, 0, note.buf);
}
