/* shardsim's faults on demand, for reliability tests: drop every connection (once or periodically), delay replies,
 * fail the next K calls of a named command with a given code, stop answering for a while, refuse new connections for
 * a while, answer the next K calls of a command with a garbled message (a body that is not BSON, a header length
 * that is wrong), close the connection instead of answering the next K calls of a command (getMore: a cursor cut
 * after its first batch). Set by the simFault admin command or the --fault-* flags. The simulator's own commands (sim*)
 * are never delayed or held, so a test can always reach the control channel. Replies not affected by a fault are
 * unchanged. The fault state has its own lock, taken after sim_g.lock or alone (connection threads read it without
 * sim_g.lock). */
#include "tests/shardsim/sim.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SIM_MAX_FAILS 16
#define SIM_MAX_WIRE_RULES 16

typedef struct {
   char cmd[64];
   int32_t code;
   int64_t times; /* < 0: every call */
   char errmsg[256];
} sim_fail_rule_t;

/* What happens to the next calls of a command on the wire (badReply and closeOn). */
typedef struct {
   char cmd[64];
   sim_wire_fault_t kind;
   int64_t times; /* < 0: every call */
} sim_wire_rule_t;

static const char *const sim_wire_fault_names[] = {
   [SIM_WIRE_OK] = "",
   [SIM_WIRE_BAD_BSON] = "bson",
   [SIM_WIRE_BAD_LENGTH] = "length",
   [SIM_WIRE_TRUNCATED] = "truncated",
   [SIM_WIRE_BAD_UTF8] = "utf8",
   [SIM_REPLY_NS_TYPE] = "ns-type",
   [SIM_REPLY_NS_NODOT] = "ns-nodot",
   [SIM_REPLY_NS_NOCOLL] = "ns-nocoll",
   [SIM_REPLY_ID_TYPE] = "id-type",
   [SIM_REPLY_BATCH_TYPE] = "batch-type",
   [SIM_REPLY_OK0_CODE0] = "ok0-code0",
   [SIM_WIRE_CLOSE] = "close",
};

static pthread_mutex_t sim_fault_lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
   int64_t delay_ms;
   int64_t delay_until; /* 0: until cleared */
   sim_fail_rule_t fails[SIM_MAX_FAILS];
   int nfails;
   sim_wire_rule_t wire[SIM_MAX_WIRE_RULES];
   int nwire;
   int64_t hang_until;
   int64_t refuse_until;
   int64_t drop_every_ms;
   int64_t next_drop_ms;
   /* from flags, applied by sim_fault_init when the server starts */
   int64_t pending_hang_ms;
   int64_t pending_refuse_ms;
} sim_f;

static bool
sim_is_control (const char *cmd_name)
{
   return !strncmp (cmd_name, "sim", 3);
}

static bool
sim_fault_add_fail (const char *cmd, int32_t code, int64_t times, const char *errmsg)
{
   if (sim_f.nfails == SIM_MAX_FAILS || !cmd[0] || code == 0) {
      return false;
   }
   sim_fail_rule_t *r = &sim_f.fails[sim_f.nfails++];
   bson_strncpy (r->cmd, cmd, sizeof r->cmd);
   r->code = code;
   r->times = times;
   bson_strncpy (r->errmsg, errmsg ? errmsg : "Failing command via 'simFault' failpoint", sizeof r->errmsg);
   return true;
}

/* Adds a wire rule; callers hold sim_fault_lock. */
static bool
sim_fault_add_wire (const char *cmd, sim_wire_fault_t kind, int64_t times)
{
   if (sim_f.nwire == SIM_MAX_WIRE_RULES || !cmd[0] || times == 0) {
      return false;
   }
   sim_wire_rule_t *r = &sim_f.wire[sim_f.nwire++];
   bson_strncpy (r->cmd, cmd, sizeof r->cmd);
   r->kind = kind;
   r->times = times;
   return true;
}

static sim_wire_fault_t
sim_wire_fault_parse (const char *name)
{
   for (int k = SIM_WIRE_BAD_BSON; k < SIM_WIRE_CLOSE; k++) {
      if (!strcmp (name, sim_wire_fault_names[k])) {
         return (sim_wire_fault_t) k;
      }
   }
   return SIM_WIRE_OK;
}

