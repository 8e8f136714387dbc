/*
 * allgather_direct.c — all-gather by direct messages: every rank sends its
 * block to each peer and takes each peer's block, all in one round. n - 1
 * messages out and in per rank, but one wait: where a step's latency costs
 * more than a message (two ranks, where every algorithm is the one exchange;
 * few ranks with small blocks, or ranks crowding the cores, where each of
 * recursive doubling's or the ring's steps waits for a peer to get a core).
 * Serves allgather (equal blocks) and allgatherv. Where the transport
 * shares one copy among readers (shm), the block goes out once for all.
 * Small blocking ones go without a schedule.
 */
#include <string.h>

#include "collectives/coll.h"
#include "runtime/memcopy.h"

/* Sends of steps k >= ks and receives of k >= kr (1 and 1: all of them). */
static int direct_steps(struct coll_sched *s, const void *in, char *buf, const size_t *counts,
                        const size_t *displs, size_t bytes, int ks, int kr)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank;
    size_t mine = coll_blk_bytes(counts, bytes, r);
    int *peers = ks < n ? coll_sched_tmp(s, (size_t)(n - ks) * sizeof *peers) : NULL;
    for (int k = ks; peers && k < n; k++)
        peers[k - ks] = (r + k) % n;
    if (peers)
        coll_sched_send_many(s, in, mine, peers, n - ks);
    for (int k = kr; k < n; k++) {
        int from = (r - k + n) % n;
        coll_sched_recv(s, buf + coll_blk_off(displs, bytes, from), coll_blk_bytes(counts, bytes, from), from);
    }
    coll_sched_round(s);
    return coll_sched_error(s);
}

int coll_allgather_direct(struct coll_sched *s, const void *in, void *buf, size_t bytes)
{
    return direct_steps(s, in, buf, NULL, NULL, bytes, 1, 1);
}

int coll_allgatherv_direct(struct coll_sched *s, const void *in, void *buf, const size_t *counts,
                           const size_t *displs)
{
    return direct_steps(s, in, buf, counts, displs, 0, 1, 1);
}

int coll_allgatherv_direct_now(struct bolt_comm *c, const void *in, void *vbuf, const size_t *counts,
                               const size_t *displs, size_t bytes, const char *fn)
{
    int n = c->size, r = c->rank, ks = 1, kr = 1;
    char *buf = vbuf, *own = buf + coll_blk_off(displs, bytes, r);
    size_t mine = coll_blk_bytes(counts, bytes, r);
    const int tag = coll_tag_take(c);
    if (own != in && mine)
        bolt_mem_move(own, in, mine);
    if (mine <= COLL_NOW_MAX)
        ks = coll_send_all_now(c, in, mine, r, tag);
    /* only once ours went to all: a peer may wait for it before it sends */
    for (; ks == n && kr < n; kr++) {
        int from = (r - kr + n) % n;
        size_t b = coll_blk_bytes(counts, bytes, from);
        if (b > COLL_NOW_MAX || !coll_take_now(c, buf + coll_blk_off(displs, bytes, from), b, from, tag))
            break;
    }
    if (kr == n)
        return BOLT_OK;
    struct coll_sched *s = coll_sched_resume(c, fn, "direct", COLL_BLOCKING | COLL_EXCHANGE, tag);
    if (s)
        direct_steps(s, in, buf, counts, displs, bytes, ks, kr);
    return coll_launch(s, NULL, fn);
}
