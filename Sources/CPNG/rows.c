/* Packing canonical rows into a PNG's stored layout (see rows.h). */
#include "rows.h"

#include <string.h>

/* Packs one canonical row into the output layout (16-bit samples big-endian). */
void cpng_pack_row(const uint8_t *src, uint8_t *dst, uint32_t width, int bit_depth, int color_type) {
    /* Canonical channel indices kept by each color type, in output order. */
    static const int gray[] = {0}, gray_alpha[] = {0, 3}, rgb[] = {0, 1, 2}, rgba[] = {0, 1, 2, 3};
    const int *keep;
    int count;
    switch (color_type) {
    case CPNG_COLOR_GRAY: keep = gray; count = 1; break;
    case CPNG_COLOR_GRAY_ALPHA: keep = gray_alpha; count = 2; break;
    case CPNG_COLOR_RGB: keep = rgb; count = 3; break;
    default: keep = rgba; count = 4; break;
    }
    if (bit_depth == 16) {
        for (uint32_t x = 0; x < width; x++, src += 8) {
            for (int c = 0; c < count; c++) {
                uint16_t v = cpng_load16(src + 2 * keep[c]);
                *dst++ = (uint8_t)(v >> 8);
                *dst++ = (uint8_t)v;
            }
        }
    } else {
        for (uint32_t x = 0; x < width; x++, src += 4) {
            for (int c = 0; c < count; c++) *dst++ = src[keep[c]];
        }
    }
}
