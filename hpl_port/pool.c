/*
 * pool.c — bolt-hpl's worker threads (pool.h), on POSIX threads.
 *
 * Workers sleep on a condition variable between jobs (a job starts once an
 * iteration, so a wake-up's tens of microseconds do not count) and take
 * items with an atomic counter. A new job starts only once no worker is
 * still inside the last one, so no one takes an item of one job with the
 * function of another.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "bolt.h"
#include "hpl_port/pool.h"

typedef struct job {
    hpl_item_fn *fn;
    void *arg;
    int n, split;
} job_t;

struct hpl_pool {
    int threads;
    pthread_t *tid;
    int started; /* workers running */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned gen; /* the job's number; workers wait for it to change */
    int stop;
    job_t job;
    atomic_int next;  /* the next item to take */
    atomic_int done;  /* items finished */
    atomic_int inside; /* workers taking items of the current job */
};

/* Items of job j until none is left. */
static void take_items(hpl_pool_t *pool, const job_t *j, int (*between)(void *), void *barg, int *brc)
{
    for (;;) {
        int i = atomic_fetch_add(&pool->next, 1);
        if (i >= j->n)
            return;
        if (j->split > 0 && i >= j->split)
            while (atomic_load(&pool->done) < j->split)
                sched_yield();
        j->fn(j->arg, i);
        atomic_fetch_add(&pool->done, 1);
        if (between && *brc == 0)
            *brc = between(barg);
    }
}

static void *worker(void *v)
{
    hpl_pool_t *pool = v;
    unsigned seen = 0;
    for (;;) {
        pthread_mutex_lock(&pool->mu);
        while (!pool->stop && pool->gen == seen)
            pthread_cond_wait(&pool->cv, &pool->mu);
        if (pool->stop) {
            pthread_mutex_unlock(&pool->mu);
            return NULL;
        }
        seen = pool->gen;
        job_t j = pool->job;
        atomic_fetch_add(&pool->inside, 1);
        pthread_mutex_unlock(&pool->mu);
        int unused = 0;
        take_items(pool, &j, NULL, NULL, &unused);
        atomic_fetch_sub(&pool->inside, 1);
    }
}

int hpl_pool_create(int threads, hpl_pool_t **out)
{
    *out = NULL;
    hpl_pool_t *pool = calloc(1, sizeof *pool);
    if (!pool)
        return BOLT_ERR_NOMEM;
    pool->threads = threads < 1 ? 1 : threads;
    pthread_mutex_init(&pool->mu, NULL);
    pthread_cond_init(&pool->cv, NULL);
    atomic_init(&pool->next, 0);
    atomic_init(&pool->done, 0);
    atomic_init(&pool->inside, 0);
    if (pool->threads > 1 && !(pool->tid = calloc((size_t)pool->threads - 1, sizeof *pool->tid))) {
        hpl_pool_destroy(pool);
        return BOLT_ERR_NOMEM;
    }
    for (int i = 0; i < pool->threads - 1; i++) {
        if (pthread_create(&pool->tid[i], NULL, worker, pool) != 0) {
            hpl_pool_destroy(pool);
            return BOLT_ERR_SYS;
        }
        pool->started++;
    }
    *out = pool;
    return 0;
}

void hpl_pool_destroy(hpl_pool_t *pool)
{
    if (!pool)
        return;
    pthread_mutex_lock(&pool->mu);
    pool->stop = 1;
    pthread_cond_broadcast(&pool->cv);
    pthread_mutex_unlock(&pool->mu);
    for (int i = 0; i < pool->started; i++)
        pthread_join(pool->tid[i], NULL);
    pthread_cond_destroy(&pool->cv);
    pthread_mutex_destroy(&pool->mu);
    free(pool->tid);
    free(pool);
}

int hpl_pool_threads(const hpl_pool_t *pool)
{
    return pool ? pool->threads : 1;
}

void hpl_pool_start(hpl_pool_t *pool, hpl_item_fn *fn, void *arg, int n, int split)
{
    pthread_mutex_lock(&pool->mu);
    /* a worker late from the last job must be out of it first */
    while (atomic_load(&pool->inside) > 0) {
        pthread_mutex_unlock(&pool->mu);
        sched_yield();
        pthread_mutex_lock(&pool->mu);
    }
    pool->job = (job_t){.fn = fn, .arg = arg, .n = n, .split = split < n ? split : 0};
    atomic_store(&pool->next, 0);
    atomic_store(&pool->done, 0);
    pool->gen++;
    pthread_cond_broadcast(&pool->cv);
    pthread_mutex_unlock(&pool->mu);
}

int hpl_pool_help(hpl_pool_t *pool, int (*between)(void *), void *barg)
{
    pthread_mutex_lock(&pool->mu);
    job_t j = pool->job;
    pthread_mutex_unlock(&pool->mu);
    int brc = 0;
    take_items(pool, &j, between, barg, &brc);
    /* the workers' last items */
    while (atomic_load(&pool->done) < j.n) {
        if (between && brc == 0)
            brc = between(barg);
        sched_yield();
    }
    return brc;
}
