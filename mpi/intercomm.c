/* intercomm.c — intercommunicators (MPI 3.1, 6.6): two disjoint groups, the
 * ranks of point-to-point calls naming the other one.
 *
 * Underneath, an intercommunicator is a native communicator over both
 * groups, made by bolt_comm_join (the two leaders agree on its context over
 * the peer communicator), the group whose leader has the lower world rank
 * first, each in its own order. Remote rank j is native rank peer_base + j:
 * point-to-point calls only shift ranks, and a receive from MPI_ANY_SOURCE
 * matches the remote group alone, since nothing of the local group is ever
 * sent on it. A twin of it (face_comm.nbr) carries the collectives' messages
 * (intercoll.c). Merge, dup and split are native splits of the two groups
 * together. */
#include <stdio.h>
#include <stdlib.h>

#include "mpi/face.h"

int face_check_intra(MPI_Comm comm, const struct face_comm *c, const char *fn)
{
    if (!c->inter)
        return MPI_SUCCESS;
    return face_error(comm, fn, MPI_ERR_COMM,
                      "the communicator is an intercommunicator, and %s is defined on "
                      "intracommunicators only",
                      fn);
}

static int check_inter(MPI_Comm comm, const char *fn, struct face_comm **c)
{
    int rc = face_comm_check(comm, fn, c);
    if (rc || (*c)->inter)
        return rc;
    return face_error(comm, fn, MPI_ERR_COMM,
                      "the communicator is an intracommunicator: %s needs an intercommunicator",
                      fn);
}

/* A new intercommunicator handle over native (both groups; nlocal of them
 * this process's, first or not) and its collectives' twin; it owns both
 * once this succeeds. Its error handler is from's. */
static int inter_add(bolt_comm_t native, bolt_comm_t twin, int nlocal, int local_first,
                     const struct face_comm *from, MPI_Comm *out)
{
    int n, rc;
    bolt_comm_size(native, &n);
    int base = local_first ? nlocal : 0, *remote = malloc((size_t)(n - nlocal) * sizeof *remote);
    if (!remote)
        return MPI_ERR_NO_MEM;
    for (int j = 0; j < n - nlocal; j++)
        bolt_comm_world_rank(native, base + j, &remote[j]);
    if ((rc = face_comm_add(native, out))) {
        free(remote);
        return rc;
    }
    struct face_comm *c = face_comm_get(*out);
    int lbase = local_first ? 0 : n - nlocal;
    for (int i = 0; i < nlocal; i++)
        c->world_ranks[i] = c->world_ranks[lbase + i];
    c->rank -= lbase;
    c->size = nlocal;
    c->inter = 1;
    c->peers = n - nlocal;
    c->peer_base = base;
    c->remote_world = remote;
    c->nbr = twin;
    face_comm_set_errh(c, from->errh);
    return MPI_SUCCESS;
}

/* inter_add for a native pair just made: on failure both go. */
static int inter_make(MPI_Comm comm, bolt_comm_t native, bolt_comm_t twin, int nlocal,
                      int local_first, const struct face_comm *from, MPI_Comm *out,
                      const char *fn)
{
    int rc = inter_add(native, twin, nlocal, local_first, from, out);
    if (!rc)
        return MPI_SUCCESS;
    bolt_comm_free(&native);
    bolt_comm_free(&twin);
    *out = MPI_COMM_NULL;
    return face_error(comm, fn, rc, "out of memory");
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    const char *fn = "MPI_Intercomm_create";
    struct face_comm *c = NULL;
    int rc = face_comm_check(local_comm, fn, &c);
    if (rc || (rc = face_check_intra(local_comm, c, fn)))
        return rc;
    if (!newintercomm)
        return face_error(local_comm, fn, MPI_ERR_ARG, "newintercomm pointer is NULL");
    *newintercomm = MPI_COMM_NULL;
    if (local_leader < 0 || local_leader >= c->size)
        return face_error(local_comm, fn, MPI_ERR_RANK,
                          "local_leader %d is not a rank of local_comm (0..%d)", local_leader,
                          c->size - 1);
    /* The leader's own arguments: a fault there must still reach the join,
     * which tells every member of the group, so that none waits forever. */
    int cls = MPI_SUCCESS;
    char why[160] = "";
    bolt_comm_t peer = BOLT_COMM_NULL;
    if (c->rank == local_leader) {
        struct face_comm *p = face_comm_get(peer_comm);
        if (!p || p->inter) {
            cls = MPI_ERR_COMM;
            snprintf(why, sizeof why, "peer_comm %d is %s", peer_comm,
                     p ? "an intercommunicator: it must be an intracommunicator holding both "
                         "leaders"
                       : "not a live communicator");
        } else if (remote_leader < 0 || remote_leader >= p->size) {
            cls = MPI_ERR_RANK;
            snprintf(why, sizeof why, "remote_leader %d is not a rank of peer_comm (0..%d)",
                     remote_leader, p->size - 1);
        } else if (tag < 0 || tag > BOLT_TAG_UB) {
            cls = MPI_ERR_TAG;
            snprintf(why, sizeof why, "tag %d is invalid: tags run from 0 to MPI_TAG_UB (%d)",
                     tag, BOLT_TAG_UB);
        } else {
            peer = p->native;
        }
    }
    bolt_comm_t n = BOLT_COMM_NULL, twin = BOLT_COMM_NULL;
    rc = bolt_comm_join(c->native, local_leader, peer, cls ? -1 : remote_leader, &n);
    if (cls)
        return face_error(local_comm, fn, cls, "%s", why);
    if (rc)
        return face_native_error(local_comm, fn, rc);
    int w0;
    bolt_comm_world_rank(n, 0, &w0);
    if ((rc = bolt_comm_dup(n, &twin))) {
        bolt_comm_free(&n);
        return face_native_error(local_comm, fn, rc);
    }
    return inter_make(local_comm, n, twin, c->size, w0 == c->world_ranks[0], c, newintercomm, fn);
}

