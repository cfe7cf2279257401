/* The URL Standard's basic URL parser (§4.4), one function per state (core/whatwg.py).
 *
 * The path is kept serialised ("/a/b"): segments never contain '/', so "shorten" cuts at the
 * last '/'. Input is UTF-8; a non-ASCII code point is never a delimiter, so working on bytes
 * gives the same result as the standard's code points. */
#include <string.h>

#include "urlnorm.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define RUN_BLOCKS 1
#endif

#define END (-1)

typedef enum {
    S_SCHEME_START, S_SCHEME, S_NO_SCHEME, S_SPECIAL_RELATIVE_OR_AUTHORITY,
    S_PATH_OR_AUTHORITY, S_RELATIVE, S_RELATIVE_SLASH, S_SPECIAL_AUTHORITY_SLASHES,
    S_SPECIAL_AUTHORITY_IGNORE_SLASHES, S_AUTHORITY, S_HOST, S_PORT, S_FILE, S_FILE_SLASH,
    S_FILE_HOST, S_PATH_START, S_PATH, S_OPAQUE_PATH, S_QUERY, S_FRAGMENT, S_FAILED,
} state;

typedef struct {
    un_ctx *c;
    const uint8_t *in;
    long n, ptr;
    const un_url *base;
    un_url *url;
    int at_sign_seen, inside_brackets, password_token_seen, err;
    int port_seen, port_digits;
    int escapes; /* the percent rules are applied as the path, query and fragment are written */
    long port_value;
    long mark;      /* where the authority/host buffer starts in the input, or -1 */
    long host_stop; /* in the authority's slice: the first ':', '[' or ']', or -1 */
    long seg_start; /* where the open path segment starts in url->path, or -1 */
    long seg_in;    /* where the open path segment starts in the input */
    int decoded_drive; /* the first segment reads as a drive letter only once its escapes are decoded */
} parser;

static state fail(parser *P, int err) {
    P->err = err;
    return S_FAILED;
}

static state back(parser *P, state s) {
    P->ptr--;
    return s;
}

static int special(const parser *P) { return P->url->special >= 0; }
static int is_slash(const parser *P, int c) { return c == '/' || (c == '\\' && special(P)); }
static int remaining_starts(const parser *P, uint8_t ch) { return P->ptr + 1 < P->n && P->in[P->ptr + 1] == ch; }

static int is_file(const un_url *u) { return u->scheme.len == 4 && memcmp(u->scheme.data, "file", 4) == 0; }

static int same_scheme(const un_url *a, const un_url *b) {
    return a->scheme.len == b->scheme.len && memcmp(a->scheme.data, b->scheme.data, a->scheme.len) == 0;
}

/* Where the states that only accumulate bytes stop (core _RUN_END, _OPAQUE_PATH_END, and
 * the query's '#' and the fragment's end); '\\' ends a run only in special URLs. One table
 * per set, built once by un_whatwg_init, flags each byte: a stop, in the state's
 * percent-encode set, or (in the authority) a byte the host state stops at. */
typedef enum {
    STOP_AUTHORITY_SPECIAL, STOP_AUTHORITY, STOP_HOST_SPECIAL, STOP_HOST, STOP_PATH_SPECIAL,
    STOP_PATH, STOP_OPAQUE_PATH, STOP_FILE_HOST, STOP_QUERY_SPECIAL, STOP_QUERY, STOP_FRAGMENT,
    N_STOPS,
} stop_set;

enum { RUN_STOP = 1, RUN_ENCODE = 2, RUN_HOST_STOP = 4, RUN_PERCENT = 8 };

typedef struct {
    const char *stops, *host_stops;
    uint16_t encode;
} run_kind;

static const run_kind RUNS[N_STOPS] = {
    [STOP_AUTHORITY_SPECIAL] = {"@/?#\\", ":[]", 0},
    [STOP_AUTHORITY] = {"@/?#", ":[]", 0},
    [STOP_HOST_SPECIAL] = {":[]/?#\\", "", 0},
    [STOP_HOST] = {":[]/?#", "", 0},
    [STOP_PATH_SPECIAL] = {"/?#\\", "", UN_PATH},
    [STOP_PATH] = {"/?#", "", UN_PATH},
    [STOP_OPAQUE_PATH] = {"?# ", "", UN_C0_CONTROL},
    [STOP_FILE_HOST] = {"/\\?#", "", 0},
    [STOP_QUERY_SPECIAL] = {"#", "", UN_SPECIAL_QUERY},
    [STOP_QUERY] = {"#", "", UN_QUERY},
    [STOP_FRAGMENT] = {"", "", UN_FRAGMENT},
};
static uint8_t runs[N_STOPS][256];

/* The bytes take_run copies as they are (flagged neither a stop nor to encode, nor '%' where
 * it writes escapes), by set and escapes, as nibble tables; fits: whether each set's do. */
static un_nibbles plain_runs[N_STOPS][2];
static int plain_fits[N_STOPS][2];

/* For take_blocks: each set's stops and the bytes it encodes, as nibble tables (block_fits:
 * whether both fit), and the hex digits and unreserved bytes (escape_fits: whether both do). */
static un_nibbles stop_bytes[N_STOPS], encoded_bytes[N_STOPS], hex_digits, unreserved;
static int block_fits[N_STOPS], escape_fits;

/* For next_flagged: each set's bytes that are neither stops nor host stops ([0]), or not stops
 * ([1]), as nibble tables; fits: whether each does. */
static un_nibbles unflagged[N_STOPS][2];
static int unflagged_fits[N_STOPS][2];

/* The bytes runs[s] flags with none of flags, as nibble tables; 0 if they do not fit. */
static int unflagged_nibbles(stop_set s, uint8_t flags, un_nibbles *t) {
    uint8_t bytes[256];
    for (int b = 0; b < 256; b++) bytes[b] = !(runs[s][b] & flags);
    return un_nibble_tables(bytes, 1, t);
}

