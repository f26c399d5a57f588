/* passes: plain asan */
/* shardsim's serverStatus metrics.commands against the MongoDB server's own code: one {failed, total} pair of
 * NumberLong per command the router registers, under the command's name (aliases count under it), zeros included,
 * "<UNKNOWN>" for names no command has, the serverStatus that reads them counted in its own reply, failures counted
 * when the reply says ok: 0, keys in byte order. docs/shardsim.md ("metrics.commands") names the server files. */
#include "tests/unit/fidelity.h"

/* The NumberLong at path of doc, or -1 when it is missing or of another type. */
static int64_t
long_at (const bson_t *doc, const char *path)
{
   bson_iter_t it, d;
   if (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &d) && BSON_ITER_HOLDS_INT64 (&d)) {
      return bson_iter_int64 (&d);
   }
   return -1;
}

/* serverStatus into reply (initialised in every case). */
static bool
server_status (sim_t *s, bson_t *reply)
{
   return simproc_run_json (s, "admin", "{\"serverStatus\": 1}", reply);
}

/* Every entry of metrics.commands is {failed, total} of NumberLong in that order, but "<UNKNOWN>", a NumberLong;
 * the keys in byte order. */
static bool
shape_ok (const bson_t *ss, int *entries)
{
   bson_iter_t it, c, p;
   char prev[128] = "";
   *entries = 0;
   if (!bson_iter_init (&it, ss) || !bson_iter_find_descendant (&it, "metrics.commands", &c) ||
       !BSON_ITER_HOLDS_DOCUMENT (&c) || !bson_iter_recurse (&c, &p)) {
      return false;
   }
   while (bson_iter_next (&p)) {
      const char *k = bson_iter_key (&p);
      bson_iter_t f;
      if (strcmp (prev, k) >= 0) {
         return false;
      }
      bson_strncpy (prev, k, sizeof prev);
      (*entries)++;
      if (!strcmp (k, "<UNKNOWN>")) {
         if (!BSON_ITER_HOLDS_INT64 (&p)) {
            return false;
         }
         continue;
      }
      if (!BSON_ITER_HOLDS_DOCUMENT (&p) || !bson_iter_recurse (&p, &f) || !bson_iter_next (&f) ||
          strcmp (bson_iter_key (&f), "failed") != 0 || !BSON_ITER_HOLDS_INT64 (&f) || !bson_iter_next (&f) ||
          strcmp (bson_iter_key (&f), "total") != 0 || !BSON_ITER_HOLDS_INT64 (&f) || bson_iter_next (&f)) {
         return false;
      }
   }
   return true;
}

/* The difference of one counter between two serverStatus replies (-1000 when either lacks it). */
static int64_t
delta (const bson_t *a, const bson_t *b, const char *cmd, const char *field)
{
   char path[160];
   int64_t x, y;
   if (field) {
      snprintf (path, sizeof path, "metrics.commands.%s.%s", cmd, field);
   } else {
      snprintf (path, sizeof path, "metrics.commands.%s", cmd);
   }
   x = long_at (a, path);
   y = long_at (b, path);
   return x < 0 || y < 0 ? -1000 : y - x;
}

