# format/: the memprof codec.
STAGES += format
format_SRCS := format/uleb128.c
