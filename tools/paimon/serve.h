/* tools/paimon/serve.h: the HTTP server of `paimon ingest --serve` (libmicrohttpd).
 *
 * A front door thread owns the listening socket: it accepts, enforces the connection limit
 * (503 past it), and checks each request line before libmicrohttpd sees it (400 for bytes
 * that are no request line, 414 for a long target, 400 for too many query arguments),
 * because libmicrohttpd 0.9.75 closes such connections without a reply. Accepted requests
 * go to a libmicrohttpd daemon in epoll mode (no FD_SETSIZE ceiling) with a per-connection
 * memory pool, timeout and limit; every response closes its connection, so the door sees
 * every request line. The handler gets only GET/HEAD requests whose query arguments are
 * valid UTF-8 without NUL bytes; everything else is answered here with a JSON error. */
#ifndef PAIMON_CLI_SERVE_H
#define PAIMON_CLI_SERVE_H

#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

#define HTTP_DEFAULT_MAX_CONNECTIONS 4096u
#define HTTP_DEFAULT_TIMEOUT_S 30u
#define HTTP_MAX_ARGS 64     /* query arguments per request */
#define HTTP_MAX_TARGET 8192 /* bytes of the request target (path and query) */

typedef struct http_limits {
  unsigned max_connections; /* open connections, idle ones included */
  unsigned timeout_s;       /* a connection idle this long is closed */
} http_limits;

/* What is in force once the server runs (the limit may be lowered to fit RLIMIT_NOFILE). */
typedef struct http_info {
  unsigned port;
  unsigned max_connections;
  unsigned timeout_s;
  long long open_files; /* the RLIMIT_NOFILE soft limit after raising it */
  bool lowered;         /* max_connections was lowered to fit open_files */
} http_info;

/* Answers one validated request (path without the query); replies with http_reply*. */
typedef enum MHD_Result (*http_handler)(void *cls, struct MHD_Connection *c, const char *path);

typedef struct http_server http_server;

/* Parses "ADDR:PORT" (loopback IPv4; "localhost" is 127.0.0.1; PORT 0..65535, 0 picks a
 * free one). false with a message naming the bad part. */
bool http_parse_addr(const char *addr, struct sockaddr_in *sa, char *host, size_t hostlen,
                     char *why, size_t whylen);
/* Raises RLIMIT_NOFILE to its hard limit, binds `sa` and starts serving `h` on two threads.
 * NULL with a message on failure. */
http_server *http_start(const struct sockaddr_in *sa, const http_limits *lim, http_handler h,
                        void *cls, http_info *info, char *why, size_t whylen);
/* Stops both threads and closes every connection. NULL is a no-op. */
void http_stop(http_server *s);

/* Replies take `body` (malloc'd) in every case. */
enum MHD_Result http_reply(struct MHD_Connection *c, unsigned code, const char *type, char *body,
                           size_t len);
/* Replies with `j` as indented JSON (consumes the reference). */
enum MHD_Result http_reply_json(struct MHD_Connection *c, unsigned code, json_t *j);
/* {"error": msg}; bytes of msg that are not UTF-8 become '?', so the reply always goes out. */
enum MHD_Result http_reply_error(struct MHD_Connection *c, unsigned code, const char *msg);

#endif
