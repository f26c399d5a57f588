/* Keys that look like Extended JSON on the engine plugin's bridge: the mark put on and taken off every key starting
 * with '$' (js_bson.h says why). Compiled into the plugin beside js_prelude.c. */
#include <string.h>

#include "shell/js/js_bson.h"
#include "shell/js/js_util.h"

/* deeper documents are copied as they are (the prelude refuses values nested deeper than 150) */
#define JS_KEYS_MAX_DEPTH 200

static bool
js_bson_key_needs_mark (const char *key)
{
   return key[0] == '$' || key[0] == JS_KEY_MARK;
}

/* The document or array it holds, as a static bson_t; false for other types. */
static bool
js_bson_keys_sub (const bson_iter_t *it, bson_t *sub)
{
   uint32_t len = 0;
   const uint8_t *data = NULL;
   if (BSON_ITER_HOLDS_DOCUMENT (it))
      bson_iter_document (it, &len, &data);
   else if (BSON_ITER_HOLDS_ARRAY (it))
      bson_iter_array (it, &len, &data);
   return data && bson_init_static (sub, data, len);
}

static bool
js_bson_keys_any_at (const bson_t *doc, bool mark, int depth)
{
   bson_iter_t it;
   bson_t sub;
   if (depth > JS_KEYS_MAX_DEPTH || !bson_iter_init (&it, doc))
      return false;
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (mark ? js_bson_key_needs_mark (k) : k[0] == JS_KEY_MARK)
         return true;
      if (js_bson_keys_sub (&it, &sub) && js_bson_keys_any_at (&sub, mark, depth + 1))
         return true;
   }
   return false;
}

bool
js_bson_keys_any (const bson_t *doc, bool mark)
{
   return js_bson_keys_any_at (doc, mark, 0);
}

static void
js_bson_keys_copy_at (const bson_t *in, bson_t *out, bool mark, int depth)
{
   bson_iter_t it;
   bson_t sub, child;
   if (!bson_iter_init (&it, in))
      return;
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      char *marked = NULL;
      if (mark && js_bson_key_needs_mark (k))
         k = marked = bson_strdup_printf ("%c%s", JS_KEY_MARK, k);
      else if (!mark && k[0] == JS_KEY_MARK)
         k++;
      if (depth < JS_KEYS_MAX_DEPTH && js_bson_keys_sub (&it, &sub)) {
         if (BSON_ITER_HOLDS_ARRAY (&it)) {
            bson_append_array_begin (out, k, -1, &child);
            js_bson_keys_copy_at (&sub, &child, mark, depth + 1);
            bson_append_array_end (out, &child);
         } else {
            bson_append_document_begin (out, k, -1, &child);
            js_bson_keys_copy_at (&sub, &child, mark, depth + 1);
            bson_append_document_end (out, &child);
         }
      } else {
         bson_append_value (out, k, -1, bson_iter_value (&it));
      }
      bson_free (marked);
   }
}

void
js_bson_keys_copy (const bson_t *in, bson_t *out, bool mark)
{
   js_bson_keys_copy_at (in, out, mark, 0);
}

bool
js_bson_parse (const char *json, bson_t *doc, bson_error_t *error)
{
   /* bson_init_from_json destroys doc when it fails: initialise it again, never reuse it */
   if (!bson_init_from_json (doc, json, -1, error)) {
      bson_init (doc);
      return false;
   }
   /* JSON.stringify writes the mark as \u0001: only a text holding one can carry a marked key */
   if (strstr (json, "\\u0001") && js_bson_keys_any (doc, false)) {
      bson_t plain = BSON_INITIALIZER;
      js_bson_keys_copy (doc, &plain, false);
      bson_destroy (doc);
      bson_steal (doc, &plain);
   }
   return true;
}

char *
js_bson_to_json (const bson_t *doc, const char *prefix, size_t *len)
{
   size_t n = 0;
   char *s, *out;
   if (js_bson_keys_any (doc, true)) {
      bson_t marked = BSON_INITIALIZER;
      js_bson_keys_copy (doc, &marked, true);
      s = bson_as_canonical_extended_json (&marked, &n);
      bson_destroy (&marked);
   } else {
      s = bson_as_canonical_extended_json (doc, &n);
   }
   if (!s)
      return NULL;
   out = bson_strdup_printf ("%s%s", prefix, s);
   *len = strlen (prefix) + n;
   bson_free (s);
   return out;
}

