/* libFuzzer harness over every entry point of the kernel: the WHATWG parse (and its form that
 * applies the percent rules as it writes, checked against the parse and then the rules), the generic
 * split, normalise with every built-in profile, join in every mode, and a batch of every
 * operation (host and PSL parts, query pairs, path segments, one-pass outputs included) over an Arrow-layout
 * column read and its outputs exported through the Arrow C data interface, which also runs the answer path, on one thread or as slices on two,
 * and Polars' plugin entry points over a column of views or a dictionary of them (a Categorical); and that a URL
 * the normal-form scan takes is what the full path gives back, with each byte classifier the CPU has, that a parse going
 * on from where the scan stopped is the whole parse, and that a batch's row, whether written from the scan or parsed, is
 * what the parse gives with no scan. Built by `make fuzz` with
 * AddressSanitizer and UndefinedBehaviorSanitizer; tables.h is generated from urlnorm.core. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"
#include "tables.h"

static un_ctx ctx;
static un_referrers bundled_referrers; /* FUZZ_REFERRERS, built once */
static un_campaign_names campaign_names;  /* FUZZ_CAMPAIGN, indexed once */
static un_profile profiles[FUZZ_N_PROFILES]; /* FUZZ_PROFILES, indexed as the binding's are */
static un_url url, base;
static un_buf out;

static void check_href(const un_url *u) {
    out.len = 0;
    un_serialize(u, &out);
    /* Touch every byte so that ASan sees an out-of-bounds write that corrupted the output. */
    volatile uint8_t sum = 0;
    for (size_t i = 0; i < out.len; i++) sum ^= out.data[i];
    (void)sum;
}

/* Every question has the same answer once the row has asked one. */
static int fixed_recall(const void *data, int kind, const uint8_t *question, size_t n, un_answer *a) {
    static const uint8_t answer[] = "example.com";
    (void)data, (void)kind, (void)question, (void)n;
    *a = (un_answer){answer, sizeof answer - 1, UN_OK};
    return 1;
}

static void normalize_with_answers(const un_profile *prof, const uint8_t *p, size_t n) {
    ctx.recall = NULL;
    for (int round = 0; round < 3; round++) {
        int status = un_normalize(&ctx, prof, p, n, &url);
        if (status == UN_OK) check_href(&url);
        if (status < UN_ASK_HOST) break;
        ctx.recall = fixed_recall;
    }
    ctx.recall = NULL;
}

/* The parse that applies the percent rules as it writes (un_whatwg_parse_escapes, then the
 * rules on the authority) gives the status and href of the parse and then the rules, a
 * drive letter that decoding made written as the parser reads it on both sides (as profiles.c does). */
static void check_parse_escapes(const uint8_t *p, size_t n) {
    static un_buf fused;
    ctx.recall = fixed_recall;
    int status = un_whatwg_parse_escapes(&ctx, p, n, &base);
    fused.len = 0;
    if (status == UN_OK) {
        un_apply_percent_rules_to_authority(&base);
        un_normalize_drive_letter(&base);
        un_serialize(&base, &fused);
    }
    ctx.has_percent = 1;
    int expected = un_whatwg_parse(&ctx, p, n, NULL, &url);
    if (expected == UN_OK) {
        un_apply_percent_rules(&ctx, &url);
        un_normalize_drive_letter(&url);
        out.len = 0;
        un_serialize(&url, &out);
    }
    ctx.recall = NULL;
    if (status != expected) abort();
    if (status == UN_OK && (fused.len != out.len || (out.len && memcmp(fused.data, out.data, out.len) != 0))) abort();
}

static int same_field(const un_buf *a, const un_buf *b) { return a->len == b->len && (!a->len || memcmp(a->data, b->data, a->len) == 0); }

/* A parse that stops after the port, skips the path, or stops after it gives the whole
 * parse's status and the fields it keeps: no later state can fail, and the path states end
 * at '?' or '#'. */
static void check_extents(const uint8_t *p, size_t n) {
    static un_url part;
    ctx.recall = fixed_recall;
    int expected = un_whatwg_parse(&ctx, p, n, NULL, &url);
    for (int extent = UN_EXTENT_AUTHORITY; extent < UN_N_EXTENTS; extent++) {
        int status = un_whatwg_parse_extent(&ctx, p, n, extent, &part);
        if (status != expected) abort();
        if (status != UN_OK) continue;
        if (!same_field(&part.scheme, &url.scheme) || !same_field(&part.username, &url.username) ||
            !same_field(&part.password, &url.password) || !same_field(&part.host, &url.host) ||
            part.has_host != url.has_host || part.port != url.port)
            abort();
        if (extent == UN_EXTENT_NO_PATH && (part.has_query != url.has_query || part.has_fragment != url.has_fragment ||
                                            !same_field(&part.query, &url.query) || !same_field(&part.fragment, &url.fragment)))
            abort();
        if (extent == UN_EXTENT_NO_QUERY && (!same_field(&part.path, &url.path) || part.has_query || part.has_fragment)) abort();
    }
    ctx.recall = NULL;
}

static int same_record(const un_url *a, const un_url *b) {
    return same_field(&a->scheme, &b->scheme) && same_field(&a->username, &b->username) && same_field(&a->password, &b->password) &&
           same_field(&a->host, &b->host) && same_field(&a->path, &b->path) && same_field(&a->query, &b->query) &&
           same_field(&a->fragment, &b->fragment) && a->has_scheme == b->has_scheme && a->has_host == b->has_host &&
           a->has_query == b->has_query && a->has_fragment == b->has_fragment && a->has_username == b->has_username &&
           a->has_password == b->has_password && a->port == b->port && a->special == b->special && a->opaque == b->opaque;
}

/* The scheme and host of a URL the scan took, as the parse folds them (the kernel's sliced). */
static const uint8_t *folded_head(const uint8_t *p, const un_spans *s) {
    static un_buf head;
    un_buf_set(&head, p, s->host_start + s->host_len);
    if (head.failed) abort();
    if (!s->as_written) un_lower_ascii(head.data, head.len);
    return head.data;
}

/* Each text part of a URL the scan took, as a piece of it (un_url_part_slice) where it is one
 * and cut from it (un_url_part_cut) wherever that applies, is the part of its record parsed to
 * the part's extent. */
