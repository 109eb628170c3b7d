/* report/flame.c: the HTML report's leak flame graph (growth of live bytes by stack; click to zoom, hover for bytes and verdict) and each flagged site's stacks. */
#include <inttypes.h>
#include <string.h>

#include "format/json_write.h"
#include "report/common.h"

#define FLAME_SITE_STACKS 8  /* stacks listed under a flagged site */

/* The data the script draws: one entry per stack that grew, its frames root
 * first (the labels its name is made of), its growth in bytes over the
 * judged boundaries and its verdict. JSON inside a script element: the
 * writer escapes <, > and &, so no name can end the element. */
static size_t flame_put_data(FILE *out, const struct diff_result *r, size_t from, size_t to)
{
  size_t count, drawn = 0;
  const struct diff_site *rows = report_stack_rows(r, &count);
  fputs("<script type=\"application/json\" id=\"flame-data\">{\"from\": ", out);
  fprintf(out, "%zu, \"to\": %zu, \"stacks\": [", from, to);
  for (size_t i = 0; i < count; i++) {
    const struct diff_site *row = &rows[i];
    uint64_t a = report_live_at(row, from);
    uint64_t b = report_live_at(row, to);
    if (b <= a)
      continue;  /* a flame graph draws what grew */
    fputs(drawn++ ? ",\n" : "\n", out);
    fputs("{\"frames\": [", out);
    if (!row->frame_count) {
      json_write_string(out, row->name);
    } else {
      const char *name = row->name;
      for (int first = 1;; first = 0) {  /* the labels, split where the name joins them */
        const char *end = strchr(name, ';');
        size_t length = end ? (size_t)(end - name) : strlen(name);
        char label[1024];
        snprintf(label, sizeof label, "%.*s", (int)(length < sizeof label ? length : sizeof label - 1),
                 name);
        if (!first)
          fputs(", ", out);
        json_write_string(out, label);
        if (!end)
          break;
        name = end + 1;
      }
    }
    fprintf(out, "], \"bytes\": %" PRIu64 ", \"verdict\": ", b - a);
    json_write_string(out, diff_verdict_name(row->verdict));
    fputs("}", out);
  }
  fputs("]}</script>\n", out);
  return drawn;
}

static const char flame_script[] =
    "<script>\n"
    "(function () {\n"
    "  var data = JSON.parse(document.getElementById('flame-data').textContent);\n"
    "  var svg = document.getElementById('flame'), info = document.getElementById('flame-info');\n"
    "  var ns = svg.namespaceURI, width = 1200, row = 18;  /* no URL in the page */\n"
    "  var root = {name: 'all', bytes: 0, verdicts: {}, children: [], depth: 0, parent: null};\n"
    "  data.stacks.forEach(function (s) {\n"
    "    var node = root;\n"
    "    root.bytes += s.bytes;\n"
    "    root.verdicts[s.verdict] = true;\n"
    "    s.frames.forEach(function (f) {\n"
    "      var next = node.children.filter(function (c) { return c.name === f; })[0];\n"
    "      if (!next) {\n"
    "        next = {name: f, bytes: 0, verdicts: {}, children: [], depth: node.depth + 1, parent: node};\n"
    "        node.children.push(next);\n"
    "      }\n"
    "      next.bytes += s.bytes;\n"
    "      next.verdicts[s.verdict] = true;\n"
    "      node = next;\n"
    "    });\n"
    "  });\n"
    "  var depth = function (n) {\n"
    "    return n.children.reduce(function (d, c) { return Math.max(d, depth(c)); }, n.depth);\n"
    "  };\n"
    "  var units = ['B', 'KiB', 'MiB', 'GiB'];\n"
    "  var human = function (b) {\n"
    "    var u = 0;\n"
    "    while (b >= 1024 && u < 3) { b /= 1024; u++; }\n"
    "    return (u ? b.toFixed(1) : b) + ' ' + units[u];\n"
    "  };\n"
    "  var verdict = function (n) { return Object.keys(n.verdicts).sort().join(', '); };\n"
    "  var bad = function (n) { return n.verdicts.growing || n.verdicts['new'] || n.verdicts.worse; };\n"
    "  svg.setAttribute('viewBox', '0 0 ' + width + ' ' + (depth(root) + 1) * row);\n"
    "  svg.setAttribute('height', (depth(root) + 1) * row);\n"
    "  var draw = function (zoom) {\n"
    "    while (svg.firstChild) svg.removeChild(svg.firstChild);\n"
    "    var place = function (n, x, w) {\n"
    "      var g = document.createElementNS(ns, 'g');\n"
    "      var r = document.createElementNS(ns, 'rect');\n"
    "      r.setAttribute('x', x.toFixed(3));\n"
    "      r.setAttribute('y', (n.depth * row).toFixed(0));\n"
    "      r.setAttribute('width', w.toFixed(3));\n"
    "      r.setAttribute('height', row - 1);\n"
    "      r.setAttribute('class', bad(n) ? 'bad' : n.verdicts.undecided ? 'unsure' : 'ok');\n"
    "      r.setAttribute('data-name', n.name);\n"
    "      r.setAttribute('data-bytes', n.bytes);\n"
    "      r.setAttribute('data-depth', n.depth);\n"
    "      r.setAttribute('data-verdict', verdict(n));\n"
    "      var t = document.createElementNS(ns, 'title');\n"
    "      t.textContent = n.name + ': ' + human(n.bytes) + ' grown (' + verdict(n) + ')';\n"
    "      r.appendChild(t);\n"
    "      g.appendChild(r);\n"
    "      if (w > 40) {\n"
    "        var label = document.createElementNS(ns, 'text');\n"
    "        label.setAttribute('x', (x + 3).toFixed(3));\n"
    "        label.setAttribute('y', (n.depth * row + row - 5).toFixed(0));\n"
    "        label.textContent = n.name.length * 7 > w ? n.name.slice(0, Math.floor(w / 7) - 1) + '\\u2026' : n.name;\n"
    "        g.appendChild(label);\n"
    "      }\n"
    "      g.addEventListener('click', function (e) { e.stopPropagation(); draw(n === zoom ? root : n); });\n"
    "      g.addEventListener('mouseover', function () { info.textContent = t.textContent; });\n"
    "      svg.appendChild(g);\n"
    "      var cx = x;\n"
    "      n.children.forEach(function (c) {\n"
    "        var cw = n.bytes ? w * c.bytes / n.bytes : 0;\n"
    "        place(c, cx, cw);\n"
    "        cx += cw;\n"
    "      });\n"
    "    };\n"
    "    var chain = [];  /* the zoomed node's ancestors keep the full width */\n"
    "    for (var a = zoom.parent; a; a = a.parent) chain.unshift(a);\n"
    "    chain.forEach(function (a) {\n"
    "      var kids = a.children;\n"
    "      a.children = [];\n"
    "      place(a, 0, width);\n"
    "      a.children = kids;\n"
    "    });\n"
    "    place(zoom, 0, width);\n"
    "    svg.setAttribute('data-zoom', zoom.name);\n"
    "  };\n"
    "  draw(root);\n"
    "  document.body.setAttribute('data-flame', 'drawn');\n"
    "})();\n"
    "</script>\n";

