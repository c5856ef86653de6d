/* The fast encoding path (see cpng.h): rows filtered with a per-row choice,
 * deflated by ISA-L in independent segments (pigz-style: each primed with the
 * 32 KiB of filtered data before it, ended by a sync flush) that can run on
 * several cores, or, for a small image, whole in one call (whole_deflate.c),
 * then assembled into one zlib stream and a PNG by hand. */
#include "cpng.h"
#include <kiln_clones.h>
#include <kiln_pages.h>
#include "rows.h"
#include "status.h"
#include "whole_deflate.h"

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

/* Bytes of compressed data per IDAT chunk. */
#define IDAT_BYTES (1 << 20)
/* Deflate's window: how much preceding data a segment is primed with. */
#define WINDOW_BYTES 32768

void cpng_segment_free(cpng_segment *segment) {
    free(segment->data);
    memset(segment, 0, sizeof *segment);
}

/* Makes room for `length` more bytes; 0 when memory runs out. */
static int reserve(cpng_buffer *out, size_t length) {
    if (length > out->capacity - out->size) {
        size_t capacity = out->capacity > 0 ? out->capacity : 4096;
        while (length > capacity - out->size) {
            if (capacity > SIZE_MAX / 2) return 0;
            capacity *= 2;
        }
        uint8_t *grown = realloc(out->data, capacity);
        if (grown == NULL) return 0;
        out->data = grown;
        out->capacity = capacity;
    }
    return 1;
}

/* Appends to a growable buffer; 0 when memory runs out. */
static int append(cpng_buffer *out, const void *data, size_t length) {
    if (!reserve(out, length)) return 0;
    if (length > 0) memcpy(out->data + out->size, data, length);
    out->size += length;
    return 1;
}

/* Sum of the bytes' absolute values as signed bytes: libpng's estimate of
 * how well a filtered row will compress (smaller is better). */
VECTOR_CLONES static uint32_t signed_sum(const uint8_t *bytes, size_t count) {
    uint32_t sum = 0;
    for (size_t i = 0; i < count; i++) {
        int8_t v = (int8_t)bytes[i];
        sum += (uint32_t)(v < 0 ? -v : v);
    }
    return sum;
}

/* The bits an order-0 entropy coder would spend on the bytes: count·log2(count)
 * − Σ c·log2(c) over the byte values' counts c. */
static double entropy_bits(const uint8_t *bytes, size_t count) {
    /* Four histograms, one per byte position mod 4, added up: a filtered row repeats
     * few values (mostly 0), and one histogram made each increment wait for the last
     * one's store (the single loop took 18 % of W1's CPU at level 2). */
    uint32_t partial[4][256] = {{0}};
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        partial[0][bytes[i]]++;
        partial[1][bytes[i + 1]]++;
        partial[2][bytes[i + 2]]++;
        partial[3][bytes[i + 3]]++;
    }
    for (; i < count; i++) partial[0][bytes[i]]++;
    uint32_t histogram[256];
    for (int v = 0; v < 256; v++) histogram[v] = partial[0][v] + partial[1][v] + partial[2][v] + partial[3][v];
    double sum = 0;
    for (int v = 0; v < 256; v++) {
        if (histogram[v] > 1) sum += histogram[v] * log2((double)histogram[v]);
    }
    return count > 1 ? count * log2((double)count) - sum : 0;
}

/* The filtered form of one stored row (filter byte first), by `heuristic`:
 * CPNG_FILTER_SUM, the filter whose output has the smallest signed sum
 * (libpng's), which keeps deflate's matches long; CPNG_FILTER_ENTROPY, the one
 * whose bytes have the least order-0 entropy. `previous` is NULL for the
 * image's first row; `work` holds 4 * count bytes. Each filter is one simple
 * loop, which the compiler vectorizes; Paeth is written without branches for
 * the same reason. */
