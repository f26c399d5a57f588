/* The connection's transports: the canned-reply transport of tests and fuzzing (conn_set_transport), and the stream
 * interposer every connection of the real client goes through (Ctrl-C ends a wait for a reply; a reply that is not
 * BSON is refused). */
#include <mongoc/mongoc.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "shell/core/conn_int.h"
#include "shell/core/interrupt.h"
#include "shell/core/server_error.h"
#include "shell/lib/bsonvalid.h"
#include "shell/lib/replyshape.h"

/* The canned-reply transport of tests and fuzzing (conn_set_transport); NULL in the shell. Process-wide on purpose:
 * it stands for the network, not for a session. */
static conn_transport_fn conn_transport;
static void *conn_transport_data;

bool
conn_transport_active (void)
{
   return conn_transport != NULL;
}

void
conn_set_transport (conn_transport_fn fn, void *data)
{
   conn_transport = fn;
   conn_transport_data = data;
}

bool
conn_transport_run (const char *db, const bson_t *cmd, bson_t *reply, bson_error_t *error)
{
   bson_iter_t it;
   uint32_t code = 0;
   const char *msg = "Unknown command error", *why;

   memset (error, 0, sizeof *error);
   if (!conn_transport (conn_transport_data, db, cmd, reply, error)) {
      if (!error->domain)
         bson_set_error (error, MONGOC_ERROR_STREAM, MONGOC_ERROR_STREAM_SOCKET, "connection closed");
      return false;
   }
   if ((why = replyshape_why (reply))) {
      /* the edge check the stream makes on a server's replies */
      bson_set_error (error, MONGOC_ERROR_PROTOCOL, MONGOC_ERROR_PROTOCOL_INVALID_REPLY, "invalid reply to %s: %s",
                      bson_iter_init (&it, cmd) && bson_iter_next (&it) ? bson_iter_key (&it) : "a command", why);
      return false;
   }
   if (bson_iter_init_find (&it, reply, "ok") && bson_iter_as_bool (&it))
      return true;
   if (bson_iter_init_find (&it, reply, "code") && BSON_ITER_HOLDS_INT32 (&it))
      code = (uint32_t) bson_iter_int32 (&it);
   if (bson_iter_init_find (&it, reply, "errmsg") && BSON_ITER_HOLDS_UTF8 (&it))
      msg = bson_iter_utf8 (&it, NULL);
   bson_set_error (error, MONGOC_ERROR_SERVER, code, "%s", msg);
   return false;
}

bool
conn_transport_run_docs (sh_ctx_t *ctx, const char *db, const bson_t *cmd, size_t max, bson_t *docs, bool *more,
                         sh_error_t *err)
{
   bson_t reply;
   bson_error_t error;
   bson_iter_t it, cursor, batch;
   size_t n = 0;
   bool ok = false;

   if (!conn_transport_run (db, cmd, &reply, &error)) {
      server_error_from_mongoc (ctx, err, &error, &reply);
      goto done;
   }
   if (!(bson_iter_init_find (&it, &reply, "cursor") && BSON_ITER_HOLDS_DOCUMENT (&it) &&
         bson_iter_recurse (&it, &cursor) && bson_iter_find (&cursor, "firstBatch") &&
         BSON_ITER_HOLDS_ARRAY (&cursor) && bson_iter_recurse (&cursor, &batch))) {
      bson_set_error (&error, MONGOC_ERROR_CURSOR, MONGOC_ERROR_CURSOR_INVALID_CURSOR,
                      "Couldn't parse cursor document");
      server_error_from_mongoc (ctx, err, &error, NULL);
      goto done;
   }
   while (bson_iter_next (&batch)) {
      char key[16];
      const char *k;
      const uint8_t *data;
      uint32_t len;
      bson_t doc;
      if (!BSON_ITER_HOLDS_DOCUMENT (&batch))
         continue;
      if (max && n >= max) {
         if (more)
            *more = true;
         break;
      }
      bson_iter_document (&batch, &len, &data);
      if (!bson_init_static (&doc, data, len))
         continue;
      bson_uint32_to_string ((uint32_t) n, &k, key, sizeof key);
      bson_append_document (docs, k, -1, &doc);
      n++;
   }
   ok = true;
done:
   bson_destroy (&reply);
   return ok;
}

