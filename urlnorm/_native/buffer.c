/* A growable byte buffer. Buffers live as long as a worker and are reset per row, so the
 * per-row loop allocates only while a buffer grows to the largest row it has seen. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "urlnorm.h"

/* ---- large blocks: kept for the next batch ------------------------------------------------
 * A batch's outputs are large (tens of MiB) and handed to Arrow, which frees them when the
 * columns die, often just before the next batch asks for as much again. Fresh memory from
 * the system faults in a page at a time (on one thread, a quarter of a row's time on the
 * corpora); a freed large block is kept and given to the next request it fits.
 *
 * The bound is the most the large blocks have held at once in this process, the outputs of
 * its largest batch, from 64 MiB to 512 MiB: what lies idle is never more than a batch
 * already took. A fixed 64 MiB held a batch of 200,000 URLs, but a Parquet row group of a
 * million messy ones (some 200 MiB of outputs, 400 for split) then faulted in all of its
 * outputs on every call: 17% of split's time a row, 4% of canonical normalize's. A process
 * of small batches keeps little; every process keeps its own (a Spark executor's workers
 * too).
 *
 * A block is large from 128 KiB, glibc's least threshold for giving memory back: a kernel
 * thread's malloc arena hands a freed block above it back to the system, so a block under
 * the 1 MiB that was large before, written by a thread and freed, was fresh memory on every
 * call. A 50,000-row clickstream batch on two threads writes two slices of some 700 KiB:
 * they faulted in 300-400 pages a call (none now), and its two threads ran x1.5-1.6 as fast
 * as one (x1.8-2.0 now). */
#define LARGE_BLOCK ((size_t)1 << 17)
#define KEPT_BLOCKS 64
#define KEPT_LEAST ((size_t)64 << 20)
#define KEPT_MOST ((size_t)512 << 20)

static struct {
    uint8_t *data[KEPT_BLOCKS];
    size_t cap[KEPT_BLOCKS], bytes;
    int n;
    size_t out, most_out; /* the bytes of large blocks in use, now and at most */
} kept;
static atomic_flag kept_lock = ATOMIC_FLAG_INIT;

static void lock(void) {
    while (atomic_flag_test_and_set_explicit(&kept_lock, memory_order_acquire)) continue;
}

static void unlock(void) { atomic_flag_clear_explicit(&kept_lock, memory_order_release); }

/* Remove kept block i (the others keep their order, oldest first) and return it. */
static uint8_t *unkeep(int i) {
    uint8_t *data = kept.data[i];
    kept.bytes -= kept.cap[i];
    kept.n--;
    memmove(kept.data + i, kept.data + i + 1, (size_t)(kept.n - i) * sizeof *kept.data);
    memmove(kept.cap + i, kept.cap + i + 1, (size_t)(kept.n - i) * sizeof *kept.cap);
    return data;
}

/* The smallest kept block of at least *cap bytes and at most four times that (a larger one
 * would waste what it holds), or a new one; *cap becomes the block's size, counted out. */
static uint8_t *block_take(size_t *cap) {
    int best = -1;
    lock();
    for (int i = 0; i < kept.n; i++) {
        if (kept.cap[i] >= *cap && kept.cap[i] / 4 <= *cap && (best < 0 || kept.cap[i] < kept.cap[best])) best = i;
    }
    uint8_t *data = NULL;
    if (best >= 0) *cap = kept.cap[best], data = unkeep(best);
    kept.out += *cap;
    kept.most_out = kept.out > kept.most_out ? kept.out : kept.most_out;
    unlock();
    if (!data && !(data = malloc(*cap))) {
        lock();
        kept.out -= *cap;
        unlock();
    }
    return data;
}

/* The most the kept blocks may hold (under the lock). */
static size_t kept_bound(void) { return kept.most_out < KEPT_LEAST ? KEPT_LEAST : kept.most_out > KEPT_MOST ? KEPT_MOST : kept.most_out; }

/* Keep a large block, making room by freeing the blocks kept longest (sizes change with the
 * batches, and an old size may never be asked for again). */
void un_block_give(uint8_t *data, size_t cap) {
    if (!data || cap < LARGE_BLOCK) {
        free(data);
        return;
    }
    uint8_t *evicted[KEPT_BLOCKS + 1];
    int n_evicted = 0;
    lock();
    kept.out -= cap;
    size_t bound = kept_bound();
    if (cap > bound) {
        evicted[n_evicted++] = data;
    } else {
        while (kept.n == KEPT_BLOCKS || kept.bytes + cap > bound) evicted[n_evicted++] = unkeep(0);
        kept.data[kept.n] = data, kept.cap[kept.n++] = cap, kept.bytes += cap;
    }
    unlock();
    for (int i = 0; i < n_evicted; i++) free(evicted[i]);
}

static uint8_t *large_realloc(un_buf *b, size_t *cap) {
    uint8_t *data = block_take(cap);
    if (!data) return NULL;
    if (b->len) memcpy(data, b->data, b->len);
    un_block_give(b->data, b->cap);
    return data;
}

void un_buf_free(un_buf *b) {
    if (!b->borrowed) un_block_give(b->data, b->cap);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = b->borrowed = 0;
}

void un_buf_borrow(un_buf *b, uint8_t *data, size_t cap) { *b = (un_buf){.data = data, .cap = cap, .borrowed = 1}; }

int un_buf_grow(un_buf *b, size_t extra) {
    if (b->failed) return 0;
    if (extra <= b->cap - b->len) return 1;
    if (b->borrowed || extra > SIZE_MAX / 2 - b->len) {
        b->failed = 1;
        return 0;
    }
    size_t cap = b->cap ? b->cap : 64;
    while (cap - b->len < extra) cap *= 2;
    uint8_t *data = cap >= LARGE_BLOCK ? large_realloc(b, &cap) : realloc(b->data, cap);
    if (!data) {
        b->failed = 1;
        return 0;
    }
    b->data = data;
    b->cap = cap;
    return 1;
}

void un_buf_fit(un_buf *b) {
    if (b->borrowed || b->cap < LARGE_BLOCK || b->len > b->cap / 4) return;
    size_t cap = b->len ? b->len : 1;
    uint8_t *data = cap >= LARGE_BLOCK ? block_take(&cap) : malloc(cap);
    if (!data) return;
    if (b->len) memcpy(data, b->data, b->len);
    un_block_give(b->data, b->cap);
    b->data = data, b->cap = cap;
}

uint8_t *un_write_uint(uint8_t *o, unsigned long v) {
    char digits[24];
    size_t i = sizeof digits;
    do {
        digits[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v && i);
    memcpy(o, digits + i, sizeof digits - i);
    return o + sizeof digits - i;
}

void un_buf_put_uint(un_buf *b, unsigned long v) {
    if (un_buf_reserve(b, 24)) b->len = (size_t)(un_write_uint(b->data + b->len, v) - b->data);
}
