/* PNG decoding into the canonical RGBA buffer (see cpng.h). */
#include "cpng.h"
#include "status.h"
#include "decoder.h"

#include <errno.h>
#include <stdarg.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>




/* Ancillary chunks the canonical buffer does not use (gamma, colour and sBIT
 * are ignored by contract): skipped unparsed after their CRC check, or, with
 * CPNG_KEEP_CHUNKS, kept raw for the caller. */
static const png_byte ignored_chunks[] =
    "bKGD\0cHRM\0eXIf\0gAMA\0hIST\0iCCP\0iTXt\0oFFs\0pCAL\0pHYs\0"
    "sBIT\0sCAL\0sPLT\0sRGB\0tEXt\0tIME\0zTXt";
#define IGNORED_CHUNK_COUNT ((int)(sizeof ignored_chunks / 5))



uint32_t cpng_read_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

/* Reads up to `count` bytes from the source; sets *io_errno on a read error. */
size_t cpng_source_read(cpng_decoder *d, void *dst, size_t count, int *io_errno) {
    *io_errno = 0;
    if (d->file != NULL) {
        size_t got = fread(dst, 1, count, d->file);
        if (got < count && ferror(d->file)) *io_errno = errno != 0 ? errno : EIO;
        return got;
    }
    size_t available = d->size - d->offset;
    size_t got = count < available ? count : available;
    if (got > 0) memcpy(dst, d->data + d->offset, got);
    d->offset += got;
    return got;
}

/* Explains where the data ended, from libpng's position in the stream and the
 * `got` bytes of the read that came short. */
static void report_truncation(cpng_decoder *d, png_uint_32 io_state, size_t got) {
    char chunk[5];
    cpng_chunk_name(d->chunk_type, chunk);
    switch (io_state & PNG_IO_MASK_LOC) {
    case PNG_IO_CHUNK_DATA:
        cpng_status_fail(d->status, CPNG_TRUNCATED, chunk, "data ends inside the %s chunk (declared %u bytes)",
                         chunk, d->chunk_length);
        break;
    case PNG_IO_CHUNK_CRC:
        cpng_status_fail(d->status, CPNG_TRUNCATED, chunk, "data ends inside the CRC of the %s chunk", chunk);
        break;
    default:
        if (d->chunk_type == 0 && got == 0) {
            cpng_status_fail(d->status, CPNG_TRUNCATED, NULL, "data ends right after the signature");
        } else if (d->chunk_type == 0) {
            cpng_status_fail(d->status, CPNG_TRUNCATED, NULL, "data ends inside the first chunk's header (%zu of its 8 bytes)", got);
        } else if (got > 0 && (io_state & PNG_IO_MASK_LOC) == PNG_IO_CHUNK_HDR) {
            cpng_status_fail(d->status, CPNG_TRUNCATED, chunk, "data ends inside the header of the chunk after %s (%zu of its 8 bytes)",
                             chunk, got);
        } else {
            cpng_status_fail(d->status, CPNG_TRUNCATED, chunk, "data ends after the %s chunk, before IEND", chunk);
        }
        break;
    }
}

static void read_callback(png_structp png, png_bytep dst, size_t count) {
    cpng_decoder *d = png_get_io_ptr(png);
    png_uint_32 io_state = png_get_io_state(png);
    int io_errno;
    size_t got = cpng_source_read(d, dst, count, &io_errno);
    if (got < count) {
        if (io_errno != 0) {
            cpng_status_fail(d->status, CPNG_IO, NULL, "read error: %s", strerror(io_errno));
        } else {
            report_truncation(d, io_state, got);
        }
        png_error(png, d->status->message);
    }
    /* Track chunk headers (libpng reads each one as a single 8-byte read). */
    if ((io_state & PNG_IO_MASK_LOC) == PNG_IO_CHUNK_HDR && count == 8) {
        d->chunk_length = cpng_read_be32(dst);
        d->chunk_type = cpng_read_be32(dst + 4);
        d->kept_current = 0;
        d->warned_current = 0;
        if (d->chunk_type == TYPE_PLTE) d->seen_plte = 1;
        if (d->chunk_type == TYPE_IDAT) d->seen_idat = 1;
    } else if ((io_state & PNG_IO_MASK_LOC) == PNG_IO_CHUNK_DATA && d->chunk_type == TYPE_IHDR && count == 13) {
        memcpy(d->ihdr, dst, 13);
        d->have_ihdr = 1;
    }
}