static void check_parts_of_spans(const uint8_t *p, size_t n, const un_spans *s, int extent, const un_url *parsed) {
    static un_buf cut, from_record;
    const uint8_t *head = folded_head(p, s);
    for (int part = 0; part < UN_N_URL_PARTS; part++) {
        if (un_url_part_is_list(part) || un_url_part_extent(part) != extent) continue;
        from_record.len = 0;
        int present = un_url_part(parsed, part, &from_record);
        size_t from, len;
        int sliced = un_url_part_slice(p, n, s, part, &from, &len);
        if (sliced && (!present || len != from_record.len || (len && memcmp(p + from, from_record.data, len) != 0))) abort();
        if (!sliced && part == UN_URL_PART_QUERY_AND_FRAGMENT && present) abort();
        if (part == UN_URL_PART_QUERY_AND_FRAGMENT) continue;
        cut.len = 0;
        if (un_url_part_cut(p, n, head, s, part, &cut) != present || !same_field(&cut, &from_record)) abort();
    }
}

/* The input as a host, as the Public Suffix List reads it a byte at a time: refused if a byte
 * is not ASCII, else lower-cased without trailing dots (rstrip(".").lower()), its last label
 * its TLD. The lookup does this eight bytes at a time. */
static int host_as_listed(const uint8_t *p, size_t n, un_domain_parts *parts, const un_buf *name) {
    while (n > 0 && p[n - 1] == '.') n--;
    size_t last = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] >= 0x80) return 0;
        if (i >= name->len || name->data[i] != un_ascii_lower(p[i])) return 0;
        if (p[i] == '.') last = i + 1;
    }
    int tld = n > last;
    return name->len == n && parts->present[UN_PART_TLD] == tld && (!tld || (parts->start[UN_PART_TLD] == last && parts->len[UN_PART_TLD] == n - last));
}

static int same_parts(const un_domain_parts *x, const un_domain_parts *y) {
    return memcmp(x->present, y->present, sizeof x->present) == 0 && memcmp(x->start, y->start, sizeof x->start) == 0 &&
           memcmp(x->len, y->len, sizeof x->len) == 0;
}

/* The input as a host: refused exactly where it is not ASCII, else its name and TLD as read a
 * byte at a time (and as un_tld_of finds it), and the same parts and name with its letters in
 * upper case. */
static void check_domain_parts(const uint8_t *p, size_t n) {
    uint8_t upper[512];
    size_t m = n < sizeof upper ? n : sizeof upper;
    int ascii = 1;
    for (size_t i = 0; i < m; i++) upper[i] = p[i] >= 'a' && p[i] <= 'z' ? (uint8_t)(p[i] - 32) : p[i], ascii &= p[i] < 0x80;
    un_buf a = {0}, b = {0};
    un_domain_parts x, y;
    int s = un_domain_parts_of(UN_PSL_ALL, p, m, &a, &x), t = un_domain_parts_of(UN_PSL_ALL, upper, m, &b, &y);
    if (s != t || (s == 0) != ascii) abort();
    if (s == 0 && (!host_as_listed(p, m, &x, &a) || a.len != b.len || (a.len && memcmp(a.data, b.data, a.len) != 0) || !same_parts(&x, &y)))
        abort();
    /* The TLD the kernel finds without the list is the one the list's lookup finds. */
    size_t start, len;
    int tld = un_tld_of(p, m, &start, &len);
    if (s == 0 && (tld != x.present[UN_PART_TLD] || (tld && (start != x.start[UN_PART_TLD] || len != x.len[UN_PART_TLD]))))
        abort();
    un_buf_free(&a), un_buf_free(&b);
}

/* A path un_has_dot_segment finds none in is what remove_dot_segments gives back (RFC 3986
 * §5.2.4): the rule's shortcut leaves it where it is. */
static void check_dot_segments(const uint8_t *p, size_t n) {
    static un_buf removed;
    removed.len = 0;
    un_remove_dot_segments(&removed, p, n);
    if (!un_has_dot_segment(p, n) && (removed.len != n || (n && memcmp(removed.data, p, n) != 0))) abort();
}

/* A component the kernel hands back as it is (un_component_as_is) is what the mode writes,
 * and so is a query's name or value it puts as written (un_form_plain): what form decoding
 * gives. */
static void check_components_as_is(const uint8_t *p, size_t n) {
    static un_buf written, tmp;
    if (un_form_plain(p, n) && !un_component_as_is(p, n, UN_DECODE_FORM, 0)) abort();
    for (int mode = 0; mode < UN_N_COMPONENT_MODES; mode++) {
        /* Rows known to be UTF-8 are taken by the same rule without the check. */
        if (un_valid_utf8(p, n) && un_component_as_is(p, n, mode, 1) != un_component_as_is(p, n, mode, 0)) abort();
        if (!un_component_as_is(p, n, mode, 0)) continue;
        written.len = 0;
        un_component(&written, p, n, mode, &tmp);
        if (written.len != n || (n && memcmp(written.data, p, n) != 0)) abort();
    }
}

/* A URL the normal-form scan takes (normal_form.c) is what the full path gives back: the
 * parse at every extent gives the record its spans make (its host a domain, or empty), and
 * the profile's full path gives the same record, which serialises to the href written from
 * the spans (un_put_normal_href): the input where the scan says it is written so. */
static void check_normal_form(const uint8_t *p, size_t n, const un_profile *prof) {
    static un_url spanned;
    static un_buf href;
    un_spans spans;
    ctx.recall = fixed_recall;
    for (int extent = 0; extent < UN_N_EXTENTS; extent++) {
        if (!un_normal_form(p, n, 0, extent, &spans)) continue;
        un_url_from_spans(p, &spans, extent, &spanned);
        if (un_whatwg_parse_extent(&ctx, p, n, extent, &url) != UN_OK || !same_record(&spanned, &url)) abort();
        /* The kernel types such a host without a record (host_of): a domain, or none. */
        if (un_host_type(&url) != (spans.host_len ? UN_DOMAIN_HOST : UN_NO_HOST)) abort();
        check_parts_of_spans(p, n, &spans, extent, &url);
    }
    if (un_normal_form(p, n, prof->normal_form, UN_EXTENT_WHOLE, &spans)) {
        if (un_normalize_parsed(&ctx, prof, p, n, NULL, &url) != UN_OK || un_normalize(&ctx, prof, p, n, &spanned) != UN_OK) abort();
        if (!same_record(&spanned, &url)) abort();
        check_href(&url);
        href.len = 0;
        un_put_normal_href(p, n, folded_head(p, &spans), &spans, &href);
        int own = spans.as_written && !spans.rewrite_escapes && !spans.remove_dots;
        if (!same_field(&href, &out) || (own && (out.len != n || memcmp(out.data, p, n) != 0))) abort();
    }
    ctx.recall = NULL;
}

