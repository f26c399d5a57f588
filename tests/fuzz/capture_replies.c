/* Builds the render fuzzer's seed corpus (tests/fuzz/corpus/render/): runs a list of commands against a server
 * (shardsim --scenario demo in tests/fuzz/make_corpus.sh) and writes each reply's raw BSON bytes to a file, so the
 * seeds are real replies with the server's own types. Usage: capture_replies URI OUTDIR < commands, one line each:
 * "<name> <db> <command as Extended JSON>". Not part of the shell; rebuilt only when the corpus is refreshed. */
#include <mongoc/mongoc.h>
#include <stdio.h>
#include <string.h>

int
main (int argc, char **argv)
{
   mongoc_client_t *client;
   char line[4096];
   int written = 0;

   if (argc != 3) {
      fprintf (stderr, "usage: capture_replies URI OUTDIR < commands\n");
      return 2;
   }
   mongoc_init ();
   client = mongoc_client_new (argv[1]);
   if (!client) {
      fprintf (stderr, "capture_replies: bad URI\n");
      return 2;
   }
   mongoc_client_set_error_api (client, MONGOC_ERROR_API_VERSION_2);
   while (fgets (line, sizeof line, stdin)) {
      char name[128], db[128];
      int off = 0;
      bson_t *cmd;
      bson_t reply;
      bson_error_t error;
      char *path;
      FILE *f;

      line[strcspn (line, "\n")] = '\0';
      if (line[0] == '#' || sscanf (line, "%127s %127s %n", name, db, &off) != 2 || !off)
         continue;
      cmd = bson_new_from_json ((const uint8_t *) line + off, -1, &error);
      if (!cmd) {
         fprintf (stderr, "capture_replies: %s: %s\n", name, error.message);
         continue;
      }
      /* a failed command's reply (ok: 0, code, codeName) is a seed too */
      mongoc_client_command_simple (client, db, cmd, NULL, &reply, &error);
      path = bson_strdup_printf ("%s/%s", argv[2], name);
      f = fopen (path, "wb");
      if (f && fwrite (bson_get_data (&reply), 1, reply.len, f) == reply.len)
         written++;
      if (f)
         fclose (f);
      bson_free (path);
      {
         /* the first rows of a cursor reply are seeds of their own: the render fuzzer hands a seed to cursor
          * commands as their only row */
         bson_iter_t it, batch;
         int row = 0;
         if (bson_iter_init (&it, &reply) && bson_iter_find_descendant (&it, "cursor.firstBatch", &batch) &&
             BSON_ITER_HOLDS_ARRAY (&batch) && bson_iter_recurse (&batch, &it)) {
            while (row < 3 && bson_iter_next (&it)) {
               const uint8_t *data;
               uint32_t len;
               if (!BSON_ITER_HOLDS_DOCUMENT (&it))
                  continue;
               bson_iter_document (&it, &len, &data);
               path = bson_strdup_printf ("%s/%s-row%d", argv[2], name, row++);
               f = fopen (path, "wb");
               if (f && fwrite (data, 1, len, f) == len)
                  written++;
               if (f)
                  fclose (f);
               bson_free (path);
            }
         }
      }
      bson_destroy (&reply);
      bson_destroy (cmd);
   }
   mongoc_client_destroy (client);
   mongoc_cleanup ();
   printf ("%d replies written\n", written);
   return written ? 0 : 1;
}