/* Names the first invalid IHDR field, or returns 0 when the fields are valid. */
static int describe_ihdr_problem(const uint8_t ihdr[13], char *out, size_t size) {
    uint32_t width = cpng_read_be32(ihdr), height = cpng_read_be32(ihdr + 4);
    int depth = ihdr[8], color = ihdr[9];
    if (width == 0 || width > PNG_UINT_31_MAX) {
        snprintf(out, size, "width %u is outside 1...2147483647", width);
    } else if (height == 0 || height > PNG_UINT_31_MAX) {
        snprintf(out, size, "height %u is outside 1...2147483647", height);
    } else if (depth != 1 && depth != 2 && depth != 4 && depth != 8 && depth != 16) {
        snprintf(out, size, "bit depth %d is not 1, 2, 4, 8 or 16", depth);
    } else if (color != 0 && color != 2 && color != 3 && color != 4 && color != 6) {
        snprintf(out, size, "color type %d is not 0, 2, 3, 4 or 6", color);
    } else if ((color == 3 && depth > 8) || ((color == 2 || color == 4 || color == 6) && depth < 8)) {
        snprintf(out, size, "bit depth %d is not allowed with color type %d", depth, color);
    } else if (ihdr[10] != 0) {
        snprintf(out, size, "compression method %d is not 0", ihdr[10]);
    } else if (ihdr[11] != 0) {
        snprintf(out, size, "filter method %d is not 0", ihdr[11]);
    } else if (ihdr[12] > 1) {
        snprintf(out, size, "interlace method %d is not 0 or 1", ihdr[12]);
    } else {
        return 0;
    }
    return 1;
}

/* Turns a libpng error into a status code and message (first failure wins). */
static void classify_error(cpng_decoder *d, const char *message) {
    char chunk[5], detail[128];
    cpng_chunk_name(d->chunk_type, chunk);
    if (strstr(message, "CRC error") != NULL) {
        cpng_status_fail(d->status, CPNG_CRC, chunk, "CRC mismatch in the %s chunk", chunk);
    } else if (d->chunk_type == TYPE_IHDR && d->chunk_length != 13) {
        cpng_status_fail(d->status, CPNG_BAD_HEADER, "IHDR", "IHDR is %u bytes long, not 13", d->chunk_length);
    } else if (d->chunk_type == TYPE_IHDR && d->have_ihdr && describe_ihdr_problem(d->ihdr, detail, sizeof detail)) {
        cpng_status_fail(d->status, CPNG_BAD_HEADER, "IHDR", "%s", detail);
    } else if (d->chunk_type == TYPE_IHDR && d->have_ihdr &&
               (cpng_read_be32(d->ihdr) > d->max_dimension || cpng_read_be32(d->ihdr + 4) > d->max_dimension)) {
        cpng_status_fail(d->status, CPNG_TOO_LARGE, "IHDR", "%u x %u exceeds the limit of %u pixels per side",
                         cpng_read_be32(d->ihdr), cpng_read_be32(d->ihdr + 4), d->max_dimension);
    } else if (!d->have_ihdr && d->chunk_type != TYPE_IHDR && d->chunk_type != 0) {
        cpng_status_fail(d->status, CPNG_BAD_HEADER, "IHDR", "missing IHDR: the first chunk is %s", chunk);
    } else if (strstr(message, "unsigned integer out of range") != NULL) {
        /* libpng's words for a chunk length past 2^31 - 1 (the header it refuses is the one just read). */
        cpng_status_fail(d->status, CPNG_MALFORMED, chunk, "the %s chunk's length, %u bytes, is past the 2^31 - 1 a chunk may have",
                         chunk, d->chunk_length);
    } else if (d->chunk_type == TYPE_IEND && !d->reached_image) {
        cpng_status_fail(d->status, CPNG_MALFORMED, "IDAT", "no image data: IEND comes before any IDAT chunk");
    } else {
        cpng_status_fail(d->status, CPNG_MALFORMED, chunk, "%s", message);
    }
}

