/* Columns in and slices out through the Arrow C data interface; see c_data.h. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "c_data.h"

/* ---- a column in ---------------------------------------------------------------------------- */

/* An absent buffer of an empty array reads as this: zero offsets, no bytes. */
static const int64_t NOTHING[2];

static const uint8_t *or_nothing(const void *buffer) { return buffer ? buffer : (const uint8_t *)NOTHING; }

/* The layout of a string or binary format string, and whether it is a string type. */
static int layout_of(const char *format, un_layout *layout, int *text) {
    static const struct {
        const char *format;
        un_layout layout;
        int text;
    } formats[] = {
        {"u", UN_OFFSETS32, 1}, {"z", UN_OFFSETS32, 0}, {"U", UN_OFFSETS64, 1},
        {"Z", UN_OFFSETS64, 0}, {"vu", UN_VIEWS, 1},    {"vz", UN_VIEWS, 0},
    };
    for (size_t i = 0; format && i < sizeof formats / sizeof *formats; i++) {
        if (strcmp(format, formats[i].format) == 0) {
            *layout = formats[i].layout, *text = formats[i].text;
            return 1;
        }
    }
    return 0;
}

/* Offsets and their one data buffer, whose size is the last offset. */
static un_import offsets_import(const struct ArrowArray *a, int64_t end, un_bytes *data, un_column *col) {
    size_t width = col->layout == UN_OFFSETS32 ? 4 : 8;
    if (a->n_buffers != 3 || (!a->buffers[1] && end > 0)) return UN_MALFORMED_ARRAY;
    col->offsets = or_nothing(a->buffers[1]);
    col->offsets_size = (size_t)(end + 1) * width;
    int64_t last = 0;
    if (width == 4) {
        int32_t v;
        memcpy(&v, col->offsets + (size_t)end * 4, 4);
        last = v;
    } else {
        memcpy(&last, col->offsets + (size_t)end * 8, 8);
    }
    if (last < 0 || (last > 0 && !a->buffers[2])) return UN_MALFORMED_ARRAY;
    data[0] = (un_bytes){or_nothing(a->buffers[2]), (size_t)last};
    col->n_data = 1, col->data = data;
    return UN_IMPORTED;
}

/* Views, their variadic data buffers, and the buffers' sizes (the last buffer). */
static un_import views_import(const struct ArrowArray *a, int64_t end, un_bytes *data, un_column *col) {
    if (a->n_buffers < 3 || a->n_buffers - 3 > UN_MAX_DATA_BUFFERS || (!a->buffers[1] && end > 0)) return UN_MALFORMED_ARRAY;
    int64_t n_data = a->n_buffers - 3;
    const int64_t *sizes = a->buffers[a->n_buffers - 1];
    if (n_data > 0 && !sizes) return UN_MALFORMED_ARRAY;
    for (int64_t i = 0; i < n_data; i++) {
        if (sizes[i] < 0 || (sizes[i] > 0 && !a->buffers[2 + i])) return UN_MALFORMED_ARRAY;
        data[i] = (un_bytes){or_nothing(a->buffers[2 + i]), (size_t)sizes[i]};
    }
    col->offsets = or_nothing(a->buffers[1]);
    col->offsets_size = (size_t)end * 16;
    col->n_data = n_data, col->data = data;
    return UN_IMPORTED;
}

un_import un_column_import(const struct ArrowSchema *s, const struct ArrowArray *a, un_bytes *data, un_column *col, int *text) {
    memset(col, 0, sizeof *col);
    if (!s->release || !a->release || !layout_of(s->format, &col->layout, text)) return UN_NOT_TEXT;
    if (a->length < 0 || a->offset < 0 || a->length > INT64_MAX / 16 - a->offset - 1) return UN_MALFORMED_ARRAY;
    int64_t end = a->offset + a->length;
    col->length = a->length, col->offset = a->offset;
    if (a->null_count != 0 && a->buffers[0]) {
        col->validity = a->buffers[0];
        col->validity_size = (size_t)(end + 7) / 8;
    }
    return col->layout == UN_VIEWS ? views_import(a, end, data, col) : offsets_import(a, end, data, col);
}

/* The width of a dictionary's integer keys, by format; 0 if not one. */
static size_t key_width(const char *format) {
    static const char *const widths[] = {"cC", "sS", "iI", "lL"};
    for (size_t i = 0; format && format[0] && !format[1] && i < 4; i++)
        if (strchr(widths[i], format[0])) return (size_t)1 << i;
    return 0;
}

int un_is_dictionary(const struct ArrowSchema *s) { return s->dictionary != NULL; }

static int64_t key_at(const uint8_t *keys, size_t width, int64_t i) {
    int8_t k8;
    int16_t k16;
    int32_t k32;
    int64_t k64;
    switch (width) {
    case 1: return memcpy(&k8, keys + i, 1), k8;
    case 2: return memcpy(&k16, keys + 2 * i, 2), k16;
    case 4: return memcpy(&k32, keys + 4 * i, 4), k32;
    default: return memcpy(&k64, keys + 8 * i, 8), k64;
    }
}

