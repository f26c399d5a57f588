/* What a statement does to the cluster, read from the command documents it would send (see effect.h and
 * docs/safety.md): one rule for helpers and raw commands alike. */
#include "commands/effect.h"

#include <string.h>

#include "commands/table.h"
#include "shell/core/conn.h"
#include "shell/lib/docget.h"

static const char *const effect_names[] = {
   "NONE",          "ARGS",         "CONFIG_WRITE", "KILL_OP",   "MOVE",
   "STOP_BALANCER", "REMOVE_SHARD", "DELETE_ALL",   "DROP_COLL", "DROP_DB",
};

const char *
cmd_effect_name (cmd_effect_t kind)
{
   if ((size_t) kind >= sizeof effect_names / sizeof effect_names[0])
      return "?";
   return effect_names[kind];
}

const char *
cmd_effect_summary (cmd_effect_t kind)
{
   static const char *const summaries[] = {
      "changes nothing",
      /* parenthesised: one element in two literals (clang's -Wstring-concatenation) */
      ("drops, deletes without a filter, removes a shard, stops the balancer, moves data, kills an operation or writes "
       "the cluster's metadata (its arguments decide)"),
      "writes the cluster's metadata (config.*)",
      "kills an operation",
      "moves data between shards",
      "stops the balancer",
      "removes a shard (not when it is draining already)",
      "deletes every document of a collection",
      "drops a collection",
      "drops a database",
   };
   if ((size_t) kind >= sizeof summaries / sizeof summaries[0])
      return "?";
   return summaries[kind];
}

/* Sets out to kind naming the value the iterator is on (a string or a number), prefixed by prefix when given. */
static void
effect_set (cmd_effect_info_t *out, cmd_effect_t kind, const char *prefix, const bson_iter_t *it)
{
   out->kind = kind;
   out->what[0] = '\0';
   if (!it)
      bson_strncpy (out->what, prefix ? prefix : "", sizeof out->what);
   else if (BSON_ITER_HOLDS_UTF8 (it))
      bson_snprintf (out->what, sizeof out->what, "%s%s%s", prefix ? prefix : "", prefix ? "." : "",
                     bson_iter_utf8 (it, NULL));
   else if (BSON_ITER_HOLDS_NUMBER (it))
      bson_snprintf (out->what, sizeof out->what, "%" PRId64, bson_iter_as_int64 (it));
}

/* True when an update document (operators or a replacement) sets the balancer to stopped: stopped: true or
 * mode: "off", the fields of config.settings' balancer document. */
static bool
effect_stops_balancer (const bson_t *u)
{
   bson_t set;
   const bson_t *where = docget_sub (u, "$set", BSON_TYPE_DOCUMENT, &set) ? &set : u;
   const char *mode = docget_utf8 (where, "mode", NULL);
   return docget_bool (where, "stopped") || (mode && !strcmp (mode, "off"));
}

/* True when every key of the operator documents of update u (or of a replacement) is one of the per-collection
 * settings the manual documents in config.collections (noBalance, enableAutoMerge). */
static bool
effect_documented_coll_setting (const bson_t *u)
{
   bson_iter_t op, f;
   if (!bson_iter_init (&op, u))
      return false;
   while (bson_iter_next (&op)) {
      if (!BSON_ITER_HOLDS_DOCUMENT (&op) || !bson_iter_recurse (&op, &f))
         return false;
      while (bson_iter_next (&f)) {
         if (strcmp (bson_iter_key (&f), "noBalance") != 0 && strcmp (bson_iter_key (&f), "enableAutoMerge") != 0)
            return false;
      }
   }
   return true;
}

/* The effect of a write (update, delete, insert, findAndModify) on db.coll: every document deleted, the balancer
 * stopped through config.settings, or the cluster's metadata written. */
