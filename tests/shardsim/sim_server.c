/* shardsim's network layer: a loopback listener, one thread per connection reading whole messages, the awaitable
 * (exhaust) hello loop, and a clean shutdown that closes every connection and joins its thread. Every byte of a
 * connection goes through sim_conn_read / sim_conn_write: the socket, or the connection's TLS session (sim_tls.c). */
#include "tests/shardsim/sim.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SIM_MAX_MESSAGE (48 * 1000 * 1000)

int
sim_server_listen (int port, int *bound_port)
{
   int fd = socket (AF_INET, SOCK_STREAM, 0);
   if (fd < 0) {
      return -1;
   }
   int one = 1;
   setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
   struct sockaddr_in sa;
   memset (&sa, 0, sizeof sa);
   sa.sin_family = AF_INET;
   sa.sin_port = htons ((uint16_t) port);
   sa.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
   socklen_t sl = sizeof sa;
   if (bind (fd, (struct sockaddr *) &sa, sizeof sa) != 0 || listen (fd, 128) != 0 ||
       getsockname (fd, (struct sockaddr *) &sa, &sl) != 0) {
      close (fd);
      return -1;
   }
   *bound_port = ntohs (sa.sin_port);
   return fd;
}

/* The connection's byte stream: read(2)/send(2) on the socket, or the TLS session when the connection has one. */
static ssize_t
sim_conn_read (sim_conn_t *conn, uint8_t *buf, size_t n)
{
   return conn->tls ? sim_tls_read (conn, buf, n) : read (conn->fd, buf, n);
}

static ssize_t
sim_conn_write (sim_conn_t *conn, const uint8_t *buf, size_t n)
{
   return conn->tls ? sim_tls_write (conn, buf, n) : send (conn->fd, buf, n, MSG_NOSIGNAL);
}

/* Whether the peer has sent something (or closed) without blocking: 1 data waiting, 0 nothing yet, -1 closed. */
static int
sim_conn_peek (sim_conn_t *conn, int timeout_ms)
{
   if (sim_tls_pending (conn) > 0) {
      return 1; /* already decrypted, the socket may be quiet */
   }
   struct pollfd pfd = { .fd = conn->fd, .events = POLLIN };
   if (poll (&pfd, 1, timeout_ms) <= 0) {
      return 0;
   }
   char c;
   return recv (conn->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) <= 0 ? -1 : 1;
}

/* Reads exactly n bytes; false on EOF or error. */
static bool
sim_read_full (sim_conn_t *conn, uint8_t *buf, size_t n)
{
   size_t got = 0;
   while (got < n) {
      ssize_t r = sim_conn_read (conn, buf + got, n - got);
      if (r < 0 && errno == EINTR) {
         continue;
      }
      if (r <= 0) {
         return false;
      }
      got += (size_t) r;
   }
   return true;
}

static bool
sim_write_full (sim_conn_t *conn, const uint8_t *buf, size_t n)
{
   size_t put = 0;
   while (put < n) {
      ssize_t w = sim_conn_write (conn, buf + put, n - put);
      if (w < 0 && errno == EINTR) {
         continue;
      }
      if (w <= 0) {
         return false;
      }
      put += (size_t) w;
   }
   return true;
}

/* Waits up to ms for the peer to close (or send) or for shutdown; returns false when the connection must end. */
static bool
sim_await (sim_conn_t *conn, int64_t ms)
{
   int64_t deadline = clock_wall_ms () + ms;
   while (!sim_g.shutting_down) {
      int64_t left = deadline - clock_wall_ms ();
      if (left <= 0) {
         return true;
      }
      int r = sim_conn_peek (conn, (int) (left > 200 ? 200 : left));
      if (r != 0) {
         return r > 0; /* the client sent something: answer now; or it closed */
      }
   }
   return false;
}

static int32_t sim_next_response_id = 1;

/* Sends reply, garbled as bad says (simFault badReply; SIM_WIRE_OK for a true reply). */
static bool
sim_send_reply_as (sim_conn_t *conn, const sim_msg_t *msg, uint32_t flags, const bson_t *reply, sim_wire_fault_t bad)
{
   size_t len;
   pthread_mutex_lock (&sim_g.conn_lock);
   int32_t rid = sim_next_response_id++;
   pthread_mutex_unlock (&sim_g.conn_lock);
   uint8_t *buf = sim_wire_reply (msg->opcode, msg->request_id, rid, flags, reply, &len);
   if (bad != SIM_WIRE_OK) {
      len = sim_fault_garble (bad, buf, len, reply->len);
   }
   bool ok = sim_write_full (conn, buf, len);
   bson_free (buf);
   return ok;
}

