/* rma_ops.c — the origin side of Put, Get, Accumulate, Get_accumulate,
 * Fetch_and_op, Compare_and_swap and their request-based variants.
 *
 * A target this rank reaches directly (itself, or a rank of its host in a
 * window with a shared segment) is read and written here at once. Any other
 * gets one message: header, the target's layout and the data, or, when that
 * is more than a header receive holds, a header and then the rest as a
 * second message. What comes back (a get's data, a fetch's old values) is
 * received straight into the program's buffer when it is contiguous. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/rma.h"
#include "runtime/memcopy.h"
#include "runtime/progress.h"
#include "runtime/request.h"

uint32_t rma_reply_tag(struct face_win *w)
{
    return RMA_TAG_REPLY + (w->seq++ % RMA_REPLY_SPAN);
}

static int pending_add(struct face_win *w, bolt_request_t req, int target, void *tmp, void *user,
                       int count, MPI_Datatype type)
{
    struct rma_pending *p = malloc(sizeof *p);
    if (!p)
        return -1;
    *p = (struct rma_pending){req, target, tmp, user, count, type, w->pending};
    if (user)
        face_type_hold(type);
    w->pending = p;
    return 0;
}

static int pending_finish(struct rma_pending *p)
{
    int rc = bolt_wait(&p->req, NULL);
    if (rc == BOLT_OK && p->user)
        face_unpack(face_type_held(p->type), p->tmp, (size_t)p->count, p->user);
    if (p->user)
        face_type_unhold(p->type);
    free(p->tmp);
    free(p);
    return rc;
}

struct pend_arg {
    struct face_win *w;
    int target;
};

static int pend_done(void *arg)
{
    struct pend_arg *a = arg;
    for (struct rma_pending *p = a->w->pending; p; p = p->next)
        if ((a->target < 0 || p->target == a->target) && p->req && !p->req->done)
            return 0;
    return 1;
}

/* A move through the kernel that failed (e: an errno value) at target. */
static int cma_error(struct face_win *w, const char *fn, int e, int target)
{
    if (e == ENOMEM)
        return face_win_error(w, fn, MPI_ERR_NO_MEM, "no memory");
    return face_win_error(w, fn, MPI_ERR_OTHER, "cannot reach rank %d's window memory: %s",
                          target, strerror(e));
}

