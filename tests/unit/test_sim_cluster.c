/* passes: plain asan */
/* Integration tests of shardsim through libmongoc: starts $BINDIR/shardsim (--port 0 --port-file), checks the
 * handshake and envelope per version, errors, cursor batching, and for each sharding admin command one success case
 * (with the config.* state that follows) and at least one documented error. */
#include "tests/unit/unit.h"
#include "tests/unit/simproc.h"

/* Starts $BINDIR/shardsim as server version with scenario. */
static bool
sim_start (sim_t *s, const char *version, const char *scenario)
{
   char pf[256];
   const char *args[] = { "--version", version, "--scenario", scenario, NULL };
   snprintf (pf, sizeof pf, "/tmp/test_sim_cluster.%d.%s.port", (int) getpid (), version);
   return simproc_start (s, pf, args, 200, 25, "serverSelectionTimeoutMS=3000");
}

/* Runs command (consumed) on db; reply is always initialised. */
static bool
run (sim_t *s, const char *db, bson_t *command, bson_t *reply)
{
   bson_error_t err;
   bool ok = mongoc_client_command_simple (s->client, db, command, NULL, reply, &err);
   bson_destroy (command);
   return ok;
}

static int32_t
code_of (const bson_t *reply)
{
   bson_iter_t it;
   return bson_iter_init_find (&it, reply, "code") ? bson_iter_int32 (&it) : -1;
}

static const char *
str_at (const bson_t *doc, const char *path)
{
   bson_iter_t it, d;
   if (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &d) && BSON_ITER_HOLDS_UTF8 (&d)) {
      return bson_iter_utf8 (&d, NULL);
   }
   return NULL;
}

static bool
has_at (const bson_t *doc, const char *path)
{
   bson_iter_t it, d;
   return bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &d);
}

static int64_t
int_at (const bson_t *doc, const char *path)
{
   bson_iter_t it, d;
   if (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &d) && BSON_ITER_HOLDS_NUMBER (&d)) {
      return bson_iter_as_int64 (&d);
   }
   return -1;
}

/* First document of db.coll matching a JSON filter into out (initialised). */
static bool
find_one (sim_t *s, const char *db, const char *coll, const char *filter, bson_t *out)
{
   bson_error_t err;
   const bson_t *doc;
   bool found = false;
   bson_init (out);
   bson_t *f = bson_new_from_json ((const uint8_t *) filter, -1, &err);
   mongoc_collection_t *c = mongoc_client_get_collection (s->client, db, coll);
   mongoc_cursor_t *cur = mongoc_collection_find_with_opts (c, f, NULL, NULL);
   if (mongoc_cursor_next (cur, &doc)) {
      bson_copy_to_excluding_noinit (doc, out, "", NULL);
      found = true;
   }
   mongoc_cursor_destroy (cur);
   mongoc_collection_destroy (c);
   bson_destroy (f);
   return found;
}

static const char *
key_at (const bson_t *doc, int index)
{
   bson_iter_t it;
   int i = 0;
   bson_iter_init (&it, doc);
   while (bson_iter_next (&it)) {
      if (i++ == index) {
         return bson_iter_key (&it);
      }
   }
   return "";
}

static int
key_index (const bson_t *doc, const char *key)
{
   bson_iter_t it;
   int i = 0;
   bson_iter_init (&it, doc);
   while (bson_iter_next (&it)) {
      if (!strcmp (bson_iter_key (&it), key)) {
         return i;
      }
      i++;
   }
   return -1;
}

/* ---- raw wire checks (what libmongoc never sends: exhaust streams, legacy OP_QUERY, checksums) ---- */

static uint32_t
raw_crc32c (const uint8_t *p, size_t n)
{
   uint32_t c = 0xFFFFFFFFu;
   for (size_t i = 0; i < n; i++) {
      c ^= p[i];
      for (int k = 0; k < 8; k++) {
         c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      }
   }
   return c ^ 0xFFFFFFFFu;
}

static void
raw_put32 (uint8_t *p, uint32_t v)
{
   p[0] = (uint8_t) v;
   p[1] = (uint8_t) (v >> 8);
   p[2] = (uint8_t) (v >> 16);
   p[3] = (uint8_t) (v >> 24);
}

