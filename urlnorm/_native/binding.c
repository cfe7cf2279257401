/* The CPython binding: the only file that knows Python. Columns come in and each slice's
 * outputs go out through the Arrow PyCapsule interface (c_data.c: nothing is copied, and
 * Polars and pyarrow read the same objects); the rows run with the GIL released.
 *
 * Only the stable ABI of Python 3.11 is used, so one build (an abi3 wheel) serves every
 * CPython from 3.11 on: Py_LIMITED_API below makes the compiler hold this file to it. */
#define PY_SSIZE_T_CLEAN
#include <pyconfig.h>
/* The free-threaded build of CPython has no stable ABI yet: there it builds for its own version. */
#ifndef Py_GIL_DISABLED
#define Py_LIMITED_API 0x030B0000
#endif
#include <Python.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <structmember.h>

#include "os_threads.h"
#include "plugin.h"

/* ---- Slice: one slice's outputs, handed over through the Arrow PyCapsule interface -------- */

typedef struct {
    PyObject_HEAD
    struct ArrowSchema schema;
    struct ArrowArray array;
    long long rows, asked;
} Slice;

/* A heap type (the stable ABI has no static ones): its instances hold a reference to it. */
static PyObject *SliceType;

static void slice_dealloc(Slice *self) {
    if (self->array.release) self->array.release(&self->array);
    if (self->schema.release) self->schema.release(&self->schema);
    PyTypeObject *type = Py_TYPE((PyObject *)self);
    freefunc free_slot = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_slot(self);
    Py_DECREF(type);
}

static void schema_capsule_free(PyObject *capsule) {
    struct ArrowSchema *schema = PyCapsule_GetPointer(capsule, "arrow_schema");
    if (schema && schema->release) schema->release(schema);
    PyMem_Free(schema);
}

static void array_capsule_free(PyObject *capsule) {
    struct ArrowArray *array = PyCapsule_GetPointer(capsule, "arrow_array");
    if (array && array->release) array->release(array);
    PyMem_Free(array);
}

/* An array's schema and array (PyMem_Malloc'd) as the Arrow PyCapsule interface's pair of
 * capsules, which own them; NULL with an exception set (both released). */
static PyObject *capsule_pair(struct ArrowSchema *schema, struct ArrowArray *array) {
    PyObject *s = PyCapsule_New(schema, "arrow_schema", schema_capsule_free);
    if (!s) schema->release(schema), PyMem_Free(schema);
    PyObject *a = PyCapsule_New(array, "arrow_array", array_capsule_free);
    if (!a) array->release(array), PyMem_Free(array);
    return s && a ? Py_BuildValue("(NN)", s, a) : (Py_XDECREF(s), Py_XDECREF(a), NULL);
}

/* __arrow_c_array__(requested_schema=None): the slice's struct array, moved out (once). */
static PyObject *slice_arrow_c_array(Slice *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"requested_schema", NULL};
    PyObject *requested = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O", keywords, &requested)) return NULL;
    if (!self->array.release) return PyErr_Format(PyExc_ValueError, "a slice's columns are handed over once");
    struct ArrowSchema *schema = PyMem_Malloc(sizeof *schema);
    struct ArrowArray *array = PyMem_Malloc(sizeof *array);
    if (!schema || !array) {
        PyMem_Free(schema), PyMem_Free(array);
        return PyErr_NoMemory();
    }
    *schema = self->schema, *array = self->array;
    self->schema.release = NULL, self->array.release = NULL;
    return capsule_pair(schema, array);
}

