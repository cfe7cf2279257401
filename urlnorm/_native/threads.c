/* A batch on several threads (urlnorm/native/slicing.py): its rows cut into slices, each run by
 * un_run_batch into a result of its own, the slices taken in turn by up to n threads, the
 * caller's among them; and other work cut into tasks the same way (un_run_tasks). The helper
 * threads are kept between calls, waiting: starting one costs tens of microseconds, most of a
 * small batch's time. A call made while another has them
 * runs its slices on its own thread (its callers, such as Polars' thread pool, already run
 * several at once), and a forked child starts helpers of its own. */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "kernel.h"
#include "os_threads.h"

/* A call's work: the slices of a column's chunks (batches; each its own batch), or n_slices
 * tasks (task). */
typedef struct {
    const un_batch *batches;
    const un_slice *slices;
    int n_slices;
    un_result *results;
    un_task_fn task;
    void *task_data;
    atomic_int next, failed;
} work;

static un_column window(const un_column *c, int64_t start, int64_t rows) {
    un_column w = *c;
    w.offset += start;
    w.length = rows;
    return w;
}

/* One slice: its rows of the input, and of the bases when there is one a row. The result is
 * built on this thread's stack and stored when done: the slices' results lie side by side,
 * and a row's writes to the end of one and the start of the next would share a cache line
 * (measured: two threads ran 1.26 times as fast as one, where two processes ran 1.97). */
static int run_slice(const work *w, int i) {
    const un_slice *slice = &w->slices[i];
    un_batch b = w->batches[slice->batch];
    int64_t start = slice->start, rows = slice->end - start;
    un_column base;
    b.input = window(&b.input, start, rows);
    if (b.base && b.base->length != 1) base = window(b.base, start, rows), b.base = &base;
    un_result own = w->results[i];
    int failed = un_run_batch(&b, &own);
    w->results[i] = own;
    return failed;
}

static void take_slices(work *w) {
    for (int i; !atomic_load(&w->failed) && (i = atomic_fetch_add(&w->next, 1)) < w->n_slices;) {
        if ((w->task ? w->task(w->task_data, i) : run_slice(w, i)) != 0) atomic_store(&w->failed, 1);
    }
}

int un_valid_slices(const un_batch *b, const int64_t *starts, int n_slices) {
    if (n_slices < 1 || starts[0] != 0 || starts[n_slices] != b->input.length) return 0;
    for (int i = 0; i < n_slices; i++) {
        if (starts[i + 1] < starts[i]) return 0;
    }
    return !b->base || b->base->length == 1 || b->base->length >= b->input.length;
}

int64_t un_slice_rows(int64_t length, int64_t nbytes, int workers, int64_t min_bytes, int64_t max_bytes) {
    int64_t count = nbytes / min_bytes < workers ? nbytes / min_bytes : workers;
    if (count < 1) count = 1;
    int64_t rows = length / count + (length % count != 0);
    if (nbytes > max_bytes) {
        /* Rows a slice of max_bytes holds; the product fits for any batch below 2^34 rows. */
        int64_t fit = length <= INT64_MAX / max_bytes ? length * max_bytes / nbytes : length / (nbytes / max_bytes);
        rows = fit < rows ? fit : rows;
    }
    return rows < 1 ? 1 : rows;
}

/* The helpers and the one call whose slices they take. round and running are read without the
 * lock while a thread spins, and written under it. */
static struct {
    un_mutex call; /* held by the call the helpers work for */
    un_mutex lock; /* guards what follows */
    un_cond wake, done;
    work *current;
    atomic_ulong round;                 /* counts the calls handed out: a helper takes each once */
    unsigned long born[UN_MAX_THREADS]; /* the round each helper was started in */
    atomic_int running;
    int started, asked;
} pool = {.call = UN_MUTEX_INIT, .lock = UN_MUTEX_INIT, .wake = UN_COND_INIT, .done = UN_COND_INIT};

/* A thread about to wait looks again for this long first: batches come back to back, and a
 * sleeping thread takes as long again to wake on a virtual machine (measured on 2,048-row
 * batches: after a spin of some tens of microseconds two threads ran 1.25 to 1.74 times as
 * fast as one from run to run, after this 1.64 to 1.79). Timed, not counted: how long a
 * count of looks takes is the CPU's. */
#define SPIN_NS 250000L

/* Whether a spin that began SPIN_NS before `until` is over; the clock is read every 256 looks.
 * Each look first tells the CPU that this is a spin (un_spin_hint). */
static int spun_out(unsigned *looks, long long until) {
    un_spin_hint();
    return ++*looks % 256 == 0 && un_now_ns() > until;
}

static void spin_while_round(unsigned long seen) {
    unsigned looks = 0;
    long long until = un_now_ns() + SPIN_NS;
    while (atomic_load_explicit(&pool.round, memory_order_relaxed) == seen && !spun_out(&looks, until)) continue;
}

static void spin_while_running(void) {
    unsigned looks = 0;
    long long until = un_now_ns() + SPIN_NS;
    while (atomic_load_explicit(&pool.running, memory_order_relaxed) > 0 && !spun_out(&looks, until)) continue;
}