VECTOR_CLONES static void filter_row(const uint8_t *row, const uint8_t *previous, size_t count, size_t bpp,
                                     int heuristic, uint8_t *out, uint8_t *work) {
    uint8_t *sub = work, *up = work + count, *avg = work + 2 * count, *paeth = work + 3 * count;
    size_t head = bpp < count ? bpp : count;
    for (size_t i = 0; i < head; i++) sub[i] = row[i];
    for (size_t i = head; i < count; i++) sub[i] = (uint8_t)(row[i] - row[i - bpp]);
    if (previous == NULL) {
        /* Above the first row everything is zero: Up is None, Paeth is Sub. */
        memcpy(up, row, count);
        for (size_t i = 0; i < head; i++) avg[i] = row[i];
        for (size_t i = head; i < count; i++) avg[i] = (uint8_t)(row[i] - (row[i - bpp] >> 1));
        memcpy(paeth, sub, count);
    } else {
        for (size_t i = 0; i < count; i++) up[i] = (uint8_t)(row[i] - previous[i]);
        for (size_t i = 0; i < head; i++) avg[i] = (uint8_t)(row[i] - (previous[i] >> 1));
        for (size_t i = head; i < count; i++) avg[i] = (uint8_t)(row[i] - ((row[i - bpp] + previous[i]) >> 1));
        for (size_t i = 0; i < head; i++) paeth[i] = (uint8_t)(row[i] - previous[i]);
        for (size_t i = head; i < count; i++) {
            int16_t a = row[i - bpp], b = previous[i], c = previous[i - bpp];
            int16_t p = (int16_t)(b - c), q = (int16_t)(a - c), r = (int16_t)(p + q);
            int16_t pa = p < 0 ? (int16_t)-p : p, pb = q < 0 ? (int16_t)-q : q, pc = r < 0 ? (int16_t)-r : r;
            int16_t predictor = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
            paeth[i] = (uint8_t)(row[i] - predictor);
        }
    }
    const uint8_t *candidates[5] = {row, sub, up, avg, paeth};
    int best = 0;
    double best_cost = 0;
    for (int f = 0; f < 5; f++) {
        double cost = heuristic == CPNG_FILTER_ENTROPY ? entropy_bits(candidates[f], count)
                                                       : (double)signed_sum(candidates[f], count);
        if (f == 0 || cost < best_cost) {
            best_cost = cost;
            best = f;
        }
    }
    out[0] = (uint8_t)best;
    memcpy(out + 1, candidates[best], count);
}

/* Per-segment scratch: packed rows (previous, current), one filtered row, filter work space. */
typedef struct rows {
    uint8_t *packed[2];
    uint8_t *filtered;
    uint8_t *work;
    size_t stored_bytes;
    int heuristic; /* CPNG_FILTER_* */
} rows;

static int rows_init(rows *r, size_t stored_bytes, int heuristic) {
    r->stored_bytes = stored_bytes;
    r->heuristic = heuristic;
    r->packed[0] = malloc(stored_bytes);
    r->packed[1] = malloc(stored_bytes);
    r->filtered = malloc(stored_bytes + 1);
    r->work = malloc(4 * stored_bytes);
    return r->packed[0] && r->packed[1] && r->filtered && r->work;
}

static void rows_free(rows *r) {
    free(r->packed[0]);
    free(r->packed[1]);
    free(r->filtered);
    free(r->work);
}

/* Filters row y of the image into r->filtered, given that r->packed[(y + 1) % 2]
 * holds row y - 1 packed (ignored for y == 0). `pixels` holds rows from `base` on.
 * A palette or a depth under 8 is left unfiltered (cpng_unfiltered). */
static void next_filtered(rows *r, const cpng_packer *packer, const uint8_t *pixels, uint32_t base, uint32_t width,
                          uint32_t y, size_t canonical_row, size_t bpp) {
    uint8_t *current = r->packed[y % 2], *previous = r->packed[(y + 1) % 2];
    cpng_pack_row(packer, pixels + (size_t)(y - base) * canonical_row, current, width);
    if (cpng_unfiltered(&packer->format)) {
        r->filtered[0] = 0;
        memcpy(r->filtered + 1, current, r->stored_bytes);
    } else {
        filter_row(current, y > 0 ? previous : NULL, r->stored_bytes, bpp, r->heuristic, r->filtered, r->work);
    }
}

