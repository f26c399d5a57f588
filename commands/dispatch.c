/* Dispatch: statement -> command-table entry -> common checks -> run. The checks live here once, so a command
 * family only writes build() (and exec() when it renders something special). */
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "shell/core/conn.h"
#include "commands/dispatch.h"
#include "shell/lib/names.h"

/* Everything a resolved call borrows or owns for the length of one dispatch. */
typedef struct {
   sh_call_t call;
   char *db;          /* owned: the database the call runs on */
   char *coll;        /* owned: collection for db.<coll>.<method> */
   bson_t *word_args; /* arguments made from `use x`, `show x`, `help x`; owned, NULL when there are none */
   sh_pos_t word_pos[2];
   bson_t *sort;        /* .sort()'s document, copied; owned, NULL when none */
   bson_t *mods;        /* find's other cursor modifiers (call.modifiers); owned, NULL when none */
   char terminal[16];   /* call.terminal */
   sh_error_t *mod_err; /* a modifier's bad value: reported after resolve, so the statement stays literal; owned */
   char name[192];      /* table name looked up (last: a record leaves it uncleared, dispatch_prepare) */
} resolved_t;

/* name == word, its first byte compared before strcmp is called (most names differ there). */
static inline bool
is_word (const char *name, const char *word)
{
   return name[0] == word[0] && !strcmp (name, word);
}

/* The arguments of a call that has none. */
static const bson_t no_args = BSON_INITIALIZER;

/* No bson_t by value here: a resolved_t (and a statement's record, which holds one) is plain malloc memory. */
static void
resolved_init (resolved_t *r)
{
   memset (r, 0, sizeof *r);
}

static void
resolved_destroy (resolved_t *r)
{
   /* most are NULL (a statement has no words, sort or modifiers): no call for those */
   if (r->db)
      bson_free (r->db);
   if (r->coll)
      bson_free (r->coll);
   if (r->word_args)
      bson_destroy (r->word_args);
   if (r->sort)
      bson_destroy (r->sort);
   if (r->mods)
      bson_destroy (r->mods);
   if (r->mod_err)
      bson_free (r->mod_err);
}

/* r->name = prefix followed by name, cut to fit (as bson_snprintf would). */
static void
set_name (resolved_t *r, const char *prefix, const char *name)
{
   size_t p = strlen (prefix), n = strlen (name);
   if (p + n >= sizeof r->name)
      n = sizeof r->name - 1 - p;
   memcpy (r->name, prefix, p);
   memcpy (r->name + p, name, n);
   r->name[p + n] = '\0';
}

static void
set_call_args (resolved_t *r, const sh_seg_t *seg)
{
   r->call.args = &seg->args;
   r->call.argc = seg->argc;
   r->call.arg_pos = seg->arg_pos;
   r->call.pos = seg->pos;
   r->call.close_pos = seg->close_pos;
   r->call.args_no_binary = seg->no_binary;
}

static void
set_word_args (resolved_t *r, const sh_stmt_t *stmt)
{
   int n = 0;
   if (stmt->word) {
      r->word_args = bson_new ();
      BSON_APPEND_UTF8 (r->word_args, "0", stmt->word);
      r->word_pos[n++] = stmt->word_pos;
      if (stmt->word2) {
         BSON_APPEND_UTF8 (r->word_args, "1", stmt->word2);
         r->word_pos[n++] = stmt->word2_pos;
      }
   }
   r->call.args = r->word_args ? r->word_args : &no_args;
   r->call.argc = n;
   r->call.arg_pos = n ? r->word_pos : NULL;
   r->call.pos = stmt->pos;
   r->call.close_pos = stmt->end_pos;
   r->call.args_no_binary = true; /* the words are strings */
}

static bool
unknown_name (const char *name, sh_pos_t pos, sh_error_t *err)
{
   const char *near[3];
   size_t n = sh_cmd_suggest (name, near, 3);
   sh_error_set_at (err, SH_ERR_USAGE, pos, "unknown helper '%s'", name);
   if (n == 1)
      sh_error_hint (err, "did you mean %s?", near[0]);
   else if (n == 2)
      sh_error_hint (err, "did you mean %s or %s?", near[0], near[1]);
   else if (n >= 3)
      sh_error_hint (err, "did you mean %s, %s or %s?", near[0], near[1], near[2]);
   else
      sh_error_hint (err, "'help' lists the helpers");
   return false;
}

/* The string argument of a call like getSiblingDB("x"), or NULL; *len: its length in bytes. */
static const char *
seg_str_arg (const sh_seg_t *seg, uint32_t *len)
{
   bson_iter_t it;
   if (seg->is_call && seg->argc >= 1 && bson_iter_init_find (&it, &seg->args, "0") && BSON_ITER_HOLDS_UTF8 (&it))
      return bson_iter_utf8 (&it, len);
   return NULL;
}

/* find's further cursor modifiers, kept as { name: value } for its build(), and the methods that end a chain.
 * .batchSize() is not among them: a chain with it is the JavaScript engine's cursor, which pages by that size. */
