/* URLs already in a profile's normal form (core/normal_form.py): one scan that checks a URL
 * and finds its parts, so that it is handed back as it is, and its parts as slices of it,
 * without a parse. The scan accepts only what it can prove the parse and the profile's rules
 * leave as it is; anything else takes the full path. */
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
};

/* The bytes each part takes as they are, derived from the URL Standard's encode sets
 * (un_t, filled from urlnorm.core): printable ASCII outside the part's set, less the
 * delimiters the scan stops at. A host takes lower-case unreserved bytes (RFC 3986 §2.3):
 * no case to fold, nothing to decode, no forbidden domain code point (URL Standard §3.2). */
enum { NF_HOST = 1, NF_PATH = 2, NF_QUERY = 4, NF_FRAGMENT = 8, NF_HOST_ANY_CASE = 16 };
static uint8_t nf[256];

static int printable(int b) { return b > 0x20 && b < 0x7F; }

/* A part's plain bytes as nibble tables, for the vectors: byte b is plain where
 * lo[b & 15] & hi[b >> 4] is not zero. A path's '/' is plain there: the vectors stop only at
 * one a '.' follows. */
typedef struct {
    uint8_t flag;
    uint8_t lo[16], hi[16];
} part_set;
enum { SET_HOST, SET_HOST_ANY_CASE, SET_PATH, SET_QUERY, SET_FRAGMENT, N_SETS };
static part_set sets[N_SETS] = {
    {.flag = NF_HOST}, {.flag = NF_HOST_ANY_CASE}, {.flag = NF_PATH}, {.flag = NF_QUERY}, {.flag = NF_FRAGMENT},
};
/* The special indexes of the two schemes nearly every URL has, looked for first. */
static int http_index = -1, https_index = -1;

static size_t run_scalar(const part_set *set, const uint8_t *p, size_t n, size_t i) {
    while (i < n && nf[p[i]] & set->flag) i++;
    return i;
}

#ifdef NF_VECTORS
/* The first byte from p[i] on that ends the part's run, or a '/' a '.' may follow (the last
 * '/' of a block too, but the input's: its next byte is the next block's), WIDTH bytes a
 * step; an input shorter than WIDTH goes to NEXT. Each byte's class is two table lookups by
 * its nibbles (PSHUFB). One body, built for SSSE3 and for AVX2; un_normal_form_init picks
 * what the CPU has. */
#define RUN_VECTORS(NAME, TARGET, NEXT, VEC, WIDTH, LOAD, TABLE, SET1, AND, SHUFFLE, SHIFT, EQ, MASK) \
    TARGET static size_t NAME(const part_set *set, const uint8_t *p, size_t n, size_t i) {         \
        const VEC lo = TABLE(set->lo), hi = TABLE(set->hi), nibble = SET1(0x0F), zero = SET1(0);   \
        const VEC slash = SET1('/'), dot = SET1('.');                                            \
        if (n < WIDTH) return NEXT(set, p, n, i);                                                 \
        for (; i < n; i += WIDTH) {                                                               \
            /* The last block ends at the input's end, over bytes already passed: skip them. */   \
            size_t at = i + WIDTH <= n ? i : n - WIDTH, skip = i - at;                            \
            VEC v = LOAD((const void *)(p + at));                                                  \
            VEC plain = AND(SHUFFLE(lo, AND(v, nibble)), SHUFFLE(hi, AND(SHIFT(v, 4), nibble)));   \
            uint64_t stop = (uint32_t)MASK(EQ(plain, zero));                                       \
            if (set->flag == NF_PATH) {                                                            \
                uint64_t slashes = (uint32_t)MASK(EQ(v, slash)), dots = (uint32_t)MASK(EQ(v, dot)); \
                stop |= slashes & (dots >> 1 | (uint64_t)(at + WIDTH < n) << (WIDTH - 1));        \
            }                                                                                      \
            stop >>= skip;                                                                         \
            if (stop) return i + (size_t)__builtin_ctzll(stop);                                    \
            i = at;                                                                                \
        }                                                                                          \
        return n;                                                                                  \
    }

