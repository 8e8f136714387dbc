/* win_create.c — windows: the four flavours (MPI 3.1, 11.2), Win_free,
 * attach/detach of dynamic windows, Win_shared_query, and the handle table. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi/rma.h"
#include "runtime/config.h"
#include "runtime/log.h"
#include "runtime/runtime.h"

struct face_win **face_wins;
int face_nwins = 1; /* 0 is MPI_WIN_NULL */
static int cap_wins;
static unsigned seg_seq;
/* Read by siblings to learn whether the kernel lets them reach this process. */
static const uint64_t cma_probe = 0x426f6c74524d4131ull; /* "BoltRMA1" */

int face_win_check(MPI_Win w, const char *fn, struct face_win **out)
{
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    *out = face_win_get(w);
    if (*out)
        return MPI_SUCCESS;
    return face_error(MPI_COMM_NULL, fn, MPI_ERR_WIN,
                      w == MPI_WIN_NULL ? "the window is MPI_WIN_NULL"
                                        : "window handle %d is not a live window",
                      w);
}

int face_win_error(struct face_win *w, const char *fn, int cls, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return face_error_on(w->errh, w->handle, "window", fn, cls, "%s", msg);
}

int face_win_native_error(struct face_win *w, const char *fn, int native)
{
    return face_win_error(w, fn, face_class_of_native(native), "%s", bolt_error_message());
}

static int win_insert(struct face_win *w)
{
    for (int i = 1; i < face_nwins; i++)
        if (!face_wins[i]) {
            face_wins[i] = w;
            return w->handle = i;
        }
    if (face_nwins >= cap_wins) {
        int n = cap_wins ? cap_wins * 2 : 16;
        struct face_win **t = realloc(face_wins, (size_t)n * sizeof *t);
        if (!t)
            return -1;
        face_wins = t;
        cap_wins = n;
    }
    face_wins[face_nwins] = w;
    return w->handle = face_nwins++;
}

/* What each rank tells the others at creation. */
struct win_card {
    int64_t size, base, pid, probe;
    int32_t disp_unit, host;
    uint32_t seq;
    int32_t err;
};

static void win_destroy(struct face_win *w)
{
    if (!w)
        return;
    rma_cma_free(w);
    rma_mail_stop(w);
    if (w->hdr_req || w->hdr_buf)
        rma_target_stop(w);
    if (w->remote_peers)
        rma_agent_release();
    if (w->seg)
        rma_seg_unmap(w->seg, w->seg_bytes);
    else if (w->flavor == MPI_WIN_FLAVOR_ALLOCATE)
        free(w->base);
    while (w->regions) {
        struct win_region *r = w->regions;
        w->regions = r->next;
        free(r);
    }
    if (w->comm != MPI_COMM_NULL)
        face_comm_destroy(w->comm);
    if (w->info != MPI_INFO_NULL)
        PMPI_Info_free(&w->info);
    face_errh_release(w->errh);
    free(w->peers);
    free(w->access);
    free(w->expose);
    free(w->fence_counts);
    free(w->wait_counts);
    if (w->handle > 0 && w->handle < face_nwins && face_wins[w->handle] == w)
        face_wins[w->handle] = NULL;
    free(w);
}

static int info_says(MPI_Info info, const char *key, const char *value)
{
    int flag = 0;
    char v[64];
    if (info == MPI_INFO_NULL || PMPI_Info_get(info, key, (int)sizeof v - 1, v, &flag) || !flag)
        return 0;
    return strcmp(v, value) == 0;
}

/* The host's segment: control blocks (and a dynamic window's tables of
 * attached memory), then the data of each local rank
 * (flavours allocate and shared) in rank order; shared ones back to back
 * unless alloc_shared_noncontig. Sets the local peers' base, ctrl and dyn. */
/* win_map_host's answer when an allocating window must do without. */
#define WIN_NO_SEGMENT (-1)