int rma_pending_wait(struct face_win *w, int target, const char *fn)
{
    int failed = -1, e = w->cmaq.n ? rma_cma_drain(w, &failed) : 0;
    if (e)
        return cma_error(w, fn, e, failed);
    if (!w->pending)
        return MPI_SUCCESS;
    struct pend_arg a = {w, target};
    bolt_progress_until(pend_done, &a, 0);
    int first = BOLT_OK;
    for (struct rma_pending **pp = &w->pending; *pp;) {
        struct rma_pending *p = *pp;
        if (target >= 0 && p->target != target) {
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        int rc = pending_finish(p);
        if (rc && first == BOLT_OK)
            first = rc;
    }
    return first == BOLT_OK ? MPI_SUCCESS : face_win_native_error(w, fn, first);
}

/* Sends one message (msg: header, layout and data, msg_bytes in all) to
 * target's header receive; msg is freed once the send completes. */
static int send_whole(struct face_win *w, int target, char *msg, size_t msg_bytes)
{
    bolt_request_t r = BOLT_REQUEST_NULL;
    int rc = bolt_isend(msg, msg_bytes, target, RMA_TAG_HDR, w->native, &r);
    if (rc != BOLT_OK) {
        free(msg);
        return rc;
    }
    if (pending_add(w, r, target, msg, NULL, 0, 0)) {
        bolt_wait(&r, NULL);
        free(msg);
    }
    return BOLT_OK;
}

/* ---- one operation ------------------------------------------------------------------- */
struct rma_args {
    int kind;
    const void *oaddr;
    int ocount;
    MPI_Datatype otype;
    void *raddr; /* Get: oaddr's twin; GACC/CAS: result */
    int rcount;
    MPI_Datatype rtype;
    const void *caddr; /* CAS: compare */
    int target;
    MPI_Aint tdisp;
    int tcount;
    MPI_Datatype ttype;
    MPI_Op op;
    int request; /* R-variant: completes before returning */
};

static int type_ok(struct face_win *w, MPI_Datatype dt, int count, const char *what,
                   struct face_type **out, const char *fn)
{
    *out = face_type_get(dt);
    if (!*out)
        return face_win_error(w, fn, MPI_ERR_TYPE, "the %s datatype (%d) is not a live datatype",
                              what, dt);
    if (!(*out)->committed)
        return face_win_error(w, fn, MPI_ERR_TYPE, "the %s datatype is not committed", what);
    if (count < 0)
        return face_win_error(w, fn, MPI_ERR_COUNT, "the %s count %d is negative", what, count);
    return MPI_SUCCESS;
}

static int in_epoch(const struct face_win *w, int target)
{
    if (w->epoch & (EPOCH_FENCE | EPOCH_LOCK_ALL) || w->peers[target].lock)
        return 1;
    if (w->epoch & EPOCH_ACCESS)
        for (int i = 0; i < w->naccess; i++)
            if (w->access[i] == target)
                return 1;
    return 0;
}

/* The origin's data packed (a copy when the type has holes); *tmp to free. */
static const char *packed(const struct face_type *t, const void *buf, int count, char **tmp)
{
    *tmp = NULL;
    if (t->contig || count == 0)
        return (const char *)buf + (count ? t->true_lb : 0);
    size_t n = t->size * (size_t)count;
    if (!(*tmp = malloc(n ? n : 1)))
        return NULL;
    face_pack(t, buf, (size_t)count, *tmp);
    return *tmp;
}

static int op_direct(struct face_win *w, const struct rma_args *a, const struct face_type *ot,
                     const struct face_type *rt, const struct rma_layout *l, char *at,
                     MPI_Datatype basic, const char *fn)
{
    char *tmp = NULL;
    int rc = MPI_SUCCESS;
    struct rma_ctrl *ctrl = w->peers[a->target].ctrl;
    size_t bytes = (size_t)rma_layout_bytes(l);
    switch (a->kind) {
    case RMA_PUT: {
        const char *src = packed(ot, a->oaddr, a->ocount, &tmp);
        if (!src)
            return face_win_error(w, fn, MPI_ERR_NO_MEM, "no memory");
        rma_layout_unpack(l, src, at);
        break;
    }
    case RMA_GET:
        if (ot->contig) {
            rma_layout_pack(l, at, (char *)a->raddr + (a->ocount ? ot->true_lb : 0));
        } else if ((tmp = malloc(bytes ? bytes : 1))) {
            rma_layout_pack(l, at, tmp);
            face_unpack(ot, tmp, (size_t)a->ocount, a->raddr);
        } else {
            return face_win_error(w, fn, MPI_ERR_NO_MEM, "no memory");
        }
        break;
    case RMA_ACC:
    case RMA_GACC: {
        const char *src = a->op == MPI_NO_OP ? NULL : packed(ot, a->oaddr, a->ocount, &tmp);
        char *old = NULL, *oldtmp = NULL;
        /* The old values straight into a contiguous result buffer. */
        if (a->kind == RMA_GACC)
            old = rt->contig ? (char *)a->raddr + (a->rcount ? rt->true_lb : 0)
                             : (oldtmp = malloc(bytes ? bytes : 1));
        if ((a->op != MPI_NO_OP && !src && bytes) || (a->kind == RMA_GACC && !old)) {
            free(tmp);
            return face_win_error(w, fn, MPI_ERR_NO_MEM, "no memory");
        }
        rma_acc_lock(ctrl);
        rc = rma_layout_acc(l, at, src, basic, a->op, old);
        rma_acc_unlock(ctrl);
        if (oldtmp && rc == MPI_SUCCESS)
            face_unpack(rt, oldtmp, (size_t)a->rcount, a->raddr);
        free(oldtmp);
        break;
    }
    case RMA_CAS:
        rma_acc_lock(ctrl);
        rma_cas(at, a->oaddr, a->caddr, a->raddr, bytes);
        rma_acc_unlock(ctrl);
        break;
    default:
        break;
    }
    free(tmp);
    if (rc)
        return face_win_error(w, fn, rc, "op %d does not apply to datatype %d", a->op, basic);
    return MPI_SUCCESS;
}

/* Whether a sibling attached [lo, hi) to its dynamic window, by its table
 * in the host's segment (read as a sequence lock). An address outside the
 * table counts as attached while some attachments did not fit in it: the
 * kernel still refuses what the target has not mapped. */
static int dyn_attached(struct rma_dyn_table *t, uint64_t lo, uint64_t hi)
{
    if (!t)
        return 1;
    /* An edit is a few stores; a table left mid-edit (its rank killed
     * there, the job about to end) must not hold an origin forever: after
     * this many tries the kernel alone decides. */
    for (long tries = 0; tries < (1L << 24); tries++) {
        unsigned g = atomic_load_explicit(&t->gen, memory_order_acquire);
        if (g & 1)
            continue;
        int found = 0, n = t->n < RMA_DYN_REGIONS ? t->n : RMA_DYN_REGIONS;
        for (int i = 0; i < n && !found; i++)
            found = rma_within(lo, hi, t->r[i].base, t->r[i].size);
        found |= t->beyond > 0;
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&t->gen, memory_order_relaxed) == g)
            return found;
    }
    return 1;
}

