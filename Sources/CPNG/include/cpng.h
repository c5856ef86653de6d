/*
 * CPNG: a thin C shim over libpng (SPEC §1).
 *
 * libpng reports errors with longjmp, which must never cross a Swift frame, so
 * every entry point below does its own setjmp(png_jmpbuf(png)) and the I/O
 * callbacks are C functions. Failures come back as a CPNG_* code plus a
 * human-readable message in a cpng_status; nothing is printed.
 *
 * Thread safety: no global state; distinct decoders/encodes may run on
 * different threads at once.
 */
#ifndef CPNG_H
#define CPNG_H

#include <stddef.h>
#include <stdint.h>

/* Outcome codes (cpng_status.code). */
#define CPNG_OK 0
#define CPNG_NOT_PNG 1        /* bad or missing PNG signature */
#define CPNG_CRC 2            /* CRC mismatch in a critical chunk (cpng_status.chunk) */
#define CPNG_BAD_HEADER 3     /* invalid IHDR; the message names the field */
#define CPNG_TRUNCATED 4      /* input ends early; the message says where */
#define CPNG_TOO_LARGE 5      /* dimensions exceed the caller's limits */
#define CPNG_IO 6             /* open/read failure; the message is strerror */
#define CPNG_NO_MEMORY 7      /* an allocation failed */
#define CPNG_MALFORMED 8      /* any other libpng error; the message is libpng's */
#define CPNG_INVALID_ARGUMENT 9 /* caller error (bad size, depth, level...) */

/* PNG color types, as in IHDR. */
#define CPNG_COLOR_GRAY 0
#define CPNG_COLOR_RGB 2
#define CPNG_COLOR_PALETTE 3
#define CPNG_COLOR_GRAY_ALPHA 4
#define CPNG_COLOR_RGBA 6

/* The `time` of the writers below that asks for no tIME chunk (0 is a time: 1970-01-01, SOURCE_DATE_EPOCH=0). */
#define CPNG_NO_TIME INT64_MIN

/* The result of an entry point: a code and, on failure, why. */
typedef struct cpng_status {
    int code;            /* CPNG_OK or one of the codes above */
    char chunk[5];       /* chunk involved ("IDAT"), or "" */
    char message[256];   /* NUL-terminated reason; "" on success */
} cpng_status;

/* What IHDR (and tRNS) say about the source image. */
typedef struct cpng_info {
    uint32_t width;
    uint32_t height;
    int bit_depth;       /* 1, 2, 4, 8 or 16 */
    int color_type;      /* CPNG_COLOR_* */
    int interlaced;      /* 1 for Adam7 */
    int has_trns;        /* a valid tRNS chunk was present */
} cpng_info;

/* ---- Ancillary chunks (metadata) --------------------------------------- */

/* Where an ancillary chunk stands in the stream (libpng's location bits). */
#define CPNG_BEFORE_PLTE 0x01 /* after IHDR, before any PLTE */
#define CPNG_BEFORE_IDAT 0x02 /* after PLTE, before IDAT */
#define CPNG_AFTER_IDAT 0x08  /* after the image data, before IEND */

/* One ancillary chunk, raw: its type, its data (CRC checked), its place. */
typedef struct cpng_chunk {
    char name[5];
    const uint8_t *data;
    size_t size;
    int location; /* CPNG_BEFORE_PLTE, CPNG_BEFORE_IDAT or CPNG_AFTER_IDAT */
} cpng_chunk;

/*
 * Checks a zlib stream (the compressed part of iCCP, zTXt, iTXt) without
 * keeping its output: returns 0 when it inflates completely to at most
 * `max_output` bytes, 1 when the data is damaged, 2 when it inflates to more.
 * The first `head_size` bytes of the output go to `head` (may be NULL);
 * `*total` (may be NULL) receives how many bytes were produced.
 */
int cpng_inflate_check(const uint8_t *data, size_t size, size_t max_output, uint8_t *head, size_t head_size,
                       size_t *total);

/* ---- Decoding --------------------------------------------------------- */

/* Flags for cpng_decoder_open_*. */
#define CPNG_KEEP_CHUNKS 1 /* keep ancillary chunks for cpng_decoder_chunks (else skip them) */
#define CPNG_LIBPNG_ONLY 2 /* never the fast path (the tests' oracle) */

/*
 * An open decoder positioned after the header (IHDR ... first IDAT).
 *
 * The common formats (gray, gray+alpha, RGB, RGBA at 8 or 16 bits, not
 * interlaced, without tRNS or PLTE) take a fast path with ISA-L's inflate and
 * a reader of its own; everything else, and anything unusual in those, is
 * decoded by libpng, which also words every error.
 */
