/* mpi_intercoll.c — collectives over an intercommunicator, blocking and
 * nonblocking, against serial expectations: rooted ones (MPI_ROOT at the
 * root, MPI_PROC_NULL at the rest of its group, the root's rank in the
 * remote group elsewhere) both ways, all-to-all ones (the data comes from
 * the remote group), reductions with a commutative and a non-commutative
 * operation, reduce-scatter, datatypes with holes, and scan refused.
 *
 * The groups: A the first k = (n + 2) / 3 world ranks, led by its last
 * member, B the rest, led by its first; they meet over a duplicate of the
 * world. With one rank there is no second group and nothing to check. */
#include "mtest.h"

static int g, L, R, lr, k; /* my group (0 = A), its size, the remote size, my local rank */

static int wr(int j) { return g == 0 ? k + j : j; } /* world rank of remote rank j */
static int size_of(int grp) { return grp == 0 ? k : mt_size - k; }
/* The root argument when group rg's local rank rl is the root. */
static int root_arg(int rg, int rl) { return g == rg ? (lr == rl ? MPI_ROOT : MPI_PROC_NULL) : rl; }

/* A call in its blocking form, or its nonblocking one and a wait. */
#define COLL(nb, blocking, ...)                                                   \
    do {                                                                           \
        if (!(nb)) {                                                               \
            CHECK_MPI(blocking);                                                   \
        } else {                                                                   \
            MPI_Request q_;                                                        \
            CHECK_MPI(__VA_ARGS__);                                                \
            CHECK_MPI(MPI_Wait(&q_, MPI_STATUS_IGNORE));                           \
        }                                                                          \
    } while (0)

/* A 2 x 2 matrix per process: inout = in * inout, so the reduction is the
 * product in rank order (not commutative). */
