/* Checked arithmetic for numbers a server sends (counts and sizes near INT64_MAX, negative sizes): one set of helpers
 * used wherever such numbers are summed, scaled or differenced (the dashboard collector, sh.status, the shard-key
 * advisor, the plan), so none of them is undefined behaviour. Results saturate at INT64_MIN/INT64_MAX: a figure
 * that large is already nonsense, and shown as the largest value it stays visibly so. Header-only, libc only. */
#ifndef SHARDSH_CHECKED_H
#define SHARDSH_CHECKED_H

#include <math.h>
#include <stdint.h>

/* a + b, saturated. */
static inline int64_t
ck_add (int64_t a, int64_t b)
{
   int64_t r;
   if (__builtin_add_overflow (a, b, &r))
      return b > 0 ? INT64_MAX : INT64_MIN;
   return r;
}

/* a - b, saturated. */
static inline int64_t
ck_sub (int64_t a, int64_t b)
{
   int64_t r;
   if (__builtin_sub_overflow (a, b, &r))
      return b < 0 ? INT64_MAX : INT64_MIN;
   return r;
}

/* a * b, saturated. */
static inline int64_t
ck_mul (int64_t a, int64_t b)
{
   int64_t r;
   if (__builtin_mul_overflow (a, b, &r))
      return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
   return r;
}

/* |a|, INT64_MIN giving INT64_MAX. */
static inline int64_t
ck_abs (int64_t a)
{
   return a < 0 ? (a == INT64_MIN ? INT64_MAX : -a) : a;
}

/* A count or size as a server reports it, never negative (a negative size is read as 0). */
static inline int64_t
ck_nonneg (int64_t a)
{
   return a < 0 ? 0 : a;
}

/* A double rounded to the nearest int64, saturated (NaN gives 0): a cast of a double out of range is undefined. */
static inline int64_t
ck_from_double (double d)
{
   if (isnan (d))
      return 0;
   if (d >= 9223372036854775807.0)
      return INT64_MAX;
   if (d <= -9223372036854775808.0)
      return INT64_MIN;
   return (int64_t) llround (d);
}

#endif
