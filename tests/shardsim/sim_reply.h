/* shardsim's reply helpers (sim_reply.c), just above the state: every command handler builds its ok and error
 * replies with them. */
#ifndef SHARDSIM_SIM_REPLY_H
#define SHARDSIM_SIM_REPLY_H

#include "tests/shardsim/sim_state.h"

/* Appends an error { ok: 0.0, errmsg, code, codeName } to reply (code 0: errmsg-only). */
void
sim_reply_error (bson_t *reply, int code, const char *fmt, ...) BSON_GNUC_PRINTF (3, 4);

/* Appends ok: 1.0. */
void
sim_reply_ok (bson_t *reply);

/* The server's codeName for code. */
const char *
sim_code_name (int code);

#endif
