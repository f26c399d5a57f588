/* passes: plain asan */
/* Unit tests for shell/core/output.c: the golden cases in tests/unit/output_cases.txt (each one what mongosh 2.12
 * printed for the same BSON, the command recorded beside it), plus cases built here with BCON and bson_append_*
 * for JSON mode, the options and the edge cases mongosh cannot show. */
#include <bson/bson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shell/core/output.h"
#include "tests/unit/unit.h"

#define CASES_PATH "tests/unit/output_cases.txt"

/* Reads a whole file; NULL if it cannot. Caller frees with bson_free. */
static char *
read_file (const char *path)
{
   FILE *f = fopen (path, "rb");
   bson_string_t *s;
   char buf[4096];
   size_t n;

   if (!f) {
      return NULL;
   }
   s = bson_string_new (NULL);
   while ((n = fread (buf, 1, sizeof buf, f)) > 0) {
      bson_string_append_printf (s, "%.*s", (int) n, buf);
   }
   fclose (f);
   return bson_string_free (s, false);
}

/* The expected text of a case with every "\x1b" turned back into ESC. Caller frees with bson_free. */
static char *
unescape_expected (const char *text)
{
   bson_string_t *s = bson_string_new (NULL);

   for (const char *p = text; *p; p++) {
      if (strncmp (p, "\\x1b", 4) == 0) {
         bson_string_append_c (s, '\x1b');
         p += 3;
      } else {
         bson_string_append_c (s, *p);
      }
   }
   return bson_string_free (s, false);
}

/* Formats one golden case as its kind and variant say; NULL when the case line is malformed. */
static char *
format_case (const char *kind, const char *variant, const bson_t *input)
{
   output_opts_t opts = output_opts_default (OUTPUT_PRETTY, strcmp (variant, "color") == 0);
   bson_iter_t iter;
   bson_t array;
   uint32_t len;
   const uint8_t *data;
   char *result = NULL;

   if (strcmp (variant, "deep") == 0) {
      opts.depth = -1;
   }
   if (strcmp (kind, "doc") == 0) {
      return output_format_doc (input, &opts);
   }
   if (!bson_iter_init_find (&iter, input, "v")) {
      return NULL;
   }
   if (strcmp (kind, "value") == 0) {
      return output_format_value (bson_iter_value (&iter), &opts);
   }
   if (strcmp (kind, "array-oneline") == 0) {
      opts.one_line_key = "chunks";
   } else if (strcmp (kind, "array") != 0) {
      return NULL;
   }
   if (!BSON_ITER_HOLDS_ARRAY (&iter)) {
      return NULL;
   }
   bson_iter_array (&iter, &len, &data);
   if (bson_init_static (&array, data, len)) {
      result = output_format_array (&array, &opts);
   }
   return result;
}

/* What output_write_value writes for value (caller frees with free). */
static char *
write_value (const bson_value_t *value, const output_opts_t *opts, bool *ok)
{
   char *text = NULL;
   size_t len = 0;
   FILE *f = open_memstream (&text, &len);

   *ok = output_write_value (f, value, opts);
   fclose (f);
   return text;
}

/* The golden case written through output_write_value (the streaming path cmd_print_stats takes); NULL as
 * format_case. Caller frees with free. */
static char *
write_case (const char *kind, const char *variant, const bson_t *input)
{
   output_opts_t opts = output_opts_default (OUTPUT_PRETTY, strcmp (variant, "color") == 0);
   bson_iter_t iter;
   bson_value_t v = { .value_type = BSON_TYPE_DOCUMENT };
   bool ok;

   if (strcmp (variant, "deep") == 0) {
      opts.depth = -1;
   }
   if (strcmp (kind, "doc") == 0) {
      v.value.v_doc.data = (uint8_t *) bson_get_data (input);
      v.value.v_doc.data_len = input->len;
      return write_value (&v, &opts, &ok);
   }
   if (!bson_iter_init_find (&iter, input, "v")) {
      return NULL;
   }
   if (strcmp (kind, "array-oneline") == 0) {
      opts.one_line_key = "chunks";
   } else if (strcmp (kind, "value") != 0 && strcmp (kind, "array") != 0) {
      return NULL;
   }
   return write_value (bson_iter_value (&iter), &opts, &ok);
}

