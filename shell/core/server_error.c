/* Server and driver errors into sh_error_t (server_error.h): the reply's code, codeName and errmsg, and plain words
 * for a refused login, an untrusted certificate, an unreachable or silent server and a reply that is not BSON. */
#include <mongoc/mongoc.h>
#include <stdlib.h>
#include <string.h>

#include "shell/core/conn.h"
#include "shell/lib/secret.h"
#include "shell/core/interrupt.h"
#include "shell/core/readcmds.h"
#include "shell/core/server_error.h"

/* A server or driver message may echo a connection string (addShard, a bad seed list): hide its password. */
static void
server_error_redact (sh_error_t *err)
{
   char *shown;
   if (!strstr (err->message, "://"))
      return;
   shown = secret_redact_text (err->message);
   bson_strncpy (err->message, shown, sizeof err->message);
   bson_free (shown);
}

/* One line for the connection failures people meet most, instead of the driver's wording: a refused login (mongoc's
 * CLIENT/AUTHENTICATE error; the server's code 18 is kept when the driver passes on the server's own "Authentication
 * failed.") and a server certificate that fails verification (mongoc reports the TLS handshake inside a
 * server-selection error with OpenSSL's verify result: 18-21 no path to a trusted CA, 9/10 validity dates, 62/64
 * host name or IP address mismatch). False for other errors. */
static bool
server_error_auth_tls (const sh_ctx_t *ctx, sh_error_t *err, const bson_error_t *error)
{
   const char *tls = strstr (error->message, "TLS handshake failed");
   const char *verify = tls ? strstr (tls, "certificate verify failed (") : NULL;
   long result = verify ? strtol (verify + strlen ("certificate verify failed ("), NULL, 10) : -1;
   const char *auth_user = ctx ? ctx->conn.auth_user : "";
   const char *auth_db = ctx && ctx->conn.auth_db[0] ? ctx->conn.auth_db : "admin";
   const char *tls_ca = ctx ? ctx->conn.tls_ca : "";

   if (error->domain == MONGOC_ERROR_CLIENT && error->code == MONGOC_ERROR_CLIENT_AUTHENTICATE) {
      const char *user = auth_user[0] ? auth_user : "(none)";
      if (!strcmp (error->message, "Authentication failed.")) {
         sh_error_set (err, SH_ERR_SERVER, "authentication failed for user '%s' on database '%s'", user, auth_db);
         err->code = 18;
         bson_strncpy (err->code_name, "AuthenticationFailed", sizeof err->code_name);
      } else {
         sh_error_set (err, SH_ERR_NETWORK, "authentication failed for user '%s' on database '%s': %s", user, auth_db,
                       error->message);
         server_error_redact (err);
      }
      return true;
   }
   if (!tls)
      return false;
   if (result >= 18 && result <= 21) {
      if (tls_ca[0])
         sh_error_set (err, SH_ERR_NETWORK, "TLS: the server's certificate was not signed by the CA in %s", tls_ca);
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
   server_error_redact (err);
   return true;
}

/* What a lost reply to command name (n bytes) adds to its message: for a command that may change the cluster, that
 * it may have been applied (the run summary lists it as "unknown — check the cluster"); "" for a read. */
static const char *
server_error_lost_note (const char *name, size_t n)
{
   char cmd[64];
   if (n < sizeof cmd) {
      memcpy (cmd, name, n);
      cmd[n] = '\0';
      if (readcmds_name (cmd)) /* the one list of commands that only read (readcmds.c) */
         return "";
   }
   return "; it may have been applied: check the cluster";
}

/* One line in plain words for a server that refuses connections, stops answering, drops the connection or answers
 * garbage, instead of the driver's wording: "cannot reach HOST: connection refused|socket timeout" for a failed server
 * selection, "no reply to CMD: ..." for a command whose connection broke or timed out (one that may write: "...; it
 * may have been applied: check the cluster"), "invalid reply to CMD: ..." for
 * a reply the driver could not read. False for other errors. */
static bool
server_error_network (const sh_ctx_t *ctx, sh_error_t *err, const bson_error_t *error)
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
      size_t n = strcspn (name, "\"");
      sh_error_set (
         err, SH_ERR_NETWORK,
         "no reply to %.*s: the connection was closed or the reply took longer than socketTimeoutMS (%d ms)%s", (int) n,
         name, (int) (ctx ? ctx->conn.socket_timeout_ms : 300000), server_error_lost_note (name, n));
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

/* Marks ctx's client for replacement before the next statement (conn_forget_if_broken). */
static void
server_error_mark_stale (sh_ctx_t *ctx)
{
   if (ctx)
      ctx->conn.client_stale = true;
}

void
server_error_from_mongoc (sh_ctx_t *ctx, sh_error_t *err, const bson_error_t *error, const bson_t *reply)
{
   bson_iter_t it;
   bool server = error->domain == MONGOC_ERROR_SERVER || error->domain == MONGOC_ERROR_WRITE_CONCERN;

   if (!server && !(reply && bson_iter_init_find (&it, reply, "ok")) && sh_interrupt_cuts ()) {
      /* Ctrl-C cut the wait (the driver saw a closed connection, or its retry found Ctrl-C pending) */
      const char *send = strstr (error->message, "Failed to send \"");
      const char *name = send ? send + strlen ("Failed to send \"") : "";
      server_error_mark_stale (ctx);
      if (*name)
         sh_error_set (err, SH_ERR_INTERRUPTED, "interrupted: stopped waiting for the reply to %.*s%s",
                       (int) strcspn (name, "\""), name, server_error_lost_note (name, strcspn (name, "\"")));
      else
         sh_error_set (err, SH_ERR_INTERRUPTED, "interrupted: stopped waiting for the server");
      return;
   }
   if (server_error_auth_tls (ctx, err, error))
      return;

   if (reply && bson_iter_init_find (&it, reply, "ok") && !bson_iter_as_bool (&it))
      server = true;
   if (!server && ctx && ctx->conn.bad_reply_seen) {
      /* conn_stream_readv refused the reply's bytes */
      const char *send = strstr (error->message, "Failed to send \"");
      const char *name = send ? send + strlen ("Failed to send \"") : "";
      const char *why = ctx->conn.bad_reply_why ? ctx->conn.bad_reply_why : "not a BSON document";
      ctx->conn.bad_reply_seen = false;
      ctx->conn.bad_reply_why = NULL;
      server_error_mark_stale (ctx);
      sh_error_set (err, SH_ERR_NETWORK, "invalid reply to %.*s: %s",
                    *name ? (int) strcspn (name, "\"") : (int) strlen ("a command"), *name ? name : "a command", why);
      return;
   }
   if (!server) {
      server_error_mark_stale (ctx);
      if (server_error_network (ctx, err, error))
         return;
      sh_error_set (err, SH_ERR_NETWORK, "%s", error->message);
      server_error_redact (err);
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
   server_error_redact (err);
}
