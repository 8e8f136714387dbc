/* group.c — MPI groups: ordered lists of world ranks behind int handles,
 * and the set operations on them. Groups are local objects: nothing here
 * communicates. Results with no member are MPI_GROUP_EMPTY, as in Open MPI. */
#include <stdlib.h>
#include <string.h>

#include "mpi/face.h"

static struct face_group empty_group = {1, 0, NULL};
static struct face_group **groups; /* [0] NULL, [1] EMPTY, then user groups */
static int ngroups, cap_groups;

static struct face_group *group_get(MPI_Group g)
{
    if (g == MPI_GROUP_EMPTY)
        return &empty_group;
    if (g <= MPI_GROUP_EMPTY || g >= ngroups || !groups[g] || !groups[g]->live)
        return NULL;
    return groups[g];
}

int face_group_live(MPI_Group g) { return group_get(g) != NULL; }

int face_group_check(MPI_Comm comm, MPI_Group g, const char *fn, struct face_group **out)
{
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    if (!(*out = group_get(g)))
        return face_error(comm, fn, MPI_ERR_GROUP,
                          g == MPI_GROUP_NULL ? "the group is MPI_GROUP_NULL"
                                              : "group handle %d is not a live group (freed?)",
                          g);
    return MPI_SUCCESS;
}

void face_groups_finalize(void)
{
    for (int i = MPI_GROUP_EMPTY + 1; i < ngroups; i++)
        if (groups[i]) {
            free(groups[i]->world_ranks);
            free(groups[i]);
        }
    free(groups);
    groups = NULL;
    ngroups = cap_groups = 0;
}

/* Makes a group of n world ranks (copied); n == 0 gives MPI_GROUP_EMPTY. */
static int group_new(MPI_Comm comm, const int *wr, int n, MPI_Group *out, const char *fn)
{
    if (n == 0) {
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    struct face_group *g = calloc(1, sizeof *g);
    int *copy = malloc((size_t)n * sizeof *copy);
    if (!g || !copy)
        goto nomem;
    memcpy(copy, wr, (size_t)n * sizeof *copy);
    int slot = -1;
    for (int i = MPI_GROUP_EMPTY + 1; i < ngroups && slot < 0; i++)
        if (!groups[i])
            slot = i;
    if (slot < 0) {
        if (ngroups < MPI_GROUP_EMPTY + 1)
            ngroups = MPI_GROUP_EMPTY + 1;
        if (ngroups >= cap_groups) {
            int c = cap_groups ? cap_groups * 2 : 16;
            struct face_group **t = realloc(groups, (size_t)c * sizeof *t);
            if (!t)
                goto nomem;
            memset(t + cap_groups, 0, (size_t)(c - cap_groups) * sizeof *t);
            groups = t;
            cap_groups = c;
        }
        slot = ngroups++;
    }
    *g = (struct face_group){1, n, copy};
    groups[slot] = g;
    *out = slot;
    return MPI_SUCCESS;
nomem:
    free(g);
    free(copy);
    return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory for a group of %d ranks", n);
}

/* Rank of world rank w in g, or MPI_UNDEFINED. */
static int rank_of(const struct face_group *g, int w)
{
    for (int i = 0; i < g->size; i++)
        if (g->world_ranks[i] == w)
            return i;
    return MPI_UNDEFINED;
}

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, "MPI_Comm_group", &c);
    if (rc)
        return rc;
    if (!group)
        return face_error(comm, "MPI_Comm_group", MPI_ERR_ARG, "group pointer is NULL");
    return group_new(comm, c->world_ranks, c->size, group, "MPI_Comm_group");
}

/* An intercommunicator's other group (intercomm.c). */
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    struct face_comm *c = NULL;
    int rc = face_inter_check(comm, "MPI_Comm_remote_group", &c);
    if (rc)
        return rc;
    if (!group)
        return face_error(comm, "MPI_Comm_remote_group", MPI_ERR_ARG, "group pointer is NULL");
    return group_new(comm, c->remote_world, c->peers, group, "MPI_Comm_remote_group");
}