/* Runs every case of the golden file. Lines: "=== name kind variant", "# command", input JSON, "---", expected
 * lines up to the next "===" line (the blank line before it is a separator). */
static void
test_golden_cases (void)
{
   const char *path = getenv ("OUTPUT_CASES") ? getenv ("OUTPUT_CASES") : CASES_PATH;
   char *text = read_file (path);
   char *line, *save = NULL;
   int ncases = 0;

   if (!text) {
      UNIT_FAIL ("output_cases", "cannot read %s (run from the repository root or set OUTPUT_CASES)", path);
      return;
   }
   line = strtok_r (text, "\n", &save);
   while (line) {
      char name[128], kind[32], variant[32], label[256];
      const char *json;
      bson_string_t *expected;
      bson_t *input;
      bson_error_t error;
      char *want, *got;

      if (strncmp (line, "=== ", 4) != 0 || sscanf (line + 4, "%127s %31s %31s", name, kind, variant) != 3) {
         line = strtok_r (NULL, "\n", &save);
         continue;
      }
      bson_snprintf (label, sizeof label, "golden %s %s %s", name, kind, variant);
      strtok_r (NULL, "\n", &save); /* the mongosh command */
      json = strtok_r (NULL, "\n", &save);
      line = strtok_r (NULL, "\n", &save); /* --- */
      if (!json || !line || strcmp (line, "---") != 0) {
         UNIT_FAIL (label, "malformed case in %s", path);
         break;
      }
      /* strtok_r skips empty lines, so read the expected block from the raw text after "---\n". */
      {
         const char *start = line + 4;
         const char *end = strstr (start, "\n\n=== ");
         size_t n = end ? (size_t) (end - start) : strlen (start);

         while (n > 0 && start[n - 1] == '\n') {
            n--;
         }
         expected = bson_string_new (NULL);
         bson_string_append_printf (expected, "%.*s", (int) n, start);
         save = end ? (char *) end + 2 : (char *) start + strlen (start);
      }
      ncases++;
      input = bson_new_from_json ((const uint8_t *) json, -1, &error);
      if (!input) {
         UNIT_FAIL (label, "bad input JSON: %s", error.message);
         bson_string_free (expected, true);
         line = strtok_r (NULL, "\n", &save);
         continue;
      }
      want = unescape_expected (expected->str);
      got = format_case (kind, variant, input);
      CHECK_STR (label, want, got);
      bson_free (got);
      got = write_case (kind, variant, input);
      bson_strncpy (label + strlen (label), " written", sizeof label - strlen (label));
      CHECK_STR (label, want, got);
      free (got);
      bson_free (want);
      bson_destroy (input);
      bson_string_free (expected, true);
      line = strtok_r (NULL, "\n", &save);
   }
   CHECK ("golden cases found", ncases >= 50);
   bson_free (text);
}

