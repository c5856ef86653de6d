/* Internal: one canonical RGBA row in a PNG's stored layout, shared by the
 * libpng and the fast encoders, and the colour table a palette needs. */
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

/* Slots of a colour table: four times the most colours a palette holds. */
#define CPNG_TABLE_SLOTS 1024

/* An open-addressing set of 8-bit RGBA colours (packed in a uint32_t), each
 * with its palette index. */
typedef struct cpng_color_table {
    uint32_t color[CPNG_TABLE_SLOTS];
    int16_t index[CPNG_TABLE_SLOTS]; /* -1: an empty slot */
} cpng_color_table;

void cpng_color_table_init(cpng_color_table *table);

/* The slot holding `color`, or the empty one where it would go. */
static inline size_t cpng_color_slot(const cpng_color_table *table, uint32_t color) {
    size_t slot = (uint32_t)(color * 2654435761u) >> 22; /* Fibonacci hashing into 1024 slots */
    while (table->index[slot] >= 0 && table->color[slot] != color) slot = (slot + 1) % CPNG_TABLE_SLOTS;
    return slot;
}

/* What packing rows into one output's layout needs: its format and, for a
 * palette, each colour's index. */
typedef struct cpng_packer {
    cpng_format format;
    cpng_color_table table;
} cpng_packer;

/* Whether `format` is one the encoders write (a valid PNG layout of such rows). */
int cpng_format_valid(const cpng_format *format);

/* A packer for `format` (its palette is read here only); 0 when the format is not valid. */
int cpng_packer_init(cpng_packer *packer, const cpng_format *format);

/* Whether rows of `format` are written unfiltered: a palette or a depth under
 * 8, as the PNG specification advises (their bytes are not sample values). */
static inline int cpng_unfiltered(const cpng_format *format) {
    return format->color_type == CPNG_COLOR_PALETTE || format->bit_depth < 8;
}

/* The stored value of canonical sample `value` (a tRNS key's) in `format`. */
unsigned cpng_stored_sample(const cpng_format *format, unsigned value);

/* Filtering's bytes per pixel (at least 1). */
size_t cpng_filter_bpp(const cpng_format *format);

/* Packs `width` canonical pixels (the format's row depth, host-endian) into
 * the packer's layout: gray taken from red, 16-bit samples big-endian, sub-byte
 * samples most significant first. */
void cpng_pack_row(const cpng_packer *packer, const uint8_t *src, uint8_t *dst, uint32_t width);

#endif
