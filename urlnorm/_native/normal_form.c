/* URLs already in a profile's normal form (core/normal_form.py): one scan that checks a URL
 * and finds its parts, so that it is handed back as it is, and its parts as slices of it,
 * without a parse. The scan accepts only what it can prove the parse and the profile's rules
 * leave as it is; anything else takes the full path. */
#include <stdatomic.h>
#include <string.h>

#include "urlnorm.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NF_VECTORS 1
#endif

const char *const UN_NF_NAMES[UN_N_NF] = {
    [UN_NF_ESCAPES] = "escapes", [UN_NF_NO_QUERY] = "no_query", [UN_NF_NO_FRAGMENT] = "no_fragment",
    [UN_NF_NO_WWW] = "no_www", [UN_NF_NO_PATH_PARAMETERS] = "no_path_parameters",
    [UN_NF_NOT_HTTPS] = "not_https", [UN_NF_NO_TRAILING_SLASH] = "no_trailing_slash", [UN_NF_AS_WRITTEN] = "as_written",
    [UN_NF_REWRITE_ESCAPES] = "rewrite_escapes", [UN_NF_DOT_SEGMENTS] = "dot_segments",
};

/* The bytes each part takes as they are, derived from the URL Standard's encode sets
 * (un_t, filled from urlnorm.core): printable ASCII outside the part's set, less the
 * delimiters the scan stops at. A host takes lower-case unreserved bytes (RFC 3986 §2.3):
 * no case to fold, nothing to decode, no forbidden domain code point (URL Standard §3.2). */
enum { NF_HOST = 1, NF_PATH = 2, NF_QUERY = 4, NF_FRAGMENT = 8, NF_HOST_ANY_CASE = 16, NF_SLASH = 32 };
static uint8_t nf[256];

static int printable(int b) { return b > 0x20 && b < 0x7F; }

/* The scan classifies the URL a block of 64 bytes at a time: a bit a byte for each part's
 * plain bytes, for '/' and for a '.' after it, so that where a part's plain run ends is a
 * count of trailing zeros, however often escapes and slashes break it. A run finder called
 * anew at each of them (its tables loaded, its short tail) cost more than the bytes it
 * passed: some 50 ns of a clean 55-byte URL. A path's '/' is plain in its set: the path stops
 * only at one a '.' follows. */
enum { SET_HOST, SET_HOST_ANY_CASE, SET_PATH, SET_QUERY, SET_FRAGMENT, N_SETS };
static const uint8_t SET_FLAGS[N_SETS] = {NF_HOST, NF_HOST_ANY_CASE, NF_PATH | NF_SLASH, NF_QUERY, NF_FRAGMENT};
enum { HOST_SETS = 1u << SET_HOST | 1u << SET_HOST_ANY_CASE, ALL_SETS = (1u << N_SETS) - 1 };

/* A scan that stops at the authority (scheme, host, the host's parts, netloc) classifies only
 * the host's sets, and from blocks of 32 bytes (HOST_SPAN), which nearly every host ends in,
 * where the vectors are narrower than a block: those functions took 3-6% less time. */
enum { BLOCK = 64, HOST_SPAN = 32 };

typedef struct scan scan;
typedef void (*classify_fn)(scan *sc, size_t i);

/* The block p[base, base + span) of the URL p[0, n), classified: bit k of stop[set] is set
 * where byte base + k is not plain in the set (every byte past n is not), of slash where it is
 * '/', of dot where it is '.', and of dot_after where byte base + k + 1 is; no bit from span on
 * is set. A scan to the authority classifies the host's sets alone (HOST_SETS). Without a
 * classifier (the scalar scan), runs are found a byte at a time and there are no blocks. */
struct scan {
    const uint8_t *p;
    size_t n, base, span;
    classify_fn classify;
    uint64_t stop[N_SETS], slash, dot, dot_after;
    int rewrite; /* an escape the percent pair rewrites was taken (UN_NF_REWRITE_ESCAPES) */
    int dots;    /* a dot segment was taken (UN_NF_DOT_SEGMENTS) */
    int non_ascii; /* a host refused for its labels stopped at a byte that is not ASCII */
};

static un_nibbles tables[N_SETS];

/* The special indexes of the schemes nearly every URL has, looked for first. */
static int http_index = -1, https_index = -1, file_index = -1;

#ifdef NF_VECTORS
/* The block from p[i] on into sc's masks (but dot_after, which load_block derives); bytes
 * past the URL's end are stops. Only for a URL too short for the narrowest vector: sixty-four
 * bytes one at a time cost more than finding the runs a byte at a time. */
static void classify_bytes(scan *sc, size_t i) {
    memset(sc->stop, 0, sizeof sc->stop);
    sc->slash = sc->dot = 0;
    for (size_t k = 0; k < sc->span; k++) {
        uint8_t b = i + k < sc->n ? sc->p[i + k] : 0;
        for (int set = 0; set < N_SETS; set++) sc->stop[set] |= (uint64_t)!(nf[b] & SET_FLAGS[set]) << k;
        sc->slash |= (uint64_t)(b == '/') << k;
        sc->dot |= (uint64_t)(b == '.') << k;
    }
}

