/* A landing page's campaign (core/campaign.py): its utm fields and click id, from one pass
 * over its query's form pairs. Each field has its parameter names in order; the first name
 * present with a non-empty value gives the field that name's first such value. */
#include <string.h>

#include "kernel.h"

/* One name of the table Python hands over (native/operations.py campaign_option): the name
 * length-prefixed, then its field (UN_CAMPAIGN_*) and, for a click id, its network's index in
 * the networks list (length-prefixed names). A name's rank is its place in the table. */
typedef un_campaign_name listed_name;

/* The next name of the table at *at; 0 at its end or where it is malformed. */
static int next_name(const un_campaign_names *t, size_t *at, listed_name *out) {
    const uint8_t *p = t->names;
    size_t n = t->names_len;
    if (*at >= n || p[*at] > n - *at - 1 || (size_t)p[*at] + 3 > n - *at) return 0;
    out->len = p[*at], out->name = p + *at + 1;
    out->field = p[*at + 1 + out->len], out->network = p[*at + 2 + out->len];
    *at += 3 + out->len;
    return out->field < UN_CAMPAIGN_NETWORK;
}

/* How many networks the list names; -1 if it is malformed. */
static long network_count(const un_campaign_names *t) {
    long count = 0;
    for (size_t i = 0; i < t->networks_len; i += 1 + (size_t)t->networks[i], count++)
        if (t->networks[i] > t->networks_len - i - 1) return -1;
    return count;
}

/* The of_length bucket of a name this long. */
static size_t length_bucket(size_t len) { return len < 63 ? len : 63; }

int un_campaign_index(un_campaign_names *t) {
    size_t at = 0;
    long networks = network_count(t);
    listed_name name;
    t->n_index = 0;
    memset(t->of_length, 0, sizeof t->of_length);
    while (next_name(t, &at, &name)) {
        if ((name.field == UN_CAMPAIGN_CLICK_ID && name.network >= networks) || t->n_index == UN_CAMPAIGN_NAMES) return 0;
        t->of_length[length_bucket(name.len)] |= 1ull << t->n_index;
        t->index[t->n_index++] = (un_campaign_name){name.name, name.len, name.field, name.network};
    }
    return networks >= 0 && at == t->names_len;
}

/* The network named at index k. */
static void network_at(const un_campaign_names *t, int k, const uint8_t **p, size_t *n) {
    size_t i = 0;
    for (int j = 0; j < k; j++) i += 1 + (size_t)t->networks[i];
    *p = t->networks + i + 1, *n = t->networks[i];
}

/* The pair's name decoded (form-urlencoded), or as written where nothing in it decodes. */
static const uint8_t *pair_name(un_ctx *c, const un_form_pair *pair, size_t *len) {
    if (un_form_plain(pair->name, pair->name_len)) return *len = pair->name_len, pair->name;
    c->scratch2.len = 0;
    un_form_decode(&c->scratch2, pair->name, pair->name_len, &c->scratch);
    *len = c->scratch2.len;
    return c->scratch2.data ? c->scratch2.data : (const uint8_t *)"";
}

/* The pair for each field whose name it is, where no name of better rank has given one. Only
 * the names of its decoded length are compared: each of the table's names, in turn, cost
 * `channel_group` some 100 instructions a page. A name without an escape decodes to as many
 * bytes ('+' is one byte as ' '): where none is listed of its length, nothing is decoded. */
static void take(un_ctx *c, const un_campaign_names *t, const un_form_pair *pair, un_campaign *out) {
    if (!t->of_length[length_bucket(pair->name_len)] && !memchr(pair->name, '%', pair->name_len)) return;
    size_t len;
    const uint8_t *decoded = pair_name(c, pair, &len);
    for (uint64_t ranks = t->of_length[length_bucket(len)]; ranks; ranks &= ranks - 1) {
        int rank = __builtin_ctzll(ranks);
        const un_campaign_name *name = &t->index[rank];
        if (name->len != len || (len && memcmp(name->name, decoded, len) != 0)) continue;
        int field = name->field;
        if (out->rank[field] >= 0 && out->rank[field] <= rank) continue;
        out->rank[field] = rank, out->value[field] = *pair;
        if (field == UN_CAMPAIGN_CLICK_ID) network_at(t, name->network, &out->network, &out->network_len);
    }
}

void un_campaign_of(un_ctx *c, const un_campaign_names *t, const uint8_t *q, size_t n, un_campaign *out) {
    for (int f = 0; f < UN_N_CAMPAIGN_COLUMNS; f++) out->rank[f] = -1;
    if (!q) q = (const uint8_t *)"", n = 0;
    un_form_pair pair;
    while (un_next_form_pair(&q, &n, &pair))
        if (pair.value_len) take(c, t, &pair, out); /* an empty value says nothing */
}
