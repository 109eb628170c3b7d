/* collector/options.h: parsing of option values (sizes, seconds, booleans, signals). */
#ifndef LJLEAK_COLLECTOR_OPTIONS_H
#define LJLEAK_COLLECTOR_OPTIONS_H

#include <stdint.h>

/* Sizes and seconds: ljleak_collector_parse_size and _seconds, in the
 * public header (ljleak_collector.h). */
/* 1/0, yes/no, true/false, on/off. 0 or -1. */
int options_parse_bool(const char *text, int *value);
/* "USR2", "SIGUSR2", "12"; "none" or "" gives 0. Returns 0 or -1. */
int options_parse_signal(const char *text, int *signo);

#endif
