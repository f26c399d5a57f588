/* A command's result as a value (issue 38): what an executor fills and hands over, and the one presenter that shows
 * it. An executor never prints its result: it fills the sh_result_t its caller gave it (a document, an array, a
 * value, text, a StatsResult or a cursor batch; an UpdateResult is a document), and the caller either presents it
 * (sh_result_present: the REPL, a script and --json show results alike) or takes it as a value (sh_result_value: the
 * JavaScript engine, a -f statement's --json object). */
#ifndef SHARDSH_RESULT_H
#define SHARDSH_RESULT_H

#include <bson/bson.h>
#include <stdbool.h>

#include "shell/core/ctx.h"

struct conn_cursor; /* shell/core/conn.h */

/* What follows a cursor's first batch when it has more, on the result stream, as mongosh prints it. */
#define CMD_MORE_HINT "Type \"it\" for more"

typedef enum {
   SH_RESULT_NONE = 0, /* nothing to show (a write under --dry-run, use's database when unseen, exit, sleep) */
   SH_RESULT_DOC,      /* a document: a reply, an update result */
   SH_RESULT_ARRAY,    /* an array document of values (--json: one line per value); more: the "it" hint follows */
   SH_RESULT_VALUE,    /* one value: true/false, a string, a number, a document */
   SH_RESULT_TEXT,     /* text of the command's own (help, show dbs, sh.progress's table): printed as it is; a string
                        * value (its trailing newlines dropped) for the engine */
   SH_RESULT_STATS,    /* a StatsResult: each top-level key on its own line, sections joined by "---" */
   SH_RESULT_BATCH,    /* a batch of a cursor: its documents at full depth, then the "it" hint when it has more */
   SH_RESULT_CURSOR,   /* a live cursor, unread, for a caller that asked for one (want_cursor); never presented */
   SH_RESULT_DOCS, /* every document of a cursor mongosh returns as a value (db.aggregate, checkMetadataConsistency):
                    * an AggregationCursor prints as a batch, a RunCommandCursor as { cursorHasMore, documents }; the
                    * engine gets a Cursor holding them */
} sh_result_kind_t;

/* A result; it owns everything it holds (sh_result_init, sh_result_destroy). Filling it again replaces what it held:
 * the last result of a call is its value. */
typedef struct sh_result {
   sh_result_kind_t kind;
   bson_t doc; /* DOC, ARRAY, STATS, BATCH (an array document of the batch's documents); VALUE: { v: <value> } */
   bson_string_t *text; /* TEXT: the text, with its newlines; DOC: a note printed before the document, not part of
                         * its value (sh_result_note); NULL otherwise */
   char *stats_key;     /* STATS: the key whose value prints on one line (output_opts_t's one_line_key), or NULL */
   struct conn_cursor *cursor; /* CURSOR: owned, freed with r unless taken (sh_result_take_cursor) */
   bool more;                  /* ARRAY, BATCH: the cursor may give more ("it" continues it) */
   bool iteration;             /* BATCH: the batch "it" asked for ("no cursor" when it is empty) */
   bool run_command;           /* DOCS: a RunCommandCursor (mongosh prints its iteration result as a document) */
   bool as_value;    /* set by the caller: it takes the result as a value (the JavaScript engine, a -f statement's
                      * --json object), so a report is its document rather than its text and a cursor's
                      * result holds every document */
   bool want_cursor; /* set by the caller: find and aggregate hand over their live cursor unread (the engine pages
                      * it itself) */
   bool stream;      /* set by the caller: a watch's earlier rounds are presented as they come (sh_result_round);
                      * false: each round replaces the one before */
} sh_result_t;

/* An empty result (SH_RESULT_NONE), shown by its caller (not as_value), that streams nothing. */
void
sh_result_init (sh_result_t *r);

/* Frees what r holds; r is left uninitialised. */
void
sh_result_destroy (sh_result_t *r);

/* Empties r (SH_RESULT_NONE), keeping what the caller set (as_value, want_cursor, stream). */
void
sh_result_reset (sh_result_t *r);

/* Fill r (replacing what it held) with a copy of doc, array or value. */
void
sh_result_set_doc (sh_result_t *r, const bson_t *doc);

void
sh_result_set_array (sh_result_t *r, const bson_t *array);

void
sh_result_set_value (sh_result_t *r, const bson_value_t *value);

/* Fills r with a StatsResult, taking stats over (bson_steal: a section can be hundreds of megabytes, sh.status on a
 * large cluster). stats is a document initialised in place (bson_init, BSON_INITIALIZER), never one from bson_new;
 * it is left an empty document, still the caller's to destroy. one_line_key is copied. */
void
sh_result_take_stats (sh_result_t *r, bson_t *stats, const char *one_line_key);

/* Fills r with a copy of a cursor's batch, an array document (see SH_RESULT_BATCH). */
void
sh_result_set_batch (sh_result_t *r, const bson_t *docs, bool more, bool iteration);

/* Fills r with a copy of every document of a cursor mongosh returns as a value (see SH_RESULT_DOCS), an array
 * document; run_command: a RunCommandCursor, else an AggregationCursor. */
void
sh_result_set_docs (sh_result_t *r, const bson_t *docs, bool run_command);

/* Fills r with a live cursor, taking it over. */
void
sh_result_set_cursor (sh_result_t *r, struct conn_cursor *c);

/* The cursor of a CURSOR result, now the caller's (r keeps none); NULL for any other kind. */
struct conn_cursor *
sh_result_take_cursor (sh_result_t *r);

/* Makes r a TEXT result (emptying it when it was another kind) and returns its text to append to; owned by r. */
bson_string_t *
sh_result_text (sh_result_t *r);

/* Gives a DOC result a note for a person, printed before the document and not part of its value (removeShard's
 * "draining ... started"); takes note over (freed with r). */
void
sh_result_note (sh_result_t *r, bson_string_t *note);

/* A watch's round is complete: presented now on ctx and emptied when r->stream, else kept (the next round replaces
 * it). */
void
sh_result_round (sh_ctx_t *ctx, sh_result_t *r);

/* Shows r on ctx->out_fp as ctx->out says (pretty or --json), as the REPL, a script and --json show a statement's
 * result; a NONE result shows nothing. */
void
sh_result_present (sh_ctx_t *ctx, const sh_result_t *r);

/* r as a value into holder (reinitialised), as { v: <value> } and, for a StatsResult, stats: <its one-line key or "">
 * (the engine prints it back as one): a document, array or value as it is, TEXT as a string without its trailing
 * newlines, a BATCH as its array of documents (pretty output: an empty batch is "" or "no cursor", the text it
 * shows). False (holder left empty) for a NONE or CURSOR result and an empty TEXT. */
bool
sh_result_value (sh_ctx_t *ctx, const sh_result_t *r, bson_t *holder);

#endif
