/* passes: plain asan */
/* Unit tests for the mongosh-literal lexer and parser (shell/lang/lexer.c, shell/lang/parser.c) and for caret rendering
 * (shell/core/errors.c). Most cases live in tests/unit/parser_cases.txt; the ones that need C (random values, deep
 * nesting, argument positions, rendering, a small mutation fuzz) are written out below. */
#include <bson/bson.h>
#include <stdlib.h>
#include <string.h>

#include "shell/core/errors.h"
#include "shell/lang/parser.h"
#include "tests/unit/unit.h"

#define CASES_PATH "tests/unit/parser_cases.txt"

/* Decodes the table's input notation: \n \t \r \0 \xHH and \\ (one backslash); other characters stay as they are. */
static char *
decode_input (const char *s, size_t *len)
{
   size_t n = strlen (s), i, o = 0;
   char *out = bson_malloc (n + 1);

   for (i = 0; i < n; i++) {
      if (s[i] != '\\' || i + 1 >= n) {
         out[o++] = s[i];
         continue;
      }
      i++;
      switch (s[i]) {
      case 'n':
         out[o++] = '\n';
         break;
      case 't':
         out[o++] = '\t';
         break;
      case 'r':
         out[o++] = '\r';
         break;
      case '0':
         out[o++] = '\0';
         break;
      case 'x': {
         char hex[3] = { 0 };

         if (i + 2 < n) {
            hex[0] = s[i + 1];
            hex[1] = s[i + 2];
         }
         out[o++] = (char) strtol (hex, NULL, 16);
         i += 2;
         break;
      }
      default:
         out[o++] = s[i];
         break;
      }
   }
   out[o] = '\0';
   *len = o;
   return out;
}

/* Removes the white space outside strings from JSON, so expectations can be written compactly. */
static char *
compact_json (const char *json)
{
   char *out = bson_malloc (strlen (json) + 1);
   bool in_str = false;
   size_t o = 0;

   for (; *json; json++) {
      if (in_str) {
         out[o++] = *json;
         if (*json == '\\' && json[1]) {
            out[o++] = *++json;
         } else if (*json == '"') {
            in_str = false;
         }
      } else if (*json == '"') {
         in_str = true;
         out[o++] = *json;
      } else if (*json != ' ' && *json != '\n') {
         out[o++] = *json;
      }
   }
   out[o] = '\0';
   return out;
}

/* Compact canonical Extended JSON of doc with the first `skip` and last `trim` characters cut off. */
static void
append_json (bson_string_t *out, const bson_t *doc, size_t skip, size_t trim)
{
   char *json = bson_as_canonical_extended_json (doc, NULL);
   char *compact = compact_json (json);
   size_t len = strlen (compact);

   if (len >= skip + trim) {
      bson_string_append_printf (out, "%.*s", (int) (len - skip - trim), compact + skip);
   }
   bson_free (compact);
   bson_free (json);
}

/* The value under key "v" as compact canonical Extended JSON. */
static char *
value_json (const bson_t *doc)
{
   bson_string_t *out = bson_string_new (NULL);

   append_json (out, doc, strlen ("{\"v\":"), 1);
   return bson_string_free (out, false);
}

/* Renders statements as the table writes them: sh.x("a",{"b":...}) ; use app ; show dbs ; help topic ; exit. */
static char *
render_script (const sh_script_t *script)
{
   bson_string_t *out = bson_string_new (NULL);
   size_t i, k;

   for (i = 0; i < script->n; i++) {
      const sh_stmt_t *st = &script->stmts[i];

      if (i > 0) {
         bson_string_append (out, " ; ");
      }
      switch (st->kind) {
      case SH_STMT_USE:
         bson_string_append_printf (out, "use %s", st->word);
         break;
      case SH_STMT_SHOW:
         bson_string_append_printf (out, "show %s%s%s", st->word, st->word2 ? " " : "", st->word2 ? st->word2 : "");
         break;
      case SH_STMT_HELP:
         bson_string_append_printf (out, "help%s%s", st->word ? " " : "", st->word ? st->word : "");
         break;
      case SH_STMT_EXIT:
         bson_string_append (out, "exit");
         break;
      case SH_STMT_CHAIN:
         for (k = 0; k < st->nsegs; k++) {
            const sh_seg_t *seg = &st->segs[k];

            if (seg->bracket) {
               bson_string_append_printf (out, "[\"%s\"]", seg->name);
            } else {
               bson_string_append_printf (out, "%s%s", k ? "." : "", seg->name);
            }
            if (seg->is_call) {
               bson_t wrap = BSON_INITIALIZER;

               bson_append_array (&wrap, "a", 1, &seg->args);
               bson_string_append (out, "(");
               append_json (out, &wrap, strlen ("{\"a\":["), 2);
               bson_string_append (out, ")");
               bson_destroy (&wrap);
            }
         }
         break;
      }
   }
   if (script->n == 0) {
      bson_string_append (out, "(none)");
   }
   return bson_string_free (out, false);
}

