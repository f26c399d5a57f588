/* The second connections a script opens (new Mongo(uri), connect(uri)): a small array of session contexts, each made
 * from the session's (options, output) with a connection of its own, owned by the session's context. */
#include <string.h>

#include "shell/core/conn.h"
#include "shell/core/conn_registry.h"
#include "shell/lib/secret.h"

/* the session's server selection timeout when neither its string nor --timeout sets one (conn.c's default) */
#define REGISTRY_SESSION_SELECTION_MS 5000

struct conn_registry {
   sh_ctx_t *v[CONN_REGISTRY_MAX];
   size_t n;
};

/* "host:port/db" (mongosh's connect() and Mongo() take it without a scheme) as a connection string; malloc'd. */
static char *
registry_uri_text (const char *uri)
{
   if (strncmp (uri, "mongodb://", 10) == 0 || strncmp (uri, "mongodb+srv://", 14) == 0)
      return bson_strdup (uri);
   return bson_strdup_printf ("mongodb://%s", uri);
}

/* mongosh's options for a connection to one host (its connection string shows them): directConnection=true unless it
 * names a replica set or load balancer, serverSelectionTimeoutMS=timeout_ms unless given, then appName=app when the
 * string has none and app is not NULL (the session's: the name the server is told). Takes text; returns its
 * replacement. */
static char *
registry_uri_options (char *text, const mongoc_uri_t *parsed, int timeout_ms, const char *app)
{
   const mongoc_host_list_t *hosts = mongoc_uri_get_hosts (parsed);
   const char *q, *sep;
   bson_string_t *out;

   if (strncmp (text, "mongodb://", 10) != 0 || !hosts || hosts->next)
      return text;
   q = strchr (text, '?');
   out = bson_string_new (text);
   if (!strchr (text + 10, '/'))
      bson_string_append (out, "/");
   sep = q ? (q[1] ? "&" : "") : "?";
   if (!mongoc_uri_has_option (parsed, MONGOC_URI_DIRECTCONNECTION) && !mongoc_uri_get_replica_set (parsed) &&
       !mongoc_uri_has_option (parsed, MONGOC_URI_LOADBALANCED)) {
      bson_string_append_printf (out, "%sdirectConnection=true", sep);
      sep = "&";
   }
   if (!mongoc_uri_has_option (parsed, MONGOC_URI_SERVERSELECTIONTIMEOUTMS)) {
      bson_string_append_printf (out, "%sserverSelectionTimeoutMS=%d", sep, timeout_ms);
      sep = "&";
   }
   if (app && !mongoc_uri_has_option (parsed, MONGOC_URI_APPNAME))
      bson_string_append_printf (out, "%sappName=%s", sep, app);
   memset (text, 0, strlen (text));
   bson_free (text);
   return bson_string_free (out, false);
}

/* mongosh connects when the Mongo object is made: an unreachable host (or refused credentials) fails at new Mongo(),
 * not at its first command. A ping makes libmongoc connect (and authenticate); under --dry-run nothing is sent. */
static bool
registry_reach (sh_ctx_t *other, sh_error_t *err)
{
   bson_t ping = BSON_INITIALIZER, reply;
   bool ok;
   if (other->opts && other->opts->dry_run) {
      bson_destroy (&ping);
      return true;
   }
   BSON_APPEND_INT32 (&ping, "ping", 1);
   ok = conn_run (other, "admin", &ping, CONN_ADMIN, &reply, err);
   bson_destroy (&ping);
   bson_destroy (&reply);
   return ok;
}

/* The hosts of a connection string, "host:port[,host:port...]" as --dry-run names a second connection; malloc'd. */
static char *
registry_hosts (const mongoc_uri_t *parsed)
{
   bson_string_t *s = bson_string_new ("");
   for (const mongoc_host_list_t *h = mongoc_uri_get_hosts (parsed); h; h = h->next)
      bson_string_append_printf (s, "%s%s", s->len ? "," : "", h->host_and_port);
   if (!s->len && mongoc_uri_get_srv_hostname (parsed))
      bson_string_append (s, mongoc_uri_get_srv_hostname (parsed)); /* mongodb+srv:// names a service, not hosts */
   return bson_string_free (s, false);
}

