/* A profile's run (core/profiles.py): its text rules, the parse in its mode, then its record
 * rules in order, each by its id in the module that mirrors the rule's core module. */
#include <string.h>

#include "urlnorm.h"

/* Whether rules i and i + 1 are the two percent rules, which one pass over the escapes
 * applies together (un_normalize_escapes): most profiles have them so. */
static int escape_pair(const un_profile *prof, int i) {
    return i + 1 < prof->n_rules && prof->rules[i].id == UN_RULE_UPPERCASE_PERCENT_HEX && prof->rules[i + 1].id == UN_RULE_DECODE_UNRESERVED;
}

/* The rule at i, by its id in the file that mirrors its core module, with the rules after it
 * that one pass applies together (the percent pair, a run of parameter filters); *applied of
 * them. */
static int apply_rules_at(un_ctx *c, const un_profile *prof, int i, un_url *u, int *applied) {
    const un_rule *r = &prof->rules[i];
    *applied = 1;
    if (escape_pair(prof, i)) {
        un_apply_percent_rules(c, u);
        *applied = 2;
        return UN_OK;
    }
    switch (r->id) {
    case UN_RULE_STRIP_WHITESPACE:
    case UN_RULE_UNWRAP_REDIRECTS: return UN_OK; /* text rules: applied before the parse */
    case UN_RULE_DROP_FRAGMENT: u->has_fragment = 0; return UN_OK;
    case UN_RULE_DROP_PATH_SESSION_ID: return un_drop_path_session_id(c, u);
    case UN_RULE_DROP_FRAGMENT_EXCEPT_HASHBANG: un_drop_fragment_except_hashbang(u); return UN_OK;
    case UN_RULE_DROP_PARAMETERS:
    case UN_RULE_CLEAN_QUERY:
    case UN_RULE_DROP_SESSION_HASH_PARAMETERS: return un_filter_query(c, u, r, prof->n_rules - i, applied);
    case UN_RULE_DROP_DUPLICATE_PARAMETERS: return un_drop_duplicate_parameters(c, u);
    case UN_RULE_SITE_PARAMETERS: return un_site_parameters(c, u, &r->params);
    case UN_RULE_SORT_QUERY: return un_sort_query(c, u);
    case UN_RULE_STRIP_WWW: return un_strip_www(c, u, &r->params);
    case UN_RULE_FOLD_HTTPS: un_fold_https(u); return UN_OK;
    case UN_RULE_DROP_TRAILING_SLASH: un_drop_trailing_slash(u); return UN_OK;
    case UN_RULE_DROP_TRAILING_DOT: un_drop_trailing_dot(u); return UN_OK;
    case UN_RULE_HOST_RULES: return un_host_rules(c, u, &r->params);
    default: return un_apply_standard_rule(c, r->id, u);
    }
}

static int is_text_rule(un_rule_id id) { return id == UN_RULE_STRIP_WHITESPACE || id == UN_RULE_UNWRAP_REDIRECTS; }

/* The index of the profile's first record rule (its text rules come first). */
static int first_record_rule(const un_profile *prof) {
    int i = 0;
    while (i < prof->n_rules && is_text_rule(prof->rules[i].id)) i++;
    return i;
}

/* What a URL must meet for the rule to leave it as it is, beyond being the parse's own form
 * (core normal_form.requirement): a bit of UN_NF_*. The rules that leave every such URL as it
 * is ask nothing; those that read the query, the fragment, the host's first label, the scheme
 * or the path's end ask that it is not there; the rest can change any URL. */