/* Hands an accumulate, compare-and-swap or fetch to the target's box
 * (contiguous there at at), in chunks of whole elements (the standard's
 * atomicity is per element): returns the bytes the target applied, all of
 * them unless it did not pick a chunk up in time (or *rc says what was
 * wrong). old, when set, receives what was there. */
static size_t acc_by_box(struct face_win *w, const struct rma_args *a, uint64_t at, size_t bytes,
                         MPI_Datatype basic, const char *src, char *old, int *rc)
{
    const struct face_type *bt = face_type_get(basic);
    size_t esize = bt ? bt->size : 0, done = 0;
    /* Past 32 KiB the kernel's two copies beat a round trip per 8 KiB
     * (get-accumulate of 64 KiB: 16.6 us by box, 12.3 us by the kernel). */
    if (!esize || esize > RMA_MAIL_ATOMIC_MAX || bytes > 4 * (size_t)RMA_MAIL_ATOMIC_MAX ||
        (a->kind == RMA_CAS && 2 * bytes > RMA_MAIL_DATA))
        return 0;
    size_t chunk = a->kind == RMA_CAS ? bytes : RMA_MAIL_ATOMIC_MAX / esize * esize;
    while (done < bytes && *rc == MPI_SUCCESS) {
        size_t len = bytes - done < chunk ? bytes - done : chunk;
        if (!rma_mail_atomic(w, a->target, a->kind, at + done, len, a->op, basic,
                             src ? src + done : NULL, a->caddr, old ? old + done : NULL, rc))
            break;
        done += len;
    }
    return done;
}

/* A Put's or Get's bytes not queued: one block shared with the target
 * when it polls (rma_mail_share), else the layout through the kernel. */
static int move_large(struct face_win *w, int target, const struct rma_layout *l, uint64_t at,
                      char *packed, int write)
{
    if (l->count * l->nblocks == 1) {
        struct shm_cma_piece one = {packed, at + (uint64_t)l->blocks[0].off, (size_t)l->blocks[0].len};
        return rma_mail_share(w, target, &one, 1, write);
    }
    return rma_cma_move(w->peers[target].pid, l, at, packed, write);
}

/* A sibling's memory through the kernel (MPI_Win_create and
 * MPI_Win_create_dynamic on one host). */
