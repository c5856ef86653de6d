/*
 * CWebP: Kiln's calls into libwebp, libwebpdemux and libwebpmux. libwebp
 * reports errors by return value, never by jumping; the shim exists because
 * its initialisers (WebPInitDecoderConfig, WebPMuxNew, …) are inline functions
 * over ABI-version macros that Swift does not import, and to keep the
 * container work (chunks, animation) in one place.
 */
#ifndef CWEBP_H
#define CWEBP_H

#include <stddef.h>
#include <stdint.h>

#define CWEBP_OK 0
/* The data is not a WebP file. */
#define CWEBP_NOT_WEBP 1
/* The data ends before the image does. */
#define CWEBP_TRUNCATED 2
/* libwebp found the data corrupt. */
#define CWEBP_CORRUPT 3
/* A valid WebP Kiln does not read (an animation), or a request WebP cannot meet. */
#define CWEBP_UNSUPPORTED 4
/* Memory ran out. */
#define CWEBP_NO_MEMORY 5

typedef struct {
    int code;
    char message[512];
} cwebp_status;

typedef struct {
    uint32_t width, height;
    int has_alpha;
    int lossless;
} cwebp_info;

/* One metadata chunk's payload, pointing into the file's bytes. */
typedef struct {
    const uint8_t *data;
    size_t size;
} cwebp_chunk;

/* Reads the header of the WebP in `data`; refuses an animation. `whole`: `data` is the whole file, which must
 * hold every byte its RIFF header declares; 0: the file's first bytes only, enough for the header or
 * CWEBP_TRUNCATED (then read the whole file). */
int cwebp_read_info(const uint8_t *data, size_t size, int whole, cwebp_info *info, cwebp_status *status);
/* Decodes the whole image into `out` at `width` × `height` (width × 4 bytes a row, RGBA, straight alpha):
 * the image's own size, or a smaller one libwebp's rescaler averages it down to as it decodes (shrink-on-load;
 * kiln asks it only of opaque images, whose sides the factor divides). */
int cwebp_decode_rgba(const uint8_t *data, size_t size, uint8_t *out, size_t out_size, int width, int height,
                      cwebp_status *status);
/* The ICCP, EXIF and XMP chunks of the file (size 0 where absent). */
int cwebp_read_chunks(const uint8_t *data, size_t size, cwebp_chunk *icc, cwebp_chunk *exif, cwebp_chunk *xmp,
                      cwebp_status *status);

/* Told the fraction of an encode done as libwebp reports it (its progress hook), so that a slow
 * encode (lossless, a large picture) shows progress. The callback must return normally. */
typedef struct cwebp_progress {
    void (*done)(void *context, double fraction);
    void *context;
} cwebp_progress;

/* Encodes `width × height` RGBA pixels (straight alpha): lossless, or lossy at `quality` 0-100,
 * with libwebp's `method` 0-6 (effort: 0 fastest, 6 smallest), with the chunks of non-zero size, telling `progress` (may be NULL) as it goes; `*out` receives
 * the file, to free with cwebp_free. */
int cwebp_encode(const uint8_t *rgba, uint32_t width, uint32_t height, int lossless, float quality, int method,
                 cwebp_chunk icc, cwebp_chunk exif, cwebp_chunk xmp, const cwebp_progress *progress,
                 uint8_t **out, size_t *out_size, cwebp_status *status);
void cwebp_free(void *pointer);

#endif
