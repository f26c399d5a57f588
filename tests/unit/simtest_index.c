/* passes: plain asan */
/* Unit tests for the simulator's hash and index structures: simq_hash_value against order_values (values the
 * comparison calls equal must hash alike, across numeric types), the simq_htab_t multimap (duplicates, colliding
 * hashes, deletes with backward shift, growth; checked against a plain list), the store's _id index (sim_index.c:
 * built lazily, then kept current by insert, replace, delete and drop), the partitions' range index (order of a
 * stable sort { min: 1 }, the disjoint and tight flags), $group's hash map (equal keys of different types group
 * together under the first key seen), the insert command's E11000 write error, byte for byte as before, and the
 * interruption of read-only commands (sim_stop.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bson/bson.h>

#include "tests/shardsim/sim.h"
#include "tests/unit/unit.h"

static bson_t *
json (const char *s)
{
   bson_error_t error;
   bson_t *b = bson_new_from_json ((const uint8_t *) s, -1, &error);
   if (!b) {
      fprintf (stderr, "bad test JSON: %s: %s\n", s, error.message);
      abort ();
   }
   return b;
}

/* The value of { v: ... } written as extended JSON. */
static bson_t *
vdoc (const char *value_json)
{
   char buf[512];
   bson_snprintf (buf, sizeof buf, "{\"v\": %s}", value_json);
   return json (buf);
}

static bson_value_t
vof (const bson_t *doc)
{
   bson_iter_t it;
   bson_iter_init_find (&it, doc, "v");
   return *bson_iter_value (&it);
}

/* ---- simq_hash_value ---- */

static void
test_hash_value (void)
{
   /* Groups of values the comparison calls equal: each group must hash alike and compare equal. */
   static const char *groups[][6] = {
      { "1", "{\"$numberDouble\": \"1.0\"}", "{\"$numberLong\": \"1\"}", "{\"$numberDecimal\": \"1\"}",
        "{\"$numberDecimal\": \"1.000\"}", NULL },
      { "0", "{\"$numberDouble\": \"-0.0\"}", "{\"$numberLong\": \"0\"}", "{\"$numberDecimal\": \"-0\"}", NULL },
      { "{\"$numberDouble\": \"NaN\"}", "{\"$numberDecimal\": \"NaN\"}", NULL },
      { "{\"$numberDouble\": \"2.5\"}", "{\"$numberDecimal\": \"2.5\"}", NULL },
      { "{\"$numberDouble\": \"Infinity\"}", "{\"$numberDecimal\": \"Infinity\"}", NULL },
      { "{\"$numberDouble\": \"9223372036854775808\"}", "{\"$numberDecimal\": \"9223372036854775808\"}", NULL },
      { "\"abc\"", "{\"$symbol\": \"abc\"}", NULL },
      { "{\"a\": 1, \"b\": [1, 2]}", "{\"a\": {\"$numberLong\": \"1\"}, \"b\": [1.0, {\"$numberDecimal\": \"2\"}]}",
        NULL },
      { "null", NULL },
      { "{\"$undefined\": true}", NULL },
   };
   size_t ngroups = sizeof groups / sizeof groups[0];
   bool same_ok = true, diff_ok = true, consistent = true;
   for (size_t g = 0; g < ngroups; g++) {
      for (size_t i = 0; groups[g][i]; i++) {
         bson_t *a = vdoc (groups[g][0]), *b = vdoc (groups[g][i]);
         bson_value_t va = vof (a), vb = vof (b);
         if (order_values (&va, &vb) != 0 || simq_hash_value (&va) != simq_hash_value (&vb)) {
            printf ("# group %zu: %s vs %s\n", g, groups[g][0], groups[g][i]);
            same_ok = false;
         }
         bson_destroy (a);
         bson_destroy (b);
      }
      /* Distinct groups differ (by comparison; their hashes should too, barring a 2^-64 accident). */
      for (size_t h = g + 1; h < ngroups; h++) {
         bson_t *a = vdoc (groups[g][0]), *b = vdoc (groups[h][0]);
         bson_value_t va = vof (a), vb = vof (b);
         if (order_values (&va, &vb) == 0 || simq_hash_value (&va) == simq_hash_value (&vb)) {
            diff_ok = false;
         }
         bson_destroy (a);
         bson_destroy (b);
      }
   }
   CHECK ("hash: 1, 1.0, NumberLong(1), NumberDecimal(1) and other equal values hash alike", same_ok);
   CHECK ("hash: values of different groups differ", diff_ok);

   /* A sweep of numbers of every type: whenever the comparison says equal, the hashes agree. */
   const char *nums[] = { "0",
                          "1",
                          "-1",
                          "2",
                          "{\"$numberLong\": \"2\"}",
                          "{\"$numberDouble\": \"2.0\"}",
                          "{\"$numberDouble\": \"0.5\"}",
                          "{\"$numberDecimal\": \"0.5\"}",
                          "{\"$numberDecimal\": \"0.50\"}",
                          "{\"$numberDouble\": \"1.5\"}",
                          "{\"$numberDecimal\": \"1.5\"}",
                          "{\"$numberDecimal\": \"2.0\"}",
                          "{\"$numberDouble\": \"-1.0\"}",
                          "{\"$numberLong\": \"-1\"}",
                          "{\"$numberDecimal\": \"-1E0\"}",
                          "2147483647",
                          "{\"$numberLong\": \"2147483647\"}",
                          "{\"$numberDouble\": \"1e300\"}",
                          "{\"$numberDecimal\": \"1E300\"}",
                          "{\"$numberDouble\": \"-Infinity\"}",
                          "{\"$numberDecimal\": \"-Infinity\"}",
                          "{\"$numberLong\": \"9007199254740993\"}",
                          "{\"$numberDecimal\": \"9007199254740993\"}",
                          "{\"$numberDouble\": \"9007199254740992\"}" };
   size_t nn = sizeof nums / sizeof nums[0];
   for (size_t i = 0; i < nn; i++) {
      for (size_t j = 0; j < nn; j++) {
         bson_t *a = vdoc (nums[i]), *b = vdoc (nums[j]);
         bson_value_t va = vof (a), vb = vof (b);
         if (order_values (&va, &vb) == 0 && simq_hash_value (&va) != simq_hash_value (&vb)) {
            printf ("# %s == %s but hashes differ\n", nums[i], nums[j]);
            consistent = false;
         }
         bson_destroy (a);
         bson_destroy (b);
      }
   }
   CHECK ("hash: consistent with the comparison across int32/int64/double/decimal", consistent);
}

