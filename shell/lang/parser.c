/* The mongosh-literal parser: a recursive-descent parser over the lexer's tokens. Statements are member/call chains
 * (sh.moveChunk(...), db.getSiblingDB("config").chunks.find({})) or the keywords use, show, help and exit. This file
 * holds the token and error helpers, the statements and the public entry points; call arguments are built straight
 * into BSON by parser_value.c, and the constructors mongosh offers (ObjectId, ISODate, NumberLong, Timestamp, UUID,
 * BinData, MinKey, ...) by parser_ctor.c. */
#include "shell/lang/parser.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "shell/lang/lexer.h"
#include "shell/lang/parser_int.h"
#include "shell/lib/aligned.h"

const char *const parser_js_hint =
   "shardsh accepts mongosh-style statements, not JavaScript: calls such as sh.status() or "
   "db.adminCommand({...}), and use <db>, show <what>, help, exit";

/* ---------------------------------------------------------------------------------------------------------------
 * Tokens and errors
 */

bool
parser_fail (parser_t *p, sh_pos_t pos, const char *fmt, ...)
{
   char msg[768];
   va_list ap;
   size_t i;

   va_start (ap, fmt);
   vsnprintf (msg, sizeof msg, fmt, ap);
   va_end (ap);
   /* Messages quote the user's text: keep its control characters (an escape sequence, say) off the terminal. */
   for (i = 0; msg[i]; i++) {
      if ((unsigned char) msg[i] < 0x20 || msg[i] == 0x7f) {
         msg[i] = '?';
      }
   }
   sh_error_set_at (p->err, SH_ERR_PARSE, pos, "%s", msg);
   return false;
}

/* Moves to the next token. */
bool
parser_advance (parser_t *p)
{
   p->prev_end.line = p->lx.line;
   p->prev_end.col = p->lx.col;
   p->prev_end.offset = p->lx.off;
   p->prev_end.len = 0;
   /* the token's own memory only: sh_lex_next sets every field */
   if (p->tok.str) {
      bson_free (p->tok.str);
      p->tok.str = NULL;
   }
   if (!sh_lex_next (&p->lx, &p->tok, p->err)) {
      p->incomplete = p->lx.incomplete;
      return false;
   }
   return true;
}

/* Length of the first at most max bytes of s (len bytes of UTF-8), cut at a character boundary. */
int
parser_clip (const char *s, size_t len, size_t max)
{
   if (len <= max) {
      return (int) len;
   }
   while (max > 0 && ((unsigned char) s[max] & 0xc0) == 0x80) {
      max--;
   }
   return (int) max;
}

/* Describes a token for messages: "end of input", "'='", "name 'foo'", "number 5", "string \"abc\"". */
static void
p_describe (const sh_token_t *tok, char *buf, size_t size)
{
   int n = parser_clip (tok->text, tok->pos.len, 40);
   const char *more = (size_t) n < tok->pos.len ? "..." : "";

   switch (tok->kind) {
   case SH_TOK_EOF:
      snprintf (buf, size, "end of input");
      break;
   case SH_TOK_IDENT:
   case SH_TOK_WORD:
      snprintf (buf, size, "name '%.*s%s'", n, tok->text, more);
      break;
   case SH_TOK_NUMBER:
      snprintf (buf, size, "number %.*s%s", n, tok->text, more);
      break;
   case SH_TOK_STRING:
      snprintf (buf, size, "string %.*s%s", n, tok->text, more);
      break;
   case SH_TOK_REGEX:
      snprintf (buf, size, "regex %.*s%s", n, tok->text, more);
      break;
   default:
      snprintf (buf, size, "'%.*s'", n, tok->text);
      break;
   }
}

static char
p_bracket_char (sh_tok_kind_t kind)
{
   switch (kind) {
   case SH_TOK_LBRACE:
      return '{';
   case SH_TOK_RBRACE:
      return '}';
   case SH_TOK_LBRACKET:
      return '[';
   case SH_TOK_RBRACKET:
      return ']';
   case SH_TOK_LPAREN:
      return '(';
   case SH_TOK_RPAREN:
      return ')';
   default:
      return '?';
   }
}