static bool
sim_send_reply (sim_conn_t *conn, const sim_msg_t *msg, uint32_t flags, const bson_t *reply)
{
   return sim_send_reply_as (conn, msg, flags, reply, SIM_WIRE_OK);
}

static void
sim_serve_one (sim_conn_t *conn, const uint8_t *data, size_t len, bool *keep)
{
   sim_msg_t msg;
   bson_error_t error;
   bson_t reply;
   if (!sim_wire_parse (data, len, &msg, &error)) {
      if (error.code == 223) {
         /* Answer an illegal flag the way the server does; other malformed input closes the connection. */
         bson_init (&reply);
         sim_reply_error (&reply, 223, "%s", error.message);
         memset (&msg, 0, sizeof msg);
         msg.opcode = SIM_OP_MSG;
         msg.request_id = (int32_t) ((uint32_t) data[4] | (uint32_t) data[5] << 8 | (uint32_t) data[6] << 16 |
                                     (uint32_t) data[7] << 24);
         *keep = sim_send_reply (conn, &msg, 0, &reply);
         bson_destroy (&reply);
         return;
      }
      fprintf (stderr, "shardsim: conn%d: %s\n", conn->id, error.message);
      *keep = false;
      return;
   }
   int64_t wait_ms = 0;
   bson_iter_t first;
   const char *cmd_name = bson_iter_init (&first, &msg.cmd) && bson_iter_next (&first) ? bson_iter_key (&first) : "";
   if (!sim_fault_before (cmd_name)) {
      /* simFault hang: the request waited; shutting down now. */
      *keep = false;
      goto done;
   }
   if (sim_fault_close_on (cmd_name)) {
      /* simFault closeOn: the connection closes instead of answering */
      shutdown (conn->fd, SHUT_RDWR);
      *keep = false;
      goto done;
   }
   bool awaitable = msg.opcode == SIM_OP_MSG && sim_cmd_is_awaitable_hello (&msg.cmd, &wait_ms);
   bool exhaust = awaitable && (msg.flags & SIM_MSG_EXHAUST);
   if (awaitable) {
      /* The topology version never changes: hold the request for maxAwaitTimeMS, outside the state lock. */
      if (!sim_await (conn, wait_ms)) {
         *keep = false;
         goto done;
      }
   }
   sim_cmd_run (conn, &msg, &reply);
   if (msg.opcode == SIM_OP_MSG && (msg.flags & SIM_MSG_MORE_TO_COME)) {
      bson_destroy (&reply); /* the client wants no answer */
      goto done;
   }
   int64_t delay = sim_fault_delay_ms (cmd_name);
   for (int64_t until = clock_wall_ms () + delay; delay > 0 && !sim_g.shutting_down && clock_wall_ms () < until;) {
      usleep (2000);
   }
   sim_wire_fault_t bad = sim_fault_bad_reply (cmd_name);
   if (sim_fault_rewrite (bad, &reply)) {
      bad = SIM_WIRE_OK; /* a well-formed reply of the wrong shape */
   }
   *keep = sim_send_reply_as (conn, &msg, exhaust ? SIM_MSG_MORE_TO_COME : 0, &reply, bad);
   bson_destroy (&reply);
   pthread_mutex_lock (&sim_g.conn_lock);
   if (conn->close_after_reply) {
      *keep = false; /* simFault dropConnections, asked on this connection */
   }
   pthread_mutex_unlock (&sim_g.conn_lock);
   while (*keep && exhaust) {
      /* Keep streaming hello replies until the client closes the connection. */
      if (!sim_await (conn, wait_ms)) {
         *keep = false;
         break;
      }
      sim_cmd_run (conn, &msg, &reply);
      *keep = sim_send_reply (conn, &msg, SIM_MSG_MORE_TO_COME, &reply);
      bson_destroy (&reply);
      int peek = sim_conn_peek (conn, 0);
      if (peek != 0) {
         if (peek < 0) {
            *keep = false; /* closed */
         }
         break; /* a new request arrived: back to the normal loop */
      }
   }
done:
   sim_msg_destroy (&msg);
}