/* ---- simq_htab_t ---- */

typedef struct {
   uint64_t hash;
   uintptr_t val;
} ref_t;

/* How many times (hash, val) is in t, walking its candidates. */
static size_t
htab_count (const simq_htab_t *t, uint64_t hash, uintptr_t val)
{
   size_t probe = 0, c = 0;
   uintptr_t v;
   while ((v = simq_htab_next (t, hash, &probe)) != 0) {
      c += v == val ? 1 : 0;
   }
   return c;
}

static void
test_htab (void)
{
   simq_htab_t t;
   simq_htab_init (&t);
   CHECK ("htab: empty table has no candidates", htab_count (&t, 7, 1) == 0);
   CHECK ("htab: removing from an empty table fails", !simq_htab_remove (&t, 7, 1));

   /* Random operations checked against a plain list. Few distinct hashes, so clusters and collisions are common;
    * the same pair may be added twice (a multimap). */
   enum { N = 20000 };
   ref_t *ref = bson_malloc0 (N * sizeof *ref);
   size_t nref = 0;
   uint64_t rng = 42;
   bool ok = true;
   size_t max_n = 0;
   for (int step = 0; step < 60000; step++) {
      rng ^= rng << 13;
      rng ^= rng >> 7;
      rng ^= rng << 17;
      uint64_t r = rng * 0x2545F4914F6CDD1Dull;
      if (nref < N && (r % 3 != 0 || nref == 0)) {
         uint64_t hash = (r >> 8) % 977; /* collisions */
         if (r & 0x10) {
            hash |= (r >> 20) << 10; /* and spread ones */
         }
         uintptr_t val = (uintptr_t) ((r >> 40) % 50 + 1);
         simq_htab_add (&t, hash, val);
         ref[nref].hash = hash;
         ref[nref].val = val;
         nref++;
      } else {
         size_t k = (size_t) (r % nref);
         if (!simq_htab_remove (&t, ref[k].hash, ref[k].val)) {
            ok = false;
         }
         ref[k] = ref[--nref];
      }
      max_n = t.n > max_n ? t.n : max_n;
      if (t.n != nref) {
         ok = false;
      }
   }
   CHECK ("htab: size follows adds and removes", ok);
   bool all = true;
   for (size_t i = 0; i < nref; i++) {
      size_t expect = 0;
      for (size_t j = 0; j < nref; j++) {
         expect += ref[j].hash == ref[i].hash && ref[j].val == ref[i].val ? 1 : 0;
      }
      if (htab_count (&t, ref[i].hash, ref[i].val) != expect) {
         all = false;
      }
   }
   CHECK ("htab: every pair (duplicates counted) is found after deletes", all);
   CHECK ("htab: grew and stays under 70% full", max_n > 1000 && t.n * 10 <= t.cap * 7);
   /* Remove everything: the table ends empty and finds nothing. */
   bool removed = true;
   while (nref) {
      nref--;
      removed = removed && simq_htab_remove (&t, ref[nref].hash, ref[nref].val);
   }
   CHECK ("htab: everything removed", removed && t.n == 0 && htab_count (&t, 5, 1) == 0);
   simq_htab_destroy (&t);
   bson_free (ref);
}

