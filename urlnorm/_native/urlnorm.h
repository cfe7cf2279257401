/* urlnorm's native kernel: the compiled twin of urlnorm/core, one file per core module.
 *
 * The library has no Python API (binding.c is the only file that includes Python.h), so that
 * it can be fuzzed and sanitised on its own. It depends on libc alone. Character tables are
 * not written here: the binding fills them at import from urlnorm.core (one source), and the
 * fuzz harness from a header generated from the same function.
 */
#ifndef URLNORM_H
#define URLNORM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- buffer.c: a growable byte buffer; every append is bounded ---------------------------- */

typedef struct {
    uint8_t *data;
    size_t len, cap;
    int failed;   /* an allocation failed: the row gets UN_ERR_MEMORY */
    int borrowed; /* a window of memory the buffer does not own (un_buf_borrow): it never
                     grows, and freeing the buffer frees nothing */
} un_buf;

/* A buffer over cap bytes at data, which someone else owns and frees. */
void un_buf_borrow(un_buf *b, uint8_t *data, size_t cap);

void un_buf_free(un_buf *b);
/* Free memory taken from an un_buf (data of cap bytes): a large block is kept for reuse. */
void un_block_give(uint8_t *data, size_t cap);
/* A large buffer that uses a quarter of its room or less moved into one its size, the large
 * block kept for the next batch: a batch reserves its input's size for its text, and its
 * rows handed back as views of the input leave most of that unwritten. */
void un_buf_fit(un_buf *b);
void un_buf_put_uint(un_buf *b, unsigned long v);
uint8_t *un_write_uint(uint8_t *o, unsigned long v); /* o has room for 20 bytes */

/* The per-byte paths are inline: they run several times for every byte of every row, and
 * left to its heuristics the compiler sometimes keeps a copy out of line in the hot loops. */
#define UN_HOT static inline __attribute__((always_inline))
/* A path that few rows take, kept out of line and apart from the hot code: the flattened
 * parse (whatwg.c) inlines every call it can, and with these inlined it was 279 KB of code, over
 * which a messy row's path missed the instruction cache (4% of the parse's time a messy row). */
#define UN_COLD __attribute__((noinline, cold))

UN_COLD int un_buf_grow(un_buf *b, size_t extra); /* the slow path of un_buf_reserve */

UN_HOT int un_buf_reserve(un_buf *b, size_t extra) {
    return (!b->failed && extra <= b->cap - b->len) || un_buf_grow(b, extra);
}

/* Copy n bytes: up to 16 as two overlapping words, inline. Most fields are that short, and a
 * call into the C library's memcpy a field cost more than the copy (3–6% of a row). */
UN_HOT void un_copy(uint8_t *d, const uint8_t *s, size_t n) {
    if (n > 16) {
        memcpy(d, s, n);
    } else if (n >= 8) {
        uint64_t x, y;
        memcpy(&x, s, 8), memcpy(&y, s + n - 8, 8);
        memcpy(d, &x, 8), memcpy(d + n - 8, &y, 8);
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4), memcpy(&y, s + n - 4, 4);
        memcpy(d, &x, 4), memcpy(d + n - 4, &y, 4);
    } else if (n) {
        d[0] = s[0], d[n / 2] = s[n / 2], d[n - 1] = s[n - 1];
    }
}

UN_HOT void un_buf_put(un_buf *b, const uint8_t *p, size_t n) {
    if (n == 0 || !un_buf_reserve(b, n)) return;
    un_copy(b->data + b->len, p, n);
    b->len += n;
}

UN_HOT void un_buf_putc(un_buf *b, uint8_t c) {
    if (!un_buf_reserve(b, 1)) return;
    b->data[b->len++] = c;
}

/* Inline, so that the length of a literal is known where it is written. */
UN_HOT void un_buf_puts(un_buf *b, const char *s) { un_buf_put(b, (const uint8_t *)s, strlen(s)); }

static inline void un_buf_set(un_buf *b, const uint8_t *p, size_t n) {
    b->len = 0;
    un_buf_put(b, p, n);
}

/* ASCII case folding: URLs fold only ASCII letters themselves (UTS #46 does the rest). */
UN_HOT uint8_t un_ascii_lower(uint8_t c) { return c >= 'A' && c <= 'Z' ? (uint8_t)(c | 0x20) : c; }

/* p[0, n) ASCII-lower-cased in place. */
static inline void un_lower_ascii(uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = un_ascii_lower(p[i]);
}

/* b set to p[0, n) ASCII-lower-cased, in one pass: a copy folded in place afterwards reads
 * back the bytes it has just stored, which waits for the stores. */
static inline void un_buf_set_lower(un_buf *b, const uint8_t *p, size_t n) {
    b->len = 0;
    if (n == 0 || !un_buf_reserve(b, n)) return;
    if (n < 8) {
        for (size_t i = 0; i < n; i++) b->data[i] = un_ascii_lower(p[i]);
    } else {
        /* Eight bytes a word, the last word overlapping the one before: a byte's high bit
         * after adding 0x3F to its low seven bits says it is at least 'A', after adding
         * 0x25 that it is past 'Z' (no sum carries into the next byte). */
        const uint64_t ones = 0x0101010101010101u, high = ones * 0x80;
        for (size_t i = 0;; i = i + 8 > n - 8 ? n - 8 : i + 8) {
            uint64_t w, low;
            memcpy(&w, p + i, 8);
            low = w & ~high;
            w |= ((low + ones * 0x3F) & ~(low + ones * 0x25) & ~w & high) >> 2;
            memcpy(b->data + i, &w, 8);
            if (i == n - 8) break;
        }
    }
    b->len = n;
}

/* Whether p[0, n) equals the lower-case ASCII text `lower` ignoring ASCII case. */
static inline int un_ascii_ieq(const uint8_t *p, const char *lower, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (un_ascii_lower(p[i]) != (uint8_t)lower[i]) return 0;
    }
    return 1;
}

