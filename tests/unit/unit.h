/* A tiny unit-test harness: CHECK macros that print "PASS name" / "FAIL name: why" lines for tests/run.sh. */
#ifndef SHARDSH_UNIT_H
#define SHARDSH_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_failed;

#define UNIT_PASS(name) printf ("PASS %s\n", (name))
#define UNIT_FAIL(name, ...)                                                                                           \
   do {                                                                                                                \
      printf ("FAIL %s: ", (name));                                                                                    \
      printf (__VA_ARGS__);                                                                                            \
      printf ("\n");                                                                                                   \
      unit_failed++;                                                                                                   \
   } while (0)

/* CHECK(name, cond): one result line. */
#define CHECK(name, cond)                                                                                              \
   do {                                                                                                                \
      if (cond) {                                                                                                      \
         UNIT_PASS (name);                                                                                             \
      } else {                                                                                                         \
         UNIT_FAIL (name, "%s (%s:%d)", #cond, __FILE__, __LINE__);                                                    \
      }                                                                                                                \
   } while (0)

/* CHECK_STR(name, expected, actual): string equality with both shown on failure. */
#define CHECK_STR(name, expected, actual)                                                                              \
   do {                                                                                                                \
      const char *e_ = (expected), *a_ = (actual);                                                                     \
      if (e_ && a_ && strcmp (e_, a_) == 0) {                                                                          \
         UNIT_PASS (name);                                                                                             \
      } else {                                                                                                         \
         UNIT_FAIL (name, "expected [%s] got [%s] (%s:%d)", e_ ? e_ : "(null)", a_ ? a_ : "(null)", __FILE__,          \
                    __LINE__);                                                                                         \
      }                                                                                                                \
   } while (0)

#define UNIT_EXIT() return unit_failed ? 1 : 0

#endif
