/* Bars, mini bars and sparklines as strings, with the ASCII fallback for terminals without UTF-8. */
#include <string.h>

#include "views/meter.h"

static const char *const levels_utf8[] = { " ",
                                           "\xe2\x96\x81",
                                           "\xe2\x96\x82",
                                           "\xe2\x96\x83",
                                           "\xe2\x96\x84",
                                           "\xe2\x96\x85",
                                           "\xe2\x96\x86",
                                           "\xe2\x96\x87",
                                           "\xe2\x96\x88" };
static const char *const levels_ascii[] = { " ", ".", ".", ":", "-", "=", "+", "*", "#" };
/* left-aligned eighths: ▏▎▍▌▋▊▉█ */
static const char *const eighths[] = { "",
                                       "\xe2\x96\x8f",
                                       "\xe2\x96\x8e",
                                       "\xe2\x96\x8d",
                                       "\xe2\x96\x8c",
                                       "\xe2\x96\x8b",
                                       "\xe2\x96\x8a",
                                       "\xe2\x96\x89",
                                       "\xe2\x96\x88" };

static void
append (char *buf, size_t len, size_t *pos, const char *s)
{
   size_t l = strlen (s);
   if (*pos + l + 1 > len)
      return;
   memcpy (buf + *pos, s, l);
   *pos += l;
   buf[*pos] = '\0';
}

char *
meter_bar (char *buf, size_t len, double value, double max, int width, bool utf8)
{
   size_t pos = 0;
   int units, full, used = 0;
   if (!len)
      return buf;
   buf[0] = '\0';
   if (width <= 0)
      return buf;
   if (max <= 0 || value < 0)
      value = 0, max = 1;
   if (value > max)
      value = max;
   units = (int) (value / max * width * 8 + 0.5);
   if (value > 0 && units == 0)
      units = 1;
   full = units / 8;
   for (int i = 0; i < full; i++, used++)
      append (buf, len, &pos, utf8 ? eighths[8] : "#");
   if (units % 8 && used < width) {
      append (buf, len, &pos, utf8 ? eighths[units % 8] : (units % 8 >= 4 ? "#" : " "));
      used++;
   }
   for (; used < width; used++)
      append (buf, len, &pos, " ");
   return buf;
}

const char *
meter_level (double value, double max, bool utf8)
{
   int l;
   if (max <= 0 || value <= 0)
      return " ";
   l = (int) (value / max * 8 + 0.5);
   if (l < 1)
      l = 1;
   if (l > 8)
      l = 8;
   return utf8 ? levels_utf8[l] : levels_ascii[l];
}

double
meter_spark_max (const double *v, int n, int width)
{
   double max = 0;
   for (int i = n > width ? n - width : 0; i < n; i++)
      max = v[i] > max ? v[i] : max;
   return max;
}

char *
meter_sparkline (char *buf, size_t len, const double *v, int n, int width, double max, bool utf8)
{
   size_t pos = 0;
   int first = n > width ? n - width : 0;
   if (!len)
      return buf;
   buf[0] = '\0';
   if (max <= 0)
      max = meter_spark_max (v, n, width);
   for (int i = n - first; i < width; i++)
      append (buf, len, &pos, " ");
   for (int i = first; i < n; i++)
      append (buf, len, &pos, meter_level (v[i], max, utf8));
   return buf;
}

int
meter_width (const char *s)
{
   int w = 0;
   for (; *s; s++)
      if (((unsigned char) *s & 0xC0) != 0x80)
         w++;
   return w;
}
