/* CJPEG: see cjpeg.h. Every setjmp and every longjmp of Kiln's JPEG code is in this file. */
#include "cjpeg.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jpeglib.h>
#include <jerror.h>

/* libjpeg's error manager, with the jump back to the entry point under way. */
struct cjpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    cjpeg_status *status;
};

static void status_clear(cjpeg_status *status) {
    status->code = CJPEG_OK;
    status->message[0] = 0;
}

static void status_fail(cjpeg_status *status, int code, const char *format, ...) {
    if (status->code != CJPEG_OK) return;
    status->code = code;
    va_list args;
    va_start(args, format);
    vsnprintf(status->message, sizeof status->message, format, args);
    va_end(args);
}

/* The code of the failure libjpeg's last message names. */
static int code_of(int message) {
    switch (message) {
    case JERR_NO_SOI: return CJPEG_NOT_JPEG;
    case JERR_INPUT_EMPTY: return CJPEG_NOT_JPEG;
    case JWRN_JPEG_EOF: return CJPEG_TRUNCATED;
    case JERR_OUT_OF_MEMORY: return CJPEG_NO_MEMORY;
    case JERR_FILE_READ: return CJPEG_IO;
    case JERR_BAD_IN_COLORSPACE:
    case JERR_CONVERSION_NOTIMPL:
    /* Valid JPEGs this libjpeg does not read: 12-bit samples, lossless (SOF3) and hierarchical
     * (SOF5-7) processes, arithmetic coding where it was left out. Not "corrupt": the file is sound. */
    case JERR_BAD_PRECISION:
    case JERR_SOF_UNSUPPORTED:
    case JERR_ARITH_NOTIMPL:
    case JERR_NOT_COMPILED:
    case JERR_NOTIMPL: return CJPEG_UNSUPPORTED;
    default: return CJPEG_CORRUPT;
    }
}

/* Records libjpeg's message and jumps back to the entry point (never returns). */
static void fail_and_jump(j_common_ptr cinfo) {
    struct cjpeg_error *error = (struct cjpeg_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    status_fail(error->status, code_of(cinfo->err->msg_code), "%s", text);
    longjmp(error->jump, 1);
}

/* A warning (level -1) is corrupt or truncated data: a failure. Trace messages are ignored. */
static void emit_message(j_common_ptr cinfo, int level) {
    if (level < 0) fail_and_jump(cinfo);
}

static void install_errors(struct cjpeg_error *error, cjpeg_status *status) {
    jpeg_std_error(&error->pub);
    error->pub.error_exit = fail_and_jump;
    error->pub.emit_message = emit_message;
    error->status = status;
}

/* ---- Decoder ---- */

/* The source libjpeg reads: the bytes in memory, or the file through a buffer of its own, handed over at most
 * SOURCE_WINDOW bytes at a time. libjpeg-turbo decodes a baseline scan's MCU by a fast path while 512 bytes a block
 * of the MCU are at hand, and that path decodes a bad Huffman code as 0 without a word, where the careful one warns
 * ("Corrupt JPEG data: bad Huffman code": kiln fails the image). With the whole file in memory (jpeg_mem_src, every
 * JPEG under 1 MiB) it always took the fast path, and a damaged photo was written with exit 0 (in place, over its
 * original) where the same bytes streamed through jpeg_stdio_src's 4 KiB buffer failed, mostly. Windows of 256
 * bytes keep every MCU on the careful path, for both: the same bytes fail alike, however they are read. The price,
 * measured (BENCHMARKS.md, "A JPEG's damage found however it is read"): 8 % more user time decoding 60 noisy 0.7 MP
 * JPEGs read whole (medians of 10), none on a streamed 24 MP one (its 4 KiB buffer had mostly been careful too). */
#define SOURCE_WINDOW 256
#define SOURCE_FILE_BUFFER ((size_t)64 << 10)

struct window_source {
    struct jpeg_source_mgr pub;
    FILE *file;                 /* NULL for memory */
    JOCTET *buffer;             /* the file's buffer (SOURCE_FILE_BUFFER bytes) */
    const JOCTET *chunk;        /* the memory, or the bytes of the file now in the buffer */
    size_t chunk_size;
    size_t chunk_start;         /* the input's offset of chunk[0] */
    size_t window_end;          /* the chunk's offset after the window handed over last (libjpeg asks for the next
                                   window only once it has taken the whole of this one, and does not say so in
                                   pub.next_input_byte: its readers keep their own copy) */
    int ended;                  /* past the input's end: a fake EOI is what is left */
};

struct cjpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    struct cjpeg_error error;
    struct window_source source;
    FILE *file;
    /* The input's size in bytes (the file's, or the memory's), for the progress of a multi-scan read. */
    size_t input_size;
    /* Whether the output's scale is fixed (cjpeg_decoder_scale), and whether decompression started. */
    int scaled;
    int started;
    int failed;
    /* What libjpeg holds of a multi-scan file: every coefficient (cjpeg_info.held_bytes). */
    size_t held_bytes;
    /* Hears how much of the file a multi-scan read has consumed before the first row (cjpeg_decoder_on_progress). */
    void (*on_progress)(void *context, double fraction);
    void *progress_context;
    double reported;
    /* Bytes consumed when the scans began (the header and its segments before them). */
    double progress_base;
    struct jpeg_progress_mgr progress;
    /* Whether the samples are CMYK, stored inverted (as Photoshop writes them, with its Adobe APP14 marker). Every CMYK JPEG is read so, with the marker or not, as libvips 8.14 and ImageMagick read them:
       one whose marker a metadata tool removed came out a near-negative (measured: a mean error of 76 levels
       against 25 with the marker; rejected: trusting the marker's absence, which no writer kiln knows means
       "not inverted"). */
    int inverted;
    /* One row, for rows read and dropped. */
    uint8_t *scratch;
    /* The kept APPn and COM segments, in file order (keep_segment); each one's data is malloc'd. */
    cjpeg_marker *kept;
    size_t kept_count, kept_capacity, kept_bytes;
    /* Segments kept of each marker (APP0-APP15, COM), so that a flood of one does not push out another. */
    size_t kept_of[17];
    /* Whether segments past a limit were left out, and whether the bytes' limit was met (every later one too). */
    int left_out, bytes_spent;
};