void un_whatwg_init(void) {
    for (int s = 0; s < N_STOPS; s++) {
        for (int b = 0; b < 256; b++) runs[s][b] = un_is((uint8_t)b, RUNS[s].encode) ? RUN_ENCODE : 0;
        for (const char *c = RUNS[s].host_stops; *c; c++) runs[s][(uint8_t)*c] = RUN_HOST_STOP;
        for (const char *c = RUNS[s].stops; *c; c++) runs[s][(uint8_t)*c] = RUN_STOP;
        runs[s]['%'] = RUN_PERCENT;
        for (int escapes = 0; escapes < 2; escapes++)
            plain_fits[s][escapes] = unflagged_nibbles(s, RUN_STOP | RUN_ENCODE | (escapes ? RUN_PERCENT : 0), &plain_runs[s][escapes]);
        block_fits[s] = un_nibble_tables(runs[s], RUN_STOP, &stop_bytes[s]) && un_nibble_tables(runs[s], RUN_ENCODE, &encoded_bytes[s]);
        for (int stops_only = 0; stops_only < 2; stops_only++)
            unflagged_fits[s][stops_only] = unflagged_nibbles(s, RUN_STOP | (stops_only ? 0 : RUN_HOST_STOP), &unflagged[s][stops_only]);
    }
    uint8_t escaped[256];
    for (int b = 0; b < 256; b++) escaped[b] = (uint8_t)(un_is((uint8_t)b, UN_HEXDIG) | un_is((uint8_t)b, UN_UNRESERVED) << 1);
    escape_fits = un_nibble_tables(escaped, 1, &hex_digits) && un_nibble_tables(escaped, 2, &unreserved);
}

/* The set of stops a state's run uses: its special URLs' or the others'. */
static stop_set run_set(const parser *P, stop_set special_stop, stop_set other_stop) {
    return special(P) ? special_stop : other_stop;
}

/* The set's plain bytes as nibble tables, where the scan's vectors are in use; else NULL. */
static const un_nibbles *plain_table(const parser *P, stop_set s) {
    int escapes = P->escapes != 0;
    return un_plain_prefixes() && plain_fits[s][escapes] ? &plain_runs[s][escapes] : NULL;
}

/* Whether the open path segment, written up to o, is neither a dot segment (each spelling
 * begins with '.' or '%') nor a file URL's first (a drive letter): a slash after it only
 * closes it, as end_segment would. */
static int plain_segment(const parser *P, const uint8_t *path, const uint8_t *o) {
    const uint8_t *seg = path + P->seg_start + 1;
    if (P->seg_start == 0 && is_file(P->url)) return 0;
    return seg == o || (seg[0] != '.' && seg[0] != '%');
}

/* The set's bytes that end no slice ([0]: neither stops nor host stops; [1]: not stops) as
 * nibble tables, where the scan's vectors are in use; else NULL: next_flagged's unflagged. */
static const un_nibbles *unflagged_table(stop_set s, int stops_only) {
    return un_plain_prefixes() && unflagged_fits[s][stops_only] ? &unflagged[s][stops_only] : NULL;
}

/* The first byte after in[end] that t flags with one of flags, or n; sixteen bytes at a time
 * where unflagged (t's bytes without those flags) is given. Out of line: inlined into the
 * flattened parser, the scan kept its index on the stack, a load and a store a byte. */
__attribute__((noinline)) static long next_flagged(const uint8_t *t, const uint8_t *in, long end, long n, uint8_t flags,
                                                   const un_nibbles *unflagged) {
    ++end;
    /* A messy row's authority ("u%40x@SHOP.EXAMPLE.CO.UK:8080") is some 25 bytes, a byte a step
     * and a mispredicted exit: 5% of its parse. */
    while (unflagged && n - end >= 16) {
        size_t k = un_plain_prefix(unflagged, in + end);
        end += (long)k;
        if (k < 16) return end;
    }
    while (end < n && !(t[in[end]] & flags)) end++;
    return end;
}

#ifdef RUN_BLOCKS
/* ---- a run a block of 64 bytes at a time (AVX-512 with VBMI2, as the scan's vectors) ---------- */

#define BLOCK_TARGET __attribute__((target("avx512bw,avx512vbmi,avx512vbmi2,popcnt")))

/* Each byte's index in the block, for the permutes that read the bytes after it (an index
 * past the block wraps, which only a '%' too near the block's end to begin an escape reads). */
static const uint8_t BYTE_INDEX[64] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
    32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63,
};

/* The bytes of the block (its low and high nibbles) in the class t holds. */
BLOCK_TARGET static inline uint64_t in_class(__m512i lo, __m512i hi, const un_nibbles *t) {
    const __m512i lo_table = _mm512_broadcast_i32x4(_mm_loadu_si128((const void *)t->lo));
    const __m512i hi_table = _mm512_broadcast_i32x4(_mm_loadu_si128((const void *)t->hi));
    return _mm512_test_epi8_mask(_mm512_shuffle_epi8(lo_table, lo), _mm512_shuffle_epi8(hi_table, hi));
}

BLOCK_TARGET static inline __m512i low_nibbles(__m512i v) { return _mm512_and_si512(v, _mm512_set1_epi8(0x0F)); }
BLOCK_TARGET static inline __m512i high_nibbles(__m512i v) { return low_nibbles(_mm512_srli_epi16(v, 4)); }

/* The block's bytes with its escapes (esc: where a '%' and two hex digits begin) as the percent
 * rules write them (un_write_percent): an unreserved byte decoded in the '%''s place, unless it
 * is a hex digit after a stray '%' (after_stray: read from the input's bytes before it, and the
 * field's written ones before the block, which decide alike); every other escape's hex upper
 * case. *dropped: the decoded escapes' hex digits. */
