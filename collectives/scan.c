/*
 * scan.c — inclusive and exclusive prefix reductions by recursive doubling
 * (Hillis-Steele): in step k a rank sends its partial result to rank + 2^k
 * and folds the one from rank - 2^k in front of its own: log2(n) steps, rank
 * order kept (non-commutative ops are fine).
 *
 * Where ranks crowd the cores, large scans go along a chain instead (rank r
 * takes the prefix of ranks 0..r-1 from r - 1, folds its own in behind it
 * and passes the result on), as Open MPI's linear scan: n - 1 messages and
 * reductions against recursive doubling's n log2(n) - (n - 1), and with no
 * idle core the work, not the steps, sets the time. 4 ranks on 2 cores,
 * medians of 3 (us, doubling / chain, in a loop): 64 KiB 44 / 33, 1 MiB 352 /
 * 269, 4 MiB 1556 / 1279.
 */
#include <string.h>

#include "collectives/coll.h"

/* Where a rank is: at step d (its send gone when sent), have: out holds a
 * prefix already (exclusive). */
struct scan_state {
    int d, sent, have;
};

/* The steps from q on; rtmp: room for a peer's partial. */
static int scan_from(struct coll_sched *s, struct scan_state *q, void *buf, char *rtmp, size_t count,
                     bolt_datatype_t dt, bolt_op_t op, int exclusive, void *out)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank;
    size_t bytes = count * bolt_type_size(dt);
    for (; q->d < n; q->d <<= 1) {
        const int d = q->d;
        if (r + d < n && !q->sent)
            coll_sched_send(s, buf, bytes, r + d);
        q->sent = 0;
        if (r - d >= 0)
            coll_sched_recv(s, rtmp, bytes, r - d);
        coll_sched_round(s);
        if (r - d < 0)
            continue;
        /* rtmp covers ranks just before this rank's partial: it goes first. */
        if (exclusive) {
            if (q->have)
                coll_sched_reduce(s, rtmp, out, count, dt, op);
            else
                coll_sched_copy(s, out, rtmp, bytes);
            q->have = 1;
        }
        if (!exclusive || r + 2 * d < n) /* the partial is still needed */
            coll_sched_reduce(s, rtmp, buf, count, dt, op);
    }
    return coll_sched_error(s);
}

/* buf: this rank's input (copied in already for inclusive, where out == buf
 * serves as the partial result); exclusive: out receives the prefix of the
 * ranks before this one, buf is scratch holding the partial result. */
int coll_scan_rd(struct coll_sched *s, void *buf, size_t count, bolt_datatype_t dt, bolt_op_t op,
                 int exclusive, void *out)
{
    struct scan_state q = {.d = 1};
    size_t bytes = count * bolt_type_size(dt);
    char *rtmp = coll_sched_comm(s)->size > 1 ? coll_sched_tmp(s, bytes) : NULL;
    return scan_from(s, &q, buf, rtmp, count, dt, op, exclusive, out);
}

#define LINEAR_MIN (16 * 1024) /* bytes: below, the steps' latency decides */

int coll_scan_use_linear(const struct bolt_comm *c, size_t bytes)
{
    return c->size > 2 && bytes > LINEAR_MIN && coll_crowded_cores() > 0;
}

/* As coll_scan_rd: buf holds this rank's input (and is the result, out,
 * when inclusive); exclusive: out gets the prefix before this rank, buf is
 * scratch for the partial result passed on. */
int coll_scan_linear(struct coll_sched *s, void *buf, size_t count, bolt_datatype_t dt, bolt_op_t op,
                     int exclusive, void *out)
{
    struct bolt_comm *c = coll_sched_comm(s);
    const int n = c->size, r = c->rank;
    size_t bytes = count * bolt_type_size(dt);
    if (r > 0) {
        void *prefix = exclusive ? out : coll_sched_tmp(s, bytes);
        coll_sched_recv(s, prefix, bytes, r - 1);
        coll_sched_round(s);
        if (!exclusive || r + 1 < n) /* the prefix goes first */
            coll_sched_reduce(s, prefix, buf, count, dt, op);
    }
    if (r + 1 < n) {
        coll_sched_send(s, buf, bytes, r + 1);
        coll_sched_round(s);
    }
    return coll_sched_error(s);
}

/* Small blocking scans without a schedule (as coll_reduce_binomial_now):
 * the same steps and order of operands, the partial result and a peer's on
 * the stack (or the partial in out, inclusive), each block taken as it
 * arrives, sent at once; the rest as a schedule from the first that cannot. */
int coll_scan_rd_now(struct bolt_comm *c, const void *in, void *out, size_t count, bolt_datatype_t dt, bolt_op_t op,
                     int exclusive, const char *fn)
{
    const size_t bytes = count * bolt_type_size(dt);
    if (bytes > COLL_NOW_MAX)
        return COLL_NOT_NOW;
    const int n = c->size, r = c->rank;
    const int tag = coll_tag_take(c);
    _Alignas(64) unsigned char part[COLL_NOW_MAX], rtmp[COLL_NOW_MAX];
    void *buf = exclusive ? (void *)part : out;
    memmove(buf, in, bytes);
    struct scan_state q = {.d = 1};
    for (; q.d < n; q.d <<= 1) {
        const int d = q.d;
        if (r + d < n && !coll_send_now(c, buf, bytes, r + d, tag))
            break;
        q.sent = r + d < n;
        if (r - d >= 0 && !coll_take_now(c, rtmp, bytes, r - d, tag))
            break;
        q.sent = 0;
        if (r - d < 0)
            continue;
        if (exclusive) {
            if (q.have)
                coll_reduce(rtmp, out, count, dt, op);
            else
                memcpy(out, rtmp, bytes);
            q.have = 1;
        }
        if (!exclusive || r + 2 * d < n)
            coll_reduce(rtmp, buf, count, dt, op);
    }
    if (q.d >= n)
        return BOLT_OK;
    struct coll_sched *s = coll_sched_resume(c, fn, "rd", COLL_EXCHANGE | COLL_BLOCKING, tag);
    if (s)
        scan_from(s, &q, buf, (char *)rtmp, count, dt, op, exclusive, out);
    return coll_launch(s, NULL, fn);
}