static void error_callback(png_structp png, png_const_charp message) {
    classify_error(png_get_error_ptr(png), message);
    /* Returning would make libpng print and abort: jump to the entry point. */
    png_longjmp(png, 1);
}

/* Appends one line to the list of ancillary chunks left out (bounded). */
void cpng_note_dropped_chunk(cpng_decoder *d, const char *format, ...) {
    size_t used = strlen(d->chunk_warnings);
    if (used + 2 >= sizeof d->chunk_warnings) return;
    if (used > 0) d->chunk_warnings[used++] = '\n';
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(d->chunk_warnings + used, sizeof d->chunk_warnings - used, format, arguments);
    va_end(arguments);
}

static void warning_callback(png_structp png, png_const_charp message) {
    cpng_decoder *d = png_get_error_ptr(png);
    if (d->chunk_type == TYPE_IDAT) {
        if (d->data_warning[0] == '\0') snprintf(d->data_warning, sizeof d->data_warning, "%s", message);
    } else if (d->flags & CPNG_KEEP_CHUNKS) {
        /* Outside IDAT, libpng warns only about an ancillary chunk it discards
         * (bad CRC, too large); the message starts with the chunk's name. */
        d->warned_current = 1;
        if (d->kept_current) {
            d->kept_current = 0;
            d->kept_count--;
            d->arena_size = d->kept_offsets[d->kept_count];
        }
        cpng_note_dropped_chunk(d, "%s", message);
    }
}

int cpng_keep_chunk(cpng_decoder *d, const uint8_t type[4], const uint8_t *data, size_t size) {
    if (d->warned_current) return 1; /* already reported and left out */
    char name[5];
    memcpy(name, type, 4);
    name[4] = '\0';
    /* An APNG's frames are never exported: only acTL (8 bytes) is kept, so the
     * caller can say the animation was dropped; fcTL and fdAT, up to the whole
     * animation's size, would only fill the metadata limit. */
    if (strcmp(name, "fcTL") == 0 || strcmp(name, "fdAT") == 0) return 1;
    if (d->arena_size + size > MAX_KEPT_BYTES || d->kept_count >= MAX_CACHED_CHUNKS) {
        if (!d->over_limit_noted) {
            /* The reader adds "; the chunk is left out". */
            cpng_note_dropped_chunk(d, "%s: over the limit of %d chunks and %zu MiB of metadata (so is every later "
                                    "ancillary chunk)", name, MAX_CACHED_CHUNKS, MAX_KEPT_BYTES >> 20);
        }
        d->over_limit_noted = 1;
        return 1;
    }
    if (d->kept_count == d->kept_capacity) {
        size_t capacity = d->kept_capacity > 0 ? d->kept_capacity * 2 : 16;
        cpng_chunk *kept = realloc(d->kept, capacity * sizeof *kept);
        if (kept != NULL) d->kept = kept;
        size_t *offsets = realloc(d->kept_offsets, capacity * sizeof *offsets);
        if (offsets != NULL) d->kept_offsets = offsets;
        if (kept == NULL || offsets == NULL) return 0;
        d->kept_capacity = capacity;
    }
    if (d->arena_size + size > d->arena_capacity) {
        size_t capacity = d->arena_capacity > 0 ? d->arena_capacity : 4096;
        while (d->arena_size + size > capacity) capacity *= 2;
        uint8_t *arena = realloc(d->arena, capacity);
        if (arena == NULL) return 0;
        d->arena = arena;
        d->arena_capacity = capacity;
    }
    if (size > 0) memcpy(d->arena + d->arena_size, data, size);
    cpng_chunk *entry = &d->kept[d->kept_count];
    memcpy(entry->name, name, 5);
    entry->data = NULL;
    entry->size = size;
    entry->location = d->seen_idat ? CPNG_AFTER_IDAT : d->seen_plte ? CPNG_BEFORE_IDAT : CPNG_BEFORE_PLTE;
    d->kept_offsets[d->kept_count++] = d->arena_size;
    d->arena_size += size;
    d->kept_current = 1;
    return 1;
}

