/* The chunk map's model: one collection's shard-key space as the ordered ranges the collector read (its chunks, or
 * buckets of them when there are too many), each owned by a shard, reduced to a strip of cells for drawing, with
 * zones and marks (jumbo, hot, moving), and a replay that steps back and forward through the collection's recent
 * migrations, splits and merges from config.changelog. Pure data and arithmetic over libbson documents: no driver,
 * no curses. Memory follows the ranges given, so the collector bounds them, not this model.
 *
 * The replay keeps today's ranges as its axis: stepping back over a migration gives the ranges whose lower bound
 * lies in the migrated range back to the donor; a split or a merge changes no owner and is only marked. A range that
 * was merged after a migration of part of it is owned by whoever owns its lower bound. */
#ifndef SHARDSH_CHUNKMAP_H
#define SHARDSH_CHUNKMAP_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Marks on a range or a cell. */
enum {
   CHUNKMAP_JUMBO = 1,        /* a jumbo chunk */
   CHUNKMAP_HOT = 2,          /* the range that takes the writes */
   CHUNKMAP_MOVING = 4,       /* a migration in flight */
   CHUNKMAP_ZONE_EDGE = 8,    /* a zone range begins or ends inside the cell */
   CHUNKMAP_OUT_OF_ZONE = 16, /* owned by a shard outside the zone of its range */
   CHUNKMAP_EVENT = 32,       /* the replay's current event touches it */
};

typedef enum {
   CHUNKMAP_MOVE = 0, /* moveChunk.commit / moveRange: from -> to */
   CHUNKMAP_SPLIT,    /* split / multi-split */
   CHUNKMAP_MERGE,    /* merge / mergeChunks */
} chunkmap_kind_t;

/* One cell of the strip: the shard owning most of its ranges (ties: the lower index), the zone of most of its
 * ranges (-1: none), the marks of any of them, and how many ranges it covers. */
typedef struct {
   int shard;
   int zone;
   unsigned flags;
   int64_t ranges;
} chunkmap_cell_t;

typedef struct chunkmap chunkmap_t;

/* A new, empty map; free with chunkmap_free. */
chunkmap_t *
chunkmap_new (void);

void
chunkmap_free (chunkmap_t *cm);

/* Appends the next range in key order (bounds ascending, each range after the previous one). The bounds are
 * copied. shard >= 0 indexes the caller's shard list; flags are CHUNKMAP_JUMBO and the like. Returns false, adding
 * nothing, when min does not sort after the previous range's min or shard is negative. */
bool
chunkmap_add_range (chunkmap_t *cm, const bson_t *min, const bson_t *max, int shard, unsigned flags);

/* Declares zone (>= 0, the caller's zone list) as [min, max) and the shards allowed in it (a bitmask over the first
 * 64 shard indexes; 0: none). Zones may be given in any order, after or before the ranges. */
bool
chunkmap_add_zone (chunkmap_t *cm, const bson_t *min, const bson_t *max, int zone, uint64_t shards);

/* Adds flags (CHUNKMAP_HOT, CHUNKMAP_MOVING) to every range whose lower bound lies in [min, max) (max NULL: only
 * the range holding min; min NULL: only the range that ends at max). */
void
chunkmap_mark (chunkmap_t *cm, const bson_t *min, const bson_t *max, unsigned flags);

/* Records one changelog event (any order; the map sorts them by time, oldest first). from/to index the shard list
 * (-1 for splits and merges). The bounds and text (the range as the caller shows it; may be NULL) are copied. Refused
 * while the replay is away from now. */
bool
chunkmap_add_event (chunkmap_t *cm, int64_t time_ms, chunkmap_kind_t kind, const bson_t *min, const bson_t *max,
                    int from, int to, const char *text);

/* The number of recorded events, and how many of the newest are undone (0: the map shows now). */
size_t
chunkmap_events (const chunkmap_t *cm);

