/* Balancer helpers: sh.startBalancer, sh.stopBalancer, sh.setBalancerState, sh.getBalancerState and
 * sh.isBalancerRunning. start/stop send balancerStart/balancerStop with maxTimeMS and nothing else, as mongosh does. */
#include "commands.h"

static bool
build_start_stop (const sh_call_t *call, sh_requests_t *out, const char *method, const char *name, conn_path_t path,
                  sh_error_t *err)
{
   bson_iter_t it;
   bson_t *cmd;
   if (!args_check (call, 0, ARG_NUMBER, false, "Shard", method, err))
      return false;
   cmd = sh_requests_add (out, "admin", path);
   BSON_APPEND_INT32 (cmd, name, 1);
   if (args_get (call, 0, &it))
      args_append (call, 0, cmd, "maxTimeMS");
   else
      BSON_APPEND_INT32 (cmd, "maxTimeMS", 60000);
   return true;
}

static bool
build_start_balancer (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   /* mongosh quirk kept: balancerStart goes through the read path, balancerStop does not */
   return build_start_stop (call, out, "startBalancer", "balancerStart", CONN_READ, err);
}

static bool
build_stop_balancer (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return build_start_stop (call, out, "stopBalancer", "balancerStop", CONN_ADMIN, err);
}

static bool
build_set_balancer_state (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t *cmd;
   if (!args_check (call, 0, ARG_BOOL, true, "Shard", "setBalancerState", err))
      return false;
   args_get (call, 0, &it);
   if (bson_iter_bool (&it)) {
      cmd = sh_requests_add (out, "admin", CONN_READ);
      BSON_APPEND_INT32 (cmd, "balancerStart", 1);
   } else {
      cmd = sh_requests_add (out, "admin", CONN_ADMIN);
      BSON_APPEND_INT32 (cmd, "balancerStop", 1);
   }
   BSON_APPEND_INT32 (cmd, "maxTimeMS", 60000);
   return true;
}

static bool
set_balancer_state_stops (const sh_call_t *call)
{
   bson_iter_t it;
   return args_get (call, 0, &it) && BSON_ITER_HOLDS_BOOL (&it) && !bson_iter_bool (&it);
}

static bool
build_get_balancer_state (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   /* CRUD on config.* follows the client's read preference, as the driver's find does */
   bson_t *cmd = sh_requests_add (out, "config", CONN_READ);
   bson_t filter;
   (void) call;
   (void) err;
   BSON_APPEND_UTF8 (cmd, "find", "settings");
   BSON_APPEND_DOCUMENT_BEGIN (cmd, "filter", &filter);
   BSON_APPEND_UTF8 (&filter, "_id", "balancer");
   bson_append_document_end (cmd, &filter);
   BSON_APPEND_INT32 (cmd, "limit", 1);
   return true;
}

/* true when there is no balancer document, else !doc.stopped */
static bool
exec_get_balancer_state (sh_ctx_t *ctx, const sh_call_t *call, sh_error_t *err)
{
   sh_requests_t reqs = {.n = 0};
   bson_t docs;
   bson_iter_t it, f;
   bson_value_t v;
   bool ok = false, state = true;

   bson_init (&docs);
   if (!build_get_balancer_state (call, &reqs, err))
      goto done;
   bson_destroy (&docs);
   if (!conn_run_docs (ctx, reqs.v[0].db, &reqs.v[0].cmd, reqs.v[0].path, 1, &docs, NULL, err))
      goto done;
   if (bson_iter_init (&it, &docs) && bson_iter_next (&it) && BSON_ITER_HOLDS_DOCUMENT (&it) &&
       bson_iter_recurse (&it, &f) && bson_iter_find (&f, "stopped"))
      state = !bson_iter_as_bool (&f);
   if (!(ctx->opts && ctx->opts->dry_run)) {
      v.value_type = BSON_TYPE_BOOL;
      v.value.v_bool = state;
      cmd_print_value (ctx, &v);
   }
   ok = true;
done:
   bson_destroy (&docs);
   sh_requests_destroy (&reqs);
   return ok;
}

static bool
build_is_balancer_running (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) call;
   (void) err;
   BSON_APPEND_INT32 (sh_requests_add (out, "admin", CONN_READ), "balancerStatus", 1);
   return true;
}

const sh_cmd_t cmd_sh_start_balancer = {
   .name = "sh.startBalancer",
   .usage = "sh.startBalancer([timeoutMS])",
   .summary = "Enable the balancer (timeoutMS defaults to 60000)",
   .sends = "admin { balancerStart: 1, maxTimeMS: <timeout> }",
   .example = "sh.startBalancer()",
   .since = "3.4",
   .build = build_start_balancer,
};

const sh_cmd_t cmd_sh_stop_balancer = {
   .name = "sh.stopBalancer",
   .usage = "sh.stopBalancer([timeoutMS])",
   .summary = "Disable the balancer and let the current round finish (timeoutMS defaults to 60000)",
   .sends = "admin { balancerStop: 1, maxTimeMS: <timeout> }",
   .example = "sh.stopBalancer()",
   .since = "3.4",
   .flags = CMD_DESTRUCTIVE,
   .build = build_stop_balancer,
};

const sh_cmd_t cmd_sh_set_balancer_state = {
   .name = "sh.setBalancerState",
   .alias_of = "sh.startBalancer / sh.stopBalancer",
   .usage = "sh.setBalancerState(state)",
   .summary = "Start (true) or stop (false) the balancer",
   .sends = "admin { balancerStart: 1, maxTimeMS: 60000 } or { balancerStop: 1, maxTimeMS: 60000 }",
   .example = "sh.setBalancerState(true)",
   .since = "3.4",
   .flags = CMD_ALIAS,
   .build = build_set_balancer_state,
   .destructive_if = set_balancer_state_stops,
};

const sh_cmd_t cmd_sh_get_balancer_state = {
   .name = "sh.getBalancerState",
   .usage = "sh.getBalancerState()",
   .summary = "Whether the balancer is enabled (reads config.settings)",
   .sends = "config { find: \"settings\", filter: { _id: \"balancer\" }, limit: 1 }",
   .example = "sh.getBalancerState()",
   .flags = CMD_READONLY | CMD_MONGOS_CHECK,
   .build = build_get_balancer_state,
   .exec = exec_get_balancer_state,
};

const sh_cmd_t cmd_sh_is_balancer_running = {
   .name = "sh.isBalancerRunning",
   .usage = "sh.isBalancerRunning()",
   .summary = "The balancer's status (mode, whether a round is in progress)",
   .sends = "admin { balancerStatus: 1 }",
   .example = "sh.isBalancerRunning()",
   .since = "3.4",
   .flags = CMD_READONLY | CMD_MONGOS_CHECK,
   .build = build_is_balancer_running,
};