static int win_map_host(struct face_win *w, const struct win_card *cards, int with_data,
                        const char *fn)
{
    int me = w->rank, nlocal = 0, leader = -1;
    int host = cards[me].host;
    for (int i = 0; i < w->size; i++)
        if (cards[i].host == host) {
            if (leader < 0)
                leader = i;
            nlocal++;
        }
    size_t dyn_bytes = w->flavor == MPI_WIN_FLAVOR_DYNAMIC
                           ? (size_t)nlocal * sizeof(struct rma_dyn_table)
                           : 0;
    /* Memory the program gave: a box per rank (rma_mail.c), used once the
     * kernel path is known to work (the box is the faster way, the kernel
     * the one that never waits for the target). */
    size_t mail_bytes = !with_data && nlocal > 1 ? (size_t)nlocal * sizeof(struct rma_mail) : 0;
    size_t ctrl_bytes = ((size_t)nlocal * sizeof(struct rma_ctrl) + dyn_bytes + mail_bytes + 4095) &
                        ~(size_t)4095;
    size_t total = ctrl_bytes;
    int contig = w->flavor == MPI_WIN_FLAVOR_SHARED && !w->shared_noncontig;
    for (int i = 0; i < w->size && with_data; i++)
        if (cards[i].host == host)
            total += contig ? (size_t)cards[i].size : ((size_t)cards[i].size + 63) & ~(size_t)63;
    if (total == ctrl_bytes)
        total += 64; /* never map nothing */
    int err = 0, any = 0;
    void *seg = NULL;
    if (me == leader)
        err = rma_seg_map(1, (long)cards[leader].pid, cards[leader].seq, total, &seg);
    int rc = bolt_barrier(w->native);
    if (rc == BOLT_OK && me != leader)
        err = rma_seg_map(0, (long)cards[leader].pid, cards[leader].seq, total, &seg);
    if (rc == BOLT_OK)
        rc = bolt_barrier(w->native);
    if (me == leader)
        rma_seg_unlink((long)cards[leader].pid, cards[leader].seq);
    if (rc == BOLT_OK)
        rc = bolt_allreduce(&err, &any, 1, BOLT_INT32, BOLT_MAX, w->native);
    if (rc != BOLT_OK) {
        rma_seg_unmap(seg, total);
        return face_native_error(w->comm, fn, rc);
    }
    if (any) {
        rma_seg_unmap(seg, total);
        if (w->flavor == MPI_WIN_FLAVOR_ALLOCATE) { /* private memory will do */
            bolt_log(BOLT_LOG_WARN,
                     "%s: the host's shared memory cannot hold the window (%zu bytes: %s): "
                     "its ranks reach each other by messages",
                     fn, total, strerror(err ? err : any));
            return WIN_NO_SEGMENT;
        }
        return face_error(w->comm, fn, MPI_ERR_NO_MEM,
                          "a rank of this host could not %s the window's shared memory (%d bytes): "
                          "%s",
                          err ? "map" : "share", (int)total, strerror(err ? err : any));
    }
    w->seg = seg;
    w->seg_bytes = total;
    char *data = (char *)seg + ctrl_bytes;
    struct rma_dyn_table *dyn =
        dyn_bytes ? (struct rma_dyn_table *)((struct rma_ctrl *)seg + nlocal) : NULL;
    struct rma_mail *mail =
        mail_bytes ? (struct rma_mail *)((char *)seg + nlocal * sizeof(struct rma_ctrl) + dyn_bytes)
                   : NULL;
    int k = 0;
    for (int i = 0; i < w->size; i++) {
        if (cards[i].host != host)
            continue;
        struct win_peer *p = &w->peers[i];
        p->dyn = dyn ? dyn + k : NULL;
        p->mail = mail ? mail + k : NULL;
        p->ctrl = (struct rma_ctrl *)seg + k++;
        p->direct = with_data || i == me;
        if (with_data) {
            p->base = data;
            data += contig ? (size_t)cards[i].size : ((size_t)cards[i].size + 63) & ~(size_t)63;
        }
    }
    return MPI_SUCCESS;
}

