/* comm_api.c — the public communicator calls: rank, size, dup, split, join,
 * free.
 *
 * dup and split agree on the new groups by a gather to rank 0 and a reply
 * to every rank, on the parent's internal context (ctx + 1) so that user
 * messages can never interfere. The new context id is one rank 0 reserves
 * (bolt_comm_ctx_reserve: unique among all processes by construction), not
 * the largest of the ranks' next free ids: with several threads making
 * communicators on different parents at once (MPI_THREAD_MULTIPLE), two
 * such agreements could interleave in a different order on different ranks
 * and settle on the same id. */
#include <stdlib.h>
#include <string.h>

#include "runtime/errors.h"
#include "runtime/proto.h"
#include "runtime/runtime.h"

enum { TAG_SPLIT_UP = 1, TAG_SPLIT_DOWN = 2 };

bolt_comm_t bolt_comm_world(void)
{
    return bolt_rt.initialized && !bolt_rt.finalized ? bolt_rt.world : BOLT_COMM_NULL;
}

bolt_comm_t bolt_comm_self(void)
{
    return bolt_rt.initialized && !bolt_rt.finalized ? bolt_rt.self : BOLT_COMM_NULL;
}

int bolt_comm_rank(bolt_comm_t comm, int *rank)
{
    int rc = bolt_comm_check(comm, "bolt_comm_rank");
    if (rc)
        return rc;
    if (!rank)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_comm_rank: rank pointer is NULL");
    *rank = comm->rank;
    return BOLT_OK;
}

int bolt_comm_size(bolt_comm_t comm, int *size)
{
    int rc = bolt_comm_check(comm, "bolt_comm_size");
    if (rc)
        return rc;
    if (!size)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_comm_size: size pointer is NULL");
    *size = comm->size;
    return BOLT_OK;
}

int bolt_comm_world_rank(bolt_comm_t comm, int rank, int *world_rank)
{
    int rc = bolt_comm_check(comm, "bolt_comm_world_rank");
    if (rc)
        return rc;
    if (rank < 0 || rank >= comm->size || !world_rank)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_comm_world_rank: rank %d is out of range 0..%d",
                            rank, comm->size - 1);
    *world_rank = comm->world_ranks[rank];
    return BOLT_OK;
}

/* Blocking send/receive on a communicator's internal context. */
static int isend_internal(const void *buf, size_t n, int dest, int tag, struct bolt_comm *c)
{
    struct bolt_request *r;
    int rc = bolt_proto_isend(buf, n, dest, tag, c, c->ctx + 1, 0, &r);
    return rc ? rc : bolt_wait(&r, NULL);
}

static int recv_internal(void *buf, size_t n, int src, int tag, struct bolt_comm *c)
{
    struct bolt_request *r;
    bolt_status_t st;
    int rc = bolt_proto_irecv(buf, n, src, tag, c, c->ctx + 1, &r);
    if (rc || (rc = bolt_wait(&r, &st)))
        return rc;
    if (st.bytes != n)
        return bolt_err_set(BOLT_ERR_PROTO, "making a communicator: rank %d sent %zu bytes, not %zu",
                            src, st.bytes, n);
    return BOLT_OK;
}

struct split_entry {
    int color, key, rank;
};

