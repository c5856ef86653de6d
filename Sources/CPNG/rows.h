/* Internal: one canonical RGBA row in a PNG's stored layout, shared by the
 * libpng and the fast encoders. */
#ifndef CPNG_ROWS_H
#define CPNG_ROWS_H

#include "cpng.h"

#include <string.h>

/* A host-endian 16-bit sample at any alignment. */
static inline uint16_t cpng_load16(const uint8_t *p) {
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Packs `width` canonical pixels (8 or 16 bits, host-endian) into the channels
 * of `color_type` (gray taken from red; 16-bit samples big-endian). */
void cpng_pack_row(const uint8_t *src, uint8_t *dst, uint32_t width, int bit_depth, int color_type);

#endif
