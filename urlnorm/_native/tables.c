/* The character tables, filled once from urlnorm.core (see urlnorm/native/tables.py). */
#include <string.h>

#include "urlnorm.h"

const char *const UN_CLASS_NAMES[UN_N_CLASSES] = {
    "c0_control", "fragment", "query", "special_query", "path", "userinfo", "alpha", "digit",
    "hexdig", "unreserved", "scheme_chars", "forbidden_host", "forbidden_domain", "component", "form",
};

un_tables un_t;

/* A name shorter than UN_SCHEME_LEN as one word, zero-padded: every URL's scheme is looked
 * up, and one comparison a special scheme is cheaper than a memcmp call. */
static uint64_t scheme_key(const uint8_t *s, size_t n) {
    uint64_t key = 0;
    for (size_t i = 0; i < n; i++) key |= (uint64_t)s[i] << (8 * i);
    return key;
}

void un_set_tables(const un_tables *t) {
    un_t = *t;
    for (int i = 0; i < un_t.n_special; i++) {
        un_t.special_len[i] = strlen(un_t.special[i]);
        un_t.special_key[i] = scheme_key((const uint8_t *)un_t.special[i], un_t.special_len[i]);
    }
    /* '0'-'9' are 0x3_, 'A'-'F' 0x4_ and 'a'-'f' 0x6_: the low nibble, plus 9 for a letter. */
    for (int b = 0; b < 256; b++) un_t.hex_value[b] = un_is((uint8_t)b, UN_HEXDIG) ? (uint8_t)((b & 0xF) + 9 * (b >> 6)) : UN_NOT_HEX;
}

int un_special_index(const uint8_t *s, size_t n) {
    if (n >= UN_SCHEME_LEN) return -1;
    uint64_t key = scheme_key(s, n);
    for (int i = 0; i < un_t.n_special; i++) {
        if (un_t.special_key[i] == key && un_t.special_len[i] == n) return i;
    }
    return -1;
}
