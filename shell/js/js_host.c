/* The JavaScript engine's host side: plugin loading and the callbacks the engine runs on. See js_host.h. */
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands/commands.h"
#include "commands/dispatch.h"
#include "shell/core/interrupt.h"
#include "shell/js/js_host.h"
#include "shell/core/conn_registry.h"
#include "shell/core/output.h"
#include "shell/js/js_host_int.h"
#include "shell/plan/preflight.h"
#include "shell/plan/runsum.h"
#include "commands/traps.h"
#include "commands/complete.h"
#include "commands/progress.h"
#include "shell/lib/secret.h"

/* One engine per process (the shell has one session). */
static struct {
   void *dl;
   const js_engine_api_t *api;
   js_engine_t *engine;
   const char **names; /* the command table's names, borrowed by the engine */
   bool failed;        /* loading failed once: why says why, and it is not retried */
   char why[512];
   /* the engine's live cursors by handle (handles are never reused, so a late finalizer cannot close another) */
   struct {
      int handle;
      conn_cursor_t *cursor;
      bool dropped; /* its JavaScript object was collected: closed at the next safe point */
   } * cursors;
   size_t n_cursors, cap_cursors;
   int last_handle;
   /* the script running (js_host_run_script), NULL in the REPL: its calls name file:line (--dry-run's requests) and,
    * when report is set, each call is reported through it */
   const char *run_file;
   /* the scripts run so far in this engine (copies): a call or an error in a function one of them defined (a
    * library's) is at a place in that one */
   struct {
      char *name, *text;
      size_t len;
   } * files;
   size_t n_files;
   const js_host_report_t *report; /* NULL: calls are not reported */
   run_summary_t *rs;      /* when set, every call that sends something is recorded in it (file:line, ran or failed) */
   bool call_failed;       /* a call of the running script failed (it is in rs) */
   const js_host_pf_t *pf; /* the pre-flight's hooks while it runs the script (js_preflight.c), else NULL */
} js_state;

/* ---- the engine's cursors ---- */

static int
cursors_add (conn_cursor_t *c)
{
   if (js_state.n_cursors == js_state.cap_cursors) {
      js_state.cap_cursors = js_state.cap_cursors ? 2 * js_state.cap_cursors : 8;
      js_state.cursors = bson_realloc (js_state.cursors, js_state.cap_cursors * sizeof *js_state.cursors);
   }
   js_state.cursors[js_state.n_cursors].handle = ++js_state.last_handle;
   js_state.cursors[js_state.n_cursors].cursor = c;
   js_state.cursors[js_state.n_cursors].dropped = false;
   js_state.n_cursors++;
   return js_state.last_handle;
}

static conn_cursor_t *
cursors_find (int handle)
{
   for (size_t i = 0; i < js_state.n_cursors; i++) {
      if (js_state.cursors[i].handle == handle && !js_state.cursors[i].dropped)
         return js_state.cursors[i].cursor;
   }
   return NULL;
}

/* Closes the cursors whose objects were collected (all: every one, at shutdown). */
static void
cursors_sweep (bool all)
{
   size_t j = 0;
   for (size_t i = 0; i < js_state.n_cursors; i++) {
      if (all || js_state.cursors[i].dropped)
         conn_cursor_free (js_state.cursors[i].cursor);
      else
         js_state.cursors[j++] = js_state.cursors[i];
   }
   js_state.n_cursors = j;
   if (all) {
      bson_free (js_state.cursors);
      js_state.cursors = NULL;
      js_state.cap_cursors = 0;
   }
}

/* The plugin's path: $SHARDSH_JS_PLUGIN, else shardsh-js.so in the running executable's directory. */
static char *
plugin_path (void)
{
   const char *env = getenv ("SHARDSH_JS_PLUGIN");
   char exe[PATH_MAX];
   ssize_t n;
   char *slash;

   if (env && *env)
      return bson_strdup (env);
   n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
   if (n <= 0)
      return bson_strdup (JS_ENGINE_PLUGIN);
   exe[n] = '\0';
   slash = strrchr (exe, '/');
   if (slash)
      slash[1] = '\0';
   return bson_strdup_printf ("%s%s", slash ? exe : "", JS_ENGINE_PLUGIN);
}

