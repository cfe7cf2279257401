#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

/* A host's Public Suffix List parts, kept for the rows after it: a column's hosts repeat. */
#define MEMO_SLOTS 64
#define MEMO_HOST 48 /* longer hosts are looked up each time */
typedef struct {
    uint64_t hash; /* of the host and the table; 0 for an empty slot */
    size_t host_len, name_len;
    int status;
    int in_host; /* the name is the host's own leading bytes (a lower-case host's) */
    uint8_t host[MEMO_HOST], name[MEMO_HOST];
    un_domain_parts parts;
} parts_memo;

/* Whether a row is put to the normal-form scan. The scan pays where rows pass it: one it takes
 * needs no parse, one it does not costs it some 40-50 ns more. On the messy mix (of whose rows
 * a whole scan takes 2.4%, against 97.4% of the corpora's and 79.3% of clickstream's) that was
 * 8-11% of each operation's time. Once fewer rows of a window of SCAN_WINDOW scanned rows
 * passed than pay for the misses, only every SAMPLE-th row is put to the scan, until such a
 * window of them passes again. The rows it skips are parsed, as those it does not take are,
 * to the same answer. A take pays for `pays` misses: measured, a whole parse saves some 300 ns
 * (6), one as far as the port or before the path some 65 (1.5, counted as 2). */
enum { SCAN_WINDOW = 64, SAMPLE = 8 };
enum { SCAN_EVERY, SCAN_SAMPLE, SCAN_NONE };
typedef struct {
    int mode;            /* SCAN_* */
    unsigned pays;       /* the misses a take pays for */
    int64_t start, ends; /* the window's first and last rows */
    unsigned misses;     /* rows of the window the scan did not take */
    int64_t missed;      /* the last of them: a row that asked runs again (answered_status) */
    int64_t scanned;     /* rows put to the scan in the windows before */
} scan_policy;

typedef struct {
    un_ctx ctx;
    un_url url, base;
    un_buf repaired, name;
    un_answers cache; /* the answers this batch has had */
    un_domain_parts parts;
    const uint8_t *named; /* the bytes parts are spans of: w->name's, or the host's own */
    parts_memo memo[MEMO_SLOTS];
    un_referral referral; /* UN_OP_REFERRER: the row's, its term in ctx.text */
    un_referral_kept *kept; /* UN_OP_REFERRER, UN_OP_VISIT: the batch's referrals (UN_REFERRAL_MEMO), or NULL */
    un_campaign campaign; /* UN_OP_CAMPAIGN, UN_OP_VISIT: the row's, its pairs in the row's query */
    un_visit visit;       /* UN_OP_VISIT: the row's */
    int channel;          /* UN_OP_VISIT: its UN_CHANNEL_* */
    /* UN_OP_VISIT: each channel's name's length, and where a name longer than a view holds lies
     * in the batch's data once a row has put it there (SIZE_MAX until then). */
    size_t channel_len[UN_N_CHANNELS], channel_at[UN_N_CHANNELS];
    int asked; /* the row asked a question */
    scan_policy scan;
    /* What the lane (lane_row) found of a row it scanned and left to the full path
     * (PRESCAN_*). The full path reads it once, for its first run of the row, so that no row
     * is scanned twice, nor its host answered twice. */
    int prescanned;
    /* The row's input when the normal-form scan took it: the normalised URL is written from
     * it and its spans, as it is or its authority respelt (normalize makes no record of it at
     * all); else NULL. A component's row that needs no decoding is as_is too. */
    const uint8_t *as_is;
    size_t as_is_len;
    /* A row the scan took for an operation that reads slices of it (reads_spans) is as_is, its
     * parts slices of it: spans says where, and folded holds its scheme and host
     * folded where they were respelt. No record is made of it. */
    un_spans spans;
    un_buf folded;
    un_buf respelt; /* a row whose host was not ASCII, with its host's answer (host_answered) */
    un_buf undotted; /* a row whose path has dot segments, without them (undotted) */
    /* The row's bytes as the batch's input holds them, for views of them: in its buffer
     * lent_index at offset lent_at. lent is NULL where the batch lends nothing or the row was
     * repaired. */
    const uint8_t *lent;
    size_t lent_len;
    int64_t lent_index, lent_at;
    un_hold *hold; /* the batch's lender: a result takes it with its first view into it */
    int field;     /* single_field: the one field a split writes, else -1 */
    int piece;     /* what the lane's answer is a piece of a row as (PIECE_*): own_piece */
    /* The batch's scan_extent and scan_requirements, read for every row the scan sees. */
    int extent;
    unsigned req;
    /* Bit i: the batch writes text column i (un_text_wanted). Asked of the batch for each of a
     * referral's four columns, it cost `referrer` some 80 instructions a row. */
    unsigned wanted;
} worker;

/* A row the lane left: not scanned; scanned and refused, its host answered in vain where it has
 * one to answer (host_answered); scanned and taken. */
enum { PRESCAN_NONE, PRESCAN_REFUSED, PRESCAN_TAKEN };

/* The scheme and host of a row taken as slices (sliced): as written, or folded. */
static const uint8_t *head_of(const worker *w) { return w->spans.as_written ? w->as_is : w->folded.data; }

/* The normalised URL of a row taken as slices (sliced): the row, its authority respelt and its
 * escapes rewritten where the scan took it so. */
static void put_sliced_href(const worker *w, un_buf *out) { un_put_normal_href(w->as_is, w->as_is_len, head_of(w), &w->spans, out); }

/* Whether the row was taken as its own normal form exactly, so that its normalised URL is it. */
static int is_own_href(const worker *w) {
    return w->as_is && w->spans.as_written && !w->spans.rewrite_escapes && !w->spans.remove_dots;
}

const char *const UN_OUTPUT_NAMES[UN_N_OUTPUTS] = {
    [UN_OUT_NORMALIZED] = "normalized", [UN_OUT_RECORD] = "record", [UN_OUT_SURT] = "surt",
    [UN_OUT_KEY_HASH] = "key_hash", [UN_OUT_HOST_TYPE] = "host_type", [UN_OUT_REGISTERED_DOMAIN] = "registered_domain",
};

/* The names Python calls these codes by: the binding hands them over, so no integer is kept
 * equal by hand on the two sides. */
const char *const UN_OP_NAMES[UN_N_OPS] = {
    [UN_OP_NORMALIZE] = "normalize", [UN_OP_SPLIT] = "split", [UN_OP_JOIN] = "join",
    [UN_OP_NORMALIZE_RECORD] = "normalize_record", [UN_OP_SURT] = "surt", [UN_OP_HOST] = "host",
    [UN_OP_QUERY] = "query", [UN_OP_PATH_SEGMENTS] = "path_segments",
    [UN_OP_SELECT_PARAMS] = "select_params", [UN_OP_PARSE] = "parse", [UN_OP_FILTER] = "filter", [UN_OP_UNWRAP] = "unwrap",
    [UN_OP_COMPONENT] = "component", [UN_OP_URL_PART] = "url_part", [UN_OP_REFERRER] = "referrer",
    [UN_OP_CAMPAIGN] = "campaign", [UN_OP_VISIT] = "visit",
};
const char *const UN_REFERRER_COLUMN_NAMES[UN_N_REFERRER_COLUMNS] = {
    [UN_REFERRER_MEDIUM] = "medium", [UN_REFERRER_SOURCE] = "source", [UN_REFERRER_TERM] = "term", [UN_REFERRER_HOST] = "host",
};
const char *const UN_CAMPAIGN_COLUMN_NAMES[UN_N_CAMPAIGN_COLUMNS] = {
    [UN_CAMPAIGN_SOURCE] = "source", [UN_CAMPAIGN_MEDIUM] = "medium", [UN_CAMPAIGN_CAMPAIGN] = "campaign",
    [UN_CAMPAIGN_TERM] = "term", [UN_CAMPAIGN_CONTENT] = "content", [UN_CAMPAIGN_ID] = "id",
    [UN_CAMPAIGN_CLICK_ID] = "click_id", [UN_CAMPAIGN_NETWORK] = "network",
};
_Static_assert((int)UN_N_CAMPAIGN_COLUMNS <= (int)UN_N_COLUMNS && (int)UN_N_REFERRER_COLUMNS <= (int)UN_N_COLUMNS &&
                   (int)UN_N_VISIT_COLUMNS <= (int)UN_N_COLUMNS, "a result holds every text column");
const char *const UN_QUERY_MODE_NAMES[UN_N_QUERY_MODES] = {
    [UN_QUERY_PAIRS] = "pairs", [UN_QUERY_ALL] = "all", [UN_QUERY_FIRST] = "first", [UN_QUERY_NAMES] = "names",
};
const char *const UN_UTF8_MODE_NAMES[UN_N_UTF8_MODES] = {
    [UN_UTF8_TEXT] = "text", [UN_UTF8_ERROR] = "error", [UN_UTF8_ENCODE] = "encode",
};
const char *const UN_PARSE_COLUMN_NAMES[UN_PARSE_COLUMNS] = {
    [UN_PARSE_URL] = "normalized", [UN_PARSE_FIELDS + UN_FIELD_SCHEME] = "scheme",
    [UN_PARSE_FIELDS + UN_FIELD_USERNAME] = "username", [UN_PARSE_FIELDS + UN_FIELD_PASSWORD] = "password",
    [UN_PARSE_FIELDS + UN_FIELD_HOST] = "host", [UN_PARSE_FIELDS + UN_FIELD_PATH] = "path",
    [UN_PARSE_FIELDS + UN_FIELD_QUERY] = "query", [UN_PARSE_FIELDS + UN_FIELD_FRAGMENT] = "fragment",
    [UN_PARSE_SURT] = "surt", [UN_PARSE_HOST_TYPE] = "host_type",
    [UN_PARSE_REGISTERED_DOMAIN] = "registered_domain",
};

void un_result_init(un_result *r) { memset(r, 0, sizeof *r); }

void un_hold_take(un_hold *h) { atomic_fetch_add_explicit(&h->refs, 1, memory_order_relaxed); }

void un_hold_drop(un_hold *h) {
    if (atomic_fetch_sub_explicit(&h->refs, 1, memory_order_acq_rel) == 1) h->release(h);
}

void un_result_free(un_result *r) {
    un_buf_free(&r->data);
    for (int i = 0; i < UN_N_COLUMNS; i++) un_builder_free(&r->text[i]);
    un_builder_free(&r->errors);
    un_buf_free(&r->error_names);
    un_buf_free(&r->port);
    un_buf_free(&r->port_validity);
    un_buf_free(&r->key_hash);
    un_buf_free(&r->key_hash_validity);
    un_buf_free(&r->status);
    un_buf_free(&r->list_offsets);
    un_buf_free(&r->list_validity);
    if (r->lent) un_hold_drop(r->lent);
    if (r->placed) un_hold_drop(r->placed);
    r->lent = r->placed = NULL;
}

