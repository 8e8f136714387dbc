/*
 * shm_fence_posix.c — no asymmetric barrier on this platform (shm_fence.h):
 * both sides of the doorbell use full fences.
 */
#include "transport/shm/shm_fence.h"

int shm_fence_setup(void)
{
    return 0;
}

void shm_fence_heavy(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}
