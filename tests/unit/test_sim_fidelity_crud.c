/* passes: plain asan */
/* shardsim against the MongoDB server's own code (issue 15), the generic and CRUD commands: each check reproduces one
 * behaviour the server's source defines (unique indexes and the duplicate-key write error, createIndexes conflicts,
 * the currentOp command's filter, getLog, getParameter, strict parsing of find and the write commands, the
 * $currentOp stage's options, drop on config/admin) and asserts on the reply (code, codeName, errmsg) and, where
 * relevant, on the state that follows. docs/shardsim.md ("Fidelity review against the server's source") names the
 * server file and function each one follows. Checks are named <version>.<what>. */
#include "tests/unit/fidelity.h"

static int64_t
int_at (const bson_t *doc, const char *path)
{
   bson_iter_t it, d;
   if (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &d) && BSON_ITER_HOLDS_NUMBER (&d)) {
      return bson_iter_as_int64 (&d);
   }
   return INT64_MIN;
}

static bool
str_is (const bson_t *doc, const char *path, const char *want)
{
   const char *s = str_at (doc, path);
   return s && !strcmp (s, want);
}

/* Whether the reply, printed as JSON, contains needle. */
static bool
json_has (const bson_t *doc, const char *needle)
{
   char *j = bson_as_relaxed_extended_json (doc, NULL);
   bool found = j && strstr (j, needle) != NULL;
   bson_free (j);
   return found;
}

/* ---- 1, 2: unique indexes and the duplicate-key write error ---- */

static void
test_unique_insert (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   simproc_run_ok (s, "fu",
                   "{\"createIndexes\": \"u\", \"indexes\": [{\"key\": {\"a\": 1}, \"name\": \"a_1\", "
                   "\"unique\": true}]}");
   simproc_run_ok (s, "fu", "{\"insert\": \"u\", \"documents\": [{\"_id\": 1, \"a\": 1}]}");
   simproc_run_json (s, "fu", "{\"insert\": \"u\", \"documents\": [{\"_id\": 2, \"a\": 1}, {\"_id\": 3, \"a\": 3}]}",
                     &reply);
   snprintf (name, sizeof name, "%s.unique index insert duplicate 11000 DuplicateKey", v);
   CHECK (name, int_at (&reply, "writeErrors.0.code") == 11000 &&
                   str_is (&reply, "writeErrors.0.codeName", "DuplicateKey") && int_at (&reply, "n") == 0 &&
                   int_at (&reply, "writeErrors.0.index") == 0);
   snprintf (name, sizeof name, "%s.unique index insert duplicate text", v);
   CHECK_STR (name, "E11000 duplicate key error collection: fu.u index: a_1 dup key: { a: 1 }",
              str_at (&reply, "writeErrors.0.errmsg"));
   snprintf (name, sizeof name, "%s.unique index insert keyPattern keyValue", v);
   CHECK (name, int_at (&reply, "writeErrors.0.keyPattern.a") == 1 && int_at (&reply, "writeErrors.0.keyValue.a") == 1);
   snprintf (name, sizeof name, "%s.unique index ordered insert stops, nothing stored", v);
   CHECK (name, simproc_count (s, "fu", "u", "{}") == 1);
   bson_destroy (&reply);
   /* 1.0 and NumberLong(1) are the same key; a document without a is indexed as null, once. */
   simproc_run_json (s, "fu", "{\"insert\": \"u\", \"documents\": [{\"_id\": 4, \"a\": {\"$numberLong\": \"1\"}}]}",
                     &reply);
   snprintf (name, sizeof name, "%s.unique index NumberLong(1) equals 1", v);
   CHECK (name, int_at (&reply, "writeErrors.0.code") == 11000);
   bson_destroy (&reply);
   simproc_run_ok (s, "fu", "{\"insert\": \"u\", \"documents\": [{\"_id\": 5}]}");
   simproc_run_json (s, "fu", "{\"insert\": \"u\", \"documents\": [{\"_id\": 6}]}", &reply);
   snprintf (name, sizeof name, "%s.unique index missing field is null", v);
   CHECK_STR (name, "E11000 duplicate key error collection: fu.u index: a_1 dup key: { a: null }",
              str_at (&reply, "writeErrors.0.errmsg"));
   bson_destroy (&reply);
   /* Array elements are keys each (multikey). */
   simproc_run_json (s, "fu", "{\"insert\": \"u\", \"documents\": [{\"_id\": 7, \"a\": [9, 1]}]}", &reply);
   snprintf (name, sizeof name, "%s.unique index array element duplicate", v);
   CHECK (name, int_at (&reply, "writeErrors.0.code") == 11000 && int_at (&reply, "writeErrors.0.keyValue.a") == 1);
   bson_destroy (&reply);
   /* unordered: the duplicate fails, the others go in */
   simproc_run_json (s, "fu",
                     "{\"insert\": \"u\", \"ordered\": false, \"documents\": [{\"_id\": 8, \"a\": 1}, {\"_id\": 9, "
                     "\"a\": 9}]}",
                     &reply);
   snprintf (name, sizeof name, "%s.unique index unordered insert continues", v);
   CHECK (name, int_at (&reply, "n") == 1 && int_at (&reply, "writeErrors.0.index") == 0 &&
                   simproc_count (s, "fu", "u", "{\"a\": 9}") == 1);
   bson_destroy (&reply);
   /* a sparse unique index leaves documents without the field out */
   simproc_run_ok (s, "fu",
                   "{\"createIndexes\": \"sp\", \"indexes\": [{\"key\": {\"b\": 1}, \"name\": \"b_1\", "
                   "\"unique\": true, \"sparse\": true}]}");
   snprintf (name, sizeof name, "%s.unique sparse index missing fields allowed", v);
   CHECK (name, simproc_run_ok (s, "fu", "{\"insert\": \"sp\", \"documents\": [{\"_id\": 1}, {\"_id\": 2}]}") &&
                   simproc_count (s, "fu", "sp", "{}") == 2);
}

