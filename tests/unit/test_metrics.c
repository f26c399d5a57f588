/* passes: plain asan */
/* The exporter's renderer (views/metrics.c) on hand-built snapshots: series and values, one HELP/TYPE per family over
 * two clusters, counters named as each format wants, a drain's ETA left out while unknown, the fixed verdict, reason
 * and caveat label sets, label escaping, the pair cap, and the exporter's address and Accept parsing. */
#include <bson/bson.h>
#include <stdlib.h>
#include <string.h>

#include "views/exporter.h"
#include "views/metrics.h"
#include "tests/unit/unit.h"

/* Two shards (shard02 draining), two collections: app.a on both, app.b (imbalanced by chunk count) on shard01. */
static void
make_snap (snap_t *s, const char *version)
{
   memset (s, 0, sizeof *s);
   s->sampled_at_ms = 1700000000500;
   s->sample_ms = 12;
   s->round_trips = 16;
   bson_strncpy (s->version, version, sizeof s->version);
   bson_strncpy (s->balancer.mode, "full", sizeof s->balancer.mode);
   s->balancer.rounds = 42;
   s->balancer.migrations = 1;
   s->balancer.has_window = true;
   bson_strncpy (s->balancer.window_start, "23:00", sizeof s->balancer.window_start);
   bson_strncpy (s->balancer.window_stop, "06:00", sizeof s->balancer.window_stop);
   s->nshards = 2;
   s->shards = calloc (2, sizeof *s->shards);
   bson_strncpy (s->shards[0].name, "shard01", SNAP_NAME);
   bson_strncpy (s->shards[1].name, "shard02", SNAP_NAME);
   s->shards[0].chunks = 7;
   s->shards[0].data_bytes = 7000;
   s->shards[0].docs = 70;
   s->shards[1].chunks = 2;
   s->shards[1].data_bytes = 2000;
   s->shards[1].draining = true;
   s->shards[1].drain = (snap_drain_t){ .chunks = 2, .bytes = 2000, .databases = 1, .bytes_ps = -1, .eta_s = -1 };
   s->ncolls = 2;
   s->colls = calloc (2, sizeof *s->colls);
   bson_strncpy (s->colls[0].ns, "app.a", SNAP_NAME);
   bson_strncpy (s->colls[1].ns, "app.\"b\"", SNAP_NAME);
   s->colls[0].chunks = 4;
   s->colls[0].balance = SNAP_BAL_OK;
   s->colls[1].chunks = 5;
   s->colls[1].jumbo = 1;
   s->colls[1].balance = SNAP_BAL_IMBALANCED;
   bson_strncpy (s->colls[1].balance_why, "chunk difference 5 >= 2", SNAP_TEXT);
   for (int sh = 0; sh < 2; sh++) {
      snap_cell_t *c = snap_coll_cell_add (&s->colls[0], sh);
      c->chunks = 2;
      c->data_bytes = 1000 * (sh + 1);
   }
   snap_coll_cell_add (&s->colls[1], 0)->chunks = 5;
   snap_coll_tidy (&s->colls[0]);
   snap_coll_tidy (&s->colls[1]);
   s->nops = s->ops_total = 1;
   bson_strncpy (s->ops[0].type, "drain", sizeof s->ops[0].type);
   bson_strncpy (s->ops[0].shard, "shard02", SNAP_NAME);
   s->ops[0].percent = 60;
   s->ops[0].eta_s = -1;
   bson_strncpy (s->ops[0].caveat, "no chunk left the shard in the last minutes (balancer stopped?): time left unknown",
                 SNAP_TEXT);
}

/* The number of lines of text that start with prefix. */
static int
count_lines (const char *text, const char *prefix)
{
   int n = 0;
   size_t len = strlen (prefix);
   for (const char *p = text; p && *p; p = strchr (p, '\n') ? strchr (p, '\n') + 1 : NULL)
      n += !strncmp (p, prefix, len);
   return n;
}

static bool
has_line (const char *text, const char *line)
{
   size_t len = strlen (line);
   for (const char *p = text; p && *p; p = strchr (p, '\n') ? strchr (p, '\n') + 1 : NULL)
      if (!strncmp (p, line, len) && (p[len] == '\n' || p[len] == '\0'))
         return true;
   return false;
}

