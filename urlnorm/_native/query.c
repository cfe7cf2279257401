/* Query parameters (core/query.py).
 * Parameters are '&'-separated and compared by raw key, never decoded. */
#include <stdlib.h>
#include <string.h>

#include "urlnorm.h"

typedef struct {
    const uint8_t *p;
    size_t n, key_len, index;
} param;

size_t un_key_len(const uint8_t *p, size_t n) {
    const uint8_t *eq = memchr(p, '=', n);
    return eq ? (size_t)(eq - p) : n;
}

/* Whether a list (each entry a length byte, then the name) has the key, whole (prefix=0) or
 * as a prefix, lower-cased first when fold is set. */
int un_listed(const char *list, size_t list_len, const uint8_t *key, size_t n, int prefix, int fold) {
    for (size_t at = 0; at < list_len; at += 1 + (uint8_t)list[at]) {
        size_t len = (uint8_t)list[at];
        if (at + 1 + len > list_len || (prefix ? len > n : len != n)) continue;
        const uint8_t *name = (const uint8_t *)list + at + 1;
        size_t i = 0;
        while (i < len && name[i] == (fold ? un_ascii_lower(key[i]) : key[i])) i++;
        if (i == len) return 1;
    }
    return 0;
}

/* core query.filter_parameters: the kept parameters, in order, joined by '&'. The query is
 * left as it is until a parameter is dropped; the kept ones are then written to the scratch
 * buffer, which trades places with the query. */
void un_filter_parameters(un_ctx *c, un_url *u, un_keep_fn keep, const void *data) {
    un_buf *out = &c->scratch;
    const uint8_t *q = u->query.data ? u->query.data : (const uint8_t *)""; /* "?" alone */
    size_t n = u->query.len, start = 0, end;
    int dropped = 0, first = 1;
    for (; start <= n; start = end + 1) {
        const uint8_t *amp = memchr(q + start, '&', n - start);
        end = amp ? (size_t)(amp - q) : n;
        int kept = keep(q + start, end - start, data);
        if (!kept && !dropped) {
            out->len = 0;
            un_buf_put(out, q, start ? start - 1 : 0);
            dropped = 1, first = start == 0;
        }
        if (!kept || !dropped) continue;
        if (!first) un_buf_putc(out, '&');
        un_buf_put(out, q + start, end - start);
        first = 0;
    }
    if (!dropped) return;
    un_buf swap = u->query;
    u->query = *out;
    *out = swap;
}

static int by_key(const void *a, const void *b) {
    const param *x = a, *y = b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int cmp = memcmp(x->p, y->p, n);
    if (cmp) return cmp;
    if (x->key_len != y->key_len) return x->key_len < y->key_len ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index; /* stable: values keep their order */
}

/* Sort parameters by key, stably (core query.sort_parameters). */
int un_sort_query(un_ctx *c, un_url *u) {
    if (!u->has_query || u->query.len == 0) return UN_OK;
    const uint8_t *q = u->query.data;
    size_t n = u->query.len, count = 1;
    for (size_t i = 0; i < n; i++) count += q[i] == '&';
    if (count == 1) return UN_OK;
    un_buf *slots = &c->scratch2;
    slots->len = 0;
    if (!un_buf_reserve(slots, count * sizeof(param))) return UN_ERR_MEMORY;
    param *ps = (param *)(void *)slots->data;
    size_t k = 0, start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && q[i] != '&') continue;
        ps[k] = (param){q + start, i - start, un_key_len(q + start, i - start), k};
        k++;
        start = i + 1;
    }
    qsort(ps, count, sizeof *ps, by_key);
    un_buf *out = &c->scratch;
    out->len = 0;
    for (size_t i = 0; i < count; i++) {
        if (i) un_buf_putc(out, '&');
        un_buf_put(out, ps[i].p, ps[i].n);
    }
    un_buf_set(&u->query, out->data, out->len);
    return u->query.failed ? UN_ERR_MEMORY : UN_OK;
}

/* ---- parameters selected by raw key (core query.select_parameters) ------------------------- */

static int named(const uint8_t *p, size_t n, const void *data) {
    const un_params *params = data;
    return n && un_listed(params->names, params->names_len, p, un_key_len(p, n), 0, 0);
}

static int not_named(const uint8_t *p, size_t n, const void *data) {
    const un_params *params = data;
    return n && !un_listed(params->names, params->names_len, p, un_key_len(p, n), 0, 0);
}

void un_select_parameters(un_ctx *c, un_url *u, const uint8_t *p, size_t n, const un_params *params, int keep, un_buf *out) {
    size_t head = 0, fragment;
    while (head < n && p[head] != '?' && p[head] != '#') head++;
    for (fragment = head; fragment < n && p[fragment] != '#';) fragment++;
    un_buf_put(out, p, head);
    if (head < fragment) { /* p[head] is the '?' */
        un_buf_set(&u->query, p + head + 1, fragment - head - 1);
        un_filter_parameters(c, u, keep ? named : not_named, params);
        if (u->query.len) un_buf_putc(out, '?'), un_buf_put(out, u->query.data, u->query.len);
    }
    un_buf_put(out, p + fragment, n - fragment);
}

/* ---- the URL Standard's application/x-www-form-urlencoded parser (§5.1, core form_pairs) ---- */

int un_next_form_pair(const uint8_t **q, size_t *n, un_form_pair *pair) {
    while (*n) {
        const uint8_t *p = *q, *amp = memchr(p, '&', *n);
        size_t len = amp ? (size_t)(amp - p) : *n, used = len + (amp != NULL);
        *q = p + used, *n -= used;
        if (!len) continue; /* empty sequences are skipped */
        pair->name = p, pair->name_len = un_key_len(p, len);
        pair->value = p + pair->name_len + (pair->name_len < len);
        pair->value_len = len - (size_t)(pair->value - p);
        return 1;
    }
    return 0;
}

int un_form_name_is(const un_form_pair *pair, const uint8_t *name, size_t n, un_buf *tmp, un_buf *decoded) {
    if (un_form_plain(pair->name, pair->name_len)) return pair->name_len == n && (n == 0 || memcmp(pair->name, name, n) == 0);
    decoded->len = 0;
    un_form_decode(decoded, pair->name, pair->name_len, tmp);
    return !decoded->failed && decoded->len == n && (n == 0 || memcmp(decoded->data, name, n) == 0);
}
