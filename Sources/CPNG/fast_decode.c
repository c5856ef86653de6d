/* The fast decoding path (see decoder.h): chunks read by hand, IDAT inflated
 * with ISA-L (about five times zlib's speed), rows unfiltered and expanded to
 * canonical RGBA one at a time. Strict by deferring: every CRC and the Adler-32
 * are checked, and anything it does not take or does not expect sends the
 * file to libpng from the start. */
#include "decoder.h"
#include <kiln_clones.h>
#include "cpng_unfilter.h"

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <stdlib.h>
#include <string.h>

/* Compressed bytes fed to the inflater per read. */
#define INPUT_BYTES (256 * 1024)

struct fast_decoder {
    uint32_t width, height;
    int depth;          /* 8 or 16 */
    int channels;       /* 1, 2, 3 or 4 */
    size_t row_bytes;   /* stored row, without the filter byte */
    uint32_t idat_left; /* unread data bytes of the current IDAT chunk */
    uint32_t idat_crc;  /* running CRC of the current IDAT chunk (type + data) */
    uint8_t *input;     /* INPUT_BYTES of compressed data */
    uint8_t *rows;      /* two stored rows with their filter bytes */
    uint8_t *previous;  /* the row above (zeros before the first), in `rows` */
    uint8_t *current;   /* the row being decoded, in `rows` */
    uint8_t zlib_header[2]; /* the stream's CMF and FLG, as they arrive */
    int header_bytes;       /* how many of them arrived */
    struct inflate_state inflate;
};

static uint32_t crc_of(uint32_t crc, const uint8_t *data, size_t size) {
    return crc32_gzip_refl(crc, (unsigned char *)data, size);
}

/* Reads exactly `count` bytes; 0 on a short read or an error (libpng will say which). */
static int read_exact(cpng_decoder *d, void *dst, size_t count) {
    int io_errno;
    return cpng_source_read(d, dst, count, &io_errno) == count && io_errno == 0;
}

/* Reads a chunk header: its length and type. */
static int read_chunk_header(cpng_decoder *d, uint32_t *length, uint8_t type[4]) {
    uint8_t header[8];
    if (!read_exact(d, header, 8)) return 0;
    *length = cpng_read_be32(header);
    memcpy(type, header + 4, 4);
    return *length <= PNG_UINT_31_MAX;
}

/* Reads the rest of a chunk (data and CRC) into a fresh buffer and checks the
 * CRC; returns the data (free it) or NULL. A zero-length chunk gives a 1-byte buffer. */
static uint8_t *read_chunk_body(cpng_decoder *d, uint32_t length, const uint8_t type[4]) {
    if (length > MAX_CHUNK_BYTES) return NULL;
    uint8_t *data = malloc(length > 0 ? length : 1);
    uint8_t crc_bytes[4];
    if (data == NULL || !read_exact(d, data, length) || !read_exact(d, crc_bytes, 4) ||
        crc_of(crc_of(0, type, 4), data, length) != cpng_read_be32(crc_bytes)) {
        free(data);
        return NULL;
    }
    return data;
}

/* An ancillary chunk on the fast path: CRC checked, kept with CPNG_KEEP_CHUNKS. */
static int take_ancillary(cpng_decoder *d, uint32_t length, const uint8_t type[4]) {
    uint8_t *data = read_chunk_body(d, length, type);
    if (data == NULL) return 0;
    int ok = !(d->flags & CPNG_KEEP_CHUNKS) || (d->kept_count < MAX_CACHED_CHUNKS &&
                                                d->arena_size + length <= MAX_KEPT_BYTES &&
                                                cpng_keep_chunk(d, type, data, length));
    free(data);
    return ok;
}

static int is_critical(const uint8_t type[4]) { return (type[0] & 0x20) == 0; }

