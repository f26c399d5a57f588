/* The second connections a script opens (new Mongo(uri), connect(uri)): a small array of session contexts, each made
 * from the session's (options, output) with a connection of its own, owned by the session's context. */
#include <string.h>

#include "shell/core/conn.h"
#include "shell/core/conn_registry.h"
#include "shell/lib/secret.h"

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
 * names a replica set or load balancer, serverSelectionTimeoutMS=2000 unless given. Takes text; returns its
 * replacement. */
static char *
registry_uri_options (char *text, const mongoc_uri_t *parsed)
{
   const mongoc_host_list_t *hosts = mongoc_uri_get_hosts (parsed);
   bool direct, timeout;
   const char *q, *scheme_end;
   char *out;

   if (strncmp (text, "mongodb://", 10) != 0 || !hosts || hosts->next)
      return text;
   direct = !mongoc_uri_has_option (parsed, MONGOC_URI_DIRECTCONNECTION) && !mongoc_uri_get_replica_set (parsed) &&
            !mongoc_uri_has_option (parsed, MONGOC_URI_LOADBALANCED);
   timeout = !mongoc_uri_has_option (parsed, MONGOC_URI_SERVERSELECTIONTIMEOUTMS);
   if (!direct && !timeout)
      return text;
   q = strchr (text, '?');
   scheme_end = text + 10;
   out = bson_strdup_printf ("%s%s%s%s%s%s", text, strchr (scheme_end, '/') ? "" : "/", q ? (q[1] ? "&" : "") : "?",
                             direct ? "directConnection=true" : "", direct && timeout ? "&" : "",
                             timeout ? "serverSelectionTimeoutMS=2000" : "");
   memset (text, 0, strlen (text));
   bson_free (text);
   return out;
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
   text = registry_uri_options (text, parsed);
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
   if (id == 0)
      return ctx->uri ? secret_redact_uri (ctx->uri) : NULL;
   if (!ctx->others || id < 1 || (size_t) id > ctx->others->n)
      return NULL;
   return secret_redact_uri (ctx->others->v[id - 1]->uri);
}

void
conn_registry_free (sh_ctx_t *ctx)
{
   if (!ctx->others)
      return;
   for (size_t i = 0; i < ctx->others->n; i++) {
      conn_destroy (ctx->others->v[i]);
      bson_free (ctx->others->v[i]->conn_name);
      bson_free (ctx->others->v[i]);
   }
   bson_free (ctx->others);
   ctx->others = NULL;
}