static void
test_render (void)
{
   snap_t a, b;
   metrics_cluster_t cl[2] = {
      { .name = "east", .up = true, .refreshes = 3, .totals = { 10, 2, 1 } },
      { .name = "west", .up = false, .refreshes = 5, .refresh_errors = 5, .totals = { -1, -1, -1 } }
   };
   metrics_opts_t o = { .max_pairs = 100, .now_min = 23 * 60 + 30, .last_scrape_s = -1 };
   metrics_buf_t t = { 0 }, om = { 0 };
   make_snap (&a, "7.0.2");
   make_snap (&b, "5.0.9");
   cl[0].snap = &a;
   cl[1].snap = &b;
   cl[0].router_cpu_s = 0.25;
   cl[1].router_cpu_s = -1;
   metrics_render (cl, 2, &o, &t);
   o.openmetrics = true;
   metrics_render (cl, 2, &o, &om);

   CHECK ("metrics/up",
          has_line (t.data, "shardsh_up{cluster=\"east\"} 1") && has_line (t.data, "shardsh_up{cluster=\"west\"} 0"));
   CHECK ("metrics/one_type_per_family", count_lines (t.data, "# TYPE shardsh_shard_chunks ") == 1 &&
                                            count_lines (t.data, "shardsh_shard_chunks{") == 4);
   CHECK ("metrics/shard_values",
          has_line (t.data, "shardsh_shard_chunks{cluster=\"east\",shard=\"shard01\"} 7") &&
             has_line (t.data, "shardsh_shard_data_bytes{cluster=\"west\",shard=\"shard02\"} 2000"));
   CHECK ("metrics/text_counter", has_line (t.data, "# TYPE shardsh_migrations_succeeded_total counter") &&
                                     has_line (t.data, "shardsh_migrations_succeeded_total{cluster=\"east\"} 10") &&
                                     has_line (t.data, "shardsh_migrations_failed_total{cluster=\"east\"} 2") &&
                                     has_line (t.data, "shardsh_balancer_rounds_failed_total{cluster=\"east\"} 1"));
   CHECK ("metrics/unknown_totals_absent", !strstr (t.data, "shardsh_migrations_succeeded_total{cluster=\"west\"}"));
   CHECK ("metrics/om_counter", has_line (om.data, "# TYPE shardsh_migrations_succeeded counter") &&
                                   has_line (om.data, "shardsh_migrations_succeeded_total{cluster=\"east\"} 10"));
   CHECK ("metrics/om_eof", om.len > 6 && !strcmp (om.data + om.len - 6, "# EOF\n") && !strstr (t.data, "# EOF"));
   CHECK ("metrics/drain",
          has_line (t.data, "shardsh_shard_drain_remaining_chunks{cluster=\"east\",shard=\"shard02\"} 2") &&
             !strstr (t.data, "shardsh_shard_drain_remaining_chunks{cluster=\"east\",shard=\"shard01\"}"));
   CHECK ("metrics/eta_absent_when_unknown", count_lines (t.data, "shardsh_shard_drain_eta_seconds{") == 0 &&
                                                count_lines (t.data, "shardsh_operation_eta_seconds{") == 0);
   CHECK (
      "metrics/verdict",
      has_line (t.data,
                "shardsh_collection_balance{cluster=\"east\",namespace=\"app.\\\"b\\\"\",verdict=\"imbalanced\"} 1") &&
         has_line (t.data, "shardsh_collection_balance{cluster=\"east\",namespace=\"app.a\",verdict=\"ok\"} 1") &&
         has_line (t.data,
                   "shardsh_collection_balance{cluster=\"east\",namespace=\"app.a\",verdict=\"imbalanced\"} 0"));
   CHECK ("metrics/reason",
          has_line (t.data, "shardsh_collection_imbalance_reason{cluster=\"east\",namespace=\"app.\\\"b\\\"\",reason="
                            "\"chunk_difference\"} 1") &&
             has_line (t.data,
                       "shardsh_collection_imbalance_reason{cluster=\"east\",namespace=\"app.a\",reason=\"none\"} 1"));
   CHECK (
      "metrics/pairs",
      has_line (t.data, "shardsh_collection_shard_chunks{cluster=\"east\",namespace=\"app.a\",shard=\"shard02\"} 2") &&
         has_line (t.data,
                   "shardsh_collection_shard_data_bytes{cluster=\"east\",namespace=\"app.a\",shard=\"shard02\"} 2000"));
   CHECK ("metrics/op_caveat", has_line (t.data, "shardsh_operation_percent{cluster=\"east\",type=\"drain\",namespace="
                                                 "\"\",shard=\"shard02\",caveat=\"drain_stalled\"} 60"));
   CHECK ("metrics/window_open", has_line (t.data, "shardsh_balancer_window_open{cluster=\"east\"} 1") &&
                                    has_line (t.data, "shardsh_balancer_window_start_seconds{cluster=\"east\"} 82800"));
   CHECK ("metrics/timestamp",
          has_line (t.data, "shardsh_last_refresh_timestamp_seconds{cluster=\"east\"} 1700000000.5"));
   CHECK ("metrics/router_cpu", has_line (t.data, "shardsh_refresh_router_cpu_seconds{cluster=\"east\"} 0.25") &&
                                   !strstr (t.data, "shardsh_refresh_router_cpu_seconds{cluster=\"west\"}"));
   CHECK ("metrics/version_label", has_line (t.data, "shardsh_cluster_info{cluster=\"west\",version=\"5.0.9\"} 1"));

   /* the cap: whole collections only, in order; the pair gauge says how many */
   metrics_buf_destroy (&t);
   o.openmetrics = false;
   o.max_pairs = 2;
   o.now_min = 12 * 60;
   metrics_render (cl, 1, &o, &t);
   CHECK ("metrics/pair_cap",
          count_lines (t.data, "shardsh_collection_shard_chunks{") == 2 &&
             has_line (t.data, "shardsh_collection_shard_pairs{cluster=\"east\",set=\"all\"} 3") &&
             has_line (t.data, "shardsh_collection_shard_pairs{cluster=\"east\",set=\"exported\"} 2"));
   CHECK ("metrics/window_closed", has_line (t.data, "shardsh_balancer_window_open{cluster=\"east\"} 0"));

   /* before the first refresh: up 0 and the refresh counters, no figures */
   metrics_buf_destroy (&t);
   cl[1].snap = NULL;
   metrics_render (&cl[1], 1, &o, &t);
   CHECK ("metrics/no_snapshot", has_line (t.data, "shardsh_up{cluster=\"west\"} 0") &&
                                    count_lines (t.data, "shardsh_shard_chunks{") == 0 &&
                                    has_line (t.data, "shardsh_refresh_errors_total{cluster=\"west\"} 5"));
   metrics_buf_destroy (&t);
   metrics_buf_destroy (&om);
   snap_destroy (&a);
   snap_destroy (&b);
}

