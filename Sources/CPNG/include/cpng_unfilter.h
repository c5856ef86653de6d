/* Undoing a PNG row filter: the fast decoder's, public so that the tests can
 * check it against a reference of their own on rows no PNG file would hold. */
#ifndef CPNG_UNFILTER_H
#define CPNG_UNFILTER_H

#include <stddef.h>
#include <stdint.h>

/*
 * Undoes filter `filter` (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth) of the
 * `count` stored bytes of `row` in place; `previous` is the row above,
 * unfiltered (zeros for the first row), `bpp` the bytes per pixel (1-8,
 * `count` a multiple of it). Returns 0 for an unknown filter, else 1.
 */
int cpng_unfilter_row(uint8_t filter, uint8_t *row, const uint8_t *previous, size_t count, size_t bpp);

#endif
