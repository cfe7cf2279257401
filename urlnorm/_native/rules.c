/* Normalisation rules (core/rules.py), each on the record, citing its section. */
#include <string.h>

#include "urlnorm.h"

/* The rules' names, the core's (core/rules.py RULES): the binding exports them as RULE_NAMES. */
const char *const UN_RULE_NAMES[UN_N_RULES] = {
    [UN_RULE_STRIP_WHITESPACE] = "strip_whitespace",
    [UN_RULE_LOWERCASE_SCHEME] = "lowercase_scheme",
    [UN_RULE_UPPERCASE_PERCENT_HEX] = "uppercase_percent_hex",
    [UN_RULE_DECODE_UNRESERVED] = "decode_unreserved",
    [UN_RULE_LOWERCASE_HOST] = "lowercase_host",
    [UN_RULE_IDN_HOST_TO_ASCII] = "idn_host_to_ascii",
    [UN_RULE_IPV6_RFC5952] = "ipv6_rfc5952",
    [UN_RULE_REMOVE_DOT_SEGMENTS] = "remove_dot_segments",
    [UN_RULE_DROP_DEFAULT_PORT] = "drop_default_port",
    [UN_RULE_DROP_EMPTY_USERINFO] = "drop_empty_userinfo",
    [UN_RULE_EMPTY_PATH_TO_SLASH] = "empty_path_to_slash",
    [UN_RULE_FILE_LOCALHOST] = "file_localhost",
    [UN_RULE_DROP_FRAGMENT] = "drop_fragment",
    [UN_RULE_DROP_PATH_SESSION_ID] = "drop_path_session_id",
    [UN_RULE_DROP_PARAMETERS] = "drop_parameters",
    [UN_RULE_CLEAN_QUERY] = "clean_query",
    [UN_RULE_SORT_QUERY] = "sort_query",
    [UN_RULE_STRIP_WWW] = "strip_www",
    [UN_RULE_FOLD_HTTPS] = "fold_https",
    [UN_RULE_DROP_TRAILING_SLASH] = "drop_trailing_slash",
    [UN_RULE_DROP_TRAILING_DOT] = "drop_trailing_dot",
    [UN_RULE_DROP_FRAGMENT_EXCEPT_HASHBANG] = "drop_fragment_except_hashbang",
    [UN_RULE_DROP_SESSION_HASH_PARAMETERS] = "drop_session_hash_parameters",
    [UN_RULE_DROP_DUPLICATE_PARAMETERS] = "drop_duplicate_parameters",
    [UN_RULE_UNWRAP_REDIRECTS] = "unwrap_redirects",
    [UN_RULE_SITE_PARAMETERS] = "site_parameters",
    [UN_RULE_HOST_RULES] = "host_rules",
};

typedef void (*text_fn)(un_buf *out, const uint8_t *p, size_t n);

static int lower_eq(const un_buf *b, const char *s) {
    size_t n = strlen(s);
    return b->len == n && un_ascii_ieq(b->data, s, n);
}

/* The default port of a scheme, compared case-insensitively (RFC 3986 §6.2.3); -1 if none. */
static int default_port(const un_url *u) {
    for (int i = 0; u->has_scheme && i < un_t.n_special; i++) {
        if (lower_eq(&u->scheme, un_t.special[i])) return un_t.default_port[i];
    }
    return -1;
}

static void replace_field(un_ctx *c, un_buf *field, text_fn fn) {
    un_buf *tmp = &c->scratch;
    tmp->len = 0;
    fn(tmp, field->data, field->len);
    un_buf swap = *field;
    *field = *tmp;
    *tmp = swap;
}

typedef size_t (*escape_fn)(uint8_t *p, size_t n);

static size_t uppercase_escapes(uint8_t *p, size_t n) {
    un_uppercase_escapes(p, n);
    return n;
}

/* A percent rule, in place, on one text component if it is present and has a '%'. */
static void map_field(un_buf *field, int present, escape_fn fn) {
    if (present && field->len && memchr(field->data, '%', field->len)) field->len = fn(field->data, field->len);
}

/* map_field on the first n_fields text components (core _map_text_fields), in the order
 * username, password, host, path, query, fragment. */
static void map_fields(un_url *u, escape_fn fn, size_t n_fields) {
    un_buf *fields[] = {&u->username, &u->password, &u->host, &u->path, &u->query, &u->fragment};
    int present[] = {u->has_username, u->has_password, u->has_host, 1, u->has_query, u->has_fragment};
    for (size_t i = 0; i < n_fields; i++) map_field(fields[i], present[i], fn);
}

/* A percent rule on every text component. The parser writes only upper-case escapes of bytes
 * that are not unreserved, which both percent rules leave alone, so an input without '%'
 * needs no look at its fields. */
static void map_text_fields(un_ctx *c, un_url *u, escape_fn fn) {
    if (c->has_percent) map_fields(u, fn, 6);
}

static int is_ascii(const un_buf *b) { return un_ascii_prefix(b->data, b->len) == b->len; }

