/* passes: plain asan */
/* The command table's meta-tests, driven by the table itself (commands/table.def), so a new entry needs no test
 * edit: docs/commands.md and the COMMANDS section of docs/shardsh.1 are exactly what the table generates (`make docs`,
 * which runs `test_commands_doc --write`); every entry carries what help and the docs need, is defined in the family
 * file its line names, has the arity and call form its usage shows, has a dry-run case in tests/scripts, and every
 * request its example builds is answered by shardsim with something other than CommandNotFound (59). */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"
#include "commands/dispatch.h"
#include "shell/lang/parser.h"
#include "tests/unit/simproc.h"
#include "tests/unit/unit.h"

#define DOC_PATH "docs/commands.md"
#define MAN_PATH "docs/shardsh.1"
#define MAN_BEGIN ".\\\" BEGIN GENERATED COMMANDS (make docs)\n"
#define MAN_END ".\\\" END GENERATED COMMANDS\n"
#define MAN_BEFORE ".SH EXIT STATUS\n"

static char *
read_all (FILE *f, size_t *len)
{
   size_t cap = 4096, n = 0, r;
   char *buf = malloc (cap);
   while (buf && (r = fread (buf + n, 1, cap - n - 1, f)) > 0) {
      n += r;
      if (cap - n < 2) {
         char *bigger = realloc (buf, cap * 2);
         if (!bigger) {
            free (buf);
            return NULL;
         }
         buf = bigger;
         cap *= 2;
      }
   }
   if (buf)
      buf[n] = '\0';
   *len = n;
   return buf;
}

/* The whole file at path (NUL-terminated, caller frees), or NULL. */
static char *
read_path (const char *path, size_t *len)
{
   FILE *f = fopen (path, "r");
   char *text;
   if (!f)
      return NULL;
   text = read_all (f, len);
   fclose (f);
   return text;
}

/* What gen writes, as a string (caller frees). */
static char *
generate (void (*gen) (FILE *), size_t *len)
{
   FILE *mem = tmpfile ();
   char *text;
   if (!mem)
      return NULL;
   gen (mem);
   rewind (mem);
   text = read_all (mem, len);
   fclose (mem);
   return text;
}

/* The man page with its generated section replaced by section (markers added before EXIT STATUS when the page has
 * none yet); caller frees. NULL when the page has neither the markers nor the EXIT STATUS heading. */
static char *
man_with_section (const char *page, const char *section)
{
   const char *b = strstr (page, MAN_BEGIN), *e = b ? strstr (b, MAN_END) : NULL;
   bson_string_t *out = bson_string_new (NULL);
   if (b && e) {
      bson_string_append_printf (out, "%.*s", (int) (b - page), page);
      bson_string_append_printf (out, "%s%s%s", MAN_BEGIN, section, e);
   } else if ((b = strstr (page, MAN_BEFORE))) {
      bson_string_append_printf (out, "%.*s", (int) (b - page), page);
      bson_string_append_printf (out, "%s%s%s%s", MAN_BEGIN, section, MAN_END, b);
   } else {
      bson_string_free (out, true);
      return NULL;
   }
   return bson_string_free (out, false);
}

/* Writes docs/commands.md and the man page's generated section: `make docs`. */
static int
write_docs (void)
{
   size_t len;
   char *section = generate (sh_cmd_write_man, &len), *page = read_path (MAN_PATH, &len), *updated;
   FILE *f = fopen (DOC_PATH, "w");
   if (!f) {
      perror (DOC_PATH);
      return 2;
   }
   sh_cmd_write_markdown (f);
   fclose (f);
   updated = page && section ? man_with_section (page, section) : NULL;
   if (!updated || !(f = fopen (MAN_PATH, "w"))) {
      fprintf (stderr, "%s: no generated section and no EXIT STATUS heading to put one before\n", MAN_PATH);
      return 2;
   }
   fputs (updated, f);
   fclose (f);
   free (section);
   free (page);
   bson_free (updated);
   return 0;
}

/* The arity and call form a usage string shows: "sh.moveRange(namespace, toShard[, min][, max])" takes 2 to 4;
 * "print(value, ...)" any number, none included (-1); "[keys, ...]" is one array argument; a statement word
 * ("use <database>") is not callable and takes its words. */