un_import un_dictionary_import(const struct ArrowSchema *s, const struct ArrowArray *a, un_bytes *data, uint8_t *views,
                               uint8_t *validity, un_column *col, int *text) {
    un_column values;
    size_t width = key_width(s->format);
    if (!width || !a->dictionary || !s->dictionary->release) return UN_NOT_TEXT;
    un_import read = un_column_import(s->dictionary, a->dictionary, data, &values, text);
    if (read != UN_IMPORTED) return read;
    if (values.layout != UN_VIEWS) return UN_NOT_TEXT;
    if (a->length < 0 || a->offset < 0 || a->n_buffers != 2 || (a->length > 0 && !a->buffers[1])) return UN_MALFORMED_ARRAY;
    un_column keys = {.length = a->length, .offset = a->offset};
    if (a->null_count != 0 && a->buffers[0]) keys.validity = a->buffers[0], keys.validity_size = (size_t)(a->offset + a->length + 7) / 8;
    memset(validity, 0, (size_t)(a->length + 7) / 8);
    for (int64_t i = 0; i < a->length; i++) {
        int present = un_column_valid(&keys, i);
        int64_t k = present ? key_at(a->buffers[1], width, a->offset + i) : 0;
        if (present && (k < 0 || k >= values.length)) return UN_MALFORMED_ARRAY;
        int valid = present && un_column_valid(&values, k);
        memset(views + 16 * i, 0, 16);
        if (valid) memcpy(views + 16 * i, values.offsets + 16 * (values.offset + k), 16);
        validity[i / 8] |= (uint8_t)(valid << (i % 8));
    }
    *col = values;
    col->length = a->length, col->offset = 0;
    col->validity = validity, col->validity_size = (size_t)(a->length + 7) / 8;
    col->offsets = views, col->offsets_size = (size_t)a->length * 16;
    return UN_IMPORTED;
}

/* ---- a slice out ------------------------------------------------------------------------------ */

/* A struct, a list column and its struct of two, and as many columns as an operation emits. */
#define MAX_NODES (UN_N_COLUMNS + 8)

/* The arrays of one slice, and the result whose buffers they point into; each node holds a
 * reference, so a consumer may move a column out and release it after the rest. */
typedef struct {
    atomic_int refs;
    un_result r;
    int64_t data_size, names_size;
    int n;
    struct ArrowArray node[MAX_NODES];
    struct ArrowArray *kids[MAX_NODES];
    const void *buffers[MAX_NODES][4];
    /* Where the result borrows its lender's buffers: each text column's buffers (its validity,
     * views, the result's data, the lent buffers, their sizes) and the sizes, in one block. */
    const void **lent_buffers;
    int64_t *lent_sizes;
    int n_lent;
} array_tree;

typedef struct {
    atomic_int refs;
    int n;
    struct ArrowSchema node[MAX_NODES];
    struct ArrowSchema *kids[MAX_NODES];
} schema_tree;

typedef struct {
    array_tree *a;
    schema_tree *s;
    int n_kids;
} trees;

static void release_array(struct ArrowArray *a) {
    for (int64_t i = 0; i < a->n_children; i++)
        if (a->children[i]->release) a->children[i]->release(a->children[i]);
    array_tree *t = a->private_data;
    a->release = NULL;
    if (atomic_fetch_sub(&t->refs, 1) == 1) {
        un_result_free(&t->r);
        free(t->lent_buffers), free(t->lent_sizes);
        free(t);
    }
}

static void release_schema(struct ArrowSchema *s) {
    for (int64_t i = 0; i < s->n_children; i++)
        if (s->children[i]->release) s->children[i]->release(s->children[i]);
    schema_tree *t = s->private_data;
    s->release = NULL;
    if (atomic_fetch_sub(&t->refs, 1) == 1) free(t);
}

/* A node of both trees: its type, name, rows, nulls and buffers (copied into the tree where
 * there are four or fewer; else the tree's own, which it keeps). */
static int add(trees *t, const char *format, const char *name, int64_t length, int64_t nulls, int n_buffers, const void **buffers) {
    int i = t->a->n++;
    t->s->n++;
    if (n_buffers <= 4) memcpy(t->a->buffers[i], buffers, (size_t)n_buffers * sizeof *buffers), buffers = t->a->buffers[i];
    t->a->node[i] = (struct ArrowArray){
        .length = length, .null_count = nulls, .n_buffers = n_buffers, .buffers = buffers,
        .release = release_array, .private_data = t->a,
    };
    t->s->node[i] = (struct ArrowSchema){
        .format = format, .name = name, .flags = ARROW_FLAG_NULLABLE, .release = release_schema, .private_data = t->s,
    };
    return i;
}

/* Make nodes idx[0..n) the children of node `parent`, in order. */
static void adopt(trees *t, int parent, const int *idx, int n) {
    t->a->node[parent].children = t->a->kids + t->n_kids, t->a->node[parent].n_children = n;
    t->s->node[parent].children = t->s->kids + t->n_kids, t->s->node[parent].n_children = n;
    for (int i = 0; i < n; i++, t->n_kids++) {
        t->a->kids[t->n_kids] = &t->a->node[idx[i]];
        t->s->kids[t->n_kids] = &t->s->node[idx[i]];
    }
}

static const void *validity_if(const un_buf *validity, int64_t nulls) { return nulls ? validity->data : NULL; }

/* Rows whose bit is clear (a bitmap shorter than the rows counts its missing rows as null). */
static int64_t count_nulls(const un_buf *validity, int64_t rows) {
    int64_t valid = 0, whole = rows / 8 < (int64_t)validity->len ? rows / 8 : (int64_t)validity->len;
    for (int64_t i = 0; i < whole; i++) valid += __builtin_popcount(validity->data[i]);
    if (whole < (int64_t)validity->len && rows % 8) valid += __builtin_popcount(validity->data[whole] & ((1u << rows % 8) - 1));
    return rows - valid;
}

