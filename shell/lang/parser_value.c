/* The parser's values: documents (duplicate keys refused), arrays, call arguments, a Database object passed as an
 * argument (db, db.getSiblingDB("name")), strings, numbers (int32 or double as JavaScript would send them) and
 * regexes, each appended to BSON as it is read. Names (true, null, constructors) go to parser_ctor.c. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "shell/lib/names.h"
#include "shell/lang/parser.h"
#include "shell/lang/parser_int.h"
#include "shell/lib/fnv.h"

/* Keys already used in one document, to refuse duplicates; the set owns them. The first PARSE_FEW_KEYS are checked
 * by a linear scan (no allocation: most documents are small); past them, open addressing over the same keys. */
#define PARSE_FEW_KEYS 8
typedef struct {
   char *few[PARSE_FEW_KEYS];
   size_t few_len[PARSE_FEW_KEYS];
   char **keys; /* the hash, once there are more than PARSE_FEW_KEYS keys (then few is empty) */
   size_t *lens;
   size_t cap;
   size_t n;
   bool borrowed; /* the keys are the script's (parser_block_alloc): not freed here */
} parse_keyset_t;

/* A JavaScript number goes over the wire as int32 when it is an integer in int32 range (and not -0), else as a
 * double: 1, 1.0 and 1e3 are int32; 1.5, 3000000000 and -0 are doubles. */
static bool
p_append_number (bson_t *dst, const char *key, int key_len, double v)
{
   if (v >= INT32_MIN && v <= INT32_MAX && v == (double) (int32_t) v && !(v == 0 && signbit (v))) {
      return bson_append_int32 (dst, key, key_len, (int32_t) v);
   }
   return bson_append_double (dst, key, key_len, v);
}

/* ---------------------------------------------------------------------------------------------------------------
 * Documents and arrays
 */

static void
p_keyset_destroy (parse_keyset_t *ks)
{
   size_t i;

   if (ks->borrowed && !ks->cap) {
      return; /* the script's keys, no hash: nothing of its own */
   }
   for (i = 0; !ks->borrowed && i < ks->cap; i++) {
      bson_free (ks->keys[i]);
   }
   for (i = 0; !ks->borrowed && !ks->cap && i < ks->n; i++) {
      bson_free (ks->few[i]);
   }
   bson_free (ks->keys);
   bson_free (ks->lens);
}

/* Slot of key in ks: where it is, or the empty slot where it would go. ks->cap is a power of two. */
static size_t
p_keyset_slot (const parse_keyset_t *ks, const char *key, size_t len)
{
   size_t i = (size_t) fnv_hash64 (key, len) & (ks->cap - 1);

   while (ks->keys[i] && !(ks->lens[i] == len && memcmp (ks->keys[i], key, len) == 0)) {
      i = (i + 1) & (ks->cap - 1);
   }
   return i;
}

/* Adds key (owned, len bytes): the set takes it and returns true, or returns false (key still the caller's) when it
 * is there already. */
static bool
p_keyset_add (parse_keyset_t *ks, char *key, size_t len)
{
   size_t i;

   if (!ks->cap) {
      for (i = 0; i < ks->n; i++) {
         if (ks->few_len[i] == len && memcmp (ks->few[i], key, len) == 0) {
            return false;
         }
      }
      if (ks->n < PARSE_FEW_KEYS) {
         ks->few[ks->n] = key;
         ks->few_len[ks->n++] = len;
         return true;
      }
      /* one key too many for the scan: the few move into a hash */
      ks->cap = 4 * PARSE_FEW_KEYS;
      ks->keys = bson_malloc0 (ks->cap * sizeof (char *));
      ks->lens = bson_malloc0 (ks->cap * sizeof (size_t));
      for (i = 0; i < ks->n; i++) {
         size_t j = p_keyset_slot (ks, ks->few[i], ks->few_len[i]);

         ks->keys[j] = ks->few[i];
         ks->lens[j] = ks->few_len[i];
         ks->few[i] = NULL;
      }
   }
   if ((ks->n + 1) * 2 > ks->cap) {
      parse_keyset_t bigger = { 0 };

      bigger.cap = ks->cap * 2;
      bigger.borrowed = ks->borrowed;
      bigger.keys = bson_malloc0 (bigger.cap * sizeof (char *));
      bigger.lens = bson_malloc0 (bigger.cap * sizeof (size_t));
      for (i = 0; i < ks->cap; i++) {
         if (ks->keys[i]) {
            size_t j = p_keyset_slot (&bigger, ks->keys[i], ks->lens[i]);

            bigger.keys[j] = ks->keys[i];
            bigger.lens[j] = ks->lens[i];
            ks->keys[i] = NULL;
         }
      }
      bigger.n = ks->n;
      p_keyset_destroy (ks);
      *ks = bigger;
   }
   i = p_keyset_slot (ks, key, len);
   if (ks->keys[i]) {
      return false;
   }
   ks->keys[i] = key;
   ks->lens[i] = len;
   ks->n++;
   return true;
}