static bool
p_is_closer (sh_tok_kind_t kind)
{
   return kind == SH_TOK_RBRACE || kind == SH_TOK_RBRACKET || kind == SH_TOK_RPAREN;
}

/* The opener a closer matches. */
static sh_tok_kind_t
p_opener_of (sh_tok_kind_t closer)
{
   return closer == SH_TOK_RBRACE ? SH_TOK_LBRACE : closer == SH_TOK_RBRACKET ? SH_TOK_LBRACKET : SH_TOK_LPAREN;
}

/* Reports the current token as unexpected. The end of the text inside brackets points at the unclosed bracket, and
 * a closer that matches nothing points at itself; anything else says what was expected. Always returns false. */
bool
parser_unexpected (parser_t *p, const char *expected)
{
   const sh_token_t *tok = &p->tok;
   char what[96];

   if (tok->kind == SH_TOK_EOF && p->depth > 0) {
      const parse_open_t *open = &p->open[p->depth - 1];
      sh_pos_t pos = open->pos;

      p->incomplete = true;
      pos.len = 1;
      parser_fail (p, pos, "unclosed '%c'", p_bracket_char (open->kind));
      sh_error_hint (p->err, "the text ended before the matching '%c'",
                     p_bracket_char (open->kind == SH_TOK_LBRACE     ? SH_TOK_RBRACE
                                     : open->kind == SH_TOK_LBRACKET ? SH_TOK_RBRACKET
                                                                     : SH_TOK_RPAREN));
      return false;
   }
   if (p_is_closer (tok->kind)) {
      if (p->depth == 0) {
         return parser_fail (p, tok->pos, "unmatched '%c'", p_bracket_char (tok->kind));
      }
      if (p->open[p->depth - 1].kind != p_opener_of (tok->kind)) {
         const parse_open_t *open = &p->open[p->depth - 1];

         return parser_fail (p, tok->pos, "mismatched '%c': the '%c' at %d:%d is still open",
                             p_bracket_char (tok->kind), p_bracket_char (open->kind), open->pos.line, open->pos.col);
      }
   }
   p_describe (tok, what, sizeof what);
   return parser_fail (p, tok->pos, "%s, found %s", expected, what);
}

/* Consumes an opening bracket, remembering it for error messages. */
bool
parser_open (parser_t *p)
{
   if (p->depth >= PARSE_MAX_DEPTH) {
      return parser_fail (p, p->tok.pos, "nesting deeper than %d levels", PARSE_MAX_DEPTH);
   }
   p->open[p->depth].kind = p->tok.kind;
   p->open[p->depth].pos = p->tok.pos;
   p->depth++;
   return parser_advance (p);
}

/* Consumes the closing bracket the caller has checked is there. */
bool
parser_close (parser_t *p)
{
   p->depth--;
   return parser_advance (p);
}

/* A NUL-terminated copy of n bytes of s, which need not be NUL-terminated itself. */
char *
parser_strndup (const char *s, size_t n)
{
   char *out = bson_malloc (n + 1);

   memcpy (out, s, n);
   out[n] = '\0';
   return out;
}

bool
parser_is_ident (const sh_token_t *tok, const char *name)
{
   return tok->kind == SH_TOK_IDENT && tok->pos.len == strlen (name) && memcmp (tok->text, name, tok->pos.len) == 0;
}

bool
parser_in_list (const char *text, size_t len, const char *const *list)
{
   size_t i;

   /* the first byte tells most words apart before any length is measured (every statement asks of js_words) */
   for (i = 0; list[i]; i++) {
      if (len && list[i][0] == text[0] && strnlen (list[i], len + 1) == len && memcmp (list[i], text, len) == 0) {
         return true;
      }
   }
   return false;
}