/* ---- the store's _id index ---- */

static void
insert_json (sim_coll_t *c, const char *s)
{
   bson_t *d = json (s);
   sim_coll_insert (c, d);
   bson_destroy (d);
}

static bool
has_id (sim_coll_t *c, const char *value_json)
{
   bson_t *d = vdoc (value_json);
   bson_value_t v = vof (d);
   bool r = sim_coll_has_id (c, &v);
   bson_destroy (d);
   return r;
}

/* The position of the document whose _id equals value (int). */
static bool
find_pos (sim_coll_t *c, int id, sim_pos_t *pos)
{
   char f[64];
   bson_snprintf (f, sizeof f, "{\"_id\": %d}", id);
   bson_t *filter = json (f);
   sim_hits_t hits = { 0 };
   bson_error_t err;
   bool found = sim_coll_match (c, filter, 1, &hits, &err) && hits.n == 1;
   if (found) {
      *pos = hits.v[0];
   }
   sim_hits_destroy (&hits);
   bson_destroy (filter);
   return found;
}

static void
test_id_index (void)
{
   sim_coll_t *c = sim_coll_ensure ("idx", "c");
   insert_json (c, "{\"_id\": 1, \"x\": 1}");
   insert_json (c, "{\"_id\": \"one\", \"x\": 2}");
   insert_json (c, "{\"_id\": {\"a\": 1}, \"x\": 3}");
   insert_json (c, "{\"noid\": true}");
   CHECK ("_id index: built lazily", c->ids == NULL);
   CHECK ("_id index: int 1 found", has_id (c, "1"));
   CHECK ("_id index: built on first use (documents without _id left out)", c->ids && c->ids->n == 3);
   CHECK ("_id index: 1.0 is the same _id", has_id (c, "{\"$numberDouble\": \"1.0\"}"));
   CHECK ("_id index: NumberLong(1) is the same _id", has_id (c, "{\"$numberLong\": \"1\"}"));
   CHECK ("_id index: NumberDecimal(1) is the same _id", has_id (c, "{\"$numberDecimal\": \"1\"}"));
   CHECK ("_id index: 2 is not there", !has_id (c, "2"));
   CHECK ("_id index: \"1\" is not 1", !has_id (c, "\"1\""));
   CHECK ("_id index: document _id compares field by field", has_id (c, "{\"a\": {\"$numberLong\": \"1\"}}"));
   CHECK ("_id index: symbol equals string", has_id (c, "{\"$symbol\": \"one\"}"));

   /* Maintained after it exists: inserts, replaces (in place), deletes. */
   insert_json (c, "{\"_id\": 2}");
   CHECK ("_id index: insert after build is indexed", has_id (c, "2") && c->ids->n == 4);
   sim_pos_t pos;
   bson_t *nd = json ("{\"_id\": 3, \"x\": 9}");
   bool found = find_pos (c, 2, &pos);
   sim_coll_replace (c, pos, nd);
   bson_destroy (nd);
   CHECK ("_id index: replace moves the _id", found && !has_id (c, "2") && has_id (c, "3") && c->ids->n == 4);
   sim_hits_t hits = { 0 };
   bson_error_t err;
   bson_t *filter = json ("{\"x\": {\"$in\": [1, 9]}}");
   sim_coll_match (c, filter, 0, &hits, &err);
   bson_destroy (filter);
   sim_coll_delete (c, &hits);
   sim_hits_destroy (&hits);
   CHECK ("_id index: delete removes", !has_id (c, "1") && !has_id (c, "3") && has_id (c, "\"one\"") && c->ids->n == 2);

   /* Growth: many documents, all found, none invented; then delete half. */
   char buf[96];
   for (int i = 0; i < 5000; i++) {
      bson_snprintf (buf, sizeof buf, "{\"_id\": {\"$numberLong\": \"%d\"}, \"n\": %d}", 100 + i, i);
      insert_json (c, buf);
   }
   bool all = true;
   for (int i = 0; i < 5000; i += 7) {
      bson_snprintf (buf, sizeof buf, "{\"$numberDouble\": \"%d.0\"}", 100 + i);
      all = all && has_id (c, buf);
   }
   CHECK ("_id index: 5000 inserts found (as doubles)", all && c->ids->n == 5002);
   filter = json ("{\"n\": {\"$lt\": 2500}}");
   hits = (sim_hits_t){ 0 };
   sim_coll_match (c, filter, 0, &hits, &err);
   bson_destroy (filter);
   sim_coll_delete (c, &hits);
   sim_hits_destroy (&hits);
   CHECK ("_id index: deleted half gone, the rest found",
          !has_id (c, "100") && !has_id (c, "2599") && has_id (c, "2600") && has_id (c, "5099") && c->ids->n == 2502);

   /* A duplicate _id can still be stored by the store itself (the loader skips the check): a multimap. */
   insert_json (c, "{\"_id\": 2600, \"dup\": true}");
   CHECK ("_id index: duplicates kept", c->ids->n == 2503 && has_id (c, "2600"));
   sim_coll_drop (c);
   CHECK ("_id index: dropped with the collection", sim_coll_get ("idx", "c") == NULL);
}