#define TABLE_128(t) _mm_loadu_si128((const void *)(t))
#define TABLE_256(t) _mm256_broadcastsi128_si256(_mm_loadu_si128((const void *)(t)))
RUN_VECTORS(run_ssse3, __attribute__((target("ssse3"))), run_scalar, __m128i, 16, _mm_loadu_si128, TABLE_128,
            _mm_set1_epi8, _mm_and_si128, _mm_shuffle_epi8, _mm_srli_epi16, _mm_cmpeq_epi8, _mm_movemask_epi8)
RUN_VECTORS(run_avx2, __attribute__((target("avx2"))), run_ssse3, __m256i, 32, _mm256_loadu_si256, TABLE_256,
            _mm256_set1_epi8, _mm256_and_si256, _mm256_shuffle_epi8, _mm256_srli_epi16, _mm256_cmpeq_epi8,
            _mm256_movemask_epi8)
#endif

typedef size_t (*run_fn)(const part_set *set, const uint8_t *p, size_t n, size_t i);
static run_fn plain_run = run_scalar;

/* The set's nibble tables: each distinct pattern of plain low nibbles a high nibble has takes
 * a bit; 0 if there are more than eight. */
static int nibble_tables(part_set *set) {
    uint16_t patterns[8];
    int n_patterns = 0;
    memset(set->lo, 0, sizeof set->lo), memset(set->hi, 0, sizeof set->hi);
    for (int h = 0; h < 16; h++) {
        uint16_t lows = 0;
        for (int l = 0; l < 16; l++)
            if (nf[h << 4 | l] & set->flag || (set->flag == NF_PATH && (h << 4 | l) == '/')) lows |= (uint16_t)(1u << l);
        int k = 0;
        while (k < n_patterns && patterns[k] != lows) k++;
        if (lows && k == n_patterns && n_patterns == 8) return 0;
        if (lows && k == n_patterns) patterns[n_patterns++] = lows;
        if (lows) set->hi[h] |= (uint8_t)(1u << k);
    }
    for (int k = 0; k < n_patterns; k++)
        for (int l = 0; l < 16; l++)
            if (patterns[k] >> l & 1) set->lo[l] |= (uint8_t)(1u << k);
    return 1;
}

/* Each part's tables, and the widest run finder this CPU has (the scalar one where a part's
 * tables cannot hold its set). */
static void init_runs(void) {
    int vectors = 1;
    for (int s = 0; s < N_SETS; s++) vectors &= nibble_tables(&sets[s]);
    plain_run = run_scalar;
    http_index = un_special_index((const uint8_t *)"http", 4), https_index = un_special_index((const uint8_t *)"https", 5);
#ifdef NF_VECTORS
    if (vectors && __builtin_cpu_supports("ssse3")) plain_run = __builtin_cpu_supports("avx2") ? run_avx2 : run_ssse3;
#else
    (void)vectors;
#endif
}

void un_normal_form_init(void) {
    for (int b = 0; b < 256; b++) {
        uint8_t c = (uint8_t)b, flags = 0;
        if (un_is(c, UN_UNRESERVED)) flags |= NF_HOST_ANY_CASE;
        if (un_is(c, UN_UNRESERVED) && !(b >= 'A' && b <= 'Z')) flags |= NF_HOST;
        if (printable(b) && !un_is(c, UN_PATH) && !strchr("/\\%", b)) flags |= NF_PATH;
        if (printable(b) && !un_is(c, UN_SPECIAL_QUERY) && b != '%' && b != '#') flags |= NF_QUERY;
        if (printable(b) && !un_is(c, UN_FRAGMENT) && b != '%') flags |= NF_FRAGMENT;
        nf[b] = flags;
    }
    init_runs();
}

/* The length of a special scheme before "://", in lower case (or, where any_case, in ASCII
 * letters of either case: *folded is then set if one is upper case); 0 otherwise. */
