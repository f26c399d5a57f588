/* The query engine's document rewriting: update operators and replacement updates with the server's error codes,
 * and the seed document of an upsert (projections are simq_project.c). */
#include "tests/shardsim/query/simq_int.h"
#include "shell/lib/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- updates ---- */

typedef struct {
   const char *op;
   const char *path;
   const char *to; /* $rename target */
   bson_value_t arg;
} simq_upd_t;

static int
simq_path_cmp (const char *a, const char *b)
{
   /* Component-wise, so "a.b" sorts with "a" before "a0". */
   for (;;) {
      const char *da = strchr (a, '.'), *db = strchr (b, '.');
      size_t la = da ? (size_t) (da - a) : strlen (a), lb = db ? (size_t) (db - b) : strlen (b);
      int c = memcmp (a, b, la < lb ? la : lb);
      if (c != 0) {
         return c;
      }
      if (la != lb) {
         return la < lb ? -1 : 1;
      }
      if (!da || !db) {
         return da ? 1 : (db ? -1 : 0);
      }
      a = da + 1;
      b = db + 1;
   }
}

static int
simq_upd_cmp (const void *pa, const void *pb)
{
   const simq_upd_t *a = pa, *b = pb;
   return simq_path_cmp (a->path, b->path);
}

/* Is a a (component-wise) prefix of b, or equal? */
static bool
simq_path_prefix (const char *a, const char *b)
{
   size_t la = strlen (a);
   return strncmp (a, b, la) == 0 && (b[la] == '\0' || b[la] == '.');
}

static bool
simq_get_update_value (const bson_t *doc, const char *path, bson_value_t *out)
{
   return simq_get_path (doc, path, out);
}

static bool
simq_replace_doc (bson_t *cur, bson_t *next)
{
   bson_destroy (cur);
   bson_steal (cur, next);
   return true;
}

static bool
simq_set_into (bson_t *cur, const char *path, const bson_value_t *v, bson_error_t *error)
{
   bson_t next;
   if (!simq_set_path (cur, path, v, &next, error)) {
      bson_destroy (&next);
      return false;
   }
   return simq_replace_doc (cur, &next);
}

static bool
simq_id_json_fail (bson_error_t *error, int code, const char *fmt, const bson_t *doc, const char *field)
{
   bson_value_t id;
   char *j;
   if (!simq_get_path (doc, "_id", &id)) {
      return simq_fail (error, code, fmt, "{}", field);
   }
   j = simq_value_json (&id);
   {
      char *wrapped = bson_strdup_printf ("{_id: %s}", j);
      simq_fail (error, code, fmt, wrapped, field);
      bson_free (wrapped);
   }
   bson_free (j);
   return false;
}

/* Builds a new array value from the elements of cur (may be missing) with edits applied by the caller. */
static void
simq_array_append_all (bson_t *arr, uint32_t *k, const bson_value_t *v)
{
   char key[24];
   snprintf (key, sizeof key, "%u", (*k)++);
   bson_append_value (arr, key, -1, v);
}

/* $addToSet: the old elements, then each new item that equals neither an old element nor an earlier item, appended to
 * arr (*k numbers the keys). */
static void
simq_add_to_set_merge (bson_t *arr, uint32_t *k, const bson_value_t *olds, size_t nolds, const bson_value_t *items,
                       size_t nitems)
{
   for (size_t i = 0; i < nolds; i++) {
      simq_array_append_all (arr, k, &olds[i]);
   }
   for (size_t i = 0; i < nitems; i++) {
      bool dup = false;
      for (size_t j = 0; j < nolds && !dup; j++) {
         dup = order_values (&olds[j], &items[i]) == 0;
      }
      for (size_t j = 0; j < i && !dup; j++) {
         dup = order_values (&items[j], &items[i]) == 0;
      }
      if (!dup) {
         simq_array_append_all (arr, k, &items[i]);
      }
   }
}

/* $push's $sort: orders docs (single-field { v } documents) by sort_v, 1/-1 for the whole element or { field: 1/-1 }
 * for embedded fields; false (error 2) for an invalid specification. */