static int win_make(MPI_Comm comm, int flavor, MPI_Aint size, int disp_unit, MPI_Info info,
                    void *base, void *baseptr, MPI_Win *out, const char *fn)
{
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, fn, &c);
    if (rc || (rc = face_check_intra(comm, c, fn)))
        return rc;
    if (!out)
        return face_error(comm, fn, MPI_ERR_ARG, "the window pointer is NULL");
    *out = MPI_WIN_NULL;
    if (size < 0)
        return face_error(comm, fn, MPI_ERR_SIZE, "size %ld is negative", (long)size);
    if (disp_unit <= 0)
        return face_error(comm, fn, MPI_ERR_DISP, "disp_unit %d must be positive", disp_unit);
    if (info != MPI_INFO_NULL && !face_info_live(info))
        return face_error(comm, fn, MPI_ERR_INFO, "info handle %d is not a live info", info);
    if ((flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) && !baseptr)
        return face_error(comm, fn, MPI_ERR_ARG, "baseptr is NULL");
    if (flavor == MPI_WIN_FLAVOR_CREATE && size > 0 && !base)
        return face_error(comm, fn, MPI_ERR_ARG, "base is NULL for a window of %ld bytes",
                          (long)size);

    struct face_win *w = calloc(1, sizeof *w);
    struct win_card *cards = NULL;
    if (!w)
        return face_error(comm, fn, MPI_ERR_NO_MEM, "no memory for a window");
    w->comm = MPI_COMM_NULL;
    w->info = MPI_INFO_NULL;
    w->errh = MPI_ERRORS_ARE_FATAL;
    face_errh_hold(w->errh);
    w->flavor = flavor;
    w->model = MPI_WIN_UNIFIED;
    w->disp_unit = disp_unit;
    w->size_bytes = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : size;
    w->shared_noncontig = info_says(info, "alloc_shared_noncontig", "true");
    /* Only where ranks spin in their waits (no more ranks than cores): a
     * target asleep in poll() does not see its box. */
    w->mail_wait = bolt_rt.spin_count > 0 ? bolt_param_double(BOLT_P_RMA_MAIL_WAIT) * 1e-6 : 0;
    bolt_comm_t nat = BOLT_COMM_NULL;
    if ((rc = bolt_comm_dup(c->native, &nat)) != BOLT_OK) {
        rc = face_native_error(comm, fn, rc);
        goto fail;
    }
    if ((rc = face_comm_add(nat, &w->comm))) {
        bolt_comm_free(&nat);
        rc = face_error(comm, fn, rc, "no memory for the window's communicator");
        goto fail;
    }
    w->native = nat;
    w->rank = c->rank;
    w->size = c->size;
    snprintf(face_comm_get(w->comm)->name, MPI_MAX_OBJECT_NAME, "window of %.100s", c->name);
    w->peers = calloc((size_t)w->size, sizeof *w->peers);
    cards = calloc((size_t)w->size, sizeof *cards);
    w->fence_counts = calloc((size_t)w->size * 2, sizeof *w->fence_counts);
    w->wait_counts = calloc((size_t)w->size, sizeof *w->wait_counts);
    if (!w->peers || !cards || !w->fence_counts || !w->wait_counts) {
        rc = face_error(comm, fn, MPI_ERR_NO_MEM, "no memory for a window of %d ranks", w->size);
        goto fail;
    }
    if (info != MPI_INFO_NULL && (rc = PMPI_Info_dup(info, &w->info)))
        goto fail;

    struct win_card mine = {size,     (int64_t)(intptr_t)base, (int64_t)getpid(),
                            (int64_t)(intptr_t)&cma_probe, disp_unit, face_host_color(),
                            ++seg_seq, 0};
    if (flavor == MPI_WIN_FLAVOR_DYNAMIC)
        mine.size = 0;
    if ((rc = bolt_allgather(&mine, cards, sizeof mine, BOLT_BYTE, w->native)) != BOLT_OK) {
        rc = face_native_error(comm, fn, rc);
        goto fail;
    }
    if (flavor == MPI_WIN_FLAVOR_SHARED)
        for (int i = 0; i < w->size; i++)
            if (cards[i].host != mine.host) {
                rc = face_error(comm, fn, MPI_ERR_RMA_SHARED,
                                "rank %d of the communicator is on another host: "
                                "MPI_Win_allocate_shared needs every rank on one host "
                                "(split with MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) first)",
                                i);
                goto fail;
            }
    for (int i = 0; i < w->size; i++) {
        w->peers[i].size = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : (MPI_Aint)cards[i].size;
        w->peers[i].disp_unit = cards[i].disp_unit;
        w->peers[i].host = cards[i].host;
        w->peers[i].base = (char *)(intptr_t)cards[i].base;
    }
    int private_mem = flavor == MPI_WIN_FLAVOR_ALLOCATE && !bolt_param_int(BOLT_P_RMA_SHARED);
    int shared = !private_mem &&
                 (flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED);
    if (shared && (rc = win_map_host(w, cards, 1, fn)) == WIN_NO_SEGMENT)
        private_mem = 1, shared = 0;
    else if (shared && rc)
        goto fail;
    if (private_mem) {
        /* Private memory, every other rank reached by messages. */
        w->base = size ? malloc((size_t)size) : NULL;
        if (size && !w->base) {
            rc = face_error(comm, fn, MPI_ERR_NO_MEM, "no memory for a window of %ld bytes",
                            (long)size);
            goto fail;
        }
        int64_t b = (int64_t)(intptr_t)w->base, *all = (int64_t *)cards;
        if ((rc = bolt_allgather(&b, all, sizeof b, BOLT_BYTE, w->native)) != BOLT_OK) {
            rc = face_native_error(comm, fn, rc);
            goto fail;
        }
        for (int i = 0; i < w->size; i++)
            w->peers[i].base = (char *)(intptr_t)all[i];
        w->ctrl = &w->own_ctrl;
        w->peers[w->rank].ctrl = w->ctrl;
        w->peers[w->rank].direct = 1;
    } else if (shared) {
        w->base = w->peers[w->rank].base;
        /* Remote ranks need every base address (the others' are mapped here). */
        int64_t b = (int64_t)(intptr_t)w->base, *all = (int64_t *)cards;
        if ((rc = bolt_allgather(&b, all, sizeof b, BOLT_BYTE, w->native)) != BOLT_OK) {
            rc = face_native_error(comm, fn, rc);
            goto fail;
        }
        for (int i = 0; i < w->size; i++)
            if (!w->peers[i].direct)
                w->peers[i].base = (char *)(intptr_t)all[i];
        w->ctrl = w->peers[w->rank].ctrl;
        if (size == 0)
            w->base = NULL;
    } else if ((flavor == MPI_WIN_FLAVOR_CREATE || flavor == MPI_WIN_FLAVOR_DYNAMIC) &&
               rma_cma_built() && bolt_param_int(BOLT_P_RMA_SHARED)) {
        /* Control blocks (and attachments) shared on each host; the data
         * reached through the kernel where it lets every rank read its
         * siblings. */
        if ((rc = win_map_host(w, cards, 0, fn)))
            goto fail;
        w->base = flavor == MPI_WIN_FLAVOR_DYNAMIC ? NULL : base;
        w->ctrl = w->peers[w->rank].ctrl;
        w->peers[w->rank].base = w->base;
        int ok = 1, all = 0;
        for (int i = 0; i < w->size && ok; i++)
            if (i != w->rank && cards[i].host == mine.host) {
                uint64_t v = 0;
                struct rma_block b = {0, sizeof v};
                struct rma_layout l = {1, sizeof v, 1, &b};
                ok = rma_cma_move((long)cards[i].pid, &l, (uint64_t)cards[i].probe, (char *)&v,
                                  0) == 0 &&
                     v == cma_probe;
            }
        if ((rc = bolt_allreduce(&ok, &all, 1, BOLT_INT32, BOLT_MIN, w->native)) != BOLT_OK) {
            rc = face_native_error(comm, fn, rc);
            goto fail;
        }
        for (int i = 0; i < w->size; i++) {
            w->peers[i].pid = (long)cards[i].pid;
            w->peers[i].cma = all && i != w->rank && cards[i].host == mine.host;
            if (!all || w->mail_wait <= 0)
                w->peers[i].mail = NULL;
        }
        if (all && w->peers[w->rank].mail && (rc = rma_mail_start(w))) {
            rc = face_error(comm, fn, rc, "cannot serve the window's box: %s",
                            bolt_error_message());
            goto fail;
        }
    } else {
        w->base = flavor == MPI_WIN_FLAVOR_DYNAMIC ? NULL : base;
        w->ctrl = &w->own_ctrl;
        w->peers[w->rank].ctrl = w->ctrl;
        w->peers[w->rank].direct = 1;
        w->peers[w->rank].base = w->base;
    }
    for (int i = 0; i < w->size; i++)
        w->remote_peers += !w->peers[i].direct && !w->peers[i].cma;
    if (w->remote_peers) {
        if ((rc = rma_agent_hold())) {
            w->remote_peers = 0;
            rc = face_error(comm, fn, MPI_ERR_OTHER, "cannot start the one-sided progress thread");
            goto fail;
        }
        if ((rc = rma_target_start(w))) {
            rc = face_error(comm, fn, rc, "cannot serve the window's messages: %s",
                            bolt_error_message());
            goto fail;
        }
    }
    if (win_insert(w) < 0) {
        rc = face_error(comm, fn, MPI_ERR_NO_MEM, "no memory for a window handle");
        goto fail;
    }
    w->live = 1;
    free(cards);
    if (baseptr)
        *(void **)baseptr = w->base;
    *out = w->handle;
    /* Nobody's operations may reach a rank not yet serving them: this is
     * the barrier that says so. */
    rc = bolt_allreduce(&w->remote_peers, &w->any_remote, 1, BOLT_INT32, BOLT_MAX, w->native);
    rma_agent_settle();
    return rc == BOLT_OK ? MPI_SUCCESS : face_native_error(comm, fn, rc);