/* FNV-1a, continued from h: the published key hash (from its offset basis). */
static inline uint64_t un_fnv1a_byte(uint64_t h, uint8_t c) { return (h ^ c) * 1099511628211ULL; }
static inline uint64_t un_fnv1a(uint64_t h, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) h = un_fnv1a_byte(h, p[i]);
    return h;
}

/* The kernel's memo and cache tables' hash of p[0, n), seeded by h: eight bytes a multiply
 * (a host hashed a byte at a multiply waited on each; a third of a messy mix's rows look
 * their host up). The last zero to seven bytes are read as two overlapping words (or three
 * bytes), which with the length mixed in first spell them exactly. */
static inline uint64_t un_hash(uint64_t h, const uint8_t *p, size_t n) {
    const uint64_t k = 0x9E3779B97F4A7C15ULL;
    h = (h ^ n) * k;
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * k, h ^= h >> 32;
    }
    uint64_t last = 0;
    if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, p, 4), memcpy(&b, p + n - 4, 4);
        last = (uint64_t)a << 32 | b;
    } else if (n) {
        last = (uint64_t)p[0] | (uint64_t)p[n / 2] << 8 | (uint64_t)p[n - 1] << 16;
    }
    h = (h ^ last) * k;
    return h ^ h >> 29;
}

/* A memo of n slots (a power of two) keeps a hash in one of two slots side by side: the first's
 * index. Bit 0 of a memo's hashes is set (0 marks an empty slot) and picks nothing: the
 * slot taken as hash % n left half the slots unused, and two of a batch's few dozen referrer
 * hosts sharing one evicted each other every other row (a host looked up anew for one
 * referrer in eleven). */
static inline size_t un_memo_pair(uint64_t hash, size_t n) { return (size_t)(hash >> 1) & (n - 2); }

/* Which of a pair's two slots a hash not found in them takes: an empty one, else the one a
 * bit of the hash picks. */
static inline size_t un_memo_victim(uint64_t hash, uint64_t first, uint64_t second) {
    return !first ? 0 : !second ? 1 : (size_t)(hash >> 63);
}

/* ---- tables.c: character classes and encode sets, filled from urlnorm.core ---------------- */

enum {
    UN_C0_CONTROL = 1 << 0, /* the encode sets of the URL Standard §1.3 */
    UN_FRAGMENT = 1 << 1,
    UN_QUERY = 1 << 2,
    UN_SPECIAL_QUERY = 1 << 3,
    UN_PATH = 1 << 4,
    UN_USERINFO = 1 << 5,
    UN_ALPHA = 1 << 6, /* RFC 3986 §2 classes */
    UN_DIGIT = 1 << 7,
    UN_HEXDIG = 1 << 8,
    UN_UNRESERVED = 1 << 9,
    UN_SCHEME_CHAR = 1 << 10,
    UN_FORBIDDEN_HOST = 1 << 11, /* URL Standard §3.2 */
    UN_FORBIDDEN_DOMAIN = 1 << 12,
    UN_COMPONENT = 1 << 13, /* URL Standard §1.3 again: a component, a form's name or value */
    UN_FORM = 1 << 14,
};
#define UN_N_CLASSES 15
/* The classes by bit, as Python names them when it fills the table (native.class_table). */
extern const char *const UN_CLASS_NAMES[UN_N_CLASSES];

#define UN_MAX_SCHEMES 8
#define UN_SCHEME_LEN 8

typedef struct {
    uint16_t classes[256];
    int n_special;
    char special[UN_MAX_SCHEMES][UN_SCHEME_LEN]; /* special schemes (URL Standard §4.1) */
    int default_port[UN_MAX_SCHEMES];            /* -1: none (file) */
    size_t special_len[UN_MAX_SCHEMES];          /* filled by un_set_tables */
    uint64_t special_key[UN_MAX_SCHEMES];        /* the name's bytes as one word, likewise */
    uint8_t hex_value[256];                      /* a UN_HEXDIG's value, else UN_NOT_HEX; likewise */
} un_tables;
#define UN_NOT_HEX 0xF0

extern un_tables un_t;
void un_set_tables(const un_tables *t);
UN_HOT int un_is(uint8_t c, uint16_t cls) { return (un_t.classes[c] & cls) != 0; }
int un_special_index(const uint8_t *s, size_t n); /* -1 if not special */

/* The byte the '%' at p[i] and the two hex digits after it spell, or -1 if they are not two
 * hex digits: two loads of the hex value table, which a messy row does some ten times. */
UN_HOT int un_escaped_byte(const uint8_t *p, size_t n, size_t i) {
    if (i + 2 >= n) return -1;
    uint8_t high = un_t.hex_value[p[i + 1]], low = un_t.hex_value[p[i + 2]];
    return (high | low) & UN_NOT_HEX ? -1 : high << 4 | low;
}

/* The byte the escape at p[i] ("%" and two hex digits) spells, or -1 if none begins there. */
UN_HOT int un_escape_at(const uint8_t *p, size_t n, size_t i) { return p[i] == '%' ? un_escaped_byte(p, n, i) : -1; }

/* ---- errors.c: codes, in the order of UN_ERROR_NAMES ----------------------------------------- */

