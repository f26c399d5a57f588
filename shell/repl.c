/* The REPL: libedit's readline interface (or standard input read as mongosh reads it when it is not a terminal),
 * multi-line input until the statement is complete, history with a credential filter, completion of helper names from
 * the command table and of live arguments (namespaces, shards, zones, databases, collections: the entry's arg_kinds,
 * values from commands/complete.c), and signal handling that keeps the shell alive on Ctrl-C. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <editline/readline.h>

#include "commands/commands.h"
#include "shell/lib/secret.h"
#include "commands/dispatch.h"
#include "shell/core/conn.h"
#include "shell/core/interrupt.h"
#include "shell/js/js_host.h"
#include "shell/lang/parser.h"
#include "shell/repl.h"
#include "commands/traps.h"

char *
repl_history_path (void)
{
   const char *env = getenv ("SHARDSH_HISTFILE");
   const char *home = getenv ("HOME");
   if (env && *env)
      return bson_strdup (env);
   if (!home || !*home)
      return NULL;
   return bson_strdup_printf ("%s/.shardsh_history", home);
}

bool
repl_history_append (const char *path, const char *line)
{
   char *entry;
   int fd;
   bool ok;
   if (!path || secret_line_is_sensitive (line))
      return true;
   fd = open (path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
   if (fd < 0)
      return false;
   fchmod (fd, 0600);
   entry = bson_strdup_printf ("%s\n", line);
   for (char *c = entry; c[1]; c++) {
      if (*c == '\n' || *c == '\r')
         *c = ' ';
   }
   ok = write (fd, entry, strlen (entry)) == (ssize_t) strlen (entry);
   bson_free (entry);
   close (fd);
   return ok;
}

/* Completion: helper names from the command table (db.collection.* offered as db.<name> only when typed). */
static char *
repl_complete_name (const char *text, int state)
{
   static size_t i;
   static size_t len;
   if (!state) {
      i = 0;
      len = strlen (text);
   }
   while (sh_cmd_table[i]) {
      const char *name = sh_cmd_table[i++]->name;
      if (!strncmp (name, "db.collection.", 14))
         continue;
      if (!strncmp (name, text, len)) {
         bool call = strchr (name, '.') != NULL || !strcmp (name, "print") || !strcmp (name, "printjson") ||
                     !strcmp (name, "sleep");
         /* readline frees matches with free(): allocate with malloc */
         char *m = malloc (strlen (name) + 2);
         if (m)
            sprintf (m, "%s%s", name, call ? "(" : "");
         return m;
      }
   }
   return NULL;
}

/* Helper names, then (once the JavaScript engine runs) the engine's names: variables, and members of what the text
 * before the last dot names (myCursor.toA, db.getSiblingDB). Table names are not repeated. */
static char *
repl_complete_any (const char *text, int state)
{
   static char *names[64];
   static size_t n, i;
   static bool table_done;
   char *m;

   if (!state) {
      for (size_t k = 0; k < n; k++)
         free (names[k]);
      n = i = 0;
      table_done = false;
   }
   if (!table_done) {
      if ((m = repl_complete_name (text, state)) != NULL)
         return m;
      table_done = true;
      if (js_host_started ())
         n = js_host_api ()->complete (js_host_engine (NULL, NULL), text, names, sizeof names / sizeof names[0]);
   }
   while (i < n) {
      char *name = names[i];
      names[i++] = NULL;
      if (!sh_cmd_find (name))
         return name; /* malloc'd by the engine: readline frees it */
      free (name);
   }
   return NULL;
}

/* The session, for the completion callbacks (readline passes no user data). */
static sh_ctx_t *repl_ctx;

static char *
repl_complete_value (const char *text, int state)
{
   static bson_iter_t it;
   static size_t len;
   const bson_t *complete_values = repl_ctx ? repl_ctx->session.complete_values : NULL;
   if (!state) {
      len = strlen (text);
      if (!complete_values || !bson_iter_init (&it, complete_values))
         return NULL;
   }
   while (complete_values && bson_iter_next (&it)) {
      const char *v = bson_iter_utf8 (&it, NULL);
      if (!strncmp (v, text, len)) {
         char *m = malloc (strlen (v) + 1);
         if (m)
            strcpy (m, v);
         return m;
      }
   }
   return NULL;
}

