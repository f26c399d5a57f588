/* The fidelity rows' reading and their expectations (tests/unit/fidelity/README.md): one version's run of a row
 * file (fr_run_t), the helpers that read a row, and every expectation a check can hold of the reply and of the config
 * documents that follow. Included by test_sim_fidelity_rows.c only, which runs the rows. */
#ifndef SHARDSH_FIDELITY_ROWS_H
#define SHARDSH_FIDELITY_ROWS_H

#include <pthread.h>
#include <stdlib.h>

#include "tests/unit/fidelity.h"

/* One version's run of a file: the simulator, the last reply a check ran and the idle clients rows opened. */
typedef struct {
   sim_t sim;
   const char *version;
   bson_t last;
   bool last_ok;
   mongoc_client_t *idle[4];
   int nidle;
   bson_t marks;    /* { <name>: <value> }: what "mark" steps saved (a count, a number, an ObjectId …) */
   bool waited;     /* what the last "wait" step saw */
   int64_t took_ms; /* how long the last check's command took */
   bson_t *bg_cmd;  /* the background command while one runs ("bg" step, joined by a check's "join") */
   fid_bg_t bg;
   pthread_t bg_thread;
   bool bg_running;
} fr_run_t;

static double
fr_mark (const fr_run_t *r, const char *name);

/* The string at key of row, or dflt. */
static const char *
fr_str (const bson_t *row, const char *key, const char *dflt)
{
   bson_iter_t it;
   return bson_iter_init_find (&it, row, key) && BSON_ITER_HOLDS_UTF8 (&it) ? bson_iter_utf8 (&it, NULL) : dflt;
}

/* The document or array at key of row into out (static, borrowed from row); false when absent. */
static bool
fr_doc (const bson_t *row, const char *key, bson_t *out)
{
   bson_iter_t it;
   uint32_t len;
   const uint8_t *data;
   if (!bson_iter_init_find (&it, row, key) || !(BSON_ITER_HOLDS_DOCUMENT (&it) || BSON_ITER_HOLDS_ARRAY (&it)))
      return false;
   if (BSON_ITER_HOLDS_DOCUMENT (&it))
      bson_iter_document (&it, &len, &data);
   else
      bson_iter_array (&it, &len, &data);
   return bson_init_static (out, data, len);
}

/* Whether row applies to version: no "v", or "v" lists it. */
static bool
fr_applies (const bson_t *row, const char *version)
{
   bson_t vs;
   bson_iter_t it;
   if (!fr_doc (row, "v", &vs))
      return true;
   bson_iter_init (&it, &vs);
   while (bson_iter_next (&it))
      if (BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), version))
         return true;
   return false;
}

/* Finds path in doc into out: dotted keys, where a "$first" segment stands for the first key of its document. */
static bool
fr_find (const bson_t *doc, const char *path, bson_iter_t *out)
{
   char buf[512], *save = NULL, *seg;
   bson_iter_t it, child;
   bson_strncpy (buf, path, sizeof buf);
   if (!bson_iter_init (&it, doc))
      return false;
   bool first = true;
   for (seg = strtok_r (buf, ".", &save); seg; seg = strtok_r (NULL, ".", &save)) {
      if (!first) {
         if (!(BSON_ITER_HOLDS_DOCUMENT (&it) || BSON_ITER_HOLDS_ARRAY (&it)) || !bson_iter_recurse (&it, &child))
            return false;
         it = child;
      }
      first = false;
      if (!strcmp (seg, "$first") ? !bson_iter_next (&it) : !bson_iter_find (&it, seg))
         return false;
   }
   *out = it;
   return !first;
}

/* Runs cmd on db; reply always initialised. */
static bool
fr_command (fr_run_t *r, const char *db, const bson_t *cmd, bson_t *reply)
{
   bson_error_t err;
   return mongoc_client_command_simple (r->sim.client, db, cmd, NULL, reply, &err);
}

/* Appends to why (size len) one failed expectation. */
static void
fr_why (char *why, size_t len, const char *fmt, const char *a, const char *b)
{
   size_t used = strlen (why);
   if (used + 4 < len)
      snprintf (why + used, len - used, used ? "; " : "");
   used = strlen (why);
   if (used < len)
      snprintf (why + used, len - used, fmt, a ? a : "(null)", b ? b : "(null)");
}