/* --fault-bad-reply CMD:KIND[:TIMES] and --fault-close-on CMD[:TIMES] */
static bool
sim_fault_wire_flag (const char *flag, const char *val, char *errbuf, size_t errlen)
{
   char buf[128], *save = NULL;
   bool close = !strcmp (flag, "--fault-close-on");
   bson_strncpy (buf, val, sizeof buf);
   char *cmd = strtok_r (buf, ":", &save);
   char *kind = close ? NULL : strtok_r (NULL, ":", &save);
   char *times = strtok_r (NULL, ":", &save);
   char *end = NULL;
   long long t = times ? strtoll (times, &end, 10) : 1;
   sim_wire_fault_t k = close ? SIM_WIRE_CLOSE : kind ? sim_wire_fault_parse (kind) : SIM_WIRE_OK;
   if (!cmd || k == SIM_WIRE_OK || (times && *end) || t == 0) {
      bson_snprintf (
         errbuf, errlen, "bad %s %s (%s)", flag, val,
         close ? "CMD[:TIMES]"
               : "CMD:bson|length|truncated|utf8|ns-type|ns-nodot|ns-nocoll|id-type|batch-type|ok0-code0[:TIMES]");
      return false;
   }
   pthread_mutex_lock (&sim_fault_lock);
   bool ok = sim_fault_add_wire (cmd, k, t);
   pthread_mutex_unlock (&sim_fault_lock);
   if (!ok) {
      bson_snprintf (errbuf, errlen, "too many %s rules", flag);
   }
   return ok;
}

bool
sim_fault_flag (const char *flag, const char *val, char *errbuf, size_t errlen)
{
   char *end;
   if (!strcmp (flag, "--fault-bad-reply") || !strcmp (flag, "--fault-close-on")) {
      return sim_fault_wire_flag (flag, val, errbuf, errlen);
   }
   if (!strcmp (flag, "--fault-fail")) {
      /* CMD:CODE[:TIMES] */
      char buf[128], *save = NULL;
      bson_strncpy (buf, val, sizeof buf);
      char *cmd = strtok_r (buf, ":", &save), *code = strtok_r (NULL, ":", &save), *times = strtok_r (NULL, ":", &save);
      long c = code ? strtol (code, &end, 10) : 0;
      long long t = times ? strtoll (times, NULL, 10) : 1;
      if (!cmd || !code || *end || c == 0) {
         bson_snprintf (errbuf, errlen, "bad --fault-fail %s (CMD:CODE[:TIMES])", val);
         return false;
      }
      pthread_mutex_lock (&sim_fault_lock);
      bool ok = sim_fault_add_fail (cmd, (int32_t) c, t, NULL);
      pthread_mutex_unlock (&sim_fault_lock);
      if (!ok) {
         bson_snprintf (errbuf, errlen, "too many --fault-fail rules");
      }
      return ok;
   }
   long long v = strtoll (val, &end, 10);
   if (*end || v < 0) {
      bson_snprintf (errbuf, errlen, "bad %s %s", flag, val);
      return false;
   }
   pthread_mutex_lock (&sim_fault_lock);
   if (!strcmp (flag, "--fault-delay-ms")) {
      sim_f.delay_ms = v;
   } else if (!strcmp (flag, "--fault-hang-ms")) {
      sim_f.pending_hang_ms = v;
   } else if (!strcmp (flag, "--fault-refuse-ms")) {
      sim_f.pending_refuse_ms = v;
   } else if (!strcmp (flag, "--fault-drop-every-ms")) {
      sim_f.drop_every_ms = v;
   }
   pthread_mutex_unlock (&sim_fault_lock);
   return true;
}

void
sim_fault_init (void)
{
   int64_t now = clock_wall_ms ();
   pthread_mutex_lock (&sim_fault_lock);
   if (sim_f.pending_hang_ms) {
      sim_f.hang_until = now + sim_f.pending_hang_ms;
   }
   if (sim_f.pending_refuse_ms) {
      sim_f.refuse_until = now + sim_f.pending_refuse_ms;
   }
   if (sim_f.drop_every_ms) {
      sim_f.next_drop_ms = now + sim_f.drop_every_ms;
   }
   pthread_mutex_unlock (&sim_fault_lock);
}

void
sim_fault_destroy (void)
{
   pthread_mutex_lock (&sim_fault_lock);
   memset (&sim_f, 0, sizeof sim_f);
   pthread_mutex_unlock (&sim_fault_lock);
}

bool
sim_fault_before (const char *cmd_name)
{
   if (sim_is_control (cmd_name)) {
      return !sim_g.shutting_down;
   }
   for (;;) {
      pthread_mutex_lock (&sim_fault_lock);
      int64_t until = sim_f.hang_until;
      pthread_mutex_unlock (&sim_fault_lock);
      if (sim_g.shutting_down) {
         return false;
      }
      if (clock_wall_ms () >= until) {
         return true;
      }
      usleep (10000);
   }
}

