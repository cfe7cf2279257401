/* A batch: one operation over the rows of Arrow arrays, with no Python and no allocation per
 * row once the buffers have grown. */
#ifndef URLNORM_KERNEL_H
#define URLNORM_KERNEL_H

#include <stdatomic.h>

#include "column.h"

/* PARSE emits any of these outputs of one normalisation, each asked for by its bit: the
 * normalised URL, its record (the text fields and the port), its SURT key, a 64-bit hash of
 * the normalised URL (FNV-1a of its bytes, core outputs.key_hash), its host's type and its
 * registered domain (Public Suffix List, private section included). Their names, in bit
 * order, are UN_OUTPUT_NAMES; Python reads them from the binding. */
enum {
    UN_OUT_NORMALIZED, UN_OUT_RECORD, UN_OUT_SURT, UN_OUT_KEY_HASH, UN_OUT_HOST_TYPE,
    UN_OUT_REGISTERED_DOMAIN, UN_N_OUTPUTS,
};
extern const char *const UN_OUTPUT_NAMES[UN_N_OUTPUTS];
/* PARSE's text columns: the URL, the record's fields, the SURT key, the host's type and
 * registered domain. */
enum {
    UN_PARSE_URL = 0, UN_PARSE_FIELDS = 1, UN_PARSE_SURT = UN_PARSE_FIELDS + UN_N_FIELDS,
    UN_PARSE_HOST_TYPE, UN_PARSE_REGISTERED_DOMAIN, UN_PARSE_COLUMNS,
};
extern const char *const UN_PARSE_COLUMN_NAMES[UN_PARSE_COLUMNS];

#define UN_N_COLUMNS UN_PARSE_COLUMNS /* the most text columns an operation emits (CAMPAIGN's are fewer) */

/* NORMALIZE_RECORD emits the normalised record's columns as SPLIT does, for profiles whose
 * last rules only Python has; SURT emits the normalised URL's SURT key. */
/* HOST parses a URL as far as its host and emits one of: the host, its type, or one of its
 * Public Suffix List parts (UN_HOST_*). QUERY emits the query's form-urlencoded pairs (a list a row:
 * keys and values), every value of one name (a list), its first value, or every name (a list). PATH_SEGMENTS emits
 * the path's segments (a list a row). SELECT_PARAMS keeps or drops parameters by raw key in
 * the text as written. URL_PART emits a part of the href or the href cut short (UN_URL_PART_*), or
 * for a hierarchy its levels (a list a row). REFERRER emits a referrer's medium, source,
 * search term and host (UN_REFERRER_*) by a referrer database, a page a row (base) or none;
 * CAMPAIGN a landing page's campaign fields (UN_CAMPAIGN_*); VISIT a landing page's source,
 * medium, campaign and channel as GA4 derives them with its referrer (base) (UN_VISIT_*). */
typedef enum {
    UN_OP_NORMALIZE, UN_OP_SPLIT, UN_OP_JOIN, UN_OP_NORMALIZE_RECORD, UN_OP_SURT, UN_OP_HOST,
    UN_OP_QUERY, UN_OP_PATH_SEGMENTS, UN_OP_SELECT_PARAMS, UN_OP_PARSE, UN_OP_FILTER, UN_OP_UNWRAP, UN_OP_COMPONENT,
    UN_OP_URL_PART, UN_OP_REFERRER, UN_OP_CAMPAIGN, UN_OP_VISIT, UN_N_OPS,
} un_op;
extern const char *const UN_OP_NAMES[UN_N_OPS];

enum { UN_REFERRER_MEDIUM, UN_REFERRER_SOURCE, UN_REFERRER_TERM, UN_REFERRER_HOST, UN_N_REFERRER_COLUMNS };
extern const char *const UN_REFERRER_COLUMN_NAMES[UN_N_REFERRER_COLUMNS];
/* The host, its type, a Public Suffix List part, or its site (the registered domain, else the host). */
enum { UN_HOST_TEXT, UN_HOST_TYPE, UN_HOST_PARTS, UN_HOST_SITE = UN_HOST_PARTS + UN_N_PARTS, UN_N_HOST_COLUMNS };
enum { UN_QUERY_PAIRS, UN_QUERY_ALL, UN_QUERY_FIRST, UN_QUERY_NAMES, UN_N_QUERY_MODES };
extern const char *const UN_QUERY_MODE_NAMES[UN_N_QUERY_MODES];
/* How a batch's input is read: text (UTF-8 by Arrow's guarantee), or binary whose rows that
 * are not UTF-8 are errors, or have their bad bytes percent-encoded. */