int PMPI_Group_size(MPI_Group group, int *size)
{
    struct face_group *g;
    int rc = face_group_check(MPI_COMM_NULL, group, "MPI_Group_size", &g);
    if (rc)
        return rc;
    if (!size)
        return face_error(MPI_COMM_NULL, "MPI_Group_size", MPI_ERR_ARG, "size pointer is NULL");
    *size = g->size;
    return MPI_SUCCESS;
}

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    struct face_group *g;
    int rc = face_group_check(MPI_COMM_NULL, group, "MPI_Group_rank", &g);
    if (rc)
        return rc;
    if (!rank)
        return face_error(MPI_COMM_NULL, "MPI_Group_rank", MPI_ERR_ARG, "rank pointer is NULL");
    *rank = rank_of(g, face_comm_get(MPI_COMM_WORLD)->rank);
    return MPI_SUCCESS;
}

/* Checks a list of n distinct ranks of g; marks them in seen (g->size long). */
static int check_rank_list(const struct face_group *g, int n, const int *ranks, char *seen,
                           const char *fn)
{
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size)
            return face_error(MPI_COMM_NULL, fn, MPI_ERR_RANK,
                              "ranks[%d] = %d is out of range: the group has %d rank%s", i,
                              ranks[i], g->size, g->size == 1 ? "" : "s");
        if (seen[ranks[i]])
            return face_error(MPI_COMM_NULL, fn, MPI_ERR_RANK,
                              "rank %d is listed twice (ranks[%d]): ranks must be distinct",
                              ranks[i], i);
        seen[ranks[i]] = 1;
    }
    return MPI_SUCCESS;
}

static int check_n(int n, const void *list, MPI_Group *newgroup, const char *fn)
{
    if (n < 0)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "n = %d is negative", n);
    if ((n > 0 && !list) || !newgroup)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "%s pointer is NULL",
                          !newgroup ? "newgroup" : "rank list");
    return MPI_SUCCESS;
}

/* Incl/excl on a list of ranks, where the list is given or made from ranges. */
static int incl_excl(MPI_Group group, int n, const int *ranks, int excl, MPI_Group *newgroup,
                     const char *fn)
{
    struct face_group *g;
    int rc = face_group_check(MPI_COMM_NULL, group, fn, &g);
    if (rc || (rc = check_n(n, ranks, newgroup, fn)))
        return rc;
    char *seen = calloc((size_t)g->size + 1, 1);
    int *wr = malloc(((size_t)g->size + (size_t)n + 1) * sizeof *wr);
    if (!seen || !wr) {
        free(seen);
        free(wr);
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    int m = 0;
    if (!(rc = check_rank_list(g, n, ranks, seen, fn))) {
        if (excl) {
            for (int i = 0; i < g->size; i++)
                if (!seen[i])
                    wr[m++] = g->world_ranks[i];
        } else {
            for (int i = 0; i < n; i++)
                wr[m++] = g->world_ranks[ranks[i]];
        }
        rc = group_new(MPI_COMM_NULL, wr, m, newgroup, fn);
    }
    free(seen);
    free(wr);
    return rc;
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl(group, n, ranks, 0, newgroup, "MPI_Group_incl");
}

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl(group, n, ranks, 1, newgroup, "MPI_Group_excl");
}

/* Expands (first, last, stride) triplets into a rank list (checked later). */
static int expand_ranges(MPI_Group group, int n, int ranges[][3], int **out, int *count,
                         const char *fn)
{
    struct face_group *g;
    int rc = face_group_check(MPI_COMM_NULL, group, fn, &g);
    if (rc)
        return rc;
    if (n < 0 || (n > 0 && !ranges))
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "n = %d or the ranges pointer is invalid", n);
    long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0)
            return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "ranges[%d] has stride 0", i);
        if (first < 0 || first >= g->size || last < 0 || last >= g->size)
            return face_error(MPI_COMM_NULL, fn, MPI_ERR_RANK,
                              "ranges[%d] = (%d, %d, %d) names a rank outside the group of %d",
                              i, first, last, stride, g->size);
        long k = ((long)last - first) / stride;
        if (k >= 0)
            total += k + 1;
        if (total > g->size) /* some rank is named twice: the check says which */
            total = g->size + 1;
    }
    int *list = malloc(((size_t)total + 1) * sizeof *list), m = 0;
    if (!list)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < n && m < total; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        for (long r = first; m < total && (stride > 0 ? r <= last : r >= last); r += stride)
            list[m++] = (int)r;
    }
    *out = list;
    *count = m;
    return MPI_SUCCESS;
}

