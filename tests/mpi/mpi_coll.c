/* mpi_coll.c — every collective of the face with results checked against
 * values each rank computes itself: in place and not, derived datatypes,
 * MAXLOC pairs, user operations (commutative or not), nonblocking calls. */
#include "mtest.h"

#define N 1000

/* 2x2 integer matrices: a non-commutative, associative product. */
typedef struct { long a, b, c, d; } mat;
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    mat *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        mat r = {x[i].a * y[i].a + x[i].b * y[i].c, x[i].a * y[i].b + x[i].b * y[i].d,
                 x[i].c * y[i].a + x[i].d * y[i].c, x[i].c * y[i].b + x[i].d * y[i].d};
        y[i] = r;
    }
}
static mat rank_mat(int r) { return (mat){1, r + 1, 0, 1 + (r % 2)}; }

static void abs_max(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    double *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        double a = x[i] < 0 ? -x[i] : x[i], b = y[i] < 0 ? -y[i] : y[i];
        y[i] = a > b ? a : b;
    }
}

static int err_class(int e)
{
    int cls = MPI_SUCCESS;
    if (e != MPI_SUCCESS)
        MPI_Error_class(e, &cls);
    return cls;
}

/* The blocking collectives answer the common case (an intracommunicator,
 * committed contiguous datatypes, a predefined op on a type the kernels
 * know) in one pass: what that pass takes must give the same results, and
 * every case it declines the full checks' error, class for class. */
static void common_case_edges(int n, int me)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int root = n - 1, x[8] = {0}, y[64] = {0}, e;

    /* A derived contiguous type is taken: triples of ints. */
    MPI_Datatype tri, loose;
    MPI_Type_contiguous(3, MPI_INT, &tri);
    MPI_Type_commit(&tri);
    for (int i = 0; i < 3; i++)
        x[i] = me * 10 + i;
    CHECK_MPI(MPI_Gather(x, 1, tri, y, 3, MPI_INT, root, c));
    if (me == root)
        for (int i = 0; i < 3 * n; i++)
            CHECK(y[i] == i / 3 * 10 + i % 3, "gather of triples: element %d = %d", i, y[i]);
#ifdef BOLT_MPI /* a predefined op on a derived type of one basic type: Open MPI 4.1 refuses it */
    CHECK_MPI(MPI_Allreduce(x, y, 1, tri, MPI_SUM, c));
    for (int i = 0; i < 3; i++)
        CHECK(y[i] == 10 * n * (n - 1) / 2 + i * n, "allreduce of a triple: element %d = %d", i, y[i]);
    int in_place[3] = {me, 2 * me, 1};
    CHECK_MPI(MPI_Reduce(me == root ? MPI_IN_PLACE : in_place, in_place, 1, tri, MPI_SUM, root, c));
    if (me == root)
        CHECK(in_place[0] == n * (n - 1) / 2 && in_place[1] == n * (n - 1) && in_place[2] == n,
              "reduce in place of a triple: %d %d %d", in_place[0], in_place[1], in_place[2]);