/* Inside a string argument of a helper call: the kind of that argument ("ns", "shard", ...), else NULL. The helper
 * is the name before the innermost open parenthesis; the argument index counts the commas at that depth. */
static const char *
repl_string_arg_kind (const char *line, int start, char *buf, size_t len)
{
   int depth = 0, commas = 0, i;
   char name[192];
   size_t n = 0;
   if (start < 1 || (line[start - 1] != '"' && line[start - 1] != '\''))
      return NULL;
   for (i = start - 2; i >= 0; i--) {
      char c = line[i];
      if (c == ')' || c == ']' || c == '}')
         depth++;
      else if ((c == '(' || c == '[' || c == '{') && depth > 0)
         depth--;
      else if (c == '(' && depth == 0)
         break;
      else if (c == ',' && depth == 0)
         commas++;
      else if ((c == '[' || c == '{') && depth == 0)
         return NULL; /* inside a document or array argument */
   }
   if (i <= 0)
      return NULL;
   while (i > 0 && (isalnum ((unsigned char) line[i - 1]) || line[i - 1] == '.' || line[i - 1] == '_'))
      i--, n++;
   if (!n || n >= sizeof name)
      return NULL;
   memcpy (name, line + i, n);
   name[n] = '\0';
   return cmd_arg_kind (sh_cmd_find (name), commas, buf, len);
}

/* After "db.": the helpers (db.adminCommand, ...) and then the current database's collections, as mongosh offers. */
static char *
repl_complete_db_member (const char *text, int state)
{
   static bool names_done;
   static bson_iter_t it;
   static bool have_values;
   const bson_t *complete_values = repl_ctx ? repl_ctx->session.complete_values : NULL;
   size_t len = strlen (text);
   char *m;
   if (!state) {
      names_done = false;
      have_values = complete_values && bson_iter_init (&it, complete_values);
   }
   if (!names_done) {
      if ((m = repl_complete_name (text, state)) != NULL)
         return m;
      names_done = true;
   }
   while (have_values && bson_iter_next (&it)) {
      const char *v = bson_iter_utf8 (&it, NULL);
      if (strlen (v) + 3 >= len && !strncmp (text + 3, v, len - 3) && (m = malloc (strlen (v) + 4)) != NULL) {
         sprintf (m, "db.%s", v);
         return m;
      }
   }
   return NULL;
}

/* After "db.<coll>.": the collection methods of the table (its db.collection.* entries) as db.<coll>.<method>(. */
static char *
repl_complete_coll_method (const char *text, int state)
{
   static size_t i, plen, len;
   if (!state) {
      i = 0;
      len = strlen (text);
      plen = (size_t) (strrchr (text, '.') - text) + 1; /* "db.<coll>." */
   }
   while (sh_cmd_table[i]) {
      const char *name = sh_cmd_table[i++]->name;
      if (strncmp (name, "db.collection.", 14) != 0 || strncmp (name + 14, text + plen, len - plen) != 0)
         continue;
      {
         /* readline frees matches with free(): allocate with malloc */
         char *m = malloc (plen + strlen (name + 14) + 2);
         if (m)
            sprintf (m, "%.*s%s(", (int) plen, text, name + 14);
         return m;
      }
   }
   return NULL;
}

static char **
repl_complete (const char *text, int start, int end)
{
   char kind[16];
   const char *k;
   (void) end;
   rl_completion_append_character = '\0';
   k = repl_string_arg_kind (rl_line_buffer, start, kind, sizeof kind);
   if (!k && start == 4 && !strncmp (rl_line_buffer, "use ", 4))
      k = "db";
   if (k) {
      if (repl_ctx)
         repl_ctx->session.complete_values = cmd_complete_values (repl_ctx, k, repl_ctx->db);
      return rl_completion_matches (text, repl_complete_value);
   }
   if (!strncmp (text, "db.", 3) && !strchr (text + 3, '.')) {
      if (repl_ctx)
         repl_ctx->session.complete_values = cmd_complete_values (repl_ctx, "coll", repl_ctx->db);
      return rl_completion_matches (text, repl_complete_db_member);
   }
   if (!strncmp (text, "db.", 3) && strchr (text + 3, '.') > text + 3)
      return rl_completion_matches (text, repl_complete_coll_method);
   return rl_completion_matches (text, repl_complete_any);
}

