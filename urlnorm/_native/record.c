/* The URL record and its serialiser (core/record.py): RFC 3986 §5.3, URL Standard §4.5. */
#include <string.h>

#include "urlnorm.h"

#define EACH_FIELD(u, X) X(u->scheme) X(u->username) X(u->password) X(u->host) X(u->path) X(u->query) X(u->fragment)

void un_url_reset(un_url *u) {
#define RESET(b) (b).len = 0, (b).failed = 0;
    EACH_FIELD(u, RESET)
#undef RESET
    u->has_scheme = u->has_host = u->has_query = u->has_fragment = 0;
    u->has_username = u->has_password = 0;
    u->port = -1;
    u->special = -1;
    u->opaque = 0;
}

void un_url_free(un_url *u) {
#define FREE(b) un_buf_free(&(b));
    EACH_FIELD(u, FREE)
#undef FREE
}

int un_url_failed(const un_url *u) {
    int failed = 0;
#define FAILED(b) failed |= (b).failed;
    EACH_FIELD(u, FAILED)
#undef FAILED
    return failed;
}

/* Room for every field and what separates them: "://", ':', '@', ':' and five digits of
 * port, '?', '#' and "/." never take more than sixteen bytes. */
static size_t serialized_bound(const un_url *u) {
    size_t n = 16;
#define LEN(b) n += (b).len;
    EACH_FIELD(u, LEN)
#undef LEN
    return n;
}

/* Write a component at o and note where it starts (out's data is at base). */
UN_HOT uint8_t *put_at(uint8_t *o, const uint8_t *base, const un_buf *b, size_t *at) {
    *at = (size_t)(o - base);
    un_copy(o, b->data, b->len);
    return o + b->len;
}

UN_HOT uint8_t *put_char(uint8_t *o, uint8_t c) {
    *o = c;
    return o + 1;
}

/* The URL Standard's serialiser (§4.5). out is made room for once, and each component and
 * separator written without a check a write: eight checks a row cost 3% of one. */
void un_serialize_spans(const un_url *u, un_buf *out, size_t at[UN_N_FIELDS]) {
    size_t skip[UN_N_FIELDS];
    if (!at) at = skip;
    if (!un_buf_reserve(out, serialized_bound(u))) return;
    uint8_t *base = out->data, *o = base + out->len;
    if (u->has_scheme) o = put_char(put_at(o, base, &u->scheme, &at[UN_FIELD_SCHEME]), ':');
    if (u->has_host) {
        o = put_char(put_char(o, '/'), '/');
        o = put_at(o, base, &u->username, &at[UN_FIELD_USERNAME]);
        if (u->has_password) o = put_at(put_char(o, ':'), base, &u->password, &at[UN_FIELD_PASSWORD]);
        if (u->has_username || u->has_password) o = put_char(o, '@');
        o = put_at(o, base, &u->host, &at[UN_FIELD_HOST]);
        if (u->port >= 0) o = un_write_uint(put_char(o, ':'), (unsigned long)u->port);
    } else if (u->path.len >= 2 && u->path.data[0] == '/' && u->path.data[1] == '/') {
        /* so that the path does not re-parse as an authority */
        o = put_char(put_char(o, '/'), '.');
    }
    o = put_at(o, base, &u->path, &at[UN_FIELD_PATH]);
    if (u->has_query) o = put_at(put_char(o, '?'), base, &u->query, &at[UN_FIELD_QUERY]);
    if (u->has_fragment) o = put_at(put_char(o, '#'), base, &u->fragment, &at[UN_FIELD_FRAGMENT]);
    out->len = (size_t)(o - base);
}

void un_serialize(const un_url *u, un_buf *out) { un_serialize_spans(u, out, NULL); }