static int isal_level_buffer_size(int level) {
    switch (level) {
    case 1: return ISAL_DEF_LVL1_DEFAULT;
    case 2: return ISAL_DEF_LVL2_DEFAULT;
    default: return ISAL_DEF_LVL3_DEFAULT;
    }
}

/* Runs the deflater until it has taken all its input (and, when finishing, ended). */
static int drain(struct isal_zstream *stream, cpng_buffer *out, int finishing) {
    for (;;) {
        if (!reserve(out, 65536)) return 0;
        stream->next_out = out->data + out->size;
        stream->avail_out = (uint32_t)(out->capacity - out->size > UINT32_MAX ? UINT32_MAX : out->capacity - out->size);
        uint32_t before = stream->avail_out;
        if (isal_deflate(stream) != COMP_OK) return 0;
        out->size += before - stream->avail_out;
        if (stream->avail_in == 0 && (!finishing || stream->internal_state.state == ZSTATE_END) &&
            stream->avail_out > 0) {
            return 1;
        }
    }
}

/* Rows before `first_row` whose filtered bytes prime its segment (the last 32 KiB of them). */
static uint32_t cpng_fast_priming_rows(uint32_t width, const cpng_format *format, uint32_t first_row) {
    size_t stored = cpng_format_row_bytes(format, width);
    uint32_t back = (uint32_t)((WINDOW_BYTES + stored) / (stored + 1));
    return first_row > back ? back : first_row;
}

uint32_t cpng_fast_first_needed_row(uint32_t width, const cpng_format *format, uint32_t first_row) {
    uint32_t start = first_row - cpng_fast_priming_rows(width, format, first_row);
    return start > 0 ? start - 1 : 0;
}

/* Deflates `raw` with ISA-L at `level` (1-3), primed with `dictionary`, ending
 * the stream when `final`, else with a sync flush; appends to `out`. */
static int isal_segment(const uint8_t *raw, size_t raw_size, const uint8_t *dictionary, size_t dictionary_size,
                        int level, int final, cpng_buffer *out) {
    struct isal_zstream stream;
    /* Zeroed: ISA-L may read hash entries it has not written (still correct
     * output, but not the same bytes every time). */
    uint8_t *level_buffer = calloc(1, (size_t)isal_level_buffer_size(level));
    if (level_buffer == NULL) return 0;
    isal_deflate_init(&stream);
    stream.level = (uint32_t)level;
    stream.level_buf = level_buffer;
    stream.level_buf_size = (uint32_t)isal_level_buffer_size(level);
    stream.gzip_flag = IGZIP_DEFLATE; /* raw deflate: the zlib wrapper is written at assembly */
    stream.flush = NO_FLUSH;
    int ok = dictionary_size == 0 || isal_deflate_set_dict(&stream, (uint8_t *)dictionary, (uint32_t)dictionary_size) == COMP_OK;
    for (size_t offset = 0; ok && offset < raw_size; offset += UINT32_MAX / 2) {
        size_t piece = raw_size - offset < UINT32_MAX / 2 ? raw_size - offset : UINT32_MAX / 2;
        int last = offset + piece == raw_size;
        stream.next_in = (uint8_t *)raw + offset;
        stream.avail_in = (uint32_t)piece;
        stream.end_of_stream = last && final;
        stream.flush = last && !final ? SYNC_FLUSH : NO_FLUSH;
        ok = drain(&stream, out, last && final);
    }
    free(level_buffer);
    return ok;
}

/* As isal_segment, with zlib at `level` (1-9): pigz's way, slower than ISA-L
 * for smaller output. */