BLOCK_TARGET static __m512i rewrite_block(__m512i v, uint64_t esc, uint64_t after_stray, uint64_t *dropped) {
    /* A hex digit's value is its low nibble, plus nine for a letter ('A' is 0x41, 'a' 0x61). */
    const __m512i lo = low_nibbles(v), nine = _mm512_set1_epi8(9);
    const __m512i value = low_nibbles(_mm512_mask_add_epi8(lo, _mm512_test_epi8_mask(v, _mm512_set1_epi8(0x40)), lo, nine));
    const __m512i one = _mm512_set1_epi8(1), first = _mm512_add_epi8(_mm512_loadu_si512((const void *)BYTE_INDEX), one);
    /* Byte k: the escape at k's byte, from the values of bytes k + 1 and k + 2 (each below 16,
     * so a 16-bit shift moves no bit across bytes). */
    __m512i byte = _mm512_or_si512(_mm512_slli_epi16(_mm512_permutexvar_epi8(first, value), 4),
                                   _mm512_permutexvar_epi8(_mm512_add_epi8(first, one), value));
    const __m512i byte_lo = low_nibbles(byte), byte_hi = high_nibbles(byte);
    uint64_t decoded = esc & in_class(byte_lo, byte_hi, &unreserved) & ~(in_class(byte_lo, byte_hi, &hex_digits) & after_stray);
    uint64_t digits = esc << 1 | esc << 2;
    uint64_t lower = digits & _mm512_test_epi8_mask(v, _mm512_set1_epi8(0x20)) & _mm512_test_epi8_mask(v, _mm512_set1_epi8(0x40));
    *dropped = decoded << 1 | decoded << 2;
    return _mm512_mask_mov_epi8(_mm512_mask_sub_epi8(v, lower, v, _mm512_set1_epi8(0x20)), decoded, byte);
}

/* Where in the block a '%' is after a stray '%' (un_write_percent's after_stray_percent): the
 * byte before it a '%', or the two before a '%' and a hex digit. Before the block, the field's
 * written bytes are read (from o back to path), as the byte-at-a-time writer reads them. */
static uint64_t after_stray(uint64_t pct, uint64_t hex, const uint8_t *field, const uint8_t *o) {
    size_t written = (size_t)(o - field);
    uint64_t pct1 = written >= 1 && o[-1] == '%', pct2 = written >= 2 && o[-2] == '%';
    uint64_t hex1 = written >= 1 && un_is(o[-1], UN_HEXDIG);
    return (pct << 1 | pct1) | ((pct << 2 | pct1 << 1 | pct2) & (hex << 1 | hex1));
}

/* The first slash in the block that closes a segment plain_segment refuses (one whose written
 * form may start as a dot segment: its first byte a '.', a '%' or a byte to encode; or a file
 * URL's first), which the path state must look at; 0 if none. */
static uint64_t refused_slash(const parser *P, const uint8_t *path, const uint8_t *o, uint64_t slash, uint64_t unplain) {
    if (!plain_segment(P, path, o)) return slash & -slash;
    /* A segment opens after each slash, and with the block if the open one is empty. */
    uint64_t risky = (slash << 1 | (path + P->seg_start + 1 == o)) & unplain;
    uint64_t after = slash & ~((risky & -risky) - 1);
    return risky ? after & -after : 0;
}

/* keep's bytes of w, packed, written at o (which has room). */
BLOCK_TARGET static uint8_t *put_packed(uint8_t *o, __m512i w, uint64_t keep) {
    unsigned k = (unsigned)__builtin_popcountll(keep);
    _mm512_mask_storeu_epi8(o, k == 64 ? ~(__mmask64)0 : ((__mmask64)1 << k) - 1, _mm512_maskz_compress_epi8(keep, w));
    return o + k;
}

/* Writes the block's bytes from i in span (but those dropped) at *o, each byte to encode as its
 * escape, and opens a segment at each slash written, as take_run's loop would. */
BLOCK_TARGET static void put_block(parser *P, const uint8_t *path, uint8_t **o, __m512i w, size_t i, uint64_t span, uint64_t dropped,
                                   uint64_t encode, uint64_t slash) {
    uint8_t *at = *o;
    while (span) {
        uint64_t first = encode & span & -(encode & span), before = first ? span & (first - 1) : span;
        uint64_t keep = before & ~dropped, slashes = keep & slash;
        if (slashes) {
            int last = 63 - __builtin_clzll(slashes);
            P->seg_start = (long)(at - path) + __builtin_popcountll(keep & (((uint64_t)1 << last) - 1));
            P->seg_in = (long)i + last + 1;
        }
        if (keep) at = put_packed(at, w, keep);
        for (span &= ~before; span & encode & -span; span &= span - 1) at = un_write_escape(at, P->in[i + (size_t)__builtin_ctzll(span)]);
    }
    *o = at;
}

/* take_run's loop a block of 64 bytes at a time, from in[i]: its plain bytes, escapes, bytes to
 * encode and (in a path) the slashes after plain segments, up to a byte the loop must look at
 * (a stop, a slash after a segment it refuses, a '%' whose escape the block may not hold);
 * where that byte is. A messy row's run breaks at some 26 escapes, slashes and plain runs,
 * each a branch the data decide: a block decides them all at once, with no branch a byte. Out of
 * line: built for instructions take_run is not, it must not be flattened into it (Clang does). */