enum { UN_UTF8_TEXT, UN_UTF8_ERROR, UN_UTF8_ENCODE, UN_N_UTF8_MODES };
extern const char *const UN_UTF8_MODE_NAMES[UN_N_UTF8_MODES];

/* Answers a question rows asked (kind: an UN_ASK_* status): writes the answer to out and
 * returns UN_OK, or returns the rows' error code, or -1 to stop the batch. */
typedef int (*un_answer_fn)(void *data, int kind, const uint8_t *question, size_t n, un_buf *out);

/* Answers kept by (kind, question), each distinct question once: a worker keeps its batch's,
 * and the binding keeps a compiled call's for all its batches. */
typedef struct {
    un_buf entries, blob, slots;
} un_answers;

/* 1 and *a (pointing into s) if s has the answer to (kind, q), else 0. */
int un_answers_recall(const un_answers *s, int kind, const uint8_t *q, size_t n, un_answer *a);
/* Keeps the answer (code, and text[0..len) for UN_OK) to (kind, q), which s has not; 0, or
 * -1 if memory ran out. */
int un_answers_keep(un_answers *s, int kind, const uint8_t *q, size_t n, int code, const uint8_t *text, size_t len);
size_t un_answers_count(const un_answers *s);
void un_answers_free(un_answers *s);

/* ---- referrers.c (core/referrers.py) ---------------------------------------------------------- */

/* How a search term is read: Matomo's (the source's parameters in order) or Snowplow's (the
 * query's last parameter the source names, in any case). */
enum { UN_TERM_LISTED, UN_TERM_LAST, UN_N_TERM_RULES };
/* A referrer database as Python hands it over (native/operations.py referrer_tables), each
 * string prefixed by its length in one byte: keys (each followed by its source's index, two
 * bytes little-endian), sources (medium, name, a flags byte, the count of parameters, then
 * each parameter), internal hosts (a wildcard's as ".domain"), country codes, and GA4's
 * source categories (each source followed by its UN_CATEGORY_* in one byte). */
typedef struct {
    const uint8_t *keys, *sources, *internal, *codes, *categories;
    size_t keys_len, sources_len, internal_len, codes_len, categories_len;
    int term_rule;
} un_referrer_tables;
/* What a visit came by: a search engine, an AI assistant, another site (each a referral), none
 * (direct), or its page's campaign. All but the last have GA4's default medium and campaign. */
enum { UN_BY_SEARCH, UN_BY_AI_ASSISTANT, UN_BY_REFERRAL, UN_BY_NONE, UN_N_DEFAULT_VISITS, UN_BY_CAMPAIGN = UN_N_DEFAULT_VISITS };
typedef struct {
    un_answers keys;       /* keys, hosts with path keys, country codes (referrers.c's kinds) */
    un_answers categories; /* GA4's sources: a table of its own, small enough to stay in cache */
    un_buf source_at;       /* each source record's offset, uint32 */
    un_buf engine_category; /* each source's: its engine's name's GA4 category (int8_t), -2 if
                               it is not a search engine */
    const uint8_t *sources, *internal;
    size_t sources_len, internal_len;
    int term_rule, patterned;
    uint32_t two_letter_codes[26]; /* the two-letter country codes: bit b of [a] for "ab" */
    unsigned default_facts[UN_N_DEFAULT_VISITS]; /* un_default_visit_facts */
} un_referrers;
/* 1, or 0 if the tables are malformed or memory ran out (r is to be freed either way). */
int un_referrers_build(un_referrers *r, const un_referrer_tables *t);
void un_referrers_free(un_referrers *r);
/* A referrer's medium and source (spans of the table, or static text), its host, and whether
 * the term written to the caller's buffer is one. */
