/* What one statement of a script shows (issue 18, docs/plan.md): in a -f script stdout carries what the script prints
 * and stderr one line per statement that changes the cluster or fails ("zones.js:7 ok sh.stopBalancer()"); under --json
 * one object per statement
 * ({file, line, col, statement, ok, code, codeName, errmsg, result}); --eval shows the value of its last statement;
 * --dry-run requests name file:line and print relaxed Extended JSON (canonical under --json). A statement runs
 * between script_out_begin and script_out_end, which hold its output back when only part of it is shown. */
#ifndef SHARDSH_SCRIPT_OUT_H
#define SHARDSH_SCRIPT_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "commands/result.h"
#include "shell/core/ctx.h"
#include "shell/core/errors.h"
#include "shell/lang/parser.h"

/* What reaches stdout from one statement. */
typedef enum {
   SCRIPT_SHOW_ALL,    /* everything, as the interactive shell shows it (--verbose, the last --eval statement) */
   SCRIPT_SHOW_PRINTS, /* what print and printjson print, and dry-run requests; results are not shown (mongosh -f) */
   SCRIPT_SHOW_JSON,   /* dry-run requests, then one JSON object for the statement (-f under --json) */
} script_show_t;

/* Where a statement or call is: file name, 1-based line and column. */
typedef struct {
   const char *file;
   int line;
   int col;
} script_place_t;

typedef struct {
   sh_ctx_t *ctx;
   script_show_t show;
   bool status;   /* a status line on stderr when the statement ends (a write's, or a failure's) */
   bool is_print; /* print / printjson: their text is the statement's output */
   bool writes;   /* the statement changes the cluster (dispatch_stmt_writes; true when it does not resolve) */
   const char *file;
   const sh_stmt_t *stmt;
   const char *source;           /* the script's text */
   sh_result_t result;           /* the statement's result, for dispatch_stmt to fill (script_out_begin sets it up) */
   const char *saved_place_file; /* ctx->place before the statement */
   int saved_place_line;
   int saved_place_col;
} script_out_t;

/* Starts statement stmt of file (text source): so->result is to be filled by its run (dispatch_stmt), and ctx->place
 * names file:line (for --dry-run's requests, which print as they are made); status asks for the stderr line at the
 * end. Always followed by script_out_end. */
void
script_out_begin (script_out_t *so, sh_ctx_t *ctx, script_show_t show, bool status, const char *file,
                  const char *source, const sh_stmt_t *stmt);

/* Whether nobody sees the statement's result (a -f statement that is not a print): it is not presented. */
bool
script_out_unseen (const script_out_t *so);

/* Ends the statement: presents its result on stdout when show shows it (with ctx->out as the statement ran), then the
 * status line on stderr ("file:line ok <statement>" for a statement that changes the cluster, unless --quiet; or
 * "file:line error <code> <codeName>: <message>" for any that failed, a read's too; err is the statement's error when
 * ok is false) or, under SCRIPT_SHOW_JSON, its JSON object on stdout. Restores ctx. */
void
script_out_end (script_out_t *so, bool ok, const sh_error_t *err);

/* Reports one command-table call made by JavaScript at place at (stmt: the call as text, "sh.stopBalancer()"): under
 * SCRIPT_SHOW_JSON its JSON object on stdout (result: its value, or NULL; text: what it printed, or NULL), else its
 * status line on stderr. err is the call's error when ok is false. Everything is borrowed. */
void
script_out_call (sh_ctx_t *ctx, script_show_t show, const script_place_t *at, const char *stmt, bool ok,
                 const sh_error_t *err, const bson_value_t *result, const char *text);

/* The text of stmt in source with every run of white space as one space, into buf (cut with "..." when longer). */
void
script_out_stmt_text (const char *source, const sh_stmt_t *stmt, char *buf, size_t len);

#endif
