/* The Public Suffix List (core/public_suffix.py): the rule set the publicsuffixlist package
 * builds ("co.uk", "*.ck", "!www.ck", with punycode copies of IDN rules), given at import, and
 * the package's lookup over it. Read-only once set, so every thread may use it. */
#include <stdlib.h>
#include <string.h>

#include "urlnorm.h"

typedef struct {
    un_buf blob;     /* the rules, NUL-terminated, one after another */
    uint32_t *slots; /* open addressing: offset into blob + 1, or 0 for empty */
    size_t mask;
    int maxlabel;
} psl_table;

static psl_table tables[UN_PSL_TABLES]; /* the whole list, and its ICANN section */

/* The hash of prefix then p, as of the rule string they spell ("!" "www.ck"). */
static uint64_t fnv1a(const uint8_t *p, size_t n, const char *prefix) {
    return un_fnv1a(un_fnv1a(UN_FNV_SEED, (const uint8_t *)prefix, strlen(prefix)), p, n);
}

static int key_equals(const psl_table *psl, uint32_t slot, const char *prefix, const uint8_t *p, size_t n) {
    const char *key = (const char *)psl->blob.data + slot - 1;
    size_t k = strlen(prefix);
    return strncmp(key, prefix, k) == 0 && strlen(key + k) == n && memcmp(key + k, p, n) == 0;
}

static int contains(const psl_table *psl, const char *prefix, const uint8_t *p, size_t n) {
    for (size_t i = fnv1a(p, n, prefix) & psl->mask;; i = (i + 1) & psl->mask) {
        if (!psl->slots[i]) return 0;
        if (key_equals(psl, psl->slots[i], prefix, p, n)) return 1;
    }
}

int un_psl_set(int which, const char *rules, size_t len, int maxlabel) {
    if (which < 0 || which >= UN_PSL_TABLES) return 0;
    psl_table *psl = &tables[which];
    size_t count = 0;
    for (size_t i = 0; i < len; i++) count += rules[i] == '\0';
    size_t size = 16;
    while (size < 2 * count) size *= 2;
    uint32_t *slots = calloc(size, sizeof *slots);
    if (!slots || len >= UINT32_MAX) {
        free(slots);
        return 0;
    }
    free(psl->slots);
    un_buf_free(&psl->blob);
    un_buf_put(&psl->blob, (const uint8_t *)rules, len);
    psl->slots = slots, psl->mask = size - 1, psl->maxlabel = maxlabel;
    for (size_t at = 0; at < len; at += strlen(rules + at) + 1) {
        size_t i = fnv1a((const uint8_t *)rules + at, strlen(rules + at), "") & psl->mask;
        while (psl->slots[i]) i = (i + 1) & psl->mask;
        psl->slots[i] = (uint32_t)at + 1;
    }
    return !psl->blob.failed;
}

int un_psl_loaded(void) { return tables[UN_PSL_ALL].slots != NULL; }

/* How many labels of the (lower-case, dot-free at both ends) domain are public: the package's
 * _countpublic with accept_unknown, exception > wildcard > exact at each depth, longest first. */
static size_t count_public(const psl_table *psl, const uint8_t *p, size_t n, size_t labels) {
    if (labels == 1) return 1;
    size_t skip = labels > (size_t)psl->maxlabel + 1 ? labels - ((size_t)psl->maxlabel + 1) : 0;
    size_t start = 0, label = 0;
    for (; label < skip; start++) label += p[start] == '.';
    for (; label < labels; label++) {
        const uint8_t *s = p + start;
        size_t depth = labels - label, len = n - start;
        if (contains(psl, "!", s, len)) return depth - 1;
        if (contains(psl, "*.", s, len)) return label > 0 ? depth + 1 : depth;
        if (contains(psl, "", s, len)) return depth;
        while (start < n && p[start] != '.') start++;
        start++;
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

int un_has_registrable_domain(const uint8_t *host, size_t n, un_buf *scratch) {
    long labels = prepare(host, n, scratch);
    if (labels <= 0) return labels < 0 ? -1 : 0;
    return (size_t)labels >= count_public(&tables[UN_PSL_ALL], scratch->data, scratch->len, (size_t)labels) + 1;
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

int un_domain_parts_of(int which, const uint8_t *host, size_t n, un_buf *name, un_domain_parts *out) {
    memset(out, 0, sizeof *out);
    if (which < 0 || which >= UN_PSL_TABLES || !tables[which].slots) return -1;
    long labels = prepare(host, n, name);
    if (labels < 0) return -1;
    const uint8_t *p = name->data;
    size_t len = name->len, last = label_start(p, len, 1);
    if (len > last) out->present[UN_PART_TLD] = 1, out->start[UN_PART_TLD] = last, out->len[UN_PART_TLD] = len - last;
    if (labels == 0) return 0;
    size_t publen = count_public(&tables[which], p, len, (size_t)labels);
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