static int op_cma(struct face_win *w, const struct rma_args *a, const struct face_type *ot,
                  const struct face_type *rt, const struct rma_layout *l, int64_t disp,
                  MPI_Datatype basic, const char *fn)
{
    struct win_peer *p = &w->peers[a->target];
    uint64_t at = (uint64_t)(intptr_t)p->base + (uint64_t)disp;
    size_t bytes = (size_t)rma_layout_bytes(l);
    char *tmp = NULL, *old = NULL, small[256];
    int e = 0, rc = MPI_SUCCESS;
    int failed = a->target;
    /* A contiguous Put or Get from or into the program's own buffer waits
     * in the queue; anything else goes now, after what waits there (it may
     * read what a queued Put writes, in the order the program gave). */
    if ((a->kind == RMA_PUT || a->kind == RMA_GET) && !a->request && ot->contig &&
        l->count * l->nblocks == 1) {
        char *mine = (char *)(a->kind == RMA_PUT ? (void *)a->oaddr : a->raddr) +
                     (a->ocount ? ot->true_lb : 0);
        e = rma_cma_queue(w, a->target, mine, at + (uint64_t)l->blocks[0].off, bytes,
                          a->kind == RMA_PUT, &failed);
        goto out;
    }
    if (w->cmaq.n && (e = rma_cma_drain(w, &failed)))
        goto out;
    switch (a->kind) {
    case RMA_PUT: {
        const char *src = packed(ot, a->oaddr, a->ocount, &tmp);
        if (!src && bytes)
            return face_win_error(w, fn, MPI_ERR_NO_MEM, "no memory");
        e = move_large(w, a->target, l, at, (char *)src, 1);
        break;
    }
    case RMA_GET:
        if (ot->contig) {
            e = move_large(w, a->target, l, at, (char *)a->raddr + (a->ocount ? ot->true_lb : 0), 0);
        } else if ((tmp = malloc(bytes ? bytes : 1))) {
            if (!(e = move_large(w, a->target, l, at, tmp, 0)))
                face_unpack(ot, tmp, (size_t)a->ocount, a->raddr);
        } else {
            return face_win_error(w, fn, MPI_ERR_NO_MEM, "no memory");
        }
        break;
    case RMA_ACC:
    case RMA_GACC:
    case RMA_CAS: {
        const char *src = a->op == MPI_NO_OP || a->kind == RMA_CAS
                              ? a->oaddr
                              : packed(ot, a->oaddr, a->ocount, &tmp);
        if (!src && bytes && a->op != MPI_NO_OP) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        /* The old values straight into a contiguous result buffer: no
         * buffer of the operation's size per call (malloc's fresh pages
         * past 128 KiB cost more than the operation, page by page). */
        int old_there = a->kind == RMA_GACC && rt->contig;
        if (old_there)
            old = (char *)a->raddr + (a->rcount ? rt->true_lb : 0);
        else if (a->kind != RMA_ACC && !(old = bytes <= sizeof small ? small : malloc(bytes))) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        /* the target applies it, if it polls (rma_mail.c); else, or what
         * it did not pick up, through the kernel under its accumulate lock */
        size_t done = p->mail && l->count * l->nblocks == 1
                          ? acc_by_box(w, a, at + (uint64_t)l->blocks[0].off, bytes, basic,
                                       a->op == MPI_NO_OP ? NULL : src, old, &rc)
                          : 0;
        if (rc == MPI_SUCCESS && done < bytes) {
            struct rma_block rest = {done ? l->blocks[0].off + (int64_t)done : 0, (int64_t)(bytes - done)};
            struct rma_layout lr = {1, rest.len, 1, &rest};
            const struct rma_layout *lk = done ? &lr : l;
            struct rma_block whole_k = {0, (int64_t)(bytes - done)};
            struct rma_layout flat_k = {1, whole_k.len, 1, &whole_k};
            char *scratch = rma_scratch(w, bytes - done);
            if (!scratch) {
                rc = MPI_ERR_NO_MEM;
                break;
            }
            rma_kernel_moves++;
            rma_acc_lock(p->ctrl);
            if (!(e = rma_cma_move(p->pid, lk, at, scratch, 0))) {
                int store = 1;
                if (a->kind == RMA_CAS) {
                    store = rma_cas(scratch, a->oaddr, a->caddr, old, bytes);
                } else {
                    rc = rma_layout_acc(&flat_k, scratch, src && a->op != MPI_NO_OP ? src + done : src,
                                        basic, a->op, old ? old + done : NULL);
                    store = rc == MPI_SUCCESS && a->op != MPI_NO_OP;
                }
                if (store)
                    e = rma_cma_move(p->pid, lk, at, scratch, 1);
            }
            rma_acc_unlock(p->ctrl);
        }
        if (!e && rc == MPI_SUCCESS && old && !old_there) {
            if (a->kind == RMA_CAS)
                memcpy(a->raddr, old, bytes);
            else
                face_unpack(rt, old, (size_t)a->rcount, a->raddr);
        }
        if (old_there)
            old = NULL;
        break;
    }
    default:
        break;
    }
out:
    free(tmp);
    if (old != small)
        free(old);
    if (e)
        return cma_error(w, fn, e, failed);
    if (rc)
        return face_win_error(w, fn, rc, "op %d does not apply to datatype %d", a->op, basic);
    return MPI_SUCCESS;
}

