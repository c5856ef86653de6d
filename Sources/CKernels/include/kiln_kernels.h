/* The inner loops of Kiln's CPU render kernels, in C so that they are built
 * twice — for AVX2 and for plain x86-64 (`kiln_clones.h`) — where Swift
 * builds one version for the baseline CPU. What each computes is defined by
 * its Swift kernel in Sources/Render/Kernels (which documents it and calls
 * these) and by its GPU twin in Shaders/; the agreement tests compare them.
 *
 * A pixel is four floats (RGBA, 16 bytes; Swift's SIMD4<Float>); pixel
 * pointers are `void *` because Swift hands over memory bound to SIMD4<Float>.
 * Every sum is taken in the order the comments give, with a separate
 * multiply and add (no fused multiply-add), so both builds give the same
 * bits: outputs do not depend on the machine. */
#ifndef KILN_KERNELS_H
#define KILN_KERNELS_H

#include <stdint.h>

/* Pack (PackKernel.swift): `channels` floats to samples of 8 or 16 bits
 * (native byte order, any alignment): NaN → 0, else
 * floor(clamp(f, 0, 1)·scale + ½), the multiply and the add rounded apart. */
void kiln_pack8(const void *pixels, intptr_t channels, float scale, void *samples);
void kiln_pack16(const void *pixels, intptr_t channels, float scale, void *samples);

/* Unpack (UnpackKernel.swift): `channels` samples of 8 or 16 bits (native
 * byte order, any alignment; whole pixels) to floats, each times `scale`.
 * Returns whether every alpha (each fourth sample) is the maximum (255,
 * 65535): the pixels are opaque, their alpha exactly 1. */
int kiln_unpack8(const void *samples, intptr_t channels, float scale, void *pixels);
int kiln_unpack16(const void *samples, intptr_t channels, float scale, void *pixels);

/* Straight → premultiplied alpha, `count` pixels from `source` to
 * `destination`: c · (a, a, a, 1), as Alpha.premultiply. */
void kiln_premultiply(const void *source, intptr_t count, void *destination);

/* Adjust (AdjustKernel.swift), `count` pixels from `pixels` to `out`:
 * parameters = (gain, brightness, contrast, saturation, 1/gamma); per colour
 * channel c = ((c·gain + brightness) − ½)·contrast + ½, then Y + (c − Y)·saturation
 * with Y = (R·0.2126 + G·0.7152) + B·0.0722, then clamp(c)^(1/gamma) (by
 * `kiln_power`) when `apply_gamma` is not 0, clamped to 0…1; alpha copied. */
void kiln_adjust_row(const void *pixels, intptr_t count, const float *parameters, int apply_gamma, void *out);

/* x^g for x in [0, 1] and g > 0, as adjust's gamma computes it: within
 * 1.3·10⁻⁷ of the exact power (adjust.c says how). */
float kiln_power(float x, float g);

/* Blur, horizontal: for i < count,
 *   out[i] = w[r]·p[i+r] + Σ_{k=0}^{r−1} w[k]·(p[i+k] + p[i+2r−k])
 * added in order of k; `padded` holds count + 2·radius pixels. */
void kiln_blur_row(const void *padded, intptr_t count, const float *weights, intptr_t radius, void *out);

/* Blur, vertical: for x < count,
 *   out[x] = w[r]·row[r][x] + Σ_{k=1}^{r} w[r−k]·(row[r−k][x] + row[r+k][x])
 * added in order of k, from the 2·radius + 1 rows `rows`; unpremultiplied
 * (clamped, as `kiln_unpremultiply`) when `unpremultiply` is not 0. */
void kiln_blur_columns(const void *const *rows, intptr_t count, const float *weights, intptr_t radius,
                       int unpremultiply, void *out);

/* Resample, horizontal, of `rows` rows at once (1 to 4): output pixel x of
 * row j is the sum over its taps k < count[x] of
 * weights[offset[x] + k]·sources[j][first[x] + k − origin], in four partial sums
 * s(k mod 4) (the remaining count mod 4 taps into s0) added as
 * (s0 + s1) + (s2 + s3); unpremultiplied when `unpremultiply` is not 0.
 * Several rows share each tap's weights (loaded once for all of them). */
void kiln_resample_rows(const void *const *sources, void *const *outputs, intptr_t rows, intptr_t width,
                        intptr_t origin, const intptr_t *first, const intptr_t *count, const intptr_t *offset,
                        const float *weights, int unpremultiply);

/* Resample, vertical, one output row of `columns` pixels: for each pixel the
 * sum over k < taps of weights[k]·source row k (premultiplied first when
 * `premultiply` is not 0), added in order of k from zero; source row k
 * starts at `first` + k·`stride` pixels. Unpremultiplied when
 * `unpremultiply` is not 0. */
void kiln_resample_columns(const void *first, intptr_t stride, intptr_t taps, const float *weights,
                           intptr_t columns, int premultiply, int unpremultiply, void *out);

#endif
