/*
 * CColor: a thin C shim over Little CMS 2 (lcms2) for colour conversion of
 * canonical RGBA pixels (8 or 16 bits per channel, host-endian, straight
 * alpha copied through). lcms2 reports errors through a handler, never by
 * jumping, so Swift may call these directly; the shim exists because lcms2's
 * pixel formats are function-like macros that Swift does not import.
 * No global state beyond a silenced error handler; transforms are made with
 * cmsFLAGS_NOCACHE, so one may run on several threads at once.
 */
#ifndef CCOLOR_H
#define CCOLOR_H

#include <stddef.h>
#include <stdint.h>

/* An lcms2 profile handle (cmsHPROFILE). */
typedef void *ccolor_profile;
/* An lcms2 transform handle (cmsHTRANSFORM). */
typedef void *ccolor_transform;

/* The sRGB profile (IEC 61966-2-1). */
ccolor_profile ccolor_profile_srgb(void);
/* Display P3: DCI-P3 primaries, D65 white, the sRGB transfer curve. */
ccolor_profile ccolor_profile_display_p3(void);
/*
 * An RGB profile of white point (x, y), primaries {red x, y, green x, y, blue x, y} and one
 * decoding curve for the three channels: with `curve_count` 1, linear = value^curve[0]; with 5,
 * ICC's parametric curve of type 4 {g, a, b, c, d}: linear = (a value + b)^g from value d, else
 * c value; else (NULL, 0) sRGB's. Described as `description` (ASCII); NULL when lcms2 cannot build
 * it (primaries that span no colours).
 */
ccolor_profile ccolor_profile_rgb(const double white_point[2], const double primaries_xy[6], const double *curve,
                                  int curve_count, const char *description);
/* A gray profile of white point (x, y) and a decoding curve (as `ccolor_profile_rgb`'s), described as `description`. */
ccolor_profile ccolor_profile_gray(const double white_point[2], const double *curve, int curve_count,
                                   const char *description);
/*
 * An RGB profile that describes a gray profile's neutrals as it does, for gray pixels made colour (a
 * watermark): its gray curve on each channel, sRGB's primaries and white. NULL when `gray` is not a gray
 * profile or has no gray curve (a gray profile of lookup tables).
 */
ccolor_profile ccolor_profile_rgb_from_gray(ccolor_profile gray, const char *description);
/* A profile from ICC bytes; NULL when lcms2 refuses them. */
ccolor_profile ccolor_profile_open(const void *bytes, size_t size);
/* The profile's description (its 'desc' tag, in English where it has several) into `out` (NUL-terminated,
 * cut to `size`); returns 0 when it has none. */
int ccolor_profile_description(ccolor_profile profile, char *out, size_t size);
/* 1 when the profile's data colour space is gray. */
int ccolor_profile_is_gray(ccolor_profile profile);
/* 1 when the profile's data colour space is RGB. */
int ccolor_profile_is_rgb(ccolor_profile profile);
/* The profile as ICC bytes: with `out` NULL, `*size` receives the size needed. Returns 1 on success. */
int ccolor_profile_save(ccolor_profile profile, uint8_t *out, size_t *size);
void ccolor_profile_close(ccolor_profile profile);

/* Rendering intents (ICC). */
#define CCOLOR_PERCEPTUAL 0
#define CCOLOR_RELATIVE 1
#define CCOLOR_SATURATION 2
#define CCOLOR_ABSOLUTE 3

/*
 * An RGB(A) → RGB(A) transform for canonical pixels of `bit_depth` 8 or 16,
 * alpha kept (in place); `black_point_compensation` non-zero to apply it. From a gray
 * profile, the canonical pixels' gray (r = g = b) to RGB, alpha kept (in place).
 * NULL when lcms2 cannot link the two profiles.
 */
ccolor_transform ccolor_transform_create(ccolor_profile input, ccolor_profile output, int bit_depth, int intent,
                                         int black_point_compensation);
/* A CMYK (8 bits, 0 = no ink) → RGBA (8 bits) transform; NULL when lcms2 cannot link the profiles. */
ccolor_transform ccolor_transform_cmyk_create(ccolor_profile input, ccolor_profile output, int intent,
                                              int black_point_compensation);
/* Converts `pixel_count` CMYK pixels (4 bytes each) in place to RGBA, alpha 255: through `transform`,
 * or, when it is NULL, naively (R = (255 - C)(255 - K) / 255, …), as with no profile to go by. */
void ccolor_cmyk_to_rgba(ccolor_transform transform, uint8_t *pixels, size_t pixel_count);
/* 1 when the profile's data colour space is CMYK. */
int ccolor_profile_is_cmyk(ccolor_profile profile);
/* Sets green and blue to red in `pixel_count` canonical pixels of `bit_depth` 8 or 16, in place: gray rows
 * converted into a matrix-shaper space whose channels share one curve are neutral, but for rounding. */
void ccolor_replicate_red(void *pixels, size_t pixel_count, int bit_depth);
/* Converts `pixel_count` canonical pixels in place. */
void ccolor_transform_apply(ccolor_transform transform, void *pixels, size_t pixel_count);
void ccolor_transform_close(ccolor_transform transform);


#endif
