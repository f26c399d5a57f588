/* The connection layer: one owner of the session's mongoc client and connection string. A lazily created client
 * (with the timeouts conn_set_timeouts asked for), commands sent exactly as built, cursors iterated in one session,
 * --dry-run printing instead of sending, and the mongos check. The transports are in conn_stream.c, the wording of
 * errors in server_error.c; the connection's state lives in ctx->conn. */
#include <mongoc/mongoc.h>
#include <stdlib.h>
#include <string.h>

#include "shell/core/conn_int.h"
#include "shell/core/interrupt.h"
#include "shell/core/readcmds.h"
#include "shell/core/server_error.h"
#include "shell/lib/bsonvalid.h"
#include "shell/lib/secret.h"

static void
conn_log_handler (mongoc_log_level_t level, const char *domain, const char *message, void *data)
{
   (void) data;
   /* Driver logs never reach the user's terminal uninvited. SHARDSH_DEBUG=1 shows them on stderr, with the password
    * of any connection string they quote hidden. */
   if (getenv ("SHARDSH_DEBUG")) {
      char *shown = secret_redact_text (message);
      fprintf (stderr, "[%s] %s: %s\n", mongoc_log_level_str (level), domain, shown);
      bson_free (shown);
   }
}

static void
conn_cursors_detach (sh_ctx_t *ctx);

void
conn_init (sh_ctx_t *ctx, const char *uri, const char *db)
{
   mongoc_log_set_handler (conn_log_handler, NULL);
   memset (&ctx->conn, 0, sizeof ctx->conn);
   ctx->uri = bson_strdup (uri);
   ctx->db = bson_strdup (db);
   ctx->client = NULL;
}

/* Frees a set of db.auth credentials (user, password, source, mechanism), the password zeroed first. */
static void
conn_auth_free (char *set[4])
{
   if (set[1])
      memset (set[1], 0, strlen (set[1]));
   for (int i = 0; i < 4; i++) {
      bson_free (set[i]);
      set[i] = NULL;
   }
}

void
conn_destroy (sh_ctx_t *ctx)
{
   /* the session's current cursor is killed while the client can still send (REPL exit, script end) */
   conn_cursor_free (ctx->cursor);
   ctx->cursor = NULL;
   ctx->cursor_fresh = false;
   conn_cursors_detach (ctx);
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
   conn_auth_free (ctx->conn.auth_set);
}

/* Notes who the client authenticates as and which CA file it trusts, for error messages only (server_error.c). */
static void
conn_note_identity (sh_ctx_t *ctx, const mongoc_uri_t *uri)
{
   const char *user = mongoc_uri_get_username (uri);
   const char *db = mongoc_uri_get_auth_source (uri);
   const char *ca = mongoc_uri_get_option_as_utf8 (uri, MONGOC_URI_TLSCAFILE, NULL);
   bson_strncpy (ctx->conn.auth_user, user ? user : "", sizeof ctx->conn.auth_user);
   bson_strncpy (ctx->conn.auth_db, db && *db ? db : "admin", sizeof ctx->conn.auth_db);
   bson_strncpy (ctx->conn.tls_ca, ca ? ca : "", sizeof ctx->conn.tls_ca);
   ctx->conn.socket_timeout_ms = mongoc_uri_get_option_as_int32 (uri, MONGOC_URI_SOCKETTIMEOUTMS, 300000);
}

/* Drops ctx's client (its cursors detached first), so the next command connects afresh. A broken client is reset
 * first: its server sessions are forgotten, so destroy sends no endSessions to a router that may still be stalled
 * (that would wait another connectTimeoutMS); a healthy one ends its sessions. */
static void
conn_drop_client (sh_ctx_t *ctx, bool broken)
{
   if (!ctx->client)
      return;
   conn_cursors_detach (ctx);
   if (broken)
      mongoc_client_reset (ctx->client);
   mongoc_client_destroy (ctx->client);
   ctx->client = NULL;
}

void
conn_forget_if_broken (sh_ctx_t *ctx)
{
   ctx->conn.bad_reply_seen = false; /* a refused reply whose read was retried with success */
   ctx->conn.bad_reply_why = NULL;
   if (sh_interrupt_took_socket ())
      ctx->conn.client_stale = true; /* even when its reply had arrived: the socket is shut */
   if (ctx->conn.client_stale && !conn_transport_active ())
      conn_drop_client (ctx, true);
   ctx->conn.client_stale = false;
}

