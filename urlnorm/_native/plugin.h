/* Polars' expression plugin interface (docs.pola.rs, "Expression plugins"; the FFI of its
 * polars-ffi crate, version 0.1): Polars calls a kernel operation on its own threads, the
 * column passed in and out as Arrow C data, with no Python between a batch and the rows.
 *
 * An operation is compiled once, when a Python expression is made, into a call: its options
 * read from Python and kept here, found again by the bytes Polars hands the plugin as its
 * keyword arguments. */
#ifndef URLNORM_PLUGIN_H
#define URLNORM_PLUGIN_H

#include "c_data.h"

/* How many calls a process may compile (one for each distinct operation and options; an
 * expression made past them runs through Python instead). */
#define UN_MAX_CALLS 4096

typedef struct un_call un_call;

/* Runs a call's batches (a column's chunks) over their slices into results[0..n_slices) on
 * the call's threads (un_run_slice_table): the binding's, which lets Python answer the rows'
 * questions (it may set the batches' answerer). 0, or -1 with why[0..why_len) set. */
typedef int (*un_call_runner)(const un_call *call, un_batch *batches, int n_batches, const un_slice *slices, int n_slices,
                              un_result *results, char *why, size_t why_len);

struct un_call {
    const uint8_t *key; /* the keyword arguments' bytes, as Polars hands them over */
    size_t key_len;
    un_batch batch; /* the operation and its options; each chunk is its input in turn */
    un_profile profile;
    const char *columns; /* the columns handed back, NUL-separated, in order */
    size_t columns_len;
    int utf8;    /* how binary input is read: an UN_UTF8_* mode */
    int single;  /* hand back the one column itself, not a struct of it */
    int threads; /* how many threads a large chunk runs on */
    int64_t min_slice_bytes, max_slice_bytes;
    un_call_runner run;
    void *owner; /* the runner's own data */
};

/* polars-ffi's SeriesExport: a column's field and chunks. Polars moves each chunk out of an
 * export it receives and then calls release, which frees the rest. */
typedef struct series_export {
    struct ArrowSchema *field;
    struct ArrowArray **arrays;
    size_t len;
    void (*release)(struct series_export *);
    void *private_data; /* NULL: no column (the call failed) */
} series_export;

#ifdef _WIN32
#define UN_EXPORT __declspec(dllexport)
#else
#define UN_EXPORT __attribute__((visibility("default")))
#endif

/* The entry points Polars calls (polars-ffi 0.1): the version, the last error of this thread,
 * the output field of the call named by kwargs for the inputs' fields, and the call itself
 * over the inputs (whose chunks it takes over) into *out (left empty if it failed). */
UN_EXPORT uint32_t _polars_plugin_get_version(void);
UN_EXPORT const char *_polars_plugin_get_last_error_message(void);
UN_EXPORT void _polars_plugin_field_call(const struct ArrowSchema *fields, size_t n_fields, struct ArrowSchema *out,
                                         const uint8_t *kwargs, size_t kwargs_len);
UN_EXPORT void _polars_plugin_call(series_export *inputs, size_t n_inputs, const uint8_t *kwargs, size_t kwargs_len,
                                   series_export *out, const void *context);

/* Keeps `call` (which must live as long as the process) for Polars to find by its key; its
 * index, or -1 if UN_MAX_CALLS are kept already or the key is taken. Called from one thread
 * at a time (the binding's, under Python's lock); Polars may look calls up meanwhile. */
int un_call_register(un_call *call);

/* The schema of a call's output, named `name`, as an empty result exports it; 0, -1 if memory
 * ran out, -2 if the call's columns are not the operation's. */
int un_call_schema(const un_call *call, const char *name, struct ArrowSchema *out);

/* The call at `index` (as un_call_register gave it), or NULL if there is none. */
const un_call *un_call_at(int index);

/* The call over the input's chunks (len >= 1) as one stream into *out, its chunks as a Polars
 * call would hand them back: for a caller that is not Polars (a Polars Series or an Arrow array
 * given from Python). The chunks stay the caller's, but where `lending`: the output's views
 * may then point into their buffers, and a chunk whose buffers it keeps is moved out of `in`
 * (left released). 0, or -1 with un_call_error() set. */
int un_call_stream(const un_call *call, const series_export *in, int lending, struct ArrowArrayStream *out);

/* The last error of this thread's call. */
const char *un_call_error(void);

#endif
