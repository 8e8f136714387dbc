/*
 * shm_cma_posix.c — no cross-memory attach on this platform (shm_cma.h): the
 * transport moves large messages through the staging chunks (two copies).
 */
#include "transport/shm/shm_cma.h"

#include <errno.h>

const int shm_cma_built = 0;

int shm_cma_allow_peers(void)
{
    return ENOSYS;
}

int shm_cma_read(pid_t pid, void *dst, uint64_t raddr, size_t len)
{
    (void)pid;
    (void)dst;
    (void)raddr;
    (void)len;
    return ENOSYS;
}

int shm_cma_write(pid_t pid, const void *src, uint64_t raddr, size_t len)
{
    (void)pid;
    (void)src;
    (void)raddr;
    (void)len;
    return ENOSYS;
}

int shm_cma_movev(pid_t pid, struct shm_cma_piece *p, int n, int write)
{
    (void)pid;
    (void)p;
    (void)n;
    (void)write;
    return ENOSYS;
}