/* Closes and frees one second connection (its connection, the hosts --dry-run names, the context). */
static void
registry_other_free (sh_ctx_t *other)
{
   conn_destroy (other);
   bson_free (other->conn_name);
   bson_free (other);
}

int
conn_registry_open (sh_ctx_t *ctx, const char *uri, sh_error_t *err)
{
   char *text;
   mongoc_uri_t *parsed;
   const char *db;
   sh_ctx_t *other;

   if (!ctx->others)
      ctx->others = bson_malloc0 (sizeof *ctx->others);
   if (ctx->others->n == CONN_REGISTRY_MAX) {
      sh_error_set (err, SH_ERR_USAGE, "a session may open at most %d connections besides its own", CONN_REGISTRY_MAX);
      return 0;
   }
   text = registry_uri_text (uri);
   parsed = conn_uri_parse (text, err);
   if (!parsed) {
      memset (text, 0, strlen (text));
      bson_free (text);
      return 0;
   }
   text = registry_uri_options (text, parsed, 2000, NULL);
   db = mongoc_uri_get_database (parsed);
   /* the session's settings; its connection, caches and cursor are its own */
   other = bson_malloc (sizeof *other);
   *other = *ctx;
   other->others = NULL;
   other->cursor = NULL;
   other->cursor_fresh = false;
   other->hello_db = NULL;
   memset (other->server_version, 0, sizeof other->server_version);
   memset (&other->session, 0, sizeof other->session);
   other->conn_name = registry_hosts (parsed);
   conn_init (other, text, db && *db ? db : "test");
   other->conn.timeouts_ms = ctx->conn.timeouts_ms;
   other->conn.read_timeout_ms = ctx->conn.read_timeout_ms;
   mongoc_uri_destroy (parsed);
   memset (text, 0, strlen (text));
   bson_free (text);
   if (!registry_reach (other, err)) {
      registry_other_free (other); /* unreachable or refused at new Mongo(): nothing of it is kept */
      return 0;
   }
   ctx->others->v[ctx->others->n++] = other;
   return (int) ctx->others->n;
}

sh_ctx_t *
conn_registry_get (sh_ctx_t *ctx, int id)
{
   sh_ctx_t *other;
   if (!ctx->others || id < 1 || (size_t) id > ctx->others->n)
      return NULL;
   other = ctx->others->v[id - 1];
   other->opts = ctx->opts;
   other->out = ctx->out;
   other->out_fp = ctx->out_fp;
   other->err_fp = ctx->err_fp;
   other->dry_fp = ctx->dry_fp;
   other->place = ctx->place;
   other->interactive = ctx->interactive;
   other->err_color = ctx->err_color;
   other->confirm_effect = ctx->confirm_effect;
   other->describe_effect = ctx->describe_effect;
   return other;
}

char *
conn_registry_uri (const sh_ctx_t *ctx, int id)
{
   if (id == 0) {
      /* the session's string as its connection uses it: mongosh's options with shardsh's own timeout and name */
      mongoc_uri_t *parsed = ctx->uri ? mongoc_uri_new_with_error (ctx->uri, NULL) : NULL;
      char *text, *shown;
      if (!parsed)
         return ctx->uri ? secret_redact_uri (ctx->uri) : NULL;
      text = registry_uri_options (bson_strdup (ctx->uri), parsed,
                                   ctx->conn.timeouts_ms > 0 ? ctx->conn.timeouts_ms : REGISTRY_SESSION_SELECTION_MS,
                                   "shardsh");
      mongoc_uri_destroy (parsed);
      shown = secret_redact_uri (text);
      memset (text, 0, strlen (text));
      bson_free (text);
      return shown;
   }
   if (!ctx->others || id < 1 || (size_t) id > ctx->others->n)
      return NULL;
   return secret_redact_uri (ctx->others->v[id - 1]->uri);
}

void
conn_registry_free (sh_ctx_t *ctx)
{
   if (!ctx->others)
      return;
   for (size_t i = 0; i < ctx->others->n; i++)
      registry_other_free (ctx->others->v[i]);
   bson_free (ctx->others);
   ctx->others = NULL;
}
