/* The shell's own commands: help (all of it generated from the command table), sh.help(), use, show, exit, print,
 * printjson, db.getName() and sleep. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "commands/users.h"
#include "shell/lib/docget.h"
#include "shell/lib/names.h"
#include "shell/lib/secret.h"
#include "shell/core/interrupt.h"

static void
help_entry (bson_string_t *out, const sh_cmd_t *c)
{
   bson_string_append_printf (out, "%s\n  %s\n", c->usage, c->summary);
   if (c->alias_of)
      bson_string_append_printf (out, "  alias of: %s\n", c->alias_of);
   if (c->since)
      bson_string_append_printf (out, "  needs MongoDB %s or later\n", c->since);
   if (c->sends)
      bson_string_append_printf (out, "  sends: %s\n", c->sends);
   if (sh_cmd_row (c) && sh_cmd_row (c)->effect != CMD_EFFECT_NONE)
      bson_string_append_printf (out, "  asks for confirmation in a terminal when it %s (skip with --yes)\n",
                                 cmd_effect_summary (sh_cmd_row (c)->effect));
   if (!(c->flags & (CMD_READONLY | CMD_CLIENT_ONLY)))
      bson_string_append_printf (out, "  refused under --readonly%s\n",
                                 c->readonly_if ? " unless the command only reads" : "");
   if (c->example)
      bson_string_append_printf (out, "  example: %s\n", c->example);
}

static void
help_list (bson_string_t *out, const char *prefix)
{
   for (size_t i = 0; sh_cmd_table[i]; i++) {
      const sh_cmd_t *c = sh_cmd_table[i];
      if (prefix && strncmp (c->name, prefix, strlen (prefix)) != 0)
         continue;
      /* the server version a helper needs, as `help <name>` says it at length */
      if (c->since)
         bson_string_append_printf (out, "  %-34s %s (MongoDB %s+)\n", c->usage, c->summary, c->since);
      else
         bson_string_append_printf (out, "  %-34s %s\n", c->usage, c->summary);
   }
}

static bool
exec_help (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   const char *topic = args_str (call, 0);
   const sh_cmd_t *c;
   (void) ctx;
   if (!topic) {
      bson_string_t *out = sh_result_text (res);
      bson_string_append (out, "shardsh: mongosh's sharding helpers, scripts and a live dashboard.\n\n"
                               "Sharding helpers (sh.help() lists them alone):\n");
      help_list (out, "sh.");
      bson_string_append (out, "\nDatabase and collection helpers:\n");
      help_list (out, "db.");
      bson_string_append (out, "\nShell:\n");
      for (size_t i = 0; sh_cmd_table[i]; i++) {
         c = sh_cmd_table[i];
         if (strncmp (c->name, "sh.", 3) && strncmp (c->name, "db.", 3))
            bson_string_append_printf (out, "  %-34s %s\n", c->usage, c->summary);
      }
      bson_string_append (
         out, "\n'help <name>' (for example 'help sh.moveChunk') shows usage, what is sent and an example.\n");
      return true;
   }
   c = sh_cmd_find (topic);
   for (size_t i = 0; !c && i < 2; i++) {
      /* help find → db.collection.find, help moveChunk → sh.moveChunk */
      char *name = bson_strdup_printf ("%s%s", i ? "sh." : "db.collection.", topic);
      c = sh_cmd_find (name);
      bson_free (name);
   }
   if (!c) {
      const char *near[3];
      size_t n = sh_cmd_suggest (topic, near, 3);
      sh_error_set_at (err, SH_ERR_USAGE, call->arg_pos ? call->arg_pos[0] : call->pos, "no help for '%s'", topic);
      if (n)
         sh_error_hint (err, "did you mean %s%s%s%s%s?", near[0], n > 1 ? ", " : "", n > 1 ? near[1] : "",
                        n > 2 ? ", " : "", n > 2 ? near[2] : "");
      return false;
   }
   help_entry (sh_result_text (res), c);
   return true;
}

static bool
exec_sh_help (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_string_t *out = sh_result_text (res);
   (void) ctx;
   (void) call;
   (void) err;
   bson_string_append (out, "Sharding helpers ('help sh.<name>' for details):\n");
   help_list (out, "sh.");
   return true;
}