static int by_color_key_rank(const void *a, const void *b)
{
    const struct split_entry *x = a, *y = b;
    if (x->color != y->color)
        return x->color < y->color ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Rank 0 of the parent: computes every rank's new group and tells it.
 * Reply to each rank: [ctx, new rank, new size, world ranks...]. */
static int split_root(struct bolt_comm *c, struct split_entry *all, uint32_t ctx, int **reply0)
{
    int n = c->size, rc = BOLT_OK;
    struct split_entry *sorted = malloc((size_t)n * sizeof *sorted);
    int *reply = malloc((size_t)(n + 3) * sizeof *reply);
    if (!sorted || !reply) {
        free(sorted);
        free(reply);
        return BOLT_ERR_NOMEM;
    }
    memcpy(sorted, all, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, by_color_key_rank);
    for (int i = 0; i < n && !rc; i++) {
        int r = all[i].rank, m = 0, me = -1;
        reply[0] = (int)ctx;
        if (all[i].color != BOLT_UNDEFINED) {
            for (int j = 0; j < n; j++) {
                if (sorted[j].color != all[i].color)
                    continue;
                if (sorted[j].rank == r)
                    me = m;
                reply[3 + m++] = c->world_ranks[sorted[j].rank];
            }
        }
        reply[1] = me;
        reply[2] = m;
        if (r == 0) {
            *reply0 = malloc((size_t)(m + 3) * sizeof **reply0);
            if (!*reply0)
                rc = BOLT_ERR_NOMEM;
            else
                memcpy(*reply0, reply, (size_t)(m + 3) * sizeof *reply);
        } else {
            rc = isend_internal(reply, (size_t)(m + 3) * sizeof *reply, r, TAG_SPLIT_DOWN, c);
        }
    }
    free(sorted);
    free(reply);
    return rc;
}

/* Rank 0 could not hear from `failed`: tell every other rank so that none of
 * them waits for an answer that will not come. Reply: [0, SPLIT_FAILED, failed]. */
#define SPLIT_FAILED (-2)
static void split_abort(struct bolt_comm *c, int failed)
{
    int msg[3] = {0, SPLIT_FAILED, failed};
    for (int r = 1; r < c->size; r++)
        if (r != failed)
            isend_internal(msg, sizeof msg, r, TAG_SPLIT_DOWN, c);
}

int bolt_comm_split(bolt_comm_t comm, int color, int key, bolt_comm_t *newcomm)
{
    int rc = bolt_comm_check(comm, "bolt_comm_split");
    if (rc)
        return rc;
    if (!newcomm)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_comm_split: newcomm pointer is NULL");
    if (color < 0 && color != BOLT_UNDEFINED)
        return bolt_err_set(BOLT_ERR_ARG,
                            "bolt_comm_split: color %d is invalid: use a value >= 0 or "
                            "BOLT_UNDEFINED",
                            color);
    *newcomm = BOLT_COMM_NULL;
    struct split_entry mine = {color, key, comm->rank};
    int *reply = NULL;
    if (comm->rank == 0) {
        struct split_entry *all = malloc((size_t)comm->size * sizeof *all);
        if (!all)
            return bolt_err_set(BOLT_ERR_NOMEM, "bolt_comm_split: out of memory");
        all[0] = mine;
        int r = 1;
        for (; r < comm->size && !rc; r++)
            rc = recv_internal(&all[r], sizeof all[r], r, TAG_SPLIT_UP, comm);
        uint32_t ctx = 0;
        if (rc)
            split_abort(comm, r - 1);
        else if ((rc = bolt_comm_ctx_reserve(&ctx)))
            split_abort(comm, 0); /* its message says why: no id left */
        else
            rc = split_root(comm, all, ctx, &reply);
        free(all);
    } else {
        struct bolt_request *r;
        bolt_status_t st;
        rc = isend_internal(&mine, sizeof mine, 0, TAG_SPLIT_UP, comm);
        /* The reply's length depends on the new group; parent size bounds it. */
        reply = malloc((size_t)(comm->size + 3) * sizeof *reply);
        if (!rc && !reply)
            rc = BOLT_ERR_NOMEM;
        if (!rc)
            rc = bolt_proto_irecv(reply, (size_t)(comm->size + 3) * sizeof *reply, 0,
                                  TAG_SPLIT_DOWN, comm, comm->ctx + 1, &r);
        if (!rc)
            rc = bolt_wait(&r, &st);
    }
    if (rc) {
        free(reply);
        return rc == BOLT_ERR_NOMEM ? bolt_err_set(rc, "bolt_comm_split: out of memory")
                                    : bolt_err_within(rc, "bolt_comm_split");
    }
    if (reply[1] == SPLIT_FAILED) {
        int failed = reply[2];
        free(reply);
        return bolt_err_set(BOLT_ERR_PEER,
                            "bolt_comm_split: rank %d of the parent communicator failed, so no "
                            "new communicator was made",
                            failed);
    }
    uint32_t ctx = (uint32_t)reply[0];
    if (reply[1] >= 0) {
        *newcomm = bolt_comm_create(ctx, reply[1], reply[2], reply + 3);
        if (!*newcomm)
            rc = bolt_err_set(BOLT_ERR_NOMEM, "bolt_comm_split: out of memory");
    }
    free(reply);
    return rc;
}

int bolt_comm_dup(bolt_comm_t comm, bolt_comm_t *newcomm)
{
    int rc = bolt_comm_check(comm, "bolt_comm_dup");
    return rc ? rc : bolt_comm_split(comm, 0, comm->rank, newcomm);
}

/* Context ids that need no agreement: 2 * (n * world size + world rank) +
 * OWN_CTX_BASE for the n-th one this process takes, so no two processes
 * ever take the same, and none meets the predefined ones (below
 * BOLT_CTX_FIRST_FREE). Every new communicator's id is one of these, taken by
 * one process and sent to the others: a nonblocking duplicate
 * (MPI_Comm_idup) needs no agreement round, which could not start from
 * inside a later test or wait without breaking the order of collectives on
 * the parent; and threads that make communicators at once never meet. */
#define OWN_CTX_BASE 0x80000000u

int bolt_comm_ctx_reserve(uint32_t *ctx)
{
    static uint64_t taken;
    uint64_t k = taken * (uint64_t)bolt_rt.size + (uint64_t)bolt_rt.rank;
    if (k >= (UINT32_MAX - OWN_CTX_BASE) / 2)
        return bolt_err_set(BOLT_ERR_NOMEM, "bolt_comm_ctx_reserve: this process has used all "
                                            "its %llu context ids for new communicators",
                            (unsigned long long)taken);
    taken++;
    *ctx = OWN_CTX_BASE + 2 * (uint32_t)k;
    return BOLT_OK;
}

int bolt_comm_dup_ctx(bolt_comm_t comm, uint32_t ctx, bolt_comm_t *newcomm)
{
    int rc = bolt_comm_check(comm, "bolt_comm_dup_ctx");
    if (rc)
        return rc;
    if (ctx < OWN_CTX_BASE || (ctx & 1))
        return bolt_err_set(BOLT_ERR_ARG, "bolt_comm_dup_ctx: context %u was not reserved by "
                                          "bolt_comm_ctx_reserve", ctx);
    if (!(*newcomm = bolt_comm_create(ctx, comm->rank, comm->size, comm->world_ranks)))
        return bolt_err_set(BOLT_ERR_NOMEM, "bolt_comm_dup_ctx: out of memory");
    return BOLT_OK;
}

/* Tags of bolt_comm_create_group on the parent's internal context: above
 * every tag split (below 16) and the collectives (16..0x3fffff10) use. */
#define TAG_GROUP_BASE 0x40000000

/* Only the listed ranks take part, so the agreement is among them: the first
 * hears from every member, reserves a context id (as split's rank 0 does)
 * and sends it back; 0 there means it failed. */
int bolt_comm_create_group(bolt_comm_t comm, int n, const int *ranks, int tag,
                           bolt_comm_t *newcomm)
{
    const char *fn = "bolt_comm_create_group";
    int rc = bolt_comm_check(comm, fn), me = -1;
    if (rc)
        return rc;
    if (!newcomm || !ranks || n < 1)
        return bolt_err_set(BOLT_ERR_ARG, "%s: %s", fn,
                            !newcomm ? "newcomm pointer is NULL"
                                     : "the rank list is empty (at least the caller must be in it)");
    if (tag < 0 || tag > BOLT_TAG_UB)
        return bolt_err_set(BOLT_ERR_ARG, "%s: tag %d is invalid: tags run from 0 to %d", fn, tag,
                            BOLT_TAG_UB);
    *newcomm = BOLT_COMM_NULL;
    int *wr = malloc((size_t)n * sizeof *wr);
    if (!wr)
        return bolt_err_set(BOLT_ERR_NOMEM, "%s: out of memory", fn);
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= comm->size) {
            free(wr);
            return bolt_err_set(BOLT_ERR_ARG, "%s: ranks[%d] = %d is out of range 0..%d", fn, i,
                                ranks[i], comm->size - 1);
        }
        for (int j = 0; j < i; j++)
            if (ranks[j] == ranks[i]) {
                free(wr);
                return bolt_err_set(BOLT_ERR_ARG, "%s: rank %d is listed twice", fn, ranks[i]);
            }
        if (ranks[i] == comm->rank)
            me = i;
        wr[i] = comm->world_ranks[ranks[i]];
    }
    if (me < 0) {
        free(wr);
        return bolt_err_set(BOLT_ERR_ARG, "%s: the calling rank %d is not in the list", fn,
                            comm->rank);
    }
    int t = TAG_GROUP_BASE | tag;
    uint32_t ctx = 0; /* the members' word "here"; the leader's reply: the id, 0 on failure */
    if (me == 0) {
        for (int i = 1; i < n && !rc; i++) {
            uint32_t here;
            rc = recv_internal(&here, sizeof here, ranks[i], t, comm);
        }
        if (!rc)
            rc = bolt_comm_ctx_reserve(&ctx);
        uint32_t reply = rc ? 0 : ctx;
        for (int i = 1; i < n; i++) {
            int src = isend_internal(&reply, sizeof reply, ranks[i], t, comm);
            if (src && !rc)
                rc = src;
        }
    } else {
        rc = isend_internal(&ctx, sizeof ctx, ranks[0], t, comm);
        if (!rc)
            rc = recv_internal(&ctx, sizeof ctx, ranks[0], t, comm);
        if (!rc && ctx == 0) {
            free(wr);
            return bolt_err_set(BOLT_ERR_PEER,
                                "%s: a member of the group failed, so no communicator was made",
                                fn);
        }
    }
    if (!rc) {
        *newcomm = bolt_comm_create(ctx, me, n, wr);
        if (!*newcomm)
            rc = bolt_err_set(BOLT_ERR_NOMEM, "%s: out of memory", fn);
    } else {
        rc = bolt_err_within(rc, fn);
    }
    free(wr);
    return rc;
}