/* ---- callbacks ---- */

/* The script a call of the running script is in: the file of its place (a function a library defined), else the
 * one running; NULL in the REPL. */
static const char *
call_file (const js_call_t *jc)
{
   return js_state.run_file && jc->file && *jc->file ? jc->file : js_state.run_file;
}

/* The 1-based column where the call expression ending in the callee at (line, col) starts in the running script's
 * text: SpiderMonkey places a call at its method's name ("sh.|addShardToZone(") or at the parenthesis ("print|("); the
 * start is found by walking back over the callee's chain (names, dots, bracketed and parenthesised parts). */
static int
call_start_col (const char *file, int line, int col)
{
   const char *t = NULL, *p, *ls;
   size_t len = 0;
   int l = 1;
   if (!file || !js_host_file_text (file, &t, &len) || line < 1 || col < 1)
      return col;
   for (p = t; l < line && p < t + len; p++)
      l += *p == '\n';
   ls = p;
   for (int c = 1; c < col; c++, p++) {
      if (p >= t + len || *p == '\n')
         return col;
   }
   if (p >= t + len)
      return col;
   p--; /* before the parenthesis (then the name is walked over) or before the name */
   for (;;) {
      while (p >= ls && (isalnum ((unsigned char) *p) || *p == '_' || *p == '$'))
         p--;
      if (p >= ls && *p == '.' && p > ls) {
         p--;
         if (*p == ')' || *p == ']') {
            int depth = 0;
            for (; p >= ls; p--) {
               depth += (*p == ')' || *p == ']') - (*p == '(' || *p == '[');
               if (depth == 0)
                  break;
            }
            if (p < ls)
               return col;
            p--;
         }
         continue;
      }
      break;
   }
   return (int) (p + 1 - ls) + 1;
}

/* The call as the script would write it, with its arguments' values: "sh.addShardToZone('shard01', 'NYC')",
 * "db.getSiblingDB('app').notes.insertOne({ _id: 1 })" (db. alone for the current database). Cut at max bytes with
 * "...". Caller frees with bson_string_free. */
bson_string_t *
js_host_call_text (const sh_ctx_t *ctx, const js_call_t *jc, size_t max)
{
   bson_string_t *s = bson_string_new (NULL);
   const char *name = jc->name;
   char *buf = bson_malloc (max + 8);
   size_t n;
   bson_value_t v;
   if (!strncmp (name, "db.", 3)) {
      if (jc->db && (!ctx->db || strcmp (jc->db, ctx->db) != 0)) {
         bson_t one = BSON_INITIALIZER;
         BSON_APPEND_UTF8 (&one, "0", jc->db);
         v.value_type = BSON_TYPE_ARRAY;
         v.value.v_doc.data = (uint8_t *) bson_get_data (&one);
         v.value.v_doc.data_len = one.len;
         output_format_value_line (&v, buf, max);
         n = strlen (buf);
         /* "[ 'app' ]": the quoted name inside */
         bson_string_append_printf (s, "db.getSiblingDB(%.*s)", n > 4 ? (int) (n - 4) : 0, buf + 2);
         bson_destroy (&one);
      } else {
         bson_string_append (s, "db");
      }
      name += 2;
      if (!strncmp (name, ".collection.", 12) && jc->coll) {
         bson_string_append_printf (s, ".%s", jc->coll);
         name += 11;
      }
   }
   bson_string_append_printf (s, "%s(", name);
   if (jc->args && jc->argc > 0) {
      /* the arguments as an array, printed as the shell prints one ("[ 'shard01', 'NYC' ]"), without its brackets;
       * their secrets hidden before the text is cut at max, where a password's end could fall */
      bson_t shown = BSON_INITIALIZER;
      secret_redact_doc (jc->args, &shown);
      v.value_type = BSON_TYPE_ARRAY;
      v.value.v_doc.data = (uint8_t *) bson_get_data (&shown);
      v.value.v_doc.data_len = shown.len;
      output_format_value_line (&v, buf, max);
      bson_destroy (&shown);
      n = strlen (buf);
      if (n > 4 && buf[0] == '[' && buf[n - 1] == ']')
         bson_string_append_printf (s, "%.*s", (int) (n - 4), buf + 2);
      else
         bson_string_append (s, buf);
   }
   bson_string_append_c (s, ')');
   bson_free (buf);
   if (s->len > max) {
      bson_string_truncate (s, (uint32_t) max);
      bson_string_append (s, "...");
   }
   return s;
}

