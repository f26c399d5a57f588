/* The dashboard's shrinking rule (fit.h): names cut with an ellipsis first, then the least important parts dropped
 * whole, never a figure cut. */
#include <string.h>

#include "views/fit.h"
#include "views/meter.h"

/* The byte length of the first w cells (code points) of s. */
static size_t
cells_bytes (const char *s, int w)
{
   const char *p = s;
   for (int k = 0; *p && k < w; k++) {
      p++;
      while (((unsigned char) *p & 0xC0) == 0x80)
         p++;
   }
   return (size_t) (p - s);
}

/* Copies n bytes of s then ell into buf, within len. */
static char *
copy_with (char *buf, size_t len, const char *s, size_t n, const char *ell)
{
   size_t el = ell ? strlen (ell) : 0;
   if (!len)
      return buf;
   if (n > len - 1)
      n = len - 1;
   memcpy (buf, s, n);
   if (el > len - 1 - n)
      el = 0;
   if (el)
      memcpy (buf + n, ell, el);
   buf[n + el] = '\0';
   return buf;
}

char *
fit_cut (char *buf, size_t len, const char *s, int w, const char *ell)
{
   if (w <= 0)
      return copy_with (buf, len, s, 0, NULL);
   if (meter_width (s) <= w)
      return copy_with (buf, len, s, strlen (s), NULL);
   return copy_with (buf, len, s, cells_bytes (s, w - 1), ell);
}

char *
fit_cut_words (char *buf, size_t len, const char *s, int w, const char *ell)
{
   size_t end, sp = 0, comma = 0;
   if (w <= 0 || meter_width (s) <= w)
      return fit_cut (buf, len, s, w, ell);
   end = cells_bytes (s, w - 1);
   /* the last space at or before the cut that ends a word, and the last one after a comma (the end of a figure with
    * its unit: "26 KB, 0 dbs" is cut after "26 KB", not after the lone "0") */
   for (size_t i = 1; i <= end; i++)
      if (s[i] == ' ' && s[i - 1] != ' ') {
         sp = i;
         comma = s[i - 1] == ',' ? i : comma;
      }
   if (s[end] == ' ' && s[end - 1] != ' ')
      sp = end;
   if (comma && comma >= end / 2)
      sp = comma;
   if (!sp)
      return copy_with (buf, len, s, end, ell);
   while (sp > 0 && (s[sp - 1] == ' ' || s[sp - 1] == ',' || s[sp - 1] == ':'))
      sp--;
   return copy_with (buf, len, s, sp, ell);
}

static int
total_w (const fit_part_t *parts, size_t n)
{
   int t = 0;
   for (size_t i = 0; i < n; i++)
      t += parts[i].w;
   return t;
}

/* Cuts the names (parts with a min) towards floor(min), the least important (then the rightmost) first, until the
 * line fits in width. */
static void
cut_names (fit_part_t *parts, size_t n, int width, int max_prio, bool to_one)
{
   for (int pr = max_prio; pr >= 0; pr--)
      for (size_t k = n; k-- > 0;) {
         fit_part_t *p = &parts[k];
         int over = total_w (parts, n) - width, floor = to_one ? 2 : p->min;
         if (over <= 0)
            return;
         if (p->prio != pr || p->min <= 0 || p->w <= floor)
            continue;
         p->w = p->w - over > floor ? p->w - over : floor;
      }
}

int
fit_parts (fit_part_t *parts, size_t n, int width)
{
   int max_prio = 0;
   for (size_t i = 0; i < n; i++) {
      parts[i].w = parts[i].text ? meter_width (parts[i].text) : 0;
      max_prio = parts[i].prio > max_prio ? parts[i].prio : max_prio;
   }
   if (width < 0)
      width = 0;
   if (total_w (parts, n) <= width)
      return total_w (parts, n);
   cut_names (parts, n, width, max_prio, false);
   /* drop whole parts, the least important (then the rightmost) first */
   for (int pr = max_prio; pr > 0 && total_w (parts, n) > width; pr--)
      for (size_t k = n; k-- > 0 && total_w (parts, n) > width;)
         if (parts[k].prio == pr)
            parts[k].w = 0;
   /* put back what fits again, the most important first */
   for (int pr = 1; pr <= max_prio; pr++)
      for (size_t k = 0; k < n; k++) {
         int full = parts[k].text ? meter_width (parts[k].text) : 0;
         if (parts[k].prio == pr && parts[k].w == 0 && full && total_w (parts, n) + full <= width)
            parts[k].w = full;
      }
   /* give the names back what dropping freed */
   for (size_t k = 0; k < n; k++) {
      int full = parts[k].text ? meter_width (parts[k].text) : 0;
      int slack = width - total_w (parts, n);
      if (parts[k].min > 0 && parts[k].w > 0 && parts[k].w < full && slack > 0)
         parts[k].w += full - parts[k].w < slack ? full - parts[k].w : slack;
   }
   if (total_w (parts, n) > width)
      cut_names (parts, n, width, max_prio, true);
   /* the last resort: what still overflows goes whole, from the right */
   for (size_t k = n; k-- > 0 && total_w (parts, n) > width;)
      parts[k].w = 0;
   return total_w (parts, n);
}

size_t
fit_wrap (const char *s, int w, size_t *starts, size_t *lens, size_t max)
{
   size_t n = 0, pos = 0, len = strlen (s);
   if (w < 1)
      w = 1;
   while (pos < len && n < max) {
      size_t end, brk = 0;
      while (s[pos] == ' ')
         pos++;
      if (pos >= len)
         break;
      end = pos + cells_bytes (s + pos, w);
      if (end >= len) {
         starts[n] = pos;
         lens[n++] = len - pos;
         break;
      }
      /* the last space within the line, else the word is split at w cells */
      for (size_t i = pos; i <= end; i++)
         if (s[i] == ' ')
            brk = i;
      if (brk > pos)
         end = brk;
      starts[n] = pos;
      lens[n] = end - pos;
      while (lens[n] > 0 && s[pos + lens[n] - 1] == ' ')
         lens[n]--;
      n++;
      pos = end;
   }
   return n;
}
