/* report/escape.c: the one escaper of each output format (HTML, XML, Markdown, the terminal), which every renderer of that format uses, the merge's too. */
#include <inttypes.h>
#include <string.h>

#include "format/utf8.h"
#include "report/report.h"

/* The markups whose specials are entities. */
enum escape_markup {
  ESCAPE_HTML,
  ESCAPE_XML,
  ESCAPE_MARKDOWN             /* text: only <, > and &; quotes are no markup there */
};

/* The entity of a character the markup would read as markup, or NULL. */
static const char *escape_entity(uint32_t cp, enum escape_markup markup)
{
  switch (cp) {
  case '<': return "&lt;";
  case '>': return "&gt;";
  case '&': return "&amp;";
  case '"': return markup == ESCAPE_MARKDOWN ? NULL : "&quot;";
  case '\'': return markup == ESCAPE_MARKDOWN ? NULL : markup == ESCAPE_XML ? "&apos;" : "&#39;";
  default: return NULL;
  }
}

/* report_put_html and report_put_xml: one character at a time, what the markup forbids or
 * would change replaced. */
static void escape_markup(FILE *out, const char *text, enum escape_markup markup)
{
  if (!text)
    return;
  int xml = markup == ESCAPE_XML;
  size_t length = strlen(text);
  for (size_t i = 0; i < length;) {
    uint32_t cp;
    i += utf8_decode(text + i, length - i, &cp);
    const char *entity = escape_entity(cp, markup);
    if (entity)
      fputs(entity, out);
    else if (xml && (cp == '\t' || cp == '\n' || cp == '\r'))
      fprintf(out, "&#%" PRIu32 ";", cp);
    else if (xml ? cp < 0x20 || cp == 0xfffe || cp == 0xffff
                 : (cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
      utf8_put(out, 0xfffd);
    else
      utf8_put(out, cp);
  }
}

void report_put_html(FILE *out, const char *text)
{
  escape_markup(out, text, ESCAPE_HTML);
}

void report_put_xml(FILE *out, const char *text)
{
  escape_markup(out, text, ESCAPE_XML);
}

void report_put_terminal(FILE *out, const char *text)
{
  if (text)
    utf8_put_terminal(out, text, strlen(text), UTF8_TERMINAL_TEXT);
}

/* One character of Markdown (cp, the used bytes at s, of length left) as where shows it. */
static void escape_markdown_char(FILE *out, const char *s, size_t length, uint32_t cp, size_t used,
                                 enum report_markdown where)
{
  char piece[UTF8_TERMINAL_CHAR_MAX];
  const char *entity = escape_entity(cp, ESCAPE_MARKDOWN);
  switch (where) {
  case REPORT_MARKDOWN_CODE:
  case REPORT_MARKDOWN_CODE_CELL:  /* a code span shows a backslash as it is */
    if (where == REPORT_MARKDOWN_CODE_CELL && cp == '|')
      fputs("\\|", out);  /* the table reads it as a '|' of the cell, even in a code span */
    else
      fwrite(piece, 1, utf8_terminal_char(piece, s, length, UTF8_TERMINAL_TEXT, &used), out);
    return;
  case REPORT_MARKDOWN_CELL:
    if (utf8_terminal_unsafe(cp))
      return;
    if (cp < 0x80 && strchr("|\\`*_<>[]#&@", (int)cp))
      fprintf(out, "&#%" PRIu32 ";", cp);
    else
      utf8_put(out, cp);
    return;
  case REPORT_MARKDOWN_TEXT:
    if (entity)
      fputs(entity, out);
    else if (cp == '\t' || cp == '\n' || cp == '\r')
      putc(' ', out);
    else if (utf8_terminal_unsafe(cp) || (cp == 0xfffd && used == 1))
      fwrite(piece, 1, utf8_terminal_char(piece, s, length, UTF8_TERMINAL_TEXT, &used), out);
    else if (cp < 0x80 && strchr("\\`*_[]|~", (int)cp))
      fprintf(out, "\\%c", (char)cp);
    else
      fwrite(s, 1, used, out);
    return;
  }
}

void report_put_markdown(FILE *out, const char *text, enum report_markdown where)
{
  /* A backslash before a '|' would escape the backslash of its \|, and the table would end the
   * cell there, inside the code span: such a name is a cell of entities instead. */
  if (where == REPORT_MARKDOWN_CODE_CELL && text && strstr(text, "\\|"))
    where = REPORT_MARKDOWN_CELL;
  size_t length = text ? strlen(text) : 0;
  int code = where == REPORT_MARKDOWN_CODE || where == REPORT_MARKDOWN_CODE_CELL;
  if (code && !length)
    return;
  /* A code span's fence is one backtick more than the longest run in the text. Escaping adds
   * no backtick and no space, and keeps '`' and ' ' at either end as they are: the fence and
   * the padding can be read off the text. */
  size_t run = 0, longest = 0, spaces = 0;
  for (size_t i = 0; code && i < length; i++) {
    run = text[i] == '`' ? run + 1 : 0;
    if (run > longest)
      longest = run;
    spaces += text[i] == ' ';
  }
  int pad = code && spaces < length &&
            (text[0] == '`' || text[length - 1] == '`' || (text[0] == ' ' && text[length - 1] == ' '));
  for (size_t k = 0; code && k <= longest; k++)
    putc('`', out);
  if (pad)
    putc(' ', out);
  for (size_t i = 0, used; i < length; i += used) {
    uint32_t cp;
    used = utf8_decode(text + i, length - i, &cp);
    escape_markdown_char(out, text + i, length - i, cp, used, where);
  }
  if (pad)
    putc(' ', out);
  for (size_t k = 0; code && k <= longest; k++)
    putc('`', out);
}