static PyMethodDef slice_methods[] = {
    {"__arrow_c_array__", (PyCFunction)(void (*)(void))slice_arrow_c_array, METH_VARARGS | METH_KEYWORDS,
     "The slice's columns as a struct array's PyCapsules (the Arrow PyCapsule interface)."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef slice_members[] = {
    {"rows", T_LONGLONG, offsetof(Slice, rows), READONLY, "The slice's rows."},
    {"left_kernel", T_LONGLONG, offsetof(Slice, asked), READONLY, "Rows that left the kernel: each asked Python a question."},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot slice_slots[] = {
    {Py_tp_dealloc, (void *)slice_dealloc},
    {Py_tp_methods, slice_methods},
    {Py_tp_members, slice_members},
    {Py_tp_doc, "One slice's outputs: a struct array of columns in memory the kernel wrote."},
    {0, NULL},
};

static PyType_Spec slice_spec = {
    .name = "urlnorm._urlnorm.Slice", .basicsize = sizeof(Slice), .flags = Py_TPFLAGS_DEFAULT, .slots = slice_slots,
};

static void stream_capsule_free(PyObject *capsule) {
    struct ArrowArrayStream *stream = PyCapsule_GetPointer(capsule, "arrow_array_stream");
    if (stream && stream->release) stream->release(stream);
    PyMem_Free(stream);
}

/* stream(slices): a run's slices (a list, each not yet handed over) as one "arrow_array_stream"
 * capsule, a chunk a slice, which Polars takes over in one call rather than one a slice. */
static PyObject *stream(PyObject *self, PyObject *slices) {
    (void)self;
    Py_ssize_t n = PyList_Check(slices) ? PyList_Size(slices) : 0;
    if (n < 1 || n > INT_MAX) return PyErr_Format(PyExc_ValueError, "stream: a list of one slice or more");
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *one = PyList_GetItem(slices, i);
        if (!PyObject_TypeCheck(one, (PyTypeObject *)SliceType)) return PyErr_Format(PyExc_TypeError, "stream: slices only");
        if (!((Slice *)one)->array.release) return PyErr_Format(PyExc_ValueError, "a slice's columns are handed over once");
    }
    struct ArrowArrayStream *out = PyMem_Malloc(sizeof *out);
    struct ArrowArray *arrays = PyMem_Malloc((size_t)n * sizeof *arrays);
    if (!out || !arrays) {
        PyMem_Free(out), PyMem_Free(arrays);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) arrays[i] = ((Slice *)PyList_GetItem(slices, i))->array;
    Slice *first = (Slice *)PyList_GetItem(slices, 0);
    int failed = un_stream_export(&first->schema, arrays, (int)n, out);
    for (Py_ssize_t i = 0; i < n && !failed; i++) {
        Slice *one = (Slice *)PyList_GetItem(slices, i);
        one->array.release = NULL;
        if (one->schema.release) one->schema.release(&one->schema);
    }
    PyMem_Free(arrays);
    PyObject *capsule = failed ? NULL : PyCapsule_New(out, "arrow_array_stream", stream_capsule_free);
    if (!capsule && !failed) out->release(out);
    if (!capsule) PyMem_Free(out);
    return capsule ? capsule : failed ? PyErr_NoMemory() : NULL;
}

/* The columns a run hands back: NUL-separated names, or all of them. */
typedef struct {
    const char *names;
    Py_ssize_t len;
} projection;

static PyObject *slice_from(const un_batch *b, un_result *r, int64_t rows, const projection *columns) {
    Slice *out = PyObject_New(Slice, (PyTypeObject *)SliceType);
    if (!out) return NULL;
    out->rows = rows, out->asked = r->asked;
    int done = un_result_export(b, r, rows, columns->names, (size_t)columns->len, &out->schema, &out->array);
    if (done == 0) return (PyObject *)out;
    out->schema.release = NULL, out->array.release = NULL;
    Py_DECREF(out);
    return done == -2 ? PyErr_Format(PyExc_ValueError, "columns: a name the operation does not emit") : PyErr_NoMemory();
}

/* ---- columns in: an Arrow array's or stream's PyCapsules ------------------------------- */

static int stream_failed(struct ArrowArrayStream *stream, int code) {
    const char *why = stream->get_last_error ? stream->get_last_error(stream) : NULL;
    PyErr_Format(PyExc_ValueError, "reading an Arrow stream failed (%d): %s", code, why ? why : "no message");
    return -1;
}

/* A column's chunks: all of a stream's (owned here), or one array's (the caller's capsules
 * keep it alive). */
typedef struct {
    struct ArrowSchema schema; /* a stream's */
    struct ArrowArray *arrays; /* a stream's chunks */
    const struct ArrowSchema *field;
    struct ArrowArray **pointers;
    size_t len;    /* a stream's chunks */
    size_t chunks; /* the chunks read, a stream's or the one array */
} held_chunks;

static void chunks_release(held_chunks *h) {
    for (size_t i = 0; h->arrays && i < h->len; i++)
        if (h->arrays[i].release) h->arrays[i].release(&h->arrays[i]); /* else lent to an output */
    if (h->schema.release) h->schema.release(&h->schema);
    PyMem_Free(h->arrays), PyMem_Free(h->pointers);
}

/* Every chunk of the stream, moved into h->arrays; -1 with an exception set. */
static int stream_chunks(struct ArrowArrayStream *stream, held_chunks *h) {
    int code;
    if (!stream->release) return PyErr_SetString(PyExc_ValueError, "the Arrow stream was released"), -1;
    if ((code = stream->get_schema(stream, &h->schema)) != 0) return stream_failed(stream, code);
    h->field = &h->schema;
    for (size_t room = 0;;) {
        if (h->len == room) {
            room = room ? 2 * room : 4;
            struct ArrowArray *more = PyMem_Realloc(h->arrays, room * sizeof *more);
            if (!more) return PyErr_NoMemory(), -1;
            h->arrays = more;
        }
        struct ArrowArray *next = &h->arrays[h->len];
        if ((code = stream->get_next(stream, next)) != 0) return stream_failed(stream, code);
        if (!next->release) return 0;
        h->len++;
    }
}

/* obj: an "arrow_array_stream" capsule, or a tuple of "arrow_schema" and "arrow_array"
 * capsules, read as chunks; -1 with an exception set. */
static int chunks_from(PyObject *obj, held_chunks *h) {
    struct ArrowArray *one = NULL;
    if (PyCapsule_IsValid(obj, "arrow_array_stream")) {
        if (stream_chunks(PyCapsule_GetPointer(obj, "arrow_array_stream"), h) < 0) return -1;
    } else if (PyTuple_Check(obj) && PyTuple_Size(obj) == 2 && PyCapsule_IsValid(PyTuple_GetItem(obj, 0), "arrow_schema") &&
               PyCapsule_IsValid(PyTuple_GetItem(obj, 1), "arrow_array")) {
        h->field = PyCapsule_GetPointer(PyTuple_GetItem(obj, 0), "arrow_schema");
        one = PyCapsule_GetPointer(PyTuple_GetItem(obj, 1), "arrow_array");
    } else {
        return PyErr_SetString(PyExc_TypeError, "a column is an Arrow array's or stream's PyCapsules"), -1;
    }
    h->chunks = one ? 1 : h->len;
    if (!(h->pointers = PyMem_Malloc((h->chunks ? h->chunks : 1) * sizeof *h->pointers))) return PyErr_NoMemory(), -1;
    for (size_t i = 0; i < h->len; i++) h->pointers[i] = &h->arrays[i];
    if (one) h->pointers[0] = one;
    return 0;
}

/* A column the kernel reads whole: one chunk (a stream of none reads as no rows). */
typedef struct {
    un_column col;
    held_chunks chunks;
    int text;
    un_bytes data[UN_MAX_DATA_BUFFERS];
} held_column;

static void release(held_column *h) { chunks_release(&h->chunks); }

static void empty_release(struct ArrowArray *a) { a->release = NULL; }

/* obj: a column's PyCapsules (chunks_from), which the caller keeps alive for the run. */
static int column_from(PyObject *obj, held_column *h) {
    static const void *none[3];
    static struct ArrowArray empty = {.n_buffers = 3, .buffers = none, .release = empty_release};
    if (chunks_from(obj, &h->chunks) < 0) return -1;
    if (h->chunks.chunks > 1) return PyErr_SetString(PyExc_ValueError, "a column must be one chunk"), -1;
    const struct ArrowSchema *schema = h->chunks.field;
    const struct ArrowArray *array = h->chunks.chunks ? h->chunks.pointers[0] : &empty;
    switch (un_column_import(schema, array, h->data, &h->col, &h->text)) {
    case UN_IMPORTED: return 0;
    case UN_NOT_TEXT: PyErr_Format(PyExc_TypeError, "URL columns must be string or binary, not Arrow format '%s'", schema->format ? schema->format : "");
        return -1;
    default: PyErr_SetString(PyExc_ValueError, "a malformed Arrow array"); return -1;
    }
}

/* ---- options by name ---------------------------------------------------------------------
 * Every option reaches the kernel as a dict of named fields, never a tuple by position: two
 * options of one type cannot be swapped unnoticed. OPTION_FIELDS (exported) names each
 * operation's fields; a field missing or one too many is an error. */

static const char *const PROFILE_FIELDS[] = {"generic", "rules", NULL};
static const char *const RULE_FIELDS[] = {"rule", "names", "prefixes", NULL};
static const char *const FILTER_FIELDS[] = {"max_length", "max_depth", "max_repeats", "schemes", "extensions",
                                            "calendar_keys", "local_names", "blocks", NULL};
static const char *const NO_FIELDS[] = {NULL};
static const char *const NORMALIZE_FIELDS[] = {"profile", NULL};
static const char *const SPLIT_FIELDS[] = {"generic", "extent", "fields", NULL};
static const char *const JOIN_FIELDS[] = {"join_mode", NULL};
static const char *const SURT_FIELDS[] = {"profile", "with_scheme", "trailing_comma", NULL};
static const char *const HOST_FIELDS[] = {"host_column", "psl_table", NULL};
static const char *const QUERY_FIELDS[] = {"query_mode", "name", NULL};
static const char *const SELECT_FIELDS[] = {"keep", "names", NULL};
static const char *const PARSE_FIELDS[] = {"profile", "outputs", "with_scheme", "trailing_comma", "psl_table", NULL};
static const char *const UNWRAP_FIELDS[] = {"wrappers", NULL};
static const char *const COMPONENT_FIELDS[] = {"component_mode", NULL};
static const char *const URL_PART_FIELDS[] = {"url_part", NULL};
static const char *const CATEGORY_NAMES[UN_N_CATEGORIES] = {
    [UN_CATEGORY_SEARCH] = "search", [UN_CATEGORY_SOCIAL] = "social", [UN_CATEGORY_SHOPPING] = "shopping", [UN_CATEGORY_VIDEO] = "video",
};
static const char *const TERM_RULE_NAMES[UN_N_TERM_RULES] = {[UN_TERM_LISTED] = "listed", [UN_TERM_LAST] = "last"};
static const char *const REFERRER_FIELDS[] = {"table", "fields", NULL};
static const char *const CAMPAIGN_FIELDS[] = {"names", "networks", NULL};
static const char *const VISIT_FIELDS[] = {"table", "names", "networks", "fields", NULL};
static const char *const *const OPTION_FIELDS[UN_N_OPS] = {
    [UN_OP_NORMALIZE] = NORMALIZE_FIELDS, [UN_OP_NORMALIZE_RECORD] = NORMALIZE_FIELDS,
    [UN_OP_SPLIT] = SPLIT_FIELDS,         [UN_OP_JOIN] = JOIN_FIELDS,
    [UN_OP_SURT] = SURT_FIELDS,           [UN_OP_HOST] = HOST_FIELDS,
    [UN_OP_QUERY] = QUERY_FIELDS,         [UN_OP_PATH_SEGMENTS] = NO_FIELDS,
    [UN_OP_SELECT_PARAMS] = SELECT_FIELDS, [UN_OP_PARSE] = PARSE_FIELDS,
    [UN_OP_FILTER] = FILTER_FIELDS,       [UN_OP_UNWRAP] = UNWRAP_FIELDS,
    [UN_OP_COMPONENT] = COMPONENT_FIELDS, [UN_OP_URL_PART] = URL_PART_FIELDS,
    [UN_OP_REFERRER] = REFERRER_FIELDS,  [UN_OP_CAMPAIGN] = CAMPAIGN_FIELDS,
    [UN_OP_VISIT] = VISIT_FIELDS,
};

static Py_ssize_t count_names(const char *const *names) {
    Py_ssize_t n = 0;
    while (names[n]) n++;
    return n;
}

/* option: a dict holding exactly the fields ``names``; 0, or -1 with an exception set. */
static int fields_exactly(PyObject *option, const char *const *names, const char *what) {
    if (!PyDict_Check(option)) return PyErr_Format(PyExc_TypeError, "%s: a dict of named fields", what), -1;
    if (PyDict_Size(option) == count_names(names)) return 0;
    PyErr_Format(PyExc_ValueError, "%s: the fields are exactly OPTION_FIELDS' (or the profile's, a rule's)", what);
    return -1;
}

/* The field ``name`` of ``option`` (borrowed); NULL with an exception set if it is missing. */
static PyObject *field(PyObject *option, const char *name) {
    PyObject *value = PyDict_GetItemString(option, name);
    if (!value) PyErr_Format(PyExc_KeyError, "an option's field '%s' is missing", name);
    return value;
}

static int int_field(PyObject *option, const char *name, int *out) {
    PyObject *value = field(option, name);
    long number = value ? PyLong_AsLong(value) : -1;
    if (!value || (number == -1 && PyErr_Occurred())) return -1;
    if (number < INT_MIN || number > INT_MAX) return PyErr_Format(PyExc_OverflowError, "field '%s' is out of range", name), -1;
    *out = (int)number;
    return 0;
}

static int bool_field(PyObject *option, const char *name, int *out) {
    PyObject *value = field(option, name);
    *out = value ? PyObject_IsTrue(value) : -1;
    return *out < 0 ? -1 : 0;
}

/* A bytes field: its data (alive while the option is) and length. */
static int bytes_field(PyObject *option, const char *name, const char **data, size_t *len) {
    PyObject *value = field(option, name);
    char *p;
    Py_ssize_t n;
    if (!value || PyBytes_AsStringAndSize(value, &p, &n) < 0) return -1;
    *data = p, *len = (size_t)n;
    return 0;
}

/* profile: {generic, rules: [{rule, names, prefixes}, ...]}, the lists length-prefixed; NULL
 * (a missing field, its exception set) is passed on. */
static int profile_from(PyObject *spec, un_profile *prof) {
    PyObject *rules;
    if (!spec || fields_exactly(spec, PROFILE_FIELDS, "profile") < 0 || bool_field(spec, "generic", &prof->generic) < 0) return -1;
    if (!(rules = field(spec, "rules"))) return -1;
    if (!PyList_Check(rules) || PyList_Size(rules) > UN_MAX_RULES) {
        PyErr_SetString(PyExc_ValueError, "a profile's rules: a list, of at most UN_MAX_RULES");
        return -1;
    }
    prof->n_rules = (int)PyList_Size(rules);
    for (int i = 0; i < prof->n_rules; i++) {
        un_rule *r = &prof->rules[i];
        PyObject *one = PyList_GetItem(rules, i);
        int id;
        if (fields_exactly(one, RULE_FIELDS, "rule") < 0 || int_field(one, "rule", &id) < 0) return -1;
        if (bytes_field(one, "names", &r->params.names, &r->params.names_len) < 0) return -1;
        if (bytes_field(one, "prefixes", &r->params.prefixes, &r->params.prefixes_len) < 0) return -1;
        if (id < 0 || id >= UN_N_RULES) {
            PyErr_SetString(PyExc_ValueError, "unknown rule id");
            return -1;
        }
        r->id = (un_rule_id)id;
    }
    un_profile_index(prof);
    return 0;
}

/* The kernel's answerer: a Python callable answer(kind, question) -> str | int, called with
 * the GIL from whichever thread runs the slice. The first exception it raises is kept, to be
 * raised by the call that ran the batch; it stops the batch. */
typedef struct held_answers held_answers;

typedef struct {
    PyObject *callable;
    PyObject *error_type, *error, *traceback;
    held_answers *held; /* a compiled call's answers from its earlier batches, or NULL */
} answerer;

static int answer_code(PyObject *result, un_buf *out) {
    if (result && PyLong_Check(result)) {
        long value = PyLong_AsLong(result);
        int code = value > 0 && value < UN_N_ERRORS ? (int)value : -1;
        if (code < 0 && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "not an error code");
        return code;
    }
    if (result && PyUnicode_Check(result)) {
        Py_ssize_t len;
        const char *text = PyUnicode_AsUTF8AndSize(result, &len);
        if (!text) return -1;
        un_buf_set(out, (const uint8_t *)text, (size_t)len);
        return out->failed ? -1 : UN_OK;
    }
    if (result) PyErr_SetString(PyExc_TypeError, "an answer is a str or an error code");
    return -1;
}

/* The answers a compiled call has had from Python, for all its batches on every thread: a
 * worker's own cache lasts one slice, and an engine's small batches ask the same hosts over
 * and over, each time taking the GIL (which an SQL engine's other threads may hold). Only
 * those that depend on nothing but the question are held: UTS #46 and the profile's host
 * rules, not strip_www, whose answer is the list in use (which Python keeps by list). The
 * lock is only ever tried: a thread that finds it taken asks Python instead, and a fork
 * that copies it taken cannot wait on it. */
struct held_answers {
    un_mutex lock;
    un_answers answers;
};

#define HELD_ANSWERS (1 << 16) /* then they are let go and held anew */

static int held_kind(int kind) { return kind == UN_ASK_HOST || kind == UN_ASK_HOST_RULES; }

/* The held answer to (kind, question) written to out: its code, or -1 if none is held. */
static int held_recall(held_answers *h, int kind, const uint8_t *question, size_t n, un_buf *out) {
    un_answer a;
    int code = -1;
    if (!h || !held_kind(kind) || un_mutex_trylock(&h->lock) != 0) return -1;
    if (un_answers_recall(&h->answers, kind, question, n, &a)) {
        un_buf_set(out, a.text, a.len);
        code = out->failed ? -1 : a.code;
    }
    un_mutex_unlock(&h->lock);
    return code;
}

/* Every held answer dropped: when they fill up, or when keeping one ran out of memory. */
static void let_go(un_answers *answers) {
    un_answers_free(answers);
    memset(answers, 0, sizeof *answers);
}

static void held_keep(held_answers *h, int kind, const uint8_t *question, size_t n, int code, const un_buf *out) {
    if (!h || !held_kind(kind) || un_mutex_trylock(&h->lock) != 0) return;
    if (un_answers_count(&h->answers) >= HELD_ANSWERS) let_go(&h->answers);
    if (un_answers_keep(&h->answers, kind, question, n, code, out->data, out->len) != 0) let_go(&h->answers);
    un_mutex_unlock(&h->lock);
}

static int python_answer(void *data, int kind, const uint8_t *question, size_t n, un_buf *out) {
    answerer *a = data;
    int held = held_recall(a->held, kind, question, n, out);
    if (held >= 0) return held;
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *result = PyObject_CallFunction(a->callable, "is#", kind, (const char *)question, (Py_ssize_t)n);
    int code = answer_code(result, out);
    Py_XDECREF(result);
    if (code < 0 && !a->error_type && PyErr_Occurred()) PyErr_Fetch(&a->error_type, &a->error, &a->traceback);
    PyErr_Clear();
    PyGILState_Release(gil);
    if (code >= 0) held_keep(a->held, kind, question, n, code, out);
    return code;
}

/* Rows every run has read, so that a test can count how often a job passes over its rows
 * (Polars' threads add theirs without the GIL). */
static atomic_ullong rows_run;

/* filter: the thresholds, then the lists (length-prefixed names) and the address blocks
 * (UN_BLOCK_SIZE bytes each). */
static int filters_from(PyObject *option, un_filters *f) {
    int max_length;
    int ok = int_field(option, "max_length", &max_length) == 0 && int_field(option, "max_depth", &f->max_depth) == 0 &&
             int_field(option, "max_repeats", &f->max_repeats) == 0 &&
             bytes_field(option, "schemes", &f->schemes, &f->schemes_len) == 0 &&
             bytes_field(option, "extensions", &f->extensions, &f->extensions_len) == 0 &&
             bytes_field(option, "calendar_keys", &f->calendar_keys, &f->calendar_keys_len) == 0 &&
             bytes_field(option, "local_names", &f->local_names, &f->local_names_len) == 0 &&
             bytes_field(option, "blocks", (const char **)&f->blocks, &f->blocks_len) == 0;
    if (!ok) return -1;
    if (max_length < 0 || f->max_depth < 0 || f->max_depth > UN_MAX_FILTER_DEPTH || f->max_repeats < 2) {
        PyErr_SetString(PyExc_ValueError, "filter thresholds out of range");
        return -1;
    }
    f->max_length = (size_t)max_length;
    return 0;
}

static int psl_table_in_range(int table) {
    if (table >= 0 && table < UN_PSL_TABLES) return 1;
    PyErr_SetString(PyExc_ValueError, "no such Public Suffix List table");
    return 0;
}

/* The database's tables (kernel.h un_referrer_tables) built into refs; 0, or -1 with an
 * exception set. */
static int referrers_from(PyObject *option, un_referrers *refs) {
    un_referrer_tables t;
    int ok = bytes_field(option, "keys", (const char **)&t.keys, &t.keys_len) == 0 &&
             bytes_field(option, "sources", (const char **)&t.sources, &t.sources_len) == 0 &&
             bytes_field(option, "internal", (const char **)&t.internal, &t.internal_len) == 0 &&
             bytes_field(option, "codes", (const char **)&t.codes, &t.codes_len) == 0 &&
             bytes_field(option, "categories", (const char **)&t.categories, &t.categories_len) == 0 &&
             int_field(option, "term_rule", &t.term_rule) == 0;
    if (!ok) return -1;
    if (!un_referrers_build(refs, &t)) return PyErr_SetString(PyExc_ValueError, "referrer: malformed tables"), -1;
    return 0;
}

static const char REFERRERS_CAPSULE[] = "urlnorm.referrers";

static void free_referrers(PyObject *capsule) {
    un_referrers *r = PyCapsule_GetPointer(capsule, REFERRERS_CAPSULE);
    if (r) un_referrers_free(r), PyMem_Free(r);
    Py_XDECREF((PyObject *)PyCapsule_GetContext(capsule));
}

/* referrer_table(tables): a referrer database built once for every call that names it (as a
 * Public Suffix List is given once), kept by the capsule with the bytes it points into. */
static PyObject *referrer_table(PyObject *self, PyObject *option) {
    (void)self;
    un_referrers *r = PyMem_Calloc(1, sizeof *r);
    if (!r) return PyErr_NoMemory();
    PyObject *capsule = NULL;
    if (referrers_from(option, r) == 0) capsule = PyCapsule_New(r, REFERRERS_CAPSULE, free_referrers);
    if (!capsule) {
        un_referrers_free(r), PyMem_Free(r);
        return NULL;
    }
    Py_INCREF(option);
    if (PyCapsule_SetContext(capsule, option) < 0) {
        Py_DECREF(option);
        Py_CLEAR(capsule);
    }
    return capsule;
}

/* referrer, visit: the database a referrer_table capsule holds; 0, or -1 with an exception set. */
static int referrers_of(PyObject *option, const un_referrers **r) {
    PyObject *capsule = field(option, "table");
    *r = capsule ? PyCapsule_GetPointer(capsule, REFERRERS_CAPSULE) : NULL;
    return *r ? 0 : -1;
}

/* campaign, visit: the fields' parameter names and the networks, indexed; 0, or -1 with an
 * exception set. */
static int campaign_from(PyObject *option, un_campaign_names *t) {
    if (bytes_field(option, "names", (const char **)&t->names, &t->names_len) < 0 ||
        bytes_field(option, "networks", (const char **)&t->networks, &t->networks_len) < 0)
        return -1;
    if (!un_campaign_index(t)) return PyErr_SetString(PyExc_ValueError, "campaign: malformed names, or too many"), -1;
    return 0;
}

/* The operation's option (its OPTION_FIELDS) into the batch and the profile it points to; 0,
 * or -1 with an exception set. */
static int option_into(PyObject *option, un_batch *b, un_profile *prof) {
    size_t len;
    int bits, fields;
    if (fields_exactly(option, OPTION_FIELDS[b->op], UN_OP_NAMES[b->op]) < 0) return -1;
    switch (b->op) {
    case UN_OP_PARSE:
        b->profile = prof;
        if (int_field(option, "outputs", &bits) < 0) return -1;
        if (bits < 0) return PyErr_SetString(PyExc_ValueError, "outputs: a set of bits"), -1;
        b->outputs = (unsigned)bits;
        if (bool_field(option, "with_scheme", &b->with_scheme) < 0 || bool_field(option, "trailing_comma", &b->trailing_comma) < 0 ||
            int_field(option, "psl_table", &b->psl_table) < 0)
            return -1;
        return psl_table_in_range(b->psl_table) ? profile_from(field(option, "profile"), prof) : -1;
    case UN_OP_SURT:
        b->profile = prof;
        if (bool_field(option, "with_scheme", &b->with_scheme) < 0 || bool_field(option, "trailing_comma", &b->trailing_comma) < 0) return -1;
        return profile_from(field(option, "profile"), prof);
    case UN_OP_NORMALIZE:
    case UN_OP_NORMALIZE_RECORD:
        b->profile = prof;
        return profile_from(field(option, "profile"), prof);
    case UN_OP_SPLIT:
        if (bool_field(option, "generic", &b->generic) < 0 || int_field(option, "extent", &b->extent) < 0) return -1;
        if (int_field(option, "fields", &fields) < 0) return -1;
        b->fields = (unsigned)fields & ((2u << UN_N_FIELDS) - 1);
        if (b->extent < 0 || b->extent >= UN_N_EXTENTS) return PyErr_SetString(PyExc_ValueError, "unknown parse extent"), -1;
        return 0;
    case UN_OP_HOST:
        if (int_field(option, "host_column", &b->host_column) < 0 || int_field(option, "psl_table", &b->psl_table) < 0) return -1;
        if (b->host_column < 0 || b->host_column >= UN_N_HOST_COLUMNS) return PyErr_SetString(PyExc_ValueError, "unknown host column"), -1;
        return psl_table_in_range(b->psl_table) ? 0 : -1;
    case UN_OP_QUERY:
        if (int_field(option, "query_mode", &b->query_mode) < 0 || bytes_field(option, "name", (const char **)&b->name, &b->name_len) < 0)
            return -1;
        if (b->query_mode < 0 || b->query_mode >= UN_N_QUERY_MODES) return PyErr_SetString(PyExc_ValueError, "unknown query mode"), -1;
        return 0;
    case UN_OP_SELECT_PARAMS:
        if (bool_field(option, "keep", &b->keep) < 0 || bytes_field(option, "names", &b->params.names, &len) < 0) return -1;
        b->params.names_len = len;
        return 0;
    case UN_OP_JOIN: return int_field(option, "join_mode", &b->join_mode);
    case UN_OP_FILTER: return filters_from(option, &b->filters);
    case UN_OP_UNWRAP: return bytes_field(option, "wrappers", &b->wrappers.names, &b->wrappers.names_len);
    case UN_OP_COMPONENT:
        if (int_field(option, "component_mode", &b->component_mode) < 0) return -1;
        if (b->component_mode < 0 || b->component_mode >= UN_N_COMPONENT_MODES)
            return PyErr_SetString(PyExc_ValueError, "unknown component mode"), -1;
        return 0;
    case UN_OP_REFERRER:
        if (int_field(option, "fields", &fields) < 0) return -1;
        b->fields = (unsigned)fields & ((1u << UN_N_REFERRER_COLUMNS) - 1);
        return referrers_of(option, &b->referrers);
    case UN_OP_VISIT:
        if (int_field(option, "fields", &fields) < 0 || referrers_of(option, &b->referrers) < 0) return -1;
        b->fields = (unsigned)fields & ((1u << UN_N_VISIT_COLUMNS) - 1);
        return campaign_from(option, &b->campaign);
    case UN_OP_CAMPAIGN: return campaign_from(option, &b->campaign);
    case UN_OP_URL_PART:
        if (int_field(option, "url_part", &b->url_part) < 0) return -1;
        if (b->url_part < 0 || b->url_part >= UN_N_URL_PARTS) return PyErr_SetString(PyExc_ValueError, "unknown URL part"), -1;
        return 0;
    default: return 0;
    }
}

/* The slices' row bounds from their starts (a list of ints, the first 0, ascending), the
 * rows' count appended; NULL with an exception set. */
static int64_t *slice_bounds(PyObject *starts, int64_t rows, int *n_slices) {
    Py_ssize_t n = PyList_Check(starts) ? PyList_Size(starts) : 0;
    if (n < 1 || n > INT_MAX - 1) {
        PyErr_SetString(PyExc_ValueError, "slices: a list of one start or more");
        return NULL;
    }
    int64_t *bounds = PyMem_Malloc((size_t)(n + 1) * sizeof *bounds);
    if (!bounds) return (int64_t *)PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) bounds[i] = PyLong_AsLongLong(PyList_GetItem(starts, i));
    bounds[n] = rows;
    *n_slices = (int)n;
    if (!PyErr_Occurred()) return bounds;
    PyMem_Free(bounds);
    return NULL;
}

/* Each slice's outputs, as a list; NULL with an exception set. */
static PyObject *results_to_python(const un_batch *b, un_result *results, const int64_t *bounds, int n_slices,
                                   const projection *columns) {
    PyObject *out = PyList_New(n_slices);
    for (int i = 0; out && i < n_slices; i++) {
        PyObject *one = slice_from(b, &results[i], bounds[i + 1] - bounds[i], columns);
        if (!one || PyList_SetItem(out, i, one) < 0) Py_CLEAR(out);
    }
    return out;
}

/* The batch's slices, run on the threads with the GIL released; their outputs, or NULL. */
static PyObject *run_batch(un_batch *b, PyObject *starts, int threads, answerer *a, const projection *columns) {
    int n_slices = 0, failed = 1;
    int64_t *bounds = slice_bounds(starts, b->input.length, &n_slices);
    if (bounds && !un_valid_slices(b, bounds, n_slices)) {
        PyErr_SetString(PyExc_ValueError, "slices must start at row 0 and ascend within the rows");
        PyMem_Free(bounds);
        return NULL;
    }
    un_result *results = bounds ? PyMem_Calloc((size_t)n_slices, sizeof *results) : NULL;
    PyObject *out = NULL;
    if (bounds && !results) PyErr_NoMemory();
    if (results) {
        for (int i = 0; i < n_slices; i++) un_result_init(&results[i]);
        Py_BEGIN_ALLOW_THREADS
        failed = un_run_slices(b, bounds, n_slices, threads, results);
        Py_END_ALLOW_THREADS
        if (a->error_type) PyErr_Restore(a->error_type, a->error, a->traceback);
        if (failed && !PyErr_Occurred()) PyErr_SetString(PyExc_MemoryError, "the kernel ran out of memory or met a malformed array");
        if (!failed) out = results_to_python(b, results, bounds, n_slices, columns);
        atomic_fetch_add(&rows_run, (unsigned long long)b->input.length);
        for (int i = 0; i < n_slices; i++) un_result_free(&results[i]);
    }
    PyMem_Free(results);
    PyMem_Free(bounds);
    return out;
}

/* run(op, option, input, base, answer, utf8, starts, threads, columns)
 * op: an index of OP_NAMES; option: a dict of the fields OPTION_FIELDS names for it (a profile
 * is {generic, rules: [{rule, names, prefixes}, ...]}; modes and columns are indexes of the
 * name tuples exported beside them).
 * answer: a callable for the rows' questions, or None to leave them asking.
 * utf8: an index of UTF8_MODES, for binary input (a string type's rows are UTF-8 already).
 * starts: the first row of each slice (a list, from 0 up); threads: how many run them.
 * columns (optional): the names of the columns to hand back, in order (NUL-separated bytes),
 * or None for all.
 * Returns each slice's outputs, as a list of Slice objects. */
static PyObject *run(PyObject *self, PyObject *args) {
    (void)self;
    int op, utf8, threads;
    PyObject *option, *input, *base, *answer, *starts;
    projection columns = {NULL, 0};
    if (!PyArg_ParseTuple(args, "iOOOOiOi|z#", &op, &option, &input, &base, &answer, &utf8, &starts, &threads, &columns.names, &columns.len))
        return NULL;
    if (op < UN_OP_NORMALIZE || op >= UN_N_OPS || utf8 < UN_UTF8_TEXT || utf8 >= UN_N_UTF8_MODES || threads < 1) {
        PyErr_SetString(PyExc_ValueError, "unknown operation or UTF-8 mode, or no thread");
        return NULL;
    }
    un_batch b = {.op = (un_op)op};
    un_profile prof;

    answerer a = {.callable = answer};
    PyObject *out = NULL;
    /* Not zeroed whole: the data buffers' slots are written as a column is read. */
    held_column *local = PyMem_Malloc(2 * sizeof(held_column));
    if (!local) return PyErr_NoMemory();
    memset(&local[0], 0, offsetof(held_column, data)), memset(&local[1], 0, offsetof(held_column, data));
    int tables = op == UN_OP_REFERRER || op == UN_OP_VISIT;
    int ok = option_into(option, &b, &prof) == 0 && column_from(input, &local[0]) == 0;
    b.input = local[0].col;
    b.check_utf8 = !local[0].text && utf8 != UN_UTF8_TEXT, b.encode_invalid_utf8 = b.check_utf8 && utf8 == UN_UTF8_ENCODE;
    b.utf8_rows = local[0].text || b.check_utf8;
    if (ok && base != Py_None) ok = column_from(base, &local[1]) == 0, b.base = &local[1].col;
    if (ok && op == UN_OP_JOIN && (base == Py_None || (b.base->length != 1 && b.base->length < b.input.length))) {
        PyErr_SetString(PyExc_ValueError, "join needs one base or one a row");
        ok = 0;
    }
    if (ok && answer != Py_None) b.answer = python_answer, b.answer_data = &a;
    b.quiet = un_names_quiet(columns.names, (size_t)columns.len);
    if (ok && tables && b.base && b.base->length != 1 && b.base->length < b.input.length) {
        PyErr_SetString(PyExc_ValueError, "referrer and visit need one base, one a row, or none");
        ok = 0;
    }
    if (ok) out = run_batch(&b, starts, threads, &a, &columns);
    for (int i = 0; i < 2; i++) release(&local[i]);
    PyMem_Free(local);
    return out;
}

/* ---- calls Polars runs (plugin.h) ------------------------------------------------------------ */

/* A compiled call and the Python objects its options point into, kept for the process. */
typedef struct {
    un_call call;
    PyObject *key, *option, *answer, *before, *columns;
    held_answers answers;
} held_call;

/* The answerer's exception as one line, "urlnorm: Type: message"; the exception is dropped. */
static void describe_error(answerer *a, char *why, size_t why_len) {
    PyErr_NormalizeException(&a->error_type, &a->error, &a->traceback);
    PyObject *name = PyType_GetName((PyTypeObject *)a->error_type);
    PyObject *text = a->error ? PyObject_Str(a->error) : NULL;
    const char *n = name ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL, *t = text ? PyUnicode_AsUTF8AndSize(text, NULL) : NULL;
    snprintf(why, why_len, "urlnorm: %s: %s", n ? n : "an exception", t ? t : "");
    Py_XDECREF(name), Py_XDECREF(text);
    Py_CLEAR(a->error_type);
    Py_CLEAR(a->error);
    Py_CLEAR(a->traceback);
    PyErr_Clear();
}

/* before(): what a call's batch needs from Python first (the Public Suffix List as the process
 * has it now), called with the GIL; 0, or -1 with its exception described in why. */
static int call_before(PyObject *before, answerer *a, char *why, size_t why_len) {
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *done = PyObject_CallNoArgs(before);
    if (!done) PyErr_Fetch(&a->error_type, &a->error, &a->traceback), describe_error(a, why, why_len);
    Py_XDECREF(done);
    PyGILState_Release(gil);
    return done ? 0 : -1;
}

/* The runner of every compiled call: the batch as run() runs it, an answer's exception made
 * the call's error. Called on Polars' threads, without the GIL. */
static int run_held_call(const un_call *call, un_batch *batches, int n_batches, const un_slice *slices, int n_slices,
                         un_result *results, char *why, size_t why_len) {
    held_call *h = call->owner;
    answerer a = {.callable = h->answer, .held = &h->answers};
    if (h->before != Py_None && call_before(h->before, &a, why, why_len) < 0) return -1;
    for (int i = 0; i < n_batches; i++) {
        if (h->answer != Py_None) batches[i].answer = python_answer, batches[i].answer_data = &a;
        atomic_fetch_add(&rows_run, (unsigned long long)batches[i].input.length);
    }
    int failed = un_run_slice_table(batches, n_batches, slices, n_slices, call->threads, results);
    if (a.error_type) {
        PyGILState_STATE gil = PyGILState_Ensure();
        describe_error(&a, why, why_len);
        PyGILState_Release(gil);
        return -1;
    }
    if (failed) snprintf(why, why_len, "urlnorm: the kernel ran out of memory or met a malformed array");
    return failed ? -1 : 0;
}

/* Whether a call's settings are ones the kernel runs; an exception set if not. */
static int call_settings_valid(int op, int utf8, int threads, long long min_bytes, long long max_bytes, PyObject *columns, int single) {
    const char *names = PyBytes_AsString(columns);
    Py_ssize_t len = PyBytes_Size(columns);
    int ok = op >= UN_OP_NORMALIZE && op < UN_N_OPS && op != UN_OP_JOIN && op != UN_OP_REFERRER && op != UN_OP_VISIT && utf8 >= UN_UTF8_TEXT && utf8 < UN_N_UTF8_MODES &&
             threads >= 1 && min_bytes >= 1 && max_bytes >= min_bytes && len > 0;
    if (ok && single) ok = memchr(names, '\0', (size_t)len) == NULL;
    if (!ok) PyErr_SetString(PyExc_ValueError, "a call: one of OP_NAMES but join, referrer and visit, a UTF-8 mode, threads and slice bytes of 1 or more, and its columns (one if single)");
    return ok;
}

/* compile_call(key, op, option, answer, before, utf8, threads, min_slice_bytes,
 * max_slice_bytes, columns, single): the operation compiled once for Polars to run as the
 * plugin's "call", found by `key` (the keyword arguments' bytes Polars will hand over).
 * Arguments as run() takes them; `before`: a callable run with the GIL before each batch, or
 * None; `single`: hand back the one column named, not a struct. Its index, or -1 if
 * MAX_CALLS are compiled already. */
static PyObject *compile_call(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *key, *option, *answer, *before, *columns;
    int op, utf8, threads, single;
    long long min_bytes, max_bytes;
    if (!PyArg_ParseTuple(args, "O!iOOOiiLLO!p", &PyBytes_Type, &key, &op, &option, &answer, &before, &utf8, &threads, &min_bytes,
                          &max_bytes, &PyBytes_Type, &columns, &single) ||
        !call_settings_valid(op, utf8, threads, min_bytes, max_bytes, columns, single))
        return NULL;
    held_call *h = calloc(1, sizeof *h);
    if (!h) return PyErr_NoMemory();
    un_mutex_init(&h->answers.lock);
    un_call *c = &h->call;
    c->batch.op = (un_op)op;
    struct ArrowSchema schema;
    int done = option_into(option, &c->batch, &c->profile) == 0 ? 0 : -3;
    c->key = (const uint8_t *)PyBytes_AsString(key), c->key_len = (size_t)PyBytes_Size(key);
    c->columns = PyBytes_AsString(columns), c->columns_len = (size_t)PyBytes_Size(columns);
    c->utf8 = utf8, c->single = single, c->threads = threads, c->min_slice_bytes = min_bytes, c->max_slice_bytes = max_bytes;
    c->run = run_held_call, c->owner = h;
    if (done == 0 && (done = un_call_schema(c, "", &schema)) == 0) schema.release(&schema);
    if (done == -1) PyErr_NoMemory();
    if (done == -2) PyErr_SetString(PyExc_ValueError, "columns: a name the operation does not emit");
    if (done != 0) return free(h), NULL;
    h->key = Py_NewRef(key), h->option = Py_NewRef(option), h->answer = Py_NewRef(answer), h->before = Py_NewRef(before);
    h->columns = Py_NewRef(columns);
    int index = un_call_register(c);
    if (index < 0) {
        Py_DECREF(key), Py_DECREF(option), Py_DECREF(answer), Py_DECREF(before), Py_DECREF(columns);
        free(h);
    }
    return PyLong_FromLong(index);
}

/* apply_call(index, column): the call compiled at `index` (compile_call's) over a column's
 * PyCapsules (a stream's chunks, or an array), on the call's threads with the GIL released:
 * a Polars call's work and output, for a caller that is not Polars. Its output as an
 * "arrow_array_stream" capsule; ValueError with the call's error if it failed. */
static PyObject *apply_call(PyObject *self, PyObject *args) {
    (void)self;
    int index;
    PyObject *column;
    if (!PyArg_ParseTuple(args, "iO", &index, &column)) return NULL;
    const un_call *c = un_call_at(index);
    if (!c) return PyErr_Format(PyExc_ValueError, "no compiled call %d", index);
    held_chunks h = {0};
    struct ArrowArrayStream *out = NULL;
    int done = chunks_from(column, &h);
    if (done == 0 && !(out = PyMem_Malloc(sizeof *out))) done = -1, PyErr_NoMemory();
    if (done == 0) {
        series_export in = {.field = (struct ArrowSchema *)h.field, .arrays = h.pointers, .len = h.chunks};
        Py_BEGIN_ALLOW_THREADS
        done = un_call_stream(c, &in, h.len == h.chunks, out); /* a stream's chunks are h's own */
        Py_END_ALLOW_THREADS
        if (done != 0) PyErr_SetString(PyExc_ValueError, un_call_error());
    }
    chunks_release(&h);
    PyObject *capsule = done == 0 ? PyCapsule_New(out, "arrow_array_stream", stream_capsule_free) : NULL;
    if (!capsule && done == 0) out->release(out);
    if (!capsule) PyMem_Free(out);
    return capsule;
}

/* large_strings(column, threads, min_rows): a text column's PyCapsules as a large_string
 * array's, its bytes gathered on up to `threads` threads (un_large_strings). */
static PyObject *large_strings(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *input;
    int threads;
    long long min_rows;
    if (!PyArg_ParseTuple(args, "OiL", &input, &threads, &min_rows)) return NULL;
    if (threads < 1 || min_rows < 1) return PyErr_Format(PyExc_ValueError, "large_strings: a thread and a row or more");
    held_column *h = PyMem_Malloc(sizeof *h);
    struct ArrowSchema *schema = PyMem_Malloc(sizeof *schema);
    struct ArrowArray *array = PyMem_Malloc(sizeof *array);
    if (!h || !schema || !array) {
        PyMem_Free(h), PyMem_Free(schema), PyMem_Free(array);
        return PyErr_NoMemory();
    }
    memset(h, 0, offsetof(held_column, data));
    int done = -1, read = column_from(input, h) == 0;
    if (read && !h->text) PyErr_SetString(PyExc_TypeError, "large_strings: a string column");
    if (read && h->text) {
        Py_BEGIN_ALLOW_THREADS
        done = un_large_strings(&h->col, threads, min_rows, schema, array);
        Py_END_ALLOW_THREADS
        if (done != 0) PyErr_SetString(PyExc_MemoryError, "large_strings: out of memory, or a malformed array");
    }
    release(h);
    PyMem_Free(h);
    if (done != 0) return PyMem_Free(schema), PyMem_Free(array), NULL;
    return capsule_pair(schema, array);
}

/* slice_rows(length, nbytes, workers, min_slice_bytes, max_slice_bytes): un_slice_rows. */
static PyObject *slice_rows(PyObject *self, PyObject *args) {
    (void)self;
    long long length, nbytes, min_bytes, max_bytes;
    int workers;
    if (!PyArg_ParseTuple(args, "LLiLL", &length, &nbytes, &workers, &min_bytes, &max_bytes)) return NULL;
    if (length < 0 || nbytes < 0 || workers < 1 || min_bytes < 1 || max_bytes < 1)
        return PyErr_Format(PyExc_ValueError, "slice_rows: counts of 0 or more, workers and slice bytes of 1 or more");
    return PyLong_FromLongLong(un_slice_rows(length, nbytes, workers, min_bytes, max_bytes));
}

/* set_tables(classes: 512 bytes of uint16, special: [(scheme, default port or -1), ...]) */
static PyObject *set_tables(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer classes;
    PyObject *special;
    if (!PyArg_ParseTuple(args, "y*O!", &classes, &PyList_Type, &special)) return NULL;
    un_tables t;
    memset(&t, 0, sizeof t);
    int ok = classes.len == (Py_ssize_t)sizeof t.classes && PyList_Size(special) <= UN_MAX_SCHEMES;
    if (ok) memcpy(t.classes, classes.buf, sizeof t.classes);
    PyBuffer_Release(&classes);
    for (Py_ssize_t i = 0; ok && i < PyList_Size(special); i++) {
        const char *name;
        Py_ssize_t len;
        if (!PyArg_ParseTuple(PyList_GetItem(special, i), "s#i", &name, &len, &t.default_port[i])) return NULL;
        ok = len < UN_SCHEME_LEN;
        if (ok) memcpy(t.special[i], name, (size_t)len);
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "tables do not fit the kernel");
        return NULL;
    }
    t.n_special = (int)PyList_Size(special);
    un_set_tables(&t);
    un_whatwg_init();
    un_normal_form_init();
    Py_RETURN_NONE;
}

