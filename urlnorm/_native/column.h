/* Arrow arrays in and out (the Arrow columnar format): string and binary with 32- or 64-bit
 * offsets, and their view forms; every read is checked against the buffers' sizes. */
#ifndef URLNORM_COLUMN_H
#define URLNORM_COLUMN_H

#include "urlnorm.h"

typedef enum { UN_OFFSETS32, UN_OFFSETS64, UN_VIEWS } un_layout;

typedef struct {
    const uint8_t *p;
    size_t n;
} un_bytes;

typedef struct {
    un_layout layout;
    int64_t length, offset; /* rows, and the array's offset into its buffers */
    const uint8_t *validity;
    size_t validity_size;
    const uint8_t *offsets; /* offsets, or 16-byte views */
    size_t offsets_size;
    int64_t n_data;
    const un_bytes *data; /* one data buffer, or the views' variadic buffers */
} un_column;

typedef enum { UN_ROW_NULL, UN_ROW_VALUE, UN_ROW_MALFORMED } un_row;

un_row un_column_get(const un_column *col, int64_t i, const uint8_t **p, size_t *n);

/* A string_view column builder: a 16-byte view a row, into a data buffer that every column of
 * the batch shares (a value of 12 bytes or less sits inline in its view). */
typedef struct {
    un_buf views, validity;
    int64_t length, nulls;
} un_builder;

void un_builder_free(un_builder *b);
void un_builder_reserve(un_builder *b, size_t rows);
int un_builder_failed(const un_builder *b);

/* A row's view and validity bit are written inline: a call for each of them cost more than
 * the writes, for every output column of every row. */
UN_HOT void un_push_validity(un_builder *b, int is_valid) {
    if (b->length % 8 == 0) un_buf_putc(&b->validity, 0);
    if (is_valid && b->validity.len) b->validity.data[b->validity.len - 1] |= (uint8_t)(1u << (b->length % 8));
    b->nulls += !is_valid;
    b->length++;
}

/* A view of data[start, start + n) at view: inline up to 12 bytes, else a prefix and the
 * offset. The inline bytes are copied by un_copy: a call to memcpy a view, for a length
 * known only at run time, cost more than the copy. */
UN_HOT int un_make_view(uint8_t *view, const un_buf *data, size_t start, size_t n) {
    int32_t len = (int32_t)n, offset = (int32_t)start;
    memset(view, 0, 16);
    if (n > INT32_MAX || start > INT32_MAX - n) return 0; /* a view addresses 2 GiB */
    memcpy(view, &len, 4);
    if (n <= 12) {
        un_copy(view + 4, data->data + start, n);
    } else {
        memcpy(view + 4, data->data + start, 4);
        memcpy(view + 12, &offset, 4); /* buffer index 0, then the offset */
    }
    return 1;
}

/* The row's value is data[start, start + n), already written. */
UN_HOT void un_builder_view(un_builder *b, const un_buf *data, size_t start, size_t n) {
    if (un_buf_reserve(&b->views, 16)) {
        if (!un_make_view(b->views.data + b->views.len, data, start, n)) b->views.failed = 1;
        b->views.len += 16;
    }
    un_push_validity(b, 1);
}

UN_HOT void un_builder_null(un_builder *b) {
    static const uint8_t empty[16];
    un_buf_put(&b->views, empty, sizeof empty);
    un_push_validity(b, 0);
}

#endif
