/* shardsim's authentication (SCRAM, users, signed cluster times: sim_auth.c) and TLS (sim_tls.c). */
#ifndef SHARDSIM_SIM_AUTH_H
#define SHARDSIM_SIM_AUTH_H

#include "tests/shardsim/sim_reply.h"

/* ---- authentication (sim_auth.c) ---- */

/* The SCRAM mechanisms: SCRAM-SHA-1 (RFC 5802, on MongoDB's MD5 password digest) and SCRAM-SHA-256 (RFC 7677). */
typedef enum {
   SIM_SCRAM_SHA1 = 1,
   SIM_SCRAM_SHA256 = 256,
} sim_scram_algo_t;

/* What a server stores for one user and mechanism: never the password, only the salt, the iteration count and the
 * two keys derived from the salted password. */
typedef struct {
   sim_scram_algo_t algo;
   uint8_t salt[32];
   size_t salt_len;
   int iterations;
   uint8_t stored_key[32]; /* H(HMAC(SaltedPassword, "Client Key")) */
   uint8_t server_key[32]; /* HMAC(SaltedPassword, "Server Key") */
   size_t key_len;         /* 20 (SHA-1) or 32 (SHA-256) */
} sim_scram_creds_t;

/* The server side of one SCRAM conversation (opaque). */
typedef struct sim_scram sim_scram_t;

/* Adds a user from --auth USER:PASSWORD[@DB] (DB defaults to admin): derives both mechanisms' keys (PBKDF2, a random
 * salt per user and mechanism; 15000 iterations for SHA-256, 10000 for SHA-1) and overwrites the password in spec
 * with 'x' so neither memory nor /proc/<pid>/cmdline keeps it. Only printable ASCII passwords are accepted (SASLprep
 * leaves them unchanged). False with a message in errbuf on a malformed spec. */
bool
sim_auth_add_user (char *spec, char *errbuf, size_t errlen);

/* Whether --auth was given (then every command but the handshake/auth set needs an authenticated connection). */
bool
sim_auth_enabled (void);

/* The credentials store user management changes (sim_usermgmt.c keeps each user's roles and custom data). Callers
 * hold sim_g.lock. has_user: whether user@db has credentials; create_user: adds one with both mechanisms' keys
 * (false with a message in errbuf: a non-printable password, a name too long); set_password: derives new keys (false
 * when the user has none or the password is not printable ASCII); remove_user: forgets one (its keys zeroed);
 * user_count / user_at: the users with credentials, in the order they were added (the names borrowed until the next
 * change); append_credentials: appends credentials { SCRAM-SHA-1, SCRAM-SHA-256: { iterationCount, salt, storedKey,
 * serverKey } } as usersInfo's showCredentials shows them; logout: the connection is no longer authenticated when it
 * authenticated on db. */
bool
sim_auth_has_user (const char *user, const char *db);
bool
sim_auth_create_user (const char *user, const char *db, const char *pwd, char *errbuf, size_t errlen);
bool
sim_auth_set_password (const char *user, const char *db, const char *pwd);
void
sim_auth_remove_user (const char *user, const char *db);
size_t
sim_auth_user_count (void);
void
sim_auth_user_at (size_t i, const char **user, const char **db);
void
sim_auth_append_credentials (const char *user, const char *db, bson_t *doc);
void
sim_auth_logout (sim_conn_t *conn, const char *db);

/* ---- user and role management (sim_usermgmt.c) ---- */

/* The user and role management commands as a mongos answers them (user_management_commands.cpp): createUser,
 * updateUser, dropUser, dropAllUsersFromDatabase, grantRolesToUser, revokeRolesFromUser, usersInfo, createRole,
 * updateRole, dropRole, dropAllRolesFromDatabase, grantRolesToRole, revokeRolesFromRole, grantPrivilegesToRole,
 * revokePrivilegesFromRole, rolesInfo and logout, on the database the command runs on. A user made here does not turn
 * authentication on: only --auth does (and --auth's users hold root@admin). Callers hold sim_g.lock. */
