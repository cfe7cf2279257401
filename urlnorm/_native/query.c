/* Query parameters (core/query.py) and the crawl profile's lossy rules (core/crawl.py).
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
static int listed(const char *list, size_t list_len, const uint8_t *key, size_t n, int prefix, int fold) {
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

static void mark_first_byte(un_params *params, uint8_t b) { params->first_bytes[b >> 6] |= 1ULL << (b & 63); }

void un_params_index(un_params *params) {
    params->name_lengths = 0;
    memset(params->first_bytes, 0, sizeof params->first_bytes);
    const char *lists[2] = {params->names, params->prefixes};
    size_t lens[2] = {params->names_len, params->prefixes_len};
    for (int l = 0; l < 2; l++) {
        for (size_t at = 0; at < lens[l]; at += 1 + (uint8_t)lists[l][at]) {
            size_t len = (uint8_t)lists[l][at];
            if (l == 0) params->name_lengths |= 1ULL << (len < 63 ? len : 63);
            if (len == 0 || at + 1 >= lens[l]) {
                memset(params->first_bytes, 0xFF, sizeof params->first_bytes); /* matches any key */
                continue;
            }
            mark_first_byte(params, (uint8_t)lists[l][at + 1]);
        }
    }
}

void un_profile_index(un_profile *prof) {
    for (int i = 0; i < prof->n_rules; i++) un_params_index(&prof->rules[i].params);
}

/* Whether the (raw) key may be listed: its first byte rules most keys out. */
static int may_be_listed(const un_params *params, const uint8_t *key, size_t k) {
    if (k == 0) return 1;
    uint8_t b = un_ascii_lower(key[0]);
    return params->first_bytes[b >> 6] >> (b & 63) & 1;
}

static int not_listed(const un_params *params, const uint8_t *p, size_t n) {
    size_t k = un_key_len(p, n);
    if (!may_be_listed(params, p, k)) return 1;
    return !((params->name_lengths >> (k < 63 ? k : 63) & 1) && listed(params->names, params->names_len, p, k, 0, 1)) &&
           !listed(params->prefixes, params->prefixes_len, p, k, 1, 1);
}

int un_is_query_filter(un_rule_id id) { return id == UN_RULE_DROP_PARAMETERS || id == UN_RULE_CLEAN_QUERY; }

typedef struct {
    const un_rule *rules;
    int n;
} filters;

/* A parameter every filter keeps (un_keep_fn): drop_parameters' unlisted, clean_query's
 * non-empty (its redundant '&'). */
static int kept_by_all(const uint8_t *p, size_t n, const void *data) {
    const filters *f = data;
    for (int i = 0; i < f->n; i++) {
        const un_rule *r = &f->rules[i];
        if (r->id == UN_RULE_CLEAN_QUERY ? n == 0 : !not_listed(&r->params, p, n)) return 0;
    }
    return 1;
}

/* Then an emptied query goes if clean_query was among them (RFC 3986 §6.2.3); drop_parameters
 * alone keeps an empty query. */
int un_filter_query(un_ctx *c, un_url *u, const un_rule *rules, int n_rules, int *n_applied) {
    filters f = {rules, 0};
    int cleans = 0;
    for (; f.n < n_rules && un_is_query_filter(rules[f.n].id); f.n++) cleans |= rules[f.n].id == UN_RULE_CLEAN_QUERY;
    *n_applied = f.n;
    if (!u->has_query) return UN_OK;
    if (u->query.len || cleans) un_filter_parameters(c, u, kept_by_all, &f);
    if (cleans) u->has_query = u->query.len > 0;
    return u->query.failed ? UN_ERR_MEMORY : UN_OK;
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

/* Drop ";jsessionid=..." path parameters (Java servlet URL rewriting), any case. */
int un_drop_path_session_id(un_ctx *c, un_url *u) {
    static const char marker[] = ";jsessionid=";
    const size_t m = sizeof marker - 1;
    const uint8_t *p = u->path.data;
    size_t n = u->path.len, run = 0;
    un_buf *out = &c->scratch;
    out->len = 0;
    for (size_t i = 0; i + m <= n; i++) {
        if (!un_ascii_ieq(p + i, marker, m)) continue;
        un_buf_put(out, p + run, i - run);
        i += m;
        while (i < n && p[i] != '/' && p[i] != ';') i++;
        run = i;
        i--;
    }
    if (run == 0) return UN_OK;
    un_buf_put(out, p + run, n - run);
    un_buf_set(&u->path, out->data, out->len);
    return u->path.failed ? UN_ERR_MEMORY : UN_OK;
}

/* Strip "www."/"wwwN." when a registrable domain remains: the Public Suffix List decides,
 * in Python, once per distinct host (UN_ASK_WWW). */
int un_strip_www(un_ctx *c, un_url *u) {
    const uint8_t *h = u->host.data;
    size_t n = u->host.len, i = 3;
    if (!u->has_host || n < 4 || !un_ascii_ieq(h, "www", 3)) return UN_OK;
    while (i < n && h[i] >= '0' && h[i] <= '9') i++;
    if (i >= n || h[i] != '.') return UN_OK;
    int known = un_psl_loaded() ? un_has_registrable_domain(h + i + 1, n - i - 1, &c->scratch2) : -1;
    if (known == 0) return UN_OK;
    if (known == 1) {
        memmove(u->host.data, u->host.data + i + 1, n - i - 1);
        u->host.len = n - i - 1;
        return UN_OK;
    }
    un_answer a;
    int status = un_recall(c, UN_ASK_WWW, h, n, &a);
    if (status) return status;
    un_buf_set(&u->host, a.text, a.len);
    return u->host.failed ? UN_ERR_MEMORY : UN_OK;
}

/* ---- parameters selected by raw key (core query.select_parameters) ------------------------- */

static int named(const uint8_t *p, size_t n, const void *data) {
    const un_params *params = data;
    return n && listed(params->names, params->names_len, p, un_key_len(p, n), 0, 0);
}

static int not_named(const uint8_t *p, size_t n, const void *data) {
    const un_params *params = data;
    return n && !listed(params->names, params->names_len, p, un_key_len(p, n), 0, 0);
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

void un_form_decode(un_buf *out, const uint8_t *p, size_t n, un_buf *tmp) {
    tmp->len = 0;
    if (!un_buf_reserve(tmp, n)) {
        out->failed = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) tmp->data[i] = p[i] == '+' ? ' ' : p[i];
    /* Decoding never writes past what it has read, so it runs in place. */
    tmp->len = un_percent_decode(tmp->data, tmp->data, n);
    un_utf8_replace(out, tmp->data, tmp->len);
}

int un_form_name_is(const un_form_pair *pair, const uint8_t *name, size_t n, un_buf *tmp, un_buf *decoded) {
    if (!memchr(pair->name, '%', pair->name_len) && !memchr(pair->name, '+', pair->name_len)) {
        return pair->name_len == n && (n == 0 || memcmp(pair->name, name, n) == 0); /* decodes to itself */
    }
    decoded->len = 0;
    un_form_decode(decoded, pair->name, pair->name_len, tmp);
    return !decoded->failed && decoded->len == n && (n == 0 || memcmp(decoded->data, name, n) == 0);
}