static int op_message(struct face_win *w, const struct rma_args *a, const struct face_type *ot,
                      const struct face_type *rt, const struct rma_layout *l, int64_t disp,
                      MPI_Datatype basic, const char *fn)
{
    struct rma_hdr h = {0};
    h.kind = (uint8_t)a->kind;
    h.op = (int16_t)a->op;
    h.basic = basic;
    h.disp = (uint64_t)disp;
    h.bytes = (uint64_t)rma_layout_bytes(l);
    h.count = l->count;
    h.extent = l->extent;
    h.nblocks = l->nblocks;
    size_t lb = (size_t)l->nblocks * sizeof(struct rma_block);
    int carries = a->kind != RMA_GET && !(a->kind == RMA_GACC && a->op == MPI_NO_OP);
    size_t dbytes = carries ? (a->kind == RMA_CAS ? 2 * h.bytes : h.bytes) : 0;
    if (!carries && a->kind == RMA_GACC)
        h.op = MPI_NO_OP;
    int rc;
    /* The reply first: it may come as soon as the header lands. */
    bolt_request_t rr = BOLT_REQUEST_NULL;
    if (a->kind == RMA_GET || a->kind == RMA_GACC || a->kind == RMA_CAS) {
        const struct face_type *t = a->kind == RMA_GET ? ot : rt;
        int cnt = a->kind == RMA_GET ? a->ocount : a->rcount;
        char *tmp = NULL, *into;
        if (t->contig || cnt == 0)
            into = (char *)a->raddr + (cnt ? t->true_lb : 0);
        else if (!(into = tmp = malloc(h.bytes ? h.bytes : 1)))
            return face_win_error(w, fn, MPI_ERR_NO_MEM, "no memory");
        h.reply_tag = rma_reply_tag(w);
        rc = bolt_irecv(into, h.bytes, a->target, (int)h.reply_tag, w->native, &rr);
        if (rc == BOLT_OK && pending_add(w, rr, a->target, tmp, tmp ? a->raddr : NULL, cnt,
                                         a->kind == RMA_GET ? a->otype : a->rtype)) {
            bolt_cancel(&rr);
            bolt_wait(&rr, NULL);
            rc = BOLT_ERR_NOMEM;
        }
        if (rc != BOLT_OK) {
            free(tmp);
            return face_win_native_error(w, fn, rc);
        }
    }
    char *otmp = NULL;
    const char *src = NULL;
    if (carries && a->kind != RMA_CAS &&
        !(src = packed(ot, a->oaddr, a->ocount, &otmp)) && h.bytes)
        return face_win_error(w, fn, MPI_ERR_NO_MEM, "no memory");
    char *msg = NULL;
    if (sizeof h + lb + dbytes <= RMA_HDR_BUF) {
        msg = malloc(sizeof h + lb + dbytes);
        if (msg) {
            memcpy(msg, &h, sizeof h);
            memcpy(msg + sizeof h, l->blocks, lb);
            if (a->kind == RMA_CAS) {
                memcpy(msg + sizeof h + lb, a->oaddr, h.bytes);
                memcpy(msg + sizeof h + lb + h.bytes, a->caddr, h.bytes);
            } else if (dbytes) {
                memcpy(msg + sizeof h + lb, src, dbytes);
            }
        }
        free(otmp);
        if (!msg)
            return face_win_error(w, fn, MPI_ERR_NO_MEM, "no memory");
        rc = send_whole(w, a->target, msg, sizeof h + lb + dbytes);
    } else if (sizeof h + lb <= RMA_HDR_BUF && a->kind != RMA_GET) {
        /* Header and layout, then the data (from the program's buffer when
         * contiguous: the send is waited for before the call returns). */
        char *hb = malloc(sizeof h + lb);
        if (!hb) {
            free(otmp);
            return face_win_error(w, fn, MPI_ERR_NO_MEM, "no memory");
        }
        h.rest_follows = 1;
        memcpy(hb, &h, sizeof h);
        memcpy(hb + sizeof h, l->blocks, lb);
        rc = bolt_send(hb, sizeof h + lb, a->target, RMA_TAG_HDR, w->native);
        free(hb);
        bolt_request_t r = BOLT_REQUEST_NULL;
        if (rc == BOLT_OK)
            rc = bolt_isend(src, dbytes, a->target, RMA_TAG_DATA, w->native, &r);
        if (rc == BOLT_OK && (otmp ? pending_add(w, r, a->target, otmp, NULL, 0, 0) : 1)) {
            /* the program's own buffer: local completion before returning */
            rc = bolt_wait(&r, NULL);
            free(otmp);
        }
    } else {
        /* A layout too long for a header: it travels with the data. */
        char *rest = malloc(lb + dbytes ? lb + dbytes : 1);
        if (!rest) {
            free(otmp);
            return face_win_error(w, fn, MPI_ERR_NO_MEM, "no memory");
        }
        memcpy(rest, l->blocks, lb);
        if (dbytes)
            memcpy(rest + lb, src, dbytes);
        free(otmp);
        h.rest_follows = 2;
        rc = bolt_send(&h, sizeof h, a->target, RMA_TAG_HDR, w->native);
        bolt_request_t r = BOLT_REQUEST_NULL;
        if (rc == BOLT_OK)
            rc = bolt_isend(rest, lb + dbytes, a->target, RMA_TAG_DATA, w->native, &r);
        if (rc != BOLT_OK || pending_add(w, r, a->target, rest, NULL, 0, 0)) {
            if (r)
                bolt_wait(&r, NULL);
            free(rest);
        }
    }
    if (rc != BOLT_OK)
        return face_win_native_error(w, fn, rc);
    w->peers[a->target].sent++;
    if (rr != BOLT_REQUEST_NULL)
        w->peers[a->target].replied = w->peers[a->target].sent;
    return MPI_SUCCESS;
}

/* The fast paths' target: a rank this one reaches with plain loads and
 * stores (not a dynamic window's), in an epoch of a live window; else NULL
 * (the call goes the general way, which reports what is wrong). */
static inline struct win_peer *fast_peer(MPI_Win win, const struct rma_args *a)
{
    struct face_win *w = face_win_get(win);
    if (!w || !face_initialized || face_finalized || a->target < 0 || a->target >= w->size ||
        w->flavor == MPI_WIN_FLAVOR_DYNAMIC || !w->peers[a->target].direct ||
        !in_epoch(w, a->target))
        return NULL;
    return &w->peers[a->target];
}