int64_t
sim_fault_delay_ms (const char *cmd_name)
{
   int64_t d = 0;
   if (sim_is_control (cmd_name)) {
      return 0;
   }
   pthread_mutex_lock (&sim_fault_lock);
   if (sim_f.delay_ms > 0 && (sim_f.delay_until == 0 || clock_wall_ms () < sim_f.delay_until)) {
      d = sim_f.delay_ms;
   }
   pthread_mutex_unlock (&sim_fault_lock);
   return d;
}

bool
sim_fault_fail (const char *cmd_name, bson_t *reply)
{
   bool fail = false;
   int32_t code = 0;
   char msg[256];
   pthread_mutex_lock (&sim_fault_lock);
   for (int i = 0; i < sim_f.nfails && !fail; i++) {
      sim_fail_rule_t *r = &sim_f.fails[i];
      if (r->times != 0 && !strcmp (r->cmd, cmd_name)) {
         fail = true;
         code = r->code;
         bson_strncpy (msg, r->errmsg, sizeof msg);
         if (r->times > 0 && --r->times == 0) {
            memmove (r, r + 1, (size_t) (sim_f.nfails - i - 1) * sizeof *r);
            sim_f.nfails--;
         }
      }
   }
   pthread_mutex_unlock (&sim_fault_lock);
   if (fail) {
      sim_reply_error (reply, code, "%s", msg);
   }
   return fail;
}

/* The kind of the first rule for cmd_name (close or not, as asked), consuming one of its times; SIM_WIRE_OK when
 * none. The simulator's own commands are never affected. */
static sim_wire_fault_t
sim_fault_take_wire (const char *cmd_name, bool close)
{
   sim_wire_fault_t kind = SIM_WIRE_OK;
   if (sim_is_control (cmd_name)) {
      return SIM_WIRE_OK;
   }
   pthread_mutex_lock (&sim_fault_lock);
   for (int i = 0; i < sim_f.nwire && kind == SIM_WIRE_OK; i++) {
      sim_wire_rule_t *r = &sim_f.wire[i];
      if ((r->kind == SIM_WIRE_CLOSE) != close || strcmp (r->cmd, cmd_name) != 0) {
         continue;
      }
      kind = r->kind;
      if (r->times > 0 && --r->times == 0) {
         memmove (r, r + 1, (size_t) (sim_f.nwire - i - 1) * sizeof *r);
         sim_f.nwire--;
      }
   }
   pthread_mutex_unlock (&sim_fault_lock);
   return kind;
}

bool
sim_fault_close_on (const char *cmd_name)
{
   return sim_fault_take_wire (cmd_name, true) == SIM_WIRE_CLOSE;
}

sim_wire_fault_t
sim_fault_bad_reply (const char *cmd_name)
{
   return sim_fault_take_wire (cmd_name, false);
}

bool
sim_fault_rewrite (sim_wire_fault_t kind, bson_t *reply)
{
   bson_t cursor, batch;
   bson_iter_t it, in;
   bool getmore = false;
   if (kind < SIM_REPLY_NS_TYPE || kind > SIM_REPLY_OK0_CODE0) {
      return false;
   }
   /* the batch the true reply had, kept so the cursor still reads as one */
   if (bson_iter_init_find (&it, reply, "cursor") && BSON_ITER_HOLDS_DOCUMENT (&it) && bson_iter_recurse (&it, &in)) {
      getmore = bson_iter_find (&in, "nextBatch");
   }
   bson_t out = BSON_INITIALIZER;
   if (kind == SIM_REPLY_OK0_CODE0) {
      BSON_APPEND_DOUBLE (&out, "ok", 0);
      BSON_APPEND_INT32 (&out, "code", 0);
   } else {
      BSON_APPEND_DOCUMENT_BEGIN (&out, "cursor", &cursor);
      if (kind == SIM_REPLY_ID_TYPE) {
         BSON_APPEND_UTF8 (&cursor, "id", "0");
      } else {
         /* a bad ns matters once the client sends a getMore: the cursor stays open */
         BSON_APPEND_INT64 (&cursor, "id", kind == SIM_REPLY_BATCH_TYPE ? 0 : 4242);
      }
      if (kind == SIM_REPLY_NS_TYPE) {
         BSON_APPEND_INT32 (&cursor, "ns", 5);
      } else {
         BSON_APPEND_UTF8 (&cursor, "ns",
                           kind == SIM_REPLY_NS_NODOT    ? "config"
                           : kind == SIM_REPLY_NS_NOCOLL ? "config."
                                                         : "config.x");
      }
      if (kind == SIM_REPLY_BATCH_TYPE) {
         BSON_APPEND_DOCUMENT_BEGIN (&cursor, getmore ? "nextBatch" : "firstBatch", &batch);
         BSON_APPEND_INT32 (&batch, "a", 1);
         bson_append_document_end (&cursor, &batch);
      } else {
         BSON_APPEND_ARRAY_BEGIN (&cursor, getmore ? "nextBatch" : "firstBatch", &batch);
         bson_append_array_end (&cursor, &batch);
      }
      bson_append_document_end (&out, &cursor);
      BSON_APPEND_DOUBLE (&out, "ok", 1);
   }
   bson_destroy (reply);
   bson_steal (reply, &out);
   return true;
}