static int range_incl_excl(MPI_Group group, int n, int ranges[][3], int excl,
                           MPI_Group *newgroup, const char *fn)
{
    int *list = NULL, m = 0;
    int rc = expand_ranges(group, n, ranges, &list, &m, fn);
    if (rc)
        return rc;
    rc = incl_excl(group, m, list, excl, newgroup, fn);
    free(list);
    return rc;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_incl_excl(group, n, ranges, 0, newgroup, "MPI_Group_range_incl");
}

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_incl_excl(group, n, ranges, 1, newgroup, "MPI_Group_range_excl");
}

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    const char *fn = "MPI_Group_translate_ranks";
    struct face_group *a, *b;
    int rc;
    if ((rc = face_group_check(MPI_COMM_NULL, group1, fn, &a)) ||
        (rc = face_group_check(MPI_COMM_NULL, group2, fn, &b)))
        return rc;
    if (n < 0 || (n > 0 && (!ranks1 || !ranks2)))
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "n = %d or a rank array is invalid", n);
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= a->size))
            return face_error(MPI_COMM_NULL, fn, MPI_ERR_RANK,
                              "ranks1[%d] = %d is out of range: group1 has %d rank%s", i,
                              ranks1[i], a->size, a->size == 1 ? "" : "s");
    for (int i = 0; i < n; i++)
        ranks2[i] = ranks1[i] == MPI_PROC_NULL ? MPI_PROC_NULL
                                               : rank_of(b, a->world_ranks[ranks1[i]]);
    return MPI_SUCCESS;
}

enum set_op { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

/* The order is the standard's: group1's members first, in group1's order
 * (union then adds group2's others in group2's order). */
static int set_op(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup, enum set_op op,
                  const char *fn)
{
    struct face_group *a, *b;
    int rc;
    if ((rc = face_group_check(MPI_COMM_NULL, group1, fn, &a)) ||
        (rc = face_group_check(MPI_COMM_NULL, group2, fn, &b)))
        return rc;
    if (!newgroup)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "newgroup pointer is NULL");
    int *wr = malloc(((size_t)a->size + (size_t)b->size + 1) * sizeof *wr), m = 0;
    if (!wr)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < a->size; i++) {
        int in_b = rank_of(b, a->world_ranks[i]) != MPI_UNDEFINED;
        if (op == SET_UNION || (op == SET_INTERSECTION) == in_b)
            wr[m++] = a->world_ranks[i];
    }
    if (op == SET_UNION)
        for (int j = 0; j < b->size; j++)
            if (rank_of(a, b->world_ranks[j]) == MPI_UNDEFINED)
                wr[m++] = b->world_ranks[j];
    rc = group_new(MPI_COMM_NULL, wr, m, newgroup, fn);
    free(wr);
    return rc;
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(group1, group2, newgroup, SET_UNION, "MPI_Group_union");
}

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(group1, group2, newgroup, SET_INTERSECTION, "MPI_Group_intersection");
}

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(group1, group2, newgroup, SET_DIFFERENCE, "MPI_Group_difference");
}

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    const char *fn = "MPI_Group_compare";
    struct face_group *a, *b;
    int rc;
    if ((rc = face_group_check(MPI_COMM_NULL, group1, fn, &a)) ||
        (rc = face_group_check(MPI_COMM_NULL, group2, fn, &b)))
        return rc;
    if (!result)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "result pointer is NULL");
    if (a->size != b->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int same_order = 1;
    for (int i = 0; i < a->size; i++) {
        int j = rank_of(b, a->world_ranks[i]);
        if (j == MPI_UNDEFINED) {
            *result = MPI_UNEQUAL;
            return MPI_SUCCESS;
        }
        same_order &= j == i;
    }
    *result = same_order ? MPI_IDENT : MPI_SIMILAR;
    return MPI_SUCCESS;
}

int PMPI_Group_free(MPI_Group *group)
{
    struct face_group *g;
    if (!group)
        return face_error(MPI_COMM_NULL, "MPI_Group_free", MPI_ERR_ARG, "group pointer is NULL");
    int rc = face_group_check(MPI_COMM_NULL, *group, "MPI_Group_free", &g);
    if (rc)
        return rc;
    /* MPI_GROUP_EMPTY is predefined: freeing it only clears the handle. */
    if (*group != MPI_GROUP_EMPTY) {
        free(g->world_ranks);
        free(g);
        groups[*group] = NULL;
    }
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