/* ---- the range index ---- */

/* The "i" fields of partition ns of config.tags, in range-index order, as "a,b,c"; "NULL" when not indexable. */
static void
order_of (sim_coll_t *tags, const char *ns, char *out, size_t outlen, bool *disjoint, bool *tight)
{
   bson_value_t v;
   size_t n = 0;
   memset (&v, 0, sizeof v);
   v.value_type = BSON_TYPE_UTF8;
   v.value.v_utf8.str = (char *) ns;
   v.value.v_utf8.len = (uint32_t) strlen (ns);
   out[0] = '\0';
   size_t p = sim_coll_find_part (tags, &v);
   const uint8_t *const *ord = p == SIZE_MAX ? NULL : sim_part_by_min (tags, p, &n, disjoint, tight);
   if (!ord) {
      bson_strncpy (out, "NULL", outlen);
      return;
   }
   for (size_t i = 0; i < n; i++) {
      bson_t d;
      bson_iter_t it;
      uint32_t len = (uint32_t) ord[i][0] | (uint32_t) ord[i][1] << 8 | (uint32_t) ord[i][2] << 16;
      bson_init_static (&d, ord[i], len);
      size_t l = strlen (out);
      bson_snprintf (out + l, outlen - l, "%s%d", i ? "," : "",
                     bson_iter_init_find (&it, &d, "i") ? bson_iter_int32 (&it) : -1);
   }
}

static void
tag (sim_coll_t *tags, int i, int lo, int hi)
{
   char buf[160];
   bson_snprintf (buf, sizeof buf,
                  "{\"ns\": \"a.b\", \"i\": %d, \"min\": {\"k\": %d}, \"max\": {\"k\": %d}, \"tag\": \"Z\"}", i, lo,
                  hi);
   insert_json (tags, buf);
}

static void
test_range_index (void)
{
   char got[256];
   bool disjoint = false, tight = false;
   sim_coll_t *tags = sim_coll_ensure ("config", "tags");
   tag (tags, 0, 30, 40);
   tag (tags, 1, 10, 20);
   tag (tags, 2, 50, 60);
   order_of (tags, "a.b", got, sizeof got, &disjoint, &tight);
   CHECK_STR ("range index: built sorted by min", "1,0,2", got);
   CHECK ("range index: disjoint and tight", disjoint && tight);
   tag (tags, 3, 20, 30);
   tag (tags, 4, 0, 10);
   order_of (tags, "a.b", got, sizeof got, &disjoint, &tight);
   CHECK_STR ("range index: inserts kept in order", "4,1,3,0,2", got);
   CHECK ("range index: touching ranges are disjoint", disjoint);
   tag (tags, 5, 35, 55); /* overlaps 0 and 2 */
   order_of (tags, "a.b", got, sizeof got, &disjoint, &tight);
   CHECK ("range index: an overlapping range clears disjoint", !disjoint);
   CHECK_STR ("range index: overlapping range in order", "4,1,3,0,5,2", got);
   /* Removing it makes the ranges disjoint again. */
   bson_t *filter = json ("{\"i\": 5}");
   sim_hits_t hits = { 0 };
   bson_error_t err;
   sim_coll_match (tags, filter, 0, &hits, &err);
   sim_coll_delete (tags, &hits);
   sim_hits_destroy (&hits);
   bson_destroy (filter);
   order_of (tags, "a.b", got, sizeof got, &disjoint, &tight);
   CHECK ("range index: disjoint again after the delete", disjoint);
   CHECK_STR ("range index: delete kept the order", "4,1,3,0,2", got);
   /* Equal mins: storage order, also for a later insert; an in-place replace onto a tie rebuilds. */
   tag (tags, 6, 10, 15);
   order_of (tags, "a.b", got, sizeof got, &disjoint, &tight);
   CHECK_STR ("range index: equal mins in storage order", "4,1,6,3,0,2", got);
   CHECK ("range index: equal mins are not disjoint", !disjoint);
   filter = json ("{\"i\": 4}");
   hits = (sim_hits_t){ 0 };
   sim_coll_match (tags, filter, 0, &hits, &err);
   bson_t *nd = json ("{\"ns\": \"a.b\", \"i\": 7, \"min\": {\"k\": 10}, \"max\": {\"k\": 12}, \"tag\": \"Z\"}");
   sim_coll_replace (tags, hits.v[0], nd); /* 4 (stored after 1, before 6) becomes 7, min 10 */
   bson_destroy (nd);
   sim_hits_destroy (&hits);
   bson_destroy (filter);
   order_of (tags, "a.b", got, sizeof got, &disjoint, &tight);
   CHECK_STR ("range index: replace onto a tie keeps storage order", "1,7,6,3,0,2", got);
   /* A document without a min document: not indexable. */
   insert_json (tags, "{\"ns\": \"a.b\", \"i\": 8, \"min\": 5}");
   order_of (tags, "a.b", got, sizeof got, &disjoint, &tight);
   CHECK_STR ("range index: a scalar min makes it unavailable", "NULL", got);
   filter = json ("{\"i\": 8}");
   hits = (sim_hits_t){ 0 };
   sim_coll_match (tags, filter, 0, &hits, &err);
   sim_coll_delete (tags, &hits);
   sim_hits_destroy (&hits);
   bson_destroy (filter);
   order_of (tags, "a.b", got, sizeof got, &disjoint, &tight);
   CHECK_STR ("range index: available again once it is gone", "1,7,6,3,0,2", got);
   /* A namespace with an embedded NUL lands in the same partition: not tight. */
   bson_t d = BSON_INITIALIZER, mn = BSON_INITIALIZER, mx = BSON_INITIALIZER;
   bson_append_utf8 (&d, "ns", -1, "a.b\0x", 5);
   BSON_APPEND_INT32 (&d, "i", 9);
   BSON_APPEND_INT32 (&mn, "k", 100);
   BSON_APPEND_INT32 (&mx, "k", 200);
   BSON_APPEND_DOCUMENT (&d, "min", &mn);
   BSON_APPEND_DOCUMENT (&d, "max", &mx);
   sim_coll_insert (tags, &d);
   bson_destroy (&d);
   bson_destroy (&mn);
   bson_destroy (&mx);
   order_of (tags, "a.b", got, sizeof got, &disjoint, &tight);
   CHECK ("range index: a colliding partition value is not tight", !tight);
   sim_coll_drop (tags);
}

