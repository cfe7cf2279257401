/* A visit's source, medium and campaign as GA4 derives them from its landing page and
 * referrer (core/attribution.py), and its default channel group (core/channels.py): one pass
 * over both URLs, reusing the campaign's and the referrer's lookups. Values are compared in
 * ASCII lower case, as the core compares them. */
#include <string.h>

#include "kernel.h"

const char *const UN_VISIT_COLUMN_NAMES[UN_N_VISIT_COLUMNS] = {
    [UN_VISIT_SOURCE] = "source", [UN_VISIT_MEDIUM] = "medium", [UN_VISIT_CAMPAIGN] = "campaign", [UN_VISIT_CHANNEL] = "channel",
};

void un_visit_free(un_visit *v) {
    un_buf_free(&v->source), un_buf_free(&v->medium), un_buf_free(&v->campaign);
    for (int i = 0; i < 3; i++) un_buf_free(&v->lower[i]);
}

static const uint8_t *text_of(const un_buf *b) { return b->data ? b->data : (const uint8_t *)""; }

static int equals_n(const un_buf *b, const char *s, size_t n) { return b->len == n && memcmp(text_of(b), s, n) == 0; }

static int contains_n(const un_buf *b, const char *s, size_t n) {
    const uint8_t *t = text_of(b);
    for (size_t i = 0; i + n <= b->len; i++)
        if (t[i] == (uint8_t)s[0] && memcmp(t + i, s, n) == 0) return 1;
    return 0;
}

static int starts_with_n(const un_buf *b, const char *s, size_t n) { return b->len >= n && memcmp(text_of(b), s, n) == 0; }

static int ends_with_n(const un_buf *b, const char *s, size_t n) {
    return b->len >= n && memcmp(text_of(b) + b->len - n, s, n) == 0;
}

/* The helpers on a string literal, its length known at compile time. */
#define equals(b, lit) equals_n(b, lit, sizeof lit - 1)
#define contains(b, lit) contains_n(b, lit, sizeof lit - 1)
#define starts_with(b, lit) starts_with_n(b, lit, sizeof lit - 1)
#define ends_with(b, lit) ends_with_n(b, lit, sizeof lit - 1)

typedef struct {
    const char *text;
    size_t len;
} literal;
#define LIT(s) {s, sizeof s - 1}

static int one_of(const un_buf *b, const literal *list) {
    for (; list->text; list++)
        if (equals_n(b, list->text, list->len)) return 1;
    return 0;
}

/* A whole-value regex's ".*" takes no line feed (core channels: re.fullmatch). */
static int one_line(const un_buf *b) { return !b->len || !memchr(b->data, '\n', b->len); }

/* ^(.*cp.*|ppc|retargeting|paid.*)$ */
static int paid(const un_buf *m) {
    return one_line(m) && (contains(m, "cp") || equals(m, "ppc") || equals(m, "retargeting") || starts_with(m, "paid"));
}

static int not_a_to_z_but_e(uint8_t b) { return !(b >= 'a' && b <= 'd') && !(b >= 'f' && b <= 'z'); }

/* ^(.*(([^a-df-z]|^)shop|shopping).*)$ */
static int shopping_campaign(const un_buf *c) {
    if (!one_line(c)) return 0;
    if (contains(c, "shopping") || starts_with(c, "shop")) return 1;
    for (size_t i = 1; i + 4 <= c->len; i++)
        if (memcmp(c->data + i, "shop", 4) == 0 && not_a_to_z_but_e(c->data[i - 1])) return 1;
    return 0;
}

static const literal DISPLAY[] = {LIT("display"), LIT("banner"), LIT("expandable"), LIT("interstitial"), LIT("cpm"), {NULL, 0}};
static const literal SOCIAL[] = {LIT("social"), LIT("social-network"), LIT("social-media"), LIT("sm"), LIT("social network"),
                                 LIT("social media"), {NULL, 0}};
static const literal REFERRAL[] = {LIT("referral"), LIT("app"), LIT("link"), {NULL, 0}};
static const literal EMAIL[] = {LIT("email"), LIT("e-mail"), LIT("e_mail"), LIT("e mail"), {NULL, 0}};
static const literal DIRECT_MEDIA[] = {LIT("(not set)"), LIT("(none)"), {NULL, 0}};

