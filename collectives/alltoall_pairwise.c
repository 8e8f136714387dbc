/*
 * alltoall_pairwise.c — pairwise all-to-all: in step k every rank sends to
 * rank + k and receives from rank - k, one partner at a time, so no rank is
 * flooded by n-1 senders at once. Serves alltoall and alltoallv (byte
 * counts and displacements).
 *
 * Small blocks take the same steps in one round: each send leaves at once
 * into its peer's ring and the receives are taken as they come, so a rank
 * waits once, not n-1 times, each time for one peer that may not have run
 * yet. 4 ranks crowding 2 cores, 4-byte blocks: 6.1 -> 3.0 context switches
 * a call (all ranks), 20-25 -> 10.5-11.7 us (Open MPI: 3.1, 10.6).
 *
 * Blocks of any size take one round where ranks crowd the cores: a step's
 * partner is often a rank without a core, and waiting for it step by step
 * costs a time slice each. 4 ranks on 2 cores, medians of 3 (us, stepwise /
 * one round): shm 4 KiB 24 / 14, 16 KiB 31 / 20, 64 KiB 103 / 75, 1 MiB 710 /
 * 585; tcp 16 KiB 116 / 86, 1 MiB 1655 / 1374. Where every rank has a core
 * the steps stay, as the header says.
 */
#include <string.h>

#include "collectives/coll.h"
#include "runtime/memcopy.h"

#define ONE_ROUND_MAX 1024 /* bytes, every block this rank sends or receives */

/* Steps k >= ks send and k >= kr receive (the ones a blocking call without
 * a schedule has not done yet; 1 and 1 for the whole exchange). */
static int pairwise_steps(struct coll_sched *s, const char *in, const size_t *scounts,
                          const size_t *sdispls, char *out, const size_t *rcounts,
                          const size_t *rdispls, int ks, int kr)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank;
    /* Decided by each rank on its own blocks: a round only orders this
     * rank's own waits, so the ranks need not agree. */
    int one_round = 1;
    if (!coll_crowded_cores())
        for (int i = 0; i < n && one_round; i++)
            one_round = scounts[i] <= ONE_ROUND_MAX && rcounts[i] <= ONE_ROUND_MAX;
    for (int k = 1; k < n; k++) {
        int to = (r + k) % n, from = (r - k + n) % n;
        if (k >= ks)
            coll_sched_send(s, in + sdispls[to], scounts[to], to);
        if (k >= kr)
            coll_sched_recv(s, out + rdispls[from], rcounts[from], from);
        if (!one_round)
            coll_sched_round(s);
    }
    coll_sched_round(s);
    return coll_sched_error(s);
}

static size_t own_bytes(const size_t *scounts, const size_t *rcounts, int r)
{
    return scounts[r] < rcounts[r] ? scounts[r] : rcounts[r];
}

int coll_alltoallv_pairwise(struct coll_sched *s, const void *vin, const size_t *scounts,
                            const size_t *sdispls, void *vout, const size_t *rcounts,
                            const size_t *rdispls)
{
    int r = coll_sched_comm(s)->rank;
    const char *in = vin;
    char *out = vout;
    coll_sched_copy(s, out + rdispls[r], in + sdispls[r], own_bytes(scounts, rcounts, r));
    return pairwise_steps(s, in, scounts, sdispls, out, rcounts, rdispls, 1, 1);
}

/* The same messages (one per pair, under the collective's tag) without a
 * schedule: every block of at most COLL_NOW_MAX bytes goes at once, then
 * the blocks in are taken as they come; from the first send or receive
 * that cannot, the rest as the schedule. Since the messages are the
 * schedule's, each rank may go either way. in must not overlap out. */
int coll_alltoallv_pairwise_now(struct bolt_comm *c, const void *vin, const size_t *scounts,
                                const size_t *sdispls, void *vout, const size_t *rcounts,
                                const size_t *rdispls, const char *fn)
{
    int n = c->size, r = c->rank, ks = 1, kr = 1;
    const char *in = vin;
    char *out = vout;
    const int tag = coll_tag_take(c);
    size_t own = own_bytes(scounts, rcounts, r);
    if (own)
        bolt_mem_copy(out + rdispls[r], in + sdispls[r], own);
    for (; ks < n; ks++) {
        int to = (r + ks) % n;
        if (scounts[to] > COLL_NOW_MAX || !coll_send_now(c, in + sdispls[to], scounts[to], to, tag))
            break;
    }
    /* only once every send left: a peer may wait for ours before it sends */
    for (; ks == n && kr < n; kr++) {
        int from = (r - kr + n) % n;
        if (rcounts[from] > COLL_NOW_MAX || !coll_take_now(c, out + rdispls[from], rcounts[from], from, tag))
            break;
    }
    if (kr == n)
        return BOLT_OK;
    struct coll_sched *s = coll_sched_resume(c, fn, "pairwise", COLL_BLOCKING | COLL_EXCHANGE, tag);
    if (s)
        pairwise_steps(s, in, scounts, sdispls, out, rcounts, rdispls, ks, kr);
    return coll_launch(s, NULL, fn);
}