__attribute__((noinline)) BLOCK_TARGET static size_t take_blocks(parser *P, stop_set s, const uint8_t *field, uint8_t **o, size_t i, int segments) {
    const uint8_t *in = P->in;
    const size_t n = (size_t)P->n;
    while (i < n) {
        const size_t left = n - i;
        const uint64_t loaded = left >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << left) - 1;
        const __m512i v = _mm512_maskz_loadu_epi8(loaded, in + i), lo = low_nibbles(v), hi = high_nibbles(v);
        const uint64_t stop = in_class(lo, hi, &stop_bytes[s]) & loaded, encode = in_class(lo, hi, &encoded_bytes[s]) & loaded;
        const uint64_t pct = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('%'));
        const uint64_t backslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
        const uint64_t slash = segments ? stop & (_mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('/')) | backslash) : 0;
        uint64_t hard = (stop & ~slash) | ~loaded;
        /* A '%' in the last two bytes of a block the URL goes on past: its escape may not fit. */
        if (P->escapes && left > 64) hard |= pct >> 62 << 62;
        if (segments) hard |= refused_slash(P, field, *o, slash, _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('.')) | pct | encode);
        const size_t end = hard ? (size_t)__builtin_ctzll(hard) : 64;
        const uint64_t span = end == 64 ? ~(uint64_t)0 : ((uint64_t)1 << end) - 1;
        __m512i w = v;
        uint64_t dropped = 0;
        if (P->escapes && pct & span) {
            const uint64_t hex = in_class(lo, hi, &hex_digits), esc = pct & hex >> 1 & hex >> 2 & span;
            w = rewrite_block(v, esc, after_stray(pct, hex, field, *o), &dropped);
        }
        w = _mm512_mask_mov_epi8(w, slash & backslash, _mm512_set1_epi8('/'));
        put_block(P, field, o, w, i, span, dropped, encode, slash);
        i += end;
        if (end < 64) break;
    }
    return i;
}

/* Whether take_run's loop goes a block at a time for the set (with P's escapes). */
static int by_blocks(const parser *P, stop_set s) { return un_block_runs() && block_fits[s] && (!P->escapes || escape_fits); }
#endif

/* Consume the current byte (never a stop: the caller checked it) and what follows up to the
 * next stop, percent-encoding the run as it goes (core take_run and percent_encode), and
 * with P->escapes its escapes as the percent rules leave them (un_write_percent). In the
 * path state (segments), a slash after a plain segment is written and the next segment
 * opened here: a return to the path state a segment cost 5–10% of a clean row. Flattened,
 * so that the escape writer from percent.c is inlined too: link-time optimisation alone
 * leaves it a call an escape, some 4% of a messy row's time. Out of line, so that its loop
 * keeps the input, its length and the flags in registers: inlined into the parser, it read
 * all three from the stack a byte (messy rows 3% slower). */
__attribute__((flatten, noinline)) static void take_run(parser *P, stop_set special_stop, stop_set other_stop, un_buf *to, int segments) {
    const stop_set s = run_set(P, special_stop, other_stop);
    const uint8_t *t = runs[s], *in = P->in;
    const un_nibbles *plain = plain_table(P, s);
    const uint8_t act = RUN_STOP | RUN_ENCODE | (P->escapes ? RUN_PERCENT : 0);
    size_t n = (size_t)P->n, i = (size_t)P->ptr;
    uint8_t *o = un_reserve_encoded(to, n - i);
    if (!o) {
        P->ptr = P->n - 1;
        return;
    }
#ifdef RUN_BLOCKS
    const int blocks = by_blocks(P, s);
#endif
    while (i < n) {
#ifdef RUN_BLOCKS
        if (blocks && (i = take_blocks(P, s, to->data, &o, i, segments)) >= n) break;
#endif
        uint8_t b = in[i], flags = t[b] & act;
        /* From a plain byte, sixteen bytes copied at once, kept as far as they are plain: o
         * has room for three bytes an input byte left. Not from a byte to act on: in an
         * escaped run ("%41%42") each escape paid a vector's look for no plain byte. */
        if (!flags && plain && n - i >= 16) {
            /* At least the byte at hand, which t says is plain: the tables hold the same. */
            size_t k = un_plain_prefix(plain, in + i);
            k += k == 0;
            memcpy(o, in + i, 16), o += k, i += k;
        } else if (!flags) {
            *o++ = b, i++;
        } else if (flags & RUN_STOP) {
            if (!segments || (b != '/' && b != '\\') || !plain_segment(P, to->data, o)) break;
            P->seg_start = o - to->data, P->seg_in = (long)i + 1;
            *o++ = '/', i++;
        } else if (flags & RUN_ENCODE) {
            o = un_write_escape(o, b), i++;
        } else {
            i += un_write_percent(&o, to->data, in, n, i);
        }
    }
    to->len = (size_t)(o - to->data);
    P->ptr = (long)i - 1;
}

/* The authority and host states only ever buffer a contiguous run of the input, so their
 * buffer is kept as a slice of it (from mark to the current byte) rather than copied. The
 * current byte is taken whatever it is (the caller decided so). The authority's slice also
 * notes where in it the host state would first stop: until that is found, the scan looks
 * for either kind of byte, and then for stops alone. */
static void extend_slice(parser *P, stop_set special_stop, stop_set other_stop) {
    if (P->mark < 0) P->mark = P->ptr, P->host_stop = -1;
    const stop_set s = run_set(P, special_stop, other_stop);
    const uint8_t *t = runs[s], *in = P->in;
    long end = P->ptr, n = P->n;
    if (P->host_stop < 0 && t[in[end]] & RUN_HOST_STOP) P->host_stop = end;
    if (P->host_stop < 0) {
        end = next_flagged(t, in, end, n, RUN_STOP | RUN_HOST_STOP, unflagged_table(s, 0));
        if (end == n || t[in[end]] & RUN_STOP) {
            P->ptr = end - 1;
            return;
        }
        P->host_stop = end;
    }
    P->ptr = next_flagged(t, in, end, n, RUN_STOP, unflagged_table(s, 1)) - 1;
}

