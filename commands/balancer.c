/* Balancer helpers: sh.startBalancer, sh.stopBalancer, sh.setBalancerState, sh.getBalancerState,
 * sh.isBalancerRunning, sh.balancerCollectionStatus, sh.enableMigrations / disableMigrations, and the ones shardsh
 * brings back: sh.waitForBalancer, sh.waitForBalancerOff (poll balancerStatus), sh.getBalancerWindow,
 * sh.setBalancerWindow (config.settings activeWindow) and sh.configureCollectionBalancing. start/stop send
 * balancerStart/balancerStop with maxTimeMS and nothing else, as mongosh does. */
#include <string.h>
#include <time.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "shell/lib/clock.h"
#include "shell/core/interrupt.h"

static bool
build_start_stop (const sh_call_t *call, sh_requests_t *out, const char *method, const char *name, conn_path_t path,
                  sh_error_t *err)
{
   bson_iter_t it;
   bson_t *cmd;
   if (!args_check (call, 0, ARG_NUMBER, false, "Shard", method, err) ||
       !args_int (call, 0, 0, INT32_MAX, "timeout (maxTimeMS)", NULL, err))
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
   if (!args_check (call, 0, ARG_BOOL, true, "Shard", "setBalancerState", err) || !args_get (call, 0, &it))
      return false;
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
build_get_balancer_state (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) call;
   (void) err;
   /* CRUD on config.* follows the client's read preference, as the driver's find does */
   cmd_append_find_id (sh_requests_add (out, "config", CONN_READ), "settings", "balancer");
   return true;
}

/* true when there is no balancer document, else !doc.stopped */
static bool
exec_get_balancer_state (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t doc;
   bson_iter_t it;
   bson_value_t v = { .value_type = BSON_TYPE_BOOL };
   bool found, ok = false;
   (void) call;

   if (!cmd_config_find_id (ctx, "settings", "balancer", &doc, &found, err))
      goto done;
   v.value.v_bool = !(found && bson_iter_init_find (&it, &doc, "stopped") && bson_iter_as_bool (&it));
   if (!cmd_dry_run (ctx))
      sh_result_set_value (res, &v);
   ok = true;
done:
   bson_destroy (&doc);
   return ok;
}

/* { balancerStatus: 1 } on the read path: sh.isBalancerRunning, and the argument check of the waits */
static bool
build_balancer_status (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
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
   .build = build_balancer_status,
};

static bool
build_balancer_collection_status (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return args_build_string_command (call, out, "balancerCollectionStatus", "balancerCollectionStatus", "admin",
                                     CONN_READ, err);
}

static bool
build_set_allow_migrations (const sh_call_t *call, sh_requests_t *out, const char *method, bool allow, sh_error_t *err)
{
   bson_t *cmd;
   if (!args_check (call, 0, ARG_STRING, true, "Shard", method, err))
      return false;
   cmd = sh_requests_add (out, "admin", CONN_ADMIN);
   args_append (call, 0, cmd, "setAllowMigrations");
   BSON_APPEND_BOOL (cmd, "allowMigrations", allow);
   return true;
}

static bool
build_enable_migrations (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return build_set_allow_migrations (call, out, "enableMigrations", true, err);
}

static bool
build_disable_migrations (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return build_set_allow_migrations (call, out, "disableMigrations", false, err);
}

/* ---- waiting on the balancer (shardsh's own; the legacy shell polled the same way) ---- */

#define WAIT_DEFAULT_TIMEOUT_MS 60000
#define WAIT_POLL_MS 500

static bool
build_wait_for_balancer (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   if (!args_check (call, 0, ARG_BOOL, false, "Shard", "waitForBalancer", err) ||
       !args_check (call, 1, ARG_NUMBER, false, "Shard", "waitForBalancer", err) ||
       !args_int (call, 1, 0, INT32_MAX, "timeout (ms)", NULL, err))
      return false;
   return build_balancer_status (call, out, err);
}

