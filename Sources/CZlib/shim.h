/* zlib, for the journal's CRC-32 (the library is linked already by the PNG codec). */
#include <zlib.h>
