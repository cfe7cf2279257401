/* Crawl filters (core/filters.py): the first reason a parsed URL is kept out of a crawl.
 * The thresholds, lists and address blocks come from Python with the batch (un_filters). */
#include <string.h>

#include "urlnorm.h"

const char *const UN_FILTER_REASON_NAMES[UN_N_FILTER_REASONS] = {
    [UN_FILTER_INVALID_URL] = "invalid-url",
    [UN_FILTER_NON_WEB_SCHEME] = "non-web-scheme",
    [UN_FILTER_TOO_LONG] = "too-long",
    [UN_FILTER_PRIVATE_ADDRESS] = "private-address",
    [UN_FILTER_LOCAL_NAME] = "local-name",
    [UN_FILTER_BINARY_FILE] = "binary-file",
    [UN_FILTER_TRAP_DEPTH] = "trap-depth",
    [UN_FILTER_TRAP_REPEATED_SEGMENT] = "trap-repeated-segment",
    [UN_FILTER_TRAP_CALENDAR] = "trap-calendar",
};

/* A block's first `prefix` bits are the address's. */
static int in_block(const uint8_t *address, const uint8_t *network, int prefix) {
    int whole = prefix / 8, rest = prefix % 8;
    if (memcmp(address, network, (size_t)whole) != 0) return 0;
    return rest == 0 || ((address[whole] ^ network[whole]) & (uint8_t)(0xFF << (8 - rest))) == 0;
}

/* The WHATWG host parser's serialisation of an IPv4 address, "a.b.c.d", as its bytes. */
static void ipv4_bytes(const un_buf *host, uint8_t out[4]) {
    size_t i = 0;
    for (int part = 0; part < 4; part++, i++) {
        unsigned value = 0;
        while (i < host->len && host->data[i] != '.') value = value * 10 + (unsigned)(host->data[i++] - '0');
        out[part] = (uint8_t)value;
    }
}

/* core is_non_global_address: the host (IPv4 or "[IPv6]") is in one of the blocks. */
static int non_global(const un_url *u, int family, const un_filters *f) {
    uint8_t address[16] = {0};
    uint16_t pieces[8];
    if (family == 4) {
        ipv4_bytes(&u->host, address);
    } else {
        if (u->host.len < 2 || !un_parse_ipv6(u->host.data + 1, u->host.len - 2, pieces)) return 0;
        for (int i = 0; i < 8; i++) address[2 * i] = (uint8_t)(pieces[i] >> 8), address[2 * i + 1] = (uint8_t)pieces[i];
    }
    for (size_t i = 0; i + UN_BLOCK_SIZE <= f->blocks_len; i += UN_BLOCK_SIZE) {
        const uint8_t *block = f->blocks + i;
        if (block[0] == family && in_block(address, block + 2, block[1])) return 1;
    }
    return 0;
}

/* core is_local_name: one label, or a reserved name or a name under one. */
static int local_name(const un_url *u, const un_filters *f) {
    const uint8_t *h = u->host.data;
    size_t n = u->host.len;
    if (n && h[n - 1] == '.') n--;
    if (!memchr(h, '.', n)) return 1;
    for (size_t at = 0; at < f->local_names_len; at += 1 + (uint8_t)f->local_names[at]) {
        size_t len = (uint8_t)f->local_names[at];
        const char *name = f->local_names + at + 1;
        if (at + 1 + len > f->local_names_len || len > n || !len || h[n - 1] != (uint8_t)name[len - 1]) continue;
        if (memcmp(h + n - len, name, len) == 0 && (len == n || h[n - len - 1] == '.')) return 1;
    }
    return 0;
}

/* core path.file_extension of the record's path is listed, any ASCII case. */
static int binary_file(const un_url *u, const un_filters *f) {
    const uint8_t *p = u->path.data;
    size_t n = u->path.len, start = n, dot = n;
    while (start > 0 && p[start - 1] != '/') start--;
    for (size_t i = start; i < n; i++) dot = p[i] == '.' ? i : dot;
    if (dot == n || dot == start || dot + 1 == n) return 0;
    return un_listed(f->extensions, f->extensions_len, p + dot + 1, n - dot - 1, 0, 1);
}

