/* Packing canonical rows into a PNG's stored layout, and the scan that finds
 * the exact smaller layouts an image allows (see rows.h, cpng.h). */
#include "rows.h"
#include <kiln_clones.h>

#include <string.h>

/* Samples per pixel a colour type stores. */
static int channels(int color_type) {
    switch (color_type) {
    case CPNG_COLOR_GRAY: case CPNG_COLOR_PALETTE: return 1;
    case CPNG_COLOR_GRAY_ALPHA: return 2;
    case CPNG_COLOR_RGB: return 3;
    default: return 4;
    }
}

size_t cpng_format_row_bytes(const cpng_format *format, uint32_t width) {
    return ((size_t)width * (size_t)channels(format->color_type) * (size_t)format->bit_depth + 7) / 8;
}

size_t cpng_filter_bpp(const cpng_format *format) {
    size_t bits = (size_t)channels(format->color_type) * (size_t)format->bit_depth;
    return bits < 8 ? 1 : bits / 8;
}

void cpng_color_table_init(cpng_color_table *table) {
    memset(table->index, 0xff, sizeof table->index);
}

/* Canonical sample `c` of the pixel at `src`, as 8 bits (a 16-bit one's high byte). */
static inline unsigned sample8(const uint8_t *src, int c, int wide) {
    return wide ? (unsigned)(cpng_load16(src + 2 * c) >> 8) : src[c];
}

/* An 8-bit RGBA colour as the colour table keys it. */
static inline uint32_t color_key(unsigned r, unsigned g, unsigned b, unsigned a) {
    return (uint32_t)r | (uint32_t)g << 8 | (uint32_t)b << 16 | (uint32_t)a << 24;
}

int cpng_format_valid(const cpng_format *format) {
    int ct = format->color_type, depth = format->bit_depth;
    int low = depth == 1 || depth == 2 || depth == 4;
    int palette = ct == CPNG_COLOR_PALETTE;
    return (format->row_depth == 8 || format->row_depth == 16) && depth <= format->row_depth &&
                (palette ? (low || depth == 8) && format->palette != NULL && format->palette_size >= 1 &&
                               format->palette_size <= 1 << depth
                 : ct == CPNG_COLOR_GRAY ? low || depth == 8 || depth == 16
                 : (ct == CPNG_COLOR_GRAY_ALPHA || ct == CPNG_COLOR_RGB || ct == CPNG_COLOR_RGBA) &&
                       (depth == 8 || depth == 16)) &&
           (!format->keyed || ct == CPNG_COLOR_GRAY || ct == CPNG_COLOR_RGB);
}

unsigned cpng_stored_sample(const cpng_format *format, unsigned value) {
    unsigned eight = format->row_depth == 16 ? value >> 8 : value;
    return format->bit_depth == 16 ? value : eight >> (8 - format->bit_depth);
}

int cpng_packer_init(cpng_packer *packer, const cpng_format *format) {
    if (!cpng_format_valid(format)) return 0;
    int palette = format->color_type == CPNG_COLOR_PALETTE;
    packer->format = *format;
    cpng_color_table_init(&packer->table);
    for (int i = 0; palette && i < format->palette_size; i++) {
        const uint8_t *e = format->palette + 4 * i;
        uint32_t color = color_key(e[0], e[1], e[2], e[3]);
        size_t slot = cpng_color_slot(&packer->table, color);
        packer->table.color[slot] = color;
        packer->table.index[slot] = (int16_t)i;
    }
    return 1;
}

/* The 8-bit layouts, each one loop the compiler vectorizes: a generic loop over
 * kept channels took 23 % of a level-1 re-encode of the 400 MPix gradient. */
