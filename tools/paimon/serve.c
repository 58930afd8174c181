/* tools/paimon/serve.c: the HTTP server of `paimon ingest --serve` (see serve.h).
 *
 * Why a front door before libmicrohttpd (0.9.75, Debian 12): it closes a connection with no
 * reply when the request line has no space (parse_initial_message_line returns MHD_NO), and
 * when the query arguments exhaust the connection's memory pool (connection_add_header
 * queues a 431 that parse_initial_message_line then overrides, so the connection hangs
 * until its timeout); at its connection limit it closes new connections unanswered. The
 * door peeks at the request line (MSG_PEEK, so libmicrohttpd reads the same bytes),
 * answers what libmicrohttpd would drop, and hands the rest over with MHD_add_connection. */
#define _GNU_SOURCE /* accept4 */
#include "serve.h"

#include "format_value.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* fds kept free of connections: table files, the epoll and event fds, libmicrohttpd's */
#define FD_RESERVE 256
/* libmicrohttpd's per-connection pool: the request line (<= HTTP_MAX_TARGET) fits its
 * initial read buffer (half the pool), leaving room for the argument and header records */
#define POOL_BYTES ((size_t)64 << 10)
/* a connection answered by the door is drained this long before it is closed, so the
 * client reads the answer instead of a reset */
#define LINGER_MS 1000
#define PEEK_BYTES (HTTP_MAX_TARGET + 64)

typedef struct pend { /* an accepted connection whose request line is not checked yet */
  struct pend *prev, *next;
  int fd;
  bool closing; /* answered: draining until EOF or the deadline */
  int64_t deadline;
  struct sockaddr_in addr;
} pend;

struct http_server {
  struct MHD_Daemon *d;
  int lfd, ep, wake, spare;
  pthread_t door;
  bool door_running;
  unsigned max, timeout_s;
  pend head; /* circular list of pending connections */
  unsigned npend;
  http_handler h;
  void *cls;
};

static int tag_listen, tag_wake; /* epoll data for the two non-connection fds */

/* ---- replies (libmicrohttpd side) -------------------------------------------------------- */

enum MHD_Result http_reply(struct MHD_Connection *c, unsigned code, const char *type, char *body,
                           size_t len) {
  struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
  if (!r) {
    free(body);
    return MHD_NO;
  }
  MHD_add_response_header(r, "Content-Type", type);
  MHD_add_response_header(r, "Cache-Control", "no-store");
  /* one request per connection: the door checks every request line (see above) */
  MHD_add_response_header(r, "Connection", "close");
  enum MHD_Result ok = MHD_queue_response(c, code, r);
  MHD_destroy_response(r);
  return ok;
}

enum MHD_Result http_reply_json(struct MHD_Connection *c, unsigned code, json_t *j) {
  char *s = j ? json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
  json_decref(j);
  size_t n = s ? strlen(s) : 0;
  char *body = s ? malloc(n + 2) : NULL;
  if (!body) { /* out of memory: still a status */
    free(s);
    static const char oom[] = "{\"error\": \"out of memory\"}\n";
    char *b = strdup(oom);
    return b ? http_reply(c, 500, "application/json", b, sizeof oom - 1) : MHD_NO;
  }
  memcpy(body, s, n);
  body[n] = '\n';
  free(s);
  return http_reply(c, code, "application/json", body, n + 1);
}

/* The CLI's one UTF-8 validator (format_value.c), as a predicate. */
static bool utf8_valid(const char *s, size_t n) { return fv_utf8_invalid_at(s, n) == n; }

enum MHD_Result http_reply_error(struct MHD_Connection *c, unsigned code, const char *msg) {
  /* a message may quote input or be cut inside a character: jansson refuses such strings */
  char buf[1024];
  size_t n = 0;
  for (const char *p = msg; *p && n + 4 < sizeof buf;) {
    unsigned char b = (unsigned char)*p;
    size_t k = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
    if (strnlen(p, k) == k && utf8_valid(p, k)) {
      memcpy(buf + n, p, k);
      n += k;
      p += k;
    } else {
      buf[n++] = '?';
      p++;
    }
  }
  buf[n] = 0;
  return http_reply_json(c, code, json_pack("{s:s}", "error", buf));
}