/* set_psl(table, rules: NUL-terminated rule strings, maxlabel) */
static PyObject *set_psl(PyObject *self, PyObject *args) {
    (void)self;
    const char *rules;
    Py_ssize_t len;
    int maxlabel, table;
    if (!PyArg_ParseTuple(args, "iy#i", &table, &rules, &len, &maxlabel) || !psl_table_in_range(table)) return NULL;
    if (!un_psl_set(table, rules, (size_t)len, maxlabel)) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *names_tuple(const char *const *names, int n) {
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) {
        PyObject *name = PyUnicode_FromString(names[i]);
        if (!name || PyTuple_SetItem(t, i, name) < 0) Py_CLEAR(t);
    }
    return t;
}

/* HOST's columns: the host, its type, then the Public Suffix List parts. */
static PyObject *host_columns(void) {
    const char *names[UN_N_HOST_COLUMNS] = {[UN_HOST_TEXT] = "host", [UN_HOST_TYPE] = "host_type", [UN_HOST_SITE] = "site"};
    for (int i = 0; i < UN_N_PARTS; i++) names[UN_HOST_PARTS + i] = UN_PART_NAMES[i];
    return names_tuple(names, UN_N_HOST_COLUMNS);
}

/* OPTION_FIELDS: each operation's option fields, by the operation's name. */
static PyObject *option_fields(void) {
    PyObject *all = PyDict_New();
    for (int op = 0; all && op < UN_N_OPS; op++) {
        PyObject *names = names_tuple(OPTION_FIELDS[op], (int)count_names(OPTION_FIELDS[op]));
        if (!names || PyDict_SetItemString(all, UN_OP_NAMES[op], names) < 0) Py_CLEAR(all);
        Py_XDECREF(names);
    }
    return all;
}