static void
usage_arity (const char *usage_in, int *min, int *max, bool *callable)
{
   char usage[512];
   const char *open, *close;
   int depth = 0, brace = 0, item_depth = 99;
   bool has_text = false, variadic = false, last_required = false;
   size_t o = 0;
   /* "[name, ...]" (an array literal) reads as the one argument "name" */
   for (const char *p = usage_in; *p && o + 1 < sizeof usage; p++) {
      const char *q = p + 1;
      while (*p == '[' && (isalnum ((unsigned char) *q) || *q == '_'))
         q++;
      if (*p == '[' && q > p + 1 && !strncmp (q, ", ...]", 6)) {
         memcpy (usage + o, p + 1, (size_t) (q - p - 1));
         o += (size_t) (q - p - 1);
         p = q + 5;
         continue;
      }
      usage[o++] = *p;
   }
   usage[o] = '\0';
   open = strchr (usage, '(');
   close = strrchr (usage, ')');
   *min = *max = 0;
   *callable = open != NULL;
   if (!open || !close) {
      /* use <database>, show <what>, help [name], exit | quit */
      const char *sp = strchr (usage, ' ');
      if (sp && sp[1] != '|') {
         *max = 1;
         *min = sp[1] == '[' ? 0 : 1;
      }
      return;
   }
   for (const char *p = open + 1; p <= close; p++) {
      char ch = *p;
      bool end = p == close;
      if (!end && ch == '{')
         brace++;
      else if (!end && ch == '}')
         brace--;
      if (!end && !brace && ch == '[') {
         depth++;
         continue;
      }
      if (!end && !brace && ch == ']') {
         depth--;
         continue;
      }
      if (end || (!brace && ch == ',')) {
         if (has_text) {
            (*max)++;
            last_required = item_depth == 0;
            if (last_required)
               (*min)++;
         }
         has_text = false;
         item_depth = 99;
         continue;
      }
      if (ch == '.' && p[1] == '.' && p[2] == '.') {
         /* "value, ...": any number of values, none included */
         variadic = true;
         if (last_required)
            (*min)--;
         last_required = false;
         p += 2;
         continue;
      }
      if (ch != ' ') {
         has_text = true;
         if (depth < item_depth)
            item_depth = depth;
      }
   }
   if (variadic)
      *max = -1;
}

/* Whether commands/<family>.c defines the entry: `const sh_cmd_t <symbol> = {` or a family macro `X (<symbol>,`. */
static bool
family_defines (const char *family, const char *symbol)
{
   char path[256], def[192], macro[192];
   size_t len;
   char *text;
   bool found;
   bson_snprintf (path, sizeof path, "commands/%s.c", family);
   bson_snprintf (def, sizeof def, "const sh_cmd_t %s = {", symbol);
   bson_snprintf (macro, sizeof macro, " (%s,", symbol);
   text = read_path (path, &len);
   found = text && (strstr (text, def) || strstr (text, macro));
   free (text);
   return found;
}

/* The part PART of a tests/scripts case's text: the lines after its line "=== PART" up to the next "=== " line
 * (tests/lib.sh's case_split); NULL when the case has no such part, else the caller frees. */
static char *
case_part (const char *text, const char *part)
{
   char head[64];
   bson_snprintf (head, sizeof head, "=== %s\n", part);
   for (const char *p = text; p; p = strchr (p, '\n') ? strchr (p, '\n') + 1 : NULL) {
      if (strncmp (p, head, strlen (head)) == 0) {
         const char *from = p + strlen (head);
         const char *end = strstr (from, "\n=== ");
         size_t n = end ? (size_t) (end - from) + 1 : strlen (from);
         if (from[0] == '=' && strncmp (from, "=== ", 4) == 0) {
            n = 0; /* an empty part */
         }
         return bson_strndup (from, n);
      }
   }
   return NULL;
}

/* The js part of every tests/scripts/NAME.case whose args part holds --dry-run, one after another (caller frees). */
static char *
dry_run_scripts (void)
{
   bson_string_t *all = bson_string_new (NULL);
   DIR *d = opendir ("tests/scripts");
   struct dirent *e;
   while (d && (e = readdir (d))) {
      size_t n = strlen (e->d_name), len;
      char path[512];
      char *text, *args, *js;
      if (n < 6 || strcmp (e->d_name + n - 5, ".case") != 0)
         continue;
      bson_snprintf (path, sizeof path, "tests/scripts/%s", e->d_name);
      if (!(text = read_path (path, &len)))
         continue;
      args = case_part (text, "args");
      js = case_part (text, "js");
      if (args && strstr (args, "--dry-run") && js) {
         bson_string_append (all, "\n");
         bson_string_append (all, js);
      }
      bson_free (args);
      bson_free (js);
      free (text);
   }
   if (d)
      closedir (d);
   return bson_string_free (all, false);
}

