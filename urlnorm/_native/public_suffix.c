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

/* A slot of the table: its suffix's offset in the blob + 1 (0: empty), the high half of its
 * hash and its length, which turn away almost every other suffix without reading the blob,
 * and its kinds of rule. */
typedef struct {
    uint32_t at, tag, len;
    uint8_t kinds;
} psl_slot;

/* The filter: a bit for each suffix a rule names, by another part of its hash, and sixteen
 * bits a rule. A domain's suffixes are looked up longest first, and most are no rule: the
 * filter turns them away from 32 KiB that stay in cache, where the slots (512 KiB for the
 * bundled list) are pushed out by the column streaming past: on the corpora a URL's parts
 * cost 73 ns of lookups without the memo of kernel.c, 61 with the filter. */
#define FILTER_BITS_A_RULE 16

typedef struct psl_table {
    un_buf blob;      /* each suffix, NUL-terminated */
    psl_slot *slots;  /* open addressing */
    uint64_t *filter;
    size_t mask, filter_mask;
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
    free(psl->slots), free(psl->filter);
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

/* The start of each of the last labels of p[0, n), up to `most`: starts[d] begins its suffix
 * of d + 1 labels. How many there are. */
static size_t suffix_starts(const uint8_t *p, size_t n, size_t most, size_t *starts) {
    size_t found = 0;
    for (size_t i = n; i > 0 && found < most; i--)
        if (p[i - 1] == '.') starts[found++] = i;
    if (found < most) starts[found++] = 0;
    return found;
}

/* Where a domain's hash starts: any odd constant. */
#define SUFFIX_SEED 1469598103934665603ULL

/* The hash of each suffix (hashes[d] of the one from starts[d]): a suffix's continues the
 * shorter one's with its first label, a word at a time (un_hash), so every suffix of a
 * domain is hashed in one pass over its bytes. */
static void suffix_hashes(const uint8_t *p, size_t n, const size_t *starts, size_t depths, uint64_t *hashes) {
    uint64_t h = SUFFIX_SEED;
    for (size_t d = 0, end = n; d < depths; end = starts[d++] - 1) hashes[d] = h = un_hash(h, p + starts[d], end - starts[d]);
}

/* The hash of the suffix p[0, n), as suffix_hashes gives it. */
static uint64_t suffix_hash(const uint8_t *p, size_t n) {
    size_t starts[MAX_DEPTH + 1];
    uint64_t hashes[MAX_DEPTH + 1];
    size_t depths = suffix_starts(p, n, MAX_DEPTH + 1, starts);
    suffix_hashes(p, n, starts, depths, hashes);
    return hashes[depths - 1];
}

static int slot_is(const psl_table *psl, const psl_slot *s, uint64_t h, const uint8_t *p, size_t n) {
    return s->tag == (uint32_t)(h >> 32) && s->len == n && memcmp(psl->blob.data + s->at - 1, p, n) == 0;
}

static size_t filter_bit(const psl_table *psl, uint64_t h) { return (size_t)(h >> 20) & psl->filter_mask; }

/* The kinds of rule for the suffix p[0, n) with hash h (0 if none). */
static int kinds_of(const psl_table *psl, uint64_t h, const uint8_t *p, size_t n) {
    size_t bit = filter_bit(psl, h);
    if (!(psl->filter[bit / 64] >> (bit % 64) & 1)) return 0;
    for (size_t i = h & psl->mask;; i = (i + 1) & psl->mask) {
        const psl_slot *s = &psl->slots[i];
        if (!s->at) return 0;
        if (slot_is(psl, s, h, p, n)) return s->kinds;
    }
}

/* A rule's suffix goes into the blob at `at`, over the rule text that holds it. */
static void add_rule(psl_table *psl, size_t at) {
    const uint8_t *rule = psl->blob.data + at;
    int kind = rule[0] == '!' ? EXCEPTION : strncmp((const char *)rule, "*.", 2) == 0 ? WILDCARD : EXACT;
    size_t skip = kind == EXCEPTION ? 1 : kind == WILDCARD ? 2 : 0, n = strlen((const char *)rule + skip);
    uint64_t h = suffix_hash(rule + skip, n);
    size_t i = h & psl->mask;
    while (psl->slots[i].at && !slot_is(psl, &psl->slots[i], h, rule + skip, n)) i = (i + 1) & psl->mask;
    psl_slot *s = &psl->slots[i];
    if (!s->at) *s = (psl_slot){.at = (uint32_t)(at + skip) + 1, .tag = (uint32_t)(h >> 32), .len = (uint32_t)n};
    s->kinds |= (uint8_t)kind;
    size_t bit = filter_bit(psl, h);
    psl->filter[bit / 64] |= (uint64_t)1 << (bit % 64);
}

int un_psl_set(int which, const char *rules, size_t len, int maxlabel) {
    if (which < 0 || which >= UN_PSL_TABLES || maxlabel < 1 || maxlabel > MAX_DEPTH || len >= UINT32_MAX) return 0;
    size_t count = 0;
    for (size_t i = 0; i < len; i++) count += rules[i] == '\0';
    size_t size = 16, bits = 64;
    while (size < 2 * count) size *= 2;
    while (bits < FILTER_BITS_A_RULE * count) bits *= 2;
    psl_table *psl = calloc(1, sizeof *psl);
    if (psl) psl->slots = calloc(size, sizeof *psl->slots), psl->filter = calloc(bits / 64, sizeof *psl->filter);
    if (psl) un_buf_put(&psl->blob, (const uint8_t *)rules, len);
    if (!psl || !psl->slots || !psl->filter || psl->blob.failed) {
        table_free(psl);
        return 0;
    }
    psl->mask = size - 1, psl->filter_mask = bits - 1, psl->maxlabel = maxlabel;
    for (size_t at = 0; at < len; at += strlen(rules + at) + 1) add_rule(psl, at);
    retire(atomic_exchange(&tables[which], psl));
    return 1;
}

int un_psl_loaded(int which) { return table_of(which) != NULL; }


/* The label starts (suffix_starts) every part needs: a public suffix of up to maxlabel + 2
 * labels (a wildcard's is one deeper than its rule), and the label before it. */
#define MAX_STARTS (MAX_DEPTH + 3)

/* How many labels of the (lower-case, dot-free at both ends) domain are public: the package's
 * _countpublic with accept_unknown, exception > wildcard > exact at each depth, longest first.
 * starts: its suffix_starts, as many as it has labels up to MAX_STARTS. */
static size_t count_public(const psl_table *psl, const uint8_t *p, size_t n, size_t labels, const size_t *starts) {
    if (labels == 1) return 1;
    size_t most = (size_t)psl->maxlabel + 1, depth = labels < most ? labels : most;
    uint64_t hashes[MAX_DEPTH + 1];
    suffix_hashes(p, n, starts, depth, hashes);
    while (depth-- > 0) {
        int kinds = kinds_of(psl, hashes[depth], p + starts[depth], n - starts[depth]);
        size_t d = depth + 1;
        if (kinds & EXCEPTION) return d - 1;
        if (kinds & WILDCARD) return d < labels ? d + 1 : d;
        if (kinds & EXACT) return d;
    }
    return 1;
}

/* The last dots prepare keeps (a power of two): more than the labels a part reads. */
#define DOT_RING 128
#define BYTES(b) (0x0101010101010101ULL * (b))

/* Eight bytes of ASCII, upper-case letters lowered: a byte of 'A' (0x41) or more has its top
 * bit set by adding 0x3F, and one above 'Z' by adding 0x25; no sum carries into the next. */
static uint64_t lower8(uint64_t w) {
    uint64_t upper = (w + BYTES(0x3F)) & ~(w + BYTES(0x25)) & BYTES(0x80);
    return w | upper >> 2;
}

/* The top bit of each byte of w that is '.' (exact: no borrow crosses a byte). */
static uint64_t dots8(uint64_t w) {
    uint64_t x = w ^ BYTES('.');
    return ~(((x & BYTES(0x7F)) + BYTES(0x7F)) | x) & BYTES(0x80);
}

/* The first of the bytes dots8 found, in memory order, and the others: host[i] is the low
 * byte of w on a little-endian CPU and the high byte on a big-endian one. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
static size_t first_dot(uint64_t found) { return (size_t)__builtin_clzll(found) / 8; }
static uint64_t next_dot(uint64_t found) { return found & ~((uint64_t)1 << (63 - __builtin_clzll(found))); }
#else
static size_t first_dot(uint64_t found) { return (size_t)__builtin_ctzll(found) / 8; }
static uint64_t next_dot(uint64_t found) { return found & (found - 1); }
#endif

/* The host lower-cased without trailing dots (rstrip(".").lower()) into name, eight bytes at
 * a time, and where its last labels start (suffix_starts, up to MAX_STARTS); its label count,
 * 0 if a label is empty (no suffix then), -1 if not ASCII (Python lower-cases). */
static long prepare(const uint8_t *host, size_t n, un_buf *name, size_t *starts) {
    while (n > 0 && host[n - 1] == '.') n--;
    name->len = 0;
    if (!un_buf_reserve(name, n + 8)) return -1;
    size_t dots[DOT_RING], k = 0, last = SIZE_MAX;
    int empty = n == 0;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = 0;
        un_copy((uint8_t *)&w, host + i, n - i < 8 ? n - i : 8);
        if (w & BYTES(0x80)) return -1;
        w = lower8(w);
        memcpy(name->data + i, &w, 8);
        for (uint64_t found = dots8(w); found; found = next_dot(found)) {
            size_t at = i + first_dot(found);
            empty |= at == 0 || at == last + 1;
            dots[k++ % DOT_RING] = last = at;
        }
    }
    name->len = n;
    for (size_t d = 0; d < MAX_STARTS && d <= k; d++) starts[d] = d < k ? dots[(k - 1 - d) % DOT_RING] + 1 : 0;
    return empty ? 0 : (long)k + 1;
}