/* At most this many segments of each marker, and bytes of them all, are kept (a PNG's ancillary chunks are held
 * to 1000 and 64 MiB: CPNG's decoder.h); later ones are skipped and cjpeg_decoder_markers_left_out says so. Per
 * marker: 3000 comments before the frame left out the EXIF (the orientation) and the ICC profile after them. Once
 * the bytes are spent, every later segment is left out, so no ICC profile is kept in part. */
#define MAX_KEPT_SEGMENTS 1000
#define MAX_KEPT_SEGMENT_BYTES ((size_t)64 << 20)

/* The next byte of the source (stdio and memory sources never suspend: at the end they give a fake EOI, with a
 * warning that fails the read). */
static int source_byte(j_decompress_ptr cinfo) {
    struct jpeg_source_mgr *source = cinfo->src;
    if (source->bytes_in_buffer == 0 && !(*source->fill_input_buffer)(cinfo)) ERREXIT(cinfo, JERR_CANT_SUSPEND);
    source->bytes_in_buffer--;
    return *source->next_input_byte++;
}

/* libjpeg's marker processor for the segments kiln keeps, in place of jpeg_save_markers: that appends each segment
 * to its list by walking the list from its head, so a header of n segments took n²/2 steps (100000 three-byte
 * comments, a 700 KB file, 26 s; a million ran past the stall watchdog while the job was planned, before any image,
 * and every resume did the same), and it kept all of them. Here an array that doubles, up to the limits. An APP0
 * that is JFIF sets what libjpeg's examine_app0 sets (its colour-space guess follows saw_JFIF_marker), without its
 * warning for a JFIF major version other than 1, which failed such files (kiln takes a warning as damage). */
