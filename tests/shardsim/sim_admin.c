/* shardsim's sharding administration, shared part: the small document readers, the config.* upserts and the
 * argument checks the command families (sim_chunk.c … sim_analyze.c) use. Callers hold sim_g.lock. */
#include "tests/shardsim/sim_admin.h"
#include "tests/shardsim/query/simq_int.h"

#include "shell/lib/hashkey.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* True when some index of coll (which may be NULL) has a key that starts with the fields of key, in order: the
 * supporting index the server requires for a shard key. With same_kind, each field must also be of the same kind
 * (hashed, written as a string, or ranged). */
bool
sim_has_prefix_index (const sim_coll_t *coll, const bson_t *key, bool same_kind)
{
   for (size_t i = 0; coll && i < coll->indexes.n; i++) {
      bson_t ik;
      bson_iter_t a, b;
      bool prefix = true;
      if (!docget_sub (coll->indexes.v[i], "key", BSON_TYPE_EOD, &ik)) {
         continue;
      }
      bson_iter_init (&a, key);
      bson_iter_init (&b, &ik);
      while (prefix && bson_iter_next (&a)) {
         prefix = bson_iter_next (&b) && !strcmp (bson_iter_key (&a), bson_iter_key (&b)) &&
                  (!same_kind || BSON_ITER_HOLDS_UTF8 (&a) == BSON_ITER_HOLDS_UTF8 (&b));
      }
      if (prefix) {
         return true;
      }
   }
   return false;
}

bool
sim_has (const bson_t *doc, const char *field)
{
   bson_iter_t it;
   return bson_iter_init_find (&it, doc, field) && !BSON_ITER_HOLDS_NULL (&it);
}

/* Whether a config.collections document forbids migrations (setAllowMigrations false): permitMigrations from 5.0,
 * allowMigrations in 4.4. */
bool
sim_migrations_forbidden (const bson_t *coll_doc)
{
   bson_iter_t it;
   return (bson_iter_init_find (&it, coll_doc, "permitMigrations") && !bson_iter_as_bool (&it)) ||
          (bson_iter_init_find (&it, coll_doc, "allowMigrations") && !bson_iter_as_bool (&it));
}

/* Copies doc into out with the fields of set replaced in place (or appended) and the fields named in unset (a
 * NULL-terminated list, may be NULL) removed. */
void
sim_doc_set (const bson_t *doc, const bson_t *set, const char *const *unset, bson_t *out)
{
   bson_iter_t it, s;
   bson_init (out);
   bson_iter_init (&it, doc);
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      bool drop = false;
      for (int i = 0; unset && unset[i]; i++) {
         drop = drop || !strcmp (unset[i], k);
      }
      if (drop) {
         continue;
      }
      if (set && bson_iter_init_find (&s, set, k)) {
         bson_append_value (out, k, -1, bson_iter_value (&s));
      } else {
         bson_append_value (out, k, -1, bson_iter_value (&it));
      }
   }
   if (set) {
      bson_iter_init (&s, set);
      while (bson_iter_next (&s)) {
         if (!bson_iter_init_find (&it, doc, bson_iter_key (&s))) {
            bson_append_value (out, bson_iter_key (&s), -1, bson_iter_value (&s));
         }
      }
   }
}

/* Finds the document of coll whose _id is the string id. */
bool
sim_find_by_sid (sim_coll_t *coll, const char *id, sim_pos_t *pos)
{
   for (size_t p = 0; coll && p < coll->nparts; p++) {
      for (size_t i = 0; i < coll->parts[p].docs.n; i++) {
         bson_t view;
         sim_pos_t at = { p, i };
         sim_coll_view (coll, at, &view);
         const char *s = docget_utf8 (&view, "_id", NULL);
         if (s && !strcmp (s, id)) {
            *pos = at;
            return true;
         }
      }
   }
   return false;
}

bool
sim_setting_view (const char *id, bson_t *view)
{
   sim_coll_t *settings = sim_coll_get ("config", "settings");
   sim_pos_t pos;
   if (!settings || !sim_find_by_sid (settings, id, &pos)) {
      return false;
   }
   sim_coll_view (settings, pos, view);
   return true;
}

/* Applies set/unset to the document with string _id id in config.<name>; upserts { _id: id, …set } when absent
 * and upsert is true. */