/* scan([name]): the normal-form scan's byte classifier in use (SCAN_NAMES; None before the
 * tables are given); with a name, that one from the next batch on, if this CPU has it. */
static PyObject *scan(PyObject *self, PyObject *args) {
    (void)self;
    const char *name = NULL;
    if (!PyArg_ParseTuple(args, "|s", &name)) return NULL;
    if (name) {
        int kind = 0;
        while (kind < UN_N_SCANS && strcmp(UN_SCAN_NAMES[kind], name) != 0) kind++;
        if (kind == UN_N_SCANS) return PyErr_Format(PyExc_ValueError, "no scan is named %s", name);
        if (!un_normal_form_use(kind)) return PyErr_Format(PyExc_ValueError, "this CPU has no %s scan", name);
    }
    int in_use = un_normal_form_scan();
    if (in_use < 0) Py_RETURN_NONE;
    return PyUnicode_FromString(UN_SCAN_NAMES[in_use]);
}

static PyObject *rows_read(PyObject *self, PyObject *args) {
    (void)self, (void)args;
    return PyLong_FromUnsignedLongLong(atomic_load(&rows_run));
}

/* normal_form(profile, urls[, extent]): the profile's requirements (a bit for each of NF_NAMES;
 * None: no profile, the parse's own form alone) and, for each URL (bytes), whether the kernel's
 * scan to extent (an index of PARSE_EXTENTS; the whole URL by default) takes it under them
 * (normal_form.c): 0 not, 1 as written, 2 respelt (un_spans.as_written), 2 more where its
 * escapes are rewritten (un_spans.rewrite_escapes), and 4 more where its dot segments are
 * removed (un_spans.remove_dots).
 * For the tests that hold the scan against its twin in the core. */