static boolean keep_segment(j_decompress_ptr cinfo) {
    cjpeg_decoder *decoder = (cjpeg_decoder *)cinfo; /* cinfo is the decoder's first member */
    int marker = cinfo->unread_marker;
    long high = source_byte(cinfo);
    long length = (high << 8 | source_byte(cinfo)) - 2;
    if (length < 0) ERREXIT(cinfo, JERR_BAD_LENGTH);
    size_t size = (size_t)length;
    size_t *of = &decoder->kept_of[marker == JPEG_COM ? 16 : (marker - JPEG_APP0) & 15];
    if (decoder->bytes_spent || decoder->kept_bytes + size > MAX_KEPT_SEGMENT_BYTES) decoder->bytes_spent = 1;
    if (decoder->bytes_spent || *of >= MAX_KEPT_SEGMENTS) {
        decoder->left_out = 1;
        if (length > 0) (*cinfo->src->skip_input_data)(cinfo, length);
        return TRUE;
    }
    (*of)++;
    if (decoder->kept_count == decoder->kept_capacity) {
        size_t capacity = decoder->kept_capacity > 0 ? decoder->kept_capacity * 2 : 16;
        cjpeg_marker *kept = realloc(decoder->kept, capacity * sizeof *kept);
        if (kept == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 0);
        decoder->kept = kept;
        decoder->kept_capacity = capacity;
    }
    uint8_t *data = size > 0 ? malloc(size) : NULL;
    if (size > 0 && data == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 1);
    /* Listed before it is read: a failure part-way leaves it for cjpeg_decoder_close to free. */
    decoder->kept[decoder->kept_count++] = (cjpeg_marker){.marker = marker, .data = data, .size = size};
    decoder->kept_bytes += size;
    struct jpeg_source_mgr *source = cinfo->src;
    for (size_t copied = 0; copied < size;) {
        if (source->bytes_in_buffer == 0 && !(*source->fill_input_buffer)(cinfo)) ERREXIT(cinfo, JERR_CANT_SUSPEND);
        size_t part = source->bytes_in_buffer < size - copied ? source->bytes_in_buffer : size - copied;
        memcpy(data + copied, source->next_input_byte, part);
        source->next_input_byte += part;
        source->bytes_in_buffer -= part;
        copied += part;
    }
    if (marker == JPEG_APP0 && size >= 14 && memcmp(data, "JFIF", 5) == 0) {
        cinfo->saw_JFIF_marker = TRUE;
        cinfo->JFIF_major_version = data[5];
        cinfo->JFIF_minor_version = data[6];
        cinfo->density_unit = data[7];
        cinfo->X_density = (UINT16)(data[8] << 8 | data[9]);
        cinfo->Y_density = (UINT16)(data[10] << 8 | data[11]);
    }
    return TRUE;
}

static void describe(cjpeg_decoder *decoder, cjpeg_info *info) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    info->width = cinfo->output_width;
    info->height = cinfo->output_height;
    info->image_width = cinfo->image_width;
    info->image_height = cinfo->image_height;
    info->components = cinfo->num_components;
    info->progressive = cinfo->progressive_mode;
    info->held_bytes = decoder->held_bytes;
    info->rows = cinfo->out_color_space == JCS_CMYK ? CJPEG_ROWS_CMYK : CJPEG_ROWS_RGBA;
}

/* Reads the header and chooses the rows' colour space; the source is set. */
static cjpeg_decoder *read_header(cjpeg_decoder *decoder, cjpeg_info *info, cjpeg_status *status) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    decoder->error.status = status;
    if (setjmp(decoder->error.jump)) {
        cjpeg_decoder_close(decoder);
        return NULL;
    }
    jpeg_set_marker_processor(cinfo, JPEG_APP0, keep_segment);       /* JFIF: the density */
    jpeg_set_marker_processor(cinfo, JPEG_APP0 + 1, keep_segment);   /* EXIF, XMP */
    jpeg_set_marker_processor(cinfo, JPEG_APP0 + 2, keep_segment);   /* ICC profile */
    jpeg_set_marker_processor(cinfo, JPEG_APP0 + 13, keep_segment);  /* Photoshop resources: IPTC */
    jpeg_set_marker_processor(cinfo, JPEG_COM, keep_segment);        /* comments */
    jpeg_read_header(cinfo, TRUE);
    /* A progressive or non-interleaved file is read whole by jpeg_start_decompress, every component's coefficients
     * held (jdcoefct.c's whole-image arrays, each side rounded up to its sampling factor, a JBLOCK for each block). */
    if (jpeg_has_multiple_scans(cinfo)) {
        for (int ci = 0; ci < cinfo->num_components; ci++) {
            jpeg_component_info *component = &cinfo->comp_info[ci];
            size_t across = (component->width_in_blocks + component->h_samp_factor - 1) / component->h_samp_factor
                * component->h_samp_factor;
            size_t down = (component->height_in_blocks + component->v_samp_factor - 1) / component->v_samp_factor
                * component->v_samp_factor;
            decoder->held_bytes += across * down * sizeof(JBLOCK);
        }
    }
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE:
    case JCS_YCbCr:
    case JCS_RGB:
        cinfo->out_color_space = JCS_EXT_RGBA;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        cinfo->out_color_space = JCS_CMYK;
        decoder->inverted = 1;
        break;
    default:
        status_fail(status, CJPEG_UNSUPPORTED, "unsupported JPEG colour space (%d components)", cinfo->num_components);
        cjpeg_decoder_close(decoder);
        return NULL;
    }
    jpeg_calc_output_dimensions(cinfo);
    describe(decoder, info);
    return decoder;
}