/* The path's non-empty segments, up to max; their count, max + 1 if there are more. */
static size_t non_empty_segments(const un_url *u, size_t max, size_t starts[], size_t lens[]) {
    size_t at = 0, start, len, k = 0;
    while (k <= max && un_next_segment(u->path.data, u->path.len, &at, &start, &len)) {
        if (!len) continue;
        if (k < max) starts[k] = start, lens[k] = len;
        k++;
    }
    return k;
}

/* core has_repeated_segment over k segments (at most 255: counted pairwise). */
static int repeated_segment(const uint8_t *p, const size_t starts[], const size_t lens[], size_t k, int times) {
    for (size_t i = 0; i < k; i++) {
        int count = 1;
        for (size_t j = i + 1; j < k && count < times; j++) count += lens[j] == lens[i] && memcmp(p + starts[j], p + starts[i], lens[i]) == 0;
        if (count >= times) return 1;
    }
    return 0;
}

/* core has_calendar_key: a parameter's raw key, any ASCII case, is listed. */
static int calendar_key(const un_url *u, const un_filters *f) {
    const uint8_t *q = u->query.data;
    size_t n = u->has_query ? u->query.len : 0, start = 0;
    while (start < n) {
        const uint8_t *amp = memchr(q + start, '&', n - start);
        size_t end = amp ? (size_t)(amp - q) : n;
        if (un_listed(f->calendar_keys, f->calendar_keys_len, q + start, un_key_len(q + start, end - start), 0, 1)) return 1;
        start = end + 1;
    }
    return 0;
}

/* Whether the href is longer than max: its fields and at most 13 bytes of delimiters and
 * port (":", "//", ":" and "@", ":" and five digits, "?", "#"; or "/." alone) settle most URLs
 * without writing it. */
static int too_long(const un_url *u, size_t max, un_buf *scratch) {
    size_t fields = u->scheme.len + u->username.len + u->password.len + u->host.len + u->path.len;
    fields += (u->has_query ? u->query.len : 0) + (u->has_fragment ? u->fragment.len : 0);
    if (fields + 13 <= max) return 0;
    if (fields > max) return 1;
    scratch->len = 0;
    un_serialize(u, scratch);
    return scratch->len > max;
}

/* core record_reason: the first reason's index in UN_FILTER_* order, or -1 for none.
 * scratch holds the href, to be measured. */
int un_filter_reason(const un_url *u, const un_filters *f, un_buf *scratch) {
    size_t starts[UN_MAX_FILTER_DEPTH + 1], lens[UN_MAX_FILTER_DEPTH + 1];
    if (!un_listed(f->schemes, f->schemes_len, u->scheme.data, u->scheme.len, 0, 0)) return UN_FILTER_NON_WEB_SCHEME;
    if (too_long(u, f->max_length, scratch)) return UN_FILTER_TOO_LONG;
    un_host_kind kind = un_host_type(u);
    int family = kind == UN_IPV4_HOST ? 4 : kind == UN_IPV6_HOST ? 6 : 0;
    if (family && non_global(u, family, f)) return UN_FILTER_PRIVATE_ADDRESS;
    if (kind == UN_DOMAIN_HOST && local_name(u, f)) return UN_FILTER_LOCAL_NAME;
    if (binary_file(u, f)) return UN_FILTER_BINARY_FILE;
    size_t k = non_empty_segments(u, (size_t)f->max_depth, starts, lens);
    if (k > (size_t)f->max_depth) return UN_FILTER_TRAP_DEPTH;
    if (repeated_segment(u->path.data, starts, lens, k, f->max_repeats)) return UN_FILTER_TRAP_REPEATED_SEGMENT;
    if (calendar_key(u, f)) return UN_FILTER_TRAP_CALENDAR;
    return -1;
}
