/* The character tables, filled once from urlnorm.core (see urlnorm/native.py). */
#include <string.h>

#include "urlnorm.h"

un_tables un_t;

void un_set_tables(const un_tables *t) {
    un_t = *t;
    un_whatwg_init();
}

int un_special_index(const uint8_t *s, size_t n) {
    for (int i = 0; i < un_t.n_special; i++) {
        if (strlen(un_t.special[i]) == n && memcmp(un_t.special[i], s, n) == 0) return i;
    }
    return -1;
}