typedef enum {
    UN_OK = 0,
    UN_ERR_MISSING_SCHEME,
    UN_ERR_INVALID_SCHEME,
    UN_ERR_HOST_MISSING,
    UN_ERR_HOST_INVALID_CODE_POINT,
    UN_ERR_DOMAIN_INVALID_CODE_POINT,
    UN_ERR_DOMAIN_TO_ASCII,
    UN_ERR_PORT_INVALID,
    UN_ERR_PORT_OUT_OF_RANGE,
    UN_ERR_IPV4_TOO_MANY_PARTS,
    UN_ERR_IPV4_NON_NUMERIC_PART,
    UN_ERR_IPV4_OUT_OF_RANGE_PART,
    UN_ERR_IPV6_UNCLOSED,
    UN_ERR_IPV6_INVALID,
    UN_ERR_INVALID_BASE,
    UN_ERR_INVALID_UTF8,
    UN_ERR_MEMORY,
    UN_N_ERRORS,
    /* Not errors: the row needs an answer only Python has (see un_answers). */
    UN_ASK_HOST = 100, /* UTS #46 for a host with non-ASCII code points */
    UN_ASK_WWW = 101,  /* the Public Suffix List for strip_www */
    UN_ASK_HOST_RULES = 102, /* lowercase_host / idn_host_to_ascii on a non-ASCII host */
    UN_ASK_TERM = 103,       /* a search term a /regex/ parameter finds (referrers.c) */
} un_status;

extern const char *const UN_ERROR_NAMES[UN_N_ERRORS];

/* ---- the URL record (record.c), components held in their own buffers ---------------------- */

typedef struct {
    un_buf scheme, username, password, host, path, query, fragment;
    int has_scheme, has_host, has_query, has_fragment, has_username, has_password;
    int32_t port; /* -1: none */
    int special;  /* index into un_t.special, or -1 */
    int opaque;   /* the path is opaque (URL Standard §4.1) */
} un_url;

void un_url_reset(un_url *u);
void un_url_free(un_url *u);
void un_serialize(const un_url *u, un_buf *out); /* RFC 3986 §5.3, URL Standard §4.5 */
/* The record's text fields, in the order of the URL record (port is not text). */
enum {
    UN_FIELD_SCHEME, UN_FIELD_USERNAME, UN_FIELD_PASSWORD, UN_FIELD_HOST, UN_FIELD_PATH,
    UN_FIELD_QUERY, UN_FIELD_FRAGMENT, UN_N_FIELDS,
};
/* un_serialize, noting where each present field starts in out (the rest are left as they are). */
void un_serialize_spans(const un_url *u, un_buf *out, size_t at[UN_N_FIELDS]);
int un_url_failed(const un_url *u);

/* Python's answer to a question a row asked (UN_ASK_*): a text, or an error code. */
typedef struct {
    const uint8_t *text;
    size_t len;
    int code;
} un_answer;

/* The answers the caller already has: 1 and *a when (kind, question) has one. */
typedef int (*un_recall_fn)(const void *data, int kind, const uint8_t *question, size_t n, un_answer *a);

/* Which providers (providers.c) cover a host, kept for the rows after it: hosts repeat. */
#define UN_HOST_MEMO 32
#define UN_HOST_MEMO_LEN 48
typedef struct {
    uint64_t hash; /* of the host and the table; 0 for an empty slot */
    size_t len;
    uint8_t host[UN_HOST_MEMO_LEN];
    uint32_t covering; /* a bit per provider, the first 32 */
} un_host_memo;

/* A referrer host's lookups (referrers.c), kept for the rows after it: its keys' source and
 * its reduced form's (-1: none), whether a key has a path under either, and the GA4 category
 * of its site (the host without "www.", a referral's source; -1: none). A clickstream's
 * referrers come from a few hundred hosts: so many slots keep most of them. */
#define UN_REFERRER_MEMO 256
typedef struct {
    uint64_t hash; /* of the host and the table; 0 for an empty slot */
    size_t len;
    uint8_t host[UN_HOST_MEMO_LEN];
    int32_t exact, reduced;
    uint8_t exact_paths, reduced_paths;
    int8_t site_category;
} un_referrer_memo;

/* A parse or rule that needs an answer it cannot recall writes the question here. */
typedef struct {
    un_recall_fn recall; /* NULL: nothing is known, every question is asked */
    const void *recall_data;
    un_buf question;
    un_buf text, input, scratch, scratch2;
    un_buf unwrapped, spare, trimmed; /* a redirect's target, its spare bytes, the link read (redirects.c) */
    un_host_memo providers[UN_HOST_MEMO];
    un_referrer_memo referrers[UN_REFERRER_MEMO];
    int host_answered; /* the answer replaced the host: later host rules leave it */
    int has_percent;   /* the input has a '%': without one no field has an escape */
} un_ctx;

void un_ctx_free(un_ctx *c);

/* The answer to (kind, q): UN_OK and *a when it is known, its error code, or else the
 * question is written to c->question and the row asks (the result is kind). */
static inline int un_recall(un_ctx *c, int kind, const uint8_t *q, size_t n, un_answer *a) {
    if (c->recall && c->recall(c->recall_data, kind, q, n, a)) return a->code;
    un_buf_set(&c->question, q, n);
    return kind;
}

/* ---- percent.c (core/percent.py) ------------------------------------------------------------ */

void un_put_escape(un_buf *out, uint8_t byte); /* %XX, upper-case hex */
void un_percent_encode(un_buf *out, const uint8_t *p, size_t n, uint16_t set);
void un_uppercase_escapes(uint8_t *p, size_t n);   /* in place */
size_t un_decode_unreserved(uint8_t *p, size_t n); /* in place: the new length */
size_t un_normalize_escapes(uint8_t *p, size_t n); /* the two above in turn, in one pass */
size_t un_percent_decode(uint8_t *out, const uint8_t *p, size_t n); /* out has n bytes */
/* Writers for the parser's hot loops: un_reserve_encoded makes room for n input bytes
 * percent-encoded (three bytes each at most) and returns where they go, or NULL (out failed);
 * each writer writes at o and returns the new end, which the caller sets as out's length. */