typedef struct cpng_decoder cpng_decoder;

/*
 * Opens a decoder over `size` bytes at `data` (which must outlive it) and reads
 * the header into `info`. `max_dimension` bounds width and height (libpng's
 * user limits): a larger IHDR fails with CPNG_TOO_LARGE before any image-sized
 * allocation. Returns NULL on failure, with `status` saying why.
 */
cpng_decoder *cpng_decoder_open_memory(const void *data, size_t size, uint32_t max_dimension, int flags,
                                       cpng_info *info, cpng_status *status);

/* As cpng_decoder_open_memory, streaming the file at `path` instead. */
cpng_decoder *cpng_decoder_open_file(const char *path, uint32_t max_dimension, int flags,
                                     cpng_info *info, cpng_status *status);

/*
 * Decodes the whole image into `pixels`: canonical RGBA, 8 bits per channel
 * when the source has at most 8, else 16 bits host-endian; palette, tRNS and
 * low bit depths expanded exactly (bit replication), no gamma or sBIT. `size`
 * must be width * height * 4 * (1 or 2). Then reads to IEND, so trailing
 * truncation or corruption is an error too. Returns CPNG_OK or a failure code.
 */
int cpng_decoder_read_image(cpng_decoder *decoder, void *pixels, size_t size, cpng_status *status);

/*
 * Streaming: decodes the next `count` rows into `pixels` (canonical rows as
 * above, one after another; NULL reads and discards them). Rows come in order,
 * so memory follows the width: an Adam7-interlaced image is the exception
 * (libpng holds it whole, in canonical form, from the first request). After a
 * failure the decoder takes no more reads.
 */
int cpng_decoder_read_rows(cpng_decoder *decoder, void *pixels, uint32_t count, cpng_status *status);

/*
 * Streaming: reads the rows not yet read (discarding them: the whole stream is
 * always checked) and the rest of the file to IEND. The image is valid only
 * when this returns CPNG_OK.
 */
int cpng_decoder_finish(cpng_decoder *decoder, cpng_status *status);

/*
 * With CPNG_KEEP_CHUNKS, after cpng_decoder_finish (or read_image) succeeded: the ancillary
 * chunks read (every one but tRNS, which the pixels already carry), in stream
 * order. Fills up to `capacity` entries of `out` (may be NULL) and returns the
 * count. The data stays valid until cpng_decoder_close.
 */
size_t cpng_decoder_chunks(const cpng_decoder *decoder, cpng_chunk *out, size_t capacity);

/*
 * Ancillary chunks the decoder had to leave out (bad CRC, over the limits),
 * one line each ("iCCP: CRC error"), or "" when none.
 */
const char *cpng_decoder_chunk_warnings(const cpng_decoder *decoder);

/*
 * For a palette image whose pixels name entries past its PLTE (drawn opaque
 * black, as libpng draws them): the largest index met in the rows read so
 * far, with the number of PLTE entries in *colors; -1 when every index was
 * in the palette.
 */
int cpng_decoder_palette_overflow(const cpng_decoder *decoder, int *colors);

/* 1 when the pixels came from the fast path (ISA-L inflate), 0 when from libpng. */
int cpng_decoder_used_fast_path(const cpng_decoder *decoder);

/* Frees the decoder (and closes its file). NULL is allowed. */
void cpng_decoder_close(cpng_decoder *decoder);

/* ---- Encoding --------------------------------------------------------- */

/* A growable byte buffer that the encoder writes the PNG stream into. */
typedef struct cpng_buffer {
    uint8_t *data;
    size_t size;
    size_t capacity;
} cpng_buffer;

/* Frees the buffer's storage and empties it. */
void cpng_buffer_free(cpng_buffer *buffer);

/* zlib-compresses `size` bytes at level 9 into `output` (for iCCP); free it with
 * cpng_buffer_free. Returns 1 on success, 0 when memory runs out. */
int cpng_compress(const uint8_t *data, size_t size, cpng_buffer *output);

/* Row filter choices for cpng_zlib_writer_open. */
#define CPNG_FILTERS_NONE 0      /* every row unfiltered */
#define CPNG_FILTERS_ADAPTIVE 1  /* libpng picks per row among all five filters */

/*
 * What an output stores: its colour type, the bit depth of its samples, the
 * depth of the canonical rows it is made from and, for a palette, the colours.
 * Every encoder below takes one; an output's exact form is chosen from
 * cpng_analyze_rgba.
 */
