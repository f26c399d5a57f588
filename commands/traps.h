/* Version traps (issue 37, docs/traps.md): statements that run without an error on some server versions and do
 * nothing there, never end, or are deprecated. The table is commands/traps.def, one row per trap; this module matches
 * calls and JavaScript text against it and warns, once per place (once per session in the REPL), on stderr with
 * file:line:col, what the statement does on the connected server's version and what to write instead. Under --plan
 * the warning is also listed on stdout; under --json it is also one {"trap": {...}} line on stdout. A warning never
 * changes what runs or the exit status. */
#ifndef SHARDSH_TRAPS_H
#define SHARDSH_TRAPS_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stddef.h>

#include "commands/commands.h"
#include "shell/core/ctx.h"
#include "shell/lang/parser.h"

typedef enum {
   TRAP_CALL,        /* a helper, or a command document's first key */
   TRAP_QUERY,       /* a read or write of a namespace whose filter has a field (and value) */
   TRAP_DOTTED_NULL, /* a filter comparing a dotted path with null */
   TRAP_JS_COND,     /* JavaScript using a helper's value as a condition */
} trap_kind_t;

typedef struct {
   const char *id;      /* "chunks_by_ns" */
   trap_kind_t kind;    /* how it is matched */
   const char *helpers; /* canonical helper names, "|" between them, or NULL */
   const char *target;  /* TRAP_CALL: command names ("|" between them); TRAP_QUERY: the namespace ("*": any) */
   const char *field;   /* TRAP_QUERY: the filter field; TRAP_CALL: "!name", a field the command lacks; or NULL */
   const char *value;   /* TRAP_QUERY: "s:<string>" or "b:true"/"b:false", or NULL (any value) */
   const char *since;   /* first server version where it bites, "6.0.3" */
   const char *until;   /* first version where it no longer bites, or NULL */
   const char *form;    /* the statement form (Markdown) */
   const char *what;    /* what it does on those versions */
   const char *instead; /* what to write instead */
   const char *cite;    /* release notes, server source */
} trap_t;

/* The table (commands/traps.def), n rows into *n. Static. */
const trap_t *
traps_table (size_t *n);

/* True when version v (major, minor, patch) is in [t->since, t->until). Pure. */
bool
traps_bites (const trap_t *t, const int v[3]);

/* The rows of kind TRAP_CALL, TRAP_QUERY or TRAP_DOTTED_NULL whose statement form call has, whatever the version,
 * into out (at most max; their number is returned). call is borrowed. Pure. */
size_t
traps_match_call (const sh_call_t *call, const trap_t **out, size_t max);

/* A TRAP_JS_COND place in JavaScript text: the row and the 1-based line and column of the helper's name. */
typedef struct {
   const trap_t *trap;
   int line;
   int col;
} trap_js_hit_t;

/* The TRAP_JS_COND places of text (len bytes), in order, into out (at most max; their number is returned). A
 * textual check: the helper written out and called with no arguments, its value used whole (not a field of it) as
 * the condition of while/if, after !, before ?, or beside && or ||. Strings and comments are not told apart. Pure. */
size_t
traps_match_js (const char *text, size_t len, trap_js_hit_t *out, size_t max);

/* The trap check of a call about to run or be checked: warns (see the top of this file) for every row call matches
 * whose versions hold the server's version (known, or read with buildInfo unless --dry-run; not known: nothing is
 * said), at file:line:col of call (file: ctx->place.file when NULL; no place in the REPL). to_stdout: stdout is not
 * held back, so --plan's and --json's copies may go there. Nothing under --no-preflight. */
void
traps_check_call (sh_ctx_t *ctx, const sh_call_t *call, const char *file, bool to_stdout);

/* The same for JavaScript text named file (NULL in the REPL): its TRAP_JS_COND places. */
void
traps_check_js (sh_ctx_t *ctx, const char *file, const char *text, size_t len);

/* Warns (stderr, once per session per trap) of the version traps of one REPL statement, before dispatch runs it:
 * resolves it on its own (a failure is dispatch's to report). A script's statements are checked by
 * traps_check_scripts instead. */
void
traps_check_stmt (sh_ctx_t *ctx, const sh_stmt_t *stmt);

/* The trap pass of a run, before anything is sent: every literal statement of scripts (n inputs; NULL for a
 * JavaScript input, whose text is js[i], js_len[i] bytes, named names[i]) checked as traps_check_call and
 * traps_check_js check them. Not under --dry-run or --no-preflight. */
void
traps_check_scripts (sh_ctx_t *ctx, const sh_script_t *const *scripts, const char *const *js, const size_t *js_len,
                     const char *const *names, size_t n);

/* docs/traps.md's table, generated from the table, appended to out. */
void
traps_doc_table (bson_string_t *out);

#endif