static cjpeg_decoder *new_decoder(cjpeg_status *status) {
    status_clear(status);
    cjpeg_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) {
        status_fail(status, CJPEG_NO_MEMORY, "cannot allocate a JPEG decoder");
        return NULL;
    }
    install_errors(&decoder->error, status);
    decoder->cinfo.err = &decoder->error.pub;
    if (setjmp(decoder->error.jump)) {
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->cinfo);
    return decoder;
}

static void init_window(j_decompress_ptr cinfo) { (void)cinfo; }

static void term_window(j_decompress_ptr cinfo) { (void)cinfo; }

/* The next window of the input: of the chunk, or of the file read on; past the end, a warning (which fails the
 * read: emit_message) and a fake EOI, as libjpeg's own sources do. */
static boolean fill_window(j_decompress_ptr cinfo) {
    static const JOCTET eoi[2] = {0xFF, JPEG_EOI};
    struct window_source *source = (struct window_source *)cinfo->src;
    size_t at = source->ended ? source->chunk_size : source->window_end;
    if (at >= source->chunk_size && source->file && !source->ended) {
        source->chunk_start += source->chunk_size;
        source->chunk_size = fread(source->buffer, 1, SOURCE_FILE_BUFFER, source->file);
        source->chunk = source->buffer;
        at = 0;
    }
    if (at >= source->chunk_size) {
        source->ended = 1;
        WARNMS(cinfo, JWRN_JPEG_EOF);
        source->pub.next_input_byte = eoi;
        source->pub.bytes_in_buffer = 2;
        return TRUE;
    }
    size_t left = source->chunk_size - at;
    source->pub.next_input_byte = source->chunk + at;
    source->pub.bytes_in_buffer = left < SOURCE_WINDOW ? left : SOURCE_WINDOW;
    source->window_end = at + source->pub.bytes_in_buffer;
    return TRUE;
}

static void skip_window(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *source = cinfo->src;
    while (count > 0) {
        if (source->bytes_in_buffer == 0) (void)fill_window(cinfo);
        size_t part = source->bytes_in_buffer < (size_t)count ? source->bytes_in_buffer : (size_t)count;
        source->next_input_byte += part;
        source->bytes_in_buffer -= part;
        count -= (long)part;
    }
}

/* Sets the decoder's source: `file` (its buffer allocated here), or `size` bytes at `data`. */
static int set_window_source(cjpeg_decoder *decoder, FILE *file, const uint8_t *data, size_t size) {
    struct window_source *source = &decoder->source;
    if (file && !(source->buffer = malloc(SOURCE_FILE_BUFFER))) return 0;
    source->file = file;
    source->chunk = file ? source->buffer : data;
    source->chunk_size = file ? 0 : size;
    source->pub.init_source = init_window;
    source->pub.fill_input_buffer = fill_window;
    source->pub.skip_input_data = skip_window;
    source->pub.resync_to_restart = jpeg_resync_to_restart;
    source->pub.term_source = term_window;
    source->pub.next_input_byte = source->chunk;
    source->pub.bytes_in_buffer = 0;
    decoder->cinfo.src = &source->pub;
    return 1;
}

