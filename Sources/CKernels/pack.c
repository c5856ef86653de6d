/* The render stage's ends (PackKernel.swift, UnpackKernel.swift): samples to
 * floats and back, a channel at a time. Plain loops the compiler vectorizes,
 * eight channels a step with AVX2, four without. */
#include <kiln_kernels.h>
#include <kiln_clones.h>
#include <string.h>

#pragma STDC FP_CONTRACT OFF

/* PackKernel's formula for one channel: NaN → 0, clamped to 0…1 (max, then
 * min), times scale plus ½ (two roundings), then floor — as the nearest
 * integer through 2^23, one less where that rounded up (no floor instruction
 * before SSE4.1, and the same bits on every machine). */
static inline uint32_t quantize(float value, float scale) {
    float clamped = value != value ? 0.0f : (0.0f >= value ? 0.0f : value);
    clamped = 1.0f < clamped ? 1.0f : clamped;
    const float x = clamped * scale + 0.5f;
    const float rounded = x + 0x1p23f;
    const float level = rounded - 0x1p23f > x ? rounded - 1.0f : rounded;
    uint32_t bits;
    memcpy(&bits, &level, sizeof bits);
    return bits & 0x7FFFFF;
}

VECTOR_CLONES
void kiln_pack8(const void *pixels, intptr_t channels, float scale, void *samples) {
    const float *in = pixels;
    uint8_t *out = samples;
    for (intptr_t c = 0; c < channels; c++) out[c] = (uint8_t)quantize(in[c], scale);
}

VECTOR_CLONES
void kiln_pack16(const void *pixels, intptr_t channels, float scale, void *samples) {
    const float *in = pixels;
    uint8_t *out = samples;
    for (intptr_t c = 0; c < channels; c++) {
        const uint16_t sample = (uint16_t)quantize(in[c], scale);
        memcpy(out + 2 * c, &sample, sizeof sample);
    }
}

VECTOR_CLONES
int kiln_unpack8(const void *samples, intptr_t channels, float scale, void *pixels) {
    const uint8_t *in = samples;
    float *out = pixels;
    for (intptr_t c = 0; c < channels; c++) out[c] = (float)in[c] * scale;
    /* The alphas, just read (in cache): all at 255? */
    uint8_t alpha = 0xFF;
    for (intptr_t c = 3; c < channels; c += 4) alpha &= in[c];
    return alpha == 0xFF;
}

VECTOR_CLONES
int kiln_unpack16(const void *samples, intptr_t channels, float scale, void *pixels) {
    const uint8_t *in = samples;
    float *out = pixels;
    uint16_t alpha = 0xFFFF;
    for (intptr_t c = 0; c < channels; c++) {
        uint16_t sample;
        memcpy(&sample, in + 2 * c, sizeof sample);
        out[c] = (float)sample * scale;
        if ((c & 3) == 3) alpha &= sample;
    }
    return alpha == 0xFFFF;
}
