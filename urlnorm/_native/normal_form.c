/* URLs already in a profile's normal form (core/normal_form.py): one scan that checks a URL
 * and finds its parts, so that it is handed back as it is, and its parts as slices of it,
 * without a parse. The scan accepts only what it can prove the parse and the profile's rules
 * leave as it is; anything else takes the full path. */
#include <string.h>

#include "urlnorm.h"

const char *const UN_NF_NAMES[UN_N_NF] = {
    [UN_NF_ESCAPES] = "escapes", [UN_NF_NO_QUERY] = "no_query", [UN_NF_NO_FRAGMENT] = "no_fragment",
    [UN_NF_NO_WWW] = "no_www", [UN_NF_NO_PATH_PARAMETERS] = "no_path_parameters",
    [UN_NF_NOT_HTTPS] = "not_https", [UN_NF_NO_TRAILING_SLASH] = "no_trailing_slash",
};

/* The bytes each part takes as they are, derived from the URL Standard's encode sets
 * (un_t, filled from urlnorm.core): printable ASCII outside the part's set, less the
 * delimiters the scan stops at. A host takes lower-case unreserved bytes (RFC 3986 §2.3):
 * no case to fold, nothing to decode, no forbidden domain code point (URL Standard §3.2). */
enum { NF_HOST = 1, NF_PATH = 2, NF_QUERY = 4, NF_FRAGMENT = 8 };
static uint8_t nf[256];

static int printable(int b) { return b > 0x20 && b < 0x7F; }

void un_normal_form_init(void) {
    for (int b = 0; b < 256; b++) {
        uint8_t c = (uint8_t)b, flags = 0;
        if (un_is(c, UN_UNRESERVED) && !(b >= 'A' && b <= 'Z')) flags |= NF_HOST;
        if (printable(b) && !un_is(c, UN_PATH) && !strchr("/\\%", b)) flags |= NF_PATH;
        if (printable(b) && !un_is(c, UN_SPECIAL_QUERY) && b != '%' && b != '#') flags |= NF_QUERY;
        if (printable(b) && !un_is(c, UN_FRAGMENT) && b != '%') flags |= NF_FRAGMENT;
        nf[b] = flags;
    }
}

/* The length of a special scheme, written in lower case, before "://"; 0 otherwise. */
static size_t scheme_len(const uint8_t *p, size_t n, int *special) {
    size_t i = 0;
    while (i < n && i < UN_SCHEME_LEN && p[i] != ':') i++;
    if (i + 3 > n || p[i] != ':' || p[i + 1] != '/' || p[i + 2] != '/') return 0;
    *special = un_special_index(p, i);
    return *special >= 0 ? i : 0;
}

/* The end of a domain host starting at p[i]: lower-case unreserved bytes, not ending in '.',
 * whose last label starts with a letter, so that it cannot end in a number (URL Standard
 * §3.5: such a host parses as IPv4). i if there is none, or if it is empty. */
static size_t host_end(const uint8_t *p, size_t n, size_t i) {
    size_t j = i, last = i;
    for (; j < n && nf[p[j]] & NF_HOST; j++)
        if (p[j] == '.') last = j + 1;
    if (j == i || last == j || p[last] < 'a' || p[last] > 'z') return i;
    return j;
}

/* A port as its serialisation writes it: digits without a leading zero, in range, not the
 * scheme's default (URL Standard §4.4 port state). Its value, and *end past it; -1 if not. */
static int32_t port_at(const uint8_t *p, size_t n, size_t *end, int special) {
    size_t i = *end;
    int32_t value = 0;
    if (i >= n || p[i] < '1' || p[i] > '9') return -1;
    for (; i < n && i - *end < 6 && p[i] >= '0' && p[i] <= '9'; i++) value = value * 10 + (p[i] - '0');
    if (value > 65535 || value == un_t.default_port[special]) return -1;
    *end = i;
    return value;
}

/* How far the '%' at p[i] takes the scan (three bytes for an escape, one for a stray '%'
 * that the parser keeps), or 0 where the scan cannot tell the answer unchanged: an escape
 * the percent rules would change (lower-case hex, an unreserved byte, RFC 3986 §6.2.2), a
 * stray '%' the rules would join to what follows, or in a path an escaped '.' that may
 * spell a dot segment (URL Standard §4.4 path state). */
static size_t escape_len(const uint8_t *p, size_t n, size_t i, unsigned req, int path) {
    int byte = un_escaped_byte(p, n, i);
    if (byte < 0) return req & 1u << UN_NF_ESCAPES ? 0 : 1;
    if (path && byte == '.') return 0;
    if (!(req & 1u << UN_NF_ESCAPES)) return 3;
    int lower = (p[i + 1] >= 'a' && p[i + 1] <= 'f') || (p[i + 2] >= 'a' && p[i + 2] <= 'f');
    return lower || un_is((uint8_t)byte, UN_UNRESERVED) ? 0 : 3;
}

/* Whether a dot segment ("." or "..") follows the '/' at p[i]: the parser removes it. */
static int dot_segment_after(const uint8_t *p, size_t n, size_t i) {
    if (i + 1 >= n || p[i + 1] != '.') return 0;
    size_t end = i + 2 + (i + 2 < n && p[i + 2] == '.');
    return end == n || p[end] == '/' || p[end] == '?' || p[end] == '#';
}

