/* passes: plain asan */
/* Integration tests of shardsim's faults on demand (simFault and the --fault-* flags) through libmongoc and raw
 * sockets: failing the next K calls of a command with a code, delaying replies, hanging then coming back, refusing
 * new connections then accepting again, dropping every connection (once and periodically), garbled replies (a body
 * that is not BSON, a header length out of range, a header that claims more than is sent), closing the connection
 * instead of answering, and that replies not affected by a fault stay byte-identical. */
#include "tests/unit/unit.h"
#include "tests/unit/simproc.h"

#include "shell/lib/bsonvalid.h"
#include "shell/lib/clock.h"

/* A client with this socket timeout (short server selection and connect timeouts, for the hang and refuse cases). */
static mongoc_client_t *
client_new (int port, int socket_timeout_ms)
{
   char options[128];
   snprintf (options, sizeof options, "serverSelectionTimeoutMS=3000&socketTimeoutMS=%d&connectTimeoutMS=1000",
             socket_timeout_ms);
   return simproc_client (port, options);
}

/* Starts $BINDIR/shardsim with extra arguments (NULL-terminated); the port file appears only once it listens. */
static bool
sim_start (sim_t *s, const char *const *args)
{
   char pf[256];
   snprintf (pf, sizeof pf, "/tmp/test_sim_faults.%d.port", (int) getpid ());
   return simproc_start (s, pf, args, 200, 10,
                         "serverSelectionTimeoutMS=3000&socketTimeoutMS=10000&connectTimeoutMS=1000");
}

static bool
cmd (mongoc_client_t *c, const char *db, const char *json, bson_t *reply)
{
   bson_error_t err;
   bson_t *b = bson_new_from_json ((const uint8_t *) json, -1, &err);
   bool ok = b && mongoc_client_command_simple (c, db, b, NULL, reply, &err);
   if (!b) {
      bson_init (reply);
   }
   bson_destroy (b);
   return ok;
}

static bool
ping (mongoc_client_t *c)
{
   bson_t r;
   bool ok = cmd (c, "admin", "{\"ping\": 1}", &r);
   bson_destroy (&r);
   return ok;
}

static int32_t
code_of (const bson_t *reply)
{
   bson_iter_t it;
   return bson_iter_init_find (&it, reply, "code") && BSON_ITER_HOLDS_INT32 (&it) ? bson_iter_int32 (&it) : -1;
}

/* The reply without $clusterTime/operationTime, as canonical JSON (bson_free). */
static char *
stable_json (const bson_t *reply)
{
   bson_t copy = BSON_INITIALIZER;
   bson_copy_to_excluding_noinit (reply, &copy, "$clusterTime", "operationTime", "localTime", NULL);
   char *j = bson_as_canonical_extended_json (&copy, NULL);
   bson_destroy (&copy);
   return j;
}

