#include <string.h>

#include "kernel.h"

typedef struct {
    un_ctx ctx;
    un_url url, base;
    un_buf repaired, name;
    un_answers answers;
    un_domain_parts parts;
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
    un_buf_free(&w->name);
}

void un_ctx_free(un_ctx *c) {
    un_buf_free(&c->question);
    un_buf_free(&c->text);
    un_buf_free(&c->input);
    un_buf_free(&c->scratch);
    un_buf_free(&c->scratch2);
}

static int record_out(const un_batch *b) { return b->op == UN_OP_SPLIT || b->op == UN_OP_NORMALIZE_RECORD; }
static int text_columns(const un_batch *b) {
    if (b->op == UN_OP_DOMAIN_PARTS) return UN_N_PARTS;
    return record_out(b) ? UN_N_FIELDS : 1;
}

/* A row's outputs are appended on the first pass and overwritten in place (patch) once the
 * row's question has an answer; the helpers below do either. */

static void put_port(un_result *r, int64_t row, int32_t port, int patch) {
    uint16_t v = port >= 0 ? (uint16_t)port : 0;
    if (!patch) {
        un_buf_put(&r->port, (const uint8_t *)&v, sizeof v);
        if (row % 8 == 0) un_buf_putc(&r->port_validity, 0);
    } else if (!r->port.failed && !r->port_validity.failed) {
        memcpy(r->port.data + row * 2, &v, sizeof v);
        r->port_validity.data[row / 8] &= (uint8_t)~(1u << (row % 8));
    }
    if (port >= 0 && !r->port_validity.failed) r->port_validity.data[row / 8] |= (uint8_t)(1u << (row % 8));
}

static void put_text(un_builder *col, un_result *r, int64_t row, int patch, size_t start, size_t n) {
    if (patch) un_builder_set(col, row, &r->data, start, n, 1);
    else un_builder_view(col, &r->data, start, n);
}

static void put_null(un_builder *col, un_result *r, int64_t row, int patch) {
    if (patch) un_builder_set(col, row, &r->data, 0, 0, 0);
    else un_builder_null(col);
}

/* End a value written to r->data since start; a short one moves into its view. */
static void commit(un_builder *col, un_result *r, int64_t row, int patch, size_t start) {
    size_t n = r->data.len - start;
    put_text(col, r, row, patch, start, n);
    if (n <= 12) r->data.len = start;
}

static void emit_record(un_result *r, const un_url *u, int64_t row, int patch) {
    size_t at[UN_N_FIELDS];
    un_serialize_spans(u, &r->data, at);
    const un_buf *fields[UN_N_FIELDS] = {&u->scheme, &u->username, &u->password, &u->host, &u->path, &u->query, &u->fragment};
    int present[UN_N_FIELDS] = {u->has_scheme, u->has_username, u->has_password, u->has_host, 1, u->has_query, u->has_fragment};
    for (int i = 0; i < UN_N_FIELDS; i++) {
        if (present[i] && !r->data.failed) put_text(&r->text[i], r, row, patch, at[i], fields[i]->len);
        else put_null(&r->text[i], r, row, patch);
    }
    put_port(r, row, u->port, patch);
}

static void emit_parts(un_result *r, const worker *w, int64_t row, int patch) {
    size_t start = r->data.len;
    un_buf_put(&r->data, w->name.data, w->name.len);
    for (int i = 0; i < UN_N_PARTS; i++) {
        if (w->parts.present[i] && !r->data.failed) put_text(&r->text[i], r, row, patch, start + w->parts.start[i], w->parts.len[i]);
        else put_null(&r->text[i], r, row, patch);
    }
}

static void emit(const un_batch *b, un_result *r, const un_url *u, int64_t row, int patch) {
    size_t start = r->data.len;
    if (record_out(b)) {
        emit_record(r, u, row, patch);
        return;
    }
    if (b->op == UN_OP_SURT) un_surt_key(u, b->with_scheme, b->trailing_comma, &r->data);
    else un_serialize(u, &r->data); /* straight into the output column */
    commit(&r->text[0], r, row, patch, start);
}