typedef struct {
    const uint8_t *medium, *source, *host; /* host: the referrer's, in lower case (in the ctx) */
    size_t medium_len, source_len, host_len;
    int has_source, has_term;
    int index, search; /* the source's index, and whether it is a search engine */
    int category; /* GA4's (UN_CATEGORY_*) of the source a visit by it has: its engine's name, else
                     its site (the host without "www."); -1: none; -2: not looked up */
} un_referral;
/* What a referral reads of a referrer: its scheme (lower case), its host (in either case:
 * host_lower says it is known to be lower case) and its path, slices of the URL or of its
 * record. */
typedef struct {
    un_bytes scheme, host, path;
    int host_lower;
} un_referrer_parts;
un_referrer_parts un_referrer_parts_of(const un_url *u);
/* The referral of the parsed URL whose parts are u, without its search term, the page's host
 * if there is a page (in either case): UN_OK or UN_ERR_MEMORY. */
int un_referral_of(un_ctx *c, const un_referrers *r, const un_referrer_parts *u, const un_bytes *page_host, un_referral *out);
/* Whether the referral's host is the page's (in either case): a referrer on the page's own
 * host is internal. un_referral_internal: the referral made so, its host kept. */
int un_referral_on_page(const un_referral *f, const un_bytes *page_host);
void un_referral_internal(un_referral *out);
/* Referrals kept for the rows after them (referrers.c), by the referrer's bytes: a
 * clickstream's referrers repeat, the more so as browsers send another site only their
 * origin by default (Referrer Policy, strict-origin-when-cross-origin), and a referral cost
 * some 1,300 instructions a row. A pair of slots a hash (un_memo_pair); a referrer longer than
 * UN_REFERRAL_KEY, or a host or term longer than UN_REFERRAL_TEXT, is not kept. What a kept
 * one leaves out is its page: a referral the page made internal is not kept, and a recalled
 * one is checked against its row's page (un_referral_on_page). */
#define UN_REFERRAL_MEMO 512
#define UN_REFERRAL_KEY 96
#define UN_REFERRAL_TEXT 48
typedef struct {
    uint64_t hash; /* 0 for an empty slot */
    int status;    /* the row's: UN_OK, or the error of a referrer that does not parse */
    un_referral referral; /* its host in host */
    size_t len, term_len;
    uint8_t key[UN_REFERRAL_KEY], host[UN_REFERRAL_TEXT], term[UN_REFERRAL_TEXT];
} un_referral_kept;
/* 1, and the referral of p[0, n) into *out (internal where it is on page_host, the row's page
 * if it has one), its term into term (unless NULL, for a referral without one) and its row's
 * status into *status, where memo (UN_REFERRAL_MEMO slots) keeps it; else 0. */
int un_referral_recall(const un_referral_kept *memo, const uint8_t *p, size_t n, const un_bytes *page_host, un_referral *out,
                       un_buf *term, int *status);
/* The referral of p[0, n) (status, f, its term, or NULL) found beside page_host (or NULL) into
 * memo, where it may be kept. */
void un_referral_keep(un_referral_kept *memo, const uint8_t *p, size_t n, const un_bytes *page_host, int status,
                      const un_referral *f, const un_buf *term);
/* The search term of a search engine's referral (un_referral_of), from u's query and
 * fragment (text[0, n) as written): UN_OK, UN_ASK_TERM (the question in c->question), or
 * UN_ERR_MEMORY. */
int un_referral_term(un_ctx *c, const un_referrers *r, const un_url *u, const uint8_t *text, size_t n, un_referral *out,
                     un_buf *term);

/* GA4's source categories (core channels.CATEGORIES) and channels (core channels.CHANNELS). */
enum { UN_CATEGORY_SEARCH, UN_CATEGORY_SOCIAL, UN_CATEGORY_SHOPPING, UN_CATEGORY_VIDEO, UN_N_CATEGORIES };
enum { UN_CHANNEL_UNASSIGNED = 19, UN_N_CHANNELS };
extern const char *const UN_CHANNEL_NAMES[UN_N_CHANNELS];
/* The category of a source in lower case, or -1. */
int un_source_category(const un_referrers *r, const uint8_t *source, size_t n);
/* A search engine's name as GA4 spells its source (core attribution.engine_name): the first
 * word of its name in ASCII lower case, without a "!". */
