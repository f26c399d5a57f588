/* Helpers shared by the shardsim-against-the-server tests (test_sim_fidelity*.c):
 * starting shardsim (fid_begin/fid_end: the start and clean-exit checks), running a command given as JSON, and reading
 * replies and config.* documents. */
#ifndef SHARDSH_FIDELITY_H
#define SHARDSH_FIDELITY_H

#include "tests/unit/simproc.h"
#include "tests/unit/unit.h"

/* Starts $BINDIR/shardsim with the extra arguments args (NULL-terminated). */
static inline bool
fid_start (sim_t *s, const char *const *args)
{
   char pf[256];
   snprintf (pf, sizeof pf, "/tmp/test_sim_fidelity.%d.port", (int) getpid ());
   return simproc_start (s, pf, args, 400, 25, "serverSelectionTimeoutMS=5000&socketTimeoutMS=60000");
}

/* fid_start; when shardsim does not start, fails the check "<pre>start", stops s and returns false. */
static inline bool
fid_begin (sim_t *s, const char *const *args, const char *pre)
{
   char name[96];
   if (fid_start (s, args))
      return true;
   snprintf (name, sizeof name, "%sstart", pre);
   UNIT_FAIL (name, "shardsim did not start (BINDIR=%s)", getenv ("BINDIR") ? getenv ("BINDIR") : "bin");
   sim_stop (s);
   return false;
}

/* Stops s and checks "<pre>clean exit": shardsim exited 0 on SIGTERM. */
static inline void
fid_end (sim_t *s, const char *pre)
{
   char name[96];
   int status = sim_stop (s);
   snprintf (name, sizeof name, "%sclean exit", pre);
   CHECK (name, WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

static inline int32_t
code_of (const bson_t *reply)
{
   bson_iter_t it;
   return bson_iter_init_find (&it, reply, "code")
             ? bson_iter_as_int64 (&it) > INT32_MAX ? -2 : (int32_t) bson_iter_as_int64 (&it)
             : -1;
}

static inline const char *
str_at (const bson_t *doc, const char *path)
{
   bson_iter_t it, d;
   if (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &d) && BSON_ITER_HOLDS_UTF8 (&d)) {
      return bson_iter_utf8 (&d, NULL);
   }
   return NULL;
}

static inline bool
has_at (const bson_t *doc, const char *path)
{
   bson_iter_t it, d;
   return bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &d);
}

static inline bool
bool_at (const bson_t *doc, const char *path)
{
   bson_iter_t it, d;
   return bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &d) && BSON_ITER_HOLDS_BOOL (&d) &&
          bson_iter_bool (&d);
}

/* The reply's errmsg (never NULL). */
static inline const char *
errmsg_of (const bson_t *reply)
{
   const char *m = str_at (reply, "errmsg");
   return m ? m : "";
}

/* Number of config.<coll> documents matching a JSON filter. */
static inline int64_t
count_config (sim_t *s, const char *coll, const char *filter)
{
   return simproc_count (s, "config", coll, filter);
}

/* Inserts n documents { _id: i, k: i, pad: 200 x } (i from first) into db.coll. */
static inline bool
insert_docs (sim_t *s, const char *db, const char *coll, int first, int n)
{
   char pad[201];
   memset (pad, 'x', 200);
   pad[200] = '\0';
   bool ok = true;
   for (int i = first; i < first + n && ok; i++) {
      char json[512];
      snprintf (json, sizeof json, "{\"insert\": \"%s\", \"documents\": [{\"_id\": %d, \"k\": %d, \"pad\": \"%s\"}]}",
                coll, i, i, pad);
      ok = simproc_run_ok (s, db, json);
   }
   return ok;
}

/* The shard of ns's chunk whose min.k is k (into out, size 64); false when there is none. ns is 5.0+ (uuid chunks)
 * or 4.4 (ns chunks): the chunk is looked up by min only, which is unique across the test's collections. */
static inline bool
chunk_shard (sim_t *s, const char *field, int k, char *out)
{
   bson_error_t err;
   char f[128];
   const bson_t *doc;
   bool found = false;
   snprintf (f, sizeof f, "{\"min.%s\": %d}", field, k);
   bson_t *filter = bson_new_from_json ((const uint8_t *) f, -1, &err);
   mongoc_collection_t *c = mongoc_client_get_collection (s->client, "config", "chunks");
   mongoc_cursor_t *cur = mongoc_collection_find_with_opts (c, filter, NULL, NULL);
   if (mongoc_cursor_next (cur, &doc) && str_at (doc, "shard")) {
      bson_strncpy (out, str_at (doc, "shard"), 64);
      found = true;
   }
   mongoc_cursor_destroy (cur);
   mongoc_collection_destroy (c);
   bson_destroy (filter);
   return found;
}

/* The first config.chunks document matching a JSON filter into out (always initialised); false when none. */
static inline bool
find_chunk (sim_t *s, const char *filter_json, bson_t *out)
{
   bson_error_t err;
   const bson_t *doc;
   bool found = false;
   bson_init (out);
   bson_t *filter = bson_new_from_json ((const uint8_t *) filter_json, -1, &err);
   mongoc_collection_t *c = mongoc_client_get_collection (s->client, "config", "chunks");
   mongoc_cursor_t *cur = mongoc_collection_find_with_opts (c, filter, NULL, NULL);
   if (mongoc_cursor_next (cur, &doc)) {
      bson_copy_to_excluding_noinit (doc, out, "", NULL);
      found = true;
   }
   mongoc_cursor_destroy (cur);
   mongoc_collection_destroy (c);
   bson_destroy (filter);
   return found;
}

/* ---- zones (items 1, 6, 10) ---- */

/* A command sent on its own client from a thread (pthread_create (&th, NULL, fid_bg_run, &bg)), so the test's
 * main client stays free to look at the operation while it runs: set port, db and cmd (borrowed) and t0
 * (bson_get_monotonic_time ()); after pthread_join, ok, code (code_of the reply) and done_ms (when it replied,
 * milliseconds from t0). */
typedef struct {
   int port;
   const char *db;
   const bson_t *cmd;
   int64_t t0;
   bool ok;
   int32_t code;
   int64_t done_ms;
} fid_bg_t;

static inline void *
fid_bg_run (void *arg)
{
   fid_bg_t *r = arg;
   mongoc_client_t *c = simproc_client (r->port, "serverSelectionTimeoutMS=5000&socketTimeoutMS=60000");
   bson_t reply;
   r->ok = c && mongoc_client_command_simple (c, r->db, r->cmd, NULL, &reply, NULL);
   r->done_ms = (bson_get_monotonic_time () - r->t0) / 1000;
   r->code = c ? code_of (&reply) : -1;
   if (c)
      bson_destroy (&reply);
   mongoc_client_destroy (c);
   return NULL;
}

#endif