static bool
exec_use (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   const char *name = args_str (call, 0), *why = NULL;
   bson_iter_t it;
   uint32_t len = 0;
   if (name && args_get (call, 0, &it))
      (void) bson_iter_utf8 (&it, &len);
   if (!name || (why = names_db_invalid (name, len))) {
      sh_error_set_at (err, SH_ERR_ARGS, call->arg_pos ? call->arg_pos[0] : call->pos, "invalid database name '%s'%s%s",
                       name ? name : "", why ? ": it " : "", why ? why : "");
      return false;
   }
   /* as mongosh's use: nothing to switch when it is the current database already */
   if (ctx->db && !strcmp (ctx->db, name)) {
      bson_string_append_printf (sh_result_text (res), "already on db %s\n", name);
      return true;
   }
   bson_free (ctx->db);
   ctx->db = bson_strdup (name);
   bson_string_append_printf (sh_result_text (res), "switched to db %s\n", name);
   return true;
}

/* quit(n) / exit(n): the process's exit status, an integer from 0 to 255 (mongosh's process.exit(n)) */
static bool
build_exit (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   (void) out;
   if (!args_check (call, 0, ARG_NUMBER, false, "Shell", "quit", err))
      return false;
   /* mongosh's quit(2.5) is refused by process.exit; args_int would truncate it */
   if (args_get (call, 0, &it) && BSON_ITER_HOLDS_DOUBLE (&it) && isfinite (bson_iter_double (&it)) &&
       bson_iter_double (&it) != trunc (bson_iter_double (&it))) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0), "quit: the exit status must be an integer, got %g",
                       bson_iter_double (&it));
      return false;
   }
   return args_int (call, 0, 0, 255, "the exit status", NULL, err);
}

static bool
exec_exit (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   int64_t code = 0;
   (void) res;
   if (!build_exit (call, NULL, err) || !args_int (call, 0, 0, 255, "the exit status", &code, err))
      return false;
   ctx->exit_requested = true;
   ctx->exit_code = (int) code;
   return true;
}

static bool
exec_print (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_iter_t it;
   bool first = true;
   bson_string_t *out = sh_result_text (res);
   (void) err;
   bson_iter_init (&it, call->args);
   while (bson_iter_next (&it)) {
      output_opts_t o = ctx->out;
      char *s;
      o.mode = OUTPUT_PRETTY;
      s = output_format_value (bson_iter_value (&it), &o);
      s[secret_mask_source (s, strlen (s))] = '\0'; /* what leaves shardsh never shows a password (secret.h) */
      bson_string_append_printf (out, "%s%s", first ? "" : " ", s);
      bson_free (s);
      first = false;
   }
   bson_string_append_c (out, '\n');
   return true;
}

static bool
exec_printjson (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_iter_t it;
   output_opts_t saved = ctx->out;
   bson_string_t *out = sh_result_text (res);
   const char *sep = "";
   char *s;
   (void) err;
   /* mongosh's printjson inspects with compact: false, one entry per line at every level; its arguments go on one
    * line, a space apart, as print's do (forEach(printjson) passes the document, its index and the array) */
   ctx->out.expanded = true;
   bson_iter_init (&it, call->args);
   while (bson_iter_next (&it)) {
      bson_t doc, shown = BSON_INITIALIZER;
      bson_value_t v;
      bson_string_append (out, sep);
      sep = " ";
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &doc)) {
         /* an array or a string: its text masked as print's is (a document in an array, a connection string) */
         s = output_format_value (bson_iter_value (&it), &ctx->out);
         s[secret_mask_source (s, strlen (s))] = '\0';
         bson_string_append (out, s);
         bson_free (s);
         continue;
      }
      secret_redact_doc (&doc, &shown); /* its pwd and password fields, and connection strings, hidden */
      v.value_type = BSON_TYPE_DOCUMENT;
      v.value.v_doc.data = (uint8_t *) bson_get_data (&shown);
      v.value.v_doc.data_len = shown.len;
      s = output_format_value (&v, &ctx->out);
      bson_string_append (out, s);
      bson_free (s);
      bson_destroy (&shown);
   }
   bson_string_append_c (out, '\n');
   ctx->out = saved;
   return true;
}