static void
test_unique_update (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   /* update onto another document's key */
   simproc_run_json (
      s, "fu", "{\"update\": \"u\", \"updates\": [{\"q\": {\"_id\": 9}, \"u\": {\"$set\": {\"a\": 1}}}]}", &reply);
   snprintf (name, sizeof name, "%s.unique index update duplicate 11000", v);
   CHECK (name, int_at (&reply, "writeErrors.0.code") == 11000 &&
                   str_is (&reply, "writeErrors.0.codeName", "DuplicateKey") && int_at (&reply, "n") == 0 &&
                   int_at (&reply, "nModified") == 0 && int_at (&reply, "writeErrors.0.keyValue.a") == 1);
   snprintf (name, sizeof name, "%s.unique index update duplicate leaves the document", v);
   CHECK (name, simproc_count (s, "fu", "u", "{\"_id\": 9, \"a\": 9}") == 1);
   bson_destroy (&reply);
   /* rewriting a document's own key is no duplicate */
   snprintf (name, sizeof name, "%s.unique index update own key ok", v);
   CHECK (name, simproc_run_json (s, "fu",
                                  "{\"update\": \"u\", \"updates\": [{\"q\": {\"_id\": 1}, \"u\": {\"$set\": {\"a\": "
                                  "1, \"x\": 1}}}]}",
                                  &reply) &&
                   !has_at (&reply, "writeErrors") && int_at (&reply, "nModified") == 1);
   bson_destroy (&reply);
   /* an upsert inserting a duplicate key */
   simproc_run_json (s, "fu",
                     "{\"update\": \"u\", \"updates\": [{\"q\": {\"_id\": 50}, \"u\": {\"$set\": {\"a\": 9}}, "
                     "\"upsert\": true}]}",
                     &reply);
   snprintf (name, sizeof name, "%s.unique index upsert duplicate 11000", v);
   CHECK (name, int_at (&reply, "writeErrors.0.code") == 11000 && simproc_count (s, "fu", "u", "{\"_id\": 50}") == 0);
   bson_destroy (&reply);
   /* findAndModify: the command's own error, with keyPattern and keyValue at the top */
   simproc_run_json (s, "fu", "{\"findAndModify\": \"u\", \"query\": {\"_id\": 9}, \"update\": {\"$set\": {\"a\": 1}}}",
                     &reply);
   snprintf (name, sizeof name, "%s.unique index findAndModify duplicate 11000", v);
   CHECK (name, code_of (&reply) == 11000 && str_is (&reply, "codeName", "DuplicateKey") &&
                   int_at (&reply, "keyValue.a") == 1 && int_at (&reply, "keyPattern.a") == 1 &&
                   strstr (errmsg_of (&reply), "index: a_1 dup key: { a: 1 }") != NULL);
   bson_destroy (&reply);
   /* an update findAndModify cannot apply is the command's error (the simulator used to abort here) */
   simproc_run_json (
      s, "fu", "{\"findAndModify\": \"u\", \"query\": {\"_id\": 9}, \"update\": {\"$bogus\": {\"a\": 1}}}", &reply);
   snprintf (name, sizeof name, "%s.findAndModify unknown modifier 9", v);
   CHECK (name, code_of (&reply) == 9 && str_is (&reply, "codeName", "FailedToParse") && !has_at (&reply, "value"));
   bson_destroy (&reply);
   /* a dropped unique index no longer refuses */
   simproc_run_ok (s, "fu", "{\"dropIndexes\": \"u\", \"index\": \"a_1\"}");
   snprintf (name, sizeof name, "%s.unique index dropped: duplicates allowed", v);
   CHECK (name, simproc_run_ok (s, "fu", "{\"insert\": \"u\", \"documents\": [{\"_id\": 60, \"a\": 1}]}") &&
                   simproc_count (s, "fu", "u", "{\"a\": 1}") == 2);
   /* ... and creating it again over the duplicates fails with 11000, the index not created */
   simproc_run_json (s, "fu",
                     "{\"createIndexes\": \"u\", \"indexes\": [{\"key\": {\"a\": 1}, \"name\": \"a_1\", \"unique\": "
                     "true}]}",
                     &reply);
   snprintf (name, sizeof name, "%s.unique index build over duplicates 11000", v);
   CHECK (name, code_of (&reply) == 11000 && strstr (errmsg_of (&reply), "dup key: { a: 1 }") != NULL &&
                   int_at (&reply, "keyValue.a") == 1);
   bson_destroy (&reply);
   simproc_run_json (s, "fu", "{\"listIndexes\": \"u\"}", &reply);
   snprintf (name, sizeof name, "%s.unique index build over duplicates: not created", v);
   CHECK (name, !has_at (&reply, "cursor.firstBatch.1"));
   bson_destroy (&reply);
}

