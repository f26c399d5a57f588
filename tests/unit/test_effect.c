/* passes: plain asan */
/* Confirmations by effect (issue 31), checked through the command table: every entry's example builds requests whose
 * effect (commands/effect.c) is the one its table.def line declares, an entry whose arguments decide builds its
 * requests (so the dispatcher can read them), and a helper and the raw command that sends the same document have the
 * same effect however the statement is spelled. */
#include <string.h>

#include "commands/commands.h"
#include "commands/dispatch.h"
#include "shell/lang/parser.h"
#include "tests/unit/unit.h"

typedef struct {
   cmd_effect_info_t effect;
   bool built;
} probe_t;

static bool
probe_call (void *data, const sh_call_t *call, bool writes, sh_error_t *err)
{
   probe_t *p = data;
   sh_requests_t reqs = { .n = 0 };
   bool ok = sh_requests_build (call, &reqs, err);
   (void) writes;
   p->built = ok && reqs.n > 0;
   cmd_effect_of_requests (&reqs, &p->effect);
   sh_requests_destroy (&reqs);
   return ok;
}

/* The effect of the last statement of text (an example may set the scene first), built against the current database
 * "app"; false when it does not resolve. */
static bool
effect_of (sh_ctx_t *ctx, const char *text, probe_t *p)
{
   sh_script_t script;
   sh_error_t err;
   bool ok;
   memset (p, 0, sizeof *p);
   sh_error_clear (&err);
   ok = sh_parse_script ("<test>", text, strlen (text), &script, &err) && script.n >= 1 &&
        dispatch_with_call (ctx, &script.stmts[script.n - 1], probe_call, p, &err);
   sh_script_destroy (&script);
   return ok;
}

/* Every entry of the table: its example's effect is its declared column. */
static void
test_table (sh_ctx_t *ctx)
{
   size_t checked = 0;
   for (size_t i = 0; sh_cmd_rows[i].cmd; i++) {
      const sh_cmd_row_t *row = &sh_cmd_rows[i];
      const sh_cmd_t *c = row->cmd;
      char name[256];
      probe_t p;
      if (row->effect == CMD_EFFECT_ARGS) {
         bson_snprintf (name, sizeof name, "effect/%s: its arguments decide, so it builds its requests", c->name);
         CHECK (name, c->build != NULL);
         continue;
      }
      if (!c->build || !c->example || (c->flags & CMD_CLIENT_ONLY)) {
         bson_snprintf (name, sizeof name, "effect/%s sends nothing built: NONE or a declared effect", c->name);
         CHECK (name, row->effect != CMD_EFFECT_ARGS);
         continue;
      }
      bson_snprintf (name, sizeof name, "effect/%s: its example builds %s, as table.def declares", c->name,
                     cmd_effect_name (row->effect));
      if (!effect_of (ctx, c->example, &p))
         UNIT_FAIL (name, "the example \"%s\" does not build", c->example);
      else if (p.effect.kind != row->effect)
         UNIT_FAIL (name, "built %s (%s)", cmd_effect_name (p.effect.kind), c->example);
      else
         UNIT_PASS (name);
      checked++;
   }
   CHECK ("effect/most entries were checked from their example", checked > 60);
}

/* Spellings of one effect: each must build exactly want, naming what. */
static void
check_forms (sh_ctx_t *ctx, cmd_effect_t want, const char *what, const char *const *forms)
{
   for (size_t i = 0; forms[i]; i++) {
      char name[512];
      probe_t p;
      bson_snprintf (name, sizeof name, "effect/%s is %s", forms[i], cmd_effect_name (want));
      if (!effect_of (ctx, forms[i], &p))
         UNIT_FAIL (name, "%s", "does not build");
      else if (p.effect.kind != want || (what && strcmp (p.effect.what, what) != 0))
         UNIT_FAIL (name, "built %s \"%s\"", cmd_effect_name (p.effect.kind), p.effect.what);
      else
         UNIT_PASS (name);
   }
}

