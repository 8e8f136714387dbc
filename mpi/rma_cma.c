/* rma_cma.c — one-sided operations on a sibling's memory through the
 * kernel (Linux's cross-memory attach), for windows over memory the
 * program gave (MPI_Win_create, MPI_Win_create_dynamic) between ranks of
 * one host: no message, no action of the target. It uses the shm
 * transport's platform seam (shm_cma.h: process_vm_readv/writev on Linux,
 * "unsupported" elsewhere, where such windows take the message path). */
#include "mpi/rma.h"
#include "transport/shm/shm_cma.h"

int rma_cma_built(void) { return shm_cma_built; }

int rma_cma_move(long pid, const struct rma_layout *l, uint64_t base, char *packed, int write)
{
    for (int64_t k = 0; k < l->count; k++)
        for (int32_t i = 0; i < l->nblocks; i++) {
            uint64_t at = base + (uint64_t)(k * l->extent + l->blocks[i].off);
            size_t len = (size_t)l->blocks[i].len;
            int e = write ? shm_cma_write((pid_t)pid, packed, at, len)
                          : shm_cma_read((pid_t)pid, packed, at, len);
            if (e)
                return e;
            packed += len;
        }
    return 0;
}
