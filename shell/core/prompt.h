/* Asking for a password at the terminal without echo, as mongosh's passwordPrompt() does: one place for -p without a
 * value, db.auth(user), db.changeUserPassword(user) and createUser without pwd. */
#ifndef SHARDSH_PROMPT_H
#define SHARDSH_PROMPT_H

#include <stdbool.h>

#include "shell/core/errors.h"

/* Writes prompt on the controlling terminal, reads one line with echo off and returns it (bson_malloc'd; the caller
 * zeroes and frees it). Without a controlling terminal (a script run by cron, CI, setsid) nothing is asked: returns
 * NULL with err set to say so and how to pass the password instead. what names the caller ("db.auth"). */
char *
sh_prompt_password (const char *prompt, const char *what, sh_error_t *err);

#endif