/* Whether b is the spans a's text holds where the scan found them: every span a has. */
static int same_spans(const un_spans *a, const un_spans *b) {
    return a->scheme_len == b->scheme_len && a->host_start == b->host_start && a->host_len == b->host_len &&
           a->authority_end == b->authority_end && a->path_start == b->path_start && a->path_len == b->path_len &&
           a->has_query == b->has_query && a->has_fragment == b->has_fragment && a->special == b->special && a->port == b->port &&
           a->as_written == b->as_written && a->remove_dots == b->remove_dots && a->rewrite_escapes == b->rewrite_escapes &&
           (!a->has_query || (a->query_start == b->query_start && a->query_len == b->query_len)) &&
           (!a->has_fragment || (a->fragment_start == b->fragment_start && a->fragment_len == b->fragment_len));
}

/* A URL the scan takes with its path's dot segments, for a part that reads the path (the
 * kernel's scan_requirements), is what the parse to that extent gives back: the record its
 * spans make; and the text written without them (un_put_undotted, its spans written over the
 * scan's as the kernel writes them) has the spans the scan finds there, the same record, and
 * each part of the record as a slice or a cut of it. */
static void check_dotted_parts(const uint8_t *p, size_t n) {
    static const int extents[] = {UN_EXTENT_NO_QUERY, UN_EXTENT_WHOLE};
    static un_url spanned;
    static un_buf text;
    ctx.recall = fixed_recall;
    for (size_t k = 0; k < sizeof extents / sizeof *extents; k++) {
        un_spans spans, found;
        if (!un_normal_form(p, n, 1u << UN_NF_DOT_SEGMENTS, extents[k], &spans)) continue;
        un_url_from_spans(p, &spans, extents[k], &spanned);
        if (un_whatwg_parse_extent(&ctx, p, n, extents[k], &url) != UN_OK || !same_record(&spanned, &url)) abort();
        if (!spans.remove_dots) continue;
        un_put_undotted(p, n, folded_head(p, &spans), &spans, &text, &spans);
        if (text.failed || !un_normal_form(text.data, text.len, 0, extents[k], &found) || !same_spans(&found, &spans)) abort();
        un_url_from_spans(text.data, &spans, extents[k], &spanned);
        if (!same_record(&spanned, &url)) abort();
        check_parts_of_spans(text.data, text.len, &spans, extents[k], &url);
    }
    ctx.recall = NULL;
}

/* A URL whose host is not ASCII, its host replaced with the answer for it (the kernel's
 * host_answered), is what the parse gives back with that answer where the scan takes it: the
 * parse's record (no requirements) and the profile's normalisation of it are the text's. */
static void check_answered_host(const uint8_t *p, size_t n, const un_profile *prof) {
    static const uint8_t answer[] = "example.com"; /* fixed_recall's */
    static un_buf text;
    static un_url spanned;
    un_spans spans;
    ctx.recall = fixed_recall;
    for (int profiled = 0; profiled < 2; profiled++) {
        unsigned req = profiled ? prof->normal_form : 0;
        if (un_normal_form(p, n, req, UN_EXTENT_WHOLE, &spans)) continue;
        size_t end = un_non_ascii_host_end(p, n, &spans);
        if (!end) continue;
        un_put_answered_host(p, n, &spans, end, answer, sizeof answer - 1, &text);
        if (text.failed) abort();
        if (!un_normal_form(text.data, text.len, req, UN_EXTENT_WHOLE, &spans)) continue;
        if (profiled) un_normal_record(prof, text.data, &spans, &spanned);
        else un_url_from_spans(text.data, &spans, UN_EXTENT_WHOLE, &spanned);
        int status = profiled ? un_normalize(&ctx, prof, p, n, &url) : un_whatwg_parse(&ctx, p, n, NULL, &url);
        if (status != UN_OK || !same_record(&spanned, &url)) abort();
    }
    ctx.recall = NULL;
}

/* The scan's answer (its return and every span, parse_from among them) is the same with each
 * byte classifier this CPU has as with the scalar one, for every extent, with none and with the
 * dot segments' requirement, and for the profile's requirements. */
static void check_scan_kinds(const uint8_t *p, size_t n, const un_profile *prof) {
    int in_use = un_normal_form_scan();
    for (int kind = UN_SCAN_SCALAR + 1; kind < UN_N_SCANS; kind++) {
        for (int extent = 0; extent <= 2 * UN_N_EXTENTS; extent++) {
            unsigned req = extent == 2 * UN_N_EXTENTS ? prof->normal_form : extent >= UN_N_EXTENTS ? 1u << UN_NF_DOT_SEGMENTS : 0;
            un_spans scalar, vector;
            memset(&scalar, 0, sizeof scalar), memset(&vector, 0, sizeof vector);
            if (!un_normal_form_use(UN_SCAN_SCALAR)) abort();
            int expected = un_normal_form(p, n, req, extent % UN_N_EXTENTS, &scalar);
            if (!un_normal_form_use(kind)) break;
            if (un_normal_form(p, n, req, extent % UN_N_EXTENTS, &vector) != expected || memcmp(&scalar, &vector, sizeof scalar) != 0) abort();
        }
    }
    if (!un_normal_form_use(in_use)) abort();
}

/* The parse's record, as it is and with the percent rules applied as it writes, is the same
 * whether its runs are copied sixteen bytes at a time (with the scan's vectors) or a byte at a
 * time (with the scalar scan). */
static void check_run_kinds(const uint8_t *p, size_t n) {
    static un_url scalar, vector;
    int in_use = un_normal_form_scan();
    ctx.recall = fixed_recall;
    for (int escapes = 0; escapes < 2; escapes++) {
        if (!un_normal_form_use(UN_SCAN_SCALAR)) abort();
        int expected = escapes ? un_whatwg_parse_escapes(&ctx, p, n, &scalar) : un_whatwg_parse(&ctx, p, n, NULL, &scalar);
        for (int kind = UN_SCAN_SCALAR + 1; kind < UN_N_SCANS && un_normal_form_use(kind); kind++) {
            int status = escapes ? un_whatwg_parse_escapes(&ctx, p, n, &vector) : un_whatwg_parse(&ctx, p, n, NULL, &vector);
            if (status != expected || (status == UN_OK && !same_record(&scalar, &vector))) abort();
        }
    }
    if (!un_normal_form_use(in_use)) abort();
    ctx.recall = NULL;
}

