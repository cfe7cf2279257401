/* Where a visit came from (core/referrers.py): a referrer's medium, source and search term,
 * looked up in a referrer database that Python hands over once a call and that is kept here
 * as a hash table. The lookup is Snowplow's: host and path keys, then hosts, each leading
 * label dropped in turn, and for Matomo's {} patterns the host as Matomo reduces it. */
#include <string.h>

#include "kernel.h"

/* The table's kinds of key: a host or host-and-path key (its code: the source's index), a
 * host some key has a path under (so that hosts without one are not probed with paths), and
 * a country code ({} stands for one). */
enum { KIND_KEY, KIND_PATHS, KIND_CODE, KIND_CATEGORY };
/* A source record's flag: a parameter is a /regex/, which only Python runs. */
enum { SOURCE_REGEX = 1 };

/* ---- the table, from Python's bytes (native/operations.py referrer_tables) ------------------ */

/* A length-prefixed string at p[*at], *at past it; 0 if it overruns n. */
static int prefixed(const uint8_t *p, size_t n, size_t *at, const uint8_t **s, size_t *len) {
    if (*at >= n || p[*at] > n - *at - 1) return 0;
    *len = p[*at], *s = p + *at + 1;
    *at += 1 + *len;
    return 1;
}

/* Each source record's offset: medium, name, flags, then its parameters. */
static int index_sources(un_referrers *r) {
    size_t at = 0, len;
    const uint8_t *s;
    while (at < r->sources_len) {
        uint32_t start = (uint32_t)at;
        un_buf_put(&r->source_at, (const uint8_t *)&start, sizeof start);
        if (!prefixed(r->sources, r->sources_len, &at, &s, &len) || !prefixed(r->sources, r->sources_len, &at, &s, &len))
            return 0;
        if (at + 2 > r->sources_len) return 0;
        size_t n_params = r->sources[at + 1];
        at += 2;
        for (size_t i = 0; i < n_params; i++)
            if (!prefixed(r->sources, r->sources_len, &at, &s, &len)) return 0;
    }
    return !r->source_at.failed && at == r->sources_len && r->source_at.len / 4 <= UINT16_MAX;
}

static const uint8_t *or_empty(const un_buf *b) { return b->data ? b->data : (const uint8_t *)""; }

static size_t n_sources(const un_referrers *r) { return r->source_at.len / sizeof(uint32_t); }

/* The host part of a key: up to its first '/'. */
static size_t host_part(const uint8_t *k, size_t n) {
    const uint8_t *slash = memchr(k, '/', n);
    return slash ? (size_t)(slash - k) : n;
}

static int lower_letter(uint8_t b) { return b >= 'a' && b <= 'z'; }

static int has_braces(const uint8_t *k, size_t n) {
    for (size_t i = 0; i + 1 < n; i++)
        if (k[i] == '{' && k[i + 1] == '}') return 1;
    return 0;
}

/* Each key to its source, each host with a path key noted, each country code kept. */
static int index_keys(un_referrers *r, const uint8_t *keys, size_t keys_len, const uint8_t *codes, size_t codes_len) {
    size_t at = 0, len;
    const uint8_t *k;
    while (at < keys_len) {
        if (!prefixed(keys, keys_len, &at, &k, &len) || at + 2 > keys_len) return 0;
        int source = keys[at] | keys[at + 1] << 8;
        at += 2;
        if ((size_t)source >= n_sources(r)) return 0;
        un_answer a;
        if (un_answers_recall(&r->keys, KIND_KEY, k, len, &a)) continue; /* the first keeps it */
        if (un_answers_keep(&r->keys, KIND_KEY, k, len, source, NULL, 0) < 0) return 0;
        size_t host = host_part(k, len);
        r->patterned |= has_braces(k, len);
        if (host < len && !un_answers_recall(&r->keys, KIND_PATHS, k, host, &a) &&
            un_answers_keep(&r->keys, KIND_PATHS, k, host, 0, NULL, 0) < 0)
            return 0;
    }
    for (at = 0; at < codes_len;) {
        if (!prefixed(codes, codes_len, &at, &k, &len)) return 0;
        if (len == 2 && lower_letter(k[0]) && lower_letter(k[1])) {
            r->two_letter_codes[k[0] - 'a'] |= 1u << (k[1] - 'a');
            continue;
        }
        un_answer a;
        if (!un_answers_recall(&r->keys, KIND_CODE, k, len, &a) && un_answers_keep(&r->keys, KIND_CODE, k, len, 0, NULL, 0) < 0)
            return 0;
    }
    return 1;
}

