/* The mongosh-literal parser: a recursive-descent parser over the lexer's tokens. Statements are member/call chains
 * (sh.moveChunk(...), db.getSiblingDB("config").chunks.find({})) or the keywords use, show, help and exit. This file
 * holds the statements and the public entry points (tokens, errors and blocks are parser_base.c's); call arguments are
 * built straight into BSON by parser_value.c, and the constructors mongosh offers (ObjectId, ISODate, NumberLong,
 * Timestamp, UUID, BinData, MinKey, ...) by parser_ctor.c. */
#include "shell/lang/parser.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "shell/lang/lexer.h"
#include "shell/lang/parser_int.h"
#include "shell/lib/aligned.h"

/* ---------------------------------------------------------------------------------------------------------------
 * Statements
 */

/* A segment's own memory: its arguments (the segment, its name and its argument positions are the script's). */
static void
p_seg_destroy (sh_seg_t *seg)
{
   bson_destroy (&seg->args);
}

static void
p_stmt_destroy (sh_stmt_t *st)
{
   size_t i;

   if (st->resolved && st->resolved_free)
      st->resolved_free (st->resolved);
   bson_free (st->word);
   bson_free (st->word2);
   for (i = 0; i < st->nsegs; i++) {
      p_seg_destroy (&st->segs[i]);
   }
}

/* Reads the call arguments of seg; the current token is the '('. */
static bool
p_seg_call (parser_t *p, sh_seg_t *seg)
{
   parse_args_t args; /* parser_args sets it */

   p->binary = false;
   if (!parser_args (p, &args, true)) {
      bson_destroy (&args.arr); /* args.pos is the script's */
      return false;
   }
   seg->no_binary = !p->binary;
   bson_destroy (&seg->args);
   bson_steal (&seg->args, &args.arr); /* args.arr is destroyed by it */
   seg->is_call = true;
   seg->argc = args.argc;
   seg->arg_pos = args.pos;
   seg->close_pos = args.close;
   seg->close_pos.len = 1;
   return true;
}

/* Moves the segment at src into dst (whose contents are not initialised); src is left empty (no args to destroy). */
static void
p_seg_move (sh_seg_t *dst, sh_seg_t *src)
{
   /* the fields byte by byte, then args through bson_steal: a bson_t must not be moved byte by byte */
   dst->name = src->name;
   dst->pos = src->pos;
   dst->bracket = src->bracket;
   dst->is_call = src->is_call;
   dst->argc = src->argc;
   dst->arg_pos = src->arg_pos;
   dst->close_pos = src->close_pos;
   dst->no_binary = src->no_binary;
   if (src->is_call) {
      bson_steal (&dst->args, &src->args);
   } else {
      bson_init (&dst->args); /* a name's args are empty: nothing to move */
   }
   src->name = NULL;
   src->arg_pos = NULL;
}

#define P_CHAIN_LOCAL 4 /* segments a chain holds before it needs the heap (db.x.y(...).z(...) fits) */

/* A member/call chain: root(.name | .name(args) | ["name"] | ["name"](args))*. The segments are read into a local
 * array (a heap one past P_CHAIN_LOCAL) and moved into st->segs, one allocation of the exact size. */
