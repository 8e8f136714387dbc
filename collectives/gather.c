/*
 * gather.c — gather by binomial tree (equal blocks: log2(n) latencies, each
 * node forwarding its whole subtree at once), or linearly where ranks crowd
 * the cores (blocking: a forwarder may wait for a core), and gatherv linearly
 * (the root receives from every rank at once; block sizes differ, so a tree
 * would need them all at every node).
 */
#include <string.h>

#include "collectives/coll.h"
#include "runtime/memcopy.h"

/* The receives from child edge m up (into tmp, the subtree's blocks in
 * vrank order, this rank's own at its start), then the subtree to the
 * parent or, at the root, the blocks into rank order. */
static int gather_rest(struct coll_sched *s, int v, int sub, int mask, int m, char *tmp, char *out, size_t bytes,
                       int root)
{
    int n = coll_sched_comm(s)->size;
    for (; m < mask && v + m < n; m <<= 1) {
        int cs = v + 2 * m < n ? m : n - v - m;
        coll_sched_recv(s, tmp + (size_t)m * bytes, (size_t)cs * bytes, (v + m + root) % n);
    }
    coll_sched_round(s);
    if (v) {
        coll_sched_send(s, tmp, (size_t)sub * bytes, (v - mask + root) % n);
        coll_sched_round(s);
    } else if (tmp != out) {
        /* vrank i is rank (i + root) % n */
        coll_sched_copy(s, out + (size_t)root * bytes, tmp, (size_t)(n - root) * bytes);
        coll_sched_copy(s, out, tmp + (size_t)(n - root) * bytes, (size_t)root * bytes);
    }
    return coll_sched_error(s);
}

int coll_gather_binomial(struct coll_sched *s, const void *in, void *vout, size_t bytes, int root)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, v, mask, sub;
    char *out = vout, *tmp;
    coll_tree_place(c->rank, root, c->size, &v, &mask, &sub);
    if (sub == 1 && v) {
        coll_sched_send(s, in, bytes, (v - mask + root) % n);
        coll_sched_round(s);
        return coll_sched_error(s);
    }
    /* Subtree blocks in vrank order; at root 0 that is rank order already. */
    tmp = v == 0 && root == 0 ? out : coll_sched_tmp(s, (size_t)sub * bytes);
    if (!tmp)
        return coll_sched_error(s);
    coll_sched_copy(s, tmp, in, bytes);
    return gather_rest(s, v, sub, mask, 1, tmp, out, bytes, root);
}

/* Small blocking gathers without a schedule (as coll_scatter_binomial_now):
 * each child's blocks taken as they arrive (the subtree's on the stack, or
 * at root 0 straight into out), the subtree sent up at once; from the first
 * message that cannot, the rest of this rank's part as a schedule. */
int coll_gather_binomial_now(struct bolt_comm *c, const void *in, void *vout, size_t bytes, int root,
                             const char *fn)
{
    int n = c->size, v, mask, sub;
    coll_tree_place(c->rank, root, c->size, &v, &mask, &sub);
    const int own = v == 0 && root == 0; /* the blocks land in out, in rank order */
    if (own ? bytes > COLL_NOW_MAX : (size_t)sub * bytes > COLL_NOW_MAX)
        return COLL_NOT_NOW;
    const int tag = coll_tag_take(c);
    _Alignas(64) char stk[COLL_NOW_MAX];
    char *out = vout, *tmp = own ? out : stk;
    struct coll_sched *s;
    int m = 1;
    if ((sub > 1 || !v) && bytes)
        memmove(tmp, in, bytes);
    for (; m < mask && v + m < n; m <<= 1) {
        int cs = v + 2 * m < n ? m : n - v - m;
        if (!coll_take_now(c, tmp + (size_t)m * bytes, (size_t)cs * bytes, (v + m + root) % n, tag))
            goto rest;
    }
    if (v) {
        const void *up = sub > 1 ? tmp : in;
        const int parent = (v - mask + root) % n;
        if (!coll_send_now(c, up, (size_t)sub * bytes, parent, tag)) {
            if ((s = coll_sched_resume(c, fn, "binomial", COLL_BLOCKING, tag))) {
                coll_sched_send(s, up, (size_t)sub * bytes, parent);
                coll_sched_round(s);
            }
            return coll_launch(s, NULL, fn);
        }
    } else if (!own && bytes) {
        memcpy(out + (size_t)root * bytes, tmp, (size_t)(n - root) * bytes);
        memcpy(out, tmp + (size_t)(n - root) * bytes, (size_t)root * bytes);
    }
    return BOLT_OK;
rest:
    if ((s = coll_sched_resume(c, fn, "binomial", COLL_BLOCKING, tag)))
        gather_rest(s, v, sub, mask, m, tmp, out, bytes, root);
    return coll_launch(s, NULL, fn);
}

/* The root's receives from the k-th rank after it on. */
static int linear_recvs(struct coll_sched *s, int k, char *out, size_t bytes, const size_t *counts,
                        const size_t *displs)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank;
    for (; k < n; k++) {
        int from = (r + k) % n;
        coll_sched_recv(s, out + coll_blk_off(displs, bytes, from), coll_blk_bytes(counts, bytes, from), from);
    }
    coll_sched_round(s);
    return coll_sched_error(s);
}

int coll_gatherv_linear(struct coll_sched *s, const void *in, size_t bytes, void *vout,
                        const size_t *counts, const size_t *displs, int root)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int r = c->rank;
    char *out = vout;
    if (r != root) {
        coll_sched_send(s, in, bytes, root);
        coll_sched_round(s);
        return coll_sched_error(s);
    }
    coll_sched_copy(s, out + coll_blk_off(displs, bytes, r), in, coll_blk_bytes(counts, bytes, r));
    return linear_recvs(s, 1, out, bytes, counts, displs);
}

/* Blocking linear gather(v)s without a schedule while they can: a block of
 * at most COLL_NOW_MAX bytes goes at once; the root takes such blocks in
 * rank order as they arrive (a larger one in order would be copied twice
 * when the others come first); from the first block that cannot, the rest
 * as a schedule. */
int coll_gatherv_linear_now(struct bolt_comm *c, const void *in, size_t bytes, void *vout,
                            const size_t *counts, const size_t *displs, int root, const char *fn)
{
    int n = c->size, r = c->rank, k = 1;
    char *out = vout;
    const int tag = coll_tag_take(c);
    struct coll_sched *s;
    if (r != root) {
        if (bytes <= COLL_NOW_MAX && coll_send_now(c, in, bytes, root, tag))
            return BOLT_OK;
    } else {
        size_t own = coll_blk_bytes(counts, bytes, r);
        if (own)
            bolt_mem_move(out + coll_blk_off(displs, bytes, r), in, own);
        for (; k < n; k++) {
            int from = (r + k) % n;
            size_t b = coll_blk_bytes(counts, bytes, from);
            if (b > COLL_NOW_MAX || !coll_take_now(c, out + coll_blk_off(displs, bytes, from), b, from, tag))
                break;
        }
        if (k == n)
            return BOLT_OK;
    }
    if ((s = coll_sched_resume(c, fn, "linear", COLL_BLOCKING, tag))) {
        if (r != root)
            coll_gatherv_linear(s, in, bytes, vout, counts, displs, root);
        else
            linear_recvs(s, k, out, bytes, counts, displs);
    }
    return coll_launch(s, NULL, fn);
}