cjpeg_decoder *cjpeg_decoder_open_file(const char *path, cjpeg_info *info, cjpeg_status *status) {
    cjpeg_decoder *decoder = new_decoder(status);
    if (!decoder) return NULL;
    decoder->file = fopen(path, "rbe");
    struct stat file_status;
    if (!decoder->file || fstat(fileno(decoder->file), &file_status) != 0) {
        status_fail(status, CJPEG_IO, "cannot open the file: %s", strerror(errno));
        cjpeg_decoder_close(decoder);
        return NULL;
    }
    decoder->input_size = file_status.st_size > 0 ? (size_t)file_status.st_size : 0;
    if (!set_window_source(decoder, decoder->file, NULL, 0)) {
        status_fail(status, CJPEG_NO_MEMORY, "cannot allocate the JPEG decoder's input buffer");
        cjpeg_decoder_close(decoder);
        return NULL;
    }
    return read_header(decoder, info, status);
}

cjpeg_decoder *cjpeg_decoder_open_memory(const uint8_t *data, size_t size, cjpeg_info *info, cjpeg_status *status) {
    cjpeg_decoder *decoder = new_decoder(status);
    if (!decoder) return NULL;
    if (size == 0) {
        status_fail(status, CJPEG_NOT_JPEG, "empty file");
        cjpeg_decoder_close(decoder);
        return NULL;
    }
    set_window_source(decoder, NULL, data, size);
    decoder->input_size = size;
    return read_header(decoder, info, status);
}

int cjpeg_decoder_scale(cjpeg_decoder *decoder, int scale_denominator, cjpeg_info *info, cjpeg_status *status) {
    status_clear(status);
    if (decoder->failed || decoder->scaled) {
        status_fail(status, CJPEG_UNSUPPORTED, "the decoder's scale is fixed already");
        return status->code;
    }
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    decoder->error.status = status;
    if (setjmp(decoder->error.jump)) {
        decoder->failed = 1;
        return status->code;
    }
    cinfo->scale_num = 1;
    cinfo->scale_denom = scale_denominator == 2 || scale_denominator == 4 || scale_denominator == 8
        ? (unsigned int)scale_denominator : 1;
    jpeg_calc_output_dimensions(cinfo);
    decoder->scaled = 1;
    describe(decoder, info);
    return CJPEG_OK;
}

void cjpeg_decoder_on_progress(cjpeg_decoder *decoder, void (*callback)(void *context, double fraction), void *context) {
    decoder->on_progress = callback;
    decoder->progress_context = context;
}

/* Bytes of the input libjpeg has consumed. */
static double consumed(cjpeg_decoder *decoder) {
    const struct window_source *source = &decoder->source;
    if (source->ended) return (double)decoder->input_size;
    return (double)source->chunk_start + (double)(source->pub.next_input_byte - source->chunk);
}

/* libjpeg's progress monitor while jpeg_start_decompress reads a multi-scan file: the part of the input from the
 * scans' start consumed (a large ICC profile before them is no jump), said at every half percent. Data after EOI (a
 * phone's Motion Photo video) is never read, and is the rest when the first row comes. cinfo is the decoder's first
 * member. */
static void report_progress(j_common_ptr common) {
    cjpeg_decoder *decoder = (cjpeg_decoder *)common;
    double left = (double)decoder->input_size - decoder->progress_base;
    if (!decoder->on_progress || left <= 0) return;
    double fraction = (consumed(decoder) - decoder->progress_base) / left;
    fraction = fraction < 0 ? 0 : fraction > 1 ? 1 : fraction;
    if (fraction >= decoder->reported + 0.005) {
        decoder->reported = fraction;
        decoder->on_progress(decoder->progress_context, fraction);
    }
}

/* Starts decompression at the scale fixed (1 when none was): a multi-scan file is read whole here, its progress
 * said. Before the first row. */
static int begin(cjpeg_decoder *decoder, cjpeg_status *status) {
    if (decoder->failed) {
        status_fail(status, CJPEG_UNSUPPORTED, "the decoder is not reading rows");
        return status->code;
    }
    if (!decoder->scaled && cjpeg_decoder_scale(decoder, 1, &(cjpeg_info){0}, status) != CJPEG_OK) return status->code;
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    decoder->error.status = status;
    if (setjmp(decoder->error.jump)) {
        cinfo->progress = NULL;
        decoder->failed = 1;
        return status->code;
    }
    decoder->progress.progress_monitor = report_progress;
    decoder->progress_base = consumed(decoder);
    cinfo->progress = decoder->on_progress ? &decoder->progress : NULL;
    jpeg_start_decompress(cinfo);
    cinfo->progress = NULL;
    decoder->started = 1;
    decoder->scratch = malloc((size_t)cinfo->output_width * 4);
    if (!decoder->scratch) {
        decoder->failed = 1;
        status_fail(status, CJPEG_NO_MEMORY, "cannot allocate a row of %u pixels", cinfo->output_width);
    }
    return status->code;
}