static unsigned rule_requirement(un_rule_id id) {
    switch (id) {
    case UN_RULE_STRIP_WHITESPACE:
    case UN_RULE_LOWERCASE_SCHEME:
    case UN_RULE_LOWERCASE_HOST:
    case UN_RULE_IDN_HOST_TO_ASCII:
    case UN_RULE_IPV6_RFC5952:
    case UN_RULE_REMOVE_DOT_SEGMENTS:
    case UN_RULE_DROP_DEFAULT_PORT:
    case UN_RULE_DROP_EMPTY_USERINFO:
    case UN_RULE_EMPTY_PATH_TO_SLASH:
    case UN_RULE_FILE_LOCALHOST:
    case UN_RULE_DROP_TRAILING_DOT: return 0;
    case UN_RULE_UPPERCASE_PERCENT_HEX:
    case UN_RULE_DECODE_UNRESERVED: return 1u << UN_NF_ESCAPES;
    case UN_RULE_DROP_FRAGMENT:
    case UN_RULE_DROP_FRAGMENT_EXCEPT_HASHBANG: return 1u << UN_NF_NO_FRAGMENT;
    case UN_RULE_DROP_PARAMETERS:
    case UN_RULE_CLEAN_QUERY:
    case UN_RULE_SORT_QUERY:
    case UN_RULE_DROP_SESSION_HASH_PARAMETERS:
    case UN_RULE_DROP_DUPLICATE_PARAMETERS:
    case UN_RULE_SITE_PARAMETERS: return 1u << UN_NF_NO_QUERY;
    case UN_RULE_DROP_PATH_SESSION_ID: return 1u << UN_NF_NO_PATH_PARAMETERS;
    case UN_RULE_STRIP_WWW: return 1u << UN_NF_NO_WWW;
    case UN_RULE_FOLD_HTTPS: return 1u << UN_NF_NOT_HTTPS;
    case UN_RULE_DROP_TRAILING_SLASH: return 1u << UN_NF_NO_TRAILING_SLASH;
    default: return 1u << UN_NF_NEVER;
    }
}

static int has_rule(const un_profile *prof, un_rule_id id) {
    for (int i = 0; i < prof->n_rules; i++)
        if (prof->rules[i].id == id) return 1;
    return 0;
}

/* Whether the rules fold the scheme's and host's case and drop a default port (RFC 3986
 * §6.2.2.1, §6.2.3), which is all the scan's respelling of an authority does: the generic split
 * reads a port as a number, so its spelling (empty, leading zeros) is folded by the split. */
static int folds_authority(const un_profile *prof) {
    return has_rule(prof, UN_RULE_LOWERCASE_SCHEME) && has_rule(prof, UN_RULE_LOWERCASE_HOST) &&
           has_rule(prof, UN_RULE_DROP_DEFAULT_PORT);
}

/* Whether the record rules begin with the percent pair, but for a fold of the scheme's case
 * before it (rfc3986's order), which reads no escape: a scheme has none. The pair then
 * rewrites every escape the scan takes before any other rule reads it. */
static int pair_after_scheme(const un_profile *prof) {
    int first = prof->first_record_rule;
    if (first < prof->n_rules && prof->rules[first].id == UN_RULE_LOWERCASE_SCHEME) first++;
    return escape_pair(prof, first);
}

/* What each row's run needs to know of the rules, decided once rather than a row. */
void un_profile_index(un_profile *prof) {
    prof->has_text_rules = 0;
    prof->normal_form = prof->generic && !folds_authority(prof) ? 1u << UN_NF_AS_WRITTEN : 0;
    for (int i = 0; i < prof->n_rules; i++) {
        un_params_index(&prof->rules[i].params);
        prof->has_text_rules |= is_text_rule(prof->rules[i].id);
        prof->normal_form |= rule_requirement(prof->rules[i].id);
    }
    prof->first_record_rule = first_record_rule(prof);
    prof->parse_escapes = !prof->generic && escape_pair(prof, prof->first_record_rule);
    if (prof->parse_escapes || (prof->generic && pair_after_scheme(prof))) prof->normal_form |= 1u << UN_NF_REWRITE_ESCAPES;
    /* The WHATWG parse removes dot segments; the generic split keeps them, and its rule
     * removes them (RFC 3986 §5.2.4) from a path the scan takes as the parse does. */
    if (!prof->generic || has_rule(prof, UN_RULE_REMOVE_DOT_SEGMENTS)) prof->normal_form |= 1u << UN_NF_DOT_SEGMENTS;
    /* Stripping whitespace leaves the text the scan took as it is; unwrapping a redirect does not. */
    prof->goes_on_after_scan = !prof->generic;
    for (int i = 0; i < prof->n_rules; i++) prof->goes_on_after_scan &= prof->rules[i].id != UN_RULE_UNWRAP_REDIRECTS;
}

