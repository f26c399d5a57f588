/* The connection layer: a lazily created mongoc client, commands sent exactly as built, cursors iterated in one
 * session, --dry-run printing instead of sending, Ctrl-C ending a wait for a reply, and driver errors turned into
 * sh_error_t values. */
#include <mongoc/mongoc.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "shell/core/conn.h"
#include "shell/lib/secret.h"
#include "shell/core/interrupt.h"

static void
conn_log_handler (mongoc_log_level_t level, const char *domain, const char *message, void *data)
{
   (void) data;
   /* Driver logs never reach the user's terminal uninvited. SHARDSH_DEBUG=1 shows them on stderr, with the password
    * of any connection string they quote hidden. */
   if (getenv ("SHARDSH_DEBUG")) {
      char *shown = conn_redact_text (message);
      fprintf (stderr, "[%s] %s: %s\n", mongoc_log_level_str (level), domain, shown);
      bson_free (shown);
   }
}

static void
conn_cursors_detach (void);

/* The canned-reply transport of tests and fuzzing (conn_set_transport); NULL in the shell. */
static conn_transport_fn conn_transport;
static void *conn_transport_data;

void
conn_set_transport (conn_transport_fn fn, void *data)
{
   conn_transport = fn;
   conn_transport_data = data;
}

/* Sends cmd through the canned-reply transport and checks "ok" as the driver does. reply is initialised in every
 * case. */
