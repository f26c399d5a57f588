/* The fuzz targets' entry points, callable without libFuzzer: tests/unit/test_fuzz_regressions.c replays the seed
 * corpus and every saved crash through them, so `make test` (and `make asan`) keep them fixed. */
#ifndef SHARDSH_FUZZ_H
#define SHARDSH_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* tests/fuzz/fuzz_parser.c: parse, render errors, check and dry-run whatever the bytes say. */
void
fuzz_parser_one (const uint8_t *data, size_t size);

/* tests/fuzz/fuzz_render.c: when the bytes are a valid BSON document, format it and give it as the reply to every
 * command of the helpers: with everything, under every output option and every helper in every reply mode; without,
 * the share of those a hash of the bytes picks (what one fuzz input runs). Returns false when the bytes are not a
 * valid BSON document (nothing was run). */
bool
fuzz_render_one (const uint8_t *data, size_t size, bool everything);

/* tests/fuzz/fuzz_js_bridge.c: when the bytes are a valid BSON document, convert it to a JavaScript value and back
 * twice through the engine plugin; aborts when the second trip differs from the first. Returns false when the engine
 * could not be loaded (nothing was run). */
bool
fuzz_js_bridge_one (const uint8_t *data, size_t size);

/* tests/fuzz/fuzz_reply.c: when the bytes are a valid BSON document, the edge check a server's reply passes
 * (shell/lib/replyshape.h), then, when it accepts it, libmongoc's cursor and error readers over it. Returns false when
 * the bytes are not a valid BSON document (nothing was run). */
bool
fuzz_reply_one (const uint8_t *data, size_t size);

/* tests/fuzz/fuzz_numbers.c: the bytes become the number fields of every reply (int32, int64 or double as they
 * choose) while the dashboard collector samples twice, sh.status() and the advisor read them and --plan weighs a move:
 * every one of these consumers when everything, else the one the last byte picks. Returns false when there are too
 * few bytes (nothing was run). */
bool
fuzz_numbers_one (const uint8_t *data, size_t size, bool everything);

#endif