static int well_formed_list(const uint8_t *p, size_t n) {
    size_t at = 0, len;
    const uint8_t *s;
    while (at < n)
        if (!prefixed(p, n, &at, &s, &len)) return 0;
    return 1;
}

/* Each source of GA4's categories to its category. */
static int index_categories(un_referrers *r, const uint8_t *p, size_t n) {
    size_t at = 0, len;
    const uint8_t *k;
    while (at < n) {
        if (!prefixed(p, n, &at, &k, &len) || at >= n || p[at] >= UN_N_CATEGORIES) return 0;
        int category = p[at++];
        un_answer a;
        if (!un_answers_recall(&r->categories, KIND_CATEGORY, k, len, &a) &&
            un_answers_keep(&r->categories, KIND_CATEGORY, k, len, category, NULL, 0) < 0)
            return 0;
    }
    return 1;
}

int un_source_category(const un_referrers *r, const uint8_t *source, size_t n) {
    un_answer a;
    return un_answers_recall(&r->categories, KIND_CATEGORY, source, n, &a) ? a.code : -1;
}

/* ---- a source's record ---------------------------------------------------------------------- */

typedef struct {
    const uint8_t *medium, *name, *params; /* params: its parameters, length-prefixed */
    size_t medium_len, name_len, params_len;
    int flags, n_params;
} source;

static source source_at(const un_referrers *r, int i) {
    uint32_t at32;
    memcpy(&at32, r->source_at.data + (size_t)i * sizeof at32, sizeof at32);
    size_t at = at32;
    source s;
    prefixed(r->sources, r->sources_len, &at, &s.medium, &s.medium_len);
    prefixed(r->sources, r->sources_len, &at, &s.name, &s.name_len);
    s.flags = r->sources[at], s.n_params = r->sources[at + 1];
    s.params = r->sources + at + 2;
    s.params_len = r->sources_len - at - 2;
    return s;
}

static int is_search(const source *s) { return s->medium_len == 6 && memcmp(s->medium, "search", 6) == 0; }

/* Each source's engine's category (un_referrers.engine_category), found once for all rows. */
static int index_engine_categories(un_referrers *r) {
    un_buf name = {NULL, 0, 0, 0, 0};
    for (size_t i = 0; i < n_sources(r) && !name.failed; i++) {
        source s = source_at(r, (int)i);
        int8_t category = -2;
        if (is_search(&s)) {
            un_engine_name(s.name, s.name_len, &name);
            category = (int8_t)un_source_category(r, or_empty(&name), name.len);
        }
        un_buf_put(&r->engine_category, (const uint8_t *)&category, 1);
    }
    int ok = !name.failed && !r->engine_category.failed;
    un_buf_free(&name);
    return ok;
}

size_t un_site_skip(const uint8_t *host, size_t n) { return n >= 4 && memcmp(host, "www.", 4) == 0 ? 4 : 0; }

int un_referrers_build(un_referrers *r, const un_referrer_tables *t) {
    memset(r, 0, sizeof *r);
    r->sources = t->sources, r->sources_len = t->sources_len;
    r->internal = t->internal, r->internal_len = t->internal_len;
    r->term_rule = t->term_rule;
    un_default_visit_facts(r->default_facts);
    if (t->term_rule < 0 || t->term_rule >= UN_N_TERM_RULES || !well_formed_list(t->internal, t->internal_len)) return 0;
    return index_sources(r) && index_keys(r, t->keys, t->keys_len, t->codes, t->codes_len) &&
           index_categories(r, t->categories, t->categories_len) && index_engine_categories(r);
}