/* A parse that goes on from where the scan stopped (un_whatwg_parse_after) gives the status and
 * record of the whole parse, at every extent, and so does the profile's full path. */
static void check_parse_after(const uint8_t *p, size_t n, const un_profile *prof) {
    static un_url after;
    un_spans spans;
    ctx.recall = fixed_recall;
    for (int extent = 0; extent < UN_N_EXTENTS; extent++) {
        if (un_normal_form(p, n, 0, extent, &spans) || !spans.parse_from) continue;
        int expected = un_whatwg_parse_extent(&ctx, p, n, extent, &url);
        if (un_whatwg_parse_after(&ctx, p, n, extent, 0, &spans, &after) != expected) abort();
        if (expected == UN_OK && !same_record(&url, &after)) abort();
    }
    if (!un_normal_form(p, n, prof->normal_form, UN_EXTENT_WHOLE, &spans) && spans.parse_from) {
        int expected = un_normalize_parsed(&ctx, prof, p, n, NULL, &url);
        if (un_normalize_parsed(&ctx, prof, p, n, &spans, &after) != expected) abort();
        if (expected == UN_OK && !same_record(&url, &after)) abort();
    }
    ctx.recall = NULL;
}

static void no_release(struct ArrowSchema *s) { s->release = NULL; }
static void no_release_array(struct ArrowArray *a) { a->release = NULL; }

/* Two rows (the input and an empty one) as an Arrow column, in offsets or view layout, read
 * through the C data interface as the binding reads a producer's. */
static un_column column_of(const uint8_t *p, size_t n, int views, int64_t offsets[3], uint8_t view_rows[32], un_bytes *data) {
    static const char *formats[] = {"U", "Z", "vu", "vz"};
    int64_t size = (int64_t)n;
    const void *buffers[4] = {NULL, views ? (const void *)view_rows : offsets, p, &size};
    struct ArrowSchema schema = {.format = formats[(views ? 2 : 0) + (n & 1)], .release = no_release};
    struct ArrowArray array = {.length = 2, .n_buffers = views ? 4 : 3, .buffers = buffers, .release = no_release_array};
    offsets[0] = 0, offsets[1] = size, offsets[2] = size;
    int32_t len = (int32_t)n, zero = 0;
    memset(view_rows, 0, 32);
    memcpy(view_rows, &len, 4);
    if (n <= 12) memcpy(view_rows + 4, p, n);
    else memcpy(view_rows + 4, p, 4), memcpy(view_rows + 8, &zero, 4), memcpy(view_rows + 12, &zero, 4);
    un_column col;
    int text;
    if (un_column_import(&schema, &array, data, &col, &text) != UN_IMPORTED) abort();
    return col;
}

/* un_large_strings gives the column's rows as un_column_get reads them, on one thread and on
 * two in tasks of 64 rows; or it fails, and then a row is malformed. */
static void check_large_strings(const un_column *col) {
    int malformed = 0;
    for (int64_t row = 0; row < col->length; row++) {
        const uint8_t *p;
        size_t n;
        malformed |= un_column_get(col, row, &p, &n) == UN_ROW_MALFORMED;
    }
    for (int threads = 1; threads <= 2; threads++) {
        struct ArrowSchema s;
        struct ArrowArray a;
        if (un_large_strings(col, threads, 1, &s, &a) != 0) {
            if (!malformed) abort();
            continue;
        }
        const int64_t *offsets = a.buffers[1];
        const uint8_t *validity = a.buffers[0], *bytes = a.buffers[2];
        int64_t nulls = 0;
        if (malformed || a.length != col->length || offsets[0] != 0 || strcmp(s.format, "U") != 0) abort();
        for (int64_t row = 0; row < col->length; row++) {
            const uint8_t *p;
            size_t n;
            int value = un_column_get(col, row, &p, &n) == UN_ROW_VALUE;
            int64_t len = offsets[row + 1] - offsets[row];
            nulls += !value;
            if ((validity ? validity[row / 8] >> (row % 8) & 1 : 1) != value) abort();
            if (value ? len != (int64_t)n || (n && memcmp(bytes + offsets[row], p, n) != 0) : len != 0) abort();
        }
        if (nulls != a.null_count) abort();
        a.release(&a), s.release(&s);
    }
}

/* The input's bytes as columns of many rows for un_large_strings: read as views (arbitrary,
 * malformed as often as not) over the input as their one data buffer, and as a column of
 * offsets whose rows are slices of the input, every third null. */
static void check_gathering(const uint8_t *p, size_t n) {
    static int64_t offsets[202];
    static uint8_t validity[26];
    int64_t rows = n / 16, size = (int64_t)n;
    un_bytes data = {p, n};
    un_column views = {UN_VIEWS, rows, 0, NULL, 0, p, (size_t)rows * 16, 1, &data};
    check_large_strings(&views);
    rows = n < 200 ? (int64_t)n : 200;
    memset(validity, 0, sizeof validity);
    for (int64_t row = 0, at = 0; row <= rows; row++, at = (at * 7 + 13) % (size + 1)) {
        offsets[row] = row && at < offsets[row - 1] ? offsets[row - 1] : at;
        if (row % 3) validity[row / 8] |= (uint8_t)(1u << (row % 8));
    }
    un_column sliced = {UN_OFFSETS64, rows, 0, validity, sizeof validity, (const uint8_t *)offsets, sizeof offsets, 1, &data};
    check_large_strings(&sliced);
}

/* Every text column a result exports reads back, row by row, through the C data interface:
 * its views stay inside the data buffer it hands over. */
static void read_back(const struct ArrowSchema *s, const struct ArrowArray *a) {
    static un_bytes data[UN_MAX_DATA_BUFFERS];
    for (int64_t i = 0; i < a->n_children; i++) read_back(s->children[i], a->children[i]);
    un_column col;
    int text;
    if (strcmp(s->format, "vu") != 0) return;
    if (un_column_import(s, a, data, &col, &text) != UN_IMPORTED) abort();
    for (int64_t row = 0; row < col.length; row++) {
        const uint8_t *p;
        size_t n;
        if (un_column_get(&col, row, &p, &n) == UN_ROW_MALFORMED) abort();
    }
    check_large_strings(&col);
}