int cjpeg_decoder_read_rows(cjpeg_decoder *decoder, uint8_t *destination, uint32_t count, cjpeg_status *status) {
    status_clear(status);
    if (!decoder->started && begin(decoder, status) != CJPEG_OK) return status->code;
    if (decoder->failed) {
        status_fail(status, CJPEG_UNSUPPORTED, "the decoder is not reading rows");
        return status->code;
    }
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    decoder->error.status = status;
    if (setjmp(decoder->error.jump)) {
        decoder->failed = 1;
        return status->code;
    }
    size_t row_bytes = (size_t)cinfo->output_width * 4;
    for (uint32_t row = 0; row < count; row++) {
        if (cinfo->output_scanline >= cinfo->output_height) {
            status_fail(status, CJPEG_UNSUPPORTED, "read past the last row");
            return status->code;
        }
        JSAMPROW line = destination ? destination + row * row_bytes : decoder->scratch;
        while (jpeg_read_scanlines(cinfo, &line, 1) != 1) {}
        if (destination && decoder->inverted) {
            for (size_t i = 0; i < row_bytes; i++) line[i] = 255 - line[i];
        }
    }
    return CJPEG_OK;
}

int cjpeg_decoder_finish(cjpeg_decoder *decoder, cjpeg_status *status) {
    status_clear(status);
    if (!decoder->started && begin(decoder, status) != CJPEG_OK) return status->code;
    uint32_t left = decoder->cinfo.output_height - decoder->cinfo.output_scanline;
    if (cjpeg_decoder_read_rows(decoder, NULL, left, status) != CJPEG_OK) return status->code;
    decoder->error.status = status;
    if (setjmp(decoder->error.jump)) {
        decoder->failed = 1;
        return status->code;
    }
    jpeg_finish_decompress(&decoder->cinfo);
    decoder->failed = 1; /* nothing more to read */
    return CJPEG_OK;
}

size_t cjpeg_decoder_markers(cjpeg_decoder *decoder, cjpeg_marker *out, size_t capacity) {
    size_t count = capacity < decoder->kept_count ? capacity : decoder->kept_count;
    if (out && count > 0) memcpy(out, decoder->kept, count * sizeof *out);
    return decoder->kept_count;
}

int cjpeg_decoder_markers_left_out(cjpeg_decoder *decoder) { return decoder->left_out; }

void cjpeg_decoder_abandon(cjpeg_decoder *decoder) {
    /* jpeg_abort_decompress frees every pool but the permanent one, and cannot fail. */
    jpeg_abort_decompress(&decoder->cinfo);
    free(decoder->scratch);
    decoder->scratch = NULL;
    decoder->failed = 1;
}

void cjpeg_decoder_close(cjpeg_decoder *decoder) {
    if (!decoder) return;
    jpeg_destroy_decompress(&decoder->cinfo);
    if (decoder->file) fclose(decoder->file);
    free(decoder->source.buffer);
    free(decoder->scratch);
    for (size_t i = 0; i < decoder->kept_count; i++) free((void *)decoder->kept[i].data);
    free(decoder->kept);
    free(decoder);
}

/* ---- Encoder ---- */

/* The compressed stream is kept in blocks of OUT_BLOCK bytes: growing it never copies what it holds. Rejected:
 * jpeg_mem_dest, which doubles one buffer and copies it over at each growth (a 6000×4000 noise image at quality
 * 100, 98 MB, went through 64 MB held twice), and which the caller then copied once more. */
#define OUT_BLOCK ((size_t)1 << 20)

