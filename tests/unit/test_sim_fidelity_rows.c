/* passes: plain asan */
/* The fidelity checks written as data rows (issue 38): every tests/unit/fidelity/<name>.json holds one header and then
 * rows, each a JSON document; this one driver starts shardsim per version of the header, runs the rows in order and
 * turns each row that names a check into one PASS/FAIL line "<version>.<check>". docs/shardsim.md names the server
 * file and function each check follows; tests/unit/fidelity/README.md describes the row format. */
#include <dirent.h>
#include <pthread.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/unit/fidelity_rows.h"

#define FR_MAX_FILES 64
#define FR_JOBS 4 /* files run at once */

/* tmpl (JSON) with the string "$i" replaced by the number i and "$pad200" by a string of 200 x; the caller frees. */
static char *
fr_subst (const char *tmpl, int64_t i)
{
   char pad[203], num[32], *json = bson_strdup (tmpl), *at;
   memset (pad, 'x', sizeof pad);
   pad[0] = pad[201] = '"';
   pad[202] = '\0';
   bson_snprintf (num, sizeof num, "%" PRId64, i);
   while ((at = strstr (json, "\"$i\"")) || (at = strstr (json, "\"$pad200\""))) {
      bool is_i = !strncmp (at, "\"$i\"", 4);
      *at = '\0';
      char *next = bson_strdup_printf ("%s%s%s", json, is_i ? num : pad, at + (is_i ? 4 : 9));
      bson_free (json);
      json = next;
   }
   return json;
}

/* gen: {db, coll, n, first (0), doc}: inserts n documents, one command each, from doc (fr_subst: "$i" the number,
 * first, first + 1, ..., "$pad200" 200 x: insert_docs' documents). repeat: {db, from, to (excluded), step (1), run}:
 * runs the command for each number, "$i" in it standing for the number. */
static void
fr_gen (fr_run_t *r, const bson_t *gen, bool repeat)
{
   bson_t doc;
   bson_iter_t it;
   int64_t from = 0, to = 0, step = 1;
   if (!fr_doc (gen, repeat ? "run" : "doc", &doc))
      return;
   if (bson_iter_init_find (&it, gen, repeat ? "from" : "first"))
      from = bson_iter_as_int64 (&it);
   if (bson_iter_init_find (&it, gen, repeat ? "to" : "n"))
      to = repeat ? bson_iter_as_int64 (&it) : from + bson_iter_as_int64 (&it);
   if (bson_iter_init_find (&it, gen, "step") && bson_iter_as_int64 (&it) > 0)
      step = bson_iter_as_int64 (&it);
   /* run may be a list of commands: each of them for each number, in order */
   bool list = repeat && bson_iter_init_find (&it, gen, "run") && BSON_ITER_HOLDS_ARRAY (&it);
   for (int64_t i = from; i < to; i += step) {
      bson_iter_t el;
      bool more = list ? bson_iter_init (&el, &doc) : true;
      while (more) {
         bson_t one;
         char *tmpl;
         if (list) {
            if (!bson_iter_next (&el))
               break;
            uint32_t l;
            const uint8_t *data;
            if (!BSON_ITER_HOLDS_DOCUMENT (&el))
               continue;
            bson_iter_document (&el, &l, &data);
            bson_init_static (&one, data, l);
            tmpl = bson_as_relaxed_extended_json (&one, NULL);
         } else {
            tmpl = bson_as_relaxed_extended_json (&doc, NULL);
            more = false;
         }
         char *json = fr_subst (tmpl, i);
         char *cmd =
            repeat ? bson_strdup (json)
                   : bson_strdup_printf ("{\"insert\": \"%s\", \"documents\": [%s]}", fr_str (gen, "coll", ""), json);
         simproc_run_ok (&r->sim, fr_str (gen, "db", repeat ? "admin" : "test"), cmd);
         bson_free (cmd);
         bson_free (json);
         bson_free (tmpl);
      }
   }
}