/* The same, WIDTH bytes a step: each byte's class in a set is two table lookups by its
 * nibbles (PSHUFB). A step the URL ends in reads the WIDTH bytes that end with it and shifts
 * its masks: copying the tail to a padded buffer instead cost more than the rest of the scan
 * (a load from bytes just stored piecemeal waits for the stores). A URL shorter than WIDTH
 * goes to NEXT (NEXT_HOST for a host's block). One body, built for SSSE3 and for AVX2, each for
 * every set of a block (NAME) and for a host's (NAME##_host): the sets and span constant, so
 * that the steps unroll. un_normal_form_init picks what the CPU has. */
#define CLASSIFY(NAME, TARGET, NEXT, NEXT_HOST, VEC, WIDTH, LOAD, TABLE, SET1, AND, SHUFFLE, SHIFT, EQ, MASK) \
    TARGET static inline __attribute__((always_inline)) void NAME##_sets(scan *sc, size_t i, unsigned sets,     \
                                                                       size_t span) {                       \
        const VEC nibble = SET1(0x0F), zero = SET1(0), slash = SET1('/'), dot = SET1('.');                 \
        const uint64_t lane = ((uint64_t)1 << WIDTH) - 1;                                                   \
        memset(sc->stop, 0, sizeof sc->stop);                                                               \
        sc->slash = sc->dot = 0;                                                                            \
        for (size_t at = 0; at < span; at += WIDTH) {                                                       \
            size_t start = i + at, shift = 0;                                                               \
            if (start >= sc->n) {                                                                           \
                for (int set = 0; set < N_SETS; set++) sc->stop[set] |= lane << at;                         \
                continue;                                                                                   \
            }                                                                                               \
            if (sc->n - start < WIDTH) shift = WIDTH - (sc->n - start), start = sc->n - WIDTH;              \
            VEC v = LOAD((const void *)(sc->p + start)), lo = AND(v, nibble), hi = AND(SHIFT(v, 4), nibble); \
            uint64_t past = lane >> (WIDTH - shift) << (WIDTH - shift) & lane;                              \
            for (int set = 0; set < N_SETS; set++) {                                                        \
                if (!(sets >> set & 1)) continue;                                                           \
                VEC plain = AND(SHUFFLE(TABLE(tables[set].lo), lo), SHUFFLE(TABLE(tables[set].hi), hi));     \
                sc->stop[set] |= ((uint64_t)(uint32_t)MASK(EQ(plain, zero)) >> shift | past) << at;         \
            }                                                                                               \
            if (sets >> SET_PATH & 1) sc->slash |= ((uint64_t)(uint32_t)MASK(EQ(v, slash)) >> shift) << at; \
            sc->dot |= ((uint64_t)(uint32_t)MASK(EQ(v, dot)) >> shift) << at;                               \
        }                                                                                                   \
    }                                                                                                       \
    TARGET static void NAME(scan *sc, size_t i) {                                                           \
        if (sc->n < WIDTH) NEXT(sc, i);                                                                     \
        else NAME##_sets(sc, i, ALL_SETS, BLOCK);                                                           \
    }                                                                                                       \
    TARGET static void NAME##_host(scan *sc, size_t i) {                                                    \
        if (sc->n < WIDTH) NEXT_HOST(sc, i);                                                                \
        else NAME##_sets(sc, i, HOST_SETS, HOST_SPAN);                                                      \
    }

#define TABLE_128(t) _mm_loadu_si128((const void *)(t))
#define TABLE_256(t) _mm256_broadcastsi128_si256(_mm_loadu_si128((const void *)(t)))
CLASSIFY(classify_ssse3, __attribute__((target("ssse3"))), classify_bytes, classify_bytes, __m128i, 16, _mm_loadu_si128, TABLE_128,
         _mm_set1_epi8, _mm_and_si128, _mm_shuffle_epi8, _mm_srli_epi16, _mm_cmpeq_epi8, _mm_movemask_epi8)
CLASSIFY(classify_avx2, __attribute__((target("avx2"))), classify_ssse3, classify_ssse3_host, __m256i, 32, _mm256_loadu_si256, TABLE_256,
         _mm256_set1_epi8, _mm256_and_si256, _mm256_shuffle_epi8, _mm256_srli_epi16, _mm256_cmpeq_epi8,
         _mm256_movemask_epi8)

/* The same with AVX-512: the block in one step, its tail read by a masked load (which reads
 * nothing past the URL's end), each set's plain bytes a mask with no compare. Built for every
 * set and for a host's, whose block is 64 bytes all the same (one step either way). */
