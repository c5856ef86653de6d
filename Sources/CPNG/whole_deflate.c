/* Deflate of a small image's filtered rows, whole, on the calling thread.
 *
 * libdeflate at the requested level, which on icons is 2.4× zlib's speed for
 * 3 % smaller output; then Huffman coding alone (huffman_block.c), kept when
 * smaller. On noise-like rows (a photo's or a noisy render's thumbnail)
 * matches cost more than they save: there libdeflate's output was 12 % larger
 * than libpng's zlib (Z_FILTERED), and Huffman coding alone is smaller than
 * both. Deciding costs one count of the bytes; only a smaller block is
 * written. Both coders are deterministic, so the same rows give the same bytes
 * on every run and every machine: resume relies on it.
 *
 * libdeflate's compressors live per thread: allocating one costs a sixth of
 * compressing a 32×32 image. */
#include "whole_deflate.h"
#include "huffman_block.h"

#include <libdeflate.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_key_t compressors_key;
static int compressors_key_made;
static pthread_once_t compressors_once = PTHREAD_ONCE_INIT;

static void free_compressors(void *list) {
    struct libdeflate_compressor **compressors = list;
    for (int i = 0; i <= CPNG_WHOLE_MAX_LEVEL; i++) libdeflate_free_compressor(compressors[i]);
    free(compressors);
}

static void make_compressors_key(void) {
    compressors_key_made = pthread_key_create(&compressors_key, free_compressors) == 0;
}

/* This thread's compressor for `level`; NULL when memory runs out. */
static struct libdeflate_compressor *thread_compressor(int level) {
    pthread_once(&compressors_once, make_compressors_key);
    if (!compressors_key_made) return NULL;
    struct libdeflate_compressor **compressors = pthread_getspecific(compressors_key);
    if (compressors == NULL) {
        compressors = calloc(CPNG_WHOLE_MAX_LEVEL + 1, sizeof *compressors);
        if (compressors == NULL) return NULL;
        if (pthread_setspecific(compressors_key, compressors) != 0) {
            free(compressors);
            return NULL;
        }
    }
    if (compressors[level] == NULL) compressors[level] = libdeflate_alloc_compressor(level);
    return compressors[level];
}

int cpng_deflate_whole(const uint8_t *raw, size_t raw_size, int level, cpng_buffer *out) {
    memset(out, 0, sizeof *out);
    if (level < 1 || level > CPNG_WHOLE_MAX_LEVEL) return 0;
    struct libdeflate_compressor *compressor = thread_compressor(level);
    if (compressor == NULL) return 0;
    size_t bound = libdeflate_deflate_compress_bound(compressor, raw_size);
    out->data = malloc(bound);
    if (out->data == NULL) return 0;
    out->capacity = bound;
    out->size = libdeflate_deflate_compress(compressor, raw, raw_size, out->data, bound);
    cpng_buffer literals;
    if (out->size == 0 || !cpng_huffman_block(raw, raw_size, out->size, &literals)) {
        cpng_buffer_free(out);
        return 0;
    }
    if (literals.size > 0) {
        cpng_buffer_free(out);
        *out = literals;
    }
    return 1;
}
