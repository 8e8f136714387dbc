/* mpi_darray.c — MPI_Type_create_darray against a serial reference: for
 * block, cyclic and undistributed dimensions (default and explicit
 * distribution arguments), C and Fortran order, 1 to 3 dimensions and
 * process grids of 1 to 8 processes, each process's type must pick exactly
 * the elements the reference says it owns, in the array's order; together
 * the processes' types cover the array once. Then the job itself gathers an
 * array its ranks hold as darray pieces, received straight into place. */
#include "mtest.h"

struct dist {
    int ndims;
    int g[3], d[3], a[3];
    int order;
};

/* The process coordinate that owns index i of one dimension (the reference:
 * written from the standard's HPF rules, not from how the types are built). */
static int owner(int g, int d, int a, int p, int i)
{
    if (d == MPI_DISTRIBUTE_NONE)
        return 0;
    if (d == MPI_DISTRIBUTE_BLOCK) {
        int b = a == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : a;
        return i / b;
    }
    int b = a == MPI_DISTRIBUTE_DFLT_DARG ? 1 : a;
    return (i / b) % p;
}

/* The linear indices rank owns, in the array's storage order; returns how many. */
static int reference(const struct dist *x, const int *psizes, int rank, int *out)
{
    int coords[3], n = 0, total = 1;
    for (int i = x->ndims - 1, r = rank; i >= 0; i--) { /* the grid is row-major */
        coords[i] = r % psizes[i];
        r /= psizes[i];
    }
    for (int i = 0; i < x->ndims; i++)
        total *= x->g[i];
    /* walk the array in storage order: C's last index or Fortran's first fastest */
    for (int lin = 0; lin < total; lin++) {
        int idx[3], rest = lin, mine = 1;
        for (int k = 0; k < x->ndims; k++) {
            int dim = x->order == MPI_ORDER_C ? x->ndims - 1 - k : k;
            idx[dim] = rest % x->g[dim];
            rest /= x->g[dim];
        }
        for (int i = 0; i < x->ndims; i++)
            mine &= owner(x->g[i], x->d[i], x->a[i], psizes[i], idx[i]) == coords[i];
        if (mine)
            out[n++] = lin;
    }
    return n;
}

static int valid(const struct dist *x, const int *psizes, int P)
{
    int prod = 1;
    for (int i = 0; i < x->ndims; i++)
        prod *= psizes[i];
    if (prod != P) /* no grid of P with its undistributed dimensions of 1 */
        return 0;
    for (int i = 0; i < x->ndims; i++) {
        if (x->d[i] == MPI_DISTRIBUTE_NONE && psizes[i] != 1)
            return 0;
        if (x->d[i] == MPI_DISTRIBUTE_BLOCK && x->a[i] != MPI_DISTRIBUTE_DFLT_DARG &&
            x->a[i] * psizes[i] < x->g[i])
            return 0;
    }
    return 1;
}

/* Every rank of a grid of P processes: its type against the reference, and
 * the types together cover the array once. Each rank of the job checks a
 * share of the grids. */