uint8_t *un_reserve_encoded(un_buf *out, size_t n);
uint8_t *un_write_escape(uint8_t *o, uint8_t byte);
size_t un_write_percent(uint8_t **o, const uint8_t *field, const uint8_t *p, size_t n, size_t i);
/* A name or value decoded: '+' as a space, escapes, then UTF-8 with U+FFFD for invalid bytes. */
void un_form_decode(un_buf *out, const uint8_t *p, size_t n, un_buf *tmp);
/* A text encoded or decoded as a component (core encode_component ... decode_form_component,
 * by the names UN_COMPONENT_MODE_NAMES gives them); tmp is scratch. */
enum { UN_ENCODE_COMPONENT, UN_ENCODE_FORM, UN_DECODE_COMPONENT, UN_DECODE_FORM, UN_N_COMPONENT_MODES };
extern const char *const UN_COMPONENT_MODE_NAMES[UN_N_COMPONENT_MODES];
/* Whether the mode gives p[0, n) back as it is: a decode of valid UTF-8 (utf8: known to be)
 * with nothing to decode. */
int un_component_as_is(const uint8_t *p, size_t n, int mode, int utf8);
void un_component(un_buf *out, const uint8_t *p, size_t n, int mode, un_buf *tmp);

/* ---- host.c (core/host.py) ---------------------------------------------------------------- */

int un_parse_host(un_ctx *c, const uint8_t *p, size_t n, int special, un_buf *out);
/* A record's host type (core host.host_type), an index of UN_HOST_TYPE_NAMES (the core's
 * HOST_TYPES), or UN_NO_HOST for a record without a host. */
typedef enum { UN_NO_HOST = -1, UN_DOMAIN_HOST, UN_IPV4_HOST, UN_IPV6_HOST, UN_OPAQUE_HOST, UN_N_HOST_TYPES } un_host_kind;
extern const char *const UN_HOST_TYPE_NAMES[UN_N_HOST_TYPES];
un_host_kind un_host_type(const un_url *u);
int un_ends_in_a_number(const uint8_t *p, size_t n);
int un_parse_ipv6(const uint8_t *p, size_t n, uint16_t pieces[8]);
void un_serialize_ipv6(const uint16_t pieces[8], un_buf *out);

/* ---- path.c (core/path.py) ---------------------------------------------------------------- */

int un_is_single_dot(const uint8_t *p, size_t n);
int un_is_double_dot(const uint8_t *p, size_t n);
int un_is_drive_letter(const uint8_t *p, size_t n, int normalized);
int un_starts_with_drive_letter(const uint8_t *p, size_t n);
void un_normalize_drive_letter(un_url *u);
size_t un_without_trailing_slashes(const uint8_t *p, size_t n);
int un_has_dot_segment(const uint8_t *p, size_t n);
/* The '/'s of p[0, n) a block of 64 bytes at a time, as bits: a segment's end is a count of
 * trailing zeros, where a call of memchr a segment cost more than its few bytes. Begin with
 * un_slashes_of; un_next_slash gives the first '/' from p[i] on, or n, for i never less than
 * the one before. */
typedef struct {
    const uint8_t *p;
    size_t n, base;
    uint64_t bits;
} un_slashes;
un_slashes un_slashes_of(const uint8_t *p, size_t n);
size_t un_next_slash(un_slashes *s, size_t i);
void un_remove_dot_segments(un_buf *out, const uint8_t *p, size_t n);
int un_next_segment(const uint8_t *p, size_t n, size_t *at, size_t *start, size_t *len);

/* ---- url_parts.c (core/url_parts.py) ------------------------------------------------------ */

/* The parts, by the names of their column functions (UN_URL_PART_NAMES). */
enum {
    UN_URL_PART_NETLOC, UN_URL_PART_PATH_FULL, UN_URL_PART_QUERY_AND_FRAGMENT, UN_URL_PART_CUT_QUERY, UN_URL_PART_CUT_FRAGMENT,
    UN_URL_PART_CUT_QUERY_AND_FRAGMENT, UN_URL_PART_DOMAIN_WITHOUT_WWW, UN_URL_PART_CUT_WWW,
    UN_URL_PART_HIERARCHY, UN_URL_PART_PATH_HIERARCHY, UN_N_URL_PARTS,
};
extern const char *const UN_URL_PART_NAMES[UN_N_URL_PARTS];
int un_url_part_is_list(int part);
/* How far a parse must go for the part (UN_EXTENT_*): the authority's parts need no path, the
 * query and fragment no path either, the href cut at its query no query or fragment; the later
 * states cannot make the URL invalid. */
int un_url_part_extent(int part);
/* A text part (not a list) appended to out; 0, and out as it was, where the part is null. */
int un_url_part(const un_url *u, int part, un_buf *out);
int un_opaque_path(const un_url *u);
/* A hierarchy's levels in the path p[0, n) followed by "?query" (query_len bytes, where
 * has_query), one at a time: un_levels_start, then un_next_level gives each one's end, 0 after
 * the last. */
typedef struct {
    un_slashes slashes;
    size_t at, query_len;
    int has_query;
} un_levels;
void un_levels_start(un_levels *l, const uint8_t *p, size_t n, int has_query, size_t query_len);
int un_next_level(un_levels *l, size_t *end);

/* ---- whatwg.c (core/whatwg.py) and split.c (core/split.py) -------------------------------- */

void un_whatwg_init(void); /* the parser's run tables, from un_t: after each un_set_tables */
int un_whatwg_parse(un_ctx *c, const uint8_t *p, size_t n, const un_url *base, un_url *u);
/* How far a parse goes (UN_EXTENT_NAMES): the whole URL; as far as its port (path, query and
 * fragment left empty); all but its path (left empty); or as far as its path (query and
 * fragment left absent). The status and the fields kept are those of the whole parse: no
 * state after the port can fail, and the path states end at the first '?' or '#'. */