static void *
sim_conn_main (void *arg)
{
   sim_conn_t *conn = arg;
   uint8_t *buf = NULL;
   bool keep = !sim_tls_enabled () || sim_tls_accept (conn);
   while (keep && !sim_g.shutting_down) {
      uint8_t hdr[16];
      if (!sim_read_full (conn, hdr, sizeof hdr)) {
         break;
      }
      int32_t len =
         (int32_t) ((uint32_t) hdr[0] | (uint32_t) hdr[1] << 8 | (uint32_t) hdr[2] << 16 | (uint32_t) hdr[3] << 24);
      if (len < 16 || len > SIM_MAX_MESSAGE) {
         break;
      }
      buf = bson_malloc ((size_t) len);
      memcpy (buf, hdr, 16);
      if (!sim_read_full (conn, buf + 16, (size_t) len - 16)) {
         break;
      }
      sim_serve_one (conn, buf, (size_t) len, &keep);
      bson_free (buf);
      buf = NULL;
   }
   bson_free (buf);
   sim_tls_close (conn);
   sim_auth_conn_free (conn);
   pthread_mutex_lock (&sim_g.lock);
   sim_g.conns_current--;
   pthread_mutex_unlock (&sim_g.lock);
   pthread_mutex_lock (&sim_g.conn_lock);
   conn->done = true;
   pthread_mutex_unlock (&sim_g.conn_lock);
   return NULL;
}

/* Joins and frees finished connections (all of them when all is true, after shutting their sockets). */
static void
sim_reap (bool all)
{
   pthread_mutex_lock (&sim_g.conn_lock);
   sim_conn_t **pp = &sim_g.conns;
   if (all) {
      for (sim_conn_t *c = sim_g.conns; c; c = c->next) {
         shutdown (c->fd, SHUT_RDWR);
      }
   }
   while (*pp) {
      sim_conn_t *c = *pp;
      if (c->done || all) {
         *pp = c->next;
         pthread_mutex_unlock (&sim_g.conn_lock);
         pthread_join (c->thread, NULL);
         close (c->fd);
         bson_free (c);
         pthread_mutex_lock (&sim_g.conn_lock);
      } else {
         pp = &c->next;
      }
   }
   pthread_mutex_unlock (&sim_g.conn_lock);
}

void
sim_server_run (int *listen_fd)
{
   while (!sim_g.shutting_down) {
      /* simFault refuseConnections: close the listener for the period, then listen on the same port again. */
      if (sim_fault_refusing ()) {
         if (*listen_fd >= 0) {
            close (*listen_fd);
            *listen_fd = -1;
         }
      } else if (*listen_fd < 0) {
         int bound = 0;
         *listen_fd = sim_server_listen (sim_g.port, &bound);
      }
      struct pollfd pfd[2] = { { .fd = sim_g.wake_pipe[0], .events = POLLIN }, { .fd = *listen_fd, .events = POLLIN } };
      int r = poll (pfd, *listen_fd >= 0 ? 2 : 1, 50);
      sim_reap (false);
      if (r > 0 && (pfd[0].revents & POLLIN)) {
         char c;
         ssize_t n = read (sim_g.wake_pipe[0], &c, 1);
         (void) n;
      }
      if (r <= 0 || *listen_fd < 0 || !(pfd[1].revents & POLLIN)) {
         continue;
      }
      struct sockaddr_in sa;
      socklen_t sl = sizeof sa;
      int fd = accept (*listen_fd, (struct sockaddr *) &sa, &sl);
      if (fd < 0) {
         continue;
      }
      int one = 1;
      setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      sim_conn_t *conn = bson_malloc0 (sizeof *conn);
      conn->fd = fd;
      char ip[INET_ADDRSTRLEN] = "127.0.0.1";
      inet_ntop (AF_INET, &sa.sin_addr, ip, sizeof ip);
      bson_snprintf (conn->peer, sizeof conn->peer, "%s:%d", ip, ntohs (sa.sin_port));
      conn->started_ms = clock_wall_ms ();
      pthread_mutex_lock (&sim_g.lock);
      conn->id = ++sim_g.next_conn_id;
      sim_g.conns_total++;
      sim_g.conns_current++;
      pthread_mutex_unlock (&sim_g.lock);
      pthread_mutex_lock (&sim_g.conn_lock);
      conn->next = sim_g.conns;
      sim_g.conns = conn;
      if (pthread_create (&conn->thread, NULL, sim_conn_main, conn) != 0) {
         sim_g.conns = conn->next;
         pthread_mutex_unlock (&sim_g.conn_lock);
         close (fd);
         bson_free (conn);
         pthread_mutex_lock (&sim_g.lock);
         sim_g.conns_current--;
         pthread_mutex_unlock (&sim_g.lock);
         continue;
      }
      pthread_mutex_unlock (&sim_g.conn_lock);
   }
   sim_reap (true);
}
