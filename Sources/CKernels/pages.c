/* Large buffers in huge pages: see kiln_pages.h.
 *
 * Each image's float windows and filtered rows are fresh memory (glibc maps
 * every allocation of 1 MiB or more on its own: MemoryPolicy.swift), faulted
 * in one 4 KiB page at a time: W1 fit to 1920 with 2 jobs took about 180,000
 * page faults and 0.6-0.7 s of system time in 2.4-2.6 s. With glibc's own
 * huge-page tunable (GLIBC_TUNABLES=glibc.malloc.hugetlb=1, which a program
 * cannot set for itself) the faults fell to 56,000-73,000 and the system time
 * to 0.4-0.5 s, for 3-6 MB more peak RSS. */
#include <kiln_pages.h>
#include <stdint.h>
#include <sys/mman.h>

#define HUGE_PAGE ((uintptr_t)2 << 20)

void kiln_advise_huge_pages(void *buffer, size_t bytes) {
    if (buffer == NULL || bytes < 2 * HUGE_PAGE) return;
    uintptr_t start = ((uintptr_t)buffer + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t end = ((uintptr_t)buffer + bytes) & ~(HUGE_PAGE - 1);
    if (end > start) (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
}
