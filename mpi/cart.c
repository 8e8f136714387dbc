/* cart.c — Cartesian topologies: Dims_create, Cart_create and the queries on
 * a Cartesian communicator. Ranks are laid out in row-major order (the last
 * dimension varies fastest), as the standard says; reorder is ignored, so a
 * Cartesian rank is the rank in the parent. The topology lives in the
 * communicator (struct face_cart) and is copied by MPI_Comm_dup (graph.c). */
#include <stdlib.h>
#include <string.h>

#include "mpi/face.h"

/* ---- Dims_create ---------------------------------------------------------------- */

/* Open MPI's and MPICH's way: the prime factors of the free part, largest
 * first, each multiplied into the currently smallest free dimension; then the
 * free dimensions in non-increasing order. */
int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    const char *fn = "MPI_Dims_create";
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    if (nnodes < 1)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "nnodes = %d: it must be positive", nnodes);
    if (ndims < 0 || (ndims > 0 && !dims))
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_DIMS,
                          ndims < 0 ? "ndims = %d is negative" : "dims is NULL (ndims = %d)", ndims);
    int fixed = 1, nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return face_error(MPI_COMM_NULL, fn, MPI_ERR_DIMS,
                              "dims[%d] = %d is negative: give 0 (free) or a positive extent", i,
                              dims[i]);
        if (dims[i] > 0)
            fixed *= dims[i];
        else
            nfree++;
        if (fixed > nnodes)
            break;
    }
    if (nnodes % fixed)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_DIMS,
                          "the fixed entries of dims multiply to %d, which does not divide "
                          "nnodes = %d",
                          fixed, nnodes);
    int rest = nnodes / fixed;
    if (nfree == 0) {
        if (rest != 1)
            return face_error(MPI_COMM_NULL, fn, MPI_ERR_DIMS,
                              "every entry of dims is fixed and they multiply to %d, not "
                              "nnodes = %d",
                              fixed, nnodes);
        return MPI_SUCCESS;
    }
    int *f = malloc(sizeof(int) * 32), nf = 0, *v = calloc((size_t)nfree, sizeof(int));
    if (!f || !v) {
        free(f);
        free(v);
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int p = 2, n = rest; n > 1; p++) { /* at most 31 factors in an int */
        if ((long)p * p > n)
            p = n;
        while (n % p == 0) {
            f[nf++] = p;
            n /= p;
        }
    }
    for (int i = 0; i < nfree; i++)
        v[i] = 1;
    for (int k = nf - 1; k >= 0; k--) {
        int lo = 0;
        for (int i = 1; i < nfree; i++)
            if (v[i] < v[lo])
                lo = i;
        v[lo] *= f[k];
    }
    /* Non-increasing order (insertion sort: ndims is small). */
    for (int i = 1; i < nfree; i++)
        for (int j = i; j > 0 && v[j] > v[j - 1]; j--) {
            int t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    for (int i = 0, k = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = v[k++];
    free(f);
    free(v);
    return MPI_SUCCESS;
}

/* ---- the topology of a communicator -------------------------------------------------- */

struct face_cart *face_cart_new(int ndims, const int *dims, const int *periods)
{
    struct face_cart *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->ndims = ndims;
    t->dims = malloc((size_t)(ndims ? ndims : 1) * sizeof(int));
    t->periods = malloc((size_t)(ndims ? ndims : 1) * sizeof(int));
    if (!t->dims || !t->periods) {
        free(t->dims);
        free(t->periods);
        free(t);
        return NULL;
    }
    for (int i = 0; i < ndims; i++) {
        t->dims[i] = dims[i];
        t->periods[i] = periods[i] != 0;
    }
    return t;
}

/* Checks that comm is a live communicator with a Cartesian topology. */
static int cart_check(MPI_Comm comm, const char *fn, struct face_comm **out)
{
    int rc = face_comm_check(comm, fn, out);
    if (rc)
        return rc;
    if (!(*out)->cart)
        return face_error(comm, fn, MPI_ERR_TOPOLOGY,
                          "the communicator has no Cartesian topology: make one with "
                          "MPI_Cart_create");
    return MPI_SUCCESS;
}

static void coords_of(const struct face_cart *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    const char *fn = "MPI_Cart_create";
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm_old, fn, &c);
    (void)reorder; /* ranks keep their order: allowed, and what codes expect anyway */
    if (rc || (rc = face_check_intra(comm_old, c, fn)))
        return rc;
    if (!comm_cart)
        return face_error(comm_old, fn, MPI_ERR_ARG, "comm_cart pointer is NULL");
    if (ndims < 0 || (ndims > 0 && (!dims || !periods)))
        return face_error(comm_old, fn, MPI_ERR_DIMS,
                          ndims < 0 ? "ndims = %d is negative" : "dims or periods is NULL (ndims = %d)",
                          ndims);
    long n = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return face_error(comm_old, fn, MPI_ERR_DIMS,
                              "dims[%d] = %d: every extent must be positive (MPI_Dims_create "
                              "fills zeros)", i, dims[i]);
        n *= dims[i];
        if (n > c->size)
            break;
    }
    if (n > c->size)
        return face_error(comm_old, fn, MPI_ERR_DIMS,
                          "the grid needs more ranks than the communicator's %d", c->size);
    MPI_Comm h;
    rc = face_comm_split(comm_old, c->rank < n ? 0 : MPI_UNDEFINED, c->rank, &h, fn);
    if (rc)
        return rc;
    *comm_cart = h;
    if (h == MPI_COMM_NULL)
        return MPI_SUCCESS;
    if (!(face_comm_get(h)->cart = face_cart_new(ndims, dims, periods))) {
        PMPI_Comm_free(comm_cart);
        return face_error(comm_old, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    if ((rc = face_topo_attach(h, fn)))
        PMPI_Comm_free(comm_cart);
    return rc;
}

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    struct face_comm *c;
    int rc = cart_check(comm, "MPI_Cartdim_get", &c);
    if (rc)
        return rc;
    if (!ndims)
        return face_error(comm, "MPI_Cartdim_get", MPI_ERR_ARG, "ndims pointer is NULL");
    *ndims = c->cart->ndims;
    return MPI_SUCCESS;
}

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    struct face_comm *c;
    int rc = face_comm_check(comm, "MPI_Topo_test", &c);
    if (rc)
        return rc;
    if (!status)
        return face_error(comm, "MPI_Topo_test", MPI_ERR_ARG, "status pointer is NULL");
    *status = c->cart ? MPI_CART : c->graph ? c->graph->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    const char *fn = "MPI_Cart_get";
    struct face_comm *c;
    int rc = cart_check(comm, fn, &c);
    if (rc)
        return rc;
    const struct face_cart *t = c->cart;
    if (maxdims < t->ndims)
        return face_error(comm, fn, MPI_ERR_ARG,
                          "maxdims = %d is less than the topology's %d dimensions", maxdims,
                          t->ndims);
    if (t->ndims > 0 && (!dims || !periods || !coords))
        return face_error(comm, fn, MPI_ERR_ARG, "dims, periods or coords is NULL");
    for (int i = 0; i < t->ndims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
    }
    coords_of(t, c->rank, coords);
    return MPI_SUCCESS;
}

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    const char *fn = "MPI_Cart_coords";
    struct face_comm *c;
    int rc = cart_check(comm, fn, &c);
    if (rc)
        return rc;
    if (rank < 0 || rank >= c->size)
        return face_error(comm, fn, MPI_ERR_RANK, "rank %d is out of range 0..%d", rank,
                          c->size - 1);
    if (maxdims < c->cart->ndims || (c->cart->ndims > 0 && !coords))
        return face_error(comm, fn, MPI_ERR_ARG,
                          "maxdims = %d is less than the topology's %d dimensions (or coords "
                          "is NULL)", maxdims, c->cart->ndims);
    coords_of(c->cart, rank, coords);
    return MPI_SUCCESS;
}

