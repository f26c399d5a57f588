/* The mongosh-literal language: a hand-written lexer and recursive-descent parser that turns what operators type
 * (sh.moveChunk("db.c", {_id: 5}, "rs1"), use app, show shards, ...) into statements whose arguments are already
 * BSON, with every token's position kept for caret errors. No I/O happens here. */
#ifndef SHARDSH_PARSER_H
#define SHARDSH_PARSER_H

#include <bson/bson.h>
#include <stdbool.h>

#include "shell/core/errors.h"

/* One link of a member/call chain: ".name" or ".name(args...)", or the root identifier itself.
 * db["my-coll"] gives a segment named "my-coll" with bracket = true. */
typedef struct {
   bson_t args;        /* when is_call: array document {"0": v0, "1": v1, ...}; always initialised. First: bson_t is
                        * 128-byte aligned, so the fields after it fit in one more 128 bytes */
   char *name;         /* UTF-8; the script's (its blocks), not freed alone */
   sh_pos_t pos;       /* position of the name */
   bool bracket;       /* written as ["name"] */
   bool is_call;       /* followed by parentheses */
   int argc;           /* number of arguments */
   sh_pos_t *arg_pos;  /* argc positions (start of each argument), owned; NULL when argc == 0 */
   sh_pos_t close_pos; /* position of the closing parenthesis (for "missing argument" carets) */
   bool no_binary;     /* is_call: no argument holds binary data anywhere (so none is a Database object) */
} sh_seg_t;

typedef enum {
   SH_STMT_CHAIN, /* sh.x(...), db.adminCommand(...), db.coll.find(...).limit(3), print(...) */
   SH_STMT_USE,   /* use <db>            : word = db name */
   SH_STMT_SHOW,  /* show <what> [arg]   : word = what, word2 = optional argument */
   SH_STMT_HELP,  /* help [topic]        : word = topic or NULL */
   SH_STMT_EXIT,  /* exit | quit  (also exit() / quit(), normalised to this kind) */
} sh_stmt_kind_t;

typedef struct {
   sh_stmt_kind_t kind;
   sh_pos_t pos;     /* first token of the statement */
   sh_pos_t end_pos; /* position just after the last token */
   char *word;       /* owned or NULL (see kinds above) */
   sh_pos_t word_pos;
   char *word2; /* owned or NULL */
   sh_pos_t word2_pos;
   sh_seg_t *segs; /* SH_STMT_CHAIN: segs[0] is the root identifier; the script's (its blocks), not freed alone */
   size_t nsegs;
   /* What the statement resolves to, kept by the layer that resolves it (commands/dispatch.c, dispatch_prepare) so the
    * steps of a script (validation, pre-flight, output, run) resolve it once; opaque here. Owned: freed with the
    * statement by resolved_free. NULL until then, and for a statement nobody prepared. */
   struct sh_resolved *resolved;
   void (*resolved_free) (struct sh_resolved *resolved);
   struct sh_parse_arena *arena; /* the script's blocks (sh_stmt_alloc); borrowed */
} sh_stmt_t;

/* A whole parsed input: every statement, in order. The source text is kept so errors can show the line. */
typedef struct {
   char *name;   /* "file.js", "<eval>", "<stdin>" or "<repl>"; owned */
   char *source; /* a NUL-terminated copy of the text; owned */
   size_t source_len;
   sh_stmt_t *stmts; /* owned */
   size_t n;
   /* the blocks the statements' segment arrays and names (and what sh_stmt_alloc gives) are cut from, freed together
    * with the script (parser.c); owned */
   struct sh_parse_arena *arena;
} sh_script_t;

/* Parses all of text (len bytes; it need not be NUL-terminated) into out. On success returns true and out holds
 * every statement; the caller calls sh_script_destroy. On failure returns false, fills err with the position of the
 * first error (kind SH_ERR_PARSE) and leaves out empty but still safe to destroy. Nothing is sent anywhere. */
bool
sh_parse_script (const char *name, const char *text, size_t len, sh_script_t *out, sh_error_t *err);

/* n bytes (align: a power of two, at most 128) that live as long as stmt's script, uninitialised and never freed
 * alone: for what a layer keeps per statement (dispatch's record), without an allocation and a free each. NULL when
 * stmt belongs to no script. */
void *
sh_stmt_alloc (const sh_stmt_t *stmt, size_t n, size_t align);

/* Releases everything out owns; out may be zeroed or the result of a failed parse. */
void
sh_script_destroy (sh_script_t *script);

/* For the REPL: true when text ends inside an open bracket, string, regex or comment, so more lines are needed
 * before it can be parsed. A text with a real syntax error returns false (the parse then reports it). */
bool
sh_parse_needs_more (const char *text, size_t len);

/* Parses one value literal (a document, array, string, number, constructor such as MinKey or ObjectId("…")) and
 * appends it to doc under key. Used by tests and by the option parser. Returns false with err set on bad input. */
bool
sh_parse_value (const char *text, size_t len, bson_t *doc, const char *key, sh_error_t *err);

/* A call argument written as `db` or `db.getSiblingDB("name")` (a mongosh Database object, which sh.status takes as
 * its configDB) is kept in the arguments as a user-defined binary (subtype 0x80) holding SH_DBREF_TAG and the name;
 * bare `db` has an empty name, meaning the current database. Dispatch refuses it wherever the command table does
 * not accept one, so it is never sent. Returns true when it is such a value and points *name / *len at the name
 * (inside the iterator's document, not NUL-terminated). */
#define SH_DBREF_TAG "shardsh:db:"
bool
sh_value_dbref (const bson_iter_t *it, const char **name, uint32_t *len);

#endif
