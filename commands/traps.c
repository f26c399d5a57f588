/* Version traps: the table (commands/traps.def), its matcher for calls and JavaScript text, the warnings, and the
 * generated table of docs/traps.md. See traps.h. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "commands/commands.h"
#include "shell/core/conn.h"
#include "shell/core/output.h"
#include "commands/dispatch.h"
#include "shell/lib/fnv.h"
#include "commands/traps.h"

static const trap_t traps[] = {
#define TRAP(id, kind, helpers, target, field, value, since, until, form, what, instead, cite)                         \
   { #id, kind, helpers, target, field, value, since, until, form, what, instead, cite },
#include "commands/traps.def"
#undef TRAP
};

const trap_t *
traps_table (size_t *n)
{
   *n = sizeof traps / sizeof traps[0];
   return traps;
}

bool
traps_bites (const trap_t *t, const int v[3])
{
   return dispatch_version_at_least (v, t->since) && (!t->until || !dispatch_version_at_least (v, t->until));
}

/* True when name (len bytes, or NUL-terminated when len is -1) is one of list's "|"-separated names. */
static bool
trap_list_has (const char *list, const char *name, int len)
{
   size_t n = len < 0 ? strlen (name) : (size_t) len;
   for (const char *p = list; p && *p;) {
      const char *bar = strchr (p, '|');
      size_t k = bar ? (size_t) (bar - p) : strlen (p);
      if (k == n && !memcmp (p, name, n))
         return true;
      p = bar ? bar + 1 : NULL;
   }
   return false;
}

/* Every name the TRAP_CALL rows match on (helpers and command names), hashed, with its row: a call is matched by
 * hashing its name (and command) once instead of scanning every row's lists (the check runs for every statement). */
typedef struct {
   uint64_t hash;
   uint8_t row;
   bool helper; /* a helper's name, else a command's */
} trap_name_t;

static trap_name_t trap_names[128];
static size_t trap_nnames;
static bool trap_names_ready;

static void
trap_names_add (const char *list, size_t row, bool helper)
{
   for (const char *p = list; p && *p;) {
      const char *bar = strchr (p, '|');
      size_t k = bar ? (size_t) (bar - p) : strlen (p);
      BSON_ASSERT (trap_nnames < sizeof trap_names / sizeof trap_names[0]);
      trap_names[trap_nnames++] = (trap_name_t){ fnv_hash64 (p, k), (uint8_t) row, helper };
      p = bar ? bar + 1 : NULL;
   }
}

/* The rows (a bit each, table order) one of whose names hashes as name does. */
static uint64_t
trap_rows_named (const char *name, bool helper)
{
   uint64_t h = fnv_hash64 (name, strlen (name)), rows = 0;
   if (!trap_names_ready) {
      BSON_ASSERT (sizeof traps / sizeof traps[0] <= 64);
      for (size_t i = 0; i < sizeof traps / sizeof traps[0]; i++) {
         if (traps[i].kind == TRAP_CALL) {
            trap_names_add (traps[i].helpers, i, true);
            trap_names_add (traps[i].target, i, false);
         }
      }
      trap_names_ready = true;
   }
   for (size_t i = 0; i < trap_nnames; i++) {
      if (trap_names[i].hash == h && trap_names[i].helper == helper)
         rows |= (uint64_t) 1 << trap_names[i].row;
   }
   return rows;
}

/* The filter of a read or write of a collection into *filter (empty when it has none), and the argument it is (-1:
 * none). False when call is not such a read or write. */
static bool
trap_filter (const sh_call_t *call, const char *name, bson_t *filter, int *arg)
{
   static const char *const first[] = { "find",       "findOne",   "countDocuments", "count",      "deleteOne",
                                        "deleteMany", "updateOne", "updateMany",     "replaceOne", "findOneAndUpdate" };
   const char *m;
   bson_iter_t it, st;
   bson_init (filter);
   *arg = -1;
   if (!call->coll || strncmp (name, "db.collection.", 14) != 0)
      return false;
   m = name + 14;
   if (!strcmp (m, "distinct")) {
      *arg = 1;
   } else if (!strcmp (m, "aggregate")) {
      /* the pipeline's first stage, when it is a $match */
      bson_t stage;
      if (args_get (call, 0, &it) && BSON_ITER_HOLDS_ARRAY (&it) && bson_iter_recurse (&it, &st) &&
          bson_iter_next (&st) && BSON_ITER_HOLDS_DOCUMENT (&st)) {
         uint32_t len;
         const uint8_t *data;
         bson_iter_document (&st, &len, &data);
         if (bson_init_static (&stage, data, len) && bson_iter_init_find (&st, &stage, "$match") &&
             BSON_ITER_HOLDS_DOCUMENT (&st)) {
            bson_iter_document (&st, &len, &data);
            bson_init_static (filter, data, len);
         }
      }
      *arg = 0;
      return true;
   } else {
      size_t i;
      for (i = 0; i < sizeof first / sizeof first[0] && strcmp (m, first[i]) != 0; i++)
         ;
      if (i == sizeof first / sizeof first[0])
         return false;
      *arg = 0;
   }
   if (!args_doc (call, *arg, filter))
      bson_init (filter);
   return true;
}

