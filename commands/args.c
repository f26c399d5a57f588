/* Argument checks with mongosh's semantics and messages (assertArgsDefinedType), so an argument error is caught
 * before anything is sent and reads as mongosh's does, with a caret under the argument. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "shell/lib/docget.h"

/* The arg_type_t bit of the value at it, JavaScript's typeof of it (0 for undefined, which no check accepts). */
static unsigned
type_bit (const bson_iter_t *it)
{
   switch (bson_iter_type (it)) {
   case BSON_TYPE_UTF8:
      return ARG_STRING;
   case BSON_TYPE_INT32:
   case BSON_TYPE_DOUBLE:
      return ARG_NUMBER;
   case BSON_TYPE_BOOL:
      return ARG_BOOL;
   case BSON_TYPE_UNDEFINED:
      return 0;
   default:
      /* documents, arrays, null, ObjectId, Long, Decimal128, dates, MinKey/MaxKey, regexes: JS objects */
      return ARG_OBJECT;
   }
}

/* Each arg_type_t bit's typeof name, in the order a type list names them. */
static const struct {
   unsigned bit;
   const char *name;
} type_names[] = { { ARG_STRING, "string" },
                   { ARG_NUMBER, "number" },
                   { ARG_BOOL, "boolean" },
                   { ARG_OBJECT, "object" } };

const char *
args_typeof (const bson_iter_t *it)
{
   unsigned bit = type_bit (it);
   for (size_t j = 0; j < sizeof type_names / sizeof type_names[0]; j++) {
      if (type_names[j].bit == bit)
         return type_names[j].name;
   }
   return "undefined";
}

static bool
find_arg (const sh_call_t *call, int i, bson_iter_t *it)
{
   char key[16];
   const char *k;
   if (i < 0 || i >= call->argc)
      return false;
   /* the arguments are { "0": …, "1": … } in order: argument i is element i, its key checked rather than searched */
   if (bson_iter_init (it, call->args)) {
      int n = 0;
      bool more;
      while ((more = bson_iter_next (it)) && n < i)
         n++;
      if (more && n == i) {
         const char *got = bson_iter_key_unsafe (it);
         if (i < 10) { /* a one-digit key, compared in place */
            if (got[0] == (char) ('0' + i) && !got[1])
               return true;
         } else if (bson_uint32_to_string ((uint32_t) i, &k, key, sizeof key) && !strcmp (got, k)) {
            return true;
         }
      }
   }
   bson_uint32_to_string ((uint32_t) i, &k, key, sizeof key);
   return bson_iter_init_find (it, call->args, k);
}

bool
args_get (const sh_call_t *call, int i, bson_iter_t *it)
{
   return find_arg (call, i, it) && bson_iter_type_unsafe (it) != BSON_TYPE_UNDEFINED; /* it stands on an element */
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
   buf[0] = '\0';
   for (size_t j = 0; j < sizeof type_names / sizeof type_names[0]; j++) {
      if (types & type_names[j].bit) {
         if (buf[0])
            bson_strncpy (buf + strlen (buf), " or ", len - strlen (buf));
         bson_strncpy (buf + strlen (buf), type_names[j].name, len - strlen (buf));
      }
   }
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
   if (types & type_bit (&it))
      return true;
   t = args_typeof (&it);
   type_list (types, expected, sizeof expected);
   sh_error_set_at (err, SH_ERR_ARGS, call->arg_pos ? call->arg_pos[i] : call->pos,
                    "[COMMON-10001] Argument at position %d must be of type %s, got %s instead (%s.%s)", i, expected, t,
                    owner, method);
   return false;
}

bool
args_build_string_command (const sh_call_t *call, sh_requests_t *out, const char *method, const char *name,
                           const char *db, conn_path_t path, sh_error_t *err)
{
   if (!args_check (call, 0, ARG_STRING, true, "Shard", method, err))
      return false;
   args_append (call, 0, sh_requests_add (out, db, path), name);
   return true;
}

const char *
args_method (const sh_call_t *call)
{
   const char *dot = strrchr (call->cmd->name, '.');
   return dot ? dot + 1 : call->cmd->name;
}