/* ---- two groups joined through their leaders (MPI_Intercomm_create) ---------------- */
enum { TAG_JOIN_UP = 3, TAG_JOIN_PEER = 4, TAG_JOIN_DOWN = 5 };

/* What a leader sends the other leader (the context id it reserved and its
 * group's size), then its own members: a context id fresh for both
 * groups, or code, an error; whether their group comes first; the size of
 * the remote group, whose world ranks follow in a second message. */
struct join_head {
    uint32_t ctx;
    int code;
    int first;
    int n;
};

/* The leader's part: its members' word that they are there, a context id of
 * its own, then the exchange with the remote leader on peer's internal context (sends
 * posted before the receives, so neither leader waits for the other's send
 * to be taken). *h and *remote: what to tell the members. A native code. */
static int join_lead(struct bolt_comm *local, struct bolt_comm *peer, int remote_leader,
                     struct join_head *h, int **remote)
{
    const char *fn = "bolt_comm_join";
    uint32_t ctx = 0;
    int rc = BOLT_OK;
    for (int r = 0; r < local->size && !rc; r++) {
        uint32_t here = 0;
        if (r != local->rank)
            rc = recv_internal(&here, sizeof here, r, TAG_JOIN_UP, local);
    }
    if (rc)
        return bolt_err_within(rc, fn);
    if (!peer || remote_leader < 0 || remote_leader >= peer->size)
        return bolt_err_set(BOLT_ERR_ARG,
                            "%s: the remote leader %d is not a rank of the peer communicator%s", fn,
                            remote_leader, peer ? "" : " (none was given)");
    if (remote_leader == peer->rank)
        return bolt_err_set(BOLT_ERR_ARG,
                            "%s: the remote leader (rank %d of the peer communicator) is this "
                            "process, but the two groups must be disjoint",
                            fn, remote_leader);
    /* The leader of lower world rank reserves an id no other process can
     * take; both use it (the other sends 0). */
    const int first = local->world_ranks[local->rank] < peer->world_ranks[remote_leader];
    if (first && (rc = bolt_comm_ctx_reserve(&ctx)))
        return rc;
    struct join_head mine = {first ? ctx : 0, BOLT_OK, 0, local->size}, theirs;
    struct bolt_request *sr[2] = {NULL, NULL};
    rc = bolt_proto_isend(&mine, sizeof mine, remote_leader, TAG_JOIN_PEER, peer, peer->ctx + 1, 0,
                          &sr[0]);
    if (!rc)
        rc = bolt_proto_isend(local->world_ranks, (size_t)local->size * sizeof(int), remote_leader,
                              TAG_JOIN_PEER, peer, peer->ctx + 1, 0, &sr[1]);
    if (!rc)
        rc = recv_internal(&theirs, sizeof theirs, remote_leader, TAG_JOIN_PEER, peer);
    if (!rc && theirs.n < 1)
        rc = bolt_err_set(BOLT_ERR_PROTO, "%s: the remote leader sent a group of %d ranks", fn,
                          theirs.n);
    if (!rc && !first && theirs.ctx == 0)
        rc = bolt_err_set(BOLT_ERR_PROTO, "%s: the remote leader sent no context id", fn);
    if (!rc && !(*remote = malloc((size_t)theirs.n * sizeof **remote)))
        rc = bolt_err_set(BOLT_ERR_NOMEM, "%s: out of memory", fn);
    if (!rc)
        rc = recv_internal(*remote, (size_t)theirs.n * sizeof **remote, remote_leader,
                           TAG_JOIN_PEER, peer);
    for (int i = 0; i < 2; i++) {
        int src = sr[i] ? bolt_wait(&sr[i], NULL) : BOLT_OK;
        if (src && !rc)
            rc = src;
    }
    if (rc)
        return rc == BOLT_ERR_NOMEM ? rc : bolt_err_within(rc, fn);
    /* Both leaders check the same two lists, so both sides fail alike. */
    char *seen = calloc((size_t)bolt_rt.size, 1);
    if (!seen)
        return bolt_err_set(BOLT_ERR_NOMEM, "%s: out of memory", fn);
    for (int i = 0; i < local->size; i++)
        seen[local->world_ranks[i]] = 1;
    for (int i = 0; i < theirs.n && !rc; i++)
        if (seen[(*remote)[i]])
            rc = bolt_err_set(BOLT_ERR_ARG,
                              "%s: world rank %d is in both groups: the local and remote groups "
                              "must be disjoint",
                              fn, (*remote)[i]);
    free(seen);
    if (rc)
        return rc;
    *h = (struct join_head){first ? ctx : theirs.ctx, BOLT_OK, first, theirs.n};
    return BOLT_OK;
}

