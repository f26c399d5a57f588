/* The query engine's conditional, boolean and comparison operators and the ones that bind or quote: $literal,
 * $cond, $let, $switch, $ifNull, $and, $or, $not, $eq … $cmp. Each follows its simq_op_*_fn_t contract in simq_ops.h.
 */
#include "tests/shardsim/query/simq_ops.h"

#include "shell/lib/hashkey.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool
simq_op_literal (const char *op, const bson_value_t *arg, const simq_ectx_t *ctx, bson_value_t *out,
                 bson_error_t *error)
{
   (void) op;
   (void) ctx;
   (void) error;
   simq_value_copy (arg, out);
   return true;
}

bool
simq_op_cond (const char *op, const bson_value_t *arg, const simq_ectx_t *ctx, bson_value_t *out, bson_error_t *error)
{
   bool ok = false;
   bson_t spec;
   if (arg->value_type == BSON_TYPE_DOCUMENT) {
      static const char *const allowed[] = { "if", "then", "else", NULL };
      bson_value_t s_if, s_then, s_else, c;
      simq_value_as_doc (arg, &spec);
      if (!simq_check_named (&spec, op, allowed, 17083, error)) {
         return false;
      }
      if (!simq_named_arg (&spec, "if", &s_if)) {
         return simq_fail (error, 17080, "Missing 'if' parameter to $cond");
      }
      if (!simq_named_arg (&spec, "then", &s_then)) {
         return simq_fail (error, 17081, "Missing 'then' parameter to $cond");
      }
      if (!simq_named_arg (&spec, "else", &s_else)) {
         return simq_fail (error, 17082, "Missing 'else' parameter to $cond");
      }
      if (!simq_eval (&s_if, ctx, &c, error)) {
         return false;
      }
      ok = simq_eval (simq_truthy (&c) ? &s_then : &s_else, ctx, out, error);
      simq_value_destroy (&c);
      return ok;
   }
   simq_args_t args;
   if (!simq_collect_args (op, arg, &args, error)) {
      return false;
   }
   bson_value_t c;
   if (!simq_arity (op, &args, 3, error) || !simq_eval (&args.v[0], ctx, &c, error)) {
      return false;
   }
   ok = simq_eval (simq_truthy (&c) ? &args.v[1] : &args.v[2], ctx, out, error);
   simq_value_destroy (&c);
   return ok;
}

bool
simq_op_let (const char *op, const bson_value_t *arg, const simq_ectx_t *ctx, bson_value_t *out, bson_error_t *error)
{
   bool ok = false;
   bson_t spec;
   (void) op;
   bson_value_t s_vars, s_in;
   bson_t vars_doc;
   bson_iter_t it;
   simq_var_t *head = ctx->vars, *node;
   simq_ectx_t inner = *ctx;
   if (arg->value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (arg, &spec) ||
       !simq_named_arg (&spec, "vars", &s_vars) || !simq_named_arg (&spec, "in", &s_in) ||
       !simq_value_as_doc (&s_vars, &vars_doc)) {
      return simq_fail (error, 16866, "$let only supports an object as its argument");
   }
   bson_iter_init (&it, &vars_doc);
   ok = true;
   while (ok && bson_iter_next (&it)) {
      node = bson_malloc0 (sizeof *node);
      node->name = bson_iter_key (&it);
      node->next = head;
      head = node;
      ok = simq_eval (bson_iter_value (&it), ctx, &node->value, error);
   }
   inner.vars = head;
   if (ok) {
      ok = simq_eval (&s_in, &inner, out, error);
   }
   while (head != ctx->vars) {
      node = head;
      head = head->next;
      simq_value_destroy (&node->value);
      bson_free (node);
   }
   return ok;
}

