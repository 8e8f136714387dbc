/*
 * pool.h — bolt-hpl's own threads, for a rank that has several cores (one
 * rank per host): the BLAS runs single-threaded inside each, the update's
 * work is split between them, and the next panel is factored on the calling
 * thread while the others update (pool.c).
 *
 * A job is a numbered list of items, taken in order by whichever thread is
 * free; it may have a barrier after item `split` (items from `split` on wait
 * until all before it are done). The caller starts a job, may do other work
 * (factor a panel, drive broadcasts), then helps until it is done. Only the
 * calling thread makes Bolt calls: items are computation alone.
 */
#ifndef HPL_POOL_H
#define HPL_POOL_H

typedef void hpl_item_fn(void *arg, int item);
typedef struct hpl_pool hpl_pool_t;

/* A pool of `threads` in all (the caller and threads - 1 workers). Returns 0
 * or a Bolt error code (BOLT_ERR_NOMEM, BOLT_ERR_SYS). */
int hpl_pool_create(int threads, hpl_pool_t **out);
void hpl_pool_destroy(hpl_pool_t *pool);
int hpl_pool_threads(const hpl_pool_t *pool);

/* Starts fn(arg, i) for i in [0, n) on the workers; items from `split` on
 * (0 or n: no barrier) start only once every item before it is done. One
 * job at a time. */
void hpl_pool_start(hpl_pool_t *pool, hpl_item_fn *fn, void *arg, int n, int split);
/* The caller takes items too; between its items it calls between(barg)
 * (NULL: nothing) — the main thread drives broadcasts there. Returns once
 * every item is done: 0, or the first non-zero value of between (which is
 * not called again). */
int hpl_pool_help(hpl_pool_t *pool, int (*between)(void *), void *barg);

#endif