static size_t slice_len(const parser *P) { return P->mark < 0 ? 0 : (size_t)(P->ptr - P->mark); }
static const uint8_t *slice(const parser *P) { return P->mark < 0 ? P->in : P->in + P->mark; }

/* The scheme p[0, n), lower-cased (a scheme taken from a record already is). */
static void set_scheme(un_url *u, const uint8_t *p, size_t n) {
    un_buf_set(&u->scheme, p, n);
    un_lower_ascii(u->scheme.data, u->scheme.len);
    u->has_scheme = 1;
    u->special = un_special_index(u->scheme.data, u->scheme.len);
}

static state start_query(parser *P) {
    P->url->has_query = 1;
    P->url->query.len = 0;
    return S_QUERY;
}

static state start_fragment(parser *P) {
    P->url->has_fragment = 1;
    P->url->fragment.len = 0;
    return S_FRAGMENT;
}

/* The first segment of a serialised list path ("/C:/x" -> "C:"). */
static size_t first_segment(const un_buf *path, const uint8_t **seg) {
    *seg = path->data;
    if (path->len == 0) return 0;
    size_t end = 1;
    while (end < path->len && path->data[end] != '/') end++;
    *seg = path->data + 1;
    return end - 1;
}

/* §4.1 shorten a URL's path: keep a lone normalized drive letter of a file URL. One that
 * decoding its escapes made (P->decoded_drive) is not one: the input had none. */
static void shorten_path(un_url *u, int decoded_drive) {
    const uint8_t *seg;
    size_t n = first_segment(&u->path, &seg);
    if (is_file(u) && n + 1 == u->path.len && un_is_drive_letter(seg, n, 1) && !decoded_drive) return;
    size_t i = u->path.len;
    while (i > 0 && u->path.data[i - 1] != '/') i--;
    u->path.len = i ? i - 1 : 0;
}

UN_COLD static void copy_authority(un_url *u, const un_url *base) {
    un_buf_set(&u->username, base->username.data, base->username.len);
    un_buf_set(&u->password, base->password.data, base->password.len);
    un_buf_set(&u->host, base->host.data, base->host.len);
    u->has_host = base->has_host;
    u->port = base->port;
}

UN_COLD static void copy_path_query(un_url *u, const un_url *base) {
    un_buf_set(&u->path, base->path.data, base->path.len);
    un_buf_set(&u->query, base->query.data, base->query.len);
    u->has_query = base->has_query;
}

/* ---- scheme ---------------------------------------------------------------------------- */

static state after_scheme(parser *P) {
    un_url *u = P->url;
    if (is_file(u)) return S_FILE;
    if (special(P)) {
        if (P->base && same_scheme(P->base, u)) return S_SPECIAL_RELATIVE_OR_AUTHORITY;
        return S_SPECIAL_AUTHORITY_SLASHES;
    }
    if (remaining_starts(P, '/')) {
        P->ptr++;
        return S_PATH_OR_AUTHORITY;
    }
    u->opaque = 1;
    u->path.len = 0;
    return S_OPAQUE_PATH;
}

static state scheme_start(parser *P, int c) {
    if (c != END && un_is((uint8_t)c, UN_ALPHA)) return S_SCHEME;
    return back(P, S_NO_SCHEME);
}

/* The scheme state over its whole run of scheme code points at once: the scheme is the input
 * from its start up to the ':', lower-cased as it is set. */
static state scheme(parser *P, int c) {
    (void)c;
    long end = P->ptr;
    while (end < P->n && un_is(P->in[end], UN_SCHEME_CHAR)) end++;
    if (end == P->n || P->in[end] != ':') {
        P->ptr = -1;
        return S_NO_SCHEME;
    }
    set_scheme(P->url, P->in, (size_t)end);
    P->ptr = end;
    return after_scheme(P);
}

UN_COLD static state no_scheme(parser *P, int c) {
    const un_url *base = P->base;
    if (!base || (base->opaque && c != '#')) return fail(P, UN_ERR_MISSING_SCHEME);
    if (base->opaque) {
        set_scheme(P->url, base->scheme.data, base->scheme.len);
        P->url->opaque = 1;
        copy_path_query(P->url, base);
        return start_fragment(P);
    }
    return back(P, is_file(base) ? S_FILE : S_RELATIVE);
}

/* ---- authority ------------------------------------------------------------------------- */

static state special_relative_or_authority(parser *P, int c) {
    if (c == '/' && remaining_starts(P, '/')) {
        P->ptr++;
        return S_SPECIAL_AUTHORITY_IGNORE_SLASHES;
    }
    return back(P, S_RELATIVE);
}

UN_COLD static state relative(parser *P, int c) {
    const un_url *base = P->base;
    set_scheme(P->url, base->scheme.data, base->scheme.len);
    if (is_slash(P, c)) return S_RELATIVE_SLASH;
    copy_authority(P->url, base);
    copy_path_query(P->url, base);
    if (c == '?') return start_query(P);
    if (c == '#') return start_fragment(P);
    if (c != END) {
        P->url->has_query = 0;
        P->url->query.len = 0;
        shorten_path(P->url, 0);
        return back(P, S_PATH);
    }
    return S_RELATIVE;
}

UN_COLD static state relative_slash(parser *P, int c) {
    if (special(P) && (c == '/' || c == '\\')) return S_SPECIAL_AUTHORITY_IGNORE_SLASHES;
    if (c == '/') return S_AUTHORITY;
    copy_authority(P->url, P->base);
    return back(P, S_PATH);
}

static state special_authority_slashes(parser *P, int c) {
    if (c == '/' && remaining_starts(P, '/')) P->ptr++;
    else P->ptr--;
    return S_SPECIAL_AUTHORITY_IGNORE_SLASHES;
}

/* The slice before an '@' into the username and password: its first ':' splits them, and any
 * after it is encoded into the password. Each side is encoded by one call, not a call a byte. */