/* Whether the value it points at equals want (a string, a bool, null, or a number compared as an integer the way
 * the C checks read them: bson_iter_as_int64, or as a double when want is one). */
static bool
fr_value_is (const bson_iter_t *it, const bson_iter_t *want)
{
   switch (bson_iter_type (want)) {
   case BSON_TYPE_UTF8:
      return BSON_ITER_HOLDS_UTF8 (it) && !strcmp (bson_iter_utf8 (it, NULL), bson_iter_utf8 (want, NULL));
   case BSON_TYPE_BOOL:
      return BSON_ITER_HOLDS_BOOL (it) && bson_iter_bool (it) == bson_iter_bool (want);
   case BSON_TYPE_NULL:
      return BSON_ITER_HOLDS_NULL (it);
   case BSON_TYPE_DOUBLE:
      return BSON_ITER_HOLDS_NUMBER (it) && bson_iter_as_double (it) == bson_iter_double (want);
   default:
      return BSON_ITER_HOLDS_NUMBER (it) && BSON_ITER_HOLDS_NUMBER (want) &&
             bson_iter_as_int64 (it) == bson_iter_as_int64 (want);
   }
}

/* Whether two values of one type are the same (ObjectId, Timestamp, or as fr_value_is). */
static bool
fr_same_value (const bson_iter_t *a, const bson_iter_t *b)
{
   if (BSON_ITER_HOLDS_OID (a))
      return bson_oid_equal (bson_iter_oid (a), bson_iter_oid (b));
   if (BSON_ITER_HOLDS_TIMESTAMP (a)) {
      uint32_t t1, i1, t2, i2;
      bson_iter_timestamp (a, &t1, &i1);
      bson_iter_timestamp (b, &t2, &i2);
      return t1 == t2 && i1 == i2;
   }
   return fr_value_is (a, b);
}

/* The number of elements of the array at path of doc, -1 when it is not an array. */
static int64_t
fr_len (const bson_t *doc, const char *path)
{
   bson_iter_t it, d, a;
   int64_t n = 0;
   if (!bson_iter_init (&it, doc) || !bson_iter_find_descendant (&it, path, &d) || !BSON_ITER_HOLDS_ARRAY (&d) ||
       !bson_iter_recurse (&d, &a))
      return -1;
   while (bson_iter_next (&a))
      n++;
   return n;
}

/* The strings of a string-or-array field of expect, one by one through fn; false when one fails. */
static bool
fr_each_str (const bson_t *expect, const char *key, const char *subject, bool want, char *why, size_t len)
{
   bson_iter_t it, a;
   bool ok = true;
   if (!bson_iter_init_find (&it, expect, key))
      return true;
   if (BSON_ITER_HOLDS_UTF8 (&it)) {
      bool found = strstr (subject, bson_iter_utf8 (&it, NULL)) != NULL;
      if (found != want)
         fr_why (why, len, want ? "no [%s] in [%s]" : "[%s] in [%s]", bson_iter_utf8 (&it, NULL), subject);
      return found == want;
   }
   if (!BSON_ITER_HOLDS_ARRAY (&it) || !bson_iter_recurse (&it, &a))
      return false;
   while (bson_iter_next (&a)) {
      bool found = BSON_ITER_HOLDS_UTF8 (&a) && strstr (subject, bson_iter_utf8 (&a, NULL)) != NULL;
      if (found != want) {
         fr_why (why, len, want ? "no [%s] in [%s]" : "[%s] in [%s]",
                 BSON_ITER_HOLDS_UTF8 (&a) ? bson_iter_utf8 (&a, NULL) : "?", subject);
         ok = false;
      }
   }
   return ok;
}

/* The reply's expectations: ok, code (-1: none), errmsg (exact), errmsg~ (contains), errmsg^ (starts with), at
 * ({path: value}), has / hasnt (paths), json~ / json!~ (the reply as relaxed JSON contains), len / minlen ({path:
 * n}: an array's length), firstkey. */