static void export_and_release(const un_batch *b, un_result *r, int64_t rows, int projected) {
    static const char names[] = "error\0status"; /* read without its end NUL */
    struct ArrowSchema schema;
    struct ArrowArray array;
    if (un_result_export(b, r, rows, projected ? names : NULL, projected ? sizeof names - 1 : 0, &schema, &array) != 0) abort();
    read_back(&schema, &array);
    /* A consumer may move a column out and release it after the rest. */
    struct ArrowArray moved = *array.children[0];
    array.children[0]->release = NULL;
    array.release(&array);
    moved.release(&moved);
    schema.release(&schema);
}

/* The slices as one stream, read as a consumer reads it: its schema asked twice, then each
 * chunk read back; with read_all false the stream is released with a chunk still in it. */
static void stream_and_release(const un_batch *b, un_result *r, int n_slices, int64_t rows, int read_all) {
    struct ArrowSchema schema[2], copy[2];
    struct ArrowArray arrays[2], chunk;
    struct ArrowArrayStream stream;
    for (int i = 0; i < n_slices; i++)
        if (un_result_export(b, &r[i], rows, NULL, 0, &schema[i], &arrays[i]) != 0) abort();
    for (int i = 1; i < n_slices; i++) schema[i].release(&schema[i]);
    if (un_stream_export(&schema[0], arrays, n_slices, &stream) != 0) abort();
    if (stream.get_schema(&stream, &copy[0]) != 0 || stream.get_schema(&stream, &copy[1]) != 0) abort();
    copy[1].release(&copy[1]);
    for (int i = 0; i < (read_all ? n_slices : 1); i++) {
        if (stream.get_next(&stream, &chunk) != 0 || !chunk.release) abort();
        read_back(&copy[0], &chunk);
        chunk.release(&chunk);
    }
    if (read_all && (stream.get_next(&stream, &chunk) != 0 || chunk.release)) abort();
    stream.release(&stream);
    copy[0].release(&copy[0]);
}

static int valid_at(const struct ArrowArray *a, int64_t row) {
    const uint8_t *bits = a->buffers[0];
    return !bits || (bits[row / 8] >> (row % 8) & 1);
}

/* Each row of two exports' fixed-width columns (a port, a key hash, a status) is the same. */
static void same_values(const struct ArrowSchema *s, const struct ArrowArray *a, const struct ArrowArray *b) {
    size_t width = strcmp(s->format, "L") == 0 ? 8 : strcmp(s->format, "S") == 0 ? 2 : strcmp(s->format, "C") == 0 ? 1 : 0;
    if (!width) return;
    if (a->length != b->length) abort();
    for (int64_t row = 0; row < a->length; row++) {
        if (valid_at(a, row) != valid_at(b, row)) abort();
        const uint8_t *x = (const uint8_t *)a->buffers[1] + (size_t)row * width, *y = (const uint8_t *)b->buffers[1] + (size_t)row * width;
        if (valid_at(a, row) && memcmp(x, y, width) != 0) abort();
    }
}

/* Each column of two exports holds the same rows, read through the C data interface. */
static void same_columns(const struct ArrowSchema *s, const struct ArrowArray *a, const struct ArrowArray *b) {
    static un_bytes data[2][UN_MAX_DATA_BUFFERS];
    if (a->n_children != b->n_children) abort();
    for (int64_t i = 0; i < a->n_children; i++) same_columns(s->children[i], a->children[i], b->children[i]);
    if (strcmp(s->format, "vu") != 0) return same_values(s, a, b);
    un_column col[2];
    int text;
    if (un_column_import(s, a, data[0], &col[0], &text) != UN_IMPORTED || un_column_import(s, b, data[1], &col[1], &text) != UN_IMPORTED) abort();
    if (col[0].length != col[1].length) abort();
    for (int64_t row = 0; row < col[0].length; row++) {
        const uint8_t *p[2] = {NULL, NULL};
        size_t n[2] = {0, 0};
        un_row kind = un_column_get(&col[0], row, &p[0], &n[0]);
        if (kind == UN_ROW_MALFORMED || un_column_get(&col[1], row, &p[1], &n[1]) != kind) abort();
        if (n[0] != n[1] || (n[0] && memcmp(p[0], p[1], n[0]) != 0)) abort();
    }
}

static void free_hold(un_hold *h) { free(h); }

/* The batch again with the input's buffer lent to its result (un_hold): its views of the
 * rows it hands back as they are point into the input, and each text column reads back as
 * the copying run's. */
static void check_lent(const un_batch *copying, const un_bytes *data) {
    un_hold *h = malloc(sizeof *h + sizeof h->data[0]);
    if (!h) abort();
    atomic_init(&h->refs, 1);
    h->release = free_hold, h->owner = NULL, h->n_data = 1, h->data[0] = *data;
    un_batch lending = *copying;
    lending.lender = h;
    un_result r[2];
    un_result_init(&r[0]), un_result_init(&r[1]);
    struct ArrowSchema schema[2];
    struct ArrowArray array[2];
    if (un_run_batch(copying, &r[0]) == 0 && un_run_batch(&lending, &r[1]) == 0) {
        for (int i = 0; i < 2; i++)
            if (un_result_export(i ? &lending : copying, &r[i], 2, NULL, 0, &schema[i], &array[i]) != 0) abort();
        same_columns(&schema[0], &array[0], &array[1]);
        for (int i = 0; i < 2; i++) array[i].release(&array[i]), schema[i].release(&schema[i]);
    }
    un_result_free(&r[0]), un_result_free(&r[1]);
    un_hold_drop(h);
}

/* The operations whose rows the kernel may hand back as views of the input, each run copying
 * and lending (check_lent): whatever the selector picked for batch(). */
static void check_lent_operations(const uint8_t *p, size_t n, uint8_t selector) {
    int64_t offsets[3];
    uint8_t views[32];
    un_bytes data;
    un_column input = column_of(p, n, selector & 1, offsets, views, &data);
    const un_batch batches[] = {
        {.op = UN_OP_NORMALIZE, .profile = &profiles[selector % FUZZ_N_PROFILES], .input = input},
        {.op = UN_OP_PARSE, .profile = &profiles[selector % FUZZ_N_PROFILES], .input = input,
         .outputs = 1u << UN_OUT_NORMALIZED | (selector & 2 ? 1u << UN_OUT_KEY_HASH : 0)},
        {.op = UN_OP_SPLIT, .extent = UN_EXTENT_WHOLE, .input = input},
        {.op = UN_OP_URL_PART, .url_part = selector % UN_N_URL_PARTS, .input = input},
        {.op = UN_OP_HOST, .host_column = selector % UN_N_HOST_COLUMNS, .psl_table = UN_PSL_ALL, .input = input},
        {.op = UN_OP_COMPONENT, .component_mode = selector % UN_N_COMPONENT_MODES, .input = input, .utf8_rows = un_valid_utf8(p, n)},
    };
    for (size_t i = 0; i < sizeof batches / sizeof batches[0]; i++) check_lent(&batches[i], &data);
}

