/* libFuzzer target for the edge every server reply passes before libmongoc reads it: bytes that validate as a BSON
 * document (shell/lib/bsonvalid.h) go through the shape check (shell/lib/replyshape.h); what it accepts is handed to
 * the driver's own reply readers exactly as conn_run_cursor hands a command's reply to them (a cursor made from the
 * reply, read to its end, its error turned into the shell's error), where an unchecked {ok: 0, code: 0} or a cursor
 * ns without a dot aborted or read past the heap. The client points at a closed port: a getMore fails at once.
 * Built by `make fuzz`; tests/unit/test_fuzz_regressions.c replays saved inputs through fuzz_reply_one. */
#include <mongoc/mongoc.h>
#include <stdint.h>
#include <stdlib.h>

#include "shell/core/conn.h"
#include "shell/core/server_error.h"
#include "shell/lib/bsonvalid.h"
#include "shell/lib/replyshape.h"
#include "tests/fuzz/fuzz.h"

static mongoc_client_t *reply_client;

static void
reply_stop (void)
{
   mongoc_client_destroy (reply_client);
   mongoc_cleanup ();
}

static mongoc_client_t *
reply_start (void)
{
   if (!reply_client) {
      mongoc_init ();
      mongoc_log_set_handler (NULL, NULL);
      reply_client = mongoc_client_new ("mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=1&connectTimeoutMS=1"
                                        "&serverSelectionTryOnce=true");
      atexit (reply_stop);
   }
   return reply_client;
}

bool
fuzz_reply_one (const uint8_t *data, size_t size)
{
   mongoc_client_t *client = reply_start ();
   mongoc_cursor_t *cursor;
   bson_t doc, *copy, opts = BSON_INITIALIZER;
   const bson_t *d;
   bson_error_t error;
   sh_error_t err;
   int n = 0;

   if (size < 5 || size > INT32_MAX || !bsonvalid_data (data, size) || !bson_init_static (&doc, data, size))
      return false;
   if (replyshape_why (&doc))
      return true; /* refused at the edge: nothing else reads it */
   if (!client)
      return true;
   /* the cursor takes the copy; a serverId so a getMore would go to a server (there is none: it fails) */
   copy = bson_copy (&doc);
   BSON_APPEND_INT32 (&opts, "serverId", 1);
   cursor = mongoc_cursor_new_from_command_reply_with_opts (client, copy, &opts);
   while (n < 100000 && mongoc_cursor_next (cursor, &d))
      n++;
   sh_error_clear (&err);
   if (mongoc_cursor_error_document (cursor, &error, &d))
      server_error_from_mongoc (NULL, &err, &error, d);
   mongoc_cursor_destroy (cursor);
   bson_destroy (&opts);
   return true;
}

#ifndef FUZZ_NO_MAIN
int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
   fuzz_reply_one (data, size);
   return 0;
}
#endif