static bool
fr_expect_reply (const fr_run_t *r, const bson_t *expect, char *why, size_t len)
{
   bson_iter_t it, e, d;
   bson_t sub;
   bool ok = true;
   const bson_t *reply = &r->last;
   const char *msg = errmsg_of (reply);
   char num[32];
   if (bson_iter_init_find (&it, expect, "ok") && bson_iter_as_bool (&it) != r->last_ok) {
      fr_why (why, len, "ok is %s, not %s", r->last_ok ? "true" : "false", bson_iter_as_bool (&it) ? "true" : "false");
      ok = false;
   }
   if (bson_iter_init_find (&it, expect, "code") && code_of (reply) != bson_iter_as_int64 (&it)) {
      snprintf (num, sizeof num, "%d", code_of (reply));
      fr_why (why, len, "code %s%s", num, "");
      ok = false;
   }
   if (fr_str (expect, "errmsg", NULL) && strcmp (msg, fr_str (expect, "errmsg", ""))) {
      fr_why (why, len, "errmsg [%s], expected [%s]", msg, fr_str (expect, "errmsg", ""));
      ok = false;
   }
   if (fr_str (expect, "errmsg^", NULL) &&
       strncmp (msg, fr_str (expect, "errmsg^", ""), strlen (fr_str (expect, "errmsg^", "")))) {
      fr_why (why, len, "errmsg [%s] does not start with [%s]", msg, fr_str (expect, "errmsg^", ""));
      ok = false;
   }
   ok = fr_each_str (expect, "errmsg~", msg, true, why, len) && ok;
   if (bson_iter_init_find (&it, expect, "json~") || bson_iter_init_find (&it, expect, "json!~")) {
      char *j = bson_as_relaxed_extended_json (reply, NULL);
      ok = fr_each_str (expect, "json~", j ? j : "", true, why, len) && ok;
      ok = fr_each_str (expect, "json!~", j ? j : "", false, why, len) && ok;
      bson_free (j);
   }
   if (fr_doc (expect, "at", &sub) && bson_iter_init (&e, &sub)) {
      while (bson_iter_next (&e)) {
         bson_t m;
         bson_iter_t mv;
         const char *mark = fr_doc (&sub, bson_iter_key (&e), &m) ? fr_str (&m, "$mark", NULL) : NULL;
         bool same;
         if (mark) /* {"$mark": name}: the value a mark step saved, same type and bytes */
            same = fr_find (reply, bson_iter_key (&e), &d) && bson_iter_init_find (&mv, &r->marks, mark) &&
                   bson_iter_type (&d) == bson_iter_type (&mv) && fr_same_value (&d, &mv);
         else
            same = fr_find (reply, bson_iter_key (&e), &d) && fr_value_is (&d, &e);
         if (!same) {
            fr_why (why, len, "%s is not as expected%s", bson_iter_key (&e), "");
            ok = false;
         }
      }
   }
   for (int pass = 0; pass < 2; pass++) {
      if (fr_doc (expect, pass ? "hasnt" : "has", &sub) && bson_iter_init (&e, &sub)) {
         while (bson_iter_next (&e)) {
            const char *path = BSON_ITER_HOLDS_UTF8 (&e) ? bson_iter_utf8 (&e, NULL) : "";
            if (fr_find (reply, path, &d) == (pass == 1)) {
               fr_why (why, len, pass ? "%s is there%s" : "%s is missing%s", path, "");
               ok = false;
            }
         }
      }
   }
   for (int pass = 0; pass < 2; pass++) {
      if (fr_doc (expect, pass ? "minlen" : "len", &sub) && bson_iter_init (&e, &sub)) {
         while (bson_iter_next (&e)) {
            int64_t n = fr_len (reply, bson_iter_key (&e)), want = bson_iter_as_int64 (&e);
            if (pass ? n < want : n != want) {
               snprintf (num, sizeof num, "%" PRId64, n);
               fr_why (why, len, "%s has %s elements", bson_iter_key (&e), num);
               ok = false;
            }
         }
      }
   }
   if (fr_str (expect, "firstkey", NULL) && !(bson_iter_init (&it, reply) && bson_iter_next (&it) &&
                                              !strcmp (bson_iter_key (&it), fr_str (expect, "firstkey", "")))) {
      fr_why (why, len, "the first key is not %s%s", fr_str (expect, "firstkey", ""), "");
      ok = false;
   }
   return ok;
}

