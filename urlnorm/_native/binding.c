/* The CPython binding: the only file that knows Python. Arrow buffers come in through the
 * buffer protocol (no copy); results go out as buffers the binding hands over to pyarrow
 * (no copy); the rows run with the GIL released. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

static const char *const RULE_NAMES[UN_N_RULES] = {
    [UN_RULE_STRIP_WHITESPACE] = "strip_whitespace",
    [UN_RULE_LOWERCASE_SCHEME] = "lowercase_scheme",
    [UN_RULE_UPPERCASE_PERCENT_HEX] = "uppercase_percent_hex",
    [UN_RULE_DECODE_UNRESERVED] = "decode_unreserved",
    [UN_RULE_LOWERCASE_HOST] = "lowercase_host",
    [UN_RULE_IDN_HOST_TO_ASCII] = "idn_host_to_ascii",
    [UN_RULE_IPV6_RFC5952] = "ipv6_rfc5952",
    [UN_RULE_REMOVE_DOT_SEGMENTS] = "remove_dot_segments",
    [UN_RULE_DROP_DEFAULT_PORT] = "drop_default_port",
    [UN_RULE_DROP_EMPTY_USERINFO] = "drop_empty_userinfo",
    [UN_RULE_EMPTY_PATH_TO_SLASH] = "empty_path_to_slash",
    [UN_RULE_FILE_LOCALHOST] = "file_localhost",
    [UN_RULE_DROP_FRAGMENT] = "drop_fragment",
    [UN_RULE_DROP_PATH_SESSION_ID] = "drop_path_session_id",
    [UN_RULE_DROP_PARAMETERS] = "drop_parameters",
    [UN_RULE_CLEAN_QUERY] = "clean_query",
    [UN_RULE_SORT_QUERY] = "sort_query",
    [UN_RULE_STRIP_WWW] = "strip_www",
    [UN_RULE_FOLD_HTTPS] = "fold_https",
    [UN_RULE_DROP_TRAILING_SLASH] = "drop_trailing_slash",
    [UN_RULE_HOST_RULES] = "host_rules",
};

/* ---- Buffer: memory the kernel wrote, handed to Python without a copy ------------------- */

typedef struct {
    PyObject_HEAD
    uint8_t *data;
    Py_ssize_t len;
    size_t cap;
} Buffer;

static void buffer_dealloc(Buffer *self) {
    un_block_give(self->data, self->cap);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int buffer_get(Buffer *self, Py_buffer *view, int flags) {
    static uint8_t empty;
    return PyBuffer_FillInfo(view, (PyObject *)self, self->data ? self->data : &empty, self->len, 1, flags);
}

static PyBufferProcs buffer_procs = {.bf_getbuffer = (getbufferproc)buffer_get};

static PyTypeObject BufferType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "urlnorm._urlnorm.Buffer",
    .tp_basicsize = sizeof(Buffer),
    .tp_dealloc = (destructor)buffer_dealloc,
    .tp_as_buffer = &buffer_procs,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Memory written by the kernel, exposed through the buffer protocol.",
};

static PyObject *take(un_buf *b) {
    Buffer *out = PyObject_New(Buffer, &BufferType);
    if (!out) return NULL;
    out->data = b->data;
    out->len = (Py_ssize_t)b->len;
    out->cap = b->cap;
    b->data = NULL;
    b->len = b->cap = 0;
    return (PyObject *)out;
}

/* A string_view column: (validity, views, null count); its data is the batch's one buffer. */
static PyObject *take_builder(un_builder *b) {
    PyObject *validity = take(&b->validity), *views = take(&b->views);
    if (!validity || !views) {
        Py_XDECREF(validity), Py_XDECREF(views);
        return NULL;
    }
    return Py_BuildValue("(NNL)", validity, views, (long long)b->nulls);
}

/* ---- columns in ------------------------------------------------------------------------ */

#define MAX_VIEWS 4096

typedef struct {
    un_column col;
    Py_buffer views[MAX_VIEWS + 2];
    un_bytes data[MAX_VIEWS];
    int n_views;
} held_column;

static void release(held_column *h) {
    for (int i = 0; i < h->n_views; i++) PyBuffer_Release(&h->views[i]);
    h->n_views = 0;
}

