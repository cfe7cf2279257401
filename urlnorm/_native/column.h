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
/* The row's value is data[start, start + n), already written. */
void un_builder_view(un_builder *b, const un_buf *data, size_t start, size_t n);
void un_builder_null(un_builder *b);
int un_builder_failed(const un_builder *b);

#endif
