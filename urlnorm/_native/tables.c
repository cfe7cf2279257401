/* The character tables, filled once from urlnorm.core (see urlnorm/native.py). */
#include <string.h>

#include "urlnorm.h"

un_tables un_t;

void un_set_tables(const un_tables *t) {
    un_t = *t;
    for (int i = 0; i < un_t.n_special; i++) un_t.special_len[i] = strlen(un_t.special[i]);
    un_whatwg_init();
}

int un_special_index(const uint8_t *s, size_t n) {
    for (int i = 0; i < un_t.n_special; i++) {
        if (un_t.special_len[i] == n && memcmp(un_t.special[i], s, n) == 0) return i;
    }
    return -1;
}