static int hold(held_column *h, PyObject *obj, const uint8_t **p, size_t *n) {
    Py_buffer *v = &h->views[h->n_views];
    if (PyObject_GetBuffer(obj, v, PyBUF_SIMPLE) < 0) return -1;
    h->n_views++;
    *p = v->buf;
    *n = (size_t)v->len;
    return 0;
}

/* spec: (layout, length, offset, validity or None, offsets, [data, ...]) */
static int column_from(PyObject *spec, held_column *h) {
    PyObject *validity, *offsets, *data;
    int layout;
    long long length, offset;
    memset(&h->col, 0, sizeof h->col);
    h->n_views = 0;
    if (!PyArg_ParseTuple(spec, "iLLOOO!", &layout, &length, &offset, &validity, &offsets, &PyList_Type, &data)) return -1;
    if (layout < UN_OFFSETS32 || layout > UN_VIEWS || length < 0 || offset < 0 || PyList_GET_SIZE(data) > MAX_VIEWS) {
        PyErr_SetString(PyExc_ValueError, "unsupported array layout");
        return -1;
    }
    un_column *c = &h->col;
    c->layout = (un_layout)layout, c->length = length, c->offset = offset;
    if (validity != Py_None && hold(h, validity, &c->validity, &c->validity_size) < 0) return -1;
    if (hold(h, offsets, &c->offsets, &c->offsets_size) < 0) return -1;
    c->n_data = PyList_GET_SIZE(data);
    for (Py_ssize_t i = 0; i < c->n_data; i++) {
        if (hold(h, PyList_GET_ITEM(data, i), &h->data[i].p, &h->data[i].n) < 0) return -1;
    }
    c->data = h->data;
    return 0;
}

/* profile: (generic, [(rule id, names, prefixes), ...]) with NUL-separated names */
static int profile_from(PyObject *spec, un_profile *prof, PyObject **keep) {
    PyObject *rules;
    if (!PyArg_ParseTuple(spec, "iO!", &prof->generic, &PyList_Type, &rules)) return -1;
    if (PyList_GET_SIZE(rules) > UN_MAX_RULES) {
        PyErr_SetString(PyExc_ValueError, "too many rules");
        return -1;
    }
    *keep = rules;
    prof->n_rules = (int)PyList_GET_SIZE(rules);
    for (int i = 0; i < prof->n_rules; i++) {
        un_rule *r = &prof->rules[i];
        int id;
        Py_ssize_t nl, pl;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(rules, i), "iy#y#", &id, &r->params.names, &nl, &r->params.prefixes, &pl)) return -1;
        if (id < 0 || id >= UN_N_RULES) {
            PyErr_SetString(PyExc_ValueError, "unknown rule id");
            return -1;
        }
        r->id = (un_rule_id)id;
        r->params.names_len = (size_t)nl, r->params.prefixes_len = (size_t)pl;
    }
    return 0;
}

/* A list output's (offsets, validity, null count), or None. */
static PyObject *take_lists(const un_batch *b, un_result *r) {
    if (!un_list_out(b)) Py_RETURN_NONE;
    return Py_BuildValue("(NNL)", take(&r->list_offsets), take(&r->list_validity), (long long)r->list_nulls);
}

/* A fixed-width column the kernel wrote: (values, validity). */
static PyObject *take_fixed(un_buf *values, un_buf *validity) { return Py_BuildValue("(NN)", take(values), take(validity)); }

static PyObject *result_to_python(const un_batch *b, un_result *r) {
    int n = un_text_columns(b);
    PyObject *texts = PyList_New(n);
    if (!texts) return NULL;
    for (int i = 0; i < n; i++) {
        if (!un_text_wanted(b, i)) {
            Py_INCREF(Py_None);
            PyList_SET_ITEM(texts, i, Py_None);
            continue;
        }
        PyObject *t = take_builder(&r->text[i]);
        if (!t) {
            Py_DECREF(texts);
            return NULL;
        }
        PyList_SET_ITEM(texts, i, t);
    }
    int hashed = b->op == UN_OP_PARSE && (b->outputs >> UN_OUT_KEY_HASH & 1u);
    PyObject *port = un_record_out(b) ? take_fixed(&r->port, &r->port_validity) : Py_NewRef(Py_None);
    PyObject *key_hash = hashed ? take_fixed(&r->key_hash, &r->key_hash_validity) : Py_NewRef(Py_None);
    return Py_BuildValue("(NNNNNLNN)", take(&r->data), texts, port, take(&r->status), take_builder(&r->errors),
                         (long long)r->asked, take_lists(b, r), key_hash);
}

