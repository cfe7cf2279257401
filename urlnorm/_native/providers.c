/* Site-scoped tracking parameters (core/providers.py). The providers come from Python as the
 * rule's table: per provider, its hosts, names, prefixes and skipped paths, each a list of
 * length-prefixed strings behind its length in two bytes (little-endian). */
#include <string.h>

#include "urlnorm.h"

#define MAX_COVERING 32 /* the memo's mask has a bit each */

typedef struct {
    const char *list[4]; /* hosts, names, prefixes, exceptions */
    size_t len[4];
} provider;

static int next_provider(const uint8_t *t, size_t n, size_t *at, provider *p) {
    for (int i = 0; i < 4; i++) {
        if (*at + 2 > n) return 0;
        size_t len = (size_t)t[*at] | (size_t)t[*at + 1] << 8;
        if (*at + 2 + len > n) return 0;
        p->list[i] = (const char *)t + *at + 2, p->len[i] = len;
        *at += 2 + len;
    }
    return 1;
}

static int covers_host(const provider *p, const un_url *u) {
    for (size_t at = 0; at < p->len[0]; at += 1 + (uint8_t)p->list[0][at]) {
        size_t len = (uint8_t)p->list[0][at];
        if (at + 1 + len > p->len[0]) return 0;
        if (un_host_pattern_matches((const uint8_t *)p->list[0] + at + 1, len, u->host.data, u->host.len)) return 1;
    }
    return 0;
}

/* A bit for each of the table's first providers that covers the host, from the memo if an
 * earlier row had the host. */
static uint32_t covering_hosts(un_ctx *c, const un_params *table, const un_url *u) {
    uint64_t hash = un_hash((uint64_t)(uintptr_t)table->names, u->host.data, u->host.len) | 1;
    un_host_memo *pair = &c->providers[un_memo_pair(hash, UN_HOST_MEMO)];
    for (int k = 0; k < 2; k++)
        if (pair[k].hash == hash && pair[k].len == u->host.len && memcmp(pair[k].host, u->host.data, pair[k].len) == 0)
            return pair[k].covering;
    un_host_memo *m = &pair[un_memo_victim(hash, pair[0].hash, pair[1].hash)];
    uint32_t mask = 0;
    provider p;
    const uint8_t *t = (const uint8_t *)table->names;
    for (size_t at = 0, i = 0; i < MAX_COVERING && next_provider(t, table->names_len, &at, &p); i++) {
        if (covers_host(&p, u)) mask |= 1u << i;
    }
    if (u->host.len <= UN_HOST_MEMO_LEN) {
        m->hash = hash, m->len = u->host.len, m->covering = mask;
        if (m->len) memcpy(m->host, u->host.data, m->len);
    }
    return mask;
}

/* core applies, for a provider that covers the host: the path under none of its skipped prefixes. */
static int covers_path(const provider *p, const un_url *u) {
    for (size_t at = 0; at < p->len[3]; at += 1 + (uint8_t)p->list[3][at]) {
        size_t len = (uint8_t)p->list[3][at];
        if (at + 1 + len > p->len[3]) return 0;
        if (u->path.len >= len && memcmp(u->path.data, p->list[3] + at + 1, len) == 0) return 0;
    }
    return 1;
}

typedef struct {
    const provider *covering;
    int n;
} coverage;

/* A parameter no covering provider drops (un_keep_fn), by raw key in any ASCII case. */
static int not_dropped(const uint8_t *p, size_t n, const void *data) {
    const coverage *c = data;
    size_t k = un_key_len(p, n);
    for (int i = 0; i < c->n; i++) {
        const provider *v = &c->covering[i];
        if (un_listed(v->list[1], v->len[1], p, k, 0, 1) || un_listed(v->list[2], v->len[2], p, k, 1, 1)) return 0;
    }
    return 1;
}

int un_site_parameters(un_ctx *c, un_url *u, const un_params *table) {
    if (!u->has_query || u->query.len == 0 || !u->has_host) return UN_OK;
    uint32_t hosts = covering_hosts(c, table, u);
    if (!hosts) return UN_OK;
    provider covering[MAX_COVERING], p;
    int n = 0;
    const uint8_t *t = (const uint8_t *)table->names;
    for (size_t at = 0, i = 0; i < MAX_COVERING && next_provider(t, table->names_len, &at, &p); i++) {
        if (hosts >> i & 1 && covers_path(&p, u)) covering[n++] = p;
    }
    if (n == 0) return UN_OK;
    un_filter_parameters(c, u, not_dropped, &(coverage){covering, n});
    return u->query.failed ? UN_ERR_MEMORY : UN_OK;
}
