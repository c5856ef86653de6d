/* adjust's per-pixel loop (AdjustKernel.swift), gamma's power included.
 *
 * The power is kiln's own, not libm's `powf`: a `powf` call per sample (three
 * a pixel) was 39 % of a 24 MP JPEG's `--gamma 2.2` export (0.95 s of CPU
 * against 0.60 s for a `--brightness` alone), and libmvec's vector `powf`,
 * which clang would call here, has an AVX2 and an SSE build of its own whose
 * last bits need not agree: two machines would write different bytes. This
 * one is plain arithmetic (no fused multiply-add, `kiln_clones.h`), so the
 * AVX2 and the plain build give the same bits, eight pixels a step:
 *
 *   x^g = 2^(g · log2 x),  x = m · 2^e with m in [√½, √2),
 *   log2 m = 2·s·(1 + z/3 + z²/5 + z³/7 + z⁴/9) / ln 2,  s = (m − 1)/(m + 1), z = s²
 *   (|s| ≤ 0.172: the series' next term is below 2⁻²⁷ of the sum),
 *   2^y = 2^n · 2^f,  n the nearest integer to y, |f| ≤ ½, 2^f by its Taylor
 *   series to the 7th power (remainder below 2⁻²⁷).
 *
 * Measured against the exact power (in double) over every float in [0, 1]
 * for 16 exponents in [0.01, 100]: at most 1.3·10⁻⁷ off (libm's `powf`
 * 3.0·10⁻⁸, every 37th float), 1/120 of a 16-bit level; 1 and 0 exact
 * (`AdjustTests`). */
#include <kiln_kernels.h>
#include <kiln_clones.h>
#include <stdint.h>
#include <string.h>

#pragma STDC FP_CONTRACT OFF

static inline float from_bits(uint32_t bits) {
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static inline uint32_t to_bits(float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

/* x^g for x in [0, 1] and g > 0, as the comment above says. */
static inline float power(float x, float g) {
    /* A subnormal x is scaled by 2^23 first (its exponent field is 0). */
    const int subnormal = x < 0x1p-126f;
    const float scaled = subnormal ? x * 0x1p23f : x;
    const uint32_t bits = to_bits(scaled);
    int32_t e = (int32_t)(bits >> 23) - 127 - (subnormal ? 23 : 0);
    float m = from_bits((bits & 0x7FFFFFu) | 0x3F800000u); /* in [1, 2) */
    const int high = m > 1.41421356f;
    m = high ? m * 0.5f : m;
    e += high;
    const float s = (m - 1.0f) / (m + 1.0f), z = s * s;
    const float series = 1.0f + z * (1.0f / 3 + z * (1.0f / 5 + z * (1.0f / 7 + z * (1.0f / 9))));
    const float log2m = s * series * 2.88539008f; /* 2 / ln 2 */
    const float y = g * ((float)e + log2m);
    /* The nearest integer through 1.5·2^23 (|y| below 2^22 here: y ≥ −150). */
    const float clamped = y < -150.0f ? -150.0f : y;
    const float n = (clamped + 0x1.8p23f) - 0x1.8p23f;
    const float f = (clamped - n) * 0.693147181f; /* ln 2 */
    const float p = 1.0f + f * (1.0f + f * (1.0f / 2 + f * (1.0f / 6 + f * (1.0f / 24 + f * (1.0f / 120
                    + f * (1.0f / 720 + f * (1.0f / 5040)))))));
    /* 2^n for n in [−126, 0]; below that the power is under 2⁻¹²⁶: 0 to any sample. */
    const int32_t k = (int32_t)n;
    const float scale = from_bits((uint32_t)(k + 127 < 1 ? 0 : k + 127) << 23);
    return x == 0.0f ? 0.0f : p * scale;
}

float kiln_power(float x, float g) { return power(x, g); }

static inline float clamp01(float value) {
    const float low = value > 0.0f ? value : 0.0f;
    return low < 1.0f ? low : 1.0f;
}

VECTOR_CLONES
void kiln_adjust_row(const void *pixels, intptr_t count, const float *parameters, int apply_gamma, void *out) {
    const float *in = pixels;
    float *o = out;
    const float gain = parameters[0], brightness = parameters[1], contrast = parameters[2];
    const float saturation = parameters[3], inverse_gamma = parameters[4];
    for (intptr_t i = 0; i < count; i++) {
        float c[3];
        for (int j = 0; j < 3; j++) c[j] = (in[4 * i + j] * gain + brightness - 0.5f) * contrast + 0.5f;
        const float luma = (c[0] * 0.2126f + c[1] * 0.7152f) + c[2] * 0.0722f;
        for (int j = 0; j < 3; j++) {
            float v = luma + (c[j] - luma) * saturation;
            if (apply_gamma) v = power(clamp01(v), inverse_gamma);
            o[4 * i + j] = clamp01(v);
        }
        o[4 * i + 3] = in[4 * i + 3];
    }
}
