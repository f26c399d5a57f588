/* shardsim's --log-commands: one JSON line per received command (arrival time, connection, opcode, database, the
 * command as canonical Extended JSON and the CPU time it took in microseconds), written when the command has run and
 * before its reply is sent, flushed per line so a test can assert exactly what a client sent. */
#include "tests/shardsim/sim.h"

static FILE *sim_log_file;
static pthread_mutex_t sim_log_lock = PTHREAD_MUTEX_INITIALIZER;

bool
sim_log_open (const char *path)
{
   sim_log_file = fopen (path, "a");
   return sim_log_file != NULL;
}

/* Writes s as a JSON string literal. */
static void
sim_log_json_string (FILE *f, const char *s)
{
   fputc ('"', f);
   for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
      if (*p == '"' || *p == '\\') {
         fprintf (f, "\\%c", *p);
      } else if (*p < 0x20) {
         fprintf (f, "\\u%04x", *p);
      } else {
         fputc (*p, f);
      }
   }
   fputc ('"', f);
}

int64_t
sim_log_thread_cpu_us (void)
{
   struct timespec ts;
   if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
      return 0;
   }
   return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void
sim_log_command (int32_t conn_id, int32_t opcode, const char *db, const bson_t *cmd, int64_t t_ms, int64_t cpu_us)
{
   if (!sim_log_file) {
      return;
   }
   bson_t redacted;
   bool secret = sim_auth_redact_for_log (cmd, &redacted); /* SASL payloads are shown as "###" */
   char *json = bson_as_canonical_extended_json (secret ? &redacted : cmd, NULL);
   if (secret) {
      bson_destroy (&redacted);
   }
   pthread_mutex_lock (&sim_log_lock);
   fprintf (sim_log_file, "{\"t\": %lld, \"conn\": %d, \"op\": \"%s\", \"db\": ", (long long) t_ms, (int) conn_id,
            opcode == SIM_OP_QUERY ? "OP_QUERY" : "OP_MSG");
   sim_log_json_string (sim_log_file, db);
   fprintf (sim_log_file, ", \"cmd\": %s, \"cpu_us\": %lld}\n", json ? json : "null", (long long) cpu_us);
   fflush (sim_log_file);
   pthread_mutex_unlock (&sim_log_lock);
   bson_free (json);
}

void
sim_log_close (void)
{
   if (sim_log_file) {
      fclose (sim_log_file);
      sim_log_file = NULL;
   }
}
