/* Internal helpers shared by the decoder and the encoder (not exported). */
#ifndef CPNG_STATUS_H
#define CPNG_STATUS_H

#include "cpng.h"

/* Resets `status` to success. */
void cpng_status_clear(cpng_status *status);

/* Records a failure; `chunk` may be NULL. Keeps an earlier failure if one is set. */
void cpng_status_fail(cpng_status *status, int code, const char *chunk, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/* Writes the four letters of a chunk type (printable or '?') and a NUL to `out`. */
void cpng_chunk_name(uint32_t type, char out[5]);

#endif
