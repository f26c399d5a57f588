/* The connection's private header, shared by shell/core/conn.c, conn_stream.c and server_error.c only: the
 * canned-reply transport and the stream interposer that conn.c plugs into the client. */
#ifndef SHARDSH_CONN_INT_H
#define SHARDSH_CONN_INT_H

#include <mongoc/mongoc.h>

#include "shell/core/conn.h"

/* True while a canned-reply transport is set (conn_set_transport): no client is created. */
bool
conn_transport_active (void);

/* Sends cmd through the canned-reply transport and checks "ok" as the driver does. reply is initialised by the callee
 * in every case and destroyed by the caller; error is set when false. */
bool
conn_transport_run (const char *db, const bson_t *cmd, bson_t *reply, bson_error_t *error);

/* conn_run_docs through the transport: appends the documents of the reply's cursor.firstBatch, up to max (0: all), to
 * docs (initialised by the caller). False with err set (errors worded for ctx's session). */
bool
conn_transport_run_docs (sh_ctx_t *ctx, const char *db, const bson_t *cmd, size_t max, bson_t *docs, bool *more,
                         sh_error_t *err);

/* The client's stream initiator (mongoc_client_set_stream_initiator): the driver's own stream, wrapped so that Ctrl-C
 * can end a wait for a reply and a reply that is not BSON is refused. data is the session (sh_ctx_t, borrowed: it
 * outlives its client); its client must be set. Returns a stream owned by the driver, or NULL with error set. */
mongoc_stream_t *
conn_stream_initiator (const mongoc_uri_t *uri, const mongoc_host_list_t *host, void *data, bson_error_t *error);

#endif