/* ---- request checks (libmicrohttpd side) ---------------------------------------------- */

typedef struct arg_check {
  unsigned n;
  char msg[200];
} arg_check;

static enum MHD_Result check_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                 size_t key_size, const char *value, size_t value_size) {
  (void)kind;
  arg_check *a = cls;
  a->n++;
  const char *what = NULL;
  if (!utf8_valid(key, key_size) || !utf8_valid(value ? value : "", value ? value_size : 0))
    what = "is not valid UTF-8 (percent-encode UTF-8 bytes only)";
  else if (memchr(key, 0, key_size) || (value && memchr(value, 0, value_size)))
    what = "contains a NUL byte (%00)";
  if (!what) return MHD_YES;
  if (utf8_valid(key, key_size) && !memchr(key, 0, key_size) && key_size <= 64)
    snprintf(a->msg, sizeof a->msg, "query parameter '%.*s' %s", (int)key_size, key, what);
  else snprintf(a->msg, sizeof a->msg, "a query parameter name %s", what);
  return MHD_NO;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **state) {
  (void)version;
  (void)upload;
  (void)state;
  (void)upload_size;
  http_server *s = cls;
  /* answered on the first call, once the headers are in: a body (ignored) is never waited
   * for, and the response closes the connection */
  if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
    char msg[120];
    snprintf(msg, sizeof msg, "method %.40s not allowed: only GET and HEAD", method);
    return http_reply_error(c, 405, msg);
  }
  arg_check a = {0, ""};
  MHD_get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, check_arg, &a);
  if (a.msg[0]) return http_reply_error(c, 400, a.msg);
  if (a.n > HTTP_MAX_ARGS) { /* the door counts first; kept here for a target it let pass */
    char msg[120];
    snprintf(msg, sizeof msg, "too many query arguments (%u; at most %d)", a.n, HTTP_MAX_ARGS);
    return http_reply_error(c, 400, msg);
  }
  return s->h(s->cls, c, url);
}

/* ---- the front door ------------------------------------------------------------------- */

static void list_add(http_server *s, pend *p) {
  p->prev = s->head.prev;
  p->next = &s->head;
  s->head.prev->next = p;
  s->head.prev = p;
  s->npend++;
}

static void list_del(http_server *s, pend *p) {
  p->prev->next = p->next;
  p->next->prev = p->prev;
  s->npend--;
}

static void drop(http_server *s, pend *p) {
  epoll_ctl(s->ep, EPOLL_CTL_DEL, p->fd, NULL);
  close(p->fd);
  list_del(s, p);
  free(p);
}

static const char *reason(unsigned code) {
  switch (code) {
    case 400: return "Bad Request";
    case 408: return "Request Timeout";
    case 414: return "URI Too Long";
    case 503: return "Service Unavailable";
    default: return "Error";
  }
}

/* Sends a complete error response on a raw socket (best effort: small, one send). */
static void raw_reply(int fd, unsigned code, const char *msg) {
  char body[400], head[300];
  int bn = snprintf(body, sizeof body, "{\n  \"error\": \"%s\"\n}\n", msg);
  if (bn < 0 || (size_t)bn >= sizeof body) bn = (int)strlen(body);
  int hn =
      snprintf(head, sizeof head,
               "HTTP/1.1 %u %s\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n"
               "Connection: close\r\nContent-Length: %d\r\n\r\n",
               code, reason(code), bn);
  char all[sizeof head + sizeof body];
  memcpy(all, head, (size_t)hn);
  memcpy(all + hn, body, (size_t)bn);
  ssize_t w = send(fd, all, (size_t)(hn + bn), MSG_DONTWAIT | MSG_NOSIGNAL);
  (void)w;
}

static void drain(int fd, bool *eof) {
  char buf[16384];
  for (;;) {
    ssize_t r = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (r > 0) continue;
    if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) *eof = true;
    if (r < 0 && errno == EINTR) continue;
    return;
  }
}

