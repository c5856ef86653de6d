/* Undoing PNG row filters (see cpng_unfilter.h), the fast decoder's inner loop.
 *
 * Sub, Average and Paeth are serial: each pixel needs the one to its left,
 * finished. Byte by byte, a compiler cannot vectorize them, and Paeth's
 * branches follow the image's noise (on W1 the scalar loops were 17 % of the
 * job's time, Paeth and Average most rows). With SSE2 (every x86-64) one pixel
 * at a time lives in a register, as in libpng's contrib/intel and spng: its
 * bpp bytes are added at once, and Paeth's choice is made without a branch,
 * on 16-bit lanes. */
#include "cpng_unfilter.h"
#include <kiln_clones.h>

#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>

/* A pixel's bpp bytes in the low bytes of a register (the rest zero); bpp is
 * a constant once inlined, so these are one or two plain moves. */
static inline __attribute__((always_inline)) __m128i load_pixel(const uint8_t *p, size_t bpp) {
    uint64_t v = 0;
    memcpy(&v, p, bpp);
    return _mm_cvtsi64_si128((long long)v);
}

static inline __attribute__((always_inline)) void store_pixel(uint8_t *p, __m128i x, size_t bpp) {
    uint64_t v = (uint64_t)_mm_cvtsi128_si64(x);
    memcpy(p, &v, bpp);
}

/* The left pixel `a` starts at zero, which is each filter's rule for the
 * first pixel (Paeth with a = c = 0 picks b). */
static inline __attribute__((always_inline)) void sub_pixels(uint8_t *row, size_t count, size_t bpp) {
    __m128i a = _mm_setzero_si128();
    for (size_t i = 0; i < count; i += bpp) {
        a = _mm_add_epi8(load_pixel(row + i, bpp), a);
        store_pixel(row + i, a, bpp);
    }
}

static inline __attribute__((always_inline)) void average_pixels(uint8_t *row, const uint8_t *previous,
                                                                 size_t count, size_t bpp) {
    const __m128i one = _mm_set1_epi8(1);
    __m128i a = _mm_setzero_si128();
    for (size_t i = 0; i < count; i += bpp) {
        __m128i b = load_pixel(previous + i, bpp);
        /* pavgb rounds up: take back the 1 where a + b is odd. */
        __m128i average = _mm_sub_epi8(_mm_avg_epu8(a, b), _mm_and_si128(_mm_xor_si128(a, b), one));
        a = _mm_add_epi8(load_pixel(row + i, bpp), average);
        store_pixel(row + i, a, bpp);
    }
}

/* Bytes to 16-bit lanes. */
static inline __attribute__((always_inline)) __m128i widen(__m128i x) {
    return _mm_unpacklo_epi8(x, _mm_setzero_si128());
}

/* Paeth, on 16-bit lanes, with the chain from one pixel to the next kept
 * short: the loop waits on it, pixel after pixel. With d = a − c and
 * p = b − c, the spec's distances are pa = |p|, pb = |d|, pc = |d + p|, and
 *   a wins (pa ≤ pb and pa ≤ pc)  ⇔  d ≥ max(p, −2p)  or  d ≤ min(p, −2p),
 *   else b wins (pb ≤ pc)          ⇔  2d ≥ −p when p > 0,  2d ≤ −p when p < 0,
 * thresholds on d that do not depend on a, computed off the chain; the
 * predictor is c + (a wins ? d : b wins ? p : 0). The first version took the
 * minimum of the three distances and compared each with it (libpng's
 * contrib/intel way): 1.15-1.35 × the scalar loop on W1's rows, where the
 * scalar branches predict well. */