static bool
simq_push_sort (simq_docs_t *sortdocs, const bson_value_t *sort_v, bson_error_t *error)
{
   bson_t sortspec = BSON_INITIALIZER;
   int64_t dir;
   bool sorted;
   bson_iter_t it;
   if (simq_is_integral_number (sort_v, &dir)) {
      BSON_APPEND_INT32 (&sortspec, "v", (int32_t) dir);
   } else if (sort_v->value_type == BSON_TYPE_DOCUMENT) {
      bson_t sd;
      simq_value_as_doc (sort_v, &sd);
      bson_iter_init (&it, &sd);
      while (bson_iter_next (&it)) {
         char *p = bson_strdup_printf ("v.%s", bson_iter_key (&it));
         bson_append_value (&sortspec, p, -1, bson_iter_value (&it));
         bson_free (p);
      }
   }
   sorted = simq_sort (sortdocs, &sortspec, error);
   bson_destroy (&sortspec);
   if (!sorted) {
      return simq_fail (error, 2,
                        "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort "
                        "embedded fields");
   }
   return true;
}

static bool
simq_apply_push (bson_t *cur, const simq_upd_t *u, bool add_to_set, bson_error_t *error)
{
   bson_value_t existing, each, slice_v, sort_v, pos_v;
   bson_t arr = BSON_INITIALIZER, argdoc, eachdoc;
   bson_value_t *items = NULL, *olds = NULL;
   size_t nitems = 0, nolds = 0;
   bool has_each = false, has_slice = false, has_sort = false, has_pos = false, ok = false;
   int64_t slice = 0, position = 0;
   uint32_t k = 0;
   bson_iter_t it;
   bson_t olddoc;
   simq_docs_t sortdocs;

   simq_docs_init (&sortdocs);
   if (u->arg.value_type == BSON_TYPE_DOCUMENT && simq_value_as_doc (&u->arg, &argdoc) &&
       bson_iter_init_find (&it, &argdoc, "$each")) {
      has_each = true;
      each = *bson_iter_value (&it);
      if (each.value_type != BSON_TYPE_ARRAY) {
         simq_fail (error, 2, "The argument to $each in %s must be an array but it was of type: %s",
                    add_to_set ? "$addToSet" : "$push", simq_type_name (each.value_type));
         goto cleanup;
      }
      bson_iter_init (&it, &argdoc);
      while (bson_iter_next (&it)) {
         const char *k2 = bson_iter_key (&it);
         if (strcmp (k2, "$each") == 0) {
            continue;
         }
         if (!add_to_set && strcmp (k2, "$slice") == 0) {
            has_slice = true;
            slice_v = *bson_iter_value (&it);
            if (!simq_is_integral_number (&slice_v, &slice)) {
               simq_fail (error, 2, "The value for $slice must be an integer value but was given type: %s",
                          simq_type_name (slice_v.value_type));
               goto cleanup;
            }
         } else if (!add_to_set && strcmp (k2, "$sort") == 0) {
            has_sort = true;
            sort_v = *bson_iter_value (&it);
         } else if (!add_to_set && strcmp (k2, "$position") == 0) {
            has_pos = true;
            pos_v = *bson_iter_value (&it);
            if (!simq_is_integral_number (&pos_v, &position)) {
               simq_fail (error, 2, "The value for $position must be an integer value, not of type: %s",
                          simq_type_name (pos_v.value_type));
               goto cleanup;
            }
         } else {
            simq_fail (error, 2, "Unrecognized clause in %s: %s", add_to_set ? "$addToSet" : "$push", k2);
            goto cleanup;
         }
      }
   }
   if (has_each) {
      simq_value_as_doc (&each, &eachdoc);
      items = bson_malloc0 ((bson_count_keys (&eachdoc) + 1) * sizeof *items);
      bson_iter_init (&it, &eachdoc);
      while (bson_iter_next (&it)) {
         items[nitems++] = *bson_iter_value (&it);
      }
   } else {
      items = bson_malloc0 (sizeof *items);
      items[nitems++] = u->arg;
   }

   if (simq_get_update_value (cur, u->path, &existing)) {
      if (existing.value_type != BSON_TYPE_ARRAY) {
         char *msg = bson_strdup_printf ("The field '%s' must be an array but is of type %s in document %%s", u->path,
                                         simq_type_name (existing.value_type));
         simq_id_json_fail (error, 2, msg, cur, u->path);
         bson_free (msg);
         goto cleanup;
      }
      simq_value_as_doc (&existing, &olddoc);
      olds = bson_malloc0 ((bson_count_keys (&olddoc) + 1) * sizeof *olds);
      bson_iter_init (&it, &olddoc);
      while (bson_iter_next (&it)) {
         olds[nolds++] = *bson_iter_value (&it);
      }
   }

   if (add_to_set) {
      simq_add_to_set_merge (&arr, &k, olds, nolds, items, nitems);
   } else {
      size_t at = nolds;
      if (has_pos) {
         if (position < 0) {
            at = (int64_t) nolds + position < 0 ? 0 : (size_t) ((int64_t) nolds + position);
         } else {
            at = (size_t) position < nolds ? (size_t) position : nolds;
         }
      }
      /* Collect the combined list as single-field documents so $sort can reuse simq_sort. */
      for (size_t i = 0; i <= nolds; i++) {
         if (i == at) {
            for (size_t j = 0; j < nitems; j++) {
               bson_t *d = bson_new ();
               bson_append_value (d, "v", 1, &items[j]);
               simq_docs_push_owned (&sortdocs, d);
            }
         }
         if (i < nolds) {
            bson_t *d = bson_new ();
            bson_append_value (d, "v", 1, &olds[i]);
            simq_docs_push_owned (&sortdocs, d);
         }
      }
      if (has_sort && !simq_push_sort (&sortdocs, &sort_v, error)) {
         goto cleanup;
      }
      {
         size_t from = 0, to = sortdocs.n;
         if (has_slice) {
            if (slice >= 0) {
               to = (size_t) slice < to ? (size_t) slice : to;
            } else {
               from = (int64_t) to + slice < 0 ? 0 : (size_t) ((int64_t) to + slice);
            }
         }
         for (size_t i = from; i < to; i++) {
            bson_value_t v;
            simq_get_path (sortdocs.v[i], "v", &v);
            simq_array_append_all (&arr, &k, &v);
         }
      }
   }
   {
      bson_value_t nv;
      simq_value_from_doc (&arr, true, &nv);
      ok = simq_set_into (cur, u->path, &nv, error);
      simq_value_destroy (&nv);
   }
cleanup:
   bson_free (items);
   bson_free (olds);
   bson_destroy (&arr);
   simq_docs_clear (&sortdocs);
   return ok;
}

