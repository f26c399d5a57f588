/* The one definition of a secret (see secret.h). */
#include "shell/lib/secret.h"

#include <string.h>
#include <strings.h>

bool
secret_is_field (const char *key, size_t len)
{
   return (len == 3 && !strncasecmp (key, "pwd", 3)) || (len == 8 && !strncasecmp (key, "password", 8));
}

bool
secret_uri_password (const char *authority, size_t len, size_t *start, size_t *end)
{
   size_t e = 0, colon = 0;
   bool have_colon = false;

   while (e < len && !strchr ("/?@ \t\r\n'\"`", authority[e])) {
      if (authority[e] == ':' && !have_colon) {
         colon = e;
         have_colon = true;
      }
      e++;
   }
   if (e >= len || authority[e] != '@' || !have_colon) {
      return false;
   }
   *start = colon + 1;
   *end = e;
   return true;
}

/* True when needle occurs in hay, ignoring case. */
static bool
secret_contains_ci (const char *hay, const char *needle)
{
   size_t n = strlen (needle);
   for (; *hay; hay++) {
      if (strncasecmp (hay, needle, n) == 0) {
         return true;
      }
   }
   return false;
}

bool
secret_line_is_sensitive (const char *line)
{
   static const char *const words[] = { "password",           "passwd",         "pwd",
                                        "db.auth(",           "createUser",     "updateUser",
                                        "changeUserPassword", "passwordPrompt", "secret" };
   const char *p = line;
   size_t s, e;

   for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
      if (secret_contains_ci (line, words[i])) {
         return true;
      }
   }
   while ((p = strstr (p, "://")) != NULL) {
      p += 3;
      if (secret_uri_password (p, strlen (p), &s, &e)) {
         return true;
      }
   }
   return false;
}