static bool
repl_is_mongos (sh_ctx_t *ctx)
{
   mongoc_server_description_t **sds;
   size_t n = 0;
   bool mongos = false;
   if (!ctx->client)
      return false;
   sds = mongoc_client_get_server_descriptions (ctx->client, &n);
   for (size_t i = 0; i < n; i++) {
      if (!strcmp (mongoc_server_description_type (sds[i]), "Mongos"))
         mongos = true;
   }
   mongoc_server_descriptions_destroy_all (sds, n);
   return mongos;
}

/* How much of standard input is kept for the source lines of errors. */
#define REPL_TRANSCRIPT_MAX (16u << 20)

/* Where the REPL reads its lines: libedit at a terminal, else standard input as mongosh reads it when it is not a
 * terminal (a heredoc, a pipe): the prompt is written to stdout before each line, nothing goes to the history, and
 * errors name <stdin> and the line. */
typedef struct {
   bool piped;
   char *hist;                /* the history file (a terminal only); owned, may be NULL */
   int line;                  /* lines read so far */
   int first;                 /* the line where the pending entry began */
   bson_string_t *transcript; /* standard input so far, for an error's source line; owned, NULL at a terminal */
   bool bad_line;             /* the line just read held a NUL byte (reported): it and its entry are dropped */
   char *buf;                 /* getline's buffer; owned (malloc) */
   size_t cap;
} repl_reader_t;

/* The next line without its end of line (malloc'd, the caller frees it with free), NULL at the end of the input or
 * on Ctrl-C. The prompt is shown first. */
static char *
repl_read_line (sh_ctx_t *ctx, repl_reader_t *rd, const char *prompt)
{
   ssize_t n;
   char *line, *nul;
   if (!rd->piped)
      return readline (prompt);
   fputs (prompt, ctx->out_fp);
   fflush (ctx->out_fp);
   if ((n = getline (&rd->buf, &rd->cap, stdin)) < 0)
      return NULL;
   while (n > 0 && (rd->buf[n - 1] == '\n' || rd->buf[n - 1] == '\r'))
      n--;
   if (rd->line < INT_MAX)
      rd->line++;
   if ((nul = memchr (rd->buf, '\0', (size_t) n)) != NULL) {
      /* a NUL byte would end the line early: the line is refused whole, as a script's would be */
      sh_error_t err;
      size_t off = (size_t) (nul - rd->buf);
      sh_pos_t at = { .line = rd->line, .col = off < INT_MAX ? (int) off + 1 : INT_MAX, .offset = off };
      sh_error_clear (&err);
      sh_error_set_at (&err, SH_ERR_PARSE, at, "a NUL byte: the line is not run");
      sh_error_report (ctx, &err, "<stdin>", NULL);
      rd->bad_line = true;
      n = 0;
   }
   if (!(line = malloc ((size_t) n + 1)))
      return NULL;
   memcpy (line, rd->buf, (size_t) n);
   line[n] = '\0';
   /* past REPL_TRANSCRIPT_MAX an error shows no source line: a long pipe is not kept whole */
   if (rd->transcript->len < REPL_TRANSCRIPT_MAX)
      bson_string_append_printf (rd->transcript, "%s\n", line);
   return line;
}

/* Reports err of the entry text. Read from standard input, at its place there (<stdin>:LINE:COL): a position in the
 * entry is shifted to where the entry began when shift is set (the literal grammar's and the dispatcher's), while the
 * engine's already count from the start of the input (repl_run_js); at a terminal, at its place in the entry. */
static void
repl_report (sh_ctx_t *ctx, const repl_reader_t *rd, const sh_error_t *err, const char *text, bool shift)
{
   sh_error_t e = *err;
   if (!rd->piped) {
      sh_error_report (ctx, &e, NULL, text);
      return;
   }
   if (e.has_pos && shift)
      e.pos.line += rd->first - 1;
   sh_error_report (ctx, &e, "<stdin>", rd->transcript->str);
}

/* Whether a literal statement's value is undefined in mongosh (print, printjson, sleep): read from standard input,
 * an empty line follows it, as mongosh's REPL writes one for undefined. */