static bool
simq_apply_pull (bson_t *cur, const simq_upd_t *u, bool pull_all, bson_error_t *error)
{
   bson_value_t existing;
   bson_t olddoc, arr = BSON_INITIALIZER, cond_doc;
   bson_iter_t it;
   uint32_t k = 0;
   bool ok = false, object_form = false, value_form = false;

   if (pull_all && u->arg.value_type != BSON_TYPE_ARRAY) {
      simq_fail (error, 2, "$pullAll requires an array argument but was given a %s",
                 simq_type_name (u->arg.value_type));
      goto cleanup;
   }
   if (!simq_get_update_value (cur, u->path, &existing)) {
      ok = true;
      goto cleanup;
   }
   if (existing.value_type != BSON_TYPE_ARRAY) {
      simq_fail (error, 2, "Cannot apply %s to a non-array value", pull_all ? "$pullAll" : "$pull");
      goto cleanup;
   }
   if (!pull_all && u->arg.value_type == BSON_TYPE_DOCUMENT && simq_value_as_doc (&u->arg, &cond_doc)) {
      bson_iter_t ci;
      if (bson_iter_init (&ci, &cond_doc) && bson_iter_next (&ci) && bson_iter_key (&ci)[0] == '$' &&
          strcmp (bson_iter_key (&ci), "$and") != 0 && strcmp (bson_iter_key (&ci), "$or") != 0 &&
          strcmp (bson_iter_key (&ci), "$nor") != 0) {
         value_form = true;
      } else {
         object_form = true;
      }
   }
   simq_value_as_doc (&existing, &olddoc);
   bson_iter_init (&it, &olddoc);
   while (bson_iter_next (&it)) {
      const bson_value_t *e = bson_iter_value (&it);
      bool remove = false;
      if (pull_all) {
         bson_t list;
         bson_iter_t li;
         simq_value_as_doc (&u->arg, &list);
         bson_iter_init (&li, &list);
         while (!remove && bson_iter_next (&li)) {
            remove = order_values (e, bson_iter_value (&li)) == 0;
         }
      } else if (value_form) {
         bson_t wrap = BSON_INITIALIZER, filter = BSON_INITIALIZER;
         bson_append_value (&wrap, "v", 1, e);
         bson_append_value (&filter, "v", 1, &u->arg);
         ok = simq_match (&wrap, &filter, &remove, error);
         bson_destroy (&wrap);
         bson_destroy (&filter);
         if (!ok) {
            goto cleanup;
         }
         ok = false;
      } else if (object_form) {
         if (e->value_type == BSON_TYPE_DOCUMENT) {
            bson_t ed;
            simq_value_as_doc (e, &ed);
            if (!simq_match (&ed, &cond_doc, &remove, error)) {
               goto cleanup;
            }
         }
      } else {
         remove = order_values (e, &u->arg) == 0;
      }
      if (!remove) {
         simq_array_append_all (&arr, &k, e);
      }
   }
   {
      bson_value_t nv;
      simq_value_from_doc (&arr, true, &nv);
      ok = simq_set_into (cur, u->path, &nv, error);
      simq_value_destroy (&nv);
   }
cleanup:
   bson_destroy (&arr);
   return ok;
}

