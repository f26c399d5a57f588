/* sh_requests_t, the list every build() fills: it grows past its first allocation without moving a bson_t by
 * realloc (an allocated bson_t points into itself), so every document added stays whole, in order, whatever its
 * size; and each element keeps libbson's alignment. */
#include <stdint.h>

#include "commands/commands.h"
#include "tests/unit/unit.h"

int
main (void)
{
   sh_requests_t reqs = { .n = 0 };
   char name[64], big[300];
   bool whole = true, aligned = true;

   memset (big, 'x', sizeof big - 1);
   big[sizeof big - 1] = '\0';
   for (int i = 0; i < 40; i++) {
      bson_t *cmd = sh_requests_add (&reqs, i % 2 ? "admin" : "config", CONN_READ);
      BSON_APPEND_INT32 (cmd, "n", i);
      /* odd documents outgrow the inline buffer: libbson allocates them */
      if (i % 2)
         BSON_APPEND_UTF8 (cmd, "pad", big);
   }
   CHECK ("requests/40 added", reqs.n == 40);
   for (size_t i = 0; i < reqs.n; i++) {
      bson_iter_t it;
      if (!bson_validate (&reqs.v[i].cmd, BSON_VALIDATE_NONE, NULL) ||
          !bson_iter_init_find (&it, &reqs.v[i].cmd, "n") || bson_iter_int32 (&it) != (int32_t) i ||
          strcmp (reqs.v[i].db, i % 2 ? "admin" : "config") != 0 ||
          (i % 2 && (!bson_iter_init_find (&it, &reqs.v[i].cmd, "pad") || strlen (bson_iter_utf8 (&it, NULL)) != 299)))
         whole = false;
      if ((uintptr_t) &reqs.v[i].cmd % BSON_ALIGNOF (bson_t) != 0)
         aligned = false;
   }
   CHECK ("requests/every document whole and in order after the list grew", whole);
   CHECK ("requests/every bson_t keeps libbson's alignment", aligned);
   bson_snprintf (name, sizeof name, "requests/destroy empties the list");
   sh_requests_destroy (&reqs);
   CHECK (name, reqs.n == 0 && reqs.v == NULL);
   /* and the list can be used again */
   BSON_APPEND_INT32 (sh_requests_add (&reqs, "admin", CONN_ADMIN), "ping", 1);
   CHECK ("requests/usable again after destroy", reqs.n == 1);
   sh_requests_destroy (&reqs);
   UNIT_EXIT ();
}