static bool
is_find_modifier (const char *name)
{
   static const char *const names[] = { "hint", "maxTimeMS", "collation",   "comment",    "allowDiskUse",
                                        "max",  "min",       "readConcern", "projection", "count",
                                        "size", "itcount",   NULL };
   for (int i = 0; names[i]; i++) {
      if (!strcmp (name, names[i]))
         return true;
   }
   return false;
}

/* Records the first bad modifier value (an argument error at at): the statement still resolves, so it stays on the
 * literal path, and the error is reported before anything is sent. */
static void
defer_mod_error (resolved_t *r, sh_pos_t at, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

static void
defer_mod_error (resolved_t *r, sh_pos_t at, const char *fmt, ...)
{
   char msg[512];
   va_list ap;
   if (r->mod_err)
      return;
   va_start (ap, fmt);
   vsnprintf (msg, sizeof msg, fmt, ap);
   va_end (ap);
   r->mod_err = bson_malloc (sizeof *r->mod_err);
   sh_error_set_at (r->mod_err, SH_ERR_ARGS, at, "%s", msg);
}

/* find's modifiers document, made on first use. */
static bson_t *
mods_doc (resolved_t *r)
{
   if (!r->mods)
      r->mods = bson_new ();
   return r->mods;
}

static bool
apply_find_modifier (resolved_t *r, const sh_seg_t *m, bool last, sh_error_t *err)
{
   bson_iter_t it;
   bool has = m->argc >= 1 && bson_iter_init_find (&it, &m->args, "0") && !BSON_ITER_HOLDS_UNDEFINED (&it);
   sh_pos_t at = m->argc >= 1 ? m->arg_pos[0] : m->close_pos;
   const char *n = m->name;
   if (strcmp (r->name, "db.collection.find") != 0) {
      sh_error_set_at (err, SH_ERR_USAGE, m->pos, "'.%s()' applies to a find() cursor, not to %s()", n,
                       r->name + strlen ("db.collection."));
      return false;
   }
   if (r->terminal[0]) {
      sh_error_set_at (err, SH_ERR_USAGE, m->pos, "nothing can follow .%s()", r->terminal);
      return false;
   }
   if (!strcmp (n, "count") || !strcmp (n, "size") || !strcmp (n, "itcount")) {
      if (!last) {
         sh_error_set_at (err, SH_ERR_USAGE, m->pos, "nothing can follow .%s()", n);
         return false;
      }
      /* mongosh's cursor count() applies skip and limit (the driver's default), as size() does */
      bson_strncpy (r->terminal, n, sizeof r->terminal);
      r->call.terminal = r->terminal;
      return true;
   }
   if (!strcmp (n, "allowDiskUse")) {
      BSON_APPEND_BOOL (mods_doc (r), n, has ? bson_iter_as_bool (&it) : true);
   } else if (!has) {
      defer_mod_error (r, at, ".%s() needs an argument", n);
      return true;
   } else if (!strcmp (n, "maxTimeMS")) {
      int64_t v;
      if (!args_number_to_int (&it, 0, INT32_MAX, &v)) {
         defer_mod_error (r, at, "%s needs a number from 0 to %d", n, INT32_MAX);
         return true;
      }
      bson_append_value (mods_doc (r), n, -1, bson_iter_value (&it));
   } else if (!strcmp (n, "readConcern")) {
      bson_t rc;
      if (!BSON_ITER_HOLDS_UTF8 (&it)) {
         defer_mod_error (r, at, "readConcern needs a level such as \"majority\"");
         return true;
      }
      BSON_APPEND_DOCUMENT_BEGIN (mods_doc (r), n, &rc);
      BSON_APPEND_UTF8 (&rc, "level", bson_iter_utf8 (&it, NULL));
      bson_append_document_end (mods_doc (r), &rc);
   } else if (!strcmp (n, "comment") || (!strcmp (n, "hint") && BSON_ITER_HOLDS_UTF8 (&it))) {
      bson_append_value (mods_doc (r), n, -1, bson_iter_value (&it));
   } else if (!BSON_ITER_HOLDS_DOCUMENT (&it)) {
      defer_mod_error (r, at, ".%s() needs a document", n);
      return true;
   } else {
      bson_append_value (mods_doc (r), n, -1, bson_iter_value (&it));
   }
   r->call.modifiers = r->mods;
   return true;
}

/* Cursor modifiers after a read: .sort(doc) .limit(n) .skip(n), and the no-ops .pretty() .toArray(). */
static bool
apply_modifiers (resolved_t *r, const sh_stmt_t *stmt, size_t i, sh_error_t *err)
{
   for (; i < stmt->nsegs; i++) {
      const sh_seg_t *m = &stmt->segs[i];
      bson_iter_t it;
      bool has = m->is_call && m->argc >= 1 && bson_iter_init_find (&it, &m->args, "0");
      if (!m->is_call) {
         sh_error_set_at (err, SH_ERR_USAGE, m->pos, "'.%s' is not a method of a cursor", m->name);
         return false;
      }
      if (!strcmp (m->name, "sort") && has && BSON_ITER_HOLDS_DOCUMENT (&it)) {
         const uint8_t *data;
         uint32_t len;
         bson_iter_document (&it, &len, &data);
         bson_destroy (r->sort);
         if (!(r->sort = bson_new_from_data (data, len)))
            r->sort = bson_new ();
         r->call.sort = r->sort;
      } else if ((!strcmp (m->name, "limit") || !strcmp (m->name, "skip")) && has && BSON_ITER_HOLDS_NUMBER (&it)) {
         int64_t v = 0;
         if (!args_number_to_int (&it, 0, INT32_MAX, &v)) {
            /* reported after resolve: the statement stays literal, so the error comes before anything is sent */
            defer_mod_error (r, m->arg_pos[0], "%s needs a number from 0 to %d", m->name, INT32_MAX);
            continue;
         }
         if (m->name[0] == 'l')
            r->call.limit = v;
         else
            r->call.skip = v;
      } else if (!strcmp (m->name, "pretty") || !strcmp (m->name, "toArray")) {
         continue;
      } else if (is_find_modifier (m->name)) {
         if (!apply_find_modifier (r, m, i + 1 == stmt->nsegs, err))
            return false;
      } else {
         sh_error_set_at (err, SH_ERR_USAGE, m->pos, "unsupported cursor method '.%s()': use sort, skip or limit",
                          m->name);
         return false;
      }
   }
   return true;
}

/* sh_cmd_find through a small cache: a script resolves the same few names over and over, and the table is a list.
 * The table never changes, so an entry once found stays right. */
static const sh_cmd_t *
find_cmd (const char *name)
{
   static struct {
      char name[64];
      const sh_cmd_t *cmd;
   } cache[64];
   /* the slot from the length and the last eight bytes (the table's names differ there: their prefixes are shared),
    * multiplied through and cut to the top six bits */
   size_t len = strlen (name);
   uint64_t v = 0;
   uint32_t h;
   const sh_cmd_t *cmd;
   if (len >= 8) {
      memcpy (&v, name + len - 8, 8);
   } else {
      for (size_t i = 0; i < len; i++)
         v = v << 8 | (uint8_t) name[i];
   }
   h = (uint32_t) (((v ^ len) * 0x9e3779b97f4a7c15ull) >> 58);
   if (cache[h].cmd && !strcmp (cache[h].name, name))
      return cache[h].cmd;
   cmd = sh_cmd_find (name);
   if (cmd && len < sizeof cache[h].name) {
      memcpy (cache[h].name, name, len + 1);
      cache[h].cmd = cmd;
   }
   return cmd;
}

/* db[.getSiblingDB(x)]*.<method>(...) or db[.getSiblingDB(x)]*.<coll>[.<more>]*.<method>(...)[.modifier()]* */
static bool
resolve_db (sh_ctx_t *ctx, const sh_stmt_t *stmt, resolved_t *r, sh_error_t *err)
{
   size_t i = 1;
   const char *db = ctx->db;
   bson_string_t *coll = NULL;
   bool ok = false;

   while (i < stmt->nsegs && stmt->segs[i].is_call &&
          (is_word (stmt->segs[i].name, "getSiblingDB") || is_word (stmt->segs[i].name, "getSisterDB"))) {
      uint32_t len = 0;
      const char *why;
      db = seg_str_arg (&stmt->segs[i], &len);
      if (!db || !*db) {
         sh_error_set_at (err, SH_ERR_ARGS, stmt->segs[i].argc ? stmt->segs[i].arg_pos[0] : stmt->segs[i].close_pos,
                          "%s needs a database name string", stmt->segs[i].name);
         goto done;
      }
      if ((why = names_db_invalid (db, len))) {
         sh_error_set_at (err, SH_ERR_ARGS, stmt->segs[i].arg_pos[0], "invalid database name '%s': it %s", db, why);
         goto done;
      }
      i++;
   }
   /* a database the statement names is its own; otherwise the call runs on the current one, read as it runs */
   if (db != ctx->db)
      r->db = bson_strdup (db);
   if (i == stmt->nsegs) {
      /* `db` alone prints the current database's name */
      bson_strncpy (r->name, "db.getName", sizeof r->name);
      set_word_args (r, stmt);
      ok = true;
      goto done;
   }
   if (stmt->segs[i].is_call && !is_word (stmt->segs[i].name, "getCollection")) {
      set_name (r, "db.", stmt->segs[i].name);
      set_call_args (r, &stmt->segs[i]);
      if (i + 1 < stmt->nsegs) {
         sh_error_set_at (err, SH_ERR_USAGE, stmt->segs[i + 1].pos, "nothing can follow db.%s()", stmt->segs[i].name);
         goto done;
      }
      ok = true;
      goto done;
   }
   coll = bson_string_new (NULL);
   if (stmt->segs[i].is_call) { /* getCollection("name") */
      uint32_t len = 0;
      const char *name = seg_str_arg (&stmt->segs[i], &len), *why;
      if (!name || !*name) {
         sh_error_set_at (err, SH_ERR_ARGS, stmt->segs[i].close_pos, "getCollection needs a collection name string");
         goto done;
      }
      if ((why = names_coll_invalid (db, name, len))) {
         sh_error_set_at (err, SH_ERR_ARGS, stmt->segs[i].arg_pos[0], "invalid collection name '%s': it %s", name, why);
         goto done;
      }
      bson_string_append (coll, name);
      i++;
   }
   while (i < stmt->nsegs && !stmt->segs[i].is_call) {
      if (coll->len)
         bson_string_append (coll, ".");
      bson_string_append (coll, stmt->segs[i].name);
      i++;
   }
   if (i == stmt->nsegs) {
      sh_error_set_at (err, SH_ERR_USAGE, stmt->segs[i - 1].pos,
                       "'%s' is a collection: call a method on it, for example .find()", coll->str);
      goto done;
   }
   set_name (r, "db.collection.", stmt->segs[i].name);
   set_call_args (r, &stmt->segs[i]);
   r->coll = bson_strdup (coll->str);
   ok = apply_modifiers (r, stmt, i + 1, err);
done:
   if (coll)
      bson_string_free (coll, true);
   return ok;
}

/* Fills r from stmt: which entry and with which arguments. */
static bool
resolve (sh_ctx_t *ctx, const sh_stmt_t *stmt, resolved_t *r, sh_error_t *err)
{
   const sh_seg_t *root;
   switch (stmt->kind) {
   case SH_STMT_USE:
      bson_strncpy (r->name, "use", sizeof r->name);
      set_word_args (r, stmt);
      break;
   case SH_STMT_SHOW:
      bson_strncpy (r->name, "show", sizeof r->name);
      set_word_args (r, stmt);
      break;
   case SH_STMT_HELP:
      bson_strncpy (r->name, "help", sizeof r->name);
      set_word_args (r, stmt);
      break;
   case SH_STMT_EXIT:
      bson_strncpy (r->name, "exit", sizeof r->name);
      set_word_args (r, stmt);
      break;
   case SH_STMT_CHAIN:
   default:
      if (stmt->nsegs == 0) {
         sh_error_set_at (err, SH_ERR_PARSE, stmt->pos, "empty statement");
         return false;
      }
      root = &stmt->segs[0];
      if (is_word (root->name, "sh") && !root->is_call) {
         if (stmt->nsegs < 2) {
            sh_error_set_at (err, SH_ERR_USAGE, root->pos, "'sh' needs a helper: sh.help() lists them");
            return false;
         }
         set_name (r, "sh.", stmt->segs[1].name);
         if (!stmt->segs[1].is_call) {
            if (sh_cmd_find (r->name))
               sh_error_set_at (err, SH_ERR_USAGE, stmt->segs[1].pos, "%s is a helper: call it as %s()", r->name,
                                r->name);
            else
               return unknown_name (r->name, stmt->segs[1].pos, err);
            return false;
         }
         if (stmt->nsegs > 2) {
            sh_error_set_at (err, SH_ERR_USAGE, stmt->segs[2].pos, "nothing can follow %s()", r->name);
            return false;
         }
         set_call_args (r, &stmt->segs[1]);
      } else if (is_word (root->name, "db") && !root->is_call) {
         if (!resolve_db (ctx, stmt, r, err))
            return false;
      } else if (is_word (root->name, "rs") && !root->is_call && stmt->nsegs == 2 && stmt->segs[1].is_call &&
                 (set_name (r, "rs.", stmt->segs[1].name), find_cmd (r->name))) {
         /* rs.<m>() of a table entry (commands/server_info.c); any other rs.<m> is the engine's */
         set_call_args (r, &stmt->segs[1]);
      } else {
         if (!root->is_call) {
            return unknown_name (root->name, root->pos, err);
         }
         bson_strncpy (r->name, root->name, sizeof r->name);
         set_call_args (r, root);
         if (stmt->nsegs > 1) {
            sh_error_set_at (err, SH_ERR_USAGE, stmt->segs[1].pos, "nothing can follow %s()", root->name);
            return false;
         }
      }
      break;
   }
   if (is_word (r->name, "quit"))
      bson_strncpy (r->name, "exit", sizeof r->name);
   r->call.cmd = find_cmd (r->name);
   if (!r->call.cmd) {
      sh_pos_t pos = r->call.pos;
      return unknown_name (r->name, pos, err);
   }
   r->call.db = r->db ? r->db : ctx->db;
   r->call.coll = r->coll;
   return true;
}

/* A statement's record (sh_stmt_t.resolved): what it resolves to, made once by dispatch_prepare. Pure in the
 * statement's text, so the steps that only read it (the pre-flight, status lines, the run summary) do not resolve
 * again; it holds no requests (those travel in a checked statement, sh_checked_t). The call's database is the current
 * one at each use unless the statement names one (getSiblingDB): r.db is then set. */
struct sh_resolved {
   resolved_t r;
   bool writes;   /* dispatch_call_writes (pure in the entry and the arguments) */
   bool in_arena; /* rec is the script's memory (sh_stmt_alloc), not freed here */
};

/* A checked statement (dispatch_check): the requests its check built, for its run. */
struct sh_checked {
   sh_request_t slot;     /* first (128-byte aligned): where a single request is built (sh_requests_init_in) */
   const sh_stmt_t *stmt; /* borrowed: outlives this */
   sh_requests_t reqs;    /* what the check built, for the run (checked_keep) */
   char *built_db;        /* the database reqs were built for: built_db_buf when it fits, else owned; NULL when none */
   bool in_arena;         /* the script's memory (sh_stmt_alloc), not freed here */
   char built_db_buf[72];
};

static void
record_free (struct sh_resolved *rec)
{
   resolved_destroy (&rec->r);
   if (!rec->in_arena)
      bson_free (rec);
}

/* The resolved call of stmt into *call (its database the current one unless the statement names one): from the
 * statement's record when there is one (tmp untouched), else resolved now into tmp, which this initialises and
 * stmt_call_done destroys. Returns the resolved_t the call belongs to, or NULL with err set when the statement does
 * not resolve (tmp then holds what was found). A modifier's deferred error is not checked here: mod_error. */
static const resolved_t *
stmt_call (sh_ctx_t *ctx, const sh_stmt_t *stmt, resolved_t *tmp, sh_call_t *call, sh_error_t *err)
{
   const resolved_t *r = tmp;
   if (stmt->resolved) {
      r = &stmt->resolved->r;
   } else {
      resolved_init (tmp);
      if (!resolve (ctx, stmt, tmp, err))
         return NULL;
   }
   *call = r->call;
   call->db = r->db ? r->db : ctx->db;
   return r;
}

static void
stmt_call_done (const sh_stmt_t *stmt, resolved_t *tmp)
{
   if (!stmt->resolved)
      resolved_destroy (tmp);
}

/* The names a call acts on, checked before anything is sent (shell/lib/names.h): its database and collection, and
 * no NUL byte in a string argument (a namespace or a name the server would read cut short). */
static bool
check_names (const sh_call_t *call, sh_error_t *err)
{
   const char *why;
   bson_iter_t it;
   if (call->cmd->flags & CMD_CLIENT_ONLY)
      return true;
   if (call->db && (why = names_db_invalid (call->db, strlen (call->db)))) {
      sh_error_set_at (err, SH_ERR_ARGS, call->pos, "invalid database name '%s': it %s", call->db, why);
      return false;
   }
   if (call->coll && call->db && (why = names_coll_invalid (call->db, call->coll, strlen (call->coll)))) {
      sh_error_set_at (err, SH_ERR_ARGS, call->pos, "invalid collection name '%s': it %s", call->coll, why);
      return false;
   }
   if (!bson_iter_init (&it, call->args))
      return true;
   for (int i = 0; bson_iter_next (&it); i++) {
      uint32_t len;
      const char *s;
      if (!BSON_ITER_HOLDS_UTF8 (&it))
         continue;
      s = bson_iter_utf8 (&it, &len);
      if (names_has_nul (s, len)) {
         sh_error_set_at (err, SH_ERR_ARGS, call->arg_pos && i < call->argc ? call->arg_pos[i] : call->pos,
                          "%s: argument %d holds a NUL byte, which would cut it short", call->cmd->name, i + 1);
         return false;
      }
   }
   return true;
}

/* The argument checks: no Database object where the entry takes none, then the entry's pure build(), whose requests
 * land in out (initialised by the caller, destroyed by it either way) so the run can hand them on. A call whose
 * requests were built already (call->built) is not built again. */
static bool
check_args (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   if (!check_names (call, err))
      return false;
   if (!call->args_no_binary && bson_iter_init (&it, call->args)) {
      for (int i = 0; bson_iter_next (&it); i++) {
         const char *name;
         uint32_t len;
         if (sh_value_dbref (&it, &name, &len) && call->cmd->dbref_arg != i + 1) {
            if (call->arg_pos && i < call->argc)
               sh_error_set_at (err, SH_ERR_ARGS, call->arg_pos[i], "%s does not take a database object here",
                                call->cmd->name);
            else
               sh_error_set_at (err, SH_ERR_ARGS, call->pos, "%s does not take a database object", call->cmd->name);
            return false;
         }
      }
   }
   if (!call->cmd->build || call->built)
      return true;
   return sh_requests_build (call, out, err);
}

/* ---- requests built while a script is checked, handed on to the statement's run ----
 * build() is pure in the call (which entry, database, collection, arguments and cursor modifiers), so the requests
 * dispatch_check built for a statement are the ones its run would build: the checked statement (sh_checked_t) keeps
 * them with the database they were built for, and its run (dispatch_run) takes them when it runs on that database.
 * Entries whose build() reads the clock (CMD_CLOCK) build again when they run, and so do statements a check pass
 * (dispatch_check_t) checks after it has kept BUILT_MAX_BYTES. */

#define BUILT_MAX_BYTES ((size_t) 64 << 20)

void
dispatch_check_init (dispatch_check_t *chk)
{
   chk->db = NULL;
   chk->kept = 0;
}

void
dispatch_check_destroy (dispatch_check_t *chk)
{
   bson_free (chk->db);
   chk->db = NULL;
}

static void
checked_drop (sh_checked_t *checked)
{
   if (!checked->built_db && !checked->reqs.v)
      return; /* nothing kept */
   sh_requests_destroy (&checked->reqs);
   if (checked->built_db != checked->built_db_buf)
      bson_free (checked->built_db);
   checked->built_db = NULL;
}

void
dispatch_checked_free (sh_checked_t *checked)
{
   if (!checked)
      return;
   checked_drop (checked);
   if (!checked->in_arena)
      bson_free (checked);
}

/* Keeps reqs (taken over: *reqs is left empty) in checked for its run on db, within chk's budget. */
static void
checked_keep (dispatch_check_t *chk, sh_checked_t *checked, const char *db, sh_requests_t *reqs)
{
   size_t db_len = strlen (db), len = sizeof *checked + db_len + 1;
   for (size_t i = 0; i < reqs->n; i++)
      len += sizeof reqs->v[i] + reqs->v[i].cmd.len + strlen (reqs->v[i].db) + 1;
   if (chk->kept + len > BUILT_MAX_BYTES)
      return;
   checked->reqs = *reqs;
   memset (reqs, 0, sizeof *reqs);
   if (db_len < sizeof checked->built_db_buf) {
      memcpy (checked->built_db_buf, db, db_len + 1);
      checked->built_db = checked->built_db_buf;
   } else {
      checked->built_db = bson_strdup (db);
   }
   chk->kept += len;
}

/* Takes the requests checked keeps into *reqs (empty on entry) when they were built for db; false when there are
 * none. */
static bool
checked_take (sh_checked_t *checked, const char *db, sh_requests_t *reqs)
{
   if (!checked || !checked->built_db || strcmp (checked->built_db, db) != 0)
      return false;
   *reqs = checked->reqs;
   memset (&checked->reqs, 0, sizeof checked->reqs);
   checked_drop (checked);
   return true;
}

bool
dispatch_call_writes (const sh_call_t *call)
{
   const sh_cmd_t *c = call->cmd;
   if (c->readonly_if)
      return !c->readonly_if (call);
   return (c->flags & (CMD_READONLY | CMD_CLIENT_ONLY)) == 0;
}

/* The call's effect on the cluster (commands/effect.h): read from the requests it builds, so a raw command and the
 * helper that sends the same document agree; an entry that builds nothing has the effect its table.def line declares.
 */
static void
call_effect (const sh_call_t *call, cmd_effect_info_t *out)
{
   const sh_cmd_row_t *row;
   if (call->built) {
      cmd_effect_of_requests (call->built, out);
      return;
   }
   row = sh_cmd_row (call->cmd);
   out->kind = row && row->effect != CMD_EFFECT_ARGS ? row->effect : CMD_EFFECT_NONE;
   out->what[0] = '\0';
}

/* True when the call passes a Database object where its entry takes one (mongosh skips the mongos check then). */
static bool
has_dbref (const sh_call_t *call)
{
   bson_iter_t it;
   const char *name;
   uint32_t len;
   return call->cmd->dbref_arg && args_get (call, call->cmd->dbref_arg - 1, &it) && sh_value_dbref (&it, &name, &len);
}

bool
dispatch_version_at_least (const int have[3], const char *need)
{
   int v[3] = { 0, 0, 0 };
   sscanf (need, "%d.%d.%d", &v[0], &v[1], &v[2]);
   for (int i = 0; i < 3; i++) {
      if (have[i] != v[i])
         return have[i] > v[i];
   }
   return true;
}

/* mongosh's getConfigDB check: { hello: 1 } on the current database once, a warning when not a mongos. */
static bool
mongos_check (sh_ctx_t *ctx, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER, reply;
   bson_iter_t it;
   bool ok = false;

   if (ctx->hello_db && !strcmp (ctx->hello_db, ctx->db))
      return true;
   BSON_APPEND_INT32 (&cmd, "hello", 1);
   if (!conn_run (ctx, ctx->db, &cmd, CONN_READ, &reply, err)) {
      if (err->kind != SH_ERR_SERVER || err->code != 59)
         goto done;
      /* a server without hello: the legacy isMaster */
      bson_destroy (&reply);
      bson_reinit (&cmd);
      BSON_APPEND_INT32 (&cmd, "isMaster", 1);
      if (!conn_run (ctx, ctx->db, &cmd, CONN_READ, &reply, err))
         goto done;
   }
   if (!(bson_iter_init_find (&it, &reply, "msg") && BSON_ITER_HOLDS_UTF8 (&it) &&
         !strcmp (bson_iter_utf8 (&it, NULL), "isdbgrid")) &&
       !ctx->warned_not_mongos) {
      ctx->warned_not_mongos = true;
      cmd_warn (ctx, "Warning: MongoshWarning: [SHAPI-10003] You are not connected to a mongos. This command may not "
                     "work as expected.");
   }
   bson_free (ctx->hello_db);
   ctx->hello_db = bson_strdup (ctx->db);
   ok = true;
done:
   bson_destroy (&cmd);
   bson_destroy (&reply);
   return ok;
}

/* A cursor modifier's bad value, found while resolving: true (err set) when there is one. */
static bool
mod_error (const resolved_t *r, sh_error_t *err)
{
   if (r->mod_err && err)
      *err = *r->mod_err;
   return r->mod_err != NULL;
}

sh_checked_t *
dispatch_check (sh_ctx_t *ctx, dispatch_check_t *chk, const sh_stmt_t *stmt, sh_error_t *err)
{
   resolved_t tmp;
   const resolved_t *r;
   sh_call_t call;
   bool ok;
   sh_requests_t reqs = { .n = 0 };
   char *current = ctx->db;
   /* in the script's memory when the statement has one: ~1,400 instructions less than an allocation and its free */
   sh_checked_t *checked = sh_stmt_alloc (stmt, sizeof *checked, BSON_ALIGNOF (sh_checked_t));

   if (checked) {
      checked->in_arena = true;
   } else {
      checked = bson_aligned_alloc (BSON_ALIGNOF (sh_checked_t), sizeof *checked);
      checked->in_arena = false;
   }
   checked->stmt = stmt;
   checked->built_db = NULL;
   memset (&checked->reqs, 0, sizeof checked->reqs);
   /* a call that sends one request builds it in the checked statement: no list allocated, here or at the run */
   sh_requests_init_in (&reqs, &checked->slot);
   /* resolve against the database the statement will run on (build() only names it in its requests) */
   if (chk->db)
      ctx->db = chk->db;
   ok = (r = stmt_call (ctx, stmt, &tmp, &call, err)) && !mod_error (r, err) && check_args (&call, &reqs, err);
   ctx->db = current;
   if (ok && ctx->opts && ctx->opts->readonly &&
       (stmt->resolved ? stmt->resolved->writes : dispatch_call_writes (&call))) {
      sh_error_set_at (err, SH_ERR_READONLY, call.pos, "%s changes the cluster: refused by --readonly", call.cmd->name);
      ok = false;
   }
   /* kept for the run unless the entry builds none or reads the clock (built again when it runs) */
   if (ok && call.cmd->build && !(call.cmd->flags & CMD_CLOCK))
      checked_keep (chk, checked, call.db, &reqs);
   if (ok && stmt->kind == SH_STMT_USE && stmt->word) {
      bson_free (chk->db);
      chk->db = bson_strdup (stmt->word);
   }
   sh_requests_destroy (&reqs);
   stmt_call_done (stmt, &tmp);
   if (!ok) {
      dispatch_checked_free (checked);
      return NULL;
   }
   return checked;
}

bool
dispatch_prepare (sh_ctx_t *ctx, sh_stmt_t *stmt)
{
   struct sh_resolved *rec;
   sh_error_t err;

   if (stmt->resolved)
      return true;
   /* in the script's memory when the statement has a script: no allocation, and no free when the script ends */
   if ((rec = sh_stmt_alloc (stmt, sizeof *rec, BSON_ALIGNOF (struct sh_resolved)))) {
      /* cleared but for its name buffer (written before it is read): emptied, cheaper than clearing its bytes */
      memset (&rec->r, 0, offsetof (resolved_t, name));
      rec->r.name[0] = '\0';
      rec->writes = false;
      rec->in_arena = true;
   } else {
      rec = bson_malloc0 (sizeof *rec);
   }
   /* rec->r is cleared with rec: resolved_init's state (its name emptied) */
   err.kind = SH_ERR_NONE; /* only its kind is read, and a failed resolve sets it whole */
   if (resolve (ctx, stmt, &rec->r, &err)) {
      rec->writes = dispatch_call_writes (&rec->r.call);
      stmt->resolved = rec;
      stmt->resolved_free = record_free;
      return true;
   }
   record_free (rec);
   if (stmt->kind != SH_STMT_CHAIN)
      return true;
   /* a bad argument of a cursor modifier (.limit(NaN)) is the literal path's argument error: refused before sending */
   if (err.kind == SH_ERR_ARGS)
      return true;
   /* sh.<name>(...) and sh.<name> keep the literal path's "unknown helper" and "call it as" messages */
   return stmt->nsegs >= 1 && stmt->nsegs <= 2 && !strcmp (stmt->segs[0].name, "sh") && !stmt->segs[0].is_call;
}

bool
dispatch_call (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *result, sh_error_t *err)
{
   const sh_cmd_t *c = call->cmd;
   bool dry = ctx->opts && ctx->opts->dry_run;
   bool ok = false;
   sh_requests_t reqs = { .n = 0 };
   sh_call_t run = *call; /* the call as the executor sees it: with the requests built once */

   conn_forget_if_broken (ctx);
   /* requests taken from the statement's validation passed check_args there, with these arguments */
   if (!run.built && !check_args (&run, &reqs, err))
      goto done;
   if (c->build && !run.built)
      run.built = &reqs;
   if (ctx->opts && ctx->opts->readonly && dispatch_call_writes (call)) {
      sh_error_set_at (err, SH_ERR_READONLY, call->pos, "%s changes the cluster: refused by --readonly", c->name);
      goto done;
   }
   if (c->since && !dry) {
      int have[3];
      if (!conn_server_version (ctx, have, err))
         goto done;
      if (!dispatch_version_at_least (have, c->since)) {
         sh_error_set_at (err, SH_ERR_VERSION, call->pos, "%s needs MongoDB %s and the cluster runs %d.%d.%d", c->name,
                          c->since, have[0], have[1], have[2]);
         goto done;
      }
   }
   /* by effect, not by spelling: a person at a terminal confirms what the requests would do, unless it is under way */
   if (ctx->interactive && !dry && !(ctx->opts && ctx->opts->yes)) {
      cmd_effect_info_t effect;
      call_effect (&run, &effect);
      if (effect.kind != CMD_EFFECT_NONE && !cmd_effect_under_way (ctx, &effect) &&
          !cmd_effect_confirm (ctx, call, &effect, err))
         goto done;
   }
   if ((c->flags & CMD_MONGOS_CHECK) && !dry && !has_dbref (call)) {
      if (!mongos_check (ctx, err))
         goto done;
   }
   ok = c->exec ? c->exec (ctx, &run, result, err) : cmd_exec_requests (ctx, &run, result, err);
   if (!ok && err->kind == SH_ERR_SERVER && err->code == 59 && c->not_found_hint) {
      size_t len = strlen (err->message);
      bson_strncpy (err->message + len, c->not_found_hint, sizeof err->message - len);
   }
   if (!ok && err->kind == SH_ERR_NONE)
      sh_error_set (err, SH_ERR_USAGE, "%s failed", c->name);
done:
   /* every failure says where: server and network errors point at the helper that was running */
   if (!ok && !err->has_pos) {
      err->has_pos = true;
      err->pos = call->pos;
   }
   sh_requests_destroy (&reqs);
   return ok;
}

/* Runs stmt (dispatch_stmt), sending the requests checked (NULL: none) kept for it when it runs on their database. */
static bool
stmt_run (sh_ctx_t *ctx, const sh_stmt_t *stmt, sh_checked_t *checked, sh_result_t *result, sh_error_t *err)
{
   resolved_t tmp;
   const resolved_t *r;
   sh_call_t call;
   sh_result_t shown; /* no result asked for: presented here */
   bool ok = false;

   r = stmt_call (ctx, stmt, &tmp, &call, err);
   if (!r || mod_error (r, err)) {
      const sh_cmd_t *cmd = r ? r->call.cmd : tmp.call.cmd;
      conn_forget_if_broken (ctx);
      if (!err->has_pos && cmd) {
         err->has_pos = true;
         err->pos = r ? r->call.pos : tmp.call.pos;
      }
   } else {
      sh_requests_t taken = { .n = 0 };
      if (checked_take (checked, call.db, &taken))
         call.built = &taken;
      if (!result) {
         sh_result_init (&shown);
         shown.stream = true;
      }
      ok = dispatch_call (ctx, &call, result ? result : &shown, err);
      if (!result) {
         sh_result_present (ctx, &shown);
         sh_result_destroy (&shown);
      }
      sh_requests_destroy (&taken);
   }
   stmt_call_done (stmt, &tmp);
   return ok;
}

bool
dispatch_stmt (sh_ctx_t *ctx, const sh_stmt_t *stmt, sh_result_t *result, sh_error_t *err)
{
   return stmt_run (ctx, stmt, NULL, result, err);
}

bool
dispatch_run (sh_ctx_t *ctx, sh_checked_t *checked, sh_result_t *result, sh_error_t *err)
{
   return stmt_run (ctx, checked->stmt, checked, result, err);
}

static bool
store_writes (void *data, const sh_call_t *call, bool writes, sh_error_t *err)
{
   (void) call;
   (void) err;
   *(bool *) data = writes;
   return true;
}

bool
dispatch_stmt_writes (sh_ctx_t *ctx, const sh_stmt_t *stmt, bool *writes, sh_error_t *err)
{
   return dispatch_with_call (ctx, stmt, store_writes, writes, err); /* from the record when there is one */
}

bool
dispatch_with_call (sh_ctx_t *ctx, const sh_stmt_t *stmt, dispatch_call_fn fn, void *data, sh_error_t *err)
{
   resolved_t tmp;
   const resolved_t *r;
   sh_call_t call;
   bool ok;
   ok = (r = stmt_call (ctx, stmt, &tmp, &call, err)) && !mod_error (r, err);
   if (ok)
      ok = fn (data, &call, stmt->resolved ? stmt->resolved->writes : dispatch_call_writes (&call), err);
   stmt_call_done (stmt, &tmp);
   return ok;
}

bool
dispatch_script_is_literal (sh_ctx_t *ctx, sh_script_t *script)
{
   for (size_t s = 0; s < script->n; s++) {
      if (!dispatch_prepare (ctx, &script->stmts[s]))
         return false;
   }
   return true;
}
