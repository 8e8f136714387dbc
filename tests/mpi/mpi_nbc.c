/* mpi_nbc.c — the nonblocking rooted, v- and w-collectives (Igather(v),
 * Iscatter(v), Iallgatherv, Ialltoallv, Ialltoallw, Ireduce_scatter(_block),
 * Iscan, Iexscan) and MPI_Alltoallw, checked against values each rank
 * computes itself: contiguous and strided datatypes, in place, completion by
 * Wait, Test, Waitall and Testany, a type freed before the wait, and the
 * error classes of bad arguments. */
#include "mtest.h"

#define K 5 /* elements per block */

/* The value rank `from` contributes as element i of its block for `to`. */
static int val(int from, int to, int i) { return 1000 * from + 100 * to + i; }

static void wait_req(MPI_Request *r, int how)
{
    if (how == 0) {
        CHECK_MPI(MPI_Wait(r, MPI_STATUS_IGNORE));
    } else {
        int flag = 0;
        while (!flag)
            CHECK_MPI(MPI_Test(r, &flag, MPI_STATUS_IGNORE));
    }
    CHECK(*r == MPI_REQUEST_NULL, "request not freed by its completion");
}

/* Every other int: a type with holes (extent two ints), so the face packs. */
static MPI_Datatype strided(void)
{
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &t));
    CHECK_MPI(MPI_Type_commit(&t));
    return t;
}

/* Ints a buffer needs (before the stride): at least `min`, and room for the
 * v-variants' layout, blocks of 1..n ints with a gap before each. */
static int room_for(int n, int min)
{
    int v = n * (n + 3) / 2 + 1;
    return v > min ? v : min;
}

/* Rooted collectives, every root, contiguous and strided receive types. */
static void rooted(MPI_Datatype st, int stride)
{
    int n = mt_size, me = mt_rank, nall = n * K;
    int room = room_for(n, nall);
    int *s = calloc((size_t)room * 2, sizeof(int)), *r = calloc((size_t)room * 2, sizeof(int));
    int *cnt = malloc(sizeof(int) * (size_t)n), *dsp = malloc(sizeof(int) * (size_t)n);
    MPI_Datatype rt = stride == 1 ? MPI_INT : st;
    for (int root = 0; root < n; root++) {
        /* Igather: block i of the root's buffer comes from rank i. */
        for (int i = 0; i < K; i++)
            s[i] = val(me, root, i);
        for (int i = 0; i < nall * 2; i++)
            r[i] = -1;
        MPI_Request q;
        CHECK_MPI(MPI_Igather(s, K, MPI_INT, r, K, rt, root, MPI_COMM_WORLD, &q));
        wait_req(&q, root % 2);
        for (int i = 0; me == root && i < nall; i++)
            CHECK(r[i * stride] == val(i / K, root, i % K), "igather[%d] = %d", i, r[i * stride]);
        /* Iscatter: the root's block i goes to rank i. */
        for (int i = 0; i < nall; i++)
            s[i] = val(root, i / K, i % K);
        for (int i = 0; i < K * stride; i++)
            r[i] = -1;
        CHECK_MPI(MPI_Iscatter(s, K, MPI_INT, r, K, rt, root, MPI_COMM_WORLD, &q));
        wait_req(&q, 0);
        for (int i = 0; i < K; i++)
            CHECK(r[i * stride] == val(root, me, i), "iscatter[%d] = %d", i, r[i * stride]);
        /* Igatherv: rank i sends i + 1 elements, placed with a gap of one. */
        for (int i = 0, off = 0; i < n; i++) {
            cnt[i] = i + 1;
            dsp[i] = off + 1;
            off += cnt[i] + 1;
        }
        for (int i = 0; i <= me; i++)
            s[i] = val(me, root, i);
        for (int i = 0; i < room * 2; i++)
            r[i] = -1;
        CHECK_MPI(MPI_Igatherv(s, me + 1, MPI_INT, r, cnt, dsp, rt, root, MPI_COMM_WORLD, &q));
        wait_req(&q, 1);
        for (int i = 0; me == root && i < n; i++) {
            CHECK(r[(dsp[i] - 1) * stride] == -1, "igatherv wrote the gap before block %d", i);
            for (int j = 0; j < cnt[i]; j++)
                CHECK(r[(dsp[i] + j) * stride] == val(i, root, j), "igatherv block %d[%d]", i, j);
        }
        /* Iscatterv, the same layout at the root; in place at the root. */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < cnt[i]; j++)
                s[(dsp[i] + j) * stride] = val(root, i, j);
        for (int i = 0; i < K * stride; i++)
            r[i] = -1;
        CHECK_MPI(MPI_Iscatterv(s, cnt, dsp, rt, me == root ? MPI_IN_PLACE : r, me + 1, MPI_INT,
                                root, MPI_COMM_WORLD, &q));
        wait_req(&q, 0);
        for (int j = 0; me != root && j <= me; j++)
            CHECK(r[j] == val(root, me, j), "iscatterv[%d] = %d", j, r[j]);
    }
    free(s);
    free(r);
    free(cnt);
    free(dsp);
}

