/*
 * libFuzzer entry point for the PNG decoder (Scripts/fuzz builds it with
 * AddressSanitizer and UndefinedBehaviorSanitizer over the CPNG sources).
 *
 * Each input is decoded twice: through the normal entry point (the fast path
 * where it applies, libpng otherwise) and by libpng alone. They must agree:
 * both refuse it, or both decode it to the same pixels and the same kept
 * metadata. Any disagreement aborts, which libFuzzer reports with the input.
 */
#include "cpng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decodes with `flags`; returns the pixels (malloc'ed) or NULL when refused. */
static uint8_t *decode(const uint8_t *data, size_t size, int flags, size_t *bytes, size_t *chunk_bytes) {
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
    if (pixels == NULL || cpng_decoder_read_image(decoder, pixels, count, &status) != CPNG_OK) {
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
    size_t fast_bytes, fast_chunks, oracle_bytes, oracle_chunks;
    uint8_t *fast = decode(data, size, 0, &fast_bytes, &fast_chunks);
    uint8_t *oracle = decode(data, size, CPNG_LIBPNG_ONLY, &oracle_bytes, &oracle_chunks);
    int agree = (fast == NULL) == (oracle == NULL);
    if (agree && fast != NULL) {
        agree = fast_bytes == oracle_bytes && memcmp(fast, oracle, fast_bytes) == 0 && fast_chunks == oracle_chunks;
    }
    if (!agree) {
        fprintf(stderr, "fast path and libpng disagree: %s / %s\n", fast ? "decoded" : "refused",
                oracle ? "decoded" : "refused");
        abort();
    }
    free(fast);
    free(oracle);
    return 0;
}