static void worker_free(worker *w) {
    un_ctx_free(&w->ctx);
    un_url_free(&w->url);
    un_url_free(&w->base);
    un_buf_free(&w->repaired);
    un_buf_free(&w->name);
    un_buf_free(&w->folded);
    un_buf_free(&w->respelt);
    un_buf_free(&w->undotted);
    un_answers_free(&w->cache);
    un_visit_free(&w->visit);
    free(w->kept);
}

void un_ctx_free(un_ctx *c) {
    un_buf_free(&c->question);
    un_buf_free(&c->text);
    un_buf_free(&c->input);
    un_buf_free(&c->scratch);
    un_buf_free(&c->scratch2);
    un_buf_free(&c->unwrapped);
    un_buf_free(&c->spare);
    un_buf_free(&c->trimmed);
}

static int wants(const un_batch *b, int output) { return b->op == UN_OP_PARSE && (b->outputs >> output & 1u); }
int un_record_out(const un_batch *b) { return b->op == UN_OP_SPLIT || b->op == UN_OP_NORMALIZE_RECORD || wants(b, UN_OUT_RECORD); }
/* The fields a split writes: those asked for, else all of them and the port. */
static unsigned split_fields(const un_batch *b) { return b->op == UN_OP_SPLIT && b->fields ? b->fields : (2u << UN_N_FIELDS) - 1; }
int un_port_out(const un_batch *b) { return un_record_out(b) && (split_fields(b) >> UN_N_FIELDS & 1u); }
int un_list_out(const un_batch *b) {
    return b->op == UN_OP_PATH_SEGMENTS || (b->op == UN_OP_QUERY && b->query_mode != UN_QUERY_FIRST) ||
           (b->op == UN_OP_URL_PART && un_url_part_is_list(b->url_part));
}
int un_text_columns(const un_batch *b) {
    if (b->op == UN_OP_QUERY && b->query_mode == UN_QUERY_PAIRS) return 2;
    if (b->op == UN_OP_PARSE) return UN_PARSE_COLUMNS;
    if (b->op == UN_OP_REFERRER) return UN_N_REFERRER_COLUMNS;
    if (b->op == UN_OP_CAMPAIGN) return UN_N_CAMPAIGN_COLUMNS;
    if (b->op == UN_OP_VISIT) return UN_N_VISIT_COLUMNS;
    return un_record_out(b) ? UN_N_FIELDS : 1;
}
int un_text_wanted(const un_batch *b, int column) {
    if (b->op == UN_OP_SPLIT) return column < UN_N_FIELDS && (split_fields(b) >> column & 1u);
    if (b->op == UN_OP_VISIT || b->op == UN_OP_REFERRER) return column < un_text_columns(b) && (!b->fields || (b->fields >> column & 1u));
    if (b->op != UN_OP_PARSE) return column < un_text_columns(b);
    switch (column) {
    case UN_PARSE_URL: return wants(b, UN_OUT_NORMALIZED);
    case UN_PARSE_SURT: return wants(b, UN_OUT_SURT);
    case UN_PARSE_HOST_TYPE: return wants(b, UN_OUT_HOST_TYPE);
    case UN_PARSE_REGISTERED_DOMAIN: return wants(b, UN_OUT_REGISTERED_DOMAIN);
    default: return wants(b, UN_OUT_RECORD) && column > UN_PARSE_URL && column < UN_PARSE_SURT;
    }
}

/* ---- a row's outputs ------------------------------------------------------------------------ */

/* A bit of a validity bitmap, the row's, written as the rows go. */
static void put_valid(un_buf *bits, int64_t row, int valid) {
    if (row % 8 == 0) un_buf_putc(bits, 0);
    if (valid && !bits->failed) bits->data[row / 8] |= (uint8_t)(1u << (row % 8));
}

static void put_key_hash(un_result *r, int64_t row, int valid, uint64_t h) {
    un_buf_put(&r->key_hash, (const uint8_t *)&h, sizeof h);
    put_valid(&r->key_hash_validity, row, valid);
}

static void put_port(un_result *r, int64_t row, int32_t port) {
    uint16_t v = port >= 0 ? (uint16_t)port : 0;
    un_buf_put(&r->port, (const uint8_t *)&v, sizeof v);
    put_valid(&r->port_validity, row, port >= 0);
}

/* End a value written to r->data since start; a short one moves into its view. */
UN_HOT void commit(un_builder *col, un_result *r, size_t start) {
    size_t n = r->data.len - start;
    un_builder_view(col, &r->data, r->data_index, start, n);
    if (n <= 12) r->data.len = start;
}

static void put_bytes(un_builder *col, un_result *r, const uint8_t *p, size_t n) {
    if (n <= 12) return un_builder_inline(col, p, n);
    size_t start = r->data.len;
    un_buf_put(&r->data, p, n);
    commit(col, r, start);
}

/* p[0, n) as put_bytes, but a view of the input's own buffer where p lies in the row's lent
 * bytes: a row handed back as it is, or a slice of it, is not copied. */
static void put_row_bytes(un_builder *col, un_result *r, const worker *w, const uint8_t *p, size_t n) {
    if (n <= 12) return un_builder_inline(col, p, n); /* in the view itself, wherever it lies */
    int64_t index = 0, at = 0;
    /* As addresses: p may lie in another object (a folded host, a record's field). */
    uintptr_t from = (uintptr_t)w->lent, to = (uintptr_t)p;
    int lent = w->lent && (!r->lent || r->lent == w->hold) && to >= from && n <= w->lent_len &&
               to - from <= w->lent_len - n;
    if (lent) index = w->lent_index, at = w->lent_at;
    if (!lent || !un_builder_at(col, p, n, 1 + r->lent_skip + index, at + (int64_t)(to - from))) return put_bytes(col, r, p, n);
    if (!r->lent) un_hold_take(r->lent = w->hold);
}

/* A list row ends: its offset, and whether it is a list or null. */
static void end_list(un_result *r, int64_t row, int valid) {
    put_valid(&r->list_validity, row, valid);
    r->list_nulls += !valid;
    int32_t end = (int32_t)r->text[0].length;
    un_buf_put(&r->list_offsets, (const uint8_t *)&end, sizeof end);
}

int un_record_field(const un_url *u, int i, un_bytes *f) {
    const un_buf *field[UN_N_FIELDS] = {&u->scheme, &u->username, &u->password, &u->host, &u->path, &u->query, &u->fragment};
    const int has[UN_N_FIELDS] = {u->has_scheme, u->has_username, u->has_password, u->has_host, 1, u->has_query, u->has_fragment};
    *f = (un_bytes){field[i]->data, field[i]->len};
    return has[i];
}

/* The same of a URL un_normal_form took, as a slice of it or of head (its scheme and host as
 * folded): the record un_url_from_spans would make (the scan takes no userinfo). One field at
 * a time: making all seven for a column of one cost some 8% of `scheme` on clean rows. */
static int sliced_field(const uint8_t *p, const uint8_t *head, const un_spans *s, int i, un_bytes *f) {
    switch (i) {
    case UN_FIELD_SCHEME: *f = (un_bytes){head, s->scheme_len}; return 1;
    case UN_FIELD_HOST: *f = (un_bytes){head + s->host_start, s->host_len}; return 1;
    case UN_FIELD_PATH: *f = (un_bytes){p + s->path_start, s->path_len}; return 1;
    /* An absent query's or fragment's start is not kept (a scan to a shorter extent, a text
     * written anew) and may lie past the text: no pointer is made from it. */
    case UN_FIELD_QUERY: *f = s->has_query ? (un_bytes){p + s->query_start, s->query_len} : (un_bytes){NULL, 0}; return s->has_query;
    case UN_FIELD_FRAGMENT:
        *f = s->has_fragment ? (un_bytes){p + s->fragment_start, s->fragment_len} : (un_bytes){NULL, 0};
        return s->has_fragment;
    default: *f = (un_bytes){NULL, 0}; return 0;
    }
}

/* The record's fields as views into its serialisation, written to r->data from its start (parse,
 * whose href, when asked for, is the same bytes). */
static void emit_record(un_result *r, const un_url *u, un_builder *columns) {
    size_t at[UN_N_FIELDS];
    un_serialize_spans(u, &r->data, at);
    for (int i = 0; i < UN_N_FIELDS; i++) {
        un_bytes f;
        if (un_record_field(u, i, &f) && !r->data.failed) un_builder_view(&columns[i], &r->data, r->data_index, at[i], f.n);
        else un_builder_null(&columns[i]);
    }
}

/* The record's fields asked for, each its own value (a short one inline in its view): what
 * split and normalize_record give, with no href beside them to share bytes with. Serialising
 * the href to point into it wrote every byte of the URL a row for a column of one field, and
 * made `scheme` cost twice `host` (measured on the clickstream mix); so did writing the six
 * fields nobody asked for. */
static void put_field(un_result *r, const worker *w, int i) {
    un_bytes f;
    int present = w->as_is ? sliced_field(w->as_is, head_of(w), &w->spans, i, &f) : un_record_field(&w->url, i, &f);
    if (present) put_row_bytes(&r->text[i], r, w, f.p, f.n);
    else un_builder_null(&r->text[i]);
}

static void emit_fields(const un_batch *b, un_result *r, const worker *w) {
    for (unsigned wanted = split_fields(b) & ((1u << UN_N_FIELDS) - 1); wanted; wanted &= wanted - 1) put_field(r, w, __builtin_ctz(wanted));
}

/* A text, or null. */
static void put_text(un_builder *col, un_result *r, const char *text) {
    if (text) put_bytes(col, r, (const uint8_t *)text, strlen(text));
    else un_builder_null(col);
}

/* The row's host, lower case, and its type (core host.host_type). */
typedef struct {
    const uint8_t *p;
    size_t n;
    int present;
    un_host_kind kind;
} row_host;

/* The host of a row the scan took (w->as_is): a slice of it, or of its folded scheme and host.
 * The scan takes a special URL's domain only, or a file URL's empty host (un_normal_form), so
 * its type needs no record. Else the record's. */
static row_host host_of(const worker *w) {
    const un_url *u = &w->url;
    if (!w->as_is) return (row_host){u->host.data, u->host.len, u->has_host, un_host_type(u)};
    size_t n = w->spans.host_len;
    return (row_host){head_of(w) + w->spans.host_start, n, 1, n ? UN_DOMAIN_HOST : UN_NO_HOST};
}