enum { UN_EXTENT_WHOLE, UN_EXTENT_AUTHORITY, UN_EXTENT_NO_PATH, UN_EXTENT_NO_QUERY, UN_N_EXTENTS };
extern const char *const UN_EXTENT_NAMES[UN_N_EXTENTS];
/* The parse as far as extent (UN_EXTENT_*) says; the status is the whole parse's. */
int un_whatwg_parse_extent(un_ctx *c, const uint8_t *p, size_t n, int extent, un_url *u);
/* The parse followed by the percent rules (uppercase_percent_hex, decode_unreserved), which
 * it applies to the path, query and fragment as it writes them: the userinfo and host are
 * left to un_apply_percent_rules_to_authority. */
int un_whatwg_parse_escapes(un_ctx *c, const uint8_t *p, size_t n, un_url *u);
int un_split_generic(const uint8_t *p, size_t n, un_url *u);
/* The length of p[0, n)'s leading run of ASCII bytes. */
size_t un_ascii_prefix(const uint8_t *p, size_t n);
int un_valid_utf8(const uint8_t *p, size_t n);
int un_has_tab_or_newline(const uint8_t *p, size_t n);
size_t un_drop_tab_or_newline(uint8_t *out, const uint8_t *p, size_t n);
void un_encode_invalid_utf8(un_buf *out, const uint8_t *p, size_t n);
/* UTF-8 decode with replacement (URL Standard's "UTF-8 decode without BOM", as Python's
 * errors="replace"): each maximal invalid subpart becomes U+FFFD. */
void un_utf8_replace(un_buf *out, const uint8_t *p, size_t n);
size_t un_strip_bounds(const uint8_t *p, size_t n, size_t *start); /* §4.4 steps 1–2 */
/* §4.4 steps 1–3 on p[0, *n): p itself where nothing is removed, else a copy in out; NULL if
 * out could not grow. */
const uint8_t *un_remove_whitespace(un_buf *out, const uint8_t *p, size_t *n);

/* ---- rules.c, crawl.c (core/rules.py, core/crawl.py, core/query.py) ------------------------ */

typedef enum {
    UN_RULE_STRIP_WHITESPACE,
    UN_RULE_LOWERCASE_SCHEME,
    UN_RULE_UPPERCASE_PERCENT_HEX,
    UN_RULE_DECODE_UNRESERVED,
    UN_RULE_LOWERCASE_HOST,
    UN_RULE_IDN_HOST_TO_ASCII,
    UN_RULE_IPV6_RFC5952,
    UN_RULE_REMOVE_DOT_SEGMENTS,
    UN_RULE_DROP_DEFAULT_PORT,
    UN_RULE_DROP_EMPTY_USERINFO,
    UN_RULE_EMPTY_PATH_TO_SLASH,
    UN_RULE_FILE_LOCALHOST,
    UN_RULE_DROP_FRAGMENT,
    UN_RULE_DROP_PATH_SESSION_ID,
    UN_RULE_DROP_PARAMETERS,
    UN_RULE_CLEAN_QUERY,
    UN_RULE_SORT_QUERY,
    UN_RULE_STRIP_WWW,
    UN_RULE_FOLD_HTTPS,
    UN_RULE_DROP_TRAILING_SLASH,
    UN_RULE_DROP_TRAILING_DOT,
    UN_RULE_DROP_FRAGMENT_EXCEPT_HASHBANG,
    UN_RULE_DROP_SESSION_HASH_PARAMETERS,
    UN_RULE_DROP_DUPLICATE_PARAMETERS,
    UN_RULE_UNWRAP_REDIRECTS,
    UN_RULE_SITE_PARAMETERS,
    UN_RULE_HOST_RULES,
    UN_N_RULES,
} un_rule_id;
extern const char *const UN_RULE_NAMES[UN_N_RULES];

/* Parameter names for UN_RULE_DROP_PARAMETERS: lower-case names and prefixes, each entry a
 * length byte and then the name. un_params_index summarises them, so that most keys are
 * found absent without a look at the lists: the names' lengths (bit min(length, 63)) and the
 * first bytes of names and prefixes (an empty prefix has every one). */
typedef struct {
    const char *names;
    size_t names_len;
    const char *prefixes;
    size_t prefixes_len;
    uint64_t name_lengths, first_bytes[4];
} un_params;

typedef struct {
    un_rule_id id;
    un_params params;
} un_rule;

#define UN_MAX_RULES 32
typedef struct {
    int generic; /* parser mode: generic (RFC 3986) or whatwg */
    int n_rules;
    un_rule rules[UN_MAX_RULES];
    /* Set by un_profile_index from the rules: whether any is a text rule, the first record
     * rule, and whether the parse applies the percent pair there as it writes. */
    int has_text_rules, first_record_rule, parse_escapes;
    int goes_on_after_scan; /* its parse may go on from where the normal-form scan stopped */
    unsigned normal_form; /* what a URL must meet to be its own normal form (UN_NF_*) */
} un_profile;

/* profiles.c (core/profiles.py) */
int un_normalize(un_ctx *c, const un_profile *prof, const uint8_t *p, size_t n, un_url *u);
/* un_normalize for a URL the normal-form scan did not take: the text rules, the parse and the
 * rules, every time; the parse goes on from where the scan stopped (after, or NULL) where it
 * may (un_whatwg_parse_after). */
struct un_spans;
int un_normalize_parsed(un_ctx *c, const un_profile *prof, const uint8_t *p, size_t n, const struct un_spans *after, un_url *u);
void un_profile_index(un_profile *prof); /* every rule's un_params_index, and the run's plan */
/* rules.c (core/rules.py) */
int un_apply_standard_rule(un_ctx *c, un_rule_id id, un_url *u); /* UN_OK for another file's */
void un_apply_percent_rules(un_ctx *c, un_url *u);
void un_apply_percent_rules_to_authority(un_url *u); /* userinfo and host only */
void un_apply_percent_rules_to_record(un_url *u); /* every text component, '%' in the input or not */
void un_drop_default_port(un_url *u); /* RFC 3986 §6.2.3 */
/* crawl.c (core/crawl.py) */
void un_params_index(un_params *params);
/* The parameter filters (drop_parameters, clean_query, drop_session_hash_parameters) from rules[0] on, applied in one pass
 * (core applies them in turn: a parameter each keeps is kept by all); *n_applied of them. */
