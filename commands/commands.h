/* The commands' umbrella header: everything the table offers in one include, for the shell's front ends (repl,
 * script, preflight, js_host) that use several parts. The parts, by concern: table.h (entries, calls, lookup),
 * requests.h (what build() fills), args.h (argument readers), exec.h (executor and printing), config_reads.h (the
 * config.* reads sh.status shares) and complete.h (live completion). Files in commands/ include the parts they use. */
#ifndef SHARDSH_COMMANDS_H
#define SHARDSH_COMMANDS_H

#include "commands/args.h"
#include "commands/complete.h"
#include "commands/config_reads.h"
#include "commands/exec.h"
#include "commands/requests.h"
#include "commands/session.h"
#include "commands/table.h"
#include "shell/lib/clock.h"
#include "shell/lib/docget.h"

#endif
