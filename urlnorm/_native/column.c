#include <string.h>

#include "column.h"

static int valid(const un_column *col, int64_t i) {
    if (!col->validity) return 1;
    uint64_t bit = (uint64_t)(col->offset + i);
    if (bit / 8 >= col->validity_size) return 0;
    return (col->validity[bit / 8] >> (bit % 8)) & 1;
}

static int64_t read_i(const uint8_t *p, size_t width) {
    if (width == 4) {
        int32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, p, 8);
    return v;
}

static un_row from_offsets(const un_column *col, int64_t i, const uint8_t **p, size_t *n) {
    size_t width = col->layout == UN_OFFSETS32 ? 4 : 8;
    uint64_t at = (uint64_t)(col->offset + i);
    if ((at + 2) * width > col->offsets_size || col->n_data < 1) return UN_ROW_MALFORMED;
    int64_t start = read_i(col->offsets + at * width, width);
    int64_t end = read_i(col->offsets + (at + 1) * width, width);
    if (start < 0 || end < start || (uint64_t)end > col->data[0].n) return UN_ROW_MALFORMED;
    *p = col->data[0].p + start;
    *n = (size_t)(end - start);
    return UN_ROW_VALUE;
}

/* A view: length, then 12 inline bytes, or a 4-byte prefix, buffer index and offset. */
static un_row from_view(const un_column *col, int64_t i, const uint8_t **p, size_t *n) {
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

un_row un_column_get(const un_column *col, int64_t i, const uint8_t **p, size_t *n) {
    if (i < 0 || i >= col->length) return UN_ROW_MALFORMED;
    if (!valid(col, i)) return UN_ROW_NULL;
    return col->layout == UN_VIEWS ? from_view(col, i, p, n) : from_offsets(col, i, p, n);
}

void un_builder_free(un_builder *b) {
    un_buf_free(&b->views);
    un_buf_free(&b->validity);
}

void un_builder_reserve(un_builder *b, size_t rows) {
    un_buf_reserve(&b->views, rows * 16);
    un_buf_reserve(&b->validity, rows / 8 + 1);
}

int un_builder_failed(const un_builder *b) { return b->views.failed || b->validity.failed; }