/* libpng hands every chunk it treats as unknown here (CPNG_KEEP_CHUNKS). */
static int user_chunk_callback(png_structp png, png_unknown_chunkp chunk) {
    cpng_decoder *d = png_get_user_chunk_ptr(png);
    if ((chunk->name[0] & 0x20) == 0) {
        /* An unknown critical chunk: the image cannot be understood. */
        char name[5];
        memcpy(name, chunk->name, 4);
        name[4] = '\0';
        cpng_status_fail(d->status, CPNG_MALFORMED, name, "unknown critical chunk %s", name);
        return -1;
    }
    if (cpng_keep_chunk(d, chunk->name, chunk->data, chunk->size)) return 1;
    cpng_status_fail(d->status, CPNG_NO_MEMORY, NULL, "out of memory keeping the metadata");
    return -1;
}

/* Explains a signature mismatch; `count` bytes (1...8) were read. */
static void report_bad_signature(cpng_status *status, const uint8_t *sig, size_t count) {
    static const uint8_t expected[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    size_t i = 0;
    while (i < count && sig[i] == expected[i]) i++;
    if (i == 0 && sig[0] == 0x09 && count > 1 && sig[1] == 'P') {
        cpng_status_fail(status, CPNG_NOT_PNG, NULL,
                         "damaged PNG signature: the high bit of byte 0 was stripped (7-bit transfer)");
    } else if (i >= 4 && (sig[i] == '\r' || sig[i] == '\n')) {
        cpng_status_fail(status, CPNG_NOT_PNG, NULL,
                         "damaged PNG signature: line endings were converted (text-mode transfer)");
    } else {
        /* A wrong magic (bytes 0-3) means another format; later bytes, damage. */
        cpng_status_fail(status, CPNG_NOT_PNG, NULL, "%s: byte %zu is 0x%02X, expected 0x%02X",
                         i < 4 ? "not a PNG file (bad signature)" : "damaged PNG signature", i, sig[i], expected[i]);
    }
}

/* Checks the 8-byte signature by hand, so a non-PNG never reaches libpng. */
static int check_signature(cpng_decoder *d) {
    uint8_t sig[8];
    int io_errno;
    size_t got = cpng_source_read(d, sig, sizeof sig, &io_errno);
    if (io_errno != 0) {
        cpng_status_fail(d->status, CPNG_IO, NULL, "read error: %s", strerror(io_errno));
    } else if (got == 0) {
        cpng_status_fail(d->status, CPNG_NOT_PNG, NULL, "not a PNG file: the input is empty");
    } else if (png_sig_cmp(sig, 0, got) != 0) {
        report_bad_signature(d->status, sig, got);
    } else if (got < sizeof sig) {
        cpng_status_fail(d->status, CPNG_TRUNCATED, NULL, "data ends inside the PNG signature");
    }
    return d->status->code;
}

/* Entry point for png_read_info; owns the setjmp for that stage. */
static int read_header(cpng_decoder *d, cpng_info *out) {
    if (setjmp(png_jmpbuf(d->png))) {
        if (d->have_ihdr) {
            /* The declared size, so a TOO_LARGE caller can say how large. */
            out->width = cpng_read_be32(d->ihdr);
            out->height = cpng_read_be32(d->ihdr + 4);
        }
        return d->status->code;
    }
    png_set_user_limits(d->png, d->max_dimension, d->max_dimension);
    png_set_chunk_malloc_max(d->png, MAX_CHUNK_BYTES);
    png_set_chunk_cache_max(d->png, MAX_CACHED_CHUNKS);
    png_set_crc_action(d->png, PNG_CRC_ERROR_QUIT, PNG_CRC_WARN_DISCARD);
    if (d->flags & CPNG_KEEP_CHUNKS) {
        /* Every ancillary chunk but tRNS goes raw through user_chunk_callback. */
        png_set_keep_unknown_chunks(d->png, PNG_HANDLE_CHUNK_ALWAYS, NULL, 0);
        png_set_keep_unknown_chunks(d->png, PNG_HANDLE_CHUNK_ALWAYS, ignored_chunks, IGNORED_CHUNK_COUNT);
        png_set_read_user_chunk_fn(d->png, d, user_chunk_callback);
    } else {
        png_set_keep_unknown_chunks(d->png, PNG_HANDLE_CHUNK_NEVER, ignored_chunks, IGNORED_CHUNK_COUNT);
    }
    png_set_read_fn(d->png, d, read_callback);
    png_set_sig_bytes(d->png, 8);
    png_read_info(d->png, d->info);
    d->reached_image = 1;

    png_uint_32 width, height;
    int depth, color, interlace;
    png_get_IHDR(d->png, d->info, &width, &height, &depth, &color, &interlace, NULL, NULL);
    out->width = width;
    out->height = height;
    out->bit_depth = depth;
    out->color_type = color;
    out->interlaced = interlace == PNG_INTERLACE_ADAM7;
    out->has_trns = png_get_valid(d->png, d->info, PNG_INFO_tRNS) != 0;
    return CPNG_OK;
}

/* Creates libpng's reader and reads the header with it. */
static int start_libpng(cpng_decoder *d, cpng_info *info) {
    d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, d, error_callback, warning_callback);
    if (d->png != NULL) d->info = png_create_info_struct(d->png);
    if (d->info == NULL) {
        cpng_status_fail(d->status, CPNG_NO_MEMORY, NULL, "out of memory creating the libpng reader");
        return d->status->code;
    }
    return read_header(d, info);
}