/* The same command reply as the golden case, built with bson_append_*: the shape every admin helper prints. */
static void
test_command_reply_built (void)
{
   /* mongosh --nodb --quiet --eval "({ ok: 1, '\$clusterTime': { clusterTime: Timestamp({ t: 1700000000, i: 1 }),
    *   signature: { hash: Binary.createFromBase64('AAAAAAAAAAAAAAAAAAAAAAAAAAA=', 0), keyId: Long('0') } },
    *   operationTime: Timestamp({ t: 1700000000, i: 1 }) })" */
   static const char expected[] = "{\n"
                                  "  ok: 1,\n"
                                  "  '$clusterTime': {\n"
                                  "    clusterTime: Timestamp({ t: 1700000000, i: 1 }),\n"
                                  "    signature: {\n"
                                  "      hash: Binary.createFromBase64('AAAAAAAAAAAAAAAAAAAAAAAAAAA=', 0),\n"
                                  "      keyId: Long('0')\n"
                                  "    }\n"
                                  "  },\n"
                                  "  operationTime: Timestamp({ t: 1700000000, i: 1 })\n"
                                  "}";
   static const uint8_t hash[20] = { 0 };
   bson_t reply = BSON_INITIALIZER, cluster_time, signature;
   output_opts_t opts = output_opts_default (OUTPUT_PRETTY, false);
   char *s;

   bson_append_double (&reply, "ok", -1, 1.0);
   bson_append_document_begin (&reply, "$clusterTime", -1, &cluster_time);
   bson_append_timestamp (&cluster_time, "clusterTime", -1, 1700000000, 1);
   bson_append_document_begin (&cluster_time, "signature", -1, &signature);
   bson_append_binary (&signature, "hash", -1, BSON_SUBTYPE_BINARY, hash, sizeof hash);
   bson_append_int64 (&signature, "keyId", -1, 0);
   bson_append_document_end (&cluster_time, &signature);
   bson_append_document_end (&reply, &cluster_time);
   bson_append_timestamp (&reply, "operationTime", -1, 1700000000, 1);

   s = output_format_doc (&reply, &opts);
   CHECK_STR ("command reply built with bson_append", expected, s);
   bson_free (s);

   opts = output_opts_default (OUTPUT_JSON, false);
   s = output_format_doc (&reply, &opts);
   CHECK_STR ("command reply as relaxed JSON",
              "{ \"ok\" : 1.0, \"$clusterTime\" : { \"clusterTime\" : { \"$timestamp\" : { \"t\" : 1700000000, "
              "\"i\" : 1 } }, \"signature\" : { \"hash\" : { \"$binary\" : { "
              "\"base64\" : \"AAAAAAAAAAAAAAAAAAAAAAAAAAA=\", \"subType\" : \"00\" } }, "
              "\"keyId\" : 0 } }, \"operationTime\" : { \"$timestamp\" : { \"t\" : "
              "1700000000, \"i\" : 1 } } }",
              s);
   CHECK ("relaxed JSON is one line", s && !strchr (s, '\n'));
   bson_free (s);
   bson_destroy (&reply);
}

/* A balancerStatus-like reply and shard documents built with BCON. */
static void
test_bcon_documents (void)
{
   /* mongosh --nodb --quiet --eval "({ mode: 'full', inBalancerRound: false, numBalancerRounds: Long('123'), ok: 1 })"
    * (88 columns counted the util.inspect way, so one entry per line) */
   bson_t *status = BCON_NEW ("mode", "full", "inBalancerRound", BCON_BOOL (false), "numBalancerRounds",
                              BCON_INT64 (123), "ok", BCON_DOUBLE (1.0));
   /* mongosh --nodb --quiet --eval "({ mode: 'full', inBalancerRound: false, ok: 1 })" */
   bson_t *short_status = BCON_NEW ("mode", "full", "inBalancerRound", BCON_BOOL (false), "ok", BCON_DOUBLE (1.0));
   /* mongosh --nodb --quiet --eval "[ { _id: 'shard01', host: 'shard01/h1:27018,h2:27018', state: 1 },
    *   { _id: 'shard02', host: 'shard02/h3:27018,h4:27018', state: 1 } ]" */
   bson_t *shards =
      BCON_NEW ("0", "{", "_id", "shard01", "host", "shard01/h1:27018,h2:27018", "state", BCON_INT32 (1), "}", "1", "{",
                "_id", "shard02", "host", "shard02/h3:27018,h4:27018", "state", BCON_INT32 (1), "}");
   output_opts_t opts = output_opts_default (OUTPUT_PRETTY, false);
   char *s;

   s = output_format_doc (status, &opts);
   CHECK_STR ("balancer status",
              "{\n  mode: 'full',\n  inBalancerRound: false,\n  numBalancerRounds: Long('123'),\n  ok: 1\n}", s);
   bson_free (s);
   s = output_format_doc (short_status, &opts);
   CHECK_STR ("short balancer status on one line", "{ mode: 'full', inBalancerRound: false, ok: 1 }", s);
   bson_free (s);

   s = output_format_array (shards, &opts);
   CHECK_STR ("shard list",
              "[\n"
              "  { _id: 'shard01', host: 'shard01/h1:27018,h2:27018', state: 1 },\n"
              "  { _id: 'shard02', host: 'shard02/h3:27018,h4:27018', state: 1 }\n"
              "]",
              s);
   bson_free (s);

   opts.mode = OUTPUT_JSON;
   s = output_format_array (shards, &opts);
   CHECK_STR ("shard list as JSON array",
              "[ { \"_id\" : \"shard01\", \"host\" : \"shard01/h1:27018,h2:27018\", \"state\" : 1 }, { \"_id\" : "
              "\"shard02\", \"host\" : \"shard02/h3:27018,h4:27018\", \"state\" : 1 } ]",
              s);
   bson_free (s);

   bson_destroy (status);
   bson_destroy (short_status);
   bson_destroy (shards);
}

