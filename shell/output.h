/* Output formatting: BSON results printed the way mongosh prints them (util.inspect style: single-quoted strings,
 * unquoted identifier keys, Long('5'), ObjectId('…'), ISODate('…'), Timestamp({ t: 1, i: 0 }), MinKey(), lines
 * broken at 80 columns, nesting deeper than 6 shown as [Object]/[Array]) with optional ANSI colour, or as one
 * relaxed Extended JSON document per line for --json. Pure string building; the caller writes the result. */
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
   bool color;        /* ANSI colours (only ever on a terminal, never under NO_COLOR) */
   int break_length;  /* 80 like util.inspect; <= 0 means never break */
   int depth;         /* nesting shown before [Object]; 6 like mongosh; < 0 means unlimited */
} output_opts_t;

/* Default options for mode and colour: break_length 80, depth 6. */
output_opts_t
output_opts_default (output_mode_t mode, bool color);

/* Formats a document as mongosh would print it. Returns a NUL-terminated string without a trailing newline; the
 * caller frees it with bson_free. In OUTPUT_JSON mode the result is relaxed Extended JSON on one line. */
char *
output_format_doc (const bson_t *doc, const output_opts_t *opts);

/* Formats a single value (string, number, document, array, ...) the same way; caller frees with bson_free.
 * A string at top level prints as mongosh prints a returned string: unquoted in pretty mode, JSON-quoted in
 * JSON mode. */
char *
output_format_value (const bson_value_t *value, const output_opts_t *opts);

/* Formats an array document ({"0": …, "1": …}) as a list: [ a, b ]. Caller frees with bson_free. */
char *
output_format_array (const bson_t *array, const output_opts_t *opts);

#endif