/* Forgets the mark name (a mark step saves it again). */
static void
fr_marks_drop (fr_run_t *r, const char *name)
{
   bson_t kept = BSON_INITIALIZER;
   bson_copy_to_excluding_noinit (&r->marks, &kept, name, NULL);
   bson_destroy (&r->marks);
   bson_steal (&r->marks, &kept);
}

/* A step that is no command: gen and repeat (fr_gen), mark ({name, count | find}: saves a count or a found value),
 * sleep_ms, bg ({db, run}: the command starts on its own client in a thread), wait ({db, coll, filter, n, ms,
 * every_ms}: polls until a document matches, or n do; waited says whether it came), idle (a second client pings and
 * stays open). True when row is one. */
static bool
fr_special_step (fr_run_t *r, const bson_t *row)
{
   bson_t sub, spec;
   bson_iter_t it;
   if (fr_doc (row, "gen", &sub)) {
      fr_gen (r, &sub, false);
   } else if (fr_doc (row, "repeat", &sub)) {
      fr_gen (r, &sub, true);
   } else if (fr_doc (row, "mark", &sub)) {
      double v = 0;
      bool has;
      fr_marks_drop (r, fr_str (&sub, "name", ""));
      if (fr_doc (&sub, "count", &spec)) {
         bson_t filter;
         if (!fr_doc (&spec, "filter", &filter))
            bson_init (&filter);
         mongoc_collection_t *c =
            mongoc_client_get_collection (r->sim.client, fr_str (&spec, "db", "config"), fr_str (&spec, "coll", ""));
         BSON_APPEND_INT64 (&r->marks, fr_str (&sub, "name", ""),
                            mongoc_collection_count_documents (c, &filter, NULL, NULL, NULL, NULL));
         mongoc_collection_destroy (c);
         return true;
      } else if (fr_doc (&sub, "reply", &spec)) { /* {db, run}: the command's whole reply, for later deltas */
         bson_t cmd, reply;
         if (fr_doc (&spec, "run", &cmd)) {
            fr_command (r, fr_str (&spec, "db", "admin"), &cmd, &reply);
            BSON_APPEND_DOCUMENT (&r->marks, fr_str (&sub, "name", ""), &reply);
            bson_destroy (&reply);
         }
         return true;
      } else if (fr_doc (&sub, "find", &spec)) {
         /* the value itself (an ObjectId, a Timestamp, a number: "$mark" in at compares it), or a timestamp part */
         if (fr_find_doc_num (r, &spec, &has, &v, &r->marks, fr_str (&sub, "name", "")) || !has ||
             strstr (fr_str (&spec, "path", ""), ".$"))
            if (!bson_has_field (&r->marks, fr_str (&sub, "name", "")))
               BSON_APPEND_DOUBLE (&r->marks, fr_str (&sub, "name", ""), v);
         return true;
      }
      BSON_APPEND_DOUBLE (&r->marks, fr_str (&sub, "name", ""), v);
   } else if (bson_iter_init_find (&it, row, "sleep_ms")) {
      usleep ((useconds_t) (bson_iter_as_int64 (&it) * 1000));
   } else if (fr_doc (row, "bg", &sub) && !r->bg_running && fr_doc (&sub, "run", &spec)) {
      r->bg_cmd = bson_copy (&spec);
      r->bg = (fid_bg_t){
         .port = r->sim.port, .db = fr_str (&sub, "db", "admin"), .cmd = r->bg_cmd, .t0 = bson_get_monotonic_time ()
      };
      r->bg_running = pthread_create (&r->bg_thread, NULL, fid_bg_run, &r->bg) == 0;
   } else if (fr_doc (row, "wait", &sub)) {
      int64_t ms = bson_iter_init_find (&it, &sub, "ms") ? bson_iter_as_int64 (&it) : 10000;
      bson_t filter;
      if (!fr_doc (&sub, "filter", &filter))
         bson_init (&filter);
      mongoc_collection_t *c =
         mongoc_client_get_collection (r->sim.client, fr_str (&sub, "db", "config"), fr_str (&sub, "coll", ""));
      int64_t every = bson_iter_init_find (&it, &sub, "every_ms") ? bson_iter_as_int64 (&it) : 10;
      int64_t want = bson_iter_init_find (&it, &sub, "n") ? bson_iter_as_int64 (&it) : -1;
      r->waited = false;
      for (int64_t waited = 0; waited <= ms && !r->waited; waited += every) {
         int64_t n = mongoc_collection_count_documents (c, &filter, NULL, NULL, NULL, NULL);
         r->waited = want < 0 ? n > 0 : n == want;
         if (!r->waited)
            usleep ((useconds_t) (every * 1000));
      }
      mongoc_collection_destroy (c);
   } else if (bson_iter_init_find (&it, row, "idle")) {
      if (r->nidle < 4) {
         bson_error_t err;
         bson_t *ping = BCON_NEW ("ping", BCON_INT32 (1));
         mongoc_client_t *c = simproc_client (r->sim.port, "serverSelectionTimeoutMS=5000");
         if (c)
            mongoc_client_command_simple (c, "admin", ping, NULL, NULL, &err);
         bson_destroy (ping);
         r->idle[r->nidle++] = c;
      }
   } else {
      return false;
   }
   return true;
}

