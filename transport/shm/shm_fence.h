/*
 * shm_fence.h — the store-load fences of the doorbell (shm_bell.c), made
 * asymmetric where the system allows it.
 *
 * Waking and sleeping is the store-buffering pattern: the waker stores a
 * record and then loads the sleeper's flag; the sleeper stores its flag and
 * then loads the rings. Each side needs a full fence between its store and
 * its load. The waker runs on every message, the sleeper once per sleep: so
 * where the kernel can run a barrier on every CPU that runs a registered
 * process (Linux membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED), the sleeper
 * pays that system call and the waker's fence shrinks to a compiler barrier.
 * A full fence waits for the store buffer to drain, and the record's line is
 * owned by the spinning consumer. Platform seam: shm_fence_linux.c;
 * shm_fence_posix.c (full fences on both sides) elsewhere, also built and
 * tested here.
 */
#ifndef BOLT_SHM_FENCE_H
#define BOLT_SHM_FENCE_H

#include <stdatomic.h>

/* Registers this process for the asymmetric barrier. Returns 1 when its
 * wakers may use shm_fence_light's cheap form, else 0. */
int shm_fence_setup(void);

/* The sleeper's side: a full fence, and the barrier on every registered
 * process where the kernel has it (whether or not this one registered). */
void shm_fence_heavy(void);

/* The waker's side. */
static inline void shm_fence_light(int registered)
{
    if (registered)
        atomic_signal_fence(memory_order_seq_cst); /* the sleeper's barrier orders us */
    else
        atomic_thread_fence(memory_order_seq_cst);
}

#endif
