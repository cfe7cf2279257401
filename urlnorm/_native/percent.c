/* Percent-encoding (core/percent.py): URL Standard §1.3, RFC 3986 §2.1 and §6.2.2.
 * Input is UTF-8, so encoding a code point's UTF-8 bytes one by one is the standard's
 * "UTF-8 percent-encode"; every byte above 0x7F is in every encode set. */
#include "urlnorm.h"

static const char HEX_UPPER[] = "0123456789ABCDEF";

/* The index of the first escape at or after i, or n if none. The bytes between escapes are
 * skipped with memchr: most of a field holds none. */
static size_t next_escape(const uint8_t *p, size_t n, size_t i) {
    while (i + 2 < n) {
        const uint8_t *q = memchr(p + i, '%', n - 2 - i);
        if (!q) return n;
        i = (size_t)(q - p);
        if (un_escape_at(p, n, i) >= 0) return i;
        i++;
    }
    return n;
}

void un_put_escape(un_buf *out, uint8_t byte) {
    uint8_t esc[3];
    un_write_escape(esc, byte);
    un_buf_put(out, esc, 3);
}

uint8_t *un_write_escape(uint8_t *o, uint8_t byte) {
    o[0] = '%';
    o[1] = (uint8_t)HEX_UPPER[byte >> 4];
    o[2] = (uint8_t)HEX_UPPER[byte & 15];
    return o + 3;
}

/* One byte more than the room asked for, so that an empty buffer has memory to point at. */
uint8_t *un_reserve_encoded(un_buf *out, size_t n) {
    if (n > (SIZE_MAX - out->len) / 3 - 1 || !un_buf_reserve(out, 3 * n + 1)) {
        out->failed = 1;
        return NULL;
    }
    return out->data + out->len;
}

static void end_written(un_buf *out, const uint8_t *o) { out->len = (size_t)(o - out->data); }

/* Each byte of p in set as its escape; with space_as_plus a space as '+' (URL Standard §5.2). */
static void encode(un_buf *out, const uint8_t *p, size_t n, uint16_t set, int space_as_plus) {
    uint8_t *o = un_reserve_encoded(out, n);
    if (!o) return;
    for (size_t i = 0; i < n; i++) {
        if (space_as_plus && p[i] == ' ') *o++ = '+';
        else if (un_is(p[i], set)) o = un_write_escape(o, p[i]);
        else *o++ = p[i];
    }
    end_written(out, o);
}

void un_percent_encode(un_buf *out, const uint8_t *p, size_t n, uint16_t set) { encode(out, p, n, set, 0); }

