/* The diff's list of changes (shell/desired/diff_int.h): each change recorded as a statement line of the script text
 * and as a JSON change, expensive ones shown with their cost or left out of --apply, and the two field readers every
 * comparison uses. Below diff.c and diff_coll.c, which compare and call these. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "shell/core/output.h"
#include "shell/desired/diff_int.h"
#include "shell/lib/docget.h"
#include "shell/lib/order.h"

void
diff_add (diff_t *d, bool expensive, const char *note, const char *fmt, ...)
{
   va_list ap;
   char *stmt = NULL;
   bson_t c;
   char key[16];
   if (fmt) {
      va_start (ap, fmt);
      stmt = bson_strdupv_printf (fmt, ap);
      va_end (ap);
   }
   if (note)
      bson_string_append_printf (d->text, "// %s%s\n", expensive ? "EXPENSIVE: " : "", note);
   if (stmt) {
      bson_string_append_printf (d->text, "%s\n", stmt);
      d->nstmts++;
   }
   bson_snprintf (key, sizeof key, "%d", d->n++);
   BSON_APPEND_DOCUMENT_BEGIN (&d->changes, key, &c);
   if (stmt)
      BSON_APPEND_UTF8 (&c, "statement", stmt);
   else
      BSON_APPEND_NULL (&c, "statement");
   BSON_APPEND_BOOL (&c, "expensive", expensive);
   if (note)
      BSON_APPEND_UTF8 (&c, "note", note);
   bson_append_document_end (&d->changes, &c);
   bson_free (stmt);
}

void
diff_add_expensive (diff_t *d, bool marked, const char *mark, const char *note, const char *stmt)
{
   char *why;
   if (!d->apply || (marked && d->allow_expensive)) {
      diff_add (d, true, note, "%s", stmt);
      return;
   }
   why = bson_strdup_printf ("%s; left out: it needs %s in the spec and --allow-expensive", note, mark);
   diff_add (d, true, why, NULL);
   d->skipped++;
   bson_free (why);
}

bool
diff_field (const bson_t *doc, const char *key, bson_type_t type, bson_t *out)
{
   bson_iter_t it;
   bson_t ignored;
   return bson_iter_init_find (&it, doc, key) && docget_iter_sub (&it, type, out ? out : &ignored);
}

/* Whether the values at key differ in want and have (absent from want: not managed, so no). */
bool
diff_differs (const bson_t *want, const bson_t *have, const char *key)
{
   bson_iter_t w, h;
   if (!bson_iter_init_find (&w, want, key))
      return false;
   if (!bson_iter_init_find (&h, have, key))
      return true;
   return order_values (bson_iter_value (&w), bson_iter_value (&h)) != 0;
}