static void
test_dup_id (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   simproc_run_ok (s, "fu", "{\"insert\": \"d\", \"documents\": [{\"_id\": 1}, {\"_id\": \"x\"}]}");
   simproc_run_json (s, "fu", "{\"insert\": \"d\", \"documents\": [{\"_id\": 1}]}", &reply);
   snprintf (name, sizeof name, "%s.duplicate _id writeError codeName", v);
   CHECK (name,
          int_at (&reply, "writeErrors.0.code") == 11000 && str_is (&reply, "writeErrors.0.codeName", "DuplicateKey"));
   snprintf (name, sizeof name, "%s.duplicate _id text { _id: 1 }", v);
   CHECK_STR (name, "E11000 duplicate key error collection: fu.d index: _id_ dup key: { _id: 1 }",
              str_at (&reply, "writeErrors.0.errmsg"));
   snprintf (name, sizeof name, "%s.duplicate _id keyPattern keyValue", v);
   CHECK (name,
          int_at (&reply, "writeErrors.0.keyPattern._id") == 1 && int_at (&reply, "writeErrors.0.keyValue._id") == 1);
   bson_destroy (&reply);
   simproc_run_json (s, "fu", "{\"insert\": \"d\", \"documents\": [{\"_id\": \"x\"}]}", &reply);
   snprintf (name, sizeof name, "%s.duplicate _id string quoted", v);
   CHECK_STR (name, "E11000 duplicate key error collection: fu.d index: _id_ dup key: { _id: \"x\" }",
              str_at (&reply, "writeErrors.0.errmsg"));
   bson_destroy (&reply);
   /* every writeErrors entry carries codeName (WriteErrorDetail::toBSON), not only 11000 */
   simproc_run_json (s, "fu", "{\"insert\": \"d\", \"documents\": [5]}", &reply);
   snprintf (name, sizeof name, "%s.writeError codeName on every entry", v);
   CHECK (name,
          int_at (&reply, "writeErrors.0.code") == 14 && str_is (&reply, "writeErrors.0.codeName", "TypeMismatch"));
   bson_destroy (&reply);
}

/* ---- 3: createIndexes conflicts ---- */