#endif
    for (int i = 0; i < n; i++)
        y[i] = me == root ? 100 + i : -1;
    CHECK_MPI(MPI_Scatter(y, 1, MPI_INT, x, 1, MPI_INT, root, c));
    CHECK(x[0] == 100 + me, "scatter: %d", x[0]);
    int ones[64], zeros[64];
    for (int i = 0; i < 64; i++)
        ones[i] = 1, zeros[i] = 0;
    CHECK_MPI(MPI_Scatterv(y, ones, zeros, MPI_INT, x, 1, MPI_INT, root, c));
    CHECK(x[0] == 100, "scatterv of the root's first element: %d", x[0]);
    /* the v-variants' root too: triples with a triple's gap between them,
     * then with the root's own block in place */
    int tc[64], td[64];
    for (int i = 0; i < n; i++)
        tc[i] = 1, td[i] = 2 * i;
    if (6 * n <= 64) {
        for (int i = 0; i < 6 * n; i++)
            y[i] = -1;
        for (int i = 0; i < 3; i++)
            x[i] = me * 10 + i;
        CHECK_MPI(MPI_Gatherv(x, 1, tri, y, tc, td, tri, root, c));
        for (int i = 0; me == root && i < 6 * n; i++)
            CHECK(y[i] == (i % 6 < 3 ? i / 6 * 10 + i % 6 : -1), "gatherv of triples: element %d = %d", i, y[i]);
        x[0] = x[1] = x[2] = -1;
        CHECK_MPI(MPI_Scatterv(y, tc, td, tri, x, 3, MPI_INT, root, c));
        CHECK(x[0] == me * 10 && x[1] == me * 10 + 1 && x[2] == me * 10 + 2,
              "scatterv of triples: %d %d %d", x[0], x[1], x[2]);
        for (int i = 0; i < 3; i++)
            x[i] = me * 10 + i + 5;
        CHECK_MPI(MPI_Gatherv(me == root ? MPI_IN_PLACE : x, 1, tri, y, tc, td, tri, root, c));
        for (int i = 0; me == root && i < 6 * n; i++)
            CHECK(y[i] == (i % 6 >= 3 ? -1 : i / 6 * 10 + i % 6 + (i / 6 == root ? 0 : 5)),
                  "gatherv in place of triples: element %d = %d", i, y[i]);
        x[0] = -1;
        CHECK_MPI(MPI_Scatterv(y, tc, td, tri, me == root ? MPI_IN_PLACE : x, 3, MPI_INT, root, c));
        CHECK(me == root || x[0] == me * 10 + 5, "scatterv in place of triples: %d", x[0]);
    }

    /* Declined, with the full checks' words. */
    CHECK(err_class(MPI_Bcast(x, -1, MPI_INT, 0, c)) == MPI_ERR_COUNT, "bcast of -1 elements");
    CHECK(err_class(MPI_Bcast(x, 1, MPI_INT, n, c)) == MPI_ERR_ROOT, "bcast from rank n");
    CHECK(err_class(MPI_Gather(x, 1, MPI_INT, y, 1, MPI_INT, -1, c)) == MPI_ERR_ROOT, "gather to -1");
    CHECK(err_class(MPI_Scatter(y, 1, MPI_INT, x, -2, MPI_INT, 0, c)) == MPI_ERR_COUNT,
          "scatter of -2 elements");
    CHECK(err_class(MPI_Allgather(x, 1, MPI_INT, y, 1, MPI_DATATYPE_NULL, c)) == MPI_ERR_TYPE,
          "allgather into MPI_DATATYPE_NULL");
    MPI_Type_contiguous(2, MPI_INT, &loose); /* never committed */
    CHECK(err_class(MPI_Alltoall(x, 1, loose, y, 1, loose, c)) == MPI_ERR_TYPE,
          "alltoall of an uncommitted type");
    e = err_class(MPI_Allreduce(x, y, 1, loose, MPI_SUM, c));
#ifdef BOLT_MPI
    CHECK(e == MPI_ERR_TYPE, "allreduce of an uncommitted type: class %d", e);
#else
    CHECK(e != MPI_SUCCESS, "allreduce of an uncommitted type"); /* Open MPI: MPI_ERR_OP */
#endif
    MPI_Type_free(&loose);
    /* the root's blocks must match what every rank sends (alone, so that no
     * other rank's block is left unmatched) */
    MPI_Comm self;
    MPI_Comm_dup(MPI_COMM_SELF, &self);
    MPI_Comm_set_errhandler(self, MPI_ERRORS_RETURN);
    e = MPI_Gather(x, 2, MPI_INT, y, 1, MPI_INT, 0, self);
    CHECK(err_class(e) == MPI_ERR_TRUNCATE, "gather of 2 into blocks of 1: class %d", err_class(e));
    int one = 1, none = -1, zero = 0;
    e = MPI_Gatherv(x, 2, MPI_INT, y, &one, &zero, MPI_INT, 0, self);
    CHECK(err_class(e) == MPI_ERR_TRUNCATE, "gatherv of 2 into a block of 1: class %d", err_class(e));
    e = MPI_Gatherv(x, 1, MPI_INT, y, &none, &zero, MPI_INT, 0, self);
    CHECK(err_class(e) == MPI_ERR_COUNT, "gatherv into a block of -1: class %d", err_class(e));
#ifdef BOLT_MPI /* Open MPI lets a root receive less than its count and does not look at
                   displacements or NULL arrays */
    e = MPI_Scatterv(y, &one, &zero, MPI_INT, x, 2, MPI_INT, 0, self);
    CHECK(err_class(e) == MPI_ERR_TRUNCATE, "scatterv of 1 into 2: class %d", err_class(e));
    e = MPI_Scatterv(y, &one, &none, MPI_INT, x, 1, MPI_INT, 0, self);
    CHECK(err_class(e) == MPI_ERR_ARG, "scatterv from displacement -1: class %d", err_class(e));
    e = MPI_Gatherv(x, 1, MPI_INT, y, NULL, &zero, MPI_INT, 0, self);
    CHECK(err_class(e) == MPI_ERR_ARG, "gatherv with NULL counts: class %d", err_class(e));
