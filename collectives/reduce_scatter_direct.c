/*
 * reduce_scatter_direct.c — reduce-scatter by direct exchange: chunk j of
 * every rank's vector goes straight to rank j, which reduces the n copies
 * in an order fixed by n and the sizes: rank order (non-commutative ops are
 * fine), or, for commutative ops whose copies outgrow the cache, as they
 * come one peer per round. Small blocking ones without a schedule.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "collectives/coll.h"

/* part[i]: where rank i's copy of this rank's chunk is (its own in buf, the
 * others in tmp, in rank order). */
static void parts_place(char **part, const char *own, char *tmp, size_t mine, int r, int n)
{
    for (int i = 0; i < n; i++)
        part[i] = i == r ? (char *)own : tmp ? tmp + (size_t)(i < r ? i : i - 1) * mine : NULL;
}

/* x0 op x1 op ... in rank order into out: each step writes into the later
 * operand. This rank's own copy is only read (it may be the caller's send
 * buffer): its step folds into out instead. As steps of s after its last
 * round, or at once (s NULL). */
static void parts_fold(struct coll_sched *s, char **part, char *out, size_t count, size_t mine,
                       bolt_datatype_t dt, bolt_op_t op, int r, int n)
{
    const char *acc = part[0];
    for (int i = 1; i < n; i++) {
        char *dst = part[i];
        if (i == r) {
            if (s)
                coll_sched_copy(s, out, part[r], mine);
            else
                memmove(out, part[r], mine);
            dst = out;
        }
        if (s)
            coll_sched_reduce(s, acc, dst, count, dt, op);
        else
            coll_reduce(acc, dst, count, dt, op);
        acc = dst;
    }
    if (s)
        coll_sched_copy(s, out, acc, mine);
    else if (acc != out)
        memmove(out, acc, mine);
}

/* Every peer's chunk out (steps k >= ks) and every copy of ours in (k >=
 * kr) in one round, then the fold. */
static int parts_exchange(struct coll_sched *s, const char *buf, char *out, char **part,
                          const size_t *counts, const size_t *displs, bolt_datatype_t dt,
                          bolt_op_t op, int ks, int kr)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank;
    size_t esize = bolt_type_size(dt), mine = counts[r] * esize;
    for (int k = 1; k < n; k++) {
        int to = (r + k) % n, from = (r + n - k) % n;
        if (k >= ks)
            coll_sched_send(s, buf + displs[to] * esize, counts[to] * esize, to);
        if (k >= kr)
            coll_sched_recv(s, part[from], mine, from);
    }
    coll_sched_round(s);
    parts_fold(s, part, out, counts[r], mine, dt, op, r, n);
    return coll_sched_error(s);
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
     * read once, when our chunk would not stay in the cache between landing
     * and being folded. Below that, received whole and then folded: a
     * shared-memory rendezvous received whole is copied by both ends at once
     * (the split copy), a folded one by the receiver alone (all-reduce of 2
     * ranks, 256 KiB: 36 us against 110 folded; 4 MiB 527 against 852; 16
     * MiB 4200 against 3660). Not when out is what goes to the peer meanwhile
     * (in-place reduce-scatter: out is the start of buf), nor when out
     * overlaps own partly: out is written during the round. */
    const char *own = buf + displs[r] * esize, *sent = n == 2 ? buf + displs[1 - r] * esize : NULL;
    if (n == 2 && mine > coll_cache_share() && !coll_overlap(out, mine, sent, counts[1 - r] * esize) &&
        (out == own || !coll_overlap(out, mine, own, mine))) {
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
        (out == own || !coll_overlap(out, mine, buf, total))) {
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
    parts_place(part, buf + displs[r] * esize, tmp, mine, r, n);
    return parts_exchange(s, buf, out, part, counts, displs, dt, op, 1, 1);
}

/* Room for the peers' copies of a chunk reduced without a schedule. */
#define NOW_PARTS_MAX 4096

/* A blocking reduce-scatter whose chunk and copies fit NOW_PARTS_MAX,
 * without a schedule: every peer's chunk of at most COLL_NOW_MAX bytes goes
 * at once, then the copies of ours are taken as they come and folded in rank
 * order (the same messages and the same order of folds as the schedule, so
 * each rank may go either way); from the first that cannot, the rest as a
 * schedule. COLL_NOT_NOW (nothing done) for a larger chunk. */
int coll_reduce_scatter_direct_now(struct bolt_comm *c, const void *vbuf, void *out,
                                   const size_t *counts, const size_t *displs, bolt_datatype_t dt,
                                   bolt_op_t op, const char *fn)
{
    int n = c->size, r = c->rank, ks = 1, kr = 1;
    size_t esize = bolt_type_size(dt), mine = counts[r] * esize;
    const char *buf = vbuf;
    _Alignas(max_align_t) char tmp[NOW_PARTS_MAX];
    char *part[16];
    if (mine > COLL_NOW_MAX || mine * (size_t)(n - 1) > sizeof tmp || n > 16)
        return COLL_NOT_NOW;
    const int tag = coll_tag_take(c);
    parts_place(part, buf + displs[r] * esize, tmp, mine, r, n);
    for (; ks < n; ks++) {
        int to = (r + ks) % n;
        size_t b = counts[to] * esize;
        if (b > COLL_NOW_MAX || !coll_send_now(c, buf + displs[to] * esize, b, to, tag))
            break;
    }
    /* only once every chunk left: a peer may wait for ours before it sends */
    for (; ks == n && kr < n; kr++) {
        int from = (r + n - kr) % n;
        if (!coll_take_now(c, part[from], mine, from, tag))
            break;
    }
    if (kr == n) {
        /* two ranks: out = x0 op x1 in one pass where the kernel has one
         * and out is apart from both */
        coll_kernel3_fn *k3 = n == 2 ? coll_kernel3(op, dt) : NULL;
        if (k3 && !coll_overlap(out, mine, part[0], mine) && !coll_overlap(out, mine, part[1], mine))
            k3(part[0], part[1], out, counts[r]);
        else
            parts_fold(NULL, part, out, counts[r], mine, dt, op, r, n);
        return BOLT_OK;
    }
    struct coll_sched *s = coll_sched_resume(c, fn, "direct", COLL_BLOCKING | COLL_EXCHANGE, tag);
    if (s)
        parts_exchange(s, buf, out, part, counts, displs, dt, op, ks, kr);
    return coll_launch(s, NULL, fn);
}