static void
test_labels (void)
{
   char host[64];
   int port = -1;
   char name[32];
   CHECK_STR ("metrics/reason_data", "data_difference", metrics_balance_reason ("data difference 410 MB >= 3 x range"));
   CHECK_STR ("metrics/reason_drain", "draining_shard", metrics_balance_reason ("draining shard03 holds 2 chunks"));
   CHECK_STR ("metrics/reason_zone", "outside_zone", metrics_balance_reason ("3 chunks outside their zone"));
   CHECK_STR ("metrics/reason_other", "other", metrics_balance_reason ("something new"));
   CHECK_STR ("metrics/caveat_first_clause", "primary_databases",
              metrics_caveat_code ("databases still have this shard as primary: movePrimary them; no chunk left the "
                                   "shard in the last minutes"));
   CHECK_STR ("metrics/caveat_step", "step_count", metrics_caveat_code ("percent from the donor's step count; x"));
   CHECK_STR ("metrics/caveat_other", "other", metrics_caveat_code ("a caveat nobody wrote yet"));
   CHECK ("exporter/addr_port_only",
          exporter_parse_address ("9216", host, sizeof host, &port) && port == 9216 && !strcmp (host, "127.0.0.1"));
   CHECK ("exporter/addr_host",
          exporter_parse_address ("0.0.0.0:0", host, sizeof host, &port) && port == 0 && !strcmp (host, "0.0.0.0"));
   CHECK ("exporter/addr_v6", exporter_parse_address ("[::1]:9216", host, sizeof host, &port) && !strcmp (host, "::1"));
   CHECK ("exporter/addr_bad", !exporter_parse_address ("host:99999", host, sizeof host, &port) &&
                                  !exporter_parse_address ("host:", host, sizeof host, &port) &&
                                  !exporter_parse_address ("::1:80", host, sizeof host, &port));
   CHECK ("exporter/accept_om", exporter_wants_openmetrics ("application/openmetrics-text;version=1.0.0,"
                                                            "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
   CHECK ("exporter/accept_text", !exporter_wants_openmetrics ("text/plain") && !exporter_wants_openmetrics (NULL) &&
                                     !exporter_wants_openmetrics ("application/openmetrics-text;q=0,text/plain"));
   CHECK_STR ("exporter/name_given", "mongodb://u:p@h:1/x=y",
              exporter_cluster_arg ("prod-1=mongodb://u:p@h:1/x=y", name, sizeof name));
   CHECK_STR ("exporter/name_value", "prod-1", name);
   CHECK_STR ("exporter/name_none", "mongodb://h:1/?a=b",
              exporter_cluster_arg ("mongodb://h:1/?a=b", name, sizeof name));
   exporter_default_name ("mongodb://user:secret@h1:27017,h2:27018/db?tls=true", name, sizeof name);
   CHECK_STR ("exporter/default_name_no_credentials", "h1:27017,h2:27018", name);
}

int
main (void)
{
   test_render ();
   test_labels ();
   UNIT_EXIT ();
}
