/* Parts of a URL's serialisation, and the URL cut short (core/url_parts.py).
 *
 * Every part is a span of the href (URL Standard §4.5) or two spans joined, found from where
 * un_serialize_spans put each field: nothing is parsed or serialised again. The levels of a
 * hierarchy are prefixes of the href, so the kernel hands them out as views of one
 * serialisation. */
#include <stddef.h>
#include <string.h>

#include "urlnorm.h"

const char *const UN_URL_PART_NAMES[UN_N_URL_PARTS] = {
    [UN_URL_PART_NETLOC] = "netloc",
    [UN_URL_PART_PATH_FULL] = "path_full",
    [UN_URL_PART_QUERY_AND_FRAGMENT] = "query_and_fragment",
    [UN_URL_PART_CUT_QUERY] = "cut_query",
    [UN_URL_PART_CUT_FRAGMENT] = "cut_fragment",
    [UN_URL_PART_CUT_QUERY_AND_FRAGMENT] = "cut_query_and_fragment",
    [UN_URL_PART_DOMAIN_WITHOUT_WWW] = "domain_without_www",
    [UN_URL_PART_CUT_WWW] = "cut_www",
    [UN_URL_PART_HIERARCHY] = "hierarchy",
    [UN_URL_PART_PATH_HIERARCHY] = "path_hierarchy",
};

static const char WWW[] = "www.";
#define WWW_LEN (sizeof WWW - 1)

int un_url_part_is_list(int part) { return part == UN_URL_PART_HIERARCHY || part == UN_URL_PART_PATH_HIERARCHY; }

int un_url_part_extent(int part) {
    if (part == UN_URL_PART_NETLOC || part == UN_URL_PART_DOMAIN_WITHOUT_WWW) return UN_EXTENT_AUTHORITY;
    if (part == UN_URL_PART_CUT_QUERY_AND_FRAGMENT) return UN_EXTENT_NO_QUERY;
    return part == UN_URL_PART_QUERY_AND_FRAGMENT ? UN_EXTENT_NO_PATH : UN_EXTENT_WHOLE;
}

/* Whether the host begins with a "www." label and has more after it (core _without_www). */
static int has_www(const uint8_t *host, size_t len) { return len > WWW_LEN && memcmp(host, WWW, WWW_LEN) == 0; }
static int host_has_www(const un_url *u) { return u->has_host && has_www(u->host.data, u->host.len); }

/* Where the href just written at out[start, end) has each piece: its '?' (or where it would
 * be) and its '#' (or its end). */
typedef struct {
    size_t start, authority_end, path, query_mark, fragment_mark, end;
} href_spans;

static href_spans spans_of(const un_url *u, const size_t at[UN_N_FIELDS], size_t start, size_t end) {
    href_spans h = {.start = start, .authority_end = at[UN_FIELD_PATH], .path = at[UN_FIELD_PATH], .end = end};
    h.fragment_mark = u->has_fragment ? at[UN_FIELD_FRAGMENT] - 1 : end;
    h.query_mark = u->has_query ? at[UN_FIELD_QUERY] - 1 : h.fragment_mark;
    return h;
}

/* out's bytes from start become [a, b) then [c, d) of themselves (each at or after start). */
static void keep_spans(un_buf *out, size_t start, size_t a, size_t b, size_t c, size_t d) {
    memmove(out->data + start, out->data + a, b - a);
    memmove(out->data + start + (b - a), out->data + c, d - c);
    out->len = start + (b - a) + (d - c);
}

