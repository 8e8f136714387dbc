/* mpi_topo.c — Cartesian topologies: MPI_Dims_create (balanced, honoring
 * fixed entries, errors), Cart_create (extra ranks get MPI_COMM_NULL),
 * Cart_get / coords / rank (periodic wrap), Cart_shift at the edges of a
 * non-periodic dimension, Cart_sub, Cartdim_get, Topo_test, and Comm_dup
 * keeping the topology. */
#include "mtest.h"

static void test_dims(void)
{
    struct {
        int nnodes, ndims, in[3], want[3];
    } t[] = {
        {4, 2, {0, 0}, {2, 2}},     {6, 2, {0, 0}, {3, 2}},       {12, 2, {0, 0}, {4, 3}},
        {8, 3, {0, 0, 0}, {2, 2, 2}}, {7, 2, {0, 0}, {7, 1}},     {12, 3, {0, 3, 0}, {2, 3, 2}},
        {1, 3, {0, 0, 0}, {1, 1, 1}}, {16, 2, {0, 0}, {4, 4}},    {6, 3, {0, 0, 0}, {3, 2, 1}},
        {24, 3, {0, 0, 0}, {4, 3, 2}}, {10, 2, {5, 0}, {5, 2}},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int d[3];
        memcpy(d, t[i].in, sizeof d);
        CHECK_MPI(MPI_Dims_create(t[i].nnodes, t[i].ndims, d));
        for (int k = 0; k < t[i].ndims; k++)
            CHECK(d[k] == t[i].want[k], "Dims_create(%d, %d): dims[%d] = %d, want %d",
                  t[i].nnodes, t[i].ndims, k, d[k], t[i].want[k]);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int d[2] = {4, 0}, cls = MPI_SUCCESS;
    int rc = MPI_Dims_create(6, 2, d); /* 4 does not divide 6 */
    CHECK(rc != MPI_SUCCESS, "Dims_create(6, {4, 0}) succeeded with %d x %d", d[0], d[1]);
    d[0] = -1;
    d[1] = 0;
    rc = MPI_Dims_create(6, 2, d);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_DIMS, "Dims_create with a negative entry gave class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* A 2-D grid over all ranks: periodic in dimension 0, not in dimension 1. */
static void test_cart(void)
{
    int dims[2] = {0, 0}, periods[2] = {1, 0}, st;
    MPI_Comm grid, dup, row, col, none;
    MPI_Dims_create(mt_size, 2, dims);
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid));
    CHECK(grid != MPI_COMM_NULL, "Cart_create over all ranks gave MPI_COMM_NULL");
    MPI_Topo_test(MPI_COMM_WORLD, &st);
    CHECK(st == MPI_UNDEFINED, "world's topology %d", st);
    MPI_Topo_test(grid, &st);
    CHECK(st == MPI_CART, "grid's topology %d", st);
    int nd = -1, r, gd[2], gp[2], gc[2];
    MPI_Cartdim_get(grid, &nd);
    CHECK(nd == 2, "Cartdim_get %d", nd);
    MPI_Comm_rank(grid, &r);
    MPI_Cart_get(grid, 2, gd, gp, gc);
    CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0,
          "Cart_get dims %dx%d periods %d %d", gd[0], gd[1], gp[0], gp[1]);
    /* Row-major: rank = c0 * dims[1] + c1. */
    CHECK(r == gc[0] * dims[1] + gc[1], "rank %d has coords (%d, %d)", r, gc[0], gc[1]);
    int c2[2], back = -1;
    for (int q = 0; q < mt_size; q++) {
        MPI_Cart_coords(grid, q, 2, c2);
        MPI_Cart_rank(grid, c2, &back);
        CHECK(back == q, "coords of %d map back to %d", q, back);
    }
    /* Periodic wrap in dimension 0. */
    int wrap[2] = {gc[0] + dims[0], gc[1]};
    MPI_Cart_rank(grid, wrap, &back);
    CHECK(back == r, "wrapped coords gave rank %d, want %d", back, r);
    wrap[0] = gc[0] - 3 * dims[0];
    MPI_Cart_rank(grid, wrap, &back);
    CHECK(back == r, "negative wrapped coords gave rank %d, want %d", back, r);

    /* Shifts: dimension 0 wraps; dimension 1 ends in MPI_PROC_NULL. */
    int src, dst;
    MPI_Cart_shift(grid, 0, 1, &src, &dst);
    CHECK(src == ((gc[0] + dims[0] - 1) % dims[0]) * dims[1] + gc[1], "shift dim 0 source %d", src);
    CHECK(dst == ((gc[0] + 1) % dims[0]) * dims[1] + gc[1], "shift dim 0 dest %d", dst);
    MPI_Cart_shift(grid, 1, 1, &src, &dst);
    CHECK(src == (gc[1] == 0 ? MPI_PROC_NULL : r - 1), "shift dim 1 source %d at column %d", src, gc[1]);
    CHECK(dst == (gc[1] == dims[1] - 1 ? MPI_PROC_NULL : r + 1), "shift dim 1 dest %d at column %d",
          dst, gc[1]);
    MPI_Cart_shift(grid, 1, dims[1], &src, &dst);
    CHECK(src == MPI_PROC_NULL && dst == MPI_PROC_NULL, "shift by the whole width: %d %d", src, dst);
    /* A halo step with those neighbours: PROC_NULL sides are skipped. */
    int from_left = -1;
    MPI_Cart_shift(grid, 1, 1, &src, &dst);
    MPI_Sendrecv(&r, 1, MPI_INT, dst, 3, &from_left, 1, MPI_INT, src, 3, grid, MPI_STATUS_IGNORE);
    CHECK(from_left == (src == MPI_PROC_NULL ? -1 : src), "halo from the left: %d", from_left);

    MPI_Comm_set_errhandler(grid, MPI_ERRORS_RETURN);
    int out[2] = {gc[0], dims[1]}, cls = MPI_SUCCESS;
    int rc = MPI_Cart_rank(grid, out, &back);
    MPI_Error_class(rc, &cls);
