/* shardsim's router settings that shell helpers read and set: the profile command as a mongos has it (slowms,
 * sampleRate and filter of the slow-operation log; src/mongo/s/commands/cluster_profile_cmd.cpp and
 * src/mongo/db/commands/profile_common.cpp) and the logComponentVerbosity parameter (setParameter, getParameter;
 * src/mongo/db/commands/parameters.cpp, src/mongo/logv2/log_component_settings.cpp), with a shortened component tree.
 * Callers hold sim_g.lock. */
#include <string.h>

#include "tests/shardsim/sim.h"
#include "tests/shardsim/sim_admin.h"
#include "shell/lib/docget.h"

static struct {
   bool init;
   int32_t slowms;
   double sample_rate;
   bson_t verbosity; /* logComponentVerbosity: { verbosity, <component>: { verbosity[, <sub>: {...}] } } */
} sim_set;

static void
sim_settings_init (void)
{
   static const char *const components[] = { "accessControl", "command",  "control", "network", "query",
                                             "replication",   "sharding", "storage", "write" };
   if (sim_set.init) {
      return;
   }
   sim_set.init = true;
   sim_set.slowms = 100;
   sim_set.sample_rate = 1.0;
   bson_init (&sim_set.verbosity);
   BSON_APPEND_INT32 (&sim_set.verbosity, "verbosity", 0);
   for (size_t i = 0; i < sizeof components / sizeof components[0]; i++) {
      bson_t c, j;
      BSON_APPEND_DOCUMENT_BEGIN (&sim_set.verbosity, components[i], &c);
      BSON_APPEND_INT32 (&c, "verbosity", -1);
      if (!strcmp (components[i], "storage")) {
         BSON_APPEND_DOCUMENT_BEGIN (&c, "journal", &j);
         BSON_APPEND_INT32 (&j, "verbosity", -1);
         bson_append_document_end (&c, &j);
      }
      bson_append_document_end (&sim_set.verbosity, &c);
   }
}

/* ---- profile ---- */

/* { profile: -1 | 0[, slowms][, sampleRate][, filter] }: the old settings ({ was: 0, slowms, sampleRate }), then the
 * new ones applied; a level other than -1 and 0 is refused (BadValue), in 4.4's words or 5.0's (which added filter). */
void
sim_cmd_profile (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   sim_settings_init ();
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   int64_t level = BSON_ITER_HOLDS_NUMBER (&it) ? bson_iter_as_int64 (&it) : 1;
   if (level != -1 && level != 0) {
      sim_reply_error (reply, 2,
                       sim_ver_ge (50) ? "Profiling is not permitted on mongoS: the 'profile' field should be 0 to "
                                         "change 'slowms', 'sampleRate', or 'filter' settings for logging, or -1 to "
                                         "view current values"
                                       : "Profiling is not permitted on mongoS: the 'profile' field should be 0 to "
                                         "change 'slowms' and 'sampleRate' settings for logging, or -1 to view "
                                         "current values");
      return;
   }
   BSON_APPEND_INT32 (reply, "was", 0);
   BSON_APPEND_INT32 (reply, "slowms", sim_set.slowms);
   BSON_APPEND_DOUBLE (reply, "sampleRate", sim_set.sample_rate);
   if (level == 0) {
      if (bson_iter_init_find (&it, ctx->cmd, "slowms") && BSON_ITER_HOLDS_NUMBER (&it)) {
         sim_set.slowms = (int32_t) bson_iter_as_int64 (&it);
      }
      if (bson_iter_init_find (&it, ctx->cmd, "sampleRate") && BSON_ITER_HOLDS_NUMBER (&it)) {
         double r = bson_iter_as_double (&it);
         if (!(r >= 0 && r <= 1)) {
            bson_reinit (reply);
            sim_reply_error (reply, 2, "'sampleRate' must be between 0.0 and 1.0 inclusive");
            return;
         }
         sim_set.sample_rate = r;
      }
   }
   sim_reply_ok (reply);
}

/* ---- logComponentVerbosity ---- */