__attribute__((target("avx512bw"))) static inline __attribute__((always_inline)) void
classify_avx512_sets(scan *sc, size_t i, unsigned sets) {
    size_t left = sc->n - i;
    __mmask64 in = left >= BLOCK ? ~(__mmask64)0 : ((__mmask64)1 << left) - 1;
    const __m512i nibble = _mm512_set1_epi8(0x0F), v = _mm512_maskz_loadu_epi8(in, sc->p + i);
    const __m512i lo = _mm512_and_si512(v, nibble), hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), nibble);
    for (int set = 0; set < N_SETS; set++) {
        if (!(sets >> set & 1)) continue;
        __m512i lo_table = _mm512_broadcast_i32x4(_mm_loadu_si128((const void *)tables[set].lo));
        __m512i hi_table = _mm512_broadcast_i32x4(_mm_loadu_si128((const void *)tables[set].hi));
        sc->stop[set] = ~(uint64_t)_mm512_test_epi8_mask(_mm512_shuffle_epi8(lo_table, lo), _mm512_shuffle_epi8(hi_table, hi));
    }
    if (sets >> SET_PATH & 1) sc->slash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('/'));
    sc->dot = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('.'));
}
__attribute__((target("avx512bw"))) static void classify_avx512(scan *sc, size_t i) { classify_avx512_sets(sc, i, ALL_SETS); }
__attribute__((target("avx512bw"))) static void classify_avx512_host(scan *sc, size_t i) {
    classify_avx512_sets(sc, i, HOST_SETS);
}

/* How many of the 16 bytes at p are plain in t (16 if all are). */
__attribute__((target("ssse3"))) static size_t plain_prefix_ssse3(const un_nibbles *t, const uint8_t *p) {
    const __m128i nibble = _mm_set1_epi8(0x0F), v = _mm_loadu_si128((const void *)p);
    const __m128i lo = _mm_and_si128(v, nibble), hi = _mm_and_si128(_mm_srli_epi16(v, 4), nibble);
    __m128i plain = _mm_and_si128(_mm_shuffle_epi8(TABLE_128(t->lo), lo), _mm_shuffle_epi8(TABLE_128(t->hi), hi));
    return (size_t)__builtin_ctz((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(plain, _mm_setzero_si128())) | 0x10000u);
}
#endif

size_t un_plain_prefix(const un_nibbles *t, const uint8_t *p) {
#ifdef NF_VECTORS
    return plain_prefix_ssse3(t, p);
#else
    (void)t, (void)p;
    return 0;
#endif
}

/* The classifiers in use (every set's, and a host's alone), none for the scalar scan, and the
 * span of a host's block. Atomic: a test may pick others between batches while the kernel's
 * threads wait. */
static _Atomic(classify_fn) classify, classify_host;
static _Atomic(size_t) host_span = HOST_SPAN;
static int scan_kind = -1, vectors; /* vectors: every set's tables fit the nibble lookups */
static int block_runs; /* un_block_runs: set with the scan, as a parse asks it a run */

const char *const UN_SCAN_NAMES[UN_N_SCANS] = {
    [UN_SCAN_SCALAR] = "scalar", [UN_SCAN_SSSE3] = "ssse3", [UN_SCAN_AVX2] = "avx2", [UN_SCAN_AVX512] = "avx512",
};

/* The kind's classifiers (*f, and *host for a host's block) if this CPU has them (NULL for the
 * scalar scan, which it always has). */
static int classifier(int kind, classify_fn *f, classify_fn *host) {
    *f = *host = NULL;
#ifdef NF_VECTORS
    if (kind == UN_SCAN_SSSE3 && vectors && __builtin_cpu_supports("ssse3")) *f = classify_ssse3, *host = classify_ssse3_host;
    if (kind == UN_SCAN_AVX2 && vectors && __builtin_cpu_supports("avx2")) *f = classify_avx2, *host = classify_avx2_host;
    if (kind == UN_SCAN_AVX512 && vectors && __builtin_cpu_supports("avx512bw")) *f = classify_avx512, *host = classify_avx512_host;
#endif
    return kind == UN_SCAN_SCALAR || *f != NULL;
}

int un_normal_form_use(int kind) {
    classify_fn f, host;
    if (kind < 0 || kind >= UN_N_SCANS || !classifier(kind, &f, &host)) return 0;
    atomic_store_explicit(&classify, f, memory_order_relaxed), scan_kind = kind;
    atomic_store_explicit(&classify_host, host, memory_order_relaxed);
    atomic_store_explicit(&host_span, kind == UN_SCAN_AVX512 ? (size_t)BLOCK : (size_t)HOST_SPAN, memory_order_relaxed);
#ifdef NF_VECTORS
    block_runs = kind == UN_SCAN_AVX512 && __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vbmi2");
#endif
    return 1;
}

int un_normal_form_scan(void) { return scan_kind; }

