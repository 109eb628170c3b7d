/* report/html_suspects.h: the HTML page's sections on containers (html_suspects.c); html.c puts them before the site table. */
#ifndef LJLEAK_REPORT_HTML_SUSPECTS_H
#define LJLEAK_REPORT_HTML_SUSPECTS_H

#include <stdio.h>

#include "diff/diff.h"

/* The leak suspects: each container with its growth, what it retains and holds, the sites under
 * it; then the flagged sites that no container explains. Nothing unless the result groups them. */
void report_html_suspects(FILE *out, const struct diff_result *r);

/* The containers that grew between two heap snapshots; nothing when there are none. */
void report_html_containers(FILE *out, const struct diff_result *r);

#endif
