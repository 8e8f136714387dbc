/* rma_sync.c — synchronisation of one-sided communication (MPI 3.1, 11.5):
 * fence; post/start/complete/wait and Win_test; lock/unlock, lock_all;
 * flush and its variants; Win_sync.
 *
 * Completion at a target reached by messages is counted: each origin counts
 * the operations it sent to each target, each target those it applied from
 * each origin. A fence exchanges the counts (all-to-all) and waits for its
 * own; Win_complete sends its count with the completion; unlock and flush
 * ask the target, which answers once everything before is applied. Targets
 * reached directly need only a memory fence. */
#include <stdlib.h>
#include <string.h>

#include "mpi/rma.h"
#include "runtime/progress.h"
#include "runtime/request.h"

/* ---- control messages ------------------------------------------------------------------ */
/* Sends a control header to target, its reply receive posted first. */
static int ctl_start(struct face_win *w, int target, int kind, int type, bolt_request_t *rr)
{
    struct rma_hdr h = {0};
    h.kind = (uint8_t)kind;
    h.lock_type = type;
    h.reply_tag = rma_reply_tag(w);
    int rc = bolt_irecv(NULL, 0, target, (int)h.reply_tag, w->native, rr);
    if (rc == BOLT_OK && (rc = bolt_send(&h, sizeof h, target, RMA_TAG_HDR, w->native)) != BOLT_OK) {
        bolt_cancel(rr);
        bolt_wait(rr, NULL);
    }
    return rc;
}

static int ctl(struct face_win *w, int target, int kind, int type, const char *fn)
{
    bolt_request_t r = BOLT_REQUEST_NULL;
    int rc = ctl_start(w, target, kind, type, &r);
    if (rc == BOLT_OK)
        rc = bolt_wait(&r, NULL);
    return rc == BOLT_OK ? MPI_SUCCESS : face_win_native_error(w, fn, rc);
}

/* The same to many targets at once (those with want[t] set), then waits. */
static int ctl_all(struct face_win *w, const char *want, int kind, int type, const char *fn)
{
    bolt_request_t *rs = calloc((size_t)w->size, sizeof *rs);
    if (!rs)
        return face_win_error(w, fn, MPI_ERR_NO_MEM, "no memory");
    int rc = BOLT_OK;
    for (int t = 0; t < w->size && rc == BOLT_OK; t++)
        if (want[t])
            rc = ctl_start(w, t, kind, type, &rs[t]);
    int wrc = bolt_waitall(w->size, rs, NULL);
    free(rs);
    if (rc == BOLT_OK)
        rc = wrc;
    return rc == BOLT_OK ? MPI_SUCCESS : face_win_native_error(w, fn, rc);
}

struct lock_arg {
    struct rma_ctrl *ctrl;
    int type;
};

static int lock_got(void *arg)
{
    struct lock_arg *a = arg;
    return rma_lock_try(a->ctrl, a->type);
}

/* Takes a lock on a target reached directly. */
static void lock_direct(struct rma_ctrl *c, int type)
{
    struct lock_arg a = {c, type};
    if (!rma_lock_try(c, type))
        bolt_progress_until(lock_got, &a, 0);
}

/* Reached by messages (else directly or through the kernel, locks in its
 * shared control block). */
static int remote(const struct face_win *w, int t)
{
    return !w->peers[t].direct && !w->peers[t].cma;
}

/* Checks win, and that one of the epochs in `open` is (else MPI_ERR_RMA_SYNC
 * saying `why`). */
static int epoch_check(MPI_Win win, int open, const char *why, const char *fn,
                       struct face_win **w)
{
    int rc = face_win_check(win, fn, w);
    if (rc == MPI_SUCCESS && !((*w)->epoch & open))
        rc = face_win_error(*w, fn, MPI_ERR_RMA_SYNC, "%s", why);
    return rc;
}

