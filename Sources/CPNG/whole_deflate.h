/* Internal: deflate of a small image's filtered rows in one call. */
#ifndef CPNG_WHOLE_DEFLATE_H
#define CPNG_WHOLE_DEFLATE_H

#include "cpng.h"

/* The highest level `cpng_deflate_whole` takes (libdeflate's). */
#define CPNG_WHOLE_MAX_LEVEL 12

/* Deflates all of `raw` into `out` (empty on entry) as a final raw deflate
 * stream at `level` (1-12). The same bytes always give the same output.
 * Returns 0 when memory runs out. */
int cpng_deflate_whole(const uint8_t *raw, size_t raw_size, int level, cpng_buffer *out);

#endif