/* The index starts with a partition's first document but counts its conflicts only when first asked: writes before
 * that (overlaps inserted, deleted, replaced) leave the count to that first question, which must see them all. */
static void
test_range_index_conflicts_late (void)
{
   char got[256];
   bool disjoint = true, tight = false;
   sim_coll_t *tags = sim_coll_ensure ("config", "tags");
   sim_hits_t hits = { 0 };
   bson_error_t err;
   tag (tags, 0, 0, 10);
   tag (tags, 1, 5, 15); /* overlaps 0 */
   tag (tags, 2, 20, 30);
   order_of (tags, "a.b", got, sizeof got, NULL, NULL); /* the order alone: conflicts still uncounted */
   CHECK_STR ("range index, conflicts uncounted: in order", "0,1,2", got);
   tag (tags, 3, 25, 40); /* overlaps 2 */
   order_of (tags, "a.b", got, sizeof got, &disjoint, &tight);
   CHECK ("range index, conflicts counted late: two overlaps seen", !disjoint && tight);
   bson_t *filter = json ("{\"i\": {\"$in\": [1, 3]}}");
   sim_coll_match (tags, filter, 0, &hits, &err);
   sim_coll_delete (tags, &hits);
   sim_hits_destroy (&hits);
   bson_destroy (filter);
   order_of (tags, "a.b", got, sizeof got, &disjoint, &tight);
   CHECK_STR ("range index, conflicts counted: deletes kept the order", "0,2", got);
   CHECK ("range index, conflicts counted: disjoint once both overlaps are gone", disjoint);
   sim_coll_drop (tags);
   tags = sim_coll_ensure ("config", "tags");
   tag (tags, 0, 0, 10);
   tag (tags, 1, 5, 15);
   filter = json ("{\"i\": 1}");
   hits = (sim_hits_t){ 0 };
   sim_coll_match (tags, filter, 0, &hits, &err);
   bson_t *nd = json ("{\"ns\": \"a.b\", \"i\": 1, \"min\": {\"k\": 10}, \"max\": {\"k\": 15}, \"tag\": \"Z\"}");
   sim_coll_replace (tags, hits.v[0], nd); /* the overlap replaced by a touching range before anyone asked */
   bson_destroy (nd);
   sim_hits_destroy (&hits);
   bson_destroy (filter);
   order_of (tags, "a.b", got, sizeof got, &disjoint, &tight);
   CHECK ("range index, conflicts counted late: a replaced overlap is gone", disjoint);
   sim_coll_drop (tags);
}

/* ---- $or over partitions ---- */

/* The hits of filter as a comma list of positions; full_scan wraps the filter in {$and: [filter]}, which the
 * partition selection does not recognise: the full scan, the reference. */