/* The BSON type name the rows use for a value: int32, int64, double, bool, string, date, object, array, null. */
static const char *
fr_type_name (const bson_iter_t *it)
{
   switch (bson_iter_type (it)) {
   case BSON_TYPE_INT32:
      return "int32";
   case BSON_TYPE_INT64:
      return "int64";
   case BSON_TYPE_DOUBLE:
      return "double";
   case BSON_TYPE_BOOL:
      return "bool";
   case BSON_TYPE_UTF8:
      return "string";
   case BSON_TYPE_DATE_TIME:
      return "date";
   case BSON_TYPE_DOCUMENT:
      return "object";
   case BSON_TYPE_ARRAY:
      return "array";
   case BSON_TYPE_NULL:
      return "null";
   default:
      return "other";
   }
}

/* The rest of a reply's expectations: type ({path: type name or "absent"}), gt ({path: number}: a number above it),
 * sum ({path: [paths]}: a number equal to theirs added), prefix ({path: text}: a string starting with it), nottrue
 * ([paths]: absent, not a bool, or false), waited (the last wait step's result), bg ({ok, code}: the joined
 * background command's). */
static bool
fr_expect_more (const fr_run_t *r, const bson_t *expect, char *why, size_t len)
{
   bson_iter_t e, d, p, it;
   bson_t sub, paths;
   bool ok = true;
   if (fr_doc (expect, "type", &sub) && bson_iter_init (&e, &sub)) {
      while (bson_iter_next (&e)) {
         const char *want = BSON_ITER_HOLDS_UTF8 (&e) ? bson_iter_utf8 (&e, NULL) : "";
         const char *got = fr_find (&r->last, bson_iter_key (&e), &d) ? fr_type_name (&d) : "absent";
         if (strcmp (want, got)) {
            fr_why (why, len, "%s is of type %s", bson_iter_key (&e), got);
            ok = false;
         }
      }
   }
   if (fr_doc (expect, "gt", &sub) && bson_iter_init (&e, &sub)) {
      while (bson_iter_next (&e)) {
         if (!fr_find (&r->last, bson_iter_key (&e), &d) || !BSON_ITER_HOLDS_NUMBER (&d) ||
             !(bson_iter_as_double (&d) > bson_iter_as_double (&e))) {
            fr_why (why, len, "%s is not above the bound%s", bson_iter_key (&e), "");
            ok = false;
         }
      }
   }
   if (fr_doc (expect, "sum", &sub) && bson_iter_init (&e, &sub)) {
      while (bson_iter_next (&e)) {
         double total = 0;
         bool found = fr_find (&r->last, bson_iter_key (&e), &d) && BSON_ITER_HOLDS_NUMBER (&d);
         if (fr_doc (&sub, bson_iter_key (&e), &paths) && bson_iter_init (&p, &paths)) {
            while (bson_iter_next (&p)) {
               if (!BSON_ITER_HOLDS_UTF8 (&p) || !fr_find (&r->last, bson_iter_utf8 (&p, NULL), &it) ||
                   !BSON_ITER_HOLDS_NUMBER (&it))
                  found = false;
               else
                  total += bson_iter_as_double (&it);
            }
         }
         if (!found || bson_iter_as_double (&d) != total) {
            fr_why (why, len, "%s is not the sum%s", bson_iter_key (&e), "");
            ok = false;
         }
      }
   }
   if (fr_doc (expect, "prefix", &sub) && bson_iter_init (&e, &sub)) {
      while (bson_iter_next (&e)) {
         const char *want = BSON_ITER_HOLDS_UTF8 (&e) ? bson_iter_utf8 (&e, NULL) : "";
         if (!fr_find (&r->last, bson_iter_key (&e), &d) || !BSON_ITER_HOLDS_UTF8 (&d) ||
             strncmp (bson_iter_utf8 (&d, NULL), want, strlen (want))) {
            fr_why (why, len, "%s does not start with %s", bson_iter_key (&e), want);
            ok = false;
         }
      }
   }
   if (fr_doc (expect, "nottrue", &sub) && bson_iter_init (&e, &sub)) {
      while (bson_iter_next (&e)) {
         const char *path = BSON_ITER_HOLDS_UTF8 (&e) ? bson_iter_utf8 (&e, NULL) : "";
         if (fr_find (&r->last, path, &d) && BSON_ITER_HOLDS_BOOL (&d) && bson_iter_bool (&d)) {
            fr_why (why, len, "%s is true%s", path, "");
            ok = false;
         }
      }
   }
   if (bson_iter_init_find (&e, expect, "waited") && bson_iter_as_bool (&e) != r->waited) {
      fr_why (why, len, "the wait %s%s", r->waited ? "ended" : "timed out", "");
      ok = false;
   }
   if (fr_doc (expect, "marks_pos", &sub) && bson_iter_init (&e, &sub)) {
      while (bson_iter_next (&e)) {
         if (!BSON_ITER_HOLDS_UTF8 (&e) || !(fr_mark (r, bson_iter_utf8 (&e, NULL)) > 0)) {
            fr_why (why, len, "mark %s is not above 0%s", BSON_ITER_HOLDS_UTF8 (&e) ? bson_iter_utf8 (&e, NULL) : "?",
                    "");
            ok = false;
         }
      }
   }
   if (bson_iter_init_find (&e, expect, "took_lt") && r->took_ms >= bson_iter_as_int64 (&e)) {
      char num[32];
      bson_snprintf (num, sizeof num, "%" PRId64, r->took_ms);
      fr_why (why, len, "the command took %s ms%s", num, "");
      ok = false;
   }
   if (fr_doc (expect, "bg", &sub)) {
      if ((bson_iter_init_find (&e, &sub, "ok") && bson_iter_as_bool (&e) != r->bg.ok) ||
          (bson_iter_init_find (&e, &sub, "code") && bson_iter_as_int64 (&e) != r->bg.code) ||
          (bson_iter_init_find (&e, &sub, "done_lt") && r->bg.done_ms >= bson_iter_as_int64 (&e)) ||
          (bson_iter_init_find (&e, &sub, "done_gt") && r->bg.done_ms <= bson_iter_as_int64 (&e))) {
         fr_why (why, len, "the background command ended %s%s", r->bg.ok ? "ok" : "in an error", "");
         ok = false;
      }
   }
   return ok;
}