/* The name of the host's type (the core's host_type), or NULL for no host. */
static const char *host_type_name(const row_host *h) { return h->kind == UN_NO_HOST ? NULL : UN_HOST_TYPE_NAMES[h->kind]; }

/* un_domain_parts_of the host into w->name and w->parts, w->named at the name. */
static int looked_up(worker *w, const row_host *h, int psl_table) {
    int status = un_domain_parts_of(psl_table, h->p, h->n, &w->name, &w->parts);
    w->named = w->name.data;
    return status;
}

/* Whether the memo's slot holds the host's parts. */
static int holds(const parts_memo *m, uint64_t hash, const row_host *h) {
    return m->hash == hash && m->host_len == h->n && memcmp(m->host, h->p, h->n) == 0;
}

/* The host's parts into w->parts, as spans of w->named: the host itself where the name (the
 * host lower-cased, its trailing dots gone) is its own leading bytes, as a domain host's is
 * (URL Standard §3.3 domain to ASCII lower-cases it), else w->name. From the memo if an
 * earlier row of the slice had it, with no copy of a name that is the host's. */
static int domain_parts(worker *w, const row_host *h, int psl_table) {
    if (h->n > MEMO_HOST) return looked_up(w, h, psl_table);
    uint64_t hash = un_hash((uint64_t)psl_table, h->p, h->n) | 1;
    parts_memo *pair = &w->memo[un_memo_pair(hash, MEMO_SLOTS)];
    parts_memo *m = holds(pair, hash, h) ? pair : holds(pair + 1, hash, h) ? pair + 1 : NULL;
    if (m) {
        w->parts = m->parts;
        if (m->in_host) return w->named = h->p, m->status;
        w->name.len = 0;
        un_buf_put(&w->name, m->name, m->name_len);
        w->named = w->name.data;
        return w->name.failed ? -1 : m->status;
    }
    int status = looked_up(w, h, psl_table);
    if (w->name.len > MEMO_HOST) return status;
    m = &pair[un_memo_victim(hash, pair[0].hash, pair[1].hash)];
    int in_host = w->name.len <= h->n && (!w->name.len || memcmp(w->name.data, h->p, w->name.len) == 0);
    *m = (parts_memo){.hash = hash, .host_len = h->n, .name_len = w->name.len, .status = status, .in_host = in_host, .parts = w->parts};
    if (h->n) memcpy(m->host, h->p, h->n);
    if (w->name.len) memcpy(m->name, w->name.data, w->name.len);
    return status;
}

/* Whether the host is a domain with this Public Suffix List part (core
 * public_suffix.domain_parts), found into w->name and w->parts. */
static int has_part(worker *w, const row_host *h, int psl_table, int part) {
    return h->kind == UN_DOMAIN_HOST && domain_parts(w, h, psl_table) == 0 && w->parts.present[part];
}

/* The part has_part found, a view of the row where it lies in it. */
static void put_found_part(un_builder *col, un_result *r, const worker *w, int part) {
    put_row_bytes(col, r, w, w->named + w->parts.start[part], w->parts.len[part]);
}

/* A part of the host, null but for a domain host that has it. */
static void put_part(un_builder *col, un_result *r, worker *w, const row_host *h, int psl_table, int part) {
    if (has_part(w, h, psl_table, part)) put_found_part(col, r, w, part);
    else un_builder_null(col);
}

/* A domain host's TLD, its last label (un_tld_of): a span of the host, a view of the row
 * where it lies in it, found without the list. A domain host is lower-case ASCII (URL
 * Standard §3.3 domain to ASCII), as the list's lookup would make it. */
static void put_tld(un_builder *col, un_result *r, const worker *w, const row_host *h) {
    size_t start, len;
    if (h->kind == UN_DOMAIN_HOST && un_tld_of(h->p, h->n, &start, &len)) put_row_bytes(col, r, w, h->p + start, len);
    else un_builder_null(col);
}

/* The one host column the batch asks for (UN_HOST_*): a PSL part only for a domain host; the
 * site is the registered domain, else the host. */
static void emit_host(const un_batch *b, un_result *r, worker *w) {
    row_host h = host_of(w);
    un_builder *col = &r->text[0];
    int site = b->host_column == UN_HOST_SITE, text = site || b->host_column == UN_HOST_TEXT;
    if (site && has_part(w, &h, b->psl_table, UN_PART_REGISTERED)) put_found_part(col, r, w, UN_PART_REGISTERED);
    else if (text && h.present) put_row_bytes(col, r, w, h.p, h.n);
    else if (text) un_builder_null(col);
    else if (b->host_column == UN_HOST_TYPE) put_text(col, r, host_type_name(&h));
    else if (b->host_column == UN_HOST_PARTS + UN_PART_TLD) put_tld(col, r, w, &h);
    else put_part(col, r, w, &h, b->psl_table, b->host_column - UN_HOST_PARTS);
}

/* A pair's name or value decoded (un_form_decode) into the column: itself where it decodes
 * to itself, a view of the row where it lies in it. */
static void put_decoded(un_builder *col, un_result *r, worker *w, const uint8_t *p, size_t n) {
    if (un_form_plain(p, n)) return put_row_bytes(col, r, w, p, n);
    size_t start = r->data.len;
    un_form_decode(&r->data, p, n, &w->ctx.scratch);
    commit(col, r, start);
}

/* The row's query, NULL for none: a slice of the row where the scan took it, else the
 * record's. */
static const uint8_t *query_of(const worker *w, size_t *n) {
    const un_url *u = &w->url;
    if (w->as_is) return *n = w->spans.query_len, w->spans.has_query ? w->as_is + w->spans.query_start : NULL;
    return *n = u->has_query ? u->query.len : 0, u->has_query ? u->query.data : NULL;
}

/* The campaign of the row's query into w->campaign. */
static void campaign_of(const un_batch *b, worker *w) {
    size_t n;
    const uint8_t *q = query_of(w, &n);
    un_campaign_of(&w->ctx, &b->campaign, q, n, &w->campaign);
}

/* The form-urlencoded pairs of the row's query (un_form_pairs), as the mode asks. */
static void emit_query(const un_batch *b, un_result *r, worker *w, int64_t row) {
    size_t n;
    const uint8_t *q = query_of(w, &n);
    int found = 0, by_name = b->query_mode == UN_QUERY_ALL || b->query_mode == UN_QUERY_FIRST;
    for (un_form_pair pair; un_next_form_pair(&q, &n, &pair);) {
        if (by_name && !un_form_name_is(&pair, b->name, b->name_len, &w->ctx.scratch, &w->ctx.scratch2)) continue;
        if (!by_name) put_decoded(&r->text[0], r, w, pair.name, pair.name_len);
        if (b->query_mode != UN_QUERY_NAMES)
            put_decoded(&r->text[b->query_mode == UN_QUERY_PAIRS], r, w, pair.value, pair.value_len);
        found = 1;
        if (b->query_mode == UN_QUERY_FIRST) break;
    }
    if (b->query_mode == UN_QUERY_FIRST && !found) un_builder_null(&r->text[0]);
    if (b->query_mode != UN_QUERY_FIRST) end_list(r, row, 1);
}

/* The segments of the row's path (core path.segments): none for an empty path. A row the scan
 * took has its path read from the row, each segment a view of it. */
static void emit_segments(un_result *r, const worker *w, int64_t row) {
    const uint8_t *path = w->as_is ? w->as_is + w->spans.path_start : w->url.path.data;
    size_t n = w->as_is ? w->spans.path_len : w->url.path.len, at = 0, start, len;
    while (un_next_segment(path, n, &at, &start, &len)) put_row_bytes(&r->text[0], r, w, path + start, len);
    end_list(r, row, 1);
}

/* Where a row the scan took has its path in r->data: its href written there (up to its query's
 * end) for a hierarchy, its path and query alone for a path's; no record made of it, and no
 * fragment written. A record made and serialised for the levels cost `path_hierarchy` some 33
 * ns of a clean clickstream row's 136 (one thread). */
static size_t put_level_text(const un_batch *b, un_result *r, const worker *w) {
    const un_spans *s = &w->spans;
    size_t start = r->data.len, path = s->path_start, upto = path + s->path_len + (s->has_query ? 1 + s->query_len : 0);
    if (b->url_part != UN_URL_PART_HIERARCHY) return un_buf_put(&r->data, w->as_is + path, upto - path), start;
    return (size_t)((ptrdiff_t)(start + path) + un_put_href(w->as_is, upto, head_of(w), s, &r->data));
}

/* Each level of the path at r->data[path, path + n) (and its query) as a view: of the href
 * from start for a hierarchy, of the path for a path's (but a level of the root alone). */
static void put_levels(const un_batch *b, un_result *r, size_t start, size_t path, size_t n, int has_query, size_t query_len) {
    un_levels levels;
    size_t end;
    un_levels_start(&levels, r->data.data + path, n, has_query, query_len);
    while (un_next_level(&levels, &end)) {
        if (b->url_part == UN_URL_PART_HIERARCHY) un_builder_view(&r->text[0], &r->data, r->data_index, start, path + end - start);
        else if (end != 1 || r->data.data[path] != '/') un_builder_view(&r->text[0], &r->data, r->data_index, path, end);
    }
}

/* The levels of the row's hierarchy (core url_parts.hierarchy, path_hierarchy): views of its
 * one href, each a prefix of it or of its path; none for an opaque path (which the scan never
 * takes). */
static void emit_levels(const un_batch *b, un_result *r, const worker *w, int64_t row) {
    const un_url *u = &w->url;
    size_t start = r->data.len;
    if (w->as_is) {
        size_t path = put_level_text(b, r, w);
        if (!r->data.failed) put_levels(b, r, start, path, w->spans.path_len, w->spans.has_query, w->spans.query_len);
    } else if (!un_opaque_path(u)) {
        size_t at[UN_N_FIELDS];
        un_serialize_spans(u, &r->data, at);
        if (!r->data.failed) put_levels(b, r, start, at[UN_FIELD_PATH], u->path.len, u->has_query, u->query.len);
    }
    end_list(r, row, 1);
}

/* A text part that is a piece of a row the scan took, put; 0 (nothing put) where it is not. */
static int put_part_piece(const un_batch *b, un_result *r, const worker *w) {
    size_t from, len;
    if (!w->as_is || !un_url_part_slice(w->as_is, w->as_is_len, &w->spans, b->url_part, &from, &len)) return 0;
    put_row_bytes(&r->text[0], r, w, w->as_is + from, len);
    return 1;
}