int un_plain_prefixes(void) { return scan_kind > UN_SCAN_SCALAR; }

int un_block_runs(void) { return block_runs; }

/* The block from p[i] on into sc (none for the scalar scan). */
static void load_block(scan *sc, size_t i) {
    if (!sc->classify) return;
    sc->base = i;
    sc->classify(sc, i);
    sc->dot_after = sc->dot >> 1 | (uint64_t)(i + sc->span < sc->n && sc->p[i + sc->span] == '.') << (sc->span - 1);
}

/* The first byte from p[i] on that is not plain in set (in a path, or a '/' a '.' follows), or n. */
static size_t next_stop(scan *sc, int set, size_t i) {
    if (!sc->classify) {
        const uint8_t *p = sc->p;
        while (i < sc->n && nf[p[i]] & SET_FLAGS[set] && !(set == SET_PATH && p[i] == '/' && i + 1 < sc->n && p[i + 1] == '.')) i++;
        return i;
    }
    for (; i < sc->n; i = sc->base + sc->span) {
        if (i - sc->base >= sc->span) load_block(sc, i);
        uint64_t stops = sc->stop[set] | (set == SET_PATH ? sc->slash & sc->dot_after : 0);
        stops >>= i - sc->base;
        if (stops) return i + (size_t)__builtin_ctzll(stops);
    }
    return sc->n;
}

/* Each distinct pattern of plain low nibbles a high nibble has takes a bit. */
int un_nibble_tables(const uint8_t classes[256], uint8_t flag, un_nibbles *t) {
    uint16_t patterns[8];
    int n_patterns = 0;
    memset(t, 0, sizeof *t);
    for (int h = 0; h < 16; h++) {
        uint16_t lows = 0;
        for (int l = 0; l < 16; l++)
            if (classes[h << 4 | l] & flag) lows |= (uint16_t)(1u << l);
        int k = 0;
        while (k < n_patterns && patterns[k] != lows) k++;
        if (lows && k == n_patterns && n_patterns == 8) return 0;
        if (lows && k == n_patterns) patterns[n_patterns++] = lows;
        if (lows) t->hi[h] |= (uint8_t)(1u << k);
    }
    for (int k = 0; k < n_patterns; k++)
        for (int l = 0; l < 16; l++)
            if (patterns[k] >> l & 1) t->lo[l] |= (uint8_t)(1u << k);
    return 1;
}

/* Each set's tables, and the classifier chosen before if it still serves, else the widest
 * this CPU has (the scalar one where a set's tables cannot hold it). */
static void init_classify(void) {
    vectors = 1;
    for (int set = 0; set < N_SETS; set++) vectors &= un_nibble_tables(nf, SET_FLAGS[set], &tables[set]);
    http_index = un_special_index((const uint8_t *)"http", 4), https_index = un_special_index((const uint8_t *)"https", 5);
    file_index = un_special_index((const uint8_t *)"file", 4);
    if (scan_kind >= 0 && un_normal_form_use(scan_kind)) return;
    for (int kind = UN_N_SCANS - 1; !un_normal_form_use(kind); kind--) continue;
}

void un_normal_form_init(void) {
    for (int b = 0; b < 256; b++) {
        uint8_t c = (uint8_t)b, flags = 0;
        if (un_is(c, UN_UNRESERVED)) flags |= NF_HOST_ANY_CASE;
        if (un_is(c, UN_UNRESERVED) && !(b >= 'A' && b <= 'Z')) flags |= NF_HOST;
        if (printable(b) && !un_is(c, UN_PATH) && !strchr("/\\%", b)) flags |= NF_PATH;
        if (printable(b) && !un_is(c, UN_SPECIAL_QUERY) && b != '%' && b != '#') flags |= NF_QUERY;
        if (printable(b) && !un_is(c, UN_FRAGMENT) && b != '%') flags |= NF_FRAGMENT;
        if (b == '/') flags |= NF_SLASH;
        nf[b] = flags;
    }
    init_classify();
}

/* The length of a special scheme before "://", in lower case (or, where any_case, in ASCII
 * letters of either case: *folded is then set if one is upper case); 0 otherwise. */