/* The kernel's answerer: a Python callable answer(kind, question) -> str | int, called with
 * the GIL from whichever thread runs the slice. The first exception it raises is kept, to be
 * raised by the call that ran the batch; it stops the batch. */
typedef struct {
    PyObject *callable;
    PyObject *error_type, *error, *traceback;
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

static int python_answer(void *data, int kind, const uint8_t *question, size_t n, un_buf *out) {
    answerer *a = data;
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *result = PyObject_CallFunction(a->callable, "is#", kind, (const char *)question, (Py_ssize_t)n);
    int code = answer_code(result, out);
    Py_XDECREF(result);
    if (code < 0 && !a->error_type && PyErr_Occurred()) PyErr_Fetch(&a->error_type, &a->error, &a->traceback);
    PyErr_Clear();
    PyGILState_Release(gil);
    return code;
}

/* Rows every run has read, so that a test can count how often a job passes over its rows. */
static unsigned long long rows_run;

/* The operation's option into the batch (and the profile it points to); 0, or -1 with an
 * exception set. */
static int option_into(PyObject *option, un_batch *b, un_profile *prof, PyObject **keep) {
    PyObject *spec;
    Py_ssize_t len;
    int ok = 1, include_private = 1;
    switch (b->op) {
    case UN_OP_PARSE:
        b->profile = prof;
        return PyArg_ParseTuple(option, "OIpp", &spec, &b->outputs, &b->with_scheme, &b->trailing_comma) ? profile_from(spec, prof, keep) : -1;
    case UN_OP_SURT:
        b->profile = prof;
        return PyArg_ParseTuple(option, "Opp", &spec, &b->with_scheme, &b->trailing_comma) ? profile_from(spec, prof, keep) : -1;
    case UN_OP_NORMALIZE:
    case UN_OP_NORMALIZE_RECORD:
        b->profile = prof;
        return profile_from(option, prof, keep);
    case UN_OP_SPLIT:
        b->generic = PyObject_IsTrue(option);
        return b->generic < 0 ? -1 : 0;
    case UN_OP_HOST:
        ok = PyArg_ParseTuple(option, "ip", &b->host_column, &include_private) && b->host_column >= 0 && b->host_column < UN_N_HOST_COLUMNS;
        if (!ok && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "unknown host column");
        b->psl_table = include_private ? UN_PSL_ALL : UN_PSL_ICANN;
        return ok ? 0 : -1;
    case UN_OP_QUERY:
        ok = PyArg_ParseTuple(option, "iy#", &b->query_mode, (const char **)&b->name, &len) && b->query_mode >= UN_QUERY_PAIRS && b->query_mode <= UN_QUERY_FIRST;
        if (!ok && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "unknown query mode");
        b->name_len = (size_t)len;
        return ok ? 0 : -1;
    case UN_OP_SELECT_PARAMS:
        if (!PyArg_ParseTuple(option, "py#", &b->keep, &b->params.names, &len)) return -1;
        b->params.names_len = (size_t)len;
        return 0;
    case UN_OP_JOIN:
        b->join_mode = (int)PyLong_AsLong(option);
        return PyErr_Occurred() ? -1 : 0;
    default:
        return 0;
    }
}

/* The slices' row bounds from their starts (a list of ints, the first 0, ascending), the
 * rows' count appended; NULL with an exception set. */
static int64_t *slice_bounds(PyObject *starts, int64_t rows, int *n_slices) {
    Py_ssize_t n = PyList_Check(starts) ? PyList_GET_SIZE(starts) : 0;
    if (n < 1 || n > INT_MAX - 1) {
        PyErr_SetString(PyExc_ValueError, "slices: a list of one start or more");
        return NULL;
    }
    int64_t *bounds = PyMem_Malloc((size_t)(n + 1) * sizeof *bounds);
    if (!bounds) return (int64_t *)PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) bounds[i] = PyLong_AsLongLong(PyList_GET_ITEM(starts, i));
    bounds[n] = rows;
    *n_slices = (int)n;
    if (!PyErr_Occurred()) return bounds;
    PyMem_Free(bounds);
    return NULL;
}

