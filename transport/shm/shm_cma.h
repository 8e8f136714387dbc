/*
 * shm_cma.h — single-copy reads from a sibling process's memory (cross-memory
 * attach). Platform seam: shm_cma_linux.c (process_vm_readv) on Linux,
 * shm_cma_posix.c elsewhere, where every call says "unsupported" and the
 * transport copies through the staging chunks instead. Both are built and
 * tested on Linux (tests/transport: test_shm, test_shm_posix).
 */
#ifndef BOLT_SHM_CMA_H
#define BOLT_SHM_CMA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* 1 in builds with CMA (Linux), 0 in the POSIX fallback. */
extern const int shm_cma_built;
/* Lets siblings read this process (Yama ptrace_scope=1 otherwise allows
 * only ancestors). Returns 0, or ENOSYS when this build has no CMA. */
int shm_cma_allow_peers(void);
/* Reads len bytes at address raddr of process pid into dst. Returns 0, or an
 * errno value: ENOSYS (no CMA here), EPERM (not allowed), ESRCH (gone),
 * EFAULT (bad address). */
int shm_cma_read(pid_t pid, void *dst, uint64_t raddr, size_t len);
/* Writes len bytes of src at address raddr of process pid; same results. */
int shm_cma_write(pid_t pid, const void *src, uint64_t raddr, size_t len);
/* One piece of a vectored move: len bytes between local and raddr. */
struct shm_cma_piece {
    void *local;
    uint64_t raddr;
    size_t len;
};
/* Reads (write 0) or writes n pieces, in order, in as few calls into the
 * kernel as it takes (one per 64 pieces on Linux: a call costs 1-3 us, a
 * piece's copy a few ns); same results as shm_cma_read/write. */
int shm_cma_movev(pid_t pid, struct shm_cma_piece *p, int n, int write);

#endif
