/* Host parsing and serialisation (core/host.py): URL Standard §3.5–3.6, RFC 5952 §4. */
#include <string.h>

#include "urlnorm.h"

#define TOO_BIG ((uint64_t)1 << 40) /* larger than any IPv4 address */

static int has_class(const uint8_t *p, size_t n, uint16_t cls) {
    for (size_t i = 0; i < n; i++) {
        if (un_is(p[i], cls)) return 1;
    }
    return 0;
}

static int digit_in_radix(uint8_t c, int radix) {
    if (radix == 16) return un_is(c, UN_HEXDIG);
    if (radix == 8) return c >= '0' && c <= '7';
    return c >= '0' && c <= '9';
}

/* §3.5 IPv4 number parser: 1 and *value on success, 0 on failure. */
static int ipv4_number(const uint8_t *p, size_t n, uint64_t *value) {
    if (n == 0) return 0;
    int radix = 10;
    if (n >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2, n -= 2, radix = 16;
    } else if (n > 1 && p[0] == '0') {
        p += 1, n -= 1, radix = 8;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!digit_in_radix(p[i], radix)) return 0;
        v = v * (uint64_t)radix + un_t.hex_value[p[i]];
        if (v >= TOO_BIG) v = TOO_BIG;
    }
    *value = v;
    return 1;
}

/* The last label, without one trailing dot. */
static void last_part(const uint8_t *p, size_t n, size_t *start, size_t *len) {
    if (n > 0 && p[n - 1] == '.') n--;
    size_t s = n;
    while (s > 0 && p[s - 1] != '.') s--;
    *start = s;
    *len = n - s;
}

int un_ends_in_a_number(const uint8_t *p, size_t n) {
    size_t s, len;
    uint64_t v;
    last_part(p, n, &s, &len);
    if (len == 0) return 0;
    /* A number's last byte is a digit, a hex digit or the 'x' of "0x": most names end otherwise. */
    uint8_t last = p[s + len - 1];
    if (!un_is(last, UN_HEXDIG) && (last | 0x20) != 'x') return 0;
    int digits = 1;
    for (size_t i = 0; i < len; i++) digits &= p[s + i] >= '0' && p[s + i] <= '9';
    return digits || ipv4_number(p + s, len, &v);
}

UN_COLD static int parse_ipv4(const uint8_t *p, size_t n, uint32_t *address) {
    if (n > 1 && p[n - 1] == '.') n--;
    uint64_t nums[4];
    size_t count = 0, start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && p[i] != '.') continue;
        if (count == 4) return UN_ERR_IPV4_TOO_MANY_PARTS;
        if (!ipv4_number(p + start, i - start, &nums[count])) nums[count] = UINT64_MAX;
        count++;
        start = i + 1;
    }
    for (size_t i = 0; i < count; i++) {
        if (nums[i] == UINT64_MAX) return UN_ERR_IPV4_NON_NUMERIC_PART;
    }
    for (size_t i = 0; i + 1 < count; i++) {
        if (nums[i] > 255) return UN_ERR_IPV4_OUT_OF_RANGE_PART;
    }
    if (nums[count - 1] >= (uint64_t)1 << (8 * (5 - count))) return UN_ERR_IPV4_OUT_OF_RANGE_PART;
    uint64_t v = nums[count - 1];
    for (size_t i = 0; i + 1 < count; i++) v += nums[i] << (8 * (3 - i));
    *address = (uint32_t)v;
    return UN_OK;
}

UN_COLD static void serialize_ipv4(uint32_t a, un_buf *out) {
    for (int shift = 24; shift >= 0; shift -= 8) {
        un_buf_put_uint(out, (a >> shift) & 0xFF);
        if (shift) un_buf_putc(out, '.');
    }
}