int un_filter_query(un_ctx *c, un_url *u, const un_rule *rules, int n_rules, int *n_applied);
int un_drop_path_session_id(un_ctx *c, un_url *u);
int un_strip_www(un_ctx *c, un_url *u, const un_params *params);
void un_fold_https(un_url *u);
void un_drop_trailing_slash(un_url *u);
void un_drop_trailing_dot(un_url *u);
int un_drop_duplicate_parameters(un_ctx *c, un_url *u);
void un_drop_fragment_except_hashbang(un_url *u);
/* filters.c (core/filters.py): a reason's index in UN_FILTER_REASON_NAMES, the core's REASONS. */
enum {
    UN_FILTER_INVALID_URL,
    UN_FILTER_NON_WEB_SCHEME,
    UN_FILTER_TOO_LONG,
    UN_FILTER_PRIVATE_ADDRESS,
    UN_FILTER_LOCAL_NAME,
    UN_FILTER_BINARY_FILE,
    UN_FILTER_TRAP_DEPTH,
    UN_FILTER_TRAP_REPEATED_SEGMENT,
    UN_FILTER_TRAP_CALENDAR,
    UN_N_FILTER_REASONS,
};
extern const char *const UN_FILTER_REASON_NAMES[UN_N_FILTER_REASONS];
#define UN_MAX_FILTER_DEPTH 255 /* segments are counted pairwise */
#define UN_BLOCK_SIZE 18        /* an address block: family (4 or 6), prefix length, 16 bytes */
/* The filters' settings (core Filters) and tables; lists are length-prefixed names. */
typedef struct {
    size_t max_length;
    int max_depth, max_repeats;
    const char *schemes, *extensions, *calendar_keys, *local_names;
    size_t schemes_len, extensions_len, calendar_keys_len, local_names_len;
    const uint8_t *blocks;
    size_t blocks_len;
} un_filters;
/* core record_reason: the first reason's index, or -1 for none; scratch holds the href. */
int un_filter_reason(const un_url *u, const un_filters *f, un_buf *scratch);
/* redirects.c (core/redirects.py): a wrapper's encoding, an index of these names. */
enum { UN_REDIRECT_FORM, UN_REDIRECT_PROOFPOINT_V2, UN_REDIRECT_PROOFPOINT_V3, UN_N_REDIRECT_ENCODINGS };
extern const char *const UN_REDIRECT_ENCODING_NAMES[UN_N_REDIRECT_ENCODINGS];
/* The text a chain of redirect wrappers ends at (core unwrap_redirects): table->names is the
 * rule's table (redirects.c), its first byte the chain's longest; *n is updated, and the text
 * returned is p or c->unwrapped. u is scratch. */
const uint8_t *un_unwrap_redirects(un_ctx *c, const un_params *table, const uint8_t *p, size_t *n, un_url *u);
/* core redirects.host_matches: a name, "*." and a name above the host, or a name and ".*". */
int un_host_pattern_matches(const uint8_t *pattern, size_t len, const uint8_t *host, size_t n);
/* providers.c (core/providers.py): site_parameters over the rule's table. */
int un_site_parameters(un_ctx *c, un_url *u, const un_params *table);
/* query.c (core/query.py) */
int un_listed(const char *list, size_t list_len, const uint8_t *key, size_t n, int prefix, int fold);
/* core query.key and query.filter_parameters: a parameter's raw key; the query's parameters
 * for which keep(parameter, data) is true, in order, joined by '&'. */
size_t un_key_len(const uint8_t *p, size_t n);
typedef int (*un_keep_fn)(const uint8_t *p, size_t n, const void *data);
void un_filter_parameters(un_ctx *c, un_url *u, un_keep_fn keep, const void *data);
int un_sort_query(un_ctx *c, un_url *u);
/* host_rules.c (core/host_rules.py): the per-host rules table in table->names. */
int un_host_rules(un_ctx *c, un_url *u, const un_params *table);
#define UN_N_HOST_RULE_FLAGS 3
extern const char *const UN_HOST_RULE_FLAG_NAMES[UN_N_HOST_RULE_FLAGS];

/* The text with only (keep) or without the parameters whose raw key is listed (names only,
 * compared as written) in the query RFC 3986 Appendix B finds; an emptied query loses its '?'.
 * u is scratch. */
void un_select_parameters(un_ctx *c, un_url *u, const uint8_t *p, size_t n, const un_params *params, int keep, un_buf *out);

/* One name-value pair of a query (URL Standard §5.1), as raw spans of it. */
typedef struct {
    const uint8_t *name, *value;
    size_t name_len, value_len;
} un_form_pair;
/* Whether a form's name or value p[0, n) decodes to itself (URL Standard §5.1): no '+', no
 * escape's '%', and no byte past ASCII, which is replaced where it is not UTF-8. A name's few
 * bytes, looked at once, cost less than a call into the C library for each of the three. */
UN_HOT int un_form_plain(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] == '+' || p[i] == '%' || p[i] >= 0x80) return 0;
    return 1;
}
/* The next pair of the query at *q (n bytes left), advancing past it; 0 when none is left. */
int un_next_form_pair(const uint8_t **q, size_t *n, un_form_pair *pair);
/* Whether the pair's decoded name is name[0, n) (tmp and decoded are scratch). */
int un_form_name_is(const un_form_pair *pair, const uint8_t *name, size_t n, un_buf *tmp, un_buf *decoded);

/* ---- public_suffix.c (core/public_suffix.py) ------------------------------------------------ */

/* The process's list with its private section, and without; the other tables hold the lists
 * a profile or a call names, each table given by Python once (native/tables.py). */