/* Reports a finished call of the running script (js_state.report): a status line, or its --json object (result
 * { v: value } when has_result, text what it printed). Client-only entries (print, help, use ...) are not reported,
 * except print and printjson under --json, whose text must not break the stream of objects. */
static void
call_report (sh_ctx_t *ctx, const sh_call_t *call, const js_call_t *jc, bool ok, const sh_error_t *err,
             const bson_t *result, bool has_result, const char *text)
{
   bool print = !strcmp (jc->name, "print") || !strcmp (jc->name, "printjson");
   bool json = js_state.report && js_state.report->json;
   const char *file = call_file (jc);
   bson_iter_t v;
   bson_string_t *stmt;
   if (js_state.rs && file && !strcmp (file, js_state.run_file))
      run_summary_at (js_state.rs, jc->line); /* where the script stops if it stops after this call */
   if (file && !(call->cmd->flags & CMD_CLIENT_ONLY)) {
      js_state.call_failed |= !ok;
      if (js_state.rs)
         run_summary_note_call (js_state.rs, file, jc->line, call, ok, err);
   }
   if (!js_state.report || ((call->cmd->flags & CMD_CLIENT_ONLY) && !(print && json)))
      return;
   /* status lines: for calls that change the cluster; a failure only if the script does not catch it, which is known
    * when it ends (then its error is reported) */
   if (!json && (!ok || !dispatch_call_writes (call) || !js_state.report->status_ok))
      return;
   stmt = js_host_call_text (ctx, jc, json ? 4000 : 500);
   js_state.report->call (
      js_state.report->arg, ctx, file, jc->line, call_start_col (file, jc->line, jc->col), stmt->str, ok, err,
      has_result && !jc->open_cursor && bson_iter_init_find (&v, result, "v") ? bson_iter_value (&v) : NULL, text);
   bson_string_free (stmt, true);
}

/* The host's own names (js_engine.h): "Mongo.open" opens a second connection (its id is the value), "Mongo.uri" gives a
 * connection's string with its password hidden; for the prelude's Node.js modules, "Node.preflight" says whether the
 * pre-flight runs the script (its file writes are no-ops) and "Node.inspect" is its first argument as print shows it,
 * to the depth of its second (node's util.inspect). */
static bool
host_mongo (sh_ctx_t *ctx, const js_call_t *jc, bson_t *result, bool *has_result, sh_error_t *err)
{
   sh_pos_t pos = { .line = jc->line, .col = jc->col };
   bson_iter_t it;

   if (strcmp (jc->name, "Mongo.open") == 0) {
      int id;
      if (!bson_iter_init_find (&it, jc->args, "0") || !BSON_ITER_HOLDS_UTF8 (&it)) {
         sh_error_set_at (err, SH_ERR_ARGS, pos, "Mongo() needs a connection string");
         return false;
      }
      id = conn_registry_open (ctx, bson_iter_utf8 (&it, NULL), err);
      if (!id) {
         err->pos = pos;
         err->has_pos = true;
         return false;
      }
      bson_reinit (result);
      BSON_APPEND_INT32 (result, "v", id);
   } else if (strcmp (jc->name, "Mongo.uri") == 0) {
      char *uri = conn_registry_uri (ctx, jc->conn);
      bson_reinit (result);
      BSON_APPEND_UTF8 (result, "v", uri ? uri : "");
      bson_free (uri);
   } else if (strcmp (jc->name, "Node.preflight") == 0) {
      bson_reinit (result);
      BSON_APPEND_BOOL (result, "v", js_state.pf != NULL);
   } else if (strcmp (jc->name, "Node.inspect") == 0 && bson_iter_init_find (&it, jc->args, "0")) {
      output_opts_t o = output_opts_default (OUTPUT_PRETTY, false);
      bson_iter_t depth;
      char *s;
      if (bson_iter_init_find (&depth, jc->args, "1") && BSON_ITER_HOLDS_INT32 (&depth))
         o.depth = bson_iter_int32 (&depth);
      s = output_format_value (bson_iter_value (&it), &o);
      bson_reinit (result);
      BSON_APPEND_UTF8 (result, "v", s);
      bson_free (s);
   } else {
      sh_error_set_at (err, SH_ERR_USAGE, pos, "unknown helper '%s'", jc->name);
      return false;
   }
   *has_result = true;
   return true;
}

