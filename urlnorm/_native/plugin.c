/* Polars' expression plugin interface; see plugin.h. Polars loads this library (the
 * extension Python loaded: one copy, one set of calls), checks its version, asks each call's
 * output field when it plans a query, and runs the call on each batch. */
#define _POSIX_C_SOURCE 200809L
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE /* pthread_getname_np, which _POSIX_C_SOURCE alone hides */
#endif
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os_threads.h"
#include "plugin.h"

#if defined(__linux__)
#include <sys/prctl.h>
#elif defined(__APPLE__)
#include <pthread.h>
#endif

/* polars-ffi's version: 0.1 passes the keyword arguments to the field function too. */
#define PLUGIN_MAJOR 0u
#define PLUGIN_MINOR 1u

/* ---- the calls ----------------------------------------------------------------------------- */

static const un_call *calls[UN_MAX_CALLS];
static atomic_int n_calls;

static const un_call *call_named(const uint8_t *key, size_t len) {
    int n = atomic_load_explicit(&n_calls, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (calls[i]->key_len == len && memcmp(calls[i]->key, key, len) == 0) return calls[i];
    return NULL;
}

int un_call_register(un_call *call) {
    int n = atomic_load_explicit(&n_calls, memory_order_relaxed);
    if (n == UN_MAX_CALLS || call_named(call->key, call->key_len)) return -1;
    calls[n] = call;
    atomic_store_explicit(&n_calls, n + 1, memory_order_release);
    return n;
}

/* ---- errors: Polars reads the last one of the thread that failed ------------------------------ */

static UN_THREAD_LOCAL char last_error[512];

static void failed(const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(last_error, sizeof last_error, format, args);
    va_end(args);
}

UN_EXPORT uint32_t _polars_plugin_get_version(void) { return PLUGIN_MAJOR << 16 | PLUGIN_MINOR; }

UN_EXPORT const char *_polars_plugin_get_last_error_message(void) { return last_error; }

/* ---- the output's field ------------------------------------------------------------------------- */

/* A schema that keeps the kernel's and carries a name of its own (the input column's). */
typedef struct {
    struct ArrowSchema inner;
    char name[];
} named_schema;

static void named_release(struct ArrowSchema *s) {
    named_schema *n = s->private_data;
    if (n->inner.release) n->inner.release(&n->inner);
    free(n);
    s->release = NULL;
}

static int rename_schema(struct ArrowSchema *s, const char *name) {
    size_t len = strlen(name);
    named_schema *n = malloc(sizeof *n + len + 1);
    if (!n) return -1;
    n->inner = *s;
    memcpy(n->name, name, len + 1);
    s->name = n->name, s->release = named_release, s->private_data = n;
    return 0;
}

/* The struct's one column moved out of it, the struct released (the kernel's nodes each hold
 * their own reference: c_data.c). */
static void only_column(struct ArrowSchema *s, struct ArrowArray *a) {
    struct ArrowSchema column = *s->children[0];
    s->children[0]->release = NULL;
    s->release(s);
    *s = column;
    if (!a) return;
    struct ArrowArray values = *a->children[0];
    a->children[0]->release = NULL;
    a->release(a);
    *a = values;
}

/* A slice's result exported as the call hands it back: the struct, or its one column. */
static int exported(const un_call *c, const un_batch *b, un_result *r, int64_t rows, struct ArrowSchema *s,
                    struct ArrowArray *a) {
    int done = un_result_export(b, r, rows, c->columns, c->columns_len, s, a);
    if (done == 0 && c->single) only_column(s, a);
    return done;
}

int un_call_schema(const un_call *c, const char *name, struct ArrowSchema *out) {
    un_result r;
    struct ArrowArray a;
    un_result_init(&r);
    int done = exported(c, &c->batch, &r, 0, out, &a);
    un_result_free(&r);
    if (done != 0) return done;
    a.release(&a);
    if (rename_schema(out, name) == 0) return 0;
    out->release(out);
    return -1;
}

/* Polars 0.1: the fields of the inputs, the output's field to write, the keyword arguments. */
UN_EXPORT void _polars_plugin_field_call(const struct ArrowSchema *fields, size_t n_fields, struct ArrowSchema *out,
                                         const uint8_t *kwargs, size_t kwargs_len) {
    const un_call *c = call_named(kwargs, kwargs_len);
    int done = !c ? -3 : n_fields != 1 ? -4 : un_call_schema(c, fields[0].name ? fields[0].name : "", out);
    if (done == -1) failed("urlnorm: out of memory");
    if (done == -2) failed("urlnorm: a call's columns are not its operation's");
    if (done == -3) failed("urlnorm: no such compiled call (was it made in this process?)");
    if (done == -4) failed("urlnorm: a call takes one column");
}

/* ---- a batch ---------------------------------------------------------------------------------- */

/* The chunks handed back, and the field they share. */
typedef struct {
    struct ArrowSchema field;
    size_t n;
    struct ArrowArray **pointers;
    struct ArrowArray arrays[];
} output;

static void output_free(output *o) {
    if (o->field.release) o->field.release(&o->field);
    free(o->pointers);
    free(o);
}

/* Polars has copied the chunks out and releases them itself: only the rest goes here. */
static void output_release(series_export *e) {
    output_free(e->private_data);
    e->release = NULL;
}

static void release_input(series_export *in) {
    for (size_t i = 0; i < in->len; i++)
        if (in->arrays[i]->release) in->arrays[i]->release(in->arrays[i]);
    if (in->release) in->release(in);
}

/* The text of a view chunk's rows longer than 12 bytes (a shorter one is inside its view),
 * estimated from up to 256 of its rows, evenly spaced. */
static int64_t view_text(const un_column *col) {
    int64_t step = col->length / 256 + 1, seen = 0, text = 0;
    for (int64_t i = 0; i < col->length; i += step, seen++) {
        const uint8_t *p;
        size_t len;
        if (un_column_get(col, i, &p, &len) == UN_ROW_VALUE && len > 12) text += (int64_t)len;
    }
    return seen ? text / seen * col->length : 0;
}

/* A chunk's bytes as its rows read them: their offsets or views, and their text. A chunk
 * sliced from a longer column (a Polars slice, a streaming engine's morsel) shares that
 * column's buffers, whose sizes say nothing of its rows: a 16-row slice of a million-row
 * column was cut in two for two threads, and cost 43 us a call against 17 on one. */
static int64_t chunk_bytes(const un_column *col) {
    if (col->layout == UN_VIEWS) return 16 * col->length + view_text(col);
    size_t width = col->layout == UN_OFFSETS32 ? 4 : 8;
    uint64_t first = (uint64_t)col->offset, last = first + (uint64_t)col->length;
    if ((last + 1) * width > col->offsets_size) return (int64_t)col->offsets_size; /* malformed: its rows say so */
    int64_t text = un_read_offset(col->offsets + last * width, width) - un_read_offset(col->offsets + first * width, width);
    return (int64_t)width * col->length + (text > 0 ? text : 0);
}

/* Slices a thread, where each holds BALANCE_BYTES or more: rows of the same bytes are not the
 * same work (the corpora's lists differ), and two slices of a 50,000-row call, one a thread,
 * ended 180 us apart on average, a tenth of the call; as many as the threads take them in
 * turn, so that one that ends early takes another. A slice has a cost of its own: at 64 KiB
 * a slice a 10,000-row corpora call (550 KiB) ran x1.65-1.72 as fast on two threads as on one,
 * in two slices x1.75-1.85. */
#define BALANCE_SLICES 4
#define BALANCE_BYTES ((int64_t)1 << 18)

/* How many slices to cut `bytes` into for balance: the same whole number for each thread, at
 * most BALANCE_SLICES, of BALANCE_BYTES or more each. A slice left over would leave one
 * thread a slice more than another: three slices on two threads run as two on one (10,000
 * messy rows, 800 KiB, ran x1.47 as fast on two threads as on one in three slices). */
static int64_t balanced_slices(int64_t bytes, int threads) {
    int64_t each = bytes / BALANCE_BYTES / threads;
    return (each < BALANCE_SLICES ? each : BALANCE_SLICES) * threads;
}

/* Whether the call's output is one text column. */
static int text_output(const un_call *c, const struct ArrowSchema *field) { return c->single && strcmp(field->format, "vu") == 0; }

/* Whether the call's slices are joined into one array a chunk (join_slices): its output is
 * one text column, or a struct whose columns un_struct_join joins. */
static int joins_slices(const un_call *c, const struct ArrowSchema *field) { return text_output(c, field) || un_struct_joins(field); }

/* Where a chunk's slices were placed (place_slices): the views of each text column placed. */
typedef struct {
    const uint8_t *views[UN_N_COLUMNS + 1];
    int n;
} placed_views;

/* The rows a slice holds (un_slice_rows), by the rows and bytes of every chunk together: the
 * slices are cut by rows across the column, not a thread's share of each chunk. Where they
 * are joined (a text column, a struct), more than the threads (balanced_slices); where there
 * are several, a whole number of bytes of validity each, so that each writes its own in place
 * (place_slices). */
static int64_t slice_rows(const un_call *c, const un_column *cols, size_t n, int joined) {
    int64_t rows = 0, bytes = 0;
    for (size_t i = 0; i < n; i++) rows += cols[i].length, bytes += chunk_bytes(&cols[i]);
    int64_t each = un_slice_rows(rows, bytes, c->threads, c->min_slice_bytes, c->max_slice_bytes);
    int64_t pieces = joined && c->threads > 1 ? balanced_slices(bytes, c->threads) : 0;
    if (pieces > c->threads) {
        int64_t finer = un_slice_rows(rows, bytes, (int)pieces, 1, c->max_slice_bytes);
        each = finer < each ? finer : each;
    }
    return each < rows ? (each + 7) / 8 * 8 : each;
}

/* How many slices of `rows` rows the chunk makes (an empty chunk is one empty slice). */
static int64_t slice_count(const un_column *col, int64_t rows) {
    return col->length / rows + (col->length % rows != 0 || col->length == 0);
}

/* How many slices the chunks make: the arrays handed back. */
static size_t slices_of(const un_column *cols, size_t n, int64_t rows) {
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += (size_t)slice_count(&cols[i], rows);
    return total;
}

/* A chunk's last n slices of one text column, or of a struct, as one array, as the chunk came
 * in: a column of many chunks would run a later query on Polars' thread pool, which a forked
 * worker (Spark's, Ray's) does not have. The text is not copied, nor the views where the
 * slices were placed in one block (place_slices). If memory runs out, copied slices of a text
 * column stay chunks of their own; placed ones, whose views name the joined column's buffers,
 * and a struct's, fail the call (-1). */
static int join_slices(const un_call *c, output *o, int n, const placed_views *placed, un_hold *lender) {
    struct ArrowArray joined, *parts = &o->arrays[o->n - (size_t)n];
    if (!joins_slices(c, &o->field)) return 0;
    if (!text_output(c, &o->field)) {
        /* Placed slices name buffers they do not have until they are joined. */
        int done = un_struct_join(parts, n, &o->field, placed->views, placed->n, lender, &joined);
        if (done <= 0) return placed->n || done < 0 ? -1 : 0;
    } else if (placed->n && un_views_join_placed(parts, n, placed->views[0], lender, &joined) != 0) {
        return -1; /* the parts alone are not columns */
    } else if (!placed->n && un_views_join(parts, n, &joined) != 0) {
        return 0;
    }
    o->n -= (size_t)n;
    o->arrays[o->n++] = joined;
    return 0;
}

/* Each chunk's batch and its slices, in order: rows rows a slice. */
static void plan(const un_call *c, const un_column *cols, un_hold *const *lenders, size_t n, int text, int64_t rows,
                 un_batch *batches, un_slice *slices) {
    size_t at = 0;
    for (size_t k = 0; k < n; k++) {
        un_batch *b = &batches[k];
        *b = c->batch;
        b->input = cols[k];
        b->lender = lenders ? lenders[k] : NULL;
        b->quiet = un_names_quiet(c->columns, c->columns_len);
        b->check_utf8 = !text && c->utf8 != UN_UTF8_TEXT, b->encode_invalid_utf8 = b->check_utf8 && c->utf8 == UN_UTF8_ENCODE;
        b->utf8_rows = text || b->check_utf8;
        for (int64_t i = 0; i < slice_count(&cols[k], rows); i++) {
            int64_t end = (i + 1) * rows < cols[k].length ? (i + 1) * rows : cols[k].length;
            slices[at++] = (un_slice){(int)k, i * rows, end};
        }
    }
}

/* ---- a chunk's slices built in place ---------------------------------------------------------
 * Joining the slices of a text column copied every view and mended its buffer index: on two
 * threads, 137 us of a 1.7 ms call over 50,000 URLs, most of it reading the views the other
 * core had just written. So each slice writes its views and validity at its rows' place in
 * one block for the chunk, naming the buffers the joined column will have, and the join
 * copies nothing. */

/* The text columns the call's slices are placed for (columns[0..n), the count): its one
 * output column (field), where that is a text column of one view a row, or every text column
 * of a struct but a list's (and its error column: place_slices). Quiet, a call's one column of
 * views is a text column, and the one wanted. A slice's text columns are all placed or none:
 * their views name their data by the same index (un_result's data_index). */
static int placed_columns(const un_call *c, const struct ArrowSchema *field, const un_batch *b, int *columns) {
    int n = 0;
    if (!joins_slices(c, field) || un_list_out(b) || (text_output(c, field) && !b->quiet)) return 0;
    for (int i = 0; i < un_text_columns(b); i++)
        if (un_text_wanted(b, i)) columns[n++] = i;
    return text_output(c, field) && n != 1 ? 0 : n;
}

/* The bytes of a placed column's views and validity for `rows` rows, to a multiple of 64 so
 * that the next column's views are aligned as a 64-byte block is: Polars copies views it is
 * handed unaligned (a 25,000-row chunk's second column lay 2 bytes past a multiple of 4). */
static size_t placed_bytes(int64_t rows) { return ((size_t)rows * 16 + (size_t)rows / 8 + 1 + 63) & ~(size_t)63; }

static void block_release(un_hold *h) {
    un_buf_free(h->owner);
    free(h->owner), free(h);
}

/* The block of `columns` columns of `rows` rows: each its views, then its validity; NULL if
 * memory ran out. */
static un_hold *column_block(int64_t rows, int columns) {
    un_hold *h = malloc(sizeof *h);
    un_buf *block = calloc(1, sizeof *block);
    if (!h || !block || !un_buf_reserve(block, placed_bytes(rows) * (size_t)columns)) {
        if (block) un_buf_free(block);
        return free(block), free(h), NULL;
    }
    atomic_init(&h->refs, 1);
    h->release = block_release, h->owner = block, h->n_data = 0;
    return h;
}

/* The slices [first, end) of batch b, one chunk's, placed in a block of its rows, each slice's
 * result holding it, and their views naming the buffers of the column they are joined into:
 * each slice's data, then the lender's (un_views_join_placed). The views of each column
 * placed; none where they are not placed (one slice, no such column, a slice that does not
 * start on a byte of validity, or no memory). */
static placed_views place_slices(const un_call *c, const struct ArrowSchema *field, const un_batch *b, const un_slice *slices,
                                 size_t first, size_t end, un_result *results) {
    placed_views placed = {.n = 0};
    int columns[UN_N_COLUMNS], n = placed_columns(c, field, b, columns);
    if (end - first < 2 || n == 0) return placed;
    for (size_t i = first; i < end; i++)
        if (slices[i].start % 8 != 0) return placed;
    /* A struct's error column too, whose views name each slice's error names as its data. */
    int errors = !text_output(c, field) && !b->quiet;
    un_hold *h = column_block(b->input.length, n + errors);
    if (!h) return placed;
    for (int k = 0; k < n + errors; k++) {
        uint8_t *views = ((un_buf *)h->owner)->data + placed_bytes(b->input.length) * (size_t)k, *validity = views + 16 * b->input.length;
        for (size_t i = first; i < end; i++) {
            const un_slice *s = &slices[i];
            un_builder *column = k < n ? &results[i].text[columns[k]] : &results[i].errors;
            un_builder_place(column, views + 16 * s->start, validity + s->start / 8, (size_t)(s->end - s->start));
        }
        placed.views[placed.n++] = views;
    }
    for (size_t i = first; i < end; i++) {
        un_hold_take(results[i].placed = h);
        results[i].data_index = (int32_t)(i - first), results[i].lent_skip = (int32_t)(end - first - 1);
    }
    un_hold_drop(h);
    return placed;
}

/* The slices of each chunk that has several placed (place_slices); placed[k], chunk k's. */
static void place_chunks(const un_call *c, const struct ArrowSchema *field, const un_batch *batches, const un_slice *slices,
                         size_t n, un_result *results, placed_views *placed) {
    for (size_t first = 0, end; first < n; first = end) {
        for (end = first + 1; end < n && slices[end].batch == slices[first].batch;) end++;
        placed[slices[first].batch] = place_slices(c, field, &batches[slices[first].batch], slices, first, end, results);
    }
}

/* Each slice's result exported into o's next array, a chunk's slices joined. 0, or -1. */
static int export_slices(const un_call *c, const un_batch *batches, const un_slice *slices, size_t n, un_result *results,
                         const placed_views *placed, output *o) {
    for (size_t i = 0, first = 0; i < n; i++) {
        struct ArrowSchema s;
        if (exported(c, &batches[slices[i].batch], &results[i], slices[i].end - slices[i].start, &s, &o->arrays[o->n]) != 0) return -1;
        o->n++, s.release(&s);
        if (i + 1 < n && slices[i + 1].batch == slices[i].batch) continue;
        const un_batch *b = &batches[slices[i].batch];
        if (i > first && join_slices(c, o, (int)(i - first + 1), &placed[slices[i].batch], b->lender) != 0) return -1;
        first = i + 1;
    }
    return 0;
}

/* Every chunk's slices, run together on the call's threads, exported into o. 0, or -1 with
 * the error set. */
static int run_chunks(const un_call *c, const un_column *cols, un_hold *const *lenders, size_t n_chunks, int text, int64_t rows,
                      output *o) {
    size_t n = slices_of(cols, n_chunks, rows);
    un_batch *batches = malloc(n_chunks * sizeof *batches);
    un_slice *slices = malloc(n * sizeof *slices);
    un_result *results = calloc(n, sizeof *results);
    placed_views *placed = calloc(n_chunks, sizeof *placed);
    char why[400] = "urlnorm: out of memory";
    int done = batches && slices && results && placed ? 0 : -1;
    if (done == 0) {
        for (size_t i = 0; i < n; i++) un_result_init(&results[i]);
        plan(c, cols, lenders, n_chunks, text, rows, batches, slices);
        place_chunks(c, &o->field, batches, slices, n, results, placed);
        done = c->run(c, batches, (int)n_chunks, slices, (int)n, results, why, sizeof why);
    }
    if (done == 0 && export_slices(c, batches, slices, n, results, placed, o) != 0) done = -1, snprintf(why, sizeof why, "urlnorm: out of memory");
    for (size_t i = 0; results && i < n; i++) un_result_free(&results[i]);
    free(batches), free(slices), free(results), free(placed);
    if (done != 0) failed("%s", why);
    return done;
}

/* A chunk as the kernel reads it: strings or binary as they are; a Categorical's values
 * gathered into views (in *owned, which the caller frees); a column of the Null type as
 * rows that are all null (a validity bitmap of no bytes reads as null). */
static un_import chunk_column(const struct ArrowSchema *s, const struct ArrowArray *a, un_bytes *data, un_column *col,
                              int *text, uint8_t **owned) {
    static const uint8_t no_rows[1];
    if (s->format && strcmp(s->format, "n") == 0) {
        *col = (un_column){.layout = UN_VIEWS, .length = a->length < 0 ? 0 : a->length, .validity = no_rows};
        return UN_IMPORTED;
    }
    if (!un_is_dictionary(s)) return un_column_import(s, a, data, col, text);
    size_t rows = a->length < 0 ? 0 : (size_t)a->length;
    if (!(*owned = malloc(16 * rows + (rows + 7) / 8 + 1))) return failed("urlnorm: out of memory"), UN_MALFORMED_ARRAY;
    return un_dictionary_import(s, a, data, *owned, *owned + 16 * rows, col, text);
}

/* The input's chunks read as columns; 0, or -1 with the error set. */
static int read_chunks(const series_export *in, un_column *cols, un_bytes *data, uint8_t **owned, int *text) {
    for (size_t i = 0; i < in->len; i++) {
        un_import read = chunk_column(in->field, in->arrays[i], data + i * UN_MAX_DATA_BUFFERS, &cols[i], text, &owned[i]);
        if (read == UN_NOT_TEXT)
            return failed("urlnorm: URL columns must be strings, binary or categorical, not Arrow format '%s' (cast them to String)",
                          in->field->format), -1;
        if (read != UN_IMPORTED && !last_error[0]) failed("urlnorm: a malformed Arrow array");
        if (read != UN_IMPORTED) return -1;
    }
    return 0;
}

static void lent_release(un_hold *h) {
    struct ArrowArray *chunk = h->owner;
    chunk->release(chunk);
    free(chunk), free(h);
}

/* The chunk's data buffers lent to the results (un_hold), the chunk moved out of the input
 * into what keeps them; NULL (the values are copied) where it has none, or memory ran out. */
static un_hold *lend(struct ArrowArray *chunk, const un_column *col) {
    if (col->n_data < 1 || !chunk->release) return NULL;
    un_hold *h = malloc(sizeof *h + (size_t)col->n_data * sizeof h->data[0]);
    struct ArrowArray *owner = malloc(sizeof *owner);
    if (!h || !owner) return free(h), free(owner), NULL;
    *owner = *chunk, chunk->release = NULL;
    atomic_init(&h->refs, 1);
    h->release = lent_release, h->owner = owner, h->n_data = col->n_data;
    memcpy(h->data, col->data, (size_t)col->n_data * sizeof h->data[0]);
    return h;
}

/* The call over every chunk of the input; its output, or NULL with the error set. Where the
 * call owns the input (lending), the output's views may point into its buffers. */
static output *run_call(const un_call *c, const series_export *in, int lending) {
    size_t n = in->len ? in->len : 1;
    un_column *cols = calloc(n, sizeof *cols);
    uint8_t **owned = calloc(n, sizeof *owned);
    un_bytes *data = malloc(n * UN_MAX_DATA_BUFFERS * sizeof *data);
    un_hold **lenders = lending ? calloc(n, sizeof *lenders) : NULL;
    output *o = NULL;
    struct ArrowSchema field = {0};
    int text = 1, ok = cols && owned && data && (!lending || lenders) && read_chunks(in, cols, data, owned, &text) == 0;
    for (size_t i = 0; ok && lenders && i < in->len; i++) lenders[i] = lend(in->arrays[i], &cols[i]);
    if (ok && un_call_schema(c, in->field->name ? in->field->name : "", &field) != 0) ok = 0;
    int64_t rows = ok ? slice_rows(c, cols, in->len, joins_slices(c, &field)) : 1;
    size_t slices = ok ? slices_of(cols, in->len, rows) : 0;
    if (ok && !(o = calloc(1, sizeof *o + (slices ? slices : 1) * sizeof(struct ArrowArray)))) ok = 0;
    if (o) o->field = field, field.release = NULL;
    if (field.release) field.release(&field);
    if (ok && !(o->pointers = malloc((slices ? slices : 1) * sizeof *o->pointers))) ok = 0;
    if (!ok && !last_error[0]) failed("urlnorm: out of memory");
    if (ok) ok = run_chunks(c, cols, lenders, in->len, text, rows, o) == 0;
    for (size_t i = 0; owned && i < n; i++) free(owned[i]);
    for (size_t i = 0; lenders && i < n; i++)
        if (lenders[i]) un_hold_drop(lenders[i]);
    free(cols), free(owned), free(data), free(lenders);
    if (ok) return o;
    for (size_t i = 0; o && i < o->n; i++) o->arrays[i].release(&o->arrays[i]);
    if (o) output_free(o);
    return NULL;
}

const un_call *un_call_at(int index) {
    int n = atomic_load_explicit(&n_calls, memory_order_acquire);
    return index >= 0 && index < n ? calls[index] : NULL;
}

const char *un_call_error(void) { return last_error; }

int un_call_stream(const un_call *c, const series_export *in, int lending, struct ArrowArrayStream *out) {
    last_error[0] = '\0';
    if (in->len == 0) return failed("urlnorm: a call's input has no chunks"), -1;
    output *o = run_call(c, in, lending);
    if (!o) return -1;
    int done = un_stream_export(&o->field, o->arrays, (int)o->n, out);
    if (done != 0) {
        failed("urlnorm: out of memory");
        for (size_t i = 0; i < o->n; i++) o->arrays[i].release(&o->arrays[i]);
    }
    output_free(o);
    return done;
}

/* This thread's name into name[0, 16): Linux's own call (every C library has it, where
 * pthread_getname_np came to musl only in 1.2.3), macOS's pthread one. Whether it was read
 * (never on Windows). */
static int thread_name(char name[16]) {
#if defined(__linux__)
    return prctl(PR_GET_NAME, (unsigned long)name, 0UL, 0UL, 0UL) == 0;
#elif defined(__APPLE__)
    return pthread_getname_np(pthread_self(), name, 16) == 0;
#else
    (void)name;
    return 0;
#endif
}

/* Whether this thread is an executor of Polars' streaming engine (named "async-executor-N";
 * Polars' context says nothing of it, a default CallerContext). That engine already runs a
 * morsel on every core: a call cut across the kernel's threads as well left three threads to
 * two cores and moved a morsel's rows to a core whose cache did not hold them, and the
 * partitioned lake (10 M clickstream rows, two cores) ran 3.79-3.84 s cut against 3.66-3.70
 * not. Asked once a thread: Polars names its threads as it starts them. Where the name cannot
 * be read, no. */
static int streaming_executor(void) {
    static const char PREFIX[] = "async-executor";
    static UN_THREAD_LOCAL signed char known = -1;
    char name[16] = "";
    if (known < 0) known = thread_name(name) && strncmp(name, PREFIX, sizeof PREFIX - 1) == 0;
    return known;
}

/* Polars 0.1: the inputs (whose chunks this call owns), the keyword arguments, where the
 * output goes, and the caller's context (not read: see streaming_executor). The call runs on
 * the kernel's threads, but on a streaming executor's own. */
UN_EXPORT void _polars_plugin_call(series_export *inputs, size_t n_inputs, const uint8_t *kwargs, size_t kwargs_len,
                                   series_export *out, const void *context) {
    (void)context;
    last_error[0] = '\0';
    const un_call *c = call_named(kwargs, kwargs_len);
    output *o = NULL;
    if (!c) failed("urlnorm: no such compiled call (was it made in this process?)");
    else if (n_inputs != 1) failed("urlnorm: a call takes one column");
    else {
        un_call own = *c;
        if (own.threads > 1 && streaming_executor()) own.threads = 1;
        o = run_call(&own, &inputs[0], 1);
    }
    for (size_t i = 0; i < n_inputs; i++) release_input(&inputs[i]);
    if (!o) return;
    for (size_t i = 0; i < o->n; i++) o->pointers[i] = &o->arrays[i];
    *out = (series_export){.field = &o->field, .arrays = o->pointers, .len = o->n, .release = output_release, .private_data = o};
}
