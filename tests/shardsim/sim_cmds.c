/* shardsim's command layer, above the command families: the one command table (name, first version, admin-only,
 * handler, kind: the single place a command is registered, looked up once per request), the dispatcher (OP_QUERY
 * rules, authentication, counters, the reply envelope with the cluster time) and the generic commands
 * (ping, buildInfo, getParameter, getCmdLineOpts, serverStatus, listDatabases, connectionStatus, endSessions …).
 * The handshake (hello) is sim_hello.c. */
#include "tests/shardsim/sim_admin.h"
#include "tests/shardsim/query/simq_int.h"
#include "tests/shardsim/sim_ddlcheck.h"
#include "shell/lib/clock.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

static void
sim_append_cluster_time (bson_t *reply)
{
   uint32_t s, i;
   sim_cluster_time (&s, &i);
   uint8_t hash[20];
   int64_t key_id;
   sim_auth_sign_cluster_time (s, i, hash, &key_id); /* zeros without --auth */
   bson_t ct, sig;
   if (!sim_ver_ge (50)) {
      BSON_APPEND_TIMESTAMP (reply, "operationTime", s, i);
   }
   BSON_APPEND_DOCUMENT_BEGIN (reply, "$clusterTime", &ct);
   BSON_APPEND_TIMESTAMP (&ct, "clusterTime", s, i);
   BSON_APPEND_DOCUMENT_BEGIN (&ct, "signature", &sig);
   BSON_APPEND_BINARY (&sig, "hash", BSON_SUBTYPE_BINARY, hash, 20);
   BSON_APPEND_INT64 (&sig, "keyId", key_id);
   bson_append_document_end (&ct, &sig);
   bson_append_document_end (reply, &ct);
   if (sim_ver_ge (50)) {
      BSON_APPEND_TIMESTAMP (reply, "operationTime", s, i);
   }
}

/* ---- generic commands ---- */

static void
sim_cmd_ping (sim_ctx_t *ctx, bson_t *reply)
{
   (void) ctx;
   sim_reply_ok (reply);
}

static void
sim_cmd_build_info (sim_ctx_t *ctx, bson_t *reply)
{
   (void) ctx;
   int a = 0, b = 0, c = 0;
   sscanf (sim_g.ver->full, "%d.%d.%d", &a, &b, &c);
   bson_t arr, env;
   BSON_APPEND_UTF8 (reply, "version", sim_g.ver->full);
   BSON_APPEND_UTF8 (reply, "gitVersion", "0000000000000000000000000000000000000000");
   BSON_APPEND_ARRAY_BEGIN (reply, "modules", &arr);
   bson_append_array_end (reply, &arr);
   BSON_APPEND_UTF8 (reply, "allocator", "tcmalloc");
   BSON_APPEND_UTF8 (reply, "javascriptEngine", "mozjs");
   BSON_APPEND_UTF8 (reply, "sysInfo", "deprecated");
   BSON_APPEND_ARRAY_BEGIN (reply, "versionArray", &arr);
   BSON_APPEND_INT32 (&arr, "0", a);
   BSON_APPEND_INT32 (&arr, "1", b);
   BSON_APPEND_INT32 (&arr, "2", c);
   BSON_APPEND_INT32 (&arr, "3", 0);
   bson_append_array_end (reply, &arr);
   BSON_APPEND_DOCUMENT_BEGIN (reply, "openssl", &env);
   BSON_APPEND_UTF8 (&env, "running", "OpenSSL 3.0.0");
   BSON_APPEND_UTF8 (&env, "compiled", "OpenSSL 3.0.0");
   bson_append_document_end (reply, &env);
   BSON_APPEND_DOCUMENT_BEGIN (reply, "buildEnvironment", &env);
   BSON_APPEND_UTF8 (&env, "distmod", "shardsim");
   BSON_APPEND_UTF8 (&env, "target_arch", "x86_64");
   BSON_APPEND_UTF8 (&env, "target_os", "linux");
   bson_append_document_end (reply, &env);
   BSON_APPEND_INT32 (reply, "bits", 64);
   BSON_APPEND_BOOL (reply, "debug", false);
   BSON_APPEND_INT32 (reply, "maxBsonObjectSize", 16777216);
   BSON_APPEND_ARRAY_BEGIN (reply, "storageEngines", &arr);
   bson_append_array_end (reply, &arr);
   sim_reply_ok (reply);
}

/* Appends server parameter name's value to reply under key as; false when the simulator has no such parameter. */
static bool
sim_append_parameter (bson_t *reply, const char *name, const char *as)
{
   if (!strcmp (name, "featureCompatibilityVersion")) {
      bson_t d;
      BSON_APPEND_DOCUMENT_BEGIN (reply, as, &d);
      BSON_APPEND_UTF8 (&d, "version", sim_g.ver->name);
      bson_append_document_end (reply, &d);
   } else if (!strcmp (name, "logComponentVerbosity")) {
      sim_settings_append_verbosity (reply, as);
   } else if (!strcmp (name, "logLevel")) {
      BSON_APPEND_INT32 (reply, as, 0);
   } else if (!strcmp (name, "authenticationMechanisms")) {
      bson_t a;
      BSON_APPEND_ARRAY_BEGIN (reply, as, &a);
      BSON_APPEND_UTF8 (&a, "0", "SCRAM-SHA-1");
      BSON_APPEND_UTF8 (&a, "1", "SCRAM-SHA-256");
      bson_append_array_end (reply, &a);
   } else if (!strcmp (name, "maxTimeMSForHedgedReads")) {
      BSON_APPEND_INT32 (reply, as, 150);
   } else if (!strcmp (name, "readHedgingMode")) {
      BSON_APPEND_UTF8 (reply, as, "on");
   } else {
      return false;
   }
   return true;
}

/* getParameter (parameters.cpp CmdGet::run): every parameter of the node's map (alphabetical) that the command names
 * as a field, or all of them for "*" or { allParameters: true }; names it does not know are ignored, 72 "no option
 * found to get" only when nothing was appended. { showDetails: true } gives { value, settableAtRuntime,
 * settableAtStartup } per parameter. */
