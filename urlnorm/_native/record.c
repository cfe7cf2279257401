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

UN_HOT void put(un_buf *out, const un_buf *b) { un_buf_put(out, b->data, b->len); }

/* Append a component and note where it starts in out. Inline, as put: a call a component
 * cost 4% of a row. */
UN_HOT void put_at(un_buf *out, const un_buf *b, size_t *at) {
    if (at) *at = out->len;
    put(out, b);
}

void un_serialize_spans(const un_url *u, un_buf *out, size_t at[UN_N_FIELDS]) {
    size_t skip[UN_N_FIELDS];
    if (!at) at = skip;
    if (u->has_scheme) {
        put_at(out, &u->scheme, &at[UN_FIELD_SCHEME]);
        un_buf_putc(out, ':');
    }
    if (u->has_host) {
        un_buf_puts(out, "//");
        put_at(out, &u->username, &at[UN_FIELD_USERNAME]);
        if (u->has_password) {
            un_buf_putc(out, ':');
            put_at(out, &u->password, &at[UN_FIELD_PASSWORD]);
        }
        if (u->has_username || u->has_password) un_buf_putc(out, '@');
        put_at(out, &u->host, &at[UN_FIELD_HOST]);
        if (u->port >= 0) {
            un_buf_putc(out, ':');
            un_buf_put_uint(out, (unsigned long)u->port);
        }
    } else if (u->path.len >= 2 && u->path.data[0] == '/' && u->path.data[1] == '/') {
        /* so that the path does not re-parse as an authority */
        un_buf_puts(out, "/.");
    }
    put_at(out, &u->path, &at[UN_FIELD_PATH]);
    if (u->has_query) {
        un_buf_putc(out, '?');
        put_at(out, &u->query, &at[UN_FIELD_QUERY]);
    }
    if (u->has_fragment) {
        un_buf_putc(out, '#');
        put_at(out, &u->fragment, &at[UN_FIELD_FRAGMENT]);
    }
}

void un_serialize(const un_url *u, un_buf *out) { un_serialize_spans(u, out, NULL); }