static bool
build_wait_for_balancer_off (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   if (!args_check (call, 0, ARG_NUMBER, false, "Shard", "waitForBalancerOff", err) ||
       !args_int (call, 0, 0, INT32_MAX, "timeout (ms)", NULL, err))
      return false;
   return build_balancer_status (call, out, err);
}

/* One balancerStatus: in round, round counter and mode. */
static bool
poll_status (sh_ctx_t *ctx, bson_t *reply, bool *in_round, int64_t *rounds, bool *off, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER;
   bson_iter_t it;
   bool ok;
   BSON_APPEND_INT32 (&cmd, "balancerStatus", 1);
   ok = conn_run (ctx, "admin", &cmd, CONN_READ, reply, err);
   *in_round = bson_iter_init_find (&it, reply, "inBalancerRound") && bson_iter_as_bool (&it);
   *rounds = bson_iter_init_find (&it, reply, "numBalancerRounds") && BSON_ITER_HOLDS_NUMBER (&it)
                ? bson_iter_as_int64 (&it)
                : 0;
   *off = bson_iter_init_find (&it, reply, "mode") && BSON_ITER_HOLDS_UTF8 (&it) &&
          !strcmp (bson_iter_utf8 (&it, NULL), "off");
   bson_destroy (&cmd);
   return ok;
}

/* Polls { balancerStatus: 1 } every WAIT_POLL_MS until the condition holds or timeout_ms passes:
 * until_off: mode "off" and no round in progress; wait_round: a round that started after the call has finished;
 * otherwise: no round in progress. Prints the last status. */
static bool
wait_balancer (sh_ctx_t *ctx, const sh_call_t *call, bool until_off, bool wait_round, int timeout_arg, sh_result_t *res,
               sh_error_t *err)
{
   bson_t reply = BSON_INITIALIZER;
   int64_t timeout = WAIT_DEFAULT_TIMEOUT_MS, start = clock_mono_ms (), first_rounds = -1, rounds;
   bool in_round, off, ok = false;

   if (!args_int (call, timeout_arg, 0, INT32_MAX, "timeout (ms)", &timeout, err))
      goto done;
   for (;;) {
      bool done;
      bson_destroy (&reply);
      if (!poll_status (ctx, &reply, &in_round, &rounds, &off, err))
         goto done;
      if (cmd_dry_run (ctx)) {
         ok = true;
         goto done;
      }
      if (first_rounds < 0)
         first_rounds = rounds;
      if (until_off)
         done = off && !in_round;
      else if (wait_round)
         done = !in_round && rounds > first_rounds;
      else
         done = !in_round;
      if (done)
         break;
      if (clock_mono_ms () - start >= timeout) {
         sh_error_set_at (err, SH_ERR_USAGE, call->pos, "%s timed out after %lld ms: %s", call->cmd->name,
                          (long long) timeout,
                          until_off ? (off ? "a balancer round is still in progress" : "the balancer is still enabled")
                          : wait_round ? "no balancer round finished"
                                       : "a balancer round is still in progress");
         goto done;
      }
      if (!sh_sleep_ms (WAIT_POLL_MS)) {
         /* Ctrl-C abandons the wait; the shell goes on */
         sh_error_set_at (err, SH_ERR_INTERRUPTED, call->pos, "%s interrupted", call->cmd->name);
         goto done;
      }
   }
   sh_result_set_doc (res, &reply);
   ok = true;
done:
   bson_destroy (&reply);
   return ok;
}

static bool
exec_wait_for_balancer (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_iter_t it;
   bool wait_round = args_get (call, 0, &it) && bson_iter_as_bool (&it);
   return wait_balancer (ctx, call, false, wait_round, 1, res, err);
}

static bool
exec_wait_for_balancer_off (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   return wait_balancer (ctx, call, true, false, 0, res, err);
}

/* ---- the balancing window (config.settings { _id: "balancer" }.activeWindow) ---- */