int bolt_comm_join(bolt_comm_t local, int local_leader, bolt_comm_t peer, int remote_leader,
                   bolt_comm_t *newcomm)
{
    const char *fn = "bolt_comm_join";
    int rc = bolt_comm_check(local, fn);
    if (rc)
        return rc;
    if (!newcomm)
        return bolt_err_set(BOLT_ERR_ARG, "%s: newcomm pointer is NULL", fn);
    if (local_leader < 0 || local_leader >= local->size)
        return bolt_err_set(BOLT_ERR_ARG, "%s: the local leader %d is not a rank of the local "
                            "communicator (0..%d)", fn, local_leader, local->size - 1);
    *newcomm = BOLT_COMM_NULL;
    struct join_head h = {0, BOLT_OK, 0, 0};
    int *remote = NULL;
    if (local->rank == local_leader) {
        /* Every member hears the outcome, failure included: none waits forever. */
        if ((h.code = join_lead(local, peer, remote_leader, &h, &remote)))
            h.ctx = 0;
        for (int r = 0; r < local->size; r++) {
            if (r == local->rank)
                continue;
            int src = isend_internal(&h, sizeof h, r, TAG_JOIN_DOWN, local);
            if (!src && !h.code)
                src = isend_internal(remote, (size_t)h.n * sizeof *remote, r, TAG_JOIN_DOWN, local);
            if (src && !rc)
                rc = src;
        }
        if (h.code) {
            free(remote);
            return h.code; /* its message is join_lead's */
        }
    } else {
        uint32_t here = 0;
        rc = isend_internal(&here, sizeof here, local_leader, TAG_JOIN_UP, local);
        if (!rc)
            rc = recv_internal(&h, sizeof h, local_leader, TAG_JOIN_DOWN, local);
        if (!rc && h.code)
            return bolt_err_set(h.code,
                                "%s: the local leader (rank %d) could not join the groups (%s): "
                                "its own error says why",
                                fn, local_leader, bolt_strerror(h.code));
        if (!rc && !(remote = malloc((size_t)h.n * sizeof *remote)))
            rc = bolt_err_set(BOLT_ERR_NOMEM, "%s: out of memory", fn);
        if (!rc)
            rc = recv_internal(remote, (size_t)h.n * sizeof *remote, local_leader, TAG_JOIN_DOWN,
                               local);
    }
    int n = local->size + h.n, *wr = rc ? NULL : malloc((size_t)n * sizeof *wr);
    if (!rc && !wr)
        rc = bolt_err_set(BOLT_ERR_NOMEM, "%s: out of memory", fn);
    if (rc) {
        free(remote);
        return rc == BOLT_ERR_NOMEM ? rc : bolt_err_within(rc, fn);
    }
    int off = h.first ? 0 : h.n;
    memcpy(wr + off, local->world_ranks, (size_t)local->size * sizeof *wr);
    memcpy(wr + (h.first ? local->size : 0), remote, (size_t)h.n * sizeof *wr);
    if (!(*newcomm = bolt_comm_create(h.ctx, off + local->rank, n, wr)))
        rc = bolt_err_set(BOLT_ERR_NOMEM, "%s: out of memory", fn);
    free(wr);
    free(remote);
    return rc;
}

int bolt_comm_free(bolt_comm_t *comm)
{
    if (!comm || !*comm)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_comm_free: no communicator");
    if ((*comm)->builtin)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_comm_free: the world and self communicators "
                                          "cannot be freed");
    bolt_comm_release(*comm);
    *comm = BOLT_COMM_NULL;
    return BOLT_OK;
}