static void check_grid(const struct dist *x, const int *psizes, int P, const char *what)
{
    int total = 1;
    for (int i = 0; i < x->ndims; i++)
        total *= x->g[i];
    int *global = malloc(sizeof(int) * (size_t)total), *ref = malloc(sizeof(int) * (size_t)total);
    int *got = malloc(sizeof(int) * (size_t)total), *cover = calloc((size_t)total, sizeof(int));
    int *ones = malloc(sizeof(int) * (size_t)total);
    for (int i = 0; i < total; i++) {
        global[i] = i;
        ones[i] = 1;
    }
    for (int r = 0; r < P; r++) {
        MPI_Datatype t;
        int rc = MPI_Type_create_darray(P, r, x->ndims, x->g, x->d, x->a, psizes, x->order,
                                        MPI_INT, &t);
        CHECK(rc == MPI_SUCCESS, "%s: rank %d of %d: MPI_Type_create_darray returned %d", what,
              r, P, rc);
        if (rc != MPI_SUCCESS)
            continue;
        CHECK_MPI(MPI_Type_commit(&t));
        int n = reference(x, psizes, r, ref), size, pos = 0;
        MPI_Aint lb, ext;
        MPI_Type_size(t, &size);
        MPI_Type_get_extent(t, &lb, &ext);
        CHECK(size == n * (int)sizeof(int) && lb == 0 && ext == total * (MPI_Aint)sizeof(int),
              "%s: rank %d of %d: size %d (owns %d ints), lb %ld, extent %ld (array of %d)", what,
              r, P, size, n, (long)lb, (long)ext, total);
        if (size == n * (int)sizeof(int)) {
            MPI_Pack(global, 1, t, got, total * (int)sizeof(int), &pos, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++)
                if (got[i] != ref[i]) {
                    CHECK(0, "%s: rank %d of %d: element %d of its part is %d, not %d", what, r,
                          P, i, got[i], ref[i]);
                    break;
                }
            /* add one to each element this rank's type covers */
            int *part = calloc((size_t)total, sizeof(int));
            pos = 0;
            MPI_Unpack(ones, total * (int)sizeof(int), &pos, part, 1, t, MPI_COMM_WORLD);
            for (int i = 0; i < total; i++)
                cover[i] += part[i];
            free(part);
        }
        MPI_Type_free(&t);
    }
    for (int i = 0; i < total; i++)
        if (cover[i] != 1) {
            CHECK(0, "%s: grid of %d: element %d is in %d processes' parts", what, P, i, cover[i]);
            break;
        }
    free(global);
    free(ref);
    free(got);
    free(cover);
    free(ones);
}