/* ---- passive target ---------------------------------------------------------------------- */
int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_lock";
    struct face_win *w = NULL;
    int rc = face_win_check(win, fn, &w);
    if (rc)
        return rc;
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return face_win_error(w, fn, MPI_ERR_LOCKTYPE,
                              "lock type %d is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE",
                              lock_type);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= w->size)
        return face_win_error(w, fn, MPI_ERR_RANK, "rank %d is not in the window (0..%d)", rank,
                              w->size - 1);
    if (w->peers[rank].lock || (w->epoch & EPOCH_LOCK_ALL))
        return face_win_error(w, fn, MPI_ERR_RMA_SYNC, "rank %d is locked already", rank);
    if (w->epoch & EPOCH_ACCESS)
        return face_win_error(w, fn, MPI_ERR_RMA_SYNC,
                              "an access epoch (MPI_Win_start) is open: complete it first");
    struct win_peer *p = &w->peers[rank];
    p->nocheck = (assert & MPI_MODE_NOCHECK) != 0;
    if (!p->nocheck) {
        if (remote(w, rank)) {
            /* Granted lazily: the target holds back what follows until then. */
            struct rma_hdr h = {0};
            h.kind = RMA_LOCK;
            h.lock_type = lock_type;
            int nrc = bolt_send(&h, sizeof h, rank, RMA_TAG_HDR, w->native);
            if (nrc != BOLT_OK)
                return face_win_native_error(w, fn, nrc);
        } else {
            lock_direct(p->ctrl, lock_type);
        }
    }
    p->lock = lock_type;
    p->flushed = p->sent;
    w->epoch |= EPOCH_LOCK;
    return MPI_SUCCESS;
}

static void epoch_locks_update(struct face_win *w)
{
    for (int t = 0; t < w->size; t++)
        if (w->peers[t].lock)
            return;
    w->epoch &= ~EPOCH_LOCK;
}

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    const char *fn = "MPI_Win_unlock";
    struct face_win *w = NULL;
    int rc = face_win_check(win, fn, &w);
    if (rc)
        return rc;
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= w->size)
        return face_win_error(w, fn, MPI_ERR_RANK, "rank %d is not in the window (0..%d)", rank,
                              w->size - 1);
    struct win_peer *p = &w->peers[rank];
    if (!p->lock || (w->epoch & EPOCH_LOCK_ALL))
        return face_win_error(w, fn, MPI_ERR_RMA_SYNC, "rank %d is not locked (MPI_Win_lock)",
                              rank);
    if ((rc = rma_pending_wait(w, rank, fn)))
        return rc;
    if (remote(w, rank)) {
        if (!p->nocheck)
            rc = ctl(w, rank, RMA_UNLOCK, p->lock, fn);
        else if (rma_unflushed(p))
            rc = ctl(w, rank, RMA_FLUSH, 0, fn);
    } else {
        atomic_thread_fence(memory_order_seq_cst);
        if (!p->nocheck)
            rma_lock_release(p->ctrl, p->lock);
    }
    p->lock = 0;
    p->flushed = p->sent;
    epoch_locks_update(w);
    return rc;
}

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_lock_all";
    struct face_win *w = NULL;
    int rc = face_win_check(win, fn, &w);
    if (rc)
        return rc;
    if (w->epoch & (EPOCH_LOCK | EPOCH_LOCK_ALL | EPOCH_ACCESS))
        return face_win_error(w, fn, MPI_ERR_RMA_SYNC,
                              "another access epoch is open on this window: close it first");
    int nocheck = (assert & MPI_MODE_NOCHECK) != 0;
    int nrc = BOLT_OK;
    for (int t = 0; t < w->size; t++) {
        w->peers[t].nocheck = nocheck;
        w->peers[t].flushed = w->peers[t].sent;
        if (!nocheck && remote(w, t) && nrc == BOLT_OK) {
            struct rma_hdr h = {0}; /* granted lazily, as in MPI_Win_lock */
            h.kind = RMA_LOCK;
            h.lock_type = MPI_LOCK_SHARED;
            nrc = bolt_send(&h, sizeof h, t, RMA_TAG_HDR, w->native);
        }
    }
    if (nrc != BOLT_OK)
        return face_win_native_error(w, fn, nrc);
    for (int t = 0; t < w->size; t++) {
        if (!nocheck && !remote(w, t))
            lock_direct(w->peers[t].ctrl, MPI_LOCK_SHARED);
        w->peers[t].lock = MPI_LOCK_SHARED;
    }
    w->epoch |= EPOCH_LOCK_ALL;
    return MPI_SUCCESS;
}

