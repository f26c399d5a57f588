/* The one definition of a secret and the one way to hide it (see secret.h). */
#include "shell/lib/secret.h"

#include <bson/bson.h>
#include <ctype.h>
#include <stdlib.h>
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
   size_t e = 0, colon = 0, at = 0;
   bool have_colon = false, have_at = false;

   /* the user info ends at the last '@' before a blank or a quote: a password may hold '/', ':', '?' or '@' that a
    * valid connection string would escape, and must stay hidden in the error that says the string is invalid */
   while (e < len && !strchr (" \t\r\n'\"`", authority[e]) && authority[e] != '\0') {
      if (authority[e] == '@') {
         at = e;
         have_at = true;
      }
      e++;
   }
   for (size_t i = 0; have_at && i < at; i++) {
      if (authority[i] == ':') {
         colon = i;
         have_colon = true;
         break;
      }
      if (authority[i] == '/' || authority[i] == '?')
         break; /* a path before any ':': no user info */
   }
   if (!have_at || !have_colon)
      return false;
   *start = colon + 1;
   *end = at;
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

/* True when the identifier name[0, n) is called at p: not part of a longer identifier before it, then blanks and '('.
 */
static bool
secret_call_at (const char *line, const char *p, size_t n)
{
   if (p > line && (isalnum ((unsigned char) p[-1]) || p[-1] == '_' || p[-1] == '$'))
      return false;
   p += n;
   while (*p == ' ' || *p == '\t')
      p++;
   return *p == '(';
}

/* True when line calls one of the methods that take a password or a connection string (auth, connect, Mongo ...),
 * written any way: db.auth(, db.getSiblingDB("admin").auth (, auth( after a with-block. */
static bool
secret_calls_credential_method (const char *line)
{
   static const char *const methods[] = { "auth", "connect", "Mongo" };
   for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
      size_t n = strlen (methods[i]);
      for (const char *p = strstr (line, methods[i]); p; p = strstr (p + 1, methods[i])) {
         if (secret_call_at (line, p, n))
            return true;
      }
   }
   return false;
}

bool
secret_line_is_sensitive (const char *line)
{
   static const char *const words[] = { "password",           "passwd",         "pwd",    "createUser", "updateUser",
                                        "changeUserPassword", "passwordPrompt", "secret", "credential" };
   const char *p = line;
   size_t s, e;

   for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
      if (secret_contains_ci (line, words[i])) {
         return true;
      }
   }
   if (secret_calls_credential_method (line))
      return true;
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

/* secret_redact_doc; keys: inside a credentials document (every string is a salt or a key: hidden) */
static void
secret_redact_doc_in (const bson_t *src, bson_t *dst, bool keys)
{
   bson_iter_t it;

   if (!bson_iter_init (&it, src))
      return;
   while (bson_iter_next (&it)) {
      const char *key = bson_iter_key (&it);
      if (secret_is_field (key, strlen (key)) || (keys && BSON_ITER_HOLDS_UTF8 (&it))) {
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
         secret_redact_doc_in (&sub, &child, keys || (!array && !strcmp (key, "credentials")));
         if (array)
            bson_append_array_end (dst, &child);
         else
            bson_append_document_end (dst, &child);
      } else {
         bson_append_iter (dst, key, -1, &it);
      }
   }
}

void
secret_redact_doc (const bson_t *src, bson_t *dst)
{
   secret_redact_doc_in (src, dst, false);
}

bool
secret_doc_has_credentials (const bson_t *doc)
{
   bson_iter_t it, sub;
   if (!bson_iter_init (&it, doc))
      return false;
   while (bson_iter_next (&it)) {
      if (!strcmp (bson_iter_key (&it), "credentials") && BSON_ITER_HOLDS_DOCUMENT (&it))
         return true;
      if ((BSON_ITER_HOLDS_DOCUMENT (&it) || BSON_ITER_HOLDS_ARRAY (&it)) && bson_iter_recurse (&it, &sub)) {
         const uint8_t *data;
         uint32_t len;
         bson_t child;
         if (BSON_ITER_HOLDS_ARRAY (&it))
            bson_iter_array (&it, &len, &data);
         else
            bson_iter_document (&it, &len, &data);
         if (bson_init_static (&child, data, len) && secret_doc_has_credentials (&child))
            return true;
      }
   }
   return false;
}

/* Replaces text[a, b) (of *len bytes) by one '*' per character (UTF-8 continuation bytes add none), so the text keeps
 * its column count, and closes the gap. Returns where the stars end (the old b, moved). */