char *
js_bson_error_json (const sh_error_t *err, const bson_t *detail, size_t *len)
{
   bson_t edoc = BSON_INITIALIZER;
   bson_iter_t v;
   char *s;
   BSON_APPEND_INT32 (&edoc, "kind", (int32_t) err->kind);
   BSON_APPEND_INT32 (&edoc, "code", err->code);
   BSON_APPEND_UTF8 (&edoc, "codeName", err->code_name);
   BSON_APPEND_UTF8 (&edoc, "message", err->message);
   BSON_APPEND_UTF8 (&edoc, "hint", err->hint);
   BSON_APPEND_INT32 (&edoc, "line", err->has_pos ? err->pos.line : 0);
   BSON_APPEND_INT32 (&edoc, "col", err->has_pos ? err->pos.col : 0);
   if (detail && bson_iter_init_find (&v, detail, "v"))
      BSON_APPEND_VALUE (&edoc, "detail", bson_iter_value (&v));
   s = js_bson_to_json (&edoc, "E", len);
   bson_destroy (&edoc);
   if (!s) { /* a message that is not valid UTF-8 */
      *len = 3;
      return bson_strdup ("E{}");
   }
   return s;
}

size_t
js_bson_string_array (const char *json, char **out, size_t max)
{
   /* a JSON array: wrapped so libbson reads it as a document */
   char *wrapped = bson_strdup_printf ("{\"a\": %s}", json);
   bson_t doc;
   bson_iter_t it, a;
   size_t n = 0;
   if (bson_init_from_json (&doc, wrapped, -1, NULL)) {
      if (bson_iter_init_find (&it, &doc, "a") && bson_iter_recurse (&it, &a)) {
         while (n < max && bson_iter_next (&a)) {
            if (BSON_ITER_HOLDS_UTF8 (&a))
               out[n++] = strdup (bson_iter_utf8 (&a, NULL));
         }
      }
      bson_destroy (&doc);
   }
   bson_free (wrapped);
   return n;
}

const char *
js_bson_error_read (const bson_t *doc, sh_err_kind_t fallback, sh_error_t *err)
{
   bson_iter_t it;
   const char *file = NULL;
   js_err_clear (err);
   err->kind = fallback;
   if (bson_iter_init_find (&it, doc, "kind") && BSON_ITER_HOLDS_INT32 (&it))
      err->kind = (sh_err_kind_t) bson_iter_int32 (&it);
   if (bson_iter_init_find (&it, doc, "code") && BSON_ITER_HOLDS_INT32 (&it))
      err->code = bson_iter_int32 (&it);
   if (bson_iter_init_find (&it, doc, "codeName") && BSON_ITER_HOLDS_UTF8 (&it))
      bson_strncpy (err->code_name, bson_iter_utf8 (&it, NULL), sizeof err->code_name);
   if (bson_iter_init_find (&it, doc, "message") && BSON_ITER_HOLDS_UTF8 (&it))
      bson_strncpy (err->message, bson_iter_utf8 (&it, NULL), sizeof err->message);
   if (bson_iter_init_find (&it, doc, "hint") && BSON_ITER_HOLDS_UTF8 (&it))
      bson_strncpy (err->hint, bson_iter_utf8 (&it, NULL), sizeof err->hint);
   if (bson_iter_init_find (&it, doc, "file") && BSON_ITER_HOLDS_UTF8 (&it))
      file = bson_iter_utf8 (&it, NULL);
   if (bson_iter_init_find (&it, doc, "line") && BSON_ITER_HOLDS_INT32 (&it) && bson_iter_int32 (&it) > 0) {
      err->has_pos = true;
      err->pos.line = bson_iter_int32 (&it);
      err->pos.col = 1;
      if (bson_iter_init_find (&it, doc, "col") && BSON_ITER_HOLDS_INT32 (&it) && bson_iter_int32 (&it) > 0)
         err->pos.col = bson_iter_int32 (&it);
   }
   return file;
}

/* A document field of mods as a static view in out; false when absent or not a document. */
static bool
js_bson_sub_doc (const bson_t *mods, const char *key, bson_t *out)
{
   bson_iter_t it;
   uint32_t len;
   const uint8_t *data;

   if (!bson_iter_init_find (&it, mods, key) || !BSON_ITER_HOLDS_DOCUMENT (&it))
      return false;
   bson_iter_document (&it, &len, &data);
   return bson_init_static (out, data, len);
}

void
js_bson_call_mods (const bson_t *mods, js_call_t *call, bson_t *sort, bson_t *opts)
{
   bson_iter_t it;

   if (js_bson_sub_doc (mods, "sort", sort))
      call->sort = sort;
   if (bson_iter_init_find (&it, mods, "limit") && BSON_ITER_HOLDS_INT32 (&it))
      call->limit = bson_iter_int32 (&it);
   if (bson_iter_init_find (&it, mods, "skip") && BSON_ITER_HOLDS_INT32 (&it))
      call->skip = bson_iter_int32 (&it);
   if (bson_iter_init_find (&it, mods, "batchSize") && BSON_ITER_HOLDS_INT32 (&it))
      call->batch_size = bson_iter_int32 (&it);
   call->open_cursor = bson_iter_init_find (&it, mods, "open") && bson_iter_as_bool (&it);
   if (js_bson_sub_doc (mods, "opts", opts))
      call->modifiers = opts;
}