static bool
simq_apply_arith (bson_t *cur, const simq_upd_t *u, bool is_mul, bson_error_t *error)
{
   bson_value_t existing, result;
   const bson_value_t *a = &u->arg;

   if (!simq_is_number (a)) {
      char *j = simq_value_json (a);
      simq_fail (error, 14, "Cannot %s with non-numeric argument: {%s: %s}", is_mul ? "multiply" : "increment", u->path,
                 j);
      bson_free (j);
      return false;
   }
   memset (&result, 0, sizeof result);
   if (!simq_get_update_value (cur, u->path, &existing)) {
      if (!is_mul) {
         result = *a;
      } else {
         result.value_type = a->value_type;
         if (a->value_type == BSON_TYPE_DECIMAL128) {
            return simq_fail (error, 238, "shardsim: $mul on decimal128 values is not implemented");
         }
         /* value 0 of the argument's type: zeroed union */
      }
      return simq_set_into (cur, u->path, &result, error);
   }
   if (!simq_is_number (&existing)) {
      char *msg = bson_strdup_printf ("Cannot apply %s to a value of non-numeric type. %%s has the field '%s' of "
                                      "non-numeric type %s",
                                      is_mul ? "$mul" : "$inc", u->path, simq_type_name (existing.value_type));
      simq_id_json_fail (error, 14, msg, cur, u->path);
      bson_free (msg);
      return false;
   }
   if (existing.value_type == BSON_TYPE_DECIMAL128 || a->value_type == BSON_TYPE_DECIMAL128) {
      return simq_fail (error, 238, "shardsim: %s on decimal128 values is not implemented", is_mul ? "$mul" : "$inc");
   }
   if (existing.value_type == BSON_TYPE_DOUBLE || a->value_type == BSON_TYPE_DOUBLE) {
      double x = simq_to_double (&existing), y = simq_to_double (a);
      result.value_type = BSON_TYPE_DOUBLE;
      result.value.v_double = is_mul ? x * y : x + y;
   } else {
      int64_t x = existing.value_type == BSON_TYPE_INT32 ? existing.value.v_int32 : existing.value.v_int64;
      int64_t y = a->value_type == BSON_TYPE_INT32 ? a->value.v_int32 : a->value.v_int64;
      int64_t r;
      bool over = is_mul ? __builtin_mul_overflow (x, y, &r) : __builtin_add_overflow (x, y, &r);
      if (over) {
         return simq_fail (error, 2, "Failed to apply %s operations to current value for field '%s'",
                           is_mul ? "$mul" : "$inc", u->path);
      }
      if (existing.value_type == BSON_TYPE_INT32 && a->value_type == BSON_TYPE_INT32 && r >= INT32_MIN &&
          r <= INT32_MAX) {
         result.value_type = BSON_TYPE_INT32;
         result.value.v_int32 = (int32_t) r;
      } else {
         result.value_type = BSON_TYPE_INT64;
         result.value.v_int64 = r;
      }
   }
   return simq_set_into (cur, u->path, &result, error);
}