mongoc_uri_t *
conn_uri_parse (const char *text, sh_error_t *err)
{
   bson_error_t error;
   mongoc_uri_t *uri;
   mongoc_log_set_handler (conn_log_handler, NULL); /* libmongoc's own line about it stays hidden */
   uri = mongoc_uri_new_with_error (text, &error);
   if (!uri) {
      char *shown = secret_redact_uri (text);
      char *why = secret_redact_text (error.message);
      sh_error_set (err, SH_ERR_USAGE, "invalid connection string '%s': %s", shown, why);
      bson_free (why);
      bson_free (shown);
   }
   return uri;
}

bool
conn_ensure (sh_ctx_t *ctx, sh_error_t *err)
{
   mongoc_uri_t *uri = NULL;
   bson_error_t error;
   bool ok = false;

   if (ctx->client || conn_transport_active ())
      return true;
   if (!ctx->uri) {
      /* --nodb: mongosh says "[SHAPI-10004] No connected database" */
      sh_error_set (err, SH_ERR_USAGE, "no connected database: shardsh was started with --nodb");
      return false;
   }
   if (!(uri = conn_uri_parse (ctx->uri, err)))
      goto done;
   if (ctx->opts && ctx->opts->username)
      mongoc_uri_set_username (uri, ctx->opts->username);
   if (ctx->opts && ctx->opts->password)
      mongoc_uri_set_password (uri, ctx->opts->password);
   /* --authenticationMechanism, set once the user is (the connection string alone may name none) */
   if (ctx->opts && ctx->opts->auth_mechanism)
      mongoc_uri_set_auth_mechanism (uri, ctx->opts->auth_mechanism);
   if (ctx->conn.auth_set[0]) { /* db.auth's credentials win */
      mongoc_uri_set_username (uri, ctx->conn.auth_set[0]);
      mongoc_uri_set_password (uri, ctx->conn.auth_set[1]);
      mongoc_uri_set_auth_source (uri, ctx->conn.auth_set[2]);
      if (ctx->conn.auth_set[3])
         mongoc_uri_set_auth_mechanism (uri, ctx->conn.auth_set[3]);
   }
   if (ctx->conn.timeouts_ms > 0) {
      mongoc_uri_set_option_as_int32 (uri, MONGOC_URI_SERVERSELECTIONTIMEOUTMS, ctx->conn.timeouts_ms);
      mongoc_uri_set_option_as_int32 (uri, MONGOC_URI_CONNECTTIMEOUTMS, ctx->conn.timeouts_ms);
      mongoc_uri_set_option_as_int32 (uri, MONGOC_URI_SOCKETTIMEOUTMS,
                                      ctx->conn.read_timeout_ms > 0 ? ctx->conn.read_timeout_ms
                                                                    : ctx->conn.timeouts_ms);
   }
   conn_note_identity (ctx, uri);
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
      char *why = secret_redact_text (error.message);
      sh_error_set (err, SH_ERR_USAGE, "cannot create a client: %s", why);
      bson_free (why);
      goto done;
   }
   mongoc_client_set_error_api (ctx->client, MONGOC_ERROR_API_VERSION_2);
   mongoc_client_set_stream_initiator (ctx->client, conn_stream_initiator, ctx);
   ok = true;
done:
   mongoc_uri_destroy (uri);
   return ok;
}

bool
conn_authenticate (sh_ctx_t *ctx, const char *user, const char *pwd, const char *source, const char *mechanism,
                   sh_error_t *err)
{
   char *saved[4];
   mongoc_client_t *old = ctx->client;
   bson_t ping = BSON_INITIALIZER, reply = BSON_INITIALIZER;
   bool ok;

   /* as mongosh: the current cursor is let go, the new credentials tried on a client of their own */
   conn_cursor_free (ctx->cursor);
   ctx->cursor = NULL;
   ctx->cursor_fresh = false;
   memcpy (saved, ctx->conn.auth_set, sizeof saved);
   ctx->conn.auth_set[0] = bson_strdup (user);
   ctx->conn.auth_set[1] = bson_strdup (pwd);
   ctx->conn.auth_set[2] = bson_strdup (source);
   ctx->conn.auth_set[3] = mechanism ? bson_strdup (mechanism) : NULL;
   ctx->client = NULL;
   BSON_APPEND_INT32 (&ping, "ping", 1);
   ok = conn_ensure (ctx, err);
   if (ok) {
      bson_destroy (&reply); /* conn_run initialises it in every case */
      ok = conn_run (ctx, source, &ping, CONN_ADMIN, &reply, err);
   }
   bson_destroy (&reply);
   if (!ok && err->kind == SH_ERR_NONE)
      sh_error_set (err, SH_ERR_USAGE, "authentication failed");
   bson_destroy (&ping);
   if (!ok) { /* the old client and credentials stay */
      if (ctx->client)
         mongoc_client_destroy (ctx->client);
      ctx->client = old;
      conn_auth_free (ctx->conn.auth_set);
      memcpy (ctx->conn.auth_set, saved, sizeof saved);
      return false;
   }
   conn_auth_free (saved);
   if (old) {
      mongoc_client_t *now = ctx->client;
      ctx->client = old;
      conn_drop_client (ctx, false); /* its cursors detached first */
      ctx->client = now;
   }
   return true;
}