static void mat(int w, int *m)
{
    m[0] = w % 3 + 1, m[1] = 1, m[2] = 1, m[3] = 0;
}
static void matmul(void *vin, void *vio, int *len, MPI_Datatype *dt)
{
    const int *a = vin;
    int *b = vio;
    (void)dt;
    for (int e = 0; e < *len; e++, a += 4, b += 4) {
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                    a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}
/* Sums the data of `len` elements of 2 ints 2 apart, 4 ints long (vec below). */
static void vec_add(void *vin, void *vio, int *len, MPI_Datatype *dt)
{
    const int *a = vin;
    int *b = vio;
    (void)dt;
    for (int e = 0; e < *len; e++) {
        b[4 * e] += a[4 * e];
        b[4 * e + 2] += a[4 * e + 2];
    }
}
/* The product of the remote group's matrices, in its rank order. */
static void remote_product(int *p)
{
    mat(wr(0), p);
    for (int j = 1; j < R; j++) {
        int m[4], one = 1;
        mat(wr(j), m);
        matmul(p, m, &one, NULL);
        memcpy(p, m, sizeof m);
    }
}

static void rooted(MPI_Comm ic, int nb)
{
    MPI_Datatype vec;
    MPI_Type_vector(5, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    for (int rg = 0; rg < 2; rg++) {
        int rl = rg == 0 ? size_of(0) - 1 : 0, root = root_arg(rg, rl), rw = rg == 0 ? rl : k + rl;
        int recv = g != rg, *big = malloc(sizeof(int) * (size_t)(2 * mt_size + 64));
        /* broadcast, plain and through a vector type (holes stay as they were) */
        int b[10];
        for (int i = 0; i < 10; i++)
            b[i] = root == MPI_ROOT ? 1000 * rg + 7 * i + nb : -1;
        COLL(nb, MPI_Bcast(b, 3, MPI_INT, root, ic), MPI_Ibcast(b, 3, MPI_INT, root, ic, &q_));
        for (int i = 0; i < 3; i++)
            CHECK(b[i] == (root == MPI_PROC_NULL ? -1 : 1000 * rg + 7 * i + nb),
                  "bcast (root in %d, nb %d): b[%d] = %d", rg, nb, i, b[i]);
        for (int i = 0; i < 10; i++)
            b[i] = root == MPI_ROOT ? 500 + i : -1;
        COLL(nb, MPI_Bcast(b, 1, vec, root, ic), MPI_Ibcast(b, 1, vec, root, ic, &q_));
        for (int i = 0; i < 10; i++)
            CHECK(b[i] == (recv && i % 2 == 0 ? 500 + i : root == MPI_ROOT ? 500 + i : -1),
                  "vector bcast (root in %d): b[%d] = %d", rg, i, b[i]);
        /* gather: 2 ints from each remote process */
        int s2[2] = {mt_rank, mt_rank * 3};
        for (int i = 0; i < 2 * mt_size; i++)
            big[i] = -1;
        COLL(nb, MPI_Gather(s2, 2, MPI_INT, big, 2, MPI_INT, root, ic),
             MPI_Igather(s2, 2, MPI_INT, big, 2, MPI_INT, root, ic, &q_));
        if (root == MPI_ROOT)
            for (int j = 0; j < R; j++)
                CHECK(big[2 * j] == wr(j) && big[2 * j + 1] == 3 * wr(j),
                      "gather (root in %d, nb %d): block %d is %d %d", rg, nb, j, big[2 * j],
                      big[2 * j + 1]);
        /* gatherv: remote rank j sends j + 1 ints, kept one apart */
        int *counts = malloc(sizeof(int) * (size_t)mt_size), *displs = malloc(sizeof(int) * (size_t)mt_size);
        for (int j = 0, d = 0; j < mt_size; d += j + 2, j++) {
            counts[j] = j + 1;
            displs[j] = d;
        }
        int sv[16];
        for (int t = 0; t < lr + 1; t++)
            sv[t] = mt_rank * 10 + t;
        for (int i = 0; i < 2 * mt_size + 64; i++)
            big[i] = -1;
        COLL(nb, MPI_Gatherv(sv, lr + 1, MPI_INT, big, counts, displs, MPI_INT, root, ic),
             MPI_Igatherv(sv, lr + 1, MPI_INT, big, counts, displs, MPI_INT, root, ic, &q_));
        if (root == MPI_ROOT)
            for (int j = 0; j < R; j++) {
                for (int t = 0; t <= j; t++)
                    CHECK(big[displs[j] + t] == wr(j) * 10 + t, "gatherv (nb %d): from %d [%d] = %d",
                          nb, j, t, big[displs[j] + t]);
                CHECK(big[displs[j] + j + 1] == -1, "gatherv wrote the gap after block %d", j);
            }
        /* scatter: 2 ints to each remote process */
        for (int j = 0; j < mt_size; j++)
            big[2 * j] = root == MPI_ROOT ? wr(j) : -1, big[2 * j + 1] = -wr(j);
        int r2[2] = {-1, -1};
        COLL(nb, MPI_Scatter(big, 2, MPI_INT, r2, 2, MPI_INT, root, ic),
             MPI_Iscatter(big, 2, MPI_INT, r2, 2, MPI_INT, root, ic, &q_));
        if (recv)
            CHECK(r2[0] == mt_rank && r2[1] == -mt_rank, "scatter (root in %d, nb %d): %d %d", rg,
                  nb, r2[0], r2[1]);
        else
            CHECK(r2[0] == -1, "scatter wrote at the root's group");
        /* scatterv: j + 1 ints to remote rank j */
        for (int j = 0; j < R; j++)
            for (int t = 0; t <= j; t++)
                big[displs[j] + t] = wr(j) * 10 + t;
        int rv[16] = {0};
        COLL(nb, MPI_Scatterv(big, counts, displs, MPI_INT, rv, lr + 1, MPI_INT, root, ic),
             MPI_Iscatterv(big, counts, displs, MPI_INT, rv, lr + 1, MPI_INT, root, ic, &q_));
        if (recv)
            for (int t = 0; t <= lr; t++)
                CHECK(rv[t] == mt_rank * 10 + t, "scatterv (nb %d): [%d] = %d", nb, t, rv[t]);
        /* reduce: a sum and a matrix product of the remote group's */
        int in[2] = {mt_rank, 1}, out[2] = {-1, -1}, m[4], p[4] = {-1, -1, -1, -1}, want[4];
        COLL(nb, MPI_Reduce(in, out, 2, MPI_INT, MPI_SUM, root, ic),
             MPI_Ireduce(in, out, 2, MPI_INT, MPI_SUM, root, ic, &q_));
        int sum = 0;
        for (int j = 0; j < R; j++)
            sum += wr(j);
        if (root == MPI_ROOT)
            CHECK(out[0] == sum && out[1] == R, "reduce (root world %d, nb %d): %d %d, not %d %d",
                  rw, nb, out[0], out[1], sum, R);
        else
            CHECK(out[0] == -1, "reduce wrote outside the root");
        MPI_Op op;
        MPI_Datatype m2;
        MPI_Op_create(matmul, 0, &op);
        MPI_Type_contiguous(4, MPI_INT, &m2);
        MPI_Type_commit(&m2);
        mat(mt_rank, m);
        COLL(nb, MPI_Reduce(m, p, 1, m2, op, root, ic), MPI_Ireduce(m, p, 1, m2, op, root, ic, &q_));
        if (root == MPI_ROOT) {
            remote_product(want);
            CHECK(!memcmp(p, want, sizeof want), "matrix product (nb %d): %d %d %d %d, not %d %d %d %d",
                  nb, p[0], p[1], p[2], p[3], want[0], want[1], want[2], want[3]);
        }
        MPI_Op_free(&op);
        MPI_Type_free(&m2);
        free(counts);
        free(displs);
        free(big);
    }
    MPI_Type_free(&vec);
}

static void all_to_all(MPI_Comm ic, int nb)
{
    int n = 4 * mt_size + 64, *sb = malloc(sizeof(int) * (size_t)n), *rb = malloc(sizeof(int) * (size_t)n);
    int *sc = malloc(sizeof(int) * (size_t)mt_size), *sd = malloc(sizeof(int) * (size_t)mt_size);
    int *rc = malloc(sizeof(int) * (size_t)mt_size), *rd = malloc(sizeof(int) * (size_t)mt_size);
    /* allgather */
    int s2[2] = {mt_rank, mt_rank + 1};
    for (int i = 0; i < n; i++)
        rb[i] = -1;
    COLL(nb, MPI_Allgather(s2, 2, MPI_INT, rb, 2, MPI_INT, ic),
         MPI_Iallgather(s2, 2, MPI_INT, rb, 2, MPI_INT, ic, &q_));
    for (int j = 0; j < R; j++)
        CHECK(rb[2 * j] == wr(j) && rb[2 * j + 1] == wr(j) + 1, "allgather (nb %d): block %d = %d %d",
              nb, j, rb[2 * j], rb[2 * j + 1]);
    CHECK(rb[2 * R] == -1, "allgather wrote past the remote group's blocks");
    /* allgatherv: remote rank j sends j % 3 + 1 ints, kept one apart */
    for (int j = 0, d = 0; j < R; d += rc[j] + 1, j++) {
        rc[j] = j % 3 + 1;
        rd[j] = d;
    }
    for (int t = 0; t < lr % 3 + 1; t++)
        sb[t] = mt_rank * 10 + t;
    for (int i = 0; i < n; i++)
        rb[i] = -1;
    COLL(nb, MPI_Allgatherv(sb, lr % 3 + 1, MPI_INT, rb, rc, rd, MPI_INT, ic),
         MPI_Iallgatherv(sb, lr % 3 + 1, MPI_INT, rb, rc, rd, MPI_INT, ic, &q_));
    for (int j = 0; j < R; j++) {
        for (int t = 0; t < rc[j]; t++)
            CHECK(rb[rd[j] + t] == wr(j) * 10 + t, "allgatherv (nb %d): from %d [%d] = %d", nb, j, t,
                  rb[rd[j] + t]);
        CHECK(rb[rd[j] + rc[j]] == -1, "allgatherv wrote a gap");
    }
    /* alltoall: to remote rank j, my world rank * 100 + j */
    for (int j = 0; j < R; j++)
        sb[j] = mt_rank * 100 + j;
    COLL(nb, MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, ic),
         MPI_Ialltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, ic, &q_));
    for (int j = 0; j < R; j++)
        CHECK(rb[j] == wr(j) * 100 + lr, "alltoall (nb %d): from %d got %d", nb, j, rb[j]);
    /* alltoallv and alltoallw: (src + dst) % 3 + 1 ints from local rank src to remote dst */
    for (int j = 0, d = 0, e = 0; j < R; j++) {
        sc[j] = (lr + j) % 3 + 1;
        sd[j] = d;
        rc[j] = (j + lr) % 3 + 1;
        rd[j] = e;
        for (int t = 0; t < sc[j]; t++)
            sb[d + t] = mt_rank * 1000 + j * 10 + t;
        d += sc[j];
        e += rc[j] + 1;
    }
    for (int i = 0; i < n; i++)
        rb[i] = -1;
    COLL(nb, MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, ic),
         MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, ic, &q_));
    for (int j = 0; j < R; j++)
        for (int t = 0; t <= rc[j]; t++)
            CHECK(rb[rd[j] + t] == (t < rc[j] ? wr(j) * 1000 + lr * 10 + t : -1),
                  "alltoallv (nb %d): from %d [%d] = %d", nb, j, t, rb[rd[j] + t]);
    MPI_Datatype *st = malloc(sizeof *st * (size_t)mt_size), *rt = malloc(sizeof *rt * (size_t)mt_size);
    int *sw = malloc(sizeof(int) * (size_t)mt_size), *rw = malloc(sizeof(int) * (size_t)mt_size);
    int *one = malloc(sizeof(int) * (size_t)mt_size);
    for (int j = 0; j < R; j++) {
        st[j] = MPI_INT;
        sw[j] = sd[j] * (int)sizeof(int);
        rw[j] = rd[j] * (int)sizeof(int);
        /* odd senders' blocks arrive as one element of a contiguous type */
        one[j] = j % 2 ? 1 : rc[j];
        rt[j] = MPI_INT;
        if (j % 2) {
            MPI_Type_contiguous(rc[j], MPI_INT, &rt[j]);
            MPI_Type_commit(&rt[j]);
        }
    }
    for (int i = 0; i < n; i++)
        rb[i] = -1;
    COLL(nb, MPI_Alltoallw(sb, sc, sw, st, rb, one, rw, rt, ic),
         MPI_Ialltoallw(sb, sc, sw, st, rb, one, rw, rt, ic, &q_));
    for (int j = 0; j < R; j++) {
        for (int t = 0; t <= rc[j]; t++)
            CHECK(rb[rd[j] + t] == (t < rc[j] ? wr(j) * 1000 + lr * 10 + t : -1),
                  "alltoallw (nb %d): from %d [%d] = %d", nb, j, t, rb[rd[j] + t]);
        if (j % 2)
            MPI_Type_free(&rt[j]);
    }
    free(st), free(rt), free(sw), free(rw), free(one);
    free(sb), free(rb), free(sc), free(sd), free(rc), free(rd);
}