static bool
exec_get_name (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   (void) ctx;
   (void) err;
   bson_string_append_printf (sh_result_text (res), "%s\n", call->db);
   return true;
}

/* sleep(ms): a whole number of milliseconds from 0 to 2^31 - 1 (24.8 days), checked before anything runs */
static bool
build_sleep (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   int64_t ms = 0;
   (void) out;
   return args_check (call, 0, ARG_NUMBER, true, "Shell", "sleep", err) &&
          args_int (call, 0, 0, INT32_MAX, "ms", &ms, err);
}

static bool
exec_sleep (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   int64_t ms = 0;
   (void) ctx;
   (void) res;
   if (!build_sleep (call, NULL, err) || !args_int (call, 0, 0, INT32_MAX, "ms", &ms, err))
      return false;
   if (!sh_sleep_ms (ms)) {
      sh_error_set_at (err, SH_ERR_INTERRUPTED, call->pos, "sleep interrupted");
      return false;
   }
   return true;
}

/* A character's place in a name as ICU's root collation (mongosh's localeCompare) orders ASCII at its first level:
 * punctuation, then digits, then letters without regard to case. */
static int
show_char_rank (unsigned char c)
{
   static const char punct[] = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";
   const char *p;
   if (isdigit (c))
      return 100 + c;
   if (isalpha (c))
      return 200 + tolower (c);
   p = c ? strchr (punct, c) : NULL;
   return p ? (int) (p - punct) + 1 : 300 + c;
}

/* qsort's order of collection names as mongosh sorts them (localeCompare): first level, then lower case first */
static int
show_name_cmp (const void *a, const void *b)
{
   const unsigned char *x = *(const unsigned char *const *) a, *y = *(const unsigned char *const *) b;
   size_t i;
   for (i = 0; x[i] && y[i]; i++)
      if (show_char_rank (x[i]) != show_char_rank (y[i]))
         return show_char_rank (x[i]) - show_char_rank (y[i]);
   if (x[i] || y[i])
      return x[i] ? 1 : -1;
   for (i = 0; x[i]; i++)
      if (x[i] != y[i])
         return islower (x[i]) ? -1 : 1;
   return 0;
}

/* show collections as mongosh prints it: names sorted, system.* (and enxcol_.*) last, a view or time-series
 * collection's badge after the names padded to the longest (text-table's two-space gap). docs: listCollections's. */
static void
show_collections_table (const bson_t *docs, bson_string_t *out)
{
   bson_iter_t it, f;
   const char **names;
   size_t n = 0, width = 0, pass, i;
   names = bson_malloc0 (sizeof *names * (bson_count_keys (docs) + 1));
   bson_iter_init (&it, docs);
   while (bson_iter_next (&it))
      if (bson_iter_recurse (&it, &f) && bson_iter_find (&f, "name") && BSON_ITER_HOLDS_UTF8 (&f))
         names[n++] = bson_iter_utf8 (&f, NULL);
   qsort (names, n, sizeof *names, show_name_cmp);
   if (n == 0)
      bson_string_append_c (out, '\n'); /* mongosh prints the empty table: an empty line */
   for (i = 0; i < n; i++)
      width = strlen (names[i]) > width ? strlen (names[i]) : width;
   for (pass = 0; pass < 2; pass++) {
      for (i = 0; i < n; i++) {
         const char *badge = "", *type = NULL;
         bool sys = !strncmp (names[i], "system.", 7) || !strncmp (names[i], "enxcol_.", 8);
         if (sys != (pass == 1))
            continue;
         bson_iter_init (&it, docs);
         while (!type && bson_iter_next (&it))
            if (bson_iter_recurse (&it, &f) && bson_iter_find (&f, "name") && BSON_ITER_HOLDS_UTF8 (&f) &&
                !strcmp (bson_iter_utf8 (&f, NULL), names[i]) && bson_iter_recurse (&it, &f) &&
                bson_iter_find (&f, "type") && BSON_ITER_HOLDS_UTF8 (&f))
               type = bson_iter_utf8 (&f, NULL);
         if (type && !strcmp (type, "view"))
            badge = "[view]";
         else if (type && !strcmp (type, "timeseries"))
            badge = "[time-series]";
         if (*badge)
            bson_string_append_printf (out, "%-*s  %s\n", (int) width, names[i], badge);
         else
            bson_string_append_printf (out, "%s\n", names[i]);
      }
   }
   bson_free (names);
}

