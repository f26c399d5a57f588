/* Which commands only read: one list for the three questions that need it — may --readonly let a raw
 * db.runCommand/adminCommand through (commands/admin.c), may the driver's read helper retry it after a network error
 * (conn.c), and does a lost reply to it leave the cluster as it was (server_error.c). */
#ifndef SHARDSH_READCMDS_H
#define SHARDSH_READCMDS_H

#include <bson/bson.h>
#include <stdbool.h>

/* True when the command named name only reads, whatever its arguments (aggregate and validate are listed: their
 * writing forms are told apart by readcmds_command). */
bool
readcmds_name (const char *name);

/* True when the aggregate pipeline the iterator is on (an array) has a stage that writes ($out, $merge). */
bool
readcmds_pipeline_writes (const bson_iter_t *pipeline);

/* True when the validate command document cmd asks for a form that changes or locks the collection (repair, full,
 * fixMultikey). */
bool
readcmds_validate_changes (const bson_t *cmd);

/* True when the command document cmd (its first key names the command) only reads: its name is listed, an aggregate
 * has a pipeline array with no writing stage, a validate asks for no changing form. */
bool
readcmds_command (const bson_t *cmd);

#endif