static void
hits_of (sim_coll_t *c, const char *filter_json, bool full_scan, char *out, size_t outlen)
{
   char buf[1024];
   bson_snprintf (buf, sizeof buf, full_scan ? "{\"$and\": [%s]}" : "%s", filter_json);
   bson_t *filter = json (buf);
   sim_hits_t hits = { 0 };
   bson_error_t err;
   out[0] = '\0';
   if (!sim_coll_match (c, filter, 0, &hits, &err)) {
      bson_strncpy (out, err.message, outlen);
   }
   for (size_t i = 0; i < hits.n; i++) {
      size_t l = strlen (out);
      bson_snprintf (out + l, outlen - l, "%s%zu:%zu", i ? "," : "", hits.v[i].part, hits.v[i].idx);
   }
   sim_hits_destroy (&hits);
   bson_destroy (filter);
}

#define UUID_A "{\"$binary\": {\"base64\": \"AAAAAAAAAAAAAAAAAAAAAQ==\", \"subType\": \"04\"}}"
#define UUID_B "{\"$binary\": {\"base64\": \"AAAAAAAAAAAAAAAAAAAAAg==\", \"subType\": \"04\"}}"
#define UUID_C "{\"$binary\": {\"base64\": \"AAAAAAAAAAAAAAAAAAAAAw==\", \"subType\": \"04\"}}"
/* UUID_A's bytes as generic binary (subtype 0): the same partition key, a different value */
#define UUID_A0 "{\"$binary\": {\"base64\": \"AAAAAAAAAAAAAAAAAAAAAQ==\", \"subType\": \"00\"}}"
#define UUID_X "{\"$binary\": {\"base64\": \"AAAAAAAAAAAAAAAAAAAACQ==\", \"subType\": \"04\"}}"

static void
chunk_doc (sim_coll_t *c, const char *uuid, int i, uint32_t t, uint32_t inc)
{
   char buf[512];
   bson_snprintf (buf, sizeof buf,
                  "{\"uuid\": %s, \"i\": %d, \"lastmod\": {\"$timestamp\": {\"t\": %u, \"i\": %u}}, \"shard\": \"s\"}",
                  uuid, i, t, inc);
   insert_json (c, buf);
}

/* sim_coll_match's $or of per-partition clauses: the same hits in the same order as the full scan, with partitions
 * whose greatest lastmod is not above a clause's bound skipped. */
static void
test_or_partitions (void)
{
   static const char *const filters[] = {
      /* nothing changed: every clause bounded at its partition's greatest lastmod */
      "{\"$or\": [{\"uuid\": " UUID_A ", \"lastmod\": {\"$gt\": {\"$timestamp\": {\"t\": 3, \"i\": 1}}}}, "
      "{\"uuid\": " UUID_B ", \"lastmod\": {\"$gt\": {\"$timestamp\": {\"t\": 2, \"i\": 0}}}}]}",
      /* one changed (B above 1|5), one unknown partition */
      "{\"$or\": [{\"uuid\": " UUID_A ", \"lastmod\": {\"$gt\": {\"$timestamp\": {\"t\": 3, \"i\": 1}}}}, "
      "{\"uuid\": " UUID_B ", \"lastmod\": {\"$gt\": {\"$timestamp\": {\"t\": 1, \"i\": 5}}}}, "
      "{\"uuid\": " UUID_X ", \"lastmod\": {\"$gt\": {\"$timestamp\": {\"t\": 0, \"i\": 0}}}}]}",
      /* plain equalities, listed out of storage order */
      "{\"$or\": [{\"uuid\": " UUID_C "}, {\"uuid\": " UUID_A "}]}",
      /* another operator on lastmod: no skipping, still the same hits */
      "{\"$or\": [{\"uuid\": " UUID_A ", \"lastmod\": {\"$gte\": {\"$timestamp\": {\"t\": 3, \"i\": 1}}}}]}",
      /* two clauses naming one partition, another between them */
      "{\"$or\": [{\"uuid\": " UUID_A ", \"i\": 5}, {\"uuid\": " UUID_B "}, {\"uuid\": " UUID_A ", \"i\": 0}]}",
      /* a clause without the partition field: the full scan */
      "{\"$or\": [{\"uuid\": " UUID_A "}, {\"i\": 7}]}",
      /* one equality alone per partition (checked in place): the subtype-0 twin of A is not a hit, nor A for it */
      "{\"$or\": [{\"uuid\": " UUID_A "}]}",
      "{\"$or\": [{\"uuid\": " UUID_A0 "}]}",
      "{\"$or\": [{\"uuid\": " UUID_B "}, {\"uuid\": " UUID_A0 "}]}",
      /* one equality and lastmod above a version (checked in place): the increment decides at an equal time, a
       * lastmod that is not a timestamp goes to the matcher, the fields in either order */
      "{\"$or\": [{\"uuid\": " UUID_A ", \"lastmod\": {\"$gt\": {\"$timestamp\": {\"t\": 2, \"i\": 7}}}}]}",
      "{\"$or\": [{\"lastmod\": {\"$gt\": {\"$timestamp\": {\"t\": 2, \"i\": 0}}}, \"uuid\": " UUID_A "}]}",
      "{\"$or\": [{\"uuid\": " UUID_A0
      ", \"lastmod\": {\"$gt\": {\"$timestamp\": {\"t\": 0, \"i\": 0}}}}, {\"uuid\": " UUID_B
      ", \"lastmod\": {\"$gt\": {\"$timestamp\": {\"t\": 1, \"i\": 0}}}}]}",
   };
   sim_coll_t *c = sim_coll_ensure ("config", "chunks");
   chunk_doc (c, UUID_A, 0, 1, 0);
   chunk_doc (c, UUID_B, 1, 1, 0);
   chunk_doc (c, UUID_A, 2, 3, 1);
   chunk_doc (c, UUID_C, 3, 1, 0);
   chunk_doc (c, UUID_B, 4, 2, 0);
   chunk_doc (c, UUID_A, 5, 2, 7);
   chunk_doc (c, UUID_A0, 6, 1, 0);
   insert_json (c, "{\"uuid\": " UUID_A ", \"i\": 8, \"lastmod\": 5, \"shard\": \"s\"}");
   insert_json (c, "{\"i\": 7, \"shard\": \"s\"}");
   for (size_t k = 0; k < sizeof filters / sizeof filters[0]; k++) {
      char got[512], want[512], name[64];
      hits_of (c, filters[k], false, got, sizeof got);
      hits_of (c, filters[k], true, want, sizeof want);
      bson_snprintf (name, sizeof name, "or partitions: filter %zu as the full scan", k);
      CHECK_STR (name, want, got);
   }
   {
      char got[512];
      hits_of (c, filters[0], false, got, sizeof got);
      CHECK_STR ("or partitions: nothing above the bounds, nothing found", "", got);
      hits_of (c, filters[1], false, got, sizeof got);
      CHECK ("or partitions: the changed partition's newer chunk found", strchr (got, ':') && !strchr (got, ','));
   }
   sim_coll_drop (c);
}