/* Row `row` of a copying run's text column: a view of its data or inline bytes, or NULL for
 * a null. */
static const uint8_t *text_at(const un_result *r, int column, int64_t row, size_t *n) {
    const un_builder *col = &r->text[column];
    int32_t len, offset;
    if (!(col->validity.data[row / 8] >> (row % 8) & 1)) return NULL;
    const uint8_t *view = col->views.data + row * 16;
    memcpy(&len, view, 4), memcpy(&offset, view + 12, 4);
    *n = (size_t)len;
    return len <= 12 ? view + 4 : r->data.data + offset;
}

/* The batch's first row in its text column `column` is `expected` (NULL: a null). */
static void row_is(const un_batch *b, int column, const uint8_t *expected, size_t len) {
    un_result r;
    size_t n = 0;
    un_result_init(&r);
    if (un_run_batch(b, &r) != 0) abort();
    const uint8_t *got = text_at(&r, column, 0, &n);
    if ((got == NULL) != (expected == NULL) || (got && (n != len || (n && memcmp(got, expected, n) != 0)))) abort();
    un_result_free(&r);
}

/* A hierarchy's levels as the batch writes them (lane_row, or the full path) are the levels of
 * the record the parse gives with no scan: each a prefix of its href (hierarchy) or of its
 * path (path_hierarchy, but the root alone), none for an opaque path; a null list where the
 * parse fails or asks. */
static void levels_are(const un_batch *b, const uint8_t *p, size_t n) {
    un_result r;
    size_t at[UN_N_FIELDS], end, len = 0, k = 0;
    int32_t bounds[2];
    un_result_init(&r);
    if (un_run_batch(b, &r) != 0) abort();
    memcpy(bounds, r.list_offsets.data, sizeof bounds);
    int valid = r.list_validity.data[0] & 1, whole = b->url_part == UN_URL_PART_HIERARCHY;
    if (valid != (un_whatwg_parse_extent(&ctx, p, n, UN_EXTENT_WHOLE, &url) == UN_OK)) abort();
    if (valid && !un_opaque_path(&url)) {
        un_levels levels;
        out.len = 0;
        un_serialize_spans(&url, &out, at);
        un_levels_start(&levels, out.data + at[UN_FIELD_PATH], url.path.len, url.has_query, url.query.len);
        while (un_next_level(&levels, &end)) {
            size_t from = whole ? 0 : at[UN_FIELD_PATH], to = at[UN_FIELD_PATH] + end;
            if (!whole && end == 1 && out.data[at[UN_FIELD_PATH]] == '/') continue;
            const uint8_t *got = text_at(&r, 0, (int64_t)k++, &len);
            if (!got || len != to - from || memcmp(got, out.data + from, len) != 0) abort();
        }
    }
    if ((int64_t)k != (int64_t)bounds[1] - bounds[0]) abort();
    un_result_free(&r);
}

/* A row the kernel writes straight from its scan (lane_row) or through the full path is what
 * the parse gives with no scan at all: the profile's normalised URL (null where the parse
 * fails or asks, as a batch with no answerer leaves it), a split's one field (a piece of the
 * row, folded where the scan took it respelt), a text part of the record, and a hierarchy's
 * levels (levels_are). */
static void check_batch_rows(const uint8_t *p, size_t n, uint8_t selector) {
    int64_t offsets[3];
    uint8_t views[32];
    un_bytes data;
    un_column input = column_of(p, n, selector & 1, offsets, views, &data);
    const un_profile *prof = &profiles[selector % FUZZ_N_PROFILES];
    int part = selector % UN_N_URL_PARTS, status;
    ctx.recall = NULL;
    status = un_normalize(&ctx, prof, p, n, &url);
    out.len = 0;
    if (status == UN_OK) un_serialize(&url, &out);
    row_is(&(un_batch){.op = UN_OP_NORMALIZE, .profile = prof, .input = input, .quiet = 1}, 0, status == UN_OK ? out.data : NULL, out.len);
    int field = (selector >> 3) % UN_N_FIELDS;
    un_bytes f = {NULL, 0};
    status = un_whatwg_parse_extent(&ctx, p, n, UN_EXTENT_WHOLE, &url);
    int has = status == UN_OK && un_record_field(&url, field, &f);
    row_is(&(un_batch){.op = UN_OP_SPLIT, .extent = UN_EXTENT_WHOLE, .fields = 1u << field, .input = input}, field,
           has ? (f.p ? f.p : (const uint8_t *)"") : NULL, f.n);
    if (un_url_part_is_list(part)) return levels_are(&(un_batch){.op = UN_OP_URL_PART, .url_part = part, .input = input}, p, n);
    out.len = 0;
    status = un_whatwg_parse_extent(&ctx, p, n, un_url_part_extent(part), &url);
    int present = status == UN_OK && un_url_part(&url, part, &out);
    row_is(&(un_batch){.op = UN_OP_URL_PART, .url_part = part, .input = input}, 0, present ? (out.data ? out.data : (const uint8_t *)"") : NULL, out.len);
}

/* Answers questions as Python would in shape: a host, or an error code for odd lengths. */
static int fuzz_answer(void *data, int kind, const uint8_t *question, size_t n, un_buf *out) {
    (void)data, (void)question;
    if (n % 2 && kind != UN_ASK_WWW) return UN_ERR_DOMAIN_TO_ASCII;
    un_buf_puts(out, kind == UN_ASK_WWW ? "example.com" : "xn--bcher-kva.example");
    return UN_OK;
}