/* output_format_value at top level, both modes. */
static void
test_values (void)
{
   output_opts_t pretty = output_opts_default (OUTPUT_PRETTY, false);
   output_opts_t json = output_opts_default (OUTPUT_JSON, false);
   bson_value_t v;
   char *s;

   /* mongosh --nodb --quiet --eval "('it\'s')" prints: it's */
   v.value_type = BSON_TYPE_UTF8;
   v.value.v_utf8.str = (char *) "it's";
   v.value.v_utf8.len = 4;
   s = output_format_value (&v, &pretty);
   CHECK_STR ("top-level string is raw", "it's", s);
   bson_free (s);
   s = output_format_value (&v, &json);
   CHECK_STR ("top-level string in JSON is quoted", "\"it's\"", s);
   bson_free (s);

   /* --json prints a double as a person would (mongosh's EJSON.stringify: 19.7), not libbson's 20 digits
    * (19.699999999999999289); 1.0 stays a double; a string that looks like a number is left alone */
   {
      bson_t *d = BCON_NEW ("pct", BCON_DOUBLE (19.7), "one", BCON_DOUBLE (1.0), "tiny", BCON_DOUBLE (0.1 + 0.2), "big",
                            BCON_DOUBLE (1.7976931348623157e308), "s", BCON_UTF8 ("19.699999999999999289"));
      s = output_format_doc (d, &json);
      CHECK_STR ("json doubles shortest",
                 "{ \"pct\" : 19.7, \"one\" : 1.0, \"tiny\" : 0.30000000000000004, \"big\" : "
                 "1.7976931348623157e+308, \"s\" : \"19.699999999999999289\" }",
                 s);
      bson_free (s);
      v.value_type = BSON_TYPE_DOUBLE;
      v.value.v_double = 19.7;
      s = output_format_value (&v, &json);
      CHECK_STR ("json top-level double shortest", "19.7", s);
      bson_free (s);
      bson_destroy (d);
   }

   /* mongosh --nodb --quiet --eval "true" prints: true */
   v.value_type = BSON_TYPE_BOOL;
   v.value.v_bool = true;
   s = output_format_value (&v, &pretty);
   CHECK_STR ("top-level boolean", "true", s);
   bson_free (s);
   s = output_format_value (&v, &json);
   CHECK_STR ("top-level boolean in JSON", "true", s);
   bson_free (s);

   /* mongosh --nodb --quiet --eval "Long('5')" prints: Long('5'); relaxed JSON gives the bare number */
   v.value_type = BSON_TYPE_INT64;
   v.value.v_int64 = 5;
   s = output_format_value (&v, &pretty);
   CHECK_STR ("top-level long", "Long('5')", s);
   bson_free (s);
   s = output_format_value (&v, &json);
   CHECK_STR ("top-level long in JSON", "5", s);
   bson_free (s);

   /* mongosh --nodb --quiet --eval "undefined" prints nothing */
   v.value_type = BSON_TYPE_UNDEFINED;
   s = output_format_value (&v, &pretty);
   CHECK_STR ("top-level undefined prints nothing", "", s);
   bson_free (s);

   /* mongosh --nodb --quiet --eval "-0" prints: -0 */
   v.value_type = BSON_TYPE_DOUBLE;
   v.value.v_double = -0.0;
   s = output_format_value (&v, &pretty);
   CHECK_STR ("top-level negative zero", "-0", s);
   bson_free (s);

   /* mongosh --nodb --quiet --eval "1e21" prints: 1e+21 */
   v.value.v_double = 1e21;
   s = output_format_value (&v, &pretty);
   CHECK_STR ("top-level 1e21", "1e+21", s);
   bson_free (s);

   /* mongosh --nodb --quiet --eval "0.1 + 0.2" prints: 0.30000000000000004 */
   v.value.v_double = 0.1 + 0.2;
   s = output_format_value (&v, &pretty);
   CHECK_STR ("top-level shortest round trip", "0.30000000000000004", s);
   bson_free (s);

   s = output_format_value (NULL, &pretty);
   CHECK_STR ("NULL value", "", s);
   bson_free (s);
}