static inline __attribute__((always_inline)) void paeth_pixels(uint8_t *row, const uint8_t *previous,
                                                               size_t count, size_t bpp) {
    const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi16(1), low_byte = _mm_set1_epi16(0xff);
    __m128i a = zero, c = zero;
    for (size_t i = 0; i < count; i += bpp) {
        __m128i b = widen(load_pixel(previous + i, bpp));
        __m128i p = _mm_sub_epi16(b, c), minus_twice = _mm_sub_epi16(zero, _mm_add_epi16(p, p));
        __m128i above = _mm_sub_epi16(_mm_max_epi16(p, minus_twice), one); /* a wins where d > above */
        __m128i below = _mm_add_epi16(_mm_min_epi16(p, minus_twice), one); /* or d < below */
        __m128i half = _mm_srai_epi16(p, 1), minus_half = _mm_srai_epi16(_mm_sub_epi16(zero, p), 1);
        __m128i b_above = _mm_sub_epi16(_mm_sub_epi16(zero, half), one);   /* p > 0: b wins where d > this */
        __m128i b_below = _mm_add_epi16(minus_half, one);                  /* p < 0: b wins where d < this */
        __m128i p_positive = _mm_and_si128(_mm_cmpgt_epi16(p, zero), p);
        __m128i p_negative = _mm_and_si128(_mm_cmplt_epi16(p, zero), p);
        __m128i base = _mm_add_epi16(widen(load_pixel(row + i, bpp)), c);
        /* The chain: */
        __m128i d = _mm_sub_epi16(a, c);
        __m128i a_wins = _mm_or_si128(_mm_cmpgt_epi16(d, above), _mm_cmplt_epi16(d, below));
        __m128i b_step = _mm_or_si128(_mm_and_si128(_mm_cmpgt_epi16(d, b_above), p_positive),
                                      _mm_and_si128(_mm_cmplt_epi16(d, b_below), p_negative));
        __m128i step = _mm_or_si128(_mm_and_si128(a_wins, d), _mm_andnot_si128(a_wins, b_step));
        a = _mm_and_si128(_mm_add_epi16(base, step), low_byte);
        store_pixel(row + i, _mm_packus_epi16(a, a), bpp);
        c = b;
    }
}

/* Each kernel built for each constant bpp. */
#define FOR_EACH_BPP(bpp, kernel, ...)      \
    switch (bpp) {                          \
    case 1: kernel(__VA_ARGS__, 1); break;  \
    case 2: kernel(__VA_ARGS__, 2); break;  \
    case 3: kernel(__VA_ARGS__, 3); break;  \
    case 4: kernel(__VA_ARGS__, 4); break;  \
    case 5: kernel(__VA_ARGS__, 5); break;  \
    case 6: kernel(__VA_ARGS__, 6); break;  \
    case 7: kernel(__VA_ARGS__, 7); break;  \
    default: kernel(__VA_ARGS__, 8); break; \
    }

static inline void sub_row(uint8_t *row, size_t count, size_t bpp) { FOR_EACH_BPP(bpp, sub_pixels, row, count) }

static inline void average_row(uint8_t *row, const uint8_t *previous, size_t count, size_t bpp) {
    FOR_EACH_BPP(bpp, average_pixels, row, previous, count)
}

static inline __attribute__((always_inline)) void paeth_row(uint8_t *row, const uint8_t *previous, size_t count, size_t bpp) {
    FOR_EACH_BPP(bpp, paeth_pixels, row, previous, count)
}

#else

/* Byte by byte, elsewhere. */
static inline void sub_row(uint8_t *row, size_t count, size_t bpp) {
    for (size_t i = bpp; i < count; i++) row[i] = (uint8_t)(row[i] + row[i - bpp]);
}

static inline void average_row(uint8_t *row, const uint8_t *previous, size_t count, size_t bpp) {
    for (size_t i = 0; i < bpp; i++) row[i] = (uint8_t)(row[i] + (previous[i] >> 1));
    for (size_t i = bpp; i < count; i++) row[i] = (uint8_t)(row[i] + ((row[i - bpp] + previous[i]) >> 1));
}

static inline void paeth_row(uint8_t *row, const uint8_t *previous, size_t count, size_t bpp) {
    for (size_t i = 0; i < bpp; i++) row[i] = (uint8_t)(row[i] + previous[i]);
    for (size_t i = bpp; i < count; i++) {
        int a = row[i - bpp], b = previous[i], c = previous[i - bpp];
        int p = b - c, q = a - c;
        int pa = abs(p), pb = abs(q), pc = abs(p + q);
        int predictor = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
        row[i] = (uint8_t)(row[i] + predictor);
    }
}

#endif

VECTOR_CLONES int cpng_unfilter_row(uint8_t filter, uint8_t *row, const uint8_t *previous, size_t count, size_t bpp) {
    switch (filter) {
    case 0: /* None */
        return 1;
    case 1: /* Sub */
        sub_row(row, count, bpp);
        return 1;
    case 2: /* Up: independent bytes, vectorized by the compiler */
        for (size_t i = 0; i < count; i++) row[i] = (uint8_t)(row[i] + previous[i]);
        return 1;
    case 3: /* Average */
        average_row(row, previous, count, bpp);
        return 1;
    case 4: /* Paeth */
        paeth_row(row, previous, count, bpp);
        return 1;
    default:
        return 0;
    }
}