/* The batch layer: every operation over the input as a column, answers included. */
static void batch(const uint8_t *p, size_t n, uint8_t selector) {
    static const uint8_t base_url[] = "http://example.com/a/b";
    int64_t offsets[3];
    uint8_t views[32];
    un_bytes data;
    un_column input = column_of(p, n, selector & 1, offsets, views, &data);
    int64_t base_offsets[3] = {0, sizeof base_url - 1, sizeof base_url - 1};
    un_bytes base_data = {base_url, sizeof base_url - 1};
    un_column bases = {UN_OFFSETS64, 2, 0, NULL, 0, (const uint8_t *)base_offsets, sizeof base_offsets, 1, &base_data};
    /* The process's two lists, a profile's own, and a table never loaded. */
    static const int psl_tables[4] = {UN_PSL_ALL, UN_PSL_ICANN, FUZZ_OWN_TABLE, UN_PSL_TABLES - 1};
    un_batch b = {.op = (un_op)((selector >> 1) % UN_N_OPS), .psl_table = psl_tables[(selector >> 6) & 3],
                  .query_mode = selector % UN_N_QUERY_MODES, .component_mode = selector % UN_N_COMPONENT_MODES, .url_part = selector % UN_N_URL_PARTS, .host_column = selector % UN_N_HOST_COLUMNS,
                  .params = {.names = "\001q\003utm", .names_len = 6, .prefixes = "", .prefixes_len = 0}, .keep = selector & 4, .name = (const uint8_t *)"q", .name_len = 1, .generic = selector & 2, .extent = (selector >> 5) % UN_N_EXTENTS, .fields = (unsigned)(selector * 37u) & 0x7Fu, .check_utf8 = selector & 64, .encode_invalid_utf8 = selector & 4,
                  .profile = &profiles[selector % FUZZ_N_PROFILES], .join_mode = (selector >> 3) % 3,
                  .with_scheme = selector & 8, .trailing_comma = selector & 16, .input = input, .filters = FUZZ_FILTERS,
                  .outputs = (unsigned)(selector >> 2 ^ selector << 3) & ((1u << UN_N_OUTPUTS) - 1)};
    if (b.op == UN_OP_JOIN || ((b.op == UN_OP_REFERRER || b.op == UN_OP_VISIT) && selector & 8)) b.base = &bases;
    b.referrers = &bundled_referrers;
    b.campaign = campaign_names;
    b.quiet = (selector & 128) && !(selector & 2); /* projected exports name status and error */
    if (selector & 32 && b.op != UN_OP_JOIN) b.answer = fuzz_answer;
    /* One input in eight runs as two one-row slices on two threads (threads.c): starting
     * threads costs more than the rows, so the others stay on one. */
    static const int64_t starts[3] = {0, 1, 2};
    un_result r[2];
    un_result_init(&r[0]), un_result_init(&r[1]);
    int failed = n % 8 == 1 ? un_run_slices(&b, starts, 2, 2, r) : un_run_batch(&b, &r[0]);
    int slices = n % 8 == 1 ? 2 : 1;
    /* One run in two hands its slices over as one stream (the binding's stream()). */
    int as_stream = n % 16 >= 8;
    if (!failed && as_stream) stream_and_release(&b, r, slices, 3 - slices, selector & 4);
    for (int i = 0; !failed && !as_stream && i < slices; i++) export_and_release(&b, &r[i], 3 - slices, selector & 2);
    un_result_free(&r[0]), un_result_free(&r[1]);
    if (n % 4 == 2) check_lent(&b, &data);
    check_lent_operations(p, n, selector);
    check_batch_rows(p, n, selector);
}

/* Tables cut from the input (as Python would never hand them over) build or are refused,
 * and a built one classifies the input as a referrer, its own page. */
static void check_referrer_tables(const uint8_t *p, size_t n, uint8_t selector) {
    size_t a = n / 4, b = n / 2, c = 3 * n / 4;
    un_referrer_tables t = {p, p + a, p + b, p + c, p + c, a, b - a, c - b, n - c, n - c, selector % 3};
    un_referrers r;
    int built = un_referrers_build(&r, &t);
    if (built && un_whatwg_parse(&ctx, p, n, NULL, &url) == UN_OK) {
        un_referral found;
        un_buf term = {0};
        const un_bytes page = {url.host.data, url.host.len};
        const un_referrer_parts parts = un_referrer_parts_of(&url);
        if (un_referral_of(&ctx, &r, &parts, &page, &found) == UN_OK) (void)un_referral_term(&ctx, &r, &url, p, n, &found, &term);
        un_buf_free(&term);
    }
    un_referrers_free(&r);
    un_campaign_names names = {.names = p, .networks = p + b, .names_len = b, .networks_len = n - b};
    (void)un_campaign_index(&names);
}

/* ---- Polars' plugin entry points (plugin.c) --------------------------------------------------- */

static int run_on_threads(const un_call *c, un_batch *batches, int n_batches, const un_slice *slices, int n, un_result *r,
                          char *why, size_t len) {
    (void)why, (void)len;
    return un_run_slice_table(batches, n_batches, slices, n, c->threads, r);
}

/* Normalise by a profile into its one text column (slices built in place and joined), or
 * into a struct of the text and error columns (the struct's slices joined, its text column
 * built in place); on four threads, slices of a byte or more, so that a chunk of 24 rows is
 * several slices (of whole bytes of validity), in one chunk or two. Calls 2 and 3 are calls 0
 * and 1 in one slice, the answers those must give. */
static un_call calls[4];
static const uint8_t call_keys[4] = {0, 1, 2, 3};

static void register_calls(void) {
    for (int i = 0; i < 4; i++) {
        int text = i % 2 == 0;
        calls[i] = (un_call){.key = &call_keys[i], .key_len = 1, .batch = {.op = UN_OP_NORMALIZE, .profile = &profiles[i % 2 % FUZZ_N_PROFILES]},
                             .columns = text ? "text" : "text\0error", .columns_len = text ? 4 : 10, .single = text, .utf8 = UN_UTF8_ERROR,
                             .threads = i >= 2 ? 1 : 4, .min_slice_bytes = 1, .max_slice_bytes = 1 << 29, .run = run_on_threads};
        if (un_call_register(&calls[i]) != i) abort();
    }
}

/* Whether two text columns hold the same rows. */
static int same_text(const struct ArrowSchema *s, const struct ArrowArray *a, const struct ArrowArray *b) {
    static un_bytes data[2][UN_MAX_DATA_BUFFERS];
    un_column x, y;
    int text;
    if (un_column_import(s, a, data[0], &x, &text) != UN_IMPORTED) return 0;
    if (un_column_import(s, b, data[1], &y, &text) != UN_IMPORTED || x.length != y.length) return 0;
    for (int64_t row = 0; row < x.length; row++) {
        const uint8_t *p, *q;
        size_t n, m;
        un_row i = un_column_get(&x, row, &p, &n), j = un_column_get(&y, row, &q, &m);
        if (i != j || (i == UN_ROW_VALUE && (n != m || (n && memcmp(p, q, n) != 0)))) return 0;
    }
    return 1;
}