int un_has_registrable_domain(int which, const uint8_t *host, size_t n, un_buf *scratch) {
    const psl_table *psl = table_of(which);
    if (!psl) return -1;
    size_t starts[MAX_STARTS];
    long labels = prepare(host, n, scratch, starts);
    if (labels <= 0) return labels < 0 ? -1 : 0;
    return (size_t)labels >= count_public(psl, scratch->data, scratch->len, (size_t)labels, starts) + 1;
}

int un_tld_of(const uint8_t *host, size_t n, size_t *start, size_t *len) {
    while (n > 0 && host[n - 1] == '.') n--;
    size_t at = n;
    while (at > 0 && host[at - 1] != '.') at--;
    *start = at, *len = n - at;
    return n > at;
}

const char *const UN_PART_NAMES[UN_N_PARTS] = {
    [UN_PART_SUFFIX] = "public_suffix", [UN_PART_REGISTERED] = "registered_domain",
    [UN_PART_SUBDOMAIN] = "subdomain", [UN_PART_LABEL] = "domain_label", [UN_PART_TLD] = "tld",
};

int un_domain_parts_of(int which, const uint8_t *host, size_t n, un_buf *name, un_domain_parts *out) {
    memset(out, 0, sizeof *out);
    const psl_table *psl = table_of(which);
    if (!psl) return -1;
    size_t starts[MAX_STARTS];
    long labels = prepare(host, n, name, starts);
    if (labels < 0) return -1;
    const uint8_t *p = name->data;
    size_t len = name->len, last = starts[0];
    if (len > last) out->present[UN_PART_TLD] = 1, out->start[UN_PART_TLD] = last, out->len[UN_PART_TLD] = len - last;
    if (labels == 0) return 0;
    size_t publen = count_public(psl, p, len, (size_t)labels, starts);
    if (publen == 0 || (size_t)labels < publen) return 0;
    size_t suffix = starts[publen - 1];
    out->present[UN_PART_SUFFIX] = 1, out->start[UN_PART_SUFFIX] = suffix, out->len[UN_PART_SUFFIX] = len - suffix;
    if ((size_t)labels < publen + 1) return 0; /* the host is a public suffix */
    size_t reg = starts[publen], label_end = suffix - 1;
    out->present[UN_PART_REGISTERED] = out->present[UN_PART_LABEL] = out->present[UN_PART_SUBDOMAIN] = 1;
    out->start[UN_PART_REGISTERED] = reg, out->len[UN_PART_REGISTERED] = len - reg;
    out->start[UN_PART_LABEL] = reg, out->len[UN_PART_LABEL] = label_end - reg;
    out->start[UN_PART_SUBDOMAIN] = 0, out->len[UN_PART_SUBDOMAIN] = reg ? reg - 1 : 0;
    return 0;
}
