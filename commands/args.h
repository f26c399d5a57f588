/* Argument readers for build(): mongosh's assertArgsDefinedType checks, typed getters, the integer conversions every
 * user number goes through (args_number_to_int, args_int, args_opt_int), and the small build()s several entries
 * share (commands/args.c). Everything returned is borrowed from the call. */
#ifndef SHARDSH_ARGS_H
#define SHARDSH_ARGS_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stdint.h>

#include "commands/table.h"

typedef enum {
   ARG_STRING = 1 << 0,
   ARG_NUMBER = 1 << 1, /* JS number: int32 or double */
   ARG_BOOL = 1 << 2,
   ARG_OBJECT = 1 << 3, /* JS typeof "object": documents, arrays, null, ObjectId, Long, dates, ... */
   ARG_ANY = 0xff,
} arg_type_t;

/* mongosh's check for argument i (0-based): missing (absent or undefined) fails with
 * "[COMMON-10001] Missing required argument at position i (Shard.method)" when required; a present argument of
 * another typeof fails with "[COMMON-10001] Argument at position i must be of type t1 or t2, got t instead
 * (Shard.method)". owner is "Shard", "Database" or "Collection"; method is the bare name. */
bool
args_check (const sh_call_t *call, int i, unsigned types, bool required, const char *owner, const char *method,
            sh_error_t *err);

/* True when argument i is present and not undefined; then *it points at it. */
bool
args_get (const sh_call_t *call, int i, bson_iter_t *it);

/* The UTF-8 string of argument i, or NULL when it is not a string. Borrowed from call->args. */
const char *
args_str (const sh_call_t *call, int i);

/* Appends argument i under key, unchanged (type and value as parsed). Does nothing when it is absent. */
void
args_append (const sh_call_t *call, int i, bson_t *doc, const char *key);

/* Where argument i is in the source (for an error's caret), or the closing parenthesis when it is absent. */
sh_pos_t
args_pos (const sh_call_t *call, int i);

/* The bare method name of the call's entry, as mongosh's messages name it: "addShardTag" for sh.addShardTag,
 * "find" for db.collection.find. */
const char *
args_method (const sh_call_t *call);

/* Builds { <name>: <argument 0> } for db and path after mongosh's check that argument 0 is a string. */
bool
args_build_string_command (const sh_call_t *call, sh_requests_t *out, const char *method, const char *name,
                           const char *db, conn_path_t path, sh_error_t *err);

/* A build(): { <method>: <argument 0> } on admin (admin path), argument 0 a string, the method named by the entry
 * (sh.addShard sends { addShard: <argument 0> }). */
bool
args_build_method_string (const sh_call_t *call, sh_requests_t *out, sh_error_t *err);

/* A build(): { <method>: <argument 0>, toShard: <argument 1> } on admin, both strings, the method named by the
 * entry (sh.moveCollection, sh.unshardCollection). */
bool
args_build_method_to_shard (const sh_call_t *call, sh_requests_t *out, sh_error_t *err);

/* Appends to cmd mongosh's adjustRunCommand ({ ...base, ...argument i }): argument i spreads over base when it is a
 * document and is ignored otherwise. */
void
args_spread_run_command (const sh_call_t *call, int i, const bson_t *base, bson_t *cmd);

/* dst = { ...base, ...opts } with JS spread semantics: a repeated key keeps its first position and takes the later
 * value; new keys follow in their own order. dst is initialised by the caller; opts may be NULL. */
void
args_spread (bson_t *dst, const bson_t *base, const bson_t *opts);

/* Points doc at the document argument i (static, borrowed from call->args). False when it is not a document. */
bool
args_doc (const sh_call_t *call, int i, bson_t *doc);

/* mongosh's adjustRunCommand: copies cmd into dst, turning the integer fields mongosh sends as doubles into doubles
 * (sampleRate of configureQueryAnalyzer and profile, size / minRetentionHours of replSetResizeOplog,
 * mirrorReads.samplingRate of setParameter). dst is initialised by the caller. */
void
args_adjust_run_command (bson_t *dst, const bson_t *cmd);

/* The same, with first an iterator standing on cmd's first element (its names are read from there on, the iterator
 * copied), or NULL. */
void
args_adjust_run_command_at (bson_t *dst, const bson_t *cmd, const bson_iter_t *first);

/* A number (int32, int64 or double) as an integer in [min, max], a double truncated toward zero: false for NaN, the
 * infinities, anything outside the range and any other type. Every user number that becomes an integer goes through
 * this (or args_int / args_opt_int), so no conversion from double is ever undefined. */
bool
args_number_to_int (const bson_iter_t *it, int64_t min, int64_t max, int64_t *out);

/* Argument i as an integer in [min, max] into *out; absent or undefined leaves *out unchanged and returns true.
 * out may be NULL for a check alone. Otherwise false with an SH_ERR_ARGS error at the argument: "<helper>: <what> must
 * be a number from <min> to <max>, got <value>". */
bool
args_int (const sh_call_t *call, int i, int64_t min, int64_t max, const char *what, int64_t *out, sh_error_t *err);

/* The same for field key of the options document at argument i (absent, null or undefined: true, *out unchanged;
 * out may be NULL for a check alone). The caret is on argument i. */
bool
args_opt_int (const sh_call_t *call, int i, const char *key, int64_t min, int64_t max, int64_t *out, sh_error_t *err);

/* JS typeof of a BSON value: "string", "number", "boolean", "object", "undefined". */
const char *
args_typeof (const bson_iter_t *it);

#endif
