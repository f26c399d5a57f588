/* passes: plain asan */
/* Replays the fuzz targets' seed corpus and every input that once crashed them (tests/fuzz/regressions/) through
 * the same entry points, without libFuzzer, so `make test` and `make asan` keep those inputs fixed. A crash here is
 * a failure of this binary (tests/run.sh reports the exit status). */
#include <dirent.h>
#include <stdlib.h>

#define FUZZ_NO_MAIN
#include "tests/fuzz/fuzz_parser.c"
#include "tests/fuzz/fuzz_js_bridge.c"
#include "tests/fuzz/fuzz_render.c"
#include "tests/fuzz/fuzz_reply.c"
#include "tests/fuzz/fuzz_numbers.c"
#include "tests/unit/unit.h"

/* Reads a whole file; returns a bson_malloc'd buffer (caller frees) or NULL. */
static uint8_t *
read_all (const char *path, size_t *len)
{
   FILE *f = fopen (path, "rb");
   uint8_t *buf = NULL;
   size_t cap = 0, n;
   *len = 0;
   if (!f)
      return NULL;
   do {
      cap = cap ? cap * 2 : 4096;
      buf = bson_realloc (buf, cap);
      n = fread (buf + *len, 1, cap - *len, f);
      *len += n;
   } while (*len == cap);
   fclose (f);
   return buf;
}

static int
by_name (const struct dirent **a, const struct dirent **b)
{
   return strcmp ((*a)->d_name, (*b)->d_name);
}

/* Runs every file of dir through one target. each: a PASS line per file (regressions) rather than one per
 * directory (the corpus). Returns the number of files run. */
typedef enum { TARGET_PARSER, TARGET_RENDER, TARGET_JS_BRIDGE, TARGET_REPLY, TARGET_NUMBERS } target_t;

static int
replay_dir (const char *dir, target_t target, bool each)
{
   struct dirent **names = NULL;
   int n = scandir (dir, &names, NULL, by_name), ran = 0;

   for (int i = 0; i < n; i++) {
      char *path;
      uint8_t *data;
      size_t len;
      if (names[i]->d_name[0] == '.') {
         free (names[i]);
         continue;
      }
      path = bson_strdup_printf ("%s/%s", dir, names[i]->d_name);
      data = read_all (path, &len);
      if (!data) {
         UNIT_FAIL (path, "cannot read");
      } else {
         bool ran_one = true;
         if (target == TARGET_RENDER)
            fuzz_render_one (data, len, true);
         else if (target == TARGET_JS_BRIDGE)
            ran_one = fuzz_js_bridge_one (data, len);
         else if (target == TARGET_REPLY)
            ran_one = fuzz_reply_one (data, len);
         else if (target == TARGET_NUMBERS)
            ran_one = fuzz_numbers_one (data, len, true);
         else
            fuzz_parser_one (data, len);
         ran += ran_one;
         if (each)
            UNIT_PASS (path);
      }
      bson_free (data);
      bson_free (path);
      free (names[i]);
   }
   free (names);
   return ran;
}

int
main (void)
{
   int n;

   n = replay_dir ("tests/fuzz/corpus/parser", TARGET_PARSER, false);
   CHECK ("fuzz corpus: parser seeds replayed", n > 100);
   n = replay_dir ("tests/fuzz/corpus/render", TARGET_RENDER, false);
   CHECK ("fuzz corpus: render seeds replayed (every helper, every option)", n > 20);
   n = replay_dir ("tests/fuzz/corpus/js_bridge", TARGET_JS_BRIDGE, false);
   CHECK ("fuzz corpus: JavaScript bridge seeds replayed (the engine plugin loaded)", n > 10);
   n = replay_dir ("tests/fuzz/corpus/reply", TARGET_REPLY, false);
   CHECK ("fuzz corpus: reply seeds replayed (the edge check, then libmongoc's readers)", n > 5);
   n = replay_dir ("tests/fuzz/corpus/numbers", TARGET_NUMBERS, false);
   CHECK ("fuzz corpus: numbers seeds replayed (collector, sh.status, advisor, plan)", n >= 3);
   replay_dir ("tests/fuzz/regressions/parser", TARGET_PARSER, true);
   replay_dir ("tests/fuzz/regressions/render", TARGET_RENDER, true);
   replay_dir ("tests/fuzz/regressions/js_bridge", TARGET_JS_BRIDGE, true);
   replay_dir ("tests/fuzz/regressions/reply", TARGET_REPLY, true);
   replay_dir ("tests/fuzz/regressions/numbers", TARGET_NUMBERS, true);
   UNIT_EXIT ();
}
