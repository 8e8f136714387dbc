/* rma_cma.c — one-sided operations on a sibling's memory through the
 * kernel (Linux's cross-memory attach), for windows over memory the
 * program gave (MPI_Win_create, MPI_Win_create_dynamic) between ranks of
 * one host: no message, no action of the target. It uses the shm
 * transport's platform seam (shm_cma.h: process_vm_readv/writev on Linux,
 * "unsupported" elsewhere, where such windows take the message path).
 *
 * A call into the kernel costs 1-3 us (more in a VM) and copying a small
 * piece a few ns, so pieces travel together: a layout's blocks in one
 * call, and contiguous Puts and Gets queued until the epoch's next
 * synchronisation (or until the queue fills), which the standard allows:
 * a Get's result is not the program's before then, nor a Put's buffer. (A
 * small Put's data is copied at the call all the same: programs that put
 * from a loop's variable reuse it at once. OSU's put_bw, 64 Puts of 16-128
 * KiB and a flush, paid a call into the kernel per Put when only those up
 * to 8 KiB waited.) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/rma.h"
#include "transport/shm/shm_cma.h"

int rma_cma_built(void) { return shm_cma_built; }

int rma_cma_move(long pid, const struct rma_layout *l, uint64_t base, char *packed, int write)
{
    enum { ON_STACK = 32 };
    struct shm_cma_piece stack[ON_STACK], *p = stack;
    int64_t n = l->count * l->nblocks;
    if (n == 0)
        return 0;
    if (n > INT32_MAX)
        return E2BIG;
    if (n > ON_STACK && !(p = malloc((size_t)n * sizeof *p)))
        return ENOMEM;
    int k = 0;
    for (int64_t e = 0; e < l->count; e++)
        for (int32_t i = 0; i < l->nblocks; i++) {
            size_t len = (size_t)l->blocks[i].len;
            p[k++] = (struct shm_cma_piece){packed, base + (uint64_t)(e * l->extent + l->blocks[i].off),
                                            len};
            packed += len;
        }
    int err = shm_cma_movev((pid_t)pid, p, k, write);
    if (p != stack)
        free(p);
    return err;
}

/* Queued pieces, moved in order: a run of one target and direction per
 * call into the kernel. On failure, *failed names the target. */
int rma_cma_drain(struct face_win *w, int *failed)
{
    struct rma_cma_queue *q = &w->cmaq;
    int err = 0;
    for (int i = 0; i < q->n && !err;) {
        int j = i, t = q->target[i];
        if (w->peers[t].mail) { /* the target itself, if it polls */
            size_t bytes = 0;
            while (j < q->n && q->target[j] == t && j - i < RMA_MAIL_ITEMS &&
                   bytes + q->piece[j].len <= RMA_MAIL_DATA)
                bytes += q->piece[j++].len;
            if (j > i && rma_mail_try(w, t, q->piece + i, q->write + i, j - i)) {
                i = j;
                continue;
            }
            j = i;
        }
        while (j < q->n && q->target[j] == q->target[i] && q->write[j] == q->write[i])
            j++;
        err = rma_mail_share(w, q->target[i], q->piece + i, j - i, q->write[i]);
        if (err)
            *failed = q->target[i];
        i = j;
    }
    q->n = 0;
    q->staged_bytes = 0;
    return err;
}

int rma_cma_queue(struct face_win *w, int target, void *local, uint64_t raddr, size_t len,
                  int write, int *failed)
{
    struct rma_cma_queue *q = &w->cmaq;
    int err = 0;
    if (len == 0)
        return 0; /* nothing to move (and local may be NULL) */
    int copy = write && len <= RMA_CMA_PUT_COPY;
    if (copy && !q->staged && !(q->staged = malloc(RMA_CMA_STAGE)))
        return ENOMEM;
    if (q->n == RMA_CMA_QUEUE || (copy && q->staged_bytes + len > RMA_CMA_STAGE))
        if ((err = rma_cma_drain(w, failed)))
            return err;
    if (copy) {
        memcpy(q->staged + q->staged_bytes, local, len);
        local = q->staged + q->staged_bytes;
        q->staged_bytes += len;
    }
    q->piece[q->n] = (struct shm_cma_piece){local, raddr, len};
    q->target[q->n] = target;
    q->write[q->n] = (char)write;
    q->n++;
    return 0;
}

char *rma_scratch(struct face_win *w, size_t n)
{
    if (!w->scratch || n > w->scratch_bytes) {
        char *p = malloc(n ? n : 1);
        if (!p)
            return NULL;
        free(w->scratch);
        w->scratch = p;
        w->scratch_bytes = n;
    }
    return w->scratch;
}

void rma_cma_free(struct face_win *w)
{
    free(w->cmaq.staged);
    w->cmaq.staged = NULL;
    free(w->scratch);
    w->scratch = NULL;
    w->scratch_bytes = 0;
}