/* Reads a document key: a name (a.b and $name included), a quoted string or a number. On success *key (*key_len
 * bytes, not always NUL-terminated) is the script's memory when a script is parsed (p->out: not freed; a plain name
 * is its bytes in the script's text), else owned by the caller (NUL-terminated). */
static bool
p_key (parser_t *p, char **key, size_t *key_len, sh_pos_t *key_pos)
{
   bson_string_t *s = NULL;
   bool ok = false;

   *key = NULL;
   *key_pos = p->tok.pos;
   if (p->tok.kind == SH_TOK_IDENT) {
      /* a plain name (the common case) is taken as it is (in a script: its bytes in the text, which the script
       * keeps); a dotted one is assembled in s */
      const char *first = p->tok.text;
      size_t first_len = p->tok.pos.len;
      if (!parser_advance (p)) {
         goto done;
      }
      if (!(p->tok.kind == SH_TOK_DOT && p->tok.pos.offset == p->prev_end.offset)) {
         key_pos->len = p->prev_end.offset - key_pos->offset;
         *key_len = first_len;
         *key = p->out ? (char *) first : parser_strndup (first, first_len);
         return true;
      }
      s = bson_string_new (NULL);
      bson_string_append_printf (s, "%.*s", (int) first_len, first);
      /* Dotted bare keys such as a.b (not valid JavaScript, but what people type for shard keys). */
      while (p->tok.kind == SH_TOK_DOT && p->tok.pos.offset == p->prev_end.offset) {
         if (!parser_advance (p)) {
            goto done;
         }
         if (p->tok.kind != SH_TOK_IDENT || p->tok.pos.offset != p->prev_end.offset) {
            parser_unexpected (p, "expected a name after '.' in a key");
            goto done;
         }
         bson_string_append_printf (s, ".%.*s", (int) p->tok.pos.len, p->tok.text);
         if (!parser_advance (p)) {
            goto done;
         }
      }
      key_pos->len = p->prev_end.offset - key_pos->offset;
      *key_len = s->len;
      *key = bson_string_free (s, false);
      s = NULL;
   } else if (p->tok.kind == SH_TOK_STRING) {
      if (memchr (p->tok.str, '\0', p->tok.str_len)) {
         parser_fail (p, p->tok.pos, "a key cannot contain a NUL character");
         goto done;
      }
      *key = p->tok.str;
      *key_len = p->tok.str_len;
      p->tok.str = NULL;
      if (!parser_advance (p)) {
         goto done;
      }
   } else if (p->tok.kind == SH_TOK_NUMBER) {
      double v = p->tok.num;

      if (v == floor (v) && v < 1e21) {
         *key = bson_strdup_printf ("%.0f", v);
      } else {
         *key = parser_strndup (p->tok.text, p->tok.pos.len);
      }
      *key_len = strlen (*key);
      if (!parser_advance (p)) {
         goto done;
      }
   } else {
      parser_unexpected (p, "expected a key or '}'");
      goto done;
   }
   ok = true;
   if (p->out) { /* the script's memory, as a plain name's */
      char *kept = parser_block_strndup (p, *key, *key_len);
      bson_free (*key);
      *key = kept;
   }
done:
   if (s) {
      bson_string_free (s, true);
   }
   if (!ok) {
      bson_free (*key);
      *key = NULL;
   }
   return ok;
}

/* Whether a document or array at the current token is read into a bson_t of its own and then copied into dst, rather
 * than begun inside dst: libbson moves a small dst (a call's arguments so far, held inside their bson_t) to the heap
 * to begin a child in it, an allocation for every db.adminCommand({ ping: 1 }). Only for an argument itself (depth
 * 1: inside the call's parentheses) or a value alone, so no byte is copied twice; what it holds is begun inside it. */
static bool
p_alone (const parser_t *p)
{
   return p->depth <= 1;
}

