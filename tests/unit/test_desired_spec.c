/* passes: plain asan */
/* The spec check of --export/--diff (shell/desired/spec.c, docs/desired-state.md): every invalid spec is refused at
 * the offending value's line:col with what was expected, and a valid one comes out in canonical form (names and zone
 * lists sorted, ranges sorted by min, numbers as the export writes them). Nothing here needs a cluster. */
#include <stdlib.h>

#include "shell/core/output.h"
#include "shell/desired/desired.h"
#include "tests/unit/unit.h"

typedef struct {
   const char *name;
   const char *spec;
   int line, col;
   const char *msg; /* substring of the error message */
} bad_case_t;

static const bad_case_t bad[] = {
   { "syntax", "{ balancer: { stopped: true,, } }", 1, 29, "" },
   { "not a document", "[1, 2]", 1, 1, "expected one document" },
   { "unknown top field", "{\n  zones: {} }", 2, 10,
     "expected one of balancer, shards, collections, got the field zones" },
   { "balancer not a document", "{ balancer: 5 }", 1, 13, "balancer: expected a document, got a number" },
   { "stopped not a boolean", "{ balancer: { stopped: 'yes' } }", 1, 24,
     "balancer.stopped: expected true or false, got a string" },
   { "unknown balancer field", "{ balancer: { mode: 'full' } }", 1, 21, "expected one of stopped, activeWindow" },
   { "chunk size out of range", "{ balancer: { chunkSizeMB: 4096 } }", 1, 28,
     "whole number of megabytes from 1 to 1024" },
   { "chunk size fraction", "{ balancer: { chunkSizeMB: 1.5 } }", 1, 28, "whole number of megabytes" },
   { "window not a document", "{ balancer: { activeWindow: '1-5' } }", 1, 29,
     "expected { start: \"HH:MM\", stop: \"HH:MM\" } or null" },
   { "window bad time", "{ balancer: { activeWindow: { start: '25:00', stop: '05:00' } } }", 1, 38,
     "activeWindow.start: expected a time \"HH:MM\" (00:00 to 23:59), got 25:00" },
   { "window missing stop", "{ balancer: { activeWindow: { start: '01:00' } } }", 1, 29,
     "expected both start and stop, stop is missing" },
   { "shards not a document", "{ shards: ['a'] }", 1, 11, "shards: expected a document" },
   { "shard not a document", "{ shards: { s1: 1 } }", 1, 17, "shards.s1: expected a document" },
   { "shard zones not an array", "{ shards: { s1: { zones: 'NYC' } } }", 1, 26,
     "shards.s1.zones: expected an array of zone names" },
   { "shard zone not a string", "{ shards: { s1: { zones: ['NYC', 3] } } }", 1, 34,
     "shards.s1.zones.1: expected a zone name" },
   { "shard zone twice", "{ shards: { s1: { zones: ['NYC', 'NYC'] } } }", 1, 26, "NYC is listed twice" },
   { "shard unknown field", "{ shards: { s1: { tags: [] } } }", 1, 25,
     "expected zones, draining or allowDrain, got the field tags" },
   { "draining not a boolean", "{ shards: { s1: { draining: 1 } } }", 1, 29,
     "shards.s1.draining: expected true or false" },
   { "bad namespace", "{ collections: { orders: {} } }", 1, 26,
     "expected a namespace \"db.collection\", got \"orders\"" },
   { "namespace with $", "{ collections: { 'a.$x': {} } }", 1, 26, "got \"a.$x\": the collection name contains $" },
   { "namespace with a space", "{ collections: { 'a b.c': {} } }", 1, 27,
     "got \"a b.c\": the database name contains one of" },
   { "namespace without a database", "{ collections: { '.c': {} } }", 1, 24, "the database name is empty" },
   { "namespace without a collection", "{ collections: { 'a.': {} } }", 1, 24, "the collection name is empty" },
   { "collection not a document", "{ collections: { 'a.b': true } }", 1, 25, "collections.a.b: expected a document" },
   { "key not a document", "{ collections: { 'a.b': { key: 'x' } } }", 1, 32, "expected a shard key document" },
   { "key bad direction", "{ collections: { 'a.b': { key: { x: -1 } } } }", 1, 32,
     "expected 1 or \"hashed\" for the key field x" },
   { "key empty", "{ collections: { 'a.b': { key: {} } } }", 1, 32, "expected at least one key field" },
   { "balancing not a boolean", "{ collections: { 'a.b': { balancing: 'off' } } }", 1, 38, "expected true or false" },
   { "collection chunk size", "{ collections: { 'a.b': { chunkSizeMB: 0 } } }", 1, 40, "from 1 to 1024, or null" },
   { "unknown collection field", "{ collections: { 'a.b': { noBalance: true } } }", 1, 38, "got the field noBalance" },
   { "zones not an array", "{ collections: { 'a.b': { zones: {} } } }", 1, 34, "expected an array of ranges" },
   { "range not a document", "{ collections: { 'a.b': { zones: [1] } } }", 1, 35, "expected a range" },
   { "range without zone", "{ collections: { 'a.b': { zones: [\n  { min: { x: 1 }, max: { x: 2 } }] } } }", 2, 3,
     "zone is missing" },
   { "range min not a document", "{ collections: { 'a.b': { zones: [{ zone: 'A', min: 1, max: { x: 2 } }] } } }", 1, 53,
     "zones.0.min: expected a document of shard key values" },
   { "range max below min", "{ collections: { 'a.b': { zones: [{ zone: 'A', min: { x: 5 }, max: { x: 2 } }] } } }", 1,
     68, "zones.0.max: expected max above min" },
   { "range unknown field", "{ collections: { 'a.b': { zones: [{ tag: 'A' }] } } }", 1, 42,
     "expected zone, min or max, got the field tag" },
   { "ranges overlap",
     "{ collections: { 'a.b': { zones: [\n  { zone: 'B', min: { x: 5 }, max: { x: 9 } },\n  { zone: 'A', min: { x: 1 "
     "}, max: { x: 6 } }] } } }",
     3, 3, "zones.1: expected ranges that do not overlap: this one overlaps the range of zone B" },
};