static void emit_url_part(const un_batch *b, un_result *r, worker *w, int64_t row) {
    size_t start = r->data.len;
    if (un_url_part_is_list(b->url_part)) return emit_levels(b, r, w, row);
    if (put_part_piece(b, r, w)) return;
    int present = w->as_is ? un_url_part_cut(w->as_is, w->as_is_len, head_of(w), &w->spans, b->url_part, &r->data)
                           : un_url_part(&w->url, b->url_part, &r->data);
    if (present) commit(&r->text[0], r, start);
    else un_builder_null(&r->text[0]);
}

/* A text column's value p[0, n), or null. */
static void put_or_null(un_builder *column, un_result *r, int present, const uint8_t *p, size_t n) {
    if (present) put_bytes(column, r, p, n);
    else un_builder_null(column);
}

static void emit_referral(un_result *r, worker *w) {
    const un_referral *f = &w->referral;
    const uint8_t *text[UN_REFERRER_HOST] = {f->medium, f->source, w->ctx.text.data};
    size_t len[UN_REFERRER_HOST] = {f->medium_len, f->source_len, w->ctx.text.len};
    int present[UN_REFERRER_HOST] = {1, f->has_source, f->has_term};
    for (int i = 0; i < UN_REFERRER_HOST; i++)
        if (w->wanted >> i & 1u) put_or_null(&r->text[i], r, present[i], text[i], len[i]);
    /* The host, in lower case, is a slice of the row where the scan took it: a view, not a copy. */
    if (!(w->wanted >> UN_REFERRER_HOST & 1u)) return;
    if (f->host_len) put_row_bytes(&r->text[UN_REFERRER_HOST], r, w, f->host, f->host_len);
    else un_builder_null(&r->text[UN_REFERRER_HOST]);
}

/* Each campaign field's value, decoded as a form's (core form_pairs), or null. */
static void emit_campaign(un_result *r, worker *w) {
    const un_campaign *k = &w->campaign;
    for (int f = 0; f < UN_CAMPAIGN_NETWORK; f++) {
        if (k->rank[f] < 0) {
            un_builder_null(&r->text[f]);
            continue;
        }
        size_t start = r->data.len;
        un_form_decode(&r->data, k->value[f].value, k->value[f].value_len, &w->ctx.scratch);
        commit(&r->text[f], r, start);
    }
    put_or_null(&r->text[UN_CAMPAIGN_NETWORK], r, k->rank[UN_CAMPAIGN_CLICK_ID] >= 0, k->network, k->network_len);
}

/* Each channel's name's length, and none of them yet in the batch's data (put_channel). */
static void start_channels(worker *w) {
    for (int k = 0; k < UN_N_CHANNELS; k++) w->channel_len[k] = strlen(UN_CHANNEL_NAMES[k]), w->channel_at[k] = SIZE_MAX;
}

/* The visit's channel, or null: GA4's names repeat on every row, so a name longer than a view
 * holds is written to the batch's data once and each later row's view points at it (copying
 * it and counting its bytes cost `channel_group` some 5% of a row). */
static void put_channel(un_builder *col, un_result *r, worker *w) {
    if (!w->visit.present) return un_builder_null(col);
    int k = w->channel;
    const uint8_t *name = (const uint8_t *)UN_CHANNEL_NAMES[k];
    size_t n = w->channel_len[k];
    if (n <= 12) return un_builder_inline(col, name, n);
    if (w->channel_at[k] == SIZE_MAX) {
        size_t start = r->data.len;
        un_buf_put(&r->data, name, n);
        if (r->data.len != start + n) return un_builder_null(col); /* memory ran out: the batch fails */
        w->channel_at[k] = start;
    }
    un_builder_view(col, &r->data, r->data_index, w->channel_at[k], n);
}

/* A visit's source, medium, campaign and channel; nulls for an internal referrer's. */
static void emit_visit(un_result *r, worker *w) {
    const un_visit *v = &w->visit;
    const un_buf *text[UN_VISIT_CHANNEL] = {&v->source, &v->medium, &v->campaign};
    for (int i = 0; i < UN_VISIT_CHANNEL; i++)
        if (w->wanted >> i & 1u)
            put_or_null(&r->text[i], r, v->present && (i != UN_VISIT_SOURCE || v->has_source), text[i]->data, text[i]->len);
    if (w->wanted >> UN_VISIT_CHANNEL & 1u) put_channel(&r->text[UN_VISIT_CHANNEL], r, w);
}

/* A filter reason's name (UN_FILTER_*), or null for none. */
static void emit_reason(un_result *r, int reason) {
    if (reason >= 0) put_text(&r->text[0], r, UN_FILTER_REASON_NAMES[reason]);
    else un_builder_null(&r->text[0]);
}

/* The key hash is the published 64-bit FNV-1a (core outputs.key_hash). */
#define FNV_OFFSET_BASIS 0xCBF29CE484222325ULL

/* The normalised URL PARSE was asked for, its hash and its record's fields, from one
 * serialisation (the fields are views into the URL's bytes); or, for a row that is its own
 * normal form, the row itself. */
static void emit_url(const un_batch *b, un_result *r, worker *w, int64_t row) {
    const un_url *u = &w->url;
    size_t start = r->data.len;
    if (!wants(b, UN_OUT_RECORD) && is_own_href(w)) {
        if (wants(b, UN_OUT_KEY_HASH)) put_key_hash(r, row, 1, un_fnv1a(FNV_OFFSET_BASIS, w->as_is, w->as_is_len));
        if (wants(b, UN_OUT_NORMALIZED)) put_row_bytes(&r->text[UN_PARSE_URL], r, w, w->as_is, w->as_is_len);
        return;
    }
    if (wants(b, UN_OUT_RECORD)) {
        emit_record(r, u, &r->text[UN_PARSE_FIELDS]);
        put_port(r, row, u->port);
    } else if (wants(b, UN_OUT_NORMALIZED) || wants(b, UN_OUT_KEY_HASH)) {
        if (w->as_is) put_sliced_href(w, &r->data);
        else un_serialize(u, &r->data);
    }
    if (wants(b, UN_OUT_KEY_HASH)) put_key_hash(r, row, 1, un_fnv1a(FNV_OFFSET_BASIS, r->data.data + start, r->data.len - start));
    /* The fields' views of a URL of 12 bytes or less are inline, so committing may drop it. */
    if (wants(b, UN_OUT_NORMALIZED)) commit(&r->text[UN_PARSE_URL], r, start);
    else if (!wants(b, UN_OUT_RECORD)) r->data.len = start;
}

/* Every output PARSE was asked for, from the one normalised record. */
static void emit_parse(const un_batch *b, un_result *r, worker *w, int64_t row) {
    const un_url *u = &w->url;
    emit_url(b, r, w, row);
    if (wants(b, UN_OUT_SURT)) {
        size_t start = r->data.len;
        un_surt_key(u, b->with_scheme, b->trailing_comma, &r->data);
        commit(&r->text[UN_PARSE_SURT], r, start);
    }
    if (!wants(b, UN_OUT_HOST_TYPE) && !wants(b, UN_OUT_REGISTERED_DOMAIN)) return;
    row_host h = host_of(w);
    if (wants(b, UN_OUT_HOST_TYPE)) put_text(&r->text[UN_PARSE_HOST_TYPE], r, host_type_name(&h));
    if (wants(b, UN_OUT_REGISTERED_DOMAIN)) put_part(&r->text[UN_PARSE_REGISTERED_DOMAIN], r, w, &h, b->psl_table, UN_PART_REGISTERED);
}

static void emit(const un_batch *b, un_result *r, worker *w, int64_t row) {
    const un_url *u = &w->url;
    size_t start = r->data.len;
    switch (b->op) {
    case UN_OP_SPLIT:
    case UN_OP_NORMALIZE_RECORD:
        emit_fields(b, r, w);
        if (un_port_out(b)) put_port(r, row, w->as_is ? w->spans.port : u->port);
        return;
    case UN_OP_PARSE: emit_parse(b, r, w, row); return;
    case UN_OP_HOST: emit_host(b, r, w); return;
    case UN_OP_QUERY: emit_query(b, r, w, row); return;
    case UN_OP_PATH_SEGMENTS: emit_segments(r, w, row); return;
    case UN_OP_URL_PART: emit_url_part(b, r, w, row); return;
    case UN_OP_FILTER: emit_reason(r, un_filter_reason(u, &b->filters, &w->ctx.scratch)); return;
    case UN_OP_REFERRER: emit_referral(r, w); return;
    case UN_OP_CAMPAIGN: emit_campaign(r, w); return;
    case UN_OP_VISIT: emit_visit(r, w); return;
    case UN_OP_SELECT_PARAMS:
    case UN_OP_UNWRAP:
    case UN_OP_COMPONENT:
        if (w->as_is) return put_row_bytes(&r->text[0], r, w, w->as_is, w->as_is_len);
        un_buf_put(&r->data, w->ctx.text.data, w->ctx.text.len);
        break;
    case UN_OP_SURT: un_surt_key(u, b->with_scheme, b->trailing_comma, &r->data); break;
    default:
        if (is_own_href(w)) return put_row_bytes(&r->text[0], r, w, w->as_is, w->as_is_len);
        if (w->as_is) put_sliced_href(w, &r->data);
        else un_serialize(u, &r->data); /* straight into the output column */
    }
    commit(&r->text[0], r, start);
}

/* The row's status and error name, where the batch hands them back. */
static void put_status(const un_batch *b, un_result *r, int status) {
    if (b->quiet) return;
    un_buf_putc(&r->status, (uint8_t)(status < 0 ? 0 : status));
    if (status > 0 && status < UN_N_ERRORS) un_builder_view(&r->errors, &r->error_names, r->data_index, r->error_at[status], strlen(UN_ERROR_NAMES[status]));
    else un_builder_null(&r->errors);
}

/* Every output of a row for its status: the value, or nulls; the error name. */
static void write_row(const un_batch *b, un_result *r, worker *w, int64_t row, int status) {
    if (status == 0) {
        emit(b, r, w, row);
    } else if (b->op == UN_OP_FILTER && status > 0) {
        emit_reason(r, UN_FILTER_INVALID_URL); /* the row keeps its error too */
    } else if (un_list_out(b)) {
        end_list(r, row, 0);
    } else {
        for (int i = 0; i < un_text_columns(b); i++)
            if (w->wanted >> i & 1u) un_builder_null(&r->text[i]);
        if (un_port_out(b)) put_port(r, row, -1);
        if (wants(b, UN_OUT_KEY_HASH)) put_key_hash(r, row, 0, 0);
    }
    put_status(b, r, status);
}

