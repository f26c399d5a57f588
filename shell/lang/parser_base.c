/* The parser's base: tokens, errors with their positions, and the blocks a script's statements are cut from. It calls
 * nothing of the grammar (parser.c, parser_value.c, parser_ctor.c), which all stand on it. */
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
void
parser_describe (const sh_token_t *tok, char *buf, size_t size)
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

bool
parser_is_closer (sh_tok_kind_t kind)
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
   if (parser_is_closer (tok->kind)) {
      if (p->depth == 0) {
         return parser_fail (p, tok->pos, "unmatched '%c'", p_bracket_char (tok->kind));
      }
      if (p->open[p->depth - 1].kind != p_opener_of (tok->kind)) {
         const parse_open_t *open = &p->open[p->depth - 1];

         return parser_fail (p, tok->pos, "mismatched '%c': the '%c' at %d:%d is still open",
                             p_bracket_char (tok->kind), p_bracket_char (open->kind), open->pos.line, open->pos.col);
      }
   }
   parser_describe (tok, what, sizeof what);
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

struct sh_parse_arena *
parser_arena_new (void)
{
   return bson_malloc0 (sizeof (struct sh_parse_arena));
}

void
parser_arena_free (struct sh_parse_arena *a)
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

void *
parser_script_alloc (sh_script_t *s, size_t n, size_t align)
{
   return p_arena_alloc (s->arena, n, align);
}

void *
parser_block_alloc (parser_t *p, size_t n, size_t align)
{
   return parser_script_alloc (p->out, n, align);
}

void *
sh_stmt_alloc (const sh_stmt_t *stmt, size_t n, size_t align)
{
   return stmt->arena ? p_arena_alloc (stmt->arena, n, align) : NULL;
}

/* A NUL-terminated copy of n bytes of text in the script's blocks. */
char *
parser_script_strndup (sh_script_t *s, const char *text, size_t n)
{
   char *out = parser_script_alloc (s, n + 1, 1);

   memcpy (out, text, n);
   out[n] = '\0';
   return out;
}

char *
parser_block_strndup (parser_t *p, const char *s, size_t n)
{
   return parser_script_strndup (p->out, s, n);
}
