/* collector/state.c: the one capture of the process and its request flag (state.h). */
#include "collector/state.h"

struct coll_capture coll_capture_state __attribute__((aligned(64))) = {.index = {.fd = -1}, .dir = {.fd = -1}, .out = {.fd = -1}};
volatile sig_atomic_t coll_capture_signal_pending;