bool
args_build_method_string (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   const char *method = args_method (call);
   return args_build_string_command (call, out, method, method, "admin", CONN_ADMIN, err);
}

bool
args_build_method_to_shard (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   const char *method = args_method (call);
   bson_t *cmd;
   if (!args_check (call, 0, ARG_STRING, true, "Shard", method, err) ||
       !args_check (call, 1, ARG_STRING, true, "Shard", method, err))
      return false;
   cmd = sh_requests_add (out, "admin", CONN_ADMIN);
   args_append (call, 0, cmd, method);
   args_append (call, 1, cmd, "toShard");
   return true;
}

void
args_spread (bson_t *dst, const bson_t *base, const bson_t *opts)
{
   bson_iter_t it, o;
   bson_iter_init (&it, base);
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (opts && bson_iter_init_find (&o, opts, k))
         bson_append_value (dst, k, -1, bson_iter_value (&o));
      else
         bson_append_value (dst, k, -1, bson_iter_value (&it));
   }
   if (opts && bson_iter_init (&o, opts)) {
      while (bson_iter_next (&o)) {
         if (!bson_has_field (base, bson_iter_key (&o)))
            bson_append_value (dst, bson_iter_key (&o), -1, bson_iter_value (&o));
      }
   }
}

bool
args_doc (const sh_call_t *call, int i, bson_t *doc)
{
   bson_iter_t it;
   return args_get (call, i, &it) && docget_iter_sub (&it, BSON_TYPE_DOCUMENT, doc);
}

void
args_spread_run_command (const sh_call_t *call, int i, const bson_t *base, bson_t *cmd)
{
   bson_t opts, spread = BSON_INITIALIZER;
   bool have = args_doc (call, i, &opts);
   args_spread (&spread, base, have ? &opts : NULL);
   args_adjust_run_command (cmd, &spread);
   bson_destroy (&spread);
}

/* mongosh's isBSONDoubleConvertible: an integral JS number or an Int32 (an int32 here; doubles already are). */
static bool
double_convertible (const bson_iter_t *it)
{
   return BSON_ITER_HOLDS_INT32 (it);
}

void
args_adjust_run_command (bson_t *dst, const bson_t *cmd)
{
   args_adjust_run_command_at (dst, cmd, NULL);
}

void
args_adjust_run_command_at (bson_t *dst, const bson_t *cmd, const bson_iter_t *first)
{
   bson_iter_t it;
   bool resize = false, sample = false, set_parameter = false, mirror = false, more;

   /* which commands these are, in one pass over the top-level names (their first letters tell most names apart),
    * from the first element the caller stands on when it does */
   if (first) {
      it = *first;
      more = true;
   } else {
      more = bson_iter_init (&it, cmd) && bson_iter_next (&it);
   }
   for (; more; more = bson_iter_next (&it)) {
      const char *k = bson_iter_key_unsafe (&it);
      switch (k[0]) {
      case 'r':
         resize |= !strcmp (k, "replSetResizeOplog");
         break;
      case 'p':
         sample |= !strcmp (k, "profile");
         break;
      case 'c':
         sample |= !strcmp (k, "configureQueryAnalyzer");
         break;
      case 's':
         set_parameter |= !strcmp (k, "setParameter");
         break;
      case 'm':
         mirror |= !strcmp (k, "mirrorReads");
         break;
      default:
         break;
      }
   }
   mirror &= set_parameter;
   if (!resize && !sample && !mirror) {
      /* nothing to adjust (most commands): the document's bytes as they are, not re-appended field by field */
      bson_concat (dst, cmd);
      return;
   }
   bson_iter_init (&it, cmd);
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (((resize && (!strcmp (k, "size") || !strcmp (k, "minRetentionHours"))) ||
           (sample && !strcmp (k, "sampleRate"))) &&
          double_convertible (&it)) {
         BSON_APPEND_DOUBLE (dst, k, (double) bson_iter_int32 (&it));
      } else if (mirror && !strcmp (k, "mirrorReads") && BSON_ITER_HOLDS_DOCUMENT (&it)) {
         bson_iter_t m;
         bson_t sub;
         bson_iter_recurse (&it, &m);
         BSON_APPEND_DOCUMENT_BEGIN (dst, k, &sub);
         while (bson_iter_next (&m)) {
            if (!strcmp (bson_iter_key (&m), "samplingRate") && double_convertible (&m))
               BSON_APPEND_DOUBLE (&sub, "samplingRate", (double) bson_iter_int32 (&m));
            else
               bson_append_value (&sub, bson_iter_key (&m), -1, bson_iter_value (&m));
         }
         bson_append_document_end (dst, &sub);
      } else {
         bson_append_value (dst, k, -1, bson_iter_value (&it));
      }
   }
}