static bool
repl_stmt_undefined (const sh_stmt_t *st)
{
   const char *name = st->kind == SH_STMT_CHAIN && st->nsegs == 1 ? st->segs[0].name : NULL;
   return name && (!strcmp (name, "print") || !strcmp (name, "printjson") || !strcmp (name, "sleep"));
}

/* Runs a complete literal entry, statement by statement (Ctrl-C abandons the rest of what was typed too). */
static void
repl_run_literal (sh_ctx_t *ctx, const repl_reader_t *rd, const sh_script_t *script)
{
   sh_error_t err;
   /* an empty entry (a blank line, a comment) is undefined too */
   bool blank = rd->piped && script->n == 0;
   for (size_t i = 0; i < script->n && !ctx->exit_requested && !sh_interrupted (); i++) {
      const sh_stmt_t *st = &script->stmts[i];
      sh_error_clear (&err);
      traps_check_stmt (ctx, st);
      if (!dispatch_stmt (ctx, st, NULL, &err))
         repl_report (ctx, rd, &err, script->source, true);
      else if (rd->piped && repl_stmt_undefined (st))
         blank = true;
      fflush (ctx->out_fp);
   }
   if (blank && !ctx->exit_requested) {
      fputc ('\n', ctx->out_fp);
      fflush (ctx->out_fp);
   }
}

/* Runs JavaScript text: variables persist between entries; the value of an expression is printed. Read from standard
 * input, the engine gets the text after as many line ends as lines came before it, so that its positions (also those
 * of a later error inside a function defined here) count from the start of the input; an empty line follows a value
 * that is undefined, as mongosh writes. (The line ends cost: 20000 lines of JavaScript take 12 s, mongosh 2.12 takes
 * 480 s.) */
static void
repl_run_js (sh_ctx_t *ctx, const repl_reader_t *rd, const char *text, size_t len)
{
   sh_error_t err;
   size_t shown = js_host_values_shown ();
   char *padded = NULL;
   size_t pad = rd->piped && rd->first > 1 ? (size_t) rd->first - 1 : 0;
   js_run_t r;
   sh_error_clear (&err);
   traps_check_js (ctx, NULL, text, len);
   if (pad) {
      padded = bson_malloc (pad + len + 1);
      memset (padded, '\n', pad);
      memcpy (padded + pad, text, len);
      padded[pad + len] = '\0';
   }
   r = js_host_run (ctx, rd->piped ? "<stdin>" : "<repl>", pad ? padded : text, pad + len, true, &err);
   bson_free (padded);
   if (r == JS_RUN_FAILED)
      repl_report (ctx, rd, &err, text, false);
   else if (rd->piped && r == JS_RUN_OK && js_host_values_shown () == shown && !ctx->exit_requested) {
      fputc ('\n', ctx->out_fp);
      fflush (ctx->out_fp);
   }
}

/* One entry (text, len bytes) that needs no more lines by the literal grammar's count: false when it is JavaScript
 * still open (a block, a string, a template literal) and more lines are needed; else it runs and true. */
static bool
repl_entry (sh_ctx_t *ctx, repl_reader_t *rd, const char *text, size_t len)
{
   sh_script_t script = { 0 };
   sh_error_t err, jerr;
   bool parsed, literal;
   sh_error_clear (&err);
   sh_error_clear (&jerr);
   parsed = sh_parse_script (rd->piped ? "<stdin>" : "<repl>", text, len, &script, &err);
   literal = parsed && dispatch_script_is_literal (ctx, &script);
   /* JavaScript with an open block, string or template literal: read on */
   if (!parsed && js_host_engine (ctx, &jerr) && !js_host_is_compilable (ctx, text, len)) {
      sh_script_destroy (&script);
      return false;
   }
   if (!rd->piped && len && !secret_line_is_sensitive (text)) {
      add_history (text);
      if (rd->hist && !repl_history_append (rd->hist, text) && !ctx->opts->quiet)
         fprintf (ctx->err_fp, "warning: cannot write history file '%s'\n", rd->hist);
   }
   if (literal) {
      repl_run_literal (ctx, rd, &script);
   } else if (!js_host_engine (ctx, &jerr)) {
      if (!parsed) {
         sh_error_hint (&err, "%s", jerr.message);
         repl_report (ctx, rd, &err, text, true);
      } else {
         repl_report (ctx, rd, &jerr, text, true);
      }
   } else {
      repl_run_js (ctx, rd, text, len);
   }
   sh_script_destroy (&script);
   return true;
}

