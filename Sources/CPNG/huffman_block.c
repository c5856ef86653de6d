/* Huffman coding alone: `raw` as one final deflate block of literals with
 * codes fitted to its byte counts (RFC 1951 §3.2.7). On noise-like rows,
 * where matches save less than they cost, this is often smaller than what a
 * deflater that searches for matches makes, and far faster: one pass to
 * count, one to write. Integer-only: the same bytes always give the same
 * output. */
#include "huffman_block.h"

#include <stdlib.h>
#include <string.h>

#define LITERALS 257 /* bytes 0-255 and end-of-block */
#define MAX_BITS 15
#define CODE_LENGTH_SYMBOLS 19
#define MAX_CODE_LENGTH_BITS 7

/* The order in which the code-length code's lengths are sent. */
static const uint8_t code_length_order[CODE_LENGTH_SYMBOLS] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
                                                               11, 4, 12, 3, 13, 2, 14, 1, 15};

/* A binary min-heap of node indices ordered by (weight, index): ties break the same way every time. */
typedef struct heap {
    int nodes[LITERALS];
    int size;
    const uint64_t *weight;
} heap;

static int heap_less(const heap *h, int a, int b) {
    return h->weight[a] < h->weight[b] || (h->weight[a] == h->weight[b] && a < b);
}

static void heap_push(heap *h, int node) {
    int at = h->size++;
    while (at > 0 && heap_less(h, node, h->nodes[(at - 1) / 2])) {
        h->nodes[at] = h->nodes[(at - 1) / 2];
        at = (at - 1) / 2;
    }
    h->nodes[at] = node;
}

static int heap_pop(heap *h) {
    int top = h->nodes[0], last = h->nodes[--h->size], at = 0;
    for (;;) {
        int child = 2 * at + 1;
        if (child >= h->size) break;
        if (child + 1 < h->size && heap_less(h, h->nodes[child + 1], h->nodes[child])) child++;
        if (!heap_less(h, h->nodes[child], last)) break;
        h->nodes[at] = h->nodes[child];
        at = child;
    }
    if (h->size > 0) h->nodes[at] = last;
    return top;
}

/* Huffman code lengths for `count` symbols (at least two of them used), none
 * longer than `limit`: the optimal lengths, then, if some are too long, the
 * longest shortened and the code kept complete by lengthening others (fewest
 * bits lost), the longest codes going to the rarest symbols. */
static void code_lengths(const uint32_t *frequency, int count, int limit, uint8_t *lengths) {
    uint64_t weight[2 * LITERALS];
    int parent[2 * LITERALS], depth[2 * LITERALS], rarest_first[LITERALS], used = 0;
    heap h = {.size = 0, .weight = weight};
    for (int s = 0; s < count; s++) {
        lengths[s] = 0;
        weight[s] = frequency[s];
        if (frequency[s] > 0) heap_push(&h, s);
    }
    int next = count;
    while (h.size > 1) {
        int a = heap_pop(&h), b = heap_pop(&h);
        if (a < count) rarest_first[used++] = a;
        if (b < count) rarest_first[used++] = b;
        weight[next] = weight[a] + weight[b];
        parent[a] = parent[b] = next;
        heap_push(&h, next++);
    }
    /* A parent is made after its children: depths follow from the root down. */
    int root = next - 1;
    depth[root] = 0;
    for (int node = root - 1; node >= count; node--) depth[node] = depth[parent[node]] + 1;
    int lengths_count[MAX_BITS + 1] = {0};
    for (int i = 0; i < used; i++) {
        int d = depth[parent[rarest_first[i]]] + 1;
        lengths_count[d > limit ? limit : d]++;
    }
    /* Kraft sum in units of 2^-limit; shortening codes made it exceed 1. */
    uint32_t kraft = 0;
    for (int length = 1; length <= limit; length++) kraft += (uint32_t)lengths_count[length] << (limit - length);
    while (kraft > (1u << limit)) {
        lengths_count[limit]--;
        for (int length = limit - 1; length > 0; length--) {
            if (lengths_count[length] > 0) {
                lengths_count[length]--;
                lengths_count[length + 1] += 2;
                break;
            }
        }
        kraft--;
    }
    int k = 0;
    for (int length = limit; length >= 1; length--) {
        for (int c = 0; c < lengths_count[length]; c++) lengths[rarest_first[k++]] = (uint8_t)length;
    }
}