void un_engine_name(const uint8_t *name, size_t len, un_buf *out);
/* How many leading bytes of a host are "www.": GA4 names a referral's source without them. */
size_t un_site_skip(const uint8_t *host, size_t n);

/* ---- campaign.c (core/campaign.py) ------------------------------------------------------------- */

/* CAMPAIGN's columns: the utm fields, the click id and its network. */
enum {
    UN_CAMPAIGN_SOURCE, UN_CAMPAIGN_MEDIUM, UN_CAMPAIGN_CAMPAIGN, UN_CAMPAIGN_TERM, UN_CAMPAIGN_CONTENT,
    UN_CAMPAIGN_ID, UN_CAMPAIGN_CLICK_ID, UN_CAMPAIGN_NETWORK, UN_N_CAMPAIGN_COLUMNS,
};
extern const char *const UN_CAMPAIGN_COLUMN_NAMES[UN_N_CAMPAIGN_COLUMNS];
/* One parameter name of a field, with its field and (a click id's) network's index. */
typedef struct {
    const uint8_t *name;
    size_t len;
    int field, network;
} un_campaign_name;
/* The parameter names of each field in order, and the click ids' networks (campaign.c), as
 * Python hands them over, and indexed once: each name, and for each length (min(length, 63))
 * a bit for each name's rank of that length. */
#define UN_CAMPAIGN_NAMES 64
typedef struct {
    const uint8_t *names, *networks;
    size_t names_len, networks_len;
    un_campaign_name index[UN_CAMPAIGN_NAMES];
    int n_index;
    uint64_t of_length[64];
} un_campaign_names;
/* Indexes the names; 0 if they are malformed or more than UN_CAMPAIGN_NAMES. */
int un_campaign_index(un_campaign_names *t);
/* A page's campaign: for each field the rank of the name that gave it (-1: none) and its pair. */
typedef struct {
    int rank[UN_N_CAMPAIGN_COLUMNS];
    un_form_pair value[UN_N_CAMPAIGN_COLUMNS];
    const uint8_t *network;
    size_t network_len;
} un_campaign;
/* The campaign of a page whose query is q[0, n) (NULL for none). */
void un_campaign_of(un_ctx *c, const un_campaign_names *t, const uint8_t *q, size_t n, un_campaign *out);

/* ---- attribution.c (core/attribution.py, core/channels.py) -------------------------------------- */

enum { UN_VISIT_SOURCE, UN_VISIT_MEDIUM, UN_VISIT_CAMPAIGN, UN_VISIT_CHANNEL, UN_N_VISIT_COLUMNS };
extern const char *const UN_VISIT_COLUMN_NAMES[UN_N_VISIT_COLUMNS];
/* A campaign's medium and campaign in lower case (text, the medium's medium_len bytes first)
 * and their channel facts (attribution.c), kept for the visits after it: a batch's campaigns
 * repeat, and finding the facts cost some 450 instructions a visit. */
#define UN_FACTS_MEMO 8
#define UN_FACTS_MEMO_LEN 64
typedef struct {
    uint64_t hash; /* 0 for an empty slot */
    size_t medium_len, len;
    uint8_t text[UN_FACTS_MEMO_LEN];
    unsigned facts;
} un_facts_memo;
/* A visit's source, medium and campaign (none for an internal referrer), and their lower case
 * where a campaign gave them. */
typedef struct {
    un_buf source, medium, campaign, lower[3];
    int present, has_source;
    int kind;     /* UN_BY_*: a default visit's values are in lower case already */
    int category; /* the source's, where the referral knew it; else -2 */
    un_facts_memo facts[UN_FACTS_MEMO];
} un_visit;
void un_visit_free(un_visit *v);
/* 1 and v from the page's Google click id or utm fields, else 0. */
int un_visit_from_campaign(un_ctx *c, const un_campaign *k, un_visit *v);
int un_visit_from_referrer(const un_referral *f, un_visit *v);
void un_visit_direct(un_visit *v);
/* GA4's channel (UN_CHANNEL_*) of a present visit; -1 if memory ran out. */
int un_visit_channel(const un_referrers *r, un_visit *v);
/* The facts the channel rules ask of each default visit's medium and campaign. */
void un_default_visit_facts(unsigned facts[UN_N_DEFAULT_VISITS]);