/* Everyone to everyone: Iallgatherv and Ialltoallv, in place or not. */
static void all(MPI_Datatype st, int stride, int in_place)
{
    int n = mt_size, me = mt_rank;
    int room = room_for(n, n * K + n);
    int *s = calloc((size_t)room * 2, sizeof(int)), *r = calloc((size_t)room * 2, sizeof(int));
    int *cnt = malloc(sizeof(int) * (size_t)n), *dsp = malloc(sizeof(int) * (size_t)n);
    MPI_Datatype t = stride == 1 ? MPI_INT : st;
    for (int i = 0, off = 0; i < n; i++) {
        cnt[i] = i + 1;
        dsp[i] = off + 1;
        off += cnt[i] + 1;
    }
    for (int i = 0; i < room * 2; i++)
        r[i] = -1;
    for (int j = 0; j <= me; j++)
        (in_place ? r : s)[(in_place ? (dsp[me] + j) * stride : j)] = val(me, 0, j);
    MPI_Request q;
    CHECK_MPI(MPI_Iallgatherv(in_place ? MPI_IN_PLACE : s, me + 1, MPI_INT, r, cnt, dsp, t,
                              MPI_COMM_WORLD, &q));
    wait_req(&q, in_place);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < cnt[i]; j++)
            CHECK(r[(dsp[i] + j) * stride] == val(i, 0, j), "iallgatherv block %d[%d]", i, j);
    /* Ialltoallv: rank `me` sends min(me, i) + 1 elements to rank i. */
    int *sc = malloc(sizeof(int) * (size_t)n), *sd = malloc(sizeof(int) * (size_t)n);
    for (int i = 0, off = 0, roff = 0; i < n; i++) {
        sc[i] = (me < i ? me : i) + 1;
        sd[i] = off;
        off += sc[i] + 1;
        cnt[i] = sc[i]; /* what rank i sends me: min(i, me) + 1, the same */
        dsp[i] = roff + 1;
        roff += cnt[i] + 1;
    }
    for (int i = 0; i < room * 2; i++)
        r[i] = -1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < sc[i]; j++) {
            if (in_place)
                r[(dsp[i] + j) * stride] = val(me, i, j);
            else
                s[(sd[i] + j) * stride] = val(me, i, j);
        }
    CHECK_MPI(MPI_Ialltoallv(in_place ? MPI_IN_PLACE : s, sc, sd, t, r, cnt, dsp, t,
                             MPI_COMM_WORLD, &q));
    wait_req(&q, 0);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < cnt[i]; j++)
            CHECK(r[(dsp[i] + j) * stride] == val(i, me, j), "ialltoallv block %d[%d] = %d", i, j,
                  r[(dsp[i] + j) * stride]);
    free(s);
    free(r);
    free(cnt);
    free(dsp);
    free(sc);
    free(sd);
}

/* Alltoallw and Ialltoallw: to even ranks as ints, to odd ones as strided
 * ints (the same signature); received as ints from every rank. */