static const char *
type_name (bson_type_t t)
{
   switch (t) {
   case BSON_TYPE_OID:
      return "oid";
   case BSON_TYPE_DATE_TIME:
      return "date";
   case BSON_TYPE_UTF8:
      return "utf8";
   case BSON_TYPE_BINARY:
      return "binary";
   case BSON_TYPE_INT32:
      return "int32";
   case BSON_TYPE_DOUBLE:
      return "double";
   default:
      return "other";
   }
}

/* Checks an error against "L:C substring". */
static void
check_error (const char *name, const sh_error_t *err, const char *expected)
{
   int line = 0, col = 0, used = 0;
   const char *want;

   if (sscanf (expected, "%d:%d %n", &line, &col, &used) < 2) {
      UNIT_FAIL (name, "bad expectation [%s]", expected);
      return;
   }
   want = expected + used;
   if (err->kind != SH_ERR_PARSE || !err->has_pos) {
      UNIT_FAIL (name, "expected a parse error with a position, got kind %d [%s]", (int) err->kind, err->message);
   } else if (err->pos.line != line || err->pos.col != col || !strstr (err->message, want)) {
      UNIT_FAIL (name, "expected %d:%d [%s], got %d:%d [%s]", line, col, want, err->pos.line, err->pos.col,
                 err->message);
   } else {
      UNIT_PASS (name);
   }
}

static void
run_case (const char *name, const char *kind, const char *text, size_t len, const char *expected)
{
   char *input = bson_malloc (len ? len : 1); /* exact size and not NUL-terminated: over-reads show up */
   sh_script_t script = { 0 };
   sh_error_t err;
   bson_t doc = BSON_INITIALIZER;
   char *got = NULL;

   memcpy (input, text, len);
   if (strcmp (kind, "value") == 0 || strcmp (kind, "type") == 0 || strcmp (kind, "verror") == 0) {
      bool ok = sh_parse_value (input, len, &doc, "v", &err);

      if (strcmp (kind, "verror") == 0) {
         if (ok) {
            got = value_json (&doc);
            UNIT_FAIL (name, "expected an error, parsed %s", got);
         } else {
            check_error (name, &err, expected);
         }
      } else if (!ok) {
         UNIT_FAIL (name, "%d:%d %s", err.pos.line, err.pos.col, err.message);
      } else if (strcmp (kind, "type") == 0) {
         bson_iter_t it;

         bson_iter_init_find (&it, &doc, "v");
         CHECK_STR (name, expected, type_name (bson_iter_type (&it)));
      } else {
         got = value_json (&doc);
         CHECK_STR (name, expected, got);
      }
   } else if (strcmp (kind, "stmt") == 0 || strcmp (kind, "error") == 0 || strcmp (kind, "pos") == 0) {
      bool ok = sh_parse_script ("<test>", input, len, &script, &err);

      if (strcmp (kind, "error") == 0) {
         if (ok) {
            got = render_script (&script);
            UNIT_FAIL (name, "expected an error, parsed %s", got);
         } else {
            check_error (name, &err, expected);
            CHECK (name, script.n == 0 && script.stmts == NULL && script.source == NULL);
         }
      } else if (!ok) {
         UNIT_FAIL (name, "%d:%d %s", err.pos.line, err.pos.col, err.message);
      } else if (strcmp (kind, "pos") == 0) {
         bson_string_t *s = bson_string_new (NULL);
         size_t i;

         for (i = 0; i < script.n; i++) {
            bson_string_append_printf (s, "%s%d:%d", i ? " " : "", script.stmts[i].pos.line, script.stmts[i].pos.col);
         }
         got = bson_string_free (s, false);
         CHECK_STR (name, expected, got);
      } else {
         got = render_script (&script);
         CHECK_STR (name, expected, got);
      }
   } else if (strcmp (kind, "more") == 0) {
      CHECK_STR (name, expected, sh_parse_needs_more (input, len) ? "yes" : "no");
   } else {
      UNIT_FAIL (name, "unknown case kind '%s'", kind);
   }
   bson_free (got);
   bson_free (input);
   bson_destroy (&doc);
   sh_script_destroy (&script);
}