static bool
simq_apply_one (bson_t *cur, const simq_upd_t *u, bool is_insert, bson_error_t *error)
{
   const char *op = u->op;
   bson_value_t existing;

   if (strcmp (op, "$set") == 0 || (strcmp (op, "$setOnInsert") == 0 && is_insert)) {
      return simq_set_into (cur, u->path, &u->arg, error);
   }
   if (strcmp (op, "$setOnInsert") == 0) {
      return true;
   }
   if (strcmp (op, "$unset") == 0) {
      bson_t next;
      bool found;
      simq_unset_path (cur, u->path, &next, &found);
      return simq_replace_doc (cur, &next);
   }
   if (strcmp (op, "$inc") == 0 || strcmp (op, "$mul") == 0) {
      return simq_apply_arith (cur, u, op[1] == 'm', error);
   }
   if (strcmp (op, "$min") == 0 || strcmp (op, "$max") == 0) {
      if (simq_get_update_value (cur, u->path, &existing)) {
         int c = order_values (&u->arg, &existing);
         if ((op[2] == 'i' && c >= 0) || (op[2] == 'a' && c <= 0)) {
            return true;
         }
      }
      return simq_set_into (cur, u->path, &u->arg, error);
   }
   if (strcmp (op, "$currentDate") == 0) {
      int64_t now_ms = clock_wall_ms ();
      bson_value_t now;
      bool as_ts = false;
      if (u->arg.value_type == BSON_TYPE_DOCUMENT) {
         bson_t d;
         bson_iter_t it;
         simq_value_as_doc (&u->arg, &d);
         if (!bson_iter_init_find (&it, &d, "$type") || !BSON_ITER_HOLDS_UTF8 (&it) ||
             (strcmp (bson_iter_utf8 (&it, NULL), "date") != 0 &&
              strcmp (bson_iter_utf8 (&it, NULL), "timestamp") != 0)) {
            return simq_fail (error, 2,
                              "The '$type' string field is required to be 'date' or 'timestamp': "
                              "{$currentDate: {field : {$type: 'date'}}}");
         }
         as_ts = strcmp (bson_iter_utf8 (&it, NULL), "timestamp") == 0;
      } else if (u->arg.value_type != BSON_TYPE_BOOL) {
         return simq_fail (error, 2,
                           "%s is not valid type for $currentDate. Please use a boolean ('true') or a "
                           "$type expression ({$type: 'timestamp/date'}).",
                           simq_type_name (u->arg.value_type));
      }
      memset (&now, 0, sizeof now);
      if (as_ts) {
         now.value_type = BSON_TYPE_TIMESTAMP;
         now.value.v_timestamp.timestamp = (uint32_t) (now_ms / 1000);
         now.value.v_timestamp.increment = 1;
      } else {
         now.value_type = BSON_TYPE_DATE_TIME;
         now.value.v_datetime = now_ms;
      }
      return simq_set_into (cur, u->path, &now, error);
   }
   if (strcmp (op, "$rename") == 0) {
      bson_value_t copy;
      bson_t next;
      bool found, ok;
      if (!simq_get_update_value (cur, u->path, &existing)) {
         return true;
      }
      simq_value_copy (&existing, &copy);
      simq_unset_path (cur, u->path, &next, &found);
      simq_replace_doc (cur, &next);
      ok = simq_set_into (cur, u->to, &copy, error);
      simq_value_destroy (&copy);
      return ok;
   }
   if (strcmp (op, "$push") == 0 || strcmp (op, "$addToSet") == 0) {
      return simq_apply_push (cur, u, op[1] == 'a', error);
   }
   if (strcmp (op, "$pull") == 0 || strcmp (op, "$pullAll") == 0) {
      return simq_apply_pull (cur, u, strcmp (op, "$pullAll") == 0, error);
   }
   if (strcmp (op, "$pop") == 0) {
      int64_t dir;
      bson_t olddoc, arr = BSON_INITIALIZER;
      bson_iter_t it;
      uint32_t n, i = 0, k = 0;
      bson_value_t nv;
      bool ok;
      if (!simq_is_integral_number (&u->arg, &dir) || (dir != 1 && dir != -1)) {
         bson_destroy (&arr);
         return simq_fail (error, 9, "$pop expects 1 or -1, found: %s", "value");
      }
      if (!simq_get_update_value (cur, u->path, &existing)) {
         bson_destroy (&arr);
         return true;
      }
      if (existing.value_type != BSON_TYPE_ARRAY) {
         bson_destroy (&arr);
         return simq_fail (error, 14, "Path '%s' contains an element of non-array type '%s'", u->path,
                           simq_type_name (existing.value_type));
      }
      simq_value_as_doc (&existing, &olddoc);
      n = bson_count_keys (&olddoc);
      bson_iter_init (&it, &olddoc);
      while (bson_iter_next (&it)) {
         if (n > 0 && ((dir == 1 && i == n - 1) || (dir == -1 && i == 0))) {
            i++;
            continue;
         }
         i++;
         simq_array_append_all (&arr, &k, bson_iter_value (&it));
      }
      simq_value_from_doc (&arr, true, &nv);
      bson_destroy (&arr);
      ok = simq_set_into (cur, u->path, &nv, error);
      simq_value_destroy (&nv);
      return ok;
   }
   return simq_fail (error, 9,
                     "Unknown modifier: %s. Expected a valid update modifier or pipeline-style update "
                     "specified as an array",
                     op);
}

