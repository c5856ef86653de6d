/* PNG encoding from the canonical RGBA buffer (see cpng.h). */
#include "cpng.h"
#include "rows.h"
#include "status.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of deflate output per IDAT chunk (libpng's default is 8 KiB; larger
 * chunks mean less framing overhead on big images). */
#define IDAT_BYTES (64 * 1024)

/* Per-call state, on the heap so it survives a longjmp intact. */
typedef struct encoder {
    png_structp png;
    png_infop info;
    cpng_buffer *output;
    cpng_status *status;
    uint8_t *row;        /* one packed output row */
} encoder;

void cpng_buffer_free(cpng_buffer *buffer) {
    free(buffer->data);
    buffer->data = NULL;
    buffer->size = 0;
    buffer->capacity = 0;
}

void cpng_analyze_rgba(const void *pixels, size_t pixel_count, int bit_depth, int *all_gray, int *all_opaque) {
    const uint8_t *p = pixels;
    int gray = 1, opaque = 1;
    if (bit_depth == 16) {
        for (size_t i = 0; i < pixel_count && (gray || opaque); i++, p += 8) {
            uint16_t r = cpng_load16(p), g = cpng_load16(p + 2), b = cpng_load16(p + 4), a = cpng_load16(p + 6);
            gray &= r == g && g == b;
            opaque &= a == 0xffff;
        }
    } else {
        for (size_t i = 0; i < pixel_count && (gray || opaque); i++, p += 4) {
            gray &= p[0] == p[1] && p[1] == p[2];
            opaque &= p[3] == 0xff;
        }
    }
    *all_gray = gray;
    *all_opaque = opaque;
}

static void error_callback(png_structp png, png_const_charp message) {
    encoder *e = png_get_error_ptr(png);
    cpng_status_fail(e->status, CPNG_MALFORMED, NULL, "%s", message);
    /* Returning would make libpng print and abort: jump to the entry point. */
    png_longjmp(png, 1);
}

static void warning_callback(png_structp png, png_const_charp message) {
    /* Nothing the caller could act on; never print. */
    (void)png;
    (void)message;
}

/* Appends libpng's output to the growable buffer, doubling its capacity. */
static void write_callback(png_structp png, png_bytep data, size_t length) {
    encoder *e = png_get_io_ptr(png);
    cpng_buffer *out = e->output;
    if (length > out->capacity - out->size) {
        size_t capacity = out->capacity > 0 ? out->capacity : 4096;
        while (length > capacity - out->size) {
            if (capacity > SIZE_MAX / 2) capacity = SIZE_MAX; else capacity *= 2;
        }
        uint8_t *grown = realloc(out->data, capacity);
        if (grown == NULL) {
            cpng_status_fail(e->status, CPNG_NO_MEMORY, NULL, "out of memory growing the output to %zu bytes",
                             capacity);
            png_error(png, "out of memory");
        }
        out->data = grown;
        out->capacity = capacity;
    }
    memcpy(out->data + out->size, data, length);
    out->size += length;
}

static void flush_callback(png_structp png) {
    (void)png; /* memory output: nothing to flush */
}

/* The caller's ancillary chunks and tIME, handed to libpng before png_write_info. */
typedef struct metadata {
    const cpng_chunk *chunks;
    size_t count;
    int64_t time;
} metadata;

/* Registers the chunks with libpng, which writes each at its location. */
static void set_metadata(png_structp png, png_infop info, const metadata *m) {
    if (m->count > 0) {
        png_unknown_chunk *list = png_malloc(png, m->count * sizeof *list);
        for (size_t i = 0; i < m->count; i++) {
            memcpy(list[i].name, m->chunks[i].name, 4);
            list[i].name[4] = 0;
            list[i].data = (png_byte *)m->chunks[i].data;
            list[i].size = m->chunks[i].size;
            list[i].location = (png_byte)m->chunks[i].location;
        }
        /* Write every listed chunk, safe-to-copy or not: the caller chose them. */
        png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_ALWAYS, NULL, 0);
        png_set_unknown_chunks(png, info, list, (int)m->count);  /* copies the list and the data */
        png_free(png, list);
    }
    if (m->time != 0) {
        png_time stamp;
        png_convert_from_time_t(&stamp, (time_t)m->time);
        png_set_tIME(png, info, &stamp);
    }
}

