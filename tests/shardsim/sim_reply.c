/* shardsim's reply helpers at the bottom of the simulator: ok and error replies with the server's code names (the
 * query engine's table). Every command handler uses them; they use nothing above them. */
#include "tests/shardsim/sim_reply.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

/* The codes only the command layer answers with (ErrorCodes in error_codes.yml); the rest of the code -> codeName
 * table is the query engine's (simq.c), the lower layer, asked after this one. */
static const struct {
   int code;
   const char *name;
} sim_code_names[] = {
   { 5, "GraphContainsCycle" },       { 31, "RoleNotFound" },
   { 65, "InvalidRoleModification" }, /* user management */
   { 86, "IndexKeySpecsConflict" },   { 197, "InvalidIndexSpecificationOption" },
};

const char *
sim_code_name (int code)
{
   for (size_t i = 0; i < sizeof sim_code_names / sizeof sim_code_names[0]; i++) {
      if (sim_code_names[i].code == code) {
         return sim_code_names[i].name;
      }
   }
   return simq_code_name (code);
}

void
sim_reply_error (bson_t *reply, int code, const char *fmt, ...)
{
   va_list ap;
   va_start (ap, fmt);
   char *msg = bson_strdupv_printf (fmt, ap);
   va_end (ap);
   BSON_APPEND_DOUBLE (reply, "ok", 0.0);
   BSON_APPEND_UTF8 (reply, "errmsg", msg);
   if (code) {
      BSON_APPEND_INT32 (reply, "code", code);
      BSON_APPEND_UTF8 (reply, "codeName", sim_code_name (code));
   }
   bson_free (msg);
}

void
sim_reply_ok (bson_t *reply)
{
   BSON_APPEND_DOUBLE (reply, "ok", 1.0);
}
