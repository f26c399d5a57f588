/* Database and collection names checked as the server and mongosh check them (names.h). */
#include <string.h>

#include "shell/lib/names.h"

bool
names_has_nul (const char *s, size_t len)
{
   return len > 0 && memchr (s, '\0', len) != NULL;
}

const char *
names_db_invalid (const char *name, size_t len)
{
   if (!name || len == 0)
      return "is empty";
   if (names_has_nul (name, len))
      return "contains a NUL byte";
   if (len == 9 && !memcmp (name, "$external", 9))
      return NULL; /* the server's one database name with a $ (authentication) */
   if (len > NAMES_DB_MAX)
      return "is longer than 63 bytes";
   /* mongosh refuses / \ . space " and NUL; the server also $ */
   for (size_t i = 0; i < len; i++) {
      if (strchr ("/\\. \"$", name[i]))
         return "contains one of / \\ . space \" $";
   }
   return NULL;
}

const char *
names_coll_invalid (const char *db, const char *coll, size_t len)
{
   if (!coll || len == 0)
      return "is empty";
   if (names_has_nul (coll, len))
      return "contains a NUL byte";
   if (memchr (coll, '$', len))
      return "contains $";
   if (coll[0] == '.')
      return "starts with a dot";
   if ((db ? strlen (db) : 0) + 1 + len > NAMES_NS_MAX)
      return "makes a namespace longer than 255 bytes";
   return NULL;
}
