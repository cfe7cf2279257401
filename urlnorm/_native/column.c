#include <string.h>

#include "column.h"

void un_builder_free(un_builder *b) {
    un_buf_free(&b->views);
    un_buf_free(&b->validity);
}

void un_builder_reserve(un_builder *b, size_t rows) {
    un_buf_reserve(&b->views, rows * 16);
    un_buf_reserve(&b->validity, (rows + 7) / 8);
}

void un_builder_place(un_builder *b, uint8_t *views, uint8_t *validity, size_t rows) {
    un_builder_free(b);
    un_buf_borrow(&b->views, views, rows * 16);
    un_buf_borrow(&b->validity, validity, (rows + 7) / 8);
}

int un_builder_failed(const un_builder *b) { return b->views.failed || b->validity.failed; }