static void reductions(MPI_Comm ic, int nb)
{
    int sum = 0, in[2] = {mt_rank, 1}, out[2] = {-1, -1};
    for (int j = 0; j < R; j++)
        sum += wr(j);
    COLL(nb, MPI_Allreduce(in, out, 2, MPI_INT, MPI_SUM, ic),
         MPI_Iallreduce(in, out, 2, MPI_INT, MPI_SUM, ic, &q_));
    CHECK(out[0] == sum && out[1] == R, "allreduce (nb %d): %d %d, not %d %d", nb, out[0], out[1],
          sum, R);
    /* not commutative: the remote group's product in its rank order */
    int m[4], p[4] = {0}, want[4];
    MPI_Op op;
    MPI_Datatype m2;
    MPI_Op_create(matmul, 0, &op);
    MPI_Type_contiguous(4, MPI_INT, &m2);
    MPI_Type_commit(&m2);
    mat(mt_rank, m);
    COLL(nb, MPI_Allreduce(m, p, 1, m2, op, ic), MPI_Iallreduce(m, p, 1, m2, op, ic, &q_));
    remote_product(want);
    CHECK(!memcmp(p, want, sizeof want), "allreduce matrix product (nb %d): %d %d %d %d", nb, p[0],
          p[1], p[2], p[3]);
    MPI_Op_free(&op);
    MPI_Type_free(&m2);
    /* a user op on a type with holes (a predefined one would be refused by
     * Open MPI): the data slots hold the remote group's sums */
    MPI_Datatype v2, vec;
    MPI_Op add;
    MPI_Type_vector(2, 1, 2, MPI_INT, &v2);
    MPI_Type_create_resized(v2, 0, 4 * sizeof(int), &vec);
    MPI_Type_commit(&vec);
    MPI_Type_free(&v2);
    MPI_Op_create(vec_add, 1, &add);
    int vi[8] = {mt_rank, -5, 2 * mt_rank, -5, 1, -5, 3, -5}, vo[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    COLL(nb, MPI_Allreduce(vi, vo, 2, vec, add, ic), MPI_Iallreduce(vi, vo, 2, vec, add, ic, &q_));
    CHECK(vo[0] == sum && vo[2] == 2 * sum && vo[4] == R && vo[6] == 3 * R,
          "allreduce on a vector (nb %d): %d %d %d %d", nb, vo[0], vo[2], vo[4], vo[6]);
    MPI_Op_free(&add);
    MPI_Type_free(&vec);
    /* value-index pairs */
    struct { double v; int i; } pi = {(double)(mt_rank % 3), mt_rank}, po = {-1, -1};
    COLL(nb, MPI_Allreduce(&pi, &po, 1, MPI_DOUBLE_INT, MPI_MAXLOC, ic),
         MPI_Iallreduce(&pi, &po, 1, MPI_DOUBLE_INT, MPI_MAXLOC, ic, &q_));
    int best = 0;
    for (int j = 1; j < R; j++)
        if (wr(j) % 3 > wr(best) % 3)
            best = j;
    CHECK(po.v == wr(best) % 3 && po.i == wr(best), "maxloc (nb %d): %g at %d", nb, po.v, po.i);
    /* reduce-scatter: 12 elements spread over each group by its own counts */
    int n = 12, sb[64], rb[64], *rcs = malloc(sizeof(int) * (size_t)L), off = 0;
    for (int i = 0; i < L; i++) {
        rcs[i] = n / L + (i < n % L);
        off += i < lr ? rcs[i] : 0;
    }
    for (int t = 0; t < n; t++)
        sb[t] = mt_rank * 100 + t;
    for (int t = 0; t < 64; t++)
        rb[t] = -1;
    COLL(nb, MPI_Reduce_scatter(sb, rb, rcs, MPI_INT, MPI_SUM, ic),
         MPI_Ireduce_scatter(sb, rb, rcs, MPI_INT, MPI_SUM, ic, &q_));
    for (int t = 0; t <= rcs[lr]; t++)
        CHECK(rb[t] == (t < rcs[lr] ? sum * 100 + R * (off + t) : -1), "reduce_scatter (nb %d): [%d] = %d",
              nb, t, rb[t]);
    /* reduce-scatter-block: 2 R each here, 2 L each there: 2 L R elements */
    for (int t = 0; t < 2 * L * R; t++)
        sb[t] = mt_rank * 100 + t;
    for (int t = 0; t < 64; t++)
        rb[t] = -1;
    COLL(nb, MPI_Reduce_scatter_block(sb, rb, 2 * R, MPI_INT, MPI_SUM, ic),
         MPI_Ireduce_scatter_block(sb, rb, 2 * R, MPI_INT, MPI_SUM, ic, &q_));
    for (int t = 0; t <= 2 * R; t++)
        CHECK(rb[t] == (t < 2 * R ? sum * 100 + R * (lr * 2 * R + t) : -1),
              "reduce_scatter_block (nb %d): [%d] = %d", nb, t, rb[t]);
    free(rcs);
}

/* A collective's messages are never taken by a wildcard receive posted on
 * the same intercommunicator; a barrier lets no process out before the
 * other group is in. */
static void apart(MPI_Comm ic)
{
    int x = -1, all[64], me = mt_rank;
    MPI_Request q = MPI_REQUEST_NULL;
    if (lr == 0)
        MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &q);
    CHECK_MPI(MPI_Allgather(&me, 1, MPI_INT, all, 1, MPI_INT, ic));
    CHECK_MPI(MPI_Barrier(ic));
    MPI_Request b;
    CHECK_MPI(MPI_Ibarrier(ic, &b));
    CHECK_MPI(MPI_Wait(&b, MPI_STATUS_IGNORE));
    if (lr == 0) {
        MPI_Send(&me, 1, MPI_INT, 0, 77, ic);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        CHECK(x == wr(0), "the wildcard receive got %d, not %d", x, wr(0));
    }
    for (int j = 0; j < R; j++)
        CHECK(all[j] == wr(j), "allgather beside a wildcard receive: %d = %d", j, all[j]);
}