/* Waits for the background command (a check's "join"). */
static void
fr_join (fr_run_t *r)
{
   if (r->bg_running) {
      pthread_join (r->bg_thread, NULL);
      r->bg_running = false;
      bson_destroy (r->bg_cmd);
      r->bg_cmd = NULL;
   }
}

/* A check's "pre" (before its command) or "post" (after its counts) commands, key: all must succeed. */
static bool
fr_pre (fr_run_t *r, const bson_t *row, const char *key, char *why, size_t len)
{
   bson_t pre, step, c, reply;
   bson_iter_t it;
   bool ok = true;
   if (!fr_doc (row, key, &pre) || !bson_iter_init (&it, &pre))
      return true;
   while (bson_iter_next (&it)) {
      uint32_t l;
      const uint8_t *data;
      if (!BSON_ITER_HOLDS_DOCUMENT (&it))
         continue;
      bson_iter_document (&it, &l, &data);
      bson_init_static (&step, data, l);
      if (fr_doc (&step, "run", &c) && !fr_command (r, fr_str (&step, "db", "admin"), &c, &reply)) {
         fr_why (why, len, "a %s command failed%s", key, "");
         ok = false;
      }
      if (fr_doc (&step, "run", &c))
         bson_destroy (&reply);
   }
   return ok;
}

/* A check's expectations once its command ran, in this order: the reply, the counts, the "post" commands (must
 * succeed), the join of the background command when join is "after" ("before": first), find, the chunk order,
 * then the rest (types, the wait, the background command's end). */
static bool
fr_expect_check (fr_run_t *r, const bson_t *row, const bson_t *expect, const char *join, char *why, size_t len)
{
   bool ok;
   if (!strcmp (join, "before"))
      fr_join (r);
   ok = fr_expect_reply (r, expect, why, len);
   ok = fr_expect_counts (r, expect, why, len) && ok;
   ok = fr_pre (r, row, "post", why, len) && ok;
   if (!strcmp (join, "after"))
      fr_join (r);
   ok = fr_expect_find (r, expect, why, len) && ok;
   ok = fr_expect_chunkorder (r, expect, why, len) && ok;
   ok = fr_expect_deltas (r, expect, why, len) && ok;
   ok = fr_expect_shape (r, expect, why, len) && ok;
   return fr_expect_more (r, expect, why, len) && ok;
}

/* One row: a step (no "check": its command runs and its reply is dropped, or fr_special_step), or a check: its "pre"
 * commands must succeed, its "run" (if any) becomes the last reply, and its "expect" is judged on the last reply and
 * what follows, in this order: the reply, the counts, the "post" commands (must succeed), the join of the background
 * command when "join" is "after" ("before": right after the command), find, then the rest (types, the wait, the
 * background command's end). */