/* Writes the whole stream; runs under encode_stream's setjmp. */
static void write_png(encoder *e, const uint8_t *pixels, uint32_t width, uint32_t height, int bit_depth,
                      int color_type, int level, int filters, const metadata *m, const cpng_row_progress *progress) {
    png_structp png = e->png;
    png_set_write_fn(png, e, write_callback, flush_callback);
    png_set_IHDR(png, e->info, width, height, bit_depth, color_type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, filters == CPNG_FILTERS_ADAPTIVE ? PNG_ALL_FILTERS : PNG_FILTER_NONE);
    png_set_compression_buffer_size(png, IDAT_BYTES);
    set_metadata(png, e->info, m);
    png_write_info(png, e->info);

    size_t canonical_row = (size_t)width * 4 * (size_t)(bit_depth / 8);
    for (uint32_t y = 0; y < height; y++) {
        cpng_pack_row(pixels + (size_t)y * canonical_row, e->row, width, bit_depth, color_type);
        png_write_row(png, e->row);
        /* Every 16 rows: a 32000-pixel row takes about 10 ms at level 9, so the
         * bar moves several times a second without a call per row. */
        if (progress != NULL && progress->done != NULL && ((y + 1) % 16 == 0 || y + 1 == height))
            progress->done(progress->context, (double)(y + 1) / height);
    }
    png_write_end(png, e->info);
}

/* Entry point for write_png; owns the setjmp. */
static int encode_stream(encoder *e, const uint8_t *pixels, uint32_t width, uint32_t height, int bit_depth,
                         int color_type, int level, int filters, const metadata *m,
                         const cpng_row_progress *progress) {
    if (setjmp(png_jmpbuf(e->png))) return e->status->code;
    write_png(e, pixels, width, height, bit_depth, color_type, level, filters, m, progress);
    return CPNG_OK;
}

static int valid_arguments(const void *pixels, uint32_t width, uint32_t height, int bit_depth, int color_type,
                           int level, int filters) {
    return pixels != NULL && width > 0 && height > 0 && width <= PNG_UINT_31_MAX && height <= PNG_UINT_31_MAX &&
           (bit_depth == 8 || bit_depth == 16) &&
           (color_type == CPNG_COLOR_GRAY || color_type == CPNG_COLOR_GRAY_ALPHA || color_type == CPNG_COLOR_RGB ||
            color_type == CPNG_COLOR_RGBA) &&
           level >= 0 && level <= 9 && (filters == CPNG_FILTERS_NONE || filters == CPNG_FILTERS_ADAPTIVE);
}

int cpng_encode(const void *pixels, uint32_t width, uint32_t height, int bit_depth, int color_type, int level,
                int filters, const cpng_chunk *chunks, size_t chunk_count, int64_t time,
                const cpng_row_progress *progress, cpng_buffer *output, cpng_status *status) {
    cpng_status_clear(status);
    memset(output, 0, sizeof *output);
    if (!valid_arguments(pixels, width, height, bit_depth, color_type, level, filters)) {
        cpng_status_fail(status, CPNG_INVALID_ARGUMENT, NULL,
                         "cannot encode %u x %u, depth %d, color type %d, level %d, filters %d", width, height,
                         bit_depth, color_type, level, filters);
        return status->code;
    }
    encoder *e = calloc(1, sizeof *e);
    if (e != NULL) {
        e->output = output;
        e->status = status;
        e->row = malloc((size_t)width * 8);
        e->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, e, error_callback, warning_callback);
        if (e->png != NULL) e->info = png_create_info_struct(e->png);
    }
    if (e == NULL || e->row == NULL || e->info == NULL) {
        cpng_status_fail(status, CPNG_NO_MEMORY, NULL, "out of memory creating the libpng writer");
    } else {
        metadata m = {chunks, chunks != NULL ? chunk_count : 0, time};
        encode_stream(e, pixels, width, height, bit_depth, color_type, level, filters, &m, progress);
    }
    if (e != NULL) {
        if (e->png != NULL) png_destroy_write_struct(&e->png, &e->info);
        free(e->row);
        free(e);
    }
    if (status->code != CPNG_OK) cpng_buffer_free(output);
    return status->code;
}