static void
sim_cmd_get_parameter (sim_ctx_t *ctx, bson_t *reply)
{
   static const struct {
      const char *name;
      bool runtime, startup;
   } params[] = {
      { "authenticationMechanisms", false, true }, { "featureCompatibilityVersion", false, false },
      { "logComponentVerbosity", true, true },     { "logLevel", true, true },
      { "maxTimeMSForHedgedReads", true, true },   { "readHedgingMode", true, true },
   };
   bson_iter_t it;
   bson_t opts, out = BSON_INITIALIZER;
   int found = 0;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   bool all = BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), "*");
   bool details = false;
   if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &opts)) {
      all = docget_bool (&opts, "allParameters");
      details = docget_bool (&opts, "showDetails");
   }
   for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
      if (!all && !bson_has_field (ctx->cmd, params[i].name)) {
         continue;
      }
      if (details) {
         bson_t d;
         BSON_APPEND_DOCUMENT_BEGIN (&out, params[i].name, &d);
         sim_append_parameter (&d, params[i].name, "value");
         BSON_APPEND_BOOL (&d, "settableAtRuntime", params[i].runtime);
         BSON_APPEND_BOOL (&d, "settableAtStartup", params[i].startup);
         bson_append_document_end (&out, &d);
      } else {
         sim_append_parameter (&out, params[i].name, params[i].name);
      }
      found++;
   }
   if (!found) {
      sim_reply_error (reply, 72, "no option found to get");
   } else {
      bson_concat (reply, &out);
      sim_reply_ok (reply);
   }
   bson_destroy (&out);
}

static void
sim_cmd_get_cmd_line_opts (sim_ctx_t *ctx, bson_t *reply)
{
   (void) ctx;
   bson_t arr, parsed, net, sh;
   BSON_APPEND_ARRAY_BEGIN (reply, "argv", &arr);
   BSON_APPEND_UTF8 (&arr, "0", "mongos");
   BSON_APPEND_UTF8 (&arr, "1", "--configdb");
   BSON_APPEND_UTF8 (&arr, "2", "configRepl/127.0.0.1:27100");
   BSON_APPEND_UTF8 (&arr, "3", "--port");
   char port[16];
   bson_snprintf (port, sizeof port, "%d", sim_g.port);
   BSON_APPEND_UTF8 (&arr, "4", port);
   bson_append_array_end (reply, &arr);
   BSON_APPEND_DOCUMENT_BEGIN (reply, "parsed", &parsed);
   BSON_APPEND_DOCUMENT_BEGIN (&parsed, "net", &net);
   BSON_APPEND_UTF8 (&net, "bindIp", "127.0.0.1");
   BSON_APPEND_INT32 (&net, "port", sim_g.port);
   bson_append_document_end (&parsed, &net);
   BSON_APPEND_DOCUMENT_BEGIN (&parsed, "sharding", &sh);
   BSON_APPEND_UTF8 (&sh, "configDB", "configRepl/127.0.0.1:27100");
   bson_append_document_end (&parsed, &sh);
   bson_append_document_end (reply, &parsed);
   sim_reply_ok (reply);
}

static void
sim_cmd_append_metrics (bson_t *reply);

/* extra_info as a Linux server writes it (src/mongo/util/processinfo_linux.cpp, ProcessInfo::getExtraInfo): the
 * process's getrusage(RUSAGE_SELF) user and system times in microseconds, the part the exporter reads. */
static void
sim_cmd_append_extra_info (bson_t *reply)
{
   struct rusage ru;
   bson_t d;
   BSON_APPEND_DOCUMENT_BEGIN (reply, "extra_info", &d);
   BSON_APPEND_UTF8 (&d, "note", "fields vary by platform");
   if (getrusage (RUSAGE_SELF, &ru) == 0) {
      BSON_APPEND_INT64 (&d, "user_time_us", (int64_t) ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec);
      BSON_APPEND_INT64 (&d, "system_time_us", (int64_t) ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec);
      BSON_APPEND_INT64 (&d, "maximum_resident_set_kb", (int64_t) ru.ru_maxrss);
   }
   bson_append_document_end (reply, &d);
}

