/* The crawl profile's lossy rules (core/crawl.py): dropping what does not change the page a
 * crawler fetches (tracking and session parameters, the fragment's twin in the path), folding
 * schemes and slashes a site serves alike. Parameters are compared by raw key, never decoded. */
#include <stdlib.h>
#include <string.h>

#include "urlnorm.h"

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

/* Whether the (raw) key may be listed: its first byte rules most keys out. */
static int may_be_listed(const un_params *params, const uint8_t *key, size_t k) {
    if (k == 0) return 1;
    uint8_t b = un_ascii_lower(key[0]);
    return params->first_bytes[b >> 6] >> (b & 63) & 1;
}

static int not_listed(const un_params *params, const uint8_t *p, size_t n) {
    size_t k = un_key_len(p, n);
    if (!may_be_listed(params, p, k)) return 1;
    return !((params->name_lengths >> (k < 63 ? k : 63) & 1) && un_listed(params->names, params->names_len, p, k, 0, 1)) &&
           !un_listed(params->prefixes, params->prefixes_len, p, k, 1, 1);
}

static int is_query_filter(un_rule_id id) {
    return id == UN_RULE_DROP_PARAMETERS || id == UN_RULE_CLEAN_QUERY || id == UN_RULE_DROP_SESSION_HASH_PARAMETERS;
}

/* core _SESSION_HASH: the parameter's value (after its first '=') is 32 hex digits. */
static int has_session_hash(const uint8_t *p, size_t n) {
    size_t k = un_key_len(p, n);
    if (n - k != 33) return 0;
    for (size_t i = k + 1; i < n; i++) {
        if (!un_is(p[i], UN_HEXDIG)) return 0;
    }
    return 1;
}

typedef struct {
    const un_rule *rules;
    int n;
} filters;

/* A parameter every filter keeps (un_keep_fn): drop_parameters' unlisted, clean_query's
 * non-empty (its redundant '&'), drop_session_hash_parameters' without a hash. */
static int kept_by_all(const uint8_t *p, size_t n, const void *data) {
    const filters *f = data;
    for (int i = 0; i < f->n; i++) {
        const un_rule *r = &f->rules[i];
        if (r->id == UN_RULE_CLEAN_QUERY ? n == 0
            : r->id == UN_RULE_DROP_SESSION_HASH_PARAMETERS ? has_session_hash(p, n)
                                                           : !not_listed(&r->params, p, n))
            return 0;
    }
    return 1;
}

/* Then an emptied query goes if clean_query was among them (RFC 3986 §6.2.3); drop_parameters
 * alone keeps an empty query. */
int un_filter_query(un_ctx *c, un_url *u, const un_rule *rules, int n_rules, int *n_applied) {
    filters f = {rules, 0};
    int cleans = 0;
    for (; f.n < n_rules && is_query_filter(rules[f.n].id); f.n++) cleans |= rules[f.n].id == UN_RULE_CLEAN_QUERY;
    *n_applied = f.n;
    if (!u->has_query) return UN_OK;
    if (u->query.len || cleans) un_filter_parameters(c, u, kept_by_all, &f);
    if (cleans) u->has_query = u->query.len > 0;
    return u->query.failed ? UN_ERR_MEMORY : UN_OK;
}

/* ---- drop_duplicate_parameters: a parameter as it compares, "q" as "q=" --------------------- */

typedef struct {
    const uint8_t *p;
    size_t n, key_len, index;
} spelling;

static int bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
    int cmp = memcmp(a, b, an < bn ? an : bn);
    return cmp ? cmp : (an > bn) - (an < bn);
}

static const uint8_t *value_of(const spelling *s, size_t *n) {
    size_t start = s->key_len + (s->key_len < s->n);
    *n = s->n - start;
    return s->p + start;
}

/* Empty parameters first, then by key and value. */
static int spelling_order(const spelling *x, const spelling *y) {
    size_t xv, yv;
    int cmp = (x->n != 0) - (y->n != 0);
    if (!cmp) cmp = bytes_cmp(x->p, x->key_len, y->p, y->key_len);
    if (cmp) return cmp;
    const uint8_t *xp = value_of(x, &xv), *yp = value_of(y, &yv);
    return bytes_cmp(xp, xv, yp, yv);
}

