/* The command table: every entry of every family, in the order help lists them, expanded from commands/table.def.
 * Adding a helper means writing its entry in its family file and adding one line to table.def; help, completion,
 * the JavaScript API and docs/commands.md follow from this list. */
#include <string.h>

#include "commands/table.h"

/* the entries, defined in their family files */
#define CMD(symbol, family, min_args, max_args, callable, effect) extern const sh_cmd_t cmd_##symbol;
#include "commands/table.def"
#undef CMD

const sh_cmd_t *const sh_cmd_table[] = {
#define CMD(symbol, family, min_args, max_args, callable, effect) &cmd_##symbol,
#include "commands/table.def"
#undef CMD
   NULL,
};

const sh_cmd_row_t sh_cmd_rows[] = {
#define CMD(symbol, family, min_args, max_args, callable, effect)                                                      \
   { &cmd_##symbol, "cmd_" #symbol, #family, min_args, max_args, callable, CMD_EFFECT_##effect },
#include "commands/table.def"
#undef CMD
   { NULL, NULL, NULL, 0, 0, false, CMD_EFFECT_NONE },
};

const sh_cmd_row_t *
sh_cmd_row (const sh_cmd_t *cmd)
{
   for (size_t i = 0; cmd && sh_cmd_rows[i].cmd; i++) {
      if (sh_cmd_rows[i].cmd == cmd)
         return &sh_cmd_rows[i];
   }
   return NULL;
}

const sh_cmd_t *
sh_cmd_find (const char *name)
{
   for (size_t i = 0; sh_cmd_table[i]; i++) {
      if (!strcmp (sh_cmd_table[i]->name, name))
         return sh_cmd_table[i];
   }
   return NULL;
}

/* Damerau-free Levenshtein distance, case-insensitive, bounded to short names; any distance over limit is reported
 * as limit + 1 as soon as it is certain (lengths too far apart, or a whole row over it), so a script of long unknown
 * names costs little (a fuzzed one took seconds). */
static size_t
edit_distance (const char *a, const char *b, size_t limit)
{
   size_t la = strlen (a), lb = strlen (b);
   size_t prev[128], cur[128];
   if (la >= 127 || lb >= 127)
      return 1000;
   if ((la > lb ? la - lb : lb - la) > limit)
      return limit + 1;
   for (size_t j = 0; j <= lb; j++)
      prev[j] = j;
   for (size_t i = 1; i <= la; i++) {
      size_t row_min;
      cur[0] = row_min = i;
      for (size_t j = 1; j <= lb; j++) {
         char ca = a[i - 1] | 0x20, cb = b[j - 1] | 0x20;
         size_t sub = prev[j - 1] + (ca != cb);
         size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
         cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
         if (cur[j] < row_min)
            row_min = cur[j];
      }
      if (row_min > limit)
         return limit + 1;
      memcpy (prev, cur, (lb + 1) * sizeof prev[0]);
   }
   return prev[lb];
}

size_t
sh_cmd_suggest (const char *name, const char **out, size_t max)
{
   size_t n = 0;
   size_t best[8];
   size_t limit = strlen (name) / 5 + 1;
   if (max > 8)
      max = 8;
   for (size_t i = 0; sh_cmd_table[i]; i++) {
      size_t d = edit_distance (name, sh_cmd_table[i]->name, limit);
      size_t pos;
      if (d > limit)
         continue;
      /* insertion into the sorted best list */
      for (pos = n; pos > 0 && best[pos - 1] > d; pos--) {
         if (pos < max) {
            best[pos] = best[pos - 1];
            out[pos] = out[pos - 1];
         }
      }
      if (pos < max) {
         best[pos] = d;
         out[pos] = sh_cmd_table[i]->name;
         if (n < max)
            n++;
      }
   }
   /* keep only the near misses: nothing more than twice as far as the best one (plus one) */
   while (n > 1 && best[n - 1] > 2 * best[0] + 1)
      n--;
   /* keep only the names about as near as the nearest one */
   while (n > 1 && best[n - 1] > best[0] + 1)
      n--;
   return n;
}

/* One table row cell: | and newlines would break the Markdown table. */
static void
md_cell (FILE *out, const char *s)
{
   for (; s && *s; s++) {
      if (*s == '|')
         fputs ("\\|", out);
      else if (*s == '\n')
         fputc (' ', out);
      else
         fputc (*s, out);
   }
}

void
sh_cmd_write_markdown (FILE *out)
{
   fputs ("# shardsh command reference\n\n"
          "Generated from the command table (`commands/table.def`) by `make docs`; the unit test\n"
          "`test_commands_doc` fails when this file and the table disagree. Markers: **needs** the minimum\n"
          "server version (refused before sending on an older cluster); **check** mongosh's one-time `{ hello: 1 }`\n"
          "mongos check runs first; **confirm** asks in a terminal unless `--yes`; **writes** refused under\n"
          "`--readonly`; **alias** a deprecated name; **shardsh** a helper mongosh does not have.\n\n"
          "Differences from mongosh that are by design: the `config.settings` / `config.collections` updates\n"
          "(autosplit, automerger, balancing, balancer window) go out as plain `update` commands, so they are not\n"
          "retryable writes and carry no `txnNumber`; mongosh runs the queries of `sh.status()` and\n"
          "`getShardDistribution()` concurrently where shardsh sends the same documents one after another, and\n"
          "on 5.0+ metadata `sh.status()` (non-verbose) reads every collection's chunk counts, first chunks and\n"
          "zone ranges with one aggregate over `config.collections` where mongosh sends three reads per\n"
          "collection (the printed output is the same, byte for byte);\n"
          "`convertShardKeyToHashed()` is computed locally instead of by an aggregate.\n\n",
          out);
   for (size_t i = 0; sh_cmd_table[i]; i++) {
      const sh_cmd_t *c = sh_cmd_table[i];
      fprintf (out, "## `%s`\n\n", c->usage);
      fprintf (out, "%s.\n\n", c->summary);
      fputs ("| | |\n|---|---|\n", out);
      if (c->sends) {
         fputs ("| sends | `", out);
         md_cell (out, c->sends);
         fputs ("` |\n", out);
      }
      if (c->since)
         fprintf (out, "| needs | MongoDB %s |\n", c->since);
      if (c->alias_of)
         fprintf (out, "| alias | of `%s` |\n", c->alias_of);
      if (c->flags & CMD_MONGOS_CHECK)
         fputs ("| check | `{ hello: 1 }` on the current database, once |\n", out);
      if (sh_cmd_row (c) && sh_cmd_row (c)->effect != CMD_EFFECT_NONE)
         fprintf (out, "| confirm | when it %s |\n", cmd_effect_summary (sh_cmd_row (c)->effect));
      if (!(c->flags & (CMD_READONLY | CMD_CLIENT_ONLY)))
         fprintf (out, "| writes | %s |\n", c->readonly_if ? "unless the command only reads" : "yes");
      if (c->flags & CMD_EXTRA)
         fputs ("| shardsh | not in mongosh |\n", out);
      if (c->example) {
         fputs ("| example | `", out);
         md_cell (out, c->example);
         fputs ("` |\n", out);
      }
      fputc ('\n', out);
   }
}

/* Text for a man page line: backslashes and hyphens escaped, and a line never starts with a control character. */
static void
man_text (FILE *out, const char *s)
{
   if (s && (*s == '.' || *s == '\''))
      fputs ("\\&", out);
   for (; s && *s; s++) {
      if (*s == '\\')
         fputs ("\\e", out);
      else if (*s == '-')
         fputs ("\\-", out);
      else if (*s == '\n')
         fputc (' ', out);
      else
         fputc (*s, out);
   }
}

void
sh_cmd_write_man (FILE *out)
{
   fputs (".SH COMMANDS\n"
          "Generated from the command table by\n"
          ".BR \"make docs\" ;\n"
          "docs/commands.md has what each one sends.\n",
          out);
   for (size_t i = 0; sh_cmd_table[i]; i++) {
      const sh_cmd_t *c = sh_cmd_table[i];
      fputs (".TP\n.B ", out);
      man_text (out, c->usage);
      fputc ('\n', out);
      man_text (out, c->summary);
      if (c->alias_of) {
         fputs (" (alias of ", out);
         man_text (out, c->alias_of);
         fputc (')', out);
      }
      fputs (".\n", out);
   }
}
