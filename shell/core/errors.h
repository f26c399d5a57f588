/* Errors as values: one struct carries what went wrong, where (file:line:col) and, for server errors, the
 * server's code and codeName. Rendering with the source line and a caret lives here too. */
#ifndef SHARDSH_ERRORS_H
#define SHARDSH_ERRORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A place in the source text. line and col are 1-based; col counts characters (UTF-8 code points), offset
 * counts bytes from the start of the text. len is the byte length of the token it names (0 if unknown). */
typedef struct {
   int line;
   int col;
   size_t offset;
   size_t len;
} sh_pos_t;

typedef enum {
   SH_ERR_NONE = 0,
   SH_ERR_PARSE,    /* the text is not a statement we understand */
   SH_ERR_ARGS,     /* arguments of a helper are missing or of the wrong type */
   SH_ERR_USAGE,    /* unknown helper, command or option */
   SH_ERR_SERVER,   /* the server answered ok: 0; code/code_name are the server's */
   SH_ERR_NETWORK,  /* could not reach the server, or the connection broke */
   SH_ERR_READONLY, /* refused by --readonly */
   SH_ERR_VERSION,  /* the connected server is older than the helper needs */
   SH_ERR_CONFIRM,  /* the user declined a confirmation */
   SH_ERR_IO,       /* a file could not be read or written */
   SH_ERR_INTERRUPTED,
} sh_err_kind_t;

typedef struct {
   sh_err_kind_t kind;
   int code;           /* server error code (SH_ERR_SERVER), else 0 */
   char code_name[64]; /* server codeName, may be empty */
   char message[1024]; /* no capital first letter, no full stop */
   char hint[256];     /* optional second line ("did you mean ...?") */
   bool has_pos;       /* pos is meaningful */
   sh_pos_t pos;
} sh_error_t;

/* Clears err to "no error". */
void
sh_error_clear (sh_error_t *err);

/* Sets kind and message (printf-style); keeps no position. err may be NULL (then nothing happens). */
void
sh_error_set (sh_error_t *err, sh_err_kind_t kind, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

/* As sh_error_set, with a source position for the caret. */
void
sh_error_set_at (sh_error_t *err, sh_err_kind_t kind, sh_pos_t pos, const char *fmt, ...)
   __attribute__ ((format (printf, 4, 5)));

/* Sets the hint line. */
void
sh_error_hint (sh_error_t *err, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

/* Writes the error to out:
 *   FILE:LINE:COL: error: MESSAGE          (file may be NULL: then "LINE:COL: ...", or no prefix without a position)
 *     <the source line>
 *         ^
 *   hint: HINT
 * Server errors print as "MongoServerError[CodeName]: message (code N)". source may be NULL (no caret). */
void
sh_error_render (FILE *out, const sh_error_t *err, const char *file, const char *source, bool color);

struct sh_ctx;

/* Prints err to ctx's error stream (ctx->err_fp, coloured when ctx->err_color) as sh_error_render does, and flushes
 * it: how every front end (the REPL, scripts, main) reports an error. name and source as sh_error_render's. */
void
sh_error_report (const struct sh_ctx *ctx, const sh_error_t *err, const char *name, const char *source);

#endif