/* §3.5 IPv6 parser over the text between the brackets; 1 on success. */
static int read_ipv4_tail(const uint8_t *p, size_t n, size_t pos, uint16_t pieces[8], int index) {
    for (int seen = 0; seen < 4; seen++) {
        if (seen) {
            if (pos >= n || p[pos] != '.') return 0;
            pos++;
        }
        size_t start = pos;
        unsigned value = 0;
        while (pos < n && p[pos] >= '0' && p[pos] <= '9' && pos - start < 4) value = value * 10 + (p[pos++] - '0');
        size_t len = pos - start;
        if (len == 0 || (len > 1 && p[start] == '0') || value > 255 || (pos < n && p[pos] >= '0' && p[pos] <= '9')) return 0;
        pieces[index] = (uint16_t)(pieces[index] * 0x100 + value);
        if (seen == 1 || seen == 3) index++;
    }
    return pos == n ? index : 0;
}

UN_COLD int un_parse_ipv6(const uint8_t *p, size_t n, uint16_t pieces[8]) {
    size_t pos = 0;
    int index = 0, compress = -1;
    memset(pieces, 0, 8 * sizeof *pieces);
    if (n > 0 && p[0] == ':') {
        if (n < 2 || p[1] != ':') return 0;
        pos = 2, index = 1, compress = 1;
    }
    while (pos < n) {
        if (index == 8) return 0;
        if (p[pos] == ':') {
            if (compress >= 0) return 0;
            pos++, index++, compress = index;
            continue;
        }
        unsigned value = 0, length = 0;
        while (length < 4 && pos < n && un_is(p[pos], UN_HEXDIG)) {
            value = value * 16 + (unsigned)un_t.hex_value[p[pos]];
            pos++, length++;
        }
        if (pos < n && p[pos] == '.') {
            if (length == 0 || index > 6) return 0;
            index = read_ipv4_tail(p, n, pos - length, pieces, index);
            if (!index) return 0;
            break;
        }
        if (pos < n && p[pos] == ':') {
            pos++;
            if (pos >= n) return 0;
        } else if (pos < n) {
            return 0;
        }
        pieces[index++] = (uint16_t)value;
    }
    if (compress < 0) return index == 8;
    int moved = index - compress;
    uint16_t tail[8];
    memcpy(tail, pieces + compress, (size_t)moved * sizeof *pieces);
    memset(pieces + compress, 0, (size_t)(8 - compress) * sizeof *pieces);
    memcpy(pieces + 8 - moved, tail, (size_t)moved * sizeof *pieces);
    return 1;
}

static void put_hex16(un_buf *out, uint16_t v) {
    static const char hex[] = "0123456789abcdef";
    char digits[4];
    int i = 4;
    do {
        digits[--i] = hex[v & 15];
        v >>= 4;
    } while (v);
    un_buf_put(out, (const uint8_t *)digits + i, (size_t)(4 - i));
}

UN_COLD void un_serialize_ipv6(const uint16_t pieces[8], un_buf *out) {
    int best = -1, best_len = 1, start = -1;
    for (int i = 0; i <= 8; i++) {
        int zero = i < 8 && pieces[i] == 0;
        if (zero && start < 0) start = i;
        if (!zero && start >= 0) {
            if (i - start > best_len) best = start, best_len = i - start;
            start = -1;
        }
    }
    for (int i = 0; i < 8; i++) {
        if (i == best) {
            un_buf_puts(out, "::");
            i += best_len - 1;
            continue;
        }
        if (i > 0 && i != best + best_len) un_buf_putc(out, ':');
        put_hex16(out, pieces[i]);
    }
}

UN_COLD static int opaque_host(const uint8_t *p, size_t n, un_buf *out) {
    if (has_class(p, n, UN_FORBIDDEN_HOST)) return UN_ERR_HOST_INVALID_CODE_POINT;
    un_percent_encode(out, p, n, UN_C0_CONTROL);
    return UN_OK;
}

/* The bytes lower-cased into out, which has room; the classes of them all, and 1 if one is
 * not ASCII. The loop has no exit. */
