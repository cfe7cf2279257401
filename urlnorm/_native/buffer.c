/* A growable byte buffer. Buffers live as long as a worker and are reset per row, so the
 * per-row loop allocates only while a buffer grows to the largest row it has seen. */
#include <stdlib.h>
#include <string.h>

#include "urlnorm.h"

void un_buf_free(un_buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}

int un_buf_grow(un_buf *b, size_t extra) {
    if (b->failed) return 0;
    if (extra <= b->cap - b->len) return 1;
    if (extra > SIZE_MAX / 2 - b->len) {
        b->failed = 1;
        return 0;
    }
    size_t cap = b->cap ? b->cap : 64;
    while (cap - b->len < extra) cap *= 2;
    uint8_t *data = realloc(b->data, cap);
    if (!data) {
        b->failed = 1;
        return 0;
    }
    b->data = data;
    b->cap = cap;
    return 1;
}

void un_buf_puts(un_buf *b, const char *s) { un_buf_put(b, (const uint8_t *)s, strlen(s)); }

void un_buf_put_uint(un_buf *b, unsigned long v) {
    char digits[24];
    size_t i = sizeof digits;
    do {
        digits[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v && i);
    un_buf_put(b, (const uint8_t *)digits + i, sizeof digits - i);
}
