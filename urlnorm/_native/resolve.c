/* Reference resolution (core/resolve.py): RFC 3986 §5.2 strict and non-strict, and the URL
 * Standard's (the basic URL parser with a base). */
#include <string.h>

#include "urlnorm.h"

static int scheme_eq_ci(const un_url *a, const un_url *b) {
    if (a->scheme.len != b->scheme.len) return 0;
    for (size_t i = 0; i < a->scheme.len; i++) {
        if ((a->scheme.data[i] | 0x20) != (b->scheme.data[i] | 0x20)) return 0;
    }
    return 1;
}

static void set_path_without_dots(un_ctx *c, un_url *u, const uint8_t *p, size_t n) {
    un_buf *tmp = &c->scratch;
    tmp->len = 0;
    un_remove_dot_segments(tmp, p, n);
    un_buf_set(&u->path, tmp->data, tmp->len);
}

/* §5.2.3 merge, then remove_dot_segments, into ref's path. */
static void merged_path(un_ctx *c, const un_url *base, un_url *ref) {
    un_buf *m = &c->scratch2;
    m->len = 0;
    if (base->has_host && base->path.len == 0) {
        un_buf_putc(m, '/');
    } else {
        size_t cut = base->path.len;
        while (cut > 0 && base->path.data[cut - 1] != '/') cut--;
        un_buf_put(m, base->path.data, cut);
    }
    un_buf_put(m, ref->path.data, ref->path.len);
    set_path_without_dots(c, ref, m->data, m->len);
}

/* RFC 3986 §5.2.2 "Transform References"; the result is written over ref (u). */
static int resolve_generic(un_ctx *c, const un_url *base, un_url *u, int strict) {
    if (!base->has_scheme) return UN_ERR_INVALID_BASE;
    if (!strict && u->has_scheme && scheme_eq_ci(u, base)) u->has_scheme = 0;
    if (u->has_scheme || u->has_host) {
        if (!u->has_scheme) un_buf_set(&u->scheme, base->scheme.data, base->scheme.len);
        u->has_scheme = 1;
        set_path_without_dots(c, u, u->path.data, u->path.len);
        return UN_OK;
    }
    if (u->path.len == 0) {
        un_buf_set(&u->path, base->path.data, base->path.len);
        if (!u->has_query) un_buf_set(&u->query, base->query.data, base->query.len);
        u->has_query = u->has_query || base->has_query;
    } else if (u->path.data[0] == '/') {
        set_path_without_dots(c, u, u->path.data, u->path.len);
    } else {
        merged_path(c, base, u);
    }
    un_buf_set(&u->scheme, base->scheme.data, base->scheme.len);
    u->has_scheme = 1;
    un_buf_set(&u->username, base->username.data, base->username.len);
    un_buf_set(&u->password, base->password.data, base->password.len);
    un_buf_set(&u->host, base->host.data, base->host.len);
    u->has_username = base->has_username, u->has_password = base->has_password;
    u->has_host = base->has_host, u->port = base->port;
    return UN_OK;
}

const char *const UN_JOIN_MODE_NAMES[UN_N_JOIN_MODES] = {
    [UN_JOIN_WHATWG] = "whatwg", [UN_JOIN_RFC3986] = "rfc3986", [UN_JOIN_LEGACY] = "legacy",
};

int un_join(un_ctx *c, int mode, const uint8_t *base, size_t base_n, const uint8_t *ref,
            size_t ref_n, un_url *b, un_url *u) {
    int err;
    if (mode == UN_JOIN_WHATWG) {
        err = un_whatwg_parse(c, base, base_n, NULL, b);
        if (err) return err >= UN_ASK_HOST ? err : UN_ERR_INVALID_BASE;
        return un_whatwg_parse(c, ref, ref_n, b, u);
    }
    err = un_split_generic(base, base_n, b);
    if (!err) err = un_split_generic(ref, ref_n, u);
    if (!err) err = resolve_generic(c, b, u, mode == UN_JOIN_RFC3986);
    return err ? err : (un_url_failed(u) ? UN_ERR_MEMORY : UN_OK);
}