/* A size as mongosh's show dbs writes it (numeral's '0.00 ib'; '0 ib' up to 1000 bytes) into buf. */
static void
show_size_text (double bytes, char *buf, size_t len)
{
   static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
   size_t u = 0;
   if (bytes <= 1000) {
      snprintf (buf, len, "%.0f B", bytes);
      return;
   }
   while (bytes >= 1024 && u + 1 < sizeof units / sizeof *units) {
      bytes /= 1024;
      u++;
   }
   snprintf (buf, len, "%.2f %s", bytes, units[u]);
}

/* show dbs as mongosh prints it: names padded to the longest, two spaces, sizes aligned right. d: the databases. */
static void
show_dbs_table (const bson_iter_t *dbs, bson_string_t *out)
{
   bson_iter_t d, f;
   size_t pass, nw = 0, sw = 0;
   for (pass = 0; pass < 2; pass++) {
      d = *dbs;
      while (bson_iter_next (&d)) {
         const char *name = "";
         char size[64];
         double bytes = 0;
         if (bson_iter_recurse (&d, &f) && bson_iter_find (&f, "name") && BSON_ITER_HOLDS_UTF8 (&f))
            name = bson_iter_utf8 (&f, NULL);
         if (bson_iter_recurse (&d, &f) && bson_iter_find (&f, "sizeOnDisk") && BSON_ITER_HOLDS_NUMBER (&f))
            bytes = bson_iter_as_double (&f);
         show_size_text (bytes, size, sizeof size);
         if (pass == 0) {
            nw = strlen (name) > nw ? strlen (name) : nw;
            sw = strlen (size) > sw ? strlen (size) : sw;
         } else {
            bson_string_append_printf (out, "%-*s  %*s\n", (int) nw, name, (int) sw, size);
         }
      }
   }
}

/* show dbs | collections | shards | zones | balancer | users | roles: each runs one read; its result is the text or
 * documents read */
static bool
exec_show (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   const char *what = args_str (call, 0);
   bson_t cmd = BSON_INITIALIZER, reply = BSON_INITIALIZER, docs = BSON_INITIALIZER;
   bson_iter_t it;
   bool ok = false;

   if (!what) {
      sh_error_set_at (err, SH_ERR_USAGE, call->pos,
                       "show needs one of: dbs, collections, shards, zones, balancer, users, roles");
      goto done;
   }
   if (!strcmp (what, "dbs") || !strcmp (what, "databases")) {
      bson_iter_t d;
      BSON_APPEND_INT32 (&cmd, "listDatabases", 1);
      bson_destroy (&reply);
      if (!conn_run (ctx, "admin", &cmd, CONN_ADMIN, &reply, err))
         goto done;
      if (bson_iter_init_find (&it, &reply, "databases") && BSON_ITER_HOLDS_ARRAY (&it) && bson_iter_recurse (&it, &d))
         show_dbs_table (&d, sh_result_text (res));
   } else if (!strcmp (what, "collections") || !strcmp (what, "tables")) {
      BSON_APPEND_INT32 (&cmd, "listCollections", 1);
      cmd_append_empty (&cmd, "filter");
      BSON_APPEND_BOOL (&cmd, "nameOnly", true);
      bson_destroy (&docs);
      if (!conn_run_docs (ctx, ctx->db, &cmd, CONN_ADMIN, 0, &docs, NULL, err))
         goto done;
      show_collections_table (&docs, sh_result_text (res));
   } else if (!strcmp (what, "shards")) {
      bson_t arr;
      BSON_APPEND_INT32 (&cmd, "listShards", 1);
      bson_destroy (&reply);
      if (!conn_run (ctx, "admin", &cmd, CONN_ADMIN, &reply, err))
         goto done;
      if (docget_sub (&reply, "shards", BSON_TYPE_ARRAY, &arr))
         sh_result_set_array (res, &arr);
   } else if (!strcmp (what, "zones")) {
      bson_t sort;
      BSON_APPEND_UTF8 (&cmd, "find", "tags");
      cmd_append_empty (&cmd, "filter");
      BSON_APPEND_DOCUMENT_BEGIN (&cmd, "sort", &sort);
      BSON_APPEND_INT32 (&sort, "ns", 1);
      BSON_APPEND_INT32 (&sort, "min", 1);
      bson_append_document_end (&cmd, &sort);
      bson_destroy (&docs);
      if (!conn_run_docs (ctx, "config", &cmd, CONN_READ, 0, &docs, NULL, err))
         goto done;
      sh_result_set_array (res, &docs);
   } else if (!strcmp (what, "users") || !strcmp (what, "roles")) {
      if (!users_show (ctx, !strcmp (what, "roles"), res, err))
         goto done;
   } else if (!strcmp (what, "balancer")) {
      BSON_APPEND_INT32 (&cmd, "balancerStatus", 1);
      bson_destroy (&reply);
      if (!conn_run (ctx, "admin", &cmd, CONN_READ, &reply, err))
         goto done;
      if (!cmd_dry_run (ctx))
         sh_result_set_doc (res, &reply);
   } else {
      sh_error_set_at (err, SH_ERR_USAGE, call->arg_pos ? call->arg_pos[0] : call->pos,
                       "unknown 'show %s': use dbs, collections, shards, zones, balancer, users or roles", what);
      goto done;
   }
   ok = true;
done:
   bson_destroy (&cmd);
   bson_destroy (&reply);
   bson_destroy (&docs);
   return ok;
}