/* Runs one table entry for the engine through dispatch_call and hands its result over as the call's value. */
static bool
host_call (void *data, const js_call_t *jc, bson_t *result, bool *has_result, sh_error_t *err)
{
   sh_ctx_t *ctx = data;
   sh_call_t call;
   sh_pos_t pos = { .line = jc->line, .col = jc->col };
   sh_pos_t *positions;
   bool as_value, ok;
   FILE *saved_dry = ctx->dry_fp;
   const sh_options_t *saved_ctx_opts = ctx->opts;
   bool pre_dry = false;
   const char *saved_file = ctx->place.file;
   int saved_line = ctx->place.line, saved_col = ctx->place.col;
   bool json_print;
   output_opts_t saved_opts = ctx->out;
   char *text = NULL;
   sh_result_t r;
   conn_cursor_t *cursor = NULL;

   *has_result = false;
   cursors_sweep (false);
   if (strncmp (jc->name, "Mongo.", 6) == 0 || strncmp (jc->name, "Node.", 5) == 0)
      return host_mongo (ctx, jc, result, has_result, err);
   if (jc->conn != 0) {
      /* a call on a second connection runs in that connection's context */
      sh_ctx_t *other = conn_registry_get (ctx, jc->conn);
      if (!other) {
         sh_error_set_at (err, SH_ERR_USAGE, pos, "no such connection (%d)", jc->conn);
         return false;
      }
      ctx = other;
      saved_dry = ctx->dry_fp;
      saved_ctx_opts = ctx->opts;
      saved_opts = ctx->out;
   }
   memset (&call, 0, sizeof call);
   call.cmd = sh_cmd_find (jc->name);
   if (!call.cmd) {
      sh_error_set_at (err, SH_ERR_USAGE, pos, "unknown helper '%s'", jc->name);
      return false;
   }
   if (jc->limit < 0 || jc->limit > INT32_MAX || jc->skip < 0 || jc->skip > INT32_MAX || jc->argc < 0) {
      sh_error_set_at (err, SH_ERR_ARGS, pos, "limit and skip need a number from 0 to %d", INT32_MAX);
      return false;
   }
   /* every argument points at the call: the engine knows where the call is, not where each argument starts */
   positions = bson_malloc ((size_t) (jc->argc ? jc->argc : 1) * sizeof *positions);
   for (int i = 0; i < (jc->argc ? jc->argc : 1); i++)
      positions[i] = pos;
   call.db = jc->db ? jc->db : ctx->db;
   call.coll = jc->coll;
   call.args = jc->args;
   call.argc = jc->argc;
   call.arg_pos = positions;
   call.pos = pos;
   call.close_pos = pos;
   call.sort = jc->sort;
   call.limit = jc->limit;
   call.skip = jc->skip;
   call.batch_size = jc->batch_size;
   call.modifiers = jc->modifiers;
   traps_check_call (ctx, &call, call_file (jc), true); /* version traps: before it runs or is checked */
   if (js_state.pf) {
      /* the pre-flight's run: a write is checked against the model and then runs as under --dry-run */
      bool skip;
      bool go = js_state.pf->call (ctx, &call, jc, call_file (jc), &skip, &pre_dry, err);
      if (!go || skip) {
         bson_free (positions);
         return go;
      }
      if (pre_dry)
         js_state.pf->dry_opts (ctx);
   }

   /* print and printjson print; everything else returns its result as a value. What an executor renders as text of
    * its own (show, help, use) becomes a string value, so a script prints it only when it prints the value, as
    * mongosh; under --dry-run the requests are still printed where they are sent */
   as_value = strcmp (jc->name, "print") != 0 && strcmp (jc->name, "printjson") != 0;
   /* under --json a print's text is the value of its object, not a line of its own */
   json_print = !as_value && js_state.report && js_state.report->json;
   if (as_value || json_print)
      ctx->out.color = false; /* a value's text, not a terminal's */
   if (pre_dry)
      ctx->dry_fp = js_state.pf->null_fp (); /* its request is not shown */
   if (js_state.run_file) {
      ctx->place.file = call_file (jc);
      ctx->place.line = jc->line;
      ctx->place.col = jc->col;
   }
   sh_result_init (&r);
   r.as_value = as_value;
   r.want_cursor = jc->open_cursor;
   ok = dispatch_call (ctx, &call, &r, err);
   if (pre_dry && !ok)
      js_state.pf->refused (err); /* a write the run would refuse (its arguments) */
   cursor = sh_result_take_cursor (&r);
   ctx->place.file = saved_file;
   ctx->place.line = saved_line;
   ctx->place.col = saved_col;
   ctx->dry_fp = saved_dry;
   ctx->out = saved_opts;
   if (cursor) {
      /* a live cursor for the engine: its handle is the value */
      bson_reinit (result);
      BSON_APPEND_INT32 (result, "v", cursors_add (cursor));
      *has_result = as_value;
   } else if (json_print) {
      if (r.kind == SH_RESULT_TEXT) {
         size_t len = r.text->len;
         while (len > 0 && r.text->str[len - 1] == '\n')
            len--;
         text = bson_strndup (r.text->str, len);
      }
   } else if (!as_value) {
      sh_result_present (ctx, &r); /* print's text */
   } else if (r.kind != SH_RESULT_TEXT || ok) {
      *has_result = sh_result_value (ctx, &r, result);
   }
   sh_result_destroy (&r);
   if (ok && as_value && !*has_result && cmd_dry_run (ctx) && !(call.cmd->flags & CMD_CLIENT_ONLY)) {
      /* --dry-run: nothing was sent, so every command answers a synthetic { ok: 1 } (cursors: no documents) */
      bson_t v;
      bson_reinit (result);
      BSON_APPEND_DOCUMENT_BEGIN (result, "v", &v);
      BSON_APPEND_INT32 (&v, "ok", 1);
      bson_append_document_end (result, &v);
      *has_result = true;
   }
   ctx->opts = saved_ctx_opts;
   call_report (ctx, &call, jc, ok, err, result, *has_result, json_print ? (text ? text : "") : NULL);
   bson_free (text);
   fflush (ctx->out_fp);
   bson_free (positions);
   if (ctx != data) {
      /* a second connection keeps no session caches: they are freed with the session's */
      cmd_progress_reset (ctx);
      cmd_complete_reset (ctx);
   }
   return ok;
}