size_t
sim_fault_garble (sim_wire_fault_t kind, uint8_t *msg, size_t len, size_t doc_len)
{
   uint32_t claim;
   if (len < 16 || doc_len < 5 || doc_len > len - 16) {
      return len;
   }
   switch (kind) {
   case SIM_WIRE_BAD_BSON:
      /* the document keeps its length prefix; every byte after it, the terminator included, is 0xFF: no valid
       * element type and no terminating NUL */
      memset (msg + len - doc_len + 4, 0xFF, doc_len - 4);
      return len;
   case SIM_WIRE_BAD_UTF8: {
      /* {ok: 1.0, p: <binary filling the body's size>, a: "\xff\xfe", d: {x: <type 0x33>}}: well framed at every
       * level, but a string is not UTF-8 and the element after it holds a document whose only element has no valid
       * type (libbson 1.23's bson_validate stops looking at a document after such a string and calls it valid) */
      const size_t fixed = 50; /* the body with an empty p */
      bson_t *d;
      bson_t sub;
      if (doc_len < fixed) {
         return sim_fault_garble (SIM_WIRE_BAD_BSON, msg, len, doc_len);
      }
      uint8_t *pad = bson_malloc0 (doc_len - fixed + 1);
      d = bson_sized_new (doc_len);
      BSON_APPEND_DOUBLE (d, "ok", 1.0);
      bson_append_binary (d, "p", 1, BSON_SUBTYPE_BINARY, pad, (uint32_t) (doc_len - fixed));
      bson_append_utf8 (d, "a", 1, "\xff\xfe", 2);
      BSON_APPEND_DOCUMENT_BEGIN (d, "d", &sub);
      BSON_APPEND_INT32 (&sub, "x", 1);
      bson_append_document_end (d, &sub);
      if (d->len == doc_len) {
         memcpy (msg + len - doc_len, bson_get_data (d), doc_len);
         msg[len - 9] = 0x33; /* x's type: before "x\0", its int32, d's and the body's terminators */
      }
      bson_destroy (d);
      bson_free (pad);
      return len;
   }
   case SIM_WIRE_BAD_LENGTH:
      claim = 0x7FFFFFFF; /* more than any maxMessageSizeBytes */
      break;
   case SIM_WIRE_TRUNCATED:
      claim = (uint32_t) len + 64; /* the rest never comes */
      break;
   default:
      return len;
   }
   msg[0] = (uint8_t) claim;
   msg[1] = (uint8_t) (claim >> 8);
   msg[2] = (uint8_t) (claim >> 16);
   msg[3] = (uint8_t) (claim >> 24);
   return len;
}

bool
sim_fault_refusing (void)
{
   pthread_mutex_lock (&sim_fault_lock);
   bool r = clock_wall_ms () < sim_f.refuse_until;
   pthread_mutex_unlock (&sim_fault_lock);
   return r;
}

/* Shuts every connection's socket (its thread then ends); except, if given, is closed after its reply. */
static int32_t
sim_drop_connections (sim_conn_t *except)
{
   int32_t n = 0;
   pthread_mutex_lock (&sim_g.conn_lock);
   for (sim_conn_t *c = sim_g.conns; c; c = c->next) {
      if (c->done) {
         continue;
      }
      if (c == except) {
         c->close_after_reply = true;
      } else {
         shutdown (c->fd, SHUT_RDWR);
      }
      n++;
   }
   pthread_mutex_unlock (&sim_g.conn_lock);
   return n;
}