/* Put or Get of contiguous data to a target in reach of a plain copy, every
 * argument valid: a copy, and done (the small-message rate of a window
 * depends on it). Returns 0 when it is not such a call. */
static inline int copy_fast(MPI_Win win, const struct rma_args *a)
{
    struct win_peer *p = a->ocount < 0 || a->tcount < 0 ? NULL : fast_peer(win, a);
    struct face_type *ot = face_type_get(a->otype), *tt = face_type_get(a->ttype);
    if (!p || !ot || !tt || !ot->committed || !tt->committed || !ot->contig || !tt->contig)
        return 0;
    size_t n = tt->size * (size_t)a->tcount;
    int64_t off = (int64_t)a->tdisp * p->disp_unit + (a->tcount ? tt->true_lb : 0);
    if (ot->size * (size_t)a->ocount != n || off < 0 || off + (int64_t)n > (int64_t)p->size)
        return 0;
    if (n) {
        char *mine = (char *)(a->kind == RMA_PUT ? (void *)a->oaddr : a->raddr) + ot->true_lb;
        if (a->kind == RMA_PUT)
            bolt_mem_copy(p->base + off, mine, n);
        else
            bolt_mem_copy(mine, p->base + off, n);
    }
    return 1;
}

/* Accumulate, Get_accumulate and Fetch_and_op of up to RMA_ACC_FEW_MAX bytes of one
 * predefined type (the same type and count on every side), and
 * Compare_and_swap of one element, on a sibling reached directly, in an
 * epoch: the checks rma_op would make, on this one shape, then the
 * operation under the target's accumulate lock. 0 leaves the call to rma_op
 * (nothing done: an operation rma_acc_few has no kernel for, say). */
static inline int atomic_fast(MPI_Win win, const struct rma_args *a)
{
    const int gets = a->kind != RMA_ACC;
    if (a->ttype != a->otype || a->ocount != a->tcount || a->tcount < 1 ||
        (gets && (a->ttype != a->rtype || a->rcount != a->tcount)) ||
        (a->kind == RMA_CAS && a->tcount != 1))
        return 0;
    struct win_peer *p = fast_peer(win, a);
    struct face_type *t = face_type_get(a->ttype);
    if (!p || !t || !t->predefined || !t->contig || t->basic != a->ttype)
        return 0;
    const size_t n = t->size * (size_t)a->tcount;
    int64_t off = (int64_t)a->tdisp * p->disp_unit + t->true_lb;
    if (n > RMA_ACC_FEW_MAX || off < 0 || off + (int64_t)n > (int64_t)p->size)
        return 0;
    char *at = p->base + off, old[RMA_ACC_FEW_MAX];
    int done = 1;
    rma_acc_lock(p->ctrl);
    if (gets)
        memcpy(old, at, n);
    if (a->kind == RMA_CAS)
        rma_cas(at, a->oaddr, a->caddr, old, n);
    else if (a->op == MPI_REPLACE)
        memcpy(at, a->oaddr, n);
    else if (a->op != MPI_NO_OP)
        done = rma_acc_few(a->ttype, a->op, a->oaddr, at, n);
    rma_acc_unlock(p->ctrl);
    if (done && gets)
        memcpy(a->raddr, old, n);
    return done;
}