VECTOR_CLONES static int pack_row8(const uint8_t *restrict src, uint8_t *restrict dst, uint32_t width,
                                   int color_type) {
    switch (color_type) {
    case CPNG_COLOR_RGBA:
        memcpy(dst, src, (size_t)width * 4);
        return 1;
    case CPNG_COLOR_RGB:
        for (uint32_t x = 0; x < width; x++) {
            dst[3 * x] = src[4 * x];
            dst[3 * x + 1] = src[4 * x + 1];
            dst[3 * x + 2] = src[4 * x + 2];
        }
        return 1;
    case CPNG_COLOR_GRAY:
        for (uint32_t x = 0; x < width; x++) dst[x] = src[4 * x];
        return 1;
    case CPNG_COLOR_GRAY_ALPHA:
        for (uint32_t x = 0; x < width; x++) {
            dst[2 * x] = src[4 * x];
            dst[2 * x + 1] = src[4 * x + 3];
        }
        return 1;
    default:
        return 0;
    }
}

void cpng_pack_row(const cpng_packer *packer, const uint8_t *src, uint8_t *dst, uint32_t width) {
    const cpng_format *f = &packer->format;
    if (f->row_depth == 8 && f->bit_depth == 8 && pack_row8(src, dst, width, f->color_type)) return;
    int wide = f->row_depth == 16;
    size_t step = wide ? 8 : 4;
    if (f->color_type == CPNG_COLOR_PALETTE || f->bit_depth < 8) {
        /* One sample per pixel (an index, or a gray value whose top bits are
         * exact: cpng_analyze_rgba said so), packed most significant first. */
        int depth = f->bit_depth, filled = 0;
        unsigned byte = 0, index = 0;
        uint32_t previous = 0;
        int have_previous = 0;
        for (uint32_t x = 0; x < width; x++, src += step) {
            unsigned value;
            if (f->color_type == CPNG_COLOR_PALETTE) {
                uint32_t color = color_key(sample8(src, 0, wide), sample8(src, 1, wide), sample8(src, 2, wide),
                                           sample8(src, 3, wide));
                if (!have_previous || color != previous) {
                    index = (unsigned)packer->table.index[cpng_color_slot(&packer->table, color)];
                    previous = color;
                    have_previous = 1;
                }
                value = index;
            } else {
                value = sample8(src, 0, wide) >> (8 - depth);
            }
            byte = byte << depth | value;
            filled += depth;
            if (filled == 8) {
                *dst++ = (uint8_t)byte;
                byte = 0;
                filled = 0;
            }
        }
        if (filled > 0) *dst = (uint8_t)(byte << (8 - filled));
        return;
    }
    /* Canonical channel indices kept by each color type, in output order. */
    static const int gray[] = {0}, gray_alpha[] = {0, 3}, rgb[] = {0, 1, 2}, rgba[] = {0, 1, 2, 3};
    const int *keep;
    int count = channels(f->color_type);
    switch (f->color_type) {
    case CPNG_COLOR_GRAY: keep = gray; break;
    case CPNG_COLOR_GRAY_ALPHA: keep = gray_alpha; break;
    case CPNG_COLOR_RGB: keep = rgb; break;
    default: keep = rgba; break;
    }
    if (f->bit_depth == 16) {
        for (uint32_t x = 0; x < width; x++, src += 8) {
            for (int c = 0; c < count; c++) {
                uint16_t v = cpng_load16(src + 2 * keep[c]);
                *dst++ = (uint8_t)(v >> 8);
                *dst++ = (uint8_t)v;
            }
        }
    } else {
        /* 8 bits stored: the samples themselves, or 16-bit ones that are 257 * k, as k. */
        for (uint32_t x = 0; x < width; x++, src += step) {
            for (int c = 0; c < count; c++) *dst++ = (uint8_t)sample8(src, keep[c], wide);
        }
    }
}

/* Whether every pixel is gray and every one opaque: branch-free accumulation in
 * blocks of pixels (vectorized), stopping once both answers are no. */
