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

UN_HOT int un_column_valid(const un_column *col, int64_t i) {
    if (!col->validity) return 1;
    uint64_t bit = (uint64_t)(col->offset + i);
    if (bit / 8 >= col->validity_size) return 0;
    return (col->validity[bit / 8] >> (bit % 8)) & 1;
}

UN_HOT int64_t un_read_offset(const uint8_t *p, size_t width) {
    if (width == 4) {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, p, 8);
    return v;
}

UN_HOT un_row un_from_offsets(const un_column *col, int64_t i, const uint8_t **p, size_t *n) {
    size_t width = col->layout == UN_OFFSETS32 ? 4 : 8;
    uint64_t at = (uint64_t)(col->offset + i);
    if ((at + 2) * width > col->offsets_size || col->n_data < 1) return UN_ROW_MALFORMED;
    int64_t start = un_read_offset(col->offsets + at * width, width);
    int64_t end = un_read_offset(col->offsets + (at + 1) * width, width);
    if (start < 0 || end < start || (uint64_t)end > col->data[0].n) return UN_ROW_MALFORMED;
    *p = col->data[0].p + start;
    *n = (size_t)(end - start);
    return UN_ROW_VALUE;
}

/* A view: length, then 12 inline bytes, or a 4-byte prefix, buffer index and offset. */
UN_HOT un_row un_from_view(const un_column *col, int64_t i, const uint8_t **p, size_t *n) {
    uint64_t at = (uint64_t)(col->offset + i);
    if ((at + 1) * 16 > col->offsets_size) return UN_ROW_MALFORMED;
    const uint8_t *view = col->offsets + at * 16;
    int32_t len, index, offset;
    memcpy(&len, view, 4);
    if (len < 0) return UN_ROW_MALFORMED;
    if (len <= 12) {
        *p = view + 4;
        *n = (size_t)len;
        return UN_ROW_VALUE;
    }
    memcpy(&index, view + 8, 4);
    memcpy(&offset, view + 12, 4);
    if (index < 0 || index >= col->n_data || offset < 0) return UN_ROW_MALFORMED;
    if ((uint64_t)offset + (uint64_t)len > col->data[index].n) return UN_ROW_MALFORMED;
    *p = col->data[index].p + offset;
    *n = (size_t)len;
    return UN_ROW_VALUE;
}

/* Row i of col: its bytes, null, or malformed. Inline: every row of every batch is read
 * through it, and a call a row cost 1.5% of one. */
UN_HOT un_row un_column_get(const un_column *col, int64_t i, const uint8_t **p, size_t *n) {
    if (i < 0 || i >= col->length) return UN_ROW_MALFORMED;
    if (!un_column_valid(col, i)) return UN_ROW_NULL;
    return col->layout == UN_VIEWS ? un_from_view(col, i, p, n) : un_from_offsets(col, i, p, n);
}

/* Where row i's bytes, read by un_column_get and longer than 12, lie: the index of the data
 * buffer that holds them and their offset into it. */
UN_HOT void un_column_where(const un_column *col, int64_t i, const uint8_t *p, int64_t *index, int64_t *at) {
    int32_t k = 0;
    if (col->layout == UN_VIEWS) memcpy(&k, col->offsets + (uint64_t)(col->offset + i) * 16 + 8, 4);
    *index = k, *at = (int64_t)(p - col->data[k].p);
}

/* A string_view column builder: a 16-byte view a row, into a data buffer that every column of
 * the batch shares (a value of 12 bytes or less sits inline in its view). */
typedef struct {
    un_buf views, validity;
    int64_t length, nulls;
} un_builder;

void un_builder_free(un_builder *b);
void un_builder_reserve(un_builder *b, size_t rows);
/* The builder's views and validity written in place into a column's: the window of `rows`
 * rows at views and validity, owned by its caller (a slice of a column that several threads
 * build at once, plugin.c). The rows must start on a byte of the bitmap; a row more fails. */
void un_builder_place(un_builder *b, uint8_t *views, uint8_t *validity, size_t rows);
int un_builder_failed(const un_builder *b);

/* A row's view and validity bit are written inline: a call for each of them cost more than
 * the writes, for every output column of every row. */
UN_HOT void un_push_validity(un_builder *b, int is_valid) {
    if (b->length % 8 == 0) un_buf_putc(&b->validity, 0);
    if (is_valid && b->validity.len) b->validity.data[b->validity.len - 1] |= (uint8_t)(1u << (b->length % 8));
    b->nulls += !is_valid;
    b->length++;
}

/* An inline view of p[0, n), n at most 12. The bytes are copied by un_copy: a call to memcpy a
 * view, for a length known only at run time, cost more than the copy. */
UN_HOT void un_inline_view(uint8_t *view, const uint8_t *p, size_t n) {
    int32_t len = (int32_t)n;
    memset(view, 0, 16);
    memcpy(view, &len, 4);
    un_copy(view + 4, p, n);
}

/* A view of data[start, start + n), the output's data buffer `index`, at view: inline up to
 * 12 bytes, else a prefix, the index and the offset. */
UN_HOT int un_make_view(uint8_t *view, const un_buf *data, int32_t index, size_t start, size_t n) {
    int32_t len = (int32_t)n, offset = (int32_t)start;
    if (n > INT32_MAX || start > INT32_MAX - n) return memset(view, 0, 16), 0; /* a view addresses 2 GiB */
    if (n <= 12) return un_inline_view(view, data->data + start, n), 1;
    memcpy(view, &len, 4);
    memcpy(view + 4, data->data + start, 4);
    memcpy(view + 8, &index, 4);
    memcpy(view + 12, &offset, 4);
    return 1;
}

/* The row's value is data[start, start + n), already written; data is the output's buffer
 * `index`. */
UN_HOT void un_builder_view(un_builder *b, const un_buf *data, int32_t index, size_t start, size_t n) {
    if (un_buf_reserve(&b->views, 16)) {
        if (!un_make_view(b->views.data + b->views.len, data, index, start, n)) b->views.failed = 1;
        b->views.len += 16;
    }
    un_push_validity(b, 1);
}

/* The row's value is p[0, n), n more than 12, which lies at offset `at` of the output's buffer
 * `index`; 0 (nothing written) where a view cannot address it. */
UN_HOT int un_builder_at(un_builder *b, const uint8_t *p, size_t n, int64_t index, int64_t at) {
    if (n > INT32_MAX || at < 0 || at > INT32_MAX - (int64_t)n || index > INT32_MAX || !un_buf_reserve(&b->views, 16)) return 0;
    int32_t fields[4] = {(int32_t)n, 0, (int32_t)index, (int32_t)at};
    memcpy(&fields[1], p, 4);
    memcpy(b->views.data + b->views.len, fields, 16);
    b->views.len += 16;
    un_push_validity(b, 1);
    return 1;
}

/* The row's value is p[0, n), n at most 12: inline in its view, read from p itself (writing it
 * to the data first and reading it back made the view's load wait on those stores). */
UN_HOT void un_builder_inline(un_builder *b, const uint8_t *p, size_t n) {
    if (un_buf_reserve(&b->views, 16)) {
        un_inline_view(b->views.data + b->views.len, p, n);
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