/* A column of views into data, whose size is *size (the views' one variadic buffer). */
static int views_into(trees *t, const un_builder *b, const char *name, const un_buf *data, const int64_t *size) {
    const void *buffers[4] = {validity_if(&b->validity, b->nulls), or_nothing(b->views.data), or_nothing(data->data), size};
    return add(t, "vu", name, b->length, b->nulls, 4, buffers);
}

/* A text column's views: into the result's data and, where it borrows, its lender's buffers. */
static int view_column(trees *t, const un_builder *b, const char *name) {
    array_tree *a = t->a;
    if (!a->r.lent) return views_into(t, b, name, &a->r.data, &a->data_size);
    int64_t lent = a->r.lent->n_data;
    const void **buffers = a->lent_buffers + (size_t)a->n_lent++ * (size_t)(lent + 4);
    buffers[0] = validity_if(&b->validity, b->nulls), buffers[1] = or_nothing(b->views.data);
    buffers[2] = or_nothing(a->r.data.data), buffers[3 + lent] = a->lent_sizes;
    for (int64_t k = 0; k < lent; k++) buffers[3 + k] = or_nothing(a->r.lent->data[k].p);
    return add(t, "vu", name, b->length, b->nulls, (int)(lent + 4), buffers);
}

/* The blocks view_column fills for a result that borrows: a text column's buffers each. */
static int lend_blocks(array_tree *a, int columns) {
    if (!a->r.lent) return 0;
    int64_t lent = a->r.lent->n_data;
    a->lent_buffers = malloc((size_t)columns * (size_t)(lent + 4) * sizeof *a->lent_buffers);
    a->lent_sizes = malloc((size_t)(lent + 1) * sizeof *a->lent_sizes);
    if (!a->lent_buffers || !a->lent_sizes) return -1;
    a->lent_sizes[0] = (int64_t)a->r.data.len;
    for (int64_t k = 0; k < lent; k++) a->lent_sizes[1 + k] = (int64_t)a->r.lent->data[k].n;
    return 0;
}

static int fixed_column(trees *t, const char *format, const char *name, const un_buf *values, const un_buf *validity, int64_t rows) {
    int64_t nulls = validity ? count_nulls(validity, rows) : 0;
    const void *buffers[2] = {validity ? validity_if(validity, nulls) : NULL, or_nothing(values->data)};
    return add(t, format, name, rows, nulls, 2, buffers);
}

/* A text column's name: the parse column's or the record field's, a query pair's part, or
 * "text" for an operation's one column. */
static const char *text_name(const un_batch *b, int column) {
    static const char *const pair[] = {"key", "value"};
    if (b->op == UN_OP_PARSE) return UN_PARSE_COLUMN_NAMES[column];
    if (b->op == UN_OP_REFERRER) return UN_REFERRER_COLUMN_NAMES[column];
    if (b->op == UN_OP_CAMPAIGN) return UN_CAMPAIGN_COLUMN_NAMES[column];
    if (b->op == UN_OP_VISIT) return UN_VISIT_COLUMN_NAMES[column];
    if (un_record_out(b)) return UN_PARSE_COLUMN_NAMES[UN_PARSE_FIELDS + column];
    if (un_text_columns(b) == 2) return pair[column];
    return "text";
}

/* The list column: its offsets over the one text column, or over a struct of the two. */
static int list_column(trees *t, const un_batch *b, int64_t rows) {
    const un_result *r = &t->a->r;
    int values[2] = {0, 0}, n = un_text_columns(b);
    for (int i = 0; i < n; i++) values[i] = view_column(t, &r->text[i], text_name(b, i));
    int child = values[0];
    if (n == 2) {
        const void *none[1] = {NULL};
        child = add(t, "+s", "item", r->text[0].length, 0, 1, none);
        adopt(t, child, values, 2);
    }
    const void *buffers[2] = {validity_if(&r->list_validity, r->list_nulls), or_nothing(r->list_offsets.data)};
    int list = add(t, "+l", "text", rows, r->list_nulls, 2, buffers);
    adopt(t, list, &child, 1);
    return list;
}

/* The top-level columns, in the order c_data.h gives; their count. */
static int columns(trees *t, const un_batch *b, int64_t rows, int *top) {
    un_result *r = &t->a->r;
    int n = 0;
    if (un_list_out(b)) top[n++] = list_column(t, b, rows);
    for (int i = 0; !un_list_out(b) && i < un_text_columns(b); i++)
        if (un_text_wanted(b, i)) top[n++] = view_column(t, &r->text[i], text_name(b, i));
    if (un_port_out(b)) top[n++] = fixed_column(t, "S", "port", &r->port, &r->port_validity, rows);
    if (b->op == UN_OP_PARSE && (b->outputs >> UN_OUT_KEY_HASH & 1u))
        top[n++] = fixed_column(t, "L", "key_hash", &r->key_hash, &r->key_hash_validity, rows);
    if (b->quiet) return n;
    top[n++] = fixed_column(t, "C", "status", &r->status, NULL, rows);
    top[n++] = views_into(t, &r->errors, "error", &r->error_names, &t->a->names_size);
    return n;
}