size_t
chunkmap_position (const chunkmap_t *cm);

/* Steps the replay: delta < 0 goes back in time (undoing the newest events not yet undone), delta > 0 forward.
 * Stops at either end. Returns the new position (events undone). */
size_t
chunkmap_step (chunkmap_t *cm, long delta);

/* The event the replay stands on (the oldest one undone); false when the map shows now. Its bounds are read-only
 * views into the map, valid until the next chunkmap_add_*; use the struct where it was filled (a static bson_t
 * refers to itself: a copy of it is not valid). */
typedef struct {
   int64_t time_ms;
   chunkmap_kind_t kind;
   bson_t min;
   bson_t max;
   int from;
   int to;
   const char *text; /* as given to chunkmap_add_event ("" when none) */
} chunkmap_event_t;

bool
chunkmap_current_event (const chunkmap_t *cm, chunkmap_event_t *ev);

/* The number of ranges, and the owner of range i as the replay position has it. */
size_t
chunkmap_ranges (const chunkmap_t *cm);

int
chunkmap_owner (const chunkmap_t *cm, size_t i);

/* Fills cells[0, width) (width >= 1): cell k covers the ranges [k * n / width, (k + 1) * n / width) so every cell
 * stands for an equal share of the ranges (with fewer ranges than cells, a range spreads over several cells).
 * shards is the number of shard indexes in use (for the majority vote). Returns false when the map is empty. */
bool
chunkmap_cells (const chunkmap_t *cm, chunkmap_cell_t *cells, size_t width, int shards);

/* Adds flags to the cells[0, width) that chunkmap_cells filled (same cm, same width) which cover a range whose
 * lower bound lies in [min, max): a mark that lasts one drawing (a migration in flight), where chunkmap_mark lasts
 * as long as the map. max NULL: only the range holding min; min NULL: only the range that ends at max (a 6.0+
 * moveRange may give one bound); when no lower bound lies in [min, max) (a range inside one of a sampled map's), the
 * range holding min. Returns how many ranges it marked (0: none; both bounds NULL marks nothing). */
size_t
chunkmap_cells_mark (const chunkmap_t *cm, chunkmap_cell_t *cells, size_t width, const bson_t *min, const bson_t *max,
                     unsigned flags);

/* The same with the bounds as Extended JSON ("" or NULL: not given). A bound that does not parse marks nothing. */
size_t
chunkmap_cells_mark_json (const chunkmap_t *cm, chunkmap_cell_t *cells, size_t width, const char *min_json,
                          const char *max_json, unsigned flags);

/* Points min and max (in place, read-only, valid until the next chunkmap_add_*) at the bounds of range i. False when i
 * is out of range. */
bool
chunkmap_bounds (const chunkmap_t *cm, size_t i, bson_t *min, bson_t *max);

/* One collection's map as the collector read it (views/model/chunkmap_read.c) and the dashboard draws it. */
typedef struct {
   chunkmap_t *map; /* owned */
   char **shards;   /* shard names; a range's owner indexes this list; owned */
   size_t nshards;
   size_t nlisted; /* the first nlisted shards are config.shards'; the others only events name (removed shards) */
   char **zones;   /* zone names; a cell's zone indexes this list; owned */
   size_t nzones;
   char *key; /* the shard key pattern as mongosh prints it ("{ zipcode: 1 }"); owned */
   char *low; /* the lowest bound and the highest, as mongosh prints them ("{ x: MinKey() }"); owned */
   char *high;
   int64_t chunks;  /* the collection's chunks (exact) */
   bool sampled;    /* more chunks than the limit: the map holds a sorted random sample of them */
   int64_t read_ms; /* wall clock of the read */
} chunkmap_data_t;

/* Releases what a chunkmap_data_t holds (a zeroed struct is fine) and zeroes it. */
void
chunkmap_data_destroy (chunkmap_data_t *d);

#endif
