/* Colour conversion with lcms2 (see ccolor.h). */
#include "ccolor.h"

#include <lcms2.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* lcms2 logs errors through a handler; the callers report failures themselves. */
static void silent(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)context;
    (void)code;
    (void)text;
}

static void silence_errors(void) { cmsSetLogErrorHandler(silent); }

ccolor_profile ccolor_profile_srgb(void) {
    silence_errors();
    return cmsCreate_sRGBProfile();
}

ccolor_profile ccolor_profile_display_p3(void) {
    const double white[2] = {0.3127, 0.3290};
    const double primaries[6] = {0.680, 0.320, 0.265, 0.690, 0.150, 0.060};
    return ccolor_profile_rgb(white, primaries, NULL, 0, "Display P3");
}

/* The curve `ccolor_profile_rgb` describes: value^curve[0] (count 1), ICC parametric type 4 (count 5), else sRGB's. */
static cmsToneCurve *build_curve(const double *curve, int count) {
    /* ICC parametric type 4: Y = (aX+b)^g for X >= d, else cX; sRGB's curve is one. */
    const cmsFloat64Number srgb[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
    if (curve != NULL && count == 1) return curve[0] > 0 ? cmsBuildGamma(NULL, curve[0]) : NULL;
    return cmsBuildParametricToneCurve(NULL, 4, curve != NULL && count == 5 ? curve : srgb);
}

/* Describes a profile lcms2 built as `description`, or closes it and returns NULL. */
static ccolor_profile described(cmsHPROFILE profile, const char *description) {
    if (profile == NULL) return NULL;
    cmsMLU *text = cmsMLUalloc(NULL, 1);
    int written = text != NULL && cmsMLUsetASCII(text, "en", "US", description)
        && cmsWriteTag(profile, cmsSigProfileDescriptionTag, text);
    if (text != NULL) cmsMLUfree(text);
    if (!written) {
        cmsCloseProfile(profile);
        return NULL;
    }
    return profile;
}

ccolor_profile ccolor_profile_rgb(const double white_point[2], const double primaries_xy[6], const double *curve_values,
                                  int curve_count, const char *description) {
    silence_errors();
    cmsToneCurve *curve = build_curve(curve_values, curve_count);
    if (curve == NULL) return NULL;
    cmsToneCurve *curves[3] = {curve, curve, curve};
    const cmsCIExyY white = {white_point[0], white_point[1], 1.0};
    const cmsCIExyYTRIPLE primaries = {{primaries_xy[0], primaries_xy[1], 1.0}, {primaries_xy[2], primaries_xy[3], 1.0},
                                       {primaries_xy[4], primaries_xy[5], 1.0}};
    cmsHPROFILE profile = cmsCreateRGBProfile(&white, &primaries, curves);
    cmsFreeToneCurve(curve);
    return described(profile, description);
}

ccolor_profile ccolor_profile_gray(const double white_point[2], const double *curve_values, int curve_count,
                                   const char *description) {
    silence_errors();
    cmsToneCurve *curve = build_curve(curve_values, curve_count);
    if (curve == NULL) return NULL;
    const cmsCIExyY white = {white_point[0], white_point[1], 1.0};
    cmsHPROFILE profile = cmsCreateGrayProfile(&white, curve);
    cmsFreeToneCurve(curve);
    return described(profile, description);
}

ccolor_profile ccolor_profile_rgb_from_gray(ccolor_profile gray, const char *description) {
    silence_errors();
    if (!ccolor_profile_is_gray(gray)) return NULL;
    cmsToneCurve *curve = cmsReadTag(gray, cmsSigGrayTRCTag); /* owned by the profile */
    if (curve == NULL) return NULL;
    cmsToneCurve *curves[3] = {curve, curve, curve};
    /* sRGB's primaries and white: a neutral's luminance is the curve's (the primaries' Y sum to 1), as the gray's. */
    const cmsCIExyY white = {0.3127, 0.3290, 1.0};
    const cmsCIExyYTRIPLE primaries = {{0.64, 0.33, 1.0}, {0.30, 0.60, 1.0}, {0.15, 0.06, 1.0}};
    return described(cmsCreateRGBProfile(&white, &primaries, curves), description);
}

int ccolor_profile_description(ccolor_profile profile, char *out, size_t size) {
    if (profile == NULL || out == NULL || size == 0) return 0;
    out[0] = '\0';
    /* Read wide (lcms2 2.14 has no UTF-8 call; its ASCII one turns "Écran" into "?cran"), written as UTF-8. */
    wchar_t wide[256];
    if (cmsGetProfileInfo(profile, cmsInfoDescription, "en", "US", wide, sizeof wide) == 0) return 0; /* bytes */
    size_t used = 0;
    for (size_t i = 0; i < sizeof wide / sizeof wide[0] && wide[i] != 0; i++) {
        uint32_t c = (uint32_t)wide[i];
        if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = 0xFFFD;
        uint8_t bytes[4];
        size_t n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
        if (n == 1) {
            bytes[0] = (uint8_t)c;
        } else {
            for (size_t k = n - 1; k > 0; k--, c >>= 6) bytes[k] = (uint8_t)(0x80 | (c & 0x3F));
            bytes[0] = (uint8_t)((0xF00 >> n) | c); /* 0xC0, 0xE0 or 0xF0, and the leading bits */
        }
        if (used + n + 1 > size) break;
        memcpy(out + used, bytes, n);
        used += n;
    }
    out[used] = '\0';
    return used > 0;
}

ccolor_profile ccolor_profile_open(const void *bytes, size_t size) {
    silence_errors();
    if (bytes == NULL || size == 0 || size > UINT32_MAX) return NULL;
    return cmsOpenProfileFromMem(bytes, (cmsUInt32Number)size);
}

int ccolor_profile_is_rgb(ccolor_profile profile) {
    return profile != NULL && cmsGetColorSpace(profile) == cmsSigRgbData;
}

int ccolor_profile_save(ccolor_profile profile, uint8_t *out, size_t *size) {
    cmsUInt32Number needed = out != NULL ? (cmsUInt32Number)*size : 0;
    if (!cmsSaveProfileToMem(profile, out, &needed)) return 0;
    *size = needed;
    return 1;
}

void ccolor_profile_close(ccolor_profile profile) {
    if (profile != NULL) cmsCloseProfile(profile);
}

int ccolor_profile_is_gray(ccolor_profile profile) {
    return profile != NULL && cmsGetColorSpace(profile) == cmsSigGrayData;
}

ccolor_transform ccolor_transform_create(ccolor_profile input, ccolor_profile output, int bit_depth, int intent,
                                         int black_point_compensation) {
    if (input == NULL || output == NULL) return NULL;
    cmsUInt32Number format = bit_depth == 16 ? TYPE_RGBA_16 : TYPE_RGBA_8;
    cmsUInt32Number flags = cmsFLAGS_NOCACHE;
    if (black_point_compensation) flags |= cmsFLAGS_BLACKPOINTCOMPENSATION;
    if (ccolor_profile_is_gray(input)) {
        /* Gray rows are canonical RGBA with r = g = b: the gray is read from r, and g, b and alpha pass as
         * three extra channels. The output's one extra channel (alpha) is not written (no COPY_ALPHA: the
         * counts differ), so converted in place, each pixel keeps its alpha. */
        cmsUInt32Number gray = COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | EXTRA_SH(3) | BYTES_SH(bit_depth == 16 ? 2 : 1);
        /* lcms2 samples a gray input's pipeline at 33 points and interpolates between them: a gamma-1 ramp came
         * out 0, 6, 12, 19 for 0, 1, 2, 3 (sRGB's exact 0, 13, 22, 28), up to 10 levels dark in the shadows, where
         * an RGB image of the same values (a matrix-shaper, exact curves) is within 1. At 255 points (the most it
         * takes) the same ramp is within 1 (measured); the table is one-dimensional, a few KiB. */
        return cmsCreateTransform(input, gray, output, format, (cmsUInt32Number)intent, flags | cmsFLAGS_GRIDPOINTS(255));
    }
    /* Read as packed RGB (ccolor_transform_apply packs each piece), written into the canonical RGBA in place, its
     * alpha untouched (no COPY_ALPHA: lcms2 leaves an output's extra channels alone). lcms2 reads RGBA with an extra
     * channel by a slower path: on 24 MP of 8-bit pixels, sRGB to a P3 matrix-shaper, RGBA in place with its alpha
     * copied took 0.36 s, without the copy 0.26-0.30 s, packed RGB into RGBA 0.18-0.19 s (the packing included);
     * a 24 MP JPEG's `--profile p3` export spent 47 % in lcms2, 1.27 × vips' CPU time. The same bits. */
    cmsUInt32Number packed = bit_depth == 16 ? TYPE_RGB_16 : TYPE_RGB_8;
    return cmsCreateTransform(input, packed, output, format, (cmsUInt32Number)intent, flags);
}

/* Pixels packed a piece at a time for a transform that reads packed RGB. */
#define PACKED_PIECE 1024

void ccolor_transform_apply(ccolor_transform transform, void *pixels, size_t pixel_count) {
    uint8_t *p = pixels;
    cmsUInt32Number format = cmsGetTransformInputFormat(transform);
    if (T_CHANNELS(format) == 3 && T_EXTRA(format) == 0) {
        /* Packed RGB in (ccolor_transform_create), canonical RGBA out, in place. */
        size_t sample = (size_t)T_BYTES(format);
        uint8_t packed[PACKED_PIECE * 3 * 2];
        while (pixel_count > 0) {
            size_t piece = pixel_count < PACKED_PIECE ? pixel_count : PACKED_PIECE;
            for (size_t i = 0; i < piece; i++) memcpy(packed + 3 * sample * i, p + 4 * sample * i, 3 * sample);
            cmsDoTransform(transform, packed, p, (cmsUInt32Number)piece);
            p += piece * 4 * sample;
            pixel_count -= piece;
        }
        return;
    }
    /* lcms2 counts pixels in 32 bits: convert in pieces. */
    size_t bytes_per_pixel = (size_t)T_BYTES(format) * (T_CHANNELS(format) + T_EXTRA(format));
    while (pixel_count > 0) {
        cmsUInt32Number piece = pixel_count > (1u << 30) ? (1u << 30) : (cmsUInt32Number)pixel_count;
        cmsDoTransform(transform, p, p, piece);
        p += (size_t)piece * bytes_per_pixel;
        pixel_count -= piece;
    }
}

void ccolor_replicate_red(void *pixels, size_t pixel_count, int bit_depth) {
    if (bit_depth == 16) {
        uint16_t *p = pixels;
        for (size_t i = 0; i < pixel_count; i++, p += 4) p[1] = p[2] = p[0];
    } else {
        uint8_t *p = pixels;
        for (size_t i = 0; i < pixel_count; i++, p += 4) p[1] = p[2] = p[0];
    }
}

void ccolor_transform_close(ccolor_transform transform) {
    if (transform != NULL) cmsDeleteTransform(transform);
}

int ccolor_profile_is_cmyk(ccolor_profile profile) {
    return profile != NULL && cmsGetColorSpace(profile) == cmsSigCmykData;
}

ccolor_transform ccolor_transform_cmyk_create(ccolor_profile input, ccolor_profile output, int intent,
                                              int black_point_compensation) {
    if (input == NULL || output == NULL) return NULL;
    cmsUInt32Number flags = cmsFLAGS_NOCACHE | (black_point_compensation ? cmsFLAGS_BLACKPOINTCOMPENSATION : 0);
    return cmsCreateTransform(input, TYPE_CMYK_8, output, TYPE_RGBA_8, (cmsUInt32Number)intent, flags);
}

void ccolor_cmyk_to_rgba(ccolor_transform transform, uint8_t *pixels, size_t pixel_count) {
    if (transform != NULL) {
        /* In place: lcms2 writes R, G, B over C, M, Y and leaves the fourth byte, set below. */
        ccolor_transform_apply(transform, pixels, pixel_count);
        for (size_t i = 0; i < pixel_count; i++) pixels[4 * i + 3] = 255;
        return;
    }
    for (size_t i = 0; i < pixel_count; i++) {
        uint8_t *p = pixels + 4 * i;
        unsigned k = 255 - p[3];
        for (int c = 0; c < 3; c++) p[c] = (uint8_t)(((255 - p[c]) * k + 127) / 255);
        p[3] = 255;
    }
}