static void
sim_cmd_server_status (sim_ctx_t *ctx, bson_t *reply)
{
   (void) ctx;
   int64_t now = clock_wall_ms ();
   int64_t up_ms = now - sim_g.start_ms;
   uint32_t s, i;
   sim_cluster_time (&s, &i);
   bson_t d, e;
   BSON_APPEND_UTF8 (reply, "host", sim_g.host);
   BSON_APPEND_UTF8 (reply, "version", sim_g.ver->full);
   BSON_APPEND_UTF8 (reply, "process", "mongos");
   BSON_APPEND_INT64 (reply, "pid", (int64_t) getpid ());
   BSON_APPEND_DOUBLE (reply, "uptime", (double) (up_ms / 1000));
   BSON_APPEND_INT64 (reply, "uptimeMillis", up_ms);
   BSON_APPEND_INT64 (reply, "uptimeEstimate", up_ms / 1000);
   BSON_APPEND_DATE_TIME (reply, "localTime", now);
   BSON_APPEND_DOCUMENT_BEGIN (reply, "connections", &d);
   BSON_APPEND_INT32 (&d, "current", (int32_t) sim_g.conns_current);
   BSON_APPEND_INT32 (&d, "available", (int32_t) (838860 - sim_g.conns_current));
   BSON_APPEND_INT32 (&d, "totalCreated", (int32_t) sim_g.conns_total);
   bson_append_document_end (reply, &d);
   sim_cmd_append_extra_info (reply);
   sim_cmd_append_metrics (reply); /* sections in name order: connections, extra_info, metrics, opcounters, sharding,
                                    * shardingStatistics */
   BSON_APPEND_DOCUMENT_BEGIN (reply, "opcounters", &d);
   BSON_APPEND_INT64 (&d, "insert", sim_g.op_insert);
   BSON_APPEND_INT64 (&d, "query", sim_g.op_query);
   BSON_APPEND_INT64 (&d, "update", sim_g.op_update);
   BSON_APPEND_INT64 (&d, "delete", sim_g.op_delete);
   BSON_APPEND_INT64 (&d, "getmore", sim_g.op_getmore);
   BSON_APPEND_INT64 (&d, "command", sim_g.op_command);
   if (sim_g.op_deprecated) {
      BSON_APPEND_DOCUMENT_BEGIN (&d, "deprecated", &e);
      BSON_APPEND_INT64 (&e, "query", sim_g.op_deprecated);
      bson_append_document_end (&d, &e);
   }
   bson_append_document_end (reply, &d);
   BSON_APPEND_DOCUMENT_BEGIN (reply, "sharding", &d);
   if (sim_ver_ge (80)) {
      BSON_APPEND_BOOL (&d, "routerServiceEnabled", true);
   }
   BSON_APPEND_UTF8 (&d, "configsvrConnectionString", "configRepl/127.0.0.1:27100");
   BSON_APPEND_DOCUMENT_BEGIN (&d, "lastSeenConfigServerOpTime", &e);
   BSON_APPEND_TIMESTAMP (&e, "ts", s, i);
   BSON_APPEND_INT64 (&e, "t", sim_ver_ge (80) ? -1 : 1);
   bson_append_document_end (&d, &e);
   if (sim_ver_ge (50)) {
      BSON_APPEND_DOCUMENT_BEGIN (&d, "lastSeenTopologyOpTime", &e);
      BSON_APPEND_TIMESTAMP (&e, "ts", s, i);
      BSON_APPEND_INT64 (&e, "t", -1);
      bson_append_document_end (&d, &e);
   }
   BSON_APPEND_INT64 (&d, "maxChunkSizeInBytes",
                      sim_dyn.chunk_size_bytes > 0 ? sim_dyn.chunk_size_bytes
                                                   : (sim_ver_ge (60) ? 134217728 : 67108864));
   bson_append_document_end (reply, &d);
   sim_append_sharding_statistics (reply);
   sim_reply_ok (reply);
}

static void
sim_cmd_connection_status (sim_ctx_t *ctx, bson_t *reply)
{
   bson_t d, a;
   BSON_APPEND_DOCUMENT_BEGIN (reply, "authInfo", &d);
   BSON_APPEND_ARRAY_BEGIN (&d, "authenticatedUsers", &a);
   sim_auth_append_users (ctx->conn, &a, false);
   bson_append_array_end (&d, &a);
   BSON_APPEND_ARRAY_BEGIN (&d, "authenticatedUserRoles", &a);
   sim_auth_append_users (ctx->conn, &a, true);
   bson_append_array_end (&d, &a);
   bson_append_document_end (reply, &d);
   sim_reply_ok (reply);
}

static void
sim_cmd_whatsmyuri (sim_ctx_t *ctx, bson_t *reply)
{
   BSON_APPEND_UTF8 (reply, "you", ctx->conn->peer);
   sim_reply_ok (reply);
}

static void
sim_cmd_list_databases (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bool name_only = bson_iter_init_find (&it, ctx->cmd, "nameOnly") && bson_iter_as_bool (&it);
   bson_t filter;
   bool have_filter = false;
   if (bson_iter_init_find (&it, ctx->cmd, "filter") && BSON_ITER_HOLDS_DOCUMENT (&it)) {
      uint32_t l;
      const uint8_t *p;
      bson_iter_document (&it, &l, &p);
      have_filter = bson_init_static (&filter, p, l);
   }
   /* Collect database names: admin and config from the config server, user databases from the store. */
   char **names = NULL;
   size_t n = 0;
   for (size_t i = 0; i < sim_g.ncolls + 2; i++) {
      const char *db = i == 0 ? "admin" : i == 1 ? "config" : sim_g.colls[i - 2]->db;
      if (!strcmp (db, "local")) {
         continue;
      }
      bool seen = false;
      for (size_t j = 0; j < n; j++) {
         seen = seen || !strcmp (names[j], db);
      }
      if (!seen) {
         names = bson_realloc (names, (n + 1) * sizeof *names);
         names[n++] = bson_strdup (db);
      }
   }
   bson_t arr;
   int64_t total = 0;
   BSON_APPEND_ARRAY_BEGIN (reply, "databases", &arr);
   uint32_t k = 0;
   for (size_t i = 0; i < n; i++) {
      /* Per-shard sizes: 4 KiB per collection and shard plus the documents' bytes rounded up to 4 KiB. */
      bson_t shards = BSON_INITIALIZER, entry = BSON_INITIALIZER;
      int64_t size = 0;
      bool cfg = !strcmp (names[i], "admin") || !strcmp (names[i], "config");
      if (cfg) {
         int64_t sz = 0;
         for (size_t c = 0; c < sim_g.ncolls; c++) {
            if (!strcmp (sim_g.colls[c]->db, names[i])) {
               sz += 4096 + (int64_t) sim_coll_count (sim_g.colls[c]) * 256;
            }
         }
         sz = sz ? sz : 40960;
         BSON_APPEND_INT64 (&shards, "config", sz);
         size += sz;
      } else {
         sim_shard_stat_t acc[256];
         size_t nacc = 0;
         for (size_t c = 0; c < sim_g.ncolls; c++) {
            if (strcmp (sim_g.colls[c]->db, names[i]) != 0) {
               continue;
            }
            sim_shard_stat_t *st = NULL;
            size_t ns = sim_coll_shard_stats (sim_g.colls[c]->ns, &st);
            for (size_t s = 0; s < ns; s++) {
               size_t a;
               for (a = 0; a < nacc && strcmp (acc[a].shard, st[s].shard); a++) {
               }
               if (a == nacc && nacc < 256) {
                  memset (&acc[nacc], 0, sizeof acc[0]);
                  bson_strncpy (acc[nacc].shard, st[s].shard, sizeof acc[0].shard);
                  nacc++;
               }
               if (a < nacc) {
                  acc[a].size += 4096 + ((st[s].size + 4095) / 4096) * 4096;
               }
            }
            bson_free (st);
         }
         for (size_t a = 0; a < nacc; a++) {
            BSON_APPEND_INT64 (&shards, acc[a].shard, acc[a].size);
            size += acc[a].size;
         }
      }
      BSON_APPEND_UTF8 (&entry, "name", names[i]);
      if (!name_only) {
         BSON_APPEND_INT64 (&entry, "sizeOnDisk", size);
         BSON_APPEND_BOOL (&entry, "empty", size == 0);
         BSON_APPEND_DOCUMENT (&entry, "shards", &shards);
      }
      bool keep = true;
      bson_error_t err;
      if (have_filter && !simq_match (&entry, &filter, &keep, &err)) {
         keep = false;
      }
      if (keep) {
         char key[16];
         const char *kp;
         bson_uint32_to_string (k++, &kp, key, sizeof key);
         BSON_APPEND_DOCUMENT (&arr, kp, &entry);
         total += size;
      }
      bson_destroy (&shards);
      bson_destroy (&entry);
      bson_free (names[i]);
   }
   bson_free (names);
   bson_append_array_end (reply, &arr);
   if (!name_only) {
      BSON_APPEND_INT64 (reply, "totalSize", total);
      BSON_APPEND_INT64 (reply, "totalSizeMb", total / (1024 * 1024));
   }
   sim_reply_ok (reply);
}

