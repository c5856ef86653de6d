/*
 * libFuzzer entry point for the whole-image deflater of small images
 * (Scripts/fuzz builds it with AddressSanitizer and UndefinedBehaviorSanitizer
 * over the CPNG sources).
 *
 * Each input, taken as filtered rows, is deflated by Huffman coding alone
 * (huffman_block.c: code lengths limited to 15 bits, run-length coded code
 * lengths) and by cpng_deflate_whole at a level taken from its first byte.
 * Both streams must inflate, by zlib and by ISA-L (the two inflaters of the
 * decoder), to exactly the input; the Huffman block must take the size it
 * computed, and must be written only when smaller than the limit it is given.
 * Any failure aborts, which libFuzzer reports with the input.
 */
#include "huffman_block.h"
#include "whole_deflate.h"

#include <isa-l/igzip_lib.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Inflates the raw deflate stream with zlib and with ISA-L; aborts unless both give `raw`. */
static void expect_inflates_to(const cpng_buffer *stream, const uint8_t *raw, size_t size) {
    uint8_t *back = malloc(size + 64);
    if (back == NULL) abort();
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -15) != Z_OK) abort();
    z.next_in = stream->data;
    z.avail_in = (uInt)stream->size;
    z.next_out = back;
    z.avail_out = (uInt)(size + 64);
    int result = inflate(&z, Z_FINISH);
    if (result != Z_STREAM_END || z.total_out != size || z.avail_in != 0 || memcmp(back, raw, size) != 0) abort();
    inflateEnd(&z);
    struct inflate_state isal;
    isal_inflate_init(&isal);
    isal.next_in = stream->data;
    isal.avail_in = (uint32_t)stream->size;
    isal.next_out = back;
    isal.avail_out = (uint32_t)(size + 64);
    if (isal_inflate_stateless(&isal) != ISAL_DECOMP_OK || isal.total_out != size || memcmp(back, raw, size) != 0) {
        abort();
    }
    free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cpng_buffer literals;
    if (!cpng_huffman_block(data, size, SIZE_MAX, &literals) || literals.size == 0) abort();
    expect_inflates_to(&literals, data, size);
    /* Given its own size as the limit it must write nothing; one more, the same block. */
    cpng_buffer again;
    if (!cpng_huffman_block(data, size, literals.size, &again) || again.size != 0) abort();
    if (!cpng_huffman_block(data, size, literals.size + 1, &again) || again.size != literals.size ||
        memcmp(again.data, literals.data, literals.size) != 0) {
        abort();
    }
    cpng_buffer_free(&again);
    cpng_buffer_free(&literals);

    int level = size > 0 ? 1 + data[0] % CPNG_WHOLE_MAX_LEVEL : 6;
    cpng_buffer whole;
    if (!cpng_deflate_whole(data, size, level, &whole)) abort();
    expect_inflates_to(&whole, data, size);
    cpng_buffer_free(&whole);
    return 0;
}
