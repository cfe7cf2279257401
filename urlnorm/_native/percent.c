/* Percent-encoding (core/percent.py): URL Standard §1.3, RFC 3986 §2.1 and §6.2.2.
 * Input is UTF-8, so encoding a code point's UTF-8 bytes one by one is the standard's
 * "UTF-8 percent-encode"; every byte above 0x7F is in every encode set. */
#include "urlnorm.h"

static const char HEX_UPPER[] = "0123456789ABCDEF";

static int hexval(uint8_t c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int is_escape(const uint8_t *p, size_t n, size_t i) {
    return i + 2 < n && p[i] == '%' && un_is(p[i + 1], UN_HEXDIG) && un_is(p[i + 2], UN_HEXDIG);
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
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (is_escape(p, n, i)) {
            out[o++] = (uint8_t)(hexval(p[i + 1]) * 16 + hexval(p[i + 2]));
            i += 2;
        } else {
            out[o++] = p[i];
        }
    }
    return o;
}

void un_uppercase_escapes(un_buf *out, const uint8_t *p, size_t n) {
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_escape(p, n, i)) continue;
        un_buf_put(out, p + run, i + 1 - run);
        uint8_t hex[2] = {(uint8_t)HEX_UPPER[hexval(p[i + 1])], (uint8_t)HEX_UPPER[hexval(p[i + 2])]};
        un_buf_put(out, hex, 2);
        i += 2;
        run = i + 1;
    }
    un_buf_put(out, p + run, n - run);
}

/* Whether the escape at i would join a stray '%' before it into a new escape once decoded
 * (core/percent.py _after_stray_percent): the two characters before it in the input. */
static int after_stray_percent(const uint8_t *p, size_t i) {
    if (i >= 1 && p[i - 1] == '%') return 1;
    return i >= 2 && p[i - 2] == '%' && un_is(p[i - 1], UN_HEXDIG);
}

void un_decode_unreserved(un_buf *out, const uint8_t *p, size_t n) {
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_escape(p, n, i)) continue;
        uint8_t c = (uint8_t)(hexval(p[i + 1]) * 16 + hexval(p[i + 2]));
        int keep = !un_is(c, UN_UNRESERVED) || (un_is(c, UN_HEXDIG) && after_stray_percent(p, i));
        if (!keep) {
            un_buf_put(out, p + run, i - run);
            un_buf_putc(out, c);
            run = i + 3;
        }
        i += 2;
    }
    un_buf_put(out, p + run, n - run);
}