size_t un_percent_decode(uint8_t *out, const uint8_t *p, size_t n) {
    if (n == 0) return 0;
    /* out may be p itself: each byte is moved at or before where it was read. */
    size_t o = 0, run = 0;
    for (size_t i = next_escape(p, n, 0); i < n; i = next_escape(p, n, i + 3)) {
        memmove(out + o, p + run, i - run);
        o += i - run;
        out[o++] = (uint8_t)un_escape_at(p, n, i);
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

/* Whether decode_unreserved decodes the escape of c, the bytes p[0, i) before it. */
static int decodes(uint8_t c, const uint8_t *p, size_t i) {
    return un_is(c, UN_UNRESERVED) && !(un_is(c, UN_HEXDIG) && after_stray_percent(p, i));
}

/* The percent rules in place: each escape of an unreserved character decoded (when decode)
 * and every other escape's hex upper-cased (when uppercase); the new length. The bytes
 * before the first escape are skipped with memchr; after it, where a messy field's escapes
 * lie close together, one loop moves bytes and rewrites escapes without a call a byte run.
 * Decoding shrinks the text by two bytes an escape, so the bytes before the escape being
 * looked at, which after_stray_percent reads, are still the input's (or only the case of
 * their hex changed). Decoding does not depend on that case, so both at once are the two
 * rules in turn. */
static size_t rewrite_escapes(uint8_t *p, size_t n, int decode, int uppercase) {
    size_t i = next_escape(p, n, 0), o = i;
    while (i < n) {
        int escaped = un_escape_at(p, n, i);
        if (escaped < 0) {
            p[o++] = p[i++];
            continue;
        }
        uint8_t c = (uint8_t)escaped;
        if (decode && decodes(c, p, i)) {
            p[o++] = c;
        } else {
            p[o] = '%';
            p[o + 1] = uppercase ? (uint8_t)HEX_UPPER[c >> 4] : p[i + 1];
            p[o + 2] = uppercase ? (uint8_t)HEX_UPPER[c & 15] : p[i + 2];
            o += 3;
        }
        i += 3;
    }
    return o;
}

/* The '%' at p[i] written at *o as the percent rules leave it: the escape it begins decoded
 * or upper-cased, or a lone '%' as it is; the bytes of p it took. The field being written
 * starts at field, so the bytes from there to *o are those before it, which decide whether
 * it is decoded. They differ from the ones rewrite_escapes reads only where an earlier
 * escape was decoded, and an escape is decoded into a hex digit only when no '%' is before
 * it: so both decide alike. */
size_t un_write_percent(uint8_t **o, const uint8_t *field, const uint8_t *p, size_t n, size_t i) {
    uint8_t *w = *o;
    int escaped = un_escaped_byte(p, n, i);
    if (escaped < 0) {
        *w = '%';
        *o = w + 1;
        return 1;
    }
    uint8_t c = (uint8_t)escaped;
    if (decodes(c, field, (size_t)(w - field))) *w++ = c;
    else w = un_write_escape(w, c);
    *o = w;
    return 3;
}

void un_uppercase_escapes(uint8_t *p, size_t n) { rewrite_escapes(p, n, 0, 1); }

size_t un_decode_unreserved(uint8_t *p, size_t n) { return rewrite_escapes(p, n, 1, 0); }

size_t un_normalize_escapes(uint8_t *p, size_t n) { return rewrite_escapes(p, n, 1, 1); }

/* Escapes decoded (in tmp, as decoding never writes past what it read), then the bytes as
 * UTF-8 with U+FFFD for invalid ones; with plus_as_space a '+' first a space (§5.1). */
static void decode(un_buf *out, const uint8_t *p, size_t n, un_buf *tmp, int plus_as_space) {
    tmp->len = 0;
    if (!un_buf_reserve(tmp, n)) {
        out->failed = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) tmp->data[i] = plus_as_space && p[i] == '+' ? ' ' : p[i];
    tmp->len = un_percent_decode(tmp->data, tmp->data, n);
    un_utf8_replace(out, tmp->data, tmp->len);
}

void un_form_decode(un_buf *out, const uint8_t *p, size_t n, un_buf *tmp) { decode(out, p, n, tmp, 1); }

const char *const UN_COMPONENT_MODE_NAMES[UN_N_COMPONENT_MODES] = {
    [UN_ENCODE_COMPONENT] = "encode_component", [UN_ENCODE_FORM] = "encode_form_component",
    [UN_DECODE_COMPONENT] = "decode_component", [UN_DECODE_FORM] = "decode_form_component",
};

int un_component_as_is(const uint8_t *p, size_t n, int mode, int utf8) {
    if (mode != UN_DECODE_COMPONENT && mode != UN_DECODE_FORM) return 0;
    if (memchr(p, '%', n) || (mode == UN_DECODE_FORM && memchr(p, '+', n))) return 0;
    return utf8 || un_valid_utf8(p, n); /* decoding writes U+FFFD for each invalid byte */
}

void un_component(un_buf *out, const uint8_t *p, size_t n, int mode, un_buf *tmp) {
    switch (mode) {
    case UN_ENCODE_COMPONENT: encode(out, p, n, UN_COMPONENT, 0); return;
    case UN_ENCODE_FORM: encode(out, p, n, UN_FORM, 1); return;
    default: decode(out, p, n, tmp, mode == UN_DECODE_FORM); return;
    }
}