void
sim_cmd_create_user (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_update_user (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_drop_user (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_drop_all_users (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_user_roles (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_users_info (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_create_role (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_update_role (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_drop_role (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_drop_all_roles (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_role_roles (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_role_privileges (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_roles_info (sim_ctx_t *ctx, bson_t *reply);
void
sim_cmd_logout (sim_ctx_t *ctx, bson_t *reply);

/* Frees the users and roles user management keeps. */
void
sim_usermgmt_destroy (void);

/* Frees the users (their keys zeroed). */
void
sim_auth_destroy (void);

/* Under --auth, for the handshake: appends saslSupportedMechs when the request names an existing "db.user", and
 * speculativeAuthenticate { conversationId, done, payload } when the request carries a saslStart whose first step
 * succeeds (both omitted otherwise, as a mongos does). Nothing without --auth. Callers hold sim_g.lock. */
void
sim_auth_hello (sim_ctx_t *ctx, bson_t *reply);

/* Under --auth: runs saslStart/saslContinue, or refuses a known command (known: in the version's command table) on a
 * connection that has not authenticated with 13 Unauthorized "command X requires authentication"; returns true when
 * it filled reply (the command must not run). hello/isMaster, buildInfo, ping and connectionStatus need no
 * authentication, as on a real server. Returns false without --auth. Callers hold sim_g.lock. */
bool
sim_auth_command (sim_ctx_t *ctx, bool known, bson_t *reply);

/* Appends the connection's authenticated user ({ user, db }) or, with roles, its role ({ role: "root", db: "admin" })
 * to the array arr; nothing when the connection has not authenticated. */
void
sim_auth_append_users (const sim_conn_t *conn, bson_t *arr, bool roles);

/* The $clusterTime signature: an HMAC-SHA1 of the time with the process's signing key and its keyId under --auth;
 * 20 zero bytes and keyId 0 without it (what an auth-less cluster sends). */
void
sim_auth_sign_cluster_time (uint32_t secs, uint32_t inc, uint8_t hash[20], int64_t *key_id);

/* For --log-commands: when cmd carries SASL payloads (saslStart, saslContinue, a handshake's speculativeAuthenticate),
 * initialises out with a copy showing each payload as "###" and returns true (PLAIN payloads hold the password, SCRAM
 * proofs allow guessing it offline), and for createUser/updateUser a copy with their pwd as "****"; false, out
 * untouched, for every other command. */
bool
sim_auth_redact_for_log (const bson_t *cmd, bson_t *out);

/* Frees a connection's SASL conversation. */
void
sim_auth_conn_free (sim_conn_t *conn);

/* The SCRAM primitives, exported for tests/unit/simtest_auth.c. */

/* Derives creds from the password that enters Hi() (SASLprep'd for SHA-256, MongoDB's digest for SHA-1). */
bool
sim_scram_derive (sim_scram_algo_t algo, const char *password, size_t pwlen, const uint8_t *salt, size_t salt_len,
                  int iterations, sim_scram_creds_t *out);

/* MongoDB's SCRAM-SHA-1 password: the hex MD5 of "user:mongo:password" into out (33 bytes). */
void
sim_scram_mongo_sha1_password (const char *user, const char *password, char out[33]);

/* Parses a client-first message ("n,,n=user,r=nonce"); returns a new conversation (NULL with errbuf set when
 * malformed) and the decoded user name in user. */
sim_scram_t *
sim_scram_start (sim_scram_algo_t algo, const uint8_t *payload, size_t len, char *user, size_t userlen, char *errbuf,
                 size_t errlen);

/* Builds the server-first message for creds ("r=<nonce>,s=<salt>,i=<n>"; server_nonce NULL: 24 random bytes, base64).
 * *out is bson_malloc'd, NUL-terminated. */
bool
sim_scram_server_first (sim_scram_t *s, const sim_scram_creds_t *creds, const char *server_nonce, char **out);

/* Checks the client-final message's channel binding, nonce and proof; on success builds the server-final message
 * ("v=<ServerSignature>") into *out (bson_malloc'd). False when anything does not match (authentication failed). */
bool
sim_scram_server_final (sim_scram_t *s, const uint8_t *payload, size_t len, char **out);

/* Frees a conversation (its secrets zeroed); NULL is fine. */
void
sim_scram_free (sim_scram_t *s);

/* ---- TLS (sim_tls.c) ---- */

/* Loads the server certificate and key (cert_file: PEM holding both) and, when ca_file is not NULL, the CA that
 * client certificates are verified against (a client certificate is asked for and checked when sent, not required).
 * False with an OpenSSL reason in errbuf. */
bool
sim_tls_init (const char *cert_file, const char *ca_file, char *errbuf, size_t errlen);

/* Whether --tls-cert was given (then every accepted connection speaks TLS). */
bool
sim_tls_enabled (void);

/* Frees the TLS context. */
void
sim_tls_destroy (void);

/* The server side of the handshake on conn->fd; on success conn->tls is set. False (with one line on stderr naming
 * the reason) when the handshake failed: the connection must be closed. */
bool
sim_tls_accept (sim_conn_t *conn);

/* Reads up to n bytes from the TLS session: > 0 bytes read, 0 at the end of the stream or on an error, -1 with errno
 * EINTR when the call must be repeated. */
ssize_t
sim_tls_read (sim_conn_t *conn, void *buf, size_t n);

/* Writes up to n bytes: > 0 bytes written, 0 on an error, -1 with errno EINTR when the call must be repeated. */
ssize_t
sim_tls_write (sim_conn_t *conn, const void *buf, size_t n);

/* Decrypted bytes already buffered in the session (readable without touching the socket). */
size_t
sim_tls_pending (const sim_conn_t *conn);

/* Sends close_notify (best effort) and frees the session; nothing on a plain connection. */
void
sim_tls_close (sim_conn_t *conn);

#endif