static const char *
host_current_db (void *data)
{
   return ((sh_ctx_t *) data)->db;
}

/* Prints a completion value with its secrets hidden (shell/lib/secret.h): a string masked, a document's pwd and
 * password fields and connection strings. */
static void
host_show_value (sh_ctx_t *ctx, const bson_value_t *value)
{
   bson_value_t v = *value;
   bson_t doc, shown = BSON_INITIALIZER;
   char *s = NULL;
   if (value->value_type == BSON_TYPE_UTF8) {
      size_t len;
      if ((s = secret_redact_source (value->value.v_utf8.str, value->value.v_utf8.len, &len))) {
         v.value.v_utf8.str = s;
         v.value.v_utf8.len = (uint32_t) len;
      }
   } else if (value->value_type == BSON_TYPE_DOCUMENT &&
              bson_init_static (&doc, value->value.v_doc.data, value->value.v_doc.data_len)) {
      secret_redact_doc (&doc, &shown);
      v.value.v_doc.data = (uint8_t *) bson_get_data (&shown);
      v.value.v_doc.data_len = shown.len;
   }
   {
      sh_result_t r;
      sh_result_init (&r);
      sh_result_set_value (&r, &v);
      sh_result_present (ctx, &r);
      sh_result_destroy (&r);
   }
   free (s);
   bson_destroy (&shown);
}