static void
effect_of_write (const char *db, const char *name, const char *coll, const bson_t *cmd, cmd_effect_info_t *out)
{
   bool config = !strcmp (db, "config");
   bool documented = config && !strcmp (coll, "settings");
   bson_t list, one, part;
   bson_iter_t it;
   const char *list_key = !strcmp (name, "update") ? "updates" : !strcmp (name, "delete") ? "deletes" : NULL;

   if (list_key && docget_sub (cmd, list_key, BSON_TYPE_ARRAY, &list) && bson_iter_init (&it, &list)) {
      documented = documented || (config && !strcmp (coll, "collections") && !strcmp (name, "update"));
      while (bson_iter_next (&it)) {
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &one))
            continue;
         if (!strcmp (name, "delete") && docget_sub (&one, "q", BSON_TYPE_DOCUMENT, &part) && bson_empty (&part) &&
             docget_int (&one, "limit", 0) == 0) {
            effect_set (out, CMD_EFFECT_DELETE_ALL, db, NULL);
            bson_snprintf (out->what, sizeof out->what, "%s.%s", db, coll);
            return;
         }
         if (!strcmp (name, "update") && docget_sub (&one, "u", BSON_TYPE_DOCUMENT, &part)) {
            if (config && !strcmp (coll, "settings") && !strcmp (docget_utf8 (&one, "q._id", ""), "balancer") &&
                effect_stops_balancer (&part)) {
               effect_set (out, CMD_EFFECT_STOP_BALANCER, NULL, NULL);
               return;
            }
            if (!strcmp (coll, "collections") && !effect_documented_coll_setting (&part))
               documented = !strcmp (coll, "settings");
         }
      }
   }
   if (config && !documented) {
      effect_set (out, CMD_EFFECT_CONFIG_WRITE, NULL, NULL);
      bson_snprintf (out->what, sizeof out->what, "config.%s", coll);
   }
}

void
cmd_effect_of_request (const char *db, const bson_t *cmd, cmd_effect_info_t *out)
{
   static const char *const moves[] = { "moveChunk",         "moveRange",         "movePrimary", "moveCollection",
                                        "reshardCollection", "unshardCollection", NULL };
   static const char *const removes[] = { "removeShard", "startShardDraining", "transitionToDedicatedConfigServer",
                                          NULL };
   static const char *const writes[] = { "insert", "update", "delete", "findAndModify", NULL };
   bson_iter_t it;
   const char *name;

   out->kind = CMD_EFFECT_NONE;
   out->what[0] = '\0';
   if (!bson_iter_init (&it, cmd) || !bson_iter_next (&it))
      return;
   name = bson_iter_key (&it);
   if (!strcmp (name, "dropDatabase")) {
      effect_set (out, CMD_EFFECT_DROP_DB, db, NULL);
   } else if (!strcmp (name, "drop")) {
      effect_set (out, CMD_EFFECT_DROP_COLL, db, &it);
   } else if (!strcmp (name, "renameCollection") && docget_bool (cmd, "dropTarget")) {
      bson_iter_t to;
      if (docget_iter (cmd, "to", &to))
         effect_set (out, CMD_EFFECT_DROP_COLL, NULL, &to);
   } else if (!strcmp (name, "balancerStop")) {
      effect_set (out, CMD_EFFECT_STOP_BALANCER, NULL, NULL);
   } else if (!strcmp (name, "killOp")) {
      bson_iter_t op;
      effect_set (out, CMD_EFFECT_KILL_OP, NULL, docget_iter (cmd, "op", &op) ? &op : NULL);
   } else {
      for (size_t i = 0; moves[i]; i++) {
         if (!strcmp (name, moves[i]))
            effect_set (out, CMD_EFFECT_MOVE, NULL, &it);
      }
      for (size_t i = 0; removes[i]; i++) {
         if (!strcmp (name, removes[i]))
            effect_set (out, CMD_EFFECT_REMOVE_SHARD, NULL, BSON_ITER_HOLDS_UTF8 (&it) ? &it : NULL);
      }
      for (size_t i = 0; writes[i]; i++) {
         if (!strcmp (name, writes[i]) && BSON_ITER_HOLDS_UTF8 (&it))
            effect_of_write (db, name, bson_iter_utf8 (&it, NULL), cmd, out);
      }
   }
}