const sh_cmd_t cmd_help = {
   .name = "help",
   .usage = "help [name]",
   .summary = "This list, or the usage, wire request and an example of one helper",
   .example = "help sh.moveChunk",
   .flags = CMD_CLIENT_ONLY | CMD_READONLY,
   .exec = exec_help,
};

const sh_cmd_t cmd_sh_help = {
   .name = "sh.help",
   .usage = "sh.help()",
   .summary = "List the sharding helpers",
   .example = "sh.help()",
   .flags = CMD_CLIENT_ONLY | CMD_READONLY,
   .exec = exec_sh_help,
};

const sh_cmd_t cmd_use = {
   .name = "use",
   .usage = "use <database>",
   .summary = "Switch the current database",
   .example = "use config",
   .flags = CMD_CLIENT_ONLY | CMD_READONLY,
   .exec = exec_use,
};

const sh_cmd_t cmd_show = {
   .name = "show",
   .usage = "show dbs|collections|shards|zones|balancer|users|roles",
   .summary = "List databases, collections, shards, zone ranges, the balancer's status, or the current database's "
              "users or roles (built-in ones included)",
   .sends = "listDatabases / listCollections / listShards / config.tags find / balancerStatus / usersInfo / "
            "rolesInfo",
   .example = "show shards",
   .flags = CMD_READONLY,
   .exec = exec_show,
};

const sh_cmd_t cmd_exit = {
   .name = "exit",
   .usage = "exit [status] | quit [status]",
   .summary = "Leave the shell (a script: with this exit status, 0 to 255)",
   .flags = CMD_CLIENT_ONLY | CMD_READONLY,
   .build = build_exit,
   .exec = exec_exit,
};

const sh_cmd_t cmd_print = {
   .name = "print",
   .usage = "print(value, ...)",
   .summary = "Print values (strings without quotes)",
   .example = "print(\"done\")",
   .flags = CMD_CLIENT_ONLY | CMD_READONLY,
   .exec = exec_print,
};

const sh_cmd_t cmd_printjson = {
   .name = "printjson",
   .usage = "printjson(value, ...)",
   .summary = "Print values as documents",
   .example = "printjson({a: 1})",
   .flags = CMD_CLIENT_ONLY | CMD_READONLY,
   .exec = exec_printjson,
};

const sh_cmd_t cmd_db_get_name = {
   .name = "db.getName",
   .usage = "db.getName()",
   .summary = "The current database's name",
   .flags = CMD_CLIENT_ONLY | CMD_READONLY,
   .exec = exec_get_name,
};

const sh_cmd_t cmd_sleep = {
   .name = "sleep",
   .usage = "sleep(ms)",
   .summary = "Wait for ms milliseconds",
   .example = "sleep(1000)",
   .flags = CMD_CLIENT_ONLY | CMD_READONLY,
   .build = build_sleep,
   .exec = exec_sleep,
};