static PyObject *normal_form(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *spec, *urls;
    un_profile prof = {0};
    int extent = UN_EXTENT_WHOLE;
    if (!PyArg_ParseTuple(args, "OO!|i", &spec, &PyList_Type, &urls, &extent)) return NULL;
    if (extent < 0 || extent >= UN_N_EXTENTS) return PyErr_SetString(PyExc_ValueError, "unknown parse extent"), NULL;
    if (spec != Py_None && profile_from(spec, &prof) < 0) return NULL;
    PyObject *accepted = PyList_New(PyList_Size(urls));
    for (Py_ssize_t i = 0; accepted && i < PyList_Size(urls); i++) {
        char *p;
        Py_ssize_t n;
        un_spans spans;
        if (PyBytes_AsStringAndSize(PyList_GetItem(urls, i), &p, &n) < 0) Py_CLEAR(accepted);
        else if (!un_normal_form((const uint8_t *)p, (size_t)n, prof.normal_form, extent, &spans)) PyList_SetItem(accepted, i, PyLong_FromLong(0));
        else PyList_SetItem(accepted, i, PyLong_FromLong((spans.as_written ? 1 : 2) + 2 * spans.rewrite_escapes + 4 * spans.remove_dots));
    }
    return accepted ? Py_BuildValue("(IN)", prof.normal_form, accepted) : NULL;
}