static void
fr_row (fr_run_t *r, const bson_t *row)
{
   bson_t cmd, expect;
   char name[512], why[2048] = "";
   const char *db = fr_str (row, "db", "admin");
   const char *check = fr_str (row, "check", NULL);
   const char *join = fr_str (row, "join", "");
   if (!fr_applies (row, r->version))
      return;
   if (!check) {
      bson_t reply;
      if (fr_special_step (r, row) || !fr_doc (row, "run", &cmd))
         return;
      if (!fr_command (r, db, &cmd, &reply)) {
         char *j = bson_as_relaxed_extended_json (&reply, NULL);
         fprintf (stderr, "%s: step failed: %s\n", r->version, j);
         bson_free (j);
      }
      bson_destroy (&reply);
      return;
   }
   bson_t until;
   bson_iter_t it;
   int64_t times = bson_iter_init_find (&it, row, "times") ? bson_iter_as_int64 (&it) : 1;
   bool has_until = fr_doc (row, "until", &until), ok = true;
   if (!fr_doc (row, "expect", &expect))
      bson_init (&expect);
   /* "times": the pre commands and the command run that many times, every time judged (all must hold); with
    * "until", up to that many times until the until expectations hold of the reply, then judged once */
   for (int64_t k = 0; k < times; k++) {
      ok = fr_pre (r, row, "pre", why, sizeof why) && ok;
      if (fr_doc (row, "run", &cmd)) {
         int64_t t0 = bson_get_monotonic_time ();
         bson_destroy (&r->last);
         r->last_ok = fr_command (r, db, &cmd, &r->last);
         r->took_ms = (bson_get_monotonic_time () - t0) / 1000;
      }
      if (has_until) {
         char scratch[256] = "";
         if (fr_expect_reply (r, &until, scratch, sizeof scratch) || k + 1 == times)
            ok = fr_expect_check (r, row, &expect, join, why, sizeof why) && ok;
         if (fr_expect_reply (r, &until, scratch, sizeof scratch))
            break;
      } else {
         ok = fr_expect_check (r, row, &expect, join, why, sizeof why) && ok;
      }
   }
   if (fr_str (row, "save", NULL)) { /* the reply, for later deltas */
      fr_marks_drop (r, fr_str (row, "save", ""));
      BSON_APPEND_DOCUMENT (&r->marks, fr_str (row, "save", ""), &r->last);
   }
   snprintf (name, sizeof name, "%s.%s", r->version, check);
   if (ok) {
      UNIT_PASS (name);
   } else {
      char *j = bson_as_relaxed_extended_json (&r->last, NULL);
      UNIT_FAIL (name, "%s (reply %.300s)", why, j ? j : "");
      bson_free (j);
   }
}

