/*
 * scatter.c — scatter by binomial tree (each node receives its subtree's
 * blocks at once and hands each child its part), and scatterv linearly.
 */
#include "collectives/coll.h"

int coll_scatter_binomial(struct coll_sched *s, const void *vin, void *out, size_t bytes, int root)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, v = (c->rank - root + n) % n, mask = 1;
    const char *in = vin;
    char *tmp;
    while (mask < n && !(v & mask))
        mask <<= 1;
    int sub = v + mask < n ? mask : n - v;
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
    for (int m = mask >> 1; m > 0; m >>= 1)
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

int coll_scatterv_linear(struct coll_sched *s, const void *vin, const size_t *counts,
                         const size_t *displs, void *out, size_t bytes, int root)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank;
    const char *in = vin;
    if (r != root) {
        coll_sched_recv(s, out, bytes, root);
    } else {
        coll_sched_copy(s, out, in + displs[r], counts[r]);
        for (int k = 1; k < n; k++) {
            int to = (r + k) % n;
            coll_sched_send(s, in + displs[to], counts[to], to);
        }
    }
    coll_sched_round(s);
    return coll_sched_error(s);
}
