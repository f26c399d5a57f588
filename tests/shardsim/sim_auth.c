/* shardsim's authentication (--auth USER:PASSWORD[@DB]): SCRAM-SHA-256 (RFC 7677) and SCRAM-SHA-1 (RFC 5802) as a
 * MongoDB server runs them — saslStart / saslContinue with BinData payloads, conversationId 1, skipEmptyExchange,
 * speculativeAuthenticate and saslSupportedMechs in the handshake — and the gate that refuses every other command
 * (13 Unauthorized) until the connection has authenticated. Every cryptographic operation is OpenSSL's (libcrypto:
 * PBKDF2, HMAC, SHA, MD5, random bytes, constant-time comparison, cleansing); nothing here hand-writes crypto.
 *
 * Only printable ASCII passwords are accepted: SASLprep (RFC 4013), which SCRAM-SHA-256 applies to the password, maps
 * them to themselves, so the simulator needs no Unicode tables. SCRAM-SHA-1 uses MongoDB's password digest,
 * hex(MD5("user:mongo:password")), as its password. The users' keys are derived once at start; the passwords are
 * zeroed right after, and secrets of a conversation are zeroed when it ends. */
#include "tests/shardsim/sim.h"
#include "shell/lib/secret.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <string.h>
#include <time.h>

#define SIM_AUTH_NAME_MAX 128
#define SIM_SCRAM_MAX_MSG 1024
#define SIM_SHA256_ITERATIONS 15000
#define SIM_SHA1_ITERATIONS 10000

/* One --auth user: both mechanisms' stored credentials. */
typedef struct {
   char user[SIM_AUTH_NAME_MAX];
   char db[SIM_AUTH_NAME_MAX];
   sim_scram_creds_t sha1;
   sim_scram_creds_t sha256;
} sim_user_t;

/* The server side of one SCRAM conversation. */
struct sim_scram {
   sim_scram_algo_t algo;
   int step;        /* 0 after the client-first, 1 after the server-first, 2 after the server-final */
   bool skip_empty; /* options.skipEmptyExchange: done after the server-final message */
   char user[SIM_AUTH_NAME_MAX];
   char db[SIM_AUTH_NAME_MAX];
   char gs2_header[64];     /* "n,," (what c= of the client-final must encode) */
   char *client_first_bare; /* "n=user,r=<client nonce>" */
   char *client_nonce;
   char *server_first;
   char *nonce; /* client nonce + server nonce */
   sim_scram_creds_t creds;
};

/* Users are added before the server starts and only read afterwards: no lock. */
static sim_user_t *sim_users;
static size_t sim_nusers;
static bool sim_auth_required; /* --auth was given: commands need an authenticated connection */
static uint8_t sim_sign_key[20];
static int64_t sim_sign_key_id;

/* ---- primitives (OpenSSL) ---- */

static const EVP_MD *
sim_scram_md (sim_scram_algo_t algo)
{
   return algo == SIM_SCRAM_SHA1 ? EVP_sha1 () : EVP_sha256 ();
}

static size_t
sim_scram_hash_len (sim_scram_algo_t algo)
{
   return algo == SIM_SCRAM_SHA1 ? 20 : 32;
}

/* HMAC(key, data) with the mechanism's hash into out (the hash's length). */
static bool
sim_hmac (const EVP_MD *md, const uint8_t *key, size_t klen, const void *data, size_t dlen, uint8_t *out)
{
   unsigned int olen = 0;
   return HMAC (md, key, (int) klen, data, dlen, out, &olen) != NULL && olen == (unsigned int) EVP_MD_size (md);
}

static bool
sim_hash (const EVP_MD *md, const void *data, size_t len, uint8_t *out)
{
   unsigned int olen = 0;
   return EVP_Digest (data, len, out, &olen, md, NULL) == 1;
}

/* Base64 of len bytes; bson_malloc'd, NUL-terminated. */
static char *
sim_b64_encode (const uint8_t *data, size_t len)
{
   char *out = bson_malloc (4 * ((len + 2) / 3) + 1);
   EVP_EncodeBlock ((unsigned char *) out, data, (int) len);
   return out;
}