static bool
p_document (parser_t *p, bson_t *dst, const char *key, int key_len)
{
   sh_pos_t open = p->tok.pos;
   parse_keyset_t keys; /* its fields one by one: few[] and few_len[] are read only below n */
   bson_t child;
   bool alone = p_alone (p);
   bool began = false, ok = false;
   char *k = NULL;
   const char *key_now;
   size_t k_len = 0;
   sh_pos_t k_pos;

   keys.keys = NULL;
   keys.lens = NULL;
   keys.cap = 0;
   keys.n = 0;
   keys.borrowed = p->out != NULL; /* p_key gives the script's memory then */
   if (!parser_open (p)) {
      goto done;
   }
   if (alone) {
      bson_init (&child);
   } else if (!parser_appended (p, bson_append_document_begin (dst, key, key_len, &child), open)) {
      goto done;
   }
   began = true;
   while (p->tok.kind != SH_TOK_RBRACE) {
      if (!p_key (p, &k, &k_len, &k_pos)) {
         goto done;
      }
      if (!p_keyset_add (&keys, k, k_len)) {
         parser_fail (p, k_pos, "duplicate key '%.*s'", parser_clip (k, k_len, 60), k);
         goto done;
      }
      key_now = k; /* owned by keys from here on */
      k = NULL;
      if (p->tok.kind != SH_TOK_COLON) {
         parser_unexpected (p, "expected ':' after key");
         goto done;
      }
      if (!parser_advance (p) || !parser_value (p, &child, key_now, (int) k_len)) {
         goto done;
      }
      if (p->tok.kind == SH_TOK_COMMA) {
         if (!parser_advance (p)) {
            goto done;
         }
      } else if (p->tok.kind != SH_TOK_RBRACE) {
         parser_unexpected (p, "expected ',' or '}' after value");
         goto done;
      }
   }
   ok = parser_close (p);
done:
   if (began && alone) {
      ok = ok && parser_appended (p, bson_append_document (dst, key, key_len, &child), open);
      bson_destroy (&child);
   } else if (began) {
      bson_append_document_end (dst, &child);
   }
   if (!keys.borrowed) {
      bson_free (k);
   }
   p_keyset_destroy (&keys);
   return ok;
}

static bool
p_array (parser_t *p, bson_t *dst, const char *key, int key_len)
{
   sh_pos_t open = p->tok.pos;
   bson_t child;
   bool alone = p_alone (p);
   bool began = false, ok = false;
   uint32_t i = 0;

   if (!parser_open (p)) {
      goto done;
   }
   if (alone) {
      bson_init (&child);
   } else if (!parser_appended (p, bson_append_array_begin (dst, key, key_len, &child), open)) {
      goto done;
   }
   began = true;
   while (p->tok.kind != SH_TOK_RBRACKET) {
      char buf[16];
      const char *ikey;
      size_t ikey_len = bson_uint32_to_string (i++, &ikey, buf, sizeof buf);

      if (!parser_value (p, &child, ikey, (int) ikey_len)) {
         goto done;
      }
      if (p->tok.kind == SH_TOK_COMMA) {
         if (!parser_advance (p)) {
            goto done;
         }
      } else if (p->tok.kind != SH_TOK_RBRACKET) {
         parser_unexpected (p, "expected ',' or ']' after value");
         goto done;
      }
   }
   ok = parser_close (p);
done:
   if (began && alone) {
      ok = ok && parser_appended (p, bson_append_array (dst, key, key_len, &child), open);
      bson_destroy (&child);
   } else if (began) {
      bson_append_array_end (dst, &child);
   }
   return ok;
}

/* A Database object as a call argument: `db` (the current database) or db.getSiblingDB("name") / getSisterDB. */
static bool
p_dbref (parser_t *p, bson_t *dst, const char *key, int key_len)
{
   sh_pos_t pos = p->tok.pos;
   char *buf = NULL;
   size_t tag = strlen (SH_DBREF_TAG), len = 0;
   bool ok = false;

   if (!parser_advance (p)) {
      return false;
   }
   if (p->tok.kind == SH_TOK_DOT) {
      if (!parser_advance (p)) {
         return false;
      }
      if (!parser_is_ident (&p->tok, "getSiblingDB") && !parser_is_ident (&p->tok, "getSisterDB")) {
         return parser_fail (p, p->tok.pos,
                             "only db or db.getSiblingDB(\"name\") can be passed as a database (expressions are not "
                             "supported)");
      }
      if (!parser_advance (p)) {
         return false;
      }
      if (p->tok.kind != SH_TOK_LPAREN) {
         return parser_unexpected (p, "expected '(' after getSiblingDB");
      }
      if (!parser_open (p)) {
         return false;
      }
      if (p->tok.kind != SH_TOK_STRING) {
         return parser_unexpected (p, "expected a database name string");
      }
      len = p->tok.str_len;
      if (names_db_invalid (p->tok.str, len)) {
         return parser_fail (p, p->tok.pos, "invalid database name");
      }
   }
   buf = bson_malloc (tag + len + 1);
   memcpy (buf, SH_DBREF_TAG, tag);
   if (len) {
      memcpy (buf + tag, p->tok.str, len);
   }
   buf[tag + len] = '\0';
   p->binary = true;
   if (!parser_appended (
          p, bson_append_binary (dst, key, key_len, BSON_SUBTYPE_USER, (const uint8_t *) buf, (uint32_t) (tag + len)),
          pos)) {
      goto done;
   }
   if (len) {
      if (!parser_advance (p)) {
         goto done;
      }
      if (p->tok.kind != SH_TOK_RPAREN) {
         parser_unexpected (p, "expected ')' after the database name");
         goto done;
      }
      if (!parser_close (p)) {
         goto done;
      }
   }
   ok = true;
done:
   bson_free (buf);
   return ok;
}