static int spelling_cmp(const void *a, const void *b) {
    const spelling *x = a, *y = b;
    int cmp = spelling_order(x, y);
    return cmp ? cmp : (x->index > y->index) - (x->index < y->index);
}

static int same_spelling(const spelling *x, const spelling *y) { return x->key_len == y->key_len && spelling_order(x, y) == 0; }

/* Mark in repeat[] each parameter that spells an earlier one: pairwise for a few (most
 * queries), by sorting for more, so that a query of thousands stays O(k log k). */
static void mark_repeats(spelling *s, size_t k, uint8_t *repeat) {
    memset(repeat, 0, k);
    if (k <= 16) {
        for (size_t i = 1; i < k; i++) {
            for (size_t j = 0; j < i && !repeat[i]; j++) repeat[i] = same_spelling(&s[i], &s[j]);
        }
        return;
    }
    qsort(s, k, sizeof *s, spelling_cmp);
    for (size_t i = 1; i < k; i++) repeat[s[i].index] = same_spelling(&s[i], &s[i - 1]);
}

/* The marks and the filter's place among the parameters, which it visits in order. */
typedef struct {
    const uint8_t *repeat;
    size_t *at;
} repeats;

static int not_repeated(const uint8_t *p, size_t n, const void *data) {
    const repeats *r = data;
    (void)p, (void)n;
    return !r->repeat[(*r->at)++];
}

/* core drop_duplicate_parameters: the first of each spelling stays where it stood. */
int un_drop_duplicate_parameters(un_ctx *c, un_url *u) {
    const uint8_t *q = u->query.data;
    size_t n = u->query.len, k = 1;
    if (!u->has_query || n == 0 || !memchr(q, '&', n)) return UN_OK;
    for (size_t i = 0; i < n; i++) k += q[i] == '&';
    un_buf *slots = &c->scratch2;
    slots->len = 0;
    if (!un_buf_reserve(slots, k * (sizeof(spelling) + 1))) return UN_ERR_MEMORY;
    spelling *s = (spelling *)(void *)slots->data;
    uint8_t *repeat = slots->data + k * sizeof(spelling);
    for (size_t i = 0, start = 0, j = 0; i <= n; i++) {
        if (i < n && q[i] != '&') continue;
        s[j] = (spelling){q + start, i - start, un_key_len(q + start, i - start), j};
        j++, start = i + 1;
    }
    mark_repeats(s, k, repeat);
    if (!memchr(repeat, 1, k)) return UN_OK;
    size_t at = 0;
    un_filter_parameters(c, u, not_repeated, &(repeats){repeat, &at});
    return u->query.failed ? UN_ERR_MEMORY : UN_OK;
}

/* ---- drop_fragment_except_hashbang ------------------------------------------------------- */

void un_drop_fragment_except_hashbang(un_url *u) {
    if (u->has_fragment && !(u->fragment.len && u->fragment.data[0] == '!')) u->has_fragment = 0;
}

/* ASP.NET's cookieless session ids (core _ASPNET_SESSION): the length of the segment and its
 * '/' at p[i], which follows a '/', if it is "(ID)" or "(X(ID)...)" with each ID 24 of
 * [0-9a-z] and X a letter, any case, and ".aspx" comes after at least one more byte; else 0. */
static int is_id_byte(uint8_t b) { return un_is(b, UN_DIGIT) || un_is(b, UN_ALPHA); }

static size_t id_at(const uint8_t *p, size_t n, size_t j) {
    if (j + 24 > n) return 0;
    for (size_t k = j; k < j + 24; k++) {
        if (!is_id_byte(p[k])) return 0;
    }
    return 24;
}