const char *const UN_CHANNEL_NAMES[UN_N_CHANNELS] = {
    "Direct", "Cross-network", "Paid Shopping", "Paid Search", "Paid Social", "Paid Video", "Display", "Paid Other",
    "Organic Shopping", "Organic Social", "Organic Video", "Organic Search", "AI Assistant", "Referral", "Email",
    "Affiliates", "Audio", "SMS", "Mobile Push Notifications", "Unassigned",
};

/* What the rules ask of a visit's medium and campaign, a bit each: found once for the media
 * a visit without a campaign has (un_default_visit_facts), not again for each row. */
enum {
    FACT_PAID = 1 << 0,
    FACT_SHOPPING_CAMPAIGN = 1 << 1,
    FACT_DIRECT_MEDIUM = 1 << 2,
    FACT_CROSS_NETWORK = 1 << 3,
    FACT_DISPLAY = 1 << 4,
    FACT_SOCIAL_MEDIUM = 1 << 5,
    FACT_VIDEO_MEDIUM = 1 << 6,
    FACT_ORGANIC = 1 << 7,
    FACT_AI_ASSISTANT = 1 << 8,
    FACT_REFERRAL = 1 << 9,
    FACT_EMAIL_MEDIUM = 1 << 10,
    FACT_AFFILIATE = 1 << 11,
    FACT_AUDIO = 1 << 12,
    FACT_SMS_MEDIUM = 1 << 13,
    FACT_PUSH_MEDIUM = 1 << 14,
};

/* The facts of a medium and campaign in lower case (core channels.RULES' tests of them). */
static unsigned channel_facts(const un_buf *m, const un_buf *c) {
    unsigned f = 0;
#define FACT(bit, holds) f |= (holds) ? (unsigned)(bit) : 0u;
    FACT(FACT_PAID, paid(m))
    FACT(FACT_SHOPPING_CAMPAIGN, shopping_campaign(c))
    FACT(FACT_DIRECT_MEDIUM, one_of(m, DIRECT_MEDIA))
    FACT(FACT_CROSS_NETWORK, contains(c, "cross-network"))
    FACT(FACT_DISPLAY, one_of(m, DISPLAY))
    FACT(FACT_SOCIAL_MEDIUM, one_of(m, SOCIAL))
    FACT(FACT_VIDEO_MEDIUM, one_line(m) && contains(m, "video"))
    FACT(FACT_ORGANIC, equals(m, "organic"))
    FACT(FACT_AI_ASSISTANT, equals(m, "ai-assistant"))
    FACT(FACT_REFERRAL, one_of(m, REFERRAL))
    FACT(FACT_EMAIL_MEDIUM, one_of(m, EMAIL))
    FACT(FACT_AFFILIATE, equals(m, "affiliate"))
    FACT(FACT_AUDIO, equals(m, "audio"))
    FACT(FACT_SMS_MEDIUM, equals(m, "sms"))
    FACT(FACT_PUSH_MEDIUM, ends_with(m, "push") || contains(m, "mobile") || contains(m, "notification"))
#undef FACT
    return f;
}

/* GA4's channel of a visit (its source in lower case, its medium's and campaign's facts; cat
 * its source's category, UN_CATEGORY_*, -1 for none, or -2 to be looked up in r where a rule
 * asks), rule by rule in GA4's order (core channels.RULES). */
static int channel(const un_referrers *r, const un_buf *s, unsigned f, int cat) {
    int channel = 0;
    /* Each rule in turn: the first that holds is the channel. */
#define RULE(holds) \
    if (holds) return channel; \
    channel++;
    RULE(equals(s, "(direct)") && (f & FACT_DIRECT_MEDIUM))
    RULE(f & FACT_CROSS_NETWORK)
    if (cat < -1) cat = un_source_category(r, text_of(s), s->len); /* no rule before asks it */
    int is_paid = (f & FACT_PAID) != 0, shopping = cat == UN_CATEGORY_SHOPPING || (f & FACT_SHOPPING_CAMPAIGN);
    RULE(shopping && is_paid)
    RULE(cat == UN_CATEGORY_SEARCH && is_paid)
    RULE(cat == UN_CATEGORY_SOCIAL && is_paid)
    RULE(cat == UN_CATEGORY_VIDEO && is_paid)
    RULE(f & FACT_DISPLAY)
    RULE(is_paid)
    RULE(shopping)
    RULE(cat == UN_CATEGORY_SOCIAL || (f & FACT_SOCIAL_MEDIUM))
    RULE(cat == UN_CATEGORY_VIDEO || (f & FACT_VIDEO_MEDIUM))
    RULE(cat == UN_CATEGORY_SEARCH || (f & FACT_ORGANIC))
    RULE(f & FACT_AI_ASSISTANT)
    RULE(f & FACT_REFERRAL)
    RULE(one_of(s, EMAIL) || (f & FACT_EMAIL_MEDIUM))
    RULE(f & FACT_AFFILIATE)
    RULE(f & FACT_AUDIO)
    RULE(equals(s, "sms") || (f & FACT_SMS_MEDIUM))
    RULE((f & FACT_PUSH_MEDIUM) || equals(s, "firebase"))
#undef RULE
    return UN_CHANNEL_UNASSIGNED;
}