enum { UN_PSL_ALL, UN_PSL_ICANN, UN_PSL_TABLES = 32 };
/* rules: NUL-terminated rule strings one after another (len bytes in all). One thread at a
 * time may call it; batches may be reading the table it replaces. */
int un_psl_set(int which, const char *rules, size_t len, int maxlabel);
/* +1 when a batch starts, -1 when it ends: a replaced table outlives every batch that ran. */
void un_psl_reading(int delta);
int un_psl_loaded(int which);
/* 1 if the host has a registrable domain by table `which`, 0 if not, -1 if only Python can tell
 * (non-ASCII, or no such table). */
int un_has_registrable_domain(int which, const uint8_t *host, size_t n, un_buf *scratch);

/* The parts of a domain (core public_suffix.domain_parts), as spans of its prepared name. */
enum { UN_PART_SUFFIX, UN_PART_REGISTERED, UN_PART_SUBDOMAIN, UN_PART_LABEL, UN_PART_TLD, UN_N_PARTS };
extern const char *const UN_PART_NAMES[UN_N_PARTS]; /* DomainParts' fields */
typedef struct {
    int present[UN_N_PARTS];
    size_t start[UN_N_PARTS], len[UN_N_PARTS];
} un_domain_parts;
/* 0, with the parts of host as spans of name; -1 if only Python can tell (non-ASCII). */
int un_domain_parts_of(int which, const uint8_t *host, size_t n, un_buf *name, un_domain_parts *out);

/* The TLD of a lower-case ASCII domain (core public_suffix.domain_parts' tld: its last label
 * once trailing dots are gone), a span of host; 0 if it has none. It needs no list. */
int un_tld_of(const uint8_t *host, size_t n, size_t *start, size_t *len);

/* ---- surt.c (core/surt.py) ---------------------------------------------------------------- */

void un_surt_key(const un_url *u, int with_scheme, int trailing_comma, un_buf *out);

/* ---- resolve.c (core/resolve.py) ---------------------------------------------------------- */

enum { UN_JOIN_WHATWG, UN_JOIN_RFC3986, UN_JOIN_LEGACY, UN_N_JOIN_MODES };
extern const char *const UN_JOIN_MODE_NAMES[UN_N_JOIN_MODES]; /* core/resolve.py's MODES */
int un_join(un_ctx *c, int mode, const uint8_t *base, size_t base_n, const uint8_t *ref,
            size_t ref_n, un_url *scratch_base, un_url *u);

/* ---- normal_form.c (core/normal_form.py) -------------------------------------------------- */

/* What a profile's rules ask of a URL, beyond the parse's own form, for the URL to be its own
 * normal form: a bit for each, in the order of UN_NF_NAMES (the core's REQUIREMENTS). A
 * generic profile asks its scheme, host and port as written (UN_NF_AS_WRITTEN): the generic
 * split folds none of them, its rules do, and a profile may stop before them. One whose rules
 * fold the scheme and host and drop a default port (rfc3986's) asks no more than a WHATWG one.
 * UN_NF_REWRITE_ESCAPES is not a requirement but leave to meet UN_NF_ESCAPES otherwise: a
 * profile whose rules begin with the percent pair (un_profile.parse_escapes) gives a URL that
 * is its own normal form but for escapes the pair rewrites as the URL with them rewritten, so
 * the scan takes it (un_spans.rewrite_escapes).
 * UN_NF_DOT_SEGMENTS is leave too: a WHATWG profile's parse removes a path's dot segments (as
 * rfc3986's rule does), so the scan takes a URL whose path has some, its normal form them removed
 * (un_spans.remove_dots).
 * UN_NF_NEVER: a rule the scan cannot vouch for (a URL of the profile is always parsed). */
enum {
    UN_NF_ESCAPES, UN_NF_NO_QUERY, UN_NF_NO_FRAGMENT, UN_NF_NO_WWW, UN_NF_NO_PATH_PARAMETERS,
    UN_NF_NOT_HTTPS, UN_NF_NO_TRAILING_SLASH, UN_NF_AS_WRITTEN, UN_NF_REWRITE_ESCAPES, UN_NF_DOT_SEGMENTS, UN_N_NF,
    UN_NF_NEVER = UN_N_NF,
};
extern const char *const UN_NF_NAMES[UN_N_NF];
/* Where the parts of a URL in normal form lie in it. */
typedef struct un_spans {
    size_t scheme_len, host_start, host_len, authority_end, path_start, path_len, query_start, query_len, fragment_start,
        fragment_len;
    int has_query, has_fragment, special;
    int32_t port;   /* its value, -1 for none (a default or empty port is none) */
    size_t parse_from; /* where the scan took the scheme and authority, which end there: a
                          parse of a URL it did not take may go on from there
                          (un_whatwg_parse_after); 0 if it may not */
    int as_written; /* the text is its own serialisation; else its scheme or host has upper-case
                       letters, or its port is empty, the default or has leading zeros */
    int rewrite_escapes; /* (UN_NF_REWRITE_ESCAPES) its path, query and fragment have escapes the
                            percent pair rewrites: its normal form is it with them rewritten */
    int remove_dots; /* (UN_NF_DOT_SEGMENTS) its path has dot segments ("." or ".."): its
                        normal form has them removed (RFC 3986 §5.2.4, as the parse does) */
    int non_ascii_host; /* not taken: the scan, which would take a respelt host, stopped at a
                           byte of the host that is not ASCII (UTS #46 maps it) */
} un_spans;
void un_normal_form_init(void); /* its byte classes, from un_t: after each un_set_tables */
/* The scan's byte classifier (normal_form.c): scalar, or the vector instructions the CPU has,
 * the widest by default. un_normal_form_use: 1 if this CPU has it, which is then used from the
 * next URL on (set it between batches); else 0. un_normal_form_scan: the one in use. */
