/* The positions of a spec file's values, by a second walk of its tokens (see spec_locs.h). */
#include <bson/bson.h>
#include <string.h>

#include "shell/desired/spec_locs.h"
#include "shell/lang/lexer.h"

typedef struct {
   spec_locs_t *locs;
   sh_lexer_t lx;
   sh_token_t tok;
   bool ok;
} walk_t;

static void
walk_next (walk_t *w)
{
   sh_error_t err;
   sh_token_destroy (&w->tok);
   if (w->ok && !sh_lex_next (&w->lx, &w->tok, &err))
      w->ok = false;
}

static void
walk_record (walk_t *w, const char *path)
{
   spec_locs_t *l = w->locs;
   if (l->n == l->cap) {
      l->cap = l->cap ? l->cap * 2 : 32;
      l->paths = bson_realloc (l->paths, l->cap * sizeof *l->paths);
      l->pos = bson_realloc (l->pos, l->cap * sizeof *l->pos);
   }
   l->paths[l->n] = bson_strdup (path);
   l->pos[l->n++] = w->tok.pos;
}

static void
walk_value (walk_t *w, const char *path, int depth);

static void
walk_members (walk_t *w, const char *path, int depth, bool array)
{
   sh_tok_kind_t close = array ? SH_TOK_RBRACKET : SH_TOK_RBRACE;
   int i = 0;
   walk_next (w);
   while (w->ok && w->tok.kind != close && w->tok.kind != SH_TOK_EOF) {
      char *sub;
      if (array) {
         sub = bson_strdup_printf ("%s/%d", path, i++);
      } else {
         if (w->tok.kind == SH_TOK_STRING)
            sub = bson_strdup_printf ("%s/%s", path, w->tok.str);
         else
            sub = bson_strdup_printf ("%s/%.*s", path, (int) w->tok.pos.len, w->tok.text);
         walk_next (w); /* the key */
         walk_next (w); /* ':' */
      }
      walk_value (w, sub, depth + 1);
      bson_free (sub);
      if (w->tok.kind == SH_TOK_COMMA)
         walk_next (w);
      else
         break;
   }
   walk_next (w); /* the closing bracket */
}

static void
walk_value (walk_t *w, const char *path, int depth)
{
   int nest = 0;
   if (!w->ok || depth > 100)
      return;
   walk_record (w, path);
   if (w->tok.kind == SH_TOK_LBRACE || w->tok.kind == SH_TOK_LBRACKET) {
      walk_members (w, path, depth, w->tok.kind == SH_TOK_LBRACKET);
      return;
   }
   /* a scalar or a constructor call (MinKey, NumberLong("5"), -1): up to the next separator at this level */
   while (w->ok && w->tok.kind != SH_TOK_EOF) {
      sh_tok_kind_t k = w->tok.kind;
      if (nest == 0 && (k == SH_TOK_COMMA || k == SH_TOK_RBRACE || k == SH_TOK_RBRACKET))
         break;
      if (k == SH_TOK_LPAREN || k == SH_TOK_LBRACE || k == SH_TOK_LBRACKET)
         nest++;
      else if (k == SH_TOK_RPAREN || k == SH_TOK_RBRACE || k == SH_TOK_RBRACKET)
         nest--;
      walk_next (w);
   }
}

void
spec_locs_read (spec_locs_t *locs, const char *text, size_t len)
{
   walk_t w;
   memset (locs, 0, sizeof *locs);
   memset (&w, 0, sizeof w);
   w.locs = locs;
   w.ok = true;
   sh_lex_init (&w.lx, text, len);
   walk_next (&w);
   walk_value (&w, "", 0);
   sh_token_destroy (&w.tok);
}

sh_pos_t
spec_locs_at (const spec_locs_t *locs, const char *path)
{
   sh_pos_t top = { 1, 1, 0, 0 };
   size_t best = 0;
   bool found = false;
   for (size_t i = 0; i < locs->n; i++) {
      size_t n = strlen (locs->paths[i]);
      if (strncmp (locs->paths[i], path, n) == 0 && (path[n] == '\0' || path[n] == '/') && (!found || n >= best)) {
         best = n;
         top = locs->pos[i];
         found = true;
      }
   }
   return top;
}

void
spec_locs_destroy (spec_locs_t *locs)
{
   for (size_t i = 0; i < locs->n; i++)
      bson_free (locs->paths[i]);
   bson_free (locs->paths);
   bson_free (locs->pos);
   memset (locs, 0, sizeof *locs);
}
