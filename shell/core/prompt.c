/* The password prompt without echo (see prompt.h). */
#include "shell/core/prompt.h"

#include <bson/bson.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>

char *
sh_prompt_password (const char *prompt, const char *what, sh_error_t *err)
{
   struct termios old, quiet;
   char buf[1024];
   FILE *tty = fopen ("/dev/tty", "r+"); /* the controlling terminal, even when stdin is a file */
   bool restore = false;
   char *pw = NULL;

   if (!tty) {
      sh_error_set (err, SH_ERR_USAGE,
                    "%s: no password given, and there is no terminal to ask for it: pass the password as an argument",
                    what);
      return NULL;
   }
   fprintf (tty, "%s: ", prompt);
   fflush (tty);
   if (tcgetattr (fileno (tty), &old) == 0) {
      quiet = old;
      quiet.c_lflag &= ~(tcflag_t) ECHO;
      restore = tcsetattr (fileno (tty), TCSAFLUSH, &quiet) == 0;
   }
   if (fgets (buf, sizeof buf, tty)) {
      buf[strcspn (buf, "\r\n")] = '\0';
      pw = bson_strdup (buf);
   }
   if (restore)
      tcsetattr (fileno (tty), TCSAFLUSH, &old);
   fputs ("\n", tty);
   memset (buf, 0, sizeof buf);
   fclose (tty);
   if (!pw)
      sh_error_set (err, SH_ERR_USAGE, "%s: no password was entered", what);
   return pw;
}
