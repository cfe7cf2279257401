/* SURT keys (core/surt.py): host labels reversed and comma-joined, ')', path and query. */
#include "urlnorm.h"

/* Reverse the labels of a domain or IPv4 host; an IPv6 literal is kept whole. */
static void surt_host(const un_buf *host, un_buf *out) {
    const uint8_t *h = host->data;
    size_t n = host->len;
    if (n && h[0] == '[') {
        un_buf_put(out, h, n);
        return;
    }
    size_t end = n;
    for (size_t i = n; i > 0; i--) {
        if (h[i - 1] != '.') continue;
        un_buf_put(out, h + i, end - i);
        un_buf_putc(out, ',');
        end = i - 1;
    }
    un_buf_put(out, h, end);
}

void un_surt_key(const un_url *u, int with_scheme, int trailing_comma, un_buf *out) {
    if (!u->has_host) {
        un_buf_put(out, u->scheme.data, u->scheme.len);
        un_buf_putc(out, ':');
    } else {
        if (with_scheme) {
            un_buf_put(out, u->scheme.data, u->scheme.len);
            un_buf_puts(out, "://(");
        }
        surt_host(&u->host, out);
        if (u->port >= 0) {
            un_buf_putc(out, ':');
            un_buf_put_uint(out, (unsigned long)u->port);
        }
        if (trailing_comma) un_buf_putc(out, ',');
        un_buf_putc(out, ')');
    }
    un_buf_put(out, u->path.data, u->path.len);
    if (u->has_query) {
        un_buf_putc(out, '?');
        un_buf_put(out, u->query.data, u->query.len);
    }
}
