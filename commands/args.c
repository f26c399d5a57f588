/* Argument checks with mongosh's semantics and messages (assertArgsDefinedType), so an argument error is caught
 * before anything is sent and reads as mongosh's does, with a caret under the argument. */
#include <string.h>

#include "commands.h"

const char *
args_typeof (const bson_iter_t *it)
{
   switch (bson_iter_type (it)) {
   case BSON_TYPE_UTF8:
      return "string";
   case BSON_TYPE_INT32:
   case BSON_TYPE_DOUBLE:
      return "number";
   case BSON_TYPE_BOOL:
      return "boolean";
   case BSON_TYPE_UNDEFINED:
      return "undefined";
   default:
      /* documents, arrays, null, ObjectId, Long, Decimal128, dates, MinKey/MaxKey, regexes: JS objects */
      return "object";
   }
}

static bool
find_arg (const sh_call_t *call, int i, bson_iter_t *it)
{
   char key[16];
   const char *k;
   if (i < 0 || i >= call->argc)
      return false;
   bson_uint32_to_string ((uint32_t) i, &k, key, sizeof key);
   return bson_iter_init_find (it, call->args, k);
}

bool
args_get (const sh_call_t *call, int i, bson_iter_t *it)
{
   return find_arg (call, i, it) && bson_iter_type (it) != BSON_TYPE_UNDEFINED;
}

const char *
args_str (const sh_call_t *call, int i)
{
   bson_iter_t it;
   if (args_get (call, i, &it) && BSON_ITER_HOLDS_UTF8 (&it))
      return bson_iter_utf8 (&it, NULL);
   return NULL;
}

void
args_append (const sh_call_t *call, int i, bson_t *doc, const char *key)
{
   bson_iter_t it;
   if (find_arg (call, i, &it))
      bson_append_value (doc, key, -1, bson_iter_value (&it));
}

static void
type_list (unsigned types, char *buf, size_t len)
{
   static const struct {
      unsigned bit;
      const char *name;
   } names[] = {{ARG_STRING, "string"}, {ARG_NUMBER, "number"}, {ARG_BOOL, "boolean"}, {ARG_OBJECT, "object"}};
   buf[0] = '\0';
   for (size_t j = 0; j < sizeof names / sizeof names[0]; j++) {
      if (types & names[j].bit) {
         if (buf[0])
            bson_strncpy (buf + strlen (buf), " or ", len - strlen (buf));
         bson_strncpy (buf + strlen (buf), names[j].name, len - strlen (buf));
      }
   }
}

static bool
type_ok (unsigned types, const char *t)
{
   return (!strcmp (t, "string") && (types & ARG_STRING)) || (!strcmp (t, "number") && (types & ARG_NUMBER)) ||
          (!strcmp (t, "boolean") && (types & ARG_BOOL)) || (!strcmp (t, "object") && (types & ARG_OBJECT));
}

bool
args_check (const sh_call_t *call, int i, unsigned types, bool required, const char *owner, const char *method,
            sh_error_t *err)
{
   bson_iter_t it;
   const char *t;
   char expected[64];

   if (!args_get (call, i, &it)) {
      if (!required)
         return true;
      sh_error_set_at (err, SH_ERR_ARGS, i < call->argc && call->arg_pos ? call->arg_pos[i] : call->close_pos,
                       "[COMMON-10001] Missing required argument at position %d (%s.%s)", i, owner, method);
      return false;
   }
   t = args_typeof (&it);
   if (type_ok (types, t))
      return true;
   type_list (types, expected, sizeof expected);
   sh_error_set_at (err, SH_ERR_ARGS, call->arg_pos ? call->arg_pos[i] : call->pos,
                    "[COMMON-10001] Argument at position %d must be of type %s, got %s instead (%s.%s)", i, expected,
                    t, owner, method);
   return false;
}

bson_t *
sh_requests_add (sh_requests_t *out, const char *db, conn_path_t path)
{
   sh_request_t *r;
   BSON_ASSERT (out->n < SH_MAX_REQUESTS);
   r = &out->v[out->n++];
   bson_strncpy (r->db, db, sizeof r->db);
   r->path = path;
   bson_init (&r->cmd);
   return &r->cmd;
}

void
sh_requests_destroy (sh_requests_t *out)
{
   for (size_t i = 0; i < out->n; i++)
      bson_destroy (&out->v[i].cmd);
   out->n = 0;
}
