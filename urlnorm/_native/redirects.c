/* Redirect wrappers (core/redirects.py), unwrapped before the parse. The wrappers come from
 * Python as the rule's table: the chain's longest (a byte), then a record per (wrapper, host),
 * each an encoding (an index of
 * UN_REDIRECT_ENCODING_NAMES), then the host pattern, the path pattern and the parameters,
 * each length-prefixed (the parameters a list of length-prefixed names). */
#include <string.h>

#include "urlnorm.h"

const char *const UN_REDIRECT_ENCODING_NAMES[UN_N_REDIRECT_ENCODINGS] = {
    [UN_REDIRECT_FORM] = "form",
    [UN_REDIRECT_PROOFPOINT_V2] = "proofpoint-v2",
    [UN_REDIRECT_PROOFPOINT_V3] = "proofpoint-v3",
};

typedef struct {
    int encoding;
    const uint8_t *host, *path, *params;
    size_t host_len, path_len, params_len;
} wrapper;

/* The length-prefixed field at *at, bounded by n; 0 if it runs past the table. */
static int field(const uint8_t *table, size_t n, size_t *at, const uint8_t **p, size_t *len) {
    if (*at >= n || *at + 1 + table[*at] > n) return 0;
    *len = table[*at], *p = table + *at + 1;
    *at += 1 + *len;
    return 1;
}

static int next_wrapper(const uint8_t *table, size_t n, size_t *at, wrapper *w) {
    if (*at >= n) return 0;
    w->encoding = table[(*at)++];
    return field(table, n, at, &w->host, &w->host_len) && field(table, n, at, &w->path, &w->path_len) &&
           field(table, n, at, &w->params, &w->params_len);
}

int un_host_pattern_matches(const uint8_t *p, size_t len, const uint8_t *h, size_t n) {
    if (len >= 2 && p[0] == '*' && p[1] == '.') return n > len - 1 && un_ascii_ieq(h + n - (len - 1), (const char *)p + 1, len - 1);
    if (len >= 2 && p[len - 2] == '.' && p[len - 1] == '*') return n > len - 1 && un_ascii_ieq(h, (const char *)p, len - 1);
    return n == len && un_ascii_ieq(h, (const char *)p, n);
}

static int host_matches(const wrapper *w, const uint8_t *h, size_t n) { return un_host_pattern_matches(w->host, w->host_len, h, n); }

/* core path_matches: the path, or its start for a pattern ending in '*'. */
static int path_matches(const wrapper *w, const un_buf *path) {
    size_t len = w->path_len;
    if (len && w->path[len - 1] == '*') return path->len >= len - 1 && memcmp(path->data, w->path, len - 1) == 0;
    return path->len == len && (len == 0 || memcmp(path->data, w->path, len) == 0);
}

/* core form_value: the raw value of the first non-empty parameter of the first listed name
 * that has one; 0 if none. */
static int form_value(const wrapper *w, const un_url *u, const uint8_t **value, size_t *value_len) {
    const uint8_t *q = u->query.data;
    size_t n = u->has_query ? u->query.len : 0;
    for (size_t at = 0; at < w->params_len; at += 1 + w->params[at]) {
        size_t name_len = w->params[at];
        if (at + 1 + name_len > w->params_len) return 0;
        for (size_t start = 0; start < n;) {
            const uint8_t *amp = memchr(q + start, '&', n - start);
            size_t end = amp ? (size_t)(amp - q) : n, key = un_key_len(q + start, end - start);
            if (key == name_len && key + 1 < end - start && memcmp(q + start, w->params + at + 1, key) == 0) {
                *value = q + start + key + 1, *value_len = end - start - key - 1;
                return 1;
            }
            start = end + 1;
        }
    }
    return 0;
}

/* core proofpoint_v2: '-' for '%' and '_' for '/', then percent-decoded, in place in out. */
static void proofpoint_v2(un_buf *out) {
    for (size_t i = 0; i < out->len; i++) out->data[i] = out->data[i] == '-' ? '%' : out->data[i] == '_' ? '/' : out->data[i];
    out->len = un_percent_decode(out->data, out->data, out->len);
}

static int base64_digit(uint8_t c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '-' ? 62 : c == '_' ? 63 : -1;
}

/* core base64url: its bytes appended to out, or 0 if the text is not base64url. */
static int base64url(const uint8_t *p, size_t n, un_buf *out) {
    while (n > 0 && p[n - 1] == '=') n--;
    if (n % 4 == 1) return 0;
    uint32_t bits = 0;
    int have = 0;
    for (size_t i = 0; i < n; i++) {
        int d = base64_digit(p[i]);
        if (d < 0) return 0;
        bits = bits << 6 | (uint32_t)d, have += 6;
        if (have >= 8) have -= 8, un_buf_putc(out, (uint8_t)(bits >> have));
    }
    return !out->failed;
}