/* Helper i: each round, if it is among those asked, it takes slices until none are left. It
 * reads the round's call under the lock, so that it takes each round once. */
UN_THREAD_ENTRY(helper, arg) {
    int i = (int)(intptr_t)arg;
    un_mutex_lock(&pool.lock);
    for (unsigned long seen = pool.born[i];; seen = atomic_load(&pool.round)) {
        if (atomic_load(&pool.round) == seen) {
            un_mutex_unlock(&pool.lock);
            spin_while_round(seen);
            un_mutex_lock(&pool.lock);
            while (atomic_load(&pool.round) == seen) un_cond_wait(&pool.wake, &pool.lock);
        }
        if (i >= pool.asked) continue;
        work *w = pool.current;
        un_mutex_unlock(&pool.lock);
        take_slices(w);
        un_mutex_lock(&pool.lock);
        if (atomic_fetch_sub(&pool.running, 1) == 1) un_cond_signal(&pool.done);
    }
    UN_THREAD_END;
}

/* Up to n helpers running (pool.lock held); how many there are. One that cannot start leaves
 * its slices to the others. */
static int helpers(int n) {
    while (pool.started < n) {
        pool.born[pool.started] = pool.round;
        if (un_thread_detached(helper, (void *)(intptr_t)pool.started) != 0) break;
        pool.started++;
    }
    return pool.started < n ? pool.started : n;
}

/* A forked child has none of its parent's threads: it starts its own. */
static void forget_helpers(void) {
    un_mutex_init(&pool.call);
    un_mutex_init(&pool.lock);
    un_cond_init(&pool.wake);
    un_cond_init(&pool.done);
    pool.current = NULL;
    pool.started = pool.asked = 0;
    atomic_store(&pool.running, 0);
}

/* The slices on the caller's thread and n helpers, back when every one has finished. */
static void with_helpers(work *w, int n) {
    un_mutex_lock(&pool.lock);
    pool.current = w;
    pool.asked = helpers(n);
    atomic_store(&pool.running, pool.asked);
    atomic_fetch_add(&pool.round, 1);
    un_cond_broadcast(&pool.wake);
    un_mutex_unlock(&pool.lock);
    take_slices(w);
    spin_while_running();
    un_mutex_lock(&pool.lock);
    while (atomic_load(&pool.running) > 0) un_cond_wait(&pool.done, &pool.lock);
    pool.current = NULL;
    un_mutex_unlock(&pool.lock);
}

unsigned long un_helped_calls(void) { return atomic_load(&pool.round); }

/* Whether each slice lies within its batch's rows (and bases). */
static int slices_within(const un_batch *batches, int n_batches, const un_slice *slices, int n_slices) {
    for (int i = 0; i < n_slices; i++) {
        const un_slice *s = &slices[i];
        if (s->batch < 0 || s->batch >= n_batches || s->start < 0 || s->end < s->start) return 0;
        const un_batch *b = &batches[s->batch];
        if (s->end > b->input.length || (b->base && b->base->length != 1 && b->base->length < b->input.length)) return 0;
    }
    return 1;
}

int un_run_slices(const un_batch *b, const int64_t *starts, int n_slices, int n_threads, un_result *results) {
    if (!un_valid_slices(b, starts, n_slices)) return -1;
    un_slice *slices = malloc((size_t)n_slices * sizeof *slices);
    if (!slices) return -1;
    for (int i = 0; i < n_slices; i++) slices[i] = (un_slice){0, starts[i], starts[i + 1]};
    int failed = un_run_slice_table(b, 1, slices, n_slices, n_threads, results);
    free(slices);
    return failed;
}

/* The work's slices or tasks on up to n_threads threads, the caller's among them. */
static int run_work(work *w, int n_threads) {
    static atomic_flag arranged = ATOMIC_FLAG_INIT;
    atomic_init(&w->next, 0);
    atomic_init(&w->failed, 0);
    int wanted = n_threads < w->n_slices ? n_threads : w->n_slices;
    if (wanted > UN_MAX_THREADS) wanted = UN_MAX_THREADS;
    /* Registered by the first call; a second racing past it before it is done is harmless:
     * only a fork needs it, and the pool has no helpers until a call has registered it. */
    if (!atomic_flag_test_and_set(&arranged)) un_on_fork_child(forget_helpers);
    if (wanted > 1 && un_mutex_trylock(&pool.call) == 0) {
        with_helpers(w, wanted - 1);
        un_mutex_unlock(&pool.call);
    } else {
        take_slices(w);
    }
    return atomic_load(&w->failed) ? -1 : 0;
}

int un_run_slice_table(const un_batch *batches, int n_batches, const un_slice *slices, int n_slices, int n_threads,
                       un_result *results) {
    if (n_slices < 1 || !slices_within(batches, n_batches, slices, n_slices)) return -1;
    work w = {.batches = batches, .slices = slices, .n_slices = n_slices, .results = results};
    return run_work(&w, n_threads);
}

int un_run_tasks(int n_tasks, int n_threads, un_task_fn task, void *data) {
    if (n_tasks < 1) return 0;
    work w = {.n_slices = n_tasks, .task = task, .task_data = data};
    return run_work(&w, n_threads);
}
