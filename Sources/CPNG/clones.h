/* Internal: hot loops built twice, for AVX2 and for plain x86-64, the CPU's
 * choice made once at load time (the Up filter and the expansions vectorize,
 * the others gain from wider registers too). */
#ifndef CPNG_CLONES_H
#define CPNG_CLONES_H

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define KILN_SANITIZED 1
#endif
#endif

#if defined(KILN_SANITIZED)
/* Sanitizers cannot run the clones' resolvers (they run before the
 * sanitizer's runtime is set up): one plain version then. */
#define VECTOR_CLONES
#else
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif

#endif