/* The length a Proofpoint v3 run letter stands for (core _RUN_LENGTHS), or 0. */
static size_t run_length(uint8_t c) {
    int d = base64_digit(c);
    return d < 0 ? 0 : (size_t)d + 2;
}

/* core _fill: target with each '*' (or "**" and a run letter) replaced by the next spare
 * bytes, into out; 0 if the spare bytes run out or a run letter is not one. */
static int fill(const uint8_t *t, size_t n, const uint8_t *spare, size_t spare_len, un_buf *out) {
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] != '*') {
            un_buf_putc(out, t[i]);
            continue;
        }
        size_t count = 1;
        if (i + 2 < n && t[i + 1] == '*') {
            count = run_length(t[i + 2]);
            if (!count) return 0;
            i += 2;
        }
        if (used + count > spare_len) return 0;
        un_buf_put(out, spare + used, count);
        used += count;
    }
    return !out->failed;
}

static const uint8_t *find(const uint8_t *p, size_t n, const char *s, size_t m, int last) {
    const uint8_t *found = NULL;
    for (size_t i = 0; i + m <= n; i++) {
        if (memcmp(p + i, s, m) != 0) continue;
        found = p + i;
        if (!last) break;
    }
    return found;
}

/* core proofpoint_v3 over the whole text, into out (tmp holds the spare bytes). */
static int proofpoint_v3(const uint8_t *p, size_t n, un_buf *out, un_buf *tmp) {
    const uint8_t *start = find(p, n, "/v3/__", 6, 0), *end = find(p, n, "__;", 3, 1);
    if (!start || !end || end < start + 6) return 0;
    const uint8_t *spare = end + 3, *stop = memchr(spare, '!', (size_t)(p + n - spare));
    tmp->len = 0;
    if (!base64url(spare, (size_t)((stop ? stop : p + n) - spare), tmp)) return 0;
    return fill(start + 6, (size_t)(end - start - 6), tmp->data, tmp->len, out);
}

/* The target of wrapper w of u (the split of p), decoded into out as UTF-8; 0 if none. */
static int decoded(un_ctx *c, const wrapper *w, const un_url *u, const uint8_t *p, size_t n, un_buf *out) {
    un_buf *raw = &c->scratch, *tmp = &c->spare;
    const uint8_t *value;
    size_t value_len;
    raw->len = 0;
    if (w->encoding == UN_REDIRECT_PROOFPOINT_V3) {
        if (!proofpoint_v3(p, n, raw, tmp)) return 0;
    } else {
        if (!form_value(w, u, &value, &value_len)) return 0;
        un_buf_put(raw, value, value_len);
        if (w->encoding == UN_REDIRECT_FORM) {
            for (size_t i = 0; i < raw->len; i++) raw->data[i] = raw->data[i] == '+' ? ' ' : raw->data[i];
            raw->len = un_percent_decode(raw->data, raw->data, raw->len);
        } else {
            proofpoint_v2(raw);
        }
    }
    if (raw->failed) return 0;
    un_utf8_replace(out, raw->data, raw->len);
    return !out->failed;
}

static int absolute_web(const un_buf *b) {
    return (b->len >= 7 && un_ascii_ieq(b->data, "http://", 7)) || (b->len >= 8 && un_ascii_ieq(b->data, "https://", 8));
}

/* core target: 1 with the target in out if p (without the whitespace the URL parser drops)
 * is a known wrapper's link and the target is an absolute web URL; u is scratch. */
static int target(un_ctx *c, const un_params *table, const uint8_t *p, size_t n, un_url *u, un_buf *out) {
    p = un_remove_whitespace(&c->trimmed, p, &n);
    if (!p || un_split_generic(p, n, u) != UN_OK || !u->has_scheme || !u->has_host || u->host.len == 0) return 0;
    const un_buf *s = &u->scheme;
    if (!((s->len == 4 && un_ascii_ieq(s->data, "http", 4)) || (s->len == 5 && un_ascii_ieq(s->data, "https", 5)))) return 0;
    const uint8_t *t = (const uint8_t *)table->names;
    wrapper w;
    for (size_t at = 0; next_wrapper(t, table->names_len, &at, &w);) {
        if (!host_matches(&w, u->host.data, u->host.len) || !path_matches(&w, &u->path)) continue;
        out->len = 0;
        if (decoded(c, &w, u, p, n, out)) return absolute_web(out);
    }
    return 0;
}

const uint8_t *un_unwrap_redirects(un_ctx *c, const un_params *table, const uint8_t *p, size_t *n, un_url *u) {
    if (table->names_len == 0) return p;
    un_params wrappers = {.names = table->names + 1, .names_len = table->names_len - 1};
    for (int depth = 0; depth < (uint8_t)table->names[0]; depth++) {
        un_buf *next = &c->scratch2;
        if (!target(c, &wrappers, p, *n, u, next)) break;
        un_buf swap = c->unwrapped;
        c->unwrapped = *next, *next = swap;
        p = c->unwrapped.data, *n = c->unwrapped.len;
    }
    return p;
}