bool
parser_appended (parser_t *p, bool ok, sh_pos_t pos)
{
   if (!ok) {
      return parser_fail (p, pos, "value too large for a BSON document");
   }
   return true;
}

/* ---------------------------------------------------------------------------------------------------------------
 * The script's blocks: what its statements keep for good (segment arrays, names) is cut from a few large blocks
 * freed with the script, not allocated and freed piece by piece (two names and a segment array per statement).
 */

struct sh_parse_block {
   struct sh_parse_block *next;
   size_t used, cap; /* bytes of data used and held */
};

/* A script's blocks: made with the script, borrowed by each of its statements (sh_stmt_alloc). */
struct sh_parse_arena {
   struct sh_parse_block *blocks;
};

#define P_BLOCK_HEAD 128          /* the data starts 128 bytes in: a segment holds a bson_t, 128-byte aligned */
#define P_BLOCK_FIRST 2048        /* the first block's data (a statement typed at the prompt needs little) */
#define P_BLOCK_NEXT (64u * 1024) /* the next ones' */

/* n bytes (align: a power of two, at most 128) from the arena's blocks, uninitialised; freed with the script. */
static void *
p_arena_alloc (struct sh_parse_arena *a, size_t n, size_t align)
{
   struct sh_parse_block *b = a->blocks;
   size_t at, cap;

   if (b) {
      at = (b->used + align - 1) & ~(align - 1);
      if (at <= b->cap && n <= b->cap - at) {
         b->used = at + n;
         return (char *) b + P_BLOCK_HEAD + at;
      }
   }
   cap = b ? P_BLOCK_NEXT : P_BLOCK_FIRST;
   if (n > cap) {
      cap = n;
   }
   b = bson_aligned_alloc (128, P_BLOCK_HEAD + cap);
   b->next = a->blocks;
   b->used = n;
   b->cap = cap;
   a->blocks = b;
   return (char *) b + P_BLOCK_HEAD;
}

static void
p_arena_free (struct sh_parse_arena *a)
{
   if (!a) {
      return;
   }
   while (a->blocks) {
      struct sh_parse_block *next = a->blocks->next;

      bson_free (a->blocks);
      a->blocks = next;
   }
   bson_free (a);
}

static void *
p_block_alloc (sh_script_t *s, size_t n, size_t align)
{
   return p_arena_alloc (s->arena, n, align);
}

void *
parser_block_alloc (parser_t *p, size_t n, size_t align)
{
   return p_block_alloc (p->out, n, align);
}

void *
sh_stmt_alloc (const sh_stmt_t *stmt, size_t n, size_t align)
{
   return stmt->arena ? p_arena_alloc (stmt->arena, n, align) : NULL;
}

/* A NUL-terminated copy of n bytes of text in the script's blocks. */
static char *
p_block_strndup (sh_script_t *s, const char *text, size_t n)
{
   char *out = p_block_alloc (s, n + 1, 1);

   memcpy (out, text, n);
   out[n] = '\0';
   return out;
}

char *
parser_block_strndup (parser_t *p, const char *s, size_t n)
{
   return p_block_strndup (p->out, s, n);
}

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
      seg->name = seg->bracket ? p_block_strndup (p->out, p->tok.str, p->tok.str_len)
                               : p_block_strndup (p->out, p->tok.text, p->tok.pos.len);
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
   st->segs = p_block_alloc (p->out, n * sizeof (sh_seg_t), BSON_ALIGNOF (sh_seg_t));
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
      if (p_is_closer (p->tok.kind) || p->tok.kind == SH_TOK_EOF) {
         return parser_unexpected (p, "expected a statement");
      }
      p_describe (&p->tok, what, sizeof what);
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
   if (p_is_closer (p->tok.kind)) {
      return parser_unexpected (p, "expected the end of the statement");
   }
   p_describe (&p->tok, what, sizeof what);
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
      out->arena = bson_malloc0 (sizeof *out->arena);
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
   p_arena_free (script->arena);
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