static bool
ident_char (char c)
{
   return c == '_' || c == '.' || isalnum ((unsigned char) c);
}

/* Whether the dry-run scripts call the entry: sh.x( and name( literally; db.x( on db or on getSiblingDB(...); a
 * db.collection.x( as .x( on a collection (an identifier other than db before the dot); use, show, help and exit as
 * statements at the start of a line. */
static bool
has_dry_run_case (const char *scripts, const char *name)
{
   char needle[192];
   const char *method;
   if (!strncmp (name, "db.collection.", 14) || !strncmp (name, "db.", 3)) {
      bool on_coll = !strncmp (name, "db.collection.", 14);
      method = name + (on_coll ? 14 : 3);
      bson_snprintf (needle, sizeof needle, ".%s(", method);
      for (const char *p = strstr (scripts, needle); p; p = strstr (p + 1, needle)) {
         const char *q = p;
         bool after_db = q - scripts >= 2 && !strncmp (q - 2, "db", 2) && (q - scripts == 2 || !ident_char (q[-3]));
         bool after_call = q > scripts && q[-1] == ')';
         bool after_ident = q > scripts && ident_char (q[-1]);
         if (on_coll ? (after_ident && !after_db) : (after_db || after_call))
            return true;
      }
      return false;
   }
   if (!strchr (name, '.') &&
       (!strcmp (name, "use") || !strcmp (name, "show") || !strcmp (name, "help") || !strcmp (name, "exit"))) {
      bson_snprintf (needle, sizeof needle, "\n%s", name);
      return strstr (scripts, needle) != NULL;
   }
   bson_snprintf (needle, sizeof needle, "%s(", name);
   return strstr (scripts, needle) != NULL;
}

/* What one entry's example sent to shardsim: how many requests, and the first CommandNotFound among them. */
typedef struct {
   mongoc_client_t *client;
   size_t sent;
   bool not_found;
   char what[256];
   char command[64]; /* the command shardsim did not know */
} sim_probe_t;

/* Commands shardsim does not implement yet (its command coverage is issue 15's): reported SKIP, and FAIL once
 * shardsim answers them, so this list only shrinks. */
static const char *const sim_gaps[] = { NULL };

/* Commands a mongos itself does not have (CommandNotFound from a real mongos too), sent by entries whose answer
 * through a mongos is that error, as mongosh's is: the rs.* entries (commands/server_info.c) and reIndex. */
static const char *const mongos_lacks[] = { "replSetGetStatus",
                                            "replSetGetConfig",
                                            "replSetInitiate",
                                            "replSetStepDown",
                                            "replSetFreeze",
                                            "replSetSyncFrom",
                                            "reIndex", /* db.collection.reIndex (commands/coll_extra.c) */
                                            NULL };

static bool
mongos_lacks_command (const char *command)
{
   for (size_t i = 0; mongos_lacks[i]; i++) {
      if (!strcmp (mongos_lacks[i], command))
         return true;
   }
   return false;
}

static bool
sim_gap (const char *command)
{
   for (size_t i = 0; sim_gaps[i]; i++) {
      if (!strcmp (sim_gaps[i], command))
         return true;
   }
   return false;
}

static bool
probe_call (void *data, const sh_call_t *call, bool writes, sh_error_t *err)
{
   sim_probe_t *p = data;
   sh_requests_t reqs = { .n = 0 };
   bool ok = sh_requests_build (call, &reqs, err);
   (void) writes;
   for (size_t i = 0; ok && i < reqs.n; i++) {
      bson_t reply;
      bson_error_t error;
      if (!mongoc_client_command_simple (p->client, reqs.v[i].db, &reqs.v[i].cmd, NULL, &reply, &error) &&
          error.code == 59 && !p->not_found) {
         bson_iter_t first;
         p->not_found = true;
         bson_snprintf (p->what, sizeof p->what, "%s", error.message);
         if (bson_iter_init (&first, &reqs.v[i].cmd) && bson_iter_next (&first))
            bson_strncpy (p->command, bson_iter_key (&first), sizeof p->command);
      }
      bson_destroy (&reply);
      p->sent++;
   }
   sh_requests_destroy (&reqs);
   return ok;
}