/* Back to just after the signature, forgetting what the fast path kept, so
 * libpng reads the file from the start. Returns 0 when the source cannot seek. */
static int rewind_for_libpng(cpng_decoder *d) {
    cpng_fast_close(d);
    d->kept_count = 0;
    d->arena_size = 0;
    d->chunk_warnings[0] = '\0';
    d->seen_plte = d->seen_idat = 0;
    d->chunk_type = d->chunk_length = 0;
    d->kept_current = d->warned_current = 0;
    if (d->file != NULL) return fseek(d->file, 8, SEEK_SET) == 0;
    d->offset = 8;
    return 1;
}

/* Records the row geometry of the header just read. */
static cpng_decoder *with_rows(cpng_decoder *d, const cpng_info *info) {
    d->height = info->height;
    d->interlaced = info->interlaced;
    d->canonical_row = (size_t)info->width * 4 * (info->bit_depth == 16 ? 2 : 1);
    return d;
}

static cpng_decoder *open_decoder(cpng_decoder *d, uint32_t max_dimension, int flags, cpng_info *info,
                                  cpng_status *status) {
    memset(info, 0, sizeof *info);
    d->flags = flags;
    d->status = status;
    d->max_dimension = max_dimension < PNG_UINT_31_MAX ? max_dimension : PNG_UINT_31_MAX;
    if (check_signature(d) != CPNG_OK) goto fail;
    if (!(flags & CPNG_LIBPNG_ONLY) && cpng_fast_open(d, info)) return with_rows(d, info);
    if (!rewind_for_libpng(d)) {
        cpng_status_fail(status, CPNG_IO, NULL, "read error: cannot seek back to the start");
        goto fail;
    }
    memset(info, 0, sizeof *info);
    if (start_libpng(d, info) != CPNG_OK) goto fail;
    return with_rows(d, info);
fail:
    cpng_decoder_close(d);
    return NULL;
}

cpng_decoder *cpng_decoder_open_memory(const void *data, size_t size, uint32_t max_dimension, int flags,
                                       cpng_info *info, cpng_status *status) {
    cpng_status_clear(status);
    cpng_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) {
        cpng_status_fail(status, CPNG_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    d->data = data;
    d->size = data != NULL ? size : 0;
    return open_decoder(d, max_dimension, flags, info, status);
}

cpng_decoder *cpng_decoder_open_file(const char *path, uint32_t max_dimension, int flags, cpng_info *info,
                                     cpng_status *status) {
    cpng_status_clear(status);
    cpng_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) {
        cpng_status_fail(status, CPNG_NO_MEMORY, NULL, "out of memory");
        return NULL;
    }
    d->file = fopen(path, "rbe");
    if (d->file == NULL) {
        cpng_status_fail(status, CPNG_IO, NULL, "cannot open: %s", strerror(errno));
        free(d);
        return NULL;
    }
    return open_decoder(d, max_dimension, flags, info, status);
}