static void
test_create_indexes (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   bool v44 = !strcmp (v, "4.4");
   simproc_run_ok (s, "fi", "{\"createIndexes\": \"c\", \"indexes\": [{\"key\": {\"a\": 1}, \"name\": \"a_1\"}]}");
   /* the same key and options under another name */
   simproc_run_json (s, "fi", "{\"createIndexes\": \"c\", \"indexes\": [{\"key\": {\"a\": 1}, \"name\": \"other\"}]}",
                     &reply);
   snprintf (name, sizeof name, "%s.createIndexes same key other name 85", v);
   CHECK (name, code_of (&reply) == 85 && str_is (&reply, "codeName", "IndexOptionsConflict"));
   snprintf (name, sizeof name, "%s.createIndexes same key other name text", v);
   CHECK_STR (name, "Index already exists with a different name: a_1", errmsg_of (&reply));
   bson_destroy (&reply);
   simproc_run_json (s, "fi", "{\"listIndexes\": \"c\"}", &reply);
   snprintf (name, sizeof name, "%s.createIndexes same key other name: not created", v);
   CHECK (name, has_at (&reply, "cursor.firstBatch.1") && !has_at (&reply, "cursor.firstBatch.2"));
   bson_destroy (&reply);
   /* the same name and key, another option: expireAfterSeconds is no part of the signature (85, same name) */
   simproc_run_json (s, "fi",
                     "{\"createIndexes\": \"c\", \"indexes\": [{\"key\": {\"a\": 1}, \"name\": \"a_1\", "
                     "\"expireAfterSeconds\": 10}]}",
                     &reply);
   snprintf (name, sizeof name, "%s.createIndexes same name other options 85", v);
   CHECK_STR (name,
              "An equivalent index already exists with the same name but different options. Requested index: { v: 2, "
              "key: { a: 1 }, name: \"a_1\", expireAfterSeconds: 10 }, existing index: { v: 2, key: { a: 1 }, name: "
              "\"a_1\" }",
              errmsg_of (&reply));
   bson_destroy (&reply);
   /* unique: part of the signature from 5.0 (86 on the same name), an other option on 4.4 (85) */
   simproc_run_json (s, "fi",
                     "{\"createIndexes\": \"c\", \"indexes\": [{\"key\": {\"a\": 1}, \"name\": \"a_1\", "
                     "\"unique\": true}]}",
                     &reply);
   snprintf (name, sizeof name, "%s.createIndexes same name unique %s", v, v44 ? "85" : "86");
   CHECK (name, code_of (&reply) == (v44 ? 85 : 86) &&
                   str_is (&reply, "codeName", v44 ? "IndexOptionsConflict" : "IndexKeySpecsConflict"));
   bson_destroy (&reply);
   /* ... so from 5.0 a unique index on the same key may be created under another name */
   simproc_run_json (s, "fi",
                     "{\"createIndexes\": \"c\", \"indexes\": [{\"key\": {\"a\": 1}, \"name\": \"a_u\", "
                     "\"unique\": true}]}",
                     &reply);
   snprintf (name, sizeof name, "%s.createIndexes unique on the same key, other name: %s", v,
             v44 ? "85 equivalent" : "created");
   if (v44) {
      CHECK (name, code_of (&reply) == 85 &&
                      strstr (errmsg_of (&reply), "An equivalent index already exists with a different name and "
                                                  "options. Requested index: { v: 2, key: { a: 1 }, name: \"a_u\", "
                                                  "unique: true }") != NULL);
   } else {
      CHECK (name, code_of (&reply) == -1 && int_at (&reply, "ok") == 1);
   }
   bson_destroy (&reply);
   /* the same name, another key: 86 IndexKeySpecsConflict */
   simproc_run_json (s, "fi", "{\"createIndexes\": \"c\", \"indexes\": [{\"key\": {\"b\": 1}, \"name\": \"a_1\"}]}",
                     &reply);
   snprintf (name, sizeof name, "%s.createIndexes same name other key 86 IndexKeySpecsConflict", v);
   CHECK (name, code_of (&reply) == 86 && str_is (&reply, "codeName", "IndexKeySpecsConflict") &&
                   strstr (errmsg_of (&reply), "An existing index has the same name as the requested index. ") ==
                      errmsg_of (&reply) &&
                   strstr (errmsg_of (&reply), "Requested index: { v: 2, key: { b: 1 }, name: \"a_1\" }, existing "
                                               "index: { v: 2, key: { a: 1 }, name: \"a_1\" }") != NULL);
   bson_destroy (&reply);
   /* an identical index: "all indexes already exist" */
   simproc_run_json (s, "fi", "{\"createIndexes\": \"c\", \"indexes\": [{\"key\": {\"a\": 1}, \"name\": \"a_1\"}]}",
                     &reply);
   snprintf (name, sizeof name, "%s.createIndexes identical: all indexes already exist", v);
   CHECK (name, code_of (&reply) == -1 && json_has (&reply, "all indexes already exist"));
   bson_destroy (&reply);
   /* an unknown field: 197 InvalidIndexSpecificationOption, nothing created */
   simproc_run_json (s, "fi",
                     "{\"createIndexes\": \"c\", \"indexes\": [{\"key\": {\"u\": 1}, \"name\": \"u_1\"}, {\"key\": "
                     "{\"w\": 1}, \"bogus\": true, \"name\": \"w_1\"}]}",
                     &reply);
   snprintf (name, sizeof name, "%s.createIndexes unknown field 197", v);
   CHECK (name, code_of (&reply) == 197 && str_is (&reply, "codeName", "InvalidIndexSpecificationOption"));
   snprintf (name, sizeof name, "%s.createIndexes unknown field text", v);
   CHECK_STR (
      name,
      "Error in specification { key: { w: 1 }, bogus: true, name: \"w_1\" } :: caused by :: The field 'bogus' is "
      "not valid for an index specification. Specification: { key: { w: 1 }, bogus: true, name: \"w_1\" }",
      errmsg_of (&reply));
   bson_destroy (&reply);
   simproc_run_json (s, "fi", "{\"listIndexes\": \"c\"}", &reply);
   snprintf (name, sizeof name, "%s.createIndexes failing command creates none of its indexes", v);
   CHECK (name, !json_has (&reply, "u_1"));
   bson_destroy (&reply);
}