/* The medium and campaign GA4 gives a visit its page's campaign does not name (UN_BY_*). */
static const struct {
    const char *medium, *campaign;
    size_t medium_len, campaign_len; /* counted here: strlen for each visit cost 2% of a row */
} DEFAULT_VISITS[UN_N_DEFAULT_VISITS] = {
#define DEFAULT_VISIT(m, c) {m, c, sizeof m - 1, sizeof c - 1}
    [UN_BY_SEARCH] = DEFAULT_VISIT("organic", "(organic)"),
    [UN_BY_AI_ASSISTANT] = DEFAULT_VISIT("ai-assistant", "(ai-assistant)"),
    [UN_BY_REFERRAL] = DEFAULT_VISIT("referral", "(referral)"),
    [UN_BY_NONE] = DEFAULT_VISIT("(none)", "(direct)"),
#undef DEFAULT_VISIT
};

void un_default_visit_facts(unsigned facts[UN_N_DEFAULT_VISITS]) {
    for (int k = 0; k < UN_N_DEFAULT_VISITS; k++) {
        const un_buf m = {(uint8_t *)(uintptr_t)DEFAULT_VISITS[k].medium, DEFAULT_VISITS[k].medium_len, 0, 0, 1};
        const un_buf c = {(uint8_t *)(uintptr_t)DEFAULT_VISITS[k].campaign, DEFAULT_VISITS[k].campaign_len, 0, 0, 1};
        facts[k] = channel_facts(&m, &c);
    }
}

/* ---- the visit's source, medium and campaign ------------------------------------------------ */

#define set_text(b, lit) un_buf_set(b, (const uint8_t *)(lit), sizeof(lit) - 1)

/* A campaign field decoded, or "(not set)" where the page's link left it out. */
static void field_or_not_set(un_ctx *c, const un_campaign *k, int field, un_buf *out) {
    out->len = 0;
    if (k->rank[field] < 0) return set_text(out, "(not set)");
    const un_form_pair *v = &k->value[field];
    if (un_form_plain(v->value, v->value_len)) return un_buf_set(out, v->value, v->value_len);
    un_form_decode(out, v->value, v->value_len, &c->scratch);
}

void un_engine_name(const uint8_t *name, size_t len, un_buf *out) {
    size_t n = 0;
    while (n < len && name[n] != '!' && name[n] != ' ' && !(name[n] >= '\t' && name[n] <= '\r')) n++;
    un_buf_set_lower(out, name, n);
}

/* The referring site as GA4 names a referral's source: its host without "www.". */
static void site(const un_referral *f, un_buf *out) {
    size_t skip = un_site_skip(f->host, f->host_len);
    un_buf_set(out, f->host + skip, f->host_len - skip);
}

static int is_medium_n(const un_referral *f, const char *s, size_t n) { return f->medium_len == n && memcmp(f->medium, s, n) == 0; }
#define is_medium(f, lit) is_medium_n(f, lit, sizeof lit - 1)

/* The visit's medium and campaign: GA4's for a visit of that kind. */
static void default_visit(un_visit *v, int kind) {
    v->kind = kind;
    un_buf_set(&v->medium, (const uint8_t *)DEFAULT_VISITS[kind].medium, DEFAULT_VISITS[kind].medium_len);
    un_buf_set(&v->campaign, (const uint8_t *)DEFAULT_VISITS[kind].campaign, DEFAULT_VISITS[kind].campaign_len);
}