/* Each slice's outputs, as a list; NULL with an exception set. */
static PyObject *results_to_python(const un_batch *b, un_result *results, int n_slices) {
    PyObject *out = PyList_New(n_slices);
    for (int i = 0; out && i < n_slices; i++) {
        PyObject *one = result_to_python(b, &results[i]);
        if (!one) Py_CLEAR(out);
        else PyList_SET_ITEM(out, i, one);
    }
    return out;
}

/* The batch's slices, run on the threads with the GIL released; their outputs, or NULL. */
static PyObject *run_batch(un_batch *b, PyObject *starts, int threads, answerer *a) {
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
        if (!failed) out = results_to_python(b, results, n_slices);
        rows_run += (unsigned long long)b->input.length;
        for (int i = 0; i < n_slices; i++) un_result_free(&results[i]);
    }
    PyMem_Free(results);
    PyMem_Free(bounds);
    return out;
}

/* run(op, option, input, base, answer, utf8, starts, threads)
 * op (an index of OP_NAMES): normalize and normalize_record (option: profile spec), split
 * (option: generic), join (option: an index of JOIN_MODES), surt (option: (profile spec,
 * with_scheme, comma)), host (option: (an index of HOST_COLUMNS, include_private)), query
 * (option: (an index of QUERY_MODES, name bytes)), path_segments, select_params (option:
 * (keep, length-prefixed names)), parse (option: (profile spec, output bits, with_scheme,
 * comma)).
 * answer: a callable for the rows' questions, or None to leave them asking.
 * utf8: an index of UTF8_MODES.
 * starts: the first row of each slice (a list, from 0 up); threads: how many run them.
 * Returns the outputs of each slice, as a list. */
static PyObject *run(PyObject *self, PyObject *args) {
    (void)self;
    int op, utf8, threads;
    PyObject *option, *input, *base, *answer, *starts;
    if (!PyArg_ParseTuple(args, "iOOOOiOi", &op, &option, &input, &base, &answer, &utf8, &starts, &threads)) return NULL;
    if (op < UN_OP_NORMALIZE || op >= UN_N_OPS || utf8 < UN_UTF8_TEXT || utf8 >= UN_N_UTF8_MODES || threads < 1) {
        PyErr_SetString(PyExc_ValueError, "unknown operation or UTF-8 mode, or no thread");
        return NULL;
    }
    un_batch b = {.op = (un_op)op, .check_utf8 = utf8 != UN_UTF8_TEXT, .encode_invalid_utf8 = utf8 == UN_UTF8_ENCODE};
    un_profile prof;
    answerer a = {.callable = answer};
    PyObject *keep = NULL, *out = NULL;
    held_column *local = PyMem_Calloc(2, sizeof(held_column));
    if (!local) return PyErr_NoMemory();
    int ok = option_into(option, &b, &prof, &keep) == 0 && column_from(input, &local[0]) == 0;
    b.input = local[0].col;
    if (ok && base != Py_None) ok = column_from(base, &local[1]) == 0, b.base = &local[1].col;
    if (ok && op == UN_OP_JOIN && (base == Py_None || (b.base->length != 1 && b.base->length < b.input.length))) {
        PyErr_SetString(PyExc_ValueError, "join needs one base or one a row");
        ok = 0;
    }
    if (ok && answer != Py_None) b.answer = python_answer, b.answer_data = &a;
    if (ok) out = run_batch(&b, starts, threads, &a);
    for (int i = 0; i < 2; i++) release(&local[i]);
    PyMem_Free(local);
    return out;
}

/* set_tables(classes: 512 bytes of uint16, special: [(scheme, default port or -1), ...]) */
static PyObject *set_tables(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer classes;
    PyObject *special;
    if (!PyArg_ParseTuple(args, "y*O!", &classes, &PyList_Type, &special)) return NULL;
    un_tables t;
    memset(&t, 0, sizeof t);
    int ok = classes.len == (Py_ssize_t)sizeof t.classes && PyList_GET_SIZE(special) <= UN_MAX_SCHEMES;
    if (ok) memcpy(t.classes, classes.buf, sizeof t.classes);
    PyBuffer_Release(&classes);
    for (Py_ssize_t i = 0; ok && i < PyList_GET_SIZE(special); i++) {
        const char *name;
        Py_ssize_t len;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(special, i), "s#i", &name, &len, &t.default_port[i])) return NULL;
        ok = len < UN_SCHEME_LEN;
        if (ok) memcpy(t.special[i], name, (size_t)len);
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "tables do not fit the kernel");
        return NULL;
    }
    t.n_special = (int)PyList_GET_SIZE(special);
    un_set_tables(&t);
    Py_RETURN_NONE;
}