static const char *const simq_update_ops[] = { "$set",      "$unset", "$inc",         "$mul",    "$push",
                                               "$addToSet", "$pull",  "$pullAll",     "$pop",    "$setOnInsert",
                                               "$min",      "$max",   "$currentDate", "$rename", NULL };

static bool
simq_replacement (const bson_t *doc, const bson_t *update, bool is_insert, bson_t *out, bool *modified,
                  bson_error_t *error)
{
   bson_value_t old_id, new_id;
   bool have_old = simq_get_path (doc, "_id", &old_id);
   bool have_new = simq_get_path (update, "_id", &new_id);
   bson_iter_t it;

   if (bson_iter_init (&it, update)) {
      while (bson_iter_next (&it)) {
         if (bson_iter_key (&it)[0] == '$') {
            return simq_fail (error, 52,
                              "The dollar ($) prefixed field '%s' in '%s' is not allowed in the context "
                              "of an update's replacement document. Consider using an aggregation "
                              "pipeline with $replaceWith.",
                              bson_iter_key (&it), bson_iter_key (&it));
         }
      }
   }
   if (have_old && have_new && !is_insert && order_values (&old_id, &new_id) != 0) {
      char *j = simq_value_json (&new_id);
      simq_fail (error, 66,
                 "After applying the update, the (immutable) field '_id' was found to have been altered "
                 "to _id: %s",
                 j);
      bson_free (j);
      return false;
   }
   if (have_new) {
      bson_append_value (out, "_id", 3, &new_id);
   } else if (have_old) {
      bson_append_value (out, "_id", 3, &old_id);
   }
   bson_iter_init (&it, update);
   while (bson_iter_next (&it)) {
      if (strcmp (bson_iter_key (&it), "_id") != 0) {
         bson_append_value (out, bson_iter_key (&it), (int) bson_iter_key_len (&it), bson_iter_value (&it));
      }
   }
   *modified = !bson_equal (doc, out);
   return true;
}

