/* Deflate of a small image's filtered rows, whole, on the calling thread.
 *
 * Two coders: libdeflate at the requested level, which on icons is 2.4×
 * zlib's speed for 3 % smaller output, and Huffman coding alone
 * (huffman_block.c). On noise-like rows (a photo's or a noisy render's
 * thumbnail) matches cost more than they save: there libdeflate's output was
 * 12 % larger than libpng's zlib (Z_FILTERED), and Huffman coding alone is
 * smaller than both, at a fifth of libdeflate's time.
 *
 * Which to use is decided on a probe of the first 512 bytes: when libdeflate's
 * fastest level does no better there than Huffman coding alone, the rows are
 * taken for noise and Huffman-coded without searching for matches. Otherwise
 * libdeflate compresses them, and Huffman coding alone replaces its output
 * when smaller. Measured on the rows of 4,770 Adwaita icons at level 6: 0.2 % more bytes
 * than always trying both; on S1's outputs the same bytes, and the deflate
 * time per image from 83 µs to about 20.
 *
 * Every step is deterministic (integers only), so the same rows give the same
 * bytes on every run and every machine: resume relies on it. libdeflate's
 * compressors live per thread: allocating one costs a sixth of compressing a
 * 32×32 image. */
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

/* Filtered bytes below which Huffman coding alone is tried (the bound under which
 * images were deflated whole before larger held ones were too: their bytes stand). */
#define SMALL_IMAGE_BYTES (256 << 10)

/* Bytes of the probe that decides whether matches are worth searching for. */
#define PROBE_BYTES 512

/* Whether matches beat Huffman coding alone on the probe (the first PROBE_BYTES),
 * as found by libdeflate's `fastest` level. */
static int matches_pay(struct libdeflate_compressor *fastest, const uint8_t *raw) {
    uint8_t probe[PROBE_BYTES * 2];
    size_t size = libdeflate_deflate_compress(fastest, raw, PROBE_BYTES, probe, sizeof probe);
    return size > 0 && size < cpng_huffman_block_size(raw, PROBE_BYTES);
}

int cpng_deflate_whole(const uint8_t *raw, size_t raw_size, int level, cpng_buffer *out) {
    memset(out, 0, sizeof *out);
    if (level < 1 || level > CPNG_WHOLE_MAX_LEVEL) return 0;
    /* Huffman coding alone is for small images: above SMALL_IMAGE_BYTES the probe
     * (the start of the first row) says little about the rest, and on W1's outputs it
     * chose Huffman coding alone for 13 of 29 wallpapers, two of them then larger than
     * ISA-L's level 1; libdeflate alone compresses those. */
    int small = raw_size < SMALL_IMAGE_BYTES;
    /* Probe only where it is a small part of the work. */
    if (small && raw_size >= 4 * PROBE_BYTES) {
        struct libdeflate_compressor *fastest = thread_compressor(1);
        if (fastest == NULL) return 0;
        if (!matches_pay(fastest, raw)) return cpng_huffman_block(raw, raw_size, SIZE_MAX, out);
    }
    struct libdeflate_compressor *compressor = thread_compressor(level);
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
    /* Huffman coding alone spends at least a bit a byte: no use trying below that. */
    if (!small || out->size <= raw_size / 8) return 1;
    cpng_buffer literals;
    if (!cpng_huffman_block(raw, raw_size, out->size, &literals)) {
        cpng_buffer_free(out);
        return 0;
    }
    if (literals.size > 0) {
        cpng_buffer_free(out);
        *out = literals;
    }
    return 1;
}