/* Answers a pending connection and lingers to let the client read the answer. */
static void answer(http_server *s, pend *p, unsigned code, const char *msg) {
  bool eof = false;
  drain(p->fd, &eof);
  raw_reply(p->fd, code, msg);
  shutdown(p->fd, SHUT_WR);
  if (eof) {
    drop(s, p);
    return;
  }
  p->closing = true;
  p->deadline = now_ms() + LINGER_MS;
}

static bool tchar(unsigned char c) { /* RFC 9110 token characters */
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Checks the request line in b[0..n): 0 to wait for more bytes, 1 to hand it over, or an
 * HTTP status with *msg set. */
static unsigned check_line(const char *b, size_t n, bool eof, char *msg, size_t msglen) {
  size_t i = 0;
  while (i < n && (b[i] == '\r' || b[i] == '\n')) i++; /* blank lines before a request */
  size_t m = i;
  while (m < n && tchar((unsigned char)b[m]) && m - i <= 32) m++;
  if (m == n && !eof) return 0;
  if (m == i || m - i > 32 || m == n || b[m] != ' ') {
    snprintf(msg, msglen, "malformed request line: expected METHOD TARGET HTTP/1.1");
    return 400;
  }
  const char *nl = memchr(b + m, '\n', n - m);
  const char *end = nl ? nl : b + n;
  /* the target ends at the line's last space, as libmicrohttpd splits it (it tolerates
   * spaces inside the target) */
  const char *t = b + m + 1;
  const char *te = end;
  while (te > t && (te[-1] == '\r' || te[-1] == ' ')) te--;
  const char *sp = te;
  while (sp > t && sp[-1] != ' ') sp--;
  if (sp > t) te = sp - 1;
  if ((size_t)(te - t) > HTTP_MAX_TARGET) {
    snprintf(msg, msglen, "request target longer than %d bytes", HTTP_MAX_TARGET);
    return 414;
  }
  if (!nl) {
    if (!eof) return 0;
    snprintf(msg, msglen, "incomplete request line");
    return 400;
  }
  const char *q = memchr(t, '?', (size_t)(te - t));
  if (q) {
    unsigned args = 1;
    for (const char *p = q + 1; p < te; p++) args += *p == '&';
    if (args > HTTP_MAX_ARGS) {
      snprintf(msg, msglen, "too many query arguments (%u; at most %d)", args, HTTP_MAX_ARGS);
      return 400;
    }
  }
  return 1;
}

static unsigned mhd_connections(http_server *s) {
  const union MHD_DaemonInfo *i = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
  return i ? i->num_connections : 0;
}

static void on_readable(http_server *s, pend *p, uint32_t events) {
  if (p->closing) {
    bool eof = false;
    drain(p->fd, &eof);
    if (eof) drop(s, p);
    return;
  }
  char buf[PEEK_BYTES];
  ssize_t r = recv(p->fd, buf, sizeof buf, MSG_PEEK | MSG_DONTWAIT);
  if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (r <= 0) { /* closed before a request, or reset */
    drop(s, p);
    return;
  }
  /* a peer that shut its side sends no more: judge what is there */
  bool eof = (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0;
  char msg[160];
  unsigned v = check_line(buf, (size_t)r, eof || (size_t)r == sizeof buf, msg, sizeof msg);
  if (v == 0) return; /* edge-triggered: called again when more arrives */
  if (v != 1) {
    answer(s, p, v, msg);
    return;
  }
  int fd = p->fd;
  struct sockaddr_in addr = p->addr;
  epoll_ctl(s->ep, EPOLL_CTL_DEL, fd, NULL);
  list_del(s, p);
  free(p);
  /* libmicrohttpd owns (and closes) fd from here, also when it refuses it */
  if (MHD_add_connection(s->d, fd, (struct sockaddr *)&addr, sizeof addr) != MHD_YES)
    fprintf(stderr, "paimon: http: a connection was refused: %s\n", strerror(errno));
}

static void on_accept(http_server *s) {
  for (;;) {
    struct sockaddr_in addr;
    socklen_t alen = sizeof addr;
    int fd = accept4(s->lfd, (struct sockaddr *)&addr, &alen, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if ((errno == EMFILE || errno == ENFILE) && s->spare >= 0) {
        /* out of descriptors: free the spare to answer and close one, so the listening
         * socket does not stay readable forever */
        close(s->spare);
        s->spare = -1;
        fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
          raw_reply(fd, 503, "out of file descriptors: try again later");
          close(fd);
        }
        s->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
        continue;
      }
      return; /* EAGAIN, or an error that the next readiness retries */
    }
    bool full = s->npend + mhd_connections(s) >= s->max;
    if (full) {
      raw_reply(fd, 503, "too many open connections: try again later");
      shutdown(fd, SHUT_WR);
      if (s->npend >= 2 * s->max) { /* a flood: no lingering */
        close(fd);
        continue;
      }
    }
    pend *p = calloc(1, sizeof *p);
    if (!p) {
      close(fd);
      continue;
    }
    p->fd = fd;
    p->addr = addr;
    p->closing = full;
    p->deadline = now_ms() + (p->closing ? LINGER_MS : (int64_t)s->timeout_s * 1000);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.ptr = p};
    if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
      close(fd);
      free(p);
      continue;
    }
    list_add(s, p);
  }
}

