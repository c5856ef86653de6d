#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cpng_status_clear(cpng_status *status) {
    memset(status, 0, sizeof *status);
}

void cpng_status_fail(cpng_status *status, int code, const char *chunk, const char *format, ...) {
    /* The first failure is the cause; later ones (e.g. libpng's generic
     * message after our read callback failed) would only hide it. */
    if (status->code != CPNG_OK) return;
    status->code = code;
    if (chunk != NULL) {
        snprintf(status->chunk, sizeof status->chunk, "%s", chunk);
    }
    va_list args;
    va_start(args, format);
    vsnprintf(status->message, sizeof status->message, format, args);
    va_end(args);
}

void cpng_chunk_name(uint32_t type, char out[5]) {
    for (int i = 0; i < 4; i++) {
        char c = (char)((type >> (24 - 8 * i)) & 0xff);
        out[i] = ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) ? c : '?';
    }
    out[4] = '\0';
}