bool
simq_apply_update (const bson_t *doc, const bson_t *update, bool is_insert, bson_t *out, bool *modified,
                   bson_error_t *error)
{
   simq_upd_t *ups = NULL;
   size_t n = 0, cap;
   bson_iter_t it;
   bool ok = false, first_is_op;
   bson_value_t old_id, new_id;
   bool had_id;

   bson_init (out);
   *modified = false;
   first_is_op = bson_iter_init (&it, update) && bson_iter_next (&it) && bson_iter_key (&it)[0] == '$';
   if (!first_is_op) {
      return simq_replacement (doc, update, is_insert, out, modified, error);
   }

   cap = 16;
   ups = bson_malloc0 (cap * sizeof *ups);
   bson_iter_init (&it, update);
   while (bson_iter_next (&it)) {
      const char *op = bson_iter_key (&it);
      bool known = false;
      bson_t fields;
      bson_iter_t fi;
      for (size_t i = 0; simq_update_ops[i]; i++) {
         known = known || strcmp (simq_update_ops[i], op) == 0;
      }
      if (!known) {
         simq_fail (error, 9,
                    "Unknown modifier: %s. Expected a valid update modifier or pipeline-style update "
                    "specified as an array",
                    op);
         goto cleanup;
      }
      if (!BSON_ITER_HOLDS_DOCUMENT (&it)) {
         simq_fail (error, 9,
                    "Modifiers operate on fields but we found type %s instead. For example: {$mod: "
                    "{<field>: ...}} not {%s: %s}",
                    simq_type_name (bson_iter_type (&it)), op, "...");
         goto cleanup;
      }
      simq_value_as_doc (bson_iter_value (&it), &fields);
      bson_iter_init (&fi, &fields);
      while (bson_iter_next (&fi)) {
         const char *path = bson_iter_key (&fi);
         if (path[0] == '\0') {
            simq_fail (error, 56, "An empty update path is not valid.");
            goto cleanup;
         }
         if (strstr (path, "$")) {
            simq_fail (error, 238, "shardsim: positional update paths ('%s') are not implemented", path);
            goto cleanup;
         }
         if (n + 2 >= cap) {
            cap *= 2;
            ups = bson_realloc (ups, cap * sizeof *ups);
         }
         ups[n].op = op;
         ups[n].path = path;
         ups[n].to = NULL;
         ups[n].arg = *bson_iter_value (&fi);
         if (strcmp (op, "$rename") == 0) {
            if (!BSON_ITER_HOLDS_UTF8 (&fi)) {
               simq_fail (error, 2, "The 'to' field for $rename must be a string: %s: %s", path, "...");
               goto cleanup;
            }
            ups[n].to = bson_iter_utf8 (&fi, NULL);
            if (ups[n].to[0] == '\0') {
               simq_fail (error, 56, "An empty update path is not valid.");
               goto cleanup;
            }
            if (strcmp (ups[n].to, path) == 0) {
               simq_fail (error, 2, "The source and target field for $rename must differ: %s: \"%s\"", path, path);
               goto cleanup;
            }
            /* The target takes part in conflict detection as its own entry. */
            ups[n + 1] = ups[n];
            ups[n + 1].path = ups[n].to;
            ups[n + 1].op = "$rename-target";
            n++;
         }
         n++;
      }
   }
   /* Two operations on the same path, or on a path and its prefix, conflict. */
   for (size_t i = 0; i < n; i++) {
      for (size_t j = i + 1; j < n; j++) {
         if (simq_path_prefix (ups[i].path, ups[j].path) || simq_path_prefix (ups[j].path, ups[i].path)) {
            const char *longer = strlen (ups[i].path) >= strlen (ups[j].path) ? ups[i].path : ups[j].path;
            const char *shorter = longer == ups[i].path ? ups[j].path : ups[i].path;
            simq_fail (error, 40, "Updating the path '%s' would create a conflict at '%s'", longer, shorter);
            goto cleanup;
         }
      }
   }
   qsort (ups, n, sizeof *ups, simq_upd_cmp);

   bson_destroy (out);
   bson_copy_to (doc, out);
   for (size_t i = 0; i < n; i++) {
      if (strcmp (ups[i].op, "$rename-target") == 0) {
         continue;
      }
      if (!simq_apply_one (out, &ups[i], is_insert, error)) {
         goto cleanup;
      }
   }
   had_id = simq_get_path (doc, "_id", &old_id);
   if (had_id && (!simq_get_path (out, "_id", &new_id) || order_values (&old_id, &new_id) != 0 ||
                  old_id.value_type != new_id.value_type)) {
      simq_fail (error, 66, "Performing an update on the path '_id' would modify the immutable field '_id'");
      goto cleanup;
   }
   *modified = !bson_equal (doc, out);
   ok = true;
cleanup:
   bson_free (ups);
   if (!ok) {
      bson_reinit (out);
      *modified = false;
   }
   return ok;
}