/* The extent of the WHATWG parse an operation makes, or -1 for one that makes another. */
static int whatwg_extent(const un_batch *b) {
    switch (b->op) {
    case UN_OP_SPLIT: return b->generic ? -1 : b->extent;
    case UN_OP_QUERY:
    case UN_OP_VISIT:
    case UN_OP_CAMPAIGN: return UN_EXTENT_NO_PATH;
    case UN_OP_HOST: return UN_EXTENT_AUTHORITY;
    case UN_OP_URL_PART: return un_url_part_extent(b->url_part);
    case UN_OP_REFERRER: return UN_EXTENT_NO_QUERY;
    case UN_OP_PATH_SEGMENTS:
    case UN_OP_FILTER: return UN_EXTENT_WHOLE;
    default: return -1;
    }
}

/* Whether a normalize or parse reads the record: for its fields or its SURT key. A URL written
 * in normal form gives its normalised URL, key hash and error as it is, and its host's type and
 * registered domain from a slice of it (host_of): a record made for those alone cost the
 * partitioned lake a copy of every field of every row and a serialisation of them. */
static int reads_record(const un_batch *b) {
    return b->op == UN_OP_PARSE && (b->outputs & (1u << UN_OUT_RECORD | 1u << UN_OUT_SURT)) != 0;
}

/* Whether all the operation writes of a row is its record's fields, a part (a text, or a
 * hierarchy's levels), its query's pairs, its campaign or visit, its host's, its path's
 * segments or its referral (but for a search term, parsed then): slices of a URL the scan
 * took, which need no record. */
static int reads_spans(const un_batch *b) {
    return b->op == UN_OP_SPLIT || b->op == UN_OP_QUERY || b->op == UN_OP_CAMPAIGN || b->op == UN_OP_VISIT || b->op == UN_OP_HOST ||
           b->op == UN_OP_PATH_SEGMENTS || b->op == UN_OP_REFERRER || b->op == UN_OP_URL_PART;
}

/* Whether the operation writes a row's scheme or host as folded (head_of): all but a split of
 * fields after the authority, a query's pairs, a path's segments, the path with what follows
 * it (path_full) and a path's hierarchy, which are slices of the row past its host. */
static int reads_head(const un_batch *b) {
    if (b->op == UN_OP_SPLIT) return (split_fields(b) & (1u << UN_FIELD_SCHEME | 1u << UN_FIELD_HOST)) != 0;
    if (b->op == UN_OP_URL_PART) return b->url_part != UN_URL_PART_PATH_FULL && b->url_part != UN_URL_PART_PATH_HIERARCHY;
    return b->op != UN_OP_QUERY && b->op != UN_OP_PATH_SEGMENTS;
}

/* The row taken as slices of itself (w->as_is, w->spans), its scheme and host folded into
 * w->folded where they were respelt and fold says they are read (reads_head): a copy that
 * cost `path` some 5 ns of a respelt row's 53 (clickstream, one thread). */
static int sliced(worker *w, const uint8_t *p, size_t n, int fold) {
    w->as_is = p, w->as_is_len = n;
    if (w->spans.as_written || !fold) return UN_OK;
    size_t head = w->spans.host_start + w->spans.host_len;
    un_buf_set_lower(&w->folded, p, head);
    return w->folded.failed ? UN_ERR_MEMORY : UN_OK;
}

/* Whether the operation normalises by its profile (normalize, parse), rather than parsing. */
static int normalizes(const un_batch *b) { return b->op == UN_OP_NORMALIZE || b->op == UN_OP_PARSE; }

/* The question the operation's run asks of a host that is not ASCII: the WHATWG parse's
 * domain to ASCII (URL Standard §3.3), or a generic profile's host rules (lowercase_host,
 * idn_host_to_ascii: rules.c host_rule), asked of the host as written, as the scan finds it. */
static int host_question(const un_batch *b) { return normalizes(b) && b->profile->generic ? UN_ASK_HOST_RULES : UN_ASK_HOST; }

/* A row whose host is not ASCII (the scan's non_ascii_host) as the text with that host's
 * answer in its place (un_put_answered_host), once the batch has had it (question: UTS #46 or
 * the host rules in Python), where the scan takes that text. The parse of what follows a host
 * does not depend on it (§4.4; the generic split's host ends where the scan's does but at a
 * '\\', which the scan takes nothing after), so the row's record is that text's. *p and *n
 * are then the text (w->respelt), and w->spans its parts; else w->spans has no parse_from
 * (which would be into the text). A host first met asks its question in the parse, and is
 * answered here when its row runs again: an IDN host costs the parse once a batch, not once
 * a row (11% of clickstream's rows). */
static int host_answered(worker *w, int question, const uint8_t **p, size_t *n, unsigned req, int extent) {
    const un_spans *s = &w->spans;
    un_answer a;
    size_t end = un_non_ascii_host_end(*p, *n, s);
    if (!end || !un_answers_recall(&w->cache, question, *p + s->host_start, end - s->host_start, &a) || a.code != UN_OK)
        return 0;
    un_buf *t = &w->respelt;
    un_put_answered_host(*p, *n, s, end, a.text, a.len, t);
    if (t->failed || !un_normal_form(t->data, t->len, req, extent, &w->spans)) return w->spans.parse_from = 0, 0;
    *p = t->data, *n = t->len;
    return 1;
}

/* How far the operation's scan reads a row: the whole of it for a normalisation (the profile's
 * rules), else as far as its parse goes (-1 for one the scan does not serve). */
static int scan_extent(const un_batch *b) { return normalizes(b) ? UN_EXTENT_WHOLE : whatwg_extent(b); }

/* What the scan leaves an operation's row to meet: the profile's normal form for a
 * normalisation; else nothing, but that a parse of the path takes its dot segments,
 * which it removes (URL Standard §4.4 path state) as the normal form's respelling does. A
 * tenth of clickstream's rows have one, and each was parsed from its path on: `path` cost
 * 195 ns a dotted row against 73 a plain one. */
static unsigned scan_requirements(const un_batch *b, int extent) {
    if (normalizes(b)) return b->profile->normal_form;
    return extent == UN_EXTENT_WHOLE || extent == UN_EXTENT_NO_QUERY ? 1u << UN_NF_DOT_SEGMENTS : 0;
}

/* A row the scan took with dot segments (w->spans.remove_dots), for an operation that reads
 * slices of it: the row as the parse serialises it to the operation's extent, its dot
 * segments removed and its scheme, host and port respelt (what lies past the extent copied as
 * written, and never read), with its spans there (un_put_undotted), so that its parts are
 * slices of that text. *p and *n are then the text (w->undotted). Scanning that text again
 * cost as much as the first scan, some 40 ns a row. */
static int undotted(worker *w, const uint8_t **p, size_t *n) {
    un_spans *s = &w->spans;
    un_buf *t = &w->undotted;
    int fold = !s->as_written;
    if (fold) un_buf_set_lower(&w->folded, *p, s->host_start + s->host_len);
    un_put_undotted(*p, *n, fold ? w->folded.data : *p, s, t, s);
    if ((fold && w->folded.failed) || t->failed) return UN_ERR_MEMORY;
    *p = t->data, *n = t->len;
    return UN_OK;
}

/* A row in normal form (un_normal_form) needs no parse: a normalised URL written so is its
 * input, and a parse's record its parts. The row's status if it was one, else -1; the full
 * path then goes on from where the scan stopped (w->spans.parse_from), so no row is scanned
 * twice. */
static int scanned(const un_batch *b, worker *w, const uint8_t *p, size_t n) {
    int whole = normalizes(b), extent = w->extent;
    unsigned req = w->req;
    int refused = w->prescanned == PRESCAN_REFUSED;
    int taken = w->prescanned ? w->prescanned == PRESCAN_TAKEN : un_normal_form(p, n, req, extent, &w->spans);
    w->prescanned = PRESCAN_NONE;
    if (!taken && (refused || !host_answered(w, host_question(b), &p, &n, req, extent))) return -1;
    if (!whole && reads_spans(b) && w->spans.remove_dots && undotted(w, &p, &n) != UN_OK) return UN_ERR_MEMORY;
    if (whole && reads_record(b)) {
        un_normal_record(b->profile, p, &w->spans, &w->url);
        return un_url_failed(&w->url) ? UN_ERR_MEMORY : UN_OK;
    }
    if (whole || reads_spans(b)) return sliced(w, p, n, reads_head(b));
    un_url_from_spans(p, &w->spans, extent, &w->url);
    return un_url_failed(&w->url) ? UN_ERR_MEMORY : UN_OK;
}

/* The policy for the batch's operation: none for one the scan does not serve. */
static scan_policy scan_policy_for(const un_batch *b) {
    int extent = scan_extent(b);
    if (extent < 0) return (scan_policy){.mode = SCAN_NONE, .ends = -1, .missed = -1};
    return (scan_policy){.pays = extent == UN_EXTENT_AUTHORITY || extent == UN_EXTENT_NO_PATH ? 2 : 6, .ends = SCAN_WINDOW - 1, .missed = -1};
}

/* How many of the window's rows up to row the policy put to the scan. */
static int64_t window_scanned(const scan_policy *s, int64_t row) {
    if (s->mode == SCAN_NONE) return 0;
    if (s->mode == SCAN_EVERY) return row + 1 - s->start;
    return row / SAMPLE - (s->start + SAMPLE - 1) / SAMPLE + 1;
}

/* The window ending at row weighed: the next samples if fewer rows passed than pay for the
 * misses. It spans SCAN_WINDOW scanned rows or more, sampled or not: it ends at a miss, or at
 * a sampled row, so that a row the scan takes costs the policy nothing but a compare. */
static void scan_window_end(scan_policy *s, int64_t row) {
    int64_t scanned = window_scanned(s, row), taken = scanned - s->misses;
    s->scanned += scanned;
    s->mode = taken * s->pays < s->misses ? SCAN_SAMPLE : SCAN_EVERY;
    s->start = row + 1, s->ends = row + (s->mode == SCAN_SAMPLE ? SCAN_WINDOW * SAMPLE : SCAN_WINDOW);
    s->misses = 0;
}

/* Whether the policy puts row to the scan while it does not put every row. */
__attribute__((cold)) static int sampled(const scan_policy *s, int64_t row) { return s->mode == SCAN_SAMPLE && row % SAMPLE == 0; }

/* A scanned row counted: only a miss, or a sampled row, can end the window. */
__attribute__((cold)) static void scan_counted(scan_policy *s, int64_t row, int missed) {
    if (missed && row != s->missed) s->misses++, s->missed = row;
    if (row >= s->ends) scan_window_end(s, row);
}