/* The nodes a release will reach from node i: each holds one reference. */
static int reachable(const struct ArrowArray *a) {
    int n = 1;
    for (int64_t i = 0; i < a->n_children; i++) n += reachable(a->children[i]);
    return n;
}

/* The top-level column named name[0..len), or -1. */
static int named(const trees *t, const int *top, int n, const char *name, size_t len) {
    for (int i = 0; i < n; i++) {
        const char *own = t->s->node[top[i]].name;
        if (strlen(own) == len && memcmp(own, name, len) == 0) return top[i];
    }
    return -1;
}

/* top[0..n) narrowed to the columns named in `names` (NUL-separated, names_len bytes), in
 * their order; the count, or -1 if a name is not among them or comes twice. */
static int project(const trees *t, int *top, int n, const char *names, size_t names_len) {
    int chosen[MAX_NODES], k = 0;
    for (size_t at = 0; at < names_len; k++) {
        const char *end = memchr(names + at, '\0', names_len - at);
        size_t len = end ? (size_t)(end - names - at) : names_len - at;
        int found = k < MAX_NODES ? named(t, top, n, names + at, len) : -1;
        for (int i = 0; i < k && found >= 0; i++) found = chosen[i] == found ? -1 : found;
        if (found < 0) return -1;
        chosen[k] = found;
        at += len + 1;
    }
    memcpy(top, chosen, (size_t)k * sizeof *top);
    return k;
}

int un_names_quiet(const char *names, size_t len) {
    if (!names) return 0;
    for (size_t at = 0; at < len;) {
        const char *end = memchr(names + at, '\0', len - at);
        size_t n = end ? (size_t)(end - names - at) : len - at;
        if ((n == 5 && memcmp(names + at, "error", 5) == 0) || (n == 6 && memcmp(names + at, "status", 6) == 0)) return 0;
        at += n + 1;
    }
    return 1;
}

int un_result_export(const un_batch *b, un_result *r, int64_t rows, const char *names, size_t names_len,
                     struct ArrowSchema *schema, struct ArrowArray *array) {
    trees t = {calloc(1, sizeof *t.a), calloc(1, sizeof *t.s), 0};
    if (!t.a || !t.s) {
        free(t.a), free(t.s);
        return -1;
    }
    t.a->r = *r;
    un_buf_fit(&t.a->r.data);
    t.a->data_size = (int64_t)t.a->r.data.len, t.a->names_size = (int64_t)t.a->r.error_names.len;
    if (lend_blocks(t.a, un_text_columns(b)) != 0) {
        *r = t.a->r; /* its data fitted: the caller frees that block, not the one before */
        free(t.a->lent_buffers), free(t.a->lent_sizes), free(t.a), free(t.s);
        return -1;
    }
    const void *none[1] = {NULL};
    int root = add(&t, "+s", "", rows, 0, 1, none), top[MAX_NODES];
    int n = columns(&t, b, rows, top);
    if (names && (n = project(&t, top, n, names, names_len)) < 0) {
        *r = t.a->r;
        free(t.a->lent_buffers), free(t.a->lent_sizes), free(t.a), free(t.s);
        return -2;
    }
    un_result_init(r);
    adopt(&t, root, top, n);
    /* Only the nodes a release reaches hold a reference; the columns left out are freed
     * with the result when the last of those goes. */
    int refs = reachable(&t.a->node[root]);
    atomic_init(&t.a->refs, refs);
    atomic_init(&t.s->refs, refs);
    *array = t.a->node[root];
    *schema = t.s->node[root];
    /* The roots now live in the caller's structs; their slots stay released. */
    t.a->node[root].release = NULL;
    t.s->node[root].release = NULL;
    return 0;
}

/* ---- a run's slices joined into one column ------------------------------------------------------ */

typedef struct {
    int n;
    struct ArrowArray *parts;
    const void **buffers;
    uint8_t *validity, *views; /* NULL where the parts hold them (built in place) */
    int64_t *sizes;
    un_hold *lender;
} joined_views;

static void joined_release(struct ArrowArray *a) {
    joined_views *j = a->private_data;
    for (int i = 0; i < j->n; i++)
        if (j->parts[i].release) j->parts[i].release(&j->parts[i]);
    if (j->lender) un_hold_drop(j->lender);
    free(j->parts), free(j->buffers), free(j->validity), free(j->views), free(j->sizes), free(j);
    a->release = NULL;
}

/* A part's views after the rows before it: a view that points into the part's buffer k points
 * into the joined buffer place[k]; one whose bytes are inline is as it was. */
static void copy_views(const struct ArrowArray *part, const int32_t *place, uint8_t *views) {
    const uint8_t *from = (const uint8_t *)part->buffers[1] + 16 * part->offset;
    memcpy(views, from, (size_t)part->length * 16);
    int64_t own = part->n_buffers - 3, same = 0;
    while (same < own && place[same] == same) same++;
    for (int64_t i = 0; same < own && i < part->length; i++) {
        int32_t len, index;
        memcpy(&len, views + 16 * i, 4);
        memcpy(&index, views + 16 * i + 8, 4);
        if (len > 12 && index >= 0 && index < own) memcpy(views + 16 * i + 8, &place[index], 4);
    }
}

/* The joined index of each of a part's data buffers, the part's new ones added to the join's:
 * a buffer two parts share (their chunk's, which it lent to each slice) is listed once. */
