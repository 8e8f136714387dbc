/* rma_agent.c — passive-target progress: while a window has targets reached
 * by messages, a thread of this process sleeps on the transports and, when
 * something arrives, drives progress (the one-sided hook applies it), so an
 * origin's lock, put or fetch never waits for this rank to call MPI.
 *
 * Measured choice: the thread does not spin; it sleeps in poll() at once and
 * costs nothing while nothing comes. It turns the runtime lock on (as
 * MPI_THREAD_MULTIPLE does): every later call of the program takes it. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "mpi/rma.h"
#include "runtime/progress.h"
#include "runtime/thread.h"

static int holds;
static pthread_t agent;
static atomic_int stop, exited;
static int took_lock; /* this call's lock, taken when the lock was off at its start */

static void *agent_main(void *arg)
{
    (void)arg;
    bolt_lock_take();
    while (!atomic_load_explicit(&stop, memory_order_acquire)) {
        if (bolt_progress_poll() == 0)
            bolt_progress_sleep();
        bolt_lock_yield_slow(); /* the program's calls come first */
    }
    atomic_store_explicit(&exited, 1, memory_order_release);
    bolt_lock_release();
    return NULL;
}

int rma_agent_hold(void)
{
    if (holds++ > 0)
        return MPI_SUCCESS;
    /* The call running now began without the lock: take it for the rest of
     * the call (rma_agent_settle gives it back), before a second thread runs. */
    if (!atomic_load(&bolt_lock_on)) {
        bolt_lock_enable();
        bolt_lock_take();
        took_lock = 1;
    }
    atomic_store(&stop, 0);
    atomic_store(&exited, 0);
    if (pthread_create(&agent, NULL, agent_main, NULL) != 0) {
        holds--;
        return MPI_ERR_OTHER;
    }
    return MPI_SUCCESS;
}

void rma_agent_settle(void)
{
    if (took_lock) {
        took_lock = 0;
        bolt_lock_release();
    }
}

void rma_agent_release(void)
{
    if (holds == 0 || --holds > 0)
        return;
    atomic_store_explicit(&stop, 1, memory_order_release);
    /* It needs the lock once more to leave: hand it over until it has. */
    while (!atomic_load_explicit(&exited, memory_order_acquire)) {
        bolt_lock_yield_slow();
        sched_yield();
    }
    pthread_join(agent, NULL);
}
