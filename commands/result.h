/* A command's result as a value (issue 38): what an executor hands over, and the one presenter that shows it. The
 * shared printers of exec.h (cmd_print_doc, _value, _array, _stats, _cursor_batch) fill one and present it, so a
 * result is shown the same way from the REPL, a script and --json, and stored as the call's value when the
 * JavaScript engine asked for values. */
#ifndef SHARDSH_RESULT_H
#define SHARDSH_RESULT_H

#include <bson/bson.h>
#include <stdbool.h>

#include "shell/core/ctx.h"

typedef enum {
   SH_RESULT_DOC,    /* a document: a reply, an update result */
   SH_RESULT_ARRAY,  /* an array document of values (--json: one line per value) */
   SH_RESULT_VALUE,  /* one value: true/false, a string, a number, a document */
   SH_RESULT_STATS,  /* a StatsResult: each top-level key on its own line, sections joined by "---" */
   SH_RESULT_BATCH,  /* a batch of a cursor: its documents at full depth, then the "it" hint when it has more */
   SH_RESULT_CURSOR, /* every document of a cursor mongosh returns as a value (db.aggregate, checkMetadataConsistency):
                      * an AggregationCursor prints as a batch, a RunCommandCursor as { cursorHasMore, documents }; the
                      * engine gets a Cursor holding them */
} sh_result_kind_t;

/* A result; everything it points to is borrowed from the executor for the time it is presented. */
typedef struct {
   sh_result_kind_t kind;
   const bson_t *doc;         /* DOC, ARRAY, STATS, BATCH (an array document of the batch's documents) */
   const bson_value_t *value; /* VALUE */
   const char *stats_key; /* STATS: the key whose value prints on one line (output_opts_t's one_line_key), or NULL */
   bool more;             /* BATCH: the cursor may give more ("it" continues it) */
   bool iteration;        /* BATCH: the batch "it" asked for ("no cursor" when it is empty) */
   bool run_command;      /* CURSOR: a RunCommandCursor (mongosh prints its iteration result as a document) */
} sh_result_t;

/* Shows r: as the call's value when the JavaScript engine asked for values (ctx->capture), not at all when nobody
 * sees the statement's results (ctx->results_unseen), else on ctx->out_fp as ctx->out says (pretty or --json). */
void
sh_result_present (sh_ctx_t *ctx, const sh_result_t *r);

#endif