static void
sim_cmd_end_sessions (sim_ctx_t *ctx, bson_t *reply)
{
   (void) ctx;
   sim_reply_ok (reply);
}

/* getLog (generic_servers.cpp GetLogCmd::errmsgRun): a string argument; "*" lists the RamLogs, a RamLog's name gives
 * its lines (none here), any other name fails without a code. */
static void
sim_cmd_get_log (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_t arr;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   if (!BSON_ITER_HOLDS_UTF8 (&it)) {
      bson_t one = BSON_INITIALIZER;
      bson_append_iter (&one, "v", -1, &it);
      char *j = sim_bson_str (&one); /* "{ v: <value> }": the value as BSONElement::toString (false) prints it */
      size_t n = strlen (j);
      if (n >= 7) {
         j[n - 2] = '\0';
      }
      sim_reply_error (reply, 14, "Argument to getLog must be of type String; found %s of type %s", n >= 7 ? j + 5 : j,
                       simq_type_name (bson_iter_type (&it)));
      bson_free (j);
      bson_destroy (&one);
      return;
   }
   const char *which = bson_iter_utf8 (&it, NULL);
   if (!strcmp (which, "*")) {
      BSON_APPEND_ARRAY_BEGIN (reply, "names", &arr);
      BSON_APPEND_UTF8 (&arr, "0", "global");
      BSON_APPEND_UTF8 (&arr, "1", "startupWarnings");
      bson_append_array_end (reply, &arr);
   } else if (!strcmp (which, "global") || !strcmp (which, "startupWarnings")) {
      BSON_APPEND_INT32 (reply, "totalLinesWritten", 0);
      BSON_APPEND_ARRAY_BEGIN (reply, "log", &arr);
      bson_append_array_end (reply, &arr);
   } else {
      sim_reply_error (reply, 0, "no RamLog named: %s", which);
      return;
   }
   sim_reply_ok (reply);
}

/* ---- the command table ---- */

typedef void (*sim_handler_t) (sim_ctx_t *ctx, bson_t *reply);

enum { SIM_K_COMMAND, SIM_K_QUERY, SIM_K_GETMORE, SIM_K_WRITE };

typedef struct {
   const char *name;
   int since; /* first version (44 … 83) */
   bool admin_only;
   sim_handler_t fn;
   int kind;
} sim_cmd_def_t;

static void
sim_cmd_list_commands (sim_ctx_t *ctx, bson_t *reply);