static PyObject *helped_calls(PyObject *self, PyObject *args) {
    (void)self, (void)args;
    return PyLong_FromUnsignedLong(un_helped_calls());
}

static PyObject *rows_scanned(PyObject *self, PyObject *args) {
    (void)self, (void)args;
    return PyLong_FromUnsignedLongLong(un_rows_scanned());
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS, "The normal-form scan's byte classifier in use; with a name, use that one."},
    {"rows_read", rows_read, METH_NOARGS, "How many rows the kernel has run over in this process."},
    {"helped_calls", helped_calls, METH_NOARGS, "How many calls this process has handed to the kernel's helper threads."},
    {"rows_scanned", rows_scanned, METH_NOARGS, "How many rows the kernel has put to its normal-form scan in this process: each row once, counted a window at a time (null rows among them)."},
    {"normal_form", normal_form, METH_VARARGS, "A profile's requirements, and which URLs the kernel's scan takes as their own normal form."},
    {"stream", stream, METH_O, "A run's slices as one Arrow stream's PyCapsule, a chunk a slice."},
    {"run", run, METH_VARARGS, "Run one operation over a batch of rows."},
    {"compile_call", compile_call, METH_VARARGS, "Compile an operation for Polars to run as the plugin's call."},
    {"apply_call", apply_call, METH_VARARGS, "Run a compiled call over a column's Arrow PyCapsules."},
    {"large_strings", large_strings, METH_VARARGS, "A text column as a large_string array, its bytes gathered on threads."},
    {"slice_rows", slice_rows, METH_VARARGS, "The rows of each slice of a batch, one a thread."},
    {"set_tables", set_tables, METH_VARARGS, "Give the kernel urlnorm.core's character tables."},
    {"set_psl", set_psl, METH_VARARGS, "Give the kernel the Public Suffix List's rule set."},
    {"referrer_table", referrer_table, METH_O, "Build a referrer database once, for every call."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, .m_name = "_urlnorm", .m_doc = "urlnorm's native kernel.", .m_size = -1, .m_methods = methods,
};

