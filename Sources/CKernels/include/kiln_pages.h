/* Large buffers in huge pages (pages.c; its Swift twin: ImageCore's HugePages). */
#ifndef KILN_PAGES_H
#define KILN_PAGES_H

#include <stddef.h>

/* Asks the kernel to back the 2 MiB-aligned part of the `bytes` at `buffer`
 * with transparent huge pages when they are first touched (MADV_HUGEPAGE:
 * what a system whose THP setting is "madvise", Debian's default, needs).
 * For a buffer not touched yet; does nothing below 4 MiB. A hint: failures
 * are ignored. */
void kiln_advise_huge_pages(void *buffer, size_t bytes);

#endif