/* set_psl(include_private, rules: NUL-terminated rule strings, maxlabel) */
static PyObject *set_psl(PyObject *self, PyObject *args) {
    (void)self;
    const char *rules;
    Py_ssize_t len;
    int maxlabel, include_private;
    if (!PyArg_ParseTuple(args, "py#i", &include_private, &rules, &len, &maxlabel)) return NULL;
    if (!un_psl_set(include_private ? UN_PSL_ALL : UN_PSL_ICANN, rules, (size_t)len, maxlabel)) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *names_tuple(const char *const *names, int n) {
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) PyTuple_SET_ITEM(t, i, PyUnicode_FromString(names[i]));
    return t;
}

/* HOST's columns: the host, its type, then the Public Suffix List parts. */
static PyObject *host_columns(void) {
    const char *names[UN_N_HOST_COLUMNS] = {[UN_HOST_TEXT] = "host", [UN_HOST_TYPE] = "host_type"};
    for (int i = 0; i < UN_N_PARTS; i++) names[UN_HOST_PARTS + i] = UN_PART_NAMES[i];
    return names_tuple(names, UN_N_HOST_COLUMNS);
}

static PyObject *rows_read(PyObject *self, PyObject *args) {
    (void)self, (void)args;
    return PyLong_FromUnsignedLongLong(rows_run);
}

static PyMethodDef methods[] = {
    {"rows_read", rows_read, METH_NOARGS, "How many rows the kernel has run over in this process."},
    {"run", run, METH_VARARGS, "Run one operation over a batch of rows."},
    {"set_tables", set_tables, METH_VARARGS, "Give the kernel urlnorm.core's character tables."},
    {"set_psl", set_psl, METH_VARARGS, "Give the kernel the Public Suffix List's rule set."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, .m_name = "_urlnorm", .m_doc = "urlnorm's native kernel.", .m_size = -1, .m_methods = methods,
};

PyMODINIT_FUNC PyInit__urlnorm(void) {
    if (PyType_Ready(&BufferType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddObject(m, "ERROR_NAMES", names_tuple(UN_ERROR_NAMES, UN_N_ERRORS)) < 0 ||
        PyModule_AddObject(m, "RULE_NAMES", names_tuple(RULE_NAMES, UN_N_RULES)) < 0 ||
        PyModule_AddObject(m, "OUTPUT_NAMES", names_tuple(UN_OUTPUT_NAMES, UN_N_OUTPUTS)) < 0 ||
        PyModule_AddObject(m, "OP_NAMES", names_tuple(UN_OP_NAMES, UN_N_OPS)) < 0 ||
        PyModule_AddObject(m, "JOIN_MODES", names_tuple(UN_JOIN_MODE_NAMES, UN_N_JOIN_MODES)) < 0 ||
        PyModule_AddObject(m, "QUERY_MODES", names_tuple(UN_QUERY_MODE_NAMES, UN_N_QUERY_MODES)) < 0 ||
        PyModule_AddObject(m, "UTF8_MODES", names_tuple(UN_UTF8_MODE_NAMES, UN_N_UTF8_MODES)) < 0 ||
        PyModule_AddObject(m, "PARSE_COLUMNS", names_tuple(UN_PARSE_COLUMN_NAMES, UN_PARSE_COLUMNS)) < 0 ||
        PyModule_AddObject(m, "HOST_COLUMNS", host_columns()) < 0 ||
        PyModule_AddObject(m, "CLASS_NAMES", names_tuple(UN_CLASS_NAMES, UN_N_CLASSES)) < 0 ||
        PyModule_AddObject(m, "HOST_RULE_FLAGS", names_tuple(UN_HOST_RULE_FLAG_NAMES, UN_N_HOST_RULE_FLAGS)) < 0 ||
        PyModule_AddIntConstant(m, "ASK_HOST", UN_ASK_HOST) < 0 ||
        PyModule_AddIntConstant(m, "ASK_FIRST", UN_ASK_HOST) < 0 || /* statuses from here ask */
        PyModule_AddIntConstant(m, "ASK_WWW", UN_ASK_WWW) < 0 ||
        PyModule_AddIntConstant(m, "ASK_HOST_RULES", UN_ASK_HOST_RULES) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