fail:
    free(cards);
    win_destroy(w);
    rma_agent_settle();
    return rc;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    return win_make(comm, MPI_WIN_FLAVOR_CREATE, size, disp_unit, info, base, NULL, win,
                    "MPI_Win_create");
}

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    return win_make(comm, MPI_WIN_FLAVOR_ALLOCATE, size, disp_unit, info, NULL, baseptr, win,
                    "MPI_Win_allocate");
}

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    return win_make(comm, MPI_WIN_FLAVOR_SHARED, size, disp_unit, info, NULL, baseptr, win,
                    "MPI_Win_allocate_shared");
}

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return win_make(comm, MPI_WIN_FLAVOR_DYNAMIC, 0, 1, info, NULL, NULL, win,
                    "MPI_Win_create_dynamic");
}

int PMPI_Win_free(MPI_Win *win)
{
    const char *fn = "MPI_Win_free";
    struct face_win *w = NULL;
    if (!win)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "the window pointer is NULL");
    int rc = face_win_check(*win, fn, &w);
    if (rc)
        return rc;
    if (w->epoch & (EPOCH_LOCK | EPOCH_LOCK_ALL | EPOCH_ACCESS | EPOCH_EXPOSE))
        return face_win_error(w, fn, MPI_ERR_RMA_SYNC,
                              "an access or exposure epoch is still open (unlock, complete or "
                              "wait first)");
    if ((rc = face_attrs_delete(w->handle, &w->attrs, 0)))
        return face_win_error(w, fn, rc, "an attribute delete callback failed (it returned %d)",
                              rc);
    /* Every rank's operations on this one are complete once all arrive. */
    if ((rc = rma_pending_wait(w, -1, fn)))
        return rc;
    int nrc = bolt_barrier(w->native);
    win_destroy(w);
    *win = MPI_WIN_NULL;
    return nrc == BOLT_OK ? MPI_SUCCESS : face_native_error(MPI_COMM_NULL, fn, nrc);
}

