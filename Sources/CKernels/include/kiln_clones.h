/* Hot loops built twice, for AVX2 and for plain x86-64, the CPU's choice made
 * once at load time (ifunc resolvers): `VECTOR_CLONES` before a function
 * definition. Used by the PNG codec's filters and expansions and by the CPU
 * kernels' inner loops (`kiln_kernels.h`); not imported by Swift.
 *
 * FMA is deliberately not among the clones' features: a fused multiply-add
 * rounds once where a multiply and an add round twice, so an AVX2 machine and
 * a plain one would write different bytes for the same picture. The
 * kernels' files turn contraction off (`#pragma STDC FP_CONTRACT OFF`). */
#ifndef KILN_CLONES_H
#define KILN_CLONES_H

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define KILN_SANITIZED 1
#endif
#endif

#if defined(KILN_SANITIZED) || !defined(__x86_64__)
/* Sanitizers cannot run the clones' resolvers (they run before the
 * sanitizer's runtime is set up), and other architectures have no AVX2:
 * one plain version then. */
#define VECTOR_CLONES
#else
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif

#endif