struct cjpeg_encoder {
    struct jpeg_compress_struct cinfo; /* first: the destination's callbacks find the encoder from it */
    struct cjpeg_error error;
    struct jpeg_destination_mgr destination;
    uint8_t **blocks;
    size_t block_count, block_capacity;
    size_t last_block_used; /* bytes of the last block, once the stream is complete */
    int bit_depth;
    uint16_t background[3];
    int gray;
    int failed;
    int flattened;
    /* One RGB row, alpha flattened. */
    uint8_t *row;
};

/* Appends an empty block and points libjpeg at it; 0 when memory runs out. */
static int add_block(cjpeg_encoder *encoder) {
    if (encoder->block_count == encoder->block_capacity) {
        size_t capacity = encoder->block_capacity ? 2 * encoder->block_capacity : 16;
        uint8_t **blocks = realloc(encoder->blocks, capacity * sizeof *blocks);
        if (!blocks) return 0;
        encoder->blocks = blocks;
        encoder->block_capacity = capacity;
    }
    uint8_t *block = malloc(OUT_BLOCK);
    if (!block) return 0;
    encoder->blocks[encoder->block_count++] = block;
    encoder->destination.next_output_byte = block;
    encoder->destination.free_in_buffer = OUT_BLOCK;
    return 1;
}

static void destination_init(j_compress_ptr cinfo) {
    if (!add_block((cjpeg_encoder *)cinfo)) ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
}

/* libjpeg filled the last block: the next one. */
static boolean destination_full(j_compress_ptr cinfo) {
    if (!add_block((cjpeg_encoder *)cinfo)) ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    return TRUE;
}

static void destination_end(j_compress_ptr cinfo) {
    cjpeg_encoder *encoder = (cjpeg_encoder *)cinfo;
    encoder->last_block_used = OUT_BLOCK - encoder->destination.free_in_buffer;
}

cjpeg_encoder *cjpeg_encoder_open(uint32_t width, uint32_t height, int bit_depth, const cjpeg_encode_options *options,
                                  cjpeg_status *status) {
    status_clear(status);
    if (width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION) {
        status_fail(status, CJPEG_TOO_LARGE, "%u × %u pixels, and a JPEG holds at most %d × %d", width, height,
                    JPEG_MAX_DIMENSION, JPEG_MAX_DIMENSION);
        return NULL;
    }
    if ((bit_depth != 8 && bit_depth != 16) || options->quality < 1 || options->quality > 100 || width == 0 || height == 0) {
        status_fail(status, CJPEG_UNSUPPORTED, "no JPEG of %u × %u pixels at %d bits, quality %d", width, height, bit_depth,
                    options->quality);
        return NULL;
    }
    cjpeg_encoder *encoder = calloc(1, sizeof *encoder);
    uint8_t *row = malloc((size_t)width * 3);
    if (!encoder || !row) {
        free(encoder);
        free(row);
        status_fail(status, CJPEG_NO_MEMORY, "cannot allocate a JPEG encoder");
        return NULL;
    }
    encoder->row = row;
    encoder->bit_depth = bit_depth;
    encoder->gray = options->gray != 0;
    memcpy(encoder->background, options->background, sizeof encoder->background);
    install_errors(&encoder->error, status);
    struct jpeg_compress_struct *cinfo = &encoder->cinfo;
    cinfo->err = &encoder->error.pub;
    if (setjmp(encoder->error.jump)) {
        cjpeg_encoder_close(encoder);
        return NULL;
    }
    jpeg_create_compress(cinfo);
    encoder->destination.init_destination = destination_init;
    encoder->destination.empty_output_buffer = destination_full;
    encoder->destination.term_destination = destination_end;
    cinfo->dest = &encoder->destination;
    cinfo->image_width = width;
    cinfo->image_height = height;
    cinfo->input_components = encoder->gray ? 1 : 3;
    cinfo->in_color_space = encoder->gray ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, options->quality, TRUE);
    cinfo->write_JFIF_header = FALSE;
    cinfo->optimize_coding = options->optimize ? TRUE : FALSE;
    /* Luma at twice chroma's rate for 4:2:0; a gray file has no chroma, so its one component is 1×1
     * (2×2 there changed no pixel, but tools reported a gray file as 4:2:0; vips writes 1×1). */
    const int factor = options->subsample_420 && !encoder->gray ? 2 : 1;
    cinfo->comp_info[0].h_samp_factor = factor;
    cinfo->comp_info[0].v_samp_factor = factor;
    if (options->progressive) jpeg_simple_progression(cinfo);
    jpeg_start_compress(cinfo, TRUE);
    return encoder;
}