/* The end of a part from p[i] on: the bytes flag marks, checked escapes and, in a path,
 * slashes before segments that are not dot segments, up to the part's end ('?' or '#' for a
 * path, '#' for a query, the input's end); 0 at a byte the parse or the rules would change. */
static size_t part_end(const uint8_t *p, size_t n, size_t i, unsigned req, uint8_t flag) {
    while (i < n) {
        uint8_t c = p[i];
        size_t step = nf[c] & flag;
        if (step) {
            i++;
            continue;
        }
        if (c == '%') step = escape_len(p, n, i, req, flag == NF_PATH);
        else if (c == '/' && flag == NF_PATH) step = !dot_segment_after(p, n, i);
        else if ((c == '#' && flag != NF_FRAGMENT) || (c == '?' && flag == NF_PATH)) break;
        if (!step) return 0;
        i += step;
    }
    return i;
}

/* The crawl rules' requirements on the parts found (core crawl.py): what each rule would
 * change is absent. */
static int meets_crawl_rules(const uint8_t *p, const un_spans *s, unsigned req) {
    const uint8_t *host = p + s->host_start, *path = p + s->path_start;
    if (req & 1u << UN_NF_NO_QUERY && s->has_query) return 0;
    if (req & 1u << UN_NF_NO_FRAGMENT && s->has_fragment) return 0;
    if (req & 1u << UN_NF_NO_WWW && s->host_len >= 3 && memcmp(host, "www", 3) == 0) return 0;
    if (req & 1u << UN_NF_NOT_HTTPS && s->scheme_len == 5 && memcmp(p, "https", 5) == 0) return 0;
    if (req & 1u << UN_NF_NO_TRAILING_SLASH && s->path_len > 1 && path[s->path_len - 1] == '/') return 0;
    if (req & 1u << UN_NF_NO_PATH_PARAMETERS && (memchr(path, ';', s->path_len) || memchr(path, '(', s->path_len))) return 0;
    return 1;
}

/* The query and fragment after the path's end at p[i], into s; 0 if either would change. */
static int query_and_fragment(const uint8_t *p, size_t n, size_t i, unsigned req, un_spans *s) {
    s->has_query = i < n && p[i] == '?';
    s->query_start = i + s->has_query;
    size_t end = s->has_query ? part_end(p, n, s->query_start, req, NF_QUERY) : i;
    if (end == 0) return 0;
    s->query_len = end - s->query_start;
    s->has_fragment = end < n;
    s->fragment_start = end + 1;
    if (s->has_fragment && part_end(p, n, s->fragment_start, req, NF_FRAGMENT) != n) return 0;
    s->fragment_len = s->has_fragment ? n - s->fragment_start : 0;
    return 1;
}

/* A file URL's host and path as the parser leaves them (URL Standard §4.4 file host and path
 * states): not "localhost" (which becomes empty), and a path whose first segment does not
 * start as a Windows drive letter does (which moves into the path, or has its '|' replaced). */
static int file_as_is(const uint8_t *p, size_t n, const un_spans *s) {
    size_t at = s->path_start;
    if (s->host_len == 9 && memcmp(p + s->host_start, "localhost", 9) == 0) return 0;
    return at + 2 >= n || (p[at + 2] != ':' && p[at + 2] != '|');
}

int un_normal_form(const uint8_t *p, size_t n, unsigned req, un_spans *s) {
    if (req & 1u << UN_NF_NEVER) return 0;
    size_t at = scheme_len(p, n, &s->special);
    if (at == 0) return 0;
    int file = un_t.default_port[s->special] < 0;
    s->scheme_len = at;
    s->host_start = at + 3;
    at = host_end(p, n, s->host_start);
    if ((at == s->host_start && !file) || at == n) return 0;
    s->host_len = at - s->host_start;
    s->port = -1;
    if (p[at] == ':' && (file || (at++, s->port = port_at(p, n, &at, s->special)) < 0)) return 0;
    if (at == n || p[at] != '/') return 0;
    s->path_start = at;
    if (file && !file_as_is(p, n, s)) return 0;
    at = part_end(p, n, at, req, NF_PATH);
    if (at == 0) return 0;
    s->path_len = at - s->path_start;
    return query_and_fragment(p, n, at, req, s) && meets_crawl_rules(p, s, req);
}

static void set_field(un_buf *field, const uint8_t *p, size_t n) { un_buf_set(field, p, n); }

void un_url_from_spans(const uint8_t *p, const un_spans *s, int extent, un_url *u) {
    un_url_reset(u);
    set_field(&u->scheme, p, s->scheme_len);
    set_field(&u->host, p + s->host_start, s->host_len);
    u->has_scheme = u->has_host = 1;
    u->special = s->special;
    u->port = s->port;
    if (extent == UN_EXTENT_WHOLE || extent == UN_EXTENT_NO_QUERY) set_field(&u->path, p + s->path_start, s->path_len);
    if (extent != UN_EXTENT_WHOLE && extent != UN_EXTENT_NO_PATH) return;
    if ((u->has_query = s->has_query)) set_field(&u->query, p + s->query_start, s->query_len);
    if ((u->has_fragment = s->has_fragment)) set_field(&u->fragment, p + s->fragment_start, s->fragment_len);
}