void
sim_fault_tick (int64_t now)
{
   pthread_mutex_lock (&sim_fault_lock);
   bool drop = sim_f.drop_every_ms > 0 && now >= sim_f.next_drop_ms;
   if (drop) {
      sim_f.next_drop_ms = now + sim_f.drop_every_ms;
   }
   pthread_mutex_unlock (&sim_fault_lock);
   if (drop) {
      sim_drop_connections (NULL);
   }
}

static void
sim_wake_server (void)
{
   if (sim_g.wake_pipe[1] >= 0) {
      ssize_t r = write (sim_g.wake_pipe[1], "r", 1);
      (void) r;
   }
}

static int64_t
sim_duration (const bson_t *cmd)
{
   bson_iter_t it;
   if (bson_iter_init_find (&it, cmd, "ms") && BSON_ITER_HOLDS_NUMBER (&it)) {
      return bson_iter_as_int64 (&it);
   }
   if (bson_iter_init_find (&it, cmd, "seconds") && BSON_ITER_HOLDS_NUMBER (&it)) {
      return (int64_t) (bson_iter_as_double (&it) * 1000.0);
   }
   return -1;
}

/* { simFault: "dropConnections" | "dropEvery" | "delay" | "failCommand" | "hang" | "refuseConnections" | "badReply" |
 *   "closeOn" | "clear" | "status", ms | seconds, forMs, command, code, times, errmsg, kind } */