/* activeWindow of the balancer document, or null */
static bool
exec_get_balancer_window (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t doc;
   bson_iter_t it;
   bool found, ok = false;
   (void) call;
   if (!cmd_config_find_id (ctx, "settings", "balancer", &doc, &found, err))
      goto done;
   if (!cmd_dry_run (ctx)) {
      if (found && bson_iter_init_find (&it, &doc, "activeWindow")) {
         sh_result_set_value (res, bson_iter_value (&it));
      } else {
         bson_value_t null_value = { .value_type = BSON_TYPE_NULL };
         sh_result_set_value (res, &null_value);
      }
   }
   ok = true;
done:
   bson_destroy (&doc);
   return ok;
}

/* "HH:MM" with HH 00-23 and MM 00-59 */
static bool
is_hhmm (const char *s)
{
   return s && strlen (s) == 5 && s[2] == ':' && s[0] >= '0' && s[0] <= '2' && s[1] >= '0' && s[1] <= '9' &&
          (s[0] < '2' || s[1] <= '3') && s[3] >= '0' && s[3] <= '5' && s[4] >= '0' && s[4] <= '9';
}

static bool
build_set_balancer_window (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_value_t window = { .value_type = BSON_TYPE_DOCUMENT };
   bson_t doc = BSON_INITIALIZER;
   const char *start, *stop;
   bool ok = false;

   if (!args_check (call, 0, ARG_STRING, true, "Shard", "setBalancerWindow", err) ||
       !args_check (call, 1, ARG_STRING, true, "Shard", "setBalancerWindow", err))
      goto done;
   start = args_str (call, 0);
   stop = args_str (call, 1);
   for (int i = 0; i < 2; i++) {
      if (!is_hhmm (i ? stop : start)) {
         sh_error_set_at (err, SH_ERR_ARGS, call->arg_pos ? call->arg_pos[i] : call->pos,
                          "the window's %s must be a server-local time \"HH:MM\", got \"%s\"", i ? "stop" : "start",
                          i ? stop : start);
         goto done;
      }
   }
   if (!strcmp (start, stop)) {
      sh_error_set_at (err, SH_ERR_ARGS, call->arg_pos ? call->arg_pos[1] : call->pos,
                       "the window's start and stop must differ");
      goto done;
   }
   BSON_APPEND_UTF8 (&doc, "start", start);
   BSON_APPEND_UTF8 (&doc, "stop", stop);
   window.value.v_doc.data = (uint8_t *) bson_get_data (&doc);
   window.value.v_doc.data_len = doc.len;
   cmd_append_settings_update (sh_requests_add (out, "config", CONN_ADMIN), "balancer", "activeWindow", &window, 60000);
   ok = true;
done:
   bson_destroy (&doc);
   return ok;
}

/* ---- per-collection balancer settings (6.0+) ---- */

static bool
build_configure_collection_balancing (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t base = BSON_INITIALIZER, opts;
   bool have, ok = false;
   if (!args_check (call, 0, ARG_STRING, true, "Shard", "configureCollectionBalancing", err) ||
       !args_check (call, 1, ARG_OBJECT, false, "Shard", "configureCollectionBalancing", err) ||
       !args_opt_int (call, 1, "chunkSize", 0, INT32_MAX, NULL, err))
      goto done;
   have = args_doc (call, 1, &opts);
   args_append (call, 0, &base, "configureCollectionBalancing");
   args_spread (sh_requests_add (out, "admin", CONN_ADMIN), &base, have ? &opts : NULL);
   ok = true;
done:
   bson_destroy (&base);
   return ok;
}

const sh_cmd_t cmd_sh_balancer_collection_status = {
   .name = "sh.balancerCollectionStatus",
   .usage = "sh.balancerCollectionStatus(namespace)",
   .summary = "Whether a collection's chunks are balanced, and the first reason they are not",
   .sends = "admin { balancerCollectionStatus: <ns> }",
   .example = "sh.balancerCollectionStatus(\"app.users\")",
   .since = "4.4",
   .flags = CMD_READONLY,
   .build = build_balancer_collection_status,
   .arg_kinds = "ns",
};

const sh_cmd_t cmd_sh_enable_migrations = {
   .name = "sh.enableMigrations",
   .usage = "sh.enableMigrations(namespace)",
   .summary = "Allow chunk migrations of a collection again",
   .sends = "admin { setAllowMigrations: <ns>, allowMigrations: true }",
   .example = "sh.enableMigrations(\"app.users\")",
   .since = "4.4",
   .flags = CMD_MONGOS_CHECK,
   .build = build_enable_migrations,
   .arg_kinds = "ns",
};