static const sim_cmd_def_t sim_cmd_table[] = {
   { "hello", 44, false, sim_cmd_hello, SIM_K_COMMAND },
   { "isMaster", 44, false, sim_cmd_hello, SIM_K_COMMAND },
   { "ismaster", 44, false, sim_cmd_hello, SIM_K_COMMAND },
   { "ping", 44, false, sim_cmd_ping, SIM_K_COMMAND },
   { "buildInfo", 44, false, sim_cmd_build_info, SIM_K_COMMAND },
   { "buildinfo", 44, false, sim_cmd_build_info, SIM_K_COMMAND },
   { "getParameter", 44, true, sim_cmd_get_parameter, SIM_K_COMMAND },
   { "setParameter", 44, true, sim_cmd_set_parameter, SIM_K_COMMAND },
   { "profile", 44, false, sim_cmd_profile, SIM_K_COMMAND },
   { "getCmdLineOpts", 44, true, sim_cmd_get_cmd_line_opts, SIM_K_COMMAND },
   { "hostInfo", 44, true, sim_cmd_host_info, SIM_K_COMMAND },
   { "serverStatus", 44, false, sim_cmd_server_status, SIM_K_COMMAND },
   { "listDatabases", 44, true, sim_cmd_list_databases, SIM_K_COMMAND },
   { "connectionStatus", 44, false, sim_cmd_connection_status, SIM_K_COMMAND },
   { "createUser", 44, false, sim_cmd_create_user, SIM_K_COMMAND },
   { "updateUser", 44, false, sim_cmd_update_user, SIM_K_COMMAND },
   { "dropUser", 44, false, sim_cmd_drop_user, SIM_K_COMMAND },
   { "dropAllUsersFromDatabase", 44, false, sim_cmd_drop_all_users, SIM_K_COMMAND },
   { "grantRolesToUser", 44, false, sim_cmd_user_roles, SIM_K_COMMAND },
   { "revokeRolesFromUser", 44, false, sim_cmd_user_roles, SIM_K_COMMAND },
   { "usersInfo", 44, false, sim_cmd_users_info, SIM_K_COMMAND },
   { "createRole", 44, false, sim_cmd_create_role, SIM_K_COMMAND },
   { "updateRole", 44, false, sim_cmd_update_role, SIM_K_COMMAND },
   { "dropRole", 44, false, sim_cmd_drop_role, SIM_K_COMMAND },
   { "dropAllRolesFromDatabase", 44, false, sim_cmd_drop_all_roles, SIM_K_COMMAND },
   { "grantRolesToRole", 44, false, sim_cmd_role_roles, SIM_K_COMMAND },
   { "revokeRolesFromRole", 44, false, sim_cmd_role_roles, SIM_K_COMMAND },
   { "grantPrivilegesToRole", 44, false, sim_cmd_role_privileges, SIM_K_COMMAND },
   { "revokePrivilegesFromRole", 44, false, sim_cmd_role_privileges, SIM_K_COMMAND },
   { "rolesInfo", 44, false, sim_cmd_roles_info, SIM_K_COMMAND },
   { "logout", 44, false, sim_cmd_logout, SIM_K_COMMAND },
   { "whatsmyuri", 44, false, sim_cmd_whatsmyuri, SIM_K_COMMAND },
   { "endSessions", 44, false, sim_cmd_end_sessions, SIM_K_COMMAND },
   { "getLog", 44, true, sim_cmd_get_log, SIM_K_COMMAND },
   { "find", 44, false, sim_cmd_find, SIM_K_QUERY },
   { "aggregate", 44, false, sim_cmd_aggregate, SIM_K_COMMAND },
   { "getMore", 44, false, sim_cmd_get_more, SIM_K_GETMORE },
   { "killCursors", 44, false, sim_cmd_kill_cursors, SIM_K_COMMAND },
   { "count", 44, false, sim_cmd_count, SIM_K_COMMAND },
   { "dataSize", 44, false, sim_cmd_data_size, SIM_K_COMMAND },
   { "collStats", 44, false, sim_cmd_coll_stats, SIM_K_COMMAND },
   { "collstats", 44, false, sim_cmd_coll_stats, SIM_K_COMMAND },
   { "distinct", 44, false, sim_cmd_distinct, SIM_K_COMMAND },
   { "explain", 44, false, sim_cmd_explain, SIM_K_COMMAND },
   { "insert", 44, false, sim_cmd_insert, SIM_K_WRITE },
   { "update", 44, false, sim_cmd_update, SIM_K_WRITE },
   { "delete", 44, false, sim_cmd_delete, SIM_K_WRITE },
   { "listCollections", 44, false, sim_cmd_list_collections, SIM_K_COMMAND },
   { "listIndexes", 44, false, sim_cmd_list_indexes, SIM_K_COMMAND },
   { "createIndexes", 44, false, sim_cmd_create_indexes, SIM_K_COMMAND },
   { "drop", 44, false, sim_cmd_drop, SIM_K_COMMAND },
   { "currentOp", 44, true, sim_cmd_current_op, SIM_K_COMMAND },
   { "findAndModify", 44, false, sim_cmd_find_and_modify, SIM_K_COMMAND },
   { "findandmodify", 44, false, sim_cmd_find_and_modify, SIM_K_COMMAND },
   { "dropIndexes", 44, false, sim_cmd_drop_indexes, SIM_K_COMMAND },
   { "deleteIndexes", 44, false, sim_cmd_drop_indexes, SIM_K_COMMAND },
   { "collMod", 44, false, sim_cmd_coll_mod, SIM_K_COMMAND },
   { "create", 44, false, sim_cmd_create, SIM_K_COMMAND },
   { "renameCollection", 44, true, sim_cmd_rename_collection, SIM_K_COMMAND },
   { "dropDatabase", 44, false, sim_cmd_drop_database, SIM_K_COMMAND },
   { "dbStats", 44, false, sim_cmd_db_stats, SIM_K_COMMAND },
   { "dbstats", 44, false, sim_cmd_db_stats, SIM_K_COMMAND },
   { "killOp", 44, true, sim_cmd_kill_op, SIM_K_COMMAND },
   { "listCommands", 44, false, sim_cmd_list_commands, SIM_K_COMMAND },
   { "enableSharding", 44, true, sim_cmd_enable_sharding, SIM_K_COMMAND },
   { "enablesharding", 44, true, sim_cmd_enable_sharding, SIM_K_COMMAND },
   { "shardCollection", 44, true, sim_cmd_shard_collection, SIM_K_COMMAND },
   { "shardcollection", 44, true, sim_cmd_shard_collection, SIM_K_COMMAND },
   { "addShard", 44, true, sim_cmd_add_shard, SIM_K_COMMAND },
   { "addshard", 44, true, sim_cmd_add_shard, SIM_K_COMMAND },
   { "removeShard", 44, true, sim_cmd_remove_shard, SIM_K_COMMAND },
   { "removeshard", 44, true, sim_cmd_remove_shard, SIM_K_COMMAND },
   { "movePrimary", 44, true, sim_cmd_move_primary, SIM_K_COMMAND },
   { "moveprimary", 44, true, sim_cmd_move_primary, SIM_K_COMMAND },
   { "listShards", 44, true, sim_cmd_list_shards, SIM_K_COMMAND },
   { "listshards", 44, true, sim_cmd_list_shards, SIM_K_COMMAND },
   { "addShardToZone", 44, true, sim_cmd_add_shard_to_zone, SIM_K_COMMAND },
   { "removeShardFromZone", 44, true, sim_cmd_remove_shard_from_zone, SIM_K_COMMAND },
   { "updateZoneKeyRange", 44, true, sim_cmd_update_zone_key_range, SIM_K_COMMAND },
   { "moveChunk", 44, true, sim_cmd_move_chunk, SIM_K_COMMAND },
   { "movechunk", 44, true, sim_cmd_move_chunk, SIM_K_COMMAND },
   { "moveRange", 60, true, sim_cmd_move_range, SIM_K_COMMAND },
   { "split", 44, true, sim_cmd_split, SIM_K_COMMAND },
   { "mergeChunks", 44, true, sim_cmd_merge_chunks, SIM_K_COMMAND },
   { "balancerStart", 44, true, sim_cmd_balancer_start_stop, SIM_K_COMMAND },
   { "balancerStop", 44, true, sim_cmd_balancer_start_stop, SIM_K_COMMAND },
   { "balancerStatus", 44, true, sim_cmd_balancer_status, SIM_K_COMMAND },
   { "balancerCollectionStatus", 44, true, sim_cmd_balancer_collection_status, SIM_K_COMMAND },
   { "configureCollectionBalancing", 60, true, sim_cmd_configure_collection_balancing, SIM_K_COMMAND },
   { "setAllowMigrations", 44, true, sim_cmd_set_allow_migrations, SIM_K_COMMAND },
   { "refineCollectionShardKey", 44, true, sim_cmd_refine_shard_key, SIM_K_COMMAND },
   { "reshardCollection", 50, true, sim_cmd_reshard, SIM_K_COMMAND },
   { "moveCollection", 80, true, sim_cmd_reshard, SIM_K_COMMAND },
   { "unshardCollection", 80, true, sim_cmd_reshard, SIM_K_COMMAND },
   { "abortReshardCollection", 50, true, sim_cmd_reshard, SIM_K_COMMAND },
   { "commitReshardCollection", 50, true, sim_cmd_reshard, SIM_K_COMMAND },
   { "getShardVersion", 44, true, sim_cmd_get_shard_version, SIM_K_COMMAND },
   { "getshardversion", 44, true, sim_cmd_get_shard_version, SIM_K_COMMAND },
   { "checkMetadataConsistency", 70, false, sim_cmd_check_metadata_consistency, SIM_K_COMMAND },
   { "abortMoveCollection", 80, true, sim_cmd_reshard, SIM_K_COMMAND },
   { "abortUnshardCollection", 80, true, sim_cmd_reshard, SIM_K_COMMAND },
   { "analyzeShardKey", 70, true, sim_cmd_analyze_shard_key, SIM_K_COMMAND },
   { "configureQueryAnalyzer", 70, true, sim_cmd_configure_query_analyzer, SIM_K_COMMAND },
   { "shardDrainingStatus", 82, true, sim_cmd_shard_draining_status, SIM_K_COMMAND },
   { "getTransitionToDedicatedConfigServerStatus", 83, true, sim_cmd_transition_status, SIM_K_COMMAND },
   { "transitionFromDedicatedConfigServer", 80, true, sim_cmd_transition_from_dedicated, SIM_K_COMMAND },
   { "startShardDraining", 83, true, sim_cmd_start_shard_draining, SIM_K_COMMAND },
   { "stopShardDraining", 83, true, sim_cmd_stop_shard_draining, SIM_K_COMMAND },
   { "commitShardRemoval", 83, true, sim_cmd_commit_shard_removal, SIM_K_COMMAND },
   { "startTransitionToDedicatedConfigServer", 83, true, sim_cmd_transition_dedicated, SIM_K_COMMAND },
   { "stopTransitionToDedicatedConfigServer", 83, true, sim_cmd_transition_dedicated, SIM_K_COMMAND },
   { "commitTransitionToDedicatedConfigServer", 83, true, sim_cmd_transition_dedicated, SIM_K_COMMAND },
   { "flushRouterConfig", 44, true, sim_cmd_flush_router_config, SIM_K_COMMAND },
   { "flushrouterconfig", 44, true, sim_cmd_flush_router_config, SIM_K_COMMAND },
   /* the simulator's own control commands (no real server has them) */
   { "simWorkload", 44, true, sim_cmd_sim_workload, SIM_K_COMMAND },
   { "simBalancer", 44, true, sim_cmd_sim_balancer, SIM_K_COMMAND },
   { "simFault", 44, true, sim_cmd_sim_fault, SIM_K_COMMAND },
   { "simFailure", 44, true, sim_cmd_sim_failure, SIM_K_COMMAND },
   { "simReshard", 50, true, sim_cmd_sim_reshard, SIM_K_COMMAND },
};