/* True when the filter's field holds value ("s:text", "b:true" / "b:false"; NULL: anything). */
static bool
trap_value_is (const bson_iter_t *it, const char *value)
{
   if (!value)
      return true;
   if (!strncmp (value, "s:", 2))
      return BSON_ITER_HOLDS_UTF8 (it) && !strcmp (bson_iter_utf8 (it, NULL), value + 2);
   if (!strncmp (value, "b:", 2))
      return BSON_ITER_HOLDS_BOOL (it) && bson_iter_bool (it) == !strcmp (value + 2, "true");
   return false;
}

/* True when filter compares a dotted path with null: {"a.b": null}, {"a.b": {$eq: null}} or {$ne: null}. */
static bool
trap_dotted_null (const bson_t *filter)
{
   bson_iter_t it, op;
   if (!bson_iter_init (&it, filter))
      return false;
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (k[0] == '$' || !strchr (k, '.'))
         continue;
      if (BSON_ITER_HOLDS_NULL (&it))
         return true;
      if (BSON_ITER_HOLDS_DOCUMENT (&it) && bson_iter_recurse (&it, &op)) {
         while (bson_iter_next (&op)) {
            if ((!strcmp (bson_iter_key (&op), "$eq") || !strcmp (bson_iter_key (&op), "$ne")) &&
                BSON_ITER_HOLDS_NULL (&op))
               return true;
         }
      }
   }
   return false;
}

/* What a call is, for the TRAP_CALL rows: its canonical name and, for db.adminCommand / db.runCommand, its command
 * (a document's first key, or a string) and document. */
typedef struct {
   const char *name;
   const char *command; /* NULL when not a command */
   bson_t doc;          /* the command document (empty for a string) */
} trap_call_t;

static bool
trap_call_matches (const trap_t *t, const trap_call_t *c)
{
   bson_iter_t it;
   if (t->helpers && trap_list_has (t->helpers, c->name, -1))
      return true;
   if (!t->target || !c->command || !trap_list_has (t->target, c->command, -1))
      return false;
   return !t->field || t->field[0] != '!' || !bson_iter_init_find (&it, &c->doc, t->field + 1);
}

size_t
traps_match_call (const sh_call_t *call, const trap_t **out, size_t max)
{
   static const sh_cmd_t *last_cmd;
   static uint64_t last_rows;
   trap_call_t c;
   bson_t filter;
   bson_iter_t it;
   int arg;
   bool query;
   char ns[512] = "";
   size_t n = 0;
   uint64_t named;
   c.name = (call->cmd->flags & CMD_ALIAS) && call->cmd->alias_of ? call->cmd->alias_of : call->cmd->name;
   c.command = NULL;
   bson_init (&c.doc);
   if ((!strcmp (c.name, "db.adminCommand") || !strcmp (c.name, "db.runCommand")) && bson_iter_init (&it, call->args) &&
       bson_iter_next (&it)) {
      /* the first argument: a command name, or a document whose first key is the command */
      if (BSON_ITER_HOLDS_UTF8 (&it)) {
         c.command = bson_iter_utf8 (&it, NULL);
      } else if (BSON_ITER_HOLDS_DOCUMENT (&it)) {
         uint32_t len;
         const uint8_t *data;
         bson_iter_document (&it, &len, &data);
         if (bson_init_static (&c.doc, data, len) && bson_iter_init (&it, &c.doc) && bson_iter_next (&it))
            c.command = bson_iter_key (&it);
      }
   }
   /* the TRAP_CALL rows that may match (by hash; each is then checked by name); a script's statements mostly call one
    * entry after another, so the entry's rows are kept for the next call */
   if (call->cmd != last_cmd) {
      last_rows = trap_rows_named (c.name, true);
      last_cmd = call->cmd;
   }
   named = last_rows | (c.command ? trap_rows_named (c.command, false) : 0);
   query = trap_filter (call, c.name, &filter, &arg);
   if (!named && !query)
      return 0;
   if (query)
      bson_snprintf (ns, sizeof ns, "%s.%s", call->db ? call->db : "test", call->coll);
   for (size_t i = 0; i < sizeof traps / sizeof traps[0] && n < max; i++) {
      const trap_t *t = &traps[i];
      bool hit = false;
      if (t->kind == TRAP_CALL) {
         hit = (named & ((uint64_t) 1 << i)) && trap_call_matches (t, &c);
      } else if (query && (t->kind == TRAP_QUERY || t->kind == TRAP_DOTTED_NULL) &&
                 (!strcmp (t->target, "*") || !strcmp (t->target, ns))) {
         if (t->kind == TRAP_DOTTED_NULL)
            hit = trap_dotted_null (&filter);
         else
            hit = !t->field || (bson_iter_init_find (&it, &filter, t->field) && trap_value_is (&it, t->value));
      }
      if (hit)
         out[n++] = t;
   }
   return n;
}