static const struct dist DISTS[] = {
    {1, {10}, {MPI_DISTRIBUTE_BLOCK}, {MPI_DISTRIBUTE_DFLT_DARG}, MPI_ORDER_C},
    {1, {10}, {MPI_DISTRIBUTE_BLOCK}, {4}, MPI_ORDER_FORTRAN},
    {1, {10}, {MPI_DISTRIBUTE_CYCLIC}, {MPI_DISTRIBUTE_DFLT_DARG}, MPI_ORDER_C},
    {1, {11}, {MPI_DISTRIBUTE_CYCLIC}, {3}, MPI_ORDER_C},
    {1, {6}, {MPI_DISTRIBUTE_NONE}, {MPI_DISTRIBUTE_DFLT_DARG}, MPI_ORDER_C},
    {2, {7, 9}, {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
     {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, MPI_ORDER_C},
    {2, {7, 9}, {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
     {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, MPI_ORDER_FORTRAN},
    {2, {8, 5}, {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK}, {2, MPI_DISTRIBUTE_DFLT_DARG},
     MPI_ORDER_C},
    {2, {8, 5}, {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC},
     {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, MPI_ORDER_FORTRAN},
    {2, {9, 10}, {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC}, {5, 3}, MPI_ORDER_FORTRAN},
    {3, {4, 5, 6}, {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
     {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, 2}, MPI_ORDER_C},
    {3, {4, 5, 6}, {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC},
     {2, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, MPI_ORDER_FORTRAN},
};

static void serial_reference(void)
{
    int job = 0;
    for (size_t k = 0; k < sizeof DISTS / sizeof *DISTS; k++) {
        const struct dist *x = &DISTS[k];
        for (int P = 1; P <= 8; P++)
            for (int flip = 0; flip < 2; flip++) {
                int ps[3] = {0, 0, 0};
                for (int i = 0; i < x->ndims; i++)
                    if (x->d[i] == MPI_DISTRIBUTE_NONE)
                        ps[i] = 1;
                MPI_Dims_create(P, x->ndims, ps);
                if (flip) { /* the same grid turned around */
                    if (x->ndims == 1)
                        continue;
                    int t = ps[0];
                    ps[0] = ps[x->ndims - 1];
                    ps[x->ndims - 1] = t;
                }
                if (!valid(x, ps, P) || job++ % mt_size != mt_rank)
                    continue;
                char what[96];
                snprintf(what, sizeof what, "distribution %zu on a %dx%dx%d grid", k, ps[0],
                         x->ndims > 1 ? ps[1] : 1, x->ndims > 2 ? ps[2] : 1);
                check_grid(x, ps, P, what);
            }
    }
}

/* Derived old types: each element of the darray is one of them. */
static void derived_element(void)
{
    MPI_Datatype pair, t;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_SHORT, &pair));
    int g[2] = {6, 5}, d[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK},
        a[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, p[2] = {2, 2};
    struct dist x = {2, {6, 5}, {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK},
                     {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, MPI_ORDER_C};
    short global[60], got[60];
    int ref[30];
    for (int i = 0; i < 60; i++)
        global[i] = (short)(i * 3);
    int r = mt_rank % 4, n = reference(&x, p, r, ref), pos = 0, size;
    CHECK_MPI(MPI_Type_create_darray(4, r, 2, g, d, a, p, MPI_ORDER_C, pair, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    MPI_Type_size(t, &size);
    CHECK(size == n * 4, "pairs of shorts: size %d for %d elements", size, n);
    MPI_Pack(global, 1, t, got, (int)sizeof got, &pos, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        CHECK(got[2 * i] == global[2 * ref[i]] && got[2 * i + 1] == global[2 * ref[i] + 1],
              "pairs of shorts: element %d is (%d, %d), not element %d", i, got[2 * i],
              got[2 * i + 1], ref[i]);
    MPI_Type_free(&t);
    MPI_Type_free(&pair);
}

/* The job's own grid: rank 0 receives each rank's piece with that rank's
 * darray type, straight into the global array. */
static void gather_pieces(void)
{
    int g[2] = {13, 10}, d[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
        a[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, p[2] = {0, 0};
    MPI_Dims_create(mt_size, 2, p);
    struct dist x = {2, {13, 10}, {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
                     {MPI_DISTRIBUTE_DFLT_DARG, 2}, MPI_ORDER_C};
    int ref[130], n = reference(&x, p, mt_rank, ref);
    double local[130];
    for (int i = 0; i < n; i++)
        local[i] = 0.5 * ref[i]; /* what this rank holds: its elements, in order */
    if (mt_rank == 0) {
        double global[130];
        for (int i = 0; i < 130; i++)
            global[i] = -1;
        for (int i = 0; i < n; i++)
            global[ref[i]] = local[i];
        for (int r = 1; r < mt_size; r++) {
            MPI_Datatype t;
            CHECK_MPI(MPI_Type_create_darray(mt_size, r, 2, g, d, a, p, MPI_ORDER_C, MPI_DOUBLE,
                                             &t));
            CHECK_MPI(MPI_Type_commit(&t));
            CHECK_MPI(MPI_Recv(global, 1, t, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_Type_free(&t);
        }
        for (int i = 0; i < 130; i++)
            if (global[i] != 0.5 * i) {
                CHECK(0, "gathered array: element %d is %g", i, global[i]);
                break;
            }
    } else {
        CHECK_MPI(MPI_Send(local, n, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD));
    }
}

static void errors(void)
{
    MPI_Datatype t;
    int g[2] = {8, 8}, d[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
        a[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, p[2] = {2, 2};
    /* a grid of 4 for 3 processes; a rank outside the grid */
    CHECK(MPI_Type_create_darray(3, 0, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, &t) != MPI_SUCCESS,
          "a grid of 4 processes accepted for 3");
    CHECK(MPI_Type_create_darray(4, 4, 2, g, d, a, p, MPI_ORDER_C, MPI_INT, &t) != MPI_SUCCESS,
          "rank 4 of 4 accepted");
#ifdef BOLT_MPI /* what other MPIs accept here varies */
    int small[2] = {3, MPI_DISTRIBUTE_DFLT_DARG}, none[2] = {MPI_DISTRIBUTE_NONE,
                                                             MPI_DISTRIBUTE_BLOCK};
    int cls = 0;
    MPI_Error_class(MPI_Type_create_darray(4, 0, 2, g, d, small, p, MPI_ORDER_C, MPI_INT, &t),
                    &cls);
    CHECK(cls == MPI_ERR_ARG, "blocks of 3 for 8 elements over 2: class %d", cls);
    MPI_Error_class(MPI_Type_create_darray(4, 0, 2, g, none, a, p, MPI_ORDER_C, MPI_INT, &t),
                    &cls);
    CHECK(cls == MPI_ERR_ARG, "an undistributed dimension over 2 processes: class %d", cls);
    MPI_Error_class(MPI_Type_create_darray(4, 0, 2, g, d, a, p, 99, MPI_INT, &t), &cls);
    CHECK(cls == MPI_ERR_ARG, "order 99: class %d", cls);
#endif
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_darray");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    serial_reference();
    derived_element();
    gather_pieces();
    errors();
    return mt_finish();
}