/* The row's status where the scan takes it, else -1 (scanned), if the policy puts it to the
 * scan (scan_policy). */
static int as_it_is(const un_batch *b, worker *w, int64_t row, const uint8_t *p, size_t n) {
    scan_policy *s = &w->scan;
    /* A scanned row's parse_from is the scan's (un_normal_form sets it): the lane's too. */
    if (s->mode != SCAN_EVERY && !sampled(s, row)) return w->spans.parse_from = 0, -1;
    int status = scanned(b, w, p, n);
    if (status < 0 || s->mode != SCAN_EVERY) scan_counted(s, row, status < 0);
    return status;
}

/* The row's record to extent, as un_whatwg_parse_extent makes it, where as_it_is's scan did not
 * take the row: the parse goes on from where the scan stopped, if it took the scheme and
 * authority. */
static int whatwg_record(worker *w, const uint8_t *p, size_t n, int extent) {
    if (w->spans.parse_from) return un_whatwg_parse_after(&w->ctx, p, n, extent, 0, &w->spans, &w->url);
    return un_whatwg_parse_extent(&w->ctx, p, n, extent, &w->url);
}

/* A URL's record as un_whatwg_parse_extent makes it, from the normal-form scan where it takes
 * the URL (a visit's referrer, a referrer's whole record for its search term). */
static int record_of(un_ctx *c, const uint8_t *p, size_t n, int extent, un_url *u) {
    un_spans spans;
    if (!un_normal_form(p, n, 0, extent, &spans)) return un_whatwg_parse_extent(c, p, n, extent, u);
    un_url_from_spans(p, &spans, extent, u);
    return un_url_failed(u) ? UN_ERR_MEMORY : UN_OK;
}

/* The host of a referrer's row's page, parsed as far as its host, in either case: a slice of
 * it where the scan takes it, with no record made of it. 0 for no page (null, or invalid). */
static int page_host_of(const un_batch *b, worker *w, int64_t row, un_bytes *host) {
    const uint8_t *pp = NULL;
    size_t pn = 0;
    un_spans spans;
    if (!b->base || b->base->length == 0) return 0;
    int64_t at = b->base->length == 1 ? 0 : row;
    if (un_column_get(b->base, at, &pp, &pn) != UN_ROW_VALUE || pn == 0) return 0;
    if (un_normal_form(pp, pn, 0, UN_EXTENT_AUTHORITY, &spans)) return *host = (un_bytes){pp + spans.host_start, spans.host_len}, 1;
    if (un_whatwg_parse_extent(&w->ctx, pp, pn, UN_EXTENT_AUTHORITY, &w->base) != UN_OK) return 0;
    return *host = (un_bytes){w->base.host.data, w->base.host.len}, 1;
}

/* What a referral reads of a URL the scan took: its scheme and host from head (the text as
 * folded: in lower case), its path from the URL's bytes p. */
static un_referrer_parts spans_referrer(const uint8_t *head, const uint8_t *p, const un_spans *s) {
    return (un_referrer_parts){{head, s->scheme_len}, {head + s->host_start, s->host_len}, {p + s->path_start, s->path_len}, 1};
}

/* The whole record of a referrer whose term is asked (p[0, n)): where the scan took it (to its
 * path: w->as_is, w->spans), its query and fragment scanned on from there, rather than the row
 * scanned again from its start (a search engine's referrer is one row in six). */
static int term_record(worker *w, const uint8_t *p, size_t n) {
    un_spans s = w->spans;
    if (!w->as_is || !un_normal_form_query(w->as_is, w->as_is_len, &s)) return record_of(&w->ctx, p, n, UN_EXTENT_WHOLE, &w->url);
    un_url_from_spans(w->as_is, &s, UN_EXTENT_WHOLE, &w->url);
    return un_url_failed(&w->url) ? UN_ERR_MEMORY : UN_OK;
}

/* A referrer's medium, source and term. Its parts up to the query (slices of a row the scan
 * took, or a parse's record: the query cannot fail the parse, URL Standard §4.4) find the
 * source; only a search engine's term needs the query and fragment, parsed then. */
static int referral(const un_batch *b, worker *w, const uint8_t *p, size_t n, int status, const un_bytes *page) {
    if (status < 0) status = whatwg_record(w, p, n, UN_EXTENT_NO_QUERY);
    if (status != UN_OK) return status;
    const un_referrer_parts parts = w->as_is ? spans_referrer(head_of(w), w->as_is, &w->spans) : un_referrer_parts_of(&w->url);
    w->ctx.text.len = 0;
    status = un_referral_of(&w->ctx, b->referrers, &parts, page, &w->referral);
    if (status != UN_OK || !w->referral.search || !(w->wanted >> UN_REFERRER_TERM & 1u)) return status;
    status = term_record(w, p, n);
    return status == UN_OK ? un_referral_term(&w->ctx, b->referrers, &w->url, p, n, &w->referral, &w->ctx.text) : status;
}

static int parsed(const un_batch *b, worker *w, int64_t row, const uint8_t *p, size_t n);

/* A referrer's referral: recalled where an earlier row of the batch was the same referrer
 * (w->kept), else found, and kept. */
static int referrer_row(const un_batch *b, worker *w, int64_t row, const uint8_t *p, size_t n) {
    un_bytes host;
    const un_bytes *page = page_host_of(b, w, row, &host) ? &host : NULL;
    int status;
    if (w->kept && un_referral_recall(w->kept, p, n, page, &w->referral, &w->ctx.text, &status)) return status;
    status = referral(b, w, p, n, as_it_is(b, w, row, p, n), page);
    if (w->kept) un_referral_keep(w->kept, p, n, page, status, &w->referral, &w->ctx.text);
    return status;
}

/* A referrer's parts up to its query: slices of it where the scan takes it, with no record
 * made of it; else its record's (u). */
static int referrer_parts(un_ctx *c, const uint8_t *p, size_t n, un_url *u, un_referrer_parts *parts) {
    un_spans s;
    if (un_normal_form(p, n, 0, UN_EXTENT_NO_QUERY, &s)) {
        if (s.as_written) return *parts = spans_referrer(p, p, &s), UN_OK;
        /* A respelt scheme and host are read folded, as the parse writes them: a referrer
         * "HTTPS://www.google.com/" is looked up as https's (its scheme as written was
         * looked up as no scheme the database knows, and the visit's channel was lost). */
        un_buf_set_lower(&c->trimmed, p, s.host_start + s.host_len);
        return c->trimmed.failed ? UN_ERR_MEMORY : (*parts = spans_referrer(c->trimmed.data, p, &s), UN_OK);
    }
    int status = un_whatwg_parse_extent(c, p, n, UN_EXTENT_NO_QUERY, u);
    if (status == UN_OK) *parts = un_referrer_parts_of(u);
    return status;
}

/* The visit of a page (the row) whose campaign does not say where it came from: its referrer
 * (base), classified without its search term, or none. */
static int visit_by_referrer(const un_batch *b, worker *w, int64_t row) {
    const uint8_t *rp = NULL;
    size_t rn = 0;
    int64_t at = b->base && b->base->length == 1 ? 0 : row;
    if (!b->base || b->base->length == 0 || un_column_get(b->base, at, &rp, &rn) != UN_ROW_VALUE || rn == 0)
        return un_visit_direct(&w->visit), UN_OK;
    row_host h = host_of(w);
    const un_bytes page = {h.p, h.n};
    int status;
    if (!w->kept || !un_referral_recall(w->kept, rp, rn, &page, &w->referral, NULL, &status)) {
        /* The query cannot fail the parse (URL Standard §4.4), and the lookup reads no term. */
        un_referrer_parts parts;
        status = referrer_parts(&w->ctx, rp, rn, &w->base, &parts);
        if (status >= UN_ASK_HOST) return status;
        if (status == UN_OK && (status = un_referral_of(&w->ctx, b->referrers, &parts, &page, &w->referral)) != UN_OK) return status;
        if (w->kept) un_referral_keep(w->kept, rp, rn, &page, status, &w->referral, NULL);
    }
    return status == UN_OK ? un_visit_from_referrer(&w->referral, &w->visit) : (un_visit_direct(&w->visit), UN_OK);
}

/* A landing page's visit (the row, parsed or taken by the scan) and its channel. */
static int visit(const un_batch *b, worker *w, int64_t row) {
    campaign_of(b, w);
    if (!un_visit_from_campaign(&w->ctx, &w->campaign, &w->visit)) {
        int status = visit_by_referrer(b, w, row);
        if (status != UN_OK) return status;
    }
    w->channel = w->visit.present ? un_visit_channel(b->referrers, &w->visit) : 0;
    return w->channel < 0 ? UN_ERR_MEMORY : UN_OK;
}

static int compute(const un_batch *b, worker *w, int64_t row, const uint8_t *p, size_t n) {
    w->as_is = NULL;
    if (b->op == UN_OP_REFERRER) return referrer_row(b, w, row, p, n);
    int status = as_it_is(b, w, row, p, n);
    if (status < 0) status = parsed(b, w, row, p, n);
    if (status == UN_OK && b->op == UN_OP_CAMPAIGN) campaign_of(b, w);
    return status == UN_OK && b->op == UN_OP_VISIT ? visit(b, w, row) : status;
}

/* The row's record as the operation parses it (the scan did not take it). */
static int parsed(const un_batch *b, worker *w, int64_t row, const uint8_t *p, size_t n) {
    switch (b->op) {
    case UN_OP_NORMALIZE:
    case UN_OP_PARSE: return un_normalize_parsed(&w->ctx, b->profile, p, n, &w->spans, &w->url); /* the scan did not take it */
    case UN_OP_NORMALIZE_RECORD:
    case UN_OP_SURT: return un_normalize(&w->ctx, b->profile, p, n, &w->url);
    case UN_OP_SPLIT:
        if (b->generic) return un_split_generic(p, n, &w->url);
        return whatwg_record(w, p, n, b->extent);
    case UN_OP_QUERY:
    case UN_OP_VISIT:
    case UN_OP_CAMPAIGN:
    case UN_OP_HOST:
    case UN_OP_URL_PART:
    case UN_OP_PATH_SEGMENTS:
    case UN_OP_FILTER: return whatwg_record(w, p, n, whatwg_extent(b));
    case UN_OP_UNWRAP: {
        const uint8_t *t = un_unwrap_redirects(&w->ctx, &b->wrappers, p, &n, &w->url);
        if (!t) return UN_ERR_MEMORY;
        w->ctx.text.len = 0;
        un_buf_put(&w->ctx.text, t, n);
        return w->ctx.text.failed ? UN_ERR_MEMORY : UN_OK;
    }
    case UN_OP_COMPONENT: /* any text, not a URL: nothing to parse */
        if (un_component_as_is(p, n, b->component_mode, b->utf8_rows)) return w->as_is = p, w->as_is_len = n, UN_OK;
        w->ctx.text.len = 0;
        un_component(&w->ctx.text, p, n, b->component_mode, &w->ctx.scratch);
        return w->ctx.text.failed ? UN_ERR_MEMORY : UN_OK;
    case UN_OP_SELECT_PARAMS:
        w->ctx.text.len = 0;
        un_select_parameters(&w->ctx, &w->url, p, n, &b->params, b->keep, &w->ctx.text);
        return w->ctx.text.failed ? UN_ERR_MEMORY : UN_OK;
    case UN_OP_JOIN: {
        const uint8_t *bp = NULL;
        size_t bn = 0;
        int64_t base_row = b->base->length == 1 ? 0 : row;
        if (un_column_get(b->base, base_row, &bp, &bn) != UN_ROW_VALUE) return -1;
        w->ctx.recall = NULL; /* a join that needs UTS #46 goes to the core whole */
        return un_join(&w->ctx, b->join_mode, bp, bn, p, n, &w->base, &w->url);
    }
    default: return UN_ERR_MEMORY;
    }
}