static void alltoallw(MPI_Datatype st, int nonblocking, int in_place)
{
    int n = mt_size, me = mt_rank;
    int *s = calloc((size_t)n * K * 2, sizeof(int)), *r = calloc((size_t)n * K * 2, sizeof(int));
    int *sc = malloc(sizeof(int) * (size_t)n), *sd = malloc(sizeof(int) * (size_t)n);
    int *rc = malloc(sizeof(int) * (size_t)n), *rd = malloc(sizeof(int) * (size_t)n);
    MPI_Datatype *stt = malloc(sizeof *stt * (size_t)n), *rtt = malloc(sizeof *rtt * (size_t)n);
    for (int i = 0; i < n; i++) {
        sc[i] = rc[i] = K;
        stt[i] = i % 2 ? st : MPI_INT;
        sd[i] = i * K * 2 * (int)sizeof(int); /* bytes */
        rtt[i] = in_place ? stt[i] : MPI_INT;
        rd[i] = in_place ? sd[i] : (n - 1 - i) * K * (int)sizeof(int); /* reversed order */
        for (int j = 0; j < K; j++)
            (in_place ? r : s)[i * K * 2 + j * (i % 2 ? 2 : 1)] = val(me, i, j);
    }
    if (!in_place)
        for (int i = 0; i < n * K; i++)
            r[i] = -1;
    MPI_Request q;
    if (nonblocking) {
        CHECK_MPI(MPI_Ialltoallw(in_place ? MPI_IN_PLACE : s, sc, sd, stt, r, rc, rd, rtt,
                                 MPI_COMM_WORLD, &q));
        wait_req(&q, 1);
    } else {
        CHECK_MPI(MPI_Alltoallw(in_place ? MPI_IN_PLACE : s, sc, sd, stt, r, rc, rd, rtt,
                                MPI_COMM_WORLD));
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < K; j++) {
            int at = in_place ? i * K * 2 + j * (i % 2 ? 2 : 1) : (n - 1 - i) * K + j;
            CHECK(r[at] == val(i, me, j), "%salltoallw%s from %d[%d] = %d", nonblocking ? "i" : "",
                  in_place ? " in place" : "", i, j, r[at]);
        }
    free(s), free(r), free(sc), free(sd), free(rc), free(rd), free(stt), free(rtt);
}

/* A sum as a user operation: predefined operations on derived datatypes
 * are not portable (Open MPI refuses them), user operations are. */
static void isum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[2 * i] += ((int *)in)[2 * i]; /* one int per strided element */
}

/* Reductions: several started at once, completed by Testany. */
static void reductions(MPI_Datatype st, int stride)
{
    int n = mt_size, me = mt_rank;
    MPI_Datatype t = stride == 1 ? MPI_INT : st;
    MPI_Op sum = MPI_SUM;
    if (stride != 1)
        CHECK_MPI(MPI_Op_create(isum, 1, &sum));
    int *rs = calloc((size_t)n * K * 2, sizeof(int)), *rso = calloc((size_t)K * 2, sizeof(int));
    int *rsb = calloc((size_t)n * K * 2, sizeof(int)), *sc = calloc((size_t)K * 2, sizeof(int));
    int *in = calloc((size_t)K * 2, sizeof(int)), *ex = calloc((size_t)K * 2, sizeof(int));
    int *cnt = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n * K; i++) {
        rs[i * stride] = val(me, i / K, i % K);
        rsb[i * stride] = val(me, i / K, i % K);
    }
    for (int j = 0; j < K; j++) {
        in[j * stride] = val(me, 0, j);
        ex[j * stride] = -7;
    }
    for (int i = 0; i < n; i++)
        cnt[i] = K;
    MPI_Request q[4];
    CHECK_MPI(MPI_Ireduce_scatter(rs, rso, cnt, t, sum, MPI_COMM_WORLD, &q[0]));
    CHECK_MPI(MPI_Ireduce_scatter_block(MPI_IN_PLACE, rsb, K, t, sum, MPI_COMM_WORLD, &q[1]));
    CHECK_MPI(MPI_Iscan(in, sc, K, t, sum, MPI_COMM_WORLD, &q[2]));
    CHECK_MPI(MPI_Iexscan(in, ex, K, t, sum, MPI_COMM_WORLD, &q[3]));
    for (int done = 0; done < 4;) {
        int idx, flag;
        CHECK_MPI(MPI_Testany(4, q, &idx, &flag, MPI_STATUS_IGNORE));
        if (flag) {
            CHECK(idx >= 0 && idx < 4 && q[idx] == MPI_REQUEST_NULL, "testany index %d", idx);
            done++;
        }
    }
    for (int j = 0; j < K; j++) {
        int sum = 0, pre = 0;
        for (int i = 0; i < n; i++)
            sum += val(i, me, j);
        CHECK(rso[j * stride] == sum, "ireduce_scatter[%d] = %d, want %d", j, rso[j * stride], sum);
        CHECK(rsb[j * stride] == sum, "ireduce_scatter_block in place[%d] = %d", j, rsb[j * stride]);
        for (int i = 0; i < me; i++)
            pre += val(i, 0, j);
        CHECK(sc[j * stride] == pre + val(me, 0, j), "iscan[%d] = %d", j, sc[j * stride]);
        if (me > 0)
            CHECK(ex[j * stride] == pre, "iexscan[%d] = %d, want %d", j, ex[j * stride], pre);
    }
    /* In place, with Waitall. */
    MPI_Request w[2];
    for (int j = 0; j < K; j++)
        sc[j * stride] = ex[j * stride] = val(me, 0, j);
    CHECK_MPI(MPI_Iscan(MPI_IN_PLACE, sc, K, t, sum, MPI_COMM_WORLD, &w[0]));
    CHECK_MPI(MPI_Iexscan(MPI_IN_PLACE, ex, K, t, sum, MPI_COMM_WORLD, &w[1]));
    CHECK_MPI(MPI_Waitall(2, w, MPI_STATUSES_IGNORE));
    for (int j = 0; j < K; j++) {
        int pre = 0;
        for (int i = 0; i < me; i++)
            pre += val(i, 0, j);
        CHECK(sc[j * stride] == pre + val(me, 0, j), "iscan in place[%d]", j);
        if (me > 0)
            CHECK(ex[j * stride] == pre, "iexscan in place[%d]", j);
    }
    if (sum != MPI_SUM)
        CHECK_MPI(MPI_Op_free(&sum));
    free(rs), free(rso), free(rsb), free(sc), free(in), free(ex), free(cnt);
}