/* Every output of a row for its status: the value, or nulls; the error name; the question. */
static void write_row(const un_batch *b, un_result *r, worker *w, int64_t row, int status, int patch) {
    if (status == 0 && b->op == UN_OP_DOMAIN_PARTS) {
        emit_parts(r, w, row, patch);
    } else if (status == 0) {
        emit(b, r, &w->url, row, patch);
    } else {
        for (int i = 0; i < text_columns(b); i++) put_null(&r->text[i], r, row, patch);
        if (record_out(b)) put_port(r, row, -1, patch);
    }
    uint8_t code = (uint8_t)(status < 0 ? 0 : status);
    if (patch) r->status.data[row] = code;
    else un_buf_putc(&r->status, code);
    if (status > 0 && status < UN_N_ERRORS) {
        put_text(&r->errors, r, row, patch, r->error_at[status], strlen(UN_ERROR_NAMES[status]));
    } else {
        put_null(&r->errors, r, row, patch);
    }
    if (status >= UN_ASK_HOST) {
        size_t start = r->data.len;
        un_buf_put(&r->data, w->ctx.question.data, w->ctx.question.len);
        commit(&r->question, r, row, patch, start);
    } else {
        put_null(&r->question, r, row, patch);
    }
}

static int compute(const un_batch *b, worker *w, int64_t row, const uint8_t *p, size_t n) {
    switch (b->op) {
    case UN_OP_NORMALIZE:
    case UN_OP_NORMALIZE_RECORD:
    case UN_OP_SURT: return un_normalize(&w->ctx, b->profile, p, n, &w->url);
    case UN_OP_SPLIT:
        return b->generic ? un_split_generic(p, n, &w->url) : un_whatwg_parse(&w->ctx, p, n, NULL, &w->url);
    case UN_OP_DOMAIN_PARTS:
        if (un_domain_parts_of(b->psl_table, p, n, &w->name, &w->parts) == 0) return UN_OK;
        un_buf_set(&w->ctx.question, p, n); /* not ASCII: Python lower-cases it */
        return UN_ASK_HOST;
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

/* The row's status (-1 for a null row); -2 if the input array is malformed. */
static int row_status(const un_batch *b, worker *w, int64_t row) {
    const uint8_t *p = NULL;
    size_t n = 0;
    un_row kind = un_column_get(&b->input, row, &p, &n);
    if (kind == UN_ROW_MALFORMED) return -2;
    if (kind == UN_ROW_NULL) return -1;
    int status = as_utf8(b, w, &p, &n);
    return status == UN_OK ? compute(b, w, row, p, n) : status;
}

/* ---- answers: each distinct question once, then the asking rows again ----------------------- */

typedef struct {
    int kind, code;
    size_t question, question_len, answer, answer_len; /* offsets into the blob */
} entry;

typedef struct {
    int64_t row;
    int32_t host, www; /* the entries answering the row, or -1 */
} asking;

typedef struct {
    un_buf entries, blob, slots, rows;
} answer_state;

static entry *entry_at(answer_state *s, int32_t i) { return (entry *)(void *)s->entries.data + i; }

static uint64_t question_hash(int kind, const uint8_t *p, size_t n) { return un_fnv1a(UN_FNV_SEED ^ (uint64_t)kind, p, n); }

/* The entry for (kind, question), asking b->answer when it is new; -1 on failure. */
static int32_t find_or_answer(const un_batch *b, answer_state *s, int kind, const uint8_t *q, size_t n, un_buf *scratch) {
    uint32_t *slots = (uint32_t *)(void *)s->slots.data;
    size_t mask = s->slots.len / sizeof *slots - 1;
    size_t i = question_hash(kind, q, n) & mask;
    for (; slots[i]; i = (i + 1) & mask) {
        entry *e = entry_at(s, (int32_t)slots[i] - 1);
        if (e->kind == kind && e->question_len == n && memcmp(s->blob.data + e->question, q, n) == 0) return (int32_t)slots[i] - 1;
    }
    entry e = {kind, 0, s->blob.len, n, 0, 0};
    un_buf_put(&s->blob, q, n);
    scratch->len = 0;
    e.code = b->answer(b->answer_data, kind, q, n, scratch);
    if (e.code < 0) return -1;
    e.answer = s->blob.len, e.answer_len = scratch->len;
    un_buf_put(&s->blob, scratch->data, scratch->len);
    un_buf_put(&s->entries, (const uint8_t *)&e, sizeof e);
    if (s->blob.failed || s->entries.failed) return -1;
    slots[i] = (uint32_t)(s->entries.len / sizeof e);
    return (int32_t)slots[i] - 1;
}

/* A table with room for every entry so far and n more questions. */
static int reset_slots(answer_state *s, size_t n) {
    size_t size = 16;
    while (size < 2 * (n + s->entries.len / sizeof(entry))) size *= 2;
    s->slots.len = 0;
    if (!un_buf_reserve(&s->slots, size * sizeof(uint32_t))) return 0;
    memset(s->slots.data, 0, size * sizeof(uint32_t));
    s->slots.len = size * sizeof(uint32_t);
    uint32_t *slots = (uint32_t *)(void *)s->slots.data;
    for (size_t k = 0; k < s->entries.len / sizeof(entry); k++) {
        entry *e = entry_at(s, (int32_t)k);
        size_t i = question_hash(e->kind, s->blob.data + e->question, e->question_len) & (size - 1);
        while (slots[i]) i = (i + 1) & (size - 1);
        slots[i] = (uint32_t)k + 1;
    }
    return 1;
}

static void load_answers(answer_state *s, worker *w, const asking *a) {
    un_answers *ans = &w->answers;
    memset(ans, 0, sizeof *ans);
    if (a->host >= 0) {
        const entry *e = entry_at(s, a->host);
        ans->host_error = e->code;
        ans->host = s->blob.data + e->answer, ans->host_len = e->answer_len;
    }
    if (a->www >= 0) {
        const entry *e = entry_at(s, a->www);
        ans->www = s->blob.data + e->answer, ans->www_len = e->answer_len;
    }
    w->ctx.answers = ans;
}

/* One round: answer the asking rows' questions, run them again; keep those that ask anew. */
static int answer_round(const un_batch *b, un_result *r, worker *w, answer_state *s) {
    asking *rows = (asking *)(void *)s->rows.data;
    size_t count = s->rows.len / sizeof *rows, still = 0;
    if (!reset_slots(s, count)) return -1;
    for (size_t k = 0; k < count; k++) {
        const uint8_t *q;
        size_t n;
        int kind = r->status.data[rows[k].row];
        if (!un_builder_view_of(&r->question, &r->data, rows[k].row, &q, &n)) return -1;
        int32_t e = find_or_answer(b, s, kind, q, n, &w->ctx.scratch2);
        if (e < 0) return -1;
        *(kind == UN_ASK_WWW ? &rows[k].www : &rows[k].host) = e;
    }
    for (size_t k = 0; k < count; k++) {
        load_answers(s, w, &rows[k]);
        int status = row_status(b, w, rows[k].row);
        if (status == -2) return -1;
        write_row(b, r, w, rows[k].row, status, 1);
        if (status >= UN_ASK_HOST) rows[still++] = rows[k];
    }
    s->rows.len = still * sizeof *rows;
    return 0;
}

/* A row asks once per kind of question at most, so two rounds answer every row. */
static int answer_questions(const un_batch *b, un_result *r, worker *w) {
    answer_state s;
    memset(&s, 0, sizeof s);
    for (int64_t row = 0; row < b->input.length; row++) {
        if (r->status.data[row] < UN_ASK_HOST) continue;
        asking a = {row, -1, -1};
        un_buf_put(&s.rows, (const uint8_t *)&a, sizeof a);
    }
    r->asked = (int64_t)(s.rows.len / sizeof(asking));
    int failed = s.rows.failed;
    for (int round = 0; round < 3 && s.rows.len && !failed; round++) failed = answer_round(b, r, w, &s) != 0;
    failed |= s.rows.len != 0;
    un_buf_free(&s.entries), un_buf_free(&s.blob), un_buf_free(&s.slots), un_buf_free(&s.rows);
    return failed ? -1 : 0;
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
    for (int64_t row = 0; row < b->input.length && !failed; row++) {
        int status = row_status(b, &w, row);
        failed = status == -2;
        if (!failed) write_row(b, r, &w, row, status, 0);
    }
    failed = failed || r->status.failed || r->question.views.failed || r->data.failed;
    if (!failed && b->answer) failed = answer_questions(b, r, &w) != 0;
    worker_free(&w);
    for (int i = 0; i < text_columns(b); i++) failed |= un_builder_failed(&r->text[i]);
    failed |= un_builder_failed(&r->errors) || un_builder_failed(&r->question) || r->data.failed;
    failed |= r->status.failed || r->port.failed || r->port_validity.failed;
    return failed ? -1 : 0;
}
