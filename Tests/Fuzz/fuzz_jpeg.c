/*
 * libFuzzer entry point for the JPEG decoder (Scripts/fuzz builds it with
 * AddressSanitizer and UndefinedBehaviorSanitizer over the CJPEG sources and
 * libjpeg-turbo). Each input is opened from memory, scaled by a DCT factor
 * the input's last byte picks, its progress heard (a file of several scans is
 * read whole before its first row), read in strips of rows (heights from the
 * input) and finished: any path, refused or decoded, must stay in bounds and
 * never jump out of the C entry points.
 */
#include "cjpeg.h"

#include <stdlib.h>

/* The fractions heard must rise within 0…1. */
static void heard(void *context, double fraction) {
    double *last = context;
    if (fraction < *last || fraction > 1) abort();
    *last = fraction;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cjpeg_info info;
    cjpeg_status status;
    cjpeg_decoder *decoder = cjpeg_decoder_open_memory(data, size, &info, &status);
    if (decoder == NULL) return 0;
    cjpeg_marker markers[16];
    size_t count = cjpeg_decoder_markers(decoder, markers, 16);
    for (size_t i = 0; i < count && i < 16; i++) {
        volatile uint8_t touch = markers[i].size > 0 ? markers[i].data[markers[i].size - 1] : 0;
        (void)touch;
    }
    int scales[4] = {1, 2, 4, 8};
    uint8_t last = size > 0 ? data[size - 1] : 0;
    /* A small pixel budget keeps each run fast. */
    if ((uint64_t)info.image_width * info.image_height > (1u << 20)
        || cjpeg_decoder_scale(decoder, scales[last & 3], &info, &status) != CJPEG_OK) {
        cjpeg_decoder_close(decoder);
        return 0;
    }
    double reported = 0;
    cjpeg_decoder_on_progress(decoder, heard, &reported);
    if (info.held_bytes > 0 && !info.progressive && info.components == 1) abort(); /* one component: one scan */
    uint32_t strip = 1 + (last >> 2) % 17;
    uint8_t *rows = malloc((size_t)info.width * 4 * strip);
    for (uint32_t y = 0; rows != NULL && y < info.height; y += strip) {
        uint32_t n = info.height - y < strip ? info.height - y : strip;
        /* Every other strip is skipped (NULL), as a render that needs only some rows does. */
        if (cjpeg_decoder_read_rows(decoder, (y / strip) % 2 ? NULL : rows, n, &status) != CJPEG_OK) break;
    }
    if (status.code == CJPEG_OK) cjpeg_decoder_finish(decoder, &status);
    free(rows);
    cjpeg_decoder_close(decoder);
    return 0;
}