/* ---- 4: the currentOp command's filter and $all ---- */

static int64_t
inprog_count (const bson_t *reply)
{
   bson_iter_t it, a;
   int64_t n = 0;
   if (!bson_iter_init_find (&it, reply, "inprog") || !BSON_ITER_HOLDS_ARRAY (&it)) {
      return -1;
   }
   bson_iter_recurse (&it, &a);
   while (bson_iter_next (&a)) {
      n++;
   }
   return n;
}

static void
test_current_op (sim_t *s, const char *v)
{
   bson_t reply;
   bson_error_t err;
   char name[160];
   /* a second, idle connection */
   mongoc_client_t *other = simproc_client (s->port, "serverSelectionTimeoutMS=5000");
   bson_t *ping = BCON_NEW ("ping", BCON_INT32 (1));
   mongoc_client_command_simple (other, "admin", ping, NULL, NULL, &err);
   simproc_run_json (s, "admin", "{\"currentOp\": 1, \"active\": false}", &reply);
   snprintf (name, sizeof name, "%s.currentOp filter active false: no active row", v);
   CHECK (name, inprog_count (&reply) == 0 && int_at (&reply, "ok") == 1);
   bson_destroy (&reply);
   simproc_run_json (s, "admin",
                     "{\"currentOp\": 1, \"op\": \"command\", \"$readPreference\": {\"mode\": \"primary\"}}", &reply);
   snprintf (name, sizeof name, "%s.currentOp filter op command, generic arguments aside", v);
   CHECK (name, inprog_count (&reply) == 1 && str_is (&reply, "inprog.0.op", "command"));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"currentOp\": 1, \"$all\": true}", &reply);
   snprintf (name, sizeof name, "%s.currentOp $all adds idle connections", v);
   CHECK (name, inprog_count (&reply) >= 2 && json_has (&reply, "\"active\" : false"));
   bson_destroy (&reply);
   /* idleConnections is no option of the command: a filter field that no row has */
   simproc_run_json (s, "admin", "{\"currentOp\": 1, \"idleConnections\": true}", &reply);
   snprintf (name, sizeof name, "%s.currentOp idleConnections is a filter field", v);
   CHECK (name, inprog_count (&reply) == 0);
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"currentOp\": 1, \"active\": {\"$bogus\": 1}}", &reply);
   snprintf (name, sizeof name, "%s.currentOp bad filter 2 BadValue", v);
   CHECK (name, code_of (&reply) == 2 && !has_at (&reply, "inprog"));
   bson_destroy (&reply);
   bson_destroy (ping);
   mongoc_client_destroy (other);
}

/* ---- 5: getLog ---- */

static void
test_get_log (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   simproc_run_json (s, "admin", "{\"getLog\": \"*\"}", &reply);
   snprintf (name, sizeof name, "%s.getLog * names the RamLogs", v);
   CHECK (name, str_is (&reply, "names.0", "global") && str_is (&reply, "names.1", "startupWarnings") &&
                   !has_at (&reply, "names.2") && !has_at (&reply, "log"));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"getLog\": \"startupWarnings\"}", &reply);
   snprintf (name, sizeof name, "%s.getLog startupWarnings lines", v);
   CHECK (name, int_at (&reply, "totalLinesWritten") == 0 && has_at (&reply, "log") && int_at (&reply, "ok") == 1);
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"getLog\": 1}", &reply);
   snprintf (name, sizeof name, "%s.getLog not a string 14 TypeMismatch", v);
   CHECK (name, code_of (&reply) == 14 && str_is (&reply, "codeName", "TypeMismatch"));
   snprintf (name, sizeof name, "%s.getLog not a string text", v);
   CHECK_STR (name, "Argument to getLog must be of type String; found 1 of type int", errmsg_of (&reply));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"getLog\": \"nosuch\"}", &reply);
   snprintf (name, sizeof name, "%s.getLog unknown name: errmsg, no code", v);
   CHECK (name, int_at (&reply, "ok") == 0 && code_of (&reply) == -1 &&
                   !strcmp (errmsg_of (&reply), "no RamLog named: nosuch"));
   bson_destroy (&reply);
}

/* ---- 6: strict parsing of find and the write commands ---- */

