/* tests/attach_host.c: a C host that embeds LuaJIT the way nginx does, for tests/e2e/host-attach.sh:
 * one thread, an epoll loop serving HTTP/1.1 keep-alive on 127.0.0.1:PORT, and for each request a
 * call of the Lua script's global handle(path), whose string is the body. Between requests the VM
 * is idle in epoll_wait, so that ljleak attach must wait for the host's next call into Lua. */
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

#define HOST_CONNECTIONS 64
#define HOST_REQUEST_MAX 4096

struct host_connection {
  int fd;
  size_t used;
  char request[HOST_REQUEST_MAX];
};

static volatile sig_atomic_t host_stopping;

static void host_on_term(int sig)
{
  (void)sig;
  host_stopping = 1;
}

static int host_write_all(int fd, const char *data, size_t size)
{
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return -1;
    data += n;
    size -= (size_t)n;
  }
  return 0;
}

/* Answers one request line "GET PATH HTTP/1.x" with handle(PATH): 0, or -1 to close. */
static int host_answer(lua_State *L, int fd, const char *request)
{
  char path[256];
  if (sscanf(request, "GET %255s HTTP/1.", path) != 1)
    return -1;
  lua_getglobal(L, "handle");
  lua_pushstring(L, path);
  int status = 200;
  size_t length = 0;
  const char *body;
  if (lua_pcall(L, 1, 1, 0) != 0) {
    status = 500;
    fprintf(stderr, "attach_host: %s\n", lua_tostring(L, -1));
    body = "error\n";
    length = strlen(body);
  } else {
    body = lua_tolstring(L, -1, &length);
    if (!body) {
      body = "";
      length = 0;
    }
  }
  char head[128];
  int n = snprintf(head, sizeof head, "HTTP/1.1 %d %s\r\nContent-Length: %zu\r\n\r\n", status,
                   status == 200 ? "OK" : "Internal Server Error", length);
  int rc = host_write_all(fd, head, (size_t)n) == 0 && host_write_all(fd, body, length) == 0 ? 0 : -1;
  lua_pop(L, 1);
  return rc;
}

/* Reads what the connection sent and answers every complete request in it: 0, or -1 to close. */
static int host_serve(lua_State *L, struct host_connection *c)
{
  ssize_t n = read(c->fd, c->request + c->used, sizeof c->request - 1 - c->used);
  if (n < 0 && errno == EINTR)
    return 0;
  if (n <= 0)
    return -1;
  c->used += (size_t)n;
  c->request[c->used] = '\0';
  char *end;
  while ((end = strstr(c->request, "\r\n\r\n")) != NULL) {
    if (host_answer(L, c->fd, c->request) != 0)
      return -1;
    size_t rest = c->used - (size_t)(end + 4 - c->request);
    memmove(c->request, end + 4, rest + 1);
    c->used = rest;
  }
  return c->used + 1 < sizeof c->request ? 0 : -1;
}

int main(int argc, char **argv)
{
  if (argc != 3) {
    fprintf(stderr, "usage: attach_host SCRIPT PORT\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  signal(SIGTERM, host_on_term);
  lua_State *L = luaL_newstate();
  if (!L)
    return 1;
  luaL_openlibs(L);
  if (luaL_dofile(L, argv[1]) != 0) {
    fprintf(stderr, "attach_host: %s\n", lua_tostring(L, -1));
    return 1;
  }
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int on = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons((uint16_t)atoi(argv[2]));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0 ||
      listen(listener, 64) != 0) {
    perror("attach_host: listen");
    return 1;
  }
  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
  epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
  static struct host_connection conns[HOST_CONNECTIONS];
  for (int i = 0; i < HOST_CONNECTIONS; i++)
    conns[i].fd = -1;
  printf("listening\n");
  fflush(stdout);
  while (!host_stopping) {
    struct epoll_event events[16];
    int n = epoll_wait(ep, events, 16, 200);
    for (int i = 0; i < n; i++) {
      struct host_connection *c = events[i].data.ptr;
      if (!c) {
        int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        int slot = 0;
        while (slot < HOST_CONNECTIONS && conns[slot].fd >= 0)
          slot++;
        if (fd < 0 || slot == HOST_CONNECTIONS) {
          if (fd >= 0)
            close(fd);
          continue;
        }
        conns[slot].fd = fd;
        conns[slot].used = 0;
        struct epoll_event cev = {.events = EPOLLIN, .data.ptr = &conns[slot]};
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev);
      } else if (host_serve(L, c) != 0) {
        close(c->fd);   /* leaves the epoll set with it */
        c->fd = -1;
      }
    }
  }
  for (int i = 0; i < HOST_CONNECTIONS; i++)
    if (conns[i].fd >= 0)
      close(conns[i].fd);
  close(listener);
  close(ep);
  lua_close(L);
  return 0;
}