static bool
p_chain (parser_t *p, sh_stmt_t *st)
{
   sh_seg_t local[P_CHAIN_LOCAL];
   sh_seg_t *tmp = local;
   size_t n = 0, cap = P_CHAIN_LOCAL, i;
   bool ok = false;

   for (;;) {
      sh_seg_t *seg;

      if (n == cap) {
         size_t bigger_cap = cap * 2;
         sh_seg_t *bigger = SH_ALLOC_ARRAY (sh_seg_t, bigger_cap);
         for (i = 0; i < n; i++) {
            p_seg_move (&bigger[i], &tmp[i]);
         }
         if (tmp != local) {
            bson_free (tmp);
         }
         tmp = bigger;
         cap = bigger_cap;
      }
      seg = &tmp[n++];
      bson_init (&seg->args);
      /* the fields after args, one by one (fewer stores than clearing the bytes up to the next 128) */
      seg->name = NULL;
      seg->pos = (sh_pos_t){ 0 };
      seg->bracket = false;
      seg->is_call = false;
      seg->argc = 0;
      seg->arg_pos = NULL;
      seg->close_pos = (sh_pos_t){ 0 };
      seg->no_binary = false;
      if (n == 1) {
         /* The root: the caller has checked it is a name. */
      } else if (p->tok.kind == SH_TOK_DOT) {
         if (!parser_advance (p)) {
            goto done;
         }
         if (p->tok.kind != SH_TOK_IDENT) {
            parser_unexpected (p, "expected a name after '.'");
            goto done;
         }
      } else {
         /* ["name"] */
         if (!parser_open (p)) {
            goto done;
         }
         if (p->tok.kind != SH_TOK_STRING) {
            parser_unexpected (p, "expected a quoted name inside '[...]'");
            goto done;
         }
         if (memchr (p->tok.str, '\0', p->tok.str_len)) {
            parser_fail (p, p->tok.pos, "a name cannot contain a NUL character");
            goto done;
         }
         seg->bracket = true;
      }
      seg->pos = p->tok.pos;
      seg->name = seg->bracket ? parser_script_strndup (p->out, p->tok.str, p->tok.str_len)
                               : parser_script_strndup (p->out, p->tok.text, p->tok.pos.len);
      if (!parser_advance (p)) {
         goto done;
      }
      if (seg->bracket) {
         if (p->tok.kind != SH_TOK_RBRACKET) {
            parser_unexpected (p, "expected ']' after the name");
            goto done;
         }
         if (!parser_close (p)) {
            goto done;
         }
      }
      if (p->tok.kind == SH_TOK_LPAREN && !p->tok.nl_before && !p_seg_call (p, seg)) {
         goto done;
      }
      /* A line that starts with '.' continues the chain; '[' continues it only on the same line. */
      if (!(p->tok.kind == SH_TOK_DOT || (p->tok.kind == SH_TOK_LBRACKET && !p->tok.nl_before))) {
         break;
      }
   }
   st->segs = parser_script_alloc (p->out, n * sizeof (sh_seg_t), BSON_ALIGNOF (sh_seg_t));
   st->nsegs = n;
   for (i = 0; i < n; i++) {
      p_seg_move (&st->segs[i], &tmp[i]);
   }
   n = 0;
   ok = true;
done:
   for (i = 0; i < n; i++) {
      p_seg_destroy (&tmp[i]);
   }
   if (tmp != local) {
      bson_free (tmp);
   }
   return ok;
}

/* use <db>, show <what> [arg], help [topic]: the current token is the keyword and `first` the word after it (owned
 * by this function), or an empty token when the statement ends after the keyword. */
static bool
p_keyword (parser_t *p, sh_stmt_t *st, sh_token_t *first)
{
   sh_token_t extra = { 0 };
   sh_word_result_t r;
   bool ok = false;
   int max = st->kind == SH_STMT_SHOW ? 2 : 1;

   if (first->kind == SH_TOK_WORD) {
      st->word = first->str;
      st->word_pos = first->pos;
      first->str = NULL;
   } else if (st->kind == SH_STMT_USE) {
      parser_fail (p, p->tok.pos, "expected a database name after 'use'");
      goto done;
   } else if (st->kind == SH_STMT_SHOW) {
      parser_fail (p, p->tok.pos, "expected what to show after 'show'");
      sh_error_hint (p->err, "try show dbs, show collections, show shards, show zones or show balancer");
      goto done;
   }
   if (st->word) {
      r = sh_lex_word (&p->lx, &extra, p->err);
      if (r == SH_WORD_ERROR) {
         p->incomplete = p->lx.incomplete;
         goto done;
      }
      if (r == SH_WORD_FOUND && max == 2) {
         st->word2 = extra.str;
         st->word2_pos = extra.pos;
         extra.str = NULL;
         sh_token_destroy (&extra);
         r = sh_lex_word (&p->lx, &extra, p->err);
         if (r == SH_WORD_ERROR) {
            p->incomplete = p->lx.incomplete;
            goto done;
         }
      }
      if (r == SH_WORD_FOUND) {
         parser_fail (p, extra.pos, "unexpected '%.*s' after '%.*s %s'", parser_clip (extra.str, extra.str_len, 40),
                      extra.str, (int) p->tok.pos.len, p->tok.text, st->word);
         goto done;
      }
   }
   /* Whatever follows must end the statement; the caller checks the next token. */
   ok = parser_advance (p);
done:
   sh_token_destroy (first);
   sh_token_destroy (&extra);
   return ok;
}

