/* passes: plain asan */
/* The fidelity checks written as data rows (issue 38): every tests/unit/fidelity/<name>.json holds one header and then
 * rows, each a JSON document; this one driver starts shardsim per version of the header, runs the rows in order and
 * turns each row that names a check into one PASS/FAIL line "<version>.<check>". docs/shardsim.md names the server
 * file and function each check follows; tests/unit/fidelity/README.md describes the row format. */
#include <dirent.h>
#include <pthread.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/unit/fidelity.h"

#define FR_MAX_FILES 64

/* One version's run of a file: the simulator, the last reply a check ran and the idle clients rows opened. */
typedef struct {
   sim_t sim;
   const char *version;
   bson_t last;
   bool last_ok;
   mongoc_client_t *idle[4];
   int nidle;
   bson_t marks;    /* { <name>: <number> }: values "mark" steps saved */
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

/* tmpl (JSON) with the string "$i" replaced by the number i and "$pad200" by a string of 200 x; the caller frees. */
static char *
fr_subst (const char *tmpl, int64_t i)
{
   char pad[203], num[32], *json = bson_strdup (tmpl), *at;
   memset (pad, 'x', sizeof pad);
   pad[0] = pad[201] = '"';
   pad[202] = '\0';
   bson_snprintf (num, sizeof num, "%" PRId64, i);
   while ((at = strstr (json, "\"$i\"")) || (at = strstr (json, "\"$pad200\""))) {
      bool is_i = !strncmp (at, "\"$i\"", 4);
      *at = '\0';
      char *next = bson_strdup_printf ("%s%s%s", json, is_i ? num : pad, at + (is_i ? 4 : 9));
      bson_free (json);
      json = next;
   }
   return json;
}

/* gen: {db, coll, n, first (0), doc}: inserts n documents, one command each, from doc (fr_subst: "$i" the number,
 * first, first + 1, ..., "$pad200" 200 x: insert_docs' documents). repeat: {db, from, to (excluded), step (1), run}:
 * runs the command for each number, "$i" in it standing for the number. */
static void
fr_gen (fr_run_t *r, const bson_t *gen, bool repeat)
{
   bson_t doc;
   bson_iter_t it;
   int64_t from = 0, to = 0, step = 1;
   if (!fr_doc (gen, repeat ? "run" : "doc", &doc))
      return;
   if (bson_iter_init_find (&it, gen, repeat ? "from" : "first"))
      from = bson_iter_as_int64 (&it);
   if (bson_iter_init_find (&it, gen, repeat ? "to" : "n"))
      to = repeat ? bson_iter_as_int64 (&it) : from + bson_iter_as_int64 (&it);
   if (bson_iter_init_find (&it, gen, "step") && bson_iter_as_int64 (&it) > 0)
      step = bson_iter_as_int64 (&it);
   /* run may be a list of commands: each of them for each number, in order */
   bool list = repeat && bson_iter_init_find (&it, gen, "run") && BSON_ITER_HOLDS_ARRAY (&it);
   for (int64_t i = from; i < to; i += step) {
      bson_iter_t el;
      bool more = list ? bson_iter_init (&el, &doc) : true;
      while (more) {
         bson_t one;
         char *tmpl;
         if (list) {
            if (!bson_iter_next (&el))
               break;
            uint32_t l;
            const uint8_t *data;
            if (!BSON_ITER_HOLDS_DOCUMENT (&el))
               continue;
            bson_iter_document (&el, &l, &data);
            bson_init_static (&one, data, l);
            tmpl = bson_as_relaxed_extended_json (&one, NULL);
         } else {
            tmpl = bson_as_relaxed_extended_json (&doc, NULL);
            more = false;
         }
         char *json = fr_subst (tmpl, i);
         char *cmd =
            repeat ? bson_strdup (json)
                   : bson_strdup_printf ("{\"insert\": \"%s\", \"documents\": [%s]}", fr_str (gen, "coll", ""), json);
         simproc_run_ok (&r->sim, fr_str (gen, "db", repeat ? "admin" : "test"), cmd);
         bson_free (cmd);
         bson_free (json);
         bson_free (tmpl);
      }
   }
}

/* Forgets the mark name (a mark step saves it again). */
static void
fr_marks_drop (fr_run_t *r, const char *name)
{
   bson_t kept = BSON_INITIALIZER;
   bson_copy_to_excluding_noinit (&r->marks, &kept, name, NULL);
   bson_destroy (&r->marks);
   bson_steal (&r->marks, &kept);
}

/* A step that is no command: gen and repeat (fr_gen), mark ({name, count | find}: saves a count or a found value),
 * sleep_ms, bg ({db, run}: the command starts on its own client in a thread), wait ({db, coll, filter, n, ms,
 * every_ms}: polls until a document matches, or n do; waited says whether it came), idle (a second client pings and
 * stays open). True when row is one. */
static bool
fr_special_step (fr_run_t *r, const bson_t *row)
{
   bson_t sub, spec;
   bson_iter_t it;
   if (fr_doc (row, "gen", &sub)) {
      fr_gen (r, &sub, false);
   } else if (fr_doc (row, "repeat", &sub)) {
      fr_gen (r, &sub, true);
   } else if (fr_doc (row, "mark", &sub)) {
      double v = 0;
      bool has;
      fr_marks_drop (r, fr_str (&sub, "name", ""));
      if (fr_doc (&sub, "count", &spec)) {
         bson_t filter;
         if (!fr_doc (&spec, "filter", &filter))
            bson_init (&filter);
         mongoc_collection_t *c =
            mongoc_client_get_collection (r->sim.client, fr_str (&spec, "db", "config"), fr_str (&spec, "coll", ""));
         BSON_APPEND_INT64 (&r->marks, fr_str (&sub, "name", ""),
                            mongoc_collection_count_documents (c, &filter, NULL, NULL, NULL, NULL));
         mongoc_collection_destroy (c);
         return true;
      } else if (fr_doc (&sub, "find", &spec)) {
         /* the value itself (an ObjectId, a Timestamp, a number: "$mark" in at compares it), or a timestamp part */
         if (fr_find_doc_num (r, &spec, &has, &v, &r->marks, fr_str (&sub, "name", "")) || !has ||
             strstr (fr_str (&spec, "path", ""), ".$"))
            if (!bson_has_field (&r->marks, fr_str (&sub, "name", "")))
               BSON_APPEND_DOUBLE (&r->marks, fr_str (&sub, "name", ""), v);
         return true;
      }
      BSON_APPEND_DOUBLE (&r->marks, fr_str (&sub, "name", ""), v);
   } else if (bson_iter_init_find (&it, row, "sleep_ms")) {
      usleep ((useconds_t) (bson_iter_as_int64 (&it) * 1000));
   } else if (fr_doc (row, "bg", &sub) && !r->bg_running && fr_doc (&sub, "run", &spec)) {
      r->bg_cmd = bson_copy (&spec);
      r->bg = (fid_bg_t){
         .port = r->sim.port, .db = fr_str (&sub, "db", "admin"), .cmd = r->bg_cmd, .t0 = bson_get_monotonic_time ()
      };
      r->bg_running = pthread_create (&r->bg_thread, NULL, fid_bg_run, &r->bg) == 0;
   } else if (fr_doc (row, "wait", &sub)) {
      int64_t ms = bson_iter_init_find (&it, &sub, "ms") ? bson_iter_as_int64 (&it) : 10000;
      bson_t filter;
      if (!fr_doc (&sub, "filter", &filter))
         bson_init (&filter);
      mongoc_collection_t *c =
         mongoc_client_get_collection (r->sim.client, fr_str (&sub, "db", "config"), fr_str (&sub, "coll", ""));
      int64_t every = bson_iter_init_find (&it, &sub, "every_ms") ? bson_iter_as_int64 (&it) : 10;
      int64_t want = bson_iter_init_find (&it, &sub, "n") ? bson_iter_as_int64 (&it) : -1;
      r->waited = false;
      for (int64_t waited = 0; waited <= ms && !r->waited; waited += every) {
         int64_t n = mongoc_collection_count_documents (c, &filter, NULL, NULL, NULL, NULL);
         r->waited = want < 0 ? n > 0 : n == want;
         if (!r->waited)
            usleep ((useconds_t) (every * 1000));
      }
      mongoc_collection_destroy (c);
   } else if (bson_iter_init_find (&it, row, "idle")) {
      if (r->nidle < 4) {
         bson_error_t err;
         bson_t *ping = BCON_NEW ("ping", BCON_INT32 (1));
         mongoc_client_t *c = simproc_client (r->sim.port, "serverSelectionTimeoutMS=5000");
         if (c)
            mongoc_client_command_simple (c, "admin", ping, NULL, NULL, &err);
         bson_destroy (ping);
         r->idle[r->nidle++] = c;
      }
   } else {
      return false;
   }
   return true;
}

/* Waits for the background command (a check's "join"). */
static void
fr_join (fr_run_t *r)
{
   if (r->bg_running) {
      pthread_join (r->bg_thread, NULL);
      r->bg_running = false;
      bson_destroy (r->bg_cmd);
      r->bg_cmd = NULL;
   }
}

/* A check's "pre" (before its command) or "post" (after its counts) commands, key: all must succeed. */
static bool
fr_pre (fr_run_t *r, const bson_t *row, const char *key, char *why, size_t len)
{
   bson_t pre, step, c, reply;
   bson_iter_t it;
   bool ok = true;
   if (!fr_doc (row, key, &pre) || !bson_iter_init (&it, &pre))
      return true;
   while (bson_iter_next (&it)) {
      uint32_t l;
      const uint8_t *data;
      if (!BSON_ITER_HOLDS_DOCUMENT (&it))
         continue;
      bson_iter_document (&it, &l, &data);
      bson_init_static (&step, data, l);
      if (fr_doc (&step, "run", &c) && !fr_command (r, fr_str (&step, "db", "admin"), &c, &reply)) {
         fr_why (why, len, "a %s command failed%s", key, "");
         ok = false;
      }
      if (fr_doc (&step, "run", &c))
         bson_destroy (&reply);
   }
   return ok;
}

/* A check's expectations once its command ran, in this order: the reply, the counts, the "post" commands (must
 * succeed), the join of the background command when join is "after" ("before": first), find, the chunk order,
 * then the rest (types, the wait, the background command's end). */
static bool
fr_expect_check (fr_run_t *r, const bson_t *row, const bson_t *expect, const char *join, char *why, size_t len)
{
   bool ok;
   if (!strcmp (join, "before"))
      fr_join (r);
   ok = fr_expect_reply (r, expect, why, len);
   ok = fr_expect_counts (r, expect, why, len) && ok;
   ok = fr_pre (r, row, "post", why, len) && ok;
   if (!strcmp (join, "after"))
      fr_join (r);
   ok = fr_expect_find (r, expect, why, len) && ok;
   ok = fr_expect_chunkorder (r, expect, why, len) && ok;
   return fr_expect_more (r, expect, why, len) && ok;
}

/* One row: a step (no "check": its command runs and its reply is dropped, or fr_special_step), or a check: its "pre"
 * commands must succeed, its "run" (if any) becomes the last reply, and its "expect" is judged on the last reply and
 * what follows, in this order: the reply, the counts, the "post" commands (must succeed), the join of the background
 * command when "join" is "after" ("before": right after the command), find, then the rest (types, the wait, the
 * background command's end). */
static void
fr_row (fr_run_t *r, const bson_t *row)
{
   bson_t cmd, expect;
   char name[512], why[2048] = "";
   const char *db = fr_str (row, "db", "admin");
   const char *check = fr_str (row, "check", NULL);
   const char *join = fr_str (row, "join", "");
   if (!fr_applies (row, r->version))
      return;
   if (!check) {
      bson_t reply;
      if (fr_special_step (r, row) || !fr_doc (row, "run", &cmd))
         return;
      if (!fr_command (r, db, &cmd, &reply)) {
         char *j = bson_as_relaxed_extended_json (&reply, NULL);
         fprintf (stderr, "%s: step failed: %s\n", r->version, j);
         bson_free (j);
      }
      bson_destroy (&reply);
      return;
   }
   bson_t until;
   bson_iter_t it;
   int64_t times = bson_iter_init_find (&it, row, "times") ? bson_iter_as_int64 (&it) : 1;
   bool has_until = fr_doc (row, "until", &until), ok = true;
   if (!fr_doc (row, "expect", &expect))
      bson_init (&expect);
   /* "times": the pre commands and the command run that many times, every time judged (all must hold); with
    * "until", up to that many times until the until expectations hold of the reply, then judged once */
   for (int64_t k = 0; k < times; k++) {
      ok = fr_pre (r, row, "pre", why, sizeof why) && ok;
      if (fr_doc (row, "run", &cmd)) {
         int64_t t0 = bson_get_monotonic_time ();
         bson_destroy (&r->last);
         r->last_ok = fr_command (r, db, &cmd, &r->last);
         r->took_ms = (bson_get_monotonic_time () - t0) / 1000;
      }
      if (has_until) {
         char scratch[256] = "";
         if (fr_expect_reply (r, &until, scratch, sizeof scratch) || k + 1 == times)
            ok = fr_expect_check (r, row, &expect, join, why, sizeof why) && ok;
         if (fr_expect_reply (r, &until, scratch, sizeof scratch))
            break;
      } else {
         ok = fr_expect_check (r, row, &expect, join, why, sizeof why) && ok;
      }
   }
   snprintf (name, sizeof name, "%s.%s", r->version, check);
   if (ok) {
      UNIT_PASS (name);
   } else {
      char *j = bson_as_relaxed_extended_json (&r->last, NULL);
      UNIT_FAIL (name, "%s (reply %.300s)", why, j ? j : "");
      bson_free (j);
   }
}

/* Runs every row of path (its header first) once per version of the header. */
static void
fr_file (const char *path)
{
   bson_json_reader_t *reader;
   bson_error_t err;
   bson_t header = BSON_INITIALIZER, versions, args_doc;
   bson_iter_t it;
   int rc;
   size_t nrows = 0, cap = 64;
   bson_t **rows = malloc (cap * sizeof *rows);

   if (!(reader = bson_json_reader_new_from_file (path, &err))) {
      UNIT_FAIL (path, "cannot read it: %s", err.message);
      free (rows);
      return;
   }
   rc = bson_json_reader_read (reader, &header, &err);
   while (rc > 0) {
      bson_t *row = bson_new ();
      rc = bson_json_reader_read (reader, row, &err);
      if (rc <= 0) {
         bson_destroy (row);
         break;
      }
      if (nrows == cap)
         rows = realloc (rows, (cap *= 2) * sizeof *rows);
      rows[nrows++] = row;
   }
   if (rc < 0)
      UNIT_FAIL (path, "not JSON rows: %s", err.message);
   bson_json_reader_destroy (reader);

   if (rc >= 0 && fr_doc (&header, "versions", &versions) && bson_iter_init (&it, &versions)) {
      while (bson_iter_next (&it)) {
         const char *argv[32];
         size_t n = 0;
         char pre[64];
         fr_run_t r = { .version = bson_iter_utf8 (&it, NULL), .last_ok = false };
         bson_iter_t a;
         argv[n++] = "--version";
         argv[n++] = r.version;
         if (fr_doc (&header, "args", &args_doc) && bson_iter_init (&a, &args_doc))
            while (bson_iter_next (&a) && n < 30)
               if (BSON_ITER_HOLDS_UTF8 (&a))
                  argv[n++] = bson_iter_utf8 (&a, NULL);
         argv[n] = NULL;
         snprintf (pre, sizeof pre, "%s.%s", r.version, fr_str (&header, "prefix", ""));
         bson_init (&r.last);
         bson_init (&r.marks);
         if (fid_begin (&r.sim, argv, pre)) {
            for (size_t i = 0; i < nrows; i++)
               fr_row (&r, rows[i]);
            fr_join (&r);
            for (int i = 0; i < r.nidle; i++)
               mongoc_client_destroy (r.idle[i]);
            fid_end (&r.sim, pre);
         }
         bson_destroy (&r.last);
         bson_destroy (&r.marks);
      }
   }
   for (size_t i = 0; i < nrows; i++)
      bson_destroy (rows[i]);
   free (rows);
   bson_destroy (&header);
}

static int
fr_cmp (const void *a, const void *b)
{
   return strcmp (*(char *const *) a, *(char *const *) b);
}

int
main (void)
{
   /* FIDELITY_ROWS_DIR: another folder of row files (a mutated copy, to see the checks fail) */
   const char *dir = getenv ("FIDELITY_ROWS_DIR") ? getenv ("FIDELITY_ROWS_DIR") : "tests/unit/fidelity";
   char *files[FR_MAX_FILES];
   size_t n = 0;
   DIR *d = opendir (dir);
   struct dirent *e;
   mongoc_init ();
   mongoc_log_set_handler (NULL, NULL);
   if (!d) {
      UNIT_FAIL ("fidelity rows", "cannot open %s", dir);
   } else {
      while ((e = readdir (d)) && n < FR_MAX_FILES) {
         size_t l = strlen (e->d_name);
         if (l > 5 && !strcmp (e->d_name + l - 5, ".json")) {
            files[n] = malloc (strlen (dir) + l + 2);
            sprintf (files[n++], "%s/%s", dir, e->d_name);
         }
      }
      closedir (d);
   }
   qsort (files, n, sizeof *files, fr_cmp);
   CHECK ("fidelity rows: files found", n > 0);
   /* one process per file, all at once (each starts its own shardsim on its own port): the files' lines interleave,
    * each line whole (line-buffered); a file whose process fails or dies counts as a failure here too */
   fflush (stdout);
   pid_t pids[FR_MAX_FILES];
   for (size_t i = 0; i < n; i++) {
      pids[i] = fork ();
      if (pids[i] == 0) {
         setvbuf (stdout, NULL, _IOLBF, 0);
         fr_file (files[i]);
         fflush (stdout);
         _exit (unit_failed ? 1 : 0);
      }
   }
   for (size_t i = 0; i < n; i++) {
      int status = 0;
      if (pids[i] < 0 || waitpid (pids[i], &status, 0) < 0 || !WIFEXITED (status)) {
         UNIT_FAIL (files[i], "its run did not end normally (status %d)", status);
      } else if (WEXITSTATUS (status) != 0) {
         unit_failed++; /* its FAIL lines are printed */
      }
      free (files[i]);
   }
   mongoc_cleanup ();
   UNIT_EXIT ();
}