/* Options that mongosh itself does not expose in --eval, and inputs it cannot produce. */
static void
test_options_and_edges (void)
{
   output_opts_t opts = output_opts_default (OUTPUT_PRETTY, false);
   bson_t *doc = BCON_NEW ("a", "[", BCON_INT32 (1), BCON_INT32 (2), "]", "b", "{", "c", "x", "}");
   bson_t *wide = bson_new ();
   bson_t empty = BSON_INITIALIZER;
   bson_t corrupt;
   static const uint8_t bad[] = { 12, 0, 0, 0, 0x02, 'a', 0, 5, 0, 0, 0, 0 }; /* string longer than the document */
   char *s;

   CHECK ("default break length", opts.break_length == 80);
   CHECK ("default depth", opts.depth == 6);
   CHECK ("default one-line key", opts.one_line_key == NULL);

   for (int i = 0; i < 12; i++) {
      char key[16];

      bson_snprintf (key, sizeof key, "field%d", i);
      bson_append_utf8 (wide, key, -1, "value", -1);
   }
   s = output_format_doc (wide, &opts);
   CHECK ("80 columns break a wide document", s && strchr (s, '\n'));
   bson_free (s);

   opts.break_length = 0; /* like breakLength: Infinity */
   s = output_format_doc (wide, &opts);
   CHECK ("break_length 0 keeps it on one line", s && !strchr (s, '\n'));
   bson_free (s);
   opts.break_length = 80;

   /* mongosh --nodb --quiet --eval "({ a: [1, 2], b: { c: 'x' } })" prints { a: [ 1, 2 ], b: { c: 'x' } } */
   s = output_format_doc (doc, &opts);
   CHECK_STR ("small document", "{ a: [ 1, 2 ], b: { c: 'x' } }", s);
   bson_free (s);

   opts.depth = 0;
   s = output_format_doc (doc, &opts);
   CHECK_STR ("depth 0 shows children as [Array]/[Object]", "{ a: [Array], b: [Object] }", s);
   bson_free (s);
   opts.depth = 6;

   s = output_format_doc (&empty, &opts);
   CHECK_STR ("empty document", "{}", s);
   bson_free (s);
   s = output_format_array (&empty, &opts);
   CHECK_STR ("empty array", "[]", s);
   bson_free (s);

   /* script -qc "mongosh --nodb --quiet --eval \"({ a: [1, 2], b: { c: 'x' } })\"" /dev/null */
   opts.color = true;
   s = output_format_doc (doc, &opts);
   CHECK_STR ("colours", "{ a: [ \x1b[33m1\x1b[39m, \x1b[33m2\x1b[39m ], b: { c: \x1b[32m'x'\x1b[39m } }", s);
   bson_free (s);
   opts.color = false;

   CHECK ("corrupt input is static-initialisable", bson_init_static (&corrupt, bad, sizeof bad));
   s = output_format_doc (&corrupt, &opts);
   CHECK_STR ("corrupt document", OUTPUT_INVALID_BSON, s);
   bson_free (s);

   s = output_format_doc (NULL, &opts);
   CHECK_STR ("NULL document", "null", s);
   bson_free (s);

   opts.mode = OUTPUT_JSON;
   s = output_format_doc (&empty, &opts);
   CHECK_STR ("empty document as JSON", "{ }", s);
   bson_free (s);

   bson_destroy (doc);
   bson_destroy (wide);
}