/* The row's bytes as UTF-8: invalid ones are an error, or percent-encoded when asked. */
static int as_utf8(const un_batch *b, worker *w, const uint8_t **p, size_t *n) {
    if (!b->check_utf8 || un_valid_utf8(*p, *n)) return UN_OK; /* Arrow strings are UTF-8 */
    if (!b->encode_invalid_utf8) return UN_ERR_INVALID_UTF8;
    w->repaired.len = 0;
    un_encode_invalid_utf8(&w->repaired, *p, *n);
    if (w->repaired.failed) return UN_ERR_MEMORY;
    *p = w->repaired.data ? w->repaired.data : (const uint8_t *)"", *n = w->repaired.len;
    return UN_OK;
}

/* The row's bytes p[0, n), as the batch's input holds them, lent for views of them (w->lent). */
static void lend(const un_batch *b, worker *w, int64_t row, const uint8_t *p, size_t n) {
    w->lent = b->lender && n > 12 ? p : NULL, w->lent_len = n;
    /* Read now, while the row's view is at hand: read from the lender as each value is put, it
     * waited on loads that nothing else did (a tenth of `cut_fragment` on clean rows). */
    if (w->lent) un_column_where(&b->input, row, p, &w->lent_index, &w->lent_at);
}

/* The row's status (-1 for a null row); -2 if the input array is malformed. */
static int row_status(const un_batch *b, worker *w, int64_t row) {
    const uint8_t *p = NULL;
    size_t n = 0;
    un_row kind = un_column_get(&b->input, row, &p, &n);
    if (kind == UN_ROW_MALFORMED) return -2;
    if (kind == UN_ROW_NULL) return -1;
    const uint8_t *read = p;
    int status = as_utf8(b, w, &p, &n);
    if (p == read) lend(b, w, row, p, n);
    else w->lent = NULL;
    return status == UN_OK ? compute(b, w, row, p, n) : status;
}

/* ---- answers: a row that asks waits for its answer, asked once per distinct question ----------- */

typedef struct {
    int kind, code;
    size_t question, question_len, answer, answer_len; /* offsets into the blob */
} entry;

static const entry *entry_at(const un_answers *s, size_t i) { return (const entry *)(const void *)s->entries.data + i; }
size_t un_answers_count(const un_answers *s) { return s->entries.len / sizeof(entry); }

void un_answers_free(un_answers *s) {
    un_buf_free(&s->entries), un_buf_free(&s->blob), un_buf_free(&s->slots);
}

static uint64_t question_hash(int kind, const uint8_t *p, size_t n) { return un_hash((uint64_t)kind, p, n); }

/* Open addressing at most half full: a table twice the size, every entry placed anew. */
static int grow_slots(un_answers *s) {
    size_t size = 16;
    while (size < 2 * (un_answers_count(s) + 1)) size *= 2;
    if (s->slots.len >= size * sizeof(uint32_t)) return 1;
    s->slots.len = 0;
    if (!un_buf_reserve(&s->slots, size * sizeof(uint32_t))) return 0;
    memset(s->slots.data, 0, size * sizeof(uint32_t));
    s->slots.len = size * sizeof(uint32_t);
    uint32_t *slots = (uint32_t *)(void *)s->slots.data;
    for (size_t k = 0; k < un_answers_count(s); k++) {
        const entry *e = entry_at(s, k);
        size_t i = question_hash(e->kind, s->blob.data + e->question, e->question_len) & (size - 1);
        while (slots[i]) i = (i + 1) & (size - 1);
        slots[i] = (uint32_t)k + 1;
    }
    return 1;
}

/* The slot of (kind, question): its entry's, or the empty one where it would go. */
static size_t slot_of(const un_answers *s, int kind, const uint8_t *q, size_t n) {
    const uint32_t *slots = (const uint32_t *)(const void *)s->slots.data;
    size_t mask = s->slots.len / sizeof *slots - 1;
    size_t i = question_hash(kind, q, n) & mask;
    for (; slots[i]; i = (i + 1) & mask) {
        const entry *e = entry_at(s, slots[i] - 1);
        if (e->kind == kind && e->question_len == n && (n == 0 || memcmp(s->blob.data + e->question, q, n) == 0)) break;
    }
    return i;
}

int un_answers_recall(const un_answers *s, int kind, const uint8_t *q, size_t n, un_answer *a) {
    if (s->slots.len == 0) return 0;
    uint32_t slot = ((const uint32_t *)(const void *)s->slots.data)[slot_of(s, kind, q, n)];
    if (!slot) return 0;
    const entry *e = entry_at(s, slot - 1);
    /* The blob has no buffer while every question and answer kept is empty. */
    a->text = s->blob.data ? s->blob.data + e->answer : (const uint8_t *)"", a->len = e->answer_len, a->code = e->code;
    return 1;
}

int un_answers_keep(un_answers *s, int kind, const uint8_t *q, size_t n, int code, const uint8_t *text, size_t len) {
    if (!grow_slots(s)) return -1;
    entry e = {kind, code, s->blob.len, n, 0, 0};
    un_buf_put(&s->blob, q, n);
    e.answer = s->blob.len, e.answer_len = code == UN_OK ? len : 0;
    un_buf_put(&s->blob, text, e.answer_len);
    un_buf_put(&s->entries, (const uint8_t *)&e, sizeof e);
    if (s->blob.failed || s->entries.failed) return -1;
    ((uint32_t *)(void *)s->slots.data)[slot_of(s, kind, q, n)] = (uint32_t)un_answers_count(s);
    return 0;
}

/* The worker's recall (un_recall_fn): the answer the batch already had to (kind, question). */
static int recall(const void *data, int kind, const uint8_t *q, size_t n, un_answer *a) {
    return un_answers_recall(data, kind, q, n, a);
}

/* Ask b->answer about (kind, question), new to the cache, and keep the answer; -1 on failure. */
static int answer(const un_batch *b, un_answers *s, int kind, const uint8_t *q, size_t n, un_buf *scratch) {
    scratch->len = 0;
    int code = b->answer(b->answer_data, kind, q, n, scratch);
    return code < 0 ? -1 : un_answers_keep(s, kind, q, n, code, scratch->data, scratch->len);
}

/* The row's status once its questions are answered. A question the worker has had is
 * recalled in the parse itself; a new one is asked, and the row runs again. A row asks at
 * most once per kind, so a third run has every answer. -3 if the answerer failed. */
static int answered_status(const un_batch *b, worker *w, int64_t row) {
    int status = row_status(b, w, row);
    w->prescanned = PRESCAN_NONE; /* the lane's scan is this row's first run's alone */
    w->asked = status >= UN_ASK_HOST;
    for (int round = 0; round < 3 && status >= UN_ASK_HOST && b->answer; round++) {
        if (answer(b, &w->cache, status, w->ctx.question.data, w->ctx.question.len, &w->ctx.scratch2) < 0) return -3;
        status = row_status(b, w, row);
    }
    return status >= UN_ASK_HOST && b->answer ? -3 : status;
}

/* About as many bytes as the input's, so that the outputs are allocated once rather than
 * grown per batch: its rows' mean length over at most 256 rows spread across it. Summing
 * every row's cost a pass over the views, some 5% of `scheme` on clean rows; a short
 * estimate only means the buffer grows. */
static size_t input_bytes(const un_column *col) {
    enum { SAMPLE = 256 };
    size_t total = 0, seen = 0, step = (size_t)col->length / SAMPLE + 1;
    for (int64_t row = 0; row < col->length; row += (int64_t)step, seen++) {
        const uint8_t *p;
        size_t n;
        if (un_column_get(col, row, &p, &n) == UN_ROW_VALUE) total += n;
    }
    return seen ? total / seen * (size_t)col->length : 0;
}

/* The text columns the batch writes, a bit each (un_text_wanted). */
static unsigned wanted_columns(const un_batch *b) {
    unsigned wanted = 0;
    for (int i = 0; i < un_text_columns(b); i++) wanted |= (unsigned)(un_text_wanted(b, i) != 0) << i;
    return wanted;
}

/* Outputs are allocated once for the batch: a normalised URL is about as long as its input,
 * and the error names are written once for every row's view to point at. */
static void reserve_outputs(const un_batch *b, un_result *r) {
    size_t rows = (size_t)b->input.length, bytes = input_bytes(&b->input);
    un_buf_reserve(&r->data, bytes + bytes / 8 + 1024);
    for (int i = 1; i < UN_N_ERRORS; i++) {
        r->error_at[i] = r->error_names.len;
        un_buf_puts(&r->error_names, UN_ERROR_NAMES[i]);
    }
    for (int i = 0; i < un_text_columns(b); i++)
        if (un_text_wanted(b, i)) un_builder_reserve(&r->text[i], rows);
    if (un_list_out(b)) {
        un_buf_reserve(&r->list_offsets, (rows + 1) * sizeof(int32_t));
        un_buf_put(&r->list_offsets, (const uint8_t *)&(int32_t){0}, sizeof(int32_t));
    }
    if (b->quiet) return;
    un_builder_reserve(&r->errors, rows);
    un_buf_reserve(&r->status, rows);
}

static atomic_ullong rows_scanned;

unsigned long long un_rows_scanned(void) { return atomic_load_explicit(&rows_scanned, memory_order_relaxed); }

/* ---- the lane: a row whose answer is itself or a slice of it, written straight from the scan -- */

