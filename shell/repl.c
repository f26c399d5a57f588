/* The REPL: libedit's readline interface, multi-line input until the statement is complete, history with a
 * credential filter, completion of helper names from the command table and of live arguments (namespaces, shards,
 * zones, databases, collections: the entry's arg_kinds, values from commands/complete.c), and signal handling that
 * keeps the shell alive on Ctrl-C. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
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

int
repl_run (sh_ctx_t *ctx)
{
   char *hist = repl_history_path ();
   bson_string_t *pending = bson_string_new (NULL);

   repl_ctx = ctx;
   sh_interrupt_install (); /* a read interrupted by Ctrl-C returns */
   rl_catch_signals = 0;
   rl_readline_name = "shardsh";
   rl_attempted_completion_function = repl_complete;
   rl_basic_word_break_characters = " \t\n\"'`@$><=;|&{(,";
   if (hist)
      read_history (hist);

   while (!ctx->exit_requested) {
      char prompt[192];
      char *line;
      if (pending->len)
         bson_strncpy (prompt, "... ", sizeof prompt);
      else
         bson_snprintf (prompt, sizeof prompt, "%s%s> ", repl_is_mongos (ctx) ? "[direct: mongos] " : "", ctx->db);
      sh_interrupt_clear ();
      errno = 0;
      line = readline (prompt);
      if (!line) {
         if (sh_interrupted () || errno == EINTR) {
            /* Ctrl-C: drop what was typed and start again */
            fputc ('\n', stdout);
            bson_string_truncate (pending, 0);
            continue;
         }
         fputc ('\n', stdout); /* Ctrl-D */
         break;
      }
      if (sh_interrupted ()) {
         free (line);
         bson_string_truncate (pending, 0);
         continue;
      }
      if (pending->len)
         bson_string_append (pending, "\n");
      bson_string_append (pending, line);
      free (line);
      if (sh_parse_needs_more (pending->str, pending->len))
         continue;
      {
         sh_script_t script = { 0 };
         sh_error_t err, jerr;
         bool parsed, literal;
         sh_error_clear (&err);
         sh_error_clear (&jerr);
         parsed = sh_parse_script ("<repl>", pending->str, pending->len, &script, &err);
         literal = parsed && dispatch_script_is_literal (ctx, &script);
         /* JavaScript with an open block, string or template literal: read on */
         if (!parsed && js_host_engine (ctx, &jerr) && !js_host_is_compilable (ctx, pending->str, pending->len)) {
            sh_script_destroy (&script);
            continue;
         }
         if (pending->len && !secret_line_is_sensitive (pending->str)) {
            add_history (pending->str);
            if (hist && !repl_history_append (hist, pending->str) && !ctx->opts->quiet)
               fprintf (ctx->err_fp, "warning: cannot write history file '%s'\n", hist);
         }
         if (literal) {
            /* Ctrl-C abandons the rest of what was typed too */
            for (size_t i = 0; i < script.n && !ctx->exit_requested && !sh_interrupted (); i++) {
               sh_error_clear (&err);
               traps_check_stmt (ctx, &script.stmts[i]);
               if (!dispatch_stmt (ctx, &script.stmts[i], NULL, &err))
                  sh_error_report (ctx, &err, NULL, script.source);
               fflush (ctx->out_fp);
            }
         } else if (!js_host_engine (ctx, &jerr)) {
            if (!parsed) {
               sh_error_hint (&err, "%s", jerr.message);
               sh_error_report (ctx, &err, NULL, pending->str);
            } else {
               sh_error_report (ctx, &jerr, NULL, pending->str);
            }
         } else {
            /* JavaScript: variables persist between lines; the value of an expression is printed */
            sh_error_clear (&jerr);
            traps_check_js (ctx, NULL, pending->str, pending->len);
            if (js_host_run (ctx, "<repl>", pending->str, pending->len, true, &jerr) == JS_RUN_FAILED)
               sh_error_report (ctx, &jerr, NULL, pending->str);
         }
         sh_script_destroy (&script);
         bson_string_truncate (pending, 0);
      }
   }
   bson_string_free (pending, true);
   bson_free (hist);
   cmd_complete_reset (ctx);
   repl_ctx = NULL;
   return 0;
}
