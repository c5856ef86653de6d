/* Deflate of a small image's filtered rows, whole, on the calling thread.
 *
 * libdeflate at the requested level, which on icons is 2.4× zlib's speed for
 * 3 % smaller output. Where its matches do not beat the bytes' own order-0
 * entropy (noise-like rows: a photo's or a noisy render's thumbnail), zlib's
 * Huffman-only coding is tried too and the smaller kept: on such rows
 * libdeflate's output was 12 % larger than libpng's zlib (Z_FILTERED), and
 * Huffman coding alone is smaller than both. Both coders and the choice are
 * deterministic (the entropy is computed in integers), so the same rows give
 * the same bytes on every run and every machine: resume relies on it.
 *
 * The coders live per thread: allocating a libdeflate compressor costs a
 * sixth of compressing a 32×32 image, and zlib's set-up more than its work. */
#include "whole_deflate.h"

#include <libdeflate.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct coders {
    struct libdeflate_compressor *libdeflate[CPNG_WHOLE_MAX_LEVEL + 1];
    z_stream huffman;
    int huffman_ready;
} coders;

static pthread_key_t coders_key;
static int coders_key_made;
static pthread_once_t coders_once = PTHREAD_ONCE_INIT;

static void free_coders(void *pointer) {
    coders *c = pointer;
    for (int i = 0; i <= CPNG_WHOLE_MAX_LEVEL; i++) libdeflate_free_compressor(c->libdeflate[i]);
    if (c->huffman_ready) deflateEnd(&c->huffman);
    free(c);
}

static void make_coders_key(void) {
    coders_key_made = pthread_key_create(&coders_key, free_coders) == 0;
}

/* This thread's coders; NULL when memory runs out. */
static coders *thread_coders(void) {
    pthread_once(&coders_once, make_coders_key);
    if (!coders_key_made) return NULL;
    coders *c = pthread_getspecific(coders_key);
    if (c == NULL) {
        c = calloc(1, sizeof *c);
        if (c == NULL) return NULL;
        if (pthread_setspecific(coders_key, c) != 0) {
            free(c);
            return NULL;
        }
    }
    return c;
}

/* log2(x) in 16.16 fixed point, x > 0, by integer arithmetic only (bit by bit:
 * squaring the mantissa doubles its logarithm). */
static uint64_t log2_fixed(uint32_t x) {
    int whole = 31 - __builtin_clz(x);
    uint64_t result = (uint64_t)whole << 16;
    uint64_t mantissa = ((uint64_t)x << 31) >> whole; /* x / 2^whole in [1, 2), as Q31 */
    for (int bit = 15; bit >= 0; bit--) {
        mantissa = (mantissa * mantissa) >> 31;
        if (mantissa >= (1ull << 32)) {
            mantissa >>= 1;
            result |= 1ull << bit;
        }
    }
    return result;
}

/* The bytes' order-0 entropy in bytes: about what Huffman coding alone makes of them. */
static size_t entropy_bytes(const uint8_t *raw, uint32_t size) {
    uint32_t counts[256] = {0};
    for (uint32_t i = 0; i < size; i++) counts[raw[i]]++;
    uint64_t log_size = log2_fixed(size), bits = 0;
    for (int symbol = 0; symbol < 256; symbol++) {
        if (counts[symbol] > 0) bits += (uint64_t)counts[symbol] * (log_size - log2_fixed(counts[symbol]));
    }
    return (size_t)(bits >> 19); /* 16 fraction bits, 8 bits a byte */
}

/* zlib's Huffman-only raw deflate of `raw`; 0 when memory runs out. */
static int huffman_only(coders *c, const uint8_t *raw, size_t raw_size, cpng_buffer *out) {
    if (!c->huffman_ready) {
        if (deflateInit2(&c->huffman, 6, Z_DEFLATED, -15, 8, Z_HUFFMAN_ONLY) != Z_OK) return 0;
        c->huffman_ready = 1;
    } else if (deflateReset(&c->huffman) != Z_OK) {
        return 0;
    }
    size_t bound = deflateBound(&c->huffman, (uLong)raw_size);
    out->data = malloc(bound);
    if (out->data == NULL) return 0;
    out->capacity = bound;
    c->huffman.next_in = (Bytef *)raw;
    c->huffman.avail_in = (uInt)raw_size;
    c->huffman.next_out = out->data;
    c->huffman.avail_out = (uInt)bound;
    if (deflate(&c->huffman, Z_FINISH) != Z_STREAM_END) return 0;
    out->size = bound - c->huffman.avail_out;
    return 1;
}

int cpng_deflate_whole(const uint8_t *raw, size_t raw_size, int level, cpng_buffer *out) {
    memset(out, 0, sizeof *out);
    coders *c = thread_coders();
    if (c == NULL || level < 1 || level > CPNG_WHOLE_MAX_LEVEL) return 0;
    if (c->libdeflate[level] == NULL) c->libdeflate[level] = libdeflate_alloc_compressor(level);
    struct libdeflate_compressor *compressor = c->libdeflate[level];
    if (compressor == NULL) return 0;
    size_t bound = libdeflate_deflate_compress_bound(compressor, raw_size);
    out->data = malloc(bound);
    if (out->data == NULL) return 0;
    out->capacity = bound;
    out->size = libdeflate_deflate_compress(compressor, raw, raw_size, out->data, bound);
    if (out->size == 0) {
        cpng_buffer_free(out);
        return 0;
    }
    /* zlib takes at most UINT_MAX bytes in one call; images this path sees are far smaller. */
    if (raw_size <= UINT32_MAX && out->size > entropy_bytes(raw, (uint32_t)raw_size)) {
        cpng_buffer alternative = {0};
        if (!huffman_only(c, raw, raw_size, &alternative)) {
            cpng_buffer_free(&alternative);
            cpng_buffer_free(out);
            return 0;
        }
        if (alternative.size < out->size) {
            cpng_buffer_free(out);
            *out = alternative;
        } else {
            cpng_buffer_free(&alternative);
        }
    }
    return 1;
}