int cpng_fast_open(cpng_decoder *d, cpng_info *info) {
    uint32_t length;
    uint8_t type[4];
    if (!read_chunk_header(d, &length, type) || memcmp(type, "IHDR", 4) != 0 || length != 13) return 0;
    uint8_t *ihdr = read_chunk_body(d, 13, type);
    if (ihdr == NULL) return 0;
    uint32_t width = cpng_read_be32(ihdr), height = cpng_read_be32(ihdr + 4);
    int depth = ihdr[8], color = ihdr[9];
    int simple = ihdr[10] == 0 && ihdr[11] == 0 && ihdr[12] == 0;
    free(ihdr);
    int channels = color == CPNG_COLOR_GRAY ? 1 : color == CPNG_COLOR_GRAY_ALPHA ? 2
                 : color == CPNG_COLOR_RGB ? 3 : color == CPNG_COLOR_RGBA ? 4 : 0;
    if (!simple || channels == 0 || (depth != 8 && depth != 16) || width == 0 || height == 0 ||
        width > d->max_dimension || height > d->max_dimension) {
        return 0;
    }
    /* The chunks before the image data: ancillary ones only (tRNS goes to libpng). */
    for (;;) {
        if (!read_chunk_header(d, &length, type)) return 0;
        if (memcmp(type, "IDAT", 4) == 0) break;
        if (is_critical(type) || memcmp(type, "tRNS", 4) == 0) return 0;
        if (!take_ancillary(d, length, type)) return 0;
    }
    fast_decoder *f = calloc(1, sizeof *f);
    if (f == NULL) return 0;
    f->width = width;
    f->height = height;
    f->depth = depth;
    f->channels = channels;
    f->row_bytes = (size_t)width * (size_t)channels * (size_t)(depth / 8);
    f->idat_left = length;
    f->idat_crc = crc_of(0, type, 4);
    f->input = malloc(INPUT_BYTES);
    if (f->input == NULL) {
        d->fast = f;
        cpng_fast_close(d);
        return 0;
    }
    /* The two rows are allocated by the first read, not here: a header is read to plan a job, and a 69-byte
     * file declaring 500000000×1 RGB held 1.5 GB (one row, zeroed) while its size was refused. */
    isal_inflate_init(&f->inflate);
    f->inflate.crc_flag = ISAL_ZLIB; /* parse the zlib header, verify the Adler-32 */
    d->fast = f;
    d->seen_idat = 1;
    info->width = width;
    info->height = height;
    info->bit_depth = depth;
    info->color_type = color;
    info->interlaced = 0;
    info->has_trns = 0;
    return 1;
}

/* Feeds the inflater more IDAT data, crossing chunk boundaries. Returns 0 when
 * the IDAT sequence ended (or broke) with no more data. */
static int refill(cpng_decoder *d, fast_decoder *f) {
    while (f->idat_left == 0) {
        uint8_t crc_bytes[4];
        if (!read_exact(d, crc_bytes, 4) || cpng_read_be32(crc_bytes) != f->idat_crc) return 0;
        uint32_t length;
        uint8_t type[4];
        if (!read_chunk_header(d, &length, type) || memcmp(type, "IDAT", 4) != 0) return 0;
        f->idat_left = length;
        f->idat_crc = crc_of(0, type, 4);
    }
    size_t want = f->idat_left < INPUT_BYTES ? f->idat_left : INPUT_BYTES;
    if (!read_exact(d, f->input, want)) return 0;
    f->idat_crc = crc_of(f->idat_crc, f->input, want);
    f->idat_left -= (uint32_t)want;
    if (f->header_bytes < 2) {
        /* RFC 1950: deflate (CM 8) with a window of at most 32 KiB (CINFO <= 7), FCHECK, no preset dictionary.
         * ISA-L takes a CINFO of 8 and decodes such a stream, which zlib, libpng and pngcheck reject ("invalid
         * window size"): anything else is libpng's to decide. (The two bytes may come in two IDAT chunks.) */
        for (size_t i = 0; i < want && f->header_bytes < 2; i++) f->zlib_header[f->header_bytes++] = f->input[i];
        uint8_t cmf = f->zlib_header[0], flg = f->zlib_header[1];
        if (f->header_bytes == 2 &&
            ((cmf & 0x0F) != 8 || (cmf >> 4) > 7 || ((cmf << 8) | flg) % 31 != 0 || (flg & 0x20) != 0)) {
            return 0;
        }
    }
    f->inflate.next_in = f->input;
    f->inflate.avail_in = (uint32_t)want;
    return 1;
}

/* One isal_inflate call. Returns 1 on progress (input taken, output made, or
 * the stream finished), 2 when it needs more input, 0 on damage or a
 * dictionary request. ISA-L can hold decoded data back between calls, so it
 * is always called before more input is read. */
static int inflate_step(cpng_decoder *d, fast_decoder *f) {
    uint32_t in = f->inflate.avail_in, out = f->inflate.avail_out;
    int result = isal_inflate(&f->inflate);
    if (result != ISAL_DECOMP_OK && result != ISAL_END_INPUT) return 0;
    if (f->inflate.avail_in != in || f->inflate.avail_out != out || f->inflate.block_state == ISAL_BLOCK_FINISH) {
        return 1;
    }
    if (f->inflate.avail_in != 0) return 0; /* stuck with input left */
    return refill(d, f) ? 1 : 0;
}