bool
sh_value_dbref (const bson_iter_t *it, const char **name, uint32_t *len)
{
   bson_subtype_t sub;
   const uint8_t *data;
   uint32_t n;
   size_t tag = strlen (SH_DBREF_TAG);

   if (!BSON_ITER_HOLDS_BINARY (it)) {
      return false;
   }
   bson_iter_binary (it, &sub, &n, &data);
   if (sub != BSON_SUBTYPE_USER || n < tag || memcmp (data, SH_DBREF_TAG, tag) != 0) {
      return false;
   }
   *name = (const char *) data + tag;
   *len = n - (uint32_t) tag;
   return true;
}

/* Parses "(a, b, ...)" into args (initialised here; the caller destroys args->arr and frees args->pos). The current
 * token is the '('. */
bool
parser_args (parser_t *p, parse_args_t *args, bool keep)
{
   size_t cap = 0;
   bool ok = false;

   bson_init (&args->arr);
   args->pos = NULL;
   args->argc = 0;
   if (!parser_open (p)) {
      goto done;
   }
   while (p->tok.kind != SH_TOK_RPAREN) {
      char buf[16];
      const char *ikey;
      size_t ikey_len = bson_uint32_to_string ((uint32_t) args->argc, &ikey, buf, sizeof buf);
      sh_pos_t start = p->tok.pos;

      if (parser_is_ident (&p->tok, "db") ? !p_dbref (p, &args->arr, ikey, (int) ikey_len)
                                          : !parser_value (p, &args->arr, ikey, (int) ikey_len)) {
         goto done;
      }
      if ((size_t) args->argc == cap) {
         cap = cap ? cap * 2 : 4;
         if (keep) {
            sh_pos_t *bigger = parser_block_alloc (p, cap * sizeof (sh_pos_t), BSON_ALIGNOF (sh_pos_t));
            if (args->argc) {
               memcpy (bigger, args->pos, (size_t) args->argc * sizeof (sh_pos_t));
            }
            args->pos = bigger;
         } else {
            args->pos = bson_realloc (args->pos, cap * sizeof (sh_pos_t));
         }
      }
      start.len = p->prev_end.offset - start.offset;
      args->pos[args->argc++] = start;
      if (p->tok.kind == SH_TOK_COMMA) {
         if (!parser_advance (p)) {
            goto done;
         }
      } else if (p->tok.kind != SH_TOK_RPAREN) {
         parser_unexpected (p, "expected ',' or ')' after argument");
         goto done;
      }
   }
   args->close = p->tok.pos;
   ok = parser_close (p);
done:
   return ok;
}

