/* The Arrow C data interface (arrow.apache.org/docs/format/CDataInterface.html): a column in
 * from any producer's ArrowSchema and ArrowArray, and a slice's outputs out as one struct
 * array whose buffers stay the kernel's. Nothing is copied either way. */
#ifndef URLNORM_C_DATA_H
#define URLNORM_C_DATA_H

#include "kernel.h"

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
    int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
    int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
    const char *(*get_last_error)(struct ArrowArrayStream *);
    void (*release)(struct ArrowArrayStream *);
    void *private_data;
};

#endif /* ARROW_C_STREAM_INTERFACE */

/* The most data buffers a view column may have. */
#define UN_MAX_DATA_BUFFERS 4096

typedef enum { UN_IMPORTED, UN_NOT_TEXT, UN_MALFORMED_ARRAY } un_import;

/* A column over a producer's string or binary array (32- or 64-bit offsets, or views), its
 * buffers' sizes derived from the format as the interface defines them; data holds room for
 * UN_MAX_DATA_BUFFERS. *text is whether the array's type is a string type (UTF-8 by Arrow's
 * guarantee). */
un_import un_column_import(const struct ArrowSchema *s, const struct ArrowArray *a, un_bytes *data, un_column *col, int *text);

/* Whether the schema is a dictionary-encoded column (a Polars Categorical or Enum): integer
 * keys into values of string or binary views. */
int un_is_dictionary(const struct ArrowSchema *s);

/* A dictionary-encoded column read as its values' views gathered a row at a time into
 * views (16 bytes a row) and validity ((length + 7) / 8 bytes), both the caller's. */
un_import un_dictionary_import(const struct ArrowSchema *s, const struct ArrowArray *a, un_bytes *data, uint8_t *views,
                               uint8_t *validity, un_column *col, int *text);

/* A slice's outputs as a struct array of `rows` rows, its columns named: the text columns
 * (string_view; a list of them, or of key/value structs, for list outputs), then port
 * (uint16), key_hash (uint64), status (uint8) and error (string_view), those the operation
 * emits; or, if names is not NULL, the columns it names (NUL-separated, names_len bytes) in
 * its order. The buffers move out of r (which is left empty); the last release frees them.
 * 0; -1 if memory ran out, -2 if a name is not a column (r is then left as it was). */
int un_result_export(const un_batch *b, un_result *r, int64_t rows, const char *names, size_t names_len,
                     struct ArrowSchema *schema, struct ArrowArray *array);

/* Whether the columns named (as un_result_export takes them; NULL: all) leave out both status
 * and error, so that a batch need not write them (un_batch.quiet). */
int un_names_quiet(const char *names, size_t len);

/* The view columns parts[0..n) (a slice's text column: its own data buffer and any its input
 * lent it) as one column whose data buffers are theirs: only the views are copied, no text. The parts move
 * into out (theirs are left released) and live until its release. 0; -1 if memory ran out or
 * a part is not such a column (nothing moved). */
int un_views_join(struct ArrowArray *parts, int n, struct ArrowArray *out);
/* The same for parts built in place (un_builder_place) into one column's views, followed by
 * its validity: part i's views say its data is buffer i, the lender's data[k] buffer n + k
 * (un_result's data_index and lent_skip). Neither views nor text are copied; the column
 * lists and holds the lender (NULL: none) where a part borrowed from it. */
int un_views_join_placed(struct ArrowArray *parts, int n, const uint8_t *views, un_hold *lender, struct ArrowArray *out);

/* The struct slices parts[0..n) (a slice's struct of columns, of the one schema) as one struct,
 * each column joined: a text column as un_views_join_placed joins it where its first slice's
 * views start one of placed[0..n_placed) (lender as there), else as un_views_join does; one
 * of a fixed width by copying its values. The parts are left released. 1; 0 where a column is
 * of another kind, or a part has nulls of its own (the kernel's structs have none; nothing
 * moved); -1 if memory ran out (the parts may have lost columns, and are still to be
 * released). */
int un_struct_join(struct ArrowArray *parts, int n, const struct ArrowSchema *schema, const uint8_t *const *placed, int n_placed,
                   un_hold *lender, struct ArrowArray *out);
/* Whether a struct of this schema joins (un_struct_join): each column text or fixed-width. */
int un_struct_joins(const struct ArrowSchema *schema);

/* The arrays of a run's n slices (n >= 1, all of one schema) as one stream, a chunk a slice in
 * order, so that a consumer takes them over in one call. The schema and the arrays move into
 * the stream (theirs are left released). 0; -1 if memory ran out (nothing moved). */
int un_stream_export(struct ArrowSchema *schema, struct ArrowArray *arrays, int n, struct ArrowArrayStream *out);

/* A text column (as un_column_import reads any string, binary or view layout) as a
 * large_string array of buffers of its own, which its release frees: its rows' bytes gathered
 * side by side on up to n_threads threads, in tasks of at least min_rows rows (a view column,
 * such as a run's output, has its bytes in many places, and a copy of them all on one thread
 * was the serial part of a call from Arrow). The schema is static ("U"). 0; -1 if memory ran
 * out or a row is malformed. */
int un_large_strings(const un_column *col, int n_threads, int64_t min_rows, struct ArrowSchema *schema, struct ArrowArray *out);

#endif
