/* The connection layer: a lazily created mongoc client, commands sent exactly as built, cursors iterated in one
 * session, --dry-run printing instead of sending, and driver errors turned into sh_error_t values. */
#include <mongoc/mongoc.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conn.h"

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
   const char *at, *colon, *hosts;
   if (!scheme)
      return bson_strdup (uri);
   hosts = scheme + 3;
   at = strchr (hosts, '@');
   if (!at || (strchr (hosts, '/') && strchr (hosts, '/') < at))
      return bson_strdup (uri);
   colon = memchr (hosts, ':', (size_t) (at - hosts));
   if (!colon)
      return bson_strdup (uri);
   return bson_strdup_printf ("%.*s****%s", (int) (colon + 1 - uri), uri, at);
}

char *
conn_redact_text (const char *text)
{
   bson_string_t *out = bson_string_new (NULL);
   const char *p = text, *scheme;

   while ((scheme = strstr (p, "://")) != NULL) {
      const char *user = scheme + 3;
      const char *end = user + strcspn (user, "/?#@ \t\r\n");
      const char *colon = memchr (user, ':', (size_t) (end - user));
      if (*end == '@' && colon) {
         bson_string_append_printf (out, "%.*s****", (int) (colon + 1 - p), p);
         p = end;
      } else {
         bson_string_append_printf (out, "%.*s", (int) (user - p), p);
         p = user;
      }
   }
   bson_string_append (out, p);
   return bson_string_free (out, false);
}

static bool
is_secret_key (const char *key)
{
   return !strcasecmp (key, "pwd") || !strcasecmp (key, "password");
}

void
conn_redact_doc (const bson_t *src, bson_t *dst)
{
   bson_iter_t it;

   if (!bson_iter_init (&it, src))
      return;
   while (bson_iter_next (&it)) {
      const char *key = bson_iter_key (&it);
      if (is_secret_key (key)) {
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

void
conn_forget_if_broken (sh_ctx_t *ctx)
{
   if (ctx->client && conn_client_stale && !conn_transport) {
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

/* One line in plain words for a server that refuses connections, stops answering or drops the connection, instead
 * of the driver's wording: "cannot reach HOST: connection refused|socket timeout" for a failed server selection, "no
 * reply to CMD: ..." for a command whose connection broke or timed out. False for other errors. */
static bool
conn_explain_network (sh_error_t *err, const bson_error_t *error)
{
   const char *m = error->message;
   const char *hello = strstr (m, " calling hello on '");
   const char *open = strchr (m, '[');
   const char *send = strstr (m, "Failed to send \"");

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
   return false;
}

void
conn_error_from_mongoc (sh_error_t *err, const bson_error_t *error, const bson_t *reply)
{
   bson_iter_t it;
   bool server = error->domain == MONGOC_ERROR_SERVER || error->domain == MONGOC_ERROR_WRITE_CONCERN;

   if (conn_explain_auth_tls (err, error))
      return;

   if (reply && bson_iter_init_find (&it, reply, "ok") && !bson_iter_as_bool (&it))
      server = true;
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
   return ok;
}

bool
conn_run_docs (sh_ctx_t *ctx, const char *db, const bson_t *cmd, conn_path_t path, size_t max, bson_t *docs,
               bool *more, sh_error_t *err)
{
   mongoc_client_session_t *session = NULL;
   mongoc_server_description_t *sd = NULL;
   mongoc_read_prefs_t *prefs = NULL;
   mongoc_cursor_t *cursor = NULL;
   bson_t opts = BSON_INITIALIZER;
   bson_t reply;
   bson_error_t error;
   const bson_t *doc;
   size_t n = 0;
   bool ok = false;

   bson_init (docs);
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
      ok = transport_run_docs (db, cmd, max, docs, more, err);
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
   /* the cursor takes ownership of reply */
   cursor = mongoc_cursor_new_from_command_reply_with_opts (ctx->client, &reply, &opts);
   bson_init (&reply);
   while (mongoc_cursor_next (cursor, &doc)) {
      char key[16];
      const char *k;
      if (max && n >= max) {
         if (more)
            *more = true;
         break;
      }
      bson_uint32_to_string ((uint32_t) n, &k, key, sizeof key);
      bson_append_document (docs, k, -1, doc);
      n++;
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
   return ok;
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
   if (!conn_ensure (ctx, err)) {
      bson_init (&reply);
      goto done;
   }
   {
      bson_error_t error;
      bool sent = conn_transport
                     ? transport_run ("admin", &cmd, &reply, &error)
                     : mongoc_client_read_command_with_opts (ctx->client, "admin", &cmd, NULL, NULL, &reply, &error);
      if (!sent) {
         conn_error_from_mongoc (err, &error, &reply);
         goto done;
      }
   }
   if (bson_iter_init_find (&it, &reply, "version") && BSON_ITER_HOLDS_UTF8 (&it)) {
      int v[3] = {0, 0, 0};
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