/* Canonical codes for the lengths, bit-reversed (deflate sends codes from their top bit, packed from the bottom). */
static void canonical_codes(const uint8_t *lengths, int count, uint16_t *codes) {
    int lengths_count[MAX_BITS + 1] = {0};
    uint32_t next[MAX_BITS + 2] = {0};
    for (int s = 0; s < count; s++) lengths_count[lengths[s]]++;
    lengths_count[0] = 0;
    for (int length = 1; length <= MAX_BITS; length++) next[length + 1] = (next[length] + lengths_count[length]) << 1;
    for (int s = 0; s < count; s++) {
        int length = lengths[s];
        if (length == 0) continue;
        uint32_t code = next[length]++, reversed = 0;
        for (int b = 0; b < length; b++) reversed |= ((code >> b) & 1u) << (length - 1 - b);
        codes[s] = (uint16_t)reversed;
    }
}

/* Bits packed from the bottom of each byte, as deflate wants them. */
typedef struct bit_writer {
    uint8_t *out;
    size_t at;
    uint64_t bits;
    int count;
} bit_writer;

static inline void put_bits(bit_writer *w, uint32_t value, int n) {
    w->bits |= (uint64_t)value << w->count;
    w->count += n;
    if (w->count >= 32) {
        for (int i = 0; i < 4; i++) w->out[w->at++] = (uint8_t)(w->bits >> (8 * i));
        w->bits >>= 32;
        w->count -= 32;
    }
}

static void finish_bits(bit_writer *w) {
    while (w->count > 0) {
        w->out[w->at++] = (uint8_t)w->bits;
        w->bits >>= 8;
        w->count -= 8;
    }
}

/* The code lengths of the literal and distance codes as code-length symbols
 * (16: repeat the last 3-6 times, 17: 3-10 zeros, 18: 11-138 zeros), with the
 * extra value of each; returns how many. */
static int run_length_symbols(const uint8_t *lengths, int count, uint8_t *symbols, uint8_t *extras) {
    int n = 0;
    for (int i = 0; i < count;) {
        int value = lengths[i], run = 1;
        while (i + run < count && lengths[i + run] == value) run++;
        i += run;
        if (value == 0) {
            while (run >= 11) {
                int take = run > 138 ? 138 : run;
                symbols[n] = 18, extras[n++] = (uint8_t)(take - 11);
                run -= take;
            }
            if (run >= 3) {
                symbols[n] = 17, extras[n++] = (uint8_t)(run - 3);
                run = 0;
            }
        } else {
            symbols[n] = (uint8_t)value, extras[n++] = 0;
            run--;
            while (run >= 3) {
                int take = run > 6 ? 6 : run;
                symbols[n] = 16, extras[n++] = (uint8_t)(take - 3);
                run -= take;
            }
        }
        while (run-- > 0) symbols[n] = (uint8_t)value, extras[n++] = 0;
    }
    return n;
}

static const uint8_t extra_bits[CODE_LENGTH_SYMBOLS] = {[16] = 2, [17] = 3, [18] = 7};

/* Everything the block is made of, and its exact size. */
typedef struct block_plan {
    uint32_t frequency[LITERALS];
    uint8_t lengths[LITERALS + 2]; /* the literal code's, then the two distance codes' */
    uint8_t symbols[LITERALS + 2], extras[LITERALS + 2];
    int symbol_count;
    uint8_t code_length_lengths[CODE_LENGTH_SYMBOLS];
    int sent;
    uint64_t bits;
} block_plan;