static void
check_bad (const bad_case_t *c)
{
   bson_t out;
   sh_error_t err;
   char name[200];
   bool ok = desired_spec_parse ("spec.js", c->spec, strlen (c->spec), &out, &err);
   bson_snprintf (name, sizeof name, "spec refused: %s", c->name);
   if (ok) {
      UNIT_FAIL (name, "accepted");
   } else if (!err.has_pos || err.pos.line != c->line || err.pos.col != c->col || !strstr (err.message, c->msg)) {
      UNIT_FAIL (name, "got %d:%d %s, expected %d:%d ...%s...", err.pos.line, err.pos.col, err.message, c->line, c->col,
                 c->msg);
   } else {
      UNIT_PASS (name);
   }
   CHECK ("spec refused: the output is empty", bson_empty (&out));
   bson_destroy (&out);
}

static void
check_canonical (void)
{
   const char *spec = "// a comment\n"
                      "{ collections: { 'app.b': { zones: [ { zone: 'Z', min: { k: 50 }, max: { k: MaxKey } },\n"
                      "                                   { zone: 'A', min: { k: MinKey }, max: { k: 10 } } ],\n"
                      "                            key: { k: 1.0 }, chunkSizeMB: null },\n"
                      "                 'app.a': { balancing: false } },\n"
                      "  shards: { s2: { zones: ['b', 'a'] }, s1: { draining: true } },\n"
                      "  balancer: { activeWindow: { stop: '05:00', start: '01:00' }, chunkSizeMB: 64.0 } }";
   bson_t out;
   sh_error_t err;
   char buf[2048];
   bool ok = desired_spec_parse ("spec.js", spec, strlen (spec), &out, &err);
   CHECK ("spec accepted", ok);
   output_format_doc_line (&out, buf, sizeof buf);
   for (char *r = buf, *w = buf;; r++) { /* one line: each line break and its indentation as one space */
      if (*r == '\n') {
         while (r[1] == ' ')
            r++;
         *r = ' ';
      }
      if (!(*w++ = *r))
         break;
   }
   CHECK_STR ("spec canonical: balancer first, names and zones sorted, ranges by min, numbers as integers",
              "{ balancer: { activeWindow: { stop: '05:00', start: '01:00' }, chunkSizeMB: 64 }, shards: { s1: { "
              "draining: true }, s2: { zones: [ 'a', 'b' ] } }, collections: { 'app.a': { balancing: false }, 'app.b': "
              "{ zones: [ { zone: 'A', min: { k: MinKey() }, max: { k: 10 } }, { zone: 'Z', min: { k: 50 }, max: { k: "
              "MaxKey() } } ], key: { k: 1 }, chunkSizeMB: null } } }",
              buf);
   bson_destroy (&out);
}

int
main (void)
{
   for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
      check_bad (&bad[i]);
   check_canonical ();
   UNIT_EXIT ();
}
