# format/: the memprof codec.
LIB_SRCS += format/uleb128.c
