/* passes: plain asan */
/* Unit tests for hashkey_value(): MongoDB's hashed-index key (BSONElementHasher::hash64, seed 0).
 *
 * Every expected value below is a test vector from MongoDB's own unit test src/mongo/db/hasher_test.cpp
 * (mongodb/mongo; the HashIntOrLongOrDouble ... HashCodeWScope tests, "determined experimentally" against the
 * server, which hashes the first element of BSON("check" << value) with seed 0). The 42 vector is also the
 * server's start-up self check in src/mongo/db/hasher.cpp. Not used: that file's HashTimeStamp vectors, which
 * date from when Timestamp had the canonical type of Date (45); servers since 3.x give Timestamp its own
 * canonical type 47, so those values no longer hold. */
#include <math.h>
#include <stdint.h>

#include <bson/bson.h>

#include "shell/lib/hashkey.h"
#include "tests/unit/unit.h"

/* The hash of the first element of a document given as canonical extended JSON. */
static bool
hash_json (const char *json, int64_t *out)
{
   bson_error_t error;
   bson_iter_t it;
   bool ok = false;
   bson_t *doc = bson_new_from_json ((const uint8_t *) json, -1, &error);

   if (doc && bson_iter_init (&it, doc) && bson_iter_next (&it)) {
      *out = hashkey_value (bson_iter_value (&it));
      ok = true;
   }
   bson_destroy (doc);
   return ok;
}

static void
check_json (const char *name, const char *json, int64_t expected)
{
   int64_t got = 0;
   if (!hash_json (json, &got)) {
      UNIT_FAIL (name, "could not parse %s", json);
   } else if (got != expected) {
      UNIT_FAIL (name, "%s: expected %" PRId64 " got %" PRId64, json, expected, got);
   } else {
      UNIT_PASS (name);
   }
}

static void
check_value (const char *name, const bson_value_t *v, int64_t expected)
{
   int64_t got = hashkey_value (v);
   if (got != expected) {
      UNIT_FAIL (name, "expected %" PRId64 " got %" PRId64, expected, got);
   } else {
      UNIT_PASS (name);
   }
}

static void
check_double (const char *name, double d, int64_t expected)
{
   bson_value_t v;
   v.value_type = BSON_TYPE_DOUBLE;
   v.value.v_double = d;
   check_value (name, &v, expected);
}