/* Runs every case of the table; returns how many there were. Each input is also kept for the mutation fuzz. */
static int
test_table (char ***inputs, size_t **lens)
{
   const char *path = getenv ("PARSER_CASES") ? getenv ("PARSER_CASES") : CASES_PATH;
   FILE *f = fopen (path, "r");
   char line[4096];
   int lineno = 0, ncases = 0;

   *inputs = NULL;
   *lens = NULL;
   if (!f) {
      UNIT_FAIL ("parser_cases", "cannot read %s (run from the repository root or set PARSER_CASES)", path);
      return 0;
   }
   while (fgets (line, sizeof line, f)) {
      char kind[16], name[160];
      char *sep, *input, *expected, *decoded;
      size_t len, n = strcspn (line, "\r\n");

      lineno++;
      line[n] = '\0';
      if (line[0] == '#' || line[0] == '\0') {
         continue;
      }
      sep = strstr (line, " ==> ");
      n = strcspn (line, " ");
      if (!sep || n == 0 || n >= sizeof kind || line + n > sep) {
         snprintf (name, sizeof name, "parser_cases:%d", lineno);
         UNIT_FAIL (name, "malformed line (want KIND INPUT ==> EXPECTED)");
         continue;
      }
      memcpy (kind, line, n);
      kind[n] = '\0';
      *sep = '\0';
      input = line + n + (line[n] == ' ' ? 1 : 0);
      expected = sep + 5;
      decoded = decode_input (input, &len);
      snprintf (name, sizeof name, "parser_cases:%d %s %.60s", lineno, kind, input);
      run_case (name, kind, decoded, len, expected);
      *inputs = bson_realloc (*inputs, (size_t) (ncases + 1) * sizeof (char *));
      *lens = bson_realloc (*lens, (size_t) (ncases + 1) * sizeof (size_t));
      (*inputs)[ncases] = decoded;
      (*lens)[ncases] = len;
      ncases++;
   }
   fclose (f);
   CHECK ("parser_cases: table has at least 200 cases", ncases >= 200);
   return ncases;
}

/* Argument and statement positions for the caret errors the dispatcher will print. */
static void
test_positions (void)
{
   const char *text = "x = 1;\n";
   const char *src = "sh.moveChunk(\"db.c\", {_id: 5},\n\t\"rs1\" )  ;\n  use app\n";
   sh_script_t script = { 0 };
   sh_error_t err;
   const sh_seg_t *seg;

   CHECK ("positions: parse", sh_parse_script ("f.js", src, strlen (src), &script, &err));
   if (script.n != 2) {
      UNIT_FAIL ("positions: two statements", "got %zu", script.n);
      goto done;
   }
   seg = &script.stmts[0].segs[1];
   CHECK ("positions: name of the call", seg->pos.line == 1 && seg->pos.col == 4 && seg->pos.len == 9);
   CHECK ("positions: argc", seg->argc == 3);
   CHECK ("positions: arg 0", seg->arg_pos[0].line == 1 && seg->arg_pos[0].col == 14 && seg->arg_pos[0].len == 6);
   CHECK ("positions: arg 1", seg->arg_pos[1].col == 22 && seg->arg_pos[1].len == 8 && seg->arg_pos[1].offset == 21);
   CHECK ("positions: arg 2 after a tab", seg->arg_pos[2].line == 2 && seg->arg_pos[2].col == 2);
   CHECK ("positions: closing parenthesis", seg->close_pos.line == 2 && seg->close_pos.col == 8);
   CHECK ("positions: statement end", script.stmts[0].end_pos.line == 2 && script.stmts[0].end_pos.col == 9);
   CHECK ("positions: use", script.stmts[1].pos.line == 3 && script.stmts[1].pos.col == 3 &&
                               script.stmts[1].word_pos.col == 7 && script.stmts[1].word_pos.len == 3);
   CHECK_STR ("positions: script name", "f.js", script.name);
   CHECK ("positions: source kept", script.source_len == strlen (src) && strcmp (script.source, src) == 0);
   CHECK ("positions: root segment has empty args", script.stmts[0].segs[0].argc == 0 &&
                                                       !script.stmts[0].segs[0].is_call &&
                                                       script.stmts[0].segs[0].args.len == 5);
done:
   sh_script_destroy (&script);
   CHECK ("positions: failed parse", !sh_parse_script ("f.js", text, strlen (text), &script, &err));
   CHECK ("positions: failed parse leaves the script empty", script.n == 0 && script.name == NULL);
   sh_script_destroy (&script);
   sh_script_destroy (NULL);
   CHECK ("positions: NULL text", sh_parse_script (NULL, NULL, 0, &script, &err) && script.n == 0);
   sh_script_destroy (&script);
}

