/* Colour conversion with lcms2 (see ccolor.h). */
#include "ccolor.h"

#include <lcms2.h>
#include <stdlib.h>

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
    return ccolor_profile_rgb(white, primaries, 0, "Display P3");
}

ccolor_profile ccolor_profile_rgb(const double white_point[2], const double primaries_xy[6], double gamma,
                                  const char *description) {
    silence_errors();
    /* The sRGB curve as ICC parametric type 4: Y = (aX+b)^g for X >= d, else cX. */
    const cmsFloat64Number srgb[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
    cmsToneCurve *curve = gamma > 0 ? cmsBuildGamma(NULL, gamma) : cmsBuildParametricToneCurve(NULL, 4, srgb);
    if (curve == NULL) return NULL;
    cmsToneCurve *curves[3] = {curve, curve, curve};
    const cmsCIExyY white = {white_point[0], white_point[1], 1.0};
    const cmsCIExyYTRIPLE primaries = {{primaries_xy[0], primaries_xy[1], 1.0}, {primaries_xy[2], primaries_xy[3], 1.0},
                                       {primaries_xy[4], primaries_xy[5], 1.0}};
    cmsHPROFILE profile = cmsCreateRGBProfile(&white, &primaries, curves);
    cmsFreeToneCurve(curve);
    if (profile != NULL) {
        cmsMLU *text = cmsMLUalloc(NULL, 1);
        if (text != NULL) {
            cmsMLUsetASCII(text, "en", "US", description);
            cmsWriteTag(profile, cmsSigProfileDescriptionTag, text);
            cmsMLUfree(text);
        }
    }
    return profile;
}

int ccolor_profile_description(ccolor_profile profile, char *out, size_t size) {
    if (profile == NULL || out == NULL || size == 0) return 0;
    cmsUInt32Number written = cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", out, (cmsUInt32Number)size);
    return written > 1 && out[0] != '\0';
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
        return cmsCreateTransform(input, gray, output, format, (cmsUInt32Number)intent, flags);
    }
    return cmsCreateTransform(input, format, output, format, (cmsUInt32Number)intent, flags | cmsFLAGS_COPY_ALPHA);
}

void ccolor_transform_apply(ccolor_transform transform, void *pixels, size_t pixel_count) {
    /* lcms2 counts pixels in 32 bits: convert in pieces. */
    uint8_t *p = pixels;
    cmsUInt32Number format = cmsGetTransformInputFormat(transform);
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

ccolor_transform ccolor_transform_cmyk_create(ccolor_profile input, ccolor_profile output, int intent) {
    if (input == NULL || output == NULL) return NULL;
    return cmsCreateTransform(input, TYPE_CMYK_8, output, TYPE_RGBA_8, (cmsUInt32Number)intent, cmsFLAGS_NOCACHE);
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