static size_t scheme_len(const uint8_t *p, size_t n, int *special, int any_case, int *folded) {
    if (n >= 8 && https_index >= 0 && http_index >= 0 && file_index >= 0) {
        /* Eight bytes at once, the scheme's letters folded (in no other position does folding
         * one bit leave only the two cases of one letter). */
        static const uint8_t HTTPS[] = "https://", HTTP[] = "http://", FILE_[] = "file://", CASE5[8] = {32, 32, 32, 32, 32},
                             CASE4[8] = {32, 32, 32, 32}, FIRST7[8] = {255, 255, 255, 255, 255, 255, 255};
        uint64_t w, https, http, file, case5, case4, first7;
        memcpy(&w, p, 8), memcpy(&https, HTTPS, 8), memcpy(&http, HTTP, 8), memcpy(&file, FILE_, 8);
        memcpy(&case5, CASE5, 8), memcpy(&case4, CASE4, 8), memcpy(&first7, FIRST7, 8);
        uint64_t four = (w & first7) | case4;
        int is_https = (w | case5) == https, is_http = four == http, is_file = four == file;
        int respelt = is_https ? w != https : (is_http || is_file) && (w & first7) != four;
        if ((is_https || is_http || is_file) && respelt && !any_case) return 0;
        *folded |= respelt;
        if (is_https) return *special = https_index, 5;
        if (is_http || is_file) return *special = is_http ? http_index : file_index, 4;
    }
    uint8_t lower[UN_SCHEME_LEN];
    size_t i = 0;
    for (; i < n && i < UN_SCHEME_LEN && p[i] != ':'; i++) {
        lower[i] = any_case ? un_ascii_lower(p[i]) : p[i];
        *folded |= lower[i] != p[i];
    }
    if (i + 3 > n || p[i] != ':' || p[i + 1] != '/' || p[i + 2] != '/') return 0;
    *special = un_special_index(lower, i);
    return *special >= 0 ? i : 0;
}

/* Where the last label of p[i, j) starts: after its last '.', or at i. */
static size_t last_label(const scan *sc, size_t i, size_t j) {
    if (i >= j) return i;
    if (!sc->classify || i < sc->base || j - sc->base > sc->span) {
        while (j > i && sc->p[j - 1] != '.') j--;
        return j;
    }
    uint64_t before_j = j - sc->base == BLOCK ? ~(uint64_t)0 : ((uint64_t)1 << (j - sc->base)) - 1;
    uint64_t dots = sc->dot & before_j & ~(((uint64_t)1 << (i - sc->base)) - 1);
    return dots ? sc->base + (size_t)(BLOCK - __builtin_clzll(dots)) : i;
}

/* The end of a domain host starting at p[i]: lower-case unreserved bytes (or, where any_case,
 * unreserved bytes: *folded is then set if one is upper case), not ending in '.', whose last
 * label starts with a letter, so that it cannot end in a number (URL Standard §3.5: such a
 * host parses as IPv4). i if there is none, or if it is empty. */
static size_t host_end(scan *sc, size_t i, int any_case, int *folded) {
    const uint8_t *p = sc->p;
    size_t j = next_stop(sc, SET_HOST, i);
    /* Most hosts are lower case: the wider set runs on only from an upper-case letter. */
    if (any_case && j < sc->n && p[j] >= 'A' && p[j] <= 'Z') {
        *folded = 1;
        j = next_stop(sc, SET_HOST_ANY_CASE, j);
    }
    size_t last = last_label(sc, i, j);
    if (j != i && last != j && un_is(p[last], UN_ALPHA)) return j;
    /* A host refused for its labels may yet go on past them ("example.рф", "www.例え.jp"). */
    sc->non_ascii = j < sc->n && p[j] >= 0x80;
    return i;
}

/* The port after a ':' (URL Standard §4.4 port state), from p[*end]: its value, or -1 for a
 * default or empty one; *end past it. As its serialisation writes it (digits without a
 * leading zero, not the default), or, where any_case, as the parse takes it (*respelt is then
 * set if it is not so written). -2 if the scan cannot take it (out of range, too long). */
static int32_t port_at(const uint8_t *p, size_t n, size_t *end, int special, int any_case, int *respelt) {
    size_t start = *end, i = start;
    int32_t value = 0;
    for (; i < n && i - start < 16 && p[i] >= '0' && p[i] <= '9' && value <= 65535; i++) value = value * 10 + (p[i] - '0');
    if (value > 65535 || (i < n && p[i] >= '0' && p[i] <= '9')) return -2;
    int empty = i == start, is_default = !empty && value == un_t.default_port[special];
    int written = !empty && !is_default && (p[start] != '0' || i - start == 1);
    if (!written && !any_case) return -2;
    *respelt |= !written;
    *end = i;
    return empty || is_default ? -1 : value;
}

/* How far the '%' at p[i] takes the scan (three bytes for an escape, one for a stray '%'
 * that the parser keeps), or 0 where the scan cannot tell the answer unchanged: an escape
 * the percent rules would change (lower-case hex, an unreserved byte, RFC 3986 §6.2.2), a
 * stray '%' the rules would join to what follows, or in a path an escaped '.' that may
 * spell a dot segment (URL Standard §4.4 path state). With UN_NF_REWRITE_ESCAPES an escape
 * the pair would change is taken, and noted: with no stray '%' beside it, the pair rewrites
 * it the same in the text as in each field. */