static void
test_commands (sim_t *s, const char *v)
{
   bson_t ss1, ss2, reply;
   char name[160];
   int entries = 0;
   bool v44 = !strcmp (v, "4.4");

   server_status (s, &ss1);
   snprintf (name, sizeof name, "%s.metrics.commands {failed, total} NumberLong per command, keys in byte order", v);
   CHECK (name, shape_ok (&ss1, &entries) && entries > 40);
   snprintf (name, sizeof name, "%s.metrics.commands lists commands never run (zeros) and <UNKNOWN> first", v);
   CHECK (name, long_at (&ss1, "metrics.commands.mergeChunks.total") == 0 &&
                   long_at (&ss1, "metrics.commands.mergeChunks.failed") == 0 &&
                   long_at (&ss1, "metrics.commands.<UNKNOWN>") == 0);
   snprintf (name, sizeof name, "%s.metrics.commands names, not aliases, and no simulator commands", v);
   CHECK (name, !has_at (&ss1, "metrics.commands.movechunk") && has_at (&ss1, "metrics.commands.moveChunk") &&
                   !has_at (&ss1, "metrics.commands.buildinfo") && !has_at (&ss1, "metrics.commands.simWorkload") &&
                   has_at (&ss1, "metrics.commands.isMaster") == v44);

   simproc_run_ok (s, "admin", "{\"ping\": 1}");
   simproc_run_ok (s, "admin", "{\"ping\": 1}");
   simproc_run_ok (s, "admin", "{\"buildinfo\": 1}");
   simproc_run_ok (s, "admin", "{\"ismaster\": 1}");
   simproc_run_json (s, "admin", "{\"noSuchCommand\": 1}", &reply);
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"split\": \"no.such\", \"middle\": {\"x\": 1}}", &reply);
   bson_destroy (&reply);
   simproc_run_ok (s, "config", "{\"find\": \"shards\"}");
   server_status (s, &ss2);

   snprintf (name, sizeof name, "%s.metrics.commands total per command name", v);
   CHECK (name, delta (&ss1, &ss2, "ping", "total") == 2 && delta (&ss1, &ss2, "ping", "failed") == 0 &&
                   delta (&ss1, &ss2, "find", "total") == 1);
   snprintf (name, sizeof name, "%s.metrics.commands an alias counts under its command's name", v);
   CHECK (name, delta (&ss1, &ss2, "buildInfo", "total") == 1 &&
                   delta (&ss1, &ss2, v44 ? "isMaster" : "hello", "total") >= 1);
   snprintf (name, sizeof name, "%s.metrics.commands a refused command counts in failed and total", v);
   CHECK (name, delta (&ss1, &ss2, "split", "total") == 1 && delta (&ss1, &ss2, "split", "failed") == 1);
   snprintf (name, sizeof name, "%s.metrics.commands an unknown name counts under <UNKNOWN>", v);
   CHECK (name, delta (&ss1, &ss2, "<UNKNOWN>", NULL) == 1);
   snprintf (name, sizeof name, "%s.metrics.commands serverStatus counted in its own reply", v);
   CHECK (name, delta (&ss1, &ss2, "serverStatus", "total") == 1 &&
                   long_at (&ss1, "metrics.commands.serverStatus.total") >= 1);
   snprintf (name, sizeof name, "%s.metrics.commands between connections and opcounters", v);
   {
      bson_iter_t it;
      const char *before = "";
      bool order = false;
      if (bson_iter_init (&it, &ss2)) {
         while (bson_iter_next (&it)) {
            if (!strcmp (bson_iter_key (&it), "opcounters")) {
               order = !strcmp (before, "metrics");
            }
            before = bson_iter_key (&it);
         }
      }
      CHECK (name, order);
   }
   bson_destroy (&ss1);
   bson_destroy (&ss2);
}

/* The simulated workload's clients count as a router counts a client's commands. */
static void
test_workload (sim_t *s, const char *v)
{
   bson_t ss1, ss2;
   char name[160];
   server_status (s, &ss1);
   simproc_run_ok (s, "admin",
                   "{\"simWorkload\": \"start\", \"ns\": \"app.events\", \"kind\": \"ascending\", \"rate\": 2000}");
   usleep (400 * 1000);
   simproc_run_ok (s, "admin", "{\"simWorkload\": \"stop\"}");
   server_status (s, &ss2);
   snprintf (name, sizeof name, "%s.metrics.commands the workload's inserts counted as insert commands", v);
   CHECK (name, delta (&ss1, &ss2, "insert", "total") > 0 &&
                   delta (&ss1, &ss2, "insert", "total") ==
                      long_at (&ss2, "opcounters.insert") - long_at (&ss1, "opcounters.insert"));
   snprintf (name, sizeof name, "%s.metrics.commands the workload is no simWorkload entry", v);
   CHECK (name, !has_at (&ss2, "metrics.commands.simWorkload"));
   bson_destroy (&ss1);
   bson_destroy (&ss2);
}

static void
run_version (const char *version)
{
   sim_t s;
   const char *args[] = { "--version", version, "--scenario", "demo", NULL };
   char pre[32];
   snprintf (pre, sizeof pre, "%s.status ", version);
   if (!fid_begin (&s, args, pre))
      return;
   test_commands (&s, version);
   test_workload (&s, version);
   fid_end (&s, pre);
}

int
main (void)
{
   mongoc_init ();
   mongoc_log_set_handler (NULL, NULL);
   run_version ("4.4");
   run_version ("5.0");
   run_version ("8.0");
   mongoc_cleanup ();
   UNIT_EXIT ();
}