static void place_buffers(const struct ArrowArray *part, joined_views *j, int64_t *count, int32_t *place) {
    int64_t own = part->n_buffers - 3;
    const int64_t *sizes = part->buffers[2 + own];
    for (int64_t k = 0; k < own; k++) {
        int64_t at = 0;
        while (at < *count && !(j->buffers[2 + at] == part->buffers[2 + k] && j->sizes[at] == sizes[k])) at++;
        if (at == *count) j->buffers[2 + at] = part->buffers[2 + k], j->sizes[at] = sizes[k], ++*count;
        place[k] = (int32_t)at;
    }
}

static void copy_validity(const struct ArrowArray *part, int64_t at, uint8_t *validity) {
    const uint8_t *bits = part->buffers[0];
    for (int64_t i = 0; i < part->length; i++) {
        int64_t bit = part->offset + i;
        int valid = !bits || part->null_count == 0 || (bits[bit / 8] >> (bit % 8) & 1);
        validity[(at + i) / 8] |= (uint8_t)(valid << ((at + i) % 8));
    }
}

int un_views_join(struct ArrowArray *parts, int n, struct ArrowArray *out) {
    int64_t rows = 0, nulls = 0, data = 0, widest = 0; /* the parts' data buffers, and the most one has */
    for (int i = 0; i < n; i++) {
        if (parts[i].n_buffers < 4 || parts[i].n_children != 0 || !parts[i].release) return -1;
        rows += parts[i].length, nulls += parts[i].null_count, data += parts[i].n_buffers - 3;
        widest = parts[i].n_buffers - 3 > widest ? parts[i].n_buffers - 3 : widest;
    }
    if (data > INT32_MAX - 3) return -1;
    joined_views *j = calloc(1, sizeof *j);
    if (!j) return -1;
    j->parts = malloc((size_t)n * sizeof *j->parts), j->buffers = malloc((size_t)(data + 3) * sizeof *j->buffers);
    j->views = malloc((size_t)rows * 16 + 1), j->sizes = malloc((size_t)data * sizeof *j->sizes);
    j->validity = nulls ? calloc((size_t)rows / 8 + 1, 1) : NULL;
    int32_t *place = malloc((size_t)widest * sizeof *place);
    if (!j->parts || !j->buffers || !j->views || !j->sizes || (nulls && !j->validity) || !place) {
        free(j->parts), free(j->buffers), free(j->views), free(j->sizes), free(j->validity), free(j), free(place);
        return -1;
    }
    int64_t at = 0, count = 0;
    for (int i = 0; i < n; i++) {
        place_buffers(&parts[i], j, &count, place);
        copy_views(&parts[i], place, j->views + 16 * at);
        if (nulls) copy_validity(&parts[i], at, j->validity);
        at += parts[i].length;
        j->parts[i] = parts[i], parts[i].release = NULL;
    }
    free(place);
    j->n = n, j->buffers[0] = j->validity, j->buffers[1] = j->views, j->buffers[2 + count] = j->sizes;
    *out = (struct ArrowArray){
        .length = rows, .null_count = nulls, .n_buffers = count + 3, .buffers = j->buffers, .release = joined_release, .private_data = j,
    };
    return 0;
}

int un_views_join_placed(struct ArrowArray *parts, int n, const uint8_t *views, un_hold *lender, struct ArrowArray *out) {
    int64_t rows = 0, nulls = 0, borrowed = 0;
    for (int i = 0; i < n; i++) {
        if (parts[i].n_buffers < 4 || parts[i].n_children != 0 || !parts[i].release || parts[i].offset != 0) return -1;
        if ((const uint8_t *)parts[i].buffers[1] != views + 16 * rows) return -1;
        rows += parts[i].length, nulls += parts[i].null_count, borrowed |= parts[i].n_buffers > 4;
    }
    /* A part lists its lender's buffers where a view points into them (un_result's lent): if
     * none does, the column neither lists nor holds them, and the input may go. */
    int64_t lent = lender && borrowed ? lender->n_data : 0;
    if (borrowed && !lender) return -1;
    joined_views *j = calloc(1, sizeof *j);
    if (!j) return -1;
    j->parts = malloc((size_t)n * sizeof *j->parts), j->buffers = malloc((size_t)(n + lent + 3) * sizeof *j->buffers);
    j->sizes = malloc((size_t)(n + lent) * sizeof *j->sizes);
    if (!j->parts || !j->buffers || !j->sizes) {
        free(j->parts), free(j->buffers), free(j->sizes), free(j);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        const int64_t *sizes = parts[i].buffers[parts[i].n_buffers - 1];
        j->buffers[2 + i] = parts[i].buffers[2], j->sizes[i] = sizes[0];
        j->parts[i] = parts[i], parts[i].release = NULL;
    }
    for (int64_t k = 0; k < lent; k++) j->buffers[2 + n + k] = or_nothing(lender->data[k].p), j->sizes[n + k] = (int64_t)lender->data[k].n;
    if (lent) un_hold_take(j->lender = lender);
    j->n = n, j->buffers[0] = nulls ? views + 16 * rows : NULL, j->buffers[1] = views, j->buffers[2 + n + lent] = j->sizes;
    *out = (struct ArrowArray){
        .length = rows, .null_count = nulls, .n_buffers = n + lent + 3, .buffers = j->buffers, .release = joined_release, .private_data = j,
    };
    return 0;
}

