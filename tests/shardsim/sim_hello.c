/* shardsim's handshake: hello / isMaster as a mongos answers it (the fields it accepts, helloOk, the topology
 * version and awaitable hellos, the wire versions of the personality, authentication's mechanisms), and hostInfo. */
#include "tests/shardsim/sim_admin.h"

#include <string.h>

bool
sim_cmd_is_awaitable_hello (const bson_t *cmd, int64_t *wait_ms)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, cmd) || !bson_iter_next (&it)) {
      return false;
   }
   const char *k = bson_iter_key (&it);
   if (strcmp (k, "hello") && strcmp (k, "isMaster") && strcmp (k, "ismaster")) {
      return false;
   }
   bool tv = bson_iter_init_find (&it, cmd, "topologyVersion") && BSON_ITER_HOLDS_DOCUMENT (&it);
   if (!tv || !bson_iter_init_find (&it, cmd, "maxAwaitTimeMS") || !BSON_ITER_HOLDS_NUMBER (&it)) {
      return false;
   }
   *wait_ms = bson_iter_as_int64 (&it);
   return *wait_ms >= 0;
}

static const char *sim_hello_allowed[] = { "hello",
                                           "isMaster",
                                           "ismaster",
                                           "helloOk",
                                           "client",
                                           "compression",
                                           "loadBalanced",
                                           "saslSupportedMechs",
                                           "speculativeAuthenticate",
                                           "topologyVersion",
                                           "maxAwaitTimeMS",
                                           "$db",
                                           "lsid",
                                           "$clusterTime",
                                           "apiVersion",
                                           "apiStrict",
                                           "apiDeprecationErrors",
                                           "comment",
                                           "maxTimeMS",
                                           "$readPreference",
                                           "readConcern",
                                           "writeConcern",
                                           "backpressure",
                                           "internalClient",
                                           "forShell",
                                           "$audit",
                                           "$client",
                                           NULL };

void
sim_cmd_hello (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bool hello_ok = false, tv_present = false, await_present = false;
   bson_iter_init (&it, ctx->cmd);
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (!strcmp (k, "helloOk")) {
         hello_ok = bson_iter_as_bool (&it);
      } else if (!strcmp (k, "topologyVersion")) {
         tv_present = true;
         bson_iter_t tv;
         if (BSON_ITER_HOLDS_DOCUMENT (&it) && bson_iter_recurse (&it, &tv) && bson_iter_find (&tv, "counter") &&
             bson_iter_as_int64 (&tv) < 0) {
            sim_reply_error (reply, 51758, "topologyVersion must have a non-negative counter");
            return;
         }
      } else if (!strcmp (k, "maxAwaitTimeMS")) {
         await_present = true;
         if (bson_iter_as_int64 (&it) < 0) {
            sim_reply_error (reply, 51759, "maxAwaitTimeMS must be a non-negative integer");
            return;
         }
      } else if (!strcmp (k, "client")) {
         if (ctx->conn->sent_client) {
            sim_reply_error (reply, 186, "The client metadata document may only be sent in the first hello/isMaster");
            return;
         }
         ctx->conn->sent_client = true;
         bson_iter_t c;
         if (BSON_ITER_HOLDS_DOCUMENT (&it) && bson_iter_recurse (&it, &c) &&
             bson_iter_find_descendant (&c, "application.name", &c) && BSON_ITER_HOLDS_UTF8 (&c)) {
            bson_strncpy (ctx->conn->app_name, bson_iter_utf8 (&c, NULL), sizeof ctx->conn->app_name);
         }
      } else if (sim_ver_ge (50)) {
         bool known = false;
         for (int i = 0; sim_hello_allowed[i]; i++) {
            known = known || !strcmp (sim_hello_allowed[i], k);
         }
         if (!known) {
            sim_reply_error (reply, 40415, "BSON field '%s.%s' is an unknown field.", ctx->name, k);
            return;
         }
      }
   }
   if (tv_present != await_present) {
      sim_reply_error (reply, 51760, "topologyVersion must be provided if and only if maxAwaitTimeMS is provided");
      return;
   }
   BSON_APPEND_BOOL (reply, !strcmp (ctx->name, "hello") ? "isWritablePrimary" : "ismaster", true);
   BSON_APPEND_UTF8 (reply, "msg", "isdbgrid");
   bson_t tv;
   BSON_APPEND_DOCUMENT_BEGIN (reply, "topologyVersion", &tv);
   BSON_APPEND_OID (&tv, "processId", &sim_g.process_id);
   BSON_APPEND_INT64 (&tv, "counter", 0);
   bson_append_document_end (reply, &tv);
   if (hello_ok) {
      BSON_APPEND_BOOL (reply, "helloOk", true);
   }
   BSON_APPEND_INT32 (reply, "maxBsonObjectSize", 16777216);
   BSON_APPEND_INT32 (reply, "maxMessageSizeBytes", 48000000);
   BSON_APPEND_INT32 (reply, "maxWriteBatchSize", 100000);
   BSON_APPEND_DATE_TIME (reply, "localTime", clock_wall_ms ());
   BSON_APPEND_INT32 (reply, "logicalSessionTimeoutMinutes", 30);
   BSON_APPEND_INT32 (reply, "connectionId", ctx->conn->id);
   BSON_APPEND_INT32 (reply, "maxWireVersion", sim_g.ver->max_wire);
   BSON_APPEND_INT32 (reply, "minWireVersion", 0);
   sim_auth_hello (ctx, reply); /* --auth: saslSupportedMechs, speculativeAuthenticate */
   sim_reply_ok (reply);
}

void
sim_cmd_host_info (sim_ctx_t *ctx, bson_t *reply)
{
   bson_t sys, os, extra;
   (void) ctx;
   BSON_APPEND_DOCUMENT_BEGIN (reply, "system", &sys);
   BSON_APPEND_DATE_TIME (&sys, "currentTime", clock_wall_ms ());
   BSON_APPEND_UTF8 (&sys, "hostname", "127.0.0.1");
   BSON_APPEND_INT32 (&sys, "cpuAddrSize", 64);
   BSON_APPEND_INT64 (&sys, "memSizeMB", 16384);
   BSON_APPEND_INT64 (&sys, "memLimitMB", 16384);
   BSON_APPEND_INT32 (&sys, "numCores", 4);
   BSON_APPEND_INT32 (&sys, "numPhysicalCores", 4);
   BSON_APPEND_INT32 (&sys, "numCpuSockets", 1);
   BSON_APPEND_UTF8 (&sys, "cpuArch", "x86_64");
   BSON_APPEND_BOOL (&sys, "numaEnabled", false);
   BSON_APPEND_INT32 (&sys, "numNumaNodes", 1);
   bson_append_document_end (reply, &sys);
   BSON_APPEND_DOCUMENT_BEGIN (reply, "os", &os);
   BSON_APPEND_UTF8 (&os, "type", "Linux");
   BSON_APPEND_UTF8 (&os, "name", "Ubuntu");
   BSON_APPEND_UTF8 (&os, "version", "22.04");
   bson_append_document_end (reply, &os);
   BSON_APPEND_DOCUMENT_BEGIN (reply, "extra", &extra);
   BSON_APPEND_UTF8 (&extra, "versionString", "Linux version 5.15.0");
   BSON_APPEND_INT32 (&extra, "pageSize", 4096);
   BSON_APPEND_INT32 (&extra, "numPages", 4194304);
   BSON_APPEND_INT32 (&extra, "maxOpenFiles", 64000);
   bson_append_document_end (reply, &extra);
   sim_reply_ok (reply);
}