static size_t escape_len(scan *sc, size_t i, unsigned req, int path) {
    const uint8_t *p = sc->p;
    int byte = un_escaped_byte(p, sc->n, i);
    if (byte < 0) return req & 1u << UN_NF_ESCAPES ? 0 : 1;
    if (path && byte == '.') return 0;
    if (!(req & 1u << UN_NF_ESCAPES)) return 3;
    int lower = (p[i + 1] >= 'a' && p[i + 1] <= 'f') || (p[i + 2] >= 'a' && p[i + 2] <= 'f');
    if (!lower && !un_is((uint8_t)byte, UN_UNRESERVED)) return 3;
    if (!(req & 1u << UN_NF_REWRITE_ESCAPES)) return 0;
    sc->rewrite = 1;
    return 3;
}

/* Whether a dot segment ("." or "..") follows the '/' at p[i]: the parser removes it. */
static int dot_segment_after(const uint8_t *p, size_t n, size_t i) {
    if (i + 1 >= n || p[i + 1] != '.') return 0;
    size_t end = i + 2 + (i + 2 < n && p[i + 2] == '.');
    return end == n || p[end] == '/' || p[end] == '?' || p[end] == '#';
}

/* How far the '/' before a dot segment takes the scan: past it, noted, where the
 * requirements leave it to take dot segments (UN_NF_DOT_SEGMENTS); else 0. */
static size_t dot_segment_step(scan *sc, unsigned req) {
    if (!(req & 1u << UN_NF_DOT_SEGMENTS)) return 0;
    sc->dots = 1;
    return 1;
}

/* The end of a part from p[i] on: the bytes flag marks, checked escapes and, in a path,
 * slashes before segments that are not dot segments (or, with UN_NF_DOT_SEGMENTS, any
 * segment: noted), up to the part's end ('?' or '#' for a path, '#' for a query, the input's
 * end); 0 at a byte the parse or the rules would change. */
static size_t part_end(scan *sc, size_t i, unsigned req, int set) {
    const uint8_t *p = sc->p;
    size_t n = sc->n;
    int path = set == SET_PATH;
    while ((i = next_stop(sc, set, i)) < n) {
        uint8_t c = p[i];
        size_t step = 0;
        if (c == '%') step = escape_len(sc, i, req, path);
        else if (c == '/' && path) step = dot_segment_after(p, n, i) ? dot_segment_step(sc, req) : 1;
        else if (c == '#' || (c == '?' && path)) break;
        if (!step) return 0;
        i += step;
    }
    return i;
}

/* Where the path from p[i] ends: at its first '?' or '#', or n. Read from the path's stops in
 * the block's masks: two calls of memchr for them (as split.c's path_stop) cost `fragment` 3%
 * of a clean row. */
static size_t path_stop(scan *sc, size_t i) {
    while ((i = next_stop(sc, SET_PATH, i)) < sc->n && sc->p[i] != '?' && sc->p[i] != '#') i++;
    return i;
}

/* The crawl rules' requirements on the parts found (core crawl.py): what each rule would
 * change is absent. */
static int meets_crawl_rules(const uint8_t *p, const un_spans *s, unsigned req) {
    const uint8_t *host = p + s->host_start, *path = p + s->path_start;
    if (req & 1u << UN_NF_NO_QUERY && s->has_query) return 0;
    if (req & 1u << UN_NF_NO_FRAGMENT && s->has_fragment) return 0;
    if (req & 1u << UN_NF_NO_WWW && s->host_len >= 3 && memcmp(host, "www", 3) == 0) return 0;
    if (req & 1u << UN_NF_NOT_HTTPS && s->scheme_len == 5 && memcmp(p, "https", 5) == 0) return 0;
    /* Removing dot segments can leave a trailing slash ("/a/b/.." is "/a/"). */
    if (req & 1u << UN_NF_NO_TRAILING_SLASH && ((s->path_len > 1 && path[s->path_len - 1] == '/') || s->remove_dots)) return 0;
    if (req & 1u << UN_NF_NO_PATH_PARAMETERS && (memchr(path, ';', s->path_len) || memchr(path, '(', s->path_len))) return 0;
    return 1;
}

/* The query and fragment after the path's end at p[i], into s; 0 if either would change. */
static int query_and_fragment(scan *sc, size_t i, unsigned req, un_spans *s) {
    const uint8_t *p = sc->p;
    size_t n = sc->n;
    s->has_query = i < n && p[i] == '?';
    s->query_start = i + s->has_query;
    size_t end = s->has_query ? part_end(sc, s->query_start, req, SET_QUERY) : i;
    if (end == 0) return 0;
    s->query_len = end - s->query_start;
    s->has_fragment = end < n;
    s->fragment_start = end + 1;
    if (s->has_fragment && part_end(sc, s->fragment_start, req, SET_FRAGMENT) != n) return 0;
    s->fragment_len = s->has_fragment ? n - s->fragment_start : 0;
    return 1;
}

/* Whether a file URL's host is "localhost", which the parser makes empty (URL Standard §4.4
 * file host state). */