/* Decodes len characters of base64 into out (room for cap bytes); false when malformed or too long. */
static bool
sim_b64_decode (const char *in, size_t len, uint8_t *out, size_t cap, size_t *outlen)
{
   if (len % 4 != 0 || len / 4 * 3 > cap) {
      return false;
   }
   for (size_t i = 0; i < len; i++) {
      char c = in[i];
      bool pad_ok = c == '=' && i >= len - 2 && (i == len - 1 || in[len - 1] == '=');
      if (!(c >= 'A' && c <= 'Z') && !(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') && c != '+' && c != '/' &&
          !pad_ok) {
         return false;
      }
   }
   *outlen = 0;
   if (len == 0) {
      return true;
   }
   int n = EVP_DecodeBlock (out, (const unsigned char *) in, (int) len);
   if (n < 0) {
      return false;
   }
   *outlen = (size_t) n - (in[len - 1] == '=') - (in[len - 2] == '=');
   return true;
}

/* Frees a string holding secret material after zeroing it. */
static void
sim_free_secret (char *s)
{
   if (s) {
      OPENSSL_cleanse (s, strlen (s));
      bson_free (s);
   }
}

bool
sim_scram_derive (sim_scram_algo_t algo, const char *password, size_t pwlen, const uint8_t *salt, size_t salt_len,
                  int iterations, sim_scram_creds_t *out)
{
   const EVP_MD *md = sim_scram_md (algo);
   size_t hl = sim_scram_hash_len (algo);
   uint8_t salted[32], client_key[32];
   bool ok = false;

   memset (out, 0, sizeof *out);
   if (salt_len > sizeof out->salt || iterations < 1) {
      return false;
   }
   out->algo = algo;
   memcpy (out->salt, salt, salt_len);
   out->salt_len = salt_len;
   out->iterations = iterations;
   out->key_len = hl;
   /* SaltedPassword := Hi(Normalize(password), salt, i), Hi being PBKDF2 with HMAC as the PRF */
   if (PKCS5_PBKDF2_HMAC (password, (int) pwlen, salt, (int) salt_len, iterations, md, (int) hl, salted) != 1) {
      goto done;
   }
   ok = sim_hmac (md, salted, hl, "Client Key", 10, client_key) && sim_hash (md, client_key, hl, out->stored_key) &&
        sim_hmac (md, salted, hl, "Server Key", 10, out->server_key);
done:
   OPENSSL_cleanse (salted, sizeof salted);
   OPENSSL_cleanse (client_key, sizeof client_key);
   if (!ok) {
      OPENSSL_cleanse (out, sizeof *out);
   }
   return ok;
}

void
sim_scram_mongo_sha1_password (const char *user, const char *password, char out[33])
{
   uint8_t digest[16];
   char *text = bson_strdup_printf ("%s:mongo:%s", user, password);
   unsigned int olen = 0;
   EVP_Digest (text, strlen (text), digest, &olen, EVP_md5 (), NULL);
   for (int i = 0; i < 16; i++) {
      bson_snprintf (out + 2 * i, 3, "%02x", digest[i]);
   }
   sim_free_secret (text);
   OPENSSL_cleanse (digest, sizeof digest);
}

/* ---- the SCRAM conversation ---- */

/* Decodes a SCRAM saslname ("=2C" is ',', "=3D" is '='); false on any other '=' escape or when it does not fit. */
static bool
sim_scram_decode_name (const char *in, size_t len, char *out, size_t cap)
{
   size_t o = 0;
   for (size_t i = 0; i < len; i++) {
      char c = in[i];
      if (c == '=') {
         if (i + 3 > len) {
            return false;
         }
         if (!strncmp (in + i, "=2C", 3)) {
            c = ',';
         } else if (!strncmp (in + i, "=3D", 3)) {
            c = '=';
         } else {
            return false;
         }
         i += 2;
      }
      if (o + 1 >= cap) {
         return false;
      }
      out[o++] = c;
   }
   out[o] = '\0';
   return o > 0;
}

sim_scram_t *
sim_scram_start (sim_scram_algo_t algo, const uint8_t *payload, size_t len, char *user, size_t userlen, char *errbuf,
                 size_t errlen)
{
   char msg[SIM_SCRAM_MAX_MSG];
   if (len == 0 || len >= sizeof msg || memchr (payload, '\0', len)) {
      bson_snprintf (errbuf, errlen, "Invalid SCRAM client-first message");
      return NULL;
   }
   memcpy (msg, payload, len);
   msg[len] = '\0';
   /* gs2-header: a channel-binding flag ("n" or "y"; "p=" asks for channel binding, which is not offered), an empty
    * authzid, then the bare message */
   const char *p = msg;
   if ((p[0] != 'n' && p[0] != 'y') || p[1] != ',') {
      bson_snprintf (errbuf, errlen, "SCRAM: channel binding is not supported");
      return NULL;
   }
   if (p[2] != ',') {
      bson_snprintf (errbuf, errlen, "SCRAM: an authorization identity is not supported");
      return NULL;
   }
   const char *bare = p + 3;
   if (strncmp (bare, "n=", 2) != 0) {
      bson_snprintf (errbuf, errlen, "Invalid SCRAM client-first message: expected n=");
      return NULL;
   }
   const char *name = bare + 2;
   const char *comma = strchr (name, ',');
   if (!comma || strncmp (comma, ",r=", 3) != 0 ||
       !sim_scram_decode_name (name, (size_t) (comma - name), user, userlen)) {
      bson_snprintf (errbuf, errlen, "Invalid SCRAM client-first message: bad user name or nonce");
      return NULL;
   }
   const char *cnonce = comma + 3;
   size_t cnlen = strcspn (cnonce, ",");
   if (cnlen == 0) {
      bson_snprintf (errbuf, errlen, "Invalid SCRAM client-first message: empty nonce");
      return NULL;
   }
   for (size_t i = 0; i < cnlen; i++) {
      if (cnonce[i] < 0x21 || cnonce[i] > 0x7e) {
         bson_snprintf (errbuf, errlen, "Invalid SCRAM client-first message: bad nonce");
         return NULL;
      }
   }
   sim_scram_t *s = bson_malloc0 (sizeof *s);
   s->algo = algo;
   bson_strncpy (s->user, user, sizeof s->user);
   bson_snprintf (s->gs2_header, sizeof s->gs2_header, "%.*s", (int) (bare - msg), msg);
   s->client_first_bare = bson_strdup (bare);
   s->client_nonce = bson_strndup (cnonce, cnlen);
   return s;
}

bool
sim_scram_server_first (sim_scram_t *s, const sim_scram_creds_t *creds, const char *server_nonce, char **out)
{
   char *snonce;
   if (server_nonce) {
      snonce = bson_strdup (server_nonce);
   } else {
      uint8_t raw[24];
      if (RAND_bytes (raw, sizeof raw) != 1) {
         return false;
      }
      snonce = sim_b64_encode (raw, sizeof raw);
   }
   char *salt = sim_b64_encode (creds->salt, creds->salt_len);
   s->creds = *creds;
   s->nonce = bson_strdup_printf ("%s%s", s->client_nonce, snonce);
   s->server_first = bson_strdup_printf ("r=%s,s=%s,i=%d", s->nonce, salt, creds->iterations);
   s->step = 1;
   bson_free (snonce);
   bson_free (salt);
   *out = bson_strdup (s->server_first);
   return true;
}

bool
sim_scram_server_final (sim_scram_t *s, const uint8_t *payload, size_t len, char **out)
{
   const EVP_MD *md = sim_scram_md (s->algo);
   size_t hl = s->creds.key_len;
   char msg[SIM_SCRAM_MAX_MSG];
   uint8_t proof[64], client_sig[32], client_key[32], stored[32], server_sig[32];
   size_t proof_len = 0;
   char *auth_message = NULL, *gs2_b64 = NULL;
   bool ok = false;

   *out = NULL;
   if (s->step != 1 || len == 0 || len >= sizeof msg || memchr (payload, '\0', len)) {
      return false;
   }
   memcpy (msg, payload, len);
   msg[len] = '\0';
   /* client-final-message = "c=" base64(gs2-header) ",r=" nonce *("," extension) ",p=" proof */
   char *proof_at = strstr (msg, ",p=");
   if (!proof_at || strncmp (msg, "c=", 2) != 0) {
      goto done;
   }
   for (char *q; (q = strstr (proof_at + 1, ",p=")) != NULL;) {
      proof_at = q; /* the proof is the last attribute */
   }
   gs2_b64 = sim_b64_encode ((const uint8_t *) s->gs2_header, strlen (s->gs2_header));
   size_t cl = strlen (gs2_b64);
   const char *r = msg + 2 + cl;
   size_t nl = strlen (s->nonce);
   if (strncmp (msg + 2, gs2_b64, cl) != 0 || strncmp (r, ",r=", 3) != 0 || strncmp (r + 3, s->nonce, nl) != 0 ||
       (r[3 + nl] != ',' && r[3 + nl] != '\0') || r + 3 + nl > proof_at) {
      goto done;
   }
   const char *proof_b64 = proof_at + 3;
   if (!sim_b64_decode (proof_b64, strlen (proof_b64), proof, sizeof proof, &proof_len) || proof_len != hl) {
      goto done;
   }
   /* AuthMessage = client-first-message-bare "," server-first-message "," client-final-message-without-proof */
   auth_message = bson_strdup_printf ("%s,%s,%.*s", s->client_first_bare, s->server_first, (int) (proof_at - msg), msg);
   /* ClientKey = ClientProof XOR HMAC(StoredKey, AuthMessage); the proof holds when H(ClientKey) == StoredKey */
   if (!sim_hmac (md, s->creds.stored_key, hl, auth_message, strlen (auth_message), client_sig)) {
      goto done;
   }
   for (size_t i = 0; i < hl; i++) {
      client_key[i] = proof[i] ^ client_sig[i];
   }
   if (!sim_hash (md, client_key, hl, stored) || CRYPTO_memcmp (stored, s->creds.stored_key, hl) != 0) {
      goto done;
   }
   if (!sim_hmac (md, s->creds.server_key, hl, auth_message, strlen (auth_message), server_sig)) {
      goto done;
   }
   char *v = sim_b64_encode (server_sig, hl);
   *out = bson_strdup_printf ("v=%s", v);
   bson_free (v);
   s->step = 2;
   ok = true;
done:
   OPENSSL_cleanse (msg, sizeof msg);
   OPENSSL_cleanse (proof, sizeof proof);
   OPENSSL_cleanse (client_sig, sizeof client_sig);
   OPENSSL_cleanse (client_key, sizeof client_key);
   OPENSSL_cleanse (stored, sizeof stored);
   OPENSSL_cleanse (server_sig, sizeof server_sig);
   sim_free_secret (auth_message);
   bson_free (gs2_b64);
   return ok;
}

void
sim_scram_free (sim_scram_t *s)
{
   if (!s) {
      return;
   }
   sim_free_secret (s->client_first_bare);
   sim_free_secret (s->client_nonce);
   sim_free_secret (s->server_first);
   sim_free_secret (s->nonce);
   OPENSSL_cleanse (s, sizeof *s);
   bson_free (s);
}

/* ---- users ---- */

static bool
sim_auth_printable (const char *s, size_t len)
{
   for (size_t i = 0; i < len; i++) {
      if ((unsigned char) s[i] < 0x20 || (unsigned char) s[i] > 0x7e) {
         return false;
      }
   }
   return true;
}

static const sim_user_t *
sim_auth_find_user (const char *user, const char *db)
{
   for (size_t i = 0; i < sim_nusers; i++) {
      if (!strcmp (sim_users[i].user, user) && !strcmp (sim_users[i].db, db)) {
         return &sim_users[i];
      }
   }
   return NULL;
}

/* Derives one mechanism's credentials for u from the password with a fresh random salt. */
static bool
sim_auth_derive_user (sim_user_t *u, sim_scram_algo_t algo, const char *password)
{
   uint8_t salt[28];
   size_t salt_len = algo == SIM_SCRAM_SHA1 ? 16 : 28;
   char digest[33];
   bool ok;
   if (RAND_bytes (salt, (int) salt_len) != 1) {
      return false;
   }
   if (algo == SIM_SCRAM_SHA1) {
      sim_scram_mongo_sha1_password (u->user, password, digest);
      ok = sim_scram_derive (algo, digest, 32, salt, salt_len, SIM_SHA1_ITERATIONS, &u->sha1);
      OPENSSL_cleanse (digest, sizeof digest);
   } else {
      /* SASLprep(password) is the password itself: sim_auth_add_user admits printable ASCII only */
      ok = sim_scram_derive (algo, password, strlen (password), salt, salt_len, SIM_SHA256_ITERATIONS, &u->sha256);
   }
   return ok;
}

/* Adds a user from USER:PASSWORD[@DB] (sim_auth_add_user's spec, also built by createUser). */
static bool
sim_auth_add (char *spec, char *errbuf, size_t errlen)
{
   char *colon = strchr (spec, ':');
   if (!colon || colon == spec) {
      bson_snprintf (errbuf, errlen, "--auth wants USER:PASSWORD[@DB]");
      return false;
   }
   char *pw = colon + 1;
   char *at = strrchr (pw, '@');
   size_t pwlen = at ? (size_t) (at - pw) : strlen (pw);
   const char *db = at ? at + 1 : "admin";
   size_t ulen = (size_t) (colon - spec);
   bool ok = false;
   char *password = bson_strndup (pw, pwlen);
   /* the password leaves argv at once, whatever happens next */
   memset (pw, 'x', pwlen);
   if (pwlen == 0 || !*db || ulen >= SIM_AUTH_NAME_MAX || strlen (db) >= SIM_AUTH_NAME_MAX) {
      bson_snprintf (errbuf, errlen, "--auth wants USER:PASSWORD[@DB] with a non-empty password and database");
      goto done;
   }
   if (!sim_auth_printable (spec, ulen) || !sim_auth_printable (password, pwlen) || strchr (db, '.') ||
       !sim_auth_printable (db, strlen (db))) {
      bson_snprintf (errbuf, errlen,
                     "--auth: user names and passwords must be printable ASCII (SASLprep is not implemented for "
                     "other characters) and the database must not contain '.'");
      goto done;
   }
   sim_users = bson_realloc (sim_users, (sim_nusers + 1) * sizeof *sim_users);
   sim_user_t *u = &sim_users[sim_nusers];
   memset (u, 0, sizeof *u);
   bson_snprintf (u->user, sizeof u->user, "%.*s", (int) ulen, spec);
   bson_strncpy (u->db, db, sizeof u->db);
   if (sim_auth_find_user (u->user, u->db)) {
      bson_snprintf (errbuf, errlen, "--auth: user %s@%s is given twice", u->user, u->db);
      goto done;
   }
   if (!sim_auth_derive_user (u, SIM_SCRAM_SHA1, password) || !sim_auth_derive_user (u, SIM_SCRAM_SHA256, password)) {
      OPENSSL_cleanse (u, sizeof *u);
      bson_snprintf (errbuf, errlen, "--auth: deriving the SCRAM keys failed");
      goto done;
   }
   if (sim_nusers == 0) {
      /* the key signing $clusterTime, and its id (a timestamp, as the server's key ids are) */
      if (RAND_bytes (sim_sign_key, sizeof sim_sign_key) != 1) {
         OPENSSL_cleanse (u, sizeof *u);
         bson_snprintf (errbuf, errlen, "--auth: no random bytes for the signing key");
         goto done;
      }
      sim_sign_key_id = (int64_t) ((uint64_t) time (NULL) << 32 | 1u);
   }
   sim_nusers++;
   ok = true;
done:
   OPENSSL_cleanse (password, pwlen);
   bson_free (password);
   return ok;
}

bool
sim_auth_add_user (char *spec, char *errbuf, size_t errlen)
{
   if (!sim_auth_add (spec, errbuf, errlen))
      return false;
   sim_auth_required = true;
   return true;
}

bool
sim_auth_enabled (void)
{
   return sim_auth_required;
}

/* ---- the store user management changes (sim_usermgmt.c) ---- */

bool
sim_auth_has_user (const char *user, const char *db)
{
   return sim_auth_find_user (user, db) != NULL;
}

bool
sim_auth_create_user (const char *user, const char *db, const char *pwd, char *errbuf, size_t errlen)
{
   char *spec = bson_strdup_printf ("%s:%s@%s", user, pwd, db);
   bool ok = sim_auth_add (spec, errbuf, errlen);
   OPENSSL_cleanse (spec, strlen (spec));
   bson_free (spec);
   return ok;
}

bool
sim_auth_set_password (const char *user, const char *db, const char *pwd)
{
   sim_user_t *u = (sim_user_t *) sim_auth_find_user (user, db);
   return u && sim_auth_printable (pwd, strlen (pwd)) && sim_auth_derive_user (u, SIM_SCRAM_SHA1, pwd) &&
          sim_auth_derive_user (u, SIM_SCRAM_SHA256, pwd);
}

void
sim_auth_remove_user (const char *user, const char *db)
{
   const sim_user_t *u = sim_auth_find_user (user, db);
   if (!u)
      return;
   size_t i = (size_t) (u - sim_users);
   memmove (&sim_users[i], &sim_users[i + 1], (sim_nusers - i - 1) * sizeof *sim_users);
   sim_nusers--;
   OPENSSL_cleanse (&sim_users[sim_nusers], sizeof *sim_users);
}

size_t
sim_auth_user_count (void)
{
   return sim_nusers;
}

void
sim_auth_user_at (size_t i, const char **user, const char **db)
{
   *user = sim_users[i].user;
   *db = sim_users[i].db;
}

/* Appends { iterationCount, salt, storedKey, serverKey } (base64) under name. */
static void
sim_auth_append_creds (bson_t *doc, const char *name, const sim_scram_creds_t *c)
{
   bson_t sub;
   char *b;
   BSON_APPEND_DOCUMENT_BEGIN (doc, name, &sub);
   BSON_APPEND_INT32 (&sub, "iterationCount", c->iterations);
   b = sim_b64_encode (c->salt, c->salt_len);
   BSON_APPEND_UTF8 (&sub, "salt", b);
   bson_free (b);
   b = sim_b64_encode (c->stored_key, c->key_len);
   BSON_APPEND_UTF8 (&sub, "storedKey", b);
   bson_free (b);
   b = sim_b64_encode (c->server_key, c->key_len);
   BSON_APPEND_UTF8 (&sub, "serverKey", b);
   bson_free (b);
   bson_append_document_end (doc, &sub);
}

void
sim_auth_append_credentials (const char *user, const char *db, bson_t *doc)
{
   const sim_user_t *u = sim_auth_find_user (user, db);
   bson_t sub;
   BSON_APPEND_DOCUMENT_BEGIN (doc, "credentials", &sub);
   if (u) {
      sim_auth_append_creds (&sub, "SCRAM-SHA-1", &u->sha1);
      sim_auth_append_creds (&sub, "SCRAM-SHA-256", &u->sha256);
   }
   bson_append_document_end (doc, &sub);
}

void
sim_auth_logout (sim_conn_t *conn, const char *db)
{
   if (conn->authenticated && !strcmp (conn->auth_db, db))
      conn->authenticated = false;
}

void
sim_auth_destroy (void)
{
   if (sim_users) {
      OPENSSL_cleanse (sim_users, sim_nusers * sizeof *sim_users);
   }
   bson_free (sim_users);
   sim_users = NULL;
   sim_nusers = 0;
   sim_auth_required = false;
   OPENSSL_cleanse (sim_sign_key, sizeof sim_sign_key);
}

void
sim_auth_conn_free (sim_conn_t *conn)
{
   sim_scram_free (conn->scram);
   conn->scram = NULL;
}

/* ---- the commands ---- */

/* Appends { conversationId: 1, done, payload: BinData(0) } to out. */
static void
sim_auth_append_step (bson_t *out, bool done, const char *payload)
{
   BSON_APPEND_INT32 (out, "conversationId", 1);
   BSON_APPEND_BOOL (out, "done", done);
   BSON_APPEND_BINARY (out, "payload", BSON_SUBTYPE_BINARY, (const uint8_t *) payload, (uint32_t) strlen (payload));
}

/* The payload of a SASL command (BinData, or a string as the server also accepts); false when absent. */
static bool
sim_auth_payload (const bson_t *cmd, const uint8_t **data, uint32_t *len)
{
   bson_iter_t it;
   if (!bson_iter_init_find (&it, cmd, "payload")) {
      return false;
   }
   if (BSON_ITER_HOLDS_BINARY (&it)) {
      bson_subtype_t st;
      bson_iter_binary (&it, &st, len, data);
      return true;
   }
   if (BSON_ITER_HOLDS_UTF8 (&it)) {
      *data = (const uint8_t *) bson_iter_utf8 (&it, len);
      return true;
   }
   return false;
}

/* The first SCRAM step of a saslStart document against database db: on success appends { conversationId, done,
 * payload } to out, keeps the conversation on conn and returns 0; otherwise returns the error code with its message in
 * msg (the conversation is dropped). */
static int
sim_auth_start (sim_conn_t *conn, const bson_t *cmd, const char *db, bson_t *out, char *msg, size_t msglen)
{
   bson_iter_t it;
   const uint8_t *payload;
   uint32_t plen;
   char user[SIM_AUTH_NAME_MAX], why[256];
   sim_scram_algo_t algo;

   sim_auth_conn_free (conn);
   if (!bson_iter_init_find (&it, cmd, "mechanism") || !BSON_ITER_HOLDS_UTF8 (&it)) {
      bson_snprintf (msg, msglen, "BSON field 'saslStart.mechanism' is missing but a required field");
      return 40414;
   }
   const char *mech = bson_iter_utf8 (&it, NULL);
   if (!strcmp (mech, "SCRAM-SHA-256")) {
      algo = SIM_SCRAM_SHA256;
   } else if (!strcmp (mech, "SCRAM-SHA-1")) {
      algo = SIM_SCRAM_SHA1;
   } else {
      bson_snprintf (msg, msglen, "Received authentication for mechanism %s which is not enabled", mech);
      return 334;
   }
   if (!sim_auth_payload (cmd, &payload, &plen)) {
      bson_snprintf (msg, msglen, "BSON field 'saslStart.payload' is missing but a required field");
      return 40414;
   }
   sim_scram_t *s = sim_scram_start (algo, payload, plen, user, sizeof user, why, sizeof why);
   if (!s) {
      bson_snprintf (msg, msglen, "%s", why);
      return 17;
   }
   const sim_user_t *u = sim_auth_find_user (user, db);
   char *first = NULL;
   if (!u || !sim_scram_server_first (s, algo == SIM_SCRAM_SHA1 ? &u->sha1 : &u->sha256, NULL, &first)) {
      sim_scram_free (s);
      bson_snprintf (msg, msglen, "Authentication failed.");
      return 18;
   }
   bson_strncpy (s->db, db, sizeof s->db);
   bson_iter_t opt;
   s->skip_empty = bson_iter_init_find (&it, cmd, "options") && BSON_ITER_HOLDS_DOCUMENT (&it) &&
                   bson_iter_recurse (&it, &opt) && bson_iter_find (&opt, "skipEmptyExchange") &&
                   bson_iter_as_bool (&opt);
   conn->scram = s;
   sim_auth_append_step (out, false, first);
   bson_free (first);
   return 0;
}

/* saslStart on database ctx->db. */
static void
sim_auth_sasl_start (sim_ctx_t *ctx, bson_t *reply)
{
   char msg[512];
   int code = sim_auth_start (ctx->conn, ctx->cmd, ctx->db, reply, msg, sizeof msg);
   if (code) {
      sim_reply_error (reply, code, "%s", msg);
      return;
   }
   sim_reply_ok (reply);
}

/* The conversation is over: the connection is authenticated as its user. */
static void
sim_auth_done (sim_conn_t *conn)
{
   conn->authenticated = true;
   bson_strncpy (conn->auth_user, conn->scram->user, sizeof conn->auth_user);
   bson_strncpy (conn->auth_db, conn->scram->db, sizeof conn->auth_db);
   sim_auth_conn_free (conn);
}

static void
sim_auth_sasl_continue (sim_ctx_t *ctx, bson_t *reply)
{
   sim_conn_t *conn = ctx->conn;
   sim_scram_t *s = conn->scram;
   bson_iter_t it;
   const uint8_t *payload;
   uint32_t plen;
   char *final = NULL;

   if (!s) {
      sim_reply_error (reply, 17, "No SASL session state found");
      return;
   }
   if (!bson_iter_init_find (&it, ctx->cmd, "conversationId") || !BSON_ITER_HOLDS_NUMBER (&it) ||
       bson_iter_as_int64 (&it) != 1) {
      sim_auth_conn_free (conn);
      sim_reply_error (reply, 17, "sasl: Mismatched conversation id");
      return;
   }
   if (!sim_auth_payload (ctx->cmd, &payload, &plen)) {
      sim_auth_conn_free (conn);
      sim_reply_error (reply, 40414, "BSON field 'saslContinue.payload' is missing but a required field");
      return;
   }
   if (s->step == 2) {
      /* the final, empty exchange of a client that did not ask to skip it */
      if (plen != 0) {
         sim_auth_conn_free (conn);
         sim_reply_error (reply, 18, "Authentication failed.");
         return;
      }
      sim_auth_append_step (reply, true, "");
      sim_auth_done (conn);
      sim_reply_ok (reply);
      return;
   }
   if (!sim_scram_server_final (s, payload, plen, &final)) {
      sim_auth_conn_free (conn);
      sim_reply_error (reply, 18, "Authentication failed.");
      return;
   }
   sim_auth_append_step (reply, s->skip_empty, final);
   bson_free (final);
   if (s->skip_empty) {
      sim_auth_done (conn);
   }
   sim_reply_ok (reply);
}

void
sim_auth_hello (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   if (!sim_auth_enabled ()) {
      return;
   }
   /* saslSupportedMechs: "db.user" names an existing user */
   if (bson_iter_init_find (&it, ctx->cmd, "saslSupportedMechs") && BSON_ITER_HOLDS_UTF8 (&it)) {
      const char *s = bson_iter_utf8 (&it, NULL);
      const char *dot = strchr (s, '.');
      char db[SIM_AUTH_NAME_MAX];
      if (dot && (size_t) (dot - s) < sizeof db) {
         bson_snprintf (db, sizeof db, "%.*s", (int) (dot - s), s);
         if (sim_auth_find_user (dot + 1, db)) {
            bson_t arr;
            BSON_APPEND_ARRAY_BEGIN (reply, "saslSupportedMechs", &arr);
            BSON_APPEND_UTF8 (&arr, "0", "SCRAM-SHA-1");
            BSON_APPEND_UTF8 (&arr, "1", "SCRAM-SHA-256");
            bson_append_array_end (reply, &arr);
         }
      }
   }
   /* speculativeAuthenticate: a saslStart (with its database in "db") answered inside the handshake */
   if (bson_iter_init_find (&it, ctx->cmd, "speculativeAuthenticate") && BSON_ITER_HOLDS_DOCUMENT (&it)) {
      const uint8_t *data;
      uint32_t len;
      bson_t spec, step;
      bson_iter_t f;
      bson_iter_document (&it, &len, &data);
      if (!bson_init_static (&spec, data, len) || !bson_iter_init (&f, &spec) || !bson_iter_next (&f) ||
          strcmp (bson_iter_key (&f), "saslStart") != 0) {
         return;
      }
      const char *db = "admin";
      if (bson_iter_init_find (&f, &spec, "db") && BSON_ITER_HOLDS_UTF8 (&f)) {
         db = bson_iter_utf8 (&f, NULL);
      }
      char msg[512];
      bson_init (&step);
      if (sim_auth_start (ctx->conn, &spec, db, &step, msg, sizeof msg) == 0) {
         BSON_APPEND_DOCUMENT (reply, "speculativeAuthenticate", &step);
      }
      bson_destroy (&step);
   }
}

bool
sim_auth_command (sim_ctx_t *ctx, bool known, bson_t *reply)
{
   static const char *open_cmds[] = { "hello",     "isMaster", "ismaster",         "buildInfo",
                                      "buildinfo", "ping",     "connectionStatus", NULL };
   if (!sim_auth_enabled ()) {
      return false;
   }
   if (!strcmp (ctx->name, "saslStart")) {
      sim_auth_sasl_start (ctx, reply);
      return true;
   }
   if (!strcmp (ctx->name, "saslContinue")) {
      sim_auth_sasl_continue (ctx, reply);
      return true;
   }
   if (!known || ctx->conn->authenticated) {
      return false;
   }
   for (int i = 0; open_cmds[i]; i++) {
      if (!strcmp (open_cmds[i], ctx->name)) {
         return false;
      }
   }
   sim_reply_error (reply, 13, "command %s requires authentication", ctx->name);
   return true;
}

void
sim_auth_append_users (const sim_conn_t *conn, bson_t *arr, bool roles)
{
   bson_t d;
   if (!conn->authenticated) {
      return;
   }
   BSON_APPEND_DOCUMENT_BEGIN (arr, "0", &d);
   if (roles) {
      BSON_APPEND_UTF8 (&d, "role", "root");
      BSON_APPEND_UTF8 (&d, "db", "admin");
   } else {
      BSON_APPEND_UTF8 (&d, "user", conn->auth_user);
      BSON_APPEND_UTF8 (&d, "db", conn->auth_db);
   }
   bson_append_document_end (arr, &d);
}

void
sim_auth_sign_cluster_time (uint32_t secs, uint32_t inc, uint8_t hash[20], int64_t *key_id)
{
   memset (hash, 0, 20);
   *key_id = 0;
   if (!sim_auth_enabled ()) {
      return;
   }
   uint8_t t[8] = { (uint8_t) (secs >> 24), (uint8_t) (secs >> 16), (uint8_t) (secs >> 8), (uint8_t) secs,
                    (uint8_t) (inc >> 24),  (uint8_t) (inc >> 16),  (uint8_t) (inc >> 8),  (uint8_t) inc };
   if (sim_hmac (EVP_sha1 (), sim_sign_key, sizeof sim_sign_key, t, sizeof t, hash)) {
      *key_id = sim_sign_key_id;
   }
}

/* Copies doc into out with its "payload" field shown as "###" (the server's redaction of sensitive fields). */
static void
sim_auth_copy_redacted (const bson_t *doc, bson_t *out)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, doc)) {
      return;
   }
   while (bson_iter_next (&it)) {
      if (!strcmp (bson_iter_key (&it), "payload")) {
         BSON_APPEND_UTF8 (out, "payload", "###");
      } else {
         bson_append_iter (out, NULL, 0, &it);
      }
   }
}