/* ---- $group's hash map ---- */

static void
test_group (void)
{
   simq_docs_t in, out;
   bson_error_t err;
   simq_docs_init (&in);
   simq_docs_init (&out);
   const char *docs[] = { "{\"k\": 1}",
                          "{\"k\": {\"$numberLong\": \"1\"}}",
                          "{\"k\": 1.0}",
                          "{\"k\": \"1\"}",
                          "{\"k\": {\"$numberDecimal\": \"1.0\"}}",
                          "{\"k\": null}",
                          "{}",
                          "{\"k\": 2.5}",
                          "{\"k\": {\"$numberDecimal\": \"2.5\"}}" };
   for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
      simq_docs_push_owned (&in, json (docs[i]));
   }
   bson_t *pipeline = json ("{\"0\": {\"$group\": {\"_id\": \"$k\", \"n\": {\"$sum\": 1}}}}");
   simq_env_t env = { 0 };
   bool ok = simq_aggregate (&in, pipeline, &env, &out, &err);
   char got[512] = "";
   for (size_t i = 0; ok && i < out.n; i++) {
      char *s = bson_as_canonical_extended_json (out.v[i], NULL);
      size_t l = strlen (got);
      bson_snprintf (got + l, sizeof got - l, "%s%s", i ? " " : "", s);
      bson_free (s);
   }
   CHECK_STR ("$group: equal keys of different types together, first key kept, order of first appearance",
              "{ \"_id\" : { \"$numberInt\" : \"1\" }, \"n\" : { \"$numberInt\" : \"4\" } } "
              "{ \"_id\" : \"1\", \"n\" : { \"$numberInt\" : \"1\" } } "
              "{ \"_id\" : null, \"n\" : { \"$numberInt\" : \"2\" } } "
              "{ \"_id\" : { \"$numberDouble\" : \"2.5\" }, \"n\" : { \"$numberInt\" : \"2\" } }",
              got);
   bson_destroy (pipeline);
   simq_docs_clear (&out);
   simq_docs_clear (&in);

   /* Many groups: 20000 documents over 5000 keys. */
   for (int i = 0; i < 20000; i++) {
      bson_t *d = bson_new ();
      BSON_APPEND_INT64 (d, "k", i % 5000);
      BSON_APPEND_INT32 (d, "x", i);
      simq_docs_push_owned (&in, d);
   }
   pipeline = json ("{\"0\": {\"$group\": {\"_id\": \"$k\", \"n\": {\"$sum\": 1}, \"lo\": {\"$min\": \"$x\"}}}}");
   ok = simq_aggregate (&in, pipeline, &env, &out, &err);
   bool right = ok && out.n == 5000;
   for (size_t i = 0; right && i < out.n; i++) {
      bson_iter_t it;
      right = bson_iter_init_find (&it, out.v[i], "_id") && bson_iter_as_int64 (&it) == (int64_t) i &&
              bson_iter_init_find (&it, out.v[i], "n") && bson_iter_as_int64 (&it) == 4 &&
              bson_iter_init_find (&it, out.v[i], "lo") && bson_iter_as_int64 (&it) == (int64_t) i;
   }
   CHECK ("$group: 5000 groups, in order, counted", right);
   bson_destroy (pipeline);
   simq_docs_clear (&out);
   simq_docs_clear (&in);
}