static int is_localhost(const uint8_t *p, const un_spans *s) {
    return s->host_len == 9 && un_ascii_ieq(p + s->host_start, "localhost", 9);
}

/* A file URL's host and path as the parser leaves them (URL Standard §4.4 file host and path
 * states): not "localhost", and a path whose first segment does not start as a Windows drive
 * letter does (which moves into the path, or has its '|' replaced). */
static int file_as_is(const uint8_t *p, size_t n, const un_spans *s) {
    size_t at = s->path_start;
    return !is_localhost(p, s) && (at + 2 >= n || (p[at + 2] != ':' && p[at + 2] != '|'));
}

/* The scheme and authority into s: where the authority ends, or 0 if either would change
 * (where any_case, but for their case and the port's spelling). */
static size_t authority(scan *sc, un_spans *s, int any_case, int *file) {
    const uint8_t *p = sc->p;
    size_t n = sc->n;
    int respelt = 0;
    size_t at = scheme_len(p, n, &s->special, any_case, &respelt);
    if (at == 0) return 0;
    *file = un_t.default_port[s->special] < 0;
    s->scheme_len = at;
    s->host_start = at + 3;
    load_block(sc, s->host_start);
    at = host_end(sc, s->host_start, any_case, &respelt);
    s->non_ascii_host = any_case && (at == s->host_start ? sc->non_ascii : at < n && p[at] >= 0x80);
    if (at == s->host_start && !*file) return 0;
    s->host_len = at - s->host_start;
    s->port = -1;
    if (at < n && p[at] == ':' && (*file || (at++, s->port = port_at(p, n, &at, s->special, any_case, &respelt)) < -1)) return 0;
    s->as_written = !respelt;
    return at;
}

/* A scan of p[0, n) from base: a host's alone (host_only) or every part's. Its masks are left
 * unwritten: a block is loaded before any is read, and zeroing the struct cost a string store
 * (rep stos) of some 30 cycles, 10 ns a URL. */
static void scan_start(scan *sc, const uint8_t *p, size_t n, size_t base, int host_only) {
    sc->p = p, sc->n = n, sc->base = base, sc->rewrite = sc->dots = 0;
    sc->classify = atomic_load_explicit(host_only ? &classify_host : &classify, memory_order_relaxed);
    sc->span = host_only ? atomic_load_explicit(&host_span, memory_order_relaxed) : BLOCK;
}

int un_normal_form(const uint8_t *p, size_t n, unsigned req, int extent, un_spans *s) {
    /* A scan to a shorter extent sets no query or fragment: none, for a cut of the href that
     * finds where they would be (un_url_part_cut's netloc) rather than reading a previous
     * row's. */
    s->parse_from = 0, s->rewrite_escapes = s->remove_dots = s->non_ascii_host = 0, s->has_query = s->has_fragment = 0;
    if (req & 1u << UN_NF_NEVER) return 0;
    int file = 0;
    /* Taking dot segments asks for nothing past the path (the kernel's parts that read it);
     * any other requirement reads the whole URL. */
    if (req & ~(1u << UN_NF_DOT_SEGMENTS)) extent = UN_EXTENT_WHOLE;
    scan sc;
    scan_start(&sc, p, n, 0, extent == UN_EXTENT_AUTHORITY);
    /* The crawl rules read the host and port as written, and the generic split folds nothing:
     * only the others take a respelt one. */
    size_t at = authority(&sc, s, !(req & ~(1u << UN_NF_ESCAPES | 1u << UN_NF_REWRITE_ESCAPES | 1u << UN_NF_DOT_SEGMENTS)), &file);
    if (at == 0) return 0;
    s->authority_end = at;
    /* Nothing after the port can fail (URL Standard §4.4: the path, query and fragment states
     * only encode), so a parse that stops before the path needs the authority alone, and one
     * that skips the path needs only where it ends. */
    int ends = at == n || p[at] == '/' || p[at] == '?' || p[at] == '#';
    /* The parse's record to here is the scan's (a file URL's host state differs): where what
     * follows fails the scan, the parse goes on from the path start state. */
    if (!file && (ends || p[at] == '\\')) s->parse_from = at;
    if (file && extent == UN_EXTENT_NO_QUERY) extent = UN_EXTENT_WHOLE;
    /* A file URL's path changes nothing before it (URL Standard §4.4 path state: a Windows drive
     * letter there changes the path alone), but that a host "localhost" is empty (file host
     * state). Its path was read whole all the same: 40% of the corpora's rows are file URLs,
     * and `scheme` cost them 1,000 instructions against 660 for the others. */
    if (extent == UN_EXTENT_AUTHORITY || extent == UN_EXTENT_NO_PATH) {
        if (!ends || (file && is_localhost(p, s))) return 0;
        return extent == UN_EXTENT_AUTHORITY || query_and_fragment(&sc, path_stop(&sc, at), req, s);
    }
    if (at == n || p[at] != '/') return 0;
    s->path_start = at;
    if (file && !file_as_is(p, n, s)) return 0;
    at = part_end(&sc, at, req, SET_PATH);
    /* A file URL's ".." stops at a drive letter (URL Standard §4.4, shorten a path). */
    if (at == 0 || (file && sc.dots)) return 0;
    s->path_len = at - s->path_start;
    s->remove_dots = sc.dots;
    if (extent == UN_EXTENT_NO_QUERY) return 1;
    int taken = query_and_fragment(&sc, at, req, s) && meets_crawl_rules(p, s, req);
    s->rewrite_escapes = sc.rewrite;
    /* A file URL's first segment decoded may spell a drive letter, which the rules respell. */
    return taken && !(file && sc.rewrite);
}