static void sweep(http_server *s, int64_t now) {
  for (pend *p = s->head.next, *nx; p != &s->head; p = nx) {
    nx = p->next;
    if (now < p->deadline) continue;
    if (p->closing) {
      drop(s, p);
      continue;
    }
    /* silent when nothing came; a partial request line gets its status */
    char c;
    if (recv(p->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 1) {
      char msg[80];
      snprintf(msg, sizeof msg, "request line not complete within %u s", s->timeout_s);
      answer(s, p, 408, msg);
    } else {
      drop(s, p);
    }
  }
}

static void *door_main(void *arg) {
  http_server *s = arg;
  struct epoll_event evs[256];
  int64_t next_sweep = now_ms() + 250;
  for (;;) {
    int n = epoll_wait(s->ep, evs, 256, 250);
    for (int i = 0; i < n; i++) {
      void *d = evs[i].data.ptr;
      if (d == &tag_wake) return NULL;
      if (d == &tag_listen) on_accept(s);
      else on_readable(s, d, evs[i].events);
    }
    int64_t now = now_ms();
    if (now >= next_sweep) {
      sweep(s, now);
      next_sweep = now + 250;
    }
  }
}

/* ---- start and stop ------------------------------------------------------------------- */

bool http_parse_addr(const char *addr, struct sockaddr_in *sa, char *host, size_t hostlen,
                     char *why, size_t whylen) {
  const char *colon = strrchr(addr, ':');
  if (!colon || colon == addr || (size_t)(colon - addr) >= hostlen) {
    snprintf(why, whylen, "--serve needs ADDR:PORT, got '%s'", addr);
    return false;
  }
  const char *ps = colon + 1;
  int64_t port;
  if (!*ps || strspn(ps, "0123456789") != strlen(ps)) {
    snprintf(why, whylen,
             "--serve '%s': port '%s' is not a number (1..65535, or 0 to pick a free one)", addr,
             ps);
    return false;
  }
  if (strlen(ps) > 6 || !parse_i64(ps, &port) || port > 65535) {
    snprintf(why, whylen, "--serve '%s': port %s out of range (1..65535, or 0 to pick a free one)",
             addr, ps);
    return false;
  }
  size_t hl = (size_t)(colon - addr);
  memcpy(host, addr, hl);
  host[hl] = 0;
  if (strcmp(host, "localhost") == 0) snprintf(host, hostlen, "127.0.0.1");
  memset(sa, 0, sizeof *sa);
  sa->sin_family = AF_INET;
  sa->sin_port = htons((uint16_t)port);
  if (inet_pton(AF_INET, host, &sa->sin_addr) != 1 || (ntohl(sa->sin_addr.s_addr) >> 24) != 127) {
    snprintf(why, whylen, "--serve binds to a loopback IPv4 address (127.x.x.x), got '%s'", addr);
    return false;
  }
  return true;
}

/* The soft RLIMIT_NOFILE raised to the hard one where allowed; the limit in force. */
static long long raise_nofile(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return -1;
  if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < rl.rlim_max) {
    struct rlimit want = rl;
    want.rlim_cur = rl.rlim_max == RLIM_INFINITY ? (rlim_t)1 << 20 : rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &want) == 0) rl = want;
  }
  return rl.rlim_cur == RLIM_INFINITY ? (long long)INT32_MAX : (long long)rl.rlim_cur;
}