static void
test_fail_and_delay (void)
{
   sim_t s;
   const char *args[] = { "--scenario", "demo", NULL };
   bson_t r;
   if (!sim_start (&s, args)) {
      UNIT_FAIL ("fault.start", "shardsim did not start");
      sim_stop (&s);
      return;
   }
   /* Replies before any fault, for the byte-identity check. */
   cmd (s.client, "admin", "{\"listShards\": 1}", &r);
   char *before = stable_json (&r);
   bson_destroy (&r);

   CHECK ("fault.failCommand set",
          cmd (s.client, "admin",
               "{\"simFault\": \"failCommand\", \"command\": \"find\", \"code\": 91, \"times\": "
               "2}",
               &r));
   bson_destroy (&r);
   int32_t c1, c2;
   bool ok1 = cmd (s.client, "config", "{\"find\": \"shards\"}", &r);
   c1 = code_of (&r);
   bson_destroy (&r);
   bool ok2 = cmd (s.client, "config", "{\"find\": \"shards\"}", &r);
   c2 = code_of (&r);
   bson_destroy (&r);
   bool ok3 = cmd (s.client, "config", "{\"find\": \"shards\"}", &r);
   bson_destroy (&r);
   CHECK ("fault.failCommand fails the next 2 calls with the code", !ok1 && !ok2 && c1 == 91 && c2 == 91);
   CHECK ("fault.failCommand then passes", ok3);
   cmd (s.client, "admin",
        "{\"simFault\": \"failCommand\", \"command\": \"count\", \"code\": 6, \"times\": 1, "
        "\"errmsg\": \"host unreachable\"}",
        &r);
   bson_destroy (&r);
   CHECK ("fault.failCommand code 6", !cmd (s.client, "config", "{\"count\": \"shards\"}", &r) && code_of (&r) == 6);
   bson_destroy (&r);

   /* Delay: every reply but the control commands'. */
   cmd (s.client, "admin", "{\"simFault\": \"delay\", \"ms\": 300}", &r);
   bson_destroy (&r);
   int64_t t0 = clock_wall_ms ();
   bool pinged = ping (s.client);
   int64_t slow = clock_wall_ms () - t0;
   t0 = clock_wall_ms ();
   cmd (s.client, "admin", "{\"simFault\": \"status\"}", &r);
   int64_t ctl = clock_wall_ms () - t0;
   bson_destroy (&r);
   CHECK ("fault.delay applies", pinged && slow >= 280);
   CHECK ("fault.control commands are not delayed", ctl < 250);
   /* Unaffected replies stay byte-identical while a fault is set. */
   cmd (s.client, "admin",
        "{\"simFault\": \"failCommand\", \"command\": \"distinct\", \"code\": 91, \"times\": "
        "5}",
        &r);
   bson_destroy (&r);
   cmd (s.client, "admin", "{\"listShards\": 1}", &r);
   char *during = stable_json (&r);
   bson_destroy (&r);
   CHECK ("fault.unaffected replies byte-identical", !strcmp (before, during));
   bson_free (during);
   cmd (s.client, "admin", "{\"simFault\": \"clear\"}", &r);
   bson_destroy (&r);
   t0 = clock_wall_ms ();
   pinged = ping (s.client);
   CHECK ("fault.clear removes the delay", pinged && clock_wall_ms () - t0 < 200);
   cmd (s.client, "admin", "{\"listShards\": 1}", &r);
   char *after = stable_json (&r);
   bson_destroy (&r);
   CHECK ("fault.replies identical after clear", !strcmp (before, after));
   bson_free (after);
   bson_free (before);
   CHECK ("fault.distinct rule cleared", cmd (s.client, "config", "{\"distinct\": \"shards\", \"key\": \"_id\"}", &r));
   bson_destroy (&r);
   sim_stop (&s);
}