VECTOR_CLONES static void scan_gray_opaque(const uint8_t *p, size_t pixel_count, int wide, int *all_gray,
                                           int *all_opaque) {
    int gray = 1, opaque = 1;
    size_t step = wide ? 8 : 4, block = 1024;
    for (size_t start = 0; start < pixel_count && (gray || opaque); start += block) {
        size_t end = pixel_count - start < block ? pixel_count : start + block;
        unsigned colour = 0, transparent = 0;
        if (wide) {
            for (size_t i = start; i < end; i++) {
                const uint8_t *q = p + i * step;
                uint16_t r = cpng_load16(q), g = cpng_load16(q + 2), b = cpng_load16(q + 4), a = cpng_load16(q + 6);
                colour |= (unsigned)(r ^ g) | (unsigned)(g ^ b);
                transparent |= (unsigned)(a ^ 0xffff);
            }
        } else {
            for (size_t i = start; i < end; i++) {
                const uint8_t *q = p + i * step;
                colour |= (unsigned)(q[0] ^ q[1]) | (unsigned)(q[1] ^ q[2]);
                transparent |= (unsigned)(q[3] ^ 0xff);
            }
        }
        gray &= colour == 0;
        opaque &= transparent == 0;
    }
    *all_gray = gray;
    *all_opaque = opaque;
}

/* How many of the first `pixel_count` pixels are opaque, counted in whole blocks
 * (vectorized): a count short of `pixel_count` ends before the block holding the
 * first pixel that is not. */
VECTOR_CLONES static size_t opaque_prefix(const uint8_t *p, size_t pixel_count, int wide) {
    size_t step = wide ? 8 : 4, block = 1024, start = 0;
    for (; start < pixel_count; start += block) {
        size_t end = pixel_count - start < block ? pixel_count : start + block;
        unsigned transparent = 0;
        if (wide) {
            for (size_t i = start; i < end; i++) transparent |= (unsigned)(cpng_load16(p + i * step + 6) ^ 0xffff);
        } else {
            for (size_t i = start; i < end; i++) transparent |= (unsigned)(p[i * step + 3] ^ 0xff);
        }
        if (transparent != 0) break;
    }
    return start < pixel_count ? start : pixel_count;
}

