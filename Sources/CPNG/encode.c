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

/* A writer's state, on the heap so it survives a longjmp intact. */
struct cpng_zlib_writer {
    png_structp png;
    png_infop info;
    cpng_buffer output;  /* what libpng wrote since the caller last took it */
    cpng_status *status; /* the status of the call under way */
    uint8_t *row;        /* one packed output row */
    uint32_t width, height, next_row;
    cpng_packer packer;  /* the output's layout (the caller's palette is read only while opening) */
    int failed;          /* a libpng error left the writer unusable */
};

void cpng_buffer_free(cpng_buffer *buffer) {
    free(buffer->data);
    buffer->data = NULL;
    buffer->size = 0;
    buffer->capacity = 0;
}

static void error_callback(png_structp png, png_const_charp message) {
    cpng_zlib_writer *e = png_get_error_ptr(png);
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
    cpng_zlib_writer *e = png_get_io_ptr(png);
    cpng_buffer *out = &e->output;
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

/* Registers the chunks with libpng, which writes each at its location. */
static void set_chunks(png_structp png, png_infop info, const cpng_chunk *chunks, size_t count) {
    if (count == 0) return;
    png_unknown_chunk *list = png_malloc(png, count * sizeof *list);
    for (size_t i = 0; i < count; i++) {
        memcpy(list[i].name, chunks[i].name, 4);
        list[i].name[4] = 0;
        list[i].data = (png_byte *)chunks[i].data;
        list[i].size = chunks[i].size;
        list[i].location = (png_byte)chunks[i].location;
    }
    /* Write every listed chunk, safe-to-copy or not: the caller chose them. */
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_ALWAYS, NULL, 0);
    png_set_unknown_chunks(png, info, list, (int)count);  /* copies the list and the data */
    png_free(png, list);
}

/* A tIME saying `time` (seconds since 1970, UTC), unless it is CPNG_NO_TIME: written by
 * png_write_info, or by png_write_end when set after it. */
static void set_time(png_structp png, png_infop info, int64_t time) {
    if (time == CPNG_NO_TIME) return;
    png_time stamp;
    png_convert_from_time_t(&stamp, (time_t)time);
    png_set_tIME(png, info, &stamp);
}

