/*
 * scatter.c — scatter by binomial tree (each node receives its subtree's
 * blocks at once and hands each child its part), and scatterv linearly.
 */
#include <string.h>

#include "collectives/coll.h"
#include "runtime/memcopy.h"

/* The sends from child edge m down (tmp: the subtree's blocks in vrank
 * order), then this rank's own block out of tmp. */
static int scatter_sends(struct coll_sched *s, int v, int sub, int m, const char *tmp, void *out, size_t bytes,
                         int root)
{
    int n = coll_sched_comm(s)->size;
    for (; m > 0; m >>= 1)
        if (v + m < n) {
            int cs = v + 2 * m < n ? m : n - v - m;
            if (cs > sub - m)
                cs = sub - m;
            coll_sched_send(s, tmp + (size_t)m * bytes, (size_t)cs * bytes, (v + m + root) % n);
        }
    coll_sched_copy(s, out, tmp, bytes);
    coll_sched_round(s);
    return coll_sched_error(s);
}

int coll_scatter_binomial(struct coll_sched *s, const void *vin, void *out, size_t bytes, int root)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, v, mask, sub;
    const char *in = vin;
    char *tmp;
    coll_tree_place(c->rank, root, c->size, &v, &mask, &sub);
    if (sub == 1 && v) {
        coll_sched_recv(s, out, bytes, (v - mask + root) % n);
        coll_sched_round(s);
        return coll_sched_error(s);
    }
    if (v == 0 && root == 0) {
        tmp = (char *)in; /* only read: rank order is vrank order */
    } else {
        tmp = coll_sched_tmp(s, (size_t)sub * bytes);
        if (!tmp)
            return coll_sched_error(s);
        if (v == 0) { /* rotate so that vrank i's block is at i */
            coll_sched_copy(s, tmp, in + (size_t)root * bytes, (size_t)(n - root) * bytes);
            coll_sched_copy(s, tmp + (size_t)(n - root) * bytes, in, (size_t)root * bytes);
        } else {
            coll_sched_recv(s, tmp, (size_t)sub * bytes, (v - mask + root) % n);
            coll_sched_round(s);
        }
    }
    return scatter_sends(s, v, sub, mask >> 1, tmp, out, bytes, root);
}

/* Small blocking scatters without a schedule (as coll_reduce_binomial_now):
 * the same tree, this rank's part taken from its parent as it arrives (the
 * subtree's blocks on the stack), each child's part sent at once. A part
 * that needs a request makes the whole of this rank's part a schedule; from
 * a send that cannot leave at once, the rest of it. */
int coll_scatter_binomial_now(struct bolt_comm *c, const void *vin, void *out, size_t bytes, int root,
                              const char *fn)
{
    int n = c->size, v, mask, sub;
    coll_tree_place(c->rank, root, c->size, &v, &mask, &sub);
    const int own = v == 0 && root == 0; /* sends straight from the input */
    const int stacked = v ? sub > 1 : !own; /* a subtree's blocks pass through the stack */
    if (stacked ? (size_t)sub * bytes > COLL_NOW_MAX : (size_t)(v ? 1 : n - 1) * bytes > COLL_TAKE_MAX)
        return COLL_NOT_NOW;
    const int tag = coll_tag_take(c);
    const char *in = vin;
    _Alignas(64) char stk[COLL_NOW_MAX];
    const char *tmp = own ? in : stk;
    struct coll_sched *s;
    if (v && !coll_take_now(c, sub == 1 ? out : stk, (size_t)sub * bytes, (v - mask + root) % n, tag))
        goto whole;
    if (sub == 1 && v)
        return BOLT_OK;
    if (v == 0 && !own) {
        memcpy(stk, in + (size_t)root * bytes, (size_t)(n - root) * bytes);
        memcpy(stk + (size_t)(n - root) * bytes, in, (size_t)root * bytes);
    }
    for (int m = mask >> 1; m > 0; m >>= 1)
        if (v + m < n) {
            int cs = v + 2 * m < n ? m : n - v - m;
            if (cs > sub - m)
                cs = sub - m;
            if (!coll_send_now(c, tmp + (size_t)m * bytes, (size_t)cs * bytes, (v + m + root) % n, tag)) {
                if ((s = coll_sched_resume(c, fn, "binomial", COLL_BLOCKING, tag)))
                    scatter_sends(s, v, sub, m, tmp, out, bytes, root);
                return coll_launch(s, NULL, fn);
            }
        }
    memmove(out, tmp, bytes);
    return BOLT_OK;
whole:
    if ((s = coll_sched_resume(c, fn, "binomial", COLL_BLOCKING, tag)))
        coll_scatter_binomial(s, vin, out, bytes, root);
    return coll_launch(s, NULL, fn);
}

/* The root's sends to the k-th rank after it on (counts and displs NULL:
 * equal blocks of `bytes`, coll_blk_bytes). */
static int scatterv_sends(struct coll_sched *s, int k, const char *in, const size_t *counts, const size_t *displs,
                          size_t bytes)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank;
    for (; k < n; k++) {
        int to = (r + k) % n;
        coll_sched_send(s, in + coll_blk_off(displs, bytes, to), coll_blk_bytes(counts, bytes, to), to);
    }
    coll_sched_round(s);
    return coll_sched_error(s);
}

int coll_scatterv_linear(struct coll_sched *s, const void *vin, const size_t *counts,
                         const size_t *displs, void *out, size_t bytes, int root)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int r = c->rank;
    const char *in = vin;
    if (r != root) {
        coll_sched_recv(s, out, bytes, root);
        coll_sched_round(s);
        return coll_sched_error(s);
    }
    coll_sched_copy(s, out, in + coll_blk_off(displs, bytes, r), coll_blk_bytes(counts, bytes, r));
    return scatterv_sends(s, 1, in, counts, displs, bytes);
}

/* Blocking scattervs without a schedule while they can: the root sends
 * each block at once, in rank order; another rank takes its block (at most
 * COLL_NOW_MAX bytes; a larger one gets a posted receive) as it arrives;
 * from the first that cannot, the rest as a schedule. */
int coll_scatterv_linear_now(struct bolt_comm *c, const void *vin, const size_t *counts, const size_t *displs,
                             void *out, size_t bytes, int root, const char *fn)
{
    int n = c->size, r = c->rank, k = 1;
    const char *in = vin;
    struct coll_sched *s;
    const int tag = coll_tag_take(c);
    if (r != root) {
        if (bytes <= COLL_TAKE_MAX && coll_take_now(c, out, bytes, root, tag))
            return BOLT_OK;
        if ((s = coll_sched_resume(c, fn, "linear", COLL_BLOCKING, tag)))
            coll_scatterv_linear(s, vin, counts, displs, out, bytes, root);
        return coll_launch(s, NULL, fn);
    }
    size_t own = coll_blk_bytes(counts, bytes, r);
    if (own)
        bolt_mem_move(out, in + coll_blk_off(displs, bytes, r), own);
    for (; k < n; k++) {
        int to = (r + k) % n;
        if (!coll_send_now(c, in + coll_blk_off(displs, bytes, to), coll_blk_bytes(counts, bytes, to), to, tag))
            break;
    }
    if (k == n)
        return BOLT_OK;
    if ((s = coll_sched_resume(c, fn, "linear", COLL_BLOCKING | (n - k > 1 ? COLL_FAN_OUT : 0), tag)))
        scatterv_sends(s, k, in, counts, displs, bytes);
    return coll_launch(s, NULL, fn);
}