/* The number the first document of {db (config), coll, filter} holds at path (a date as milliseconds; a path ending
 * in ".$t" or ".$i": that part of the timestamp there), into out; has_path says whether the path is there. False when
 * there is no such document or number. */
static bool
fr_find_doc_num (fr_run_t *r, const bson_t *spec, bool *has_path, double *out, bson_t *raw, const char *raw_key)
{
   bson_t filter;
   const bson_t *doc;
   bson_iter_t it;
   bool found = false;
   if (!fr_doc (spec, "filter", &filter))
      bson_init (&filter);
   bson_t sort, opts = BSON_INITIALIZER;
   if (fr_doc (spec, "sort", &sort))
      BSON_APPEND_DOCUMENT (&opts, "sort", &sort);
   mongoc_collection_t *c =
      mongoc_client_get_collection (r->sim.client, fr_str (spec, "db", "config"), fr_str (spec, "coll", ""));
   mongoc_cursor_t *cur = mongoc_collection_find_with_opts (c, &filter, &opts, NULL);
   bson_destroy (&opts);
   char path[256];
   const char *part = NULL; /* "$t" or "$i": that part of a timestamp */
   bson_strncpy (path, fr_str (spec, "path", ""), sizeof path);
   size_t pl = strlen (path);
   if (pl > 3 && (!strcmp (path + pl - 3, ".$t") || !strcmp (path + pl - 3, ".$i"))) {
      part = path + pl - 2;
      path[pl - 3] = '\0';
   }
   *has_path = false;
   if (mongoc_cursor_next (cur, &doc) && fr_find (doc, path, &it)) {
      *has_path = true;
      if (raw && !part)
         bson_append_iter (raw, raw_key, -1, &it);
      if (part && BSON_ITER_HOLDS_TIMESTAMP (&it)) {
         uint32_t t, i;
         bson_iter_timestamp (&it, &t, &i);
         *out = part[1] == 't' ? (double) t : (double) i;
         found = true;
      } else if (part) {
         found = false;
      } else if (BSON_ITER_HOLDS_DATE_TIME (&it)) {
         *out = (double) bson_iter_date_time (&it);
         found = true;
      } else if (BSON_ITER_HOLDS_NUMBER (&it)) {
         *out = bson_iter_as_double (&it);
         found = true;
      }
   }
   mongoc_cursor_destroy (cur);
   mongoc_collection_destroy (c);
   return found;
}