static bool
p_chain_stmt (parser_t *p, sh_stmt_t *st);

/* One statement; the current token is its first. Leaves the token after it current. */
static bool
p_statement (parser_t *p, sh_stmt_t *st)
{
   static const char *const js_words[] = {
      "var",  "let",    "const",  "function",  "if",    "else",     "for",   "while",    "do",     "return",
      "new",  "class",  "switch", "case",      "try",   "catch",    "throw", "typeof",   "delete", "void",
      "this", "import", "export", "async",     "await", "yield",    "break", "continue", "with",   "debugger",
      "true", "false",  "null",   "undefined", "NaN",   "Infinity", NULL
   };
   static const struct {
      const char *word;
      sh_stmt_kind_t kind;
   } keywords[] = { { "use", SH_STMT_USE },
                    { "show", SH_STMT_SHOW },
                    { "help", SH_STMT_HELP },
                    { "exit", SH_STMT_EXIT },
                    { "quit", SH_STMT_EXIT } };
   char what[96];
   size_t i;

   st->pos = p->tok.pos;
   if (p->tok.kind != SH_TOK_IDENT) {
      if (parser_is_closer (p->tok.kind) || p->tok.kind == SH_TOK_EOF) {
         return parser_unexpected (p, "expected a statement");
      }
      parser_describe (&p->tok, what, sizeof what);
      parser_fail (p, p->tok.pos, "expected a statement, found %s", what);
      sh_error_hint (p->err, "%s", parser_js_hint);
      return false;
   }
   /* db and sh, the roots of nearly every statement, are neither keywords nor JavaScript words */
   if (p->tok.pos.len == 2 && (!memcmp (p->tok.text, "db", 2) || !memcmp (p->tok.text, "sh", 2))) {
      st->kind = SH_STMT_CHAIN;
      return p_chain_stmt (p, st);
   }
   for (i = 0; i < sizeof keywords / sizeof keywords[0]; i++) {
      sh_lexer_t saved = p->lx;
      sh_token_t word = { 0 };
      sh_word_result_t r;

      if (!parser_is_ident (&p->tok, keywords[i].word)) {
         continue;
      }
      r = sh_lex_word (&p->lx, &word, p->err);
      if (r == SH_WORD_ERROR) {
         p->incomplete = p->lx.incomplete;
         return false;
      }
      if (r == SH_WORD_NONE || (r == SH_WORD_FOUND && keywords[i].kind == SH_STMT_EXIT)) {
         /* Not the keyword after all (use(...), help.x, exit foo): an ordinary chain. */
         sh_token_destroy (&word);
         p->lx = saved;
         break;
      }
      st->kind = keywords[i].kind;
      if (st->kind == SH_STMT_EXIT) {
         return parser_advance (p);
      }
      return p_keyword (p, st, &word);
   }
   if (parser_in_list (p->tok.text, p->tok.pos.len, js_words)) {
      parser_fail (p, p->tok.pos, "unexpected '%.*s': %s", (int) p->tok.pos.len, p->tok.text, parser_js_hint);
      return false;
   }
   st->kind = SH_STMT_CHAIN;
   return p_chain_stmt (p, st);
}

/* A member/call chain statement (p_statement's last case); exit() and quit() become the exit statement. */
static bool
p_chain_stmt (parser_t *p, sh_stmt_t *st)
{
   if (!p_chain (p, st)) {
      return false;
   }
   /* exit() and quit() are the exit statement too. */
   if (st->nsegs == 1 && st->segs[0].is_call && st->segs[0].argc == 0 &&
       (strcmp (st->segs[0].name, "exit") == 0 || strcmp (st->segs[0].name, "quit") == 0)) {
      p_seg_destroy (&st->segs[0]);
      st->segs = NULL;
      st->nsegs = 0;
      st->kind = SH_STMT_EXIT;
   }
   return true;
}

/* After a statement: the next token must be ';', the end of the text, or on a new line. */
static bool
p_statement_end (parser_t *p)
{
   char what[96];

   if (p->tok.kind == SH_TOK_EOF || p->tok.kind == SH_TOK_SEMI || p->tok.nl_before) {
      return true;
   }
   if (parser_is_closer (p->tok.kind)) {
      return parser_unexpected (p, "expected the end of the statement");
   }
   parser_describe (&p->tok, what, sizeof what);
   parser_fail (p, p->tok.pos, "unexpected %s after the statement; %s", what,
                "shardsh accepts mongosh-style statements, not JavaScript expressions");
   sh_error_hint (p->err, "%s", parser_js_hint);
   return false;
}