int PMPI_Win_unlock_all(MPI_Win win)
{
    const char *fn = "MPI_Win_unlock_all";
    struct face_win *w = NULL;
    int rc = epoch_check(win, EPOCH_LOCK_ALL, "the window is not locked by MPI_Win_lock_all", fn,
                         &w);
    if (rc)
        return rc;
    if ((rc = rma_pending_wait(w, -1, fn)))
        return rc;
    if (!w->remote_peers) {
        /* Every target here: release the locks, nobody to ask. */
        atomic_thread_fence(memory_order_release);
        for (int t = 0; t < w->size; t++) {
            if (!w->peers[t].nocheck)
                rma_lock_release(w->peers[t].ctrl, MPI_LOCK_SHARED);
            w->peers[t].lock = 0;
        }
        w->epoch &= ~EPOCH_LOCK_ALL;
        return MPI_SUCCESS;
    }
    char *unlock = calloc((size_t)w->size, 1), *flush = calloc((size_t)w->size, 1);
    if (!unlock || !flush) {
        free(unlock);
        free(flush);
        return face_win_error(w, fn, MPI_ERR_NO_MEM, "no memory");
    }
    atomic_thread_fence(memory_order_seq_cst);
    for (int t = 0; t < w->size; t++) {
        struct win_peer *p = &w->peers[t];
        if (remote(w, t)) {
            unlock[t] = !p->nocheck;
            flush[t] = p->nocheck && rma_unflushed(p);
        } else if (!p->nocheck) {
            rma_lock_release(p->ctrl, MPI_LOCK_SHARED);
        }
    }
    rc = ctl_all(w, unlock, RMA_UNLOCK, MPI_LOCK_SHARED, fn);
    if (!rc)
        rc = ctl_all(w, flush, RMA_FLUSH, 0, fn);
    free(unlock);
    free(flush);
    for (int t = 0; t < w->size; t++) {
        w->peers[t].lock = 0;
        w->peers[t].flushed = w->peers[t].sent;
    }
    w->epoch &= ~EPOCH_LOCK_ALL;
    return rc;
}

static int flush(MPI_Win win, int rank, int local, const char *fn)
{
    struct face_win *w = NULL;
    int rc = face_win_check(win, fn, &w);
    if (rc)
        return rc;
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < -1 || rank >= w->size)
        return face_win_error(w, fn, MPI_ERR_RANK, "rank %d is not in the window (0..%d)", rank,
                              w->size - 1);
    if (rank >= 0 ? !w->peers[rank].lock : !(w->epoch & (EPOCH_LOCK | EPOCH_LOCK_ALL)))
        return face_win_error(w, fn, MPI_ERR_RMA_SYNC,
                              "flushes are for passive-target epochs: %s is not locked",
                              rank >= 0 ? "the rank" : "the window");
    if ((rc = rma_pending_wait(w, rank, fn)))
        return rc;
    /* Stores into a sibling's memory are ordered before whatever makes them
     * known to it (its own synchronisation has the acquiring side). */
    atomic_thread_fence(memory_order_release);
    /* flush_local asks message targets too: the standard lets it return once
     * the buffers are free, but an operation whose data a target reads from
     * the origin's memory (large ones, single-copy) could then be applied
     * after the program's next barrier, and programs (OSU's validation) read
     * the window right after one. */
    (void)local;
    /* Only targets reached by messages that got operations since (not all
     * of them answered already) need asking. */
    int any = 0;
    for (int t = rank < 0 ? 0 : rank; t < (rank < 0 ? w->size : rank + 1) && !any; t++)
        any = remote(w, t) && w->peers[t].lock && rma_unflushed(&w->peers[t]);
    if (!any)
        return MPI_SUCCESS;
    char *want = calloc((size_t)w->size, 1);
    if (!want)
        return face_win_error(w, fn, MPI_ERR_NO_MEM, "no memory");
    for (int t = rank < 0 ? 0 : rank; t < (rank < 0 ? w->size : rank + 1); t++) {
        struct win_peer *p = &w->peers[t];
        want[t] = remote(w, t) && p->lock && rma_unflushed(p);
        p->flushed = p->sent;
    }
    rc = ctl_all(w, want, RMA_FLUSH, 0, fn);
    free(want);
    return rc;
}

int PMPI_Win_flush(int rank, MPI_Win win) { return flush(win, rank, 0, "MPI_Win_flush"); }
int PMPI_Win_flush_all(MPI_Win win) { return flush(win, -1, 0, "MPI_Win_flush_all"); }
int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    return flush(win, rank, 1, "MPI_Win_flush_local");
}
int PMPI_Win_flush_local_all(MPI_Win win) { return flush(win, -1, 1, "MPI_Win_flush_local_all"); }

int PMPI_Win_sync(MPI_Win win)
{
    struct face_win *w = NULL;
    int rc = face_win_check(win, "MPI_Win_sync", &w);
    if (rc)
        return rc;
    atomic_thread_fence(memory_order_seq_cst);
    bolt_progress_poll();
    return MPI_SUCCESS;
}

/* ---- fence ------------------------------------------------------------------------------- */
struct applied_arg {
    struct face_win *w;
    const uint64_t *want; /* per origin */
};

static int all_applied(void *arg)
{
    struct applied_arg *a = arg;
    for (int o = 0; o < a->w->size; o++)
        if (a->w->peers[o].applied < a->want[o])
            return 0;
    return 1;
}