/* The number saved under name by a mark step (0 when none). */
static double
fr_mark (const fr_run_t *r, const char *name)
{
   bson_iter_t it;
   if (!name || !bson_iter_init_find (&it, &r->marks, name))
      return 0;
   return BSON_ITER_HOLDS_DATE_TIME (&it) ? (double) bson_iter_date_time (&it)
          : BSON_ITER_HOLDS_NUMBER (&it)  ? bson_iter_as_double (&it)
                                          : 0;
}

/* find: [{db (config), coll, filter, sort, path, same | mark | is | gt | exists}]: the first matching document's value
 * at path is the very value a mark saved (same), equals a numeric mark (and is above 0), equals is, is above gt,
 * and/or the path is there (exists: true) or not (false). */
static bool
fr_expect_find (fr_run_t *r, const bson_t *expect, char *why, size_t len)
{
   bson_t list, spec;
   bson_iter_t it, f;
   bool ok = true;
   if (!fr_doc (expect, "find", &list) || !bson_iter_init (&it, &list))
      return true;
   while (bson_iter_next (&it)) {
      uint32_t l;
      const uint8_t *data;
      double v = 0;
      bool has = false, good = true;
      if (!BSON_ITER_HOLDS_DOCUMENT (&it))
         continue;
      bson_iter_document (&it, &l, &data);
      bson_init_static (&spec, data, l);
      bson_t raw = BSON_INITIALIZER;
      bson_iter_t rv, mv;
      bool num = fr_find_doc_num (r, &spec, &has, &v, &raw, "v");
      if (fr_str (&spec, "same", NULL)) /* the value a mark step saved, same type and bytes (an ObjectId …) */
         good = bson_iter_init_find (&rv, &raw, "v") &&
                bson_iter_init_find (&mv, &r->marks, fr_str (&spec, "same", "")) &&
                bson_iter_type (&rv) == bson_iter_type (&mv) && fr_same_value (&rv, &mv);
      bson_destroy (&raw);
      if (fr_str (&spec, "mark", NULL))
         good = num && v > 0 && v == fr_mark (r, fr_str (&spec, "mark", NULL));
      if (bson_iter_init_find (&f, &spec, "is"))
         good = good && num && v == bson_iter_as_double (&f);
      if (bson_iter_init_find (&f, &spec, "gt"))
         good = good && num && v > bson_iter_as_double (&f);
      if (bson_iter_init_find (&f, &spec, "exists"))
         good = good && has == bson_iter_as_bool (&f);
      if (!good) {
         fr_why (why, len, "%s in %s is not as expected", fr_str (&spec, "path", ""), fr_str (&spec, "coll", ""));
         ok = false;
      }
   }
   return ok;
}

/* chunkorder: {field, is}: the shards of the chunks whose min has field, in min order, one character each (the last
 * of the shard's name), are is. */
static bool
fr_expect_chunkorder (fr_run_t *r, const bson_t *expect, char *why, size_t len)
{
   bson_t spec;
   char f[160], got[256];
   size_t n = 0;
   const bson_t *doc;
   bson_error_t err;
   if (!fr_doc (expect, "chunkorder", &spec))
      return true;
   bson_snprintf (f, sizeof f, "{\"min.%s\": {\"$exists\": true}}", fr_str (&spec, "field", ""));
   bson_t *filter = bson_new_from_json ((const uint8_t *) f, -1, &err);
   bson_t *opts = BCON_NEW ("sort", "{", "min", BCON_INT32 (1), "}");
   mongoc_collection_t *c = mongoc_client_get_collection (r->sim.client, "config", "chunks");
   mongoc_cursor_t *cur = mongoc_collection_find_with_opts (c, filter, opts, NULL);
   while (mongoc_cursor_next (cur, &doc) && n + 1 < sizeof got) {
      const char *sh = str_at (doc, "shard");
      got[n++] = sh && sh[0] ? sh[strlen (sh) - 1] : '?';
   }
   got[n] = '\0';
   mongoc_cursor_destroy (cur);
   mongoc_collection_destroy (c);
   bson_destroy (opts);
   bson_destroy (filter);
   if (strcmp (got, fr_str (&spec, "is", ""))) {
      fr_why (why, len, "chunks in order on %s, expected %s", got, fr_str (&spec, "is", ""));
      return false;
   }
   return true;
}