/* The two groups as one intracommunicator: the group that passed high =
 * false first; when both passed the same, the native order. A split keyed
 * by high keeps each group's order (ties go by native rank). */
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    const char *fn = "MPI_Intercomm_merge";
    struct face_comm *c = NULL;
    bolt_comm_t n = BOLT_COMM_NULL;
    int rc = check_inter(intercomm, fn, &c);
    if (rc)
        return rc;
    if (!newintracomm)
        return face_error(intercomm, fn, MPI_ERR_ARG, "newintracomm pointer is NULL");
    *newintracomm = MPI_COMM_NULL;
    if ((rc = bolt_comm_split(c->native, 0, high != 0, &n)))
        return face_native_error(intercomm, fn, rc);
    if ((rc = face_comm_add(n, newintracomm))) {
        bolt_comm_free(&n);
        return face_error(intercomm, fn, rc, "out of memory");
    }
    face_comm_set_errh(face_comm_get(*newintracomm), c->errh);
    return MPI_SUCCESS;
}

int face_inter_dup(MPI_Comm comm, struct face_comm *c, MPI_Comm *newcomm, const char *fn)
{
    bolt_comm_t n = BOLT_COMM_NULL, twin = BOLT_COMM_NULL;
    int rc = bolt_comm_dup(c->native, &n);
    if (!rc && (rc = bolt_comm_dup(c->nbr, &twin)))
        bolt_comm_free(&n);
    if (rc)
        return face_native_error(comm, fn, rc);
    return inter_make(comm, n, twin, c->size, c->peer_base != 0, c, newcomm, fn);
}

/* Processes of one color in both groups form a new intercommunicator; a
 * color found in one group only gives MPI_COMM_NULL. The native split
 * orders by (key, rank): each new group's order, but the groups mixed; a
 * second split of that puts the old first group's members first again. */
int face_inter_split(MPI_Comm comm, struct face_comm *c, int color, int key, MPI_Comm *newcomm,
                     const char *fn)
{
    bolt_comm_t a = BOLT_COMM_NULL, b = BOLT_COMM_NULL, twin = BOLT_COMM_NULL;
    int first = c->peer_base != 0, rc;
    *newcomm = MPI_COMM_NULL;
    if ((rc = bolt_comm_split(c->native, color == MPI_UNDEFINED ? BOLT_UNDEFINED : color, key, &a)))
        return face_native_error(comm, fn, rc);
    if (a == BOLT_COMM_NULL)
        return MPI_SUCCESS;
    int n, me, nlocal = 0, mine = 0, nworld = face_comm_get(MPI_COMM_WORLD)->size;
    char *local = calloc((size_t)nworld, 1);
    if (!local) {
        bolt_comm_free(&a);
        return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int i = 0; i < c->size; i++)
        local[c->world_ranks[i]] = 1;
    bolt_comm_size(a, &n);
    bolt_comm_rank(a, &me);
    for (int i = 0; i < n; i++) {
        int w;
        bolt_comm_world_rank(a, i, &w);
        if (i == me)
            mine = nlocal;
        nlocal += local[w];
    }
    free(local);
    rc = bolt_comm_split(a, 0, (first ? 0 : n) + mine, &b);
    if (!rc && (rc = bolt_comm_dup(b, &twin)))
        bolt_comm_free(&b);
    bolt_comm_free(&a);
    if (rc)
        return face_native_error(comm, fn, rc);
    if (nlocal == n) { /* every member of b sees this: none has a remote group */
        bolt_comm_free(&b);
        bolt_comm_free(&twin);
        return MPI_SUCCESS;
    }
    return inter_make(comm, b, twin, nlocal, first, c, newcomm, fn);
}

/* MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL for two lists of world ranks. */
static int ranks_compare(const int *a, int na, const int *b, int nb)
{
    if (na != nb)
        return MPI_UNEQUAL;
    int same = 1;
    for (int i = 0; i < na; i++) {
        int found = 0;
        same = same && a[i] == b[i];
        for (int j = 0; j < nb && !found; j++)
            found = a[i] == b[j];
        if (!found)
            return MPI_UNEQUAL;
    }
    return same ? MPI_IDENT : MPI_SIMILAR;
}

int face_inter_compare(const struct face_comm *a, const struct face_comm *b)
{
    if (!a->inter || !b->inter)
        return MPI_UNEQUAL;
    int l = ranks_compare(a->world_ranks, a->size, b->world_ranks, b->size);
    int r = ranks_compare(a->remote_world, a->peers, b->remote_world, b->peers);
    if (l == MPI_UNEQUAL || r == MPI_UNEQUAL)
        return MPI_UNEQUAL;
    return l == MPI_IDENT && r == MPI_IDENT ? MPI_CONGRUENT : MPI_SIMILAR;
}

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, "MPI_Comm_test_inter", &c);
    if (rc)
        return rc;
    if (!flag)
        return face_error(comm, "MPI_Comm_test_inter", MPI_ERR_ARG, "flag pointer is NULL");
    *flag = c->inter;
    return MPI_SUCCESS;
}

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    struct face_comm *c = NULL;
    int rc = check_inter(comm, "MPI_Comm_remote_size", &c);
    if (rc)
        return rc;
    if (!size)
        return face_error(comm, "MPI_Comm_remote_size", MPI_ERR_ARG, "size pointer is NULL");
    *size = c->peers;
    return MPI_SUCCESS;
}

int face_inter_check(MPI_Comm comm, const char *fn, struct face_comm **c)
{
    return check_inter(comm, fn, c);
}