/* ---- a run's struct slices joined into one struct ------------------------------------------------
 * A struct left a chunk a slice cost its consumer more than joining it: Polars gathers rows
 * of a column of several chunks one value at a time, copying each, where it copies only the
 * views of one chunk (a 100,000-row text column, a third of its rows: 0.62 ms against 0.09),
 * and a partitioned write gathers every row of every column. */

typedef struct {
    int64_t n;
    struct ArrowArray *columns, **kids;
    const void *buffers[1];
} joined_struct;

static void joined_struct_free(joined_struct *j) {
    for (int64_t i = 0; i < j->n; i++)
        if (j->columns[i].release) j->columns[i].release(&j->columns[i]);
    free(j->columns), free(j->kids), free(j);
}

static void struct_release(struct ArrowArray *a) {
    joined_struct_free(a->private_data);
    a->release = NULL;
}

/* The bytes a value of a fixed-width Arrow format takes; 0 for another format. */
static size_t fixed_width(const char *format) {
    if (!format[0] || format[1]) return 0;
    switch (format[0]) {
    case 'c':
    case 'C': return 1;
    case 's':
    case 'S': return 2;
    case 'i':
    case 'I':
    case 'f': return 4;
    case 'l':
    case 'L':
    case 'g': return 8;
    default: return 0;
    }
}

typedef struct {
    uint8_t *validity, *values;
    const void *buffers[2];
} fixed_values;

static void fixed_release(struct ArrowArray *a) {
    fixed_values *f = a->private_data;
    free(f->validity), free(f->values), free(f);
    a->release = NULL;
}

/* Fixed-width columns parts[0..n) as one, their values and validity copied (a few bytes a
 * row); the parts are released. 0; -1 if memory ran out (nothing released). */
static int fixed_join(struct ArrowArray *parts, int n, size_t width, struct ArrowArray *out) {
    int64_t rows = 0, nulls = 0;
    for (int i = 0; i < n; i++) rows += parts[i].length, nulls += parts[i].null_count;
    fixed_values *f = calloc(1, sizeof *f);
    if (!f) return -1;
    f->values = malloc((size_t)rows * width + 1), f->validity = nulls ? calloc((size_t)rows / 8 + 1, 1) : NULL;
    if (!f->values || (nulls && !f->validity)) {
        free(f->values), free(f->validity), free(f);
        return -1;
    }
    for (int64_t i = 0, at = 0; i < n; at += parts[i].length, i++) {
        const uint8_t *values = parts[i].buffers[1];
        if (parts[i].length) memcpy(f->values + (size_t)at * width, values + (size_t)parts[i].offset * width, (size_t)parts[i].length * width);
        if (nulls) copy_validity(&parts[i], at, f->validity);
    }
    for (int i = 0; i < n; i++) parts[i].release(&parts[i]);
    f->buffers[0] = f->validity, f->buffers[1] = f->values;
    *out = (struct ArrowArray){
        .length = rows, .null_count = nulls, .n_buffers = 2, .buffers = f->buffers, .release = fixed_release, .private_data = f,
    };
    return 0;
}

int un_struct_joins(const struct ArrowSchema *schema) {
    if (strcmp(schema->format, "+s") != 0) return 0;
    for (int64_t f = 0; f < schema->n_children; f++)
        if (strcmp(schema->children[f]->format, "vu") != 0 && !fixed_width(schema->children[f]->format)) return 0;
    return 1;
}

/* Whether the struct slices parts[0..n) join column by column (un_struct_joins): no nulls of
 * their own (the kernel's structs have none). */
static int joinable_struct(const struct ArrowArray *parts, int n, const struct ArrowSchema *schema) {
    for (int i = 0; i < n; i++)
        if (!parts[i].release || parts[i].n_children != schema->n_children || parts[i].null_count != 0 || parts[i].offset != 0) return 0;
    return un_struct_joins(schema);
}

/* The slices' column f as one: copied where it is of a fixed width; else its views, joined in
 * place where the first slice's views start one of placed[0..n_placed), else copied. The
 * slices' own are left released. 0; -1 if memory ran out (the slices' own left as they were). */
static int join_column(struct ArrowArray *parts, int n, int64_t f, const char *format, const uint8_t *const *placed, int n_placed,
                       un_hold *lender, struct ArrowArray *moved, struct ArrowArray *out) {
    for (int i = 0; i < n; i++) moved[i] = *parts[i].children[f];
    size_t width = fixed_width(format);
    int k = 0;
    while (k < n_placed && moved[0].buffers[1] != placed[k]) k++;
    int done = width ? fixed_join(moved, n, width, out)
               : k < n_placed ? un_views_join_placed(moved, n, placed[k], lender, out)
                              : un_views_join(moved, n, out);
    if (done == 0)
        for (int i = 0; i < n; i++) parts[i].children[f]->release = NULL;
    return done;
}

