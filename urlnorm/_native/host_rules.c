/* Per-host rules (core/host_rules.py), run as the profile's last rule.
 *
 * The table comes from urlnorm/native/profiles.py (host_rules_table) in the rule's `names` bytes:
 *   u32 hosts, u32 mirrors, u32 host offsets (sorted by host), u32 mirror offsets (sorted);
 *   host record:   str host, u8 flags, u8 n, n x str drop, u8 n, n x str keep,
 *                  u8 n, n x (str ending, str replacement)
 *   mirror record: str mirror, u32 offset of its host's record
 * where str is a length byte and the bytes, u32 little-endian. Every read is checked against
 * the table's length: a table that does not parse leaves the URL as it is. */
#include <string.h>

#include "urlnorm.h"

enum { DROP_TRAILING_SLASH = 1, CASE_INSENSITIVE_PATH = 2, HAS_KEEP = 4 };
/* The flags by bit, named as core/host_rules.py's HostRules fields (HAS_KEEP: keep_params). */
const char *const UN_HOST_RULE_FLAG_NAMES[UN_N_HOST_RULE_FLAGS] = {
    "drop_trailing_slash", "case_insensitive_path", "keep_params",
};

typedef struct {
    const uint8_t *p;
    size_t n;
} text;

typedef struct {
    const uint8_t *data;
    size_t len, at; /* the table, and where the next read is */
} reader;

static int read_u8(reader *r, uint8_t *v) {
    if (r->at + 1 > r->len) return 0;
    *v = r->data[r->at++];
    return 1;
}

static int read_u32(reader *r, uint32_t *v) {
    if (r->at + 4 > r->len) return 0;
    *v = (uint32_t)r->data[r->at] | (uint32_t)r->data[r->at + 1] << 8 | (uint32_t)r->data[r->at + 2] << 16 |
         (uint32_t)r->data[r->at + 3] << 24;
    r->at += 4;
    return 1;
}

static int read_text(reader *r, text *t) {
    uint8_t n;
    if (!read_u8(r, &n) || r->at + n > r->len) return 0;
    t->p = r->data + r->at, t->n = n;
    r->at += n;
    return 1;
}

static int compare(text a, const uint8_t *p, size_t n) {
    size_t common = a.n < n ? a.n : n;
    int c = common ? memcmp(a.p, p, common) : 0; /* an empty host may have no buffer */
    return c ? c : (a.n > n) - (a.n < n);
}

static int ends_with(const un_buf *b, text ending) {
    return ending.n <= b->len && (ending.n == 0 || memcmp(b->data + b->len - ending.n, ending.p, ending.n) == 0);
}

/* Binary search of the sorted offsets list at `list` (count entries) for the name (p, n):
 * the reader is left just after the found record's name; 0 if absent. */
static int find(reader *r, size_t list, uint32_t count, const uint8_t *p, size_t n) {
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t offset;
        text name;
        r->at = list + 4 * mid;
        if (!read_u32(r, &offset)) return 0;
        r->at = offset;
        if (!read_text(r, &name)) return 0;
        int c = compare(name, p, n);
        if (c == 0) return 1;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return 0;
}

/* Whether the list of `count` names at the reader holds the key; the reader skips the list. */
static int listed(reader *r, uint8_t count, const uint8_t *key, size_t n, int *ok) {
    int found = 0;
    for (uint8_t i = 0; i < count; i++) {
        text name;
        if (!read_text(r, &name)) return *ok = 0;
        found |= compare(name, key, n) == 0;
    }
    return found;
}

/* A host's parameter lists in the table: the drop list, and the allow-list if it has one. */
typedef struct {
    const uint8_t *table;
    size_t len, drop_at, keep_at; /* each list: its count byte, then its names */
    int has_keep;
} param_lists;

static int in_list(const param_lists *l, size_t at, const uint8_t *key, size_t n) {
    reader r = {l->table, l->len, at};
    uint8_t count;
    int ok = 1;
    return read_u8(&r, &count) && listed(&r, count, key, n, &ok) && ok;
}

/* HostRules._select_params' wanted (un_keep_fn): not dropped, and allowed if listed. */
static int wanted(const uint8_t *p, size_t n, const void *data) {
    const param_lists *l = data;
    size_t k = un_key_len(p, n);
    return !in_list(l, l->drop_at, p, k) && (!l->has_keep || in_list(l, l->keep_at, p, k));
}

/* HostRules._select_params: each parameter kept unless dropped, or not kept by the
 * allow-list; an emptied query goes. The reader is at the drop list; it ends past both. */
static int select_params(un_ctx *c, un_url *u, reader *r, int has_keep) {
    param_lists lists = {r->data, r->len, r->at, 0, has_keep};
    uint8_t n_drop, n_keep;
    int ok = 1;
    if (!read_u8(r, &n_drop)) return 0;
    listed(r, n_drop, (const uint8_t *)"", 0, &ok);
    lists.keep_at = r->at;
    if (!ok || !read_u8(r, &n_keep)) return 0;
    listed(r, n_keep, (const uint8_t *)"", 0, &ok);
    if (!ok || !u->has_query || u->query.len == 0 || (n_drop == 0 && !has_keep)) return ok;
    un_filter_parameters(c, u, wanted, &lists);
    u->has_query = u->query.len > 0;
    return !u->query.failed;
}

/* HostRules._path: the first matching ending aliased, a trailing slash, the case. */
static int host_path(un_ctx *c, un_url *u, reader *r, uint8_t flags) {
    uint8_t n_alias;
    if (!read_u8(r, &n_alias)) return 0;
    int aliased = 0;
    for (uint8_t i = 0; i < n_alias; i++) {
        text ending, replacement;
        if (!read_text(r, &ending) || !read_text(r, &replacement)) return 0;
        un_buf *p = &u->path;
        if (aliased || !ends_with(p, ending)) continue;
        un_buf *tmp = &c->scratch;
        tmp->len = 0;
        un_buf_put(tmp, p->data, p->len - ending.n);
        un_buf_put(tmp, replacement.p, replacement.n);
        un_buf_set(p, tmp->data, tmp->len);
        aliased = 1;
    }
    if (flags & DROP_TRAILING_SLASH) u->path.len = un_without_trailing_slashes(u->path.data, u->path.len);
    if (flags & CASE_INSENSITIVE_PATH) un_lower_ascii(u->path.data, u->path.len);
    return !u->path.failed;
}

int un_host_rules(un_ctx *c, un_url *u, const un_params *table) {
    reader r = {(const uint8_t *)table->names, table->names_len, 0};
    uint32_t n_hosts, n_mirrors, host_record;
    if (!u->has_host || !read_u32(&r, &n_hosts) || !read_u32(&r, &n_mirrors)) return UN_OK;
    if (n_hosts > r.len / 4 || n_mirrors > r.len / 4) return UN_OK;
    size_t hosts = 8, mirrors = 8 + 4 * (size_t)n_hosts;
    text canonical;
    if (find(&r, mirrors, n_mirrors, u->host.data, u->host.len) && read_u32(&r, &host_record)) {
        r.at = host_record;
        if (read_text(&r, &canonical)) un_buf_set(&u->host, canonical.p, canonical.n);
    }
    uint8_t flags;
    if (!find(&r, hosts, n_hosts, u->host.data, u->host.len) || !read_u8(&r, &flags)) return UN_OK;
    if (!select_params(c, u, &r, flags & HAS_KEEP) || !host_path(c, u, &r, flags)) return UN_OK;
    return un_url_failed(u) ? UN_ERR_MEMORY : UN_OK;
}