/* ---- Ctrl-C during a wait for a reply ----
 * libmongoc waits for a reply in poll(2), retries it on EINTR, and its default socketTimeoutMS is 300 s (kept: see
 * docs/reliability.md), so the SIGINT flag alone cannot end that wait. Every connection the client opens comes from
 * conn_stream_initiator: the driver's own stream (TCP, TLS, buffered) wrapped in a conn_stream_t that knows its
 * socket. The connection last used or opened is the one the SIGINT handler shuts down
 * (sh_interrupt_watch_fd), so the read fails at once as if the router had closed the connection. While Ctrl-C is
 * pending no new connection is opened and nothing is sent, so the driver's retry of a read fails at once too; the
 * statement ends "interrupted" and the next one starts with a new client (conn_forget_if_broken). */

/* The driver's own transport, the one mongoc_client_set_stream_initiator replaces: exported by libmongoc 1.x but
 * declared only in its private mongoc-client-private.h. Calling it keeps TCP, TLS (every URI TLS option, OCSP) and
 * Unix domain sockets exactly the driver's; data is the client. */
mongoc_stream_t *
mongoc_client_default_stream_initiator (const mongoc_uri_t *uri, const mongoc_host_list_t *host, void *data,
                                        bson_error_t *error);
#define CONN_MONGOC_STREAM_SOCKET 1 /* MONGOC_STREAM_SOCKET, mongoc-stream-private.h */

typedef struct {
   mongoc_stream_t vtable; /* first: the driver calls through it */
   mongoc_stream_t *base;  /* the driver's stream, owned */
   int fd;                 /* its socket, -1 when not found (a Unix domain socket) */
   /* the reply being read, for conn_wire_valid: its length prefix, then the rest (copied only when it comes in
    * pieces) */
   uint8_t len_bytes[4];
   size_t len_got;
   size_t need; /* bytes of the message still to come after the length prefix */
   size_t msg_rest;
   uint8_t *acc;
   size_t acc_len;
   bool untracked; /* an out-of-range length: the driver refuses it and drops the connection */
   sh_ctx_t *ctx;  /* the session (borrowed): ctx->conn.bad_reply_seen is set when a reply is refused */
} conn_stream_t;

static bool
conn_same_address (const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
   if (a->ss_family != b->ss_family)
      return false;
   if (a->ss_family == AF_INET) {
      const struct sockaddr_in *x = (const struct sockaddr_in *) a, *y = (const struct sockaddr_in *) b;
      return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
   }
   if (a->ss_family == AF_INET6) {
      const struct sockaddr_in6 *x = (const struct sockaddr_in6 *) a, *y = (const struct sockaddr_in6 *) b;
      return x->sin6_port == y->sin6_port && !memcmp (&x->sin6_addr, &y->sin6_addr, sizeof x->sin6_addr);
   }
   return false;
}

/* The descriptor under stream: the driver does not expose it, so it is the descriptor whose local address (address
 * and port, unique per TCP connection) is the driver socket's. -1 when not found. */
static int
conn_stream_find_fd (mongoc_stream_t *stream)
{
   mongoc_stream_t *root = stream, *next;
   struct sockaddr_storage want, have;
   mongoc_socklen_t wlen = sizeof want;
   long max = sysconf (_SC_OPEN_MAX);

   while ((next = mongoc_stream_get_base_stream (root)) != NULL && next != root) /* a root returns itself */
      root = next;
   memset (&want, 0, sizeof want);
   if (root->type != CONN_MONGOC_STREAM_SOCKET ||
       mongoc_socket_getsockname (mongoc_stream_socket_get_socket ((mongoc_stream_socket_t *) root),
                                  (struct sockaddr *) &want, &wlen) != 0 ||
       (want.ss_family != AF_INET && want.ss_family != AF_INET6))
      return -1;
   if (max < 0 || max > 65536)
      max = 65536;
   for (int fd = 0; fd < (int) max; fd++) {
      socklen_t hlen = sizeof have;
      memset (&have, 0, sizeof have);
      if (getsockname (fd, (struct sockaddr *) &have, &hlen) == 0 && conn_same_address (&have, &want))
         return fd;
   }
   return -1;
}