/* Inflates exactly `count` bytes into `out`. */
static int inflate_exact(cpng_decoder *d, fast_decoder *f, uint8_t *out, size_t count) {
    f->inflate.next_out = out;
    f->inflate.avail_out = (uint32_t)count;
    while (f->inflate.avail_out > 0) {
        if (f->inflate.block_state == ISAL_BLOCK_FINISH) return 0; /* the stream ended early */
        if (!inflate_step(d, f)) return 0;
    }
    return 1;
}

/* One stored row (unfiltered) to canonical RGBA: 8-bit, or 16-bit host-endian. */
VECTOR_CLONES static void expand(const fast_decoder *f, const uint8_t *src, uint8_t *dst) {
    uint32_t width = f->width;
    if (f->depth == 8) {
        switch (f->channels) {
        case 4: memcpy(dst, src, (size_t)width * 4); break;
        case 3:
            for (uint32_t x = 0; x < width; x++, src += 3, dst += 4) {
                dst[0] = src[0]; dst[1] = src[1]; dst[2] = src[2]; dst[3] = 255;
            }
            break;
        case 2:
            for (uint32_t x = 0; x < width; x++, src += 2, dst += 4) {
                dst[0] = dst[1] = dst[2] = src[0]; dst[3] = src[1];
            }
            break;
        default:
            for (uint32_t x = 0; x < width; x++, src += 1, dst += 4) {
                dst[0] = dst[1] = dst[2] = src[0]; dst[3] = 255;
            }
            break;
        }
        return;
    }
    for (uint32_t x = 0; x < width; x++, dst += 8) {
        uint16_t s[4], out[4];
        for (int c = 0; c < f->channels; c++, src += 2) s[c] = (uint16_t)((src[0] << 8) | src[1]);
        switch (f->channels) {
        case 4: out[0] = s[0]; out[1] = s[1]; out[2] = s[2]; out[3] = s[3]; break;
        case 3: out[0] = s[0]; out[1] = s[1]; out[2] = s[2]; out[3] = 0xffff; break;
        case 2: out[0] = out[1] = out[2] = s[0]; out[3] = s[1]; break;
        default: out[0] = out[1] = out[2] = s[0]; out[3] = 0xffff; break;
        }
        memcpy(dst, out, sizeof out); /* any alignment */
    }
}

/* After the last row: the zlib stream must end here (Adler-32 verified), in
 * the last IDAT, which must end with it; then the chunks up to IEND. */
static int finish(cpng_decoder *d, fast_decoder *f) {
    uint8_t spare;
    while (f->inflate.block_state != ISAL_BLOCK_FINISH) {
        f->inflate.next_out = &spare;
        f->inflate.avail_out = 1;
        if (!inflate_step(d, f) || f->inflate.avail_out == 0) return 0; /* damaged, or extra data */
    }
    if (f->inflate.avail_in != 0 || f->idat_left != 0) return 0;
    uint8_t crc_bytes[4];
    if (!read_exact(d, crc_bytes, 4) || cpng_read_be32(crc_bytes) != f->idat_crc) return 0;
    for (;;) {
        uint32_t length;
        uint8_t type[4];
        if (!read_chunk_header(d, &length, type)) return 0;
        if (memcmp(type, "IEND", 4) == 0) {
            uint8_t *body = length == 0 ? read_chunk_body(d, 0, type) : NULL;
            free(body);
            return body != NULL;
        }
        if (is_critical(type) || memcmp(type, "tRNS", 4) == 0) return 0;
        if (!take_ancillary(d, length, type)) return 0;
    }
}

int cpng_fast_read_rows(cpng_decoder *d, uint8_t *pixels, uint32_t count) {
    fast_decoder *f = d->fast;
    size_t canonical_row = (size_t)f->width * 4 * (size_t)(f->depth / 8);
    size_t stride = f->row_bytes + 1;
    size_t bpp = (size_t)f->channels * (size_t)(f->depth / 8);
    if (f->rows == NULL) {
        /* Zeroed: the row above the first. */
        f->rows = calloc(2, stride);
        if (f->rows == NULL) return 0;
        f->previous = f->rows;
        f->current = f->rows + stride;
    }
    for (uint32_t y = 0; y < count; y++) {
        if (!inflate_exact(d, f, f->current, stride)) return 0;
        if (!cpng_unfilter_row(f->current[0], f->current + 1, f->previous + 1, f->row_bytes, bpp)) return 0;
        expand(f, f->current + 1, pixels + (size_t)y * canonical_row);
        uint8_t *swap = f->previous;
        f->previous = f->current;
        f->current = swap;
    }
    return 1;
}

int cpng_fast_finish(cpng_decoder *d) { return finish(d, d->fast); }

void cpng_fast_close(cpng_decoder *d) {
    fast_decoder *f = d->fast;
    if (f == NULL) return;
    free(f->input);
    free(f->rows);
    free(f);
    d->fast = NULL;
}