/* Appends one value under key. */
bool
parser_value (parser_t *p, bson_t *dst, const char *key, int key_len)
{
   sh_pos_t pos = p->tok.pos;

   switch (p->tok.kind) {
   case SH_TOK_STRING:
      if (p->tok.str_len > INT32_MAX - 64) {
         return parser_fail (p, pos, "string too large");
      }
      return parser_appended (p, bson_append_utf8 (dst, key, key_len, p->tok.str, (int) p->tok.str_len), pos) &&
             parser_advance (p);
   case SH_TOK_NUMBER:
      return parser_appended (p, p_append_number (dst, key, key_len, p->tok.num), pos) && parser_advance (p);
   case SH_TOK_PLUS:
   case SH_TOK_MINUS: {
      bool neg = p->tok.kind == SH_TOK_MINUS;
      double v;

      if (!parser_advance (p)) {
         return false;
      }
      if (p->tok.kind == SH_TOK_NUMBER) {
         v = p->tok.num;
      } else if (parser_is_ident (&p->tok, "Infinity")) {
         v = INFINITY;
      } else if (parser_is_ident (&p->tok, "NaN")) {
         v = NAN;
      } else {
         return parser_unexpected (p, neg ? "expected a number after '-'" : "expected a number after '+'");
      }
      return parser_appended (p, p_append_number (dst, key, key_len, neg ? -v : v), pos) && parser_advance (p);
   }
   case SH_TOK_LBRACE:
      return p_document (p, dst, key, key_len);
   case SH_TOK_LBRACKET:
      return p_array (p, dst, key, key_len);
   case SH_TOK_SLASH: {
      sh_token_t re;

      if (!sh_lex_regex (&p->lx, &p->tok, &re, p->err)) {
         p->incomplete = p->lx.incomplete;
         return false;
      }
      sh_token_destroy (&p->tok);
      p->tok = re;
      return parser_appended (p, bson_append_regex_w_len (dst, key, key_len, re.str, (int) re.str_len, re.flags),
                              pos) &&
             parser_advance (p);
   }
   case SH_TOK_IDENT:
      return parser_name_value (p, dst, key, key_len);
   default:
      return parser_unexpected (p, "expected a value");
   }
}

/* A value that starts with a name: true, null, NaN, MinKey, ObjectId(...), new Date(...), ... */
bool
parser_name_value (parser_t *p, bson_t *dst, const char *key, int key_len)
{
   static const char *const js_words[] = { "function", "this",  "typeof", "void", "delete", "class", "async",
                                           "await",    "yield", "var",    "let",  "const",  NULL };
   sh_pos_t pos = p->tok.pos;
   ctor_kind_t kind;
   char name[64];
   bool is_new = false;
   parse_args_t args;
   bool ok;

   if (parser_is_ident (&p->tok, "true") || parser_is_ident (&p->tok, "false")) {
      return parser_appended (p, bson_append_bool (dst, key, key_len, p->tok.text[0] == 't'), pos) &&
             parser_advance (p);
   }
   if (parser_is_ident (&p->tok, "null")) {
      return parser_appended (p, bson_append_null (dst, key, key_len), pos) && parser_advance (p);
   }
   if (parser_is_ident (&p->tok, "undefined")) {
      return parser_appended (p, bson_append_undefined (dst, key, key_len), pos) && parser_advance (p);
   }
   if (parser_is_ident (&p->tok, "NaN")) {
      return parser_appended (p, bson_append_double (dst, key, key_len, NAN), pos) && parser_advance (p);
   }
   if (parser_is_ident (&p->tok, "Infinity")) {
      return parser_appended (p, bson_append_double (dst, key, key_len, INFINITY), pos) && parser_advance (p);
   }
   if (parser_is_ident (&p->tok, "new")) {
      is_new = true;
      if (!parser_advance (p)) {
         return false;
      }
      if (p->tok.kind != SH_TOK_IDENT) {
         return parser_unexpected (p, "expected a constructor name after 'new'");
      }
   }
   snprintf (name, sizeof name, "%.*s", parser_clip (p->tok.text, p->tok.pos.len, sizeof name - 1), p->tok.text);
   if (parser_in_list (p->tok.text, p->tok.pos.len, js_words)) {
      return parser_fail (p, p->tok.pos, "unexpected '%s': %s", name, parser_js_hint);
   }
   if (!parser_ctor_find (&p->tok, &kind)) {
      sh_pos_t at = p->tok.pos;

      if (!parser_advance (p)) {
         return false;
      }
      if (p->tok.kind == SH_TOK_LPAREN || is_new) {
         return parser_fail (p, at, "unknown function '%s' in a value", name);
      }
      parser_fail (p, at, "unexpected name '%s': values must be literals (variables are not supported)", name);
      sh_error_hint (p->err, "%s", parser_js_hint);
      return false;
   }
   pos = p->tok.pos;
   if (!parser_advance (p)) {
      return false;
   }
   if (p->tok.kind != SH_TOK_LPAREN) {
      if (kind == CTOR_MINKEY) {
         return parser_appended (p, bson_append_minkey (dst, key, key_len), pos);
      }
      if (kind == CTOR_MAXKEY) {
         return parser_appended (p, bson_append_maxkey (dst, key, key_len), pos);
      }
      return parser_unexpected (p, is_new ? "expected '(' after the constructor name" : "expected '(' after the name");
   }
   ok = parser_args (p, &args, false) && parser_ctor_build (p, dst, key, key_len, kind, name, is_new, pos, &args);
   bson_destroy (&args.arr);
   bson_free (args.pos);
   return ok;
}