void
sim_cmd_sim_fault (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   const char *what = BSON_ITER_HOLDS_UTF8 (&it) ? bson_iter_utf8 (&it, NULL) : "status";
   int64_t now = clock_wall_ms ();
   int64_t ms = sim_duration (ctx->cmd);
   if (!strcmp (what, "dropConnections")) {
      BSON_APPEND_INT32 (reply, "dropped", sim_drop_connections (ctx->conn));
   } else if (!strcmp (what, "failCommand")) {
      const char *cmd =
         bson_iter_init_find (&it, ctx->cmd, "command") && BSON_ITER_HOLDS_UTF8 (&it) ? bson_iter_utf8 (&it, NULL) : "";
      int32_t code = bson_iter_init_find (&it, ctx->cmd, "code") && BSON_ITER_HOLDS_NUMBER (&it)
                        ? (int32_t) bson_iter_as_int64 (&it)
                        : 0;
      int64_t times =
         bson_iter_init_find (&it, ctx->cmd, "times") && BSON_ITER_HOLDS_NUMBER (&it) ? bson_iter_as_int64 (&it) : 1;
      const char *msg = bson_iter_init_find (&it, ctx->cmd, "errmsg") && BSON_ITER_HOLDS_UTF8 (&it)
                           ? bson_iter_utf8 (&it, NULL)
                           : NULL;
      pthread_mutex_lock (&sim_fault_lock);
      bool ok = times != 0 && sim_fault_add_fail (cmd, code, times, msg);
      pthread_mutex_unlock (&sim_fault_lock);
      if (!ok) {
         sim_reply_error (reply, 2,
                          "simFault failCommand needs command, a non-zero code and times != 0 (at most %d "
                          "rules)",
                          SIM_MAX_FAILS);
         return;
      }
   } else if (!strcmp (what, "badReply") || !strcmp (what, "closeOn")) {
      bool close = !strcmp (what, "closeOn");
      const char *cmd =
         bson_iter_init_find (&it, ctx->cmd, "command") && BSON_ITER_HOLDS_UTF8 (&it) ? bson_iter_utf8 (&it, NULL) : "";
      const char *kind =
         bson_iter_init_find (&it, ctx->cmd, "kind") && BSON_ITER_HOLDS_UTF8 (&it) ? bson_iter_utf8 (&it, NULL) : "";
      int64_t times =
         bson_iter_init_find (&it, ctx->cmd, "times") && BSON_ITER_HOLDS_NUMBER (&it) ? bson_iter_as_int64 (&it) : 1;
      sim_wire_fault_t k = close ? SIM_WIRE_CLOSE : sim_wire_fault_parse (kind);
      pthread_mutex_lock (&sim_fault_lock);
      bool ok = k != SIM_WIRE_OK && sim_fault_add_wire (cmd, k, times);
      pthread_mutex_unlock (&sim_fault_lock);
      if (!ok) {
         sim_reply_error (reply, 2, "simFault %s needs command%s and times != 0 (at most %d rules)", what,
                          close ? "" : ", kind (bson, length or truncated)", SIM_MAX_WIRE_RULES);
         return;
      }
   } else if (!strcmp (what, "delay") || !strcmp (what, "hang") || !strcmp (what, "refuseConnections") ||
              !strcmp (what, "dropEvery")) {
      if (ms < 0) {
         sim_reply_error (reply, 2, "simFault %s needs ms (or seconds) >= 0", what);
         return;
      }
      pthread_mutex_lock (&sim_fault_lock);
      if (!strcmp (what, "delay")) {
         int64_t for_ms =
            bson_iter_init_find (&it, ctx->cmd, "forMs") && BSON_ITER_HOLDS_NUMBER (&it) ? bson_iter_as_int64 (&it) : 0;
         sim_f.delay_ms = ms;
         sim_f.delay_until = for_ms > 0 ? now + for_ms : 0;
      } else if (!strcmp (what, "hang")) {
         sim_f.hang_until = now + ms;
      } else if (!strcmp (what, "refuseConnections")) {
         sim_f.refuse_until = now + ms;
      } else {
         sim_f.drop_every_ms = ms;
         sim_f.next_drop_ms = now + ms;
      }
      pthread_mutex_unlock (&sim_fault_lock);
      if (!strcmp (what, "refuseConnections")) {
         sim_wake_server ();
      }
   } else if (!strcmp (what, "clear")) {
      pthread_mutex_lock (&sim_fault_lock);
      sim_f.delay_ms = sim_f.delay_until = 0;
      sim_f.nfails = 0;
      sim_f.nwire = 0;
      sim_f.hang_until = sim_f.refuse_until = 0;
      sim_f.drop_every_ms = 0;
      pthread_mutex_unlock (&sim_fault_lock);
      sim_wake_server ();
   } else if (strcmp (what, "status") != 0) {
      sim_reply_error (reply, 2,
                       "simFault: unknown action '%s' (dropConnections, dropEvery, delay, failCommand, hang, "
                       "refuseConnections, badReply, closeOn, clear, status)",
                       what);
      return;
   }
   bson_t arr;
   pthread_mutex_lock (&sim_fault_lock);
   BSON_APPEND_INT64 (reply, "delayMs", sim_f.delay_ms);
   BSON_APPEND_INT64 (reply, "hangRemainingMs", sim_f.hang_until > now ? sim_f.hang_until - now : 0);
   BSON_APPEND_INT64 (reply, "refuseRemainingMs", sim_f.refuse_until > now ? sim_f.refuse_until - now : 0);
   BSON_APPEND_INT64 (reply, "dropEveryMs", sim_f.drop_every_ms);
   BSON_APPEND_ARRAY_BEGIN (reply, "failCommands", &arr);
   for (int i = 0; i < sim_f.nfails; i++) {
      bson_t e;
      char k[16];
      const char *kp;
      bson_uint32_to_string ((uint32_t) i, &kp, k, sizeof k);
      BSON_APPEND_DOCUMENT_BEGIN (&arr, kp, &e);
      BSON_APPEND_UTF8 (&e, "command", sim_f.fails[i].cmd);
      BSON_APPEND_INT32 (&e, "code", sim_f.fails[i].code);
      BSON_APPEND_INT64 (&e, "times", sim_f.fails[i].times);
      bson_append_document_end (&arr, &e);
   }
   bson_append_array_end (reply, &arr);
   for (int close = 0; close < 2; close++) {
      int n = 0;
      BSON_APPEND_ARRAY_BEGIN (reply, close ? "closeOn" : "badReplies", &arr);
      for (int i = 0; i < sim_f.nwire; i++) {
         bson_t e;
         char k[16];
         const char *kp;
         if ((sim_f.wire[i].kind == SIM_WIRE_CLOSE) != (close == 1)) {
            continue;
         }
         bson_uint32_to_string ((uint32_t) n++, &kp, k, sizeof k);
         BSON_APPEND_DOCUMENT_BEGIN (&arr, kp, &e);
         BSON_APPEND_UTF8 (&e, "command", sim_f.wire[i].cmd);
         if (!close) {
            BSON_APPEND_UTF8 (&e, "kind", sim_wire_fault_names[sim_f.wire[i].kind]);
         }
         BSON_APPEND_INT64 (&e, "times", sim_f.wire[i].times);
         bson_append_document_end (&arr, &e);
      }
      bson_append_array_end (reply, &arr);
   }
   pthread_mutex_unlock (&sim_fault_lock);
   sim_reply_ok (reply);
}
