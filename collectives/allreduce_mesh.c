/*
 * allreduce_mesh.c — direct reduce-scatter + all-gather for a full mesh:
 * chunk j of every rank's vector goes straight to rank j, which reduces the
 * n copies and sends the result straight to every rank. Two latencies, each
 * rank moving 2(n-1)/n of the vector; each chunk is reduced by one rank, in
 * an order fixed by n and the sizes: rank order (non-commutative ops are
 * fine), or, for commutative ops whose copies outgrow the cache, as they
 * come one peer per round (coll_reduce_scatter_direct).
 */
#include <stdint.h>

#include "collectives/coll.h"

static int overlap(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return na && nb && x < y + nb && y < x + na;
}

int coll_reduce_scatter_direct(struct coll_sched *s, const void *vbuf, void *out,
                               const size_t *counts, const size_t *displs, bolt_datatype_t dt,
                               bolt_op_t op)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank;
    size_t esize = bolt_type_size(dt), mine = counts[r] * esize;
    const char *buf = vbuf;
    /* Two ranks, one operand to fold in: reduced into out as it arrives,
     * read once. Not when out is what goes to the peer meanwhile (in-place
     * reduce-scatter: out is the start of buf), nor when out overlaps own
     * partly: out is written during the round. */
    const char *own = buf + displs[r] * esize, *sent = n == 2 ? buf + displs[1 - r] * esize : NULL;
    if (n == 2 && !overlap(out, mine, sent, counts[1 - r] * esize) &&
        (out == own || !overlap(out, mine, own, mine))) {
        coll_sched_send(s, sent, counts[1 - r] * esize, 1 - r);
        coll_sched_recv_reduce(s, coll_sched_tmp(s, mine), own, out, counts[r], dt, op, r == 0, 1 - r);
        coll_sched_round(s);
        return coll_sched_error(s);
    }
    /* The n - 1 copies of our chunk would not fit in this rank's share of
     * the cache, so reducing them after they all landed would read them
     * again from memory: with a commutative op, fold each into out as it
     * comes instead, one peer per round, in a fixed order (our own, then
     * ranks r - 1, r - 2, ...: bitwise alike from run to run). Round k
     * pairs with the peers' round k, so no rank waits on a later round of
     * another. Not when out overlaps anything sent (in-place reduce-scatter
     * into the start of buf): it is written from the first round. */
    size_t total = (displs[n - 1] + counts[n - 1]) * esize;
    if (mine * (size_t)(n - 1) > coll_cache_share() && coll_op_commutative(op) &&
        (out == own || !overlap(out, mine, buf, total))) {
        char *land = coll_sched_tmp(s, mine); /* a part that lands unfolded; one round at a time */
        for (int k = 1; k < n; k++) {
            int to = (r + k) % n, from = (r + n - k) % n;
            coll_sched_send(s, buf + displs[to] * esize, counts[to] * esize, to);
            coll_sched_recv_reduce(s, land, k == 1 ? own : out, out, counts[r], dt, op, 1, from);
            coll_sched_round(s);
        }
        return coll_sched_error(s);
    }
    char *tmp = n > 1 ? coll_sched_tmp(s, mine * (size_t)(n - 1)) : NULL;
    char **part = coll_sched_tmp(s, (size_t)n * sizeof *part); /* rank i's copy of our chunk */
    if (!part)
        return coll_sched_error(s);
    for (int i = 0; i < n; i++)
        part[i] = i == r ? (char *)buf + displs[r] * esize
                         : tmp ? tmp + (size_t)(i < r ? i : i - 1) * mine : NULL;
    for (int k = 1; k < n; k++) {
        int to = (r + k) % n, from = (r + n - k) % n;
        coll_sched_send(s, buf + displs[to] * esize, counts[to] * esize, to);
        coll_sched_recv(s, part[from], mine, from);
    }
    coll_sched_round(s);
    /* x0 op x1 op ...: each step writes into the later operand. This rank's
     * own copy is only read (it may be the caller's send buffer): its step
     * folds into out instead. */
    const char *acc = part[0];
    for (int i = 1; i < n; i++) {
        char *dst = part[i];
        if (i == r) {
            coll_sched_copy(s, out, part[r], mine);
            dst = out;
        }
        coll_sched_reduce(s, acc, dst, counts[r], dt, op);
        acc = dst;
    }
    coll_sched_copy(s, out, acc, mine);
    return coll_sched_error(s);
}

int coll_allreduce_mesh(struct coll_sched *s, const void *in, void *vbuf, size_t count,
                        bolt_datatype_t dt, bolt_op_t op)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank;
    size_t esize = bolt_type_size(dt);
    char *buf = vbuf;
    if (n == 1) {
        coll_sched_copy(s, buf, in, count * esize);
        return coll_sched_error(s);
    }
    size_t *counts = coll_sched_tmp(s, 2 * (size_t)n * sizeof *counts);
    if (!counts)
        return coll_sched_error(s);
    size_t *displs = counts + n;
    for (int i = 0; i < n; i++) {
        displs[i] = coll_part_start(count, n, i);
        counts[i] = coll_part_start(count, n, i + 1) - displs[i];
    }
    /* Chunks leave from the input, which is never copied whole into buf. */
    coll_reduce_scatter_direct(s, in, buf + displs[r] * esize, counts, displs, dt, op);
    coll_sched_round(s);
    for (int k = 1; k < n; k++) {
        int to = (r + k) % n, from = (r + n - k) % n;
        coll_sched_send(s, buf + displs[r] * esize, counts[r] * esize, to);
        coll_sched_recv(s, buf + displs[from] * esize, counts[from] * esize, from);
    }
    coll_sched_round(s);
    return coll_sched_error(s);
}