PyMODINIT_FUNC PyInit__urlnorm(void) {
    if (!SliceType && !(SliceType = PyType_FromSpec(&slice_spec))) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddObject(m, "ERROR_NAMES", names_tuple(UN_ERROR_NAMES, UN_N_ERRORS)) < 0 ||
        PyModule_AddObject(m, "RULE_NAMES", names_tuple(UN_RULE_NAMES, UN_N_RULES)) < 0 ||
        PyModule_AddObject(m, "NF_NAMES", names_tuple(UN_NF_NAMES, UN_N_NF)) < 0 ||
        PyModule_AddObject(m, "SCAN_NAMES", names_tuple(UN_SCAN_NAMES, UN_N_SCANS)) < 0 ||
        PyModule_AddObject(m, "TEXT_FIELDS", names_tuple(UN_PARSE_COLUMN_NAMES + UN_PARSE_FIELDS, UN_N_FIELDS)) < 0 ||
        PyModule_AddObject(m, "OUTPUT_NAMES", names_tuple(UN_OUTPUT_NAMES, UN_N_OUTPUTS)) < 0 ||
        PyModule_AddObject(m, "OP_NAMES", names_tuple(UN_OP_NAMES, UN_N_OPS)) < 0 ||
        PyModule_AddObject(m, "JOIN_MODES", names_tuple(UN_JOIN_MODE_NAMES, UN_N_JOIN_MODES)) < 0 ||
        PyModule_AddObject(m, "QUERY_MODES", names_tuple(UN_QUERY_MODE_NAMES, UN_N_QUERY_MODES)) < 0 ||
        PyModule_AddObject(m, "COMPONENT_MODES", names_tuple(UN_COMPONENT_MODE_NAMES, UN_N_COMPONENT_MODES)) < 0 ||
        PyModule_AddObject(m, "URL_PARTS", names_tuple(UN_URL_PART_NAMES, UN_N_URL_PARTS)) < 0 ||
        PyModule_AddObject(m, "PARSE_EXTENTS", names_tuple(UN_EXTENT_NAMES, UN_N_EXTENTS)) < 0 ||
        PyModule_AddObject(m, "UTF8_MODES", names_tuple(UN_UTF8_MODE_NAMES, UN_N_UTF8_MODES)) < 0 ||
        PyModule_AddObject(m, "PARSE_COLUMNS", names_tuple(UN_PARSE_COLUMN_NAMES, UN_PARSE_COLUMNS)) < 0 ||
        PyModule_AddObject(m, "HOST_COLUMNS", host_columns()) < 0 ||
        PyModule_AddObject(m, "CAMPAIGN_COLUMNS", names_tuple(UN_CAMPAIGN_COLUMN_NAMES, UN_N_CAMPAIGN_COLUMNS)) < 0 ||
        PyModule_AddObject(m, "CHANNELS", names_tuple(UN_CHANNEL_NAMES, UN_N_CHANNELS)) < 0 ||
        PyModule_AddObject(m, "VISIT_COLUMNS", names_tuple(UN_VISIT_COLUMN_NAMES, UN_N_VISIT_COLUMNS)) < 0 ||
        PyModule_AddObject(m, "REFERRER_COLUMNS", names_tuple(UN_REFERRER_COLUMN_NAMES, UN_N_REFERRER_COLUMNS)) < 0 ||
        PyModule_AddObject(m, "CATEGORIES", names_tuple(CATEGORY_NAMES, UN_N_CATEGORIES)) < 0 ||
        PyModule_AddObject(m, "FILTER_REASONS", names_tuple(UN_FILTER_REASON_NAMES, UN_N_FILTER_REASONS)) < 0 ||
        PyModule_AddObject(m, "REDIRECT_ENCODINGS", names_tuple(UN_REDIRECT_ENCODING_NAMES, UN_N_REDIRECT_ENCODINGS)) < 0 ||
        PyModule_AddObject(m, "CLASS_NAMES", names_tuple(UN_CLASS_NAMES, UN_N_CLASSES)) < 0 ||
        PyModule_AddObject(m, "OPTION_FIELDS", option_fields()) < 0 ||
        PyModule_AddObject(m, "PROFILE_FIELDS", names_tuple(PROFILE_FIELDS, (int)count_names(PROFILE_FIELDS))) < 0 ||
        PyModule_AddObject(m, "RULE_FIELDS", names_tuple(RULE_FIELDS, (int)count_names(RULE_FIELDS))) < 0 ||
        PyModule_AddObject(m, "HOST_TYPES", names_tuple(UN_HOST_TYPE_NAMES, UN_N_HOST_TYPES)) < 0 ||
        PyModule_AddObject(m, "HOST_RULE_FLAGS", names_tuple(UN_HOST_RULE_FLAG_NAMES, UN_N_HOST_RULE_FLAGS)) < 0 ||
        PyModule_AddIntConstant(m, "PSL_TABLES", UN_PSL_TABLES) < 0 ||
        PyModule_AddIntConstant(m, "MAX_CALLS", UN_MAX_CALLS) < 0 ||
        PyModule_AddIntConstant(m, "ASK_HOST", UN_ASK_HOST) < 0 ||
        PyModule_AddIntConstant(m, "ASK_FIRST", UN_ASK_HOST) < 0 || /* statuses from here ask */
        PyModule_AddIntConstant(m, "ASK_WWW", UN_ASK_WWW) < 0 ||
        PyModule_AddIntConstant(m, "ASK_HOST_RULES", UN_ASK_HOST_RULES) < 0 ||
        PyModule_AddIntConstant(m, "ASK_TERM", UN_ASK_TERM) < 0 ||
        PyModule_AddObject(m, "TERM_RULES", names_tuple(TERM_RULE_NAMES, UN_N_TERM_RULES)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
