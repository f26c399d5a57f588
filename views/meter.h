/* Meters as text: horizontal bars, one-cell mini bars and sparklines, in Unicode blocks or ASCII. Pure string
 * builders (no curses), so batch output and the unit tests use them as the screen does. */
#ifndef SHARDSH_METER_H
#define SHARDSH_METER_H

#include <stdbool.h>
#include <stddef.h>

/* Writes a bar of width cells filled to value/max into buf (NUL-terminated; needs 3 * width + 1 bytes for
 * Unicode). Eighth-cell resolution in Unicode, whole cells ('#') in ASCII. Returns buf. */
char *
meter_bar (char *buf, size_t len, double value, double max, int width, bool utf8);

/* One cell whose height shows value/max (" ▁▂▃▄▅▆▇█", or " .:-=+*#" in ASCII); a non-zero value never shows
 * as blank. Returns a static string. */
const char *
meter_level (double value, double max, bool utf8);

/* Writes a sparkline of the last width values of v[0..n) (oldest first), right-aligned and padded with spaces. The
 * scale is max (shared by every sparkline of a column, so equal heights mean equal values); max <= 0 scales to the
 * values' own maximum. Returns buf. */
char *
meter_sparkline (char *buf, size_t len, const double *v, int n, int width, double max, bool utf8);

/* The largest of the last width values of v[0..n): the scale meter_sparkline draws them at. */
double
meter_spark_max (const double *v, int n, int width);

/* Display width (terminal cells) of a UTF-8 string, counting each code point as one cell. */
int
meter_width (const char *s);

#endif
