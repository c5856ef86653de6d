/*
 * libFuzzer entry point for the WebP decoder (Scripts/fuzz builds it with
 * AddressSanitizer and UndefinedBehaviorSanitizer over the CWebP shim and
 * libwebp): header, metadata chunks and pixels of each input, which must
 * stay in bounds whether refused or decoded.
 */
#include "cwebp.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cwebp_info info;
    cwebp_status status;
    /* The header from the first bytes alone, as the planning reads it. */
    if (size > 64) (void)cwebp_read_info(data, size / 2, 0, &info, &status);
    if (cwebp_read_info(data, size, 1, &info, &status) != CWEBP_OK) return 0;
    cwebp_chunk icc, exif, xmp;
    if (cwebp_read_chunks(data, size, &icc, &exif, &xmp, &status) == CWEBP_OK) {
        cwebp_chunk *chunks[3] = {&icc, &exif, &xmp};
        for (int i = 0; i < 3; i++) {
            volatile uint8_t touch = chunks[i]->size > 0 ? chunks[i]->data[chunks[i]->size - 1] : 0;
            (void)touch;
        }
    }
    /* A small pixel budget keeps each run fast. */
    if ((uint64_t)info.width * info.height > (1u << 20)) return 0;
    size_t bytes = (size_t)info.width * info.height * 4;
    uint8_t *pixels = malloc(bytes > 0 ? bytes : 1);
    if (pixels != NULL) {
        cwebp_decode_rgba(data, size, pixels, bytes, (int)info.width, (int)info.height, &status);
        /* Shrunk on load, as kiln asks of an opaque image whose sides the factor divides: libwebp's rescaler. */
        if (info.width >= 2 && info.height >= 2) {
            cwebp_decode_rgba(data, size, pixels, bytes, (int)info.width / 2, (int)info.height / 2, &status);
        }
    }
    free(pixels);
    return 0;
}