/* count: [{db (default config), coll, filter, n | min | plus with mark}]: documents counted after the command. */
static bool
fr_expect_counts (fr_run_t *r, const bson_t *expect, char *why, size_t len)
{
   bson_t counts, c, filter;
   bson_iter_t it, f;
   bool ok = true;
   if (!fr_doc (expect, "count", &counts) || !bson_iter_init (&it, &counts))
      return true;
   while (bson_iter_next (&it)) {
      if (!BSON_ITER_HOLDS_DOCUMENT (&it)) {
         ok = false;
         continue;
      }
      uint32_t l;
      const uint8_t *data;
      bson_iter_document (&it, &l, &data);
      bson_init_static (&c, data, l);
      if (!fr_doc (&c, "filter", &filter))
         bson_init (&filter);
      mongoc_collection_t *coll =
         mongoc_client_get_collection (r->sim.client, fr_str (&c, "db", "config"), fr_str (&c, "coll", ""));
      int64_t n = mongoc_collection_count_documents (coll, &filter, NULL, NULL, NULL, NULL);
      mongoc_collection_destroy (coll);
      bool good;
      if (bson_iter_init_find (&f, &c, "min"))
         good = n >= bson_iter_as_int64 (&f);
      else if (bson_iter_init_find (&f, &c, "above") && bson_iter_as_bool (&f))
         good = n > (int64_t) fr_mark (r, fr_str (&c, "mark", NULL));
      else if (bson_iter_init_find (&f, &c, "plus"))
         good = n == (int64_t) fr_mark (r, fr_str (&c, "mark", NULL)) + bson_iter_as_int64 (&f);
      else
         good = bson_iter_init_find (&f, &c, "n") && n == bson_iter_as_int64 (&f);
      if (!good) {
         char num[32];
         snprintf (num, sizeof num, "%" PRId64, n);
         fr_why (why, len, "%s count %s", fr_str (&c, "coll", ""), num);
         ok = false;
      }
   }
   return ok;
}

/* The int64 at path of the document saved under mark (a check's "save" or a mark step's "reply"), or of the last
 * reply when mark is NULL; false when either is missing or not an int64. */
static bool
fr_saved_long (const fr_run_t *r, const char *mark, const char *path, int64_t *out)
{
   bson_iter_t it, d;
   bson_t saved;
   const bson_t *doc = &r->last;
   if (mark) {
      uint32_t l;
      const uint8_t *data;
      if (!bson_iter_init_find (&it, &r->marks, mark) || !BSON_ITER_HOLDS_DOCUMENT (&it))
         return false;
      bson_iter_document (&it, &l, &data);
      bson_init_static (&saved, data, l);
      doc = &saved;
   }
   if (!fr_find (doc, path, &d) || !BSON_ITER_HOLDS_INT64 (&d))
      return false;
   *out = bson_iter_int64 (&d);
   return true;
}

/* delta: [{mark, path, is | min, from_min}]: the int64 at path grew by is (or at least min) since the reply saved
 * under mark, whose value was at least from_min; delta_same: [{mark, a, b}]: a and b grew by the same amount. */