#ifdef BOLT_MPI
    CHECK(cls == MPI_ERR_RANK, "Cart_rank outside a non-periodic dimension gave class %d", cls);
#else /* Open MPI says MPI_ERR_ARG */
    CHECK(rc != MPI_SUCCESS, "Cart_rank outside a non-periodic dimension succeeded");
#endif
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Cartdim_get(MPI_COMM_WORLD, &nd);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY, "Cartdim_get on the world gave class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* The topology survives MPI_Comm_dup. */
    MPI_Comm_dup(grid, &dup);
    MPI_Topo_test(dup, &st);
    CHECK(st == MPI_CART, "dup's topology %d", st);
    MPI_Cart_get(dup, 2, gd, gp, c2);
    CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0 && c2[0] == gc[0] &&
              c2[1] == gc[1],
          "dup's topology differs");

    /* Rows keep dimension 1, columns dimension 0. */
    int keep_row[2] = {0, 1}, keep_col[2] = {1, 0}, s;
    CHECK_MPI(MPI_Cart_sub(grid, keep_row, &row));
    MPI_Comm_size(row, &s);
    MPI_Comm_rank(row, &r);
    CHECK(s == dims[1] && r == gc[1], "row: rank %d of %d", r, s);
    MPI_Cartdim_get(row, &nd);
    CHECK(nd == 1, "row has %d dimensions", nd);
    int sum = 0;
    MPI_Allreduce(&gc[0], &sum, 1, MPI_INT, MPI_SUM, row);
    CHECK(sum == gc[0] * dims[1], "a row mixes grid rows: sum %d", sum);
    CHECK_MPI(MPI_Cart_sub(grid, keep_col, &col));
    MPI_Comm_size(col, &s);
    MPI_Comm_rank(col, &r);
    CHECK(s == dims[0] && r == gc[0], "column: rank %d of %d", r, s);
    int cp[1], cd[1], cc[1];
    MPI_Cart_get(col, 1, cd, cp, cc);
    CHECK(cd[0] == dims[0] && cp[0] == 1 && cc[0] == gc[0], "column topology %d %d %d", cd[0], cp[0], cc[0]);
    MPI_Comm_free(&row);
    MPI_Comm_free(&col);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&grid);

    /* A grid smaller than the communicator: the others get MPI_COMM_NULL. */
    int one[1] = {mt_size > 1 ? mt_size - 1 : 1}, per[1] = {0};
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, one, per, 0, &none));
    int in = mt_rank < one[0];
    CHECK((none != MPI_COMM_NULL) == in, "rank %d of a %d-rank line: %s", mt_rank, one[0],
          none == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
    if (none != MPI_COMM_NULL) {
        MPI_Cart_shift(none, 0, -1, &src, &dst);
        CHECK(dst == (mt_rank == 0 ? MPI_PROC_NULL : mt_rank - 1), "negative shift dest %d", dst);
        CHECK(src == (mt_rank == one[0] - 1 ? MPI_PROC_NULL : mt_rank + 1), "negative shift source %d", src);
        MPI_Comm_free(&none);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_topo");
    test_dims();
    test_cart();
    return mt_finish();
}
