/* The dashboard's glue: picks the mode (interactive screen, --once text or JSON, or plain frames when stdout is not
 * a terminal), wires the collector to the screen as its data source, and never lets the two know about each other's
 * insides. */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "views/model/collect.h"
#include "views/crt.h"
#include "views/dashboard.h"
#include "views/screen.h"
#include "views/views.h"

static bool
src_sample (void *ud, snap_t *snap)
{
   return collect_sample (ud, snap);
}

static bool
src_chunks (void *ud, const char *ns, snap_chunks_t *out)
{
   return collect_chunks (ud, ns, out);
}

static bool
src_chunk_sizes (void *ud, snap_chunks_t *chunks, const size_t *rows, size_t n)
{
   return collect_chunk_sizes (ud, chunks, rows, n);
}

static double
src_set_interval (void *ud, double s)
{
   return collect_set_interval (ud, s);
}

static void
src_request_full (void *ud)
{
   collect_request_full (ud);
}

static bool
src_chunkmap (void *ud, const char *ns, chunkmap_data_t *out, char *error, size_t len)
{
   return collect_chunkmap (ud, ns, out, error, len);
}

static bool
src_event_detail (void *ud, const snap_event_t *e, snap_event_detail_t *out)
{
   return collect_event_detail (ud, e, out);
}

static void
sleep_s (double s)
{
   struct timespec ts;
   ts.tv_sec = (time_t) s;
   ts.tv_nsec = (long) ((s - (double) ts.tv_sec) * 1e9);
   while (nanosleep (&ts, &ts) != 0 && !crt_quit_signal)
      ;
}

/* Batch: --once (two samples one interval apart, so rates exist), or frames of plain text. */
static int
run_batch (collect_t *c, const collect_io_t *io, double interval, long frames, bool once)
{
   snap_t snap = { 0 };
   bool any = false, ok = false;
   long n = once ? 2 : frames;

   for (long i = 0; n <= 0 || i < n; i++) {
      if (i)
         sleep_s (interval);
      ok = collect_sample (c, &snap);
      any = any || ok;
      if (!once) {
         if (i)
            fputs ("\n", io->out);
         render_text (io->out, &snap);
         fflush (io->out);
      }
   }
   if (once) {
      if (io->opts->json)
         render_json (io->out, &snap);
      else
         render_text (io->out, &snap);
   }
   if (!ok && snap.error[0])
      fprintf (io->err, "shardsh: dashboard: %s\n", snap.error);
   snap_destroy (&snap);
   return any ? 0 : 1;
}

int
dashboard_run (struct sh_ctx *ctx)
{
   collect_io_t io;
   collect_opts_t copts = collect_opts_default ();
   collect_t *c;
   const char *no_color = getenv ("NO_COLOR");
   int rc;

   collect_ctx_io (ctx, &io);
   if (io.opts && io.opts->interval > 0)
      copts.interval_s = io.opts->interval;
   c = collect_new (ctx, &copts);
   copts.interval_s = collect_set_interval (c, copts.interval_s);
   crt_pick_glyphs ();
   if (io.opts->once || !isatty (STDOUT_FILENO) || !isatty (STDIN_FILENO)) {
      rc = run_batch (c, &io, copts.interval_s, io.opts->frames, io.opts->once);
   } else {
      dash_t d;
      dash_source_t src = { .ud = c,
                            .sample = src_sample,
                            .chunks = src_chunks,
                            .chunk_sizes = src_chunk_sizes,
                            .set_interval = src_set_interval,
                            .request_full = src_request_full,
                            .chunkmap = src_chunkmap,
                            .event_detail = src_event_detail };
      bool color = !io.opts->no_color && !(no_color && *no_color);
      dash_init (&d, copts.interval_s);
      rc = screen_run (&d, &src, color, io.opts->frames);
      if (rc)
         fprintf (io.err, "shardsh: the dashboard needs a terminal\n");
      dash_destroy (&d);
   }
   collect_free (c);
   return rc;
}
