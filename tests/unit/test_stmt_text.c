/* passes: plain asan */
/* script_out_stmt_text, the statement text of a status line and a --json object: every run of white space one
 * space, none at either end, cut with "..." where the buffer ends, and stopped at a NUL byte. It copies words eight
 * bytes at a time; here it is compared with the rule written byte by byte, over generated statements of every
 * length around the word size and the cut, with spaces, line breaks, NUL and non-ASCII bytes anywhere. */
#include <stdint.h>
#include <stdlib.h>

#include "shell/script_out.h"
#include "tests/unit/unit.h"

/* The rule, one byte at a time. */
static void
reference_text (const char *source, size_t a, size_t b, char *buf, size_t len)
{
   size_t i = a, o = 0;
   bool space = false;
   for (; i < b && o + 6 < len; i++) {
      unsigned char c = (unsigned char) source[i];
      if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
         space = o > 0;
         continue;
      }
      if (c == '\0')
         break;
      if (space)
         buf[o++] = ' ';
      space = false;
      buf[o++] = (char) c;
   }
   if (i < b && source[i]) {
      memcpy (buf + o, "...", 3);
      o += 3;
   }
   buf[o] = '\0';
}

static void
stmt_text (const char *source, size_t a, size_t b, char *buf, size_t len)
{
   sh_stmt_t st;
   memset (&st, 0, sizeof st);
   st.pos.offset = a;
   st.end_pos.offset = b;
   script_out_stmt_text (source, &st, buf, len);
}

int
main (void)
{
   static const char alphabet[] = "db.adminCommand({ping: 1})\"'\xc3\xa9\xe2\x80\x9c";
   static const char spaces[] = " \n\t\r\f\v";
   char source[200], want[600], got[600];
   uint32_t seed = 12345;
   int bad = 0, cases = 0;

   stmt_text ("db.adminCommand({ping: 1})", 0, 26, got, 512);
   CHECK_STR ("stmt_text/a ping as it is", "db.adminCommand({ping: 1})", got);
   stmt_text ("  db.adminCommand(   {ping:\n\t 1}  )  ", 0, 38, got, 512);
   CHECK_STR ("stmt_text/runs of space become one, none at the ends", "db.adminCommand( {ping: 1} )", got);
   stmt_text ("sh.status()", 0, 11, got, 10);
   CHECK_STR ("stmt_text/cut where the buffer ends", "sh.s...", got);
   for (int n = 0; n < 20000; n++) {
      size_t len = 0, a, b, buflen;
      seed = seed * 1103515245u + 12345u;
      len = (seed >> 8) % sizeof source;
      for (size_t i = 0; i < len; i++) {
         seed = seed * 1103515245u + 12345u;
         switch ((seed >> 16) % 16) {
         case 0:
         case 1:
         case 2:
            source[i] = spaces[(seed >> 20) % (sizeof spaces - 1)];
            break;
         case 3:
            source[i] = (seed >> 20) % 8 ? 'x' : '\0'; /* a NUL now and then */
            break;
         default:
            source[i] = alphabet[(seed >> 20) % (sizeof alphabet - 1)];
            break;
         }
      }
      seed = seed * 1103515245u + 12345u;
      a = len ? (seed >> 8) % (len + 1) : 0;
      b = a + (len - a ? (seed >> 16) % (len - a + 1) : 0);
      seed = seed * 1103515245u + 12345u;
      buflen = 7 + (seed >> 8) % 250; /* at least room for one byte, "..." and the NUL */
      reference_text (source, a, b, want, buflen);
      stmt_text (source, a, b, got, buflen);
      cases++;
      if (strcmp (want, got) != 0) {
         if (bad++ < 3)
            UNIT_FAIL ("stmt_text/generated", "bytes %zu to %zu, buffer %zu: want [%s] got [%s]", a, b, buflen, want,
                       got);
      }
   }
   CHECK ("stmt_text/20,000 generated statements read as the byte-by-byte rule reads them", bad == 0 && cases == 20000);
   UNIT_EXIT ();
}