int un_visit_from_referrer(const un_referral *f, un_visit *v) {
    if (is_medium(f, "internal")) return v->present = 0, UN_OK;
    v->present = 1, v->category = f->category; /* the referral's host is folded, an engine's name here */
    if (is_medium(f, "search")) {
        un_engine_name(f->source, f->source_len, &v->source);
        v->has_source = v->source.len > 0;
        default_visit(v, UN_BY_SEARCH);
    } else {
        site(f, &v->source);
        v->has_source = f->host_len > 0;
        default_visit(v, is_medium(f, "chatbot") ? UN_BY_AI_ASSISTANT : UN_BY_REFERRAL);
    }
    return UN_OK;
}

static int google_click(const un_campaign *k) {
    return k->rank[UN_CAMPAIGN_CLICK_ID] >= 0 && k->network_len == 6 && memcmp(k->network, "Google", 6) == 0;
}

int un_visit_from_campaign(un_ctx *c, const un_campaign *k, un_visit *v) {
    v->present = v->has_source = 1, v->kind = UN_BY_CAMPAIGN, v->category = -2;
    if (google_click(k)) {
        set_text(&v->source, "google"), set_text(&v->medium, "cpc");
        field_or_not_set(c, k, UN_CAMPAIGN_CAMPAIGN, &v->campaign);
        return 1;
    }
    if (k->rank[UN_CAMPAIGN_SOURCE] < 0 && k->rank[UN_CAMPAIGN_MEDIUM] < 0 && k->rank[UN_CAMPAIGN_CAMPAIGN] < 0) return 0;
    field_or_not_set(c, k, UN_CAMPAIGN_SOURCE, &v->source);
    field_or_not_set(c, k, UN_CAMPAIGN_MEDIUM, &v->medium);
    field_or_not_set(c, k, UN_CAMPAIGN_CAMPAIGN, &v->campaign);
    return 1;
}

void un_visit_direct(un_visit *v) {
    v->present = v->has_source = 1, v->category = -2;
    set_text(&v->source, "(direct)");
    default_visit(v, UN_BY_NONE);
}

/* Whether the memo's slot holds the medium m and campaign c. */
static int holds_facts(const un_facts_memo *e, uint64_t hash, const un_buf *m, const un_buf *c) {
    return e->hash == hash && e->medium_len == m->len && e->len == m->len + c->len &&
           memcmp(e->text, text_of(m), m->len) == 0 && memcmp(e->text + m->len, text_of(c), c->len) == 0;
}

/* channel_facts of a medium and campaign in lower case, from the visit's memo where an earlier
 * visit had them. */
static unsigned memo_facts(un_visit *v, const un_buf *m, const un_buf *c) {
    uint64_t hash = un_hash(un_hash(m->len, text_of(m), m->len), text_of(c), c->len) | 1;
    un_facts_memo *pair = &v->facts[un_memo_pair(hash, UN_FACTS_MEMO)];
    for (int k = 0; k < 2; k++)
        if (holds_facts(&pair[k], hash, m, c)) return pair[k].facts;
    unsigned facts = channel_facts(m, c);
    if (m->len + c->len > UN_FACTS_MEMO_LEN) return facts;
    un_facts_memo *e = &pair[un_memo_victim(hash, pair[0].hash, pair[1].hash)];
    e->hash = hash, e->medium_len = m->len, e->len = m->len + c->len, e->facts = facts;
    if (m->len) memcpy(e->text, text_of(m), m->len);
    if (c->len) memcpy(e->text + m->len, text_of(c), c->len);
    return facts;
}

/* The channel of a present visit: a campaign's values folded to ASCII lower case as they are
 * copied and their facts found; a default visit's facts (r->default_facts) found when the
 * referrer table was built. */
int un_visit_channel(const un_referrers *r, un_visit *v) {
    static const un_buf none = {NULL, 0, 0, 0, 0};
    const un_buf *source = v->has_source ? &v->source : &none;
    if (v->kind != UN_BY_CAMPAIGN) return channel(r, source, r->default_facts[v->kind], v->category);
    const un_buf *values[3] = {source, &v->medium, &v->campaign};
    for (int i = 0; i < 3; i++) {
        un_buf_set_lower(&v->lower[i], text_of(values[i]), values[i]->len);
        if (v->lower[i].failed) return -1;
    }
    return channel(r, &v->lower[0], memo_facts(v, &v->lower[1], &v->lower[2]), v->category);
}
