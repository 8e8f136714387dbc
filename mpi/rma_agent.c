/* rma_agent.c — passive-target progress: while a window has targets reached
 * by messages, a thread of this process sleeps on the transports and, when
 * something arrives, drives progress (the one-sided hook applies it), so an
 * origin's lock, put or fetch never waits for this rank to call MPI.
 *
 * It steps in only when nobody else drives progress: every tick it looks
 * whether the runtime's pass count moved (the program is in a call) or a
 * thread sleeps in poll() (it wakes on arrival); if neither, it takes the
 * lock and polls until nothing moves. Measured: serving as the runtime's
 * sleeper instead (woken by every arrival) put two thread wake-ups into
 * each round trip while the program waited in a call: 100 us per
 * lock/put/unlock against 1.5 us. It turns the runtime lock on (as
 * MPI_THREAD_MULTIPLE does): every later call of the program takes it. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "mpi/rma.h"
#include "runtime/progress.h"
#include "runtime/thread.h"

static int holds;
static pthread_t agent;
static atomic_int stop, exited;
static int took_lock; /* this call's lock, taken when the lock was off at its start */

/* Ticks between looks: short after it served something, doubling to the
 * longest while it is not needed (the program drives progress, or nothing
 * comes): a computing target then answers within a millisecond, and the
 * agent's wake-ups, a thousand a second, do not take the core from a rank
 * spinning in a wait (at a 50 us tick they doubled a TCP round trip). */
#define TICK_MIN_NS 50000L
#define TICK_MAX_NS 1000000L

static void *agent_main(void *arg)
{
    (void)arg;
    long tick = TICK_MIN_NS;
    unsigned long last = atomic_load_explicit(&bolt_progress_passes, memory_order_relaxed);
    while (!atomic_load_explicit(&stop, memory_order_acquire)) {
        struct timespec ts = {0, tick};
        nanosleep(&ts, NULL);
        unsigned long now = atomic_load_explicit(&bolt_progress_passes, memory_order_relaxed);
        /* The program drives progress itself: it polls, or sleeps in poll()
         * and wakes when something comes. */
        if (now != last || bolt_lock_sleeping()) {
            last = now;
            tick = tick * 2 > TICK_MAX_NS ? TICK_MAX_NS : tick * 2;
            continue;
        }
        bolt_lock_take();
        int moved = 0, n;
        while ((n = bolt_progress_poll()) > 0 && !atomic_load(&stop))
            moved += n;
        bolt_lock_release();
        last = atomic_load_explicit(&bolt_progress_passes, memory_order_relaxed);
        tick = moved ? TICK_MIN_NS : tick * 2 > TICK_MAX_NS ? TICK_MAX_NS : tick * 2;
    }
    atomic_store_explicit(&exited, 1, memory_order_release);
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
