/* Path segments (core/path.py): dot segments (RFC 3986 §5.2.4, URL Standard §4.1) and
 * Windows drive letters (URL Standard §4.2). */
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "urlnorm.h"

static int is_dot_escape(const uint8_t *p) { return p[0] == '%' && p[1] == '2' && (p[2] | 0x20) == 'e'; }

int un_is_single_dot(const uint8_t *p, size_t n) {
    return (n == 1 && p[0] == '.') || (n == 3 && is_dot_escape(p));
}

int un_is_double_dot(const uint8_t *p, size_t n) {
    if (n == 2) return p[0] == '.' && p[1] == '.';
    if (n == 4) return (p[0] == '.' && is_dot_escape(p + 1)) || (is_dot_escape(p) && p[3] == '.');
    return n == 6 && is_dot_escape(p) && is_dot_escape(p + 3);
}

int un_is_drive_letter(const uint8_t *p, size_t n, int normalized) {
    return n == 2 && un_is(p[0], UN_ALPHA) && (p[1] == ':' || (!normalized && p[1] == '|'));
}

int un_starts_with_drive_letter(const uint8_t *p, size_t n) {
    if (n < 2 || !un_is_drive_letter(p, 2, 0)) return 0;
    return n == 2 || p[2] == '/' || p[2] == '\\' || p[2] == '?' || p[2] == '#';
}

/* core path.without_trailing_slashes: the length without them, 1 if only they were there;
 * an opaque path (not starting with "/") keeps them. */
size_t un_without_trailing_slashes(const uint8_t *p, size_t n) {
    size_t len = n;
    if (n == 0 || p[0] != '/') return n;
    while (len > 0 && p[len - 1] == '/') len--;
    return len ? len : 1;
}

/* core path.normalize_drive_letter on a file URL (URL Standard §4.4 path state): a rule after
 * the parse can leave "/C|", which the parser reads back as "/C:". */
void un_normalize_drive_letter(un_url *u) {
    uint8_t *p = u->path.data;
    size_t n = u->path.len;
    if (u->scheme.len != 4 || memcmp(u->scheme.data, "file", 4) != 0) return;
    if (n >= 3 && p[0] == '/' && p[2] == '|' && un_is_drive_letter(p + 1, 2, 0) && (n == 3 || p[3] == '/')) p[2] = ':';
}

/* The output of remove_dot_segments: segments joined by '/' after start, k of them. */
typedef struct {
    un_buf *out;
    size_t start, k;
    int first_empty;
} seg_list;

/* count segments, p[0, n) joined by '/'. */
static void seg_append(seg_list *s, const uint8_t *p, size_t n, size_t count) {
    if (s->k == 0) s->first_empty = n == 0 || p[0] == '/';
    if (s->k) un_buf_putc(s->out, '/');
    un_buf_put(s->out, p, n);
    s->k += count;
}

static void seg_pop(seg_list *s) {
    size_t i = s->out->len;
    while (i > s->start && s->out->data[i - 1] != '/') i--;
    s->out->len = s->k == 1 ? s->start : i - 1;
    s->k--;
}

/* Whether a segment of p[0, n) is "." or "..": all remove_dot_segments changes (RFC 3986
 * §5.2.4), so that a path without one, nearly every path, is left as it is. */
int un_has_dot_segment(const uint8_t *p, size_t n) {
    for (const uint8_t *dot = memchr(p, '.', n); dot; dot = memchr(dot + 1, '.', n - (size_t)(dot + 1 - p))) {
        size_t at = (size_t)(dot - p), end = at + 1 + (at + 1 < n && p[at + 1] == '.');
        if ((at == 0 || p[at - 1] == '/') && (end == n || p[end] == '/')) return 1;
    }
    return 0;
}

/* Bit k set where p[k] is '/', for k below 64 and n. */
static uint64_t slash_bits(const uint8_t *p, size_t n) {
    uint64_t bits = 0;
    size_t k = 0;
#ifdef __SSE2__
    for (const __m128i slash = _mm_set1_epi8('/'); k + 16 <= n && k < 64; k += 16)
        bits |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const void *)(p + k)), slash)) << k;
#endif
    for (; k < n && k < 64; k++) bits |= (uint64_t)(p[k] == '/') << k;
    return bits;
}

un_slashes un_slashes_of(const uint8_t *p, size_t n) { return (un_slashes){p, n, 0, slash_bits(p, n)}; }

size_t un_next_slash(un_slashes *s, size_t i) {
    while (i < s->n) {
        if (i - s->base >= 64) s->base = i, s->bits = slash_bits(s->p + i, s->n - i);
        uint64_t bits = s->bits >> (i - s->base);
        if (bits) return i + (size_t)__builtin_ctzll(bits);
        i = s->base + 64;
    }
    return s->n;
}

/* RFC 3986 §5.2.4, as core/path.py remove_dot_segments: over the '/'-split segments, each run
 * of them between dot segments appended at once (a byte and a segment at a time, it was a
 * quarter of `path` on a dotted clickstream row). */
void un_remove_dot_segments(un_buf *out, const uint8_t *p, size_t n) {
    if (!p) p = (const uint8_t *)""; /* an empty path that was never allocated */
    seg_list s = {out, out->len, 0, 0};
    un_slashes found = un_slashes_of(p, n);
    size_t run = 0, plain = 0; /* the segments not yet appended: from p[run], plain of them */
    for (size_t seg = 0; seg <= n;) {
        size_t i = un_next_slash(&found, seg), len = i - seg;
        int dots = len == 2 && p[seg] == '.' && p[seg + 1] == '.', dot = len == 1 && p[seg] == '.';
        if (dots || dot) {
            if (plain) seg_append(&s, p + run, seg - 1 - run, plain);
            if (dots && (s.k > 1 || (s.k == 1 && !s.first_empty))) seg_pop(&s);
            if (i == n) seg_append(&s, p, 0, 1);
            run = i + 1, plain = 0;
        } else {
            plain++;
        }
        seg = i + 1;
    }
    if (plain) seg_append(&s, p + run, n - run, plain);
    int absolute = n > 0 && p[0] == '/';
    if (absolute && (out->len == s.start || out->data[s.start] != '/') && un_buf_reserve(out, 1)) {
        memmove(out->data + s.start + 1, out->data + s.start, out->len - s.start);
        out->data[s.start] = '/';
        out->len++;
    }
}

/* The segment of a path from *at (core path.segments): its start and length; 0 past the
 * last. A leading '/' starts no segment, an empty path has none, and "/a/" ends in an empty
 * one. Begin with *at = 0. */
int un_next_segment(const uint8_t *p, size_t n, size_t *at, size_t *start, size_t *len) {
    if (*at == 0 && n && p[0] == '/') *at = 1;
    if (n == 0 || *at > n) return 0;
    const uint8_t *slash = memchr(p + *at, '/', n - *at);
    size_t end = slash ? (size_t)(slash - p) : n;
    *start = *at, *len = end - *at;
    *at = end + 1;
    return 1;
}