void cpng_analyze_rgba(const void *pixels, size_t pixel_count, int bit_depth, int exhaustive, cpng_analysis *out) {
    const uint8_t *p = pixels;
    int wide = bit_depth == 16;
    size_t step = wide ? 8 : 4;
    unsigned top = wide ? 0xffff : 0xff;
    int gray = 1, opaque = 1, fits = 1;
    memset(out, 0, sizeof *out);
    if (!exhaustive) {
        scan_gray_opaque(p, pixel_count, wide, &gray, &opaque);
        out->all_gray = gray;
        out->all_opaque = opaque;
        return;
    }
    /* Bit d set while every gray value is exact at depth 1 << d (1, 2, 4):
     * a multiple of 255, 85 or 17 (bit replication of a 1-, 2- or 4-bit value). */
    unsigned exact_low = 0x7;
    int colors = 0; /* distinct colours so far, -1 past 256 */
    uint32_t seen[256];
    size_t uses[256] = {0}; /* pixels of each colour */
    int previous_index = 0;
    cpng_color_table table;
    cpng_color_table_init(&table);
    uint32_t previous = 0;
    int have_previous = 0;
    int key_state = 0; /* 0: no transparent pixel yet, 1: a key so far, -1: none can be */
    unsigned key[3] = {0, 0, 0};
    for (size_t i = 0; i < pixel_count; i++, p += step) {
        /* Once all that is left to learn is whether some pixel is not opaque (a colour
         * image of more than 256 colours, no transparent pixel yet), opaque pixels change
         * nothing: skipped a block at a time (they took 9 % of W1's CPU at level 1, one at a time). */
        if (colors < 0 && !gray && opaque && key_state == 0 && !(wide && fits)) {
            size_t skip = opaque_prefix(p, pixel_count - i, wide);
            i += skip;
            p += skip * step;
            if (i == pixel_count) break;
        }
        unsigned s[4];
        for (int c = 0; c < 4; c++) {
            if (wide) {
                uint16_t v = cpng_load16(p + 2 * c);
                fits &= (v >> 8) == (v & 0xff);
                s[c] = v >> 8;
            } else {
                s[c] = p[c];
            }
        }
        /* 8-bit values compare as the 16-bit ones do while every sample fits. */
        gray &= wide && !fits ? cpng_load16(p) == cpng_load16(p + 2) && cpng_load16(p + 2) == cpng_load16(p + 4)
                              : s[0] == s[1] && s[1] == s[2];
        opaque &= wide ? cpng_load16(p + 6) == 0xffff : s[3] == 0xff;
        if (gray) exact_low &= (s[0] % 255 == 0) | (s[0] % 85 == 0) << 1 | (s[0] % 17 == 0) << 2;
        if (key_state >= 0) {
            unsigned v[4];
            for (int c = 0; c < 4; c++) v[c] = wide ? cpng_load16(p + 2 * c) : p[c];
            int is_key = key_state == 1 && v[0] == key[0] && v[1] == key[1] && v[2] == key[2];
            if (v[3] != 0 && v[3] != top) {
                key_state = -1;
            } else if (v[3] == top) {
                if (is_key) key_state = -1;
            } else if (key_state == 0) {
                /* The first transparent pixel names the key; no opaque pixel before it may have its colour. */
                memcpy(key, v, sizeof key);
                key_state = 1;
                for (const uint8_t *q = pixels; q < p && key_state == 1; q += step) {
                    for (int c = 0; c < 3; c++) v[c] = wide ? cpng_load16(q + 2 * c) : q[c];
                    if (v[0] == key[0] && v[1] == key[1] && v[2] == key[2]) key_state = -1;
                }
            } else if (!is_key) {
                key_state = -1;
            }
        }
        if (!fits) colors = -1;
        if (colors >= 0) {
            uint32_t color = color_key(s[0], s[1], s[2], s[3]);
            if (!have_previous || color != previous) {
                size_t slot = cpng_color_slot(&table, color);
                if (table.index[slot] < 0) {
                    if (colors == 256) {
                        colors = -1;
                    } else {
                        table.color[slot] = color;
                        table.index[slot] = (int16_t)colors;
                        seen[colors++] = color;
                    }
                }
                if (colors >= 0) previous_index = table.index[cpng_color_slot(&table, color)];
                previous = color;
                have_previous = 1;
            }
            if (colors >= 0) uses[previous_index]++;
        }
        if (colors < 0 && !gray && !opaque && !(wide && fits) && key_state < 0) break; /* nothing left to learn */
    }
    out->all_gray = gray;
    out->all_opaque = opaque;
    out->fits_8 = fits;
    if (key_state == 1) {
        out->keyed = 1;
        memcpy(out->key, key, sizeof key);
    }
    if (gray && fits) out->gray_depth = exact_low & 1 ? 1 : exact_low & 2 ? 2 : exact_low & 4 ? 4 : 8;
    if (colors > 0) {
        /* The non-opaque colours first (tRNS then ends at the last of them), each group the most used
         * first, then in order of appearance: an insertion sort of at most 256 entries. */
        int order[256];
        for (int i = 0; i < colors; i++) {
            int j = i;
            for (; j > 0; j--) {
                int a = order[j - 1];
                int opaque_a = (seen[a] >> 24) == 0xff, opaque_i = (seen[i] >> 24) == 0xff;
                if (opaque_a < opaque_i || (opaque_a == opaque_i && uses[a] >= uses[i])) break;
                order[j] = a;
            }
            order[j] = i;
        }
        for (int n = 0; n < colors; n++)
            for (int c = 0; c < 4; c++) out->palette[4 * n + c] = (uint8_t)(seen[order[n]] >> (8 * c));
        out->palette_size = colors;
    }
}
