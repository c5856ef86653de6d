/* Internal: the vector types of the kernels and the premultiplied-alpha steps
 * they share, exactly as Sources/Render/Kernels/Alpha.swift defines them. */
#ifndef KILN_PIXELS_H
#define KILN_PIXELS_H

#include <string.h>

typedef float f4 __attribute__((vector_size(16)));
typedef float f8 __attribute__((vector_size(32)));

/* Unaligned loads and stores (the compiler makes them single moves). The
 * eight-wide ones are macros: a function taking or returning an f8 by value
 * has another ABI with AVX than without, which the plain clone may not call. */
static inline f4 load4(const float *p) { f4 v; memcpy(&v, p, sizeof v); return v; }
static inline void store4(float *p, f4 v) { memcpy(p, &v, sizeof v); }
static inline f4 splat4(float x) { return (f4){x, x, x, x}; }
#define load8(p) ({ f8 v_; memcpy(&v_, (p), sizeof v_); v_; })
#define store8(p, v) do { f8 v_ = (v); memcpy((p), &v_, sizeof v_); } while (0)
#define splat8(x) ({ const float x_ = (x); (f8){x_, x_, x_, x_, x_, x_, x_, x_}; })

/* Below this alpha a filtered pixel is fully transparent (Alpha.transparent). */
#define KILN_TRANSPARENT (0.5f / 65535.0f)

/* Straight → premultiplied: c · (a, a, a, 1); of two pixels, and of one. */
#define premultiply8(c) ({ const f8 c_ = (c); c_ * __builtin_shufflevector(c_, splat8(1.0f), 3, 3, 3, 8, 7, 7, 7, 8); })

static inline f4 premultiply4(f4 c) {
    const f4 one = splat4(1.0f);
    return c * __builtin_shufflevector(c, one, 3, 3, 3, 4);
}

/* Premultiplied → straight, as Alpha.unpremultiply: transparent below
 * KILN_TRANSPARENT (NaN too), else the colour divided by the alpha as filtered,
 * overshoot and all, then colour and alpha clamped to 0…1. */
static inline f4 unpremultiply4(f4 c) {
    const float a = c[3];
    if (!(a >= KILN_TRANSPARENT)) return splat4(0.0f);
    f4 color;
    for (int i = 0; i < 3; i++) {
        const float v = c[i] / a;
        color[i] = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
    }
    color[3] = a > 1.0f ? 1.0f : a;
    return color;
}

#endif