static void
test_strict (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   bool v44 = !strcmp (v, "4.4");
   simproc_run_ok (s, "fs", "{\"insert\": \"c\", \"documents\": [{\"_id\": 1}, {\"_id\": 2}]}");
   simproc_run_json (s, "fs", "{\"find\": \"c\", \"filter\": {\"_id\": 1}, \"limt\": 1}", &reply);
   snprintf (name, sizeof name, "%s.find unknown field %s", v, v44 ? "9" : "40415");
   if (v44) {
      CHECK (name, code_of (&reply) == 9 && strstr (errmsg_of (&reply), "Failed to parse: { find: \"c\"") &&
                      strstr (errmsg_of (&reply), ". Unrecognized field 'limt'.") != NULL);
   } else {
      CHECK (name, code_of (&reply) == 40415 && str_is (&reply, "codeName", "IDLUnknownField") &&
                      !strcmp (errmsg_of (&reply), "BSON field 'find.limt' is an unknown field."));
   }
   bson_destroy (&reply);
   simproc_run_json (s, "fs", "{\"find\": \"c\", \"filter\": 1}", &reply);
   snprintf (name, sizeof name, "%s.find filter not a document 14", v);
   CHECK_STR (name,
              v44 ? "Failed to parse: filter: 1. 'filter' field must be of BSON type object."
                  : "BSON field 'find.filter' is the wrong type 'int', expected type 'object'",
              errmsg_of (&reply));
   snprintf (name, sizeof name, "%s.find filter not a document code", v);
   CHECK (name, code_of (&reply) == 14 && !has_at (&reply, "cursor"));
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.find generic arguments accepted", v);
   CHECK (name, simproc_run_json (s, "fs",
                                  "{\"find\": \"c\", \"filter\": {}, \"comment\": \"x\", \"maxTimeMS\": 1000, "
                                  "\"readConcern\": {\"level\": \"local\"}}",
                                  &reply) &&
                   has_at (&reply, "cursor.firstBatch.1"));
   bson_destroy (&reply);
   simproc_run_json (s, "fs", "{\"insert\": \"c\", \"documents\": [{\"_id\": 3}], \"bogus\": 1}", &reply);
   snprintf (name, sizeof name, "%s.insert unknown field 40415, nothing written", v);
   CHECK (name, code_of (&reply) == 40415 &&
                   !strcmp (errmsg_of (&reply), "BSON field 'insert.bogus' is an unknown field.") &&
                   simproc_count (s, "fs", "c", "{\"_id\": 3}") == 0);
   bson_destroy (&reply);
   simproc_run_json (s, "fs",
                     "{\"update\": \"c\", \"updates\": [{\"q\": {}, \"u\": {\"$set\": {\"x\": 1}}}], \"multi\": true}",
                     &reply);
   snprintf (name, sizeof name, "%s.update unknown field 40415, nothing written", v);
   CHECK (name, code_of (&reply) == 40415 && simproc_count (s, "fs", "c", "{\"x\": 1}") == 0);
   bson_destroy (&reply);
   simproc_run_json (s, "fs", "{\"delete\": \"c\", \"deletes\": [{\"q\": {}, \"limit\": 0}], \"justOne\": true}",
                     &reply);
   snprintf (name, sizeof name, "%s.delete unknown field 40415, nothing deleted", v);
   CHECK (name, code_of (&reply) == 40415 && simproc_count (s, "fs", "c", "{}") == 2);
   bson_destroy (&reply);
}

/* ---- 7: getParameter ---- */

static void
test_get_parameter (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   simproc_run_json (s, "admin", "{\"getParameter\": 1, \"logLevel\": 1, \"nosuch\": 1}", &reply);
   snprintf (name, sizeof name, "%s.getParameter unknown names ignored", v);
   CHECK (name, int_at (&reply, "ok") == 1 && int_at (&reply, "logLevel") == 0 && !has_at (&reply, "nosuch"));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"getParameter\": 1, \"nosuch\": 1}", &reply);
   snprintf (name, sizeof name, "%s.getParameter nothing found 72", v);
   CHECK (name, code_of (&reply) == 72 && !strcmp (errmsg_of (&reply), "no option found to get"));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"getParameter\": {\"allParameters\": true}}", &reply);
   snprintf (name, sizeof name, "%s.getParameter allParameters like *", v);
   CHECK (name, int_at (&reply, "ok") == 1 && int_at (&reply, "logLevel") == 0 &&
                   has_at (&reply, "featureCompatibilityVersion.version"));
   bson_destroy (&reply);
   /* the node's parameter map is ordered by name, not by the request */
   simproc_run_json (s, "admin", "{\"getParameter\": 1, \"logLevel\": 1, \"authenticationMechanisms\": 1}", &reply);
   bson_iter_t it;
   snprintf (name, sizeof name, "%s.getParameter in name order", v);
   CHECK (name, bson_iter_init (&it, &reply) && bson_iter_next (&it) &&
                   !strcmp (bson_iter_key (&it), "authenticationMechanisms"));
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"getParameter\": {\"showDetails\": true}, \"logLevel\": 1}", &reply);
   snprintf (name, sizeof name, "%s.getParameter showDetails", v);
   CHECK (name, int_at (&reply, "logLevel.value") == 0 && bool_at (&reply, "logLevel.settableAtRuntime") &&
                   bool_at (&reply, "logLevel.settableAtStartup"));
   bson_destroy (&reply);
}

