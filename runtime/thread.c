/* thread.c — the runtime lock for MPI_THREAD_MULTIPLE (see thread.h): a
 * ticket lock over one mutex, with the holder's nesting depth kept per
 * thread. Waiters watch the ticket served outside the mutex, yielding and
 * then napping, rather than on a condition variable: glibc 2.36's
 * pthread_cond_broadcast was seen stuck for good in
 * __condvar_quiesce_and_switch_g1 under this lock's mix of timed and untimed
 * waits (a soak of tests/mpi/mpi_thread, 3 ranks of 4 threads), holding the
 * mutex and so the whole rank. */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "runtime/progress.h"
#include "runtime/thread.h"

atomic_int bolt_lock_on;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
/* Tickets: taken, and the one served (holds the lock). Written under mu;
 * `waiting` is read without it, to skip a hand-over nobody wants. */
static unsigned long next_ticket;
static atomic_ulong serving;
static atomic_int waiting;
static int sleeper;           /* a thread sleeps in poll(); under the lock */
static atomic_int sleeping;   /* sleeper, for readers without the lock */
static atomic_ulong wake_gen; /* bumped under mu when that sleep ends */
static _Thread_local int depth; /* this thread's takes not yet released */
/* The sleeper also watches this pipe: a thread that ends a call or hands
 * the lock over while it sleeps (having perhaps completed what it waits for,
 * as a send to this same rank does, which rings no transport's doorbell)
 * writes a byte, once per sleep. What comes from other processes wakes it
 * through the transports' descriptors, whoever polled it. Under mu: in_poll,
 * poked. */
static int wake_pipe[2] = {-1, -1};
static int in_poll, poked;
/* Poked and not back yet: a wait that spins meanwhile yields its core, so
 * the woken thread runs even where the cores are all busy. */
static atomic_int waking;

void bolt_lock_enable(void)
{
    pthread_mutex_lock(&mu);
    if (wake_pipe[0] < 0 && pipe(wake_pipe) == 0)
        for (int i = 0; i < 2; i++) {
            fcntl(wake_pipe[i], F_SETFL, fcntl(wake_pipe[i], F_GETFL) | O_NONBLOCK);
            fcntl(wake_pipe[i], F_SETFD, FD_CLOEXEC);
        }
    /* Without the pipe a sleeper still wakes within its poll timeout. */
    pthread_mutex_unlock(&mu);
    atomic_store(&bolt_lock_on, 1);
}

/* Until *v differs from `was` (or bolt_now() passes `until`, when not 0);
 * mu dropped meanwhile and taken again. Yields first, then naps a little:
 * the thread it waits for may need this core. */
static void await_change(atomic_ulong *v, unsigned long was, double until)
{
    pthread_mutex_unlock(&mu);
    for (int n = 0; atomic_load_explicit(v, memory_order_acquire) == was; n++) {
        if (n < 64) {
            sched_yield();
            continue;
        }
        if (until > 0 && bolt_now() >= until)
            break;
        struct timespec nap = {0, 20 * 1000};
        nanosleep(&nap, NULL);
    }
    pthread_mutex_lock(&mu);
}

/* Waits for a ticket's turn; mu held (dropped while waiting). */
static void turn_wait(void)
{
    unsigned long t = next_ticket++;
    atomic_fetch_add_explicit(&waiting, 1, memory_order_relaxed);
    for (;;) {
        const unsigned long s = atomic_load_explicit(&serving, memory_order_acquire);
        if (s == t)
            break;
        await_change(&serving, s, 0);
    }
    atomic_fetch_sub_explicit(&waiting, 1, memory_order_relaxed);
}

/* Passes the lock to the next ticket; with `wake`, wakes the sleeper (see
 * wake_pipe). mu held. */
static void turn_pass(int wake)
{
    atomic_fetch_add_explicit(&serving, 1, memory_order_release);
    if (wake && in_poll && !poked && wake_pipe[1] >= 0) {
        poked = 1;
        atomic_store_explicit(&waking, 1, memory_order_relaxed);
        if (write(wake_pipe[1], "", 1) < 0)
            (void)0; /* full: a byte is there already */
    }
}

void bolt_lock_take(void)
{
    if (depth++ > 0)
        return;
    pthread_mutex_lock(&mu);
    if (atomic_load_explicit(&serving, memory_order_relaxed) == next_ticket) /* free: take it without waiting */
        next_ticket++;
    else
        turn_wait();
    pthread_mutex_unlock(&mu);
}

void bolt_lock_release(void)
{
    if (--depth > 0)
        return;
    pthread_mutex_lock(&mu);
    turn_pass(1);
    pthread_mutex_unlock(&mu);
}

void bolt_lock_yield_slow(void)
{
    if (depth == 0)
        return;
    if (atomic_load_explicit(&waking, memory_order_relaxed))
        sched_yield();
    if (atomic_load_explicit(&waiting, memory_order_relaxed) == 0)
        return;
    /* Another ticket is queued: let it run, then wait our turn again. */
    pthread_mutex_lock(&mu);
    turn_pass(1);
    turn_wait();
    pthread_mutex_unlock(&mu);
}

/* Whether this thread holds the lock as a multi-threaded caller. */
static int held(void)
{
    return atomic_load_explicit(&bolt_lock_on, memory_order_relaxed) && depth > 0;
}

int bolt_lock_sleep_claim(void)
{
    if (!held())
        return 1;
    pthread_mutex_lock(&mu);
    if (!sleeper) {
        sleeper = 1;
        atomic_store_explicit(&sleeping, 1, memory_order_relaxed);
        pthread_mutex_unlock(&mu);
        return 1;
    }
    /* Wait for the sleeper to wake (it will within its poll timeout), the
     * lock dropped meanwhile; bounded in case a wake-up is missed. */
    unsigned long gen = atomic_load_explicit(&wake_gen, memory_order_relaxed);
    turn_pass(0);
    await_change(&wake_gen, gen, bolt_now() + 0.05);
    turn_wait();
    pthread_mutex_unlock(&mu);
    return 0;
}

int bolt_lock_sleeping(void) { return atomic_load_explicit(&sleeping, memory_order_relaxed); }

int bolt_lock_wake_fd(void) { return held() ? wake_pipe[0] : -1; }

void bolt_lock_sleep_drop(void)
{
    if (!held())
        return;
    pthread_mutex_lock(&mu);
    turn_pass(0);
    in_poll = 1;
    poked = 0;
    pthread_mutex_unlock(&mu);
}

void bolt_lock_sleep_end(void)
{
    if (!held())
        return;
    pthread_mutex_lock(&mu);
    in_poll = 0;
    atomic_store_explicit(&waking, 0, memory_order_relaxed);
    char buf[64];
    while (wake_pipe[0] >= 0 && read(wake_pipe[0], buf, sizeof buf) > 0) {
    }
    turn_wait();
    sleeper = 0;
    atomic_store_explicit(&sleeping, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&wake_gen, 1, memory_order_release);
    pthread_mutex_unlock(&mu);
}