static void
test_spellings (sh_ctx_t *ctx)
{
   static const char *const drop_coll[] = { "db.getSiblingDB(\"app\").events.drop()",
                                            "db.getSiblingDB(\"app\").runCommand({drop: \"events\"})",
                                            "db.events.drop()", NULL };
   static const char *const drop_db[] = { "db.getSiblingDB(\"app\").dropDatabase()",
                                          "db.getSiblingDB(\"app\").runCommand({dropDatabase: 1})", NULL };
   static const char *const delete_all[] = {
      "db.getSiblingDB(\"app\").events.deleteMany({})",
      "db.getSiblingDB(\"app\").runCommand({delete: \"events\", deletes: [{q: {}, limit: 0}]})",
      "db.getSiblingDB(\"app\").events.remove({})", NULL
   };
   static const char *const remove_shard[] = { "sh.removeShard(\"shard03\")",
                                               "db.adminCommand({removeShard: \"shard03\"})", NULL };
   static const char *const stop_balancer[] = {
      "sh.stopBalancer()", "db.adminCommand({balancerStop: 1})", "sh.setBalancerState(false)",
      "db.getSiblingDB(\"config\").settings.updateOne({_id: \"balancer\"}, {$set: {stopped: true}}, {upsert: true})",
      NULL
   };
   static const char *const moves[] = { "sh.moveChunk(\"app.events\", {k: 1}, \"shard02\")",
                                        "db.adminCommand({moveChunk: \"app.events\", find: {k: 1}, to: \"shard02\"})",
                                        "db.adminCommand({movePrimary: \"app\", to: \"shard02\"})",
                                        "sh.moveCollection(\"app.events\", \"shard02\")", NULL };
   static const char *const renames[] = { "db.getSiblingDB(\"app\").a.renameCollection(\"events\", true)", NULL };
   static const char *const config_writes[] = { "db.getSiblingDB(\"config\").chunks.deleteMany({ns: \"app.x\"})",
                                                "db.getSiblingDB(\"config\").collections.updateOne({_id: \"app.x\"}, "
                                                "{$set: {key: {a: 1}}})",
                                                NULL };
   static const char *const harmless[] = {
      "db.getSiblingDB(\"app\").events.deleteMany({k: 1})",
      "db.getSiblingDB(\"app\").events.deleteOne({})",
      "db.getSiblingDB(\"app\").events.remove({}, true)",
      "db.adminCommand({balancerStart: 1})",
      "sh.setBalancerState(true)",
      "sh.disableBalancing(\"app.events\")",
      "db.getSiblingDB(\"config\").settings.updateOne({_id: \"chunksize\"}, {$set: {value: 64}}, {upsert: true})",
      "db.getSiblingDB(\"app\").a.renameCollection(\"events\")",
      "db.adminCommand({ping: 1})",
      NULL
   };
   check_forms (ctx, CMD_EFFECT_DROP_COLL, "app.events", drop_coll);
   check_forms (ctx, CMD_EFFECT_DROP_DB, "app", drop_db);
   check_forms (ctx, CMD_EFFECT_DELETE_ALL, "app.events", delete_all);
   check_forms (ctx, CMD_EFFECT_REMOVE_SHARD, "shard03", remove_shard);
   check_forms (ctx, CMD_EFFECT_STOP_BALANCER, NULL, stop_balancer);
   check_forms (ctx, CMD_EFFECT_MOVE, NULL, moves);
   check_forms (ctx, CMD_EFFECT_DROP_COLL, "app.events", renames);
   check_forms (ctx, CMD_EFFECT_CONFIG_WRITE, NULL, config_writes);
   check_forms (ctx, CMD_EFFECT_NONE, NULL, harmless);
}

static void
test_describe (void)
{
   cmd_effect_info_t e = { .kind = CMD_EFFECT_DROP_COLL };
   char buf[256];
   bson_strncpy (e.what, "app.events", sizeof e.what);
   cmd_effect_describe (&e, buf, sizeof buf);
   CHECK_STR ("effect/a drop names the collection, not moving data", "drops collection app.events", buf);
   e.kind = CMD_EFFECT_STOP_BALANCER;
   cmd_effect_describe (&e, buf, sizeof buf);
   CHECK_STR ("effect/stopping the balancer says so", "stops the balancer", buf);
}

int
main (void)
{
   sh_options_t opts;
   sh_ctx_t ctx;
   memset (&opts, 0, sizeof opts);
   opts.dry_run = true;
   memset (&ctx, 0, sizeof ctx);
   ctx.opts = &opts;
   ctx.db = bson_strdup ("app");
   test_table (&ctx);
   test_spellings (&ctx);
   test_describe ();
   bson_free (ctx.db);
   UNIT_EXIT ();
}