static void plan_block(const uint8_t *raw, size_t raw_size, block_plan *p) {
    memset(p->frequency, 0, sizeof p->frequency);
    for (size_t i = 0; i < raw_size; i++) p->frequency[raw[i]]++;
    p->frequency[256] = 1;
    /* An empty input still gets a two-symbol literal code (byte 0 is given a
     * code it does not use). */
    if (raw_size == 0) p->frequency[0] = 1;
    code_lengths(p->frequency, LITERALS, MAX_BITS, p->lengths);
    /* Two distance codes of one bit, as zlib writes for a block without
     * matches: some inflaters refuse a block with none. */
    p->lengths[LITERALS] = p->lengths[LITERALS + 1] = 1;

    p->symbol_count = run_length_symbols(p->lengths, LITERALS + 2, p->symbols, p->extras);
    uint32_t code_length_frequency[CODE_LENGTH_SYMBOLS] = {0};
    for (int i = 0; i < p->symbol_count; i++) code_length_frequency[p->symbols[i]]++;
    /* zlib's inflate refuses an incomplete code-length code: give it two symbols. */
    int used = 0;
    for (int s = 0; s < CODE_LENGTH_SYMBOLS; s++) used += code_length_frequency[s] > 0;
    for (int s = 0; used < 2; s++) {
        if (code_length_frequency[s] == 0) code_length_frequency[s] = 1, used++;
    }
    code_lengths(code_length_frequency, CODE_LENGTH_SYMBOLS, MAX_CODE_LENGTH_BITS, p->code_length_lengths);
    p->sent = CODE_LENGTH_SYMBOLS;
    while (p->sent > 4 && p->code_length_lengths[code_length_order[p->sent - 1]] == 0) p->sent--;

    p->bits = 3 + 5 + 5 + 4 + 3 * (uint64_t)p->sent;
    for (int i = 0; i < p->symbol_count; i++) {
        p->bits += p->code_length_lengths[p->symbols[i]] + extra_bits[p->symbols[i]];
    }
    for (int s = 0; s < LITERALS; s++) p->bits += (uint64_t)p->frequency[s] * p->lengths[s];
}

size_t cpng_huffman_block_size(const uint8_t *raw, size_t raw_size) {
    block_plan p;
    plan_block(raw, raw_size, &p);
    return (size_t)((p.bits + 7) / 8);
}

int cpng_huffman_block(const uint8_t *raw, size_t raw_size, size_t limit, cpng_buffer *out) {
    memset(out, 0, sizeof *out);
    block_plan p;
    plan_block(raw, raw_size, &p);
    size_t size = (size_t)((p.bits + 7) / 8);
    if (size >= limit) return 1;
    const uint8_t *lengths = p.lengths, *code_length_lengths = p.code_length_lengths;
    const uint8_t *symbols = p.symbols, *extras = p.extras;
    int symbol_count = p.symbol_count, sent = p.sent;

    uint16_t codes[LITERALS + 2], code_length_codes[CODE_LENGTH_SYMBOLS];
    canonical_codes(lengths, LITERALS + 2, codes);
    canonical_codes(code_length_lengths, CODE_LENGTH_SYMBOLS, code_length_codes);
    out->data = malloc(size + 8); /* the writer stores whole 32-bit words */
    if (out->data == NULL) return 0;
    out->capacity = size + 8;
    bit_writer w = {.out = out->data};
    put_bits(&w, 1, 1);                         /* last block */
    put_bits(&w, 2, 2);                         /* dynamic Huffman codes */
    put_bits(&w, 0, 5);                         /* 257 literal/length codes */
    put_bits(&w, 1, 5);                         /* 2 distance codes */
    put_bits(&w, (uint32_t)(sent - 4), 4);
    for (int i = 0; i < sent; i++) put_bits(&w, code_length_lengths[code_length_order[i]], 3);
    for (int i = 0; i < symbol_count; i++) {
        put_bits(&w, code_length_codes[symbols[i]], code_length_lengths[symbols[i]]);
        if (extra_bits[symbols[i]] > 0) put_bits(&w, extras[i], extra_bits[symbols[i]]);
    }
    for (size_t i = 0; i < raw_size; i++) put_bits(&w, codes[raw[i]], lengths[raw[i]]);
    put_bits(&w, codes[256], lengths[256]);
    finish_bits(&w);
    out->size = w.at;
    return 1;
}