/* fopencookie's write: counts the writes that reach the stream. */
static ssize_t
count_write (void *cookie, const char *buf, size_t size)
{
   (void) buf;
   (*(int *) cookie)++;
   return (ssize_t) size;
}

/* output_write_value on a value whose text is megabytes (sh.status's shape on a big cluster: a per-collection array
 * of per-shard documents, plus a long array of numbers that groups into columns): the same text as
 * output_format_value, written in several pieces as it goes, and a failed write reported. */
static void
test_write_large (void)
{
   bson_t doc = BSON_INITIALIZER, dist, nums;
   bson_value_t v = { .value_type = BSON_TYPE_DOCUMENT };
   output_opts_t opts = output_opts_default (OUTPUT_PRETTY, false);
   cookie_io_functions_t io = { .write = count_write };
   int writes = 0;
   char *want, *got;
   bool ok;
   FILE *f;

   BSON_APPEND_ARRAY_BEGIN (&doc, "shardedDataDistribution", &dist);
   for (int i = 0; i < 300; i++) {
      bson_t coll, shards, row;
      char k[16], ns[32], shard[32];
      bson_snprintf (k, sizeof k, "%d", i);
      bson_snprintf (ns, sizeof ns, "db%d.coll", i);
      BSON_APPEND_DOCUMENT_BEGIN (&dist, k, &coll);
      BSON_APPEND_UTF8 (&coll, "ns", ns);
      BSON_APPEND_ARRAY_BEGIN (&coll, "shards", &shards);
      for (int j = 0; j < 60; j++) {
         bson_snprintf (k, sizeof k, "%d", j);
         bson_snprintf (shard, sizeof shard, "shard%04d", j);
         BSON_APPEND_DOCUMENT_BEGIN (&shards, k, &row);
         BSON_APPEND_UTF8 (&row, "shardName", shard);
         BSON_APPEND_INT64 (&row, "numOwnedDocuments", (int64_t) i * j);
         bson_append_document_end (&shards, &row);
      }
      bson_append_array_end (&coll, &shards);
      bson_append_document_end (&dist, &coll);
   }
   bson_append_array_end (&doc, &dist);
   BSON_APPEND_ARRAY_BEGIN (&doc, "numbers", &nums);
   for (int i = 0; i < 5000; i++) {
      char k[16];
      bson_snprintf (k, sizeof k, "%d", i);
      BSON_APPEND_INT32 (&nums, k, i % 97);
   }
   bson_append_array_end (&doc, &nums);
   v.value.v_doc.data = (uint8_t *) bson_get_data (&doc);
   v.value.v_doc.data_len = doc.len;

   for (int deep = 0; deep < 2; deep++) {
      opts.depth = deep ? -1 : 6;
      want = output_format_value (&v, &opts);
      got = write_value (&v, &opts, &ok);
      CHECK (deep ? "write_large deep: written" : "write_large: written", ok);
      CHECK_STR (deep ? "write_large deep: same text" : "write_large: same text", want, got);
      CHECK (deep ? "write_large deep: over a megabyte" : "write_large: over 256 KiB",
             strlen (want) > (deep ? 1000000u : 262144u));
      bson_free (want);
      free (got);
   }

   f = fopencookie (&writes, "w", io);
   setvbuf (f, NULL, _IONBF, 0);
   CHECK ("write_large: to a counting stream", output_write_value (f, &v, &opts));
   fclose (f);
   CHECK ("write_large: written in pieces as it goes", writes >= 4);

   f = fopen ("/dev/full", "w");
   if (f) {
      setvbuf (f, NULL, _IONBF, 0);
      CHECK ("write_large: a failed write is reported", !output_write_value (f, &v, &opts));
      fclose (f);
   }
   bson_destroy (&doc);
}

int
main (void)
{
   test_golden_cases ();
   test_command_reply_built ();
   test_bcon_documents ();
   test_values ();
   test_options_and_edges ();
   test_write_large ();
   UNIT_EXIT ();
}