typedef struct cpng_format {
    int color_type;         /* CPNG_COLOR_* */
    int bit_depth;          /* stored: 8 or 16; also 1, 2 or 4 for gray and a palette (at most 8) */
    int row_depth;          /* the canonical rows': 8 or 16 (16 stored at 8 only when every sample is 257 * k) */
    const uint8_t *palette; /* PALETTE: `palette_size` RGBA entries (8 bits), the non-opaque ones first; else NULL */
    int palette_size;       /* PALETTE: 1 to 2^bit_depth; every colour of the rows is one of them */
    int keyed;              /* GRAY or RGB: 1 when the pixels of colour `key` are the transparent ones (tRNS) */
    unsigned key[3];        /* that colour, canonical (row depth): red, green, blue */
} cpng_format;

/* Bytes one row of `width` pixels takes in `format` (no filter byte). */
size_t cpng_format_row_bytes(const cpng_format *format, uint32_t width);

/* What cpng_analyze_rgba found: which exact smaller forms the pixels allow. */
typedef struct cpng_analysis {
    int all_gray;     /* r == g == b everywhere */
    int all_opaque;   /* every alpha maximal */
    /* The rest only from an exhaustive scan (else 0): */
    int fits_8;       /* every sample is 8 bits exactly: 16-bit ones are 257 * k (1 for 8-bit rows) */
    int gray_depth;   /* all_gray and fits_8: the least of 1, 2, 4, 8 that holds every gray value exactly */
    int keyed;        /* some alpha is 0, every other maximal, the transparent pixels all one colour that no
                         opaque pixel has: alpha can be a tRNS colour key, `key` (canonical RGB) */
    unsigned key[3];
    int palette_size; /* fits_8 and at most 256 distinct RGBA colours: how many (entries in `palette`); else 0 */
    uint8_t palette[256 * 4]; /* the colours (8 bits): the non-opaque ones first, each group by first appearance */
} cpng_analysis;

/*
 * Scans canonical RGBA pixels (`bit_depth` 8 or 16, host-endian) for the exact
 * smaller forms they allow. Not `exhaustive`: gray and opaque only, stopping
 * as soon as both are known false (a check of streamed rows); exhaustive: all
 * of `cpng_analysis` (a held image). The palette's order depends only on the
 * pixels, so the same pixels always give the same file.
 */
void cpng_analyze_rgba(const void *pixels, size_t pixel_count, int bit_depth, int exhaustive, cpng_analysis *out);

/* Told the fraction of the rows compressed so far (every few rows, and 1 at
 * the end), so that a slow encode shows progress. The callback must return
 * normally: it runs between libpng calls, never across a longjmp. */
typedef struct cpng_row_progress {
    void (*done)(void *context, double fraction);
    void *context;
} cpng_row_progress;

/* ---- Fast encoding (ISA-L, libdeflate) -------------------------------- */

/* A piece of the zlib stream: raw deflate data for a range of rows. */
typedef struct cpng_segment {
    uint8_t *data;    /* malloc'ed; free with cpng_segment_free */
    size_t size;
    uint32_t adler;   /* Adler-32 of the segment's filtered bytes */
    size_t raw_size;  /* how many filtered bytes it holds */
} cpng_segment;

/* How the fast path chooses each row's filter. */
#define CPNG_FILTER_SUM 0     /* least sum of absolute values (libpng's) */
#define CPNG_FILTER_ENTROPY 1 /* least order-0 entropy of the filtered bytes */

/* Which deflater compresses a segment. */
#define CPNG_DEFLATER_ISAL 0       /* ISA-L, levels 1-3: any range of rows, primed with the data before it */
#define CPNG_DEFLATER_WHOLE 1 /* levels 1-12, the whole image in one call (small images) */
#define CPNG_DEFLATER_ZLIB 2  /* zlib, levels 1-9: as ISA-L, slower, smaller (pigz's way) */

/*
 * Filters rows [first_row, end_row) of canonical pixels packed as `format`,
 * choosing each row's filter by `heuristic` (CPNG_FILTER_*; none for a
 * palette or a depth under 8, as the PNG specification advises), and
 * deflates them with
 * `deflater` at `level`. `pixels` holds rows from `pixels_row` on, which must
 * be at most cpng_fast_first_needed_row(...): with ISA-L or zlib the segment is primed
 * with the 32 KiB of filtered data before first_row (rows re-filtered here),
 * so segments of one image are independent (run them on several threads) and,
 * in row order, form one deflate stream; the image's last segment (end_row ==
 * height) ends it, the others end with a sync flush.
 * The whole-image deflater (libdeflate, or Huffman coding alone where
 * that is smaller for noise-like rows) takes only first_row 0, end_row height.
 * Either way the same pixels always give the same bytes.
 */