int
main (void)
{
   bson_value_t v;
   bson_t *scope;

   /* hasher_test.cpp HashIntOrLongOrDouble: numbers are squashed to int64 (doubles truncated). */
   check_json ("hash int32 42", "{\"check\": {\"$numberInt\": \"42\"}}", -944302157085130861LL);
   check_json ("hash double 42.123", "{\"check\": {\"$numberDouble\": \"42.123\"}}", -944302157085130861LL);
   check_json ("hash int64 42", "{\"check\": {\"$numberLong\": \"42\"}}", -944302157085130861LL);
   check_json ("hash int32 0", "{\"check\": {\"$numberInt\": \"0\"}}", 4854801880128277513LL);
   check_json ("hash double 0.456", "{\"check\": {\"$numberDouble\": \"0.456\"}}", 4854801880128277513LL);
   check_json ("hash int64 0", "{\"check\": {\"$numberLong\": \"0\"}}", 4854801880128277513LL);
   check_double ("hash NaN is zero", NAN, 4854801880128277513LL);
   check_json ("hash int32 1", "{\"check\": {\"$numberInt\": \"1\"}}", 5902408780260971510LL);
   check_json ("hash double 1.987", "{\"check\": {\"$numberDouble\": \"1.987\"}}", 5902408780260971510LL);
   check_json ("hash int64 1", "{\"check\": {\"$numberLong\": \"1\"}}", 5902408780260971510LL);
   check_json ("hash int32 -1", "{\"check\": {\"$numberInt\": \"-1\"}}", 1140205862565771219LL);
   check_json ("hash double -1.789", "{\"check\": {\"$numberDouble\": \"-1.789\"}}", 1140205862565771219LL);
   check_json ("hash int64 -1", "{\"check\": {\"$numberLong\": \"-1\"}}", 1140205862565771219LL);
   check_json ("hash int32 min", "{\"check\": {\"$numberInt\": \"-2147483648\"}}", 6165898260261354870LL);
   check_double ("hash double int32 min", -2147483648.0, 6165898260261354870LL);
   check_json ("hash int64 int32 min", "{\"check\": {\"$numberLong\": \"-2147483648\"}}", 6165898260261354870LL);
   check_json ("hash int32 max", "{\"check\": {\"$numberInt\": \"2147483647\"}}", 1143184177162245883LL);
   check_double ("hash double int32 max", 2147483647.0, 1143184177162245883LL);
   check_json ("hash int64 int32 max", "{\"check\": {\"$numberLong\": \"2147483647\"}}", 1143184177162245883LL);
   check_double ("hash DBL_MAX clamps to int64 max", 1.7976931348623157e308, 921523596458303250LL);
   check_json ("hash int64 max", "{\"check\": {\"$numberLong\": \"9223372036854775807\"}}", 921523596458303250LL);
   check_double ("hash -DBL_MAX clamps to int64 min", -1.7976931348623157e308, 4532067210535695462LL);
   check_json ("hash int64 min", "{\"check\": {\"$numberLong\": \"-9223372036854775808\"}}", 4532067210535695462LL);
   /* Derived, not server-observed: bsonelement_test.cpp asserts safeNumberLongForHash(2^63 as a double) is int64
    * min, so its hash must equal hasher_test.cpp's int64-min vector. */
   check_double ("hash double 2^63 is int64 min", 9223372036854775808.0, 4532067210535695462LL);
   /* Derived, not server-observed: hasher.cpp squashes Decimal128 through safeNumberLongForHash like every other
    * number, so a decimal must hash like the int64 it squashes to (vectors above). */
   check_json ("hash decimal 42", "{\"check\": {\"$numberDecimal\": \"42\"}}", -944302157085130861LL);
   check_json ("hash decimal 1.2 rounds to 1", "{\"check\": {\"$numberDecimal\": \"1.2\"}}", 5902408780260971510LL);
   check_json ("hash decimal NaN is zero", "{\"check\": {\"$numberDecimal\": \"NaN\"}}", 4854801880128277513LL);
   check_json ("hash decimal 1E+30 clamps", "{\"check\": {\"$numberDecimal\": \"1E+30\"}}", 921523596458303250LL);

   /* HashMinKey, HashMaxKey, HashUndefined, HashNull */
   check_json ("hash MinKey", "{\"check\": {\"$minKey\": 1}}", 7961148599568647290LL);
   check_json ("hash MaxKey", "{\"check\": {\"$maxKey\": 1}}", 5504842513779440750LL);
   check_json ("hash undefined", "{\"check\": {\"$undefined\": true}}", 40158834000849533LL);
   check_json ("hash null", "{\"check\": null}", 2338878944348059895LL);

   /* HashString (symbols hash like strings) */
   check_json ("hash string abc", "{\"check\": \"abc\"}", 8478485326885698097LL);
   check_json ("hash symbol abc", "{\"check\": {\"$symbol\": \"abc\"}}", 8478485326885698097LL);
   check_json ("hash empty string", "{\"check\": \"\"}", 2049396243249673340LL);
   check_json ("hash empty symbol", "{\"check\": {\"$symbol\": \"\"}}", 2049396243249673340LL);

   /* HashObject, HashArray */
   check_json ("hash object", "{\"check\": {\"a\": \"abc\", \"b\": {\"$numberLong\": \"123\"}}}",
               4771603801758380216LL);
   check_json ("hash empty object", "{\"check\": {}}", 7980500913326740417LL);
   check_json ("hash array", "{\"check\": [\"bar\", \"baz\", \"qux\"]}", -2938911267422831539LL);
   check_json ("hash empty array", "{\"check\": []}", 8849948234993459283LL);

   /* HashBinary: bytes 00 01 02 03 04 06 with subtypes 0 and 128; a 16-byte UUID (subtype 4) 00..0f. */
   check_json ("hash binary general", "{\"check\": {\"$binary\": {\"base64\": \"AAECAwQG\", \"subType\": \"00\"}}}",
               7252465090394235301LL);
   check_json ("hash binary custom", "{\"check\": {\"$binary\": {\"base64\": \"AAECAwQG\", \"subType\": \"80\"}}}",
               5736670452907618262LL);
   check_json ("hash binary uuid",
               "{\"check\": {\"$binary\": {\"base64\": \"AAECAwQFBgcICQoLDA0ODw==\", \"subType\": \"04\"}}}",
               6084661258071355978LL);

   /* HashObjectId, HashBoolean */
   check_json ("hash oid 0102..", "{\"check\": {\"$oid\": \"010203040506070809101112\"}}", -5588663249627035708LL);
   check_json ("hash oid zero", "{\"check\": {\"$oid\": \"000000000000000000000000\"}}", -4293118519463489418LL);
   check_json ("hash true", "{\"check\": true}", 6405873908747105701LL);
   check_json ("hash false", "{\"check\": false}", 6289544573401934092LL);

   /* HashTimeStamp's Date halves (Date keeps canonical type 45). */
   check_json ("hash date 0x5566778811223344", "{\"check\": {\"$date\": {\"$numberLong\": \"6153737367135073092\"}}}",
               4476222765095560467LL);
   check_json ("hash date 0", "{\"check\": {\"$date\": {\"$numberLong\": \"0\"}}}", -1178696894582842035LL);

   /* HashRegEx */
   check_json ("hash regex mongodb",
               "{\"check\": {\"$regularExpression\": {\"pattern\": \"mongodb\", \"options\": \"\"}}}",
               -7275792090268217043LL);
   check_json ("hash regex .* i", "{\"check\": {\"$regularExpression\": {\"pattern\": \".*\", \"options\": \"i\"}}}",
               7095855029187981886LL);

   /* HashDBRef (the deprecated DBPointer type) */
   check_json ("hash dbpointer c",
               "{\"check\": {\"$dbPointer\": {\"$ref\": \"c\", \"$id\": {\"$oid\": \"010203040506070809101112\"}}}}",
               940175826736461384LL);
   check_json ("hash dbpointer db.c",
               "{\"check\": {\"$dbPointer\": {\"$ref\": \"db.c\", \"$id\": {\"$oid\": \"010203040506070809101112\"}}}}",
               2426768198104018194LL);

   /* HashCode, HashCodeWScope */
   check_json ("hash code", "{\"check\": {\"$code\": \"func f() { return 1; }\"}}", 6861638109178014270LL);
   scope = BCON_NEW ("c", BCON_BOOL (true));
   v.value_type = BSON_TYPE_CODEWSCOPE;
   v.value.v_codewscope.code = (char *) "func f() { return 1; }";
   v.value.v_codewscope.code_len = (uint32_t) strlen (v.value.v_codewscope.code);
   v.value.v_codewscope.scope_data = (uint8_t *) bson_get_data (scope);
   v.value.v_codewscope.scope_len = scope->len;
   check_value ("hash code with scope", &v, 501342939894575968LL);
   bson_destroy (scope);

   UNIT_EXIT ();
}
