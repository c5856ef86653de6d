/* CWebP: see cwebp.h. */
#include "cwebp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

static int fail(cwebp_status *status, int code, const char *format, ...) {
    status->code = code;
    va_list args;
    va_start(args, format);
    vsnprintf(status->message, sizeof status->message, format, args);
    va_end(args);
    return code;
}

static int ok(cwebp_status *status) {
    status->code = CWEBP_OK;
    status->message[0] = 0;
    return CWEBP_OK;
}

/* A libwebp decoding status as a failure. The file holds all its RIFF header declares
   (cwebp_read_info checks), so data that ends early is a damaged bitstream, not a cut file. */
static int decode_failure(VP8StatusCode code, cwebp_status *status) {
    switch (code) {
    case VP8_STATUS_NOT_ENOUGH_DATA: return fail(status, CWEBP_CORRUPT, "the bitstream is damaged (it ends before the image does)");
    case VP8_STATUS_OUT_OF_MEMORY: return fail(status, CWEBP_NO_MEMORY, "libwebp ran out of memory");
    case VP8_STATUS_UNSUPPORTED_FEATURE: return fail(status, CWEBP_UNSUPPORTED, "a feature libwebp does not decode");
    case VP8_STATUS_INVALID_PARAM: return fail(status, CWEBP_CORRUPT, "invalid parameter");
    default: return fail(status, CWEBP_CORRUPT, "the bitstream is corrupt (libwebp status %d)", (int)code);
    }
}

static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint32_t le24(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16; }

/* Where libwebp says only "bitstream error" of a file whose container is at fault, says how (webpinfo's words):
   a chunk running past the end the RIFF header declares, or a VP8X canvas other than the image's size. Returns 1
   with `status` set when it finds one; 0 to leave libwebp's status. */
static int describe_container(const uint8_t *data, size_t size, uint64_t declared, cwebp_status *status) {
    uint64_t end = declared < size ? declared : size, at = 12;
    uint32_t canvas_width = 0, canvas_height = 0;
    while (at + 8 <= end) {
        const uint8_t *chunk = data + at;
        uint64_t length = le32(chunk + 4), next = at + 8 + length + (length & 1);
        const int name = chunk[3] == ' ' ? 3 : 4; /* "VP8 " said as "VP8" */
        if (at + 8 + length > end) {
            if (declared < size) {
                return fail(status, CWEBP_CORRUPT, "the RIFF header declares %llu bytes, fewer than the file's %zu, and cuts "
                            "its %.*s chunk short", (unsigned long long)declared, size, name, (const char *)chunk);
            }
            return 0;
        }
        if (memcmp(chunk, "VP8X", 4) == 0 && length >= 10) {
            canvas_width = le24(chunk + 12) + 1;
            canvas_height = le24(chunk + 15) + 1;
        } else if (memcmp(chunk, "VP8 ", 4) == 0 || memcmp(chunk, "VP8L", 4) == 0) {
            int width = 0, height = 0;
            if (canvas_width != 0 && WebPGetInfo(chunk, (size_t)(8 + length), &width, &height) &&
                ((uint32_t)width != canvas_width || (uint32_t)height != canvas_height)) {
                return fail(status, CWEBP_CORRUPT, "the VP8X header says %u × %u pixels, and the image in its %.*s chunk is "
                            "%d × %d", canvas_width, canvas_height, name, (const char *)chunk, width, height);
            }
            return 0;
        }
        at = next;
    }
    return 0;
}

