/* Generic splitting (core/split.py): RFC 3986 Appendix B, then the authority split of §3.2.
 * It changes nothing: no case folding, no decoding; absent and empty components differ. */
#include <string.h>

#include "urlnorm.h"

/* The delimiters of RFC 3986 Appendix B's expression, a bit each: a scan stops at those its
 * component ends at (a scheme at any, an authority at '/', '?' or '#'). */
enum { STOP_HASH = 1, STOP_QUERY = 2, STOP_SLASH = 4, STOP_COLON = 8 };
static const uint8_t DELIMITER[256] = {['#'] = STOP_HASH, ['?'] = STOP_QUERY, ['/'] = STOP_SLASH, [':'] = STOP_COLON};

/* The index of the first byte at or after i that is a delimiter of stop. */
static size_t span_until(const uint8_t *p, size_t n, size_t i, uint8_t stop) {
    while (i < n && !(DELIMITER[p[i]] & stop)) i++;
    return i;
}

static int is_scheme(const uint8_t *p, size_t n) {
    if (n == 0 || !un_is(p[0], UN_ALPHA)) return 0;
    for (size_t i = 1; i < n; i++) {
        if (!un_is(p[i], UN_SCHEME_CHAR)) return 0;
    }
    return 1;
}

/* RFC 3986 §3.2.3: digits, at most 65535; empty means absent. */
static int parse_port(const uint8_t *p, size_t n, int32_t *port) {
    *port = -1;
    if (n == 0) return UN_OK;
    long v = 0;
    size_t significant = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return UN_ERR_PORT_INVALID;
        if ((significant || p[i] != '0') && ++significant <= 6) v = v * 10 + (p[i] - '0');
    }
    if (significant > 5 || v > 65535) return UN_ERR_PORT_OUT_OF_RANGE;
    *port = (int32_t)v;
    return UN_OK;
}

static int split_host_port(const uint8_t *p, size_t n, un_url *u) {
    size_t host_end, port_at;
    if (n > 0 && p[0] == '[') {
        const uint8_t *close = memchr(p, ']', n);
        if (!close) return UN_ERR_IPV6_UNCLOSED;
        host_end = (size_t)(close - p) + 1;
        if (host_end < n && p[host_end] != ':') return UN_ERR_PORT_INVALID;
        port_at = host_end;
    } else {
        const uint8_t *colon = memchr(p, ':', n);
        host_end = port_at = colon ? (size_t)(colon - p) : n;
    }
    un_buf_set(&u->host, p, host_end);
    u->has_host = 1;
    int err = port_at < n ? parse_port(p + port_at + 1, n - port_at - 1, &u->port) : UN_OK;
    if (err) return err;
    for (size_t i = 0; i < host_end; i++) {
        /* RFC 3986 §3.2.2 allows no controls or space in a host. */
        if (p[i] <= ' ' || p[i] == 0x7f) return UN_ERR_HOST_INVALID_CODE_POINT;
    }
    return UN_OK;
}

/* RFC 3986 §3.2: [userinfo "@"] host [":" port], userinfo split at its first ':'. */
static int split_authority(const uint8_t *p, size_t n, un_url *u) {
    size_t at = 0; /* after the last '@': most authorities have none, found by one memchr */
    for (const uint8_t *a = memchr(p, '@', n); a; a = memchr(p + at, '@', n - at)) at = (size_t)(a - p) + 1;
    if (at > 0) {
        const uint8_t *colon = memchr(p, ':', at - 1);
        size_t user_end = colon ? (size_t)(colon - p) : at - 1;
        un_buf_set(&u->username, p, user_end);
        u->has_username = 1;
        if (colon) {
            un_buf_set(&u->password, p + user_end + 1, at - 1 - user_end - 1);
            u->has_password = 1;
        }
    }
    return split_host_port(p + at, n - at, u);
}

/* The index of the first c in p[at, end), or end. */
static size_t first_of(const uint8_t *p, size_t at, size_t end, uint8_t c) {
    const uint8_t *hit = at < end ? memchr(p + at, c, end - at) : NULL;
    return hit ? (size_t)(hit - p) : end;
}

/* Where a path that starts at p[at] ends (RFC 3986 Appendix B): the first '?' or '#', or n;
 * two memchr scans rather than one loop a byte. */
static size_t path_stop(const uint8_t *p, size_t n, size_t at) { return first_of(p, at, first_of(p, at, n, '?'), '#'); }

int un_split_generic(const uint8_t *p, size_t n, un_url *u) {
    un_url_reset(u);
    size_t i = span_until(p, n, 0, STOP_COLON | STOP_SLASH | STOP_QUERY | STOP_HASH);
    if (i > 0 && i < n && p[i] == ':') {
        if (!is_scheme(p, i)) return UN_ERR_INVALID_SCHEME;
        un_buf_set(&u->scheme, p, i);
        u->has_scheme = 1;
        i++;
    } else {
        i = 0;
    }
    if (i + 1 < n && p[i] == '/' && p[i + 1] == '/') {
        size_t end = span_until(p, n, i + 2, STOP_SLASH | STOP_QUERY | STOP_HASH);
        int err = split_authority(p + i + 2, end - i - 2, u);
        if (err) return err;
        i = end;
    }
    size_t end = path_stop(p, n, i);
    un_buf_set(&u->path, p + i, end - i);
    if (end < n && p[end] == '?') {
        i = end + 1;
        end = first_of(p, i, n, '#');
        un_buf_set(&u->query, p + i, end - i);
        u->has_query = 1;
    }
    if (end < n) {
        un_buf_set(&u->fragment, p + end + 1, n - end - 1);
        u->has_fragment = 1;
    }
    return un_url_failed(u) ? UN_ERR_MEMORY : UN_OK;
}