/* ---- 8: the $currentOp stage's options ---- */

static void
test_current_op_stage (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   simproc_run_json (s, "admin",
                     "{\"aggregate\": 1, \"pipeline\": [{\"$currentOp\": {\"bogus\": true}}], \"cursor\": {}}", &reply);
   snprintf (name, sizeof name, "%s.$currentOp unknown option 9", v);
   CHECK (name, code_of (&reply) == 9 && str_is (&reply, "codeName", "FailedToParse") &&
                   !strcmp (errmsg_of (&reply), "Unrecognized option 'bogus' in $currentOp stage."));
   bson_destroy (&reply);
   simproc_run_json (s, "admin",
                     "{\"aggregate\": 1, \"pipeline\": [{\"$currentOp\": {\"allUsers\": 1}}], \"cursor\": {}}", &reply);
   snprintf (name, sizeof name, "%s.$currentOp option not a boolean 9", v);
   CHECK_STR (name, "The 'allUsers' parameter of the $currentOp stage must be a boolean value, but found: int",
              errmsg_of (&reply));
   bson_destroy (&reply);
   snprintf (name, sizeof name, "%s.$currentOp known options accepted", v);
   CHECK (name, simproc_run_ok (s, "admin",
                                "{\"aggregate\": 1, \"pipeline\": [{\"$currentOp\": {\"allUsers\": true, "
                                "\"idleConnections\": false, \"idleSessions\": true, \"localOps\": true, "
                                "\"truncateOps\": false, \"idleCursors\": false, \"backtrace\": false}}], "
                                "\"cursor\": {}}"));
}

/* ---- 9: drop on config and admin ---- */

/* 6.0+ only: 4.4/5.0's router code for this was not read */
static void
test_drop (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   simproc_run_json (s, "config", "{\"drop\": \"chunks\"}", &reply);
   snprintf (name, sizeof name, "%s.drop on config 20, nothing dropped", v);
   CHECK (name, code_of (&reply) == 20 && str_is (&reply, "codeName", "IllegalOperation") &&
                   !strcmp (errmsg_of (&reply), "Cannot drop collection in 'config' database in sharded cluster") &&
                   count_config (s, "chunks", "{}") > 0);
   bson_destroy (&reply);
   simproc_run_json (s, "admin", "{\"drop\": \"x\"}", &reply);
   snprintf (name, sizeof name, "%s.drop on admin 20", v);
   CHECK_STR (name, "Cannot drop collection in 'admin' database in sharded cluster", errmsg_of (&reply));
   bson_destroy (&reply);
   simproc_run_json (s, "nosuchdb", "{\"drop\": \"x\"}", &reply);
   snprintf (name, sizeof name, "%s.drop in a missing database: ok, info", v);
   CHECK (name, int_at (&reply, "ok") == 1 && str_is (&reply, "info", "database does not exist"));
   bson_destroy (&reply);
}

/* ---- dropDatabase's reply: cluster_drop_database_cmd.cpp appends dropped on 4.4 only ---- */

static void
test_drop_database (sim_t *s, const char *v)
{
   bson_t reply;
   bson_iter_t it;
   char name[160];
   simproc_run_ok (s, "ddb", "{\"insert\": \"c\", \"documents\": [{\"_id\": 1}]}");
   simproc_run_json (s, "ddb", "{\"dropDatabase\": 1}", &reply);
   snprintf (name, sizeof name, "%s.dropDatabase reply %s", v, strcmp (v, "5.0") < 0 ? "names dropped" : "ok alone");
   CHECK (name, int_at (&reply, "ok") == 1 && (strcmp (v, "5.0") < 0 ? str_is (&reply, "dropped", "ddb")
                                                                     : !bson_iter_init_find (&it, &reply, "dropped")));
   bson_destroy (&reply);
}

/* ---- findAndModify: the shard key (4.4-6.0), the replacement upsert's _id, remove with upsert ---- */

