/* darray.c — MPI_Type_create_darray (MPI 3.1, 4.1.4): one process's part of
 * an array distributed over a grid of processes the way HPF does it.
 *
 * The process grid is row-major whatever the array's order. In each
 * dimension a process owns a set of index ranges: one block of
 * ceil(gsize/psize) (or darg) indices for MPI_DISTRIBUTE_BLOCK, blocks of
 * darg (default 1) dealt round-robin for MPI_DISTRIBUTE_CYCLIC, all of them
 * for MPI_DISTRIBUTE_NONE. The type is built as the standard defines it,
 * from the fastest-varying dimension outwards: each dimension an hindexed
 * type of its ranges over the one inside, resized to the whole dimension, so
 * elements come in the array's order and the extent is the whole array.
 */
#include <stdlib.h>

#include "mpi/dtype.h"

/* The ranges process coordinate `coord` owns in one dimension, in index
 * order: nb ranges at first[i] of len[i] indices. */
struct ranges {
    int nb;
    int *len;
    MPI_Aint *first;
};

static int dim_ranges(int gsize, int distrib, int darg, int psize, int coord, struct ranges *r)
{
    int b, n;
    switch (distrib) {
    case MPI_DISTRIBUTE_NONE:
        b = gsize, n = 1;
        break;
    case MPI_DISTRIBUTE_BLOCK:
        b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (int)(((long)gsize + psize - 1) / psize) : darg;
        n = 1;
        break;
    default: /* cyclic: blocks coord, coord + psize, ... */
        b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        n = (int)((((long)gsize + b - 1) / b + psize - 1 - coord) / psize);
        break;
    }
    r->len = malloc((size_t)(n > 0 ? n : 1) * sizeof *r->len);
    r->first = malloc((size_t)(n > 0 ? n : 1) * sizeof *r->first);
    if (!r->len || !r->first)
        return MPI_ERR_NO_MEM;
    r->nb = 0;
    for (int i = 0; i < n; i++) {
        long start = distrib == MPI_DISTRIBUTE_NONE    ? 0
                   : distrib == MPI_DISTRIBUTE_BLOCK ? (long)coord * b
                                                     : ((long)coord + (long)i * psize) * b;
        long end = start + b < gsize ? start + b : gsize;
        if (end <= start)
            continue; /* a block past the end: nothing of it here */
        r->first[r->nb] = start;
        r->len[r->nb++] = (int)(end - start);
    }
    return MPI_SUCCESS;
}

static int check_args(const char *fn, int size, int rank, int ndims, const int *gsizes,
                      const int *distribs, const int *dargs, const int *psizes, int order)
{
    if (size < 1 || rank < 0 || rank >= size)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          "rank %d of %d processes: size must be positive and rank in 0..size-1",
                          rank, size);
    if (ndims < 1 || !gsizes || !distribs || !dargs || !psizes)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          ndims < 1 ? "ndims %d must be at least 1"
                                    : "an array argument is NULL (ndims %d)",
                          ndims);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
    long grid = 1;
    for (int i = 0; i < ndims; i++) {
        int g = gsizes[i], d = distribs[i], a = dargs[i], p = psizes[i];
        if (g < 1 || p < 1)
            return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                              "dimension %d: gsize %d and psize %d must be positive", i, g, p);
        if (d != MPI_DISTRIBUTE_BLOCK && d != MPI_DISTRIBUTE_CYCLIC && d != MPI_DISTRIBUTE_NONE)
            return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                              "dimension %d: distribution %d is not MPI_DISTRIBUTE_BLOCK, "
                              "_CYCLIC or _NONE",
                              i, d);
        if (d != MPI_DISTRIBUTE_NONE && a != MPI_DISTRIBUTE_DFLT_DARG && a < 1)
            return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                              "dimension %d: darg %d must be positive or MPI_DISTRIBUTE_DFLT_DARG",
                              i, a);
        if (d == MPI_DISTRIBUTE_BLOCK && a != MPI_DISTRIBUTE_DFLT_DARG && (long)a * p < g)
            return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                              "dimension %d: %d blocks of %d cannot hold its %d elements "
                              "(MPI_DISTRIBUTE_BLOCK needs darg * psize >= gsize)",
                              i, p, a, g);
        if (d == MPI_DISTRIBUTE_NONE && p != 1)
            return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                              "dimension %d is not distributed (MPI_DISTRIBUTE_NONE) but has %d "
                              "processes: its psize must be 1",
                              i, p);
        grid *= p;
        if (grid > size)
            break;
    }
    if (grid != size)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          "the process grid (the product of psizes) does not have %d processes",
                          size);
    return MPI_SUCCESS;
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[],
                            const int distribs[], const int dargs[], const int psizes[],
                            int order, MPI_Datatype old, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_darray";
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    if (!newtype)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "newtype pointer is NULL");
    struct face_type *o = face_type_get(old);
    if (!o)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_TYPE,
                          old == MPI_DATATYPE_NULL ? "oldtype is MPI_DATATYPE_NULL"
                                                   : "oldtype handle %d is not a live datatype",
                          old);
    if ((rc = check_args(fn, size, rank, ndims, gsizes, distribs, dargs, psizes, order)))
        return rc;
    size_t n = (size_t)ndims;
    struct face_contents *a = face_contents_new(4 * n + 4, 0, 1);
    int *coords = malloc(n * sizeof *coords);
    if (!a || !coords) {
        face_contents_free(a);
        free(coords);
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    a->ints[0] = size;
    a->ints[1] = rank;
    a->ints[2] = ndims;
    for (size_t i = 0; i < n; i++) {
        a->ints[3 + i] = gsizes[i];
        a->ints[3 + n + i] = distribs[i];
        a->ints[3 + 2 * n + i] = dargs[i];
        a->ints[3 + 3 * n + i] = psizes[i];
    }
    a->ints[3 + 4 * n] = order;
    a->types[0] = old;
    for (int i = ndims - 1, r = rank; i >= 0; i--) { /* row-major grid */
        coords[i] = r % psizes[i];
        r /= psizes[i];
    }
    MPI_Datatype cur = old;
    MPI_Aint ext = face_type_extent(o); /* of one step in the current dimension */
    for (int k = 0; k < ndims && !rc; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
        struct ranges r = {0, NULL, NULL};
        MPI_Datatype idx = MPI_DATATYPE_NULL, dim = MPI_DATATYPE_NULL;
        if ((rc = dim_ranges(gsizes[d], distribs[d], dargs[d], psizes[d], coords[d], &r)))
            rc = face_error(MPI_COMM_NULL, fn, rc, "out of memory");
        for (int i = 0; i < r.nb; i++)
            r.first[i] *= ext;
        if (!rc && !(rc = PMPI_Type_create_hindexed(r.nb, r.len, r.first, cur, &idx)))
            rc = PMPI_Type_create_resized(idx, 0, ext * gsizes[d], &dim);
        if (idx != MPI_DATATYPE_NULL)
            face_type_release(idx);
        if (cur != old)
            face_type_release(cur);
        cur = dim;
        ext *= gsizes[d];
        free(r.len);
        free(r.first);
    }
    free(coords);
    if (rc) {
        face_contents_free(a);
        if (cur != MPI_DATATYPE_NULL && cur != old)
            face_type_release(cur);
        return rc;
    }
    rc = face_type_wrap(fn, cur, MPI_COMBINER_DARRAY, a, newtype);
    face_type_release(cur);
    return rc;
}