int PMPI_Win_fence(int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_fence";
    struct face_win *w = NULL;
    int rc = face_win_check(win, fn, &w);
    if (rc)
        return rc;
    if (w->epoch & (EPOCH_LOCK | EPOCH_LOCK_ALL | EPOCH_ACCESS | EPOCH_EXPOSE))
        return face_win_error(w, fn, MPI_ERR_RMA_SYNC,
                              "a lock or post/start epoch is open on this window: close it first");
    if ((rc = rma_pending_wait(w, -1, fn)))
        return rc;
    int nrc = BOLT_OK;
    /* Decided at creation for all ranks alike: some rank has targets reached
     * by messages. */
    if (w->any_remote && !(assert & MPI_MODE_NOPRECEDE)) {
        uint64_t *sent = w->fence_counts, *got = w->fence_counts + w->size;
        for (int t = 0; t < w->size; t++)
            sent[t] = w->peers[t].sent;
        nrc = bolt_alltoall(sent, got, sizeof *sent, BOLT_BYTE, w->native);
        if (nrc == BOLT_OK) {
            struct applied_arg a = {w, got};
            bolt_progress_until(all_applied, &a, 0);
        }
    }
    atomic_thread_fence(memory_order_seq_cst);
    if (nrc == BOLT_OK)
        nrc = bolt_barrier(w->native);
    atomic_thread_fence(memory_order_seq_cst);
    if (nrc != BOLT_OK)
        return face_win_native_error(w, fn, nrc);
    w->epoch = (assert & MPI_MODE_NOSUCCEED) ? EPOCH_NONE : EPOCH_FENCE;
    return MPI_SUCCESS;
}

/* ---- post / start / complete / wait --------------------------------------------------------- */
/* The window ranks of a group's members; MPI_ERR_GROUP when one is not in it. */
static int group_ranks(struct face_win *w, MPI_Group group, int **out, int *n, const char *fn)
{
    struct face_group *g = NULL;
    int rc = face_group_check(w->comm, group, fn, &g);
    if (rc)
        return rc;
    struct face_comm *c = face_comm_get(w->comm);
    int *r = malloc(((size_t)g->size + 1) * sizeof *r);
    if (!r)
        return face_win_error(w, fn, MPI_ERR_NO_MEM, "no memory");
    for (int i = 0; i < g->size; i++) {
        r[i] = -1;
        for (int k = 0; k < c->size; k++)
            if (c->world_ranks[k] == g->world_ranks[i])
                r[i] = k;
        if (r[i] < 0) {
            free(r);
            return face_win_error(w, fn, MPI_ERR_GROUP,
                                  "member %d of the group (world rank %d) is not in the window",
                                  i, g->world_ranks[i]);
        }
    }
    *out = r;
    *n = g->size;
    return MPI_SUCCESS;
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_post";
    struct face_win *w = NULL;
    int rc = face_win_check(win, fn, &w);
    if (rc)
        return rc;
    if (w->epoch & EPOCH_EXPOSE)
        return face_win_error(w, fn, MPI_ERR_RMA_SYNC,
                              "an exposure epoch is open already (MPI_Win_wait it first)");
    int *r = NULL, n = 0;
    if ((rc = group_ranks(w, group, &r, &n, fn)))
        return rc;
    atomic_thread_fence(memory_order_seq_cst);
    int nrc = BOLT_OK;
    for (int i = 0; i < n && nrc == BOLT_OK && !(assert & MPI_MODE_NOCHECK); i++)
        nrc = bolt_send(NULL, 0, r[i], RMA_TAG_POST, w->native);
    if (nrc != BOLT_OK) {
        free(r);
        return face_win_native_error(w, fn, nrc);
    }
    free(w->expose);
    w->expose = r;
    w->nexpose = n;
    memset(w->wait_counts, 0, (size_t)w->size * sizeof *w->wait_counts);
    w->epoch = (w->epoch & ~EPOCH_FENCE) | EPOCH_EXPOSE;
    return MPI_SUCCESS;
}

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_start";
    struct face_win *w = NULL;
    int rc = face_win_check(win, fn, &w);
    if (rc)
        return rc;
    if (w->epoch & (EPOCH_ACCESS | EPOCH_LOCK | EPOCH_LOCK_ALL))
        return face_win_error(w, fn, MPI_ERR_RMA_SYNC,
                              "an access epoch is open already on this window");
    int *r = NULL, n = 0;
    if ((rc = group_ranks(w, group, &r, &n, fn)))
        return rc;
    int nrc = BOLT_OK;
    for (int i = 0; i < n && nrc == BOLT_OK && !(assert & MPI_MODE_NOCHECK); i++)
        nrc = bolt_recv(NULL, 0, r[i], RMA_TAG_POST, w->native, NULL);
    if (nrc != BOLT_OK) {
        free(r);
        return face_win_native_error(w, fn, nrc);
    }
    atomic_thread_fence(memory_order_seq_cst);
    free(w->access);
    w->access = r;
    w->naccess = n;
    w->epoch = (w->epoch & ~EPOCH_FENCE) | EPOCH_ACCESS;
    return MPI_SUCCESS;
}