/* Writes the header and the chunks before IDAT; runs under open's setjmp. */
static void write_head(cpng_zlib_writer *e, int level, int filters, const cpng_chunk *chunks, size_t count,
                       int64_t time) {
    png_structp png = e->png;
    png_set_write_fn(png, e, write_callback, flush_callback);
    const cpng_format *f = &e->packer.format;
    png_set_IHDR(png, e->info, e->width, e->height, f->bit_depth, f->color_type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (f->color_type == CPNG_COLOR_PALETTE) {
        png_color colors[256];
        png_byte alpha[256];
        int transparent = 0; /* entries up to the last non-opaque one (they come first) */
        for (int i = 0; i < f->palette_size; i++) {
            const uint8_t *entry = f->palette + 4 * i;
            colors[i] = (png_color){entry[0], entry[1], entry[2]};
            alpha[i] = entry[3];
            if (entry[3] != 0xff) transparent = i + 1;
        }
        png_set_PLTE(png, e->info, colors, f->palette_size); /* copied */
        if (transparent > 0) png_set_tRNS(png, e->info, alpha, transparent, NULL);
    } else if (f->keyed) {
        png_color_16 key = {0};
        key.gray = key.red = (png_uint_16)cpng_stored_sample(f, f->key[0]);
        key.green = (png_uint_16)cpng_stored_sample(f, f->key[1]);
        key.blue = (png_uint_16)cpng_stored_sample(f, f->key[2]);
        png_set_tRNS(png, e->info, NULL, 0, &key);
    }
    png_set_compression_level(png, level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE,
                   filters == CPNG_FILTERS_ADAPTIVE && !cpng_unfiltered(f) ? PNG_ALL_FILTERS : PNG_FILTER_NONE);
    png_set_compression_buffer_size(png, IDAT_BYTES);
    set_chunks(png, e->info, chunks, count);
    set_time(png, e->info, time);
    png_write_info(png, e->info);
}

/* Entry points own the setjmp; each marks the writer failed when libpng jumps. */
static int open_stream(cpng_zlib_writer *e, int level, int filters, const cpng_chunk *chunks, size_t count,
                       int64_t time) {
    if (setjmp(png_jmpbuf(e->png))) { e->failed = 1; return e->status->code; }
    write_head(e, level, filters, chunks, count, time);
    return CPNG_OK;
}

static int write_rows(cpng_zlib_writer *e, const uint8_t *pixels, uint32_t count, const cpng_row_progress *progress) {
    if (setjmp(png_jmpbuf(e->png))) { e->failed = 1; return e->status->code; }
    size_t canonical_row = (size_t)e->width * 4 * (size_t)(e->packer.format.row_depth / 8);
    for (uint32_t i = 0; i < count; i++, e->next_row++) {
        cpng_pack_row(&e->packer, pixels + (size_t)i * canonical_row, e->row, e->width);
        png_write_row(e->png, e->row);
        /* Every 16 rows: a 32000-pixel row takes about 10 ms at level 9, so the
         * bar moves several times a second without a call per row. */
        uint32_t done = e->next_row + 1;
        if (progress != NULL && progress->done != NULL && (done % 16 == 0 || done == e->height))
            progress->done(progress->context, (double)done / e->height);
    }
    return CPNG_OK;
}

static int write_end(cpng_zlib_writer *e, const cpng_chunk *chunks, size_t count, int64_t time) {
    if (setjmp(png_jmpbuf(e->png))) { e->failed = 1; return e->status->code; }
    set_chunks(e->png, e->info, chunks, count);
    set_time(e->png, e->info, time);
    png_write_end(e->png, e->info);
    return CPNG_OK;
}

static int valid_arguments(uint32_t width, uint32_t height, int level, int filters) {
    return width > 0 && height > 0 && width <= PNG_UINT_31_MAX && height <= PNG_UINT_31_MAX &&
           level >= 0 && level <= 9 && (filters == CPNG_FILTERS_NONE || filters == CPNG_FILTERS_ADAPTIVE);
}

cpng_zlib_writer *cpng_zlib_writer_open(uint32_t width, uint32_t height, const cpng_format *format, int level,
                                        int filters, const cpng_chunk *chunks, size_t chunk_count, int64_t time,
                                        cpng_status *status) {
    cpng_status_clear(status);
    cpng_zlib_writer *e = calloc(1, sizeof *e);
    if (e != NULL && (!valid_arguments(width, height, level, filters) || !cpng_packer_init(&e->packer, format))) {
        cpng_status_fail(status, CPNG_INVALID_ARGUMENT, NULL,
                         "cannot encode %u x %u, depth %d, color type %d, level %d, filters %d", width, height,
                         format->bit_depth, format->color_type, level, filters);
        free(e);
        return NULL;
    }
    if (e != NULL) {
        e->status = status;
        e->width = width;
        e->height = height;
        e->row = malloc((size_t)width * 8);
        e->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, e, error_callback, warning_callback);
        if (e->png != NULL) e->info = png_create_info_struct(e->png);
    }
    if (e == NULL || e->row == NULL || e->info == NULL) {
        cpng_status_fail(status, CPNG_NO_MEMORY, NULL, "out of memory creating the libpng writer");
        cpng_zlib_writer_close(e);
        return NULL;
    }
    if (open_stream(e, level, filters, chunks, chunks != NULL ? chunk_count : 0, time) != CPNG_OK) {
        cpng_zlib_writer_close(e);
        return NULL;
    }
    return e;
}

int cpng_zlib_writer_rows(cpng_zlib_writer *writer, const void *pixels, uint32_t count,
                          const cpng_row_progress *progress, cpng_status *status) {
    cpng_status_clear(status);
    writer->status = status;
    if (writer->failed || pixels == NULL || count > writer->height - writer->next_row) {
        cpng_status_fail(status, CPNG_INVALID_ARGUMENT, NULL, "cannot take %u more rows after %u of %u", count,
                         writer->next_row, writer->height);
        return status->code;
    }
    return write_rows(writer, pixels, count, progress);
}

int cpng_zlib_writer_finish(cpng_zlib_writer *writer, const cpng_chunk *chunks, size_t chunk_count, int64_t time,
                            cpng_status *status) {
    cpng_status_clear(status);
    writer->status = status;
    if (writer->failed || writer->next_row != writer->height) {
        cpng_status_fail(status, CPNG_INVALID_ARGUMENT, NULL, "cannot end the image after %u of %u rows",
                         writer->next_row, writer->height);
        return status->code;
    }
    return write_end(writer, chunks, chunks != NULL ? chunk_count : 0, time);
}

cpng_buffer *cpng_zlib_writer_output(cpng_zlib_writer *writer) { return &writer->output; }

void cpng_zlib_writer_close(cpng_zlib_writer *writer) {
    if (writer == NULL) return;
    if (writer->png != NULL) png_destroy_write_struct(&writer->png, &writer->info);
    cpng_buffer_free(&writer->output);
    free(writer->row);
    free(writer);
}
