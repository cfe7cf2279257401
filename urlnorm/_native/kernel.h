/* A batch: one operation over the rows of Arrow arrays, with no Python and no allocation per
 * row once the buffers have grown. */
#ifndef URLNORM_KERNEL_H
#define URLNORM_KERNEL_H

#include "column.h"

/* NORMALIZE_RECORD emits the normalised record's columns as SPLIT does, for profiles whose
 * last rules only Python has; SURT emits the normalised URL's SURT key. */
/* DOMAIN_PARTS takes a column of domain hosts and emits their UN_N_PARTS PSL parts. */
typedef enum { UN_OP_NORMALIZE, UN_OP_SPLIT, UN_OP_JOIN, UN_OP_NORMALIZE_RECORD, UN_OP_SURT, UN_OP_DOMAIN_PARTS } un_op;

/* Answers a question rows asked (kind: an UN_ASK_* status): writes the answer to out and
 * returns UN_OK, or returns the rows' error code, or -1 to stop the batch. */
typedef int (*un_answer_fn)(void *data, int kind, const uint8_t *question, size_t n, un_buf *out);

typedef struct {
    un_op op;
    const un_profile *profile; /* UN_OP_NORMALIZE */
    int generic;               /* UN_OP_SPLIT: generic mode (RFC 3986), else whatwg */
    int join_mode;             /* UN_OP_JOIN */
    int with_scheme, trailing_comma; /* UN_OP_SURT */
    int psl_table;                   /* UN_OP_DOMAIN_PARTS: UN_PSL_ALL or UN_PSL_ICANN */
    int check_utf8;            /* binary input: check that each row is UTF-8 */
    int encode_invalid_utf8;   /* percent-encode invalid bytes instead of an error */
    un_column input;
    const un_column *base; /* UN_OP_JOIN: the bases, or one literal base */
    un_answer_fn answer;   /* answers the rows' questions; NULL leaves them asking */
    void *answer_data;
} un_batch;

typedef struct {
    un_buf data;                  /* the bytes of every text column below */
    un_builder text[UN_N_FIELDS]; /* split: the record's fields; otherwise text[0] */
    un_builder errors;            /* the error code's name, else null */
    un_builder question;          /* the asked text on UN_ASK_* rows, else null */
    un_buf port, port_validity;   /* split: uint16 per row and its bitmap */
    un_buf status;                /* uint8 per row: UN_OK, an error, or UN_ASK_* */
    size_t error_at[UN_N_ERRORS]; /* where each error name is in data */
    int64_t asked;                /* rows that asked a question (and were answered) */
} un_result;

void un_result_init(un_result *r);
void un_result_free(un_result *r);
/* 0, or -1 if an array is malformed or memory ran out for the outputs. */
int un_run_batch(const un_batch *b, un_result *r);

#endif