static void take_userinfo(parser *P) {
    un_url *u = P->url;
    /* A second '@' is data: it was part of the userinfo. */
    if (P->at_sign_seen) un_buf_puts(P->password_token_seen ? &u->password : &u->username, "%40");
    P->at_sign_seen = 1;
    size_t n = slice_len(P);
    const uint8_t *b = slice(P), *colon = P->password_token_seen ? NULL : memchr(b, ':', n);
    size_t name = colon ? (size_t)(colon - b) : n;
    un_percent_encode(P->password_token_seen ? &u->password : &u->username, b, name, UN_USERINFO);
    if (colon) P->password_token_seen = 1, un_percent_encode(&u->password, colon + 1, n - name - 1, UN_USERINFO);
    P->mark = -1;
}

static int ends_authority(const parser *P, int c) {
    return c == END || c == '/' || c == '?' || c == '#' || (special(P) && c == '\\');
}

static state set_host(parser *P, state next) {
    int err = un_parse_host(P->c, slice(P), slice_len(P), special(P), &P->url->host);
    if (err) return fail(P, err);
    P->url->has_host = 1;
    P->mark = -1;
    return next;
}

static state host(parser *P, int c) {
    if (c == ':' && !P->inside_brackets) {
        if (slice_len(P) == 0) return fail(P, UN_ERR_HOST_MISSING);
        return set_host(P, S_PORT);
    }
    if (ends_authority(P, c)) {
        if (special(P) && slice_len(P) == 0) return fail(P, UN_ERR_HOST_MISSING);
        state next = set_host(P, S_PATH_START);
        return next == S_FAILED ? next : back(P, next);
    }
    if (c == '[' || c == ']') {
        P->inside_brackets = c == '[';
        if (P->mark < 0) P->mark = P->ptr;
    } else {
        extend_slice(P, STOP_HOST_SPECIAL, STOP_HOST);
    }
    return S_HOST;
}

/* The authority has ended: the standard goes back to its start in the host state. Where
 * the host state would only take the slice up to its end or its first ':' (no brackets),
 * the host is decided here instead, as the host state would at that byte. */
static state to_host(parser *P, int c) {
    if (P->mark < 0 || P->host_stop < 0) return host(P, c);
    if (P->in[P->host_stop] == ':') {
        P->ptr = P->host_stop;
        return host(P, ':');
    }
    P->ptr -= (long)slice_len(P) + 1;
    P->mark = -1;
    return S_HOST;
}

static state authority(parser *P, int c) {
    if (c == '@') {
        take_userinfo(P);
        return S_AUTHORITY;
    }
    if (ends_authority(P, c)) {
        if (P->at_sign_seen && slice_len(P) == 0) return fail(P, UN_ERR_HOST_MISSING);
        return to_host(P, c);
    }
    extend_slice(P, STOP_AUTHORITY_SPECIAL, STOP_AUTHORITY);
    return S_AUTHORITY;
}

/* Digits are counted without leading zeros; the range is checked where the port ends, so that
 * a later non-digit still reports port-invalid as the standard's order has it. */
static state port(parser *P, int c) {
    if (c >= '0' && c <= '9') {
        P->port_seen = 1;
        if ((P->port_digits || c != '0') && ++P->port_digits <= 6) P->port_value = P->port_value * 10 + (c - '0');
        return S_PORT;
    }
    if (ends_authority(P, c)) {
        if (P->port_seen) {
            if (P->port_digits > 5 || P->port_value > 65535) return fail(P, UN_ERR_PORT_OUT_OF_RANGE);
            int dflt = special(P) ? un_t.default_port[P->url->special] : -1;
            P->url->port = P->port_value == dflt ? -1 : (int32_t)P->port_value;
        }
        return back(P, S_PATH_START);
    }
    return fail(P, UN_ERR_PORT_INVALID);
}

/* ---- file ------------------------------------------------------------------------------ */

UN_COLD static state file_state(parser *P, int c) {
    un_url *u = P->url;
    set_scheme(u, (const uint8_t *)"file", 4);
    u->host.len = 0;
    u->has_host = 1;
    if (c == '/' || c == '\\') return S_FILE_SLASH;
    const un_url *base = P->base;
    if (!base || !is_file(base)) return back(P, S_PATH);
    un_buf_set(&u->host, base->host.data, base->host.len);
    u->has_host = base->has_host;
    copy_path_query(u, base);
    if (c == '?') return start_query(P);
    if (c == '#') return start_fragment(P);
    if (c != END) {
        u->has_query = 0;
        u->query.len = 0;
        if (un_starts_with_drive_letter(P->in + P->ptr, (size_t)(P->n - P->ptr))) u->path.len = 0;
        else shorten_path(u, 0);
        return back(P, S_PATH);
    }
    return S_FILE;
}

UN_COLD static state file_slash(parser *P, int c) {
    if (c == '/' || c == '\\') return S_FILE_HOST;
    const un_url *base = P->base;
    if (base && is_file(base)) {
        un_buf_set(&P->url->host, base->host.data, base->host.len);
        P->url->has_host = base->has_host;
        const uint8_t *seg;
        size_t n = first_segment(&base->path, &seg);
        if (!un_starts_with_drive_letter(P->in + P->ptr, (size_t)(P->n - P->ptr)) && base->path.len &&
            un_is_drive_letter(seg, n, 1)) {
            un_buf_putc(&P->url->path, '/');
            un_buf_put(&P->url->path, seg, n);
        }
    }
    return back(P, S_PATH);
}

static void open_segment(parser *P) {
    if (P->seg_start >= 0) return;
    P->seg_start = (long)P->url->path.len;
    P->seg_in = P->ptr;
    un_buf_putc(&P->url->path, '/');
}

