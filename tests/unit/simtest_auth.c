/* passes: plain asan */
/* The simulator's SCRAM server (tests/shardsim/sim_auth.c) against the published exchanges: RFC 7677's SCRAM-SHA-256
 * example and RFC 5802's SCRAM-SHA-1 example (user "user", password "pencil", fixed nonces and salts), MongoDB's
 * SCRAM-SHA-1 password digest, and the failures: a wrong proof, a changed nonce, a bad channel binding, malformed
 * messages. */
#include "tests/shardsim/sim.h"
#include "tests/unit/unit.h"

#include <openssl/evp.h>
#include <stdlib.h>

/* Decodes base64 (test data only). */
static size_t
b64 (const char *in, uint8_t *out)
{
   size_t len = strlen (in);
   int n = EVP_DecodeBlock (out, (const unsigned char *) in, (int) len);
   return (size_t) n - (in[len - 1] == '=') - (in[len - 2] == '=');
}

typedef struct {
   const char *name;
   sim_scram_algo_t algo;
   const char *password;
   const char *salt_b64;
   int iterations;
   const char *client_first;
   const char *server_nonce;
   const char *server_first;
   const char *client_final;
   const char *server_final;
} vector_t;

static const vector_t vectors[] = {
   { "RFC 7677 SCRAM-SHA-256", SIM_SCRAM_SHA256, "pencil", "W22ZaJ0SNY7soEsUEjb6gQ==", 4096,
     "n,,n=user,r=rOprNGfwEbeRWgbNEkqO", "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0",
     "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
     "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
     "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=" },
   { "RFC 5802 SCRAM-SHA-1", SIM_SCRAM_SHA1, "pencil", "QSXCR+Q6sek8bf92", 4096, "n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL",
     "3rfcNHYJY1ZVvWVs7j", "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096",
     "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=",
     "v=rmF9pqV8S7suAoZWja4dJRkFsKQ=" },
};

/* Runs a conversation up to the client-final message; returns it (NULL on a failure before). */
static sim_scram_t *
start (const vector_t *v, sim_scram_creds_t *creds, char **first)
{
   uint8_t salt[32];
   size_t salt_len = b64 (v->salt_b64, salt);
   char user[64], err[128];
   *first = NULL;
   if (!sim_scram_derive (v->algo, v->password, strlen (v->password), salt, salt_len, v->iterations, creds)) {
      return NULL;
   }
   sim_scram_t *s = sim_scram_start (v->algo, (const uint8_t *) v->client_first, strlen (v->client_first), user,
                                     sizeof user, err, sizeof err);
   if (s && (strcmp (user, "user") != 0 || !sim_scram_server_first (s, creds, v->server_nonce, first))) {
      sim_scram_free (s);
      return NULL;
   }
   return s;
}

static void
test_vector (const vector_t *v)
{
   char name[160];
   sim_scram_creds_t creds;
   char *first = NULL, *final = NULL;

   sim_scram_t *s = start (v, &creds, &first);
   bson_snprintf (name, sizeof name, "simauth/%s: server-first message", v->name);
   CHECK_STR (name, v->server_first, first ? first : "(failed)");
   bool ok = s && sim_scram_server_final (s, (const uint8_t *) v->client_final, strlen (v->client_final), &final);
   bson_snprintf (name, sizeof name, "simauth/%s: the published client proof is accepted", v->name);
   CHECK (name, ok);
   bson_snprintf (name, sizeof name, "simauth/%s: server signature", v->name);
   CHECK_STR (name, v->server_final, final ? final : "(failed)");
   bson_free (first);
   bson_free (final);
   sim_scram_free (s);

   /* a proof with one bit flipped (a wrong password) is refused */
   char *bad = bson_strdup (v->client_final);
   char *p = strstr (bad, ",p=") + 3;
   *p = *p == 'A' ? 'B' : 'A';
   s = start (v, &creds, &first);
   final = NULL;
   ok = s && sim_scram_server_final (s, (const uint8_t *) bad, strlen (bad), &final);
   bson_snprintf (name, sizeof name, "simauth/%s: a wrong proof is refused", v->name);
   CHECK (name, !ok && final == NULL);
   bson_free (first);
   bson_free (bad);
   sim_scram_free (s);

   /* the same proof with another nonce (a replay into a new conversation) is refused */
   s = start (v, &creds, &first);
   bson_free (first);
   first = NULL;
   if (s) {
      sim_scram_free (s);
      vector_t other = *v;
      other.server_nonce = "someOtherServerNonce";
      s = start (&other, &creds, &first);
   }
   ok = s && sim_scram_server_final (s, (const uint8_t *) v->client_final, strlen (v->client_final), &final);
   bson_snprintf (name, sizeof name, "simauth/%s: a replayed proof under a new nonce is refused", v->name);
   CHECK (name, !ok);
   bson_free (first);
   sim_scram_free (s);

   /* channel binding "y,," is accepted but c= must then encode it */
   s = start (v, &creds, &first);
   ok = s && sim_scram_server_final (s, (const uint8_t *) "c=eSws,r=x,p=AAAA", 17, &final);
   bson_snprintf (name, sizeof name, "simauth/%s: a mismatched c= is refused", v->name);
   CHECK (name, !ok);
   bson_free (first);
   sim_scram_free (s);
   OPENSSL_cleanse (&creds, sizeof creds);
}

