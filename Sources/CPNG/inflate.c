/* The zlib streams inside ancillary chunks (see cpng.h): checking them, making them. */
#include "cpng.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int cpng_inflate_check(const uint8_t *data, size_t size, size_t max_output, uint8_t *head, size_t head_size,
                       size_t *total) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (total != NULL) *total = 0;
    if (inflateInit(&stream) != Z_OK) return 1;
    uint8_t scratch[16384];
    size_t produced = 0;
    int result = Z_OK;
    /* zlib counts in uInt: feed large inputs in pieces. */
    const uint8_t *next = data;
    size_t left = size;
    while (result == Z_OK) {
        if (stream.avail_in == 0 && left > 0) {
            uInt piece = left > (1u << 30) ? (1u << 30) : (uInt)left;
            stream.next_in = (Bytef *)next;
            stream.avail_in = piece;
            next += piece;
            left -= piece;
        }
        stream.next_out = scratch;
        stream.avail_out = sizeof scratch;
        result = inflate(&stream, Z_NO_FLUSH);
        size_t got = sizeof scratch - stream.avail_out;
        if (head != NULL && produced < head_size) {
            size_t copy = head_size - produced < got ? head_size - produced : got;
            memcpy(head + produced, scratch, copy);
        }
        produced += got;
        if (produced > max_output) {
            inflateEnd(&stream);
            if (total != NULL) *total = produced;
            return 2;
        }
        /* No progress with nothing left to feed: the stream is cut short. */
        if (result == Z_BUF_ERROR || (result == Z_OK && got == 0 && stream.avail_in == 0 && left == 0)) break;
    }
    inflateEnd(&stream);
    if (total != NULL) *total = produced;
    return result == Z_STREAM_END && stream.avail_in == 0 && left == 0 ? 0 : 1;
}

int cpng_compress(const uint8_t *data, size_t size, cpng_buffer *output) {
    uLongf bound = compressBound((uLong)size);
    output->data = malloc(bound);
    output->size = 0;
    output->capacity = output->data != NULL ? bound : 0;
    if (output->data == NULL) return 0;
    if (compress2(output->data, &bound, data, (uLong)size, Z_BEST_COMPRESSION) != Z_OK) {
        cpng_buffer_free(output);
        return 0;
    }
    output->size = bound;
    return 1;
}