static size_t
secret_star_span (char *text, size_t *len, size_t a, size_t b)
{
   size_t w = a;
   for (size_t i = a; i < b; i++) {
      if (((unsigned char) text[i] & 0xc0) != 0x80)
         text[w++] = '*';
   }
   memmove (text + w, text + b, *len - b);
   *len -= b - w;
   return w;
}

static bool
secret_ident_char (char c)
{
   return isalnum ((unsigned char) c) || c == '_' || c == '$';
}

/* True when text[i, ...) starts a secret field name (secret_is_field, not inside a longer identifier), optionally
 * quoted, then a colon and an opening quote. Sets *value to the byte after that quote. */
static bool
secret_key_at (const char *text, size_t len, size_t i, size_t *value)
{
   size_t j = i;
   if (i > 0 && secret_ident_char (text[i - 1]))
      return false;
   while (j < len && secret_ident_char (text[j]))
      j++;
   if (!secret_is_field (text + i, j - i))
      return false;
   if (j < len && (text[j] == '"' || text[j] == '\''))
      j++;
   while (j < len && (text[j] == ' ' || text[j] == '\t'))
      j++;
   if (j >= len || text[j] != ':')
      return false;
   j++;
   while (j < len && (text[j] == ' ' || text[j] == '\t'))
      j++;
   if (j < len && (text[j] == '"' || text[j] == '\'' || text[j] == '`')) {
      *value = j + 1;
      return true;
   }
   return false;
}

/* The end of the string literal whose opening quote is text[open - 1]: the offset of its closing quote, or len. */
static size_t
secret_string_end (const char *text, size_t len, size_t open)
{
   char q = text[open - 1];
   size_t e = open;
   while (e < len && text[e] != q)
      e += text[e] == '\\' && e + 1 < len ? 2 : 1;
   return e;
}

/* When text[i, ...) calls a method that takes a password as a positional argument (auth(user, pwd),
 * changeUserPassword(user, pwd), connect(uri, user, pwd)), stars the contents of every string literal of its
 * arguments from the password's on (the caller goes on scanning the arguments for the other kinds: auth({user,
 * pwd})). */
static void
secret_star_positional (char *text, size_t *len, size_t i)
{
   static const char *const methods[] = { "auth", "changeUserPassword", "connect" };
   static const size_t first_secret[] = { 1, 1, 2 };
   for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++) {
      size_t n = strlen (methods[m]), j = i + n, arg = 0;
      int depth = 0;
      if (i + n > *len || memcmp (text + i, methods[m], n) != 0 || (i > 0 && secret_ident_char (text[i - 1])) ||
          (j < *len && secret_ident_char (text[j])))
         continue;
      while (j < *len && (text[j] == ' ' || text[j] == '\t'))
         j++;
      if (j >= *len || text[j] != '(')
         continue;
      for (j++; j < *len; j++) {
         char c = text[j];
         if (c == '"' || c == '\'' || c == '`') {
            size_t e = secret_string_end (text, *len, j + 1);
            j = arg >= first_secret[m] ? secret_star_span (text, len, j + 1, e) : e;
         } else if (c == '(' || c == '[' || c == '{') {
            depth++;
         } else if (c == ')' || c == ']' || c == '}') {
            if (depth-- == 0)
               break;
         } else if (c == ',' && depth == 0) {
            arg++;
         }
      }
      return;
   }
}

size_t
secret_mask_source (char *text, size_t len)
{
   size_t i = 0, value, ps, pe;

   while (i < len) {
      if (i + 3 <= len && !memcmp (text + i, "://", 3) && secret_uri_password (text + i + 3, len - i - 3, &ps, &pe)) {
         i = secret_star_span (text, &len, i + 3 + ps, i + 3 + pe);
      } else if (secret_key_at (text, len, i, &value)) {
         i = secret_star_span (text, &len, value, secret_string_end (text, len, value));
      } else {
         if (text[i] == 'a' || text[i] == 'c')
            secret_star_positional (text, &len, i);
         i++;
      }
   }
   return len;
}

/* Copies len bytes of text into out (len + 1 bytes), masks them and ends them with a NUL; returns the masked
 * length. The one body of both redact_source functions, which differ only in their allocator. */
static size_t
secret_redact_into (char *out, const char *text, size_t len)
{
   memcpy (out, text, len);
   len = secret_mask_source (out, len);
   out[len] = '\0';
   return len;
}

char *
secret_redact_source (const char *text, size_t len, size_t *out_len)
{
   char *out = malloc (len + 1);
   if (out)
      len = secret_redact_into (out, text, len);
   if (out_len)
      *out_len = out ? len : 0;
   return out;
}

char *
secret_redact_source_str (const char *text)
{
   size_t len = strlen (text);
   char *out = bson_malloc (len + 1);
   secret_redact_into (out, text, len);
   return out;
}