enum { UN_SCAN_SCALAR, UN_SCAN_SSSE3, UN_SCAN_AVX2, UN_SCAN_AVX512, UN_N_SCANS };
extern const char *const UN_SCAN_NAMES[UN_N_SCANS];
int un_normal_form_use(int kind);
int un_normal_form_scan(void);
/* A byte class as nibble tables, for the vector classifiers: byte b is plain where
 * lo[b & 15] & hi[b >> 4] is not zero. un_nibble_tables: the tables of the bytes whose
 * classes have flag, 0 if they take more than eight patterns of low nibbles. un_plain_prefix:
 * how many of the 16 bytes at p are plain (16 if all are), only where un_plain_prefixes says
 * the scan uses vectors (so that tests of the scalar scan check the scalar loops too). */
typedef struct {
    uint8_t lo[16], hi[16];
} un_nibbles;
int un_nibble_tables(const uint8_t classes[256], uint8_t flag, un_nibbles *t);
int un_plain_prefixes(void);
/* Whether the parse writes its runs a block of 64 bytes at a time: the scan in use is AVX-512's, and
 * the CPU has VBMI2's byte compress (whatwg.c take_blocks). */
int un_block_runs(void);
size_t un_plain_prefix(const un_nibbles *t, const uint8_t *p);
/* Whether p[0, n) is in normal form under the requirements (a bit a UN_NF_*): then the parse
 * and the rules would give it back as it is, or, where s->as_written is 0, as it is but for
 * the scheme's and host's ASCII case and the port's spelling (the record un_url_from_spans
 * makes is the parse's either way); its parts are *s. Only a profile without the crawl
 * rules' requirements takes that second kind. A parse to a shorter extent (UN_EXTENT_*), with
 * no requirements, may ask less: that the parts it keeps are as the parse leaves them (the
 * parts it does not keep are not in *s). */
int un_normal_form(const uint8_t *p, size_t n, unsigned requirements, int extent, un_spans *s);
/* A URL un_normal_form took to UN_EXTENT_NO_QUERY (*s), on to its end with no requirements:
 * its query and fragment into *s, 1 where the parse leaves them as they are (as
 * un_normal_form to UN_EXTENT_WHOLE would take it), else 0. */
int un_normal_form_query(const uint8_t *p, size_t n, un_spans *s);
/* The normal form of p[0, n), which un_normal_form took (*s): un_put_href (url_parts.c), with
 * the dot segments removed and the escapes rewritten where s says so. head is its scheme and host as folded. */
void un_put_normal_href(const uint8_t *p, size_t n, const uint8_t *head, const un_spans *s, un_buf *out);
/* The same of a URL taken with dot segments and no escape to rewrite, into out (emptied first),
 * and *t its spans there, as un_normal_form would find them: as written, no dot segment left
 * (t may be s). */
void un_put_undotted(const uint8_t *p, size_t n, const uint8_t *head, const un_spans *s, un_buf *out, un_spans *t);
/* url_parts.c: a text part (not a list) of a URL un_normal_form took (p[0, n), its spans s to
 * the part's extent), as un_url_part gives it from the record. un_url_part_slice: where it is
 * one piece of the input itself, p[*from, *from + *len), 1; else 0 (a null part, a respelt
 * piece, or one with a piece cut out of it). un_url_part_cut: the part appended to out, for
 * any part but query_and_fragment (always a piece where present); 0, and out as it was, where
 * it is null. head holds its scheme and host as the parse folds them (p itself where
 * s->as_written). */
int un_url_part_slice(const uint8_t *p, size_t n, const un_spans *s, int part, size_t *from, size_t *len);
int un_url_part_cut(const uint8_t *p, size_t n, const uint8_t *head, const un_spans *s, int part, un_buf *out);
/* The href of a URL un_normal_form took, appended to out: the input itself, or where its
 * authority was respelt, the scheme and host folded (head) and the port as the serialiser
 * writes it (URL Standard §4.5), then the rest of the input as it is. How many bytes longer
 * than the input it is. */
ptrdiff_t un_put_href(const uint8_t *p, size_t n, const uint8_t *head, const un_spans *s, un_buf *out);
/* A URL the scan did not take because its host is not ASCII (s->non_ascii_host), its host
 * replaced with the host parser's answer for it (domain to ASCII, URL Standard §3.3), which
 * the scan may take: what follows a host parses the same whatever it is (§4.4).
 * un_non_ascii_host_end: where the host ends (a special URL's host state: at '/', '?', '#',
 * '\\', ':' or the end): p[s->host_start, end) is what the parser asks about; 0 where the
 * parse would read it otherwise (empty, userinfo, escapes, brackets, whitespace or controls).
 * un_put_answered_host: the URL into out, its scheme in lower case, "://", then host[0, len)
 * in place of the host. */
size_t un_non_ascii_host_end(const uint8_t *p, size_t n, const un_spans *s);
void un_put_answered_host(const uint8_t *p, size_t n, const un_spans *s, size_t host_end, const uint8_t *host, size_t len,
                          un_buf *out);
/* The record of a URL in normal form, as un_whatwg_parse_extent gives it for extent. */
void un_url_from_spans(const uint8_t *p, const un_spans *s, int extent, un_url *u);
/* whatwg.c: the parse of p[0, n) as un_whatwg_parse_extent makes it (with escapes, as
 * un_whatwg_parse_escapes does, extent whole), going on from s->parse_from: un_normal_form
 * took the scheme and authority (s), and the record to there is theirs. */
int un_whatwg_parse_after(un_ctx *c, const uint8_t *p, size_t n, int extent, int escapes, const un_spans *s, un_url *u);

/* profiles.c: the record of a URL in the profile's normal form (un_normal_form took it as
 * *s), the one un_normalize gives, made without a parse. */
void un_normal_record(const un_profile *prof, const uint8_t *p, const un_spans *s, un_url *u);

#endif