/* The input's data buffers, lent to the results whose views point into them (a row, or a slice
 * of it, handed back as it is) rather than copy its bytes. Each result that may borrow holds
 * a reference (un_hold_take); the last un_hold_drop calls release, which frees what keeps the
 * buffers alive. A result's view of data[k] names its buffer 1 + k: buffer 0 is its own (but
 * for a slice built in place: un_result's lent_skip). */
typedef struct un_hold {
    atomic_int refs;
    void (*release)(struct un_hold *h);
    void *owner; /* what keeps the buffers, for release */
    int64_t n_data;
    un_bytes data[];
} un_hold;
void un_hold_take(un_hold *h);
void un_hold_drop(un_hold *h);

typedef struct {
    un_op op;
    const un_profile *profile; /* UN_OP_NORMALIZE, NORMALIZE_RECORD, SURT, PARSE */
    unsigned outputs;          /* UN_OP_PARSE: a bit for each UN_OUT_* asked for */
    int generic;               /* UN_OP_SPLIT: generic mode (RFC 3986), else whatwg */
    int extent;                /* UN_OP_SPLIT (whatwg): how far the parse goes, UN_EXTENT_* */
    unsigned fields;           /* UN_OP_SPLIT: a bit for each text field (UN_FIELD_*) emitted, and
                                  bit UN_N_FIELDS for the port; UN_OP_VISIT: a bit for each
                                  UN_VISIT_* column; 0: all */
    int join_mode;             /* UN_OP_JOIN */
    int with_scheme, trailing_comma; /* UN_OP_SURT, UN_OP_PARSE */
    int psl_table;                   /* UN_OP_HOST, UN_OP_PARSE: the Public Suffix List table */
    int host_column;                 /* UN_OP_HOST: UN_HOST_* */
    int query_mode;                  /* UN_OP_QUERY: UN_QUERY_* */
    const uint8_t *name;             /* UN_OP_QUERY: the parameter's decoded name */
    size_t name_len;
    un_params params;                /* UN_OP_SELECT_PARAMS: the raw names */
    int keep;                        /* UN_OP_SELECT_PARAMS: keep them, or drop them */
    un_filters filters;              /* UN_OP_FILTER */
    un_params wrappers;              /* UN_OP_UNWRAP: the redirect wrappers' table */
    int component_mode;              /* UN_OP_COMPONENT: UN_ENCODE_* or UN_DECODE_* */
    int url_part;                    /* UN_OP_URL_PART: UN_URL_PART_* */
    const un_referrers *referrers;   /* UN_OP_REFERRER: the database */
    un_campaign_names campaign;      /* UN_OP_CAMPAIGN: the fields' parameter names */
    int quiet;                 /* neither status nor error is handed back: neither is written */
    int check_utf8;            /* binary input: check that each row is UTF-8 */
    int encode_invalid_utf8;   /* percent-encode invalid bytes instead of an error */
    int utf8_rows;             /* every row that reaches the operation is UTF-8: text, or checked */
    un_hold *lender;           /* the input's buffers, which outlive the results; NULL: copy every value */
    un_column input;
    const un_column *base; /* UN_OP_JOIN: the bases, or one literal base; UN_OP_REFERRER: the pages */
    un_answer_fn answer;   /* answers the rows' questions; NULL leaves them asking */
    void *answer_data;
} un_batch;