/* A palette image's colours with tRNS's alphas, for expand_indices. */
static void take_palette(cpng_decoder *d) {
    png_colorp colors = NULL;
    int count = 0;
    png_bytep alphas = NULL;
    int alpha_count = 0;
    (void)png_get_PLTE(d->png, d->info, &colors, &count);
    if (png_get_valid(d->png, d->info, PNG_INFO_tRNS)) (void)png_get_tRNS(d->png, d->info, &alphas, &alpha_count, NULL);
    for (int i = 0; i < 256; i++) {
        uint8_t *entry = d->palette + 4 * i;
        int known = i < count && colors != NULL;
        entry[0] = known ? colors[i].red : 0;
        entry[1] = known ? colors[i].green : 0;
        entry[2] = known ? colors[i].blue : 0;
        entry[3] = known && i < alpha_count && alphas != NULL ? alphas[i] : 255;
    }
    d->palette_colors = count;
    d->largest_index = -1;
}

/* One row of palette indices (one byte each) to canonical RGBA (NULL: only
 * counted), noting the largest index. */
static void expand_indices(cpng_decoder *d, const uint8_t *indices, uint8_t *pixels) {
    uint32_t width = (uint32_t)(d->canonical_row / 4);
    int largest = d->largest_index;
    for (uint32_t x = 0; x < width; x++) {
        if (indices[x] > largest) largest = indices[x];
        if (pixels != NULL) memcpy(pixels + 4 * (size_t)x, d->palette + 4 * (size_t)indices[x], 4);
    }
    d->largest_index = largest;
}

/* Sets up the transforms to canonical RGBA (a palette image's to one index a
 * byte, expanded by expand_indices). Runs under the caller's setjmp. */
static void prepare_rows(cpng_decoder *d) {
    png_structp png = d->png;
    int source_depth = png_get_bit_depth(png, d->info);
    int source_color = png_get_color_type(png, d->info);

    d->palette_image = source_color == PNG_COLOR_TYPE_PALETTE;
    if (d->palette_image) {
        take_palette(d);
        png_set_packing(png); /* 1, 2 and 4-bit indices to one byte each */
        /* Kiln counts the indices itself: libpng's own check, which runs on unexpanded rows of 1, 2 or 4 bits,
         * ends in a warning that would fail the image ("Read palette index exceeding num_palette"). */
        png_set_check_for_invalid_index(png, 0);
    } else {
        /* Gray < 8 bits -> 8 by bit replication, tRNS -> alpha. */
        png_set_expand(png);
        png_set_gray_to_rgb(png);
        if ((source_color & PNG_COLOR_MASK_ALPHA) == 0 && !png_get_valid(png, d->info, PNG_INFO_tRNS)) {
            png_set_add_alpha(png, 0xffff, PNG_FILLER_AFTER);
        }
    }
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (source_depth == 16) png_set_swap(png); /* PNG is big-endian; the buffer is host-endian */
#endif
    (void)png_set_interlace_handling(png);
    png_read_update_info(png, d->info);
    size_t row = d->palette_image ? d->canonical_row / 4 : d->canonical_row;
    if (png_get_channels(png, d->info) != (d->palette_image ? 1 : 4) || png_get_rowbytes(png, d->info) != row) {
        cpng_status_fail(d->status, CPNG_INVALID_ARGUMENT, NULL, "libpng's rows of %zu bytes are not the %zu expected",
                         png_get_rowbytes(png, d->info), row);
        return;
    }
    d->prepared = 1;
}

/* The next `count` rows through libpng into `pixels` (NULL: read and discard).
 * Entry point: owns the setjmp. */