int PMPI_Win_complete(MPI_Win win)
{
    const char *fn = "MPI_Win_complete";
    struct face_win *w = NULL;
    int rc = epoch_check(win, EPOCH_ACCESS, "no access epoch (MPI_Win_start) is open", fn, &w);
    if (rc)
        return rc;
    if ((rc = rma_pending_wait(w, -1, fn)))
        return rc;
    atomic_thread_fence(memory_order_seq_cst);
    int nrc = BOLT_OK;
    for (int i = 0; i < w->naccess && nrc == BOLT_OK; i++) {
        uint64_t n = w->peers[w->access[i]].sent;
        nrc = bolt_send(&n, sizeof n, w->access[i], RMA_TAG_COMPLETE, w->native);
    }
    w->epoch &= ~EPOCH_ACCESS;
    return nrc == BOLT_OK ? MPI_SUCCESS : face_win_native_error(w, fn, nrc);
}

/* Takes the completions that came; with block, waits for them all. Returns
 * 1 when every origin completed and its operations are applied. */
static int exposure_done(struct face_win *w, int block, int *nrc)
{
    int all = 1;
    for (int i = 0; i < w->nexpose && *nrc == BOLT_OK; i++) {
        int o = w->expose[i];
        if (w->wait_counts[o])
            continue;
        int flag = 1;
        if (!block)
            *nrc = bolt_iprobe(o, RMA_TAG_COMPLETE, w->native, &flag, NULL);
        uint64_t n = 0;
        if (*nrc == BOLT_OK && flag &&
            (*nrc = bolt_recv(&n, sizeof n, o, RMA_TAG_COMPLETE, w->native, NULL)) == BOLT_OK)
            w->wait_counts[o] = n + 1;
        else
            all = 0;
    }
    if (!all || *nrc != BOLT_OK)
        return 0;
    for (int i = 0; i < w->nexpose; i++) {
        int o = w->expose[i];
        if (w->peers[o].applied + 1 < w->wait_counts[o])
            return 0;
    }
    return 1;
}

struct expose_arg {
    struct face_win *w;
    int nrc;
};

static int expose_arrived(void *arg)
{
    struct expose_arg *a = arg;
    return exposure_done(a->w, 0, &a->nrc) || a->nrc != BOLT_OK;
}

static int exposure_end(struct face_win *w, int block, int *flag, const char *fn)
{
    if (!(w->epoch & EPOCH_EXPOSE))
        return face_win_error(w, fn, MPI_ERR_RMA_SYNC, "no exposure epoch (MPI_Win_post) is open");
    struct expose_arg a = {w, BOLT_OK};
    int done = exposure_done(w, block, &a.nrc);
    if (!done && block && a.nrc == BOLT_OK) {
        bolt_progress_until(expose_arrived, &a, 0);
        done = a.nrc == BOLT_OK;
    } else if (!done && a.nrc == BOLT_OK) {
        bolt_progress_poll();
        done = exposure_done(w, 0, &a.nrc);
    }
    if (a.nrc != BOLT_OK)
        return face_win_native_error(w, fn, a.nrc);
    if (flag)
        *flag = done;
    if (done) {
        atomic_thread_fence(memory_order_seq_cst);
        w->epoch &= ~EPOCH_EXPOSE;
    }
    return MPI_SUCCESS;
}

int PMPI_Win_wait(MPI_Win win)
{
    struct face_win *w = NULL;
    int rc = face_win_check(win, "MPI_Win_wait", &w);
    return rc ? rc : exposure_end(w, 1, NULL, "MPI_Win_wait");
}

int PMPI_Win_test(MPI_Win win, int *flag)
{
    struct face_win *w = NULL;
    int rc = face_win_check(win, "MPI_Win_test", &w);
    if (rc)
        return rc;
    if (!flag)
        return face_win_error(w, "MPI_Win_test", MPI_ERR_ARG, "flag is NULL");
    return exposure_end(w, 0, flag, "MPI_Win_test");
}