/* How many completion values host_show has printed (js_host_values_shown). */
static size_t host_shown;

size_t
js_host_values_shown (void)
{
   return host_shown;
}

static void
host_show (void *data, const bson_value_t *value, bool more, const char *stats_key, int cursor)
{
   sh_ctx_t *ctx = data;
   output_opts_t saved = ctx->out;
   bson_t array;
   sh_result_t r;
   host_shown++;
   if (cursor && value->value_type == BSON_TYPE_ARRAY &&
       bson_init_static (&array, value->value.v_doc.data, value->value.v_doc.data_len)) {
      sh_result_init (&r);
      sh_result_set_batch (&r, &array, more, cursor == 2);
      sh_result_present (ctx, &r);
      sh_result_destroy (&r);
      fflush (ctx->out_fp);
      return;
   }
   /* --eval's value is inspected without a depth limit, as mongosh prints it; the REPL keeps depth 6 */
   if (!ctx->interactive)
      ctx->out.depth = -1;
   if (((stats_key && value->value_type == BSON_TYPE_DOCUMENT) || value->value_type == BSON_TYPE_ARRAY) &&
       bson_init_static (&array, value->value.v_doc.data, value->value.v_doc.data_len)) {
      /* shown with its secrets hidden, as host_show_value shows a document */
      bson_t shown = BSON_INITIALIZER;
      secret_redact_doc (&array, &shown);
      sh_result_init (&r);
      if (value->value_type == BSON_TYPE_ARRAY)
         sh_result_set_array (&r, &shown);
      else
         sh_result_take_stats (&r, &shown, *stats_key ? stats_key : NULL);
      sh_result_present (ctx, &r);
      sh_result_destroy (&r);
      bson_destroy (&shown);
   } else {
      host_show_value (ctx, value);
   }
   ctx->out = saved;
   if (more)
      fprintf (ctx->out_fp, "%s\n", CMD_MORE_HINT);
   fflush (ctx->out_fp);
}

static bool
host_cursor_next (void *data, int handle, size_t max, bson_t *docs, bool *more, sh_error_t *err)
{
   conn_cursor_t *c = cursors_find (handle);
   (void) data;
   *more = false;
   if (!c) {
      bson_init (docs);
      return true;
   }
   if (max == JS_CURSOR_RECEIVED) {
      bson_init (docs); /* only what is received: the loop below reads nothing when nothing is */
   } else if (max) {
      return cmd_cursor_read (c, max, docs, more, err);
   } else if (!cmd_cursor_read (c, 1, docs, more, err)) {
      /* the next document, and the rest of its batch: no getMore beyond what the next document needs */
      return false;
   }
   for (uint32_t n = bson_count_keys (docs); conn_cursor_buffered (c); n++) {
      const bson_t *doc;
      char key[16];
      const char *k;
      if (conn_cursor_next (c, &doc, err) != 1)
         break;
      bson_uint32_to_string (n, &k, key, sizeof key);
      bson_append_document (docs, k, -1, doc);
   }
   *more = conn_cursor_more (c);
   return true;
}

static void
host_cursor_close (void *data, int handle, bool now)
{
   (void) data;
   for (size_t i = 0; i < js_state.n_cursors; i++) {
      if (js_state.cursors[i].handle != handle)
         continue;
      js_state.cursors[i].dropped = true;
      if (now)
         cursors_sweep (false);
      return;
   }
}

