/* The decoder's state, shared by the libpng path (decode.c) and the fast
 * path (fast_decode.c). Internal: not part of the module's API. */
#ifndef CPNG_DECODER_H
#define CPNG_DECODER_H

#include "cpng.h"

#include <png.h>
#include <stdio.h>

#define CHUNK_TYPE(a, b, c, d) \
    (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))
#define TYPE_IHDR CHUNK_TYPE('I', 'H', 'D', 'R')
#define TYPE_IDAT CHUNK_TYPE('I', 'D', 'A', 'T')
#define TYPE_IEND CHUNK_TYPE('I', 'E', 'N', 'D')
#define TYPE_PLTE CHUNK_TYPE('P', 'L', 'T', 'E')

/* Largest ancillary chunk held in memory; larger ones are errors (libpng) or
 * leave the fast path. */
#define MAX_CHUNK_BYTES ((png_alloc_size_t)32 << 20)
/* Most ancillary chunks kept (a flood of tiny chunks is an attack too). */
#define MAX_CACHED_CHUNKS 1000
/* Most bytes of ancillary chunks one decoder keeps (CPNG_KEEP_CHUNKS). */
#define MAX_KEPT_BYTES ((size_t)64 << 20)

typedef struct fast_decoder fast_decoder;

struct cpng_decoder {
    png_structp png;
    png_infop info;
    /* The source: either memory ... */
    const uint8_t *data;
    size_t size;
    size_t offset;
    /* ... or a file. */
    FILE *file;
    /* Where callbacks report: the caller's status, set by each entry point
     * (callbacks only run inside one). */
    cpng_status *status;
    uint32_t max_dimension;
    /* Header of the chunk being read, seen by the read callback. */
    uint32_t chunk_type;
    uint32_t chunk_length;
    /* The raw IHDR fields, to explain an IHDR that libpng rejects. */
    uint8_t ihdr[13];
    int have_ihdr;
    /* png_read_info finished: the first IDAT was reached. */
    int reached_image;
    /* Rows: how many, how many delivered so far, bytes per canonical row. */
    uint32_t height;
    uint32_t next_row;
    size_t canonical_row;
    int interlaced;
    /* libpng's transforms to canonical RGBA are set up. */
    int prepared;
    /* A read failed (libpng's state is then undefined: no second attempt), or
     * the stream was read to IEND. */
    int failed;
    int finished;
    /* A palette image's colours, expanded here rather than by libpng so that
     * indices past PLTE are seen: libpng draws them opaque black and, at 8
     * bits, does not count them (png_get_palette_max stays 0; measured with
     * 1.6.39). Entries past PLTE are opaque black, as libpng's. */
    int palette_image;
    uint8_t palette[256 * 4];
    int palette_colors;
    /* The largest index met so far (-1: none yet). */
    int largest_index;
    /* Adam7 through libpng: the whole image, read at the first request
     * (a palette image's as indices, one byte a pixel), unless that request
     * takes every row of a non-palette image: its passes then go straight
     * into the caller's buffer. */
    uint8_t *whole;
    /* One canonical row, the destination of rows read and discarded. */
    uint8_t *scratch;
    /* First warning raised inside IDAT: libpng treats some data errors
     * (bad Adler-32, extra data) as "benign"; we do not. */
    char data_warning[160];
    /* CPNG_* flags given at open. */
    int flags;
    /* Where the stream is, for the location of kept chunks. */
    int seen_plte;
    int seen_idat;
    /* Kept ancillary chunks (CPNG_KEEP_CHUNKS): entries whose data points into
     * `arena` by offset until cpng_decoder_chunks resolves them. */
    cpng_chunk *kept;
    size_t *kept_offsets;
    size_t kept_count;
    size_t kept_capacity;
    uint8_t *arena;
    size_t arena_size;
    size_t arena_capacity;
    /* The chunk being read was kept, or libpng warned about it: whichever
     * comes second (libpng checks the CRC around the user callback) makes
     * sure a chunk with a warning is not kept. */
    int kept_current;
    int warned_current;
    /* Whether a chunk past the metadata limit was noted: the later ones are left out without a line each
     * (200,000 tEXt chunks said the same 17 times, until the notes' buffer was full). */
    int over_limit_noted;
    /* The fast path's state while it decodes this file (NULL: libpng's turn). */
    fast_decoder *fast;
    /* The pixels came from the fast path. */
    int used_fast_path;
    /* Ancillary chunks left out, one line each. */
    char chunk_warnings[1024];
};

/* Big-endian 32-bit value at p. */
uint32_t cpng_read_be32(const uint8_t *p);
/* Reads up to `count` bytes from the source; sets *io_errno on a read error. */
size_t cpng_source_read(cpng_decoder *d, void *dst, size_t count, int *io_errno);
/* Copies one ancillary chunk into the decoder's arena (CPNG_KEEP_CHUNKS);
 * returns 0 only when memory runs out. */
int cpng_keep_chunk(cpng_decoder *d, const uint8_t type[4], const uint8_t *data, size_t size);
/* Appends one line to the list of ancillary chunks left out (bounded). */
void cpng_note_dropped_chunk(cpng_decoder *d, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* The fast path (fast_decode.c): a PNG reader of its own for the common
 * formats (gray, gray+alpha, RGB, RGBA at 8 or 16 bits, not interlaced, no
 * tRNS or PLTE), with ISA-L's inflate. It refuses nothing: on anything it does
 * not take or anything unusual it returns 0 and libpng decides, so errors
 * and their messages are always libpng's. */

/* After the signature: reads IHDR and the chunks before IDAT. Returns 1 and
 * fills `info` when the fast path takes the file; 0 otherwise (the caller
 * rewinds and uses libpng). */
int cpng_fast_open(cpng_decoder *d, cpng_info *info);
/* Decodes the next `count` rows into `pixels` (canonical RGBA rows, one after
 * another). Returns 1 on success; 0 when libpng must decode the file instead. */
int cpng_fast_read_rows(cpng_decoder *d, uint8_t *pixels, uint32_t count);
/* After the last row: checks the end of the zlib stream and reads to IEND.
 * Returns 1 on success; 0 when libpng must decide. */
int cpng_fast_finish(cpng_decoder *d);
/* Frees the fast path's state. */
void cpng_fast_close(cpng_decoder *d);

#endif
