/* The "why isn't this moving" model (stuck.h): pure verdicts, each with the command that changes it. */
#include <stdio.h>
#include <string.h>

#include "commands/stuck.h"
#include "shell/lib/docget.h"

void
stuck_clear (stuck_t *s)
{
   s->why[0] = '\0';
   s->fix[0] = '\0';
}

bool
stuck_is (const stuck_t *s)
{
   return s->why[0] != '\0';
}

static int
st_hhmm (const char *s)
{
   int h, m;
   if (!s || sscanf (s, "%d:%d", &h, &m) != 2 || h < 0 || h > 23 || m < 0 || m > 59)
      return -1;
   return h * 60 + m;
}

bool
stuck_window (const bson_t *settings, int now_minutes, stuck_t *out)
{
   const char *start = docget_utf8 (settings, "activeWindow.start", NULL),
              *stop = docget_utf8 (settings, "activeWindow.stop", NULL);
   int s = st_hhmm (start), e = st_hhmm (stop);
   stuck_clear (out);
   if (s >= 0 && e >= 0 && s != e && now_minutes >= 0) {
      bool inside = s < e ? (now_minutes >= s && now_minutes < e) : (now_minutes >= s || now_minutes < e);
      if (!inside) {
         bson_snprintf (out->why, sizeof out->why,
                        "outside the balancing window %s-%s (server-local time): nothing moves until %s", start, stop,
                        start);
         bson_snprintf (out->fix, sizeof out->fix, "sh.setBalancerWindow(\"<start>\", \"<stop>\") to widen it");
         return true;
      }
   }
   return false;
}

bool
stuck_balancer (const bson_t *balancer_status, const bson_t *settings, int now_minutes, stuck_t *out)
{
   const char *mode = docget_utf8 (balancer_status, "mode", NULL);
   stuck_clear (out);
   if ((mode && !strcmp (mode, "off")) || docget_is (settings, "stopped", true)) {
      bson_snprintf (out->why, sizeof out->why, "the balancer is stopped: nothing moves");
      bson_snprintf (out->fix, sizeof out->fix, "sh.startBalancer()");
      return true;
   }
   return stuck_window (settings, now_minutes, out);
}

static bool
st_has_tag (const bson_t *shard, const char *zone)
{
   bson_iter_t it, a;
   if (!bson_iter_init_find (&it, shard, "tags") || !BSON_ITER_HOLDS_ARRAY (&it) || !bson_iter_recurse (&it, &a))
      return false;
   while (bson_iter_next (&a))
      if (BSON_ITER_HOLDS_UTF8 (&a) && !strcmp (bson_iter_utf8 (&a, NULL), zone))
         return true;
   return false;
}

size_t
stuck_recipients (const bson_t *shards, const char *zone, const char *except, char *first, size_t first_len)
{
   bson_iter_t it;
   size_t n = 0;
   if (first && first_len)
      first[0] = '\0';
   if (!bson_iter_init (&it, shards))
      return 0;
   while (bson_iter_next (&it)) {
      uint32_t len;
      const uint8_t *data;
      bson_t sd;
      const char *id;
      if (!BSON_ITER_HOLDS_DOCUMENT (&it))
         continue;
      bson_iter_document (&it, &len, &data);
      if (!bson_init_static (&sd, data, len) || !(id = docget_utf8 (&sd, "_id", NULL)) ||
          docget_is (&sd, "draining", true) || (except && !strcmp (id, except)) ||
          (zone && zone[0] && !st_has_tag (&sd, zone)))
         continue;
      if (!n++ && first && first_len)
         bson_strncpy (first, id, first_len);
   }
   return n;
}

bool
stuck_shard_draining (const bson_t *shards, const char *id)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, shards))
      return false;
   while (bson_iter_next (&it)) {
      uint32_t len;
      const uint8_t *data;
      bson_t sd;
      const char *sid;
      if (!BSON_ITER_HOLDS_DOCUMENT (&it))
         continue;
      bson_iter_document (&it, &len, &data);
      if (bson_init_static (&sd, data, len) && (sid = docget_utf8 (&sd, "_id", NULL)) && !strcmp (sid, id))
         return docget_is (&sd, "draining", true);
   }
   return false;
}

/* The shards of shards holding zone, each with " (draining)" when it drains, comma-separated into buf. */
static void
st_zone_shards (const bson_t *shards, const char *zone, char *buf, size_t len)
{
   bson_iter_t it;
   buf[0] = '\0';
   if (!bson_iter_init (&it, shards))
      return;
   while (bson_iter_next (&it)) {
      uint32_t dlen;
      const uint8_t *data;
      bson_t sd;
      const char *id;
      size_t used = strlen (buf);
      if (!BSON_ITER_HOLDS_DOCUMENT (&it))
         continue;
      bson_iter_document (&it, &dlen, &data);
      if (!bson_init_static (&sd, data, dlen) || !(id = docget_utf8 (&sd, "_id", NULL)) || !st_has_tag (&sd, zone))
         continue;
      bson_snprintf (buf + used, len - used, "%s%s%s", used ? ", " : "", id,
                     docget_is (&sd, "draining", true) ? " (draining)" : "");
   }
}