void face_wins_finalize(void)
{
    for (int i = 1; i < face_nwins; i++)
        if (face_wins[i]) {
            face_attrs_delete(i, &face_wins[i]->attrs, 1);
            win_destroy(face_wins[i]);
        }
    free(face_wins);
    face_wins = NULL;
    face_nwins = 1;
    cap_wins = 0;
}

/* ---- dynamic windows ------------------------------------------------------------------ */
/* Checks that win is a live dynamic window. */
static int dynamic_check(MPI_Win win, const char *fn, struct face_win **w)
{
    int rc = face_win_check(win, fn, w);
    if (rc == MPI_SUCCESS && (*w)->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        rc = face_win_error(*w, fn, MPI_ERR_RMA_FLAVOR,
                            "the window was not made by MPI_Win_create_dynamic");
    return rc;
}

/* Adds (add 1) or removes memory in this rank's table for its siblings,
 * when it has one. */
static void dyn_table_edit(struct rma_dyn_table *t, const void *base, MPI_Aint size, int add)
{
    if (!t)
        return;
    unsigned g = atomic_load_explicit(&t->gen, memory_order_relaxed);
    atomic_store_explicit(&t->gen, g + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    uint64_t b = (uint64_t)(uintptr_t)base;
    if (add) {
        if (t->n < RMA_DYN_REGIONS)
            t->r[t->n].base = b, t->r[t->n].size = (uint64_t)size, t->n++;
        else
            t->beyond++;
    } else {
        int i = 0;
        while (i < t->n && t->r[i].base != b)
            i++;
        if (i < t->n)
            t->r[i] = t->r[--t->n];
        else if (t->beyond > 0)
            t->beyond--;
    }
    atomic_store_explicit(&t->gen, g + 2, memory_order_release);
}

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    const char *fn = "MPI_Win_attach";
    struct face_win *w = NULL;
    int rc = dynamic_check(win, fn, &w);
    if (rc)
        return rc;
    if (size < 0 || (size > 0 && !base))
        return face_win_error(w, fn, MPI_ERR_ARG, "bad memory to attach: %p, %ld bytes", base,
                              (long)size);
    for (struct win_region *r = w->regions; r; r = r->next)
        if ((char *)base < r->base + r->size && r->base < (char *)base + size)
            return face_win_error(w, fn, MPI_ERR_RMA_ATTACH,
                                  "%p (%ld bytes) overlaps memory attached already", base,
                                  (long)size);
    struct win_region *r = malloc(sizeof *r);
    if (!r)
        return face_win_error(w, fn, MPI_ERR_NO_MEM, "no memory");
    *r = (struct win_region){base, size, w->regions};
    w->regions = r;
    dyn_table_edit(w->peers[w->rank].dyn, base, size, 1);
    return MPI_SUCCESS;
}

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    const char *fn = "MPI_Win_detach";
    struct face_win *w = NULL;
    int rc = dynamic_check(win, fn, &w);
    if (rc)
        return rc;
    for (struct win_region **p = &w->regions; *p; p = &(*p)->next)
        if ((*p)->base == base) {
            struct win_region *r = *p;
            *p = r->next;
            dyn_table_edit(w->peers[w->rank].dyn, r->base, r->size, 0);
            free(r);
            return MPI_SUCCESS;
        }
    return face_win_error(w, fn, MPI_ERR_RMA_ATTACH, "%p is not attached to the window", base);
}

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    const char *fn = "MPI_Win_shared_query";
    struct face_win *w = NULL;
    int rc = face_win_check(win, fn, &w);
    if (rc)
        return rc;
    if (!size || !disp_unit || !baseptr)
        return face_win_error(w, fn, MPI_ERR_ARG, "a result pointer is NULL");
    if (w->flavor != MPI_WIN_FLAVOR_SHARED && w->flavor != MPI_WIN_FLAVOR_ALLOCATE)
        return face_win_error(w, fn, MPI_ERR_RMA_FLAVOR,
                              "the window's memory is not shared (made by MPI_Win_allocate_shared "
                              "or MPI_Win_allocate)");
    if (rank == MPI_PROC_NULL) {
        for (rank = 0; rank < w->size - 1 && w->peers[rank].size == 0; rank++)
            ;
    }
    if (rank < 0 || rank >= w->size)
        return face_win_error(w, fn, MPI_ERR_RANK, "rank %d is not in the window (0..%d)", rank,
                              w->size - 1);
    struct win_peer *p = &w->peers[rank];
    if (!p->direct) {
        /* MPI 4: memory not shared with this process reads as none. */
        *size = 0;
        *disp_unit = p->disp_unit;
        *(void **)baseptr = NULL;
        return MPI_SUCCESS;
    }
    *size = p->size;
    *disp_unit = p->disp_unit;
    *(void **)baseptr = p->size ? p->base : NULL;
    return MPI_SUCCESS;
}
