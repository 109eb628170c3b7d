/* collector/options.h: parsing of option values (sizes, seconds, booleans, signals). */
#ifndef LJLEAK_COLLECTOR_OPTIONS_H
#define LJLEAK_COLLECTOR_OPTIONS_H

#include <stdint.h>

/* "123", "64k", "8M", "1g" (binary multiples). 0 or -1. */
int options_parse_size(const char *text, uint64_t *value);
/* Seconds, a non-negative decimal ("2.5"). 0 or -1. */
int options_parse_seconds(const char *text, double *value);
/* 1/0, yes/no, true/false, on/off. 0 or -1. */
int options_parse_bool(const char *text, int *value);
/* "USR2", "SIGUSR2", "12"; "none" or "" gives 0. Returns 0 or -1. */
int options_parse_signal(const char *text, int *signo);

#endif