/* Runs every row of path (its header first) once per version of the header. */
static void
fr_file (const char *path)
{
   bson_json_reader_t *reader;
   bson_error_t err;
   bson_t header = BSON_INITIALIZER, versions, args_doc;
   bson_iter_t it;
   int rc;
   size_t nrows = 0, cap = 64;
   bson_t **rows = malloc (cap * sizeof *rows);

   if (!(reader = bson_json_reader_new_from_file (path, &err))) {
      UNIT_FAIL (path, "cannot read it: %s", err.message);
      free (rows);
      return;
   }
   rc = bson_json_reader_read (reader, &header, &err);
   while (rc > 0) {
      bson_t *row = bson_new ();
      rc = bson_json_reader_read (reader, row, &err);
      if (rc <= 0) {
         bson_destroy (row);
         break;
      }
      if (nrows == cap)
         rows = realloc (rows, (cap *= 2) * sizeof *rows);
      rows[nrows++] = row;
   }
   if (rc < 0)
      UNIT_FAIL (path, "not JSON rows: %s", err.message);
   bson_json_reader_destroy (reader);

   if (rc >= 0 && fr_doc (&header, "versions", &versions) && bson_iter_init (&it, &versions)) {
      while (bson_iter_next (&it)) {
         const char *argv[32];
         size_t n = 0;
         char pre[64];
         fr_run_t r = { .version = bson_iter_utf8 (&it, NULL), .last_ok = false };
         bson_iter_t a;
         argv[n++] = "--version";
         argv[n++] = r.version;
         if (fr_doc (&header, "args", &args_doc) && bson_iter_init (&a, &args_doc))
            while (bson_iter_next (&a) && n < 30)
               if (BSON_ITER_HOLDS_UTF8 (&a))
                  argv[n++] = bson_iter_utf8 (&a, NULL);
         argv[n] = NULL;
         snprintf (pre, sizeof pre, "%s.%s", r.version, fr_str (&header, "prefix", ""));
         bson_init (&r.last);
         bson_init (&r.marks);
         if (fid_begin (&r.sim, argv, pre)) {
            for (size_t i = 0; i < nrows; i++)
               fr_row (&r, rows[i]);
            fr_join (&r);
            for (int i = 0; i < r.nidle; i++)
               mongoc_client_destroy (r.idle[i]);
            fid_end (&r.sim, pre);
         }
         bson_destroy (&r.last);
         bson_destroy (&r.marks);
      }
   }
   for (size_t i = 0; i < nrows; i++)
      bson_destroy (rows[i]);
   free (rows);
   bson_destroy (&header);
}

static int
fr_cmp (const void *a, const void *b)
{
   return strcmp (*(char *const *) a, *(char *const *) b);
}

int
main (void)
{
   /* FIDELITY_ROWS_DIR: another folder of row files (a mutated copy, to see the checks fail) */
   const char *dir = getenv ("FIDELITY_ROWS_DIR") ? getenv ("FIDELITY_ROWS_DIR") : "tests/unit/fidelity";
   char *files[FR_MAX_FILES];
   size_t n = 0;
   DIR *d = opendir (dir);
   struct dirent *e;
   mongoc_init ();
   mongoc_log_set_handler (NULL, NULL);
   if (!d) {
      UNIT_FAIL ("fidelity rows", "cannot open %s", dir);
   } else {
      while ((e = readdir (d)) && n < FR_MAX_FILES) {
         size_t l = strlen (e->d_name);
         if (l > 5 && !strcmp (e->d_name + l - 5, ".json")) {
            files[n] = malloc (strlen (dir) + l + 2);
            sprintf (files[n++], "%s/%s", dir, e->d_name);
         }
      }
      closedir (d);
   }
   qsort (files, n, sizeof *files, fr_cmp);
   CHECK ("fidelity rows: files found", n > 0);
   /* one process per file, FR_JOBS at a time (each starts its own shardsim on its own port; more at once would
    * crowd the timed checks on a 2-core machine): the files' lines interleave, each line whole (line-buffered); a
    * file whose process fails or dies counts as a failure here too */
   fflush (stdout);
   pid_t pids[FR_MAX_FILES];
   size_t started = 0, running = 0;
   while (started < n || running > 0) {
      if (started < n && running < FR_JOBS) {
         pids[started] = fork ();
         if (pids[started] == 0) {
            setvbuf (stdout, NULL, _IOLBF, 0);
            fr_file (files[started]);
            fflush (stdout);
            _exit (unit_failed ? 1 : 0);
         }
         if (pids[started] < 0)
            UNIT_FAIL (files[started], "%s", "could not start its run");
         else
            running++;
         started++;
         continue;
      }
      int status = 0;
      pid_t done = wait (&status);
      if (done < 0)
         break;
      running--;
      for (size_t i = 0; i < started; i++) {
         if (pids[i] != done)
            continue;
         if (!WIFEXITED (status))
            UNIT_FAIL (files[i], "its run did not end normally (status %d)", status);
         else if (WEXITSTATUS (status) != 0)
            unit_failed++; /* its FAIL lines are printed */
      }
   }
   for (size_t i = 0; i < n; i++)
      free (files[i]);
   mongoc_cleanup ();
   UNIT_EXIT ();
}