void
cmd_effect_of_requests (const sh_requests_t *reqs, cmd_effect_info_t *out)
{
   out->kind = CMD_EFFECT_NONE;
   out->what[0] = '\0';
   for (size_t i = 0; reqs && i < reqs->n; i++) {
      cmd_effect_info_t one;
      cmd_effect_of_request (reqs->v[i].db, &reqs->v[i].cmd, &one);
      if (one.kind > out->kind)
         *out = one;
   }
}

void
cmd_effect_describe (const cmd_effect_info_t *e, char *buf, size_t size)
{
   const char *w = e->what;
   switch (e->kind) {
   case CMD_EFFECT_DROP_DB:
      bson_snprintf (buf, size, "drops database %s and every collection in it", w);
      break;
   case CMD_EFFECT_DROP_COLL:
      bson_snprintf (buf, size, "drops collection %s", w);
      break;
   case CMD_EFFECT_DELETE_ALL:
      bson_snprintf (buf, size, "deletes every document of %s (no filter)", w);
      break;
   case CMD_EFFECT_REMOVE_SHARD:
      bson_snprintf (buf, size, "removes shard %s (its data moves to the other shards)", *w ? w : "config");
      break;
   case CMD_EFFECT_STOP_BALANCER:
      bson_snprintf (buf, size, "stops the balancer");
      break;
   case CMD_EFFECT_MOVE:
      bson_snprintf (buf, size, "moves data between shards (%s)", w);
      break;
   case CMD_EFFECT_KILL_OP:
      bson_snprintf (buf, size, "kills operation %s", w);
      break;
   case CMD_EFFECT_CONFIG_WRITE:
      bson_snprintf (buf, size, "writes %s, the cluster's metadata", w);
      break;
   default:
      bson_snprintf (buf, size, "changes nothing");
      break;
   }
}

bool
cmd_effect_under_way (sh_ctx_t *ctx, const cmd_effect_info_t *e)
{
   bson_t cmd = BSON_INITIALIZER, filter, docs;
   sh_error_t err;
   bool more = false, draining = false;

   if (e->kind != CMD_EFFECT_REMOVE_SHARD || !e->what[0])
      return false;
   BSON_APPEND_UTF8 (&cmd, "find", "shards");
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "filter", &filter);
   BSON_APPEND_UTF8 (&filter, "_id", e->what);
   BSON_APPEND_BOOL (&filter, "draining", true);
   bson_append_document_end (&cmd, &filter);
   BSON_APPEND_INT32 (&cmd, "limit", 1);
   sh_error_clear (&err);
   if (conn_run_docs (ctx, "config", &cmd, CONN_READ, 1, &docs, &more, &err))
      draining = !bson_empty (&docs);
   bson_destroy (&docs);
   bson_destroy (&cmd);
   return draining;
}

bool
confirm_answer_yes (const char *line)
{
   size_t n = strcspn (line, "\r\n");
   return (n == 1 && (line[0] == 'y' || line[0] == 'Y')) || (n == 3 && !strncasecmp (line, "yes", 3));
}

bool
cmd_effect_confirm (sh_ctx_t *ctx, const sh_call_t *call, const cmd_effect_info_t *e, sh_error_t *err)
{
   char line[64], effect[1024];
   /* the effect the plan knows: from the script's pre-flight, or read now for this call */
   if (ctx->confirm_effect && ctx->confirm_effect[0])
      fprintf (ctx->err_fp, "%s\n", ctx->confirm_effect);
   else if (ctx->describe_effect && ctx->describe_effect (ctx, call, effect, sizeof effect))
      fprintf (ctx->err_fp, "%s\n", effect);
   cmd_effect_describe (e, effect, sizeof effect);
   fprintf (ctx->err_fp, "%s %s. Type 'yes' to run it [y/N]: ", call->cmd->name, effect);
   fflush (ctx->err_fp);
   /* y or yes (any case), then the end of the line */
   if (!fgets (line, sizeof line, stdin) || !confirm_answer_yes (line)) {
      sh_error_set_at (err, SH_ERR_CONFIRM, call->pos, "%s not run: not confirmed", call->cmd->name);
      return false;
   }
   return true;
}