int cpng_fast_segment(const void *pixels, uint32_t pixels_row, uint32_t width, uint32_t height,
                      const cpng_format *format, uint32_t first_row, uint32_t end_row, int deflater, int level,
                      int heuristic, cpng_segment *out, cpng_status *status);

/* The first row cpng_fast_segment reads for a segment starting at `first_row`
 * (the rows that prime it, and the row above them that their filters see). */
uint32_t cpng_fast_first_needed_row(uint32_t width, const cpng_format *format, uint32_t first_row);

/* Frees a segment's data. */
void cpng_segment_free(cpng_segment *segment);

/* ---- Assembling a PNG piece by piece (any encoder) --------------------- */

/*
 * Appends the PNG's start to `output`: signature, IHDR of `format` (not
 * interlaced), the ancillary `chunks` located before PLTE, a palette's PLTE
 * and tRNS (its entries up to the last non-opaque one), tIME when `time` is not
 * CPNG_NO_TIME (seconds since 1970, UTC), the chunks located before IDAT — the
 * order libpng writes them in. A keyed format's tRNS stands where a palette's would.
 */
int cpng_png_head(uint32_t width, uint32_t height, const cpng_format *format, const cpng_chunk *chunks,
                  size_t chunk_count, int64_t time, cpng_buffer *output, cpng_status *status);

/* PNG's CRC-32 (ISA-L's) of `crc`'s bytes followed by `data`: 0 to start, then chunk type, then its data. */
uint32_t cpng_crc32(uint32_t crc, const uint8_t *data, size_t length);

/* Appends a tIME saying `time` when it is not CPNG_NO_TIME (one the head did not
 * write), the ancillary `chunks` located after IDAT, then IEND. */
int cpng_png_tail(const cpng_chunk *chunks, size_t chunk_count, int64_t time, cpng_buffer *output,
                  cpng_status *status);

/* The Adler-32 of two byte runs one after the other, from theirs (zlib's adler32_combine). */
uint32_t cpng_adler32_combine(uint32_t first, uint32_t second, size_t second_size);

/* ---- Streaming through libpng (levels 0 and 7-9) ----------------------- */

/*
 * A libpng writer fed rows as they come: the PNG it makes is byte for byte the
 * the same for the same rows, chunks and settings, however the rows are split. Its output
 * collects in a buffer the caller empties between calls (cpng_zlib_writer_output).
 * After a failure it takes no more calls but close.
 */
typedef struct cpng_zlib_writer cpng_zlib_writer;

/* Starts a non-interlaced PNG stored as `format` (canonical channels not in
 * it are dropped, gray taken from red), zlib `level` 0-9 and `filters` (none
 * for a palette or a depth under 8, whatever is asked): writes the signature,
 * IHDR, a palette's PLTE and tRNS (or a colour key's tRNS), the
 * ancillary `chunks` located before IDAT (raw: the caller decides which are
 * still true of the output; the others go to cpng_zlib_writer_finish) and,
 * when `time` is not CPNG_NO_TIME, a tIME saying `time` (seconds since 1970, UTC).
 * NULL on failure. */
cpng_zlib_writer *cpng_zlib_writer_open(uint32_t width, uint32_t height, const cpng_format *format, int level,
                                        int filters, const cpng_chunk *chunks, size_t chunk_count, int64_t time,
                                        cpng_status *status);

/* Compresses the next `count` canonical rows (the format's row depth, host-endian), telling
 * `progress` (may be NULL) the fraction of the image's rows done every 16 rows. */
int cpng_zlib_writer_rows(cpng_zlib_writer *writer, const void *pixels, uint32_t count,
                          const cpng_row_progress *progress, cpng_status *status);

/* Ends the image data and writes a tIME saying `time` when it is not CPNG_NO_TIME
 * (one the start did not write), the chunks located after IDAT, then IEND. */
int cpng_zlib_writer_finish(cpng_zlib_writer *writer, const cpng_chunk *chunks, size_t chunk_count, int64_t time,
                            cpng_status *status);

/* The bytes made since the output was last taken; `take` empties it afterwards. */
cpng_buffer *cpng_zlib_writer_output(cpng_zlib_writer *writer);

/* Frees the writer. NULL is allowed. */
void cpng_zlib_writer_close(cpng_zlib_writer *writer);

#endif
