/* Percent-encoding (core/percent.py): URL Standard §1.3, RFC 3986 §2.1 and §6.2.2.
 * Input is UTF-8, so encoding a code point's UTF-8 bytes one by one is the standard's
 * "UTF-8 percent-encode"; every byte above 0x7F is in every encode set. */
#include "urlnorm.h"

static const char HEX_UPPER[] = "0123456789ABCDEF";

/* A hex digit's value; c must be one ('0'-'9' are 0x3_, 'A'-'F' 0x4_, 'a'-'f' 0x6_). */
static int hexval(uint8_t c) { return (c & 0xF) + 9 * (c >> 6); }

/* The index of the first escape ("%" and two hex digits) at or after i, or n if none. The
 * bytes between escapes are skipped with memchr: most of a field holds none. */
static size_t next_escape(const uint8_t *p, size_t n, size_t i) {
    while (i + 2 < n) {
        const uint8_t *q = memchr(p + i, '%', n - 2 - i);
        if (!q) return n;
        i = (size_t)(q - p);
        if (un_is(p[i + 1], UN_HEXDIG) && un_is(p[i + 2], UN_HEXDIG)) return i;
        i++;
    }
    return n;
}

void un_put_escape(un_buf *out, uint8_t byte) {
    uint8_t esc[3] = {'%', (uint8_t)HEX_UPPER[byte >> 4], (uint8_t)HEX_UPPER[byte & 15]};
    un_buf_put(out, esc, 3);
}

void un_percent_encode(un_buf *out, const uint8_t *p, size_t n, uint16_t set) {
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (!un_is(p[i], set)) continue;
        un_buf_put(out, p + run, i - run);
        un_put_escape(out, p[i]);
        run = i + 1;
    }
    un_buf_put(out, p + run, n - run);
}

size_t un_percent_decode(uint8_t *out, const uint8_t *p, size_t n) {
    if (n == 0) return 0;
    /* out may be p itself: each byte is moved at or before where it was read. */
    size_t o = 0, run = 0;
    for (size_t i = next_escape(p, n, 0); i < n; i = next_escape(p, n, i + 3)) {
        memmove(out + o, p + run, i - run);
        o += i - run;
        out[o++] = (uint8_t)(hexval(p[i + 1]) * 16 + hexval(p[i + 2]));
        run = i + 3;
    }
    memmove(out + o, p + run, n - run);
    return o + n - run;
}

/* Whether the escape at i would join a stray '%' before it into a new escape once decoded
 * (core/percent.py _after_stray_percent): the two characters before it in the input. */
static int after_stray_percent(const uint8_t *p, size_t i) {
    if (i >= 1 && p[i - 1] == '%') return 1;
    return i >= 2 && p[i - 2] == '%' && un_is(p[i - 1], UN_HEXDIG);
}

/* The percent rules in place: each escape of an unreserved character decoded (when decode)
 * and every other escape's hex upper-cased (when uppercase); the new length. Decoding shrinks
 * the text by two bytes an escape, so the bytes before the escape being looked at, which
 * after_stray_percent reads, are still the input's (or only the case of their hex changed).
 * Decoding does not depend on that case, so both at once are the two rules in turn. */
static size_t rewrite_escapes(uint8_t *p, size_t n, int decode, int uppercase) {
    size_t o = 0, run = 0;
    for (size_t i = next_escape(p, n, 0); i < n; i = next_escape(p, n, i + 3)) {
        uint8_t c = (uint8_t)(hexval(p[i + 1]) * 16 + hexval(p[i + 2]));
        if (decode && un_is(c, UN_UNRESERVED) && !(un_is(c, UN_HEXDIG) && after_stray_percent(p, i))) {
            memmove(p + o, p + run, i - run);
            o += i - run;
            p[o++] = c;
            run = i + 3;
        } else if (uppercase) {
            p[i + 1] = (uint8_t)HEX_UPPER[c >> 4];
            p[i + 2] = (uint8_t)HEX_UPPER[c & 15];
        }
    }
    if (run == 0) return n;
    memmove(p + o, p + run, n - run);
    return o + n - run;
}

void un_uppercase_escapes(uint8_t *p, size_t n) { rewrite_escapes(p, n, 0, 1); }

size_t un_decode_unreserved(uint8_t *p, size_t n) { return rewrite_escapes(p, n, 1, 0); }

size_t un_normalize_escapes(uint8_t *p, size_t n) { return rewrite_escapes(p, n, 1, 1); }