UN_COLD static state file_host(parser *P, int c) {
    if (c != END && c != '/' && c != '\\' && c != '?' && c != '#') {
        extend_slice(P, STOP_FILE_HOST, STOP_FILE_HOST);
        return S_FILE_HOST;
    }
    const uint8_t *buffer = slice(P);
    size_t len = slice_len(P);
    P->ptr--;
    P->mark = -1;
    un_url *u = P->url;
    if (un_is_drive_letter(buffer, len, 0)) {
        /* The drive-letter quirk: the buffer is kept and becomes the first path segment. */
        open_segment(P);
        P->seg_in = (long)(buffer - P->in);
        un_buf_put(&u->path, buffer, len);
        return S_PATH;
    }
    u->host.len = 0;
    if (len) {
        int err = un_parse_host(P->c, buffer, len, 1, &u->host);
        if (err) return fail(P, err);
        if (u->host.len == 9 && memcmp(u->host.data, "localhost", 9) == 0) u->host.len = 0;
    }
    u->has_host = 1;
    return S_PATH_START;
}

/* ---- path, query, fragment ------------------------------------------------------------- */

static state path_start(parser *P, int c) {
    if (special(P)) return is_slash(P, c) ? S_PATH : back(P, S_PATH);
    if (c == '?') return start_query(P);
    if (c == '#') return start_fragment(P);
    if (c != END) return c == '/' ? S_PATH : back(P, S_PATH);
    return S_PATH_START;
}

/* Close the open segment (written in place), resolving "." and ".." (§4.4 path state). The
 * drive-letter check reads the input's segment: with P->escapes, "%41|" is written "A|", which
 * the URL Standard does not read as a drive letter (the profile writes it as one afterwards,
 * core path.normalize_drive_letter, as the parser would read the href). */
static void end_segment(parser *P, int c) {
    un_url *u = P->url;
    open_segment(P);
    size_t start = (size_t)P->seg_start;
    const uint8_t *seg = u->path.data + start + 1;
    size_t n = u->path.len - start - 1;
    int at_end = !is_slash(P, c);
    if (un_is_double_dot(seg, n)) {
        u->path.len = start;
        shorten_path(u, P->decoded_drive);
        if (at_end) un_buf_putc(&u->path, '/');
    } else if (un_is_single_dot(seg, n)) {
        u->path.len = start;
        if (at_end) un_buf_putc(&u->path, '/');
    } else if (is_file(u) && start == 0 && un_is_drive_letter(seg, n, 0)) {
        P->decoded_drive = P->ptr - P->seg_in != 2;
        if (!P->decoded_drive) u->path.data[start + 2] = ':';
    }
    P->seg_start = -1;
}

/* The path state for each byte up to the query, fragment or end, without returning to the
 * dispatcher between segments (it would only hand the next byte straight back). */
static state path(parser *P, int c) {
    for (;;) {
        if (!(c == END || c == '?' || c == '#' || is_slash(P, c))) {
            open_segment(P);
            take_run(P, STOP_PATH_SPECIAL, STOP_PATH, &P->url->path, 1);
        } else {
            end_segment(P, c);
            if (c == '?') return start_query(P);
            if (c == '#') return start_fragment(P);
            if (c == END) return S_PATH;
        }
        P->ptr++;
        c = P->ptr < P->n ? P->in[P->ptr] : END;
    }
}

UN_COLD static state opaque_path(parser *P, int c) {
    if (c == '?') return start_query(P);
    if (c == '#') return start_fragment(P);
    if (c == ' ' && (remaining_starts(P, '?') || remaining_starts(P, '#'))) {
        /* A space before ? or # would be stripped if they were later removed (§4.4). */
        un_buf_puts(&P->url->path, "%20");
    } else if (c == ' ') {
        un_buf_putc(&P->url->path, ' ');
    } else if (c != END) {
        take_run(P, STOP_OPAQUE_PATH, STOP_OPAQUE_PATH, &P->url->path, 0);
    }
    return S_OPAQUE_PATH;
}

static state query(parser *P, int c) {
    if (c != END && c != '#') {
        take_run(P, STOP_QUERY_SPECIAL, STOP_QUERY, &P->url->query, 0);
        return S_QUERY;
    }
    return c == '#' ? start_fragment(P) : S_QUERY;
}

static state fragment(parser *P, int c) {
    if (c != END) take_run(P, STOP_FRAGMENT, STOP_FRAGMENT, &P->url->fragment, 0);
    return S_FRAGMENT;
}

static state step(parser *P, state s, int c) {
    switch (s) {
    case S_SCHEME_START: return scheme_start(P, c);
    case S_SCHEME: return scheme(P, c);
    case S_NO_SCHEME: return no_scheme(P, c);
    case S_SPECIAL_RELATIVE_OR_AUTHORITY: return special_relative_or_authority(P, c);
    case S_PATH_OR_AUTHORITY: return c == '/' ? S_AUTHORITY : back(P, S_PATH);
    case S_RELATIVE: return relative(P, c);
    case S_RELATIVE_SLASH: return relative_slash(P, c);
    case S_SPECIAL_AUTHORITY_SLASHES: return special_authority_slashes(P, c);
    case S_SPECIAL_AUTHORITY_IGNORE_SLASHES:
        return c == '/' || c == '\\' ? S_SPECIAL_AUTHORITY_IGNORE_SLASHES : back(P, S_AUTHORITY);
    case S_AUTHORITY: return authority(P, c);
    case S_HOST: return host(P, c);
    case S_PORT: return port(P, c);
    case S_FILE: return file_state(P, c);
    case S_FILE_SLASH: return file_slash(P, c);
    case S_FILE_HOST: return file_host(P, c);
    case S_PATH_START: return path_start(P, c);
    case S_PATH: return path(P, c);
    case S_OPAQUE_PATH: return opaque_path(P, c);
    case S_QUERY: return query(P, c);
    case S_FRAGMENT: return fragment(P, c);
    case S_FAILED: break;
    }
    return S_FAILED;
}