bool
conn_set_timeouts_split (sh_ctx_t *ctx, int32_t ms, int32_t socket_ms)
{
   mongoc_uri_t *uri = ctx->uri ? mongoc_uri_new_with_error (ctx->uri, NULL) : NULL;
   bool users = !uri || mongoc_uri_has_option (uri, MONGOC_URI_SOCKETTIMEOUTMS) ||
                mongoc_uri_has_option (uri, MONGOC_URI_SERVERSELECTIONTIMEOUTMS);

   mongoc_uri_destroy (uri);
   if (users)
      return false;
   if (ms < 0)
      ms = 0;
   if (socket_ms < 0)
      socket_ms = 0;
   if (ms != ctx->conn.timeouts_ms || socket_ms != ctx->conn.read_timeout_ms) {
      ctx->conn.timeouts_ms = ms;
      ctx->conn.read_timeout_ms = socket_ms;
      conn_drop_client (ctx, false);
   }
   return true;
}

bool
conn_set_timeouts (sh_ctx_t *ctx, int32_t ms)
{
   return conn_set_timeouts_split (ctx, ms, ms);
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

/* Whether reply has an "ok" field: the first one (where servers put it) looked at before searching. */
static bool
reply_has_ok (const bson_t *reply)
{
   bson_iter_t it;
   const char *k;
   if (!bson_iter_init (&it, reply) || !bson_iter_next (&it))
      return false;
   k = bson_iter_key_unsafe (&it);
   return (k[0] == 'o' && k[1] == 'k' && !k[2]) || bson_iter_find (&it, "ok");
}

/* libmongoc takes a well-framed reply whose body is not a BSON document for a success (it finds no "ok: 0" in it)
 * and hands it on, as it is or as an empty document: check it before anything reads it. A server's reply always has
 * "ok", and a cursor command's a "cursor" document. The BSON itself is checked here only when the stream did not
 * (ctx->conn.reply_unchecked): it checks every reply it reads (conn_stream.c). On failure reply is emptied, the
 * client is marked broken (the stream may be out of step) and err says "invalid reply to CMD: why". */
static bool
conn_reply_valid (sh_ctx_t *ctx, const bson_t *cmd, bson_t *reply, bool cursor, sh_error_t *err)
{
   bson_iter_t it;
   const char *why = NULL;
   if (ctx->conn.reply_unchecked && !bsonvalid_bson (reply))
      why = "not a BSON document";
   else if (!reply_has_ok (reply))
      why = "no \"ok\" field";
   else if (cursor && !(bson_iter_init_find (&it, reply, "cursor") && BSON_ITER_HOLDS_DOCUMENT (&it)))
      why = "no cursor document";
   if (!why)
      return true;
   ctx->conn.client_stale = true;
   sh_error_set (err, SH_ERR_NETWORK, "invalid reply to %s: %s", command_name (cmd), why);
   bson_destroy (reply);
   bson_init (reply);
   return false;
}

/* Appends s to out as a JSON string's contents (quotes, backslashes and control characters escaped). */
static void
dry_run_json_escape (bson_string_t *out, const char *s)
{
   for (const char *p = s; *p; p++) {
      if (*p == '"' || *p == '\\')
         bson_string_append_printf (out, "\\%c", *p);
      else if ((unsigned char) *p < 0x20)
         bson_string_append_printf (out, "\\u%04x", (unsigned char) *p);
      else
         bson_string_append_c (out, *p);
   }
}

/* Prints a request instead of sending it, passwords hidden (secret_redact_doc), on ctx->dry_fp (else out_fp): with
 * its place in the script when ctx->place names one, "[dry-run] zones.js:7 admin { relaxed Extended JSON }" or,
 * under --json, {"dryRun": true, "file", "line", "db", "command": canonical Extended JSON}. A second connection's
 * (new Mongo(uri)) names its hosts: "[dry-run] zones.js:9 host:27018/admin {...}", JSON "conn": "host:27018". */
static void
dry_run_print (sh_ctx_t *ctx, const char *db, const bson_t *cmd)
{
   bson_t shown = BSON_INITIALIZER;
   bool json = ctx->out.mode == OUTPUT_JSON;
   FILE *fp = ctx->dry_fp ? ctx->dry_fp : ctx->out_fp;
   bson_string_t *line = bson_string_new (json ? "{\"dryRun\": true, " : "[dry-run] ");
   char *text;

   secret_redact_doc (cmd, &shown);
   text = json ? bson_as_canonical_extended_json (&shown, NULL) : bson_as_relaxed_extended_json (&shown, NULL);
   bson_destroy (&shown);
   if (json) {
      if (ctx->place.file) {
         bson_string_append (line, "\"file\": \"");
         dry_run_json_escape (line, ctx->place.file);
         bson_string_append_printf (line, "\", \"line\": %d, ", ctx->place.line);
      }
      if (ctx->conn_name) {
         bson_string_append (line, "\"conn\": \"");
         dry_run_json_escape (line, ctx->conn_name);
         bson_string_append (line, "\", ");
      }
      bson_string_append (line, "\"db\": \"");
      dry_run_json_escape (line, db);
      bson_string_append_printf (line, "\", \"command\": %s}", text ? text : "null");
   } else {
      if (ctx->place.file)
         bson_string_append_printf (line, "%s:%d ", ctx->place.file, ctx->place.line);
      bson_string_append_printf (line, "%s%s%s %s", ctx->conn_name ? ctx->conn_name : "", ctx->conn_name ? "/" : "", db,
                                 text ? text : OUTPUT_INVALID_BSON);
   }
   fprintf (fp, "%s\n", line->str);
   bson_string_free (line, true);
   bson_free (text);
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

/* Sends cmd through libmongoc: on the read path (prefs NULL: the client's) through the retrying read helper when it
 * only reads (readcmds_command: sending it twice changes nothing), else through mongoc_client_command_with_opts with
 * the same read preference, which sends it once; on the admin path with prefs as given (NULL: primary). opts (may be
 * NULL) is passed on. */
static bool
conn_send (sh_ctx_t *ctx, const char *db, const bson_t *cmd, conn_path_t path, const mongoc_read_prefs_t *prefs,
           const bson_t *opts, bson_t *reply, bson_error_t *error)
{
   if (path != CONN_READ)
      return mongoc_client_command_with_opts (ctx->client, db, cmd, prefs, opts, reply, error);
   /* libmongoc's read helper retries ANY command once after a network error when retryReads is on (the default);
    * mongoc_client_command_with_opts never retries. So only a read may take the retrying path: every write, such as
    * balancerStart (which mongosh sends on its read path), is sent exactly once, and a reply lost after sending is
    * reported, never answered by sending the command again (docs/reliability.md, "Writes are sent once"). */
   if (readcmds_command (cmd))
      return mongoc_client_read_command_with_opts (ctx->client, db, cmd, prefs, opts, reply, error);
   return mongoc_client_command_with_opts (
      ctx->client, db, cmd, prefs ? prefs : mongoc_client_get_read_prefs (ctx->client), opts, reply, error);
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
   if (!ctx->client && !conn_ensure (ctx, err)) { /* a client made already: no call */
      bson_init (reply);
      return false;
   }
   ctx->conn.reply_unchecked = false;
   if (conn_transport_active ())
      ok = conn_transport_run (db, cmd, reply, &error);
   else
      ok = conn_send (ctx, db, cmd, path, NULL, NULL, reply, &error);
   if (!ok)
      server_error_from_mongoc (ctx, err, &error, reply);
   else if (!conn_transport_active ())
      ok = conn_reply_valid (ctx, cmd, reply, false, err);
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
   if (conn_transport_active ()) {
      if (!conn_transport_run_docs (ctx, db, cmd, 0, &docs, NULL, err))
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
      server_error_from_mongoc (ctx, err, &error, NULL);
      goto done;
   }
   if (path == CONN_READ)
      prefs = mongoc_read_prefs_copy (mongoc_client_get_read_prefs (ctx->client));
   sd = mongoc_client_select_server (ctx->client, path != CONN_READ, prefs, &error);
   if (!sd) {
      server_error_from_mongoc (ctx, err, &error, NULL);
      goto done;
   }
   BSON_APPEND_INT32 (&opts, "serverId", (int32_t) mongoc_server_description_id (sd));
   if (!mongoc_client_session_append (session, &opts, &error)) {
      server_error_from_mongoc (ctx, err, &error, NULL);
      goto done;
   }
   bson_destroy (&reply);
   ctx->conn.reply_unchecked = false;
   ok = conn_send (ctx, db, cmd, path, prefs, &opts, &reply, &error);
   if (!ok) {
      server_error_from_mongoc (ctx, err, &error, &reply);
      goto done;
   }
   ok = false;
   if (!conn_reply_valid (ctx, cmd, &reply, true, err))
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
      server_error_from_mongoc (ctx, err, &error, doc);
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

/* Detaches every open cursor of ctx (ctx->conn.live_cursors) before its client is dropped: their sessions belong to
 * it. */
static void
conn_cursors_detach (sh_ctx_t *ctx)
{
   for (conn_cursor_t *c = ctx->conn.live_cursors; c; c = c->next_live) {
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
   c->ctx->conn.reply_unchecked = false;
   if (conn_transport_active ()) {
      ok = conn_transport_run (c->db, cmd, reply, &error);
   } else if (c->lost || !c->ctx->client) {
      bson_init (reply);
      sh_error_set (err, SH_ERR_NETWORK, "the cursor was lost with its connection");
      return false;
   } else if (opening) {
      ok = conn_send (c->ctx, c->db, cmd, c->path, c->prefs, &c->opts, reply, &error);
   } else {
      /* getMore and killCursors go as they are: a read concern may not be added to them */
      ok = mongoc_client_command_with_opts (c->ctx->client, c->db, cmd, c->prefs, &c->opts, reply, &error);
   }
   if (!ok)
      server_error_from_mongoc (c->ctx, err, &error, reply);
   else if (!conn_transport_active ())
      ok = conn_reply_valid (c->ctx, cmd, reply, cursor_reply, err);
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
      server_error_from_mongoc (c->ctx, err, &error, NULL);
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
   c->next_live = ctx->conn.live_cursors;
   ctx->conn.live_cursors = c;
   if (ctx->opts && ctx->opts->dry_run) {
      dry_run_print (ctx, db, cmd);
      dry_run_reply (db, cmd, &reply);
      if (!cursor_take_reply (c, &reply, "firstBatch", err))
         goto fail;
      return c;
   }
   if (!conn_ensure (ctx, err))
      goto fail;
   if (!conn_transport_active ()) {
      mongoc_server_description_t *sd;
      /* not causally consistent: nothing but the session id is added, as the Node driver's implicit session */
      mongoc_session_opt_t *sopts = mongoc_session_opts_new ();
      mongoc_session_opts_set_causal_consistency (sopts, false);
      c->session = mongoc_client_start_session (ctx->client, sopts, &error);
      mongoc_session_opts_destroy (sopts);
      if (!c->session) {
         server_error_from_mongoc (ctx, err, &error, NULL);
         goto fail;
      }
      if (path == CONN_READ)
         c->prefs = mongoc_read_prefs_copy (mongoc_client_get_read_prefs (ctx->client));
      sd = mongoc_client_select_server (ctx->client, path != CONN_READ, c->prefs, &error);
      if (!sd) {
         server_error_from_mongoc (ctx, err, &error, NULL);
         goto fail;
      }
      BSON_APPEND_INT32 (&c->opts, "serverId", (int32_t) mongoc_server_description_id (sd));
      mongoc_server_description_destroy (sd);
      if (!mongoc_client_session_append (c->session, &c->opts, &error)) {
         server_error_from_mongoc (ctx, err, &error, NULL);
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
   conn_cursor_free (c);
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
conn_cursor_free (conn_cursor_t *c)
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
   for (conn_cursor_t **p = &c->ctx->conn.live_cursors; *p; p = &(*p)->next_live) {
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
