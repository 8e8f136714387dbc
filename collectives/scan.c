/*
 * scan.c — inclusive and exclusive prefix reductions by recursive doubling
 * (Hillis-Steele): in step k a rank sends its partial result to rank + 2^k
 * and folds the one from rank - 2^k in front of its own: log2(n) steps, rank
 * order kept (non-commutative ops are fine).
 */
#include "collectives/coll.h"

/* buf: this rank's input (copied in already for inclusive, where out == buf
 * serves as the partial result); exclusive: out receives the prefix of the
 * ranks before this one, buf is scratch holding the partial result. */
int coll_scan_rd(struct coll_sched *s, void *buf, size_t count, bolt_datatype_t dt, bolt_op_t op,
                 int exclusive, void *out)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank, have = 0;
    size_t bytes = count * bolt_type_size(dt);
    char *rtmp = n > 1 ? coll_sched_tmp(s, bytes) : NULL;
    for (int d = 1; d < n; d <<= 1) {
        if (r + d < n)
            coll_sched_send(s, buf, bytes, r + d);
        if (r - d >= 0)
            coll_sched_recv(s, rtmp, bytes, r - d);
        coll_sched_round(s);
        if (r - d < 0)
            continue;
        /* rtmp covers ranks just before this rank's partial: it goes first. */
        if (exclusive) {
            if (have)
                coll_sched_reduce(s, rtmp, out, count, dt, op);
            else
                coll_sched_copy(s, out, rtmp, bytes);
            have = 1;
        }
        if (!exclusive || r + 2 * d < n) /* the partial is still needed */
            coll_sched_reduce(s, rtmp, buf, count, dt, op);
    }
    return coll_sched_error(s);
}
