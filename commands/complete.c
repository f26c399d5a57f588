/* Live values for Tab completion: namespaces (config.collections), shard names (config.shards), zone names (the
 * shards' tags), database names (listDatabases) and collection names (listCollections), read from the connected
 * cluster and kept for 30 seconds so repeated Tabs send nothing. Never connects: before the first command has
 * reached the server there is nothing to complete. */
#include <string.h>
#include <time.h>

#include "commands/table.h"
#include "commands/complete.h"

#define COMPLETE_TTL_SECONDS 30

typedef struct {
   char kind[16];
   char *db; /* owned */
   time_t at;
   bson_t values; /* array of strings */
   bool valid;
} complete_cache_t;

/* The session's cache (ctx->session.complete): the last five lists asked for. */
struct cmd_complete_cache {
   complete_cache_t slot[5];
};

/* Appends the string at path of every document in docs to values (skipping repeats). */
static void
collect (const bson_t *docs, const char *path, bool array, bson_t *values, uint32_t *n)
{
   bson_iter_t it, f, a;
   bson_iter_init (&it, docs);
   while (bson_iter_next (&it)) {
      if (!BSON_ITER_HOLDS_DOCUMENT (&it) || !bson_iter_recurse (&it, &f) || !bson_iter_find (&f, path))
         continue;
      if (array && BSON_ITER_HOLDS_ARRAY (&f) && bson_iter_recurse (&f, &a)) {
         while (bson_iter_next (&a)) {
            if (BSON_ITER_HOLDS_UTF8 (&a)) {
               bool seen = false;
               bson_iter_t v;
               bson_iter_init (&v, values);
               while (!seen && bson_iter_next (&v))
                  seen = !strcmp (bson_iter_utf8 (&v, NULL), bson_iter_utf8 (&a, NULL));
               if (!seen) {
                  char key[16];
                  const char *k;
                  bson_uint32_to_string ((*n)++, &k, key, sizeof key);
                  BSON_APPEND_UTF8 (values, k, bson_iter_utf8 (&a, NULL));
               }
            }
         }
      } else if (!array && BSON_ITER_HOLDS_UTF8 (&f)) {
         char key[16];
         const char *k;
         bson_uint32_to_string ((*n)++, &k, key, sizeof key);
         BSON_APPEND_UTF8 (values, k, bson_iter_utf8 (&f, NULL));
      }
   }
}

const bson_t *
cmd_complete_values (sh_ctx_t *ctx, const char *kind, const char *db)
{
   complete_cache_t *slot = NULL;
   bson_t *cmd = NULL, docs = BSON_INITIALIZER;
   const bson_t *values = NULL;
   sh_error_t err;
   const char *run_db = "config", *path = "_id";
   bool array = false;
   uint32_t n = 0;
   time_t now = time (NULL);

   if (!ctx->client || (ctx->opts && ctx->opts->dry_run) || !kind || !*kind || strlen (kind) >= sizeof slot->kind)
      goto done;
   if (!db)
      db = "";
   if (!ctx->session.complete)
      ctx->session.complete = bson_malloc0 (sizeof *ctx->session.complete);
   complete_cache_t *cache = ctx->session.complete->slot;
   const size_t n_cache = sizeof ctx->session.complete->slot / sizeof cache[0];
   for (size_t i = 0; i < n_cache; i++) {
      complete_cache_t *c = &cache[i];
      if (c->valid && !strcmp (c->kind, kind) && !strcmp (c->db, db) && now - c->at < COMPLETE_TTL_SECONDS) {
         values = &c->values;
         goto done;
      }
   }
   /* a free slot, else the oldest */
   for (size_t i = 0; i < n_cache; i++) {
      complete_cache_t *c = &cache[i];
      if (!c->valid) {
         slot = c;
         break;
      }
      if (!slot || c->at < slot->at)
         slot = c;
   }
   if (!strcmp (kind, "ns")) {
      cmd = BCON_NEW ("find", BCON_UTF8 ("collections"), "filter", "{", "dropped", "{", "$ne", BCON_BOOL (true), "}",
                      "}", "projection", "{", "_id", BCON_INT32 (1), "}");
   } else if (!strcmp (kind, "shard") || !strcmp (kind, "zone")) {
      cmd = BCON_NEW ("find", BCON_UTF8 ("shards"), "filter", "{", "}", "projection", "{", "_id", BCON_INT32 (1),
                      "tags", BCON_INT32 (1), "}");
      if (!strcmp (kind, "zone")) {
         path = "tags";
         array = true;
      }
   } else if (!strcmp (kind, "coll")) {
      cmd = BCON_NEW ("listCollections", BCON_INT32 (1), "nameOnly", BCON_BOOL (true));
      run_db = db;
      path = "name";
   } else if (!strcmp (kind, "db")) {
      /* listDatabases is not a cursor command: the names come from config.databases */
      cmd =
         BCON_NEW ("find", BCON_UTF8 ("databases"), "filter", "{", "}", "projection", "{", "_id", BCON_INT32 (1), "}");
   } else {
      goto done;
   }
   sh_error_clear (&err);
   bson_destroy (&docs);
   if (!conn_run_docs (ctx, run_db, cmd, CONN_READ, 1000, &docs, NULL, &err))
      goto done;
   if (slot->valid)
      bson_destroy (&slot->values);
   bson_init (&slot->values);
   collect (&docs, path, array, &slot->values, &n);
   bson_strncpy (slot->kind, kind, sizeof slot->kind);
   bson_free (slot->db);
   slot->db = bson_strdup (db);
   slot->at = now;
   slot->valid = true;
   values = &slot->values;
done:
   bson_destroy (&docs);
   if (cmd)
      bson_destroy (cmd);
   return values;
}

void
cmd_complete_reset (sh_ctx_t *ctx)
{
   struct cmd_complete_cache *cc = ctx->session.complete;
   if (!cc)
      return;
   for (size_t i = 0; i < sizeof cc->slot / sizeof cc->slot[0]; i++) {
      if (cc->slot[i].valid)
         bson_destroy (&cc->slot[i].values);
      bson_free (cc->slot[i].db);
   }
   bson_free (cc);
   ctx->session.complete = NULL;
}

const char *
cmd_arg_kind (const sh_cmd_t *cmd, int index, char *buf, size_t len)
{
   const char *p = cmd ? cmd->arg_kinds : NULL;
   for (int i = 0; p && i < index; i++) {
      p = strchr (p, ',');
      if (p)
         p++;
   }
   if (!p)
      return NULL;
   bson_strncpy (buf, p, len);
   buf[strcspn (buf, ",")] = '\0';
   return buf;
}