/* The part's spans of the href; 0 where the part is null. */
static int cut(int has_host, size_t scheme_len, int part, const href_spans *h, un_buf *out) {
    size_t s = h->start, e = h->end, none = h->end;
    switch (part) {
    case UN_URL_PART_NETLOC:
        if (!has_host) return 0;
        keep_spans(out, s, s + scheme_len + 3, h->authority_end, none, none); /* after "scheme://" */
        return 1;
    case UN_URL_PART_PATH_FULL: keep_spans(out, s, h->path, e, none, none); return 1;
    case UN_URL_PART_CUT_QUERY: keep_spans(out, s, s, h->query_mark, h->fragment_mark, e); return 1;
    case UN_URL_PART_CUT_FRAGMENT: keep_spans(out, s, s, h->fragment_mark, none, none); return 1;
    case UN_URL_PART_CUT_QUERY_AND_FRAGMENT: keep_spans(out, s, s, h->query_mark, none, none); return 1;
    default: return 0;
    }
}

/* The href at out[start, ...) without its host's "www." at host, where it has one. */
static int cut_www(int www, size_t host, size_t start, un_buf *out) {
    if (www) keep_spans(out, start, start, host, host + WWW_LEN, out->len);
    return 1;
}

/* Read from the record, not a serialisation: its parse leaves the path out. */
static int query_and_fragment(const un_url *u, un_buf *out) {
    if (!u->has_query && !u->has_fragment) return 0;
    if (u->has_query) un_buf_put(out, u->query.data, u->query.len);
    if (u->has_fragment) {
        un_buf_putc(out, '#');
        un_buf_put(out, u->fragment.data, u->fragment.len);
    }
    return 1;
}

static int domain_without_www(const un_url *u, un_buf *out) {
    if (!u->has_host) return 0;
    /* An empty host has no memory to point into, so no offset is added to it. */
    if (host_has_www(u)) un_buf_put(out, u->host.data + WWW_LEN, u->host.len - WWW_LEN);
    else un_buf_put(out, u->host.data, u->host.len);
    return 1;
}

int un_url_part(const un_url *u, int part, un_buf *out) {
    if (part == UN_URL_PART_DOMAIN_WITHOUT_WWW) return domain_without_www(u, out);
    if (part == UN_URL_PART_QUERY_AND_FRAGMENT) return query_and_fragment(u, out);
    size_t at[UN_N_FIELDS], start = out->len;
    un_serialize_spans(u, out, at);
    if (out->failed) return 0;
    if (part == UN_URL_PART_CUT_WWW) return cut_www(host_has_www(u), at[UN_FIELD_HOST], start, out);
    href_spans h = spans_of(u, at, start, out->len);
    if (cut(u->has_host, u->scheme.len, part, &h, out)) return 1;
    out->len = start;
    return 0;
}

/* Where a piece at `at` of the input lies once its authority is written `shift` bytes longer. */
static size_t moved(size_t at, ptrdiff_t shift) { return (size_t)((ptrdiff_t)at + shift); }

ptrdiff_t un_put_href(const uint8_t *p, size_t n, const uint8_t *head, const un_spans *s, un_buf *out) {
    if (s->as_written) return un_buf_put(out, p, n), 0;
    size_t before = out->len;
    un_buf_put(out, head, s->host_start + s->host_len);
    if (s->port >= 0) un_buf_putc(out, ':'), un_buf_put_uint(out, (unsigned long)s->port);
    un_buf_put(out, p + s->authority_end, n - s->authority_end);
    return (ptrdiff_t)(out->len - before) - (ptrdiff_t)n;
}

/* Where the href's query ('?') would start, and its fragment ('#'): the end where there is none. */
static size_t fragment_mark(const un_spans *s, size_t n) { return s->has_fragment ? s->fragment_start - 1 : n; }
static size_t query_mark(const un_spans *s, size_t n) { return s->has_query ? s->query_start - 1 : fragment_mark(s, n); }

/* The href's pieces where un_put_href wrote the input p[0, n) at out[start, ...). */
static href_spans written_spans(const un_spans *s, size_t n, size_t start, ptrdiff_t shift) {
    return (href_spans){
        .start = start, .authority_end = moved(start + s->authority_end, shift), .path = moved(start + s->path_start, shift),
        .query_mark = moved(start + query_mark(s, n), shift), .fragment_mark = moved(start + fragment_mark(s, n), shift),
        .end = moved(start + n, shift),
    };
}

