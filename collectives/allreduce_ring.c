/*
 * allreduce_ring.c — ring all-reduce: reduce-scatter then all-gather around
 * the ring, 2(n-1) steps each moving 1/n of the vector: bandwidth-optimal.
 *
 * Each chunk is cut in segments (BOLT_COLL_SEGMENT); every round moves one
 * segment while the segment received in the round before is reduced, so
 * reduction overlaps transfer. Each chunk is reduced by one rank and then
 * passed on, so every rank ends with the same bits. Operands are combined in
 * ring order, not rank order: for commutative ops only. The ring is the
 * communicator's plan's (linkplan.c: along the fastest links), rank order
 * without one; chunks are numbered by ring position.
 */
#include "collectives/coll.h"

struct ring {
    char *buf;
    size_t count, esize, seg;
    int n;
};

/* Element range of segment s of chunk c. */
static void seg_range(const struct ring *g, int c, size_t s, size_t *off, size_t *len)
{
    size_t lo = coll_part_start(g->count, g->n, c), hi = coll_part_start(g->count, g->n, c + 1);
    size_t a = lo + s * g->seg, b = a + g->seg;
    if (a > hi)
        a = hi;
    if (b > hi)
        b = hi;
    *off = a;
    *len = b - a;
}

int coll_allreduce_ring(struct coll_sched *s, const void *in, void *buf, size_t count,
                        bolt_datatype_t dt, bolt_op_t op)
{
    struct coll_ring ring;
    if (coll_ring_get(s, &ring) != BOLT_OK)
        return coll_sched_error(s);
    int n = ring.n, r = ring.me, right = coll_ring_at(&ring, r + 1), left = coll_ring_at(&ring, r - 1);
    size_t esize = bolt_type_size(dt);
    coll_sched_copy(s, buf, in, count * esize);
    if (n == 1)
        return coll_sched_error(s);
    struct ring g = {buf, count, esize, coll_segment_bytes() / esize, n};
    if (g.seg == 0)
        g.seg = 1;
    size_t maxchunk = (count + (size_t)n - 1) / (size_t)n;
    size_t m = maxchunk ? (maxchunk + g.seg - 1) / g.seg : 1;
    if (g.seg > maxchunk && maxchunk)
        g.seg = maxchunk; /* scratch no larger than a chunk */
    char *tmp[2] = {coll_sched_tmp(s, g.seg * esize), coll_sched_tmp(s, g.seg * esize)};
    /* Reduce-scatter: unit u = step j, segment k; at step j this rank sends
     * chunk r - j and receives chunk r - j - 1, reduced into its own copy. */
    size_t units = (size_t)(n - 1) * m, off, len, poff = 0, plen = 0;
    for (size_t u = 0; u <= units; u++) {
        int j = (int)(u / m);
        size_t k = u % m;
        /* With one segment per chunk the send waits for the previous reduce;
         * with more, that reduce overlaps this round's transfers. */
        if (u > 0 && m == 1)
            coll_sched_reduce(s, tmp[(u - 1) % 2], g.buf + poff * esize, plen, dt, op);
        if (u < units) {
            size_t so, sl;
            seg_range(&g, (r - j + n) % n, k, &so, &sl);
            coll_sched_send(s, g.buf + so * esize, sl * esize, right);
            seg_range(&g, (r - j - 1 + 2 * n) % n, k, &off, &len);
            coll_sched_recv(s, tmp[u % 2], len * esize, left);
        }
        if (u > 0 && m > 1)
            coll_sched_reduce(s, tmp[(u - 1) % 2], g.buf + poff * esize, plen, dt, op);
        if (u < units) {
            poff = off;
            plen = len;
            coll_sched_round(s);
        }
    }
    /* All-gather: at step j this rank passes on chunk r + 1 - j, which it
     * holds complete, and receives chunk r - j in place. */
    for (size_t u = 0; u < units; u++) {
        int j = (int)(u / m);
        size_t k = u % m, so, sl;
        seg_range(&g, (r - j + n) % n, k, &off, &len);
        seg_range(&g, (r + 1 - j + n) % n, k, &so, &sl);
        coll_sched_send(s, g.buf + so * esize, sl * esize, right);
        coll_sched_recv(s, g.buf + off * esize, len * esize, left);
        coll_sched_round(s);
    }
    return coll_sched_error(s);
}