static int rma_op(MPI_Win win, const struct rma_args *a, MPI_Request *req, const char *fn)
{
    if (!req && (a->kind == RMA_PUT || a->kind == RMA_GET) && copy_fast(win, a))
        return MPI_SUCCESS;
    if (!req && (a->kind == RMA_ACC || a->kind == RMA_GACC || a->kind == RMA_CAS) &&
        atomic_fast(win, a))
        return MPI_SUCCESS;
    struct face_win *w = NULL;
    int rc = face_win_check(win, fn, &w);
    if (rc)
        return rc;
    if (req)
        *req = MPI_REQUEST_NULL;
    if (a->target == MPI_PROC_NULL)
        goto done;
    if (a->target < 0 || a->target >= w->size)
        return face_win_error(w, fn, MPI_ERR_RANK, "target rank %d is not in the window (0..%d)",
                              a->target, w->size - 1);
    if (a->request && !(w->epoch & EPOCH_LOCK_ALL) && !w->peers[a->target].lock)
        return face_win_error(w, fn, MPI_ERR_RMA_SYNC,
                              "request-based operations need a passive-target epoch "
                              "(MPI_Win_lock or MPI_Win_lock_all) on rank %d",
                              a->target);
    if (!in_epoch(w, a->target))
        return face_win_error(w, fn, MPI_ERR_RMA_SYNC,
                              "no access epoch is open on target rank %d (start one with "
                              "MPI_Win_fence, MPI_Win_start, MPI_Win_lock or MPI_Win_lock_all)",
                              a->target);
    struct face_type *ot = NULL, *tt = NULL, *rt = NULL;
    int uses_origin = !(a->kind == RMA_GACC && a->op == MPI_NO_OP);
    if ((uses_origin && (rc = type_ok(w, a->otype, a->ocount, "origin", &ot, fn))) ||
        (rc = type_ok(w, a->ttype, a->tcount, "target", &tt, fn)) ||
        ((a->kind == RMA_GACC || a->kind == RMA_CAS) &&
         (rc = type_ok(w, a->rtype, a->rcount, "result", &rt, fn))))
        return rc;
    size_t tbytes = tt->size * (size_t)a->tcount;
    if (uses_origin && ot->size * (size_t)a->ocount != tbytes)
        return face_win_error(w, fn, MPI_ERR_TYPE,
                              "the origin's data (%zu bytes) and the target's (%zu bytes) differ",
                              ot->size * (size_t)a->ocount, tbytes);
    if (rt && rt->size * (size_t)a->rcount != tbytes)
        return face_win_error(w, fn, MPI_ERR_TYPE,
                              "the result buffer's data (%zu bytes) and the target's (%zu bytes) "
                              "differ",
                              rt->size * (size_t)a->rcount, tbytes);
    MPI_Datatype basic = tt->basic;
    if (a->kind == RMA_ACC || a->kind == RMA_GACC || a->kind == RMA_CAS) {
        if (a->op != MPI_REPLACE && a->op != MPI_NO_OP && (a->op < MPI_MAX || a->op > MPI_MAXLOC))
            return face_win_error(w, fn, MPI_ERR_OP,
                                  "op %d is not a predefined operation, MPI_REPLACE or MPI_NO_OP "
                                  "(one-sided accumulates take no user operation)",
                                  a->op);
        if (tbytes && (basic == MPI_DATATYPE_NULL || (ot && ot->basic != basic) ||
                       (rt && rt->basic != basic)))
            return face_win_error(w, fn, MPI_ERR_TYPE,
                                  "accumulates need the origin's, result's and target's types "
                                  "made of one and the same predefined type");
    }
    struct win_peer *p = &w->peers[a->target];
    struct rma_layout l;
    struct rma_block one, *blocks = NULL;
    if ((rc = rma_layout_of(tt, a->tcount, &l, &one, &blocks)))
        return face_win_error(w, fn, rc, "no memory");
    int64_t lo, hi = rma_layout_span(&l, &lo);
    int64_t disp = (int64_t)a->tdisp * (w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : p->disp_unit);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC && hi > lo &&
        (disp + lo < 0 || disp + hi > (int64_t)p->size)) {
        free(blocks);
        return face_win_error(w, fn, MPI_ERR_RMA_RANGE,
                              "bytes %lld..%lld are outside rank %d's window of %ld bytes "
                              "(displacement %ld, disp_unit %d)",
                              (long long)(disp + lo), (long long)(disp + hi), a->target,
                              (long)p->size, (long)a->tdisp, p->disp_unit);
    }
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC && hi > lo) {
        /* Checked here for this rank and for siblings reached through the
         * kernel (by their tables); a target reached by messages checks. */
        uint64_t from = (uint64_t)disp + (uint64_t)lo, to = (uint64_t)disp + (uint64_t)hi;
        int mine = a->target == w->rank;
        if (mine ? !rma_region_of(w, from, to) : p->cma && !dyn_attached(p->dyn, from, to)) {
            free(blocks);
            return face_win_error(w, fn, MPI_ERR_RMA_RANGE,
                                  "%p..%p is not memory rank %d attached to the dynamic window "
                                  "(MPI_Win_attach it first)",
                                  (void *)(uintptr_t)from, (void *)(uintptr_t)to, a->target);
        }
    }
    if (p->direct && (w->flavor != MPI_WIN_FLAVOR_DYNAMIC || a->target == w->rank)) {
        char *at = w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? (char *)(intptr_t)disp : p->base + disp;
        rc = op_direct(w, a, ot, rt, &l, at, basic, fn);
    } else if (p->cma) {
        rc = op_cma(w, a, ot, rt, &l, disp, basic, fn);
    } else {
        rc = op_message(w, a, ot, rt, &l, disp, basic, fn);
        if (rc == MPI_SUCCESS && a->request)
            rc = rma_pending_wait(w, a->target, fn);
    }
    if (blocks)
        free(blocks);
    if (rc)
        return rc;