/* ---- integers from JavaScript numbers: every user number that becomes an integer passes here ---- */

bool
args_number_to_int (const bson_iter_t *it, int64_t min, int64_t max, int64_t *out)
{
   double d, t;
   int64_t v;
   switch (bson_iter_type (it)) {
   case BSON_TYPE_INT32:
      v = bson_iter_int32 (it);
      break;
   case BSON_TYPE_INT64:
      v = bson_iter_int64 (it);
      break;
   case BSON_TYPE_DOUBLE:
      d = bson_iter_double (it);
      if (!isfinite (d))
         return false;
      t = trunc (d);
      /* compared as doubles first, so the cast below is always defined; (double) max + 1 is exact for the limits
       * used (2^31, 2^63) */
      if (t < (double) min || t >= (double) max + 1.0)
         return false;
      v = (int64_t) t;
      break;
   default:
      return false;
   }
   if (v < min || v > max)
      return false;
   *out = v;
   return true;
}

/* The number as JavaScript writes it ("1e+308", "NaN", "2147483648"), through the one JS number formatter */
static void
number_text (const bson_iter_t *it, char *buf, size_t len)
{
   if (BSON_ITER_HOLDS_NUMBER (it)) {
      output_opts_t o = output_opts_default (OUTPUT_PRETTY, false);
      char *s = output_format_value (bson_iter_value ((bson_iter_t *) it), &o);
      bson_strncpy (buf, s, len);
      bson_free (s);
   } else {
      bson_snprintf (buf, len, "a value of type %s", args_typeof (it));
   }
}

static bool
int_error (const sh_call_t *call, int i, const bson_iter_t *it, const char *what, int64_t min, int64_t max,
           sh_error_t *err)
{
   char got[64];
   number_text (it, got, sizeof got);
   sh_error_set_at (err, SH_ERR_ARGS, call->arg_pos && i < call->argc ? call->arg_pos[i] : call->pos,
                    "%s: %s must be a number from %" PRId64 " to %" PRId64 ", got %s", call->cmd->name, what, min, max,
                    got);
   return false;
}

bool
args_int (const sh_call_t *call, int i, int64_t min, int64_t max, const char *what, int64_t *out, sh_error_t *err)
{
   bson_iter_t it;
   int64_t ignored;
   if (!args_get (call, i, &it))
      return true;
   if (!args_number_to_int (&it, min, max, out ? out : &ignored))
      return int_error (call, i, &it, what, min, max, err);
   return true;
}

bool
args_opt_int (const sh_call_t *call, int i, const char *key, int64_t min, int64_t max, int64_t *out, sh_error_t *err)
{
   bson_t opts;
   bson_iter_t f;
   int64_t ignored;
   if (!args_doc (call, i, &opts) || !bson_iter_init_find (&f, &opts, key) || BSON_ITER_HOLDS_UNDEFINED (&f) ||
       BSON_ITER_HOLDS_NULL (&f))
      return true;
   if (!args_number_to_int (&f, min, max, out ? out : &ignored))
      return int_error (call, i, &f, key, min, max, err);
   return true;
}

sh_pos_t
args_pos (const sh_call_t *call, int i)
{
   return call->arg_pos && i >= 0 && i < call->argc ? call->arg_pos[i] : call->close_pos;
}