/* core Profile.apply's text rules, in the profile's order; NULL if out of memory. */
static const uint8_t *apply_text_rules(un_ctx *c, const un_profile *prof, const uint8_t *p, size_t *n, un_url *u) {
    for (int i = 0; i < prof->n_rules && p; i++) {
        un_rule_id id = prof->rules[i].id;
        if (id == UN_RULE_STRIP_WHITESPACE && *n) p = un_remove_whitespace(&c->text, p, n);
        else if (id == UN_RULE_UNWRAP_REDIRECTS) p = un_unwrap_redirects(c, &prof->rules[i].params, p, n, u);
    }
    return p;
}

/* The WHATWG parse applying the percent pair as it writes the path, query and fragment, where
 * nearly all escapes are, rather than in a second pass over them; then the pair on the
 * userinfo and host. A later percent rule looks at every field. */
static int parse_escapes(un_ctx *c, const uint8_t *p, size_t n, const un_spans *after, un_url *u) {
    c->has_percent = 1;
    int err = after ? un_whatwg_parse_after(c, p, n, UN_EXTENT_WHOLE, 1, after, u) : un_whatwg_parse_escapes(c, p, n, u);
    if (!err && u->has_scheme) un_apply_percent_rules_to_authority(u);
    return err;
}

/* The parse in the profile's mode, going on from where the scan stopped (after) if it may;
 * *first is the first rule it leaves to apply. */
static int parse_in_mode(un_ctx *c, const un_profile *prof, const uint8_t *p, size_t n, const un_spans *after, un_url *u, int *first) {
    *first = prof->first_record_rule;
    if (prof->parse_escapes) {
        *first += 2;
        return parse_escapes(c, p, n, after, u);
    }
    c->has_percent = n && memchr(p, '%', n) != NULL;
    if (prof->generic) return un_split_generic(p, n, u);
    return after ? un_whatwg_parse_after(c, p, n, UN_EXTENT_WHOLE, 0, after, u) : un_whatwg_parse(c, p, n, NULL, u);
}

void un_normal_record(const un_profile *prof, const uint8_t *p, const un_spans *s, un_url *u) {
    un_url_from_spans(p, s, UN_EXTENT_WHOLE, u);
    if (prof->generic) u->special = -1; /* the generic split knows no special schemes */
    if (s->rewrite_escapes) un_apply_percent_rules_to_record(u);
}

/* core Profile.apply: a URL already in the profile's normal form is its own record
 * (normal_form.c); any other, the text rules, the parse, then the record rules in order. */
int un_normalize(un_ctx *c, const un_profile *prof, const uint8_t *p, size_t n, un_url *u) {
    un_spans spans;
    if (!un_normal_form(p, n, prof->normal_form, UN_EXTENT_WHOLE, &spans)) return un_normalize_parsed(c, prof, p, n, &spans, u);
    un_normal_record(prof, p, &spans, u);
    return un_url_failed(u) ? UN_ERR_MEMORY : UN_OK;
}

int un_normalize_parsed(un_ctx *c, const un_profile *prof, const uint8_t *p, size_t n, const un_spans *after, un_url *u) {
    c->host_answered = 0;
    if (after && (!after->parse_from || !prof->goes_on_after_scan)) after = NULL;
    if (prof->has_text_rules) p = apply_text_rules(c, prof, p, &n, u);
    if (!p) return UN_ERR_MEMORY;
    int first;
    int err = parse_in_mode(c, prof, p, n, after, u, &first);
    if (err) return err;
    if (!u->has_scheme) return UN_ERR_MISSING_SCHEME;
    /* The WHATWG host parser leaves a special URL's host in lower case (an ASCII domain, an
     * IPv4 or IPv6 address) and without escapes, which is all the percent pair it may have
     * applied touches: lowercase_host right after the parse has nothing to do there. */
    if (!prof->generic && u->special >= 0 && first < prof->n_rules && prof->rules[first].id == UN_RULE_LOWERCASE_HOST) first++;
    for (int i = first, applied = 0; i < prof->n_rules; i += applied) {
        err = apply_rules_at(c, prof, i, u, &applied);
        if (err) return err;
    }
    if (!prof->generic) un_normalize_drive_letter(u);
    return un_url_failed(u) ? UN_ERR_MEMORY : UN_OK;
}