typedef struct {
    un_buf data;                  /* the bytes of every text column below */
    un_builder text[UN_N_COLUMNS]; /* split: the record's fields; query pairs: key, value; else text[0] */
    un_buf list_offsets, list_validity; /* list outputs: int32 offsets into the text columns */
    int64_t list_nulls;
    un_builder errors;            /* the error code's name, else null */
    /* The error names the error column's views point into: not data, so that joining a run's
     * slices into one chunk carries a few hundred bytes for that column, not the text. */
    un_buf error_names;
    un_buf port, port_validity;   /* split: uint16 per row and its bitmap */
    un_buf key_hash, key_hash_validity; /* parse: uint64 per row and its bitmap */
    un_buf status;                /* uint8 per row: UN_OK, an error, or UN_ASK_* left unanswered */
    size_t error_at[UN_N_ERRORS]; /* where each error name is in error_names */
    int64_t asked;                /* rows that asked a question (not one the worker recalled) */
    un_hold *lent;                /* the batch's lender, held once a view points into its buffers */
    un_hold *placed;              /* what keeps the memory a text column is placed in (un_builder_place) */
    /* Where its text columns' views say their bytes are: r->data is the output's data buffer
     * data_index, the lender's data[k] its buffer 1 + lent_skip + k. 0 and 0 (its data, then
     * the lender's), but for slices built in place into their chunk's column (plugin.c). The
     * error column's views name error_names as buffer data_index. */
    int32_t data_index, lent_skip;
} un_result;

/* How many text columns the batch's operation has, which of them it emits, and whether they
 * hold a list a row. */
int un_text_columns(const un_batch *b);
int un_text_wanted(const un_batch *b, int column);
int un_record_out(const un_batch *b);
int un_port_out(const un_batch *b); /* a record's port column is emitted */
int un_list_out(const un_batch *b);
/* The record's field i (UN_FIELD_*) into f; whether it is present (the path always is). */
int un_record_field(const un_url *u, int i, un_bytes *f);
void un_result_init(un_result *r);
void un_result_free(un_result *r);
/* 0, or -1 if an array is malformed or memory ran out for the outputs. */
int un_run_batch(const un_batch *b, un_result *r);
/* How many rows the normal-form scan has been put to in this process (kernel.c's scan_policy). */
unsigned long long un_rows_scanned(void);

/* ---- threads.c ---------------------------------------------------------------------------- */

#define UN_MAX_THREADS 256
/* un_run_batch over slices of the rows, slice i being rows [starts[i], starts[i + 1]) into
 * results[i], on up to n_threads threads (the caller's among them). b->answer may be called
 * from any of them at once. 0, or -1 as un_run_batch, or if the bounds do not cover the rows
 * in order. */
int un_run_slices(const un_batch *b, const int64_t *starts, int n_slices, int n_threads, un_result *results);
/* A slice of rows of one of several batches (a column's chunks): rows [start, end) of
 * batches[batch]. */
typedef struct {
    int batch;
    int64_t start, end;
} un_slice;
/* un_run_slices over the slices of several batches at once, slice i into results[i]: the
 * threads take every chunk's slices from one queue, so a column's rows are shared across the
 * threads whatever its chunks. 0, or -1 as un_run_batch, or if a slice is not within its batch. */
int un_run_slice_table(const un_batch *batches, int n_batches, const un_slice *slices, int n_slices, int n_threads,
                       un_result *results);
/* task(data, i) for i in [0, n_tasks), on up to n_threads threads (the caller's among them),
 * the tasks taken in turn; a task's nonzero return stops those not yet begun. 0, or -1 if a
 * task failed. */
typedef int (*un_task_fn)(void *data, int i);
int un_run_tasks(int n_tasks, int n_threads, un_task_fn task, void *data);
/* How many calls (un_run_slice_table, un_run_tasks) this process has handed to the helper
 * threads: a call on one thread, or made while another had them, is not one. */
unsigned long un_helped_calls(void);
/* The rows of each slice (the last may have fewer) of a batch of `length` rows holding
 * `nbytes` bytes, one slice a thread of `workers`: each slice of min_bytes or more, and of at
 * most max_bytes where the batch allows (at least one row). */
int64_t un_slice_rows(int64_t length, int64_t nbytes, int workers, int64_t min_bytes, int64_t max_bytes);
/* Whether starts[0..n_slices] bound slices that cover the rows in order (and the bases, when
 * there is one a row). */
int un_valid_slices(const un_batch *b, const int64_t *starts, int n_slices);

#endif