static int zlib_segment(const uint8_t *raw, size_t raw_size, const uint8_t *dictionary, size_t dictionary_size,
                        int level, int final, cpng_buffer *out) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    /* Raw deflate (the zlib wrapper is written at assembly), zlib's default memory level. */
    if (deflateInit2(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    int ok = dictionary_size == 0 || deflateSetDictionary(&stream, dictionary, (uInt)dictionary_size) == Z_OK;
    size_t offset = 0;
    for (int done = 0; ok && !done;) {
        size_t piece = raw_size - offset < UINT32_MAX / 2 ? raw_size - offset : UINT32_MAX / 2;
        int last = offset + piece == raw_size;
        stream.next_in = (Bytef *)raw + offset;
        stream.avail_in = (uInt)piece;
        int flush = last ? (final ? Z_FINISH : Z_SYNC_FLUSH) : Z_NO_FLUSH;
        /* Run until the piece is taken and, for the last, the flush is complete (output space left over). */
        for (;;) {
            if (!reserve(out, 65536)) { ok = 0; break; }
            stream.next_out = out->data + out->size;
            stream.avail_out = (uInt)(out->capacity - out->size > UINT32_MAX ? UINT32_MAX : out->capacity - out->size);
            uInt before = stream.avail_out;
            int result = deflate(&stream, flush);
            out->size += before - stream.avail_out;
            if (result == Z_STREAM_END) { done = 1; break; }
            if (result != Z_OK && result != Z_BUF_ERROR) { ok = 0; break; }
            if (stream.avail_in == 0 && stream.avail_out > 0) { done = last; break; }
        }
        offset += piece;
    }
    deflateEnd(&stream);
    return ok;
}

int cpng_fast_segment(const void *pixels, uint32_t pixels_row, uint32_t width, uint32_t height,
                      const cpng_format *format, uint32_t first_row, uint32_t end_row, int deflater, int level,
                      int heuristic, cpng_segment *out, cpng_status *status) {
    cpng_status_clear(status);
    memset(out, 0, sizeof *out);
    cpng_packer packer;
    int whole = deflater == CPNG_DEFLATER_WHOLE;
    int valid_deflate = whole ? level >= 1 && level <= CPNG_WHOLE_MAX_LEVEL && first_row == 0 && end_row == height
                      : deflater == CPNG_DEFLATER_ISAL ? level >= 1 && level <= 3
                      : deflater == CPNG_DEFLATER_ZLIB && level >= 1 && level <= 9;
    if (pixels == NULL || first_row >= end_row || end_row > height || !cpng_packer_init(&packer, format) ||
        !valid_deflate || pixels_row > cpng_fast_first_needed_row(width, format, first_row)) {
        cpng_status_fail(status, CPNG_INVALID_ARGUMENT, NULL,
                         "bad segment %u..<%u of %u rows, depth %d, colour type %d, deflater %d, level %d", first_row,
                         end_row, height, format->bit_depth, format->color_type, deflater, level);
        return status->code;
    }
    size_t bpp = cpng_filter_bpp(format);
    size_t stored = cpng_format_row_bytes(format, width);
    size_t canonical_row = (size_t)width * 4 * (size_t)(format->row_depth / 8);
    rows r;
    uint8_t *dictionary = whole ? NULL : malloc(WINDOW_BYTES);
    size_t used = 0;
    cpng_buffer compressed = {0};
    int ok = rows_init(&r, stored, heuristic) && (whole || dictionary != NULL);
    if (ok) {
        /* Prime with the last 32 KiB of filtered data before this segment, re-filtered
         * here (a row's filter depends only on it and the row above). */
        if (first_row > 0) {
            uint32_t start = first_row - cpng_fast_priming_rows(width, format, first_row);
            if (start > 0) cpng_pack_row(&packer, (const uint8_t *)pixels + (size_t)(start - 1 - pixels_row) * canonical_row,
                                         r.packed[(start + 1) % 2], width);
            for (uint32_t y = start; y < first_row; y++) {
                next_filtered(&r, &packer, pixels, pixels_row, width, y, canonical_row, bpp);
                /* Keep a sliding window of the last WINDOW_BYTES filtered bytes. */
                size_t n = stored + 1;
                const uint8_t *src = r.filtered;
                if (n >= WINDOW_BYTES) { src += n - WINDOW_BYTES; n = WINDOW_BYTES; used = 0; }
                if (used + n > WINDOW_BYTES) {
                    size_t drop = used + n - WINDOW_BYTES;
                    memmove(dictionary, dictionary + drop, used - drop);
                    used -= drop;
                }
                memcpy(dictionary + used, src, n);
                used += n;
            }
        }
        /* The segment's filtered rows in one buffer: the deflaters compress
         * far better given large inputs than row by row. */
        size_t raw_size = (size_t)(end_row - first_row) * (stored + 1);
        /* Zeroed padding after the data: ISA-L's hashing may look a few bytes
         * past the input's end, and what it finds there must not vary. */
        uint8_t *filtered = calloc(1, raw_size + 256);
        ok = filtered != NULL;
        kiln_advise_huge_pages(filtered, raw_size + 256);
        for (uint32_t y = first_row; ok && y < end_row; y++) {
            next_filtered(&r, &packer, pixels, pixels_row, width, y, canonical_row, bpp);
            memcpy(filtered + (size_t)(y - first_row) * (stored + 1), r.filtered, stored + 1);
        }
        uint32_t adler = ok ? isal_adler32(1, filtered, raw_size) : 1;
        /* The image's last segment ends the deflate stream; the others end
         * byte-aligned (sync flush) so they can be concatenated. */
        int final = end_row == height;
        if (ok) {
            switch (deflater) {
            case CPNG_DEFLATER_WHOLE: ok = cpng_deflate_whole(filtered, raw_size, level, &compressed); break;
            case CPNG_DEFLATER_ISAL: ok = isal_segment(filtered, raw_size, dictionary, used, level, final, &compressed); break;
            default: ok = zlib_segment(filtered, raw_size, dictionary, used, level, final, &compressed); break;
            }
        }
        free(filtered);
        out->adler = adler;
        out->raw_size = raw_size;
    }
    if (ok) {
        out->data = compressed.data;
        out->size = compressed.size;
    } else {
        cpng_buffer_free(&compressed);
        cpng_status_fail(status, CPNG_NO_MEMORY, NULL, "out of memory (or a deflate error) compressing rows %u..<%u",
                         first_row, end_row);
    }
    if (r.packed[0] != NULL || r.work != NULL) rows_free(&r);
    free(dictionary);
    return status->code;
}

static void put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Appends one chunk: length, type, data, CRC. */
uint32_t cpng_crc32(uint32_t crc, const uint8_t *data, size_t length) {
    return length > 0 ? crc32_gzip_refl(crc, (unsigned char *)data, length) : crc;
}

static int put_chunk(cpng_buffer *out, const char type[4], const uint8_t *data, size_t length) {
    uint8_t head[8], tail[4];
    put_be32(head, (uint32_t)length);
    memcpy(head + 4, type, 4);
    put_be32(tail, cpng_crc32(cpng_crc32(0, (const uint8_t *)type, 4), data, length));
    return append(out, head, 8) && append(out, data, length) && append(out, tail, 4);
}

/* The caller's ancillary chunks standing at `location`. */
static int put_chunks(cpng_buffer *out, const cpng_chunk *chunks, size_t count, int location) {
    for (size_t i = 0; i < count; i++) {
        if (chunks[i].location == location && !put_chunk(out, chunks[i].name, chunks[i].data, chunks[i].size)) return 0;
    }
    return 1;
}

uint32_t cpng_adler32_combine(uint32_t first, uint32_t second, size_t second_size) {
    return (uint32_t)adler32_combine(first, second, (z_off_t)second_size);
}

/* Appends a tIME chunk saying `time` (seconds since 1970, UTC). */
static int put_time(cpng_buffer *output, int64_t time) {
    time_t seconds = (time_t)time;
    struct tm utc;
    gmtime_r(&seconds, &utc);
    int year = utc.tm_year + 1900;
    uint8_t stamp[7] = {(uint8_t)(year >> 8), (uint8_t)year, (uint8_t)(utc.tm_mon + 1), (uint8_t)utc.tm_mday,
                        (uint8_t)utc.tm_hour, (uint8_t)utc.tm_min, (uint8_t)(utc.tm_sec > 60 ? 60 : utc.tm_sec)};
    return put_chunk(output, "tIME", stamp, 7);
}

/* Appends a colour key's tRNS: one 16-bit stored sample for gray, three for RGB. */
static int put_key(cpng_buffer *output, const cpng_format *format) {
    uint8_t key[6];
    int samples = format->color_type == CPNG_COLOR_GRAY ? 1 : 3;
    for (int c = 0; c < samples; c++) {
        unsigned v = cpng_stored_sample(format, format->key[c]);
        key[2 * c] = (uint8_t)(v >> 8);
        key[2 * c + 1] = (uint8_t)v;
    }
    return put_chunk(output, "tRNS", key, 2 * (size_t)samples);
}

/* Appends a palette's PLTE and, when some entry is not opaque, tRNS up to the last such entry. */
static int put_palette(cpng_buffer *output, const cpng_format *format) {
    uint8_t colors[3 * 256], alpha[256];
    size_t transparent = 0;
    for (int i = 0; i < format->palette_size; i++) {
        memcpy(colors + 3 * i, format->palette + 4 * i, 3);
        alpha[i] = format->palette[4 * i + 3];
        if (alpha[i] != 0xff) transparent = (size_t)i + 1;
    }
    return put_chunk(output, "PLTE", colors, 3 * (size_t)format->palette_size) &&
           (transparent == 0 || put_chunk(output, "tRNS", alpha, transparent));
}

int cpng_png_head(uint32_t width, uint32_t height, const cpng_format *format, const cpng_chunk *chunks,
                  size_t chunk_count, int64_t time, cpng_buffer *output, cpng_status *status) {
    cpng_status_clear(status);
    if (!cpng_format_valid(format)) {
        cpng_status_fail(status, CPNG_INVALID_ARGUMENT, NULL, "cannot write depth %d, colour type %d",
                         format->bit_depth, format->color_type);
        return status->code;
    }
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13];
    put_be32(ihdr, width);
    put_be32(ihdr + 4, height);
    ihdr[8] = (uint8_t)format->bit_depth;
    ihdr[9] = (uint8_t)format->color_type;
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    /* The order libpng writes: colour chunks, PLTE and tRNS, tIME, then the other chunks before IDAT. */
    int ok = append(output, signature, 8) && put_chunk(output, "IHDR", ihdr, 13) &&
             put_chunks(output, chunks, chunk_count, CPNG_BEFORE_PLTE);
    if (ok && format->color_type == CPNG_COLOR_PALETTE) ok = put_palette(output, format);
    if (ok && format->keyed) ok = put_key(output, format);
    if (ok && time != CPNG_NO_TIME) ok = put_time(output, time);
    ok = ok && put_chunks(output, chunks, chunk_count, CPNG_BEFORE_IDAT);
    if (!ok) cpng_status_fail(status, CPNG_NO_MEMORY, NULL, "out of memory writing the PNG's header");
    return status->code;
}

int cpng_png_tail(const cpng_chunk *chunks, size_t chunk_count, int64_t time, cpng_buffer *output,
                  cpng_status *status) {
    cpng_status_clear(status);
    /* libpng's order at the end: tIME, then the other chunks. */
    if (!((time == CPNG_NO_TIME || put_time(output, time)) && put_chunks(output, chunks, chunk_count, CPNG_AFTER_IDAT) && put_chunk(output, "IEND", NULL, 0)))
        cpng_status_fail(status, CPNG_NO_MEMORY, NULL, "out of memory writing the PNG's end");
    return status->code;
}