static bool
transport_run (const char *db, const bson_t *cmd, bson_t *reply, bson_error_t *error)
{
   bson_iter_t it;
   uint32_t code = 0;
   const char *msg = "Unknown command error";

   memset (error, 0, sizeof *error);
   if (!conn_transport (conn_transport_data, db, cmd, reply, error)) {
      if (!error->domain)
         bson_set_error (error, MONGOC_ERROR_STREAM, MONGOC_ERROR_STREAM_SOCKET, "connection closed");
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

/* conn_run_docs through the transport: the documents of the reply's cursor.firstBatch, up to max. */
static bool
transport_run_docs (const char *db, const bson_t *cmd, size_t max, bson_t *docs, bool *more, sh_error_t *err)
{
   bson_t reply;
   bson_error_t error;
   bson_iter_t it, cursor, batch;
   size_t n = 0;
   bool ok = false;

   if (!transport_run (db, cmd, &reply, &error)) {
      conn_error_from_mongoc (err, &error, &reply);
      goto done;
   }
   if (!(bson_iter_init_find (&it, &reply, "cursor") && BSON_ITER_HOLDS_DOCUMENT (&it) &&
         bson_iter_recurse (&it, &cursor) && bson_iter_find (&cursor, "firstBatch") &&
         BSON_ITER_HOLDS_ARRAY (&cursor) && bson_iter_recurse (&cursor, &batch))) {
      bson_set_error (&error, MONGOC_ERROR_CURSOR, MONGOC_ERROR_CURSOR_INVALID_CURSOR,
                      "Couldn't parse cursor document");
      conn_error_from_mongoc (err, &error, NULL);
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

void
conn_init (sh_ctx_t *ctx, const char *uri, const char *db)
{
   mongoc_log_set_handler (conn_log_handler, NULL);
   ctx->uri = bson_strdup (uri);
   ctx->db = bson_strdup (db);
   ctx->client = NULL;
}

void
conn_cleanup (sh_ctx_t *ctx)
{
   /* the session's current cursor is killed while the client can still send (REPL exit, script end) */
   conn_cursor_destroy (ctx->cursor);
   ctx->cursor = NULL;
   ctx->cursor_fresh = false;
   conn_cursors_detach ();
   if (ctx->client)
      mongoc_client_destroy (ctx->client);
   ctx->client = NULL;
   if (ctx->uri) {
      memset (ctx->uri, 0, strlen (ctx->uri));
      bson_free (ctx->uri);
   }
   ctx->uri = NULL;
   bson_free (ctx->db);
   ctx->db = NULL;
   bson_free (ctx->hello_db);
   ctx->hello_db = NULL;
}

char *
conn_redact_uri (const char *uri)
{
   const char *scheme = strstr (uri, "://");
   size_t start, end;
   if (!scheme || !secret_uri_password (scheme + 3, strlen (scheme + 3), &start, &end))
      return bson_strdup (uri);
   return bson_strdup_printf ("%.*s****%s", (int) (scheme + 3 + start - uri), uri, scheme + 3 + end);
}

char *
conn_redact_text (const char *text)
{
   bson_string_t *out = bson_string_new (NULL);
   const char *p = text, *scheme;
   size_t start, end;

   while ((scheme = strstr (p, "://")) != NULL) {
      const char *user = scheme + 3;
      if (secret_uri_password (user, strlen (user), &start, &end)) {
         bson_string_append_printf (out, "%.*s****", (int) (user + start - p), p);
         p = user + end;
      } else {
         bson_string_append_printf (out, "%.*s", (int) (user - p), p);
         p = user;
      }
   }
   bson_string_append (out, p);
   return bson_string_free (out, false);
}

void
conn_redact_doc (const bson_t *src, bson_t *dst)
{
   bson_iter_t it;

   if (!bson_iter_init (&it, src))
      return;
   while (bson_iter_next (&it)) {
      const char *key = bson_iter_key (&it);
      if (secret_is_field (key, strlen (key))) {
         BSON_APPEND_UTF8 (dst, key, "****");
      } else if (BSON_ITER_HOLDS_UTF8 (&it)) {
         char *shown = conn_redact_text (bson_iter_utf8 (&it, NULL));
         BSON_APPEND_UTF8 (dst, key, shown);
         bson_free (shown);
      } else if (BSON_ITER_HOLDS_DOCUMENT (&it) || BSON_ITER_HOLDS_ARRAY (&it)) {
         const uint8_t *data;
         uint32_t len;
         bson_t sub, child;
         bool array = BSON_ITER_HOLDS_ARRAY (&it);
         if (array)
            bson_iter_array (&it, &len, &data);
         else
            bson_iter_document (&it, &len, &data);
         if (!bson_init_static (&sub, data, len))
            continue;
         if (array)
            BSON_APPEND_ARRAY_BEGIN (dst, key, &child);
         else
            BSON_APPEND_DOCUMENT_BEGIN (dst, key, &child);
         conn_redact_doc (&sub, &child);
         if (array)
            bson_append_array_end (dst, &child);
         else
            bson_append_document_end (dst, &child);
      } else {
         bson_append_iter (dst, key, -1, &it);
      }
   }
}

/* Who the client authenticates as and which CA file it trusts, noted by conn_ensure for error messages only
 * (process-wide, like the transport: a shell has one connection). */
static char conn_auth_user[128];
static char conn_auth_db[128];
static char conn_tls_ca[1024];
static int32_t conn_socket_timeout_ms;
/* Set by a network error. A single-threaded mongoc client does not check a server again for 5 s after a failed check
 * (its cooldown) and answers every command meanwhile with the old error, though the router may be back: the next
 * next statement starts with a new client instead (conn_forget_if_broken). */
static bool conn_client_stale;

static void
conn_note_identity (const mongoc_uri_t *uri)
{
   const char *user = mongoc_uri_get_username (uri);
   const char *db = mongoc_uri_get_auth_source (uri);
   const char *ca = mongoc_uri_get_option_as_utf8 (uri, MONGOC_URI_TLSCAFILE, NULL);
   bson_strncpy (conn_auth_user, user ? user : "", sizeof conn_auth_user);
   bson_strncpy (conn_auth_db, db && *db ? db : "admin", sizeof conn_auth_db);
   bson_strncpy (conn_tls_ca, ca ? ca : "", sizeof conn_tls_ca);
   conn_socket_timeout_ms = mongoc_uri_get_option_as_int32 (uri, MONGOC_URI_SOCKETTIMEOUTMS, 300000);
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
} conn_stream_t;

/* Set when a reply was refused for its content (conn_wire_valid), for the error's wording; read once. */
static bool conn_bad_reply_seen;

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

/* Whether [p, end) starts with a valid BSON document (BSON_VALIDATE_NONE); *next is the byte after it. */
static bool
conn_wire_doc (const uint8_t *p, const uint8_t *end, const uint8_t **next)
{
   bson_t doc;
   uint32_t len;
   if (end - p < 5)
      return false;
   len = conn_get32 (p);
   if (len < 5 || len > (size_t) (end - p) || !bson_init_static (&doc, p, len) ||
       !bson_validate (&doc, BSON_VALIDATE_NONE, NULL))
      return false;
   *next = p + len;
   return true;
}

/* Whether a reply message (rest: everything after its length prefix, n bytes) carries only valid BSON: every section
 * of an OP_MSG (one body, document sequences), every document of an OP_REPLY. libmongoc 1.23 does not check an
 * OP_MSG body: one that is not BSON leaves its reply uninitialised and the command "succeeds" with whatever was there
 * (_mongoc_rpc_reply_get_first_msg ignores bson_init_static's answer). Other opcodes (OP_COMPRESSED) pass. */
static bool
conn_wire_valid (const uint8_t *rest, size_t n)
{
   const uint8_t *p, *end = rest + n;
   int bodies = 0;
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
      return bodies == 1;
   case 1: /* OP_REPLY: flags, cursor id, starting from, number returned, documents */
      if (end - p < 20)
         return false;
      p += 20;
      while (p < end) {
         if (!conn_wire_doc (p, end, &p))
            return false;
      }
      return true;
   default:
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
               if (total < 16 || total > 64u * 1024 * 1024)
                  cs->untracked = true;
               cs->need = cs->msg_rest = total - 4;
               cs->acc_len = 0;
            }
         } else {
            bool ok = true;
            k = len < cs->need ? len : cs->need;
            if (cs->acc_len == 0 && k == cs->msg_rest) {
               ok = conn_wire_valid (p, k);
            } else {
               if (!cs->acc)
                  cs->acc = bson_malloc (cs->msg_rest);
               memcpy (cs->acc + cs->acc_len, p, k);
               cs->acc_len += k;
               if (cs->acc_len == cs->msg_rest) {
                  ok = conn_wire_valid (cs->acc, cs->acc_len);
                  bson_free (cs->acc);
                  cs->acc = NULL;
                  cs->acc_len = 0;
               }
            }
            cs->need -= k;
            if (cs->need == 0)
               cs->len_got = 0;
            if (!ok)
               return false;
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
   if (sh_interrupted ())
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
   if (sh_interrupted ())
      errno = EINTR;
   else
      n = mongoc_stream_readv (cs->base, iov, iovcnt, min_bytes, timeout_msec);
   if (n > 0 && !conn_stream_track (cs, iov, iovcnt, (size_t) n)) {
      /* the driver sees a failed read: it drops the connection (and may retry a read on a new one) */
      conn_bad_reply_seen = true;
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
 * so every error message reads the same with or without this initiator. data is the client. */
static mongoc_stream_t *
conn_stream_initiator (const mongoc_uri_t *uri, const mongoc_host_list_t *host, void *data, bson_error_t *error)
{
   mongoc_stream_t *base;
   conn_stream_t *cs;
   int64_t started;

   if (sh_interrupted ()) {
      bson_set_error (error, MONGOC_ERROR_STREAM, MONGOC_ERROR_STREAM_CONNECT, "interrupted calling hello on '%s'",
                      host->host_and_port);
      return NULL;
   }
   started = bson_get_monotonic_time ();
   base = mongoc_client_default_stream_initiator (uri, host, data, error);
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
   cs->fd = conn_stream_find_fd (base);
   sh_interrupt_watch_fd (cs->fd); /* the handshake that follows */
   return &cs->vtable;
}

void
conn_forget_if_broken (sh_ctx_t *ctx)
{
   conn_bad_reply_seen = false; /* a refused reply whose read was retried with success */
   if (sh_interrupt_took_socket ())
      conn_client_stale = true; /* even when its reply had arrived: the socket is shut */
   if (ctx->client && conn_client_stale && !conn_transport) {
      conn_cursors_detach ();
      /* reset first: its server sessions are forgotten, so destroy sends no endSessions to a router that may still
       * be stalled (that would wait another connectTimeoutMS) */
      mongoc_client_reset (ctx->client);
      mongoc_client_destroy (ctx->client);
      ctx->client = NULL;
   }
   conn_client_stale = false;
}

bool
conn_ensure (sh_ctx_t *ctx, sh_error_t *err)
{
   mongoc_uri_t *uri = NULL;
   bson_error_t error;
   bool ok = false;

   if (ctx->client || conn_transport)
      return true;
   uri = mongoc_uri_new_with_error (ctx->uri, &error);
   if (!uri) {
      char *shown = conn_redact_uri (ctx->uri);
      char *why = conn_redact_text (error.message);
      sh_error_set (err, SH_ERR_USAGE, "invalid connection string '%s': %s", shown, why);
      bson_free (why);
      bson_free (shown);
      goto done;
   }
   if (ctx->opts && ctx->opts->username)
      mongoc_uri_set_username (uri, ctx->opts->username);
   if (ctx->opts && ctx->opts->password)
      mongoc_uri_set_password (uri, ctx->opts->password);
   conn_note_identity (uri);
   if (!mongoc_uri_has_option (uri, MONGOC_URI_APPNAME))
      mongoc_uri_set_appname (uri, "shardsh");
   if (!mongoc_uri_has_option (uri, MONGOC_URI_SERVERSELECTIONTIMEOUTMS))
      mongoc_uri_set_option_as_int32 (uri, MONGOC_URI_SERVERSELECTIONTIMEOUTMS, 5000);
   if (!mongoc_uri_has_option (uri, MONGOC_URI_CONNECTTIMEOUTMS)) {
      /* A new connection's hello waits connectTimeoutMS, even inside server selection and a retried read: never
       * longer than the selection or socket timeout the URI asks for, or a stalled server outlives them. */
      int32_t ct = 5000;
      int32_t sst = mongoc_uri_get_option_as_int32 (uri, MONGOC_URI_SERVERSELECTIONTIMEOUTMS, 5000);
      int32_t st = mongoc_uri_get_option_as_int32 (uri, MONGOC_URI_SOCKETTIMEOUTMS, 0);
      if (sst > 0 && sst < ct)
         ct = sst;
      if (st > 0 && st < ct)
         ct = st;
      mongoc_uri_set_option_as_int32 (uri, MONGOC_URI_CONNECTTIMEOUTMS, ct);
   }
   ctx->client = mongoc_client_new_from_uri_with_error (uri, &error);
   if (!ctx->client) {
      char *why = conn_redact_text (error.message);
      sh_error_set (err, SH_ERR_USAGE, "cannot create a client: %s", why);
      bson_free (why);
      goto done;
   }
   mongoc_client_set_error_api (ctx->client, MONGOC_ERROR_API_VERSION_2);
   mongoc_client_set_stream_initiator (ctx->client, conn_stream_initiator, ctx->client);
   ok = true;
done:
   mongoc_uri_destroy (uri);
   return ok;
}

/* A server or driver message may echo a connection string (addShard, a bad seed list): hide its password. */
static void
redact_message (sh_error_t *err)
{
   char *shown;
   if (!strstr (err->message, "://"))
      return;
   shown = conn_redact_text (err->message);
   bson_strncpy (err->message, shown, sizeof err->message);
   bson_free (shown);
}

/* One line for the connection failures people meet most, instead of the driver's wording: a refused login (mongoc's
 * CLIENT/AUTHENTICATE error; the server's code 18 is kept when the driver passes on the server's own "Authentication
 * failed.") and a server certificate that fails verification (mongoc reports the TLS handshake inside a
 * server-selection error with OpenSSL's verify result: 18-21 no path to a trusted CA, 9/10 validity dates, 62/64
 * host name or IP address mismatch). False for other errors. */
static bool
conn_explain_auth_tls (sh_error_t *err, const bson_error_t *error)
{
   const char *tls = strstr (error->message, "TLS handshake failed");
   const char *verify = tls ? strstr (tls, "certificate verify failed (") : NULL;
   long result = verify ? strtol (verify + strlen ("certificate verify failed ("), NULL, 10) : -1;

   if (error->domain == MONGOC_ERROR_CLIENT && error->code == MONGOC_ERROR_CLIENT_AUTHENTICATE) {
      const char *user = conn_auth_user[0] ? conn_auth_user : "(none)";
      if (!strcmp (error->message, "Authentication failed.")) {
         sh_error_set (err, SH_ERR_SERVER, "authentication failed for user '%s' on database '%s'", user, conn_auth_db);
         err->code = 18;
         bson_strncpy (err->code_name, "AuthenticationFailed", sizeof err->code_name);
      } else {
         sh_error_set (err, SH_ERR_NETWORK, "authentication failed for user '%s' on database '%s': %s", user,
                       conn_auth_db, error->message);
         redact_message (err);
      }
      return true;
   }
   if (!tls)
      return false;
   if (result >= 18 && result <= 21) {
      if (conn_tls_ca[0])
         sh_error_set (err, SH_ERR_NETWORK, "TLS: the server's certificate was not signed by the CA in %s",
                       conn_tls_ca);
      else
         sh_error_set (err, SH_ERR_NETWORK,
                       "TLS: the server's certificate was not signed by a CA this system trusts "
                       "(--tlsCAFile names one)");
      return true;
   }
   if (result == 9 || result == 10) {
      sh_error_set (err, SH_ERR_NETWORK, "TLS: the server's certificate %s",
                    result == 10 ? "has expired" : "is not valid yet");
      return true;
   }
   if (result == 62 || result == 64) {
      const char *host = strstr (tls, "calling hello on '");
      host = host ? host + strlen ("calling hello on '") : "";
      sh_error_set (err, SH_ERR_NETWORK, "TLS: the server's certificate is not valid for %.*s",
                    (int) strcspn (host, "'"), host);
      return true;
   }
   /* any other handshake failure: its own reason, without the server-selection wrapping */
   sh_error_set (err, SH_ERR_NETWORK, "%.*s", (int) strcspn (tls, "]"), tls);
   redact_message (err);
   return true;
}

/* One line in plain words for a server that refuses connections, stops answering, drops the connection or answers
 * garbage, instead of the driver's wording: "cannot reach HOST: connection refused|socket timeout" for a failed server
 * selection, "no reply to CMD: ..." for a command whose connection broke or timed out, "invalid reply to CMD: ..." for
 * a reply the driver could not read. False for other errors. */
static bool
conn_explain_network (sh_error_t *err, const bson_error_t *error)
{
   const char *m = error->message;
   const char *hello = strstr (m, " calling hello on '");
   const char *open = strchr (m, '[');
   const char *send = strstr (m, "Failed to send \"");
   const char *size;

   if (strstr (m, "No suitable servers found") && hello && open && open < hello) {
      const char *host = hello + strlen (" calling hello on '");
      sh_error_set (err, SH_ERR_NETWORK, "cannot reach %.*s: %.*s", (int) strcspn (host, "'"), host,
                    (int) (hello - open - 1), open + 1);
      return true;
   }
   if (send && strstr (m, "socket error or timeout")) {
      const char *name = send + strlen ("Failed to send \"");
      sh_error_set (err, SH_ERR_NETWORK,
                    "no reply to %.*s: the connection was closed or the reply took longer than socketTimeoutMS (%d ms)",
                    (int) strcspn (name, "\""), name, (int) conn_socket_timeout_ms);
      return true;
   }
   if (send && (size = strstr (m, "Message size ")) != NULL) {
      /* a reply header whose length is out of range */
      const char *name = send + strlen ("Failed to send \"");
      long long claimed = strtoll (size + strlen ("Message size "), NULL, 10);
      const char *range = strstr (size, "expected range ");
      range = range ? range + strlen ("expected range ") : "";
      sh_error_set (err, SH_ERR_NETWORK, "invalid reply to %.*s: its header claims %lld bytes, outside %.*s",
                    (int) strcspn (name, "\""), name, claimed, (int) strcspn (range, " "), range);
      return true;
   }
   if (!strncmp (m, "Invalid reply to ", strlen ("Invalid reply to "))) {
      /* "Invalid reply to getMore command.": a body that is not a reply */
      const char *name = m + strlen ("Invalid reply to ");
      sh_error_set (err, SH_ERR_NETWORK, "invalid reply to %.*s: not a BSON document with a cursor",
                    (int) strcspn (name, " ."), name);
      return true;
   }
   return false;
}

void
conn_error_from_mongoc (sh_error_t *err, const bson_error_t *error, const bson_t *reply)
{
   bson_iter_t it;
   bool server = error->domain == MONGOC_ERROR_SERVER || error->domain == MONGOC_ERROR_WRITE_CONCERN;

   if (!server && !(reply && bson_iter_init_find (&it, reply, "ok")) && sh_interrupted ()) {
      /* Ctrl-C cut the wait (the driver saw a closed connection, or its retry found Ctrl-C pending) */
      const char *send = strstr (error->message, "Failed to send \"");
      const char *name = send ? send + strlen ("Failed to send \"") : "";
      conn_client_stale = true;
      if (*name)
         sh_error_set (err, SH_ERR_INTERRUPTED, "interrupted: stopped waiting for the reply to %.*s",
                       (int) strcspn (name, "\""), name);
      else
         sh_error_set (err, SH_ERR_INTERRUPTED, "interrupted: stopped waiting for the server");
      return;
   }
   if (conn_explain_auth_tls (err, error))
      return;

   if (reply && bson_iter_init_find (&it, reply, "ok") && !bson_iter_as_bool (&it))
      server = true;
   if (!server && conn_bad_reply_seen) {
      /* conn_stream_readv refused the reply's bytes */
      const char *send = strstr (error->message, "Failed to send \"");
      const char *name = send ? send + strlen ("Failed to send \"") : "";
      conn_bad_reply_seen = false;
      conn_client_stale = true;
      sh_error_set (err, SH_ERR_NETWORK, "invalid reply to %.*s: not a BSON document",
                    *name ? (int) strcspn (name, "\"") : (int) strlen ("a command"), *name ? name : "a command");
      return;
   }
   if (!server) {
      conn_client_stale = true;
      if (conn_explain_network (err, error))
         return;
      sh_error_set (err, SH_ERR_NETWORK, "%s", error->message);
      redact_message (err);
      return;
   }
   sh_error_set (err, SH_ERR_SERVER, "%s", error->message);
   err->code = 0;
   if (reply && bson_iter_init_find (&it, reply, "code") && BSON_ITER_HOLDS_NUMBER (&it))
      err->code = (int) bson_iter_as_int64 (&it);
   if (reply && bson_iter_init_find (&it, reply, "codeName") && BSON_ITER_HOLDS_UTF8 (&it))
      bson_strncpy (err->code_name, bson_iter_utf8 (&it, NULL), sizeof err->code_name);
   if (reply && bson_iter_init_find (&it, reply, "errmsg") && BSON_ITER_HOLDS_UTF8 (&it))
      bson_strncpy (err->message, bson_iter_utf8 (&it, NULL), sizeof err->message);
   redact_message (err);
}

/* The name of the first field: the command's name. */
static const char *
command_name (const bson_t *cmd)
{
   bson_iter_t it;
   if (bson_iter_init (&it, cmd) && bson_iter_next (&it))
      return bson_iter_key (&it);
   return "";
}

static bool
is_cursor_command (const bson_t *cmd)
{
   const char *name = command_name (cmd);
   return !strcmp (name, "find") || !strcmp (name, "aggregate") || !strcmp (name, "listCollections") ||
          !strcmp (name, "listIndexes") || !strcmp (name, "checkMetadataConsistency");
}

/* libmongoc takes a well-framed reply whose body is not a BSON document for a success (it finds no "ok: 0" in it)
 * and hands it on, as it is or as an empty document: check it before anything reads it. A server's reply always has
 * "ok", and a cursor command's a "cursor" document. On failure reply is emptied, the client is marked broken (the
 * stream may be out of step) and err says "invalid reply to CMD: why". */
static bool
conn_reply_valid (const bson_t *cmd, bson_t *reply, bool cursor, sh_error_t *err)
{
   bson_iter_t it;
   const char *why = NULL;
   if (!bson_validate (reply, BSON_VALIDATE_NONE, NULL))
      why = "not a BSON document";
   else if (!bson_iter_init_find (&it, reply, "ok"))
      why = "no \"ok\" field";
   else if (cursor && !(bson_iter_init_find (&it, reply, "cursor") && BSON_ITER_HOLDS_DOCUMENT (&it)))
      why = "no cursor document";
   if (!why)
      return true;
   conn_client_stale = true;
   sh_error_set (err, SH_ERR_NETWORK, "invalid reply to %s: %s", command_name (cmd), why);
   bson_destroy (reply);
   bson_init (reply);
   return false;
}

/* Prints a request instead of sending it, passwords hidden (conn_redact_doc). */
static void
dry_run_print (sh_ctx_t *ctx, const char *db, const bson_t *cmd)
{
   bson_t shown = BSON_INITIALIZER;
   char *json;

   conn_redact_doc (cmd, &shown);
   json = bson_as_canonical_extended_json (&shown, NULL);
   bson_destroy (&shown);
   if (ctx->out.mode == OUTPUT_JSON)
      fprintf (ctx->out_fp, "{\"dryRun\": true, \"db\": \"%s\", \"command\": %s}\n", db, json ? json : "null");
   else
      fprintf (ctx->out_fp, "[dry-run] %s %s\n", db, json ? json : OUTPUT_INVALID_BSON);
   bson_free (json);
}

static void
dry_run_reply (const char *db, const bson_t *cmd, bson_t *reply)
{
   bson_init (reply);
   if (is_cursor_command (cmd)) {
      bson_t cursor, batch;
      char *ns = bson_strdup_printf ("%s.%s", db, command_name (cmd));
      BSON_APPEND_DOCUMENT_BEGIN (reply, "cursor", &cursor);
      BSON_APPEND_ARRAY_BEGIN (&cursor, "firstBatch", &batch);
      bson_append_array_end (&cursor, &batch);
      BSON_APPEND_INT64 (&cursor, "id", 0);
      BSON_APPEND_UTF8 (&cursor, "ns", ns);
      bson_append_document_end (reply, &cursor);
      bson_free (ns);
   }
   BSON_APPEND_DOUBLE (reply, "ok", 1.0);
}

bool
conn_run (sh_ctx_t *ctx, const char *db, const bson_t *cmd, conn_path_t path, bson_t *reply, sh_error_t *err)
{
   bson_error_t error;
   bool ok = false;

   if (ctx->opts && ctx->opts->dry_run) {
      dry_run_print (ctx, db, cmd);
      dry_run_reply (db, cmd, reply);
      return true;
   }
   if (!conn_ensure (ctx, err)) {
      bson_init (reply);
      return false;
   }
   if (conn_transport)
      ok = transport_run (db, cmd, reply, &error);
   else if (path == CONN_READ)
      ok = mongoc_client_read_command_with_opts (ctx->client, db, cmd, NULL, NULL, reply, &error);
   else
      ok = mongoc_client_command_with_opts (ctx->client, db, cmd, NULL, NULL, reply, &error);
   if (!ok)
      conn_error_from_mongoc (err, &error, reply);
   else if (!conn_transport)
      ok = conn_reply_valid (cmd, reply, false, err);
   return ok;
}

bool
conn_run_each (sh_ctx_t *ctx, const char *db, const bson_t *cmd, conn_path_t path, conn_doc_fn fn, void *data,
               bool *more, sh_error_t *err)
{
   mongoc_client_session_t *session = NULL;
   mongoc_server_description_t *sd = NULL;
   mongoc_read_prefs_t *prefs = NULL;
   mongoc_cursor_t *cursor = NULL;
   bson_t opts = BSON_INITIALIZER;
   bson_t reply, docs = BSON_INITIALIZER;
   bson_error_t error;
   bson_iter_t it;
   const bson_t *doc;
   bool ok = false;

   bson_init (&reply);
   if (more)
      *more = false;
   if (ctx->opts && ctx->opts->dry_run) {
      dry_run_print (ctx, db, cmd);
      ok = true;
      goto done;
   }
   if (!conn_ensure (ctx, err))
      goto done;
   if (conn_transport) {
      if (!transport_run_docs (db, cmd, 0, &docs, NULL, err))
         goto done;
      if (bson_iter_init (&it, &docs)) {
         while (bson_iter_next (&it)) {
            bson_t d;
            uint32_t len;
            const uint8_t *raw;
            if (!BSON_ITER_HOLDS_DOCUMENT (&it))
               continue;
            bson_iter_document (&it, &len, &raw);
            if (!bson_init_static (&d, raw, len))
               continue;
            if (!fn (data, &d)) {
               if (more)
                  *more = true;
               break;
            }
         }
      }
      ok = true;
      goto done;
   }
   /* One explicit session for the command and its getMores: a cursor belongs to the session that opened it. */
   session = mongoc_client_start_session (ctx->client, NULL, &error);
   if (!session) {
      conn_error_from_mongoc (err, &error, NULL);
      goto done;
   }
   if (path == CONN_READ)
      prefs = mongoc_read_prefs_copy (mongoc_client_get_read_prefs (ctx->client));
   sd = mongoc_client_select_server (ctx->client, path != CONN_READ, prefs, &error);
   if (!sd) {
      conn_error_from_mongoc (err, &error, NULL);
      goto done;
   }
   BSON_APPEND_INT32 (&opts, "serverId", (int32_t) mongoc_server_description_id (sd));
   if (!mongoc_client_session_append (session, &opts, &error)) {
      conn_error_from_mongoc (err, &error, NULL);
      goto done;
   }
   bson_destroy (&reply);
   if (path == CONN_READ)
      ok = mongoc_client_read_command_with_opts (ctx->client, db, cmd, prefs, &opts, &reply, &error);
   else
      ok = mongoc_client_command_with_opts (ctx->client, db, cmd, NULL, &opts, &reply, &error);
   if (!ok) {
      conn_error_from_mongoc (err, &error, &reply);
      goto done;
   }
   ok = false;
   if (!conn_reply_valid (cmd, &reply, true, err))
      goto done;
   /* the cursor takes ownership of reply */
   cursor = mongoc_cursor_new_from_command_reply_with_opts (ctx->client, &reply, &opts);
   bson_init (&reply);
   while (mongoc_cursor_next (cursor, &doc)) {
      if (!fn (data, doc)) {
         if (more)
            *more = true;
         break;
      }
   }
   if (mongoc_cursor_error_document (cursor, &error, &doc)) {
      conn_error_from_mongoc (err, &error, doc);
      goto done;
   }
   ok = true;
done:
   if (cursor)
      mongoc_cursor_destroy (cursor);
   if (sd)
      mongoc_server_description_destroy (sd);
   if (prefs)
      mongoc_read_prefs_destroy (prefs);
   if (session)
      mongoc_client_session_destroy (session);
   bson_destroy (&opts);
   bson_destroy (&reply);
   bson_destroy (&docs);
   return ok;
}

/* conn_run_docs' collector: appends up to max documents (0: all) as "0", "1", ... */
typedef struct {
   bson_t *docs;
   size_t max, n;
} conn_collect_t;

static bool
conn_collect_doc (void *data, const bson_t *doc)
{
   conn_collect_t *c = data;
   char key[16];
   const char *k;
   if (c->max && c->n >= c->max)
      return false;
   bson_uint32_to_string ((uint32_t) c->n, &k, key, sizeof key);
   bson_append_document (c->docs, k, -1, doc);
   c->n++;
   return true;
}

bool
conn_run_docs (sh_ctx_t *ctx, const char *db, const bson_t *cmd, conn_path_t path, size_t max, bson_t *docs, bool *more,
               sh_error_t *err)
{
   conn_collect_t c = { docs, max, 0 };
   bson_init (docs);
   return conn_run_each (ctx, db, cmd, path, conn_collect_doc, &c, more, err);
}

bool
conn_server_version (sh_ctx_t *ctx, int version[3], sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER;
   bson_t reply;
   bson_iter_t it;
   bool ok = false;

   if (ctx->server_version[0]) {
      memcpy (version, ctx->server_version, sizeof ctx->server_version);
      return true;
   }
   if (ctx->opts && ctx->opts->dry_run) {
      sh_error_set (err, SH_ERR_VERSION, "the server version is not known under --dry-run");
      return false;
   }
   BSON_APPEND_INT32 (&cmd, "buildInfo", 1);
   if (!conn_run (ctx, "admin", &cmd, CONN_READ, &reply, err))
      goto done;
   if (bson_iter_init_find (&it, &reply, "version") && BSON_ITER_HOLDS_UTF8 (&it)) {
      int v[3] = { 0, 0, 0 };
      sscanf (bson_iter_utf8 (&it, NULL), "%d.%d.%d", &v[0], &v[1], &v[2]);
      memcpy (ctx->server_version, v, sizeof v);
      memcpy (version, v, sizeof v);
      ok = v[0] > 0;
   }
   if (!ok)
      sh_error_set (err, SH_ERR_VERSION, "buildInfo did not report a version");
done:
   bson_destroy (&cmd);
   bson_destroy (&reply);
   return ok;
}

/* ---- live cursors ---- */

struct conn_cursor {
   sh_ctx_t *ctx;
   char *db;
   char *coll; /* from the reply's ns: what getMore and killCursors name */
   conn_path_t path;
   int64_t id; /* the server's cursor id; 0 once it is closed */
   int64_t batch_size, limit, returned;
   mongoc_client_session_t *session; /* NULL under the canned transport, under --dry-run, and once detached */
   mongoc_read_prefs_t *prefs;
   bson_t opts;  /* serverId and lsid: every command of the cursor goes to the same server in the same session */
   bson_t reply; /* the last batch's reply; batch iterates its documents */
   bson_iter_t batch;
   bool in_batch;
   bool lost; /* its client was dropped: no getMore can follow */
   bson_t doc;
   struct conn_cursor *next_live;
};

/* Every open cursor, so a client that is dropped first detaches them (their sessions belong to it). */
static conn_cursor_t *conn_live_cursors;

static void
conn_cursors_detach (void)
{
   for (conn_cursor_t *c = conn_live_cursors; c; c = c->next_live) {
      if (c->session)
         mongoc_client_session_destroy (c->session);
      c->session = NULL;
      c->lost = true;
   }
}

/* Runs one command of the cursor (the opening command, getMore, killCursors) on its server and session. */
static bool
cursor_command (conn_cursor_t *c, const bson_t *cmd, bool opening, bool cursor_reply, bson_t *reply, sh_error_t *err)
{
   bson_error_t error;
   bool ok;
   if (conn_transport) {
      ok = transport_run (c->db, cmd, reply, &error);
   } else if (c->lost || !c->ctx->client) {
      bson_init (reply);
      sh_error_set (err, SH_ERR_NETWORK, "the cursor was lost with its connection");
      return false;
   } else if (c->path == CONN_READ && opening) {
      ok = mongoc_client_read_command_with_opts (c->ctx->client, c->db, cmd, c->prefs, &c->opts, reply, &error);
   } else {
      /* getMore and killCursors go as they are: a read concern may not be added to them */
      ok = mongoc_client_command_with_opts (c->ctx->client, c->db, cmd, c->prefs, &c->opts, reply, &error);
   }
   if (!ok)
      conn_error_from_mongoc (err, &error, reply);
   else if (!conn_transport)
      ok = conn_reply_valid (cmd, reply, cursor_reply, err);
   return ok;
}

/* Takes reply (which it destroys) as the cursor's current batch: cursor.id, cursor.ns and cursor.<field>. */
static bool
cursor_take_reply (conn_cursor_t *c, bson_t *reply, const char *field, sh_error_t *err)
{
   bson_iter_t it, cur;
   bool has_batch = false;
   bson_destroy (&c->reply);
   bson_steal (&c->reply, reply);
   c->in_batch = false;
   if (bson_iter_init_find (&it, &c->reply, "cursor") && BSON_ITER_HOLDS_DOCUMENT (&it) &&
       bson_iter_recurse (&it, &cur)) {
      while (bson_iter_next (&cur)) {
         const char *k = bson_iter_key (&cur);
         if (!strcmp (k, "id") && BSON_ITER_HOLDS_NUMBER (&cur)) {
            c->id = bson_iter_as_int64 (&cur);
         } else if (!strcmp (k, "ns") && BSON_ITER_HOLDS_UTF8 (&cur) && !c->coll) {
            const char *ns = bson_iter_utf8 (&cur, NULL), *dot = strchr (ns, '.');
            c->coll = bson_strdup (dot ? dot + 1 : ns);
         } else if (!strcmp (k, field) && BSON_ITER_HOLDS_ARRAY (&cur)) {
            has_batch = bson_iter_recurse (&cur, &c->batch);
         }
      }
   }
   if (!has_batch) {
      bson_error_t error;
      c->id = 0;
      bson_set_error (&error, MONGOC_ERROR_CURSOR, MONGOC_ERROR_CURSOR_INVALID_CURSOR,
                      "Couldn't parse cursor document");
      conn_error_from_mongoc (err, &error, NULL);
      return false;
   }
   c->in_batch = true;
   return true;
}

conn_cursor_t *
conn_cursor_open (sh_ctx_t *ctx, const char *db, const bson_t *cmd, conn_path_t path, int64_t batch_size, int64_t limit,
                  sh_error_t *err)
{
   conn_cursor_t *c = bson_malloc0 (sizeof *c);
   bson_t reply;
   bson_error_t error;

   c->ctx = ctx;
   c->db = bson_strdup (db);
   c->path = path;
   c->batch_size = batch_size;
   c->limit = limit;
   bson_init (&c->opts);
   bson_init (&c->reply);
   c->next_live = conn_live_cursors;
   conn_live_cursors = c;
   if (ctx->opts && ctx->opts->dry_run) {
      dry_run_print (ctx, db, cmd);
      dry_run_reply (db, cmd, &reply);
      if (!cursor_take_reply (c, &reply, "firstBatch", err))
         goto fail;
      return c;
   }
   if (!conn_ensure (ctx, err))
      goto fail;
   if (!conn_transport) {
      mongoc_server_description_t *sd;
      /* not causally consistent: nothing but the session id is added, as the Node driver's implicit session */
      mongoc_session_opt_t *sopts = mongoc_session_opts_new ();
      mongoc_session_opts_set_causal_consistency (sopts, false);
      c->session = mongoc_client_start_session (ctx->client, sopts, &error);
      mongoc_session_opts_destroy (sopts);
      if (!c->session) {
         conn_error_from_mongoc (err, &error, NULL);
         goto fail;
      }
      if (path == CONN_READ)
         c->prefs = mongoc_read_prefs_copy (mongoc_client_get_read_prefs (ctx->client));
      sd = mongoc_client_select_server (ctx->client, path != CONN_READ, c->prefs, &error);
      if (!sd) {
         conn_error_from_mongoc (err, &error, NULL);
         goto fail;
      }
      BSON_APPEND_INT32 (&c->opts, "serverId", (int32_t) mongoc_server_description_id (sd));
      mongoc_server_description_destroy (sd);
      if (!mongoc_client_session_append (c->session, &c->opts, &error)) {
         conn_error_from_mongoc (err, &error, NULL);
         goto fail;
      }
   }
   if (!cursor_command (c, cmd, true, true, &reply, err)) {
      bson_destroy (&reply);
      goto fail;
   }
   if (!cursor_take_reply (c, &reply, "firstBatch", err))
      goto fail;
   if (!c->coll) {
      /* no ns in the reply: the collection the command names */
      bson_iter_t it;
      c->coll = bson_strdup (bson_iter_init (&it, cmd) && bson_iter_next (&it) && BSON_ITER_HOLDS_UTF8 (&it)
                                ? bson_iter_utf8 (&it, NULL)
                                : "");
   }
   return c;
fail:
   c->id = 0;
   conn_cursor_destroy (c);
   return NULL;
}

int
conn_cursor_next (conn_cursor_t *c, const bson_t **doc, sh_error_t *err)
{
   for (;;) {
      bson_t cmd, reply;
      while (c->in_batch && bson_iter_next (&c->batch)) {
         const uint8_t *data;
         uint32_t len;
         if (!BSON_ITER_HOLDS_DOCUMENT (&c->batch))
            continue;
         bson_iter_document (&c->batch, &len, &data);
         if (!bson_init_static (&c->doc, data, len))
            continue;
         c->returned++;
         *doc = &c->doc;
         return 1;
      }
      c->in_batch = false;
      if (!c->id)
         return 0;
      if (c->limit && c->returned >= c->limit) {
         /* the Node driver's shortcut: the limit is reached, so the cursor is killed rather than asked again */
         bson_init (&cmd);
         BSON_APPEND_UTF8 (&cmd, "killCursors", c->coll);
         {
            bson_t ids;
            BSON_APPEND_ARRAY_BEGIN (&cmd, "cursors", &ids);
            BSON_APPEND_INT64 (&ids, "0", c->id);
            bson_append_array_end (&cmd, &ids);
         }
         if (!cursor_command (c, &cmd, false, false, &reply, err))
            sh_error_clear (err);
         bson_destroy (&reply);
         bson_destroy (&cmd);
         c->id = 0;
         return 0;
      }
      bson_init (&cmd);
      BSON_APPEND_INT64 (&cmd, "getMore", c->id);
      BSON_APPEND_UTF8 (&cmd, "collection", c->coll);
      if (c->batch_size > 0) {
         int64_t n = c->batch_size;
         if (c->limit && c->limit - c->returned < n)
            n = c->limit - c->returned;
         BSON_APPEND_INT32 (&cmd, "batchSize", (int32_t) n);
      }
      if (!cursor_command (c, &cmd, false, true, &reply, err)) {
         bson_destroy (&reply);
         bson_destroy (&cmd);
         c->id = 0; /* the server closes a cursor whose getMore failed */
         return -1;
      }
      bson_destroy (&cmd);
      if (!cursor_take_reply (c, &reply, "nextBatch", err))
         return -1;
   }
}

bool
conn_cursor_buffered (const conn_cursor_t *c)
{
   bson_iter_t peek;
   if (!c->in_batch)
      return false;
   peek = c->batch;
   while (bson_iter_next (&peek)) {
      if (BSON_ITER_HOLDS_DOCUMENT (&peek))
         return true;
   }
   return false;
}

bool
conn_cursor_more (const conn_cursor_t *c)
{
   return c->id || conn_cursor_buffered (c);
}

void
conn_cursor_destroy (conn_cursor_t *c)
{
   if (!c)
      return;
   if (c->id && !c->lost) {
      bson_t cmd = BSON_INITIALIZER, ids, reply;
      sh_error_t ignored;
      BSON_APPEND_UTF8 (&cmd, "killCursors", c->coll ? c->coll : "");
      BSON_APPEND_ARRAY_BEGIN (&cmd, "cursors", &ids);
      BSON_APPEND_INT64 (&ids, "0", c->id);
      bson_append_array_end (&cmd, &ids);
      sh_error_clear (&ignored);
      cursor_command (c, &cmd, false, false, &reply, &ignored);
      bson_destroy (&reply);
      bson_destroy (&cmd);
   }
   for (conn_cursor_t **p = &conn_live_cursors; *p; p = &(*p)->next_live) {
      if (*p == c) {
         *p = c->next_live;
         break;
      }
   }
   if (c->session)
      mongoc_client_session_destroy (c->session);
   if (c->prefs)
      mongoc_read_prefs_destroy (c->prefs);
   bson_destroy (&c->opts);
   bson_destroy (&c->reply);
   bson_free (c->db);
   bson_free (c->coll);
   bson_free (c);
}