/* ---- insert: E11000 as before ---- */

static void
test_duplicate_insert (void)
{
   sim_ctx_t ctx;
   bson_t reply;
   bson_t *cmd = json ("{\"insert\": \"d\", \"documents\": [{\"_id\": 1}, {\"_id\": {\"$numberLong\": \"1\"}}, "
                       "{\"_id\": 2}, {\"_id\": 2.0}], \"ordered\": false}");
   /* The database needs a primary shard. */
   bson_t *shard = json ("{\"_id\": \"shard01\", \"host\": \"shard01/127.0.0.1:27018\", \"state\": 1}");
   sim_coll_insert (sim_coll_ensure ("config", "shards"), shard);
   bson_destroy (shard);
   memset (&ctx, 0, sizeof ctx);
   ctx.db = "dup";
   ctx.name = "insert";
   ctx.cmd = cmd;
   bson_init (&reply);
   sim_cmd_insert (&ctx, &reply);
   char *s = bson_as_canonical_extended_json (&reply, NULL);
   CHECK_STR (
      "insert: duplicate _id (1 vs NumberLong(1), 2 vs 2.0) fails with E11000, codeName, keyPattern, keyValue",
      "{ \"n\" : { \"$numberInt\" : \"2\" }, \"writeErrors\" : [ { \"index\" : { \"$numberInt\" : \"1\" }, "
      "\"code\" : { \"$numberInt\" : \"11000\" }, \"codeName\" : \"DuplicateKey\", \"errmsg\" : \"E11000 duplicate "
      "key error collection: dup.d index: _id_ dup key: { _id: 1 }\", \"keyPattern\" : { \"_id\" : { \"$numberInt\" : "
      "\"1\" } }, \"keyValue\" : { \"_id\" : { \"$numberLong\" : \"1\" } } }, { \"index\" : { \"$numberInt\" : "
      "\"3\" }, \"code\" : { \"$numberInt\" : \"11000\" }, \"codeName\" : \"DuplicateKey\", \"errmsg\" : \"E11000 "
      "duplicate key error collection: dup.d index: _id_ dup key: { _id: 2.0 }\", \"keyPattern\" : { \"_id\" : { "
      "\"$numberInt\" : \"1\" } }, \"keyValue\" : { \"_id\" : { \"$numberDouble\" : \"2.0\" } } } ], \"ok\" : { "
      "\"$numberDouble\" : \"1.0\" } }",
      s);
   bson_free (s);
   bson_destroy (&reply);
   bson_destroy (cmd);
   sim_store_free ();
}

/* ---- interruption ---- */

static void
test_stop (void)
{
   bson_error_t err;
   int sv[2];
   sim_conn_t conn;
   memset (&conn, 0, sizeof conn);
   CHECK ("stop: not asked outside a read-only command", !sim_should_stop (&err));
   sim_g.shutting_down = 1;
   CHECK ("stop: writes are not interrupted by the shutdown", !sim_should_stop (&err));
   sim_stop_watch (NULL);
   CHECK ("stop: a read stops at shutdown with 11600", sim_should_stop (&err) && err.code == 11600);
   sim_stop_unwatch ();
   sim_g.shutting_down = 0;
   if (socketpair (AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
      UNIT_FAIL ("stop: socketpair", "failed");
      return;
   }
   conn.fd = sv[0];
   sim_stop_watch (&conn);
   CHECK ("stop: a connected client keeps its read", !sim_should_stop (&err));
   close (sv[1]);
   sim_stop_unwatch ();
   sim_stop_watch (&conn); /* looks at the socket at once */
   CHECK ("stop: a client gone abandons its read with 279", sim_should_stop (&err) && err.code == 279);
   sim_stop_unwatch ();
   CHECK ("stop: unwatched again", !sim_should_stop (&err));
   close (sv[0]);
}

int
main (void)
{
   sim_g.ver = sim_version_find ("8.0");
   sim_g.rng = 1;
   sim_g.wake_pipe[0] = sim_g.wake_pipe[1] = -1;
   pthread_mutex_init (&sim_g.lock, NULL);
   test_hash_value ();
   test_htab ();
   test_id_index ();
   test_range_index ();
   test_range_index_conflicts_late ();
   test_or_partitions ();
   test_group ();
   test_duplicate_insert ();
   test_stop ();
   sim_store_free ();
   pthread_mutex_destroy (&sim_g.lock);
   UNIT_EXIT ();
}