#endif
    MPI_Comm_free(&self);
    CHECK(err_class(MPI_Reduce(x, y, 1, MPI_INT, MPI_REPLACE, root, c)) == MPI_ERR_OP,
          "reduce with MPI_REPLACE");
    CHECK(err_class(MPI_Allreduce(x, y, 1, MPI_LOGICAL, MPI_SUM, c)) == MPI_ERR_OP,
          "MPI_SUM on MPI_LOGICAL");
    /* MAXLOC is not the one pass's: its pairs still reduce */
    struct { int v, i; } pin = {me % 2, me}, pout = {-1, -1};
    CHECK_MPI(MPI_Allreduce(&pin, &pout, 1, MPI_2INT, MPI_MAXLOC, c));
    CHECK(pout.v == (n > 1) && pout.i == (n > 1), "maxloc of (rank %% 2, rank): (%d, %d)", pout.v, pout.i);
    MPI_Type_free(&tri);
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_coll");
    int n = mt_size, me = mt_rank;
    int *a = malloc(N * sizeof(int) * (size_t)(n + 1)), *b = malloc(N * sizeof(int) * (size_t)(n + 1));

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (int root = 0; root < n; root++) {
        for (int i = 0; i < N; i++)
            a[i] = me == root ? root * 7 + i : -1;
        CHECK_MPI(MPI_Bcast(a, N, MPI_INT, root, MPI_COMM_WORLD));
        int ok = 1;
        for (int i = 0; i < N; i++)
            ok &= a[i] == root * 7 + i;
        CHECK(ok, "bcast from %d", root);
    }
    /* Gather / scatter and their v forms, at root n-1. */
    int root = n - 1;
    for (int i = 0; i < 3; i++)
        a[i] = me * 3 + i;
    CHECK_MPI(MPI_Gather(a, 3, MPI_INT, b, 3, MPI_INT, root, MPI_COMM_WORLD));
    if (me == root)
        for (int i = 0; i < 3 * n; i++)
            CHECK(b[i] == i, "gather element %d = %d", i, b[i]);
    int *cnt = malloc(sizeof(int) * (size_t)n), *dsp = malloc(sizeof(int) * (size_t)n);
    for (int r = 0, off = 0; r < n; r++) {
        cnt[r] = r + 1;
        dsp[r] = off + 1; /* one-element gaps between blocks */
        off += cnt[r] + 1;
    }
    for (int i = 0; i <= me; i++)
        a[i] = me * 100 + i;
    for (int i = 0; i < N; i++)
        b[i] = -7;
    CHECK_MPI(MPI_Gatherv(a, me + 1, MPI_INT, b, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD));
    if (me == 0)
        for (int r = 0; r < n; r++) {
            CHECK(b[dsp[r] - 1] == -7, "gatherv wrote into a gap");
            for (int i = 0; i < cnt[r]; i++)
                CHECK(b[dsp[r] + i] == r * 100 + i, "gatherv rank %d element %d", r, i);
        }
    CHECK_MPI(MPI_Scatterv(b, cnt, dsp, MPI_INT, a, me + 1, MPI_INT, 0, MPI_COMM_WORLD));
    for (int i = 0; i <= me; i++)
        CHECK(a[i] == me * 100 + i, "scatterv element %d", i);
    for (int i = 0; i < 2 * n; i++)
        b[i] = i * 5;
    CHECK_MPI(MPI_Scatter(b, 2, MPI_INT, a, 2, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK(a[0] == me * 10 && a[1] == me * 10 + 5, "scatter got %d %d", a[0], a[1]);

    /* Allgather in place, alltoall, allgatherv, alltoallv. */
    for (int i = 0; i < 2 * n; i++)
        b[i] = i / 2 == me ? me * 2 + i % 2 : -1;
    CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, 2, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < 2 * n; i++)
        CHECK(b[i] == i, "allgather in place element %d = %d", i, b[i]);
    for (int i = 0; i < n; i++)
        a[i] = me * 1000 + i;
    CHECK_MPI(MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        CHECK(b[i] == i * 1000 + me, "alltoall from %d = %d", i, b[i]);
    for (int i = 0; i <= me; i++)
        a[i] = me * 100 + i;
    CHECK_MPI(MPI_Allgatherv(a, me + 1, MPI_INT, b, cnt, dsp, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < n; r++)
        for (int i = 0; i < cnt[r]; i++)
            CHECK(b[dsp[r] + i] == r * 100 + i, "allgatherv rank %d element %d", r, i);
    int *sc = malloc(sizeof(int) * (size_t)n), *sd = malloc(sizeof(int) * (size_t)n),
        *rc = malloc(sizeof(int) * (size_t)n), *rd = malloc(sizeof(int) * (size_t)n);
    for (int r = 0, so = 0, ro = 0; r < n; r++) {
        sc[r] = r + 1; sd[r] = so; so += sc[r];   /* I send r+1 values to rank r */
        rc[r] = me + 1; rd[r] = ro; ro += rc[r];  /* everyone sends me me+1 values */
    }
    for (int r = 0; r < n; r++)
        for (int i = 0; i < sc[r]; i++)
            a[sd[r] + i] = me * 10000 + r * 100 + i;
    CHECK_MPI(MPI_Alltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < n; r++)
        for (int i = 0; i <= me; i++)
            CHECK(b[rd[r] + i] == r * 10000 + me * 100 + i, "alltoallv from %d element %d", r, i);

    /* Reductions. */
    double *x = malloc(N * sizeof(double)), *y = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++)
        x[i] = me + i * 0.5;
    CHECK_MPI(MPI_Allreduce(x, y, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        CHECK(y[i] == n * (n - 1) / 2.0 + n * i * 0.5, "allreduce sum %d = %g", i, y[i]);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, x, N, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    CHECK(x[3] == n - 1 + 1.5, "allreduce max in place %g", x[3]);
    long lv = me + 1, lr = 0;
    CHECK_MPI(MPI_Reduce(&lv, &lr, 1, MPI_LONG, MPI_PROD, 0, MPI_COMM_WORLD));
    if (me == 0) {
        long f = 1;
        for (int i = 1; i <= n; i++)
            f *= i;
        CHECK(lr == f, "reduce prod %ld, want %ld", lr, f);
    }
    int iv = me == n / 2 ? 0 : 1, ir;
    CHECK_MPI(MPI_Allreduce(&iv, &ir, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    CHECK(ir == 0, "land %d (rank n/2 contributes false)", ir);
    unsigned uv = 1u << me, ur;
    CHECK_MPI(MPI_Allreduce(&uv, &ur, 1, MPI_UNSIGNED, MPI_BOR, MPI_COMM_WORLD));
    CHECK(ur == (1u << n) - 1, "bor %x", ur);
    struct { double v; int i; } pv = {me == n - 1 ? 5.0 : (double)me, me}, pr;
    CHECK_MPI(MPI_Allreduce(&pv, &pr, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    /* rank n-1 holds 5: the top is rank n-2's value from n = 7 on (a tie at n = 7: the lower index) */
    CHECK(n - 2 >= 5 ? pr.v == n - 2 && pr.i == n - 2 : pr.v == 5.0 && pr.i == n - 1, "maxloc %g at %d", pr.v, pr.i);
    CHECK_MPI(MPI_Allreduce(&pv, &pr, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(pr.v == (n == 1 ? 5.0 : 0.0) && pr.i == 0, "minloc %g at %d", pr.v, pr.i);
    for (int i = 0; i < n; i++)
        a[i] = me + i;
    int block;
    CHECK_MPI(MPI_Reduce_scatter_block(a, &block, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(block == n * (n - 1) / 2 + n * me, "reduce_scatter_block %d", block);
    for (int r = 0, off = 0; r < n; r++) {
        for (int i = 0; i < cnt[r]; i++)
            a[off + i] = r + i + me;
        off += cnt[r];
    }
    CHECK_MPI(MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i <= me; i++)
        CHECK(b[i] == n * (me + i) + n * (n - 1) / 2, "reduce_scatter element %d = %d", i, b[i]);
    int sv = me + 1, s1, s2 = -99;
    CHECK_MPI(MPI_Scan(&sv, &s1, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(s1 == (me + 1) * (me + 2) / 2, "scan %d", s1);
    CHECK_MPI(MPI_Exscan(&sv, &s2, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (me > 0)
        CHECK(s2 == me * (me + 1) / 2, "exscan %d", s2);
    double l1[3] = {1, -9, 2}, l2[3] = {3, 1, -4};
    MPI_Op absmax, mm;
    CHECK_MPI(MPI_Op_create(abs_max, 1, &absmax));
    CHECK_MPI(MPI_Reduce_local(l1, l2, 3, MPI_DOUBLE, absmax));
    CHECK(l2[0] == 3 && l2[1] == 9 && l2[2] == 4, "reduce_local user op %g %g %g", l2[0], l2[1], l2[2]);

    /* A non-commutative user op on a struct type: product in rank order. */
    MPI_Datatype mt;
    CHECK_MPI(MPI_Type_contiguous(4, MPI_LONG, &mt));
    CHECK_MPI(MPI_Type_commit(&mt));
    CHECK_MPI(MPI_Op_create(matmul, 0, &mm));
    mat m = rank_mat(me), mr, want = rank_mat(0);
    for (int r = 1; r < n; r++) {
        mat t = rank_mat(r);
        int one = 1;
        matmul(&want, &t, &one, NULL);
        want = t;
    }
    CHECK_MPI(MPI_Allreduce(&m, &mr, 1, mt, mm, MPI_COMM_WORLD));
    CHECK(mr.a == want.a && mr.b == want.b && mr.c == want.c && mr.d == want.d,
          "non-commutative allreduce: got (%ld %ld %ld %ld)", mr.a, mr.b, mr.c, mr.d);
    CHECK_MPI(MPI_Reduce(&m, &mr, 1, mt, mm, 0, MPI_COMM_WORLD));
    if (me == 0)
        CHECK(mr.a == want.a && mr.b == want.b && mr.d == want.d, "non-commutative reduce");
    /* The same nonblocking, with another user op on another type run
     * blocking while it is in flight. */
    MPI_Request uq[2];
    mat nr = {0, 0, 0, 0}, nr0 = {0, 0, 0, 0};
    double d1[2] = {me % 2 ? -(double)me : (double)me, 0.5}, d2[2];
    CHECK_MPI(MPI_Iallreduce(&m, &nr, 1, mt, mm, MPI_COMM_WORLD, &uq[0]));
    CHECK_MPI(MPI_Ireduce(&m, &nr0, 1, mt, mm, n - 1, MPI_COMM_WORLD, &uq[1]));
    CHECK_MPI(MPI_Allreduce(d1, d2, 2, MPI_DOUBLE, absmax, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Waitall(2, uq, MPI_STATUSES_IGNORE));
    CHECK(d2[0] == n - 1 && d2[1] == 0.5, "user-op allreduce beside nonblocking: %g %g", d2[0], d2[1]);
    CHECK(nr.a == want.a && nr.b == want.b && nr.c == want.c && nr.d == want.d,
          "non-commutative iallreduce: got (%ld %ld %ld %ld)", nr.a, nr.b, nr.c, nr.d);
    if (me == n - 1)
        CHECK(nr0.a == want.a && nr0.b == want.b && nr0.c == want.c && nr0.d == want.d,
              "non-commutative ireduce: got (%ld %ld %ld %ld)", nr0.a, nr0.b, nr0.c, nr0.d);
    int commute;
    MPI_Op_commutative(mm, &commute);
    CHECK(!commute, "matmul reads as commutative");
    MPI_Op_free(&mm);
    MPI_Op_free(&absmax);
    MPI_Type_free(&mt);

    /* A strided type: every other double. (Predefined ops on derived types
     * are not portable: Open MPI refuses them, so they are not tested here.) */
    MPI_Datatype every2;
    CHECK_MPI(MPI_Type_vector(N / 2, 1, 2, MPI_DOUBLE, &every2));
    CHECK_MPI(MPI_Type_commit(&every2));
    for (int i = 0; i < N; i++)
        x[i] = i % 2 ? -1.0 : me + i;
    CHECK_MPI(MPI_Bcast(x, 1, every2, 0, MPI_COMM_WORLD));
    CHECK(x[0] == 0 && x[2] == 2 && x[1] == -1, "strided bcast");
    MPI_Type_free(&every2);

    /* Nonblocking. */
    MPI_Request q[5];
    double nx[64], ny[64];
    int g[64], h[64], t2[64];
    for (int i = 0; i < 64; i++)
        nx[i] = me * i;
    int bc = me == 0 ? 77 : 0;
    for (int i = 0; i < n; i++)
        t2[i] = me * n + i;
    CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &q[0]));
    CHECK_MPI(MPI_Iallreduce(nx, ny, 64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q[1]));
    CHECK_MPI(MPI_Ibcast(&bc, 1, MPI_INT, 0, MPI_COMM_WORLD, &q[2]));
    CHECK_MPI(MPI_Iallgather(&me, 1, MPI_INT, g, 1, MPI_INT, MPI_COMM_WORLD, &q[3]));
    CHECK_MPI(MPI_Ialltoall(t2, 1, MPI_INT, h, 1, MPI_INT, MPI_COMM_WORLD, &q[4]));
    CHECK_MPI(MPI_Waitall(5, q, MPI_STATUSES_IGNORE));
    CHECK(ny[10] == 10.0 * n * (n - 1) / 2, "iallreduce %g", ny[10]);
    CHECK(bc == 77, "ibcast %d", bc);
    for (int i = 0; i < n; i++)
        CHECK(g[i] == i && h[i] == i * n + me, "iallgather/ialltoall at %d: %d %d", i, g[i], h[i]);
    /* Nonblocking on a type with holes: {x, hole, y}, extent 3 ints. The
     * holes in the receive buffers must stay untouched. */
    MPI_Datatype gap;
    CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &gap));
    CHECK_MPI(MPI_Type_commit(&gap));
    int gs[3] = {me, -1, 10 * me}, bb[3] = {me == 0 ? 5 : 0, -1, me == 0 ? 6 : 0};
    int *gr = malloc(3 * n * sizeof *gr), *gi = malloc(3 * n * sizeof *gi);
    int *as = malloc(3 * n * sizeof *as), *ar = malloc(3 * n * sizeof *ar);
    for (int i = 0; i < 3 * n; i++)
        gr[i] = gi[i] = ar[i] = -7;
    for (int j = 0; j < n; j++) {
        as[3 * j] = 100 * me + j;
        as[3 * j + 1] = -1;
        as[3 * j + 2] = -(100 * me + j);
    }
    gi[3 * me] = me;
    gi[3 * me + 2] = 10 * me;
    CHECK_MPI(MPI_Iallgather(gs, 1, gap, gr, 1, gap, MPI_COMM_WORLD, &q[0]));
    CHECK_MPI(MPI_Ibcast(bb, 1, gap, 0, MPI_COMM_WORLD, &q[1]));
    CHECK_MPI(MPI_Ialltoall(as, 1, gap, ar, 1, gap, MPI_COMM_WORLD, &q[2]));
    CHECK_MPI(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gi, 1, gap, MPI_COMM_WORLD, &q[3]));
    CHECK_MPI(MPI_Waitall(4, q, MPI_STATUSES_IGNORE));
    for (int i = 0; i < n; i++) {
        CHECK(gr[3 * i] == i && gr[3 * i + 1] == -7 && gr[3 * i + 2] == 10 * i,
              "strided iallgather block %d: %d %d %d", i, gr[3 * i], gr[3 * i + 1], gr[3 * i + 2]);
        CHECK(gi[3 * i] == i && gi[3 * i + 1] == -7 && gi[3 * i + 2] == 10 * i,
              "strided in-place iallgather block %d: %d %d %d", i, gi[3 * i], gi[3 * i + 1],
              gi[3 * i + 2]);
        CHECK(ar[3 * i] == 100 * i + me && ar[3 * i + 1] == -7 && ar[3 * i + 2] == -(100 * i + me),
              "strided ialltoall block %d: %d %d %d", i, ar[3 * i], ar[3 * i + 1], ar[3 * i + 2]);
    }
    CHECK(bb[0] == 5 && bb[1] == -1 && bb[2] == 6, "strided ibcast: %d %d %d", bb[0], bb[1], bb[2]);
    MPI_Type_free(&gap);
    free(gr); free(gi); free(as); free(ar);

    int red = 0;
    CHECK_MPI(MPI_Ireduce(&me, &red, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD, &q[0]));
    CHECK_MPI(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    if (me == 0)
        CHECK(red == n - 1, "ireduce %d", red);

    /* Errors come back with MPI_ERRORS_RETURN. */
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int cls, e = MPI_Bcast(a, 1, MPI_INT, n, c);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_ROOT, "bad root gave class %d", cls);
    e = MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, c);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_OP, "null op gave class %d", cls);
    MPI_Comm_free(&c);

    common_case_edges(n, me);
    free(a); free(b); free(x); free(y); free(cnt); free(dsp); free(sc); free(sd); free(rc); free(rd);
    return mt_finish();
}