/* Whether two calls' outputs hold the same rows, chunk for chunk: a struct's, column for
 * column (its columns are text). */
static int same_rows(const series_export *a, const series_export *b) {
    if (a->len != b->len) return 0;
    for (size_t k = 0; k < a->len; k++) {
        const struct ArrowArray *x = a->arrays[k], *y = b->arrays[k];
        if (strcmp(a->field->format, "+s") != 0) {
            if (!same_text(a->field, x, y)) return 0;
            continue;
        }
        if (x->length != y->length || x->n_children != a->field->n_children || y->n_children != x->n_children) return 0;
        for (int64_t c = 0; c < x->n_children; c++)
            if (!same_text(a->field->children[c], x->children[c], y->children[c])) return 0;
    }
    return 1;
}

static void release_output(series_export *out) {
    for (size_t i = 0; out->private_data && i < out->len; i++) out->arrays[i]->release(out->arrays[i]);
    if (out->release) out->release(out);
}

/* Up to 24 rows keyed by the input's first bytes (int8 keys, some out of range or negative)
 * into a dictionary of the input and an empty row: a Categorical as Polars hands it over,
 * or with selector bit 1 those two rows twelve times over; in one chunk or two. Each
 * call's slices must give what one slice gives. */
static void plugin_call(const uint8_t *p, size_t n, uint8_t selector) {
    int64_t offsets[3];
    uint8_t views[24 * 16], validity[3] = {(uint8_t)(selector | 1), (uint8_t)~selector, (uint8_t)(selector >> 1)};
    int64_t size = (int64_t)n;
    (void)column_of(p, n, 1, offsets, views, &(un_bytes){0});
    for (int i = 1; i < 12; i++) memcpy(views + 32 * i, views, 32);
    const void *value_buffers[4] = {NULL, views, p, &size}, *key_buffers[2] = {validity, p};
    struct ArrowSchema values_schema = {.format = "vz", .release = no_release}, schema = {.format = "vz", .release = no_release};
    struct ArrowArray values = {.length = 2, .n_buffers = 4, .buffers = value_buffers, .release = no_release_array};
    struct ArrowArray keys = {.length = n < 24 ? (int64_t)n : 24, .null_count = -1, .n_buffers = 2, .buffers = key_buffers,
                              .dictionary = &values, .release = no_release_array};
    struct ArrowArray rows = values;
    rows.length = 24;
    struct ArrowArray chunks[2] = {selector & 2 ? rows : keys, selector & 2 ? rows : keys};
    struct ArrowArray *pointers[2] = {&chunks[0], &chunks[1]};
    if (!(selector & 2)) schema.format = "c", schema.dictionary = &values_schema;
    series_export in = {.field = &schema, .arrays = pointers, .len = 1 + (selector >> 2 & 1)}, out = {0};
    _polars_plugin_call(&in, 1, &call_keys[selector >> 3 & 1], 1, &out, NULL);
    struct ArrowSchema field = {0};
    _polars_plugin_field_call(&schema, 1, &field, &call_keys[selector >> 3 & 1], 1);
    if (field.release) field.release(&field);
    if (!out.private_data && !_polars_plugin_get_last_error_message()[0]) abort();
    for (size_t i = 0; out.private_data && i < out.len; i++) read_back(out.field, out.arrays[i]);
    {
        series_export one = {0};
        chunks[0] = chunks[1] = selector & 2 ? rows : keys; /* the call before took them */
        _polars_plugin_call(&in, 1, &call_keys[2 + (selector >> 3 & 1)], 1, &one, NULL);
        if (!out.private_data != !one.private_data || (out.private_data && !same_rows(&out, &one))) abort();
        release_output(&one);
    }
    release_output(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready;
    if (!ready) {
        un_set_tables(&FUZZ_TABLES);
        un_whatwg_init();
        un_normal_form_init();
        un_psl_set(UN_PSL_ALL, FUZZ_PSL, sizeof FUZZ_PSL - 1, FUZZ_PSL_LABELS);
        un_psl_set(UN_PSL_ICANN, FUZZ_PSL_ICANN, sizeof FUZZ_PSL_ICANN - 1, FUZZ_PSL_ICANN_LABELS);
        un_psl_set(FUZZ_OWN_TABLE, FUZZ_PSL_ICANN, sizeof FUZZ_PSL_ICANN - 1, FUZZ_PSL_ICANN_LABELS);
        for (int i = 0; i < FUZZ_N_PROFILES; i++) {
            profiles[i] = FUZZ_PROFILES[i];
            un_profile_index(&profiles[i]);
        }
        register_calls();
        if (!un_referrers_build(&bundled_referrers, &FUZZ_REFERRERS)) abort();
        campaign_names = FUZZ_CAMPAIGN;
        if (!un_campaign_index(&campaign_names)) abort();
        ready = 1;
    }
    if (size < 1) return 0;
    ctx.recall = NULL;
    uint8_t selector = data[0];
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    if (un_whatwg_parse(&ctx, p, n, NULL, &url) == UN_OK) check_href(&url);
    if (un_split_generic(p, n, &url) == UN_OK) check_href(&url);
    check_parse_escapes(p, n);
    check_extents(p, n);
    const un_profile *prof = &profiles[selector % FUZZ_N_PROFILES];
    normalize_with_answers(prof, p, n);
    check_normal_form(p, n, prof);
    check_answered_host(p, n, prof);
    check_scan_kinds(p, n, prof);
    check_run_kinds(p, n);
    check_parse_after(p, n, prof);
    check_components_as_is(p, n);
    check_dot_segments(p, n);
    check_dotted_parts(p, n);
    check_gathering(p, n);
    check_domain_parts(p, n);
    const uint8_t *nl = memchr(p, '\n', n);
    size_t cut = nl ? (size_t)(nl - p) : n / 2;
    size_t rest = nl ? n - cut - 1 : n - cut;
    if (un_join(&ctx, (selector >> 4) % 3, p, cut, p + n - rest, rest, &base, &url) == UN_OK) check_href(&url);
    batch(p, n, selector);
    check_referrer_tables(p, n, selector);
    plugin_call(p, n, selector);
    return 0;
}