/* Starts shardsim (demo scenario, the given personality) on a free port and sends every request each entry's example
 * builds. */
static void
test_shardsim_answers (const char *version)
{
   const char *args[] = { "--scenario", "demo", "--version", version, NULL };
   int have[3] = { 0, 0, 0 };
   sscanf (version, "%d.%d", &have[0], &have[1]);
   sim_t sim;
   sh_options_t opts;
   sh_ctx_t ctx;
   size_t exec_only = 0, probed = 0;

   char port_file[128];
   bson_snprintf (port_file, sizeof port_file, "/tmp/shardsh-test-commands-doc.%d.port", (int) getpid ());
   if (!simproc_start (&sim, port_file, args, 100, 50, "serverSelectionTimeoutMS=5000")) {
      UNIT_FAIL ("commands_doc/shardsim starts", "%s", "no port");
      sim_stop (&sim);
      return;
   }
   memset (&opts, 0, sizeof opts);
   opts.dry_run = true;
   memset (&ctx, 0, sizeof ctx);
   ctx.opts = &opts;
   ctx.db = bson_strdup ("app");
   for (size_t i = 0; sh_cmd_table[i]; i++) {
      const sh_cmd_t *c = sh_cmd_table[i];
      sim_probe_t p = { .client = sim.client };
      sh_script_t script;
      sh_error_t err;
      char name[256];
      bool ok;
      if ((c->flags & CMD_CLIENT_ONLY) || !c->example)
         continue;
      /* an entry newer than the personality (8.3's getTransitionToDedicatedConfigServerStatus on 8.2) is the
       * server's CommandNotFound there, as the gate says before sending */
      if (c->since && !dispatch_version_at_least (have, c->since))
         continue;
      if (!c->build) {
         exec_only++;
         continue;
      }
      sh_error_clear (&err);
      ok = sh_parse_script ("<example>", c->example, strlen (c->example), &script, &err) && script.n >= 1 &&
           dispatch_with_call (&ctx, &script.stmts[0], probe_call, &p, &err);
      sh_script_destroy (&script);
      if (p.sent == 0) {
         exec_only++;
         continue;
      }
      probed++;
      bson_snprintf (name, sizeof name, "commands_doc/shardsim %s answers %s's requests (not CommandNotFound)", version,
                     c->name);
      if (ok && p.not_found && sim_gap (p.command))
         printf ("SKIP %s: shardsim does not implement %s yet\n", name, p.command);
      else if (ok && (!p.not_found || mongos_lacks_command (p.command)))
         UNIT_PASS (name);
      else
         UNIT_FAIL (name, "%s", p.not_found ? p.what : err.message);
   }
   for (size_t i = 0; sim_gaps[i]; i++) {
      /* a gap shardsim has closed must leave the list */
      bson_t cmd = BSON_INITIALIZER, reply;
      bson_error_t error;
      char name[256];
      BSON_APPEND_UTF8 (&cmd, sim_gaps[i], "app.users");
      bson_snprintf (name, sizeof name, "commands_doc/shardsim still lacks %s (else drop it from sim_gaps)",
                     sim_gaps[i]);
      CHECK (name, !mongoc_client_command_simple (sim.client, "admin", &cmd, NULL, &reply, &error) && error.code == 59);
      bson_destroy (&cmd);
      bson_destroy (&reply);
   }
   printf ("# shardsim: %zu entries' requests sent; %zu run everything in exec() (their reads are the scripts' and "
           "integration tests')\n",
           probed, exec_only);
   bson_free (ctx.db);
   sim_stop (&sim);
}