/* Nesting is limited to 100 brackets, and far deeper input fails cleanly. */
static void
test_nesting (void)
{
   size_t big = 200000, i;
   char *text = bson_malloc (big + 64);
   sh_script_t script = { 0 };
   sh_error_t err;
   bson_t doc = BSON_INITIALIZER;
   size_t n;

   /* sh.x( plus 99 brackets is 100 levels: fine. */
   n = (size_t) sprintf (text, "sh.x(");
   for (i = 0; i < 99; i++) {
      text[n++] = '[';
   }
   for (i = 0; i < 99; i++) {
      text[n++] = ']';
   }
   text[n++] = ')';
   CHECK ("nesting: 100 levels", sh_parse_script ("t", text, n, &script, &err));
   sh_script_destroy (&script);

   n = (size_t) sprintf (text, "sh.x(");
   for (i = 0; i < 100; i++) {
      text[n++] = '[';
   }
   for (i = 0; i < 100; i++) {
      text[n++] = ']';
   }
   text[n++] = ')';
   CHECK ("nesting: 101 levels fails", !sh_parse_script ("t", text, n, &script, &err));
   check_error ("nesting: error at the 101st bracket", &err, "1:105 nesting deeper than 100 levels");

   for (i = 0; i < big; i++) {
      text[i] = i % 2 ? '{' : '[';
   }
   CHECK ("nesting: 200000 open brackets", !sh_parse_value (text, big, &doc, "v", &err));
   CHECK ("nesting: 200000 open brackets is not 'needs more'", !sh_parse_needs_more (text, big));
   for (i = 0; i < big; i++) {
      text[i] = '(';
   }
   CHECK ("nesting: 200000 parentheses", !sh_parse_script ("t", text, big, &script, &err));
   bson_destroy (&doc);
   bson_free (text);
}

/* Values that differ on every run, checked by shape. */
static void
test_random_values (void)
{
   bson_t doc = BSON_INITIALIZER;
   sh_error_t err;
   bson_iter_t it;
   const char *text = "UUID()";
   int64_t now = (int64_t) time (NULL) * 1000;

   if (sh_parse_value (text, strlen (text), &doc, "u", &err) && bson_iter_init_find (&it, &doc, "u") &&
       BSON_ITER_HOLDS_BINARY (&it)) {
      bson_subtype_t sub;
      uint32_t len;
      const uint8_t *data;

      bson_iter_binary (&it, &sub, &len, &data);
      CHECK ("UUID(): subtype 4, 16 bytes", sub == BSON_SUBTYPE_UUID && len == 16);
      CHECK ("UUID(): version 4, RFC 4122 variant", len == 16 && (data[6] >> 4) == 4 && (data[8] & 0xc0) == 0x80);
   } else {
      UNIT_FAIL ("UUID()", "did not parse to binary");
   }
   text = "ISODate()";
   CHECK ("ISODate(): now", sh_parse_value (text, strlen (text), &doc, "d", &err) &&
                               bson_iter_init_find (&it, &doc, "d") && BSON_ITER_HOLDS_DATE_TIME (&it) &&
                               llabs (bson_iter_date_time (&it) - now) < 5000);
   text = "Date()";
   if (sh_parse_value (text, strlen (text), &doc, "s", &err) && bson_iter_init_find (&it, &doc, "s") &&
       BSON_ITER_HOLDS_UTF8 (&it)) {
      const char *s = bson_iter_utf8 (&it, NULL);

      CHECK ("Date(): a string like 'Sat Nov 22 2025 03:28:00 GMT+0000 (UTC)'",
             strlen (s) > 30 && s[3] == ' ' && s[7] == ' ' && strstr (s, " GMT") != NULL);
   } else {
      UNIT_FAIL ("Date()", "did not parse to a string");
   }
   /* A failed value leaves the document as it was. */
   text = "{a: 1, b: [1, 2, Foo(3)]}";
   CHECK ("sh_parse_value: failure leaves doc unchanged",
          !sh_parse_value (text, strlen (text), &doc, "x", &err) && bson_count_keys (&doc) == 3);
   text = "1";
   CHECK ("sh_parse_value: NULL key", sh_parse_value (text, 1, &doc, NULL, &err) && bson_count_keys (&doc) == 4);
   bson_destroy (&doc);
}