static uint16_t lowered(const uint8_t *p, size_t n, uint8_t *o, int *non_ascii) {
    uint8_t bits = 0;
    uint16_t classes = 0;
    for (size_t i = 0; i < n; i++) {
        bits |= p[i];
        classes |= un_t.classes[p[i]];
        o[i] = un_ascii_lower(p[i]);
    }
    *non_ascii = bits >> 7;
    return classes;
}

/* The ASCII branch of domain to ASCII (§3.3) and the IPv4 step, in one pass over the
 * (percent-decoded) bytes; a non-ASCII byte asks Python for UTS #46, and takes precedence
 * over a forbidden one wherever it is. '%' is forbidden: only a host with a forbidden byte
 * is looked at for escapes, and lowered again once they are decoded. */
static int domain_host(un_ctx *c, const uint8_t *p, size_t n, un_buf *out) {
    if (n == 0) return UN_ERR_DOMAIN_TO_ASCII;
    if (!un_buf_reserve(out, n)) return UN_ERR_MEMORY;
    int non_ascii;
    uint16_t classes = lowered(p, n, out->data, &non_ascii);
    if ((classes & UN_FORBIDDEN_DOMAIN) && memchr(p, '%', n)) {
        un_buf *d = &c->scratch2;
        d->len = 0;
        if (!un_buf_reserve(d, n)) return UN_ERR_MEMORY;
        n = un_percent_decode(d->data, p, n);
        if (n == 0) return UN_ERR_DOMAIN_TO_ASCII;
        classes = lowered(d->data, n, out->data, &non_ascii);
    }
    if (non_ascii) return UN_ASK_HOST;
    if (classes & UN_FORBIDDEN_DOMAIN) return UN_ERR_DOMAIN_INVALID_CODE_POINT;
    out->len = n;
    if (!un_ends_in_a_number(out->data, out->len)) return UN_OK;
    uint32_t address;
    int err = parse_ipv4(out->data, out->len, &address);
    if (err) return err;
    out->len = 0;
    serialize_ipv4(address, out);
    return UN_OK;
}

UN_COLD static int answered_host(un_ctx *c, const uint8_t *p, size_t n, un_buf *out) {
    un_answer a;
    int status = un_recall(c, UN_ASK_HOST, p, n, &a);
    if (status == UN_OK) un_buf_put(out, a.text, a.len);
    return status;
}

int un_parse_host(un_ctx *c, const uint8_t *p, size_t n, int special, un_buf *out) {
    out->len = 0;
    if (n > 0 && p[0] == '[') {
        uint16_t pieces[8];
        if (p[n - 1] != ']') return UN_ERR_IPV6_UNCLOSED;
        if (!un_parse_ipv6(p + 1, n - 2, pieces)) return UN_ERR_IPV6_INVALID;
        un_buf_putc(out, '[');
        un_serialize_ipv6(pieces, out);
        un_buf_putc(out, ']');
        return UN_OK;
    }
    if (!special) return opaque_host(p, n, out);
    int status = domain_host(c, p, n, out);
    return status == UN_ASK_HOST ? answered_host(c, p, n, out) : status;
}

const char *const UN_HOST_TYPE_NAMES[UN_N_HOST_TYPES] = {
    [UN_DOMAIN_HOST] = "domain", [UN_IPV4_HOST] = "ipv4", [UN_IPV6_HOST] = "ipv6", [UN_OPAQUE_HOST] = "opaque",
};

/* The type of a parsed record's host (core host.host_type). */
un_host_kind un_host_type(const un_url *u) {
    const un_buf *h = &u->host;
    if (!u->has_host || h->len == 0) return UN_NO_HOST;
    if (h->data[0] == '[') return UN_IPV6_HOST;
    /* A generic-mode (RFC 3986) record does not note its scheme's specialness. */
    if (u->special < 0 && un_special_index(u->scheme.data, u->scheme.len) < 0) return UN_OPAQUE_HOST;
    return un_ends_in_a_number(h->data, h->len) ? UN_IPV4_HOST : UN_DOMAIN_HOST;
}