static void refused(MPI_Comm ic)
{
    int in = 1, out, cls = -1;
    MPI_Request q;
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    MPI_Error_class(MPI_Scan(&in, &out, 1, MPI_INT, MPI_SUM, ic), &cls);
    CHECK(cls == MPI_ERR_COMM, "scan on an intercommunicator: class %d", cls);
#ifndef OPEN_MPI /* Open MPI 4.1 does not check: its MPI_Exscan crashes on one */
    MPI_Error_class(MPI_Exscan(&in, &out, 1, MPI_INT, MPI_SUM, ic), &cls);
    CHECK(cls == MPI_ERR_COMM, "exscan on an intercommunicator: class %d", cls);
#endif
    MPI_Error_class(MPI_Iscan(&in, &out, 1, MPI_INT, MPI_SUM, ic, &q), &cls);
    CHECK(cls == MPI_ERR_COMM, "iscan on an intercommunicator: class %d", cls);
    MPI_Error_class(MPI_Bcast(&in, 1, MPI_INT, R + 5, ic), &cls);
    CHECK(cls == MPI_ERR_ROOT, "bcast from remote rank %d of %d: class %d", R + 5, R, cls);
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_intercoll");
    if (mt_size < 2) {
        if (mt_rank == 0)
            printf("mpi_intercoll: one rank, one group: no intercommunicator to test\n");
        return mt_finish();
    }
    k = (mt_size + 2) / 3;
    g = mt_rank >= k;
    lr = g == 0 ? mt_rank : mt_rank - k;
    L = size_of(g);
    R = size_of(1 - g);
    MPI_Comm local, peer, ic;
    MPI_Comm_dup(MPI_COMM_WORLD, &peer);
    MPI_Comm_split(MPI_COMM_WORLD, g, mt_rank, &local);
    /* A's leader is its last member (world k - 1), B's its first (world k). */
    CHECK_MPI(MPI_Intercomm_create(local, g == 0 ? L - 1 : 0, peer, g == 0 ? k : k - 1, 3, &ic));
    for (int nb = 0; nb < 2; nb++) {
        rooted(ic, nb);
        all_to_all(ic, nb);
        reductions(ic, nb);
    }
    apart(ic);
    refused(ic);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    MPI_Comm_free(&peer);
    return mt_finish();
}
