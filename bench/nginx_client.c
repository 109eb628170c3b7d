/* bench/nginx_client.c: a small HTTP/1.1 load client for the nginx test and bench: keep-alive requests on a few connections, counted by status. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* One connection's work and counts. */
struct client {
  const char *host;
  int port;
  const char *paths[16];
  int path_count;
  long requests;        /* to send */
  double until;         /* or: send until this monotonic time (0: by count) */
  long ok, other, failed;
  int first_status;     /* the first status that was not 200 */
  double slowest;       /* the longest exchange, seconds (a reconnection included) */
};

static double mono_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int connect_to(const char *host, int port)
{
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons((uint16_t)port);
  if (inet_pton(AF_INET, host, &addr.sin_addr) != 1 ||
      connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

/* Sends one request and reads its response: the status; -2 when the
 * server had closed the connection before it took the request (an idle
 * keep-alive connection that a worker closed as it exited: sent again, as
 * HTTP clients do for a GET); -1 when the exchange failed. */
static int exchange(int fd, const char *host, const char *path, char *buffer, size_t size,
                    int *closing)
{
  char request[512];
  int n = snprintf(request, sizeof request,
                   "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: keep-alive\r\n\r\n", path, host);
  if (n <= 0 || (size_t)n >= sizeof request)
    return -1;
  if (send(fd, request, (size_t)n, MSG_NOSIGNAL) != n)
    return -2;
  size_t used = 0;
  char *end = NULL;
  while (!end) {
    if (used + 1 >= size)
      return -1;
    ssize_t got = read(fd, buffer + used, size - 1 - used);
    if (got <= 0)
      return used == 0 ? -2 : -1;
    used += (size_t)got;
    buffer[used] = '\0';
    end = strstr(buffer, "\r\n\r\n");
  }
  int status = 0;
  if (sscanf(buffer, "HTTP/1.%*d %d", &status) != 1)
    return -1;
  /* nginx closes a connection after keepalive_requests (1000) requests. */
  const char *close_header = strcasestr(buffer, "\r\nconnection: close");
  *closing = close_header && close_header < end;
  const char *cl = strcasestr(buffer, "\r\ncontent-length:");
  size_t have = used - (size_t)(end + 4 - buffer);
  if (cl && cl < end) {
    size_t body = strtoul(cl + 17, NULL, 10);
    while (have < body) {
      ssize_t got = read(fd, buffer, size - 1);
      if (got <= 0)
        return -1;
      have += (size_t)got;
    }
    return have == body ? status : -1;
  }
  /* Chunked (what ngx.say sends): the body ends with the last chunk, "0"
   * and an empty line; the test's bodies are short, so it is read whole. */
  const char *te = strcasestr(buffer, "\r\ntransfer-encoding: chunked");
  if (!te || te > end)
    return -1;
  size_t body_at = (size_t)(end + 4 - buffer);
  memmove(buffer, buffer + body_at, have + 1);
  used = have;
  while (used < 5 || memcmp(buffer + used - 5, "0\r\n\r\n", 5) != 0 ||
         (used > 5 && buffer[used - 6] != '\n')) {
    if (used + 1 >= size)
      return -1;
    ssize_t got = read(fd, buffer + used, size - 1 - used);
    if (got <= 0)
      return -1;
    used += (size_t)got;
    buffer[used] = '\0';
  }
  return status;
}

static void *run_client(void *arg)
{
  struct client *c = arg;
  char buffer[65536];
  int fd = -1, retried = 0;
  for (long i = 0; c->until > 0 ? mono_seconds() < c->until : i < c->requests; i++) {
    if (fd < 0 && (fd = connect_to(c->host, c->port)) < 0) {
      c->failed++;
      usleep(10000);
      continue;
    }
    int closing = 0;
    double sent = mono_seconds();
    int status = exchange(fd, c->host, c->paths[i % c->path_count], buffer, sizeof buffer,
                          &closing);
    if (mono_seconds() - sent > c->slowest)
      c->slowest = mono_seconds() - sent;
    if (closing && status >= 0) {
      close(fd);
      fd = -1;
    }
    if (status == 200) {
      c->ok++;
      continue;
    }
    if (status == -2 && !retried) {
      close(fd);
      fd = -1;
      retried = 1;
      i--;
      continue;
    }
    retried = 0;
    if (status < 0) {
      c->failed++;
      close(fd);
      fd = -1;
      continue;
    }
    c->other++;
    if (!c->first_status)
      c->first_status = status;
  }
  if (fd >= 0)
    close(fd);
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc < 5) {
    fprintf(stderr, "usage: nginx_client PORT CONNECTIONS REQUESTS|SECONDSs PATH...\n"
                    "  REQUESTS per connection, or SECONDS with an s (\"3s\"); the paths in turn\n");
    return 2;
  }
  int port = atoi(argv[1]);
  int connections = atoi(argv[2]);
  if (port <= 0 || connections <= 0 || connections > 64 || argc - 4 > 16) {
    fprintf(stderr, "nginx_client: bad port, connection count or too many paths\n");
    return 2;
  }
  char *unit;
  double amount = strtod(argv[3], &unit);
  struct client clients[64];
  pthread_t threads[64];
  double start = mono_seconds();
  for (int i = 0; i < connections; i++) {
    struct client *c = &clients[i];
    memset(c, 0, sizeof *c);
    c->host = "127.0.0.1";
    c->port = port;
    for (int p = 4; p < argc; p++)
      c->paths[c->path_count++] = argv[p];
    if (*unit == 's')
      c->until = start + amount;
    else
      c->requests = (long)amount;
    if (pthread_create(&threads[i], NULL, run_client, c) != 0) {
      fprintf(stderr, "nginx_client: cannot start a thread: %s\n", strerror(errno));
      return 1;
    }
  }
  long ok = 0, other = 0, failed = 0;
  int first_status = 0;
  double slowest = 0;
  for (int i = 0; i < connections; i++) {
    pthread_join(threads[i], NULL);
    ok += clients[i].ok;
    other += clients[i].other;
    failed += clients[i].failed;
    if (!first_status)
      first_status = clients[i].first_status;
    if (clients[i].slowest > slowest)
      slowest = clients[i].slowest;
  }
  double seconds = mono_seconds() - start;
  printf("requests=%ld ok=%ld other=%ld failed=%ld first_other_status=%d seconds=%.3f rate=%.1f "
         "slowest_ms=%.1f\n",
         ok + other + failed, ok, other, failed, first_status, seconds,
         seconds > 0 ? (double)ok / seconds : 0.0, slowest * 1000);
  return other || failed ? 1 : 0;
}
