/* What sh.status shares with sh.printShardingSizes: the check of the optional configDB argument. */
#ifndef SHARDSH_STATUS_H
#define SHARDSH_STATUS_H

#include "commands/table.h"

/* A build() that sends nothing: checks that argument 1 (configDB), when given, is a Database; verbose (argument 0)
 * may be any value. sh.status and sh.printShardingSizes run everything in exec. */
bool
status_build (const sh_call_t *call, sh_requests_t *out, sh_error_t *err);

#endif
