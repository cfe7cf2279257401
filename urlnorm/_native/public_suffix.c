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

static psl_table psl;

static uint64_t fnv1a(const uint8_t *p, size_t n, const char *prefix) {
    uint64_t h = 1469598103934665603ULL;
    for (const char *c = prefix; *c; c++) h = (h ^ (uint8_t)*c) * 1099511628211ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

static int key_equals(uint32_t slot, const char *prefix, const uint8_t *p, size_t n) {
    const char *key = (const char *)psl.blob.data + slot - 1;
    size_t k = strlen(prefix);
    return strncmp(key, prefix, k) == 0 && strlen(key + k) == n && memcmp(key + k, p, n) == 0;
}

static int contains(const char *prefix, const uint8_t *p, size_t n) {
    for (size_t i = fnv1a(p, n, prefix) & psl.mask;; i = (i + 1) & psl.mask) {
        if (!psl.slots[i]) return 0;
        if (key_equals(psl.slots[i], prefix, p, n)) return 1;
    }
}

int un_psl_set(const char *rules, size_t len, int maxlabel) {
    size_t count = 0;
    for (size_t i = 0; i < len; i++) count += rules[i] == '\0';
    size_t size = 16;
    while (size < 2 * count) size *= 2;
    uint32_t *slots = calloc(size, sizeof *slots);
    if (!slots || len >= UINT32_MAX) {
        free(slots);
        return 0;
    }
    free(psl.slots);
    un_buf_free(&psl.blob);
    un_buf_put(&psl.blob, (const uint8_t *)rules, len);
    psl.slots = slots, psl.mask = size - 1, psl.maxlabel = maxlabel;
    for (size_t at = 0; at < len; at += strlen(rules + at) + 1) {
        size_t i = fnv1a((const uint8_t *)rules + at, strlen(rules + at), "") & psl.mask;
        while (psl.slots[i]) i = (i + 1) & psl.mask;
        psl.slots[i] = (uint32_t)at + 1;
    }
    return !psl.blob.failed;
}

int un_psl_loaded(void) { return psl.slots != NULL; }

/* How many labels of the (lower-case, dot-free at both ends) domain are public: the package's
 * _countpublic with accept_unknown, exception > wildcard > exact at each depth, longest first. */
static size_t count_public(const uint8_t *p, size_t n, size_t labels) {
    if (labels == 1) return 1;
    size_t skip = labels > (size_t)psl.maxlabel + 1 ? labels - ((size_t)psl.maxlabel + 1) : 0;
    size_t start = 0, label = 0;
    for (; label < skip; start++) label += p[start] == '.';
    for (; label < labels; label++) {
        const uint8_t *s = p + start;
        size_t depth = labels - label, len = n - start;
        if (contains("!", s, len)) return depth - 1;
        if (contains("*.", s, len)) return label > 0 ? depth + 1 : depth;
        if (contains("", s, len)) return depth;
        while (start < n && p[start] != '.') start++;
        start++;
    }
    return 1;
}

int un_has_registrable_domain(const uint8_t *host, size_t n, un_buf *scratch) {
    while (n > 0 && host[n - 1] == '.') n--; /* rstrip(".") */
    if (n == 0) return 0;
    scratch->len = 0;
    if (!un_buf_reserve(scratch, n)) return -1;
    size_t labels = 1;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = host[i];
        if (c >= 0x80) return -1; /* lower-casing beyond ASCII is Python's */
        scratch->data[i] = c >= 'A' && c <= 'Z' ? c | 0x20 : c;
        labels += c == '.';
        if (c == '.' && (i == 0 || host[i - 1] == '.')) return 0; /* an empty label */
    }
    scratch->len = n;
    return labels >= count_public(scratch->data, n, labels) + 1;
}