done:
    if (req) {
        struct face_req *q = NULL;
        if (face_req_new(&q, req))
            return face_win_error(w, fn, MPI_ERR_NO_MEM, "no memory for a request");
        q->kind = FACE_REQ_DONE;
        q->proc_null = 1;
        q->active = 1;
        q->comm = w->comm;
        face_status_empty(&q->done_status);
    }
    return MPI_SUCCESS;
}

/* ---- the calls ------------------------------------------------------------------------- */
int PMPI_Put(const void *oa, int oc, MPI_Datatype odt, int tr, MPI_Aint td, int tc,
             MPI_Datatype tdt, MPI_Win win)
{
    struct rma_args a = {RMA_PUT, oa, oc, odt, NULL, 0, 0, NULL, tr, td, tc, tdt, 0, 0};
    return rma_op(win, &a, NULL, "MPI_Put");
}

int PMPI_Get(void *oa, int oc, MPI_Datatype odt, int tr, MPI_Aint td, int tc, MPI_Datatype tdt,
             MPI_Win win)
{
    struct rma_args a = {RMA_GET, oa, oc, odt, oa, oc, odt, NULL, tr, td, tc, tdt, 0, 0};
    return rma_op(win, &a, NULL, "MPI_Get");
}

int PMPI_Accumulate(const void *oa, int oc, MPI_Datatype odt, int tr, MPI_Aint td, int tc,
                    MPI_Datatype tdt, MPI_Op op, MPI_Win win)
{
    struct rma_args a = {RMA_ACC, oa, oc, odt, NULL, 0, 0, NULL, tr, td, tc, tdt, op, 0};
    return rma_op(win, &a, NULL, "MPI_Accumulate");
}

int PMPI_Get_accumulate(const void *oa, int oc, MPI_Datatype odt, void *ra, int rc,
                        MPI_Datatype rdt, int tr, MPI_Aint td, int tc, MPI_Datatype tdt, MPI_Op op,
                        MPI_Win win)
{
    struct rma_args a = {RMA_GACC, oa, oc, odt, ra, rc, rdt, NULL, tr, td, tc, tdt, op, 0};
    return rma_op(win, &a, NULL, "MPI_Get_accumulate");
}

int PMPI_Fetch_and_op(const void *oa, void *ra, MPI_Datatype dt, int tr, MPI_Aint td, MPI_Op op,
                      MPI_Win win)
{
    struct rma_args a = {RMA_GACC, oa, 1, dt, ra, 1, dt, NULL, tr, td, 1, dt, op, 0};
    return rma_op(win, &a, NULL, "MPI_Fetch_and_op");
}

int PMPI_Compare_and_swap(const void *oa, const void *ca, void *ra, MPI_Datatype dt, int tr,
                          MPI_Aint td, MPI_Win win)
{
    struct rma_args a = {RMA_CAS, oa, 1, dt, ra, 1, dt, ca, tr, td, 1, dt, MPI_REPLACE, 0};
    return rma_op(win, &a, NULL, "MPI_Compare_and_swap");
}

int PMPI_Rput(const void *oa, int oc, MPI_Datatype odt, int tr, MPI_Aint td, int tc,
              MPI_Datatype tdt, MPI_Win win, MPI_Request *request)
{
    struct rma_args a = {RMA_PUT, oa, oc, odt, NULL, 0, 0, NULL, tr, td, tc, tdt, 0, 1};
    return rma_op(win, &a, request, "MPI_Rput");
}

int PMPI_Rget(void *oa, int oc, MPI_Datatype odt, int tr, MPI_Aint td, int tc, MPI_Datatype tdt,
              MPI_Win win, MPI_Request *request)
{
    struct rma_args a = {RMA_GET, oa, oc, odt, oa, oc, odt, NULL, tr, td, tc, tdt, 0, 1};
    return rma_op(win, &a, request, "MPI_Rget");
}

int PMPI_Raccumulate(const void *oa, int oc, MPI_Datatype odt, int tr, MPI_Aint td, int tc,
                     MPI_Datatype tdt, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    struct rma_args a = {RMA_ACC, oa, oc, odt, NULL, 0, 0, NULL, tr, td, tc, tdt, op, 1};
    return rma_op(win, &a, request, "MPI_Raccumulate");
}

int PMPI_Rget_accumulate(const void *oa, int oc, MPI_Datatype odt, void *ra, int rc,
                         MPI_Datatype rdt, int tr, MPI_Aint td, int tc, MPI_Datatype tdt,
                         MPI_Op op, MPI_Win win, MPI_Request *request)
{
    struct rma_args a = {RMA_GACC, oa, oc, odt, ra, rc, rdt, NULL, tr, td, tc, tdt, op, 1};
    return rma_op(win, &a, request, "MPI_Rget_accumulate");
}
