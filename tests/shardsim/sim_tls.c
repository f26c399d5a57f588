/* shardsim's TLS (--tls-cert FILE [--tls-ca FILE]): one OpenSSL (libssl) server context, a TLS session per accepted
 * connection, and the reads and writes sim_server.c routes through it. With --tls-ca a client certificate is asked
 * for and verified against that CA when the client sends one (as mongod with tlsAllowConnectionsWithoutCertificates);
 * none is required. TLS 1.2 is the minimum. */
#include "tests/shardsim/sim.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <string.h>

static SSL_CTX *sim_tls_ctx;

/* The reason of the most recent OpenSSL error into buf ("unknown error" when the queue is empty); clears the
 * thread's error queue. */
static void
sim_tls_reason (char *buf, size_t len)
{
   unsigned long e = ERR_peek_last_error ();
   if (e) {
      ERR_error_string_n (e, buf, len);
   } else {
      bson_strncpy (buf, "unknown error", len);
   }
   ERR_clear_error ();
}

bool
sim_tls_init (const char *cert_file, const char *ca_file, char *errbuf, size_t errlen)
{
   char why[256];
   SSL_CTX *ctx = SSL_CTX_new (TLS_server_method ());
   if (!ctx) {
      sim_tls_reason (why, sizeof why);
      bson_snprintf (errbuf, errlen, "TLS: cannot create a context: %s", why);
      return false;
   }
   SSL_CTX_set_min_proto_version (ctx, TLS1_2_VERSION);
   SSL_CTX_set_mode (ctx, SSL_MODE_AUTO_RETRY);
   if (SSL_CTX_use_certificate_chain_file (ctx, cert_file) != 1 ||
       SSL_CTX_use_PrivateKey_file (ctx, cert_file, SSL_FILETYPE_PEM) != 1 || SSL_CTX_check_private_key (ctx) != 1) {
      sim_tls_reason (why, sizeof why);
      bson_snprintf (errbuf, errlen, "--tls-cert %s: %s", cert_file, why);
      SSL_CTX_free (ctx);
      return false;
   }
   if (ca_file) {
      STACK_OF (X509_NAME) *names = SSL_load_client_CA_file (ca_file);
      if (SSL_CTX_load_verify_locations (ctx, ca_file, NULL) != 1 || !names) {
         sim_tls_reason (why, sizeof why);
         bson_snprintf (errbuf, errlen, "--tls-ca %s: %s", ca_file, why);
         sk_X509_NAME_pop_free (names, X509_NAME_free);
         SSL_CTX_free (ctx);
         return false;
      }
      SSL_CTX_set_client_CA_list (ctx, names); /* the context owns names now */
      SSL_CTX_set_verify (ctx, SSL_VERIFY_PEER, NULL);
   }
   sim_tls_ctx = ctx;
   return true;
}

bool
sim_tls_enabled (void)
{
   return sim_tls_ctx != NULL;
}

void
sim_tls_destroy (void)
{
   SSL_CTX_free (sim_tls_ctx);
   sim_tls_ctx = NULL;
}

bool
sim_tls_accept (sim_conn_t *conn)
{
   char why[256];
   SSL *ssl = SSL_new (sim_tls_ctx);
   if (!ssl || SSL_set_fd (ssl, conn->fd) != 1) {
      sim_tls_reason (why, sizeof why);
      fprintf (stderr, "shardsim: conn%d: TLS: %s\n", conn->id, why);
      SSL_free (ssl);
      return false;
   }
   int r;
   do {
      r = SSL_accept (ssl);
   } while (r != 1 && SSL_get_error (ssl, r) == SSL_ERROR_SYSCALL && errno == EINTR && !sim_g.shutting_down);
   if (r != 1) {
      if (!sim_g.shutting_down) {
         sim_tls_reason (why, sizeof why);
         fprintf (stderr, "shardsim: conn%d: TLS handshake failed: %s\n", conn->id, why);
      }
      ERR_clear_error ();
      SSL_free (ssl);
      return false;
   }
   conn->tls = ssl;
   return true;
}

/* Maps an SSL_read/SSL_write result to the read(2)/write(2)-like contract of sim_tls_read and sim_tls_write. */
static ssize_t
sim_tls_result (SSL *ssl, int r)
{
   if (r > 0) {
      return r;
   }
   int e = SSL_get_error (ssl, r);
   if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE || (e == SSL_ERROR_SYSCALL && errno == EINTR)) {
      ERR_clear_error ();
      errno = EINTR;
      return -1;
   }
   if (e != SSL_ERROR_ZERO_RETURN) {
      SSL_set_quiet_shutdown (ssl, 1); /* a failed session gets no close_notify */
   }
   ERR_clear_error ();
   return 0;
}

ssize_t
sim_tls_read (sim_conn_t *conn, void *buf, size_t n)
{
   int want = n > INT32_MAX ? INT32_MAX : (int) n;
   return sim_tls_result (conn->tls, SSL_read (conn->tls, buf, want));
}

ssize_t
sim_tls_write (sim_conn_t *conn, const void *buf, size_t n)
{
   int want = n > INT32_MAX ? INT32_MAX : (int) n;
   return sim_tls_result (conn->tls, SSL_write (conn->tls, buf, want));
}

size_t
sim_tls_pending (const sim_conn_t *conn)
{
   return conn->tls ? (size_t) SSL_pending (conn->tls) : 0;
}

void
sim_tls_close (sim_conn_t *conn)
{
   if (!conn->tls) {
      return;
   }
   /* close_notify, unless the stream failed (quiet shutdown) or the server is going away */
   if (!sim_g.shutting_down) {
      SSL_shutdown (conn->tls);
   }
   ERR_clear_error ();
   SSL_free (conn->tls);
   conn->tls = NULL;
}