size_t un_strip_bounds(const uint8_t *p, size_t n, size_t *start) {
    size_t s = 0;
    while (s < n && p[s] <= 0x20) s++;
    while (n > s && p[n - 1] <= 0x20) n--;
    *start = s;
    return n - s;
}

/* §4.4 steps 1–3: strip leading/trailing C0 control or space, remove tab and newlines.
 * Most rows have none of these: they are parsed where they are, without a copy. */
const uint8_t *un_remove_whitespace(un_buf *out, const uint8_t *p, size_t *n) {
    size_t s;
    *n = un_strip_bounds(p, *n, &s);
    p += s;
    if (!un_has_tab_or_newline(p, *n)) return p;
    out->len = 0;
    if (!un_buf_reserve(out, *n)) return NULL;
    *n = out->len = un_drop_tab_or_newline(out->data, p, *n);
    return out->data;
}

enum { PARSE_TO_HOST = 1, PARSE_ESCAPES = 2, PARSE_NO_PATH = 4, PARSE_NO_QUERY = 8 };

const char *const UN_EXTENT_NAMES[UN_N_EXTENTS] = {
    [UN_EXTENT_WHOLE] = "whole", [UN_EXTENT_AUTHORITY] = "authority", [UN_EXTENT_NO_PATH] = "no_path",
    [UN_EXTENT_NO_QUERY] = "no_query",
};

/* The states from s on, one byte a step, until the input ends or a state at or after last. */
UN_HOT state run_states(parser *P, state s, state last) {
    while (P->ptr <= P->n && s < last) {
        s = step(P, s, P->ptr < P->n ? P->in[P->ptr] : END);
        P->ptr++;
    }
    return s;
}

/* The path left empty: the path states (§4.4 path start, path, opaque path) stop at the first
 * '?' or '#' after the authority and cannot fail, so the query or fragment starts there. */
static state skip_path(parser *P) {
    long i = P->ptr;
    while (i < P->n && P->in[i] != '?' && P->in[i] != '#') i++;
    P->ptr = i + 1;
    if (i == P->n) return S_PATH;
    return P->in[i] == '?' ? start_query(P) : start_fragment(P);
}

/* Flattened: the parse's helpers in other files (the host parser, the percent writers) are
 * inlined into it, which link-time optimisation alone does not do (4% of a clean row). With
 * after, the scan took the scheme and authority: their record is the scan's, and the states
 * run from the path start state on (a clickstream row's scheme and host states were some 10%
 * of it). */
__attribute__((flatten)) static int parse(un_ctx *c, const uint8_t *p, size_t n, const un_url *base, un_url *u, int how, const un_spans *after) {
    if (after) un_url_from_spans(p, after, UN_EXTENT_AUTHORITY, u);
    else un_url_reset(u);
    const uint8_t *in = n ? un_remove_whitespace(&c->input, p, &n) : p;
    if (!in) return UN_ERR_MEMORY;
    parser P = {.c = c, .in = n ? in : (const uint8_t *)"", .n = (long)n, .base = base, .url = u, .mark = -1, .seg_start = -1, .escapes = how & PARSE_ESCAPES};
    if (after) P.ptr = (long)after->parse_from;
    /* The states from S_PATH_START on (S_FAILED aside) cannot fail: they only percent-encode,
     * so a parse for the host stops there, one without the path goes on from its end, and one
     * without the query stops where it starts (the path states end their last segment at the
     * '?' or '#' that ends them). One comparison a step either way. */
    state last = how & (PARSE_TO_HOST | PARSE_NO_PATH) ? S_PATH_START : how & PARSE_NO_QUERY ? S_QUERY : S_FAILED;
    state s = run_states(&P, after ? S_PATH_START : S_SCHEME_START, last);
    if (how & PARSE_NO_PATH && s >= S_PATH_START && s <= S_OPAQUE_PATH) s = skip_path(&P);
    if (how & PARSE_NO_PATH && s != S_FAILED) s = run_states(&P, s, S_FAILED);
    if (s == S_FAILED) return P.err;
    if (how & PARSE_NO_QUERY) u->has_query = u->has_fragment = 0;
    /* The record: an empty username or password is absent (core ParsedURL.to_record). */
    u->has_username = u->username.len > 0;
    u->has_password = u->password.len > 0;
    return un_url_failed(u) ? UN_ERR_MEMORY : UN_OK;
}

int un_whatwg_parse(un_ctx *c, const uint8_t *p, size_t n, const un_url *base, un_url *u) {
    return parse(c, p, n, base, u, 0, NULL);
}

static int extent_flags(int extent) {
    static const int how[UN_N_EXTENTS] = {
        [UN_EXTENT_WHOLE] = 0, [UN_EXTENT_AUTHORITY] = PARSE_TO_HOST,
        [UN_EXTENT_NO_PATH] = PARSE_NO_PATH, [UN_EXTENT_NO_QUERY] = PARSE_NO_QUERY,
    };
    return extent >= 0 && extent < UN_N_EXTENTS ? how[extent] : 0;
}

int un_whatwg_parse_extent(un_ctx *c, const uint8_t *p, size_t n, int extent, un_url *u) {
    return parse(c, p, n, NULL, u, extent_flags(extent), NULL);
}

int un_whatwg_parse_after(un_ctx *c, const uint8_t *p, size_t n, int extent, int escapes, const un_spans *s, un_url *u) {
    return parse(c, p, n, NULL, u, extent_flags(extent) | (escapes ? PARSE_ESCAPES : 0), s);
}

int un_whatwg_parse_escapes(un_ctx *c, const uint8_t *p, size_t n, un_url *u) { return parse(c, p, n, NULL, u, PARSE_ESCAPES, NULL); }
