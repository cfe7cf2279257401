/* UTF-8 as Python decodes it strictly: no overlongs, no surrogates, nothing above U+10FFFF. */
#include <string.h>

#include "urlnorm.h"

/* How many bytes from p[i] on fit the pattern of a UTF-8 sequence (0 for a byte that cannot
 * start one), and how many the sequence needs. */
static size_t fitting(const uint8_t *p, size_t n, size_t i, size_t *need) {
    uint8_t b = p[i];
    *need = 1;
    if (b < 0x80) return 1;
    uint8_t lo = 0x80, hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) *need = 2;
    else if (b >= 0xE0 && b <= 0xEF) *need = 3, lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
    else if (b >= 0xF0 && b <= 0xF4) *need = 4, lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
    else return 0;
    if (i + 1 >= n || p[i + 1] < lo || p[i + 1] > hi) return 1;
    size_t k = 2;
    while (k < *need && i + k < n && p[i + k] >= 0x80 && p[i + k] <= 0xBF) k++;
    return k;
}

/* The length of the valid sequence at p[i], or 0 if none starts there. */
static size_t sequence(const uint8_t *p, size_t n, size_t i) {
    size_t need, k = fitting(p, n, i, &need);
    return k == need ? k : 0;
}

#define HIGH_BITS 0x8080808080808080ULL

size_t un_ascii_prefix(const uint8_t *p, size_t n) {
    size_t i = 0;
    /* Eight bytes at a time: most URLs are ASCII throughout. */
    for (uint64_t word; i + 8 <= n; i += 8) {
        memcpy(&word, p + i, 8);
        if (word & HIGH_BITS) break;
    }
    /* An ASCII tail is read as the last eight bytes, over some already read. */
    if (i + 8 > n && n >= 8) {
        uint64_t last;
        memcpy(&last, p + n - 8, 8);
        if (!(last & HIGH_BITS)) return n;
    }
    while (i < n && p[i] < 0x80) i++;
    return i;
}

int un_valid_utf8(const uint8_t *p, size_t n) {
    for (size_t i = un_ascii_prefix(p, n); i < n;) {
        size_t len = sequence(p, n, i);
        if (!len) return 0;
        i += len;
    }
    return 1;
}

/* Sixteen bytes at a time as one vector (GCC and Clang vector extensions: SSE2 on x86-64,
 * NEON on ARM), compared with each of the three bytes at once. */
typedef uint8_t bytes16 __attribute__((vector_size(16)));

static int any_tab_or_newline(const uint8_t *p) {
    bytes16 v, hit;
    memcpy(&v, p, 16);
    hit = (bytes16)((v == '\t') | (v == '\n') | (v == '\r'));
    uint64_t words[2];
    memcpy(words, &hit, 16);
    return (words[0] | words[1]) != 0;
}

/* The last sixteen bytes are read as one vector too, overlapping the one before, rather than
 * a byte at a time; a text shorter than that is read from a copy padded with zeros. */
int un_has_tab_or_newline(const uint8_t *p, size_t n) {
    if (n < 16) {
        uint8_t padded[16] = {0};
        if (n) memcpy(padded, p, n);
        return any_tab_or_newline(padded);
    }
    for (size_t i = 0; i + 16 < n; i += 16) {
        if (any_tab_or_newline(p + i)) return 1;
    }
    return any_tab_or_newline(p + n - 16);
}

static size_t not_tab_or_newline(uint8_t b) { return (b != '\t') & (b != '\n') & (b != '\r'); }

/* p[0, n) without its tabs and newlines, written to out (room for n bytes); the length
 * written. A block of sixteen bytes without one is copied whole. In a block with one, each
 * byte is written and the next write moves past it unless it is removed: a branch on each
 * byte would be taken and missed where the row's tabs happen to fall. */
size_t un_drop_tab_or_newline(uint8_t *out, const uint8_t *p, size_t n) {
    size_t o = 0, i = 0;
    for (; i + 16 <= n; i += 16) {
        if (!any_tab_or_newline(p + i)) {
            memcpy(out + o, p + i, 16);
            o += 16;
            continue;
        }
        for (size_t j = i; j < i + 16; j++) out[o] = p[j], o += not_tab_or_newline(p[j]);
    }
    for (; i < n; i++) out[o] = p[i], o += not_tab_or_newline(p[i]);
    return o;
}

/* Percent-encode each byte that is not part of a valid sequence, keeping the rest: what a
 * crawler does with a Latin-1 URL, and what Python's surrogateescape then %XX gives. */
void un_encode_invalid_utf8(un_buf *out, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n;) {
        size_t len = sequence(p, n, i);
        if (len) {
            un_buf_put(out, p + i, len);
            i += len;
            continue;
        }
        un_put_escape(out, p[i]);
        i++;
    }
}

void un_utf8_replace(un_buf *out, const uint8_t *p, size_t n) {
    static const uint8_t replacement[] = {0xEF, 0xBF, 0xBD};
    for (size_t i = 0; i < n;) {
        size_t ascii = i + un_ascii_prefix(p + i, n - i);
        un_buf_put(out, p + i, ascii - i);
        if ((i = ascii) == n) break;
        size_t need, k = fitting(p, n, i, &need);
        if (k == need) {
            un_buf_put(out, p + i, k);
        } else {
            un_buf_put(out, replacement, sizeof replacement);
            k = k ? k : 1; /* a maximal subpart, at least one byte */
        }
        i += k;
    }
}
