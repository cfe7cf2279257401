/* The few thread primitives threads.c uses, on POSIX threads or on Windows' own: a mutex, a
 * condition variable, a detached thread, a monotonic clock, a spin hint, and what a forked
 * child must do (nothing on Windows, which does not fork). One set of names for both, so that
 * the pool is written once. */
#ifndef URLNORM_OS_THREADS_H
#define URLNORM_OS_THREADS_H

#include <stdint.h>

/* A variable of each thread's own. */
#ifdef _MSC_VER
#define UN_THREAD_LOCAL __declspec(thread)
#else
#define UN_THREAD_LOCAL _Thread_local
#endif

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

typedef SRWLOCK un_mutex;
typedef CONDITION_VARIABLE un_cond;
#define UN_MUTEX_INIT SRWLOCK_INIT
#define UN_COND_INIT CONDITION_VARIABLE_INIT
#define UN_THREAD_ENTRY(name, arg) static DWORD WINAPI name(LPVOID arg)
#define UN_THREAD_END return 0

static inline void un_mutex_init(un_mutex *m) { InitializeSRWLock(m); }
static inline void un_cond_init(un_cond *c) { InitializeConditionVariable(c); }
static inline void un_mutex_lock(un_mutex *m) { AcquireSRWLockExclusive(m); }
static inline void un_mutex_unlock(un_mutex *m) { ReleaseSRWLockExclusive(m); }
static inline int un_mutex_trylock(un_mutex *m) { return TryAcquireSRWLockExclusive(m) ? 0 : -1; }
static inline void un_cond_wait(un_cond *c, un_mutex *m) { SleepConditionVariableSRW(c, m, INFINITE, 0); }
static inline void un_cond_signal(un_cond *c) { WakeConditionVariable(c); }
static inline void un_cond_broadcast(un_cond *c) { WakeAllConditionVariable(c); }

/* Starts fn(arg) on a thread of its own, not joined; 0 if it started. */
static inline int un_thread_detached(LPTHREAD_START_ROUTINE fn, void *arg) {
    HANDLE t = CreateThread(NULL, 0, fn, arg, 0, NULL);
    if (t == NULL) return -1;
    CloseHandle(t);
    return 0;
}

static inline long long un_now_ns(void) {
    static LARGE_INTEGER hz;
    LARGE_INTEGER now;
    if (hz.QuadPart == 0) QueryPerformanceFrequency(&hz);
    QueryPerformanceCounter(&now);
    return (long long)(now.QuadPart / hz.QuadPart) * 1000000000LL + (long long)(now.QuadPart % hz.QuadPart) * 1000000000LL / hz.QuadPart;
}

static inline void un_spin_hint(void) { YieldProcessor(); }

/* No fork on Windows: nothing to arrange. */
static inline void un_on_fork_child(void (*fn)(void)) { (void)fn; }

#else
#include <pthread.h>
#include <time.h>

typedef pthread_mutex_t un_mutex;
typedef pthread_cond_t un_cond;
#define UN_MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
#define UN_COND_INIT PTHREAD_COND_INITIALIZER
#define UN_THREAD_ENTRY(name, arg) static void *name(void *arg)
#define UN_THREAD_END return NULL

static inline void un_mutex_init(un_mutex *m) { pthread_mutex_init(m, NULL); }
static inline void un_cond_init(un_cond *c) { pthread_cond_init(c, NULL); }
static inline void un_mutex_lock(un_mutex *m) { pthread_mutex_lock(m); }
static inline void un_mutex_unlock(un_mutex *m) { pthread_mutex_unlock(m); }
static inline int un_mutex_trylock(un_mutex *m) { return pthread_mutex_trylock(m); }
static inline void un_cond_wait(un_cond *c, un_mutex *m) { pthread_cond_wait(c, m); }
static inline void un_cond_signal(un_cond *c) { pthread_cond_signal(c); }
static inline void un_cond_broadcast(un_cond *c) { pthread_cond_broadcast(c); }

/* Starts fn(arg) on a thread of its own, not joined; 0 if it started. */
static inline int un_thread_detached(void *(*fn)(void *), void *arg) {
    pthread_t t;
    if (pthread_create(&t, NULL, fn, arg) != 0) return -1;
    pthread_detach(t);
    return 0;
}

static inline long long un_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Tells the CPU that this is a spin, leaving more of a shared core to the thread beside it. */
static inline void un_spin_hint(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/* A forked child has none of its parent's threads: fn runs in every child, to forget them. */
static inline void un_on_fork_child(void (*fn)(void)) { pthread_atfork(NULL, NULL, fn); }
#endif

#endif