bool
sim_auth_redact_for_log (const bson_t *cmd, bson_t *out)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, cmd) || !bson_iter_next (&it)) {
      return false;
   }
   const char *name = bson_iter_key (&it);
   if (!strcmp (name, "saslStart") || !strcmp (name, "saslContinue")) {
      bson_init (out);
      sim_auth_copy_redacted (cmd, out);
      return true;
   }
   if (!strcmp (name, "createUser") || !strcmp (name, "updateUser")) {
      bson_init (out);
      secret_redact_doc (cmd, out); /* their pwd shown as "****", as shardsh's --dry-run shows it */
      return true;
   }
   if (!bson_iter_init_find (&it, cmd, "speculativeAuthenticate") || !BSON_ITER_HOLDS_DOCUMENT (&it)) {
      return false;
   }
   bson_init (out);
   bson_iter_init (&it, cmd);
   while (bson_iter_next (&it)) {
      const uint8_t *data;
      uint32_t len;
      bson_t spec, child;
      if (strcmp (bson_iter_key (&it), "speculativeAuthenticate") != 0 || !BSON_ITER_HOLDS_DOCUMENT (&it)) {
         bson_append_iter (out, NULL, 0, &it);
         continue;
      }
      bson_iter_document (&it, &len, &data);
      BSON_APPEND_DOCUMENT_BEGIN (out, "speculativeAuthenticate", &child);
      if (bson_init_static (&spec, data, len)) {
         sim_auth_copy_redacted (&spec, &child);
      }
      bson_append_document_end (out, &child);
   }
   return true;
}
