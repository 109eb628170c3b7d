# diff/summary.mk: the Tarantool-compatible summary (ljleak summary); needs only format.
STAGES += summary
summary_SRCS := diff/summary.c
