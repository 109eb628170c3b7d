/* collector/signal.c: the start/stop signal's handler and its installation (ljleak_collector_install_signal). */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "collector/capture.h"
#include "collector/control.h"
#include "collector/options.h"
#include "collector/text.h"

/* Sets the flag and marks fast_phase, so that the hook's fast paths, which
 * compare it with the GC phase, leave for the slow path that reads the flag. */
static void on_signal(int signo)
{
  (void)signo;
  __atomic_fetch_or(&coll_capture_signal_pending, COLL_CAPTURE_PENDING_SIGNAL, __ATOMIC_SEQ_CST);
  __atomic_store_n(&coll_capture_state.fast_phase, -1, __ATOMIC_RELAXED);
}

/* Whether the program handles signo itself (a log reopened on USR2): replaced, its signal would
 * toggle captures instead, and nothing said. One it ignores or leaves alone is taken. */
static int program_handles(int signo)
{
  struct sigaction old;
  if (sigaction(signo, NULL, &old) != 0)
    return 0;
  if (old.sa_flags & SA_SIGINFO)
    return 1;   /* an sa_sigaction handler: never ours */
  return old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN && old.sa_handler != on_signal;
}

int ljleak_collector_install_signal(lua_State *L, const char *spec, char *err, size_t err_size)
{
  struct coll_capture *c = &coll_capture_state;
  int signo;
  if (coll_options_parse_signal(spec, &signo) != 0) {
    coll_text_error(err, err_size,
                      "bad signal '%s': use USR1, USR2, a real-time signal (RTMIN+n, RTMAX-n, or "
                      "its number) or none%s", spec ? spec : "", "");
    return -1;
  }
  if (signo == 0)
    return 0;
  if (program_handles(signo)) {
    coll_text_error(err, err_size, "signal %s has a handler of the program's: not replaced%s", spec,
                    " (LJLEAK_SIGNAL names another, or none)");
    return -1;
  }
  if (coll_capture_attach(L, err, err_size) != 0)
    return -1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  if (sigaction(signo, &sa, NULL) != 0) {
    coll_text_error(err, err_size, "cannot install the handler for signal %s: %s", spec,
              strerror(errno));
    return -1;
  }
  c->signo = signo;
  return 0;
}