int un_struct_join(struct ArrowArray *parts, int n, const struct ArrowSchema *schema, const uint8_t *const *placed, int n_placed,
                   un_hold *lender, struct ArrowArray *out) {
    if (!joinable_struct(parts, n, schema)) return 0;
    int64_t columns = schema->n_children, rows = 0;
    for (int i = 0; i < n; i++) rows += parts[i].length;
    joined_struct *j = calloc(1, sizeof *j);
    struct ArrowArray *moved = malloc((size_t)n * sizeof *moved);
    if (j) j->columns = calloc((size_t)columns + 1, sizeof *j->columns), j->kids = malloc(((size_t)columns + 1) * sizeof *j->kids);
    int done = j && moved && j->columns && j->kids ? 0 : -1;
    for (int64_t f = 0; done == 0 && f < columns; f++) {
        done = join_column(parts, n, f, schema->children[f]->format, placed, n_placed, lender, moved, &j->columns[f]);
        if (done == 0) j->kids[f] = &j->columns[f], j->n = f + 1;
    }
    free(moved);
    if (done != 0) {
        if (j) joined_struct_free(j);
        return -1;
    }
    for (int i = 0; i < n; i++) parts[i].release(&parts[i]);
    *out = (struct ArrowArray){
        .length = rows, .n_buffers = 1, .buffers = j->buffers, .n_children = columns, .children = j->kids,
        .release = struct_release, .private_data = j,
    };
    return 1;
}

/* ---- a run's slices out as one stream --------------------------------------------------------- */

typedef struct {
    struct ArrowSchema schema; /* the first slice's; every get_schema hands out a copy */
    struct ArrowArray *arrays;
    int n, next;
} slice_stream;

static void copied_release(struct ArrowSchema *s) {
    for (int64_t i = 0; i < s->n_children; i++)
        if (s->children[i]->release) s->children[i]->release(s->children[i]);
    free(s->private_data);
    s->release = NULL;
}

/* A copy of a slice's schema tree. Its formats and names are the kernel's static strings,
 * so the copy points to them rather than duplicating them. 0, or -1 if memory ran out. */
static int schema_copy(const struct ArrowSchema *s, struct ArrowSchema *out) {
    size_t n = (size_t)s->n_children;
    void *block = n ? calloc(n, sizeof(struct ArrowSchema *) + sizeof(struct ArrowSchema)) : NULL;
    if (n && !block) return -1;
    struct ArrowSchema **kids = block, *nodes = n ? (struct ArrowSchema *)(kids + n) : NULL;
    *out = (struct ArrowSchema){
        .format = s->format, .name = s->name, .metadata = s->metadata, .flags = s->flags,
        .n_children = s->n_children, .children = kids, .release = copied_release, .private_data = block,
    };
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        kids[i] = &nodes[i];
        failed = failed || schema_copy(s->children[i], kids[i]) != 0;
    }
    if (failed) copied_release(out);
    return failed ? -1 : 0;
}

static int stream_schema(struct ArrowArrayStream *stream, struct ArrowSchema *out) {
    const slice_stream *s = stream->private_data;
    return schema_copy(&s->schema, out) == 0 ? 0 : ENOMEM;
}

static int stream_next(struct ArrowArrayStream *stream, struct ArrowArray *out) {
    slice_stream *s = stream->private_data;
    if (s->next == s->n) {
        out->release = NULL;
        return 0;
    }
    *out = s->arrays[s->next];
    s->arrays[s->next++].release = NULL;
    return 0;
}

static const char *stream_error(struct ArrowArrayStream *stream) {
    (void)stream;
    return NULL;
}

static void stream_release(struct ArrowArrayStream *stream) {
    slice_stream *s = stream->private_data;
    for (int i = s->next; i < s->n; i++)
        if (s->arrays[i].release) s->arrays[i].release(&s->arrays[i]);
    s->schema.release(&s->schema);
    free(s->arrays);
    free(s);
    stream->release = NULL;
}

int un_stream_export(struct ArrowSchema *schema, struct ArrowArray *arrays, int n, struct ArrowArrayStream *out) {
    slice_stream *s = malloc(sizeof *s);
    struct ArrowArray *owned = n > 0 ? malloc((size_t)n * sizeof *owned) : NULL;
    if (!s || n < 1 || !owned) {
        free(s), free(owned);
        return -1;
    }
    *s = (slice_stream){.schema = *schema, .arrays = owned, .n = n};
    for (int i = 0; i < n; i++) owned[i] = arrays[i], arrays[i].release = NULL;
    schema->release = NULL;
    *out = (struct ArrowArrayStream){
        .get_schema = stream_schema, .get_next = stream_next, .get_last_error = stream_error,
        .release = stream_release, .private_data = s,
    };
    return 0;
}

/* ---- a text column as large_string ------------------------------------------------------ */

/* A column gathered into one large_string array's buffers (offsets, bytes, validity), by
 * tasks of `rows` rows each (a multiple of 64, so that no two tasks write one validity byte):
 * in the first pass each counts its bytes and nulls, in the second it writes its offsets, its
 * bytes from where the tasks before it end, and its validity. */
typedef struct {
    const un_column *col;
    uint64_t longest; /* the size of its largest data buffer: no row is longer */
    int64_t rows;
    int64_t *counts; /* a task's bytes and nulls; then its first byte's place and nulls */
    int64_t *offsets;
    uint8_t *bytes, *validity;
    int second;
} gathering;

typedef struct {
    void *buffers[3];
    const void *pointers[3];
} gathered;

static void gathered_release(struct ArrowArray *a) {
    gathered *g = a->private_data;
    for (int i = 0; i < 3; i++) free(g->buffers[i]);
    free(g);
    a->release = NULL;
}

static void gathered_schema_release(struct ArrowSchema *s) { s->release = NULL; }

/* Row i's length as its view or offsets say (read alone: the first pass needs no more), -1 for
 * a null; -2 if it cannot be (negative, or longer than any data buffer, which bounds what a
 * malformed array asks to be allocated). The second pass checks the rest of the row. */
