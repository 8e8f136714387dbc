/* win_shm.c — a window's shared segment on one host: POSIX shared memory
 * (shm_open), which Linux and macOS both have. The creator names it by its
 * pid and a sequence number; it is unlinked as soon as every rank of the
 * host mapped it, so a job that dies leaves nothing behind. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mpi/rma.h"

static void seg_name(char *name, size_t cap, long pid, unsigned seq)
{
    /* macOS allows 31 characters. */
    snprintf(name, cap, "/bolt-w%ld-%u", pid, seq);
}

int rma_seg_map(int create, long pid, unsigned seq, size_t bytes, void **out)
{
    char name[64];
    seg_name(name, sizeof name, pid, seq);
    int fd = shm_open(name, create ? O_RDWR | O_CREAT | O_EXCL : O_RDWR, 0600);
    if (fd < 0)
        return errno;
    if (create && ftruncate(fd, (off_t)bytes) != 0) {
        int e = errno;
        close(fd);
        shm_unlink(name);
        return e;
    }
#ifdef HAVE_POSIX_FALLOCATE
    /* Reserve the pages now: tmpfs would hand out a mapping larger than it
     * can back, and the first touch past its size would be a SIGBUS. */
    int fe = create ? posix_fallocate(fd, 0, (off_t)bytes) : 0;
    if (fe != 0 && fe != EINVAL && fe != EOPNOTSUPP) {
        close(fd);
        shm_unlink(name);
        return fe;
    }
#endif
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int e = errno;
    close(fd);
    if (p == MAP_FAILED) {
        if (create)
            shm_unlink(name);
        return e;
    }
    *out = p;
    return 0;
}

void rma_seg_unlink(long pid, unsigned seq)
{
    char name[64];
    seg_name(name, sizeof name, pid, seq);
    shm_unlink(name);
}

void rma_seg_unmap(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes);
}