void un_referrers_free(un_referrers *r) {
    un_answers_free(&r->keys), un_answers_free(&r->categories);
    un_buf_free(&r->source_at), un_buf_free(&r->engine_category);
}

/* ---- the lookup (core find, keys, lossy_host) -------------------------------------------------- */

/* The source of key[0, n), or -1. */
static int probe(const un_referrers *r, const uint8_t *key, size_t n) {
    un_answer a;
    return un_answers_recall(&r->keys, KIND_KEY, key, n, &a) ? a.code : -1;
}

/* The path's first segment: up to its next '/', after a leading one. */
static void first_segment(const uint8_t *path, size_t n, const uint8_t **seg, size_t *len) {
    size_t start = n && path[0] == '/';
    const uint8_t *slash = start < n ? memchr(path + start, '/', n - start) : NULL;
    *seg = path + start;
    *len = slash ? (size_t)(slash - *seg) : n - start;
}

/* The source of the host with its full path, else with its first segment (core _path_keys). */
static int with_path(const un_referrers *r, const uint8_t *host, size_t n, const uint8_t *path, size_t path_len, un_buf *key) {
    if (path_len == 0 || (path_len == 1 && path[0] == '/')) return -1;
    key->len = 0;
    un_buf_put(key, host, n);
    un_buf_put(key, path, path_len);
    int found = key->failed ? -1 : probe(r, key->data, key->len);
    if (found >= 0) return found;
    const uint8_t *seg;
    size_t seg_len;
    first_segment(path, path_len, &seg, &seg_len);
    key->len = n;
    un_buf_putc(key, '/');
    un_buf_put(key, seg, seg_len);
    return key->failed ? -1 : probe(r, key->data, key->len);
}

/* The domain after the host's first label, or NULL at the last (or where nothing follows
 * the dot: core _suffixes stops at an empty host). */
static const uint8_t *next_label(const uint8_t *host, size_t *n) {
    const uint8_t *dot = memchr(host, '.', *n);
    if (!dot || dot + 1 == host + *n) return NULL;
    *n -= (size_t)(dot + 1 - host);
    return dot + 1;
}

/* The source of the host's domains with the path (the longest first), or -1. */
static int find_with_path(const un_referrers *r, const uint8_t *host, size_t n, const uint8_t *path, size_t path_len, un_buf *key) {
    un_answer a;
    size_t len = n;
    for (const uint8_t *h = host; h; h = next_label(h, &len)) {
        int found = un_answers_recall(&r->keys, KIND_PATHS, h, len, &a) ? with_path(r, h, len, path, path_len, key) : -1;
        if (found >= 0) return found;
    }
    return -1;
}

/* The source of the host's domains alone (the longest first), or -1; *paths if a key has a
 * path under one of them. */
static int find_host(const un_referrers *r, const uint8_t *host, size_t n, int *paths) {
    un_answer a;
    size_t len = n;
    int found = -1;
    *paths = 0;
    for (const uint8_t *h = host; h; h = next_label(h, &len)) {
        *paths |= un_answers_recall(&r->keys, KIND_PATHS, h, len, &a);
        if (found < 0) found = probe(r, h, len);
    }
    return found;
}

/* Most codes have two letters: those are a bit each of r->two_letter_codes. */
static int is_code(const un_referrers *r, const uint8_t *label, size_t n) {
    if (n == 2 && lower_letter(label[0]) && lower_letter(label[1]))
        return r->two_letter_codes[label[0] - 'a'] >> (label[1] - 'a') & 1u;
    un_answer a;
    return un_answers_recall(&r->keys, KIND_CODE, label, n, &a);
}

/* Whether the label p[0, n) is one or more 'w' then digits (Matomo's ^w+[0-9]*). */
static int www_label(const uint8_t *p, size_t n) {
    size_t i = 0;
    while (i < n && p[i] == 'w') i++;
    if (i == 0) return 0;
    while (i < n && p[i] >= '0' && p[i] <= '9') i++;
    return i == n;
}