int cwebp_read_info(const uint8_t *data, size_t size, int whole, cwebp_info *info, cwebp_status *status) {
    if (size < 12 || memcmp(data, "RIFF", 4) != 0 || memcmp(data + 8, "WEBP", 4) != 0) {
        return fail(status, CWEBP_NOT_WEBP, "not a WebP file (no RIFF/WEBP header)");
    }
    /* A cut file: fewer bytes than its RIFF header declares (libwebp's demuxer would call the container damaged). */
    uint64_t declared = 8 + ((uint64_t)data[4] | (uint64_t)data[5] << 8 | (uint64_t)data[6] << 16 | (uint64_t)data[7] << 24);
    if (whole && declared > size) {
        return fail(status, CWEBP_TRUNCATED, "the file ends after %zu of the %llu bytes its RIFF header declares", size,
                    (unsigned long long)declared);
    }
    WebPBitstreamFeatures features;
    VP8StatusCode code = WebPGetFeatures(data, size, &features);
    /* From a prefix, libwebp may answer from the VP8X header alone (an ICC profile or alpha chunk running past
     * it): the format is then unknown (0), and a lossless image would be taken for lossy. */
    if (!whole && (code != VP8_STATUS_OK || features.format == 0)) {
        return fail(status, CWEBP_TRUNCATED, "the header is past the first bytes read");
    }
    if (code == VP8_STATUS_BITSTREAM_ERROR && describe_container(data, size, declared, status)) return status->code;
    if (code != VP8_STATUS_OK) return decode_failure(code, status);
    if (features.has_animation) {
        return fail(status, CWEBP_UNSUPPORTED, "an animated WebP; kiln reads still images only");
    }
    info->width = (uint32_t)features.width;
    info->height = (uint32_t)features.height;
    info->has_alpha = features.has_alpha;
    info->lossless = features.format == 2;
    return ok(status);
}

int cwebp_decode_rgba(const uint8_t *data, size_t size, uint8_t *out, size_t out_size, int width, int height,
                      cwebp_status *status) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return fail(status, CWEBP_UNSUPPORTED, "libwebp version mismatch");
    VP8StatusCode code = WebPGetFeatures(data, size, &config.input);
    if (code != VP8_STATUS_OK) return decode_failure(code, status);
    if (width != config.input.width || height != config.input.height) {
        config.options.use_scaling = 1;
        config.options.scaled_width = width;
        config.options.scaled_height = height;
    }
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = out;
    config.output.u.RGBA.stride = width * 4;
    config.output.u.RGBA.size = out_size;
    code = WebPDecode(data, size, &config);
    WebPFreeDecBuffer(&config.output);
    return code == VP8_STATUS_OK ? ok(status) : decode_failure(code, status);
}

int cwebp_read_chunks(const uint8_t *data, size_t size, cwebp_chunk *icc, cwebp_chunk *exif, cwebp_chunk *xmp,
                      cwebp_status *status) {
    WebPData bytes = {data, size};
    WebPDemuxer *demux = WebPDemux(&bytes);
    if (!demux) return fail(status, CWEBP_CORRUPT, "the RIFF container is damaged");
    const char *names[3] = {"ICCP", "EXIF", "XMP "};
    cwebp_chunk *chunks[3] = {icc, exif, xmp};
    for (int i = 0; i < 3; i++) {
        WebPChunkIterator iterator;
        chunks[i]->data = NULL;
        chunks[i]->size = 0;
        if (WebPDemuxGetChunk(demux, names[i], 1, &iterator)) {
            chunks[i]->data = iterator.chunk.bytes;
            chunks[i]->size = iterator.chunk.size;
        }
        WebPDemuxReleaseChunkIterator(&iterator);
    }
    WebPDemuxDelete(demux);
    return ok(status);
}

/* Why libwebp could not encode, in words, where a user can act on it (it said only "error 6": a detailed picture of
 * 16000 x 12000 failed so after two minutes, as in cwebp and vips); NULL for the others. */
static const char *encode_failure(int error) {
    switch (error) {
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW:
        return "its first partition (the modes of every block) would pass the 512 KiB a lossy WebP holds: the picture is "
               "too large and detailed for lossy WebP at any quality; --resize it smaller, or write it --lossless or in "
               "another --format";
    case VP8_ENC_ERROR_PARTITION_OVERFLOW:
        return "a partition of its coefficients would pass the 16 MiB a lossy WebP holds: --resize it smaller, lower "
               "--quality, or write it in another --format";
    case VP8_ENC_ERROR_FILE_TOO_BIG:
        return "the file would pass the 4 GiB a WebP holds: --resize it smaller, or write it in another --format";
    default:
        return NULL;
    }
}