const sh_cmd_t cmd_sh_disable_migrations = {
   .name = "sh.disableMigrations",
   .usage = "sh.disableMigrations(namespace)",
   .summary = "Forbid chunk migrations of a collection (balancer and moveChunk alike)",
   .sends = "admin { setAllowMigrations: <ns>, allowMigrations: false }",
   .example = "sh.disableMigrations(\"app.users\")",
   .since = "4.4",
   .flags = CMD_MONGOS_CHECK,
   .build = build_disable_migrations,
   .arg_kinds = "ns",
};

const sh_cmd_t cmd_sh_wait_for_balancer = {
   .name = "sh.waitForBalancer",
   .usage = "sh.waitForBalancer([wait][, timeoutMS])",
   .summary = "Wait until no balancer round is running (wait true: until a new round has finished)",
   .sends = "admin { balancerStatus: 1 } every 500 ms until done or timeoutMS (default 60000) passes",
   .example = "sh.waitForBalancer(true, 120000)",
   .since = "3.4",
   .flags = CMD_READONLY | CMD_EXTRA,
   .build = build_wait_for_balancer,
   .exec = exec_wait_for_balancer,
};

const sh_cmd_t cmd_sh_wait_for_balancer_off = {
   .name = "sh.waitForBalancerOff",
   .usage = "sh.waitForBalancerOff([timeoutMS])",
   .summary = "Wait until the balancer is disabled and its last round has finished",
   .sends = "admin { balancerStatus: 1 } every 500 ms until mode is \"off\" and no round runs, or timeoutMS passes",
   .example = "sh.stopBalancer(); sh.waitForBalancerOff(60000)",
   .since = "3.4",
   .flags = CMD_READONLY | CMD_EXTRA,
   .build = build_wait_for_balancer_off,
   .exec = exec_wait_for_balancer_off,
};

const sh_cmd_t cmd_sh_get_balancer_window = {
   .name = "sh.getBalancerWindow",
   .usage = "sh.getBalancerWindow()",
   .summary = "The balancer's active window { start, stop } (server local time), or null",
   .sends = "config { find: \"settings\", filter: { _id: \"balancer\" }, limit: 1 }",
   .example = "sh.getBalancerWindow()",
   .flags = CMD_READONLY | CMD_MONGOS_CHECK | CMD_EXTRA,
   .build = build_get_balancer_state,
   .exec = exec_get_balancer_window,
};

const sh_cmd_t cmd_sh_set_balancer_window = {
   .name = "sh.setBalancerWindow",
   .usage = "sh.setBalancerWindow(start, stop)",
   .summary = "Let the balancer run only between start and stop (\"HH:MM\", server local time)",
   .sends = "config { update: \"settings\", updates: [ { q: { _id: \"balancer\" }, u: { $set: { activeWindow: { start, "
            "stop } } }, upsert: true } ], ordered: true, writeConcern: { w: \"majority\", wtimeout: 60000 } }",
   .example = "sh.setBalancerWindow(\"23:00\", \"06:00\")",
   .flags = CMD_MONGOS_CHECK | CMD_EXTRA,
   .ret = CMD_RET_UPDATE,
   .build = build_set_balancer_window,
};

const sh_cmd_t cmd_sh_configure_collection_balancing = {
   .name = "sh.configureCollectionBalancing",
   .usage = "sh.configureCollectionBalancing(namespace[, options])",
   .summary = "Set a collection's chunk size (MB), defragment it, or toggle its automerger",
   .sends = "admin { configureCollectionBalancing: <ns>[, chunkSize][, defragmentCollection][, enableAutoMerger] }",
   .example = "sh.configureCollectionBalancing(\"app.events\", {chunkSize: 256})",
   .since = "6.0",
   .flags = CMD_EXTRA,
   .build = build_configure_collection_balancing,
   .arg_kinds = "ns",
};