static int
host_cursor_current (void *data, bool take)
{
   sh_ctx_t *ctx = data;
   int h = -1;
   if (take && ctx->cursor_fresh)
      h = ctx->cursor ? cursors_add (ctx->cursor) : 0;
   else
      conn_cursor_free (ctx->cursor);
   ctx->cursor = NULL;
   ctx->cursor_fresh = false;
   return h;
}

static bool
host_stop (void *data)
{
   sh_ctx_t *ctx = data;
   /* a script's SIGINT or SIGTERM (sh_interrupt_install_script) stops it too, after the call that was running */
   return ctx->exit_requested || ((ctx->interactive || sh_interrupt_signal ()) && sh_interrupted ()) ||
          (js_state.pf && js_state.pf->stopping ());
}

static bool
host_interrupted (void *data)
{
   (void) data;
   return sh_interrupted ();
}

/* ---- loading ---- */

js_engine_t *
js_host_engine (sh_ctx_t *ctx, sh_error_t *err)
{
   char *path;
   const js_engine_api_t *(*get_api) (void);
   js_host_t host;
   size_t n = 0;

   if (js_state.engine)
      return js_state.engine;
   if (js_state.failed) {
      sh_error_set (err, SH_ERR_USAGE, "%s", js_state.why);
      return NULL;
   }
   path = plugin_path ();
   js_state.dl = dlopen (path, RTLD_NOW | RTLD_LOCAL);
   if (!js_state.dl) {
      bson_snprintf (js_state.why, sizeof js_state.why,
                     "this needs the JavaScript engine, which is not installed (%s: %s)", path, dlerror ());
      goto fail;
   }
   *(void **) &get_api = dlsym (js_state.dl, "shardsh_js_engine_api");
   js_state.api = get_api ? get_api () : NULL;
   if (!js_state.api || js_state.api->abi != JS_ENGINE_ABI) {
      bson_snprintf (js_state.why, sizeof js_state.why, "%s is not this shardsh's JavaScript engine (ABI mismatch)",
                     path);
      js_state.api = NULL;
      goto fail;
   }
   while (sh_cmd_table[n])
      n++;
   js_state.names = bson_malloc0 ((n + 1) * sizeof *js_state.names);
   for (size_t i = 0; i < n; i++)
      js_state.names[i] = sh_cmd_table[i]->name;
   memset (&host, 0, sizeof host);
   host.data = ctx;
   host.call = host_call;
   host.current_db = host_current_db;
   host.show = host_show;
   host.stop = host_stop;
   host.cursor_next = host_cursor_next;
   host.cursor_close = host_cursor_close;
   host.cursor_current = host_cursor_current;
   host.interrupted = host_interrupted; /* the REPL's Ctrl-C, a script's SIGINT or SIGTERM (never set otherwise) */
   host.names = js_state.names;
   host.n_names = n;
   js_state.engine = js_state.api->engine_new (&host, err);
   if (!js_state.engine) {
      bson_snprintf (js_state.why, sizeof js_state.why, "the JavaScript engine did not start: %s", err->message);
      goto fail;
   }
   bson_free (path);
   return js_state.engine;
fail:
   bson_free (path);
   bson_free (js_state.names);
   js_state.names = NULL;
   js_state.failed = true;
   sh_error_set (err, SH_ERR_USAGE, "%s", js_state.why);
   return NULL;
}

void
js_host_set_preflight (const js_host_pf_t *hooks)
{
   js_state.pf = hooks;
}

const js_engine_api_t *
js_host_api (void)
{
   return js_state.engine ? js_state.api : NULL;
}

bool
js_host_started (void)
{
   return js_state.engine != NULL;
}

bool
js_host_check (sh_ctx_t *ctx, const char *name, const char *text, size_t len, sh_error_t *err)
{
   js_engine_t *e = js_host_engine (ctx, err);
   return e && js_state.api->check (e, name, text, len, err);
}

js_run_t
js_host_run (sh_ctx_t *ctx, const char *name, const char *text, size_t len, bool show_value, sh_error_t *err)
{
   js_engine_t *e = js_host_engine (ctx, err);
   js_run_t rc;
   if (!e)
      return JS_RUN_FAILED;
   rc = js_state.api->run (e, name, text, len, show_value, err);
   cursors_sweep (false);
   fflush (ctx->out_fp);
   return rc;
}