bool
simq_op_switch (const char *op, const bson_value_t *arg, const simq_ectx_t *ctx, bson_value_t *out, bson_error_t *error)
{
   bson_t spec;
   (void) op;
   bson_value_t s_branches, s_default;
   bson_t branches;
   bson_iter_t it;
   if (arg->value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (arg, &spec)) {
      return simq_fail (error, 40060, "$switch requires an object as an argument");
   }
   if (!simq_named_arg (&spec, "branches", &s_branches) || !simq_value_as_doc (&s_branches, &branches)) {
      return simq_fail (error, 40061, "$switch expected an array for 'branches'");
   }
   bson_iter_init (&it, &branches);
   while (bson_iter_next (&it)) {
      bson_t br;
      bson_value_t s_case, s_then, c;
      if (!simq_value_as_doc (bson_iter_value (&it), &br) || !simq_named_arg (&br, "case", &s_case)) {
         return simq_fail (error, 40064, "$switch requires each branch have a 'case' expression");
      }
      if (!simq_named_arg (&br, "then", &s_then)) {
         return simq_fail (error, 40065, "$switch requires each branch have a 'then' expression.");
      }
      if (!simq_eval (&s_case, ctx, &c, error)) {
         return false;
      }
      if (simq_truthy (&c)) {
         simq_value_destroy (&c);
         return simq_eval (&s_then, ctx, out, error);
      }
      simq_value_destroy (&c);
   }
   if (simq_named_arg (&spec, "default", &s_default)) {
      return simq_eval (&s_default, ctx, out, error);
   }
   return simq_fail (error, 40066,
                     "$switch could not find a matching branch for an input, and no default was specified.");
}

bool
simq_op_if_null (const char *op, const simq_args_t *args, const simq_ectx_t *ctx, bson_value_t *out,
                 bson_error_t *error)
{
   (void) op;
   if (args->n < 2) {
      return simq_fail (error, 1257300, "$ifNull needs at least two arguments, had: %zu", args->n);
   }
   for (size_t i = 0; i < args->n; i++) {
      bson_value_t v;
      if (!simq_eval (&args->v[i], ctx, &v, error)) {
         return false;
      }
      if (!simq_nullish (&v) || i + 1 == args->n) {
         *out = v;
         return true;
      }
      simq_value_destroy (&v);
   }
   return true;
}

bool
simq_op_and_or (const char *op, const simq_args_t *args, const simq_ectx_t *ctx, bson_value_t *out, bson_error_t *error)
{
   bool is_and = op[1] == 'a';
   for (size_t i = 0; i < args->n; i++) {
      bson_value_t v;
      bool t;
      if (!simq_eval (&args->v[i], ctx, &v, error)) {
         return false;
      }
      t = simq_truthy (&v);
      simq_value_destroy (&v);
      if (is_and != t) {
         simq_set_bool (out, !is_and);
         return true;
      }
   }
   simq_set_bool (out, is_and);
   return true;
}

bool
simq_op_compare (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                 bson_error_t *error)
{
   bool ok = false;
   (void) nvals;
   int c;
   if (!simq_arity (op, args, 2, error)) {
      return ok;
   }
   c = order_values (&vals[0], &vals[1]);
   if (strcmp (op, "$cmp") == 0) {
      simq_set_int32 (out, c < 0 ? -1 : (c > 0 ? 1 : 0));
   } else if (strcmp (op, "$eq") == 0) {
      simq_set_bool (out, c == 0);
   } else if (strcmp (op, "$ne") == 0) {
      simq_set_bool (out, c != 0);
   } else if (strcmp (op, "$gt") == 0) {
      simq_set_bool (out, c > 0);
   } else if (strcmp (op, "$gte") == 0) {
      simq_set_bool (out, c >= 0);
   } else if (strcmp (op, "$lt") == 0) {
      simq_set_bool (out, c < 0);
   } else {
      simq_set_bool (out, c <= 0);
   }
   ok = true;
   return ok;
}

bool
simq_op_not (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
             bson_error_t *error)
{
   bool ok = false;
   (void) nvals;
   if (simq_arity (op, args, 1, error)) {
      simq_set_bool (out, !simq_truthy (&vals[0]));
      ok = true;
   }
   return ok;
}