static void
test_fam_shard_key (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   simproc_run_ok (s, "admin", "{\"enableSharding\": \"fm\"}");
   simproc_run_ok (s, "admin", "{\"shardCollection\": \"fm.s\", \"key\": {\"sk\": 1}}");
   simproc_run_ok (s, "fm", "{\"insert\": \"s\", \"documents\": [{\"_id\": 1, \"sk\": 1, \"x\": 1}]}");
   simproc_run_json (s, "fm", "{\"findAndModify\": \"s\", \"query\": {\"x\": 1}, \"update\": {\"$set\": {\"y\": 1}}}",
                     &reply);
   snprintf (name, sizeof name, "%s.findAndModify sharded without the shard key 61 ShardKeyNotFound, nothing changed",
             v);
   CHECK (name, code_of (&reply) == 61 && str_is (&reply, "codeName", "ShardKeyNotFound") &&
                   !strcmp (errmsg_of (&reply), "Query for sharded findAndModify must contain the shard key") &&
                   simproc_count (s, "fm", "s", "{\"y\": 1}") == 0);
   bson_destroy (&reply);
   bool ran = simproc_run_ok (s, "fm",
                              "{\"findAndModify\": \"s\", \"query\": {\"sk\": {\"$eq\": 1}, \"x\": 1}, \"update\": "
                              "{\"$set\": {\"y\": 1}}}");
   simproc_run_json (s, "fm", "{\"findAndModify\": \"s\", \"query\": {\"x\": 1}, \"remove\": true}", &reply);
   snprintf (name, sizeof name, "%s.findAndModify sharded: with the shard key ($eq) runs, a remove without it 61", v);
   CHECK (name, ran && simproc_count (s, "fm", "s", "{\"y\": 1}") == 1 && code_of (&reply) == 61 &&
                   simproc_count (s, "fm", "s", "{}") == 1);
   bson_destroy (&reply);
}

static void
test_fam_upsert_id (sim_t *s, const char *v)
{
   bson_t reply;
   char name[160];
   simproc_run_json (s, "fu",
                     "{\"findAndModify\": \"r\", \"query\": {\"a\": 1}, \"update\": {\"b\": 1, \"_id\": 7}, "
                     "\"upsert\": true, \"new\": true}",
                     &reply);
   snprintf (name, sizeof name, "%s.findAndModify upsert replacement keeps its _id (value, upserted, stored)", v);
   CHECK (name, code_of (&reply) == -1 && int_at (&reply, "value._id") == 7 &&
                   int_at (&reply, "lastErrorObject.upserted") == 7 &&
                   simproc_count (s, "fu", "r", "{\"_id\": 7, \"b\": 1}") == 1);
   bson_destroy (&reply);
   simproc_run_json (s, "fu",
                     "{\"findAndModify\": \"r\", \"query\": {\"_id\": 1}, \"update\": {\"_id\": 2, \"b\": 2}, "
                     "\"upsert\": true}",
                     &reply);
   snprintf (name, sizeof name, "%s.findAndModify upsert replacement other _id than the query's 66, nothing inserted",
             v);
   CHECK (name,
          code_of (&reply) == 66 && str_is (&reply, "codeName", "ImmutableField") &&
             strstr (errmsg_of (&reply), "the (immutable) field '_id' was found to have been altered to _id: 2") &&
             simproc_count (s, "fu", "r", "{\"b\": 2}") == 0);
   bson_destroy (&reply);
   simproc_run_json (s, "fu",
                     "{\"update\": \"r\", \"updates\": [{\"q\": {\"_id\": 3}, \"u\": {\"_id\": 4, \"c\": 1}, "
                     "\"upsert\": true}]}",
                     &reply);
   snprintf (name, sizeof name, "%s.update upsert replacement other _id than the query's: writeError 66", v);
   CHECK (name, int_at (&reply, "writeErrors.0.code") == 66 && simproc_count (s, "fu", "r", "{\"c\": 1}") == 0);
   bson_destroy (&reply);
   simproc_run_json (s, "fu", "{\"findAndModify\": \"r\", \"query\": {}, \"remove\": true, \"upsert\": true}", &reply);
   snprintf (name, sizeof name, "%s.findAndModify remove with upsert 9 upsert text", v);
   CHECK (name,
          code_of (&reply) == 9 && strstr (errmsg_of (&reply), "Cannot specify both upsert=true and remove=true"));
   bson_destroy (&reply);
}

static void
run_version (const char *version)
{
   sim_t s;
   const char *args[] = { "--version", version, "--shards", "2", NULL };
   char pre[32];
   snprintf (pre, sizeof pre, "%s.", version);
   if (!fid_begin (&s, args, pre))
      return;
   test_unique_insert (&s, version);
   test_unique_update (&s, version);
   test_dup_id (&s, version);
   test_create_indexes (&s, version);
   test_current_op (&s, version);
   test_get_log (&s, version);
   test_strict (&s, version);
   test_get_parameter (&s, version);
   test_current_op_stage (&s, version);
   test_drop_database (&s, version);
   test_fam_upsert_id (&s, version);
   if (strcmp (version, "7.0") < 0) {
      test_fam_shard_key (&s, version);
   }
   if (strcmp (version, "4.4") != 0) {
      test_drop (&s, version);
   }
   fid_end (&s, pre);
}

int
main (void)
{
   mongoc_init ();
   mongoc_log_set_handler (NULL, NULL);
   run_version ("4.4");
   run_version ("8.0");
   mongoc_cleanup ();
   UNIT_EXIT ();
}
