#include <string.h>

#include "kernel.h"

typedef struct {
    un_ctx ctx;
    un_url url, base;
    un_buf repaired;
    un_answers answers;
} worker;

void un_result_init(un_result *r) {
    memset(r, 0, sizeof *r);
    for (int i = 0; i < UN_N_SPLIT_TEXT; i++) un_builder_init(&r->text[i]);
    un_builder_init(&r->question);
}

void un_result_free(un_result *r) {
    for (int i = 0; i < UN_N_SPLIT_TEXT; i++) un_builder_free(&r->text[i]);
    un_builder_free(&r->question);
    un_buf_free(&r->port);
    un_buf_free(&r->port_validity);
    un_buf_free(&r->status);
}

static void worker_free(worker *w) {
    un_ctx_free(&w->ctx);
    un_url_free(&w->url);
    un_url_free(&w->base);
    un_buf_free(&w->repaired);
}

void un_ctx_free(un_ctx *c) {
    un_buf_free(&c->question);
    un_buf_free(&c->text);
    un_buf_free(&c->input);
    un_buf_free(&c->scratch);
    un_buf_free(&c->scratch2);
}

static int record_out(const un_batch *b) { return b->op == UN_OP_SPLIT || b->op == UN_OP_NORMALIZE_RECORD; }
static int text_columns(const un_batch *b) { return record_out(b) ? UN_N_SPLIT_TEXT : 1; }

static void put_port(un_result *r, int64_t row, int32_t port) {
    uint16_t v = port >= 0 ? (uint16_t)port : 0;
    un_buf_put(&r->port, (const uint8_t *)&v, sizeof v);
    if (row % 8 == 0) un_buf_putc(&r->port_validity, 0);
    if (port >= 0 && r->port_validity.len) r->port_validity.data[r->port_validity.len - 1] |= (uint8_t)(1u << (row % 8));
}

static void null_row(const un_batch *b, un_result *r, int64_t row) {
    for (int i = 0; i < text_columns(b); i++) un_builder_null(&r->text[i]);
    if (record_out(b)) put_port(r, row, -1);
}

static void put_field(un_builder *col, const un_buf *value, int present) {
    if (present) un_builder_append(col, value->data, value->len);
    else un_builder_null(col);
}

static void emit(const un_batch *b, un_result *r, worker *w, int64_t row) {
    const un_url *u = &w->url;
    if (b->op == UN_OP_SURT) {
        un_surt_key(u, b->with_scheme, b->trailing_comma, &r->text[0].data);
        un_builder_commit(&r->text[0]);
        return;
    }
    if (!record_out(b)) {
        un_serialize(u, &r->text[0].data); /* straight into the output column */
        un_builder_commit(&r->text[0]);
        return;
    }
    put_field(&r->text[0], &u->scheme, u->has_scheme);
    put_field(&r->text[1], &u->username, u->has_username);
    put_field(&r->text[2], &u->password, u->has_password);
    put_field(&r->text[3], &u->host, u->has_host);
    put_field(&r->text[4], &u->path, 1);
    put_field(&r->text[5], &u->query, u->has_query);
    put_field(&r->text[6], &u->fragment, u->has_fragment);
    put_port(r, row, u->port);
}

static void load_answers(const un_batch *b, worker *w, int64_t row) {
    un_answers *a = &w->answers;
    memset(a, 0, sizeof *a);
    if (b->host_answer) {
        if (un_column_get(b->host_answer, row, &a->host, &a->host_len) != UN_ROW_VALUE) a->host = NULL;
    }
    if (b->host_error) a->host_error = b->host_error[row];
    if (b->www_answer) {
        if (un_column_get(b->www_answer, row, &a->www, &a->www_len) != UN_ROW_VALUE) a->www = NULL;
    }
    w->ctx.answers = a;
}

