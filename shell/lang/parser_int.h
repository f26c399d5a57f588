/* The parser's private interface, shared by its four files: parser_base.c (tokens, errors, the script's blocks),
 * parser.c (statements and the public entry points), parser_value.c (documents, arrays, call arguments, plain values)
 * and parser_ctor.c (names in values and the constructors mongosh offers: ObjectId, ISODate, NumberLong, Timestamp,
 * UUID, BinData, ...). Not for use outside shell/lang. Every function here reports failure by returning false with
 * p->err set (see parser_fail). */
#ifndef SHARDSH_PARSER_INT_H
#define SHARDSH_PARSER_INT_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stddef.h>

#include "shell/core/errors.h"
#include "shell/lang/lexer.h"
#include "shell/lang/parser.h"

/* How many brackets may be open at once. Deeper input is an error, so recursion stays bounded. */
#define PARSE_MAX_DEPTH 100

/* The hint given when the input looks like JavaScript rather than a mongosh-style statement. */
extern const char *const parser_js_hint;

typedef struct {
   sh_tok_kind_t kind; /* SH_TOK_LBRACE, SH_TOK_LBRACKET or SH_TOK_LPAREN */
   sh_pos_t pos;
} parse_open_t;

typedef struct {
   sh_lexer_t lx;
   sh_token_t tok;    /* the current token, not consumed yet */
   sh_pos_t prev_end; /* position just after the last consumed token */
   sh_error_t *err;
   parse_open_t open[PARSE_MAX_DEPTH];
   int depth;
   bool incomplete;  /* the error is the text ending inside an open bracket, string, regex or comment */
   sh_script_t *out; /* the script being parsed (its blocks hold the segments), NULL while parsing a value alone */
   bool binary;      /* a binary value was appended (BinData, UUID, a Database object) since it was last cleared */
} parser_t;

/* Arguments of a call: an array document and where each argument starts (pos.len spans the whole argument). */
typedef struct {
   bson_t arr;
   sh_pos_t *pos;
   int argc;
   sh_pos_t close;
} parse_args_t;

/* parser_base.c: tokens, errors and the script's blocks */

/* Sets p->err (kind SH_ERR_PARSE) at pos to the formatted message, control characters replaced. Returns false. */
bool
parser_fail (parser_t *p, sh_pos_t pos, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

/* n bytes (align: a power of two, at most 128) from the blocks of the script being parsed (p->out, which must be set),
 * uninitialised; freed with the script. */
void *
parser_block_alloc (parser_t *p, size_t n, size_t align);

/* A NUL-terminated copy of n bytes of s in the blocks of the script being parsed (p->out must be set). */
char *
parser_block_strndup (parser_t *p, const char *s, size_t n);

/* Moves to the next token; false with p->err set when the lexer fails. */
bool
parser_advance (parser_t *p);

/* Length of the first at most max bytes of s (len bytes of UTF-8), cut at a character boundary. */
int
parser_clip (const char *s, size_t len, size_t max);

/* Reports the current token as unexpected, saying what was expected. Always returns false. */
bool
parser_unexpected (parser_t *p, const char *expected);

/* Consumes an opening bracket, remembering it for error messages (refuses nesting deeper than PARSE_MAX_DEPTH). */
bool
parser_open (parser_t *p);

/* Consumes the closing bracket the caller has checked is there. */
bool
parser_close (parser_t *p);

/* A NUL-terminated copy of n bytes of s; the caller frees it with bson_free. */
char *
parser_strndup (const char *s, size_t n);

/* True when tok is the identifier name. */
bool
parser_is_ident (const sh_token_t *tok, const char *name);

/* True when the len bytes at text equal one of the NULL-terminated list's words. */
bool
parser_in_list (const char *text, size_t len, const char *const *list);

/* Turns a failed bson_append_* (ok false) into a "value too large" error at pos; returns ok. */
bool
parser_appended (parser_t *p, bool ok, sh_pos_t pos);

/* Describes a token for messages: "end of input", "'='", "name 'foo'", "number 5", "string \"abc\"". */
void
parser_describe (const sh_token_t *tok, char *buf, size_t size);

/* True when kind closes a bracket. */
bool
parser_is_closer (sh_tok_kind_t kind);

/* n bytes (align: a power of two, at most 128) from script s's blocks, uninitialised; freed with the script. */
void *
parser_script_alloc (sh_script_t *s, size_t n, size_t align);

/* A NUL-terminated copy of n bytes of text in script s's blocks. */
char *
parser_script_strndup (sh_script_t *s, const char *text, size_t n);

/* A script's blocks, none yet; freed with parser_arena_free. */
struct sh_parse_arena *
parser_arena_new (void);

/* Frees a script's blocks (NULL is allowed). */
void
parser_arena_free (struct sh_parse_arena *a);

/* parser_value.c: values */

/* Appends the value at the current token to dst under key (key_len bytes, or -1 for NUL-terminated). */
bool
parser_value (parser_t *p, bson_t *dst, const char *key, int key_len);

/* Parses "(a, b, ...)" into args, initialised here; the caller destroys args->arr whatever the result, and frees
 * args->pos with bson_free unless keep: then args->pos is the script's (parser_block_alloc), kept with its statement.
 * The current token is the '('. */
bool
parser_args (parser_t *p, parse_args_t *args, bool keep);

/* Appends a value that starts with a name: true, null, NaN, MinKey, ObjectId(...), new Date(...), ... */
bool
parser_name_value (parser_t *p, bson_t *dst, const char *key, int key_len);

/* parser_ctor.c: the constructors, from their parsed arguments (it calls nothing of parser_value.c) */

typedef enum {
   CTOR_OBJECTID,
   CTOR_ISODATE,
   CTOR_DATE,
   CTOR_LONG,
   CTOR_INT,
   CTOR_DECIMAL,
   CTOR_DOUBLE,
   CTOR_TIMESTAMP,
   CTOR_UUID,
   CTOR_BINDATA,
   CTOR_HEXDATA,
   CTOR_MINKEY,
   CTOR_MAXKEY,
} ctor_kind_t;

/* Looks a constructor up by the name token; false if there is none of that name. */
bool
parser_ctor_find (const sh_token_t *tok, ctor_kind_t *kind);

/* Appends to dst under key the value of constructor kind called (name, as written, at name_pos; is_new: with new)
 * with args (borrowed, parsed by parser_args). */
bool
parser_ctor_build (parser_t *p, bson_t *dst, const char *key, int key_len, ctor_kind_t kind, const char *name,
                   bool is_new, sh_pos_t name_pos, const parse_args_t *args);

#endif