int un_url_part_cut(const uint8_t *p, size_t n, const uint8_t *head, const un_spans *s, int part, un_buf *out) {
    const uint8_t *host = head + s->host_start;
    int www = has_www(host, s->host_len);
    if (part == UN_URL_PART_DOMAIN_WITHOUT_WWW) return un_buf_put(out, host + www * WWW_LEN, s->host_len - www * WWW_LEN), 1;
    if (part == UN_URL_PART_QUERY_AND_FRAGMENT) return 0; /* one piece of the input wherever there is one */
    size_t start = out->len;
    /* The href up to its path's end, all the cut keeps, and all a scan to its extent found. */
    if (part == UN_URL_PART_CUT_QUERY_AND_FRAGMENT) return un_put_href(p, s->path_start + s->path_len, head, s, out), !out->failed;
    ptrdiff_t shift = un_put_href(p, n, head, s, out);
    if (out->failed) return 0;
    if (part == UN_URL_PART_CUT_WWW) return cut_www(www, start + s->host_start, start, out);
    href_spans h = written_spans(s, n, start, shift);
    if (cut(1, s->scheme_len, part, &h, out)) return 1;
    out->len = start;
    return 0;
}

int un_url_part_slice(const uint8_t *p, size_t n, const un_spans *s, int part, size_t *from, size_t *len) {
    size_t start = 0, end = n;
    int www = has_www(p + s->host_start, s->host_len);
    switch (part) {
    case UN_URL_PART_PATH_FULL: start = s->path_start; break;
    case UN_URL_PART_QUERY_AND_FRAGMENT:
        if (!s->has_query && !s->has_fragment) return 0;
        start = query_mark(s, n) + s->has_query; /* the query, then "#fragment" */
        break;
    case UN_URL_PART_NETLOC: start = s->host_start, end = s->authority_end; break;
    case UN_URL_PART_DOMAIN_WITHOUT_WWW:
        start = s->host_start + www * WWW_LEN, end = s->host_start + s->host_len;
        break;
    case UN_URL_PART_CUT_WWW:
        if (www) return 0;
        break;
    case UN_URL_PART_CUT_FRAGMENT: end = fragment_mark(s, n); break;
    case UN_URL_PART_CUT_QUERY_AND_FRAGMENT: end = s->path_start + s->path_len; break;
    case UN_URL_PART_CUT_QUERY:
        if (s->has_query && s->has_fragment) return 0; /* the fragment follows the query cut out */
        end = s->has_query ? query_mark(s, n) : n;
        break;
    default: return 0;
    }
    *from = start, *len = end - start;
    return part == UN_URL_PART_PATH_FULL || part == UN_URL_PART_QUERY_AND_FRAGMENT || s->as_written;
}

int un_opaque_path(const un_url *u) { return !u->has_host && !(u->path.len && u->path.data[0] == '/'); }

void un_levels_start(un_levels *l, const uint8_t *p, size_t n, int has_query, size_t query_len) {
    *l = (un_levels){.slashes = un_slashes_of(p, n), .query_len = query_len, .has_query = has_query};
}

/* The end of the next level (core _path_prefixes): after each run of '/' (a piece [^/]*\/+), at
 * the path's end if no '/' ends it, then with the query. Each piece's '/' is read from the
 * bits of the path's '/'s (path.c's un_next_slash): found a byte at a time, each level's end
 * was a branch taken wrong, a third of `path_hierarchy` on a clean row. */
int un_next_level(un_levels *l, size_t *end) {
    size_t i = l->at, n = l->slashes.n;
    if (i < n) {
        i = un_next_slash(&l->slashes, i);
        while (i < n && l->slashes.p[i] == '/') i++;
        return *end = l->at = i, 1;
    }
    if (i == n && l->has_query) {
        l->at = n + 1;
        *end = n + 1 + l->query_len;
        return 1;
    }
    return 0;
}