/* The lane serves an operation whose outputs a row the scan takes are slices of it (the
 * href, the record's fields, parts, the host's, the query's pairs, the path's segments): such
 * a row goes from the scan straight to emit. Through the full path (answered_status,
 * row_status, compute, as_it_is, scanned, write_row) it paid some 5 ns of a clean row's
 * 40-50 for the general case's calls and branches; a dotted row for a part, or a host the
 * batch has answered, some 10 ns more. A row the scan does not take goes to the full path
 * with the scan's answer (w->prescanned). */
static int has_lane(const un_batch *b) {
    /* A row that as_utf8 refuses or repairs never reaches the scan that would read
     * w->prescanned: no lane for input checked as UTF-8. */
    if (b->check_utf8 || scan_extent(b) < 0 || b->op == UN_OP_REFERRER || b->op == UN_OP_CAMPAIGN || b->op == UN_OP_VISIT) return 0;
    return normalizes(b) ? !reads_record(b) : reads_spans(b);
}

/* The one text field a split writes (and no port), else -1: the lane puts it straight from the
 * row's pieces (lane_piece). */
static int single_field(const un_batch *b) {
    unsigned fields = split_fields(b);
    return b->op == UN_OP_SPLIT && !un_port_out(b) && __builtin_popcount(fields) == 1 ? __builtin_ctz(fields) : -1;
}

/* What a row the scan took answers as a piece of its own bytes, for the batch: nothing, its
 * normalised URL, a text part, or the one field a split writes. */
enum { PIECE_NONE, PIECE_HREF, PIECE_PART, PIECE_FIELD };

static int piece_kind(const un_batch *b, int lane, int field) {
    if (!lane) return PIECE_NONE;
    if (field >= 0) return PIECE_FIELD;
    if (b->op == UN_OP_NORMALIZE) return PIECE_HREF;
    return b->op == UN_OP_URL_PART && !un_url_part_is_list(b->url_part) ? PIECE_PART : PIECE_NONE;
}

/* A row whose answer is one piece of it (a split of one field, a text part), put straight to
 * its column; 0 (nothing put) for another operation, or a part not a piece of the row. emit's
 * dispatch to the same writes cost some 3.5 ns of a clean row's 37 (`scheme`, corpora). */
static int lane_piece(const un_batch *b, un_result *r, const worker *w) {
    if (w->piece == PIECE_FIELD) return put_field(r, w, w->field), 1;
    return w->piece == PIECE_PART && put_part_piece(b, r, w);
}

/* Where the answer of a row the scan took lies in its own bytes p[0, n): 1 and *from, *len; 2
 * where it is that piece in lower case (a scheme or host the scan took respelt, which the parse
 * lower-cases: URL Standard §4.4 scheme state, §3.5 host parsing); 0 for a null one (a field
 * the row has not); -1 where it is not a piece of them (dot segments removed, escapes
 * rewritten, a cut that writes anew). */
static int own_piece(const un_batch *b, const worker *w, const uint8_t *p, size_t n, size_t *from, size_t *len) {
    const un_spans *s = &w->spans;
    un_bytes f;
    if (s->remove_dots) return -1;
    switch (w->piece) {
    case PIECE_HREF: return s->as_written && !s->rewrite_escapes ? (*from = 0, *len = n, 1) : -1;
    case PIECE_PART: return un_url_part_slice(p, n, s, b->url_part, from, len) ? 1 : -1;
    default:
        if (!sliced_field(p, p, s, w->field, &f)) return 0;
        *from = (size_t)(f.p - p), *len = f.n;
        return !s->as_written && (w->field == UN_FIELD_SCHEME || w->field == UN_FIELD_HOST) ? 2 : 1;
    }
}

/* A row the scan took whose answer is a piece of its own bytes (own_piece), put straight to its
 * column by put_row_bytes: the row is lent only for a piece longer than a view holds inline,
 * and a piece in lower case is folded into w->folded first. 0 (nothing put) where the answer is
 * not such a piece. Through the lane's general writes (sliced, lend, lane_piece or emit) a
 * clean row cost some 20 instructions more, and a respelt one's `scheme` some 6 ns (half of
 * clickstream's rows: upper case, or a default port). */
UN_HOT int put_own_piece(const un_batch *b, un_result *r, worker *w, int64_t row, const uint8_t *p, size_t n) {
    size_t from = 0, len = 0;
    int piece = own_piece(b, w, p, n, &from, &len);
    un_builder *col = &r->text[w->field >= 0 ? w->field : 0];
    if (piece < 0) return 0;
    w->as_is = p, w->as_is_len = n, w->lent = NULL;
    if (piece == 2 && len) {
        un_buf_set_lower(&w->folded, p + from, len);
        if (w->folded.failed) return 0; /* the full path meets the failure again */
        p = w->folded.data, from = 0;
    } else if (piece && len > 12) lend(b, w, row, p, n);
    if (piece) put_row_bytes(col, r, w, p + from, len);
    else un_builder_null(col);
    put_status(b, r, UN_OK);
    return 1;
}

/* The row written by the lane, as the full path writes it; 0 where it is not the lane's (a
 * null, or a row the scan does not take), with w->prescanned set where it was scanned. A host
 * the batch has answered (host_answered), or a part's dotted row (undotted), goes on as a text
 * outside the row's bytes, which put_row_bytes copies what it puts of; a normalisation writes
 * a dotted row's href without its dot segments itself (un_put_normal_href). Made once for the
 * normalisations and once for the parts (`parts` is a constant at each call): one body with
 * the branches of both cost canonical normalize 2 ns of a clean row's 48. */
UN_HOT int lane_row(const un_batch *b, un_result *r, worker *w, int64_t row, const uint8_t *p, size_t n, int parts) {
    if (w->scan.mode != SCAN_EVERY) return 0;
    int extent = w->extent;
    unsigned req = w->req;
    int taken = un_normal_form(p, n, req, extent, &w->spans);
    if (taken && w->piece != PIECE_NONE && put_own_piece(b, r, w, row, p, n)) return 1;
    const uint8_t *text = p;
    size_t len = n;
    int answered = !taken && host_answered(w, host_question(b), &text, &len, req, extent);
    if (!taken && !answered) return w->prescanned = PRESCAN_REFUSED, 0;
    int dotted = parts && w->spans.remove_dots;
    /* A failure (of memory) is the full path's to meet again: scanned anew where the spans
     * are the text's. */
    if ((dotted && undotted(w, &text, &len) != UN_OK) || sliced(w, text, len, reads_head(b)) != UN_OK)
        return w->prescanned = dotted || answered ? PRESCAN_NONE : PRESCAN_TAKEN, 0;
    lend(b, w, row, p, n);
    if (!parts || !lane_piece(b, r, w)) emit(b, r, w, row);
    put_status(b, r, UN_OK);
    return 1;
}

/* How many rows ahead a row's bytes are asked for: 8 and 16 measured the same, 32 worse. */
#define PREFETCH_ROWS 16

/* A row's bytes as un_column_get reads them. */
typedef struct {
    const uint8_t *p;
    size_t n;
    un_row kind;
} row_read;

/* Row i's bytes, read PREFETCH_ROWS rows before its turn, and the memory asked for them. Views
 * need not follow the bytes' order: after a sort, a join or a sample they point anywhere in
 * their buffers, where no hardware prefetcher follows them, and a row's first read waited on
 * memory (canonical normalize of shuffled corpora rows cost 230 ns a URL on one thread against
 * 58 in order). Read once: a view read to prefetch and again in its turn cost `scheme` some 15
 * instructions a row. Past the column's end, a malformed row that is never read. */
UN_HOT row_read read_ahead(const un_column *col, int64_t i) {
    row_read at = {NULL, 0, UN_ROW_MALFORMED};
    if (i < col->length) at.kind = un_column_get(col, i, &at.p, &at.n);
    if (at.kind == UN_ROW_VALUE && at.n > 12) {
        __builtin_prefetch(at.p);
        __builtin_prefetch(at.p + at.n - 1); /* a URL of two cache lines */
    }
    return at;
}

int un_run_batch(const un_batch *b, un_result *r) {
    worker w;
    memset(&w, 0, sizeof w);
    w.hold = b->lender;
    un_psl_reading(+1);
    w.ctx.recall = b->answer ? recall : NULL;
    w.ctx.recall_data = &w.cache;
    w.scan = scan_policy_for(b);
    w.extent = scan_extent(b), w.req = scan_requirements(b, w.extent), w.wanted = wanted_columns(b);
    /* Without it (memory ran out) every referral is found anew. */
    if (b->op == UN_OP_REFERRER || b->op == UN_OP_VISIT) w.kept = calloc(UN_REFERRAL_MEMO, sizeof *w.kept);
    if (b->op == UN_OP_VISIT) start_channels(&w);
    reserve_outputs(b, r);
    int failed = 0, lane = has_lane(b);
    w.field = single_field(b);
    w.piece = piece_kind(b, lane, w.field);
    row_read ahead[PREFETCH_ROWS];
    for (int64_t i = 0; i < PREFETCH_ROWS; i++) ahead[i] = read_ahead(&b->input, i);
    for (int64_t row = 0; row < b->input.length && !failed; row++) {
        row_read *slot = &ahead[row % PREFETCH_ROWS], now = *slot;
        *slot = read_ahead(&b->input, row + PREFETCH_ROWS);
        if (lane && now.kind == UN_ROW_VALUE &&
            (normalizes(b) ? lane_row(b, r, &w, row, now.p, now.n, 0) : lane_row(b, r, &w, row, now.p, now.n, 1)))
            continue;
        int status = answered_status(b, &w, row);
        failed = status == -2 || status == -3;
        r->asked += w.asked;
        if (!failed) write_row(b, r, &w, row, status);
    }
    int64_t scanned = w.scan.scanned + (b->input.length ? window_scanned(&w.scan, b->input.length - 1) : 0);
    atomic_fetch_add_explicit(&rows_scanned, (unsigned long long)scanned, memory_order_relaxed);
    worker_free(&w);
    un_psl_reading(-1);
    for (int i = 0; i < un_text_columns(b); i++) failed |= un_builder_failed(&r->text[i]);
    failed |= un_builder_failed(&r->errors) || r->data.failed || r->error_names.failed;
    failed |= r->status.failed || r->port.failed || r->port_validity.failed;
    failed |= r->key_hash.failed || r->key_hash_validity.failed;
    failed |= r->list_offsets.failed || r->list_validity.failed;
    /* A list's offsets are int32: its values must number fewer than 2^31. */
    failed |= un_list_out(b) && r->text[0].length > INT32_MAX;
    return failed ? -1 : 0;
}