/* `row` (RGBA, 8 or 16 bits) flattened onto the background, as 8-bit RGB, or 8-bit gray for a gray
 * encoder (its one channel: red, which green and blue equal). Returns 0 when a gray encoder meets a
 * pixel that is not gray: the caller's promise broken, the row is refused rather than changed. */
static int flatten(cjpeg_encoder *encoder, const uint8_t *row, uint8_t *out, uint32_t width) {
    const int channels = encoder->gray ? 1 : 3;
    if (encoder->bit_depth == 8) {
        for (uint32_t x = 0; x < width; x++) {
            const uint8_t *p = row + 4 * x;
            if (encoder->gray && (p[0] != p[1] || p[1] != p[2])) return 0;
            uint32_t a = p[3];
            if (a != 255) encoder->flattened = 1;
            for (int c = 0; c < channels; c++) {
                out[channels * x + c] = a == 255 ? p[c]
                    : (uint8_t)((p[c] * a + encoder->background[c] * (255 - a) + 127) / 255);
            }
        }
    } else {
        const uint16_t *samples = (const uint16_t *)row;
        for (uint32_t x = 0; x < width; x++) {
            const uint16_t *p = samples + 4 * x;
            if (encoder->gray && (p[0] != p[1] || p[1] != p[2])) return 0;
            uint64_t a = p[3];
            if (a != 65535) encoder->flattened = 1;
            for (int c = 0; c < channels; c++) {
                uint64_t v = (p[c] * a + (uint64_t)encoder->background[c] * (65535 - a) + 32767) / 65535;
                out[channels * x + c] = (uint8_t)((v * 255 + 32767) / 65535);
            }
        }
    }
    return 1;
}

int cjpeg_encoder_write_rows(cjpeg_encoder *encoder, const uint8_t *rows, uint32_t count, cjpeg_status *status) {
    status_clear(status);
    if (encoder->failed) {
        status_fail(status, CJPEG_UNSUPPORTED, "the encoder failed before");
        return status->code;
    }
    struct jpeg_compress_struct *cinfo = &encoder->cinfo;
    encoder->error.status = status;
    if (setjmp(encoder->error.jump)) {
        encoder->failed = 1;
        return status->code;
    }
    size_t row_bytes = (size_t)cinfo->image_width * 4 * (encoder->bit_depth / 8);
    for (uint32_t y = 0; y < count; y++) {
        if (!flatten(encoder, rows + y * row_bytes, encoder->row, cinfo->image_width)) {
            encoder->failed = 1;
            status_fail(status, CJPEG_UNSUPPORTED, "a row of an image written gray holds a colour pixel");
            return status->code;
        }
        JSAMPROW line = encoder->row;
        jpeg_write_scanlines(cinfo, &line, 1);
    }
    return CJPEG_OK;
}

int cjpeg_encoder_finish(cjpeg_encoder *encoder, cjpeg_status *status) {
    status_clear(status);
    if (encoder->failed) {
        status_fail(status, CJPEG_UNSUPPORTED, "the encoder failed before");
        return status->code;
    }
    encoder->error.status = status;
    if (setjmp(encoder->error.jump)) {
        encoder->failed = 1;
        return status->code;
    }
    jpeg_finish_compress(&encoder->cinfo);
    encoder->failed = 1; /* complete: takes no more rows */
    return CJPEG_OK;
}

size_t cjpeg_encoder_block_count(const cjpeg_encoder *encoder) { return encoder->block_count; }

const uint8_t *cjpeg_encoder_block(const cjpeg_encoder *encoder, size_t index, size_t *size) {
    *size = index + 1 == encoder->block_count ? encoder->last_block_used : OUT_BLOCK;
    return encoder->blocks[index];
}

int cjpeg_encoder_flattened(const cjpeg_encoder *encoder) { return encoder->flattened; }

void cjpeg_encoder_close(cjpeg_encoder *encoder) {
    if (!encoder) return;
    jpeg_destroy_compress(&encoder->cinfo);
    for (size_t i = 0; i < encoder->block_count; i++) free(encoder->blocks[i]);
    free(encoder->blocks);
    free(encoder->row);
    free(encoder);
}