static void
test_hang_refuse_drop (void)
{
   sim_t s;
   const char *args[] = { NULL };
   bson_t r;
   if (!sim_start (&s, args)) {
      UNIT_FAIL ("fault2.start", "shardsim did not start");
      sim_stop (&s);
      return;
   }
   mongoc_client_t *other = client_new (s.port, 10000);
   mongoc_client_t *impatient = client_new (s.port, 300);
   ping (other);
   ping (impatient);

   /* Hang: requests wait for the period, then are answered. */
   CHECK ("fault.hang set", cmd (s.client, "admin", "{\"simFault\": \"hang\", \"ms\": 800}", &r));
   bson_destroy (&r);
   int64_t t0 = clock_wall_ms ();
   bool late = ping (impatient);
   CHECK ("fault.hang: a client with a short socket timeout fails", !late);
   bool answered = ping (other);
   int64_t took = clock_wall_ms () - t0;
   CHECK ("fault.hang: answered once the period is over", answered && took >= 600);
   bool back = false;
   for (int i = 0; i < 10 && !back; i++) {
      back = ping (impatient);
   }
   CHECK ("fault.hang: comes back", back);

   /* Refuse: new connections are refused for the period; open ones keep working. */
   CHECK ("fault.refuse set", cmd (s.client, "admin", "{\"simFault\": \"refuseConnections\", \"seconds\": 0.6}", &r));
   bson_destroy (&r);
   usleep (150000);
   int fd = simproc_raw_connect (s.port, 3);
   int e = errno;
   CHECK ("fault.refuse: connect refused", fd < 0 && e == ECONNREFUSED);
   if (fd >= 0) {
      close (fd);
   }
   CHECK ("fault.refuse: open connections still answer", ping (other));
   usleep (700000);
   fd = simproc_raw_connect (s.port, 3);
   CHECK ("fault.refuse: accepts again afterwards", fd >= 0);
   if (fd >= 0) {
      close (fd);
   }

   /* Drop every connection. */
   CHECK ("fault.other connected", ping (other));
   cmd (s.client, "admin", "{\"simFault\": \"dropConnections\"}", &r);
   bson_iter_t it;
   CHECK ("fault.dropConnections answers", bson_iter_init_find (&it, &r, "dropped") && bson_iter_as_int64 (&it) >= 2);
   bson_destroy (&r);
   CHECK ("fault.dropConnections: the next call fails", !ping (other));
   bool recovered = false;
   for (int i = 0; i < 10 && !recovered; i++) {
      recovered = ping (other);
      if (!recovered) {
         usleep (100000);
      }
   }
   CHECK ("fault.dropConnections: clients reconnect", recovered);
   mongoc_client_destroy (other);
   mongoc_client_destroy (impatient);
   int status = sim_stop (&s);
   CHECK ("fault.clean exit", WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

static void
test_flags (void)
{
   sim_t s;
   bson_t r;
   const char *a1[] = { "--fault-fail", "ping:91:1", "--fault-delay-ms", "200", NULL };
   if (sim_start (&s, a1)) {
      bool ok1 = cmd (s.client, "admin", "{\"ping\": 1}", &r);
      int32_t c = code_of (&r);
      bson_destroy (&r);
      int64_t t0 = clock_wall_ms ();
      bool ok2 = ping (s.client);
      CHECK ("flags.--fault-fail", !ok1 && c == 91 && ok2);
      CHECK ("flags.--fault-delay-ms", clock_wall_ms () - t0 >= 180);
   } else {
      UNIT_FAIL ("flags.start 1", "shardsim did not start");
   }
   sim_stop (&s);

   const char *a2[] = { "--fault-refuse-ms", "500", NULL };
   if (sim_start (&s, a2)) {
      int fd = simproc_raw_connect (s.port, 3);
      CHECK ("flags.--fault-refuse-ms refuses at start", fd < 0);
      if (fd >= 0) {
         close (fd);
      }
      usleep (650000);
      CHECK ("flags.--fault-refuse-ms then accepts", ping (s.client));
   } else {
      UNIT_FAIL ("flags.start 2", "shardsim did not start");
   }
   sim_stop (&s);

   const char *a3[] = { "--fault-hang-ms", "500", NULL };
   int64_t t0 = clock_wall_ms ();
   if (sim_start (&s, a3)) {
      bool ok = ping (s.client);
      CHECK ("flags.--fault-hang-ms holds the first requests", ok && clock_wall_ms () - t0 >= 450);
   } else {
      UNIT_FAIL ("flags.start 3", "shardsim did not start");
   }
   sim_stop (&s);

   const char *a4[] = { "--fault-drop-every-ms", "200", NULL };
   if (sim_start (&s, a4)) {
      int fd = simproc_raw_connect (s.port, 3);
      char c;
      t0 = clock_wall_ms ();
      ssize_t n = fd >= 0 ? recv (fd, &c, 1, 0) : -1;
      CHECK ("flags.--fault-drop-every-ms closes idle connections", fd >= 0 && n == 0 && clock_wall_ms () - t0 < 1000);
      if (fd >= 0) {
         close (fd);
      }
      cmd (s.client, "admin", "{\"simFault\": \"dropEvery\", \"ms\": 0}", &r);
      bson_destroy (&r);
      bool ok = false;
      for (int i = 0; i < 5 && !ok; i++) {
         ok = ping (s.client);
      }
      CHECK ("flags.dropEvery off via simFault", ok);
   } else {
      UNIT_FAIL ("flags.start 4", "shardsim did not start");
   }
   sim_stop (&s);
}

/* ---- wire faults, read with a raw socket (libmongoc would not show the bytes) ---- */

static void
put32 (uint8_t *p, uint32_t v)
{
   p[0] = (uint8_t) v;
   p[1] = (uint8_t) (v >> 8);
   p[2] = (uint8_t) (v >> 16);
   p[3] = (uint8_t) (v >> 24);
}

static uint32_t
get32 (const uint8_t *p)
{
   return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

/* Sends OP_MSG {ping: 1, $db: "admin"}; false when the send fails. */
static bool
raw_ping (int fd)
{
   bson_t *body = BCON_NEW ("ping", BCON_INT32 (1), "$db", BCON_UTF8 ("admin"));
   size_t len = 21 + body->len;
   uint8_t *buf = bson_malloc0 (len);
   put32 (buf, (uint32_t) len);
   put32 (buf + 4, 7);
   put32 (buf + 12, 2013);
   memcpy (buf + 21, bson_get_data (body), body->len);
   bool ok = send (fd, buf, len, MSG_NOSIGNAL) == (ssize_t) len;
   bson_free (buf);
   bson_destroy (body);
   return ok;
}

/* Reads until want bytes came, the peer closed or the receive timeout passed; the number of bytes read. *closed
 * tells whether the peer closed. */
static size_t
raw_read (int fd, uint8_t *buf, size_t want, bool *closed)
{
   size_t got = 0;
   *closed = false;
   while (got < want) {
      ssize_t r = recv (fd, buf + got, want - got, 0);
      if (r == 0) {
         *closed = true;
      }
      if (r <= 0) {
         break;
      }
      got += (size_t) r;
   }
   return got;
}

/* One ping's reply on fd: its header's claimed length, the bytes that came, whether its document is valid BSON and
 * whether the peer closed. */
typedef struct {
   uint32_t claimed;
   size_t got;
   bool valid_doc;
   bool top_reads; /* the body's top level iterates to its end and has ok: 1 (what a first look sees) */
   bool ok0_code0; /* the body is valid BSON with ok: 0 and code: 0 (badReply ok0-code0) */
   bool closed;
} raw_reply_t;

static raw_reply_t
raw_ping_reply (int fd)
{
   raw_reply_t r = { 0, 0, false, false, false, false };
   uint8_t buf[4096];
   if (!raw_ping (fd)) {
      r.closed = true;
      return r;
   }
   r.got = raw_read (fd, buf, 16, &r.closed);
   if (r.got < 16) {
      return r;
   }
   r.claimed = get32 (buf);
   /* the rest of the message, up to what the header claims (or what there is, for a lying header) */
   size_t want = r.claimed > sizeof buf ? sizeof buf - 16 : r.claimed - 16;
   r.got += raw_read (fd, buf + 16, want, &r.closed);
   if (r.got == r.claimed && r.got > 21 && get32 (buf + 12) == 2013) {
      bson_t doc;
      bson_iter_t it;
      r.valid_doc = bsonvalid_data (buf + 21, r.got - 21);
      if (bson_init_static (&doc, buf + 21, r.got - 21) && bson_iter_init (&it, &doc)) {
         double ok = 0;
         bool code0 = false;
         while (bson_iter_next (&it)) {
            if (!strcmp (bson_iter_key (&it), "ok")) {
               ok = bson_iter_as_double (&it);
            } else if (!strcmp (bson_iter_key (&it), "code")) {
               code0 = BSON_ITER_HOLDS_INT32 (&it) && bson_iter_int32 (&it) == 0;
            }
         }
         r.top_reads = it.err_off == 0 && ok == 1.0;
         r.ok0_code0 = r.valid_doc && ok == 0 && code0;
      }
   }
   return r;
}

static bool
sim_fault_cmd (sim_t *s, const char *json)
{
   bson_t r;
   bool ok = cmd (s->client, "admin", json, &r);
   bson_destroy (&r);
   return ok;
}

static void
test_wire_faults (void)
{
   sim_t s;
   const char *args[] = { NULL };
   bson_t r;
   raw_reply_t a, b;
   if (!sim_start (&s, args)) {
      UNIT_FAIL ("wire.start", "shardsim did not start");
      sim_stop (&s);
      return;
   }
   int fd = simproc_raw_connect (s.port, 1);
   a = raw_ping_reply (fd);
   CHECK ("wire.a ping before any fault is a valid reply", a.valid_doc && a.got == a.claimed && !a.closed);

   /* ok0-code0: valid BSON of a shape libmongoc asserts on (a failure without a code) */
   CHECK ("wire.badReply ok0-code0 set",
          sim_fault_cmd (&s, "{\"simFault\": \"badReply\", \"command\": \"ping\", \"kind\": \"ok0-code0\"}"));
   a = raw_ping_reply (fd);
   b = raw_ping_reply (fd);
   CHECK ("wire.badReply ok0-code0: {ok: 0, code: 0}, once", a.ok0_code0 && !a.closed && b.valid_doc && !b.ok0_code0);

   /* bson: the frame is right, the document is not */
   CHECK ("wire.badReply bson set",
          sim_fault_cmd (&s, "{\"simFault\": \"badReply\", \"command\": \"ping\", \"kind\": \"bson\"}"));
   a = raw_ping_reply (fd);
   b = raw_ping_reply (fd);
   CHECK ("wire.badReply bson: the header length is the message's", a.got == a.claimed && a.claimed > 21);
   CHECK ("wire.badReply bson: the body is not BSON", !a.valid_doc && !a.closed);
   CHECK ("wire.badReply bson: once (times 1), then a valid reply", b.valid_doc && b.got == b.claimed);

   /* utf8: framed right at every level, ok: 1 at the top, but a string is not UTF-8 and a nested element broken */
   sim_fault_cmd (&s, "{\"simFault\": \"badReply\", \"command\": \"ping\", \"kind\": \"utf8\"}");
   a = raw_ping_reply (fd);
   b = raw_ping_reply (fd);
   CHECK ("wire.badReply utf8: framed, its top level reads with ok: 1, and it is not valid BSON",
          a.got == a.claimed && a.top_reads && !a.valid_doc && !a.closed);
   CHECK ("wire.badReply utf8: once, then a valid reply", b.valid_doc && b.top_reads);

   /* length: the header claims 2^31-1 bytes */
   sim_fault_cmd (&s, "{\"simFault\": \"badReply\", \"command\": \"ping\", \"kind\": \"length\"}");
   a = raw_ping_reply (fd);
   CHECK ("wire.badReply length: the header claims 2^31-1 bytes", a.claimed == 0x7FFFFFFFu && !a.valid_doc);
   close (fd);

   /* truncated: the header claims 64 bytes more than come; the connection stays open */
   fd = simproc_raw_connect (s.port, 1);
   sim_fault_cmd (&s, "{\"simFault\": \"badReply\", \"command\": \"ping\", \"kind\": \"truncated\"}");
   int64_t t0 = clock_wall_ms ();
   a = raw_ping_reply (fd);
   CHECK ("wire.badReply truncated: 64 bytes short, connection open",
          a.claimed > 64 && a.got == a.claimed - 64 && !a.closed && clock_wall_ms () - t0 >= 900);
   close (fd);

   /* closeOn: no reply, the connection closes */
   fd = simproc_raw_connect (s.port, 3);
   sim_fault_cmd (&s, "{\"simFault\": \"closeOn\", \"command\": \"ping\", \"times\": 2}");
   cmd (s.client, "admin", "{\"simFault\": \"status\"}", &r);
   char *st = bson_as_relaxed_extended_json (&r, NULL);
   bson_destroy (&r);
   CHECK ("wire.status lists closeOn",
          st && strstr (st, "\"closeOn\" : [ { \"command\" : \"ping\", \"times\" : 2 } ]"));
   bson_free (st);
   t0 = clock_wall_ms ();
   a = raw_ping_reply (fd);
   CHECK ("wire.closeOn: closed without a byte", a.got == 0 && a.closed && clock_wall_ms () - t0 < 1000);
   close (fd);
   fd = simproc_raw_connect (s.port, 3);
   a = raw_ping_reply (fd);
   b = raw_ping_reply (fd);
   CHECK ("wire.closeOn: times 2, then answered", a.closed && a.got == 0);
   close (fd);
   fd = simproc_raw_connect (s.port, 3);
   a = raw_ping_reply (fd);
   CHECK ("wire.closeOn: answered after its times", a.valid_doc && !a.closed);

   /* every call (times -1) until clear; the simulator's own commands are never garbled */
   sim_fault_cmd (&s, "{\"simFault\": \"badReply\", \"command\": \"ping\", \"kind\": \"bson\", \"times\": -1}");
   sim_fault_cmd (&s, "{\"simFault\": \"badReply\", \"command\": \"simFault\", \"kind\": \"bson\"}");
   a = raw_ping_reply (fd);
   b = raw_ping_reply (fd);
   CHECK ("wire.badReply times -1", !a.valid_doc && !b.valid_doc && !b.closed);
   CHECK ("wire.control commands never garbled", sim_fault_cmd (&s, "{\"simFault\": \"status\"}"));
   CHECK ("wire.clear", sim_fault_cmd (&s, "{\"simFault\": \"clear\"}"));
   a = raw_ping_reply (fd);
   CHECK ("wire.clear removes badReply", a.valid_doc);
   close (fd);

   /* argument errors */
   bool e1 = cmd (s.client, "admin", "{\"simFault\": \"badReply\", \"command\": \"ping\"}", &r);
   int32_t c1 = code_of (&r);
   bson_destroy (&r);
   bool e2 = cmd (s.client, "admin", "{\"simFault\": \"badReply\", \"command\": \"ping\", \"kind\": \"x\"}", &r);
   bson_destroy (&r);
   bool e3 = cmd (s.client, "admin", "{\"simFault\": \"closeOn\"}", &r);
   bson_destroy (&r);
   CHECK ("wire.badReply without kind, a bad kind, closeOn without command: code 2", !e1 && c1 == 2 && !e2 && !e3);
   int status = sim_stop (&s);
   CHECK ("wire.clean exit", WIFEXITED (status) && WEXITSTATUS (status) == 0);

   /* the flags */
   const char *f1[] = { "--fault-bad-reply", "ping:bson:1", "--fault-close-on", "buildInfo", NULL };
   if (sim_start (&s, f1)) {
      fd = simproc_raw_connect (s.port, 3);
      a = raw_ping_reply (fd);
      b = raw_ping_reply (fd);
      CHECK ("flags.--fault-bad-reply ping:bson:1", !a.valid_doc && a.got == a.claimed && b.valid_doc);
      close (fd);
      bool built1 = cmd (s.client, "admin", "{\"buildInfo\": 1}", &r);
      bson_destroy (&r);
      bool built2 = cmd (s.client, "admin", "{\"buildInfo\": 1}", &r);
      bson_destroy (&r);
      CHECK ("flags.--fault-close-on buildInfo: the first call fails, the next is answered", !built1 && built2);
   } else {
      UNIT_FAIL ("flags.start wire", "shardsim did not start");
   }
   sim_stop (&s);
   char pf[256];
   snprintf (pf, sizeof pf, "/tmp/test_sim_faults.%d.port", (int) getpid ());
   const char *f2[] = { "--fault-bad-reply", "ping:nonsense", NULL };
   CHECK ("flags.--fault-bad-reply with a bad kind does not start", !simproc_start (&s, pf, f2, 30, 10, "x=1"));
   status = sim_stop (&s);
   CHECK ("flags.--fault-bad-reply with a bad kind: exit 2", WIFEXITED (status) && WEXITSTATUS (status) == 2);
}

int
main (void)
{
   mongoc_init ();
   mongoc_log_set_handler (NULL, NULL);
   test_fail_and_delay ();
   test_hang_refuse_drop ();
   test_flags ();
   test_wire_faults ();
   mongoc_cleanup ();
   UNIT_EXIT ();
}