static bool
fr_expect_deltas (const fr_run_t *r, const bson_t *expect, char *why, size_t len)
{
   bson_t list, spec;
   bson_iter_t it, f;
   bool ok = true;
   for (int pass = 0; pass < 2; pass++) {
      if (!fr_doc (expect, pass ? "delta_same" : "delta", &list) || !bson_iter_init (&it, &list))
         continue;
      while (bson_iter_next (&it)) {
         uint32_t l;
         const uint8_t *data;
         int64_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
         bool good;
         if (!BSON_ITER_HOLDS_DOCUMENT (&it))
            continue;
         bson_iter_document (&it, &l, &data);
         bson_init_static (&spec, data, l);
         const char *mark = fr_str (&spec, "mark", ""), *a = fr_str (&spec, pass ? "a" : "path", "");
         good = fr_saved_long (r, mark, a, &a0) && fr_saved_long (r, NULL, a, &a1);
         if (pass) {
            const char *b = fr_str (&spec, "b", "");
            good = good && fr_saved_long (r, mark, b, &b0) && fr_saved_long (r, NULL, b, &b1) && a1 - a0 == b1 - b0;
         } else {
            if (bson_iter_init_find (&f, &spec, "is"))
               good = good && a1 - a0 == bson_iter_as_int64 (&f);
            if (bson_iter_init_find (&f, &spec, "min"))
               good = good && a1 - a0 >= bson_iter_as_int64 (&f);
            if (bson_iter_init_find (&f, &spec, "from_min"))
               good = good && a0 >= bson_iter_as_int64 (&f);
         }
         if (!good) {
            fr_why (why, len, "%s did not grow as expected since %s", a, mark);
            ok = false;
         }
      }
   }
   return ok;
}

/* entries: {path, min, shape: [keys], type, plain}: the document at path has at least min keys, in byte order, each a
 * document of exactly the shape's keys in order, of type (int64) each, but the key plain, itself of that type.
 * key_before: {key: other}: the reply's key right before key is other. */
static bool
fr_expect_shape (const fr_run_t *r, const bson_t *expect, char *why, size_t len)
{
   bson_t spec, shape;
   bson_iter_t d, p, f, s, e;
   bool ok = true;
   if (fr_doc (expect, "entries", &spec)) {
      char prev[128] = "";
      int64_t n = 0, min = bson_iter_init_find (&e, &spec, "min") ? bson_iter_as_int64 (&e) : 0;
      const char *type = fr_str (&spec, "type", "int64"), *plain = fr_str (&spec, "plain", "");
      bool good = fr_find (&r->last, fr_str (&spec, "path", ""), &d) && BSON_ITER_HOLDS_DOCUMENT (&d) &&
                  bson_iter_recurse (&d, &p) && fr_doc (&spec, "shape", &shape);
      while (good && bson_iter_next (&p)) {
         const char *k = bson_iter_key (&p);
         good = strcmp (prev, k) < 0;
         bson_strncpy (prev, k, sizeof prev);
         n++;
         if (!strcmp (k, plain)) {
            good = good && !strcmp (fr_type_name (&p), type);
            continue;
         }
         good = good && BSON_ITER_HOLDS_DOCUMENT (&p) && bson_iter_recurse (&p, &f) && bson_iter_init (&s, &shape);
         while (good && bson_iter_next (&s))
            good = BSON_ITER_HOLDS_UTF8 (&s) && bson_iter_next (&f) &&
                   !strcmp (bson_iter_key (&f), bson_iter_utf8 (&s, NULL)) && !strcmp (fr_type_name (&f), type);
         good = good && !bson_iter_next (&f);
      }
      if (!good || n < min) {
         fr_why (why, len, "%s's entries are not as expected (at %s)", fr_str (&spec, "path", ""), prev);
         ok = false;
      }
   }
   if (fr_doc (expect, "key_before", &spec) && bson_iter_init (&e, &spec)) {
      while (bson_iter_next (&e)) {
         const char *before = "";
         bool good = false;
         if (bson_iter_init (&d, &r->last))
            while (bson_iter_next (&d)) {
               if (!strcmp (bson_iter_key (&d), bson_iter_key (&e)))
                  good = BSON_ITER_HOLDS_UTF8 (&e) && !strcmp (before, bson_iter_utf8 (&e, NULL));
               before = bson_iter_key (&d);
            }
         if (!good) {
            fr_why (why, len, "%s does not come right after the expected key%s", bson_iter_key (&e), "");
            ok = false;
         }
      }
   }
   return ok;
}

#endif