/* Merges the levels of set into cur (into out): each name must be a component cur has (or verbosity, a number);
 * false with the server's BadValue message in msg otherwise. path: the dotted name so far. */
static bool
sim_verbosity_merge (const bson_t *cur, const bson_t *set, const char *path, bson_t *out, char *msg, size_t len)
{
   bson_iter_t it, s;
   bson_iter_init (&it, cur);
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (!bson_iter_init_find (&s, set, k)) {
         bson_append_value (out, k, -1, bson_iter_value (&it));
      } else if (!strcmp (k, "verbosity")) {
         if (!BSON_ITER_HOLDS_NUMBER (&s)) {
            bson_snprintf (msg, len, "Expected %s.verbosity to be a number, but found %s", path,
                           BSON_ITER_HOLDS_UTF8 (&s) ? "string" : "another type");
            return false;
         }
         BSON_APPEND_INT32 (out, k, (int32_t) bson_iter_as_int64 (&s));
      } else {
         bson_t a, b, sub;
         char *p = bson_strdup_printf ("%s.%s", path, k);
         bool ok = docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &a);
         if (ok && BSON_ITER_HOLDS_NUMBER (&s)) {
            /* { query: 2 } sets that component's verbosity */
            BSON_APPEND_DOCUMENT_BEGIN (out, k, &sub);
            bson_iter_t v;
            for (bson_iter_init (&v, &a); bson_iter_next (&v);) {
               if (!strcmp (bson_iter_key (&v), "verbosity")) {
                  BSON_APPEND_INT32 (&sub, "verbosity", (int32_t) bson_iter_as_int64 (&s));
               } else {
                  bson_append_value (&sub, bson_iter_key (&v), -1, bson_iter_value (&v));
               }
            }
            bson_append_document_end (out, &sub);
         } else if (ok && docget_iter_sub (&s, BSON_TYPE_DOCUMENT, &b)) {
            BSON_APPEND_DOCUMENT_BEGIN (out, k, &sub);
            ok = sim_verbosity_merge (&a, &b, p, &sub, msg, len);
            bson_append_document_end (out, &sub);
         }
         bson_free (p);
         if (!ok) {
            return false;
         }
      }
   }
   bson_iter_init (&s, set);
   while (bson_iter_next (&s)) {
      if (!bson_has_field (cur, bson_iter_key (&s))) {
         bson_snprintf (msg, len, "Invalid component name %s.%s", path, bson_iter_key (&s));
         return false;
      }
   }
   return true;
}

/* setParameter: logComponentVerbosity (merged into the tree: { was: <the old tree> }) or logLevel ({ was: 0 }); any
 * other parameter is unknown here (72). */
void
sim_cmd_set_parameter (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_t set;
   char msg[256] = "";
   sim_settings_init ();
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (sim_generic_arg (k)) {
         continue;
      }
      if (!strcmp (k, "logLevel")) {
         BSON_APPEND_INT32 (reply, "was", 0);
         continue;
      }
      if (strcmp (k, "logComponentVerbosity") != 0) {
         sim_reply_error (reply, 72, "attempted to set unrecognized parameter [%s], use help:true to see options ", k);
         return;
      }
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &set)) {
         sim_reply_error (reply, 2, "log component verbosity is not a BSON object");
         return;
      }
      bson_t merged = BSON_INITIALIZER;
      if (!sim_verbosity_merge (&sim_set.verbosity, &set, "logComponentVerbosity", &merged, msg, sizeof msg)) {
         bson_destroy (&merged);
         sim_reply_error (reply, 2, "%s", msg);
         return;
      }
      BSON_APPEND_DOCUMENT (reply, "was", &sim_set.verbosity);
      bson_destroy (&sim_set.verbosity);
      bson_steal (&sim_set.verbosity, &merged);
   }
   sim_reply_ok (reply);
}

void
sim_settings_append_verbosity (bson_t *out, const char *as)
{
   sim_settings_init ();
   BSON_APPEND_DOCUMENT (out, as, &sim_set.verbosity);
}
