/* report/html_page.h: the HTML report's inline style sheet and script (html_page.c). */
#ifndef LJLEAK_REPORT_HTML_PAGE_H
#define LJLEAK_REPORT_HTML_PAGE_H

/* The <style> element, whole. */
extern const char report_html_style[];
/* The <script> element, whole: sorts the site table by the column clicked. */
extern const char report_html_script[];

#endif
