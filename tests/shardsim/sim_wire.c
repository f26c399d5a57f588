/* shardsim's wire layer: parses OP_QUERY and OP_MSG requests (kind 0 and kind 1 sections, checksum) into one command
 * document, and builds OP_REPLY / OP_MSG replies. */
#include "tests/shardsim/sim.h"

#include <string.h>

static uint32_t sim_crc_table[256];
static pthread_once_t sim_crc_once = PTHREAD_ONCE_INIT;

static void
sim_crc_init (void)
{
   for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++) {
         c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      }
      sim_crc_table[i] = c;
   }
}

uint32_t
sim_crc32c (const uint8_t *data, size_t len)
{
   pthread_once (&sim_crc_once, sim_crc_init);
   uint32_t c = 0xFFFFFFFFu;
   for (size_t i = 0; i < len; i++) {
      c = sim_crc_table[(c ^ data[i]) & 0xFF] ^ (c >> 8);
   }
   return c ^ 0xFFFFFFFFu;
}

static int32_t
sim_le32 (const uint8_t *p)
{
   uint32_t v = (uint32_t) p[0] | ((uint32_t) p[1] << 8) | ((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
   return (int32_t) v;
}

static void
sim_put32 (uint8_t *p, int32_t v)
{
   uint32_t u = (uint32_t) v;
   p[0] = (uint8_t) (u & 0xFF);
   p[1] = (uint8_t) ((u >> 8) & 0xFF);
   p[2] = (uint8_t) ((u >> 16) & 0xFF);
   p[3] = (uint8_t) ((u >> 24) & 0xFF);
}

/* Validates that a BSON document starts at p within end; returns its length or 0. */
static size_t
sim_doc_len (const uint8_t *p, const uint8_t *end)
{
   if (end - p < 5) {
      return 0;
   }
   int32_t l = sim_le32 (p);
   if (l < 5 || l > end - p || p[l - 1] != 0) {
      return 0;
   }
   return (size_t) l;
}

static void
sim_db_from_cmd (sim_msg_t *msg)
{
   bson_iter_t it;
   if (bson_iter_init_find (&it, &msg->cmd, "$db") && BSON_ITER_HOLDS_UTF8 (&it)) {
      bson_strncpy (msg->db, bson_iter_utf8 (&it, NULL), sizeof msg->db);
   }
}

static bool
sim_parse_query (const uint8_t *data, size_t len, sim_msg_t *msg, bson_error_t *error)
{
   const uint8_t *p = data + 16, *end = data + len;
   if (end - p < 4) {
      bson_set_error (error, 0, 1, "short OP_QUERY");
      return false;
   }
   msg->flags = (uint32_t) sim_le32 (p);
   p += 4;
   const uint8_t *nul = memchr (p, 0, (size_t) (end - p));
   if (!nul) {
      bson_set_error (error, 0, 1, "OP_QUERY without a collection name");
      return false;
   }
   char full[256];
   bson_strncpy (full, (const char *) p, sizeof full);
   char *dot = strchr (full, '.');
   if (dot) {
      *dot = '\0';
   }
   bson_strncpy (msg->db, full, sizeof msg->db);
   p = nul + 1 + 8; /* numberToSkip, numberToReturn */
   size_t dl = p <= end ? sim_doc_len (p, end) : 0;
   if (!dl) {
      bson_set_error (error, 0, 1, "OP_QUERY with a malformed query document");
      return false;
   }
   bson_t q;
   if (!bson_init_static (&q, p, dl)) {
      bson_set_error (error, 0, 1, "OP_QUERY with a malformed query document");
      return false;
   }
   /* A wrapped query ({ $query: {...}, $readPreference }) carries the command inside. */
   bson_iter_t it;
   if (bson_iter_init_find (&it, &q, "$query") && BSON_ITER_HOLDS_DOCUMENT (&it)) {
      uint32_t l;
      const uint8_t *d;
      bson_iter_document (&it, &l, &d);
      bson_t inner;
      if (!bson_init_static (&inner, d, l)) {
         bson_set_error (error, 0, 1, "malformed $query");
         return false;
      }
      bson_copy_to (&inner, &msg->cmd);
   } else {
      bson_copy_to (&q, &msg->cmd);
   }
   return true;
}

static bool
sim_parse_msg (const uint8_t *data, size_t len, sim_msg_t *msg, bson_error_t *error)
{
   const uint8_t *p = data + 16, *end = data + len;
   bool have_body = false;
   bson_t body, seqs;
   bson_init (&seqs);
   if (end - p < 4) {
      bson_set_error (error, 0, 1, "short OP_MSG");
      goto fail;
   }
   msg->flags = (uint32_t) sim_le32 (p);
   p += 4;
   if (msg->flags & ~(SIM_MSG_CHECKSUM | SIM_MSG_MORE_TO_COME | SIM_MSG_EXHAUST) & 0xFFFFu) {
      bson_set_error (error, 0, 223, "Unrecognized required bits in OP_MSG flags");
      goto fail;
   }
   if (msg->flags & SIM_MSG_CHECKSUM) {
      if (end - p < 4) {
         bson_set_error (error, 0, 1, "OP_MSG checksum missing");
         goto fail;
      }
      end -= 4;
      uint32_t want = (uint32_t) sim_le32 (end);
      if (sim_crc32c (data, (size_t) (end - data)) != want) {
         bson_set_error (error, 0, 1, "OP_MSG checksum mismatch");
         goto fail;
      }
   }
   while (p < end) {
      uint8_t kind = *p++;
      if (kind == 0) {
         size_t dl = sim_doc_len (p, end);
         if (!dl || have_body || !bson_init_static (&body, p, dl)) {
            bson_set_error (error, 0, 1, "malformed OP_MSG body section");
            goto fail;
         }
         have_body = true;
         p += dl;
      } else if (kind == 1) {
         if (end - p < 4) {
            bson_set_error (error, 0, 1, "malformed OP_MSG sequence section");
            goto fail;
         }
         int32_t sl = sim_le32 (p);
         const uint8_t *send = p + sl;
         if (sl < 5 || send > end) {
            bson_set_error (error, 0, 1, "malformed OP_MSG sequence section");
            goto fail;
         }
         const uint8_t *q = p + 4;
         const uint8_t *nul = memchr (q, 0, (size_t) (send - q));
         if (!nul) {
            bson_set_error (error, 0, 1, "malformed OP_MSG sequence identifier");
            goto fail;
         }
         bson_t arr;
         bson_append_array_begin (&seqs, (const char *) q, (int) (nul - q), &arr);
         q = nul + 1;
         uint32_t i = 0;
         while (q < send) {
            size_t dl = sim_doc_len (q, send);
            bson_t d;
            if (!dl || !bson_init_static (&d, q, dl)) {
               bson_append_array_end (&seqs, &arr);
               bson_set_error (error, 0, 1, "malformed document in OP_MSG sequence");
               goto fail;
            }
            char key[16];
            const char *k;
            bson_uint32_to_string (i++, &k, key, sizeof key);
            bson_append_document (&arr, k, -1, &d);
            q += dl;
         }
         bson_append_array_end (&seqs, &arr);
         p = send;
      } else {
         bson_set_error (error, 0, 1, "unknown OP_MSG section kind %d", kind);
         goto fail;
      }
   }
   if (!have_body) {
      bson_set_error (error, 0, 1, "OP_MSG without a body section");
      goto fail;
   }
   bson_init (&msg->cmd);
   bson_concat (&msg->cmd, &body);
   bson_concat (&msg->cmd, &seqs);
   bson_destroy (&seqs);
   sim_db_from_cmd (msg);
   return true;
fail:
   bson_destroy (&seqs);
   return false;
}

bool
sim_wire_parse (const uint8_t *data, size_t len, sim_msg_t *msg, bson_error_t *error)
{
   memset (msg, 0, sizeof *msg);
   if (len < 16) {
      bson_set_error (error, 0, 1, "short message");
      return false;
   }
   msg->request_id = sim_le32 (data + 4);
   msg->opcode = sim_le32 (data + 12);
   if (msg->opcode == SIM_OP_QUERY) {
      return sim_parse_query (data, len, msg, error);
   }
   if (msg->opcode == SIM_OP_MSG) {
      return sim_parse_msg (data, len, msg, error);
   }
   bson_set_error (error, 0, 1, "unsupported opcode %d", msg->opcode);
   return false;
}

void
sim_msg_destroy (sim_msg_t *msg)
{
   bson_destroy (&msg->cmd);
}

uint8_t *
sim_wire_reply (int32_t opcode, int32_t request_id, int32_t response_id, uint32_t flags, const bson_t *body,
                size_t *len)
{
   size_t total;
   uint8_t *buf;
   if (opcode == SIM_OP_QUERY) {
      total = 16 + 4 + 8 + 4 + 4 + body->len;
      buf = bson_malloc (total);
      sim_put32 (buf + 12, SIM_OP_REPLY);
      sim_put32 (buf + 16, 8); /* AwaitCapable, as real servers write */
      memset (buf + 20, 0, 8); /* cursorID */
      sim_put32 (buf + 28, 0); /* startingFrom */
      sim_put32 (buf + 32, 1); /* numberReturned */
      memcpy (buf + 36, bson_get_data (body), body->len);
   } else {
      total = 16 + 4 + 1 + body->len;
      buf = bson_malloc (total);
      sim_put32 (buf + 12, SIM_OP_MSG);
      sim_put32 (buf + 16, (int32_t) flags);
      buf[20] = 0;
      memcpy (buf + 21, bson_get_data (body), body->len);
   }
   sim_put32 (buf, (int32_t) total);
   sim_put32 (buf + 4, response_id);
   sim_put32 (buf + 8, request_id);
   *len = total;
   return buf;
}