static void
p_init (parser_t *p, const char *text, size_t len, sh_error_t *err)
{
   memset (p, 0, sizeof *p);
   sh_lex_init (&p->lx, text, len);
   p->err = err;
   p->prev_end.line = 1;
   p->prev_end.col = 1;
}

static bool
p_script (parser_t *p, sh_script_t *out)
{
   size_t cap = 0;

   p->out = out;
   if (!out->arena) {
      out->arena = parser_arena_new ();
   }
   if (p->lx.len > INT32_MAX) {
      sh_pos_t start = { 1, 1, 0, 0 };

      return parser_fail (p, start, "input too large");
   }
   if (!parser_advance (p)) {
      return false;
   }
   while (p->tok.kind != SH_TOK_EOF) {
      sh_stmt_t *st;

      if (p->tok.kind == SH_TOK_SEMI) {
         if (!parser_advance (p)) {
            return false;
         }
         continue;
      }
      if (out->n == cap) {
         cap = cap ? cap * 2 : 8;
         out->stmts = bson_realloc (out->stmts, cap * sizeof (sh_stmt_t));
      }
      st = &out->stmts[out->n++];
      memset (st, 0, sizeof *st);
      st->arena = out->arena;
      if (!p_statement (p, st)) {
         return false;
      }
      st->pos.len = st->pos.len ? st->pos.len : 1;
      st->end_pos = p->prev_end;
      if (!p_statement_end (p)) {
         return false;
      }
   }
   return true;
}

bool
sh_parse_script (const char *name, const char *text, size_t len, sh_script_t *out, sh_error_t *err)
{
   parser_t p;
   bool ok;

   memset (out, 0, sizeof *out);
   sh_error_clear (err);
   if (!text) {
      len = 0;
   }
   out->name = bson_strdup (name ? name : "<eval>");
   out->source = bson_malloc (len + 1);
   if (len) {
      memcpy (out->source, text, len);
   }
   out->source[len] = '\0';
   out->source_len = len;
   p_init (&p, out->source, len, err);
   ok = p_script (&p, out);
   sh_token_destroy (&p.tok);
   if (!ok) {
      sh_script_destroy (out);
   }
   return ok;
}

void
sh_script_destroy (sh_script_t *script)
{
   size_t i;

   if (!script) {
      return;
   }
   for (i = 0; i < script->n; i++) {
      p_stmt_destroy (&script->stmts[i]);
   }
   bson_free (script->stmts);
   parser_arena_free (script->arena);
   bson_free (script->name);
   bson_free (script->source);
   memset (script, 0, sizeof *script);
}

bool
sh_parse_needs_more (const char *text, size_t len)
{
   sh_script_t script = { 0 };
   sh_error_t err;
   parser_t p;
   bool ok;

   if (!text) {
      return false;
   }
   p_init (&p, text, len, &err);
   ok = p_script (&p, &script);
   sh_token_destroy (&p.tok);
   sh_script_destroy (&script);
   return !ok && p.incomplete;
}

bool
sh_parse_value (const char *text, size_t len, bson_t *doc, const char *key, sh_error_t *err)
{
   bson_t tmp = BSON_INITIALIZER;
   parser_t p;
   bool ok = false;

   sh_error_clear (err);
   if (!key) {
      key = "";
   }
   p_init (&p, text ? text : "", text ? len : 0, err);
   if (p.lx.len > INT32_MAX) {
      sh_pos_t start = { 1, 1, 0, 0 };

      parser_fail (&p, start, "input too large");
      goto done;
   }
   if (!parser_advance (&p) || !parser_value (&p, &tmp, key, (int) strlen (key))) {
      goto done;
   }
   if (p.tok.kind != SH_TOK_EOF) {
      parser_unexpected (&p, "expected the end of the value");
      goto done;
   }
   if (!bson_concat (doc, &tmp)) {
      sh_pos_t start = { 1, 1, 0, 0 };

      parser_fail (&p, start, "value too large for the document");
      goto done;
   }
   ok = true;
done:
   sh_token_destroy (&p.tok);
   bson_destroy (&tmp);
   return ok;
}