/* The previous non-space byte before p in [text, p), or 0. */
static char
trap_before (const char *text, const char *p, const char **at)
{
   while (p > text && isspace ((unsigned char) p[-1]))
      p--;
   *at = p > text ? p - 1 : NULL;
   return p > text ? p[-1] : 0;
}

/* True when the value of the call written at [start, end) of text is used whole as a condition. */
static bool
trap_js_cond_at (const char *text, const char *start, const char *end, const char *stop)
{
   const char *q = end, *b;
   char before = trap_before (text, start, &b), after;
   while (q < stop && isspace ((unsigned char) *q))
      q++;
   after = q < stop ? *q : 0;
   if (after == '.' || after == '[')
      return false; /* a field of the document: .inBalancerRound */
   if (before == '!' || after == '?' || before == '&' || before == '|' || after == '&' || after == '|')
      return true;
   if (before == '(' && after == ')') {
      /* while (…) / if (…): the word before the parenthesis */
      const char *w, *e = b;
      while (e > text && isspace ((unsigned char) e[-1]))
         e--;
      for (w = e; w > text && (isalnum ((unsigned char) w[-1]) || w[-1] == '_'); w--)
         ;
      return (e - w == 5 && !memcmp (w, "while", 5)) || (e - w == 2 && !memcmp (w, "if", 2));
   }
   return false;
}

size_t
traps_match_js (const char *text, size_t len, trap_js_hit_t *out, size_t max)
{
   const char *stop = text + len;
   size_t n = 0;
   for (size_t i = 0; i < sizeof traps / sizeof traps[0]; i++) {
      const trap_t *t = &traps[i];
      size_t hl;
      if (t->kind != TRAP_JS_COND)
         continue;
      hl = strlen (t->helpers);
      for (const char *p = text; p + hl <= stop && n < max; p++) {
         const char *q = p + hl;
         if (memcmp (p, t->helpers, hl) != 0 ||
             (p > text && (isalnum ((unsigned char) p[-1]) || p[-1] == '_' || p[-1] == '.' || p[-1] == '$')))
            continue;
         while (q < stop && isspace ((unsigned char) *q))
            q++;
         if (q >= stop || *q != '(')
            continue;
         for (q++; q < stop && isspace ((unsigned char) *q); q++)
            ;
         if (q >= stop || *q != ')')
            continue;
         if (trap_js_cond_at (text, p, q + 1, stop)) {
            int line = 1, col = 1;
            for (const char *c = text; c < p; c++) {
               col = *c == '\n' ? 1 : col + 1;
               line += *c == '\n';
            }
            out[n++] = (trap_js_hit_t){ t, line, col };
         }
      }
   }
   return n;
}

/* s without Markdown's backticks, into buf. */
static const char *
trap_plain (const char *s, char *buf, size_t size)
{
   size_t k = 0;
   for (; *s && k + 1 < size; s++) {
      if (*s != '`')
         buf[k++] = *s;
   }
   buf[k] = '\0';
   return buf;
}