static int compute(const un_batch *b, worker *w, int64_t row, const uint8_t *p, size_t n) {
    switch (b->op) {
    case UN_OP_NORMALIZE:
    case UN_OP_NORMALIZE_RECORD:
    case UN_OP_SURT: return un_normalize(&w->ctx, b->profile, p, n, &w->url);
    case UN_OP_SPLIT:
        return b->generic ? un_split_generic(p, n, &w->url) : un_whatwg_parse(&w->ctx, p, n, NULL, &w->url);
    case UN_OP_JOIN: {
        const uint8_t *bp = NULL;
        size_t bn = 0;
        int64_t base_row = b->base->length == 1 ? 0 : row;
        if (un_column_get(b->base, base_row, &bp, &bn) != UN_ROW_VALUE) return -1;
        w->ctx.answers = NULL; /* a join that needs UTS #46 goes to the core whole */
        return un_join(&w->ctx, b->join_mode, bp, bn, p, n, &w->base, &w->url);
    }
    }
    return UN_ERR_MEMORY;
}

/* The row's bytes as UTF-8: invalid ones are an error, or percent-encoded when asked. */
static int as_utf8(const un_batch *b, worker *w, const uint8_t **p, size_t *n) {
    if (un_valid_utf8(*p, *n)) return UN_OK;
    if (!b->encode_invalid_utf8) return UN_ERR_INVALID_UTF8;
    w->repaired.len = 0;
    un_encode_invalid_utf8(&w->repaired, *p, *n);
    if (w->repaired.failed) return UN_ERR_MEMORY;
    *p = w->repaired.data ? w->repaired.data : (const uint8_t *)"", *n = w->repaired.len;
    return UN_OK;
}

static int run_row(const un_batch *b, un_result *r, worker *w, int64_t row) {
    const uint8_t *p = NULL;
    size_t n = 0;
    un_row kind = un_column_get(&b->input, row, &p, &n);
    if (kind == UN_ROW_MALFORMED) return -1;
    int status = UN_OK;
    if (kind == UN_ROW_NULL) {
        status = -1;
    } else {
        load_answers(b, w, row);
        status = as_utf8(b, w, &p, &n);
        if (status == UN_OK) status = compute(b, w, row, p, n);
    }
    if (status == 0) emit(b, r, w, row);
    else null_row(b, r, row);
    un_buf_putc(&r->status, (uint8_t)(status < 0 ? 0 : status));
    if (status >= UN_ASK_HOST) un_builder_append(&r->question, w->ctx.question.data, w->ctx.question.len);
    else un_builder_null(&r->question);
    return 0;
}

/* The input's bytes, so that the outputs are allocated once rather than grown per batch. */
static size_t input_bytes(const un_column *col) {
    size_t total = 0;
    for (int64_t row = 0; row < col->length; row++) {
        const uint8_t *p;
        size_t n;
        if (un_column_get(col, row, &p, &n) == UN_ROW_VALUE) total += n;
    }
    return total;
}

static void reserve_outputs(const un_batch *b, un_result *r) {
    size_t rows = (size_t)b->input.length, bytes = input_bytes(&b->input);
    for (int i = 0; i < text_columns(b); i++) {
        un_buf_reserve(&r->text[i].offsets, (rows + 1) * sizeof(int64_t));
        un_buf_reserve(&r->text[i].validity, rows / 8 + 1);
        /* a normalised URL is about as long as its input; split's columns share it out */
        un_buf_reserve(&r->text[i].data, text_columns(b) == 1 ? bytes + bytes / 8 + 64 : bytes / 2 + 64);
    }
    un_buf_reserve(&r->status, rows);
}

int un_run_batch(const un_batch *b, un_result *r) {
    worker w;
    memset(&w, 0, sizeof w);
    reserve_outputs(b, r);
    int failed = 0;
    for (int64_t row = 0; row < b->input.length && !failed; row++) failed = run_row(b, r, &w, row) != 0;
    worker_free(&w);
    for (int i = 0; i < text_columns(b); i++) failed |= un_builder_failed(&r->text[i]);
    failed |= un_builder_failed(&r->question) || r->status.failed || r->port.failed || r->port_validity.failed;
    return failed ? -1 : 0;
}