void face_cart_neighbors(const struct face_cart *t, int rank, int *nbrs)
{
    /* Row-major: a step in dimension i moves the rank by the product of the
     * extents after it. */
    long stride = 1;
    for (int i = t->ndims - 1; i >= 0; i--) {
        int d = t->dims[i], x = (int)(rank / stride % d);
        for (int k = 0; k < 2; k++) {
            int y = x + (k ? 1 : -1);
            if (!t->periods[i] && (y < 0 || y >= d))
                nbrs[2 * i + k] = MPI_PROC_NULL;
            else
                nbrs[2 * i + k] = (int)(rank + ((y + d) % d - x) * stride);
        }
        stride *= d;
    }
}

/* Rank of coords; periodic dimensions wrap, others must be in range. */
static int rank_of_coords(MPI_Comm comm, const struct face_cart *t, const int *coords, int *rank,
                          const char *fn)
{
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int x = coords[i], d = t->dims[i];
        if (t->periods[i])
            x = ((x % d) + d) % d;
        else if (x < 0 || x >= d)
            return face_error(comm, fn, MPI_ERR_RANK,
                              "coords[%d] = %d is outside 0..%d and dimension %d is not periodic",
                              i, x, d - 1, i);
        r = r * d + x;
    }
    *rank = r;
    return MPI_SUCCESS;
}

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    const char *fn = "MPI_Cart_rank";
    struct face_comm *c;
    int rc = cart_check(comm, fn, &c);
    if (rc)
        return rc;
    if (!rank || (c->cart->ndims > 0 && !coords))
        return face_error(comm, fn, MPI_ERR_ARG, "coords or rank pointer is NULL");
    return rank_of_coords(comm, c->cart, coords, rank, fn);
}

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    const char *fn = "MPI_Cart_shift";
    struct face_comm *c;
    int rc = cart_check(comm, fn, &c);
    if (rc)
        return rc;
    const struct face_cart *t = c->cart;
    if (direction < 0 || direction >= t->ndims)
        return face_error(comm, fn, MPI_ERR_DIMS,
                          "direction %d is not a dimension of the topology (0..%d)", direction,
                          t->ndims - 1);
    if (!rank_source || !rank_dest)
        return face_error(comm, fn, MPI_ERR_ARG, "rank_source or rank_dest pointer is NULL");
    int coords[64], *co = t->ndims <= 64 ? coords : malloc((size_t)t->ndims * sizeof(int));
    if (!co)
        return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    coords_of(t, c->rank, co);
    int me = co[direction], d = t->dims[direction];
    /* Off the edge of a non-periodic dimension is MPI_PROC_NULL. */
    for (int k = 0; k < 2; k++) {
        long x = (long)me + (k == 0 ? -(long)disp : (long)disp);
        int *out = k == 0 ? rank_source : rank_dest;
        if (!t->periods[direction] && (x < 0 || x >= d)) {
            *out = MPI_PROC_NULL;
            continue;
        }
        co[direction] = (int)(((x % d) + d) % d);
        rank_of_coords(comm, t, co, out, fn);
    }
    if (co != coords)
        free(co);
    return MPI_SUCCESS;
}

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    const char *fn = "MPI_Cart_sub";
    struct face_comm *c;
    int rc = cart_check(comm, fn, &c);
    if (rc)
        return rc;
    const struct face_cart *t = c->cart;
    if (!newcomm || (t->ndims > 0 && !remain_dims))
        return face_error(comm, fn, MPI_ERR_ARG, "remain_dims or newcomm pointer is NULL");
    int *co = malloc((size_t)(t->ndims + 1) * sizeof(int));
    int *dims = malloc((size_t)(t->ndims + 1) * sizeof(int));
    int *periods = malloc((size_t)(t->ndims + 1) * sizeof(int));
    if (!co || !dims || !periods) {
        free(co);
        free(dims);
        free(periods);
        return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    coords_of(t, c->rank, co);
    /* Ranks agreeing on the dropped coordinates share a subgrid; inside it the
     * kept coordinates, row-major, give the rank. */
    int color = 0, key = 0, nd = 0;
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i]) {
            key = key * t->dims[i] + co[i];
            dims[nd] = t->dims[i];
            periods[nd++] = t->periods[i];
        } else {
            color = color * t->dims[i] + co[i];
        }
    }
    MPI_Comm h = MPI_COMM_NULL;
    rc = face_comm_split(comm, color, key, &h, fn);
    if (!rc && !(face_comm_get(h)->cart = face_cart_new(nd, dims, periods))) {
        PMPI_Comm_free(&h);
        rc = face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    if (!rc && (rc = face_topo_attach(h, fn)))
        PMPI_Comm_free(&h);
    free(co);
    free(dims);
    free(periods);
    if (!rc)
        *newcomm = h;
    return rc;
}

/* The rank this process would have in the grid: reorder is never done, so
 * its own rank when the grid has room for it. */
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    const char *fn = "MPI_Cart_map";
    struct face_comm *c;
    int rc = face_comm_check(comm, fn, &c);
    (void)periods; /* a periodic dimension needs no other placement */
    if (rc)
        return rc;
    if (!newrank)
        return face_error(comm, fn, MPI_ERR_ARG, "newrank pointer is NULL");
    if (ndims < 0 || (ndims > 0 && !dims))
        return face_error(comm, fn, MPI_ERR_DIMS,
                          ndims < 0 ? "ndims = %d is negative" : "dims is NULL (ndims = %d)", ndims);
    long n = 1;
    for (int i = 0; i < ndims && n <= c->size; i++) {
        if (dims[i] <= 0)
            return face_error(comm, fn, MPI_ERR_DIMS, "dims[%d] = %d: every extent must be positive",
                              i, dims[i]);
        n *= dims[i];
    }
    if (n > c->size)
        return face_error(comm, fn, MPI_ERR_DIMS,
                          "the grid needs more ranks than the communicator's %d", c->size);
    *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