int
main (int argc, char **argv)
{
   char *generated = NULL, *on_disk = NULL, *man_section = NULL, *man_page = NULL, *man_expected = NULL;
   char *scripts;
   size_t glen = 0, dlen = 0, len;

   if (argc > 1 && !strcmp (argv[1], "--write"))
      return write_docs ();
   generated = generate (sh_cmd_write_markdown, &glen);
   on_disk = read_path (DOC_PATH, &dlen);
   CHECK ("commands_doc/docs/commands.md matches the table (regenerate: make docs)",
          generated && on_disk && glen == dlen && !memcmp (generated, on_disk, glen));
   man_section = generate (sh_cmd_write_man, &len);
   man_page = read_path (MAN_PATH, &len);
   man_expected = man_page && man_section ? man_with_section (man_page, man_section) : NULL;
   CHECK ("commands_doc/docs/shardsh.1's COMMANDS section matches the table (regenerate: make docs)",
          man_expected && strstr (man_page, MAN_BEGIN) && !strcmp (man_expected, man_page));

   scripts = dry_run_scripts ();
   for (size_t i = 0; sh_cmd_table[i]; i++) {
      const sh_cmd_t *c = sh_cmd_table[i];
      const sh_cmd_row_t *row = &sh_cmd_rows[i];
      char name[256], heading[512];
      int min, max;
      bool callable;
      bson_snprintf (name, sizeof name, "commands_doc/%s has usage, summary and a runner", c->name);
      CHECK (name, c->usage && c->summary && (c->build || c->exec));
      if (!strncmp (c->name, "sh.", 3) && strcmp (c->name, "sh.help") != 0) {
         bson_snprintf (name, sizeof name, "commands_doc/%s has sends and an example", c->name);
         CHECK (name, c->sends && c->example);
      }
      bson_snprintf (name, sizeof name, "commands_doc/%s is listed once", c->name);
      CHECK (name, sh_cmd_find (c->name) == c && sh_cmd_row (c) == row);
      bson_snprintf (name, sizeof name, "commands_doc/%s is defined in commands/%s.c as its table.def line says",
                     c->name, row->family);
      CHECK (name, row->cmd == c && family_defines (row->family, row->symbol));
      if (c->usage) {
         usage_arity (c->usage, &min, &max, &callable);
         bson_snprintf (name, sizeof name, "commands_doc/%s: table.def's arity %d..%d and call form match its usage",
                        c->name, row->min_args, row->max_args);
         if (min == row->min_args && max == row->max_args && callable == row->callable)
            UNIT_PASS (name);
         else
            UNIT_FAIL (name, "usage \"%s\" shows %d..%d%s", c->usage, min, max, callable ? "" : " (not callable)");
         bson_snprintf (heading, sizeof heading, "## `%s`\n", c->usage);
         bson_snprintf (name, sizeof name, "commands_doc/%s has its section in docs/commands.md", c->name);
         CHECK (name, on_disk && strstr (on_disk, heading));
      }
      bson_snprintf (name, sizeof name, "commands_doc/%s has a dry-run case in tests/scripts", c->name);
      CHECK (name, scripts && has_dry_run_case (scripts, c->name));
   }
   CHECK ("commands_doc/confirmed effects: removeShard, moveChunk, moveRange, moveCollection, unshardCollection, "
          "reshardCollection, stopBalancer (table.def's effect column; test_effect checks each against its requests)",
          sh_cmd_row (sh_cmd_find ("sh.removeShard"))->effect == CMD_EFFECT_REMOVE_SHARD &&
             sh_cmd_row (sh_cmd_find ("sh.moveChunk"))->effect == CMD_EFFECT_MOVE &&
             sh_cmd_row (sh_cmd_find ("sh.moveRange"))->effect == CMD_EFFECT_MOVE &&
             sh_cmd_row (sh_cmd_find ("sh.moveCollection"))->effect == CMD_EFFECT_MOVE &&
             sh_cmd_row (sh_cmd_find ("sh.unshardCollection"))->effect == CMD_EFFECT_MOVE &&
             sh_cmd_row (sh_cmd_find ("sh.reshardCollection"))->effect == CMD_EFFECT_MOVE &&
             sh_cmd_row (sh_cmd_find ("sh.stopBalancer"))->effect == CMD_EFFECT_STOP_BALANCER &&
             sh_cmd_row (sh_cmd_find ("sh.setBalancerState"))->effect == CMD_EFFECT_ARGS);
   test_shardsim_answers ("8.2");
   test_shardsim_answers ("8.3");
   test_shardsim_answers ("9.0");
   free (scripts);
   free (generated);
   free (on_disk);
   free (man_section);
   free (man_page);
   bson_free (man_expected);
   UNIT_EXIT ();
}