static size_t aspnet_segment(const uint8_t *p, size_t n, size_t i) {
    size_t j = i + 1;
    if (id_at(p, n, j)) {
        j += 24;
    } else {
        size_t groups = 0;
        for (; j + 2 < n && un_is(p[j], UN_ALPHA) && p[j + 1] == '(' && id_at(p, n, j + 2) && j + 26 < n && p[j + 26] == ')'; j += 27) groups++;
        if (!groups) return 0;
    }
    if (j + 1 >= n || p[j] != ')' || p[j + 1] != '/') return 0;
    for (size_t k = j + 2; k + 5 <= n && p[k] != '?'; k++) {
        if (k > j + 2 && p[k] == '.' && un_ascii_ieq(p + k, ".aspx", 5)) return j + 2 - i;
    }
    return 0;
}

static int drop_aspnet_sessions(un_ctx *c, un_url *u) {
    const uint8_t *p = u->path.data;
    size_t n = u->path.len, run = 0;
    un_buf *out = &c->scratch;
    out->len = 0;
    for (size_t i = 1; i < n; i++) {
        const uint8_t *open = memchr(p + i, '(', n - i);
        if (!open) break;
        i = (size_t)(open - p);
        size_t len = p[i - 1] == '/' ? aspnet_segment(p, n, i) : 0;
        if (!len) continue;
        un_buf_put(out, p + run, i - run);
        run = i + len;
        i = run - 1;
    }
    if (run == 0) return UN_OK;
    un_buf_put(out, p + run, n - run);
    un_buf_set(&u->path, out->data, out->len);
    return u->path.failed ? UN_ERR_MEMORY : UN_OK;
}

static int drop_jsessionid(un_ctx *c, un_url *u) {
    static const char marker[] = ";jsessionid=";
    const size_t m = sizeof marker - 1;
    const uint8_t *p = u->path.data;
    size_t n = u->path.len, run = 0;
    un_buf *out = &c->scratch;
    out->len = 0;
    for (size_t i = 0; i + m <= n; i++) {
        /* Most paths have no ';': the search skips to each one. */
        const uint8_t *semi = memchr(p + i, ';', n - m + 1 - i);
        if (!semi) break;
        i = (size_t)(semi - p);
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

/* Drop ";jsessionid=..." path parameters (Java servlet URL rewriting), any case, then
 * ASP.NET's cookieless session segments. */
int un_drop_path_session_id(un_ctx *c, un_url *u) {
    int err = drop_jsessionid(c, u);
    return err ? err : drop_aspnet_sessions(c, u);
}

/* Strip "www."/"wwwN." when a registrable domain remains: the Public Suffix List decides (the
 * table the rule's one names byte gives, else the process's list), or for a non-ASCII host
 * Python does, once per distinct host (UN_ASK_WWW). */
int un_strip_www(un_ctx *c, un_url *u, const un_params *params) {
    const uint8_t *h = u->host.data;
    size_t n = u->host.len, i = 3;
    if (!u->has_host || n < 4 || !un_ascii_ieq(h, "www", 3)) return UN_OK;
    while (i < n && h[i] >= '0' && h[i] <= '9') i++;
    if (i >= n || h[i] != '.') return UN_OK;
    int table = params->names_len == 1 ? (uint8_t)params->names[0] : UN_PSL_ALL;
    int known = un_has_registrable_domain(table, h + i + 1, n - i - 1, &c->scratch2);
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

void un_fold_https(un_url *u) {
    if (u->scheme.len != 5 || memcmp(u->scheme.data, "https", 5) != 0) return;
    un_buf_set(&u->scheme, (const uint8_t *)"http", 4);
    un_drop_default_port(u);
}

/* Drop the one trailing dot of a domain host (RFC 1034 §3.1); two are left alone. */
void un_drop_trailing_dot(un_url *u) {
    const un_buf *h = &u->host;
    size_t n = h->len;
    if (n < 2 || h->data[n - 1] != '.' || h->data[n - 2] == '.') return;
    if (un_host_type(u) == UN_DOMAIN_HOST) u->host.len--;
}

void un_drop_trailing_slash(un_url *u) { u->path.len = un_without_trailing_slashes(u->path.data, u->path.len); }
