/* The requests of a call: the list build() fills (grown without moving a bson_t by realloc), and
 * sh_requests_build, the one place an executor gets a call's requests, built once per statement. */
#include <stdint.h>
#include <string.h>

#include "commands/requests.h"
#include "commands/table.h"

/* The list's array, 128-byte aligned as libbson declares bson_t: cut from a malloc'ed block with room to align it,
 * the distance to the block's start kept in the byte just before (1 to 128). memalign, behind bson_aligned_alloc0,
 * costs several times as much to allocate and to free, once per statement of a script. Not zeroed. */
static sh_request_t *
req_array_new (size_t cap)
{
   const size_t align = BSON_ALIGNOF (sh_request_t);
   uint8_t *raw = bson_malloc (cap * sizeof (sh_request_t) + align);
   size_t pad = align - ((uintptr_t) raw & (align - 1));
   raw[pad - 1] = (uint8_t) pad;
   return (sh_request_t *) (raw + pad);
}

static void
req_array_free (sh_request_t *v)
{
   if (v) {
      uint8_t *p = (uint8_t *) v;
      bson_free (p - p[-1]);
   }
}

void
sh_requests_init_in (sh_requests_t *out, sh_request_t *slot)
{
   out->v = slot;
   out->n = 0;
   out->cap = 1;
   out->v_lent = true;
}

bson_t *
sh_requests_add (sh_requests_t *out, const char *db, conn_path_t path)
{
   sh_request_t *r;
   size_t len;
   if (out->n == out->cap) {
      /* a bson_t may not be moved by realloc (an allocated one points into itself, and libbson declares it
       * 128-byte aligned): a new aligned array, each document copied over and the old one destroyed */
      size_t cap = out->cap ? 2 * out->cap : 1; /* most calls send one request */
      sh_request_t *v = req_array_new (cap);
      for (size_t i = 0; i < out->n; i++) {
         v[i].db = out->v[i].db;
         if (out->v[i].db == out->v[i].db_buf) {
            memcpy (v[i].db_buf, out->v[i].db_buf, sizeof v[i].db_buf);
            v[i].db = v[i].db_buf;
         }
         v[i].path = out->v[i].path;
         bson_copy_to (&out->v[i].cmd, &v[i].cmd);
         bson_destroy (&out->v[i].cmd);
      }
      if (!out->v_lent)
         req_array_free (out->v);
      out->v = v;
      out->cap = cap;
      out->v_lent = false;
   }
   r = &out->v[out->n++];
   len = strlen (db);
   if (len < sizeof r->db_buf) { /* a database name is at most 64 bytes: no allocation */
      memcpy (r->db_buf, db, len + 1);
      r->db = r->db_buf;
   } else {
      r->db = bson_strdup (db);
   }
   r->path = path;
   bson_init (&r->cmd);
   return &r->cmd;
}

static size_t requests_build_calls;

bool
sh_requests_build (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   if (call->built) {
      for (size_t i = 0; i < call->built->n; i++) {
         const sh_request_t *r = &call->built->v[i];
         bson_concat (sh_requests_add (out, r->db, r->path), &r->cmd);
      }
      return true;
   }
   requests_build_calls++;
   return call->cmd->build (call, out, err);
}

size_t
sh_requests_build_count (void)
{
   return requests_build_calls;
}

void
sh_requests_destroy (sh_requests_t *out)
{
   if (!out->v)
      return; /* { .n = 0 } as it started: nothing to release */
   for (size_t i = 0; i < out->n; i++) {
      bson_destroy (&out->v[i].cmd);
      if (out->v[i].db != out->v[i].db_buf)
         bson_free (out->v[i].db);
   }
   if (!out->v_lent)
      req_array_free (out->v);
   out->v = NULL;
   out->n = 0;
   out->cap = 0;
   out->v_lent = false;
}