static uint32_t
conn_get32 (const uint8_t *p)
{
   return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

/* Whether [p, end) starts with a valid BSON document (shell/lib/bsonvalid.h); *next is the byte after it. */
static bool
conn_wire_doc (const uint8_t *p, const uint8_t *end, const uint8_t **next)
{
   uint32_t len;
   if (end - p < 5)
      return false;
   len = conn_get32 (p);
   if (len < 5 || len > (size_t) (end - p) || !bsonvalid_data (p, len))
      return false;
   *next = p + len;
   return true;
}

/* Whether the reply document at p (valid BSON) has the shape the driver trusts (shell/lib/replyshape.h); *why says
 * why not. */
static bool
conn_wire_shape (const uint8_t *p, const char **why)
{
   bson_t doc;
   if (!bson_init_static (&doc, p, conn_get32 (p)))
      return false;
   return (*why = replyshape_why (&doc)) == NULL;
}

/* Whether a reply message (rest: everything after its length prefix, n bytes) carries only valid BSON: every section
 * of an OP_MSG (one body, document sequences), every document of an OP_REPLY; *checked says whether it was looked
 * at (false: an opcode passed unread). libmongoc 1.23 does not check an
 * OP_MSG body: one that is not BSON leaves its reply uninitialised and the command "succeeds" with whatever was there
 * (_mongoc_rpc_reply_get_first_msg ignores bson_init_static's answer). Other opcodes (OP_COMPRESSED) pass. */
static bool
conn_wire_valid (const uint8_t *rest, size_t n, bool *checked, const char **why)
{
   const uint8_t *p, *end = rest + n, *body = NULL;
   int bodies = 0;
   *checked = true;
   *why = NULL;
   if (n < 12)
      return false;
   p = rest + 12;
   switch (conn_get32 (rest + 8)) {
   case 2013: /* OP_MSG: flags, sections, an optional checksum */
      if (end - p < 4)
         return false;
      if (conn_get32 (p) & 1u)
         end -= 4;
      p += 4;
      while (p < end) {
         uint8_t kind = *p++;
         if (kind == 0) {
            body = p;
            if (!conn_wire_doc (p, end, &p))
               return false;
            bodies++;
         } else if (kind == 1) {
            const uint8_t *stop;
            uint32_t size;
            if (end - p < 4 || (size = conn_get32 (p)) < 5 || size > (size_t) (end - p))
               return false;
            stop = p + size;
            p += 4;
            while (p < stop && *p)
               p++;
            if (p++ >= stop)
               return false;
            while (p < stop) {
               if (!conn_wire_doc (p, stop, &p))
                  return false;
            }
         } else {
            return false;
         }
      }
      return bodies == 1 && conn_wire_shape (body, why);
   case 1: /* OP_REPLY: flags, cursor id, starting from, number returned, documents */
      if (end - p < 20)
         return false;
      p += 20;
      body = p;
      while (p < end) {
         if (!conn_wire_doc (p, end, &p))
            return false;
      }
      return body == end || conn_wire_shape (body, why);
   default:
      *checked = false;
      return true;
   }
}

/* Follows the reply bytes the driver reads through cs (n bytes across iov) and checks each whole message; false when
 * one is invalid. The driver reads a message as its 4-byte length, then the rest at once, so the rest is checked
 * where it lies and copied only when it comes in pieces. */
static bool
conn_stream_track (conn_stream_t *cs, const mongoc_iovec_t *iov, size_t iovcnt, size_t n)
{
   for (size_t i = 0; i < iovcnt && n > 0 && !cs->untracked; i++) {
      const uint8_t *p = iov[i].iov_base;
      size_t len = iov[i].iov_len < n ? iov[i].iov_len : n;
      n -= len;
      while (len > 0 && !cs->untracked) {
         size_t k;
         if (cs->len_got < 4) {
            k = len < 4 - cs->len_got ? len : 4 - cs->len_got;
            memcpy (cs->len_bytes + cs->len_got, p, k);
            cs->len_got += k;
            if (cs->len_got == 4) {
               uint32_t total = conn_get32 (cs->len_bytes);
               if (total < 16 || total > 64u * 1024 * 1024) {
                  cs->untracked = true;
                  cs->ctx->conn.reply_unchecked = true;
               }
               cs->need = cs->msg_rest = total - 4;
               cs->acc_len = 0;
            }
         } else {
            bool ok = true, checked = true;
            const char *why = NULL;
            k = len < cs->need ? len : cs->need;
            if (cs->acc_len == 0 && k == cs->msg_rest) {
               ok = conn_wire_valid (p, k, &checked, &why);
            } else {
               if (!cs->acc)
                  cs->acc = bson_malloc (cs->msg_rest);
               memcpy (cs->acc + cs->acc_len, p, k);
               cs->acc_len += k;
               if (cs->acc_len == cs->msg_rest) {
                  ok = conn_wire_valid (cs->acc, cs->acc_len, &checked, &why);
                  bson_free (cs->acc);
                  cs->acc = NULL;
                  cs->acc_len = 0;
               }
            }
            if (!checked)
               cs->ctx->conn.reply_unchecked = true;
            cs->need -= k;
            if (cs->need == 0)
               cs->len_got = 0;
            if (!ok) {
               cs->ctx->conn.bad_reply_why = why;
               return false;
            }
         }
         p += k;
         len -= k;
      }
   }
   return true;
}

/* Both unwatch the socket before the driver's stream closes it, so a reused descriptor is never shut down. */
static void
conn_stream_destroy (mongoc_stream_t *stream)
{
   conn_stream_t *cs = (conn_stream_t *) stream;
   sh_interrupt_unwatch_fd (cs->fd);
   mongoc_stream_destroy (cs->base);
   bson_free (cs->acc);
   bson_free (cs);
}

static void
conn_stream_failed (mongoc_stream_t *stream)
{
   conn_stream_t *cs = (conn_stream_t *) stream;
   sh_interrupt_unwatch_fd (cs->fd);
   mongoc_stream_failed (cs->base);
   bson_free (cs->acc);
   bson_free (cs);
}

static int
conn_stream_close (mongoc_stream_t *stream)
{
   return mongoc_stream_close (((conn_stream_t *) stream)->base);
}

static int
conn_stream_flush (mongoc_stream_t *stream)
{
   return mongoc_stream_flush (((conn_stream_t *) stream)->base);
}

/* The socket is watched before the Ctrl-C check, so a Ctrl-C is either seen here or shuts the socket down. It stays
 * watched after the call: the driver waits for a reply (a handshake's, in server selection) by polling the socket
 * itself, not through this stream. The REPL clears the watch at each prompt (sh_interrupt_clear). */
static ssize_t
conn_stream_writev (mongoc_stream_t *stream, mongoc_iovec_t *iov, size_t iovcnt, int32_t timeout_msec)
{
   conn_stream_t *cs = (conn_stream_t *) stream;
   ssize_t n = -1;
   sh_interrupt_watch_fd (cs->fd);
   if (sh_interrupt_cuts ())
      errno = EINTR;
   else
      n = mongoc_stream_writev (cs->base, iov, iovcnt, timeout_msec);
   return n;
}

static ssize_t
conn_stream_readv (mongoc_stream_t *stream, mongoc_iovec_t *iov, size_t iovcnt, size_t min_bytes, int32_t timeout_msec)
{
   conn_stream_t *cs = (conn_stream_t *) stream;
   ssize_t n = -1;
   sh_interrupt_watch_fd (cs->fd);
   if (sh_interrupt_cuts ())
      errno = EINTR;
   else
      n = mongoc_stream_readv (cs->base, iov, iovcnt, min_bytes, timeout_msec);
   if (n > 0 && !conn_stream_track (cs, iov, iovcnt, (size_t) n)) {
      /* the driver sees a failed read: it drops the connection (and may retry a read on a new one) */
      cs->ctx->conn.bad_reply_seen = true;
      cs->untracked = true;
      errno = EPROTO;
      n = -1;
   }
   return n;
}

static int
conn_stream_setsockopt (mongoc_stream_t *stream, int level, int optname, void *optval, mongoc_socklen_t optlen)
{
   return mongoc_stream_setsockopt (((conn_stream_t *) stream)->base, level, optname, optval, optlen);
}

static mongoc_stream_t *
conn_stream_get_base (mongoc_stream_t *stream)
{
   return ((conn_stream_t *) stream)->base;
}

static bool
conn_stream_check_closed (mongoc_stream_t *stream)
{
   return mongoc_stream_check_closed (((conn_stream_t *) stream)->base);
}

static bool
conn_stream_timed_out (mongoc_stream_t *stream)
{
   return mongoc_stream_timed_out (((conn_stream_t *) stream)->base);
}

static bool
conn_stream_should_retry (mongoc_stream_t *stream)
{
   return mongoc_stream_should_retry (((conn_stream_t *) stream)->base);
}

/* Why a TCP connection to host fails, as an errno value (0 if it connects now): the driver's connect error does not
 * say, and its errno is gone with its socket. One non-blocking connect(2), waited for up to timeout_ms. */
static int
conn_probe_connect (const mongoc_host_list_t *host, int timeout_ms)
{
   struct addrinfo hints, *res = NULL;
   char port[8];
   int fd = -1, why = ETIMEDOUT;

   memset (&hints, 0, sizeof hints);
   hints.ai_family = host->family;
   hints.ai_socktype = SOCK_STREAM;
   bson_snprintf (port, sizeof port, "%hu", host->port);
   if (getaddrinfo (host->host, port, &hints, &res) != 0 || !res)
      return EHOSTUNREACH;
   fd = socket (res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
   if (fd < 0) {
      why = errno;
      goto done;
   }
   if (connect (fd, res->ai_addr, res->ai_addrlen) == 0) {
      why = 0;
   } else if (errno != EINPROGRESS) {
      why = errno;
   } else {
      struct pollfd pfd = { .fd = fd, .events = POLLOUT };
      int soerr = 0;
      socklen_t len = sizeof soerr;
      if (poll (&pfd, 1, timeout_ms) == 1 && getsockopt (fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0)
         why = soerr;
   }
done:
   if (fd >= 0)
      close (fd);
   freeaddrinfo (res);
   return why;
}

/* The driver's connection (mongoc_client_default_stream_initiator: TCP, TLS handshake, buffering), wrapped. Its
 * failures are worded as the driver's own connection path words them ("connection refused calling hello on 'H'"),
 * so every error message reads the same with or without this initiator. */
mongoc_stream_t *
conn_stream_initiator (const mongoc_uri_t *uri, const mongoc_host_list_t *host, void *data, bson_error_t *error)
{
   sh_ctx_t *ctx = data;
   mongoc_stream_t *base;
   conn_stream_t *cs;
   int64_t started;

   if (sh_interrupt_cuts ()) {
      bson_set_error (error, MONGOC_ERROR_STREAM, MONGOC_ERROR_STREAM_CONNECT, "interrupted calling hello on '%s'",
                      host->host_and_port);
      return NULL;
   }
   started = bson_get_monotonic_time ();
   base = mongoc_client_default_stream_initiator (uri, host, ctx->client, error);
   if (!base) {
      char msg[sizeof error->message];
      bson_strncpy (msg, error->message, sizeof msg);
      if (error->domain == MONGOC_ERROR_STREAM && error->code == MONGOC_ERROR_STREAM_CONNECT) {
         /* "Failed to connect to target host: H": a full connectTimeoutMS spent is a timeout, else ask the network */
         int32_t ct = mongoc_uri_get_option_as_int32 (uri, MONGOC_URI_CONNECTTIMEOUTMS, 10000);
         int64_t spent = (bson_get_monotonic_time () - started) / 1000;
         int why = spent >= ct - ct / 10 ? ETIMEDOUT : conn_probe_connect (host, ct < 1000 ? ct : 1000);
         if (why == ECONNREFUSED)
            bson_strncpy (msg, "connection refused", sizeof msg);
         else if (why == ETIMEDOUT)
            bson_strncpy (msg, "connection timeout", sizeof msg);
         else if (why)
            bson_snprintf (msg, sizeof msg, "connection error (%s)", strerror (why));
         else
            bson_strncpy (msg, "connection error", sizeof msg);
      }
      bson_set_error (error, error->domain, error->code, "%s calling hello on '%s'", msg, host->host_and_port);
      return NULL;
   }
   cs = bson_malloc0 (sizeof *cs);
   cs->vtable.type = 0x5348; /* "SH": not one of the driver's stream types */
   cs->vtable.destroy = conn_stream_destroy;
   cs->vtable.failed = conn_stream_failed;
   cs->vtable.close = conn_stream_close;
   cs->vtable.flush = conn_stream_flush;
   cs->vtable.writev = conn_stream_writev;
   cs->vtable.readv = conn_stream_readv;
   cs->vtable.setsockopt = conn_stream_setsockopt;
   cs->vtable.get_base_stream = conn_stream_get_base;
   cs->vtable.check_closed = conn_stream_check_closed;
   cs->vtable.timed_out = conn_stream_timed_out;
   cs->vtable.should_retry = conn_stream_should_retry;
   /* poll stays NULL: mongoc_stream_poll polls the root (socket) stream */
   cs->base = base;
   cs->ctx = ctx;
   cs->fd = conn_stream_find_fd (base);
   sh_interrupt_watch_fd (cs->fd); /* the handshake that follows */
   return &cs->vtable;
}