/* The server's version into v: known, or read once (not under --dry-run). False: not known. */
static bool
trap_version (sh_ctx_t *ctx, int v[3])
{
   sh_error_t err;
   if (ctx->server_version[0] > 0) {
      memcpy (v, ctx->server_version, sizeof ctx->server_version);
      return true;
   }
   if (ctx->opts && ctx->opts->dry_run)
      return false;
   sh_error_clear (&err);
   return conn_server_version (ctx, v, &err);
}

/* True the first time trap t is seen at file:line:col (in the REPL, file NULL: the first time at all); a full set of
 * places says no more. */
static bool
trap_first (sh_ctx_t *ctx, const trap_t *t, const char *file, int line, int col)
{
   char key[1024];
   int len = file ? bson_snprintf (key, sizeof key, "%s%c%s%c%d:%d", t->id, 0, file, 0, line, col)
                  : bson_snprintf (key, sizeof key, "%s", t->id);
   uint64_t h = fnv_hash64 (key, len > 0 ? (size_t) len : 0);
   for (size_t i = 0; i < ctx->traps_nseen; i++) {
      if (ctx->traps_seen[i] == h)
         return false;
   }
   if (ctx->traps_nseen >= sizeof ctx->traps_seen / sizeof ctx->traps_seen[0])
      return false;
   ctx->traps_seen[ctx->traps_nseen++] = h;
   return true;
}

/* The warning of trap t at file:line:col on version v: stderr always; with to_stdout, --plan's line or --json's
 * object on stdout too. */
static void
trap_warn (sh_ctx_t *ctx, const trap_t *t, const char *file, int line, int col, const int v[3], bool to_stdout)
{
   char what[1024], instead[1024], place[600] = "";
   bool json = ctx->opts && ctx->opts->json, plan = ctx->opts && ctx->opts->plan;
   trap_plain (t->what, what, sizeof what);
   trap_plain (t->instead, instead, sizeof instead);
   if (file)
      bson_snprintf (place, sizeof place, "%s:%d:%d: ", file, line, col);
   fprintf (ctx->err_fp, "%swarning: MongoDB %d.%d.%d: %s [trap %s, docs/traps.md]\n   write instead: %s\n", place,
            v[0], v[1], v[2], what, t->id, instead);
   if (!to_stdout)
      return;
   if (json) {
      bson_t doc = BSON_INITIALIZER, in;
      output_opts_t o = output_opts_default (OUTPUT_JSON, false);
      char ver[32], cite[1024], *s;
      bson_snprintf (ver, sizeof ver, "%d.%d.%d", v[0], v[1], v[2]);
      BSON_APPEND_DOCUMENT_BEGIN (&doc, "trap", &in);
      BSON_APPEND_UTF8 (&in, "id", t->id);
      if (file)
         BSON_APPEND_UTF8 (&in, "file", file);
      else
         BSON_APPEND_NULL (&in, "file");
      BSON_APPEND_INT32 (&in, "line", line);
      BSON_APPEND_INT32 (&in, "col", col);
      BSON_APPEND_UTF8 (&in, "version", ver);
      BSON_APPEND_UTF8 (&in, "what", what);
      BSON_APPEND_UTF8 (&in, "instead", instead);
      BSON_APPEND_UTF8 (&in, "cite", trap_plain (t->cite, cite, sizeof cite));
      bson_append_document_end (&doc, &in);
      s = output_format_doc (&doc, &o);
      fprintf (ctx->out_fp, "%s\n", s);
      bson_free (s);
      bson_destroy (&doc);
   } else if (plan) {
      fprintf (ctx->out_fp, "%s:%d:%d trap %s: %s\n   write instead: %s\n", file ? file : "<repl>", line, col, t->id,
               what, instead);
   }
}

/* Where a matched call is reported: the filter of a query, else the helper's name. */
static sh_pos_t
trap_pos (const trap_t *t, const sh_call_t *call)
{
   bson_t filter;
   int arg = -1;
   const char *name = (call->cmd->flags & CMD_ALIAS) && call->cmd->alias_of ? call->cmd->alias_of : call->cmd->name;
   if (t->kind != TRAP_CALL && trap_filter (call, name, &filter, &arg) && arg >= 0 && call->arg_pos && arg < call->argc)
      return call->arg_pos[arg];
   return call->pos;
}

