/*
 * pool.h — the engine's threads (-t N): created once, they spin briefly
 * between the many short jobs of a forward pass (a few per layer, each a
 * few microseconds to milliseconds) and sleep when idle, so no thread is
 * created per token and none burns a core between requests.
 */
#ifndef INF_POOL_H
#define INF_POOL_H

typedef struct inf_pool inf_pool_t;
typedef void inf_job_fn(void *arg, int ith, int nth);

/* n threads in all, the caller included. Returns 0 or -1. */
int inf_pool_create(int n, inf_pool_t **out);
void inf_pool_destroy(inf_pool_t *p);
int inf_pool_threads(const inf_pool_t *p);
/* fn(arg, ith, nth) on every thread (the caller is ith 0); returns when all
 * are done. */
void inf_pool_run(inf_pool_t *p, inf_job_fn *fn, void *arg);
/* Inside a job: waits until every thread of the job has reached it. */
void inf_pool_barrier(inf_pool_t *p);
/* Seconds of the monotonic clock (the pool's spins time by it; the
 * engine times its products by it). */
double inf_now(void);

#endif
