/* The requests of one call: what a build() fills (database, command document, path) and the list that holds
 * them. Ownership: the list owns every request; whoever initialised it destroys it. */
#ifndef SHARDSH_REQUESTS_H
#define SHARDSH_REQUESTS_H

#include <bson/bson.h>
#include <stddef.h>

#include "shell/core/conn.h"

/* One request a helper sends: the database, the exact command document (field order and BSON types as mongosh
 * sends them), and the path (admin or read). */
typedef struct {
   bson_t cmd; /* first: bson_t is 128-byte aligned, so the rest fits in the next 128 bytes (256 in all) */
   char *db;   /* db_buf when the name fits there, else owned */
   conn_path_t path;
   char db_buf[96];
} sh_request_t;

/* The requests of one call, in order; the shared executor stops at the first that fails. Starts as { .n = 0 }; grows
 * as requests are added; released with sh_requests_destroy. */
typedef struct {
   sh_request_t *v;
   size_t n;
   size_t cap;
   bool v_lent; /* v is the caller's slot (sh_requests_init_in): never freed here */
} sh_requests_t;

/* Starts out empty with room for its first request in *slot, lent by the caller (who keeps it alive and 128-byte
 * aligned as long as out's requests): a call that sends one request allocates no list. A second request moves the
 * list to memory of its own; the slot is then left unused. */
void
sh_requests_init_in (sh_requests_t *out, sh_request_t *slot);

/* Initialises the next request in out for db (copied) and path and returns its command document to fill, valid until
 * the next sh_requests_add on out. */
bson_t *
sh_requests_add (sh_requests_t *out, const char *db, conn_path_t path);

/* Destroys every request and frees the list (not a lent slot); out becomes { .n = 0 } and can be used again. */
void
sh_requests_destroy (sh_requests_t *out);

#endif