static int
sim_cmd_name_cmp (const void *a, const void *b)
{
   return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The aliases a server registers besides a command's name (listCommands shows names only; 4.4 keeps isMaster). */
static const char *const sim_cmd_aliases[] = {
   "ismaster",       "isMaster",        "buildinfo",         "dbstats",     "findandmodify", "deleteIndexes",
   "enablesharding", "shardcollection", "addshard",          "removeshard", "moveprimary",   "listshards",
   "movechunk",      "getshardversion", "flushrouterconfig", NULL
};

/* The commands whose requiresAuth() is false (generic.cpp ListCommandsCmd and PingCommand, cluster_build_info.cpp,
 * cluster_hello_cmd.cpp, sasl_commands.cpp). */
static const char *const sim_cmd_no_auth[] = { "listCommands", "ping",      "buildInfo",    "hello",
                                               "isMaster",     "saslStart", "saslContinue", NULL };

static bool
sim_cmd_in (const char *const *list, const char *name)
{
   for (; *list; list++) {
      if (!strcmp (*list, name)) {
         return true;
      }
   }
   return false;
}

/* listCommands as db/commands/generic.cpp's CmdListCommands::run answers it: the names (not the aliases; 4.4 lists
 * isMaster too), sorted, each with help, [5.0+ requiresAuth,] secondaryOk (4.4 slaveOk: secondaryAllowed() ==
 * kAlways), adminOnly, secondaryOverrideOk (slaveOverrideOk) for kOptIn ones[, 5.0+ apiVersions,
 * deprecatedApiVersions]. secondaryAllowed as read in the mongos's commands: find kOptIn, the write commands,
 * create and collMod kNever, the others taken as kAlways. */
static void
sim_cmd_list_commands (sim_ctx_t *ctx, bson_t *reply)
{
   size_t n = sizeof sim_cmd_table / sizeof sim_cmd_table[0], k = 0;
   const char **names = bson_malloc (n * sizeof *names);
   bson_t cmds;
   bool v50 = sim_ver_ge (50);
   (void) ctx;
   for (size_t i = 0; i < n; i++) {
      const char *nm = sim_cmd_table[i].name;
      bool alias = sim_cmd_in (sim_cmd_aliases, nm) && (v50 || strcmp (nm, "isMaster") != 0);
      if (sim_cmd_table[i].since <= sim_g.ver->num && strncmp (nm, "sim", 3) != 0 && !alias) {
         names[k++] = nm;
      }
   }
   qsort (names, k, sizeof *names, sim_cmd_name_cmp);
   BSON_APPEND_DOCUMENT_BEGIN (reply, "commands", &cmds);
   for (size_t i = 0; i < k; i++) {
      const sim_cmd_def_t *def = NULL;
      bson_t c, arr;
      for (size_t j = 0; j < n && !def; j++) {
         if (!strcmp (sim_cmd_table[j].name, names[i])) {
            def = &sim_cmd_table[j];
         }
      }
      bool opt_in = !strcmp (names[i], "find");
      bool never = def->kind == SIM_K_WRITE || !strcmp (names[i], "create") || !strcmp (names[i], "collMod");
      BSON_APPEND_DOCUMENT_BEGIN (&cmds, names[i], &c);
      BSON_APPEND_UTF8 (&c, "help", "no help defined");
      if (v50) {
         BSON_APPEND_BOOL (&c, "requiresAuth", !sim_cmd_in (sim_cmd_no_auth, names[i]));
      }
      BSON_APPEND_BOOL (&c, v50 ? "secondaryOk" : "slaveOk", !opt_in && !never);
      BSON_APPEND_BOOL (&c, "adminOnly", def->admin_only);
      if (opt_in) {
         BSON_APPEND_BOOL (&c, v50 ? "secondaryOverrideOk" : "slaveOverrideOk", true);
      }
      if (v50) {
         BSON_APPEND_ARRAY_BEGIN (&c, "apiVersions", &arr);
         bson_append_array_end (&c, &arr);
         BSON_APPEND_ARRAY_BEGIN (&c, "deprecatedApiVersions", &arr);
         bson_append_array_end (&c, &arr);
      }
      bson_append_document_end (&cmds, &c);
   }
   bson_append_document_end (reply, &cmds);
   bson_free (names);
   sim_reply_ok (reply);
}

static const sim_cmd_def_t *
sim_cmd_lookup (const char *name)
{
   for (size_t i = 0; i < sizeof sim_cmd_table / sizeof sim_cmd_table[0]; i++) {
      if (!strcmp (sim_cmd_table[i].name, name)) {
         return &sim_cmd_table[i];
      }
   }
   return NULL;
}

/* ---- metrics.commands ---- */

/* serverStatus metrics.commands as a mongos keeps it (docs/shardsim.md, "metrics.commands"): one {failed, total}
 * pair of NumberLong per command the router registers, under the command's name (an alias counts under the name it
 * stands for), zeros included, and "<UNKNOWN>" for names no command has. Guarded by sim_g.lock. */
typedef struct {
   int64_t total, failed;
} sim_cmd_count_t;

static sim_cmd_count_t sim_cmd_counts[sizeof sim_cmd_table / sizeof sim_cmd_table[0]];
static int64_t sim_cmd_unknown;

/* The name an alias is counted under (isMaster is a command of its own on 4.4, hello's alias from 5.0). */
static const char *
sim_cmd_canonical (const char *name)
{
   static const char *const pairs[][2] = {
      { "buildinfo", "buildInfo" },
      { "dbstats", "dbStats" },
      { "collstats", "collStats" },
      { "findandmodify", "findAndModify" },
      { "deleteIndexes", "dropIndexes" },
      { "enablesharding", "enableSharding" },
      { "shardcollection", "shardCollection" },
      { "addshard", "addShard" },
      { "removeshard", "removeShard" },
      { "moveprimary", "movePrimary" },
      { "listshards", "listShards" },
      { "movechunk", "moveChunk" },
      { "getshardversion", "getShardVersion" },
      { "flushrouterconfig", "flushRouterConfig" },
   };
   if (!strcmp (name, "isMaster") || !strcmp (name, "ismaster")) {
      return sim_ver_ge (50) ? "hello" : "isMaster";
   }
   for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
      if (!strcmp (pairs[i][0], name)) {
         return pairs[i][1];
      }
   }
   return name;
}

