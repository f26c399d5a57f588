/* passes: plain asan */
/* Text from the cluster printed to a terminal is made safe (issue 39): an error whose message, codeName or hint
 * carries escape sequences (a zone named with one, a server's errmsg) reaches the terminal with every control
 * character shown as \xNN; newlines and ordinary UTF-8 stay. */
#include <bson/bson.h>
#include <stdlib.h>

#include "shell/core/errors.h"
#include "tests/unit/unit.h"

/* sh_error_render's output for err, into a malloc'd string. */
static char *
render (const sh_error_t *err, const char *source)
{
   char *buf = NULL;
   size_t len = 0;
   FILE *fp = open_memstream (&buf, &len);
   sh_error_render (fp, err, "z.js", source, false);
   fclose (fp);
   return buf;
}

static bool
has_control (const char *s)
{
   for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
      if ((*p < 0x20 && *p != '\n') || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0))
         return true;
   }
   return false;
}

int
main (void)
{
   sh_error_t err;
   char *out;

   sh_error_clear (&err);
   sh_error_set_at (&err, SH_ERR_ARGS, (sh_pos_t){ 1, 5 },
                    "zone NOPE does not exist; zones: NYC, Z\x1b[2J\x1b]0;x\x07");
   sh_error_hint (&err, "zones: \x1b[31mred\xc2\x9b"
                        "2J, caf\xc3\xa9");
   out = render (&err, "sh.updateZoneKeyRange(\"a.b\", {}, {}, \"NOPE\")\n");
   CHECK ("term safe: a pre-flight error's zone names reach the terminal without control characters",
          !has_control (out));
   CHECK ("term safe: ... shown as \\xNN", strstr (out, "Z\\x1B[2J\\x1B]0;x\\x07") != NULL);
   CHECK ("term safe: a C1 control in the hint is escaped, UTF-8 stays",
          strstr (out, "red\\x9B2J, caf\xc3\xa9") != NULL);
   free (out);

   sh_error_clear (&err);
   sh_error_set (&err, SH_ERR_SERVER, "bad \x1b[31mred\x1b[0m\nsecond line\x7f");
   err.code = 2;
   bson_strncpy (err.code_name, "Bad\x1bValue", sizeof err.code_name);
   out = render (&err, NULL);
   CHECK ("term safe: a server's errmsg and codeName are escaped",
          !has_control (out) && strstr (out, "[Bad\\x1BValue]") &&
             strstr (out, "bad \\x1B[31mred\\x1B[0m\nsecond line\\x7F"));
   free (out);
   UNIT_EXIT ();
}
