/*
 * allgather_rd.c — recursive-doubling all-gather: log2(p) steps, exchanging
 * everything gathered so far with the partner across one bit.
 *
 * Not a power of two: the first 2*rem ranks pair up (even gives its block to
 * odd) and the odd ones hand the whole result back at the end. Participant i
 * then stands for the consecutive ranks first(i) .. first(i+1)-1, so every
 * exchange moves one contiguous range of blocks.
 */
#include "collectives/coll.h"

static int first_rank(int newrank, int rem, int p, int n)
{
    if (newrank >= p)
        return n;
    return newrank < rem ? 2 * newrank : newrank + rem;
}

int coll_allgather_rd(struct coll_sched *s, const void *in, void *vbuf, size_t bytes)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank, p = coll_pof2_floor(n), rem = n - p, newrank;
    char *buf = vbuf;
    if (r < 2 * rem && r % 2 == 0) {
        coll_sched_send(s, in, bytes, r + 1);
        coll_sched_round(s);
        newrank = -1;
    } else if (r < 2 * rem) {
        coll_sched_recv(s, buf + (size_t)(r - 1) * bytes, bytes, r - 1);
        coll_sched_round(s);
        newrank = r / 2;
    } else {
        newrank = r - rem;
    }
    for (int mask = 1; newrank >= 0 && mask < p; mask <<= 1) {
        int g = newrank & ~(mask - 1), pg = (newrank ^ mask) & ~(mask - 1);
        int lo = first_rank(g, rem, p, n), hi = first_rank(g + mask, rem, p, n);
        int plo = first_rank(pg, rem, p, n), phi = first_rank(pg + mask, rem, p, n);
        int partner = (newrank ^ mask) < rem ? 2 * (newrank ^ mask) + 1 : (newrank ^ mask) + rem;
        /* This rank's block alone: from the input. */
        const void *out = hi - lo == 1 ? in : buf + (size_t)lo * bytes;
        coll_sched_send(s, out, (size_t)(hi - lo) * bytes, partner);
        coll_sched_recv(s, buf + (size_t)plo * bytes, (size_t)(phi - plo) * bytes, partner);
        coll_sched_round(s);
    }
    if (r < 2 * rem) {
        if (r % 2)
            coll_sched_send(s, buf, (size_t)n * bytes, r - 1);
        else
            coll_sched_recv(s, buf, (size_t)n * bytes, r + 1);
        coll_sched_round(s);
    }
    return coll_sched_error(s);
}
