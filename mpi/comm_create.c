/* comm_create.c — communicators from groups.
 *
 * MPI_Comm_create is collective over the parent: a split where members take
 * their rank in the group as key and, as color, the lowest parent rank in
 * the group, so that processes passing different, disjoint groups (allowed
 * since MPI 2.2) get one communicator per group. MPI_Comm_create_group is
 * collective over the group only, so it cannot be a split: the members agree
 * on a context among themselves (bolt_comm_create_group), on the parent's
 * internal context with the user's tag kept apart from every other call. */
#include <stdlib.h>

#include "mpi/face.h"

/* Parent ranks of the group's members (MPI_ERR_GROUP when one is not in
 * the parent), the caller's rank in the group (MPI_UNDEFINED if none) and the
 * lowest of those parent ranks (the same for every member; -1 if empty). */
static int group_in_comm(MPI_Comm comm, const struct face_comm *c, const struct face_group *g,
                         int **ranks, int *me, int *lowest, const char *fn)
{
    int *r = malloc(((size_t)g->size + 1) * sizeof *r);
    if (!r)
        return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    *me = MPI_UNDEFINED;
    *lowest = -1;
    for (int i = 0; i < g->size; i++) {
        r[i] = -1;
        for (int j = 0; j < c->size && r[i] < 0; j++)
            if (c->world_ranks[j] == g->world_ranks[i])
                r[i] = j;
        if (r[i] < 0) {
            free(r);
            return face_error(comm, fn, MPI_ERR_GROUP,
                              "rank %d of the group (world rank %d) is not in the communicator: "
                              "the group must be a subset of the communicator's group",
                              i, g->world_ranks[i]);
        }
        if (r[i] == c->rank)
            *me = i;
        if (*lowest < 0 || r[i] < *lowest)
            *lowest = r[i];
    }
    *ranks = r;
    return MPI_SUCCESS;
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create";
    struct face_comm *c = NULL;
    struct face_group *g = NULL;
    int *ranks = NULL, me, lowest, rc;
    if ((rc = face_comm_check(comm, fn, &c)) || (rc = face_group_check(comm, group, fn, &g)))
        return rc;
    if (!newcomm)
        return face_error(comm, fn, MPI_ERR_ARG, "newcomm pointer is NULL");
    if ((rc = group_in_comm(comm, c, g, &ranks, &me, &lowest, fn)))
        return rc;
    free(ranks);
    /* Disjoint groups have different lowest members: one color each. An
     * intercommunicator's groups each pass a subset of their own, to be
     * paired: one color for both. */
    if (c->inter && me != MPI_UNDEFINED)
        lowest = 0;
    return face_comm_split(comm, me == MPI_UNDEFINED ? MPI_UNDEFINED : lowest, me, newcomm, fn);
}

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create_group";
    struct face_comm *c = NULL;
    struct face_group *g = NULL;
    int *ranks = NULL, me, lowest, rc;
    if ((rc = face_comm_check(comm, fn, &c)) || (rc = face_check_intra(comm, c, fn)) ||
        (rc = face_group_check(comm, group, fn, &g)) || (rc = face_check_tag(comm, tag, 0, fn)))
        return rc;
    if (!newcomm)
        return face_error(comm, fn, MPI_ERR_ARG, "newcomm pointer is NULL");
    if ((rc = group_in_comm(comm, c, g, &ranks, &me, &lowest, fn)))
        return rc;
    *newcomm = MPI_COMM_NULL;
    if (me == MPI_UNDEFINED) {
        /* Only members call it; a non-member (or the empty group) gets nothing. */
        free(ranks);
        return MPI_SUCCESS;
    }
    bolt_comm_t n = BOLT_COMM_NULL;
    rc = bolt_comm_create_group(c->native, g->size, ranks, tag, &n);
    free(ranks);
    if (rc)
        return face_native_error(comm, fn, rc);
    if ((rc = face_comm_add(n, newcomm))) {
        bolt_comm_free(&n);
        return face_error(comm, fn, rc, "out of memory");
    }
    face_comm_set_errh(face_comm_get(*newcomm), c->errh);
    return MPI_SUCCESS;
}