/* The counter of a table entry's command (NULL for the simulator's own sim* commands: no router has them). */
static sim_cmd_count_t *
sim_cmd_counter (const sim_cmd_def_t *def)
{
   const sim_cmd_def_t *canon;
   if (!strncmp (def->name, "sim", 3)) {
      return NULL;
   }
   canon = sim_cmd_lookup (sim_cmd_canonical (def->name));
   return &sim_cmd_counts[(canon ? canon : def) - sim_cmd_table];
}

void
sim_cmd_count_traffic (const char *name)
{
   const sim_cmd_def_t *def = sim_cmd_lookup (name);
   sim_cmd_count_t *c = def ? sim_cmd_counter (def) : NULL;
   if (c) {
      c->total++;
   }
}

static void
sim_cmd_append_metrics (bson_t *reply)
{
   size_t n = sizeof sim_cmd_table / sizeof sim_cmd_table[0], k = 0;
   const char **names = bson_malloc (n * sizeof *names);
   bson_t m, cmds, c;
   for (size_t i = 0; i < n; i++) {
      const char *nm = sim_cmd_table[i].name;
      if (sim_cmd_table[i].since <= sim_g.ver->num && strncmp (nm, "sim", 3) != 0 &&
          !strcmp (sim_cmd_canonical (nm), nm)) {
         names[k++] = nm;
      }
   }
   /* the server's metric tree is a map: its keys come out in byte order, "<UNKNOWN>" first */
   qsort (names, k, sizeof *names, sim_cmd_name_cmp);
   BSON_APPEND_DOCUMENT_BEGIN (reply, "metrics", &m);
   BSON_APPEND_DOCUMENT_BEGIN (&m, "commands", &cmds);
   BSON_APPEND_INT64 (&cmds, "<UNKNOWN>", sim_cmd_unknown);
   for (size_t i = 0; i < k; i++) {
      const sim_cmd_count_t *cnt = &sim_cmd_counts[sim_cmd_lookup (names[i]) - sim_cmd_table];
      BSON_APPEND_DOCUMENT_BEGIN (&cmds, names[i], &c);
      BSON_APPEND_INT64 (&c, "failed", cnt->failed);
      BSON_APPEND_INT64 (&c, "total", cnt->total);
      bson_append_document_end (&cmds, &c);
   }
   bson_append_document_end (&m, &cmds);
   bson_append_document_end (reply, &m);
   bson_free (names);
}