static char *
render (const sh_error_t *err, const char *file, const char *source, bool color)
{
   char *buf = NULL;
   size_t size = 0;
   FILE *f = open_memstream (&buf, &size);

   sh_error_render (f, err, file, source, color);
   fclose (f);
   return buf;
}

static void
test_render (void)
{
   sh_error_t err;
   sh_script_t script = { 0 };
   const char *src;
   char *out;

   src = "sh.status()\nsh.moveChunk(\"db.c\", {_id: 5 \"rs1\")\n";
   sh_parse_script ("a.js", src, strlen (src), &script, &err);
   out = render (&err, "a.js", src, false);
   CHECK_STR ("render: file, line, caret",
              "a.js:2:30: error: expected ',' or '}' after value, found string \"rs1\"\n"
              "  sh.moveChunk(\"db.c\", {_id: 5 \"rs1\")\n"
              "                               ^\n",
              out);
   free (out);

   src = "sh.x(\"é\", {a: 1 b})";
   sh_parse_script ("b.js", src, strlen (src), &script, &err);
   out = render (&err, NULL, src, false);
   CHECK_STR ("render: caret after a multi-byte character",
              "1:17: error: expected ',' or '}' after value, found name 'b'\n"
              "  sh.x(\"é\", {a: 1 b})\n"
              "                  ^\n",
              out);
   free (out);

   src = "\t\tsh.x(\t1 2)";
   sh_parse_script ("c.js", src, strlen (src), &script, &err);
   out = render (&err, "c.js", src, false);
   CHECK_STR ("render: tabs kept in the indentation",
              "c.js:1:11: error: expected ',' or ')' after argument, found number 2\n"
              "  \t\tsh.x(\t1 2)\n"
              "  \t\t     \t  ^\n",
              out);
   free (out);

   src = "sh.x(\"a\xff\")";
   sh_parse_script ("d.js", src, strlen (src), &script, &err);
   out = render (&err, "d.js", src, false);
   CHECK_STR ("render: invalid byte shown as '?'",
              "d.js:1:8: error: invalid UTF-8 byte 0xff\n"
              "  sh.x(\"a?\")\n"
              "         ^\n",
              out);
   free (out);

   src = "var x = 1";
   sh_parse_script ("e.js", src, strlen (src), &script, &err);
   out = render (&err, "e.js", src, false);
   CHECK ("render: JavaScript is refused with the reason",
          strstr (out, "e.js:1:1: error: unexpected 'var': shardsh accepts") == out);
   free (out);

   src = "sh.status(\r\n  1 2)\r\n";
   sh_parse_script ("f.js", src, strlen (src), &script, &err);
   out = render (&err, NULL, src, false);
   CHECK_STR ("render: CRLF line endings",
              "2:5: error: expected ',' or ')' after argument, found number 2\n"
              "    1 2)\n"
              "      ^\n",
              out);
   free (out);

   sh_error_set (&err, SH_ERR_ARGS, "sh.moveChunk needs %d arguments", 3);
   sh_error_hint (&err, "sh.moveChunk(namespace, query, destination)");
   out = render (&err, "g.js", src, false);
   CHECK_STR ("render: no position",
              "error: sh.moveChunk needs 3 arguments\nhint: sh.moveChunk(namespace, query, destination)\n", out);
   free (out);

   sh_error_set (&err, SH_ERR_SERVER, "no shard called 'rs9'");
   err.code = 70;
   snprintf (err.code_name, sizeof err.code_name, "ShardNotFound");
   out = render (&err, NULL, NULL, false);
   CHECK_STR ("render: server error", "MongoServerError[ShardNotFound]: no shard called 'rs9' (code 70)\n", out);
   free (out);

   src = "sh.status(";
   sh_parse_script ("h.js", src, strlen (src), &script, &err);
   out = render (&err, "h.js", src, true);
   CHECK ("render: color uses ANSI escapes",
          strstr (out, "\033[1;31merror:\033[0m unclosed '('") != NULL && strstr (out, "\033[1;32m^\033[0m") != NULL);
   free (out);
   out = render (&err, "h.js", src, false);
   CHECK ("render: no escapes without color", strchr (out, '\033') == NULL);
   CHECK_STR ("render: unclosed bracket",
              "h.js:1:10: error: unclosed '('\n  sh.status(\n           ^\n"
              "hint: the text ended before the matching ')'\n",
              out);
   free (out);
   sh_error_clear (&err);
   CHECK ("sh_error_clear", err.kind == SH_ERR_NONE && !err.has_pos && err.message[0] == '\0');
   sh_error_set (NULL, SH_ERR_PARSE, "ignored");
}