/* Lower-case outside escapes (RFC 3986 §6.2.2.1): an escape's hex digits stay as they are. */
static void lowercase_host(un_url *u) {
    uint8_t *p = u->host.data;
    size_t n = u->host.len;
    /* Nearly every host has no escape: then one loop the compiler vectorises folds it. */
    if (!memchr(p, '%', n)) {
        un_lower_ascii(p, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (un_escape_at(p, n, i) >= 0) i += 2;
        else p[i] = un_ascii_lower(p[i]);
    }
}

/* lowercase_host and idn_host_to_ascii on a non-ASCII host take Python's answer (str.lower,
 * UTS #46), given once for the host; the second of the two rules then leaves it alone. */
static int host_rule(un_ctx *c, un_url *u, int rule) {
    int reg_name = u->has_host && u->host.len && u->host.data[0] != '[';
    if (!reg_name) return UN_OK;
    if (is_ascii(&u->host)) {
        if (rule == UN_RULE_LOWERCASE_HOST) lowercase_host(u);
        return UN_OK;
    }
    if (c->host_answered) return UN_OK;
    un_answer a;
    int status = un_recall(c, UN_ASK_HOST_RULES, u->host.data, u->host.len, &a);
    if (status) return status;
    un_buf_set(&u->host, a.text, a.len);
    c->host_answered = 1;
    return UN_OK;
}

/* RFC 5952 §4 text form of an IPv6 literal; a zone id (RFC 6874) is kept. */
static int ipv6_rfc5952(un_ctx *c, un_url *u) {
    const un_buf *h = &u->host;
    if (!u->has_host || h->len < 2 || h->data[0] != '[' || (h->data[1] | 0x20) == 'v') return UN_OK;
    size_t end = h->len - 1, zone = 1;
    while (zone + 3 <= end && memcmp(h->data + zone, "%25", 3) != 0) zone++;
    if (zone + 3 > end) zone = end;
    uint16_t pieces[8];
    if (!un_parse_ipv6(h->data + 1, zone - 1, pieces)) return UN_ERR_IPV6_INVALID;
    un_buf *tmp = &c->scratch;
    tmp->len = 0;
    un_buf_putc(tmp, '[');
    un_serialize_ipv6(pieces, tmp);
    un_buf_put(tmp, h->data + zone, h->len - zone);
    un_buf_set(&u->host, tmp->data, tmp->len);
    return UN_OK;
}

static void remove_dot_segments(un_ctx *c, un_url *u) {
    if (u->path.len == 0 || u->path.data[0] != '/' || !un_has_dot_segment(u->path.data, u->path.len)) return;
    replace_field(c, &u->path, un_remove_dot_segments);
}

static void drop_empty_userinfo(un_url *u) {
    u->has_password = u->has_password && u->password.len > 0;
    u->has_username = (u->has_username && u->username.len > 0) || u->has_password;
}

static void empty_path_to_slash(un_url *u) {
    if (u->path.len == 0 && u->has_host && default_port(u) >= 0) un_buf_putc(&u->path, '/');
}

static void file_localhost(un_url *u) {
    if (lower_eq(&u->scheme, "file") && u->has_host && lower_eq(&u->host, "localhost")) u->host.len = 0;
}

void un_drop_default_port(un_url *u) {
    if (u->port >= 0 && default_port(u) == u->port) u->port = -1;
}

/* A rule of core/rules.py by its id; another module's rule is left to profiles.c. */
int un_apply_standard_rule(un_ctx *c, un_rule_id id, un_url *u) {
    switch (id) {
    case UN_RULE_LOWERCASE_SCHEME: un_lower_ascii(u->scheme.data, u->scheme.len); return UN_OK;
    case UN_RULE_UPPERCASE_PERCENT_HEX: map_text_fields(c, u, uppercase_escapes); return UN_OK;
    case UN_RULE_DECODE_UNRESERVED: map_text_fields(c, u, un_decode_unreserved); return UN_OK;
    case UN_RULE_LOWERCASE_HOST: return host_rule(c, u, UN_RULE_LOWERCASE_HOST);
    case UN_RULE_IDN_HOST_TO_ASCII: return host_rule(c, u, UN_RULE_IDN_HOST_TO_ASCII);
    case UN_RULE_IPV6_RFC5952: return ipv6_rfc5952(c, u);
    case UN_RULE_REMOVE_DOT_SEGMENTS: remove_dot_segments(c, u); return UN_OK;
    case UN_RULE_DROP_DEFAULT_PORT: un_drop_default_port(u); return UN_OK;
    case UN_RULE_DROP_EMPTY_USERINFO: drop_empty_userinfo(u); return UN_OK;
    case UN_RULE_EMPTY_PATH_TO_SLASH: empty_path_to_slash(u); return UN_OK;
    case UN_RULE_FILE_LOCALHOST: file_localhost(u); return UN_OK;
    default: return UN_OK;
    }
}

/* uppercase_percent_hex then decode_unreserved, in one pass over the escapes. */
void un_apply_percent_rules(un_ctx *c, un_url *u) { map_text_fields(c, u, un_normalize_escapes); }

void un_apply_percent_rules_to_record(un_url *u) { map_fields(u, un_normalize_escapes, 6); }

/* A special URL's host has no escape: the host parser decoded them, and '%' is forbidden. */
void un_apply_percent_rules_to_authority(un_url *u) {
    map_field(&u->username, u->has_username, un_normalize_escapes);
    map_field(&u->password, u->has_password, un_normalize_escapes);
    if (u->special < 0) map_field(&u->host, u->has_host, un_normalize_escapes);
}