static void
trap_check_call_to (sh_ctx_t *ctx, const sh_call_t *call, const char *file, bool to_stdout)
{
   const trap_t *hits[8];
   size_t n;
   int v[3];
   if (ctx->opts && ctx->opts->no_preflight)
      return;
   if (!(n = traps_match_call (call, hits, 8)) || !trap_version (ctx, v))
      return;
   if (!file)
      file = ctx->place.file;
   for (size_t i = 0; i < n; i++) {
      sh_pos_t at = trap_pos (hits[i], call);
      if (traps_bites (hits[i], v) && trap_first (ctx, hits[i], file, at.line, at.col))
         trap_warn (ctx, hits[i], file, at.line, at.col, v, to_stdout);
   }
   fflush (ctx->err_fp);
}

void
traps_check_call (sh_ctx_t *ctx, const sh_call_t *call, const char *file, bool to_stdout)
{
   trap_check_call_to (ctx, call, file, to_stdout);
}

void
traps_check_js (sh_ctx_t *ctx, const char *file, const char *text, size_t len)
{
   trap_js_hit_t hits[16];
   size_t n;
   int v[3];
   if ((ctx->opts && ctx->opts->no_preflight) || !(n = traps_match_js (text, len, hits, 16)) || !trap_version (ctx, v))
      return;
   for (size_t i = 0; i < n; i++) {
      if (traps_bites (hits[i].trap, v) && trap_first (ctx, hits[i].trap, file, hits[i].line, hits[i].col))
         trap_warn (ctx, hits[i].trap, file, hits[i].line, hits[i].col, v, true);
   }
   fflush (ctx->err_fp);
}

/* The pre-pass's callback: one literal statement's call. */
static bool
trap_stmt (void *data, const sh_call_t *call, bool writes, sh_error_t *err)
{
   sh_ctx_t **p = data;
   (void) writes;
   (void) err;
   if (!strcmp (call->cmd->name, "use") && args_str (call, 0)) {
      /* later statements resolve against this database, as they will when they run */
      bson_free (p[0]->db);
      p[0]->db = bson_strdup (args_str (call, 0));
   }
   trap_check_call_to (p[0], call, (const char *) p[1], true);
   return true;
}

/* traps_check_stmt's callback: one REPL statement's call, warned on stderr. */
static bool
trap_repl_stmt (void *data, const sh_call_t *call, bool writes, sh_error_t *err)
{
   (void) writes;
   (void) err;
   trap_check_call_to (data, call, NULL, false);
   return true;
}

void
traps_check_stmt (sh_ctx_t *ctx, const sh_stmt_t *stmt)
{
   sh_error_t err;
   sh_error_clear (&err);
   dispatch_with_call (ctx, stmt, trap_repl_stmt, ctx, &err);
}

void
traps_check_scripts (sh_ctx_t *ctx, const sh_script_t *const *scripts, const char *const *js, const size_t *js_len,
                     const char *const *names, size_t n)
{
   char *saved_db;
   if (!ctx->opts || ctx->opts->dry_run || ctx->opts->no_preflight)
      return;
   saved_db = bson_strdup (ctx->db);
   for (size_t i = 0; i < n; i++) {
      if (!scripts[i]) {
         if (js[i])
            traps_check_js (ctx, names[i], js[i], js_len[i]);
         continue;
      }
      for (size_t s = 0; s < scripts[i]->n; s++) {
         void *data[2] = { ctx, (void *) scripts[i]->name };
         sh_error_t err;
         sh_error_clear (&err);
         dispatch_with_call (ctx, &scripts[i]->stmts[s], trap_stmt, data, &err);
      }
   }
   bson_free (ctx->db);
   ctx->db = saved_db;
   fflush (ctx->out_fp);
}

/* The versions of t as docs/traps.md shows them: "5.0 and later", "4.4 to 7.x" (before until). */
static void
trap_versions_text (const trap_t *t, char *buf, size_t size)
{
   if (t->until)
      bson_snprintf (buf, size, "%s up to (not including) %s", t->since, t->until);
   else
      bson_snprintf (buf, size, "%s and later", t->since);
}

void
traps_doc_table (bson_string_t *out)
{
   bson_string_append (out, "| trap | statement | bites on | what it does there | write instead | source |\n");
   bson_string_append (out, "| --- | --- | --- | --- | --- | --- |\n");
   for (size_t i = 0; i < sizeof traps / sizeof traps[0]; i++) {
      const trap_t *t = &traps[i];
      char versions[64];
      trap_versions_text (t, versions, sizeof versions);
      bson_string_append_printf (out, "| `%s` | %s | %s | %s | %s | %s |\n", t->id, t->form, versions, t->what,
                                 t->instead, t->cite);
   }
}