static size_t scheme_len(const uint8_t *p, size_t n, int *special, int any_case, int *folded) {
    if (n >= 8 && memcmp(p, "https://", 8) == 0 && https_index >= 0) return *special = https_index, 5;
    if (n >= 7 && memcmp(p, "http://", 7) == 0 && http_index >= 0) return *special = http_index, 4;
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

/* The end of a domain host starting at p[i]: lower-case unreserved bytes (or, where any_case,
 * unreserved bytes: *folded is then set if one is upper case), not ending in '.', whose last
 * label starts with a letter, so that it cannot end in a number (URL Standard §3.5: such a
 * host parses as IPv4). i if there is none, or if it is empty. */
static size_t host_end(const uint8_t *p, size_t n, size_t i, int any_case, int *folded) {
    size_t j = plain_run(&sets[SET_HOST], p, n, i);
    /* Most hosts are lower case: the wider set runs on only from an upper-case letter. */
    if (any_case && j < n && p[j] >= 'A' && p[j] <= 'Z') {
        *folded = 1;
        j = plain_run(&sets[SET_HOST_ANY_CASE], p, n, j);
    }
    size_t last = j;
    while (last > i && p[last - 1] != '.') last--;
    if (j == i || last == j || !un_is(p[last], UN_ALPHA)) return i;
    return j;
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
 * spell a dot segment (URL Standard §4.4 path state). */
static size_t escape_len(const uint8_t *p, size_t n, size_t i, unsigned req, int path) {
    int byte = un_escaped_byte(p, n, i);
    if (byte < 0) return req & 1u << UN_NF_ESCAPES ? 0 : 1;
    if (path && byte == '.') return 0;
    if (!(req & 1u << UN_NF_ESCAPES)) return 3;
    int lower = (p[i + 1] >= 'a' && p[i + 1] <= 'f') || (p[i + 2] >= 'a' && p[i + 2] <= 'f');
    return lower || un_is((uint8_t)byte, UN_UNRESERVED) ? 0 : 3;
}

/* Whether a dot segment ("." or "..") follows the '/' at p[i]: the parser removes it. */
static int dot_segment_after(const uint8_t *p, size_t n, size_t i) {
    if (i + 1 >= n || p[i + 1] != '.') return 0;
    size_t end = i + 2 + (i + 2 < n && p[i + 2] == '.');
    return end == n || p[end] == '/' || p[end] == '?' || p[end] == '#';
}

/* The end of a part from p[i] on: the bytes flag marks, checked escapes and, in a path,
 * slashes before segments that are not dot segments, up to the part's end ('?' or '#' for a
 * path, '#' for a query, the input's end); 0 at a byte the parse or the rules would change. */
static size_t part_end(const uint8_t *p, size_t n, size_t i, unsigned req, const part_set *set) {
    int path = set->flag == NF_PATH;
    while ((i = plain_run(set, p, n, i)) < n) {
        uint8_t c = p[i];
        size_t step = nf[c] & set->flag;
        if (c == '%') step = escape_len(p, n, i, req, path);
        else if (c == '/' && path) step = !dot_segment_after(p, n, i);
        else if ((c == '#' && !(nf[c] & set->flag)) || (c == '?' && path)) break;
        if (!step) return 0;
        i += step;
    }
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
    if (req & 1u << UN_NF_NO_TRAILING_SLASH && s->path_len > 1 && path[s->path_len - 1] == '/') return 0;
    if (req & 1u << UN_NF_NO_PATH_PARAMETERS && (memchr(path, ';', s->path_len) || memchr(path, '(', s->path_len))) return 0;
    return 1;
}

/* The query and fragment after the path's end at p[i], into s; 0 if either would change. */
static int query_and_fragment(const uint8_t *p, size_t n, size_t i, unsigned req, un_spans *s) {
    s->has_query = i < n && p[i] == '?';
    s->query_start = i + s->has_query;
    size_t end = s->has_query ? part_end(p, n, s->query_start, req, &sets[SET_QUERY]) : i;
    if (end == 0) return 0;
    s->query_len = end - s->query_start;
    s->has_fragment = end < n;
    s->fragment_start = end + 1;
    if (s->has_fragment && part_end(p, n, s->fragment_start, req, &sets[SET_FRAGMENT]) != n) return 0;
    s->fragment_len = s->has_fragment ? n - s->fragment_start : 0;
    return 1;
}

/* A file URL's host and path as the parser leaves them (URL Standard §4.4 file host and path
 * states): not "localhost" (which becomes empty), and a path whose first segment does not
 * start as a Windows drive letter does (which moves into the path, or has its '|' replaced). */
static int file_as_is(const uint8_t *p, size_t n, const un_spans *s) {
    size_t at = s->path_start;
    if (s->host_len == 9 && un_ascii_ieq(p + s->host_start, "localhost", 9)) return 0;
    return at + 2 >= n || (p[at + 2] != ':' && p[at + 2] != '|');
}

/* The scheme and authority into s: where the authority ends, or 0 if either would change
 * (where any_case, but for their case and the port's spelling). */
static size_t authority(const uint8_t *p, size_t n, un_spans *s, int any_case, int *file) {
    int respelt = 0;
    size_t at = scheme_len(p, n, &s->special, any_case, &respelt);
    if (at == 0) return 0;
    *file = un_t.default_port[s->special] < 0;
    s->scheme_len = at;
    s->host_start = at + 3;
    at = host_end(p, n, s->host_start, any_case, &respelt);
    if (at == s->host_start && !*file) return 0;
    s->host_len = at - s->host_start;
    s->port = -1;
    if (at < n && p[at] == ':' && (*file || (at++, s->port = port_at(p, n, &at, s->special, any_case, &respelt)) < -1)) return 0;
    s->as_written = !respelt;
    return at;
}

int un_normal_form(const uint8_t *p, size_t n, unsigned req, int extent, un_spans *s) {
    if (req & 1u << UN_NF_NEVER) return 0;
    int file = 0;
    /* The crawl rules read the host and port as written, and the generic split folds nothing:
     * only the others take a respelt one. */
    size_t at = authority(p, n, s, !(req & ~(1u << UN_NF_ESCAPES)), &file);
    if (at == 0) return 0;
    s->authority_end = at;
    /* Nothing after the port can fail (URL Standard §4.4: the path, query and fragment states
     * only encode), so a parse that stops before the path needs the authority alone, and one
     * that skips the path needs only where it ends. A file URL's path can move its host. */
    int ends = at == n || p[at] == '/' || p[at] == '?' || p[at] == '#';
    if (req || file) extent = UN_EXTENT_WHOLE;
    if (extent == UN_EXTENT_AUTHORITY) return ends;
    if (extent == UN_EXTENT_NO_PATH) return ends && query_and_fragment(p, n, un_path_stop(p, n, at), req, s);
    if (at == n || p[at] != '/') return 0;
    s->path_start = at;
    if (file && !file_as_is(p, n, s)) return 0;
    at = part_end(p, n, at, req, &sets[SET_PATH]);
    if (at == 0) return 0;
    s->path_len = at - s->path_start;
    if (extent == UN_EXTENT_NO_QUERY) return 1;
    return query_and_fragment(p, n, at, req, s) && meets_crawl_rules(p, s, req);
}

static void set_field(un_buf *field, const uint8_t *p, size_t n) { un_buf_set(field, p, n); }

void un_url_from_spans(const uint8_t *p, const un_spans *s, int extent, un_url *u) {
    un_url_reset(u);
    set_field(&u->scheme, p, s->scheme_len);
    set_field(&u->host, p + s->host_start, s->host_len);
    if (!s->as_written && !u->scheme.failed && !u->host.failed) {
        un_lower_ascii(u->scheme.data, u->scheme.len);
        if (u->host.len) un_lower_ascii(u->host.data, u->host.len);
    }
    u->has_scheme = u->has_host = 1;
    u->special = s->special;
    u->port = s->port;
    if (extent == UN_EXTENT_WHOLE || extent == UN_EXTENT_NO_QUERY) set_field(&u->path, p + s->path_start, s->path_len);
    if (extent != UN_EXTENT_WHOLE && extent != UN_EXTENT_NO_PATH) return;
    if ((u->has_query = s->has_query)) set_field(&u->query, p + s->query_start, s->query_len);
    if ((u->has_fragment = s->has_fragment)) set_field(&u->fragment, p + s->fragment_start, s->fragment_len);
}
