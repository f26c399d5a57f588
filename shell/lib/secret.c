/* The one definition of a secret and the one way to hide it (see secret.h). */
#include "shell/lib/secret.h"

#include <bson/bson.h>
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

char *
secret_redact_uri (const char *uri)
{
   const char *scheme = strstr (uri, "://");
   size_t start, end;
   if (!scheme || !secret_uri_password (scheme + 3, strlen (scheme + 3), &start, &end))
      return bson_strdup (uri);
   return bson_strdup_printf ("%.*s****%s", (int) (scheme + 3 + start - uri), uri, scheme + 3 + end);
}

char *
secret_redact_text (const char *text)
{
   bson_string_t *out = bson_string_new (NULL);
   const char *p = text, *scheme;
   size_t start, end;

   while ((scheme = strstr (p, "://")) != NULL) {
      const char *user = scheme + 3;
      if (secret_uri_password (user, strlen (user), &start, &end)) {
         bson_string_append_printf (out, "%.*s****", (int) (user + start - p), p);
         p = user + end;
      } else {
         bson_string_append_printf (out, "%.*s", (int) (user - p), p);
         p = user;
      }
   }
   bson_string_append (out, p);
   return bson_string_free (out, false);
}

void
secret_redact_doc (const bson_t *src, bson_t *dst)
{
   bson_iter_t it;

   if (!bson_iter_init (&it, src))
      return;
   while (bson_iter_next (&it)) {
      const char *key = bson_iter_key (&it);
      if (secret_is_field (key, strlen (key))) {
         BSON_APPEND_UTF8 (dst, key, "****");
      } else if (BSON_ITER_HOLDS_UTF8 (&it)) {
         char *shown = secret_redact_text (bson_iter_utf8 (&it, NULL));
         BSON_APPEND_UTF8 (dst, key, shown);
         bson_free (shown);
      } else if (BSON_ITER_HOLDS_DOCUMENT (&it) || BSON_ITER_HOLDS_ARRAY (&it)) {
         const uint8_t *data;
         uint32_t len;
         bson_t sub, child;
         bool array = BSON_ITER_HOLDS_ARRAY (&it);
         if (array)
            bson_iter_array (&it, &len, &data);
         else
            bson_iter_document (&it, &len, &data);
         if (!bson_init_static (&sub, data, len))
            continue;
         if (array)
            BSON_APPEND_ARRAY_BEGIN (dst, key, &child);
         else
            BSON_APPEND_DOCUMENT_BEGIN (dst, key, &child);
         secret_redact_doc (&sub, &child);
         if (array)
            bson_append_array_end (dst, &child);
         else
            bson_append_document_end (dst, &child);
      } else {
         bson_append_iter (dst, key, -1, &it);
      }
   }
}
