/*
 * pool.c — the engine's thread pool (pool.h), on POSIX threads and C11
 * atomics. A job is published by bumping a generation counter; workers spin
 * on it for about SPIN_NS, then sleep on a condition variable until the next
 * one. The barrier is a counter and a phase, both atomic.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "inference/pool.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RELAX() _mm_pause()
#elif defined(__aarch64__)
#define RELAX() __asm__ __volatile__("yield")
#else
#define RELAX() ((void)0)
#endif

#define SPIN_NS 2000000 /* 2 ms: a token's jobs follow each other closer than that */

struct inf_pool {
    int n;
    pthread_t *tid;
    int started;
    inf_job_fn *fn;
    void *arg;
    atomic_uint gen;
    atomic_int done; /* workers finished with the current job */
    atomic_int stop;
    atomic_int sleepers;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* the barrier */
    atomic_int arrived;
    atomic_uint phase;
    struct worker_arg *args;
};

typedef struct worker_arg {
    inf_pool_t *p;
    int ith;
} worker_arg_t;

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000ll + t.tv_nsec;
}

double inf_now(void)
{
    return (double)now_ns() * 1e-9;
}

static void *worker(void *v)
{
    worker_arg_t *w = v;
    inf_pool_t *p = w->p;
    const int ith = w->ith;
    unsigned seen = 0; /* the generation at creation: a job published before this thread ran is still its to do */
    for (;;) {
        /* spin, then sleep, until a new job or the end */
        long long t0 = now_ns();
        int spins = 0;
        while (atomic_load_explicit(&p->gen, memory_order_acquire) == seen && !atomic_load(&p->stop)) {
            RELAX();
            if (++spins % 1024 == 0 && now_ns() - t0 > SPIN_NS) {
                pthread_mutex_lock(&p->mu);
                atomic_fetch_add(&p->sleepers, 1);
                while (atomic_load(&p->gen) == seen && !atomic_load(&p->stop))
                    pthread_cond_wait(&p->cv, &p->mu);
                atomic_fetch_sub(&p->sleepers, 1);
                pthread_mutex_unlock(&p->mu);
            }
        }
        if (atomic_load(&p->stop))
            return NULL;
        seen = atomic_load(&p->gen);
        p->fn(p->arg, ith, p->n);
        atomic_fetch_add_explicit(&p->done, 1, memory_order_release);
    }
}

int inf_pool_create(int n, inf_pool_t **out)
{
    *out = NULL;
    inf_pool_t *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    p->n = n < 1 ? 1 : n;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    atomic_init(&p->gen, 0);
    atomic_init(&p->done, 0);
    atomic_init(&p->stop, 0);
    atomic_init(&p->sleepers, 0);
    atomic_init(&p->arrived, 0);
    atomic_init(&p->phase, 0);
    p->args = calloc((size_t)p->n, sizeof *p->args);
    p->tid = calloc((size_t)p->n, sizeof *p->tid);
    if (!p->args || !p->tid) {
        inf_pool_destroy(p);
        return -1;
    }
    for (int i = 1; i < p->n; i++) {
        p->args[i] = (worker_arg_t){p, i};
        if (pthread_create(&p->tid[i], NULL, worker, &p->args[i]) != 0) {
            inf_pool_destroy(p);
            return -1;
        }
        p->started++;
    }
    *out = p;
    return 0;
}

void inf_pool_destroy(inf_pool_t *p)
{
    if (!p)
        return;
    atomic_store(&p->stop, 1);
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i <= p->started; i++)
        pthread_join(p->tid[i], NULL);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p->tid);
    free(p->args);
    free(p);
}

int inf_pool_threads(const inf_pool_t *p)
{
    return p ? p->n : 1;
}

void inf_pool_run(inf_pool_t *p, inf_job_fn *fn, void *arg)
{
    if (!p || p->n == 1) {
        fn(arg, 0, 1);
        return;
    }
    p->fn = fn;
    p->arg = arg;
    atomic_store(&p->done, 0);
    atomic_fetch_add_explicit(&p->gen, 1, memory_order_release);
    if (atomic_load(&p->sleepers) > 0) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
    fn(arg, 0, p->n);
    while (atomic_load_explicit(&p->done, memory_order_acquire) < p->n - 1)
        RELAX();
}

void inf_pool_barrier(inf_pool_t *p)
{
    if (!p || p->n == 1)
        return;
    unsigned ph = atomic_load(&p->phase);
    if (atomic_fetch_add(&p->arrived, 1) == p->n - 1) {
        atomic_store(&p->arrived, 0);
        atomic_fetch_add_explicit(&p->phase, 1, memory_order_release);
    } else {
        while (atomic_load_explicit(&p->phase, memory_order_acquire) == ph)
            RELAX();
    }
}