/* ---- upsert seed ---- */

static void
simq_seed_from (const bson_t *query, bson_t *seed)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, query)) {
      return;
   }
   while (bson_iter_next (&it)) {
      const char *key = bson_iter_key (&it);
      const bson_value_t *v = bson_iter_value (&it);
      bson_value_t eq;
      bson_t sub, next;
      bson_error_t ignored;

      if (key[0] == '$') {
         if (strcmp (key, "$and") == 0 && v->value_type == BSON_TYPE_ARRAY && simq_value_as_doc (v, &sub)) {
            bson_iter_t ai;
            bson_iter_init (&ai, &sub);
            while (bson_iter_next (&ai)) {
               bson_t clause;
               if (BSON_ITER_HOLDS_DOCUMENT (&ai) && simq_value_as_doc (bson_iter_value (&ai), &clause)) {
                  simq_seed_from (&clause, seed);
               }
            }
         }
         continue;
      }
      if (v->value_type == BSON_TYPE_REGEX) {
         continue;
      }
      eq = *v;
      if (v->value_type == BSON_TYPE_DOCUMENT && simq_value_as_doc (v, &sub)) {
         bson_iter_t si;
         if (bson_iter_init (&si, &sub) && bson_iter_next (&si) && bson_iter_key (&si)[0] == '$') {
            if (strcmp (bson_iter_key (&si), "$eq") != 0 || bson_count_keys (&sub) != 1) {
               continue;
            }
            eq = *bson_iter_value (&si);
         }
      }
      if (simq_set_path (seed, key, &eq, &next, &ignored)) {
         bson_destroy (seed);
         bson_steal (seed, &next);
      } else {
         bson_destroy (&next);
      }
   }
}

void
simq_upsert_seed (const bson_t *query, bson_t *out)
{
   bson_t seed = BSON_INITIALIZER;
   bson_value_t id;
   bson_iter_t it;

   simq_seed_from (query, &seed);
   bson_init (out);
   /* _id goes first, as in the server's upsert documents. */
   if (simq_get_path (&seed, "_id", &id)) {
      bson_append_value (out, "_id", 3, &id);
   }
   if (bson_iter_init (&it, &seed)) {
      while (bson_iter_next (&it)) {
         if (strcmp (bson_iter_key (&it), "_id") != 0) {
            bson_append_value (out, bson_iter_key (&it), (int) bson_iter_key_len (&it), bson_iter_value (&it));
         }
      }
   }
   bson_destroy (&seed);
}
