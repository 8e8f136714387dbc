/*
 * thread.h — the runtime lock that lets several threads call MPI at once
 * (MPI_THREAD_MULTIPLE). Off by default: every entry point then pays one
 * relaxed load. Once on, the MPI face takes it around each call, and every
 * blocking wait of the runtime hands it to a waiting thread between passes
 * and drops it while it sleeps, so a thread blocked in a receive or a
 * collective never stops another thread's send or collective.
 *
 * The lock is recursive (a user callback may call MPI) and fair (tickets,
 * served in order), so a waiting thread that polls in a loop cannot starve
 * the others.
 */
#ifndef BOLT_THREAD_H
#define BOLT_THREAD_H

#include <stdatomic.h>

/* Nonzero once bolt_lock_enable was called. */
extern atomic_int bolt_lock_on;

/* Turns the lock on; call before a second thread enters. */
void bolt_lock_enable(void);
/* Take and release (recursive: the n-th take needs n releases). */
void bolt_lock_take(void);
void bolt_lock_release(void);
/* In a wait loop, holding the lock: hands it over if another thread waits. */
void bolt_lock_yield_slow(void);
static inline void bolt_lock_yield(void)
{
    if (atomic_load_explicit(&bolt_lock_on, memory_order_relaxed))
        bolt_lock_yield_slow();
}
/* Around a sleep in poll(), holding the lock. bolt_lock_sleep_claim returns
 * 1 when this thread is the one to sleep (it still holds the lock: it then
 * readies the transports, calls bolt_lock_sleep_drop, sleeps, and calls
 * bolt_lock_sleep_end, which retakes the lock). It returns 0 when another
 * thread sleeps already: this one has waited, the lock dropped, until that
 * sleep ended, and holds the lock again; it must not sleep itself (two
 * sleepers would clear each other's doorbell flags). Single-threaded, claim
 * returns 1 and the others do nothing. */
int bolt_lock_sleep_claim(void);
/* A descriptor the sleeper polls too (readable when another thread left the
 * lock meanwhile), or -1. */
int bolt_lock_wake_fd(void);
void bolt_lock_sleep_drop(void);
/* Is a thread asleep in poll() (it wakes when something arrives)? Read
 * without the lock: a hint. */
int bolt_lock_sleeping(void);
void bolt_lock_sleep_end(void);

#endif
