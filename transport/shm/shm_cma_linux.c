/*
 * shm_cma_linux.c — cross-memory attach with process_vm_readv (shm_cma.h).
 */
#include "transport/shm/shm_cma.h"

#include <errno.h>
#include <sys/prctl.h>
#include <sys/uio.h>

#ifndef PR_SET_PTRACER
#define PR_SET_PTRACER 0x59616d61
#endif
#ifndef PR_SET_PTRACER_ANY
#define PR_SET_PTRACER_ANY ((unsigned long)-1)
#endif

const int shm_cma_built = 1;

int shm_cma_allow_peers(void)
{
    /* Fails with EINVAL where Yama is absent: then nothing needs allowing. */
    (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    return 0;
}

/* Pieces per call: 64 (2 KiB of iovecs on the stack; shm_cma_read and
 * _write pass one, a window's queue at most 64). */
enum { CMA_BATCH = 64 };

int shm_cma_movev(pid_t pid, struct shm_cma_piece *p, int n, int write)
{
    struct iovec l[CMA_BATCH], r[CMA_BATCH];
    int i = 0;
    size_t skip = 0; /* bytes of p[i] already moved (a partial call) */
    while (i < n) {
        int k = 0;
        for (int j = i; j < n && k < CMA_BATCH; j++, k++) {
            size_t off = j == i ? skip : 0;
            l[k] = (struct iovec){(char *)p[j].local + off, p[j].len - off};
            r[k] = (struct iovec){(void *)(uintptr_t)(p[j].raddr + off), p[j].len - off};
        }
        ssize_t got = write ? process_vm_writev(pid, l, (unsigned long)k, r, (unsigned long)k, 0)
                            : process_vm_readv(pid, l, (unsigned long)k, r, (unsigned long)k, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        size_t left = (size_t)got;
        int moved = 0;
        while (i < n && left >= p[i].len - skip) {
            left -= p[i].len - skip;
            skip = 0;
            i++;
            moved = 1;
        }
        if (i < n && left) {
            skip += left;
            moved = 1;
        }
        if (!moved && !(i < n && p[i].len == skip))
            return EFAULT; /* stopped at an unmapped page */
    }
    return 0;
}

/* One piece each way: the vectored move's single case. */
int shm_cma_read(pid_t pid, void *dst, uint64_t raddr, size_t len)
{
    struct shm_cma_piece p = {dst, raddr, len};
    return shm_cma_movev(pid, &p, 1, 0);
}

int shm_cma_write(pid_t pid, const void *src, uint64_t raddr, size_t len)
{
    struct shm_cma_piece p = {(void *)src, raddr, len};
    return shm_cma_movev(pid, &p, 1, 1);
}
