/*
 * shm_fence_linux.c — the asymmetric doorbell barrier on Linux (shm_fence.h):
 * membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) runs a full barrier on every
 * CPU that runs a thread of a registered process (each rank registers at
 * init); a process that is not running went through a context switch, a
 * barrier itself. About 10 us per call here, paid once per sleep.
 */
#include "transport/shm/shm_fence.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

static int available; /* the kernel has the barrier */

static long membarrier(int cmd)
{
    return syscall(__NR_membarrier, cmd, 0, 0);
}

int shm_fence_setup(void)
{
    long have = membarrier(MEMBARRIER_CMD_QUERY);
    available = have > 0 && (have & MEMBARRIER_CMD_GLOBAL_EXPEDITED) &&
                (have & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED);
    return available && membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0;
}

void shm_fence_heavy(void)
{
    atomic_thread_fence(memory_order_seq_cst); /* for wakers with full fences */
    if (available)
        (void)membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED);
}