/* The labels of a host: start and length of each, at most MAX_LABELS (core referrers
 * MAX_LABELS: a longer host is not reduced). */
#define MAX_LABELS 128
typedef struct {
    const uint8_t *at[MAX_LABELS];
    size_t len[MAX_LABELS];
    int n;
} labels;

static int split_labels(const uint8_t *h, size_t n, labels *l) {
    l->n = 0;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && h[i] != '.') continue;
        if (l->n == MAX_LABELS) return 0;
        l->at[l->n] = h + start, l->len[l->n] = i - start, l->n++;
        start = i + 1;
    }
    return 1;
}

static int label_is(const labels *l, int i, const char *s) {
    size_t n = strlen(s);
    return l->len[i] == n && memcmp(l->at[i], s, n) == 0;
}

static int second_level(const labels *l, int i) {
    static const char *const names[] = {"com", "org", "net", "co", "it", "edu"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (label_is(l, i, names[k])) return 1;
    return 0;
}

/* Matomo's reduced host (UrlHelper::getLossyUrl, core lossy_host), into out: a leading www or
 * search label goes; "m" labels go (not one right after another that went, as the regex
 * consumes the dot between); a country-code suffix, after com, org, net, co, it or edu or
 * alone, is {}; and each country-code label before a dot is {} (again not right after one). */
static int lossy_host(const un_referrers *r, const uint8_t *h, size_t n, un_buf *out) {
    labels l;
    if (!split_labels(h, n, &l)) {
        out->len = 0;
        un_buf_put(out, h, n);
        return !out->failed;
    }
    int first = 0, keep[MAX_LABELS], braces[MAX_LABELS];
    if (l.n > 1 && (www_label(l.at[0], l.len[0]) || label_is(&l, 0, "search"))) first = 1;
    for (int i = first, gone = 0; i < l.n; i++) {
        int m = i < l.n - 1 && label_is(&l, i, "m") && !gone;
        keep[i] = !m, braces[i] = 0, gone = m;
    }
    int kept[MAX_LABELS], k = 0;
    for (int i = first; i < l.n; i++)
        if (keep[i]) kept[k++] = i;
    int tail = k; /* where the {} suffix starts, in kept */
    if (k >= 2 && is_code(r, l.at[kept[k - 1]], l.len[kept[k - 1]])) {
        tail = k - 1;
        if (k >= 3 && second_level(&l, kept[k - 2])) tail = k - 2;
    }
    for (int j = 0, gone = 0; j < tail; j++) {
        int last = j == k - 1 && tail == k; /* a code needs a dot after it */
        int code = !last && !gone && is_code(r, l.at[kept[j]], l.len[kept[j]]);
        braces[kept[j]] = code, gone = code;
    }
    out->len = 0;
    for (int j = 0; j < tail; j++) {
        if (j) un_buf_putc(out, '.');
        if (braces[kept[j]]) un_buf_puts(out, "{}");
        else un_buf_put(out, l.at[kept[j]], l.len[kept[j]]);
    }
    if (tail < k) un_buf_puts(out, tail ? ".{}" : "{}");
    return !out->failed;
}

/* The host's lookups (un_referrer_memo), from the memo if an earlier row had the host. */
static un_referrer_memo host_lookups(un_ctx *c, const un_referrers *r, const uint8_t *host, size_t n) {
    uint64_t hash = un_hash((uint64_t)(uintptr_t)r, host, n) | 1;
    un_referrer_memo *pair = &c->referrers[un_memo_pair(hash, UN_REFERRER_MEMO)];
    for (int k = 0; k < 2; k++)
        if (pair[k].hash == hash && pair[k].len == n && memcmp(pair[k].host, host, n) == 0) return pair[k];
    un_referrer_memo *m = &pair[un_memo_victim(hash, pair[0].hash, pair[1].hash)];
    un_referrer_memo found = {.hash = hash, .len = n, .reduced = -1};
    int paths = 0;
    found.exact = find_host(r, host, n, &paths);
    size_t skip = un_site_skip(host, n);
    found.site_category = (int8_t)un_source_category(r, host + skip, n - skip);
    found.exact_paths = (uint8_t)paths;
    if (r->patterned && lossy_host(r, host, n, &c->scratch2)) {
        const uint8_t *reduced = c->scratch2.data ? c->scratch2.data : (const uint8_t *)"";
        un_answer a;
        found.reduced = probe(r, reduced, c->scratch2.len);
        found.reduced_paths = (uint8_t)un_answers_recall(&r->keys, KIND_PATHS, reduced, c->scratch2.len, &a);
    }
    if (n <= UN_HOST_MEMO_LEN) {
        if (n) memcpy(found.host, host, n);
        *m = found;
    }
    return found;
}

/* The source a host and path are, or -1 (core find): the host's domains with the path, then
 * alone; then its reduced form with the path, then alone. */
static int find(un_ctx *c, const un_referrers *r, const uint8_t *host, size_t n, const uint8_t *path, size_t path_len,
                int *site_category) {
    un_referrer_memo m = host_lookups(c, r, host, n);
    *site_category = m.site_category;
    int has_path = path_len > 1 || (path_len == 1 && path[0] != '/');
    int found = has_path && m.exact_paths ? find_with_path(r, host, n, path, path_len, &c->scratch) : -1;
    if (found >= 0 || m.exact >= 0) return found >= 0 ? found : m.exact;
    if (has_path && m.reduced_paths && lossy_host(r, host, n, &c->scratch2)) {
        const uint8_t *reduced = c->scratch2.data ? c->scratch2.data : (const uint8_t *)"";
        found = with_path(r, reduced, c->scratch2.len, path, path_len, &c->scratch);
    }
    return found >= 0 ? found : m.reduced;
}

/* ---- the search term (core _listed_term, _last_term) ----------------------------------------- */

static int ascii_space(uint8_t b) { return b == ' ' || (b >= '\t' && b <= '\r'); }

/* out holding a decoded value, trimmed of ASCII white space (core strips the same). */
static void trim(un_buf *out) {
    size_t start = 0, end = out->len;
    while (start < end && ascii_space(out->data[start])) start++;
    while (end > start && ascii_space(out->data[end - 1])) end--;
    if (start) memmove(out->data, out->data + start, end - start);
    out->len = end - start;
}

/* The first non-empty value named `name` among the pairs of text[0, n), into term; 1 if found. */
static int named_value(un_ctx *c, const uint8_t *text, size_t n, const uint8_t *name, size_t name_len, un_buf *term) {
    un_form_pair pair;
    while (un_next_form_pair(&text, &n, &pair)) {
        if (!un_form_name_is(&pair, name, name_len, &c->scratch, &c->scratch2)) continue;
        term->len = 0;
        un_form_decode(term, pair.value, pair.value_len, &c->scratch);
        trim(term);
        if (term->len) return 1;
    }
    return 0;
}

/* Matomo's rule: the source's parameters in order, in the query and then the fragment. */
static int listed_term(un_ctx *c, const source *s, const un_url *u, un_buf *term) {
    size_t at = 0, len;
    const uint8_t *name;
    for (int i = 0; i < s->n_params && prefixed(s->params, s->params_len, &at, &name, &len); i++) {
        if (named_value(c, or_empty(&u->query), u->query.len, name, len, term)) return 1;
        if (named_value(c, or_empty(&u->fragment), u->fragment.len, name, len, term)) return 1;
    }
    return 0;
}

/* Whether the decoded name of the pair is one of the source's parameters, ignoring ASCII case. */
static int listed_any_case(un_ctx *c, const source *s, const un_form_pair *pair) {
    c->scratch2.len = 0;
    un_form_decode(&c->scratch2, pair->name, pair->name_len, &c->scratch);
    size_t at = 0, len;
    const uint8_t *name;
    for (int i = 0; i < s->n_params && prefixed(s->params, s->params_len, &at, &name, &len); i++)
        if (len == c->scratch2.len && un_ascii_ieq(or_empty(&c->scratch2), (const char *)name, len)) return 1;
    return 0;
}

/* Snowplow's rule: the last non-empty value of the query whose name is one of the source's. */
static int last_term(un_ctx *c, const source *s, const un_url *u, un_buf *term) {
    const uint8_t *q = or_empty(&u->query);
    size_t n = u->query.len;
    un_form_pair pair, last = {NULL, NULL, 0, 0};
    while (un_next_form_pair(&q, &n, &pair))
        if (pair.value_len && listed_any_case(c, s, &pair)) last = pair;
    if (!last.value) return 0;
    term->len = 0;
    un_form_decode(term, last.value, last.value_len, &c->scratch);
    return 1;
}

/* The term of a search source: found here, or asked of Python where a parameter is a regex
 * (the question: the source's index, a newline, and the referrer as written). */
static int search_term(un_ctx *c, const un_referrers *r, int index, const un_url *u, const uint8_t *text, size_t n,
                       un_referral *out, un_buf *term) {
    source s = source_at(r, index);
    if (r->term_rule == UN_TERM_LAST) return out->has_term = last_term(c, &s, u, term), UN_OK;
    if (!(s.flags & SOURCE_REGEX)) return out->has_term = listed_term(c, &s, u, term), UN_OK;
    c->input.len = 0;
    un_buf_put_uint(&c->input, (unsigned long)index);
    un_buf_putc(&c->input, '\n');
    un_buf_put(&c->input, text, n);
    if (c->input.failed) return UN_ERR_MEMORY;
    un_answer a;
    int status = un_recall(c, UN_ASK_TERM, c->input.data, c->input.len, &a);
    if (status != UN_OK) return status;
    term->len = 0;
    un_buf_put(term, a.text, a.len);
    out->has_term = a.len > 0;
    return term->failed ? UN_ERR_MEMORY : UN_OK;
}

/* ---- one referrer (core referral) --------------------------------------------------------------- */

static int internal_host(const un_referrers *r, const uint8_t *h, size_t n) {
    size_t at = 0, len;
    const uint8_t *s;
    while (prefixed(r->internal, r->internal_len, &at, &s, &len)) {
        int wild = len && s[0] == '.';
        if (!wild && len == n && memcmp(s, h, n) == 0) return 1;
        if (wild && len < n && memcmp(h + n - len, s, len) == 0) return 1;
    }
    return 0;
}

static int scheme_is(const un_bytes *scheme, const char *s) {
    size_t n = strlen(s);
    return scheme->n == n && memcmp(scheme->p, s, n) == 0;
}

static int looked_up(const un_bytes *scheme) {
    return scheme_is(scheme, "http") || scheme_is(scheme, "https") || scheme_is(scheme, "android-app");
}

un_referrer_parts un_referrer_parts_of(const un_url *u) {
    /* Its host is copied to lower case (host_lower 0), not read in the record, which a search
     * term's parse may write anew; and an opaque host keeps its case. */
    return (un_referrer_parts){{or_empty(&u->scheme), u->scheme.len}, {or_empty(&u->host), u->host.len},
                               {or_empty(&u->path), u->path.len}, 0};
}

static void medium_only(un_referral *out, const char *medium) {
    out->medium = (const uint8_t *)medium, out->medium_len = strlen(medium);
}

int un_referral_on_page(const un_referral *f, const un_bytes *page_host) {
    size_t n = f->host_len;
    return n && page_host->n == n && un_ascii_ieq(page_host->p, (const char *)f->host, n);
}

void un_referral_internal(un_referral *out) {
    const uint8_t *host = out->host;
    size_t host_len = out->host_len;
    memset(out, 0, sizeof *out);
    out->category = -2, out->host = host, out->host_len = host_len;
    medium_only(out, "internal");
}

int un_referral_of(un_ctx *c, const un_referrers *r, const un_referrer_parts *u, const un_bytes *page_host, un_referral *out) {
    memset(out, 0, sizeof *out);
    out->category = -2;
    /* A host already in lower case is read where it lies: its copy cost `referrer` some 40
     * instructions a row. */
    const uint8_t *host = u->host.p;
    size_t host_len = u->host.n;
    if (!u->host_lower) {
        un_buf_set_lower(&c->trimmed, u->host.p, u->host.n);
        if (c->trimmed.failed) return UN_ERR_MEMORY;
        host = or_empty(&c->trimmed);
    }
    out->host = host, out->host_len = host_len;
    if (host_len && ((page_host && un_referral_on_page(out, page_host)) || internal_host(r, host, host_len)))
        return un_referral_internal(out), UN_OK;
    int index = host_len && looked_up(&u->scheme) ? find(c, r, host, host_len, u->path.p, u->path.n, &out->category) : -1;
    if (index < 0) return medium_only(out, "unknown"), UN_OK;
    source s = source_at(r, index);
    out->medium = s.medium, out->medium_len = s.medium_len;
    out->source = s.name, out->source_len = s.name_len, out->has_source = 1;
    out->index = index, out->search = is_search(&s);
    if (out->search) out->category = (int8_t)r->engine_category.data[index];
    return UN_OK;
}

int un_referral_term(un_ctx *c, const un_referrers *r, const un_url *u, const uint8_t *text, size_t n, un_referral *out,
                     un_buf *term) {
    return out->search ? search_term(c, r, out->index, u, text, n, out, term) : UN_OK;
}

/* ---- referrals kept for the rows after them ------------------------------------------------ */

static uint64_t referral_hash(const uint8_t *p, size_t n) { return un_hash(0, p, n) | 1; }

static int keeps(const un_referral_kept *e, uint64_t hash, const uint8_t *p, size_t n) {
    return e->hash == hash && e->len == n && (n == 0 || memcmp(e->key, p, n) == 0);
}

int un_referral_recall(const un_referral_kept *memo, const uint8_t *p, size_t n, const un_bytes *page_host, un_referral *out,
                       un_buf *term, int *status) {
    if (n > UN_REFERRAL_KEY) return 0;
    uint64_t hash = referral_hash(p, n);
    const un_referral_kept *pair = &memo[un_memo_pair(hash, UN_REFERRAL_MEMO)];
    const un_referral_kept *e = keeps(&pair[0], hash, p, n) ? &pair[0] : keeps(&pair[1], hash, p, n) ? &pair[1] : NULL;
    if (!e) return 0;
    *status = e->status, *out = e->referral, out->host = e->host;
    /* A referrer on its row's page is internal, with no term (un_referral_of). */
    int on_page = *status == UN_OK && page_host && un_referral_on_page(out, page_host);
    if (on_page) un_referral_internal(out);
    if (!term) return 1;
    un_buf_set(term, e->term, on_page ? 0 : e->term_len);
    return !term->failed;
}

void un_referral_keep(un_referral_kept *memo, const uint8_t *p, size_t n, const un_bytes *page_host, int status,
                      const un_referral *f, const un_buf *term) {
    size_t term_len = status == UN_OK && f->has_term && term ? term->len : 0;
    /* A question asked, or memory that ran out, is the row's alone; so is a referral its page
     * made internal. */
    if (status >= UN_ASK_HOST || status == UN_ERR_MEMORY) return;
    if (status == UN_OK && page_host && un_referral_on_page(f, page_host)) return;
    if (n > UN_REFERRAL_KEY || (status == UN_OK && f->host_len > UN_REFERRAL_TEXT) || term_len > UN_REFERRAL_TEXT) return;
    uint64_t hash = referral_hash(p, n);
    un_referral_kept *pair = &memo[un_memo_pair(hash, UN_REFERRAL_MEMO)];
    un_referral_kept *e = &pair[un_memo_victim(hash, pair[0].hash, pair[1].hash)];
    e->hash = hash, e->status = status, e->len = n, e->term_len = term_len;
    if (n) memcpy(e->key, p, n);
    memset(&e->referral, 0, sizeof e->referral);
    if (status != UN_OK) return;
    e->referral = *f;
    if (f->host_len) memcpy(e->host, f->host, f->host_len);
    if (term_len) memcpy(e->term, term->data, term_len);
}