http_server *http_start(const struct sockaddr_in *sa, const http_limits *lim, http_handler h,
                        void *cls, http_info *info, char *why, size_t whylen) {
  http_server *s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(why, whylen, "out of memory");
    return NULL;
  }
  s->lfd = s->ep = s->wake = s->spare = -1;
  s->head.next = s->head.prev = &s->head;
  s->h = h;
  s->cls = cls;
  s->timeout_s = lim->timeout_s;
  memset(info, 0, sizeof *info);
  info->open_files = raise_nofile();
  s->max = lim->max_connections;
  if (info->open_files > 0) {
    long long room =
        info->open_files > 2 * FD_RESERVE ? info->open_files - FD_RESERVE : info->open_files / 2;
    if ((long long)s->max > room) {
      s->max = room > 0 ? (unsigned)room : 1;
      info->lowered = true;
    }
  }
  info->max_connections = s->max;
  info->timeout_s = s->timeout_s;

  s->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  if (s->lfd < 0 || setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
      bind(s->lfd, (const struct sockaddr *)sa, sizeof *sa) != 0 ||
      listen(s->lfd, SOMAXCONN) != 0) {
    snprintf(why, whylen, "%s", strerror(errno));
    goto fail;
  }
  struct sockaddr_in bound;
  socklen_t bl = sizeof bound;
  if (getsockname(s->lfd, (struct sockaddr *)&bound, &bl) != 0) {
    snprintf(why, whylen, "%s", strerror(errno));
    goto fail;
  }
  info->port = ntohs(bound.sin_port);
  s->d = MHD_start_daemon(
      MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ITC | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ERROR_LOG, 0,
      NULL, NULL, on_request, s, MHD_OPTION_CONNECTION_LIMIT, s->max, MHD_OPTION_CONNECTION_TIMEOUT,
      s->timeout_s, MHD_OPTION_CONNECTION_MEMORY_LIMIT, POOL_BYTES, MHD_OPTION_END);
  if (!s->d) {
    snprintf(why, whylen, "libmicrohttpd did not start (epoll mode)");
    goto fail;
  }
  s->ep = epoll_create1(EPOLL_CLOEXEC);
  s->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  s->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
  struct epoll_event el = {.events = EPOLLIN, .data.ptr = &tag_listen};
  struct epoll_event ew = {.events = EPOLLIN, .data.ptr = &tag_wake};
  if (s->ep < 0 || s->wake < 0 || epoll_ctl(s->ep, EPOLL_CTL_ADD, s->lfd, &el) != 0 ||
      epoll_ctl(s->ep, EPOLL_CTL_ADD, s->wake, &ew) != 0) {
    snprintf(why, whylen, "%s", strerror(errno));
    goto fail;
  }
  int rc = pthread_create(&s->door, NULL, door_main, s);
  if (rc != 0) {
    snprintf(why, whylen, "cannot start a thread: %s", strerror(rc));
    goto fail;
  }
  s->door_running = true;
  return s;
fail:
  http_stop(s);
  return NULL;
}

void http_stop(http_server *s) {
  if (!s) return;
  if (s->door_running) {
    uint64_t one = 1;
    ssize_t w = write(s->wake, &one, sizeof one);
    (void)w;
    pthread_join(s->door, NULL);
  }
  while (s->head.next != &s->head) {
    pend *p = s->head.next;
    close(p->fd);
    list_del(s, p);
    free(p);
  }
  if (s->d) MHD_stop_daemon(s->d);
  if (s->lfd >= 0) close(s->lfd);
  if (s->ep >= 0) close(s->ep);
  if (s->wake >= 0) close(s->wake);
  if (s->spare >= 0) close(s->spare);
  free(s);
}