int un_normal_form_query(const uint8_t *p, size_t n, un_spans *s) {
    size_t at = s->path_start + s->path_len;
    scan sc;
    scan_start(&sc, p, n, at, 0);
    load_block(&sc, at);
    return query_and_fragment(&sc, at, 0, s);
}

void un_put_normal_href(const uint8_t *p, size_t n, const uint8_t *head, const un_spans *s, un_buf *out) {
    size_t start = out->len, path_end = s->path_start + s->path_len;
    ptrdiff_t shift = un_put_href(p, s->remove_dots ? s->path_start : n, head, s, out);
    if (s->remove_dots) {
        un_remove_dot_segments(out, p + s->path_start, s->path_len);
        un_buf_put(out, p + path_end, n - path_end);
    }
    if (!s->rewrite_escapes || out->failed) return;
    size_t path = (size_t)((ptrdiff_t)(start + s->path_start) + shift);
    out->len = path + un_normalize_escapes(out->data + path, out->len - path);
}

/* Where a piece at `at` of the input, past its path, lies once the text before it moved. */
static size_t shifted(size_t at, ptrdiff_t by) { return (size_t)((ptrdiff_t)at + by); }

void un_put_undotted(const uint8_t *p, size_t n, const uint8_t *head, const un_spans *s, un_buf *out, un_spans *t) {
    size_t path_end = s->path_start + s->path_len;
    out->len = 0;
    un_put_href(p, s->path_start, head, s, out);
    size_t path = out->len;
    un_remove_dot_segments(out, p + s->path_start, s->path_len);
    un_buf_put(out, p + path_end, n - path_end);
    *t = *s;
    t->authority_end = t->path_start = path, t->path_len = out->len - (n - path_end) - path;
    ptrdiff_t by = (ptrdiff_t)(path + t->path_len) - (ptrdiff_t)path_end;
    if (s->has_query) t->query_start = shifted(s->query_start, by);
    if (s->has_fragment) t->fragment_start = shifted(s->fragment_start, by);
    t->as_written = 1, t->remove_dots = 0, t->parse_from = 0, t->non_ascii_host = 0;
}

size_t un_non_ascii_host_end(const uint8_t *p, size_t n, const un_spans *s) {
    size_t i = s->host_start;
    if (!s->non_ascii_host) return 0;
    for (; i < n; i++) {
        uint8_t c = p[i];
        if (c == '/' || c == '?' || c == '#' || c == '\\' || c == ':') break;
        if (c <= 0x20 || c == 0x7F || c == '@' || c == '%' || c == '[') return 0;
    }
    return i > s->host_start ? i : 0;
}

void un_put_answered_host(const uint8_t *p, size_t n, const un_spans *s, size_t host_end, const uint8_t *host, size_t len,
                          un_buf *out) {
    un_buf_set_lower(out, p, s->scheme_len);
    un_buf_puts(out, "://");
    un_buf_put(out, host, len);
    un_buf_put(out, p + host_end, n - host_end);
}

static void set_field(un_buf *field, const uint8_t *p, size_t n) { un_buf_set(field, p, n); }

void un_url_from_spans(const uint8_t *p, const un_spans *s, int extent, un_url *u) {
    un_url_reset(u);
    void (*head)(un_buf *, const uint8_t *, size_t) = s->as_written ? set_field : un_buf_set_lower;
    head(&u->scheme, p, s->scheme_len);
    head(&u->host, p + s->host_start, s->host_len);
    u->has_scheme = u->has_host = 1;
    u->special = s->special;
    u->port = s->port;
    if (extent == UN_EXTENT_WHOLE || extent == UN_EXTENT_NO_QUERY) {
        if (s->remove_dots) un_remove_dot_segments(&u->path, p + s->path_start, s->path_len);
        else set_field(&u->path, p + s->path_start, s->path_len);
    }
    if (extent != UN_EXTENT_WHOLE && extent != UN_EXTENT_NO_PATH) return;
    if ((u->has_query = s->has_query)) set_field(&u->query, p + s->query_start, s->query_len);
    if ((u->has_fragment = s->has_fragment)) set_field(&u->fragment, p + s->fragment_start, s->fragment_len);
}
