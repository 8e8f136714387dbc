/*
 * alltoall_pairwise.c — pairwise all-to-all: in step k every rank sends to
 * rank + k and receives from rank - k, one partner at a time, so no rank is
 * flooded by n-1 senders at once. Serves alltoall and alltoallv (byte
 * counts and displacements).
 */
#include "collectives/coll.h"

int coll_alltoallv_pairwise(struct coll_sched *s, const void *vin, const size_t *scounts,
                            const size_t *sdispls, void *vout, const size_t *rcounts,
                            const size_t *rdispls)
{
    struct bolt_comm *c = coll_sched_comm(s);
    int n = c->size, r = c->rank;
    const char *in = vin;
    char *out = vout;
    coll_sched_copy(s, out + rdispls[r], in + sdispls[r],
                    scounts[r] < rcounts[r] ? scounts[r] : rcounts[r]);
    for (int k = 1; k < n; k++) {
        int to = (r + k) % n, from = (r - k + n) % n;
        coll_sched_send(s, in + sdispls[to], scounts[to], to);
        coll_sched_recv(s, out + rdispls[from], rcounts[from], from);
        coll_sched_round(s);
    }
    return coll_sched_error(s);
}