/* A small deterministic mutation fuzz over the table's inputs: flips, inserts and truncations must never crash or
 * leak (the sanitizer and valgrind runs check that); parse results are not checked. */
static void
test_mutations (char **inputs, size_t *lens, int ncases)
{
   static const char alphabet[] = "{}[]()\"'\\/*,:;.\n$-+0x\xff\xc3\xa9\x00 eu";
   uint64_t state = 0x9e3779b97f4a7c15u;
   int rounds = getenv ("PARSER_FUZZ_ROUNDS") ? atoi (getenv ("PARSER_FUZZ_ROUNDS")) : 20;
   int c, r, m;
   long runs = 0, bad = 0;

   for (c = 0; c < ncases; c++) {
      for (r = 0; r < rounds; r++) {
         size_t len = lens[c], i;
         char *buf = bson_malloc (len + 8), *exact;
         sh_script_t script = { 0 };
         bson_t doc = BSON_INITIALIZER;
         sh_error_t err;

         memcpy (buf, inputs[c], len);
         for (m = 0; m < 1 + r % 3; m++) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            i = len ? (size_t) (state >> 8) % len : 0;
            switch (state % 4) {
            case 0:
               if (len) {
                  buf[i] = alphabet[(state >> 32) % (sizeof alphabet - 1)];
               }
               break;
            case 1:
               if (len < lens[c] + 7) {
                  memmove (buf + i + 1, buf + i, len - i);
                  buf[i] = alphabet[(state >> 32) % (sizeof alphabet - 1)];
                  len++;
               }
               break;
            case 2:
               len = i;
               break;
            default:
               if (len) {
                  memmove (buf + i, buf + i + 1, len - i - 1);
                  len--;
               }
               break;
            }
         }
         /* An exact-size copy, so the sanitizer catches any read past the end of the text. */
         exact = bson_malloc (len ? len : 1);
         memcpy (exact, buf, len);
         bson_free (buf);
         buf = exact;
         if (sh_parse_script ("fuzz", buf, len, &script, &err)) {
            sh_script_destroy (&script);
         } else if (err.kind != SH_ERR_PARSE || !err.has_pos || err.message[0] == '\0' || err.pos.offset > len ||
                    err.pos.line < 1 || err.pos.col < 1) {
            bad++;
            if (bad <= 5) {
               UNIT_FAIL ("mutation fuzz", "bad error for input %zu bytes: kind %d pos %d:%d+%zu [%s]", len,
                          (int) err.kind, err.pos.line, err.pos.col, err.pos.offset, err.message);
            }
         }
         (void) sh_parse_needs_more (buf, len);
         (void) sh_parse_value (buf, len, &doc, "v", &err);
         bson_destroy (&doc);
         bson_free (buf);
         runs++;
      }
   }
   CHECK ("mutation fuzz: every failure is a parse error with a position", bad == 0);
   printf ("PASS mutation fuzz: %ld inputs parsed without a crash\n", runs);
}

int
main (void)
{
   char **inputs = NULL;
   size_t *lens = NULL;
   int ncases, i;

   ncases = test_table (&inputs, &lens);
   test_positions ();
   test_nesting ();
   test_random_values ();
   test_render ();
   test_mutations (inputs, lens, ncases);
   for (i = 0; i < ncases; i++) {
      bson_free (inputs[i]);
   }
   bson_free (inputs);
   bson_free (lens);
   printf ("%d table cases\n", ncases);
   UNIT_EXIT ();
}
