/*
 * libFuzzer entry point for the PNG decoder (Scripts/fuzz builds it with
 * AddressSanitizer and UndefinedBehaviorSanitizer over the CPNG sources).
 *
 * Each input is decoded three times: through the normal entry point (the fast
 * path where it applies, libpng otherwise), by libpng alone, and in strips of
 * rows as the streaming render stage reads it (strip heights from the input).
 * They must agree: all refuse it, or all decode it to the same pixels and the
 * same kept metadata. Any disagreement aborts, which libFuzzer reports with the input.
 */
#include "cpng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads the image in strips of `strip` rows (the last one shorter), then to IEND. */
static int read_strips(cpng_decoder *decoder, uint8_t *pixels, uint32_t height, size_t row, uint32_t strip,
                       cpng_status *status) {
    for (uint32_t y = 0; y < height; y += strip) {
        uint32_t count = height - y < strip ? height - y : strip;
        if (cpng_decoder_read_rows(decoder, pixels + (size_t)y * row, count, status) != CPNG_OK) return status->code;
    }
    return cpng_decoder_finish(decoder, status);
}

/* Decodes with `flags`, whole (`strip` 0) or in strips; returns the pixels
 * (malloc'ed) or NULL when refused. */
static uint8_t *decode(const uint8_t *data, size_t size, int flags, uint32_t strip, size_t *bytes, size_t *chunk_bytes) {
    cpng_info info;
    cpng_status status;
    *bytes = 0;
    *chunk_bytes = 0;
    /* A small pixel budget keeps each run fast: larger declared images are refused by both. */
    cpng_decoder *decoder = cpng_decoder_open_memory(data, size, 1024, flags | CPNG_KEEP_CHUNKS, &info, &status);
    if (decoder == NULL) return NULL;
    size_t count = (size_t)info.width * info.height * 4 * (info.bit_depth == 16 ? 2 : 1);
    if (count > ((size_t)1 << 24)) {
        cpng_decoder_close(decoder);
        return NULL;
    }
    uint8_t *pixels = malloc(count > 0 ? count : 1);
    int code = pixels == NULL ? CPNG_NO_MEMORY
             : strip == 0 ? cpng_decoder_read_image(decoder, pixels, count, &status)
             : read_strips(decoder, pixels, info.height, count / info.height, strip, &status);
    if (code != CPNG_OK) {
        free(pixels);
        cpng_decoder_close(decoder);
        return NULL;
    }
    size_t chunks = cpng_decoder_chunks(decoder, NULL, 0);
    cpng_chunk *list = calloc(chunks + 1, sizeof *list);
    cpng_decoder_chunks(decoder, list, chunks);
    for (size_t i = 0; i < chunks; i++) *chunk_bytes += list[i].size + (size_t)list[i].location * 7919;
    free(list);
    cpng_decoder_close(decoder);
    *bytes = count;
    return pixels;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t fast_bytes, fast_chunks, oracle_bytes, oracle_chunks, strips_bytes, strips_chunks;
    uint32_t strip = size > 0 ? 1 + data[size / 2] % 5 : 1;
    uint8_t *fast = decode(data, size, 0, 0, &fast_bytes, &fast_chunks);
    uint8_t *oracle = decode(data, size, CPNG_LIBPNG_ONLY, 0, &oracle_bytes, &oracle_chunks);
    uint8_t *strips = decode(data, size, 0, strip, &strips_bytes, &strips_chunks);
    int agree = (fast == NULL) == (oracle == NULL) && (fast == NULL) == (strips == NULL);
    if (agree && fast != NULL) {
        agree = fast_bytes == oracle_bytes && memcmp(fast, oracle, fast_bytes) == 0 && fast_chunks == oracle_chunks &&
                strips_bytes == fast_bytes && memcmp(fast, strips, fast_bytes) == 0 && strips_chunks == fast_chunks;
    }
    if (!agree) {
        fprintf(stderr, "decoders disagree (fast / libpng / strips of %u): %s / %s / %s\n", strip,
                fast ? "decoded" : "refused", oracle ? "decoded" : "refused", strips ? "decoded" : "refused");
        abort();
    }
    free(fast);
    free(oracle);
    free(strips);
    return 0;
}
