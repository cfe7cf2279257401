/* The Public Suffix List (core/public_suffix.py): the rule set the publicsuffixlist package
 * builds ("co.uk", "*.ck", "!www.ck", with punycode copies of IDN rules), given at import, and
 * the package's lookup over it. A table is read-only once set, so every thread may use it;
 * giving a table again (the process changed its list) publishes a new one, and the old one is
 * freed only when no batch is running, since one may be reading it. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "urlnorm.h"

/* Rules by the suffix they name: "co.uk" is an exact rule of "co.uk", "*.ck" a wildcard rule
 * of "ck", "!www.ck" an exception rule of "www.ck"; a suffix may have several kinds. */
enum { EXACT = 1, WILDCARD = 2, EXCEPTION = 4 };

typedef struct psl_table {
    un_buf blob;     /* each suffix, NUL-terminated */
    uint32_t *slots; /* open addressing: offset into blob + 1, or 0 for empty */
    uint8_t *kinds;  /* the kinds of rule each slot's suffix has */
    size_t mask;
    int maxlabel;
    struct psl_table *retired_next; /* in the retired list */
} psl_table;

static _Atomic(psl_table *) tables[UN_PSL_TABLES];
/* Batches running now (un_psl_reading), and the tables replaced while one ran: only
 * un_psl_set touches the list, and one thread at a time calls it. Sequentially consistent
 * both ways: a batch counted after a replacement can only load the new table. */
static atomic_long readers;
static psl_table *retired;

void un_psl_reading(int delta) { atomic_fetch_add(&readers, delta); }

static psl_table *table_of(int which) {
    return which >= 0 && which < UN_PSL_TABLES ? atomic_load(&tables[which]) : NULL;
}

static void table_free(psl_table *psl) {
    if (!psl) return;
    free(psl->slots), free(psl->kinds);
    un_buf_free(&psl->blob);
    free(psl);
}

/* old no longer published: freed now, with every table retired before, if no batch runs. */
static void retire(psl_table *old) {
    if (old) old->retired_next = retired, retired = old;
    if (atomic_load(&readers) != 0) return;
    while (retired) {
        psl_table *next = retired->retired_next;
        table_free(retired);
        retired = next;
    }
}

/* The most labels a rule may have (the list's deepest has 7); un_psl_set refuses more. */
#define MAX_DEPTH 63

/* FNV-1a over the bytes from last to first: the hash of a domain's suffix continues the hash
 * of the shorter suffix after it, so one backward pass hashes every suffix. */
static uint64_t hash_back(uint64_t h, const uint8_t *p, size_t n) {
    while (n) h = un_fnv1a_byte(h, p[--n]);
    return h;
}

/* The kinds of rule for the suffix p[0, n) with hash h (0 if none). */
static int kinds_of(const psl_table *psl, uint64_t h, const uint8_t *p, size_t n) {
    for (size_t i = h & psl->mask;; i = (i + 1) & psl->mask) {
        uint32_t slot = psl->slots[i];
        if (!slot) return 0;
        const char *key = (const char *)psl->blob.data + slot - 1;
        if (strlen(key) == n && memcmp(key, p, n) == 0) return psl->kinds[i];
    }
}

static size_t slot_for(psl_table *psl, const char *suffix, size_t n) {
    size_t i = hash_back(UN_FNV_SEED, (const uint8_t *)suffix, n) & psl->mask;
    for (; psl->slots[i]; i = (i + 1) & psl->mask) {
        const char *key = (const char *)psl->blob.data + psl->slots[i] - 1;
        if (strlen(key) == n && memcmp(key, suffix, n) == 0) break;
    }
    return i;
}

/* A rule's suffix goes into the blob at `at`, over the rule text that holds it. */
static void add_rule(psl_table *psl, size_t at) {
    char *rule = (char *)psl->blob.data + at;
    int kind = rule[0] == '!' ? EXCEPTION : strncmp(rule, "*.", 2) == 0 ? WILDCARD : EXACT;
    size_t skip = kind == EXCEPTION ? 1 : kind == WILDCARD ? 2 : 0, n = strlen(rule + skip);
    size_t i = slot_for(psl, rule + skip, n);
    if (!psl->slots[i]) psl->slots[i] = (uint32_t)(at + skip) + 1;
    psl->kinds[i] |= (uint8_t)kind;
}

int un_psl_set(int which, const char *rules, size_t len, int maxlabel) {
    if (which < 0 || which >= UN_PSL_TABLES || maxlabel < 1 || maxlabel > MAX_DEPTH || len >= UINT32_MAX) return 0;
    size_t count = 0;
    for (size_t i = 0; i < len; i++) count += rules[i] == '\0';
    size_t size = 16;
    while (size < 2 * count) size *= 2;
    psl_table *psl = calloc(1, sizeof *psl);
    if (psl) psl->slots = calloc(size, sizeof *psl->slots), psl->kinds = calloc(size, 1);
    if (psl) un_buf_put(&psl->blob, (const uint8_t *)rules, len);
    if (!psl || !psl->slots || !psl->kinds || psl->blob.failed) {
        table_free(psl);
        return 0;
    }
    psl->mask = size - 1, psl->maxlabel = maxlabel;
    for (size_t at = 0; at < len; at += strlen(rules + at) + 1) add_rule(psl, at);
    retire(atomic_exchange(&tables[which], psl));
    return 1;
}

