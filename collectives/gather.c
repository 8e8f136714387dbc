/*
 * gather.c — gather by binomial tree (equal blocks: log2(n) latencies, each
 * node forwarding its whole subtree at once), and gatherv linearly (the
 * root receives from every rank at once; block sizes differ, so a tree would
 * need them all at every node).
 */
#include "collectives/coll.h"

int coll_gather_binomial(struct coll_sched *s, const void *in, void *vout, size_t bytes, int root)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, v = (c->rank - root + n) % n, mask = 1;
    char *out = vout, *tmp;
    while (mask < n && !(v & mask))
        mask <<= 1;
    int sub = v + mask < n ? mask : n - v; /* blocks in this subtree (vranks v..) */
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
    for (int m = 1; m < mask && v + m < n; m <<= 1) {
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

int coll_gatherv_linear(struct coll_sched *s, const void *in, size_t bytes, void *vout,
                        const size_t *counts, const size_t *displs, int root)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank;
    char *out = vout;
    if (r != root) {
        coll_sched_send(s, in, bytes, root);
    } else {
        coll_sched_copy(s, out + displs[r], in, counts[r]);
        for (int k = 1; k < n; k++) {
            int from = (r + k) % n;
            coll_sched_recv(s, out + displs[from], counts[from], from);
        }
    }
    coll_sched_round(s);
    return coll_sched_error(s);
}