static uint32_t
raw_get32 (const uint8_t *p)
{
   return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

/* Sends an OP_MSG (flags, body; a CRC-32C trailer when flags has bit 0, corrupted when bad_crc). */
static bool
raw_send_msg (int fd, uint32_t flags, const bson_t *body, bool bad_crc)
{
   size_t len = 16 + 4 + 1 + body->len + ((flags & 1) ? 4 : 0);
   uint8_t *buf = bson_malloc0 (len);
   raw_put32 (buf, (uint32_t) len);
   raw_put32 (buf + 4, 77);
   raw_put32 (buf + 12, 2013);
   raw_put32 (buf + 16, flags);
   memcpy (buf + 21, bson_get_data (body), body->len);
   if (flags & 1) {
      raw_put32 (buf + len - 4, raw_crc32c (buf, len - 4) ^ (bad_crc ? 1u : 0u));
   }
   bool ok = write (fd, buf, len) == (ssize_t) len;
   bson_free (buf);
   return ok;
}

/* Reads one reply: opcode, OP_MSG flags and the body (OP_MSG or OP_REPLY) into body (initialised on success). */
static bool
raw_read_reply (int fd, int32_t *opcode, uint32_t *flags, bson_t *body)
{
   uint8_t hdr[16];
   if (recv (fd, hdr, 16, MSG_WAITALL) != 16) {
      return false;
   }
   uint32_t len = raw_get32 (hdr);
   if (len < 16 || len > 48000000) {
      return false;
   }
   uint8_t *buf = bson_malloc (len - 16);
   bool ok = recv (fd, buf, len - 16, MSG_WAITALL) == (ssize_t) (len - 16);
   *opcode = (int32_t) raw_get32 (hdr + 12);
   *flags = raw_get32 (buf);
   size_t off = *opcode == 1 ? 20 : 5;
   bson_t view;
   ok = ok && len - 16 > off && bson_init_static (&view, buf + off, len - 16 - off);
   if (ok) {
      bson_copy_to (&view, body);
   }
   bson_free (buf);
   return ok;
}

static void
test_raw_wire (sim_t *s, bool modern)
{
   const char *v = modern ? "sim8" : "sim44";
   char name[128];
   int32_t op;
   uint32_t flags;
   bson_t reply;
   bson_oid_t oid;
   bson_oid_init (&oid, NULL);
   int fd = simproc_raw_connect (s->port, 5);
   bson_t *hello = BCON_NEW ("hello", BCON_INT32 (1), "topologyVersion", "{", "processId", BCON_OID (&oid), "counter",
                             BCON_INT64 (0), "}", "maxAwaitTimeMS", BCON_INT32 (200), "$db", BCON_UTF8 ("admin"));
   raw_send_msg (fd, 1u << 16, hello, false);
   int streamed = 0;
   for (int i = 0; i < 2; i++) {
      if (raw_read_reply (fd, &op, &flags, &reply)) {
         streamed += (op == 2013 && (flags & 2) && has_at (&reply, "topologyVersion")) ? 1 : 0;
         bson_destroy (&reply);
      }
   }
   snprintf (name, sizeof name, "%s.exhaust hello streams moreToCome replies", v);
   CHECK (name, streamed == 2);
   bson_destroy (hello);
   close (fd);

   fd = simproc_raw_connect (s->port, 5);
   bson_t *ping = BCON_NEW ("ping", BCON_INT32 (1), "$db", BCON_UTF8 ("admin"));
   raw_send_msg (fd, 1, ping, false);
   bool ok = raw_read_reply (fd, &op, &flags, &reply);
   snprintf (name, sizeof name, "%s.checksummed OP_MSG accepted", v);
   CHECK (name, ok && int_at (&reply, "ok") == 1);
   if (ok) {
      bson_destroy (&reply);
   }
   raw_send_msg (fd, 1, ping, true);
   ok = raw_read_reply (fd, &op, &flags, &reply);
   snprintf (name, sizeof name, "%s.bad checksum closes the connection", v);
   CHECK (name, !ok);
   if (ok) {
      bson_destroy (&reply);
   }
   bson_destroy (ping);
   close (fd);

   /* A legacy OP_QUERY find: 4.4 answers it, 6.0+ refuses with 352. */
   fd = simproc_raw_connect (s->port, 5);
   bson_t *find = BCON_NEW ("find", BCON_UTF8 ("x"));
   size_t len = 16 + 4 + 10 + 8 + find->len;
   uint8_t *buf = bson_malloc0 (len);
   raw_put32 (buf, (uint32_t) len);
   raw_put32 (buf + 4, 5);
   raw_put32 (buf + 12, 2004);
   memcpy (buf + 20, "test.$cmd", 10);
   raw_put32 (buf + 34, (uint32_t) -1);
   memcpy (buf + 38, bson_get_data (find), find->len);
   ok = write (fd, buf, len) == (ssize_t) len && raw_read_reply (fd, &op, &flags, &reply);
   snprintf (name, sizeof name, "%s.OP_QUERY answered with OP_REPLY flags 8", v);
   CHECK (name, ok && op == 1 && flags == 8);
   snprintf (name, sizeof name, "%s.OP_QUERY find %s", v, modern ? "refused 352" : "accepted");
   CHECK (name, ok && (modern ? code_of (&reply) == 352 : int_at (&reply, "ok") == 1));
   if (ok) {
      bson_destroy (&reply);
   }
   bson_free (buf);
   bson_destroy (find);
   close (fd);
}

static void
test_handshake_80 (sim_t *s)
{
   bson_t reply;
   bson_iter_t it;
   run (s, "admin", BCON_NEW ("hello", BCON_INT32 (1), "helloOk", BCON_BOOL (true)), &reply);
   CHECK_STR ("sim8.hello first field", "isWritablePrimary", key_at (&reply, 0));
   CHECK_STR ("sim8.hello msg", "isdbgrid", str_at (&reply, "msg"));
   CHECK ("sim8.hello helloOk echoed", key_index (&reply, "helloOk") == 3);
   CHECK ("sim8.hello maxWireVersion int32 25", bson_iter_init_find (&it, &reply, "maxWireVersion") &&
                                                   BSON_ITER_HOLDS_INT32 (&it) && bson_iter_int32 (&it) == 25);
   CHECK ("sim8.hello maxWire before minWire",
          key_index (&reply, "maxWireVersion") < key_index (&reply, "minWireVersion"));
   CHECK ("sim8.hello connectionId int32",
          bson_iter_init_find (&it, &reply, "connectionId") && BSON_ITER_HOLDS_INT32 (&it));
   CHECK ("sim8.hello topologyVersion counter int64",
          bson_iter_init (&it, &reply) && bson_iter_find_descendant (&it, "topologyVersion.counter", &it) &&
             BSON_ITER_HOLDS_INT64 (&it));
   CHECK ("sim8.ok double", bson_iter_init_find (&it, &reply, "ok") && BSON_ITER_HOLDS_DOUBLE (&it));
   CHECK ("sim8.$clusterTime before operationTime",
          key_index (&reply, "$clusterTime") >= 0 &&
             key_index (&reply, "$clusterTime") < key_index (&reply, "operationTime"));
   CHECK ("sim8.ok before cluster time", key_index (&reply, "ok") < key_index (&reply, "$clusterTime"));
   CHECK ("sim8.signature keyId int64 0", int_at (&reply, "$clusterTime.signature.keyId") == 0);
   bson_destroy (&reply);
   run (s, "admin", BCON_NEW ("isMaster", BCON_INT32 (1)), &reply);
   CHECK_STR ("sim8.isMaster first field", "ismaster", key_at (&reply, 0));
   CHECK ("sim8.isMaster no helloOk without request", key_index (&reply, "helloOk") < 0);
   bson_destroy (&reply);
   run (s, "admin", BCON_NEW ("hello", BCON_INT32 (1), "bogusField", BCON_INT32 (1)), &reply);
   CHECK ("sim8.hello strict unknown field 40415", code_of (&reply) == 40415);
   bson_destroy (&reply);
}

static void
test_generic_80 (sim_t *s)
{
   bson_t reply;
   CHECK ("sim8.unknown command fails", !run (s, "admin", BCON_NEW ("fooBar", BCON_INT32 (1)), &reply));
   CHECK ("sim8.unknown command code 59", code_of (&reply) == 59);
   CHECK_STR ("sim8.unknown command errmsg", "no such command: 'fooBar'", str_at (&reply, "errmsg"));
   CHECK_STR ("sim8.unknown command codeName", "CommandNotFound", str_at (&reply, "codeName"));
   CHECK ("sim8.error has cluster time", has_at (&reply, "$clusterTime") && has_at (&reply, "operationTime"));
   bson_destroy (&reply);
   run (s, "admin", BCON_NEW ("atlasVersion", BCON_INT32 (1)), &reply);
   CHECK ("sim8.atlasVersion CommandNotFound", code_of (&reply) == 59);
   bson_destroy (&reply);
   run (s, "test", BCON_NEW ("listShards", BCON_INT32 (1)), &reply);
   CHECK ("sim8.admin-only on test 13", code_of (&reply) == 13);
   CHECK_STR ("sim8.admin-only errmsg", "listShards may only be run against the admin database.",
              str_at (&reply, "errmsg"));
   bson_destroy (&reply);
   CHECK ("sim8.buildInfo", run (s, "admin", BCON_NEW ("buildInfo", BCON_INT32 (1)), &reply));
   CHECK_STR ("sim8.buildInfo version", "8.0.4", str_at (&reply, "version"));
   bson_destroy (&reply);
   CHECK ("sim8.getParameter fcv",
          run (s, "admin", BCON_NEW ("getParameter", BCON_INT32 (1), "featureCompatibilityVersion", BCON_INT32 (1)),
               &reply));
   CHECK_STR ("sim8.fcv version", "8.0", str_at (&reply, "featureCompatibilityVersion.version"));
   bson_destroy (&reply);
   CHECK ("sim8.serverStatus", run (s, "admin", BCON_NEW ("serverStatus", BCON_INT32 (1)), &reply));
   CHECK_STR ("sim8.serverStatus process", "mongos", str_at (&reply, "process"));
   CHECK ("sim8.serverStatus sharding", has_at (&reply, "sharding.configsvrConnectionString"));
   CHECK ("sim8.serverStatus opcounters.command counted", int_at (&reply, "opcounters.command") > 0);
   bson_destroy (&reply);
   CHECK ("sim8.listDatabases", run (s, "admin", BCON_NEW ("listDatabases", BCON_INT32 (1)), &reply));
   {
      char *json = bson_as_relaxed_extended_json (&reply, NULL);
      CHECK ("sim8.listDatabases has app", strstr (json, "\"app\"") != NULL);
      bson_free (json);
   }
   bson_destroy (&reply);
}

static void
test_cursors (sim_t *s)
{
   bson_t reply;
   bson_t *docs = bson_new ();
   bson_t arr;
   bson_iter_t it;
   BSON_APPEND_ARRAY_BEGIN (docs, "documents", &arr);
   for (int i = 0; i < 250; i++) {
      char k[16];
      bson_t d;
      snprintf (k, sizeof k, "%d", i);
      BSON_APPEND_DOCUMENT_BEGIN (&arr, k, &d);
      BSON_APPEND_INT32 (&d, "i", i);
      bson_append_document_end (&arr, &d);
   }
   bson_append_array_end (docs, &arr);
   bson_t *ins = BCON_NEW ("insert", BCON_UTF8 ("batching"));
   bson_concat (ins, docs);
   bson_destroy (docs);
   CHECK ("cursor.insert 250", run (s, "test", ins, &reply) && int_at (&reply, "n") == 250);
   bson_destroy (&reply);
   run (s, "test", BCON_NEW ("find", BCON_UTF8 ("batching"), "batchSize", BCON_INT32 (100)), &reply);
   int64_t id = int_at (&reply, "cursor.id");
   CHECK ("cursor.find id int64 nonzero", id > 0 && bson_iter_init (&it, &reply) &&
                                             bson_iter_find_descendant (&it, "cursor.id", &it) &&
                                             BSON_ITER_HOLDS_INT64 (&it));
   CHECK ("cursor.firstBatch 100",
          has_at (&reply, "cursor.firstBatch.99") && !has_at (&reply, "cursor.firstBatch.100"));
   CHECK_STR ("cursor.ns", "test.batching", str_at (&reply, "cursor.ns"));
   bson_destroy (&reply);
   run (s, "test",
        BCON_NEW ("getMore", BCON_INT64 (id), "collection", BCON_UTF8 ("batching"), "batchSize", BCON_INT32 (100)),
        &reply);
   CHECK ("cursor.getMore nextBatch 100", has_at (&reply, "cursor.nextBatch.99") && int_at (&reply, "cursor.id") == id);
   bson_destroy (&reply);
   run (s, "test", BCON_NEW ("getMore", BCON_INT64 (id), "collection", BCON_UTF8 ("batching")), &reply);
   CHECK ("cursor.getMore last 50 and id 0", has_at (&reply, "cursor.nextBatch.49") &&
                                                !has_at (&reply, "cursor.nextBatch.50") &&
                                                int_at (&reply, "cursor.id") == 0);
   bson_destroy (&reply);
   run (s, "test", BCON_NEW ("getMore", BCON_INT64 (id), "collection", BCON_UTF8 ("batching")), &reply);
   CHECK ("cursor.exhausted cursor 43", code_of (&reply) == 43);
   bson_destroy (&reply);
   simproc_run_json (
      s, "test", "{\"find\": \"batching\", \"filter\": {\"i\": {\"$gte\": 240}}, \"sort\": {\"i\": -1}, \"limit\": 3}",
      &reply);
   CHECK ("cursor.filter sort limit", int_at (&reply, "cursor.firstBatch.0.i") == 249 &&
                                         int_at (&reply, "cursor.firstBatch.2.i") == 247 &&
                                         !has_at (&reply, "cursor.firstBatch.3"));
   bson_destroy (&reply);
   simproc_run_json (s, "test",
                     "{\"update\": \"batching\", \"updates\": [{\"q\": {\"i\": 1000}, \"u\": {\"$set\": {\"x\": 1}}, "
                     "\"upsert\": true}]}",
                     &reply);
   CHECK ("crud.upsert n 1 and upserted",
          int_at (&reply, "n") == 1 && int_at (&reply, "nModified") == 0 && has_at (&reply, "upserted.0._id"));
   bson_destroy (&reply);
   simproc_run_json (
      s, "test", "{\"delete\": \"batching\", \"deletes\": [{\"q\": {\"i\": {\"$lt\": 10}}, \"limit\": 0}]}", &reply);
   CHECK ("crud.delete n 10", int_at (&reply, "n") == 10);
   bson_destroy (&reply);
   simproc_run_json (s, "test", "{\"count\": \"batching\", \"query\": {}}", &reply);
   CHECK ("crud.count 241", int_at (&reply, "n") == 241);
   bson_destroy (&reply);
}

/* 8.0 admin commands: enableSharding, shardCollection, addShard / listShards. */
static void
test_admin_80_sharding (sim_t *s)
{
   bson_t reply, doc;

   /* enableSharding */
   CHECK ("enableSharding ok", run (s, "admin", BCON_NEW ("enableSharding", BCON_UTF8 ("newdb")), &reply));
   bson_destroy (&reply);
   CHECK ("enableSharding creates config.databases",
          simproc_count (s, "config", "databases", "{\"_id\": \"newdb\"}") == 1);
   run (s, "admin", BCON_NEW ("enableSharding", BCON_UTF8 ("otherdb"), "primaryShard", BCON_UTF8 ("nope")), &reply);
   CHECK ("enableSharding unknown primaryShard 70", code_of (&reply) == 70);
   bson_destroy (&reply);

   /* shardCollection */
   CHECK ("shardCollection ok",
          run (s, "admin", BCON_NEW ("shardCollection", BCON_UTF8 ("newdb.c"), "key", "{", "a", BCON_INT32 (1), "}"),
               &reply));
   CHECK_STR ("shardCollection reply", "newdb.c", str_at (&reply, "collectionsharded"));
   CHECK ("shardCollection 8.0 has no collectionUUID", !has_at (&reply, "collectionUUID"));
   bson_destroy (&reply);
   CHECK ("shardCollection writes config.collections",
          find_one (s, "config", "collections", "{\"_id\": \"newdb.c\"}", &doc) && int_at (&doc, "key.a") == 1 &&
             has_at (&doc, "timestamp"));
   bson_destroy (&doc);
   CHECK ("shardCollection one chunk", simproc_count (s, "config", "chunks", "{\"shard\": {\"$exists\": true}}") > 0);
   run (s, "admin", BCON_NEW ("shardCollection", BCON_UTF8 ("newdb.c"), "key", "{", "b", BCON_INT32 (1), "}"), &reply);
   CHECK ("shardCollection other key 23", code_of (&reply) == 23);
   CHECK_STR ("shardCollection other key errmsg", "sharding already enabled for collection newdb.c",
              str_at (&reply, "errmsg"));
   bson_destroy (&reply);
   run (s, "admin",
        BCON_NEW ("shardCollection", BCON_UTF8 ("newdb.h"), "key", "{", "a", BCON_UTF8 ("hashed"), "}", "unique",
                  BCON_BOOL (true)),
        &reply);
   CHECK ("shardCollection hashed unique 72", code_of (&reply) == 72);
   bson_destroy (&reply);
   CHECK ("shardCollection hashed numInitialChunks",
          run (s, "admin",
               BCON_NEW ("shardCollection", BCON_UTF8 ("newdb.h"), "key", "{", "a", BCON_UTF8 ("hashed"), "}",
                         "numInitialChunks", BCON_INT32 (4)),
               &reply));
   bson_destroy (&reply);
   find_one (s, "config", "collections", "{\"_id\": \"newdb.h\"}", &doc);
   {
      bson_t f = BSON_INITIALIZER;
      bson_iter_t it;
      if (bson_iter_init_find (&it, &doc, "uuid")) {
         BSON_APPEND_VALUE (&f, "uuid", bson_iter_value (&it));
      }
      mongoc_collection_t *c = mongoc_client_get_collection (s->client, "config", "chunks");
      int64_t n = mongoc_collection_count_documents (c, &f, NULL, NULL, NULL, NULL);
      /* 8.0 accepts numInitialChunks and ignores it: one chunk per shard (SERVER-82611, SERVER-83005) */
      CHECK ("shardCollection hashed numInitialChunks ignored: one chunk per shard by uuid", n == 3);
      mongoc_collection_destroy (c);
      bson_destroy (&f);
   }
   bson_destroy (&doc);

   /* addShard / listShards */
   CHECK ("addShard ok", run (s, "admin", BCON_NEW ("addShard", BCON_UTF8 ("shard04/127.0.0.1:27030")), &reply));
   CHECK_STR ("addShard shardAdded", "shard04", str_at (&reply, "shardAdded"));
   bson_destroy (&reply);
   CHECK ("addShard in config.shards", simproc_count (s, "config", "shards", "{\"_id\": \"shard04\"}") == 1);
   run (s, "admin", BCON_NEW ("addShard", BCON_UTF8 ("shard04/127.0.0.1:29999")), &reply);
   CHECK ("addShard name in use 20", code_of (&reply) == 20);
   bson_destroy (&reply);
   CHECK ("listShards ok", run (s, "admin", BCON_NEW ("listShards", BCON_INT32 (1)), &reply));
   CHECK ("listShards four shards", has_at (&reply, "shards.3") && !has_at (&reply, "shards.4"));
   bson_destroy (&reply);
}

/* 8.0 admin commands: zones. */
static void
test_admin_80_zones (sim_t *s)
{
   bson_t reply;

   /* zones */
   CHECK ("addShardToZone ok",
          run (s, "admin", BCON_NEW ("addShardToZone", BCON_UTF8 ("shard04"), "zone", BCON_UTF8 ("LAX")), &reply));
   bson_destroy (&reply);
   CHECK ("addShardToZone tags",
          simproc_count (s, "config", "shards", "{\"_id\": \"shard04\", \"tags\": \"LAX\"}") == 1);
   run (s, "admin", BCON_NEW ("addShardToZone", BCON_UTF8 ("nope"), "zone", BCON_UTF8 ("LAX")), &reply);
   CHECK ("addShardToZone unknown shard 70", code_of (&reply) == 70);
   bson_destroy (&reply);
   CHECK ("updateZoneKeyRange ok",
          simproc_run_json (
             s, "admin",
             "{\"updateZoneKeyRange\": \"app.stores\", \"min\": {\"zipcode\": \"90001\"}, \"max\": {\"zipcode\": "
             "\"90100\"}, \"zone\": \"LAX\"}",
             &reply));
   bson_destroy (&reply);
   CHECK ("updateZoneKeyRange in config.tags",
          simproc_count (s, "config", "tags", "{\"ns\": \"app.stores\", \"tag\": \"LAX\"}") == 1);
   simproc_run_json (
      s, "admin",
      "{\"updateZoneKeyRange\": \"app.stores\", \"min\": {\"zipcode\": \"90050\"}, \"max\": {\"zipcode\": "
      "\"90200\"}, \"zone\": \"NYC\"}",
      &reply);
   CHECK ("updateZoneKeyRange overlap 178", code_of (&reply) == 178);
   CHECK ("updateZoneKeyRange overlap message",
          str_at (&reply, "errmsg") && strstr (str_at (&reply, "errmsg"), "is overlapping with existing") != NULL);
   bson_destroy (&reply);
   simproc_run_json (
      s, "admin",
      "{\"updateZoneKeyRange\": \"app.stores\", \"min\": {\"zipcode\": \"9\"}, \"max\": {\"zipcode\": \"1\"}, "
      "\"zone\": \"LAX\"}",
      &reply);
   CHECK ("updateZoneKeyRange min >= max 9", code_of (&reply) == 9);
   bson_destroy (&reply);
   simproc_run_json (
      s, "admin",
      "{\"updateZoneKeyRange\": \"app.stores\", \"min\": {\"zipcode\": \"00001\"}, \"max\": {\"zipcode\": "
      "\"00002\"}, \"zone\": \"NOPE\"}",
      &reply);
   CHECK ("updateZoneKeyRange unknown zone 177", code_of (&reply) == 177);
   bson_destroy (&reply);
   run (s, "admin", BCON_NEW ("removeShardFromZone", BCON_UTF8 ("shard04"), "zone", BCON_UTF8 ("LAX")), &reply);
   CHECK ("removeShardFromZone in use 163", code_of (&reply) == 163);
   bson_destroy (&reply);
   CHECK ("updateZoneKeyRange null removes",
          simproc_run_json (
             s, "admin",
             "{\"updateZoneKeyRange\": \"app.stores\", \"min\": {\"zipcode\": \"90001\"}, \"max\": {\"zipcode\": "
             "\"90100\"}, \"zone\": null}",
             &reply) &&
             simproc_count (s, "config", "tags", "{\"tag\": \"LAX\"}") == 0);
   bson_destroy (&reply);
   CHECK (
      "removeShardFromZone ok",
      run (s, "admin", BCON_NEW ("removeShardFromZone", BCON_UTF8 ("shard04"), "zone", BCON_UTF8 ("LAX")), &reply) &&
         simproc_count (s, "config", "shards", "{\"tags\": \"LAX\"}") == 0);
   bson_destroy (&reply);
}

/* 8.0 admin commands: split / mergeChunks, moveChunk / moveRange. */
static void
test_admin_80_chunks (sim_t *s)
{
   bson_t reply;

   /* split / mergeChunks */
   int64_t before = simproc_count (s, "config", "chunks", "{}");
   CHECK ("split middle ok", run (s, "admin",
                                  BCON_NEW ("split", BCON_UTF8 ("app.orders"), "middle", "{", "customer",
                                            BCON_UTF8 ("c020"), "ts", BCON_MINKEY, "}"),
                                  &reply));
   bson_destroy (&reply);
   CHECK ("split adds a chunk", simproc_count (s, "config", "chunks", "{}") == before + 1);
   CHECK ("split changelog",
          simproc_count (s, "config", "changelog", "{\"what\": \"split\", \"ns\": \"app.orders\"}") >= 4);
   run (s, "admin",
        BCON_NEW ("split", BCON_UTF8 ("app.orders"), "middle", "{", "customer", BCON_UTF8 ("c020"), "ts", BCON_MINKEY,
                  "}"),
        &reply);
   CHECK ("split boundary errmsg-only", !has_at (&reply, "code") && str_at (&reply, "errmsg") &&
                                           strstr (str_at (&reply, "errmsg"), "is a boundary key of existing chunk"));
   bson_destroy (&reply);
   CHECK ("mergeChunks ok",
          simproc_run_json (
             s, "admin",
             "{\"mergeChunks\": \"app.orders\", \"bounds\": [{\"customer\": \"c013\", \"ts\": {\"$minKey\": 1}}, "
             "{\"customer\": \"c025\", \"ts\": {\"$minKey\": 1}}]}",
             &reply));
   bson_destroy (&reply);
   CHECK ("mergeChunks removes a chunk", simproc_count (s, "config", "chunks", "{}") == before);
   run (s, "admin", BCON_NEW ("mergeChunks", BCON_UTF8 ("app.orders")), &reply);
   CHECK ("mergeChunks no bounds errmsg-only", !has_at (&reply, "code") && str_at (&reply, "errmsg") &&
                                                  !strcmp (str_at (&reply, "errmsg"), "no bounds were specified"));
   bson_destroy (&reply);

   /* moveChunk / moveRange */
   CHECK ("moveChunk ok", run (s, "admin",
                               BCON_NEW ("moveChunk", BCON_UTF8 ("app.events"), "find", "{", "ts", BCON_DATE_TIME (0),
                                         "}", "to", BCON_UTF8 ("shard03")),
                               &reply) &&
                             has_at (&reply, "millis"));
   bson_destroy (&reply);
   CHECK ("moveChunk changelog commit",
          simproc_count (s, "config", "changelog",
                         "{\"what\": \"moveChunk.commit\", \"ns\": \"app.events\", \"details.to\": \"shard03\"}") >= 1);
   CHECK ("moveChunk changelog from success",
          simproc_count (s, "config", "changelog", "{\"what\": \"moveChunk.from\", \"details.note\": \"success\"}") >=
             1);
   run (s, "admin",
        BCON_NEW ("moveChunk", BCON_UTF8 ("app.events"), "find", "{", "ts", BCON_DATE_TIME (0), "}", "to",
                  BCON_UTF8 ("nope")),
        &reply);
   CHECK ("moveChunk unknown shard 70", code_of (&reply) == 70);
   bson_destroy (&reply);
   run (s, "admin", BCON_NEW ("moveChunk", BCON_UTF8 ("app.events"), "to", BCON_UTF8 ("shard01")), &reply);
   CHECK ("moveChunk 6.0+ neither find nor bounds 72", code_of (&reply) == 72);
   bson_destroy (&reply);
   run (s, "admin",
        BCON_NEW ("moveChunk", BCON_UTF8 ("logs.archive"), "find", "{", "_id", BCON_INT32 (1), "}", "to",
                  BCON_UTF8 ("shard01")),
        &reply);
   CHECK ("moveChunk unsharded 118", code_of (&reply) == 118);
   bson_destroy (&reply);
   CHECK ("moveRange ok", run (s, "admin",
                               BCON_NEW ("moveRange", BCON_UTF8 ("app.events"), "toShard", BCON_UTF8 ("shard01"), "min",
                                         "{", "ts", BCON_MINKEY, "}"),
                               &reply));
   bson_destroy (&reply);
   CHECK ("moveRange moved MinKey chunk",
          simproc_count (s, "config", "chunks", "{\"min.ts\": {\"$type\": \"minKey\"}, \"shard\": \"shard01\"}") >= 1);
   run (s, "admin", BCON_NEW ("moveRange", BCON_UTF8 ("app.events"), "min", "{", "ts", BCON_MINKEY, "}"), &reply);
   CHECK ("moveRange missing toShard 40414", code_of (&reply) == 40414);
   bson_destroy (&reply);
}

/* 8.0 admin commands: balancer. */
static void
test_admin_80_balancer (sim_t *s)
{
   bson_t reply;

   /* balancer */
   CHECK ("balancerStop ok", run (s, "admin", BCON_NEW ("balancerStop", BCON_INT32 (1)), &reply));
   bson_destroy (&reply);
   CHECK ("balancerStop writes settings",
          simproc_count (s, "config", "settings", "{\"_id\": \"balancer\", \"stopped\": true, \"mode\": \"off\"}") ==
             1);
   CHECK ("balancerStatus ok", run (s, "admin", BCON_NEW ("balancerStatus", BCON_INT32 (1)), &reply));
   CHECK_STR ("balancerStatus mode off", "off", str_at (&reply, "mode"));
   CHECK ("balancerStatus 8.0 term", has_at (&reply, "term") && has_at (&reply, "numBalancerRounds"));
   bson_destroy (&reply);
   CHECK ("balancerStart ok",
          run (s, "admin", BCON_NEW ("balancerStart", BCON_INT32 (1)), &reply) &&
             simproc_count (s, "config", "settings", "{\"_id\": \"balancer\", \"stopped\": false}") == 1);
   bson_destroy (&reply);
   run (s, "test", BCON_NEW ("balancerStart", BCON_INT32 (1)), &reply);
   CHECK ("balancerStart on test 13", code_of (&reply) == 13);
   bson_destroy (&reply);
   CHECK ("balancerCollectionStatus ok",
          run (s, "admin", BCON_NEW ("balancerCollectionStatus", BCON_UTF8 ("app.users")), &reply) &&
             has_at (&reply, "balancerCompliant") && has_at (&reply, "chunkSize"));
   bson_destroy (&reply);
   run (s, "admin", BCON_NEW ("balancerCollectionStatus", BCON_UTF8 ("logs.archive")), &reply);
   CHECK ("balancerCollectionStatus unsharded 118", code_of (&reply) == 118);
   bson_destroy (&reply);
   CHECK (
      "configureCollectionBalancing ok",
      run (s, "admin",
           BCON_NEW ("configureCollectionBalancing", BCON_UTF8 ("app.users"), "chunkSize", BCON_INT32 (256)), &reply) &&
         simproc_count (s, "config", "collections", "{\"_id\": \"app.users\", \"maxChunkSizeBytes\": 268435456}") == 1);
   bson_destroy (&reply);
   run (s, "admin", BCON_NEW ("configureCollectionBalancing", BCON_UTF8 ("app.users"), "chunkSize", BCON_INT32 (5000)),
        &reply);
   CHECK ("configureCollectionBalancing bad chunkSize 72", code_of (&reply) == 72);
   bson_destroy (&reply);
   CHECK ("setAllowMigrations ok",
          run (s, "admin",
               BCON_NEW ("setAllowMigrations", BCON_UTF8 ("app.users"), "allowMigrations", BCON_BOOL (false)),
               &reply) &&
             simproc_count (s, "config", "collections", "{\"_id\": \"app.users\", \"permitMigrations\": false}") == 1);
   bson_destroy (&reply);
   run (s, "admin", BCON_NEW ("setAllowMigrations", BCON_UTF8 ("logs.archive"), "allowMigrations", BCON_BOOL (false)),
        &reply);
   CHECK ("setAllowMigrations unsharded 118", code_of (&reply) == 118);
   bson_destroy (&reply);
}

/* 8.0 admin commands: refine / reshard, $collStats and $shardedDataDistribution. */
static void
test_admin_80_keys (sim_t *s)
{
   bson_t reply;

   /* refine / reshard */
   simproc_run_json (
      s, "app",
      "{\"createIndexes\": \"events\", \"indexes\": [{\"key\": {\"ts\": 1, \"type\": 1}, \"name\": \"ts_1_type_1\"}]}",
      &reply);
   bson_destroy (&reply);
   CHECK ("refineCollectionShardKey ok",
          run (s, "admin",
               BCON_NEW ("refineCollectionShardKey", BCON_UTF8 ("app.events"), "key", "{", "ts", BCON_INT32 (1), "type",
                         BCON_INT32 (1), "}"),
               &reply) &&
             simproc_count (s, "config", "collections", "{\"_id\": \"app.events\", \"key.type\": 1}") == 1 &&
             simproc_count (s, "config", "chunks", "{\"min.type\": {\"$exists\": true}}") >= 5);
   bson_destroy (&reply);
   run (s, "admin",
        BCON_NEW ("refineCollectionShardKey", BCON_UTF8 ("app.events"), "key", "{", "other", BCON_INT32 (1), "}"),
        &reply);
   CHECK ("refineCollectionShardKey not extending 72", code_of (&reply) == 72);
   bson_destroy (&reply);
   CHECK ("reshardCollection ok",
          run (s, "admin",
               BCON_NEW ("reshardCollection", BCON_UTF8 ("app.orders"), "key", "{", "total", BCON_INT32 (1), "}"),
               &reply) &&
             simproc_count (s, "config", "collections", "{\"_id\": \"app.orders\", \"key.total\": 1}") == 1);
   bson_destroy (&reply);
   run (s, "admin", BCON_NEW ("reshardCollection", BCON_UTF8 ("logs.archive"), "key", "{", "day", BCON_INT32 (1), "}"),
        &reply);
   CHECK ("reshardCollection unsharded 118", code_of (&reply) == 118);
   bson_destroy (&reply);
   CHECK ("analyzeShardKey ok",
          run (s, "admin",
               BCON_NEW ("analyzeShardKey", BCON_UTF8 ("app.users"), "key", "{", "uid", BCON_UTF8 ("hashed"), "}"),
               &reply) &&
             int_at (&reply, "keyCharacteristics.numDocsTotal") == 200 &&
             int_at (&reply, "keyCharacteristics.numDistinctValues") == 200);
   bson_destroy (&reply);
   run (s, "admin", BCON_NEW ("analyzeShardKey", BCON_UTF8 ("app.nope"), "key", "{", "a", BCON_INT32 (1), "}"), &reply);
   CHECK ("analyzeShardKey missing collection 26", code_of (&reply) == 26);
   bson_destroy (&reply);
   CHECK ("configureQueryAnalyzer ok", run (s, "admin",
                                            BCON_NEW ("configureQueryAnalyzer", BCON_UTF8 ("app.users"), "mode",
                                                      BCON_UTF8 ("full"), "samplesPerSecond", BCON_DOUBLE (5.0)),
                                            &reply) &&
                                          str_at (&reply, "newConfiguration.mode") &&
                                          !strcmp (str_at (&reply, "newConfiguration.mode"), "full"));
   bson_destroy (&reply);
   run (s, "admin",
        BCON_NEW ("configureQueryAnalyzer", BCON_UTF8 ("app.users"), "mode", BCON_UTF8 ("full"), "samplesPerSecond",
                  BCON_DOUBLE (500.0)),
        &reply);
   CHECK ("configureQueryAnalyzer bad rate 72", code_of (&reply) == 72);
   bson_destroy (&reply);
   CHECK ("flushRouterConfig ok",
          run (s, "admin", BCON_NEW ("flushRouterConfig", BCON_INT32 (1)), &reply) && has_at (&reply, "flushed"));
   bson_destroy (&reply);
   CHECK ("currentOp ok",
          run (s, "admin", BCON_NEW ("currentOp", BCON_INT32 (1)), &reply) && has_at (&reply, "inprog.0"));
   bson_destroy (&reply);

   /* $collStats and $shardedDataDistribution */
   simproc_run_json (
      s, "app", "{\"aggregate\": \"users\", \"pipeline\": [{\"$collStats\": {\"storageStats\": {}}}], \"cursor\": {}}",
      &reply);
   CHECK ("$collStats one doc per shard", has_at (&reply, "cursor.firstBatch.2.storageStats.count") &&
                                             int_at (&reply, "cursor.firstBatch.0.storageStats.count") +
                                                   int_at (&reply, "cursor.firstBatch.1.storageStats.count") +
                                                   int_at (&reply, "cursor.firstBatch.2.storageStats.count") ==
                                                200);
   bson_destroy (&reply);
   simproc_run_json (s, "admin",
                     "{\"aggregate\": 1, \"pipeline\": [{\"$shardedDataDistribution\": {}}], \"cursor\": {}}", &reply);
   CHECK ("$shardedDataDistribution", has_at (&reply, "cursor.firstBatch.0.shards.0.numOwnedDocuments"));
   bson_destroy (&reply);
}

/* 8.0 admin commands: removeShard. */
static void
test_admin_80_remove (sim_t *s)
{
   bson_t reply;

   /* removeShard: started, ongoing with progress, completed (migrations must be allowed again first) */
   CHECK ("setAllowMigrations true unsets",
          run (s, "admin",
               BCON_NEW ("setAllowMigrations", BCON_UTF8 ("app.users"), "allowMigrations", BCON_BOOL (true)), &reply) &&
             simproc_count (s, "config", "collections",
                            "{\"_id\": \"app.users\", \"permitMigrations\": {\"$exists\": true}}") == 0);
   bson_destroy (&reply);
   CHECK ("removeShard started", run (s, "admin", BCON_NEW ("removeShard", BCON_UTF8 ("shard03")), &reply) &&
                                    str_at (&reply, "state") && !strcmp (str_at (&reply, "state"), "started"));
   bson_destroy (&reply);
   CHECK ("removeShard sets draining",
          simproc_count (s, "config", "shards", "{\"_id\": \"shard03\", \"draining\": true}") == 1);
   bool saw_ongoing = false, completed = false;
   /* removeShard only marks the shard draining; the balancer moves its chunks (a round between calls). */
   for (int i = 0; i < 50 && !completed; i++) {
      if (i > 0) {
         run (s, "admin", BCON_NEW ("simBalancer", BCON_UTF8 ("round")), &reply);
         bson_destroy (&reply);
      }
      run (s, "admin", BCON_NEW ("removeShard", BCON_UTF8 ("shard03")), &reply);
      const char *st = str_at (&reply, "state");
      saw_ongoing = saw_ongoing || (st && !strcmp (st, "ongoing") && int_at (&reply, "remaining.chunks") > 0);
      completed = st && !strcmp (st, "completed");
      bson_destroy (&reply);
   }
   CHECK ("removeShard ongoing with remaining", saw_ongoing);
   CHECK ("removeShard completed", completed && simproc_count (s, "config", "shards", "{\"_id\": \"shard03\"}") == 0 &&
                                      simproc_count (s, "config", "chunks", "{\"shard\": \"shard03\"}") == 0);
   run (s, "admin", BCON_NEW ("removeShard", BCON_UTF8 ("shard03")), &reply);
   CHECK ("removeShard unknown 70", code_of (&reply) == 70);
   bson_destroy (&reply);
   run (s, "admin", BCON_NEW ("removeShard", BCON_INT32 (3)), &reply);
   CHECK ("removeShard non-string 14", code_of (&reply) == 14);
   bson_destroy (&reply);
}

static void
test_admin_80 (sim_t *s)
{
   test_admin_80_sharding (s);
   test_admin_80_zones (s);
   test_admin_80_chunks (s);
   test_admin_80_balancer (s);
   test_admin_80_keys (s);
   test_admin_80_remove (s);
}

static void
test_44 (sim_t *s)
{
   bson_t reply, doc;
   bson_iter_t it;
   run (s, "admin", BCON_NEW ("isMaster", BCON_INT32 (1)), &reply);
   CHECK_STR ("sim44.isMaster first field", "ismaster", key_at (&reply, 0));
   CHECK ("sim44.maxWireVersion 9", bson_iter_init_find (&it, &reply, "maxWireVersion") &&
                                       BSON_ITER_HOLDS_INT32 (&it) && bson_iter_int32 (&it) == 9);
   CHECK ("sim44.operationTime before $clusterTime",
          key_index (&reply, "operationTime") >= 0 &&
             key_index (&reply, "operationTime") < key_index (&reply, "$clusterTime"));
   bson_destroy (&reply);
   run (s, "admin", BCON_NEW ("moveRange", BCON_UTF8 ("app.events"), "toShard", BCON_UTF8 ("shard01")), &reply);
   CHECK ("sim44.moveRange CommandNotFound", code_of (&reply) == 59);
   bson_destroy (&reply);
   run (s, "admin", BCON_NEW ("reshardCollection", BCON_UTF8 ("app.events"), "key", "{", "x", BCON_INT32 (1), "}"),
        &reply);
   CHECK ("sim44.reshardCollection CommandNotFound", code_of (&reply) == 59);
   bson_destroy (&reply);
   run (s, "admin", BCON_NEW ("moveChunk", BCON_UTF8 ("app.events"), "to", BCON_UTF8 ("shard01")), &reply);
   CHECK (
      "sim44.moveChunk errmsg-only",
      !has_at (&reply, "code") && str_at (&reply, "errmsg") &&
         !strcmp (str_at (&reply, "errmsg"), "need to specify either a find query, or both lower and upper bounds."));
   bson_destroy (&reply);
   CHECK ("sim44.chunks keyed by ns",
          simproc_count (s, "config", "chunks", "{\"ns\": \"app.users\"}") == 6 &&
             simproc_count (s, "config", "chunks", "{\"lastmodEpoch\": {\"$exists\": true}}") > 0);
   CHECK ("sim44.collections have no timestamp",
          simproc_count (s, "config", "collections", "{\"timestamp\": {\"$exists\": true}}") == 0);
   CHECK ("sim44.actionlog errorOccured",
          simproc_count (s, "config", "actionlog", "{\"details.errorOccured\": true}") == 1);
   CHECK ("sim44.databases partitioned",
          simproc_count (s, "config", "databases", "{\"_id\": \"app\", \"partitioned\": true}") == 1);
   run (s, "admin", BCON_NEW ("shardCollection", BCON_UTF8 ("nodb.c"), "key", "{", "a", BCON_INT32 (1), "}"), &reply);
   CHECK ("sim44.shardCollection needs enableSharding 20", code_of (&reply) == 20);
   bson_destroy (&reply);
   run (s, "admin", BCON_NEW ("enableSharding", BCON_UTF8 ("nodb")), &reply);
   bson_destroy (&reply);
   CHECK ("sim44.shardCollection collectionUUID",
          run (s, "admin", BCON_NEW ("shardCollection", BCON_UTF8 ("nodb.c"), "key", "{", "a", BCON_INT32 (1), "}"),
               &reply) &&
             has_at (&reply, "collectionUUID"));
   bson_destroy (&reply);
   CHECK ("sim44.config.collections dropped false",
          find_one (s, "config", "collections", "{\"_id\": \"nodb.c\"}", &doc) && has_at (&doc, "distributionMode"));
   bson_destroy (&doc);
   run (s, "admin", BCON_NEW ("balancerStop", BCON_INT32 (1)), &reply);
   bson_destroy (&reply);
   CHECK ("sim44.balancerStop flips autosplit",
          simproc_count (s, "config", "settings", "{\"_id\": \"autosplit\", \"enabled\": false}") == 1);
}

/* dataSize through the router: a key range's documents and bytes (tests/unit/fidelity/datasize.json has exact values).
 */
static void
test_data_size (sim_t *s)
{
   bson_t reply;
   int64_t all_n, all_b;
   CHECK ("sim8.dataSize whole collection", simproc_run_json (s, "admin", "{\"dataSize\": \"app.users\"}", &reply));
   all_n = int_at (&reply, "numObjects");
   all_b = int_at (&reply, "size");
   bson_destroy (&reply);
   CHECK ("sim8.dataSize has documents", all_n > 0 && all_b > 0);
   simproc_run_json (
      s, "admin",
      "{\"dataSize\": \"app.users\", \"keyPattern\": {\"uid\": \"hashed\"}, \"min\": {\"uid\": {\"$minKey\": 1}}, "
      "\"max\": {\"uid\": {\"$maxKey\": 1}}, \"estimate\": true}",
      &reply);
   /* estimate: each document counts as its shard's average object size (integer division per shard). */
   CHECK ("sim8.dataSize full range", int_at (&reply, "numObjects") == all_n && int_at (&reply, "size") <= all_b &&
                                         int_at (&reply, "size") > all_b - all_n);
   bson_destroy (&reply);
   simproc_run_json (
      s, "admin",
      "{\"dataSize\": \"app.users\", \"keyPattern\": {\"uid\": \"hashed\"}, \"min\": {\"uid\": {\"$minKey\": 1}}, "
      "\"max\": {\"uid\": {\"$numberLong\": \"0\"}}}",
      &reply);
   CHECK ("sim8.dataSize part of the range", int_at (&reply, "numObjects") < all_n);
   bson_destroy (&reply);
   CHECK ("sim8.dataSize min without max fails (2, the 5.0+ shard's check)",
          !simproc_run_json (s, "admin", "{\"dataSize\": \"app.users\", \"min\": {\"uid\": 1}}", &reply) &&
             code_of (&reply) == 2);
   bson_destroy (&reply);
}

int
main (void)
{
   sim_t s;
   mongoc_init ();
   mongoc_log_set_handler (NULL, NULL);
   if (!sim_start (&s, "8.0", "demo")) {
      UNIT_FAIL ("sim8.start", "shardsim did not start (BINDIR=%s)", getenv ("BINDIR") ? getenv ("BINDIR") : "bin");
      sim_stop (&s);
      mongoc_cleanup ();
      UNIT_EXIT ();
   }
   test_handshake_80 (&s);
   test_raw_wire (&s, true);
   test_generic_80 (&s);
   test_cursors (&s);
   test_admin_80 (&s);
   test_data_size (&s);
   int status = sim_stop (&s);
   CHECK ("sim8.clean exit on SIGTERM", WIFEXITED (status) && WEXITSTATUS (status) == 0);
   if (sim_start (&s, "4.4", "demo")) {
      test_44 (&s);
      test_raw_wire (&s, false);
   } else {
      UNIT_FAIL ("sim44.start", "shardsim did not start");
   }
   status = sim_stop (&s);
   CHECK ("sim44.clean exit on SIGTERM", WIFEXITED (status) && WEXITSTATUS (status) == 0);
   mongoc_cleanup ();
   UNIT_EXIT ();
}