static int64_t row_length(const gathering *g, int64_t i) {
    const un_column *col = g->col;
    if (!un_column_valid(col, i)) return -1;
    uint64_t at = (uint64_t)(col->offset + i);
    int64_t len;
    if (col->layout == UN_VIEWS) {
        int32_t view_len;
        if ((at + 1) * 16 > col->offsets_size) return -2;
        memcpy(&view_len, col->offsets + at * 16, 4);
        len = view_len;
        if (view_len > 12 && (uint64_t)view_len > g->longest) return -2;
    } else {
        size_t width = col->layout == UN_OFFSETS32 ? 4 : 8;
        if ((at + 2) * width > col->offsets_size) return -2;
        len = un_read_offset(col->offsets + (at + 1) * width, width) - un_read_offset(col->offsets + at * width, width);
        if (len > 0 && (uint64_t)len > g->longest) return -2;
    }
    return len < 0 ? -2 : len;
}

/* Copy n bytes, up to 64 of them as overlapping 16-byte words, inline: most URLs are that long,
 * and a call into the C library a row cost a third of the copying. */
static void copy_bytes(uint8_t *d, const uint8_t *s, size_t n) {
    if (n <= 16 || n > 64) return un_copy(d, s, n);
    memcpy(d, s, 16), memcpy(d + n - 16, s + n - 16, 16);
    if (n > 32) memcpy(d + 16, s + 16, 16), memcpy(d + n - 32, s + n - 32, 16);
}

static int count_task(gathering *g, int i, int64_t start, int64_t end) {
    int64_t bytes = 0, nulls = 0;
    for (int64_t row = start; row < end; row++) {
        int64_t n = row_length(g, row);
        if (n == -2) return -1;
        bytes += n < 0 ? 0 : n, nulls += n < 0;
    }
    g->counts[2 * i] = bytes, g->counts[2 * i + 1] = nulls;
    return 0;
}

static int write_task(gathering *g, int i, int64_t start, int64_t end) {
    int64_t at = g->counts[2 * i];
    for (int64_t row = start; row < end; row++) {
        const uint8_t *p;
        size_t n;
        un_row kind = un_column_get(g->col, row, &p, &n);
        if (kind == UN_ROW_MALFORMED) return -1;
        if (kind == UN_ROW_VALUE) {
            copy_bytes(g->bytes + at, p, n);
            at += (int64_t)n;
            if (g->validity) g->validity[row / 8] |= (uint8_t)(1u << (row % 8));
        }
        g->offsets[row + 1] = at;
    }
    return 0;
}

static int gathering_task(void *data, int i) {
    gathering *g = data;
    int64_t start = (int64_t)i * g->rows, end = start + g->rows < g->col->length ? start + g->rows : g->col->length;
    return g->second ? write_task(g, i, start, end) : count_task(g, i, start, end);
}

/* The first pass's counts as each task's first byte's place; the nulls in all. */
static int64_t places(int64_t *counts, int tasks, int64_t *bytes) {
    int64_t at = 0, nulls = 0;
    for (int i = 0; i < tasks; i++) {
        int64_t n = counts[2 * i];
        counts[2 * i] = at, at += n, nulls += counts[2 * i + 1];
    }
    *bytes = at;
    return nulls;
}

int un_large_strings(const un_column *col, int n_threads, int64_t min_rows, struct ArrowSchema *schema, struct ArrowArray *out) {
    /* Four tasks a thread, so that one slow to start is not waited for long. */
    int64_t length = col->length, rows = length / (4 * (int64_t)n_threads) + 1;
    rows = ((rows < min_rows ? min_rows : rows) + 63) / 64 * 64;
    int tasks = (int)((length + rows - 1) / rows);
    gathering g = {.col = col, .rows = rows, .counts = calloc((size_t)(2 * tasks + 2), sizeof(int64_t))};
    for (int64_t k = 0; k < col->n_data; k++) g.longest = col->data[k].n > g.longest ? col->data[k].n : g.longest;
    gathered *keep = calloc(1, sizeof *keep);
    int64_t bytes = 0, nulls = 0;
    int failed = !g.counts || !keep || un_run_tasks(tasks, n_threads, gathering_task, &g) != 0;
    if (!failed) nulls = places(g.counts, tasks, &bytes);
    if (!failed) {
        g.offsets = keep->buffers[1] = malloc((size_t)(length + 1) * sizeof(int64_t));
        g.bytes = keep->buffers[2] = malloc(bytes ? (size_t)bytes : 1);
        g.validity = keep->buffers[0] = nulls ? calloc((size_t)(length + 7) / 8, 1) : NULL;
        failed = !g.offsets || !g.bytes || (nulls && !g.validity);
    }
    if (!failed) {
        g.offsets[0] = 0, g.second = 1;
        failed = un_run_tasks(tasks, n_threads, gathering_task, &g) != 0;
    }
    free(g.counts);
    if (failed) {
        if (keep)
            for (int i = 0; i < 3; i++) free(keep->buffers[i]);
        free(keep);
        return -1;
    }
    for (int i = 0; i < 3; i++) keep->pointers[i] = keep->buffers[i];
    *out = (struct ArrowArray){.length = length, .null_count = nulls, .n_buffers = 3, .buffers = keep->pointers,
                               .release = gathered_release, .private_data = keep};
    *schema = (struct ArrowSchema){.format = "U", .name = "", .flags = ARROW_FLAG_NULLABLE, .release = gathered_schema_release};
    return 0;
}
