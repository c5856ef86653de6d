/* Internal: deflate by Huffman coding alone (no matches). */
#ifndef CPNG_HUFFMAN_BLOCK_H
#define CPNG_HUFFMAN_BLOCK_H

#include "cpng.h"

/* Writes `raw` into `out` (emptied on entry) as one final dynamic-Huffman
 * deflate block of literals, if that takes fewer than `limit` bytes; else
 * leaves `out` empty. Returns 0 only when memory runs out. */
int cpng_huffman_block(const uint8_t *raw, size_t raw_size, size_t limit, cpng_buffer *out);

/* The bytes `cpng_huffman_block` would write for `raw`, without writing them. */
size_t cpng_huffman_block_size(const uint8_t *raw, size_t raw_size);

#endif