static int libpng_rows(cpng_decoder *d, uint8_t *pixels, uint32_t count) {
    if (setjmp(png_jmpbuf(d->png))) return d->status->code;
    if (!d->prepared) {
        prepare_rows(d);
        if (!d->prepared) return d->status->code;
    }
    size_t row = d->palette_image ? d->canonical_row / 4 : d->canonical_row;
    if (d->interlaced && d->whole == NULL && !d->palette_image && pixels != NULL && d->next_row == 0 && count == d->height) {
        /* Every row at once (an image read whole): the passes build it in the caller's buffer, not in a
         * copy of our own first (an 8000x6000 image was held twice: 404 MB where its 192 MB would do). */
        for (int pass = 0; pass < PNG_INTERLACE_ADAM7_PASSES; pass++) {
            for (png_uint_32 y = 0; y < d->height; y++) png_read_row(d->png, pixels + (size_t)y * row, NULL);
        }
        return d->status->code;
    }
    if (d->interlaced) {
        /* Adam7: each pass visits every row and fills in only its own pixels,
         * so the passes build the image in place; no row is final before the last pass. */
        if (d->whole == NULL) {
            d->whole = malloc(row * d->height);
            if (d->whole == NULL) {
                cpng_status_fail(d->status, CPNG_NO_MEMORY, NULL, "out of memory for an interlaced image");
                return d->status->code;
            }
            for (int pass = 0; pass < PNG_INTERLACE_ADAM7_PASSES; pass++) {
                for (png_uint_32 y = 0; y < d->height; y++) png_read_row(d->png, d->whole + (size_t)y * row, NULL);
            }
        }
        for (uint32_t y = 0; y < count; y++) {
            const uint8_t *stored = d->whole + (size_t)(d->next_row + y) * row;
            uint8_t *out = pixels != NULL ? pixels + (size_t)y * d->canonical_row : NULL;
            if (d->palette_image) {
                expand_indices(d, stored, out);
            } else if (out != NULL) {
                memcpy(out, stored, row);
            }
        }
        return d->status->code;
    }
    for (uint32_t y = 0; y < count; y++) {
        uint8_t *out = pixels != NULL ? pixels + (size_t)y * d->canonical_row : NULL;
        if (d->palette_image) {
            png_read_row(d->png, d->scratch, NULL);
            expand_indices(d, d->scratch, out);
        } else {
            png_read_row(d->png, out != NULL ? out : d->scratch, NULL);
        }
    }
    return d->status->code;
}

/* Reads to IEND, checking every remaining CRC. IDAT data after a complete
 * zlib stream is skipped by libpng (the pixels are exact); a stream that ends
 * early, has a bad Adler-32 or trailing bytes is an error. Entry point: owns the setjmp. */
static int libpng_finish(cpng_decoder *d) {
    if (setjmp(png_jmpbuf(d->png))) return d->status->code;
    png_read_end(d->png, d->info);
    if (d->data_warning[0] != '\0') {
        cpng_status_fail(d->status, CPNG_MALFORMED, "IDAT", "%s", d->data_warning);
    }
    return d->status->code;
}

/* The fast path gave up after delivering `next_row` rows: libpng reads the file
 * from the start, decodes those rows again (they are the same: the differential
 * tests hold both paths to it) and carries on, or words the error. */
static int take_over(cpng_decoder *d) {
    cpng_info info;
    if (!rewind_for_libpng(d)) {
        cpng_status_fail(d->status, CPNG_IO, NULL, "read error: cannot seek back to the start");
        return d->status->code;
    }
    if (start_libpng(d, &info) != CPNG_OK) return d->status->code;
    return d->next_row > 0 ? libpng_rows(d, NULL, d->next_row) : CPNG_OK;
}

/* Checks the decoder can take `count` more rows and points callbacks at `status`. */
static int begin_read(cpng_decoder *d, uint32_t count, cpng_status *status) {
    cpng_status_clear(status);
    if (d == NULL || d->failed || d->finished || count > d->height - d->next_row) {
        cpng_status_fail(status, CPNG_INVALID_ARGUMENT, NULL, "no open decoder, a read after a failure, or rows past the end");
        return status->code;
    }
    d->status = status;
    if (d->scratch == NULL) {
        d->scratch = malloc(d->canonical_row);
        if (d->scratch == NULL) {
            cpng_status_fail(status, CPNG_NO_MEMORY, NULL, "out of memory");
            return status->code;
        }
    }
    return CPNG_OK;
}

