/* mpi_halo.c — a 2-D Jacobi sweep on a periodic Cartesian grid, the way
 * stencil codes do it: MPI_Dims_create + MPI_Cart_create, neighbours from
 * MPI_Cart_shift, rows sent as contiguous runs and columns as an
 * MPI_Type_vector, exchanged with MPI_Sendrecv on even steps and
 * Isend/Irecv + Waitall on odd ones. Ghost cells are checked after every
 * exchange and the result against the same sweeps done serially. */
#include "mtest.h"

#define NX 6 /* local rows */
#define NY 5 /* local columns */
#define W (NY + 2)
#define STEPS 4
#define AT(a, i, j) ((a)[(i) * W + (j)])

static int GX, GY; /* global grid */

static double init_value(int gi, int gj)
{
    return (double)((gi * 37 + gj * 11) % 17) + 0.25 * gi - 0.5 * gj;
}

/* One serial sweep of the whole periodic grid: a -> b. */
static void sweep(const double *a, double *b)
{
    for (int i = 0; i < GX; i++)
        for (int j = 0; j < GY; j++) {
            int n = (i + GX - 1) % GX, so = (i + 1) % GX, w = (j + GY - 1) % GY, e = (j + 1) % GY;
            b[i * GY + j] = 0.5 * a[i * GY + j] +
                            0.125 * (a[n * GY + j] + a[so * GY + j] + a[i * GY + w] + a[i * GY + e]);
        }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_halo");
    int dims[2] = {0, 0}, periods[2] = {1, 1}, coords[2], me;
    MPI_Comm grid;
    MPI_Dims_create(mt_size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Comm_rank(grid, &me);
    MPI_Cart_coords(grid, me, 2, coords);
    GX = dims[0] * NX;
    GY = dims[1] * NY;
    int north, south, west, east;
    MPI_Cart_shift(grid, 0, 1, &north, &south);
    MPI_Cart_shift(grid, 1, 1, &west, &east);

    MPI_Datatype column;
    MPI_Type_vector(NX, 1, W, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);

    double *u = calloc((NX + 2) * W, sizeof *u), *v = calloc((NX + 2) * W, sizeof *v);
    int gi0 = coords[0] * NX, gj0 = coords[1] * NY;
    for (int i = 1; i <= NX; i++)
        for (int j = 1; j <= NY; j++)
            AT(u, i, j) = init_value(gi0 + i - 1, gj0 + j - 1);

    /* Tags say which way a message travels, so two neighbours that are the
     * same rank (a dimension of 1 or 2) still match the right halves. */
    enum { GOING_SOUTH, GOING_NORTH, GOING_EAST, GOING_WEST };
    double *ref = malloc(sizeof(double) * GX * GY), *prev = malloc(sizeof(double) * GX * GY);
    for (int i = 0; i < GX; i++)
        for (int j = 0; j < GY; j++)
            prev[i * GY + j] = init_value(i, j);
    for (int s = 0; s < STEPS; s++) {
        if (s % 2 == 0) {
            MPI_Sendrecv(&AT(u, NX, 1), NY, MPI_DOUBLE, south, GOING_SOUTH, &AT(u, 0, 1), NY,
                         MPI_DOUBLE, north, GOING_SOUTH, grid, MPI_STATUS_IGNORE);
            MPI_Sendrecv(&AT(u, 1, 1), NY, MPI_DOUBLE, north, GOING_NORTH, &AT(u, NX + 1, 1), NY,
                         MPI_DOUBLE, south, GOING_NORTH, grid, MPI_STATUS_IGNORE);
            MPI_Sendrecv(&AT(u, 1, NY), 1, column, east, GOING_EAST, &AT(u, 1, 0), 1, column, west,
                         GOING_EAST, grid, MPI_STATUS_IGNORE);
            MPI_Sendrecv(&AT(u, 1, 1), 1, column, west, GOING_WEST, &AT(u, 1, NY + 1), 1, column,
                         east, GOING_WEST, grid, MPI_STATUS_IGNORE);
        } else {
            MPI_Request q[8];
            MPI_Irecv(&AT(u, 0, 1), NY, MPI_DOUBLE, north, GOING_SOUTH, grid, &q[0]);
            MPI_Irecv(&AT(u, NX + 1, 1), NY, MPI_DOUBLE, south, GOING_NORTH, grid, &q[1]);
            MPI_Irecv(&AT(u, 1, 0), 1, column, west, GOING_EAST, grid, &q[2]);
            MPI_Irecv(&AT(u, 1, NY + 1), 1, column, east, GOING_WEST, grid, &q[3]);
            MPI_Isend(&AT(u, NX, 1), NY, MPI_DOUBLE, south, GOING_SOUTH, grid, &q[4]);
            MPI_Isend(&AT(u, 1, 1), NY, MPI_DOUBLE, north, GOING_NORTH, grid, &q[5]);
            MPI_Isend(&AT(u, 1, NY), 1, column, east, GOING_EAST, grid, &q[6]);
            MPI_Isend(&AT(u, 1, 1), 1, column, west, GOING_WEST, grid, &q[7]);
            MPI_Waitall(8, q, MPI_STATUSES_IGNORE);
        }
        /* Ghosts hold the neighbours' edges of the previous step. */
        for (int i = 1; i <= NX; i++) {
            int gi = gi0 + i - 1;
            CHECK(AT(u, i, 0) == prev[gi * GY + (gj0 + GY - 1) % GY], "step %d west ghost row %d", s, i);
            CHECK(AT(u, i, NY + 1) == prev[gi * GY + (gj0 + NY) % GY], "step %d east ghost row %d", s, i);
        }
        for (int j = 1; j <= NY; j++) {
            int gj = gj0 + j - 1;
            CHECK(AT(u, 0, j) == prev[((gi0 + GX - 1) % GX) * GY + gj], "step %d north ghost col %d", s, j);
            CHECK(AT(u, NX + 1, j) == prev[((gi0 + NX) % GX) * GY + gj], "step %d south ghost col %d", s, j);
        }
        for (int i = 1; i <= NX; i++)
            for (int j = 1; j <= NY; j++)
                AT(v, i, j) = 0.5 * AT(u, i, j) + 0.125 * (AT(u, i - 1, j) + AT(u, i + 1, j) +
                                                            AT(u, i, j - 1) + AT(u, i, j + 1));
        double *t = u;
        u = v;
        v = t;
        /* The serial grid after this step: the reference for the next one. */
        sweep(prev, ref);
        t = prev;
        prev = ref;
        ref = t;
    }
    double maxerr = 0;
    for (int i = 1; i <= NX; i++)
        for (int j = 1; j <= NY; j++) {
            double d = AT(u, i, j) - prev[(gi0 + i - 1) * GY + gj0 + j - 1];
            if (d < 0)
                d = -d;
            if (d > maxerr)
                maxerr = d;
        }
    double global = 0;
    MPI_Allreduce(&maxerr, &global, 1, MPI_DOUBLE, MPI_MAX, grid);
    CHECK(global < 1e-12, "after %d sweeps the grid differs from the serial one by %g", STEPS, global);
    free(ref);
    free(prev);
    free(u);
    free(v);
    MPI_Type_free(&column);
    MPI_Comm_free(&grid);
    return mt_finish();
}
