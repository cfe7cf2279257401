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

/* GA4's channel of a visit (source, medium, campaign in lower case; cat its source's
 * category, UN_CATEGORY_*, or -1), rule by rule in GA4's order (core channels.RULES). */
int un_channel(const un_buf *s, const un_buf *m, const un_buf *c, int cat) {
    int is_paid = paid(m), shopping = cat == UN_CATEGORY_SHOPPING || shopping_campaign(c);
    int channel = 0;
    /* Each rule in turn: the first that holds is the channel. */
#define RULE(holds) \
    if (holds) return channel; \
    channel++;
    RULE(equals(s, "(direct)") && one_of(m, DIRECT_MEDIA))
    RULE(contains(c, "cross-network"))
    RULE(shopping && is_paid)
    RULE(cat == UN_CATEGORY_SEARCH && is_paid)
    RULE(cat == UN_CATEGORY_SOCIAL && is_paid)
    RULE(cat == UN_CATEGORY_VIDEO && is_paid)
    RULE(one_of(m, DISPLAY))
    RULE(is_paid)
    RULE(shopping)
    RULE(cat == UN_CATEGORY_SOCIAL || one_of(m, SOCIAL))
    RULE(cat == UN_CATEGORY_VIDEO || (one_line(m) && contains(m, "video")))
    RULE(cat == UN_CATEGORY_SEARCH || equals(m, "organic"))
    RULE(equals(m, "ai-assistant"))
    RULE(one_of(m, REFERRAL))
    RULE(one_of(s, EMAIL) || one_of(m, EMAIL))
    RULE(equals(m, "affiliate"))
    RULE(equals(m, "audio"))
    RULE(equals(s, "sms") || equals(m, "sms"))
    RULE(ends_with(m, "push") || contains(m, "mobile") || contains(m, "notification") || equals(s, "firebase"))
#undef RULE
    return UN_CHANNEL_UNASSIGNED;
}

/* ---- the visit's source, medium and campaign ------------------------------------------------ */

#define set_text(b, lit) un_buf_set(b, (const uint8_t *)(lit), sizeof(lit) - 1)

/* A campaign field decoded, or "(not set)" where the page's link left it out. */
static void field_or_not_set(un_ctx *c, const un_campaign *k, int field, un_buf *out) {
    out->len = 0;
    if (k->rank[field] < 0) return set_text(out, "(not set)");
    un_form_decode(out, k->value[field].value, k->value[field].value_len, &c->scratch);
}

/* A search engine's name as GA4 spells its source (core attribution.engine_name): the first
 * word of its name in ASCII lower case, without a "!". */
static void engine_name(const un_referral *f, un_buf *out) {
    size_t n = 0;
    while (n < f->source_len && f->source[n] != '!' && f->source[n] != ' ' && !(f->source[n] >= '\t' && f->source[n] <= '\r')) n++;
    un_buf_set_lower(out, f->source, n);
}

/* The referring site as GA4 names a referral's source: its host without "www.". */
static void site(const un_referral *f, un_buf *out) {
    size_t skip = f->host_len >= 4 && memcmp(f->host, "www.", 4) == 0 ? 4 : 0;
    un_buf_set(out, f->host + skip, f->host_len - skip);
}

static int is_medium_n(const un_referral *f, const char *s, size_t n) { return f->medium_len == n && memcmp(f->medium, s, n) == 0; }
#define is_medium(f, lit) is_medium_n(f, lit, sizeof lit - 1)

int un_visit_from_referrer(const un_referral *f, un_visit *v) {
    if (is_medium(f, "internal")) return v->present = 0, UN_OK;
    v->present = 1;
    if (is_medium(f, "search")) {
        engine_name(f, &v->source);
        v->has_source = v->source.len > 0;
        set_text(&v->medium, "organic"), set_text(&v->campaign, "(organic)");
    } else {
        site(f, &v->source);
        v->has_source = f->host_len > 0;
        if (is_medium(f, "chatbot")) set_text(&v->medium, "ai-assistant"), set_text(&v->campaign, "(ai-assistant)");
        else set_text(&v->medium, "referral"), set_text(&v->campaign, "(referral)");
    }
    return UN_OK;
}

static int google_click(const un_campaign *k) {
    return k->rank[UN_CAMPAIGN_CLICK_ID] >= 0 && k->network_len == 6 && memcmp(k->network, "Google", 6) == 0;
}

int un_visit_from_campaign(un_ctx *c, const un_campaign *k, un_visit *v) {
    v->present = v->has_source = 1;
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
    v->present = v->has_source = 1;
    set_text(&v->source, "(direct)"), set_text(&v->medium, "(none)"), set_text(&v->campaign, "(direct)");
}

/* The channel of a present visit: its values folded to ASCII lower case as they are copied,
 * its source's category. */
int un_visit_channel(const un_referrers *r, un_visit *v) {
    un_buf *parts[3] = {&v->lower[0], &v->lower[1], &v->lower[2]};
    const un_buf *from[3] = {&v->source, &v->medium, &v->campaign};
    for (int i = 0; i < 3; i++) {
        un_buf_set_lower(parts[i], text_of(from[i]), i == 0 && !v->has_source ? 0 : from[i]->len);
        if (parts[i]->failed) return -1;
    }
    return un_channel(parts[0], parts[1], parts[2], un_source_category(r, text_of(parts[0]), parts[0]->len));
}