static int err_class(int rc)
{
    int cls = rc;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* Bad arguments give the standard's error classes (errors returned). Only
 * those Open MPI checks too: it does not check a v-variant's counts or a
 * reduction's datatype handle. */
static void errors(void)
{
    int n = mt_size, buf[8] = {0}, cnt[64], dsp[64];
    MPI_Datatype ty[64];
    MPI_Comm c;
    MPI_Request q = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    for (int i = 0; i < n && i < 64; i++) {
        cnt[i] = -1;
        dsp[i] = 0;
        ty[i] = MPI_INT;
    }
    CHECK(err_class(MPI_Igather(buf, 1, MPI_INT, buf, 1, MPI_INT, n, c, &q)) == MPI_ERR_ROOT, "igather root n");
    CHECK(err_class(MPI_Iscatter(buf, 1, MPI_INT, buf, 1, MPI_INT, -1, c, &q)) == MPI_ERR_ROOT, "iscatter root -1");
    CHECK(err_class(MPI_Igather(buf, -1, MPI_INT, buf, -1, MPI_INT, 0, c, &q)) == MPI_ERR_COUNT, "igather count -1");
    CHECK(err_class(MPI_Ialltoallw(buf, cnt, dsp, ty, buf, cnt, dsp, ty, c, &q)) == MPI_ERR_COUNT,
          "ialltoallw count -1");
    CHECK(err_class(MPI_Ireduce_scatter_block(buf, buf, -1, MPI_INT, MPI_SUM, c, &q)) == MPI_ERR_COUNT,
          "ireduce_scatter_block count -1");
    CHECK(err_class(MPI_Iexscan(buf, buf, 1, MPI_INT, MPI_OP_NULL, c, &q)) == MPI_ERR_OP, "iexscan MPI_OP_NULL");
    CHECK_MPI(MPI_Comm_free(&c));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_nbc");
    MPI_Datatype st = strided();
    rooted(st, 1);
    rooted(st, 2);
    for (int in_place = 0; in_place < 2; in_place++) {
        all(st, 1, in_place);
        all(st, 2, in_place);
        alltoallw(st, 0, in_place);
        alltoallw(st, 1, in_place);
    }
    reductions(st, 1);
    reductions(st, 2);
    /* A strided type freed while an Igatherv still uses it (MPI 3.1, 4.1.9). */
    int n = mt_size, me = mt_rank, *r = malloc(sizeof(int) * (size_t)n * 4), s = val(me, 0, 0);
    int *cnt = malloc(sizeof(int) * (size_t)n), *dsp = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        cnt[i] = 1;
        dsp[i] = n - 1 - i;
        r[2 * i] = r[2 * i + 1] = -1;
    }
    MPI_Request q;
    CHECK_MPI(MPI_Iallgatherv(&s, 1, MPI_INT, r, cnt, dsp, st, MPI_COMM_WORLD, &q));
    CHECK_MPI(MPI_Type_free(&st));
    wait_req(&q, 0);
    for (int i = 0; i < n; i++)
        CHECK(r[2 * (n - 1 - i)] == val(i, 0, 0), "iallgatherv after type free, block %d", i);
    free(r), free(cnt), free(dsp);
    errors();
    return mt_finish();
}
