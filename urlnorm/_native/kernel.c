#include <string.h>

#include "kernel.h"

typedef struct {
    un_ctx ctx;
    un_url url, base;
    un_buf repaired;
    un_answers answers;
} worker;

void un_result_init(un_result *r) { memset(r, 0, sizeof *r); }

void un_result_free(un_result *r) {
    un_buf_free(&r->data);
    for (int i = 0; i < UN_N_FIELDS; i++) un_builder_free(&r->text[i]);
    un_builder_free(&r->errors);
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
static int text_columns(const un_batch *b) { return record_out(b) ? UN_N_FIELDS : 1; }

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

/* End a value written to r->data since start; a short one moves into its view. */
static void commit(un_builder *col, un_result *r, size_t start) {
    size_t n = r->data.len - start;
    un_builder_view(col, &r->data, start, n);
    if (n <= 12) r->data.len = start;
}

static void emit_record(un_result *r, const un_url *u, int64_t row) {
    size_t at[UN_N_FIELDS];
    un_serialize_spans(u, &r->data, at);
    const un_buf *fields[UN_N_FIELDS] = {&u->scheme, &u->username, &u->password, &u->host, &u->path, &u->query, &u->fragment};
    int present[UN_N_FIELDS] = {u->has_scheme, u->has_username, u->has_password, u->has_host, 1, u->has_query, u->has_fragment};
    for (int i = 0; i < UN_N_FIELDS; i++) {
        if (present[i] && !r->data.failed) un_builder_view(&r->text[i], &r->data, at[i], fields[i]->len);
        else un_builder_null(&r->text[i]);
    }
    put_port(r, row, u->port);
}

static void emit(const un_batch *b, un_result *r, worker *w, int64_t row) {
    const un_url *u = &w->url;
    size_t start = r->data.len;
    if (record_out(b)) {
        emit_record(r, u, row);
        return;
    }
    if (b->op == UN_OP_SURT) un_surt_key(u, b->with_scheme, b->trailing_comma, &r->data);
    else un_serialize(u, &r->data); /* straight into the output column */
    commit(&r->text[0], r, start);
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
    if (!b->check_utf8 || un_valid_utf8(*p, *n)) return UN_OK; /* Arrow strings are UTF-8 */
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
    if (status > 0 && status < UN_N_ERRORS) {
        un_builder_view(&r->errors, &r->data, r->error_at[status], strlen(UN_ERROR_NAMES[status]));
    } else {
        un_builder_null(&r->errors);
    }
    if (status >= UN_ASK_HOST) {
        size_t start = r->data.len;
        un_buf_put(&r->data, w->ctx.question.data, w->ctx.question.len);
        commit(&r->question, r, start);
    } else {
        un_builder_null(&r->question);
    }
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

/* Outputs are allocated once for the batch: a normalised URL is about as long as its input,
 * and the error names are written once for every row's view to point at. */
static void reserve_outputs(const un_batch *b, un_result *r) {
    size_t rows = (size_t)b->input.length, bytes = input_bytes(&b->input);
    un_buf_reserve(&r->data, bytes + bytes / 8 + 1024);
    for (int i = 1; i < UN_N_ERRORS; i++) {
        r->error_at[i] = r->data.len;
        un_buf_puts(&r->data, UN_ERROR_NAMES[i]);
    }
    for (int i = 0; i < text_columns(b); i++) un_builder_reserve(&r->text[i], rows);
    un_builder_reserve(&r->errors, rows);
    un_builder_reserve(&r->question, rows);
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
    failed |= un_builder_failed(&r->errors) || un_builder_failed(&r->question) || r->data.failed;
    failed |= r->status.failed || r->port.failed || r->port_validity.failed;
    return failed ? -1 : 0;
}
