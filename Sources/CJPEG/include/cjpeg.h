/*
 * CJPEG: every libjpeg(-turbo) call of Kiln, behind entry points that each
 * set their own setjmp. libjpeg reports a fatal error through error_exit,
 * which must not return: here it longjmps back to the entry point that made
 * the call, inside C, never across a Swift frame (SPEC §6.1). Warnings about
 * corrupt or truncated data (emit_message at level -1) are failures too:
 * Kiln is strict, as its PNG reader is.
 *
 * Every function reports through a cjpeg_status: code CJPEG_OK, or another
 * code and a one-line message in libjpeg's words.
 */
#ifndef CJPEG_H
#define CJPEG_H

#include <stddef.h>
#include <stdint.h>

#define CJPEG_OK 0
/* The data is not a JPEG stream (no SOI marker), or is empty. */
#define CJPEG_NOT_JPEG 1
/* libjpeg found the data corrupt (or warned about it). */
#define CJPEG_CORRUPT 2
/* The data ends before the image does. */
#define CJPEG_TRUNCATED 3
/* The file cannot be opened or read. */
#define CJPEG_IO 4
/* Memory ran out. */
#define CJPEG_NO_MEMORY 5
/* A valid JPEG Kiln does not read (e.g. an unknown colour space), or a bad argument. */
#define CJPEG_UNSUPPORTED 6
/* An image larger than a JPEG holds (65500 pixels a side): the writer's refusal, whatever the input. */
#define CJPEG_TOO_LARGE 7

typedef struct {
    int code;
    char message[256];
} cjpeg_status;

/* The colour spaces a decoder hands rows in. */
#define CJPEG_ROWS_RGBA 0 /* gray, YCbCr, RGB: 4 bytes a pixel, alpha 255 */
#define CJPEG_ROWS_CMYK 1 /* CMYK and YCCK: 4 bytes a pixel, C M Y K, 0 = no ink (Adobe inversion undone) */

typedef struct {
    /* Size of the rows the decoder hands (after any DCT scaling). */
    uint32_t width, height;
    /* The stored image's size. */
    uint32_t image_width, image_height;
    /* CJPEG_ROWS_RGBA or CJPEG_ROWS_CMYK. */
    int rows;
    /* Components in the file (1 gray, 3, 4). */
    int components;
    /* Whether the file is progressive. */
    int progressive;
    /* Bytes libjpeg holds while it reads the file: every coefficient of a file of several scans (progressive, or
     * one component a scan), all read before the first row; 0 for one scan, which streams. */
    size_t held_bytes;
} cjpeg_info;

/* One APPn or COM segment kept while reading the header. */
typedef struct {
    int marker;          /* 0xE0 + n, or 0xFE */
    const uint8_t *data; /* valid until the decoder is closed */
    size_t size;
} cjpeg_marker;

typedef struct cjpeg_decoder cjpeg_decoder;

/* Opens the file at `path` and reads its header, keeping its APP0, APP1, APP2,
 * APP13 and COM segments (up to a limit). NULL on failure (status says why). */
cjpeg_decoder *cjpeg_decoder_open_file(const char *path, cjpeg_info *info, cjpeg_status *status);
/* As cjpeg_decoder_open_file, over `size` bytes at `data` that must stay valid while the decoder is open. */
cjpeg_decoder *cjpeg_decoder_open_memory(const uint8_t *data, size_t size, cjpeg_info *info, cjpeg_status *status);
/* Fixes DCT scaling by 1/`scale_denominator` (1, 2, 4 or 8); `info` receives the size of the rows. Once,
 * before the first row; nothing is decoded (decompression starts with the first row, or cjpeg_decoder_finish). */
int cjpeg_decoder_scale(cjpeg_decoder *decoder, int scale_denominator, cjpeg_info *info, cjpeg_status *status);
/* Has `callback` hear the fraction (0…1) of the file consumed while a file of several scans is read before its
 * first row (every half percent); called on the thread reading, from inside libjpeg. Before the first row. */
void cjpeg_decoder_on_progress(cjpeg_decoder *decoder, void (*callback)(void *context, double fraction), void *context);
/* Decodes the next `count` rows into `destination` (width × 4 bytes each), or skips them when it is NULL. */
int cjpeg_decoder_read_rows(cjpeg_decoder *decoder, uint8_t *destination, uint32_t count, cjpeg_status *status);
/* Reads every row not read yet, then the rest of the stream to EOI. */
int cjpeg_decoder_finish(cjpeg_decoder *decoder, cjpeg_status *status);
/* The kept segments, in file order: with `out` NULL, returns how many; else fills up to `capacity`. */
size_t cjpeg_decoder_markers(cjpeg_decoder *decoder, cjpeg_marker *out, size_t capacity);
/* Non-zero when segments past the limits (1000 of one marker, 64 MiB of their data) were read and left out. */
int cjpeg_decoder_markers_left_out(cjpeg_decoder *decoder);
/* Gives back the memory decompression holds (a multi-scan file's coefficients), keeping the segments; every
 * later read fails. For an image read again from another decoder. */
void cjpeg_decoder_abandon(cjpeg_decoder *decoder);
void cjpeg_decoder_close(cjpeg_decoder *decoder);

typedef struct {
    int quality;         /* 1-100 */
    int progressive;     /* non-zero: a progressive file */
    int subsample_420;   /* non-zero: chroma 4:2:0, else 4:4:4 */
    int optimize;        /* non-zero: optimised Huffman tables (libjpeg then holds every coefficient, as progressive does) */
    uint16_t background[3]; /* what alpha is flattened onto, at the rows' depth */
    int gray;            /* non-zero: one component (rows must be gray, r = g = b, and so the background where used) */
} cjpeg_encode_options;

typedef struct cjpeg_encoder cjpeg_encoder;

/* An encoder of a `width × height` image taking canonical RGBA rows of `bit_depth` 8 or 16 (host-endian),
 * compressing into memory; writes no JFIF or other APPn segment (the caller
 * inserts its own after SOI). NULL on failure. */
cjpeg_encoder *cjpeg_encoder_open(uint32_t width, uint32_t height, int bit_depth, const cjpeg_encode_options *options,
                                  cjpeg_status *status);
/* Compresses the next `count` rows at `rows` (width × 4 × bytes-per-sample each). */
int cjpeg_encoder_write_rows(cjpeg_encoder *encoder, const uint8_t *rows, uint32_t count, cjpeg_status *status);
/* Completes the stream, which the blocks then hold, in order, until the encoder is closed. */
int cjpeg_encoder_finish(cjpeg_encoder *encoder, cjpeg_status *status);
/* How many blocks hold the completed stream. */
size_t cjpeg_encoder_block_count(const cjpeg_encoder *encoder);
/* Block `index` of the completed stream, `*size` bytes of it used (the first holds at least SOI). */
const uint8_t *cjpeg_encoder_block(const cjpeg_encoder *encoder, size_t index, size_t *size);
/* Non-zero when a row written had a pixel less than opaque (flattened onto the background). */
int cjpeg_encoder_flattened(const cjpeg_encoder *encoder);
void cjpeg_encoder_close(cjpeg_encoder *encoder);

#endif