static void
test_malformed (void)
{
   static const char *bad[] = { "",
                                "p=tls-unique,,n=user,r=abc",
                                "n,a=admin,n=user,r=abc",
                                "n,,m=ext,n=user,r=abc",
                                "n,,n=,r=abc",
                                "n,,n=us=2Xer,r=abc",
                                "n,,n=user",
                                "n,,n=user,r=",
                                NULL };
   char user[64], err[128], name[128];
   for (int i = 0; bad[i]; i++) {
      sim_scram_t *s = sim_scram_start (SIM_SCRAM_SHA256, (const uint8_t *) bad[i], strlen (bad[i]), user, sizeof user,
                                        err, sizeof err);
      bson_snprintf (name, sizeof name, "simauth/malformed client-first refused: [%s]", bad[i]);
      CHECK (name, s == NULL && err[0] != '\0');
      sim_scram_free (s);
   }
   sim_scram_t *s = sim_scram_start (SIM_SCRAM_SHA256, (const uint8_t *) "n,,n=a=2Cb=3Dc,r=xyz", 20, user, sizeof user,
                                     err, sizeof err);
   CHECK_STR ("simauth/saslname escapes are decoded", "a,b=c", s ? user : "(failed)");
   sim_scram_free (s);
}

static void
test_mongo_sha1_digest (void)
{
   /* MongoDB's SCRAM-SHA-1 password: hex(MD5("user:mongo:pencil")) */
   char out[33];
   sim_scram_mongo_sha1_password ("user", "pencil", out);
   CHECK_STR ("simauth/MongoDB SHA-1 password digest", "1c33006ec1ffd90f9cadcbcc0e118200", out);
}

static void
test_add_user (void)
{
   char err[256];
   char spec[] = "alice:s3cret-Pw@reports";
   CHECK ("simauth/--auth user:password@db accepted", sim_auth_add_user (spec, err, sizeof err));
   CHECK_STR ("simauth/--auth wipes the password from its argument", "alice:xxxxxxxxx@reports", spec);
   CHECK ("simauth/auth is enabled once a user exists", sim_auth_enabled ());
   char dup[] = "alice:other@reports";
   CHECK ("simauth/the same user twice is refused", !sim_auth_add_user (dup, err, sizeof err));
   char nonascii[] = "bob:p\xc3\xa4ss";
   CHECK ("simauth/a non-ASCII password is refused (no SASLprep tables)",
          !sim_auth_add_user (nonascii, err, sizeof err) && strstr (err, "ASCII"));
   char nopw[] = "carl:";
   CHECK ("simauth/an empty password is refused", !sim_auth_add_user (nopw, err, sizeof err));
   char nouser[] = "nouser";
   CHECK ("simauth/a spec without ':' is refused", !sim_auth_add_user (nouser, err, sizeof err));
   uint8_t hash[20];
   int64_t key_id = 0;
   sim_auth_sign_cluster_time (1709294400, 1, hash, &key_id);
   static const uint8_t zero[20] = { 0 };
   CHECK ("simauth/$clusterTime is signed under --auth", key_id != 0 && memcmp (hash, zero, 20) != 0);
   sim_auth_destroy ();
   CHECK ("simauth/cleanup forgets the users", !sim_auth_enabled ());
   sim_auth_sign_cluster_time (1709294400, 1, hash, &key_id);
   CHECK ("simauth/the zero signature without --auth", key_id == 0 && memcmp (hash, zero, 20) == 0);
}

int
main (void)
{
   for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
      test_vector (&vectors[i]);
   }
   test_malformed ();
   test_mongo_sha1_digest ();
   test_add_user ();
   UNIT_EXIT ();
}