static void flame_put_site_stacks(FILE *out, const struct diff_result *r)
{
  const struct diff_site *stacks[FLAME_SITE_STACKS];
  size_t shown = 0;
  for (size_t i = 0; i < r->site_count; i++) {
    const struct diff_site *site = &r->sites[i];
    if (!site->facts.flagged && !site->facts.undecided)
      continue;
    size_t total = report_site_stacks(r, site, stacks, FLAME_SITE_STACKS);
    if (!total)
      continue;
    if (!shown++)
      fputs("<h2>Stacks of the flagged sites</h2>\n<div class=\"stacks\">\n", out);
    fputs("<h3><code>", out);
    report_put_html(out, site->name);
    fputs("</code></h3>\n<ol>\n", out);
    for (size_t k = 0; k < total && k < FLAME_SITE_STACKS; k++) {
      const struct diff_site *stack = stacks[k];
      char growth[48], live[48];
      report_format_bytes(growth, sizeof growth, stack->growth_bytes_per_segment, 1);
      report_format_bytes(live, sizeof live, (double)report_last_live(stack), 0);
      fprintf(out, "<li class=\"stack\" data-verdict=\"%s\"><span class=\"badge %s\">%s</span> %s/boundary, %s: <code>",
              diff_verdict_name(stack->verdict), diff_verdict_name(stack->verdict),
              diff_verdict_name(stack->verdict), growth, live);
      report_put_html(out, report_stack_name(stack));
      fputs("</code></li>\n", out);
    }
    if (total > FLAME_SITE_STACKS)
      fprintf(out, "<li>and %zu more</li>\n", total - FLAME_SITE_STACKS);
    fputs("</ol>\n", out);
  }
  if (shown)
    fputs("</div>\n", out);
}

void report_html_flame(FILE *out, const struct diff_result *r)
{
  size_t count;
  const struct diff_site *rows = report_stack_rows(r, &count);
  if (!r->stack_count && !(count && rows[0].is_stack))
    return;  /* no stacks: the page is as it was before them */
  flame_put_site_stacks(out, r);
  size_t from = report_stack_from(r), to = r->facts.boundaries;
  if (r->mode == DIFF_MODE_RANGE && r->options.range_to)
    to = r->options.range_to;
  fprintf(out, "<h2>Leak flame graph <span class=\"kind\">growth of live bytes by stack, "
               "boundary %zu to %zu; click to zoom, hover for bytes and verdict</span></h2>\n",
          from, to);
  fputs("<style>#flame{width:100%;font:12px ui-monospace,monospace}#flame rect{stroke:#fff}"
        "#flame rect.bad{fill:#e57373}#flame rect.ok{fill:#b0bec5}#flame rect.unsure{fill:#ffd54f}"
        "#flame g{cursor:pointer}#flame-info{min-height:1.4em;color:var(--muted)}"
        ".stacks ol{margin:0 0 10px}.stacks h3{font-size:14px;margin:8px 0 4px}"
        ".stacks code{word-break:break-all}</style>\n",
        out);
  if (!flame_put_data(out, r, from, to)) {
    fputs("<p class=\"kind\" id=\"flame-none\">No stack grew between these boundaries.</p>\n", out);
    return;
  }
  fputs("<div class=\"chart\"><svg id=\"flame\" preserveAspectRatio=\"none\"></svg>"
        "<div id=\"flame-info\"></div></div>\n",
        out);
  fputs(flame_script, out);
}
