/* Output formatting: BSON results printed the way mongosh prints them (util.inspect style: single-quoted strings,
 * unquoted identifier keys, Long('5'), ObjectId('…'), ISODate('…'), Timestamp({ t: 1, i: 0 }), MinKey(), lines
 * broken at 80 columns, nesting deeper than 6 shown as [Object]/[Array]) with optional ANSI colour, or as one
 * relaxed Extended JSON document per line for --json. String building, apart from output_write_value, which writes
 * a large value as its text becomes final. */
#ifndef SHARDSH_OUTPUT_H
#define SHARDSH_OUTPUT_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stdio.h>

typedef enum {
   OUTPUT_PRETTY = 0, /* mongosh-like */
   OUTPUT_JSON,       /* relaxed Extended JSON, one document per line */
} output_mode_t;

typedef struct {
   output_mode_t mode;
   bool color;               /* ANSI colours (only ever on a terminal, never under NO_COLOR) */
   int break_length;         /* 80 like util.inspect; <= 0 means never break */
   int depth;                /* nesting shown before [Object]; 6 like mongosh; < 0 means unlimited, and then arrays
                              * and strings are not cut either (mongosh --eval's deep inspection); otherwise arrays
                              * stop after 100 entries and strings after 10000 characters as in util.inspect */
   bool expanded;            /* util.inspect's compact: false (mongosh's printjson): every document and array that is
                              * not empty gets one entry per line, nothing joined or grouped */
   const char *one_line_key; /* documents inside an array stored under this key print on one line, like the
                              * chunk rows of sh.status (mongosh inspects them with breakLength Infinity);
                              * "chunks" for sh.status, NULL for none */
} output_opts_t;

/* What the formatters return for a document that is not valid BSON. */
#define OUTPUT_INVALID_BSON "<invalid BSON>"

/* A value the script made that BSON has no form for (an Int32 or Double object, a function) reaches print and
 * printjson as a user-defined binary (subtype 0x81) holding this tag and the text mongosh shows for it
 * (shell/js/prelude/10_bridge.js); the formatter writes that text, its later lines at the value's indentation. */
#define OUTPUT_SHOWN_TAG "shardsh:shown:"
#define OUTPUT_SHOWN_SUBTYPE 0x81

/* Default options for mode and colour: break_length 80, depth 6, one_line_key NULL. */
output_opts_t
output_opts_default (output_mode_t mode, bool color);

/* Formats a document as mongosh would print it. Returns a NUL-terminated string without a trailing newline; the
 * caller frees it with bson_free. In OUTPUT_JSON mode the result is relaxed Extended JSON on one line. Never
 * returns NULL: a NULL doc gives "null" and a corrupt one OUTPUT_INVALID_BSON. */
char *
output_format_doc (const bson_t *doc, const output_opts_t *opts);

/* Formats a single value (string, number, document, array, ...) the same way; caller frees with bson_free.
 * A string at top level prints as mongosh prints a returned string: unquoted in pretty mode (quoted and escaped
 * when it holds control characters other than tab and newline, as mongosh does), JSON-quoted in JSON mode.
 * undefined (and a NULL value) gives "" in pretty mode, as mongosh prints nothing for it. */
char *
output_format_value (const bson_value_t *value, const output_opts_t *opts);

/* Writes what output_format_value returns for value to fp, without building it whole: a document or array is
 * written in large pieces as each part's layout becomes certain, so memory follows the nesting, not the output.
 * The caller vouches that value is valid BSON (a server reply conn checked, or a document it built): unlike
 * output_format_value it is not validated again (corrupt data is still read only within bounds, but printed as far
 * as it reads). Returns false when a write failed. */
bool
output_write_value (FILE *fp, const bson_value_t *value, const output_opts_t *opts);

/* One line, no breaks, no colour, as mongosh prints a short value ("{ zip: '10001' }"), into buf (NUL-terminated,
 * cut at len - 1 bytes). For labels in tables and messages: the dashboard, the pre-flight, sh.explainBalance. */
void
output_format_doc_line (const bson_t *doc, char *buf, size_t len);
void
output_format_value_line (const bson_value_t *value, char *buf, size_t len);

/* Formats an array document ({"0": …, "1": …}) as a list: [ a, b ]. Caller frees with bson_free. */
char *
output_format_array (const bson_t *array, const output_opts_t *opts);

#endif