void
sim_config_update (const char *name, const char *id, const bson_t *set, const char *const *unset, bool upsert)
{
   sim_coll_t *coll = sim_coll_ensure ("config", name);
   sim_pos_t pos;
   bson_t out;
   if (sim_find_by_sid (coll, id, &pos)) {
      bson_t view;
      sim_coll_view (coll, pos, &view);
      sim_doc_set (&view, set, unset, &out);
      sim_coll_replace (coll, pos, &out);
      bson_destroy (&out);
   } else if (upsert) {
      bson_t base = BSON_INITIALIZER;
      BSON_APPEND_UTF8 (&base, "_id", id);
      sim_doc_set (&base, set, unset, &out);
      sim_coll_insert (coll, &out);
      bson_destroy (&out);
      bson_destroy (&base);
   }
}

/* Splits "db.coll"; false when it is not a valid namespace. */
bool
sim_split_ns (const char *ns, char *db, size_t dblen, const char **coll)
{
   const char *dot = ns ? strchr (ns, '.') : NULL;
   if (!dot || dot == ns || !dot[1] || (size_t) (dot - ns) >= dblen) {
      return false;
   }
   memcpy (db, ns, (size_t) (dot - ns));
   db[dot - ns] = '\0';
   *coll = dot + 1;
   return strpbrk (db, " /\\\"$") == NULL;
}

void
sim_admin_error (bson_t *reply, const bson_error_t *err)
{
   sim_reply_error (reply, (int) err->code, "%s", err->message);
}

const char *
sim_first_string (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   if (!BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 14, "BSON field '%s.%s' is the wrong type '%s', expected type 'string'", ctx->name,
                       ctx->name, BSON_ITER_HOLDS_NUMBER (&it) ? "int" : "object");
      return NULL;
   }
   return bson_iter_utf8 (&it, NULL);
}

/* The namespace named by the command's first field; NULL (error replied) when it is invalid. */
const char *
sim_first_ns (sim_ctx_t *ctx, bson_t *reply)
{
   const char *ns = sim_first_string (ctx, reply);
   char db[128];
   const char *coll;
   if (ns && !sim_split_ns (ns, db, sizeof db, &coll)) {
      sim_reply_error (reply, 73, "Invalid namespace specified '%s'", ns);
      return NULL;
   }
   return ns;
}

void
sim_not_sharded (bson_t *reply, const char *ns)
{
   sim_reply_error (reply, 118, "Collection %s is not sharded.", ns);
}

/* FieldParser::extract's error for a field of the wrong type: "wrong type for 'F' field, expected T, found
 * <BSONElement::toString>". */
bool
sim_field_type_ok (const bson_t *cmd, const char *field, bool want_array, bson_t *reply)
{
   bson_iter_t it;
   if (!bson_iter_init_find (&it, cmd, field)) {
      return true;
   }
   /* A BSONObj field takes any embedded object (isABSONObj: documents and arrays), a BSONArray field arrays only. */
   if (BSON_ITER_HOLDS_ARRAY (&it) || (!want_array && BSON_ITER_HOLDS_DOCUMENT (&it))) {
      return true;
   }
   bson_t one = BSON_INITIALIZER;
   bson_append_iter (&one, field, -1, &it);
   char *j = sim_bson_str (&one);
   size_t n = strlen (j);
   /* "{ f: v }" -> "f: v" */
   if (n >= 4 && j[0] == '{' && j[n - 1] == '}') {
      j[n - 2] = '\0';
   }
   sim_reply_error (reply, 0, "wrong type for '%s' field, expected %s, found %s", field,
                    want_array ? "array" : "object", n >= 4 ? j + 2 : j);
   bson_free (j);
   bson_destroy (&one);
   return false;
}

/* Whether cmd's field is a non-empty document or array (FieldParser's default {} / [] counts as absent). */
bool
sim_nonempty (const bson_t *cmd, const char *field)
{
   bson_t sub;
   return docget_sub (cmd, field, BSON_TYPE_EOD, &sub) && !bson_empty (&sub);
}

bool
sim_generic_arg (const char *k)
{
   static const char *generic[] = { "$db",        "lsid",      "$clusterTime",         "$readPreference",
                                    "comment",    "maxTimeMS", "readConcern",          "writeConcern",
                                    "apiVersion", "apiStrict", "apiDeprecationErrors", "txnNumber",
                                    NULL };
   for (int i = 0; generic[i]; i++) {
      if (!strcmp (generic[i], k)) {
         return true;
      }
   }
   return false;
}