/* Counts a command that reached the router's dispatch, before it runs (a serverStatus counts itself, as the server's
 * does): its total, or "<UNKNOWN>" for a name no command of this version has. Returns the counter whose failed the
 * reply's ok: 0 adds to (sim_cmd_count_failed), NULL when there is none. */
static sim_cmd_count_t *
sim_cmd_count_start (const sim_cmd_def_t *def)
{
   sim_cmd_count_t *c;
   if (!def || def->since > sim_g.ver->num) {
      sim_cmd_unknown++;
      return NULL;
   }
   if ((c = sim_cmd_counter (def))) {
      c->total++;
   }
   return c;
}

static void
sim_cmd_count_failed (sim_cmd_count_t *c, const bson_t *reply)
{
   bson_iter_t it;
   if (c && (!bson_iter_init_find (&it, reply, "ok") || !bson_iter_as_bool (&it))) {
      c->failed++;
   }
}

static bool
sim_op_query_allowed (const char *name)
{
   static const char *ok[] = { "hello",        "isMaster",  "ismaster",  "saslStart", "saslContinue",
                               "authenticate", "buildInfo", "buildinfo", "_isSelf",   NULL };
   for (int i = 0; ok[i]; i++) {
      if (!strcmp (ok[i], name)) {
         return true;
      }
   }
   return false;
}

static int64_t
sim_count_array (const bson_t *cmd, const char *field)
{
   bson_iter_t it, a;
   int64_t n = 0;
   if (bson_iter_init_find (&it, cmd, field) && BSON_ITER_HOLDS_ARRAY (&it) && bson_iter_recurse (&it, &a)) {
      while (bson_iter_next (&a)) {
         n++;
      }
   }
   return n;
}

void
sim_cmd_run (sim_conn_t *conn, const sim_msg_t *msg, bson_t *reply)
{
   bson_iter_t it;
   const char *name = "";
   bson_init (reply);
   if (bson_iter_init (&it, &msg->cmd) && bson_iter_next (&it)) {
      name = bson_iter_key (&it);
   }
   int64_t t_ms = clock_wall_ms ();
   int64_t cpu0 = sim_log_thread_cpu_us ();
   pthread_mutex_lock (&sim_g.lock);
   sim_ctx_t ctx = {
      .conn = conn, .db = msg->db, .name = name, .cmd = &msg->cmd, .op_query = msg->opcode == SIM_OP_QUERY
   };
   const sim_cmd_def_t *def = sim_cmd_lookup (name);
   sim_cmd_count_t *cnt = NULL; /* its metrics.commands entry: counted past the OP_QUERY check */
   if (sim_fault_fail (name, reply)) {
      cnt = sim_cmd_count_start (def);
      goto done; /* simFault failCommand */
   }
   if (msg->opcode == SIM_OP_QUERY && sim_ver_ge (60) && !sim_op_query_allowed (name)) {
      sim_reply_error (reply, 352,
                       "Unsupported OP_QUERY command: %s. The client driver may require an upgrade. For more details "
                       "see https://dochub.mongodb.org/core/legacy-opcode-removal",
                       name);
      goto done; /* refused before any command is looked up: not counted */
   }
   cnt = sim_cmd_count_start (def);
   if (msg->opcode == SIM_OP_QUERY && !sim_op_query_allowed (name)) {
      sim_g.op_deprecated += sim_ver_ge (50) ? 1 : 0;
   }
   if (sim_auth_command (&ctx, def && def->since <= sim_g.ver->num, reply)) {
      sim_g.op_command++; /* --auth: saslStart/saslContinue, or refused before authentication */
      goto done;
   }
   if (!def || def->since > sim_g.ver->num) {
      sim_g.op_command++;
      sim_reply_error (reply, 59, "no such command: '%s'", name);
      goto done;
   }
   if (!strcmp (msg->db, "local")) {
      sim_g.op_command++;
      sim_reply_error (reply, 20, "Can't use 'local' database through mongos");
      goto done;
   }
   if (def->admin_only && strcmp (msg->db, "admin") != 0) {
      sim_g.op_command++;
      sim_reply_error (reply, 13, "%s may only be run against the admin database.", name);
      goto done;
   }
   switch (def->kind) {
   case SIM_K_QUERY:
      sim_g.op_query++;
      break;
   case SIM_K_GETMORE:
      sim_g.op_getmore++;
      break;
   case SIM_K_WRITE:
      if (!strcmp (name, "insert")) {
         sim_g.op_insert += sim_count_array (&msg->cmd, "documents");
      } else if (!strcmp (name, "update")) {
         sim_g.op_update += sim_count_array (&msg->cmd, "updates");
      } else {
         sim_g.op_delete += sim_count_array (&msg->cmd, "deletes");
      }
      break;
   default:
      sim_g.op_command++;
      break;
   }
   def->fn (&ctx, reply);
done:
   sim_cmd_count_failed (cnt, reply);
   sim_append_cluster_time (reply);
   pthread_mutex_unlock (&sim_g.lock);
   sim_log_command (conn->id, msg->opcode, msg->db, &msg->cmd, t_ms, sim_log_thread_cpu_us () - cpu0);
}
