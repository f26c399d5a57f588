/* passes: plain asan */
/* docs/shardsim.md covers every command of the 8.2, 8.3 and 9.0 personalities (issue 33's done-when): the commands
 * are what shardsim's own command table answers on each personality (listCommands, built from sim_cmds.c's table:
 * names, not aliases, not the sim* control commands), the rows are those of the table under the heading
 * "#### Every command of the 8.2, 8.3 and 9.0 personalities" in docs/shardsim.md. Every command × version needs a
 * row whose first cell is the command in backticks, whose second cell names the version and whose third cell names a
 * server source file (.cpp, .idl or .h); a row that names a version where the personality does not answer the
 * command fails too. */
#include "tests/unit/fidelity.h"

#define DOC_PATH "docs/shardsim.md"
#define HEADING "#### Every command of the 8.2, 8.3 and 9.0 personalities"
#define MAX_ROWS 400
#define MAX_CMDS 400

static const char *const versions[] = { "8.2", "8.3", "9.0" };
#define NVERSIONS (sizeof versions / sizeof versions[0])

typedef struct {
   char name[128];
   bool in[NVERSIONS]; /* the row names the version */
   bool source;        /* the row names a server source file */
} row_t;

typedef struct {
   char name[128];
   bool in[NVERSIONS]; /* the personality answers it */
} cmd_t;

static row_t rows[MAX_ROWS];
static size_t nrows;
static cmd_t cmds[MAX_CMDS];
static size_t ncmds;

/* Copies cell k (0: the first after the leading '|') of a table line into out, trimmed; false when there is none. */
static bool
cell (const char *line, int k, char *out, size_t len)
{
   const char *p = strchr (line, '|'), *end;
   for (int i = 0; p && i < k; i++)
      p = strchr (p + 1, '|');
   if (!p || !(end = strchr (p + 1, '|')))
      return false;
   p++;
   while (p < end && *p == ' ')
      p++;
   while (end > p && end[-1] == ' ')
      end--;
   if ((size_t) (end - p) >= len)
      return false;
   memcpy (out, p, (size_t) (end - p));
   out[end - p] = '\0';
   return true;
}

/* Reads the coverage table's rows; false when the file or the heading is missing. */
static bool
read_rows (void)
{
   FILE *f = fopen (DOC_PATH, "r");
   char line[8192], c0[256], c1[256], c2[4096];
   bool in = false;
   if (!f)
      return false;
   while (fgets (line, sizeof line, f)) {
      if (!in) {
         in = !strncmp (line, HEADING, strlen (HEADING));
         continue;
      }
      if (line[0] == '#')
         break;
      if (line[0] != '|' || !strncmp (line, "|---", 4) || !strncmp (line, "| command |", 11))
         continue;
      if (nrows == MAX_ROWS || !cell (line, 0, c0, sizeof c0) || !cell (line, 1, c1, sizeof c1) ||
          !cell (line, 2, c2, sizeof c2))
         continue;
      row_t *r = &rows[nrows++];
      size_t n = strlen (c0);
      memset (r, 0, sizeof *r);
      if (n >= 2 && c0[0] == '`' && c0[n - 1] == '`' && n - 2 < sizeof r->name)
         bson_strncpy (r->name, c0 + 1, n - 1);
      for (size_t v = 0; v < NVERSIONS; v++)
         r->in[v] = strstr (c1, versions[v]) != NULL;
      r->source = strstr (c2, ".cpp") || strstr (c2, ".idl") || strstr (c2, ".h`") || strstr (c2, ".h ");
   }
   fclose (f);
   return in;
}

/* Adds the commands listCommands names on personality v. */
static void
read_commands (size_t v)
{
   sim_t s;
   const char *args[] = { "--version", versions[v], "--shards", "2", NULL };
   char pre[32];
   bson_t reply;
   bson_iter_t it, c;
   snprintf (pre, sizeof pre, "%s.doc rows ", versions[v]);
   if (!fid_begin (&s, args, pre))
      return;
   if (simproc_run_json (&s, "admin", "{\"listCommands\": 1}", &reply) &&
       bson_iter_init_find (&it, &reply, "commands") && bson_iter_recurse (&it, &c)) {
      while (bson_iter_next (&c)) {
         size_t k = 0;
         while (k < ncmds && strcmp (cmds[k].name, bson_iter_key (&c)) != 0)
            k++;
         if (k == ncmds && ncmds < MAX_CMDS)
            bson_strncpy (cmds[ncmds++].name, bson_iter_key (&c), sizeof cmds[0].name);
         if (k < ncmds)
            cmds[k].in[v] = true;
      }
   }
   bson_destroy (&reply);
   fid_end (&s, pre);
}

int
main (void)
{
   char name[400];
   mongoc_init ();
   mongoc_log_set_handler (NULL, NULL);
   for (size_t v = 0; v < NVERSIONS; v++)
      read_commands (v);
   CHECK ("doc rows: the personalities answer listCommands", ncmds > 50);
   CHECK ("doc rows: " DOC_PATH " has the table \"" HEADING "\"", read_rows ());
   for (size_t k = 0; k < ncmds; k++) {
      for (size_t v = 0; v < NVERSIONS; v++) {
         bool found = false;
         if (!cmds[k].in[v])
            continue;
         for (size_t r = 0; r < nrows && !found; r++)
            found = !strcmp (rows[r].name, cmds[k].name) && rows[r].in[v] && rows[r].source;
         snprintf (name, sizeof name, "%s.doc rows %.128s has a row with its source", versions[v], cmds[k].name);
         CHECK (name, found);
      }
   }
   for (size_t r = 0; r < nrows; r++) {
      for (size_t v = 0; v < NVERSIONS; v++) {
         bool answered = false;
         if (!rows[r].in[v])
            continue;
         for (size_t k = 0; k < ncmds && !answered; k++)
            answered = !strcmp (rows[r].name, cmds[k].name) && cmds[k].in[v];
         snprintf (name, sizeof name, "%s.doc rows the row of `%.128s` names a version that answers it", versions[v],
                   rows[r].name);
         CHECK (name, answered);
      }
   }
   mongoc_cleanup ();
   UNIT_EXIT ();
}
