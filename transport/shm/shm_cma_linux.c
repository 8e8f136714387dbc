/*
 * shm_cma_linux.c — cross-memory attach with process_vm_readv (shm_cma.h).
 */
#include "transport/shm/shm_cma.h"

#include <errno.h>
#include <limits.h>
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

static int cma_move(pid_t pid, char *local, uint64_t raddr, size_t len, int write)
{
    size_t done = 0;
    while (done < len) {
        struct iovec l = {local + done, len - done};
        struct iovec r = {(void *)(uintptr_t)(raddr + done), len - done};
        ssize_t n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                          : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (n == 0)
            return EFAULT; /* a partial read stopped at an unmapped page */
        done += (size_t)n;
    }
    return 0;
}

int shm_cma_read(pid_t pid, void *dst, uint64_t raddr, size_t len)
{
    return cma_move(pid, dst, raddr, len, 0);
}

int shm_cma_write(pid_t pid, const void *src, uint64_t raddr, size_t len)
{
    return cma_move(pid, (char *)src, raddr, len, 1);
}

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif
enum { CMA_BATCH = IOV_MAX < 1024 ? IOV_MAX : 1024 };

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