int un_psl_loaded(int which) { return table_of(which) != NULL; }


/* How many labels of the (lower-case, dot-free at both ends) domain are public: the package's
 * _countpublic with accept_unknown, exception > wildcard > exact at each depth, longest first. */
static size_t count_public(const psl_table *psl, const uint8_t *p, size_t n, size_t labels) {
    if (labels == 1) return 1;
    size_t most = (size_t)psl->maxlabel + 1, depths = labels < most ? labels : most;
    size_t start[MAX_DEPTH + 1];
    uint64_t hash[MAX_DEPTH + 1], h = UN_FNV_SEED;
    size_t end = n, depth = 0;
    for (size_t i = n; i > 0 && depth < depths; i--) {
        if (p[i - 1] != '.') continue;
        h = hash_back(h, p + i, end - i), end = i;
        start[depth] = i, hash[depth++] = h; /* the next label's hash takes in this dot */
    }
    if (depth < depths) start[depth] = 0, hash[depth++] = hash_back(h, p, end);
    while (depth-- > 0) {
        int kinds = kinds_of(psl, hash[depth], p + start[depth], n - start[depth]);
        size_t d = depth + 1;
        if (kinds & EXCEPTION) return d - 1;
        if (kinds & WILDCARD) return d < labels ? d + 1 : d;
        if (kinds & EXACT) return d;
    }
    return 1;
}

/* The host lower-cased without trailing dots (rstrip(".").lower()) into name, and its label
 * count; 0 labels if one is empty (no suffix then), -1 if not ASCII (Python lower-cases). */
static long prepare(const uint8_t *host, size_t n, un_buf *name) {
    while (n > 0 && host[n - 1] == '.') n--;
    name->len = 0;
    if (!un_buf_reserve(name, n + 1)) return -1;
    long labels = 1, empty = n == 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = host[i];
        if (c >= 0x80) return -1;
        name->data[i] = un_ascii_lower(c);
        labels += c == '.';
        empty |= c == '.' && (i == 0 || host[i - 1] == '.');
    }
    name->len = n;
    return empty ? 0 : labels;
}

int un_has_registrable_domain(int which, const uint8_t *host, size_t n, un_buf *scratch) {
    const psl_table *psl = table_of(which);
    if (!psl) return -1;
    long labels = prepare(host, n, scratch);
    if (labels <= 0) return labels < 0 ? -1 : 0;
    return (size_t)labels >= count_public(psl, scratch->data, scratch->len, (size_t)labels) + 1;
}

/* The start of the label that begins `labels_from_end` labels before the end of p. */
static size_t label_start(const uint8_t *p, size_t n, size_t labels_from_end) {
    size_t i = n;
    while (i > 0) {
        if (p[i - 1] == '.' && --labels_from_end == 0) return i;
        i--;
    }
    return 0;
}

const char *const UN_PART_NAMES[UN_N_PARTS] = {
    [UN_PART_SUFFIX] = "public_suffix", [UN_PART_REGISTERED] = "registered_domain",
    [UN_PART_SUBDOMAIN] = "subdomain", [UN_PART_LABEL] = "domain_label", [UN_PART_TLD] = "tld",
};

int un_domain_parts_of(int which, const uint8_t *host, size_t n, un_buf *name, un_domain_parts *out) {
    memset(out, 0, sizeof *out);
    const psl_table *psl = table_of(which);
    if (!psl) return -1;
    long labels = prepare(host, n, name);
    if (labels < 0) return -1;
    const uint8_t *p = name->data;
    size_t len = name->len, last = label_start(p, len, 1);
    if (len > last) out->present[UN_PART_TLD] = 1, out->start[UN_PART_TLD] = last, out->len[UN_PART_TLD] = len - last;
    if (labels == 0) return 0;
    size_t publen = count_public(psl, p, len, (size_t)labels);
    if (publen == 0 || (size_t)labels < publen) return 0;
    size_t suffix = label_start(p, len, publen);
    out->present[UN_PART_SUFFIX] = 1, out->start[UN_PART_SUFFIX] = suffix, out->len[UN_PART_SUFFIX] = len - suffix;
    if ((size_t)labels < publen + 1) return 0; /* the host is a public suffix */
    size_t reg = label_start(p, len, publen + 1), label_end = suffix - 1;
    out->present[UN_PART_REGISTERED] = out->present[UN_PART_LABEL] = out->present[UN_PART_SUBDOMAIN] = 1;
    out->start[UN_PART_REGISTERED] = reg, out->len[UN_PART_REGISTERED] = len - reg;
    out->start[UN_PART_LABEL] = reg, out->len[UN_PART_LABEL] = label_end - reg;
    out->start[UN_PART_SUBDOMAIN] = 0, out->len[UN_PART_SUBDOMAIN] = reg ? reg - 1 : 0;
    return 0;
}