/* libwebp's progress hook: hands the percentage on; returning 1 lets the encode go on. */
static int report_progress(int percent, const WebPPicture *picture) {
    const cwebp_progress *progress = picture->user_data;
    progress->done(progress->context, percent / 100.0);
    return 1;
}

int cwebp_encode(const uint8_t *rgba, uint32_t width, uint32_t height, int lossless, float quality, int method,
                 cwebp_chunk icc, cwebp_chunk exif, cwebp_chunk xmp, const cwebp_progress *progress,
                 uint8_t **out, size_t *out_size, cwebp_status *status) {
    if (width == 0 || height == 0 || width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION) {
        return fail(status, CWEBP_UNSUPPORTED, "WebP holds at most %d × %d pixels, not %u × %u", WEBP_MAX_DIMENSION,
                    WEBP_MAX_DIMENSION, width, height);
    }
    WebPConfig config;
    WebPPicture picture;
    if (!WebPConfigInit(&config) || !WebPPictureInit(&picture)) {
        return fail(status, CWEBP_UNSUPPORTED, "libwebp version mismatch");
    }
    config.lossless = lossless;
    config.quality = quality;
    config.method = method;
    /* Lossless keeps the colour under transparent pixels too: a round trip is exact. */
    config.exact = lossless;
    if (!WebPValidateConfig(&config)) return fail(status, CWEBP_UNSUPPORTED, "invalid WebP settings");
    picture.use_argb = lossless;
    picture.width = (int)width;
    picture.height = (int)height;
    if (!WebPPictureImportRGBA(&picture, rgba, (int)width * 4)) {
        WebPPictureFree(&picture);
        return fail(status, CWEBP_NO_MEMORY, "cannot allocate the WebP picture");
    }
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    if (progress != NULL && progress->done != NULL) {
        picture.progress_hook = report_progress;
        picture.user_data = (void *)progress;
    }
    int encoded = WebPEncode(&config, &picture);
    int error = picture.error_code;
    WebPPictureFree(&picture);
    if (!encoded) {
        WebPMemoryWriterClear(&writer);
        const char *failure = encode_failure(error);
        if (failure != NULL) return fail(status, CWEBP_UNSUPPORTED, "libwebp cannot encode the image: %s", failure);
        return fail(status, error == VP8_ENC_ERROR_OUT_OF_MEMORY ? CWEBP_NO_MEMORY : CWEBP_UNSUPPORTED,
                    "libwebp cannot encode the image (error %d)", error);
    }
    if (icc.size == 0 && exif.size == 0 && xmp.size == 0) {
        *out = writer.mem;
        *out_size = writer.size;
        return ok(status);
    }
    WebPMux *mux = WebPMuxNew();
    WebPData image = {writer.mem, writer.size};
    WebPData assembled = {NULL, 0};
    int failed = !mux || WebPMuxSetImage(mux, &image, 1) != WEBP_MUX_OK;
    const char *names[3] = {"ICCP", "EXIF", "XMP "};
    cwebp_chunk chunks[3] = {icc, exif, xmp};
    for (int i = 0; i < 3 && !failed; i++) {
        if (chunks[i].size == 0) continue;
        WebPData chunk = {chunks[i].data, chunks[i].size};
        failed = WebPMuxSetChunk(mux, names[i], &chunk, 1) != WEBP_MUX_OK;
    }
    if (!failed) failed = WebPMuxAssemble(mux, &assembled) != WEBP_MUX_OK;
    WebPMuxDelete(mux);
    WebPMemoryWriterClear(&writer);
    if (failed) {
        WebPDataClear(&assembled);
        return fail(status, CWEBP_NO_MEMORY, "libwebpmux cannot add the metadata chunks");
    }
    *out = (uint8_t *)assembled.bytes;
    *out_size = assembled.size;
    return ok(status);
}

void cwebp_free(void *pointer) { WebPFree(pointer); }