bool
stuck_no_recipient (const bson_t *shards, const char *ns, const char *zone, const char *min, const char *max,
                    const char *from, int64_t chunks, stuck_t *out)
{
   char members[256], other[128], range_text[520] = "";
   stuck_clear (out);
   if (chunks <= 0 || stuck_recipients (shards, zone, from, NULL, 0) > 0)
      return false;
   if (min && max)
      bson_snprintf (range_text, sizeof range_text, "[%s, %s)", min, max);
   if (zone && zone[0]) {
      st_zone_shards (shards, zone, members, sizeof members);
      stuck_recipients (shards, NULL, from, other, sizeof other);
      bson_snprintf (out->why, sizeof out->why,
                     "%lld chunk%s of %s in zone %s %s cannot leave %s: no shard of the zone can take %s (zone %s: "
                     "%s)",
                     (long long) chunks, chunks == 1 ? "" : "s", ns ? ns : "the collection", zone, range_text, from,
                     chunks == 1 ? "it" : "them", zone, members[0] ? members : "no shard");
      bson_snprintf (out->fix, sizeof out->fix, "sh.addShardToZone(\"%s\", \"%s\")%s%s\", %s, %s)",
                     other[0] ? other : "<shard>", zone, ", or sh.removeRangeFromZone(\"", ns ? ns : "<ns>",
                     min ? min : "<min>", max ? max : "<max>");
   } else {
      bson_snprintf (out->why, sizeof out->why,
                     "%lld chunk%s cannot leave %s: every other shard is draining (or there is none), so "
                     "there is no recipient",
                     (long long) chunks, chunks == 1 ? "" : "s", from);
      bson_snprintf (out->fix, sizeof out->fix, "sh.addShard(\"<replica set>/<host:port>\") to give them a home");
   }
   return true;
}

bool
stuck_jumbo_draining (const char *from, int64_t jumbo, const char *example_ns, const char *example_min, const char *to,
                      stuck_t *out)
{
   stuck_clear (out);
   if (jumbo <= 0)
      return false;
   bson_snprintf (out->why, sizeof out->why,
                  "%lld jumbo chunk%s on draining %s: the balancer never moves a chunk flagged jumbo",
                  (long long) jumbo, jumbo == 1 ? "" : "s", from);
   bson_snprintf (out->fix, sizeof out->fix,
                  "db.adminCommand({moveChunk: \"%s\", find: %s, to: \"%s\", forceJumbo: true}) for each (or split "
                  "it and db.adminCommand({clearJumboFlag: ...}))",
                  example_ns ? example_ns : "<ns>", example_min ? example_min : "<min>", to && to[0] ? to : "<shard>");
   return true;
}

bool
stuck_no_balance (const char *ns, stuck_t *out)
{
   stuck_clear (out);
   bson_snprintf (out->why, sizeof out->why,
                  "%s is excluded from balancing (config.collections noBalance: true): none of its chunks moves", ns);
   bson_snprintf (out->fix, sizeof out->fix, "sh.enableBalancing(\"%s\")", ns);
   return true;
}

bool
stuck_repeated_failure (const char *ns, const char *range_text, int failures, const char *errmsg, stuck_t *out)
{
   stuck_clear (out);
   if (failures < STUCK_FAILURES)
      return false;
   bson_snprintf (out->why, sizeof out->why, "the migration of %s %s failed %d times: %s", ns,
                  range_text ? range_text : "", failures, errmsg && errmsg[0] ? errmsg : "(no errmsg)");
   bson_snprintf (out->fix, sizeof out->fix,
                  "sh.splitAt(\"%s\", <a key inside the range>) or move it by hand to see the error: "
                  "sh.moveChunk(\"%s\", <a key inside the range>, \"<shard>\")",
                  ns, ns);
   return true;
}

bool
stuck_no_progress (int samples, double secs, stuck_t *out)
{
   stuck_clear (out);
   if (samples < 3)
      return false;
   bson_snprintf (out->why, sizeof out->why, "no progress over the last %d readings (%.0f s)", samples, secs);
   bson_snprintf (out->fix, sizeof out->fix, "sh.explainBalance(\"<ns>\") for the cause; sh.getRecentFailedRounds()");
   return true;
}