/* Line line of text (len bytes) without its leading and trailing white space; caller frees with bson_free. */
static char *
source_line (const char *text, size_t len, int line)
{
   const char *p = text, *end = text + len, *e;
   for (int l = 1; l < line && p < end; p++)
      l += *p == '\n';
   while (p < end && (*p == ' ' || *p == '\t'))
      p++;
   for (e = p; e < end && *e != '\n'; e++)
      ;
   while (e > p && isspace ((unsigned char) e[-1]))
      e--;
   return bson_strndup (p, (size_t) (e - p));
}

/* Keeps a copy of script name's text for the places in it (js_state.files); a name run again is replaced. */
static void
files_add (const char *name, const char *text, size_t len)
{
   size_t i = 0;
   while (i < js_state.n_files && strcmp (js_state.files[i].name, name) != 0)
      i++;
   if (i == js_state.n_files) {
      js_state.files = bson_realloc (js_state.files, (js_state.n_files + 1) * sizeof *js_state.files);
      js_state.files[js_state.n_files++].name = bson_strdup (name);
   } else {
      bson_free (js_state.files[i].text);
   }
   js_state.files[i].text = bson_strndup (text, len);
   js_state.files[i].len = len;
}

bool
js_host_file_text (const char *name, const char **text, size_t *len)
{
   for (size_t i = 0; name && i < js_state.n_files; i++) {
      if (!strcmp (js_state.files[i].name, name)) {
         *text = js_state.files[i].text;
         *len = js_state.files[i].len;
         return true;
      }
   }
   return false;
}

const char *
js_host_error_file (void)
{
   const char *f = js_state.engine && js_state.api->error_file ? js_state.api->error_file (js_state.engine) : NULL;
   return f && *f ? f : NULL;
}

js_run_t
js_host_run_script (sh_ctx_t *ctx, const char *name, const char *text, size_t len, bool show_value,
                    const js_host_report_t *report, run_summary_t *rs, sh_error_t *err)
{
   js_run_t rc;
   const char *efile = name, *etext = text;
   size_t elen = len;
   files_add (name, text, len);
   js_state.rs = rs;
   js_state.call_failed = false;
   js_state.run_file = name;
   js_state.report = report;
   rc = js_host_run (ctx, name, text, len, show_value, err);
   if (rc == JS_RUN_FAILED && !js_state.call_failed) {
      /* an error of the JavaScript itself: in the summary, and under --json an object of its own at its place, its
       * statement the source line */
      int line = err->has_pos ? err->pos.line : 1;
      if (js_host_error_file () && js_host_file_text (js_host_error_file (), &etext, &elen))
         efile = js_host_error_file (); /* in a function a library defined */
      if (rs)
         run_summary_note (rs, efile, line, NULL, false);
      if (report && report->json) {
         char *src = source_line (etext, elen, line);
         report->call (report->arg, ctx, efile, line, err->has_pos ? err->pos.col : 1, src, false, err, NULL, NULL);
         bson_free (src);
      }
   }
   js_state.rs = NULL;
   js_state.run_file = NULL;
   js_state.report = NULL;
   return rc;
}

bool
js_host_is_compilable (sh_ctx_t *ctx, const char *text, size_t len)
{
   sh_error_t err;
   js_engine_t *e = js_host_engine (ctx, &err);
   return !e || js_state.api->is_compilable (e, text, len);
}

void
js_host_shutdown (void)
{
   if (js_state.engine)
      js_state.api->engine_free (js_state.engine);
   js_state.engine = NULL;
   /* every cursor the engine held is closed (killCursors) while the connection is still there */
   cursors_sweep (true);
   bson_free (js_state.names);
   js_state.names = NULL;
   for (size_t i = 0; i < js_state.n_files; i++) {
      bson_free (js_state.files[i].name);
      bson_free (js_state.files[i].text);
   }
   bson_free (js_state.files);
   js_state.files = NULL;
   js_state.n_files = 0;
}