/* The prompt: "[direct: mongos] test> " as mongosh's, "> " without a connection (--nodb), "... " on a continued
 * entry. */
static void
repl_prompt (sh_ctx_t *ctx, bool continued, char *buf, size_t len)
{
   if (continued)
      bson_strncpy (buf, "... ", len);
   else if (!ctx->uri)
      bson_strncpy (buf, "> ", len);
   else
      bson_snprintf (buf, len, "%s%s> ", repl_is_mongos (ctx) ? "[direct: mongos] " : "", ctx->db);
}

/* Read from standard input, the shell connects before its first prompt, as mongosh does (its buildInfo): the prompt
 * names a mongos from the start, and a cluster that cannot be reached or refuses the credentials ends the run before
 * anything runs (false, reported), as mongosh exits 1 then. Any other error waits for the statements that meet it. */
static bool
repl_connect_first (sh_ctx_t *ctx)
{
   int version[3];
   sh_error_t err;
   sh_error_clear (&err);
   if (!ctx->uri || conn_server_version (ctx, version, &err))
      return true;
   if (err.kind == SH_ERR_NETWORK || (err.kind == SH_ERR_SERVER && err.code == 18)) {
      sh_error_report (ctx, &err, NULL, NULL);
      return false;
   }
   return true;
}

int
repl_run (sh_ctx_t *ctx)
{
   repl_reader_t rd = { .piped = !isatty (STDIN_FILENO) };
   int rc = 0;
   if (rd.piped)
      rd.transcript = bson_string_new (NULL);
   bson_string_t *pending = bson_string_new (NULL);

   repl_ctx = ctx;
   if (!rd.piped) {
      /* a read interrupted by Ctrl-C returns; read from a pipe, Ctrl-C ends the process as it ends a script */
      sh_interrupt_install ();
      rd.hist = repl_history_path ();
      rl_catch_signals = 0;
      rl_readline_name = "shardsh";
      rl_attempted_completion_function = repl_complete;
      rl_basic_word_break_characters = " \t\n\"'`@$><=;|&{(,";
      if (rd.hist)
         read_history (rd.hist);
   }

   if (rd.piped && !(ctx->opts && ctx->opts->dry_run) && !repl_connect_first (ctx))
      rc = 1;
   while (!ctx->exit_requested && rc == 0) {
      char prompt[192];
      char *line;
      repl_prompt (ctx, pending->len > 0, prompt, sizeof prompt);
      sh_interrupt_clear ();
      errno = 0;
      line = repl_read_line (ctx, &rd, prompt);
      if (!line) {
         if (!rd.piped && (sh_interrupted () || errno == EINTR)) {
            /* Ctrl-C: drop what was typed and start again */
            fputc ('\n', stdout);
            bson_string_truncate (pending, 0);
            continue;
         }
         if (!rd.piped)
            fputc ('\n', stdout); /* Ctrl-D */
         break;                   /* the end of standard input: what is still open is dropped, as mongosh drops it */
      }
      if (rd.bad_line) {
         rd.bad_line = false;
         free (line);
         bson_string_truncate (pending, 0);
         continue;
      }
      if (sh_interrupted ()) {
         free (line);
         bson_string_truncate (pending, 0);
         if (rd.piped)
            break;
         continue;
      }
      if (!pending->len)
         rd.first = rd.line;
      else
         bson_string_append (pending, "\n");
      bson_string_append (pending, line);
      free (line);
      if (sh_parse_needs_more (pending->str, pending->len) || !repl_entry (ctx, &rd, pending->str, pending->len))
         continue;
      bson_string_truncate (pending, 0);
   }
   bson_string_free (pending, true);
   bson_free (rd.hist);
   if (rd.transcript)
      bson_string_free (rd.transcript, true);
   free (rd.buf);
   cmd_complete_reset (ctx);
   repl_ctx = NULL;
   return rc == 0 && ctx->exit_requested ? ctx->exit_code : rc; /* quit(n) ends the shell with n, as mongosh */
}