int cpng_decoder_read_rows(cpng_decoder *decoder, void *pixels, uint32_t count, cpng_status *status) {
    if (begin_read(decoder, count, status) != CPNG_OK) return status->code;
    if (decoder->fast != NULL) {
        int ok = 1;
        if (pixels != NULL) {
            ok = cpng_fast_read_rows(decoder, pixels, count);
        } else {
            for (uint32_t y = 0; ok && y < count; y++) ok = cpng_fast_read_rows(decoder, decoder->scratch, 1);
        }
        if (ok) {
            decoder->next_row += count;
            return CPNG_OK;
        }
        /* Something the fast path does not take: libpng decodes (or words the error). */
        if (take_over(decoder) != CPNG_OK) {
            decoder->failed = 1;
            return status->code;
        }
    }
    if (libpng_rows(decoder, pixels, count) != CPNG_OK) {
        decoder->failed = 1;
        return status->code;
    }
    decoder->next_row += count;
    return CPNG_OK;
}

int cpng_decoder_finish(cpng_decoder *decoder, cpng_status *status) {
    if (begin_read(decoder, 0, status) != CPNG_OK) return status->code;
    /* Rows nobody asked for are still read: the whole stream is checked. */
    if (decoder->next_row < decoder->height &&
        cpng_decoder_read_rows(decoder, NULL, decoder->height - decoder->next_row, status) != CPNG_OK) {
        return status->code;
    }
    decoder->status = status;
    if (decoder->fast != NULL) {
        if (cpng_fast_finish(decoder)) {
            decoder->used_fast_path = 1;
            decoder->finished = 1;
            return CPNG_OK;
        }
        if (take_over(decoder) != CPNG_OK) {
            decoder->failed = 1;
            return status->code;
        }
    }
    if (libpng_finish(decoder) != CPNG_OK) {
        decoder->failed = 1;
        return status->code;
    }
    decoder->finished = 1;
    return CPNG_OK;
}

int cpng_decoder_read_image(cpng_decoder *decoder, void *pixels, size_t size, cpng_status *status) {
    cpng_status_clear(status);
    if (decoder == NULL || pixels == NULL || size != decoder->canonical_row * decoder->height) {
        cpng_status_fail(status, CPNG_INVALID_ARGUMENT, NULL, "no open decoder, or a pixel buffer of %zu bytes that does not fit",
                         size);
        return status->code;
    }
    if (cpng_decoder_read_rows(decoder, pixels, decoder->height - decoder->next_row, status) != CPNG_OK) return status->code;
    return cpng_decoder_finish(decoder, status);
}

size_t cpng_decoder_chunks(const cpng_decoder *decoder, cpng_chunk *out, size_t capacity) {
    if (decoder == NULL) return 0;
    for (size_t i = 0; i < decoder->kept_count && i < capacity && out != NULL; i++) {
        out[i] = decoder->kept[i];
        out[i].data = decoder->arena + decoder->kept_offsets[i];
    }
    return decoder->kept_count;
}

int cpng_decoder_palette_overflow(const cpng_decoder *decoder, int *colors) {
    if (decoder == NULL || !decoder->palette_image || decoder->largest_index < decoder->palette_colors) return -1;
    *colors = decoder->palette_colors;
    return decoder->largest_index;
}

int cpng_decoder_used_fast_path(const cpng_decoder *decoder) {
    return decoder != NULL && decoder->used_fast_path;
}

const char *cpng_decoder_chunk_warnings(const cpng_decoder *decoder) {
    return decoder != NULL ? decoder->chunk_warnings : "";
}

void cpng_decoder_close(cpng_decoder *decoder) {
    if (decoder == NULL) return;
    cpng_fast_close(decoder);
    free(decoder->kept);
    free(decoder->kept_offsets);
    free(decoder->arena);
    free(decoder->whole);
    free(decoder->scratch);
    if (decoder->png != NULL) png_destroy_read_struct(&decoder->png, &decoder->info, NULL);
    if (decoder->file != NULL) fclose(decoder->file);
    free(decoder);
}
