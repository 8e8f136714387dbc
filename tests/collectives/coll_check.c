/*
 * coll_check.c — the collectives against serial references, on however many
 * ranks boltrun starts. `coll_check SUITE[,SUITE...] [--large] [--huge]`:
 *   reduce    every builtin op x type (allreduce, reduce, scan, exscan,
 *             reduce-scatter), a non-commutative user op, small sizes
 *   allreduce the selected all-reduce algorithm: sizes, in place, bitwise
 *             identity across ranks and runs for random floats
 *   data      bcast, gather(v), scatter(v), allgather(v), alltoall(v), barrier
 *   nonblocking  several nonblocking collectives in flight with p2p traffic
 *   errors    bad arguments are refused on every rank
 *   local     reduce_local kernels against plain C
 *   peer_exit the last rank leaves: the others' next collective fails
 *             (--large: a nonblocking one)
 *   choice SPEC  the algorithms picked: SPEC is OP:BYTES=NAME or
 *             OP:BYTES!=NAME, comma-separated
 * --large adds 1 MiB + 3 elements; --huge checks only 16 MiB (allreduce, bcast).
 * Algorithms come from BOLT_ALLREDUCE_ALGO, BOLT_BCAST_ALGO, ... (boltrun -x).
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r, strdup */
#include <math.h>
#include <unistd.h>

#include "cutil.h"

static bolt_comm_t world;
static int large, huge;

static const bolt_datatype_t all_types[] = {
    BOLT_BYTE, BOLT_INT8, BOLT_INT16, BOLT_INT32, BOLT_INT64, BOLT_UINT8, BOLT_UINT16,
    BOLT_UINT32, BOLT_UINT64, BOLT_FLOAT32, BOLT_FLOAT64, BOLT_FLOAT16, BOLT_BFLOAT16,
    BOLT_LONG_DOUBLE, BOLT_C_FLOAT_COMPLEX, BOLT_C_DOUBLE_COMPLEX, BOLT_BOOL, BOLT_FLOAT_INT,
    BOLT_DOUBLE_INT, BOLT_LONG_INT, BOLT_2INT, BOLT_SHORT_INT, BOLT_LONG_DOUBLE_INT};
#define NTYPES (sizeof all_types / sizeof all_types[0])
static const char *const op_names[] = {"", "SUM", "PROD", "MIN", "MAX", "LAND", "LOR",
                                       "LXOR", "BAND", "BOR", "BXOR", "MAXLOC", "MINLOC"};

/* May op reduce dt? Asks Bolt, which must agree with the MPI rules checked in errors. */
static int valid(bolt_op_t op, bolt_datatype_t dt)
{
    int x = 0;
    return bolt_reduce_local(&x, &x, 0, dt, op) == BOLT_OK;
}

/* ---- reduce suite ---- */

static void check_allreduce(size_t count, bolt_datatype_t dt, bolt_op_t op, unsigned seed)
{
    size_t bytes = count * bolt_type_size(dt);
    char *in = xmalloc(bytes), *out = xmalloc(bytes), *ref = xmalloc(bytes);
    cfill(in, count, dt, op, crank, seed);
    cref(ref, count, dt, op, csize, seed, csize);
    CASE("allreduce %s %s count %zu", bolt_type_name(dt), op < 13 ? op_names[op] : "user", count);
    OK(bolt_allreduce(in, out, count, dt, op, world));
    long d = cdiff(out, ref, count, dt);
    EXPECT(d < 0, "element %ld differs from the serial reference", d);
    CASE("allreduce in place %s %s count %zu", bolt_type_name(dt),
         op < 13 ? op_names[op] : "user", count);
    OK(bolt_allreduce(BOLT_IN_PLACE, in, count, dt, op, world));
    d = cdiff(in, ref, count, dt);
    EXPECT(d < 0, "element %ld differs from the serial reference", d);
    free(in);
    free(out);
    free(ref);
}

static void check_reduce(size_t count, bolt_datatype_t dt, bolt_op_t op, int root, unsigned seed)
{
    size_t bytes = count * bolt_type_size(dt);
    char *in = xmalloc(bytes), *out = xmalloc(bytes), *ref = xmalloc(bytes);
    cfill(in, count, dt, op, crank, seed);
    cref(ref, count, dt, op, csize, seed, csize);
    CASE("reduce root %d %s op %d count %zu", root, bolt_type_name(dt), op, count);
    OK(bolt_reduce(in, crank == root ? out : NULL, count, dt, op, root, world));
    if (crank == root)
        EXPECT(cdiff(out, ref, count, dt) < 0, "wrong result at the root: element %ld",
               cdiff(out, ref, count, dt));
    CASE("reduce in place root %d %s count %zu", root, bolt_type_name(dt), count);
    OK(bolt_reduce(crank == root ? BOLT_IN_PLACE : in, crank == root ? in : NULL, count, dt, op,
                   root, world));
    if (crank == root)
        EXPECT(cdiff(in, ref, count, dt) < 0, "wrong result at the root");
    free(in);
    free(out);
    free(ref);
}

static void check_scan(size_t count, bolt_datatype_t dt, bolt_op_t op, unsigned seed)
{
    size_t bytes = count * bolt_type_size(dt);
    char *in = xmalloc(bytes), *out = xmalloc(bytes), *ref = xmalloc(bytes);
    cfill(in, count, dt, op, crank, seed);
    CASE("scan %s count %zu", bolt_type_name(dt), count);
    OK(bolt_scan(in, out, count, dt, op, world));
    cref(ref, count, dt, op, csize, seed, crank + 1);
    EXPECT(cdiff(out, ref, count, dt) < 0, "wrong inclusive prefix");
    OK(bolt_scan(BOLT_IN_PLACE, in, count, dt, op, world));
    EXPECT(cdiff(in, ref, count, dt) < 0, "wrong inclusive prefix in place");
    CASE("exscan %s count %zu", bolt_type_name(dt), count);
    cfill(in, count, dt, op, crank, seed);
    memset(out, 0x5a, bytes);
    OK(bolt_exscan(in, out, count, dt, op, world));
    if (crank > 0) {
        cref(ref, count, dt, op, csize, seed, crank);
        EXPECT(cdiff(out, ref, count, dt) < 0, "wrong exclusive prefix");
        OK(bolt_exscan(BOLT_IN_PLACE, in, count, dt, op, world));
        EXPECT(cdiff(in, ref, count, dt) < 0, "wrong exclusive prefix in place");
    } else {
        for (size_t i = 0; i < bytes; i++)
            EXPECT((unsigned char)out[i] == 0x5a, "rank 0's exscan buffer was written");
        OK(bolt_exscan(BOLT_IN_PLACE, in, count, dt, op, world));
    }
    free(in);
    free(out);
    free(ref);
}

/* Rank i's part: block + i % 3 elements (uneven), or `big` for every third
 * rank when big is not 0: a part past what goes without a schedule (1 KiB)
 * among small ones, so that a rank sends some parts at once and leaves the
 * rest to a schedule, which must pick up where it stopped. */
static void check_reduce_scatter(size_t block, size_t big, bolt_datatype_t dt, bolt_op_t op,
                                 unsigned seed)
{
    size_t es = bolt_type_size(dt), *counts = xmalloc((size_t)csize * sizeof *counts), total = 0,
           off = 0;
    for (int i = 0; i < csize; i++) {
        counts[i] = big && i % 3 == 2 ? big : block + (size_t)(i % 3);
        total += counts[i];
        if (i < crank)
            off += counts[i];
    }
    char *in = xmalloc(total * es), *out = xmalloc(total * es), *ref = xmalloc(total * es);
    cfill(in, total, dt, op, crank, seed);
    cref(ref, total, dt, op, csize, seed, csize);
    CASE("reduce_scatter %s block %zu, every third %zu", bolt_type_name(dt), block, big);
    OK(bolt_reduce_scatter(in, out, counts, dt, op, world));
    EXPECT(cdiff(out, ref + off * es, counts[crank], dt) < 0, "wrong part");
    OK(bolt_reduce_scatter(BOLT_IN_PLACE, in, counts, dt, op, world));
    EXPECT(cdiff(in, ref + off * es, counts[crank], dt) < 0, "wrong part in place");
    /* block variant */
    cfill(in, block * (size_t)csize, dt, op, crank, seed);
    cref(ref, block * (size_t)csize, dt, op, csize, seed, csize);
    CASE("reduce_scatter_block %s block %zu", bolt_type_name(dt), block);
    OK(bolt_reduce_scatter_block(in, out, block, dt, op, world));
    EXPECT(cdiff(out, ref + block * (size_t)crank * es, block, dt) < 0, "wrong block");
    free(in);
    free(out);
    free(ref);
    free(counts);
}

/* In place, the result lands where the parts for the other ranks were sent
 * from: a race between writing it and a peer still reading them shows in
 * some calls only, so many back to back, each on fresh memory, then every
 * result checked (int32 sums: exact). */
static void check_reduce_scatter_in_place_burst(size_t block, int calls)
{
    size_t n = (size_t)csize, *counts = xmalloc(n * sizeof *counts);
    for (size_t i = 0; i < n; i++)
        counts[i] = block;
    int32_t **bufs = xmalloc((size_t)calls * sizeof *bufs);
    for (int k = 0; k < calls; k++) {
        bufs[k] = xmalloc(block * n * sizeof **bufs);
        for (size_t i = 0; i < block * n; i++)
            bufs[k][i] = (int32_t)(i * 3 + (size_t)crank * 1000 + (size_t)k);
    }
    CASE("reduce_scatter in place, %d calls of %zu int32 blocks", calls, block);
    for (int k = 0; k < calls; k++)
        OK(bolt_reduce_scatter(BOLT_IN_PLACE, bufs[k], counts, BOLT_INT32, BOLT_SUM, world));
    for (int k = 0; k < calls; k++) {
        long bad = -1;
        for (size_t i = 0; i < block && bad < 0; i++) {
            size_t g = (size_t)crank * block + i;
            uint32_t want = 0;
            for (size_t q = 0; q < n; q++)
                want += (uint32_t)(g * 3 + q * 1000 + (size_t)k);
            if ((uint32_t)bufs[k][i] != want)
                bad = (long)i;
        }
        EXPECT(bad < 0, "call %d: element %ld wrong", k, bad);
        free(bufs[k]);
    }
    free(bufs);
    free(counts);
}

static void suite_reduce(void)
{
    static const size_t counts[] = {0, 1, 7, 1024};
    unsigned seed = 1;
    for (bolt_op_t op = BOLT_SUM; op <= BOLT_MINLOC; op++)
        for (size_t t = 0; t < NTYPES; t++) {
            bolt_datatype_t dt = all_types[t];
            if (!valid(op, dt))
                continue;
            for (size_t c = 0; c < 4; c++) {
                /* 1 KiB of elements */
                size_t n = c == 3 ? 1024 / bolt_type_size(dt) : counts[c];
                check_allreduce(n, dt, op, seed++);
            }
            check_reduce(7, dt, op, (int)(seed % (unsigned)csize), seed);
            seed++;
        }
    /* scans and reduce-scatter: every op on one type of each family */
    static const bolt_datatype_t some[] = {BOLT_INT32, BOLT_FLOAT32, BOLT_FLOAT16, BOLT_BOOL,
                                           BOLT_DOUBLE_INT, BOLT_C_DOUBLE_COMPLEX, BOLT_BYTE};
    for (bolt_op_t op = BOLT_SUM; op <= BOLT_MINLOC; op++)
        for (size_t t = 0; t < sizeof some / sizeof some[0]; t++) {
            if (!valid(op, some[t]))
                continue;
            check_scan(5, some[t], op, seed++);
            check_reduce_scatter(3, 0, some[t], op, seed++);
        }
    /* non-commutative: rank order everywhere */
    bolt_datatype_t mt = cmat_type();
    for (size_t c = 0; c < 4; c++) {
        check_allreduce(counts[c], mt, cmatmul, seed++);
        for (int root = 0; root < csize; root += csize > 2 ? csize - 1 : 1)
            check_reduce(counts[c], mt, cmatmul, root, seed++);
        check_scan(counts[c], mt, cmatmul, seed++);
    }
    /* 80 KB: along the chain where ranks crowd the cores (coll_scan_use_linear) */
    check_scan(5000, mt, cmatmul, seed++);
    check_reduce_scatter(0, 0, mt, cmatmul, seed++);
    check_reduce_scatter(4, 0, mt, cmatmul, seed++);
    check_reduce_scatter(4, 1 + 1024 / bolt_type_size(mt), mt, cmatmul, seed++);
    check_reduce_scatter(3, 300, BOLT_INT32, BOLT_SUM, seed++);
    check_reduce(300, BOLT_FLOAT64, BOLT_SUM, csize - 1, seed++);
}

/* ---- allreduce suite ---- */

/* Random floats: every rank must get the same bits, and the same again. */
static void check_identity(size_t count, bolt_datatype_t dt)
{
    size_t es = bolt_type_size(dt), bytes = count * es;
    char *in = xmalloc(bytes), *a = xmalloc(bytes), *b = xmalloc(bytes);
    unsigned x = 12345u + (unsigned)crank * 7919u;
    for (size_t i = 0; i < count; i++) {
        x = x * 1103515245u + 12345u;
        double v = ((double)(x >> 8) / 16777216.0 - 0.5) * pow(10, (int)(x % 7) - 3);
        if (dt == BOLT_FLOAT32)
            ((float *)in)[i] = (float)v;
        else
            ((double *)in)[i] = v;
    }
    CASE("allreduce identity %s count %zu (algorithm %s)", bolt_type_name(dt), count,
         bolt_coll_algorithm("allreduce", bytes, world));
    OK(bolt_allreduce(in, a, count, dt, BOLT_SUM, world));
    OK(bolt_allreduce(in, b, count, dt, BOLT_SUM, world));
    EXPECT(memcmp(a, b, bytes) == 0, "two runs of the same all-reduce differ");
    memcpy(b, a, bytes);
    OK(bolt_bcast(b, count, dt, 0, world));
    EXPECT(memcmp(a, b, bytes) == 0, "this rank's result differs from rank 0's");
    free(in);
    free(a);
    free(b);
}

static void suite_allreduce(void)
{
    size_t sizes[] = {0, 1, 7, 1024 / 4, (1u << 20) / 4 + 3};
    int ns = huge ? 0 : large ? 5 : 4;
    for (int i = 0; i < ns; i++) {
        check_allreduce(sizes[i], BOLT_FLOAT32, BOLT_SUM, 3);
        check_allreduce(sizes[i], BOLT_INT64, BOLT_SUM, 4);
        check_allreduce(sizes[i], BOLT_FLOAT64, BOLT_MAX, 5);
        check_allreduce(sizes[i] / 4, cmat_type(), cmatmul, 6);
        check_identity(sizes[i], BOLT_FLOAT32);
        check_identity(sizes[i] / 2, BOLT_FLOAT64);
    }
    if (large) {
        check_reduce_scatter((1u << 18) + 1, 0, BOLT_FLOAT32, BOLT_SUM, 20);
        check_reduce_scatter_in_place_burst(1u << 18, 16);
    }
    if (!huge) {
        check_allreduce(1023, BOLT_FLOAT16, BOLT_SUM, 7);
        check_allreduce(1023, BOLT_BFLOAT16, BOLT_PROD, 7);
        check_allreduce(333, BOLT_DOUBLE_INT, BOLT_MAXLOC, 8);
    } else { /* 16 MiB only */
        check_allreduce((16u << 20) / 4, BOLT_FLOAT32, BOLT_SUM, 9);
        check_identity((16u << 20) / 4, BOLT_FLOAT32);
    }
}

/* ---- data movement suite ---- */

static unsigned char pat(int rank, size_t i)
{
    return (unsigned char)(rank * 31 + i * 7 + (i >> 9));
}

static void fillpat(void *b, size_t n, int rank)
{
    for (size_t i = 0; i < n; i++)
        ((unsigned char *)b)[i] = pat(rank, i);
}

static long badpat(const void *b, size_t n, int rank)
{
    for (size_t i = 0; i < n; i++)
        if (((const unsigned char *)b)[i] != pat(rank, i))
            return (long)i;
    return -1;
}

static void check_data(size_t count, bolt_datatype_t dt)
{
    size_t es = bolt_type_size(dt), bytes = count * es, n = (size_t)csize;
    char *buf = xmalloc(bytes), *all = xmalloc(bytes * n), *all2 = xmalloc(bytes * n);
    const char *tn = bolt_type_name(dt);
    /* bcast from several roots */
    for (int root = 0; root < csize; root += (csize + 1) / 2) {
        CASE("bcast root %d %s count %zu (%s)", root, tn, count,
             bolt_coll_algorithm("bcast", bytes, world));
        if (crank == root)
            fillpat(buf, bytes, root);
        else
            memset(buf, 0, bytes);
        OK(bolt_bcast(buf, count, dt, root, world));
        EXPECT(badpat(buf, bytes, root) < 0, "byte %ld wrong", badpat(buf, bytes, root));
    }
    /* allgather, in place and not */
    CASE("allgather %s count %zu (%s)", tn, count,
         bolt_coll_algorithm("allgather", bytes, world));
    fillpat(buf, bytes, crank);
    memset(all, 0, bytes * n);
    OK(bolt_allgather(buf, all, count, dt, world));
    for (int r = 0; r < csize; r++)
        EXPECT(badpat(all + (size_t)r * bytes, bytes, r) < 0, "block of rank %d wrong", r);
    memset(all, 0, bytes * n);
    fillpat(all + (size_t)crank * bytes, bytes, crank);
    OK(bolt_allgather(BOLT_IN_PLACE, all, count, dt, world));
    for (int r = 0; r < csize; r++)
        EXPECT(badpat(all + (size_t)r * bytes, bytes, r) < 0, "in place: block of rank %d wrong", r);
    /* gather / scatter */
    for (int root = 0; root < csize; root += (csize + 1) / 2) {
        CASE("gather root %d %s count %zu", root, tn, count);
        fillpat(buf, bytes, crank);
        memset(all, 0, bytes * n);
        OK(bolt_gather(buf, all, count, dt, root, world));
        if (crank == root)
            for (int r = 0; r < csize; r++)
                EXPECT(badpat(all + (size_t)r * bytes, bytes, r) < 0, "block of rank %d", r);
        if (crank == root) {
            memset(all, 0, bytes * n);
            fillpat(all + (size_t)root * bytes, bytes, root);
        }
        OK(bolt_gather(crank == root ? BOLT_IN_PLACE : buf, all, count, dt, root, world));
        if (crank == root)
            for (int r = 0; r < csize; r++)
                EXPECT(badpat(all + (size_t)r * bytes, bytes, r) < 0, "in place: block %d", r);
        CASE("scatter root %d %s count %zu", root, tn, count);
        if (crank == root)
            for (int r = 0; r < csize; r++)
                fillpat(all + (size_t)r * bytes, bytes, r + 100);
        memset(buf, 0, bytes);
        OK(bolt_scatter(all, buf, count, dt, root, world));
        EXPECT(badpat(buf, bytes, crank + 100) < 0, "scattered block wrong");
        OK(bolt_scatter(all, crank == root ? BOLT_IN_PLACE : buf, count, dt, root, world));
        EXPECT(badpat(crank == root ? all + (size_t)root * bytes : buf, bytes, crank + 100) < 0,
               "scattered block wrong (in place at the root)");
    }
    /* alltoall: block j of rank i carries pattern i * n + j */
    CASE("alltoall %s count %zu", tn, count);
    for (int j = 0; j < csize; j++)
        fillpat(all + (size_t)j * bytes, bytes, crank * csize + j);
    memset(all2, 0, bytes * n);
    OK(bolt_alltoall(all, all2, count, dt, world));
    for (int i = 0; i < csize; i++)
        EXPECT(badpat(all2 + (size_t)i * bytes, bytes, i * csize + crank) < 0, "from rank %d", i);
    OK(bolt_alltoall(BOLT_IN_PLACE, all, count, dt, world));
    EXPECT(memcmp(all, all2, bytes * n) == 0, "in place differs");
    free(buf);
    free(all);
    free(all2);
}

/* v-variants: rank i contributes (count + i) elements, blocks in reverse order with gaps. */
static void check_v(size_t count, bolt_datatype_t dt)
{
    size_t es = bolt_type_size(dt), n = (size_t)csize;
    size_t *cnt = xmalloc(n * sizeof *cnt), *dis = xmalloc(n * sizeof *dis), total = 0;
    for (int i = csize - 1; i >= 0; i--) {
        cnt[i] = count + (size_t)i;
        dis[i] = total + 1;
        total += cnt[i] + 1;
    }
    char *mine = xmalloc(cnt[crank] * es), *all = xmalloc(total * es);
    fillpat(mine, cnt[crank] * es, crank);
    int root = csize / 2;
    CASE("gatherv root %d count %zu", root, count);
    OK(bolt_gatherv(mine, cnt[crank], all, cnt, dis, dt, root, world));
    if (crank == root)
        for (int i = 0; i < csize; i++)
            EXPECT(badpat(all + dis[i] * es, cnt[i] * es, i) < 0, "block of rank %d", i);
    CASE("scatterv root %d count %zu", root, count);
    memset(mine, 0, cnt[crank] * es);
    OK(bolt_scatterv(all, cnt, dis, mine, cnt[crank], dt, root, world));
    EXPECT(badpat(mine, cnt[crank] * es, crank) < 0, "scattered block wrong");
    /* blocks alternately small and past what goes without a schedule
     * (1 KiB), with the root in the middle: the root takes some blocks at
     * once and leaves the rest to a schedule, which must pick up where it
     * stopped (once: the sizes here are fixed) */
    if (count == 1) {
        size_t *mc = xmalloc(n * sizeof *mc), *md = xmalloc(n * sizeof *md), mt = 0;
        for (int i = 0; i < csize; i++) {
            mc[i] = i % 3 == 2 ? 300 : (size_t)i % 3;
            md[i] = mt;
            mt += mc[i] + 3;
        }
        char *mm = xmalloc(300 * es + 1), *ma = xmalloc(mt * es + 1);
        for (int root2 = 0; root2 < csize; root2 += csize > 2 ? csize - 1 : 1) {
            CASE("gatherv of mixed small and large blocks, root %d", root2);
            fillpat(mm, mc[crank] * es, crank + 7);
            memset(ma, 0, mt * es);
            OK(bolt_gatherv(mm, mc[crank], ma, mc, md, dt, root2, world));
            if (crank == root2)
                for (int i = 0; i < csize; i++)
                    EXPECT(badpat(ma + md[i] * es, mc[i] * es, i + 7) < 0, "block of rank %d", i);
            CASE("scatterv of mixed small and large blocks, root %d", root2);
            if (crank == root2)
                for (int i = 0; i < csize; i++)
                    fillpat(ma + md[i] * es, mc[i] * es, i + 9);
            memset(mm, 0, 300 * es);
            OK(bolt_scatterv(ma, mc, md, mm, mc[crank], dt, root2, world));
            EXPECT(badpat(mm, mc[crank] * es, crank + 9) < 0, "scattered block wrong");
        }
        CASE("allgatherv of mixed small and large blocks (%s)", bolt_coll_algorithm("allgatherv", 300 * es, world));
        memset(ma, 0, mt * es);
        fillpat(mm, mc[crank] * es, crank + 11);
        OK(bolt_allgatherv(mm, mc[crank], ma, mc, md, dt, world));
        for (int i = 0; i < csize; i++)
            EXPECT(badpat(ma + md[i] * es, mc[i] * es, i + 11) < 0, "block of rank %d", i);
        /* from rank a to rank b: f(a, b) elements, 300 when (2a + b) % 3 is
         * 2 (past 1 KiB), so each rank sends and takes some blocks at once
         * before a larger one leaves the rest to a schedule (at 2 ranks rank
         * 0 sends a small block and gets a large one, rank 1 the reverse) */
        CASE("alltoallv of mixed small and large blocks");
        size_t *xc = xmalloc(2 * n * sizeof *xc), *xd = xmalloc(2 * n * sizeof *xd), xs = 0, xr = 0;
        for (int j = 0; j < csize; j++) {
            size_t to = (size_t)(2 * crank + j) % 3, from = (size_t)(2 * j + crank) % 3;
            xc[j] = to == 2 ? 300 : to;
            xc[n + j] = from == 2 ? 300 : from;
            xd[j] = xs;
            xd[n + j] = xr + 1;
            xs += xc[j];
            xr += xc[n + j] + 1;
        }
        char *xsb = xmalloc(xs * es + 1), *xrb = xmalloc(xr * es + 1);
        for (int j = 0; j < csize; j++)
            fillpat(xsb + xd[j] * es, xc[j] * es, crank * 100 + j + 5);
        memset(xrb, 0, xr * es);
        OK(bolt_alltoallv(xsb, xc, xd, xrb, xc + n, xd + n, dt, world));
        for (int j = 0; j < csize; j++)
            EXPECT(badpat(xrb + xd[n + j] * es, xc[n + j] * es, j * 100 + crank + 5) < 0, "from rank %d", j);
        free(xsb);
        free(xrb);
        free(xc);
        free(xd);
        free(mm);
        free(ma);
        free(mc);
        free(md);
    }
    CASE("allgatherv count %zu", count);
    memset(all, 0, total * es);
    OK(bolt_allgatherv(mine, cnt[crank], all, cnt, dis, dt, world));
    for (int i = 0; i < csize; i++)
        EXPECT(badpat(all + dis[i] * es, cnt[i] * es, i) < 0, "block of rank %d", i);
    memset(all, 0, total * es);
    fillpat(all + dis[crank] * es, cnt[crank] * es, crank);
    OK(bolt_allgatherv(BOLT_IN_PLACE, 0, all, cnt, dis, dt, world));
    for (int i = 0; i < csize; i++)
        EXPECT(badpat(all + dis[i] * es, cnt[i] * es, i) < 0, "in place: block of rank %d", i);
    /* alltoallv: to rank j send (count + j + rank) elements */
    CASE("alltoallv count %zu", count);
    size_t *sc = xmalloc(n * sizeof *sc), *sd = xmalloc(n * sizeof *sd);
    size_t *rc = xmalloc(n * sizeof *rc), *rd = xmalloc(n * sizeof *rd), st = 0, rt = 0;
    for (int j = 0; j < csize; j++) {
        sc[j] = count + (size_t)(j + crank) % 3;
        sd[j] = st;
        st += sc[j];
        rc[j] = count + (size_t)(j + crank) % 3;
        rd[j] = rt + 2;
        rt += rc[j] + 2;
    }
    char *sb = xmalloc(st * es), *rb = xmalloc(rt * es);
    for (int j = 0; j < csize; j++)
        fillpat(sb + sd[j] * es, sc[j] * es, crank * 100 + j);
    OK(bolt_alltoallv(sb, sc, sd, rb, rc, rd, dt, world));
    for (int j = 0; j < csize; j++)
        EXPECT(badpat(rb + rd[j] * es, rc[j] * es, j * 100 + crank) < 0, "from rank %d", j);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(sb);
    free(rb);
    free(mine);
    free(all);
    free(cnt);
    free(dis);
}

static void suite_data(void)
{
    /* 5000: past the stack's 1 KiB, within an eager message (a scatter's
     * leaf and a root at 0 go without a schedule) */
    size_t sizes[] = {0, 1, 7, 1024, 5000, (1u << 20) + 3};
    int ns = huge ? 0 : large ? 6 : 5;
    for (int i = 0; i < ns; i++) {
        check_data(sizes[i], BOLT_BYTE);
        check_v(sizes[i] / 4, BOLT_INT32);
    }
    if (!huge) {
        check_data(5, bolt_type_bytes(3));
        check_data(129, BOLT_LONG_DOUBLE_INT);
    }
    CASE("barrier");
    for (int i = 0; i < 5; i++)
        OK(bolt_barrier(world));
    /* No rank leaves before the last one came: a late rank (the first, a
     * middle one, the last) comes D after the others, who then spend at
     * least D/2 in the barrier whatever its algorithm. The ranks leave the
     * barrier before it at times that differ by a scheduling slice or more
     * (8 ranks on 2 busy cores): when any rank left early, all try again
     * with D five times longer; a barrier that lets ranks go early fails
     * at every D, a descheduled rank does not twice more. */
    int late_ranks[] = {0, csize / 2, csize - 1};
    for (int i = 0; i < 3 && csize > 1; i++) {
        CASE("barrier waits for rank %d, which comes late", late_ranks[i]);
        double delay = 0.04, waited = 0;
        int tries, early = 0, mine_early = 0;
        for (tries = 0; tries < 3; tries++, delay *= 5) {
            OK(bolt_barrier(world));
            if (crank == late_ranks[i])
                usleep((useconds_t)(delay * 1e6));
            double t0 = bolt_wtime();
            OK(bolt_barrier(world));
            waited = bolt_wtime() - t0;
            mine_early = crank != late_ranks[i] && waited < delay / 2;
            OK(bolt_allreduce(&mine_early, &early, 1, BOLT_INT32, BOLT_MAX, world));
            if (!early)
                break;
        }
        EXPECT(!mine_early, "left after %.3f ms of %.0f, before rank %d came (3 tries)", waited * 1e3,
               delay / 5 * 1e3, late_ranks[i]);
    }
    if (huge) {
        size_t n = 16u << 20;
        char *b = xmalloc(n);
        CASE("bcast 16 MiB (%s)", bolt_coll_algorithm("bcast", n, world));
        if (crank == csize - 1)
            fillpat(b, n, 3);
        OK(bolt_bcast(b, n, BOLT_BYTE, csize - 1, world));
        EXPECT(badpat(b, n, 3) < 0, "wrong byte");
        free(b);
    }
}

/* ---- nonblocking suite ---- */

static void suite_nonblocking(void)
{
    size_t counts[] = {1, 1000, large ? (1u << 20) / 4 + 3 : 4097};
    for (int k = 0; k < 3; k++) {
        size_t count = counts[k], bytes = count * 4, n = (size_t)csize;
        float *in = xmalloc(bytes), *out = xmalloc(bytes), *ref = xmalloc(bytes);
        char *bc = xmalloc(bytes), *ag = xmalloc(bytes * n), *a2a = xmalloc(bytes * n),
             *a2b = xmalloc(bytes * n);
        int32_t *red = xmalloc(bytes), *redin = xmalloc(bytes), *redref = xmalloc(bytes);
        bolt_request_t req[7];
        int token = crank, got = -1;
        cfill(in, count, BOLT_FLOAT32, BOLT_SUM, crank, 11);
        cref(ref, count, BOLT_FLOAT32, BOLT_SUM, csize, 11, csize);
        cfill(redin, count, BOLT_INT32, BOLT_MAX, crank, 12);
        cref(redref, count, BOLT_INT32, BOLT_MAX, csize, 12, csize);
        if (crank == 0)
            fillpat(bc, bytes, 9);
        fillpat(ag + (size_t)crank * bytes, bytes, crank);
        for (int j = 0; j < csize; j++)
            fillpat(a2a + (size_t)j * bytes, bytes, crank * csize + j);
        CASE("nonblocking set, count %zu", count);
        OK(bolt_iallreduce(in, out, count, BOLT_FLOAT32, BOLT_SUM, world, &req[0]));
        OK(bolt_ibcast(bc, bytes, BOLT_BYTE, 0, world, &req[1]));
        OK(bolt_ibarrier(world, &req[2]));
        OK(bolt_ireduce(redin, red, count, BOLT_INT32, BOLT_MAX, csize - 1, world, &req[3]));
        OK(bolt_iallgather(BOLT_IN_PLACE, ag, count, BOLT_FLOAT32, world, &req[4]));
        OK(bolt_ialltoall(a2a, a2b, count, BOLT_FLOAT32, world, &req[5]));
        /* user traffic around the ring while the collectives run */
        OK(bolt_irecv(&got, sizeof got, (crank + csize - 1) % csize, 5, world, &req[6]));
        OK(bolt_send(&token, sizeof token, (crank + 1) % csize, 5, world));
        if (k == 1) { /* completion by polling */
            int flag = 0;
            while (!flag)
                OK(bolt_testall(7, req, &flag, NULL));
        } else {
            OK(bolt_waitall(7, req, NULL));
        }
        EXPECT(got == (crank + csize - 1) % csize, "ring token %d", got);
        EXPECT(cdiff(out, ref, count, BOLT_FLOAT32) < 0, "iallreduce wrong");
        EXPECT(badpat(bc, bytes, 9) < 0, "ibcast wrong");
        if (crank == csize - 1)
            EXPECT(cdiff(red, redref, count, BOLT_INT32) < 0, "ireduce wrong");
        for (int r = 0; r < csize; r++)
            EXPECT(badpat(ag + (size_t)r * bytes, bytes, r) < 0, "iallgather block %d", r);
        for (int i = 0; i < csize; i++)
            EXPECT(badpat(a2b + (size_t)i * bytes, bytes, i * csize + crank) < 0, "ialltoall %d", i);
        /* a blocking collective while a nonblocking one is pending */
        CASE("blocking inside nonblocking, count %zu", count);
        OK(bolt_iallreduce(BOLT_IN_PLACE, in, count, BOLT_FLOAT32, BOLT_SUM, world, &req[0]));
        OK(bolt_allreduce(redin, red, count, BOLT_INT32, BOLT_MAX, world));
        OK(bolt_wait(&req[0], NULL));
        EXPECT(cdiff(in, ref, count, BOLT_FLOAT32) < 0, "iallreduce wrong");
        EXPECT(cdiff(red, redref, count, BOLT_INT32) < 0, "allreduce wrong");
        /* freed before completion: must still complete and free itself */
        OK(bolt_ibarrier(world, &req[0]));
        OK(bolt_request_free(&req[0]));
        OK(bolt_barrier(world));
        free(in);
        free(out);
        free(ref);
        free(bc);
        free(ag);
        free(a2a);
        free(a2b);
        free(red);
        free(redin);
        free(redref);
    }
    /* on a split communicator, with a dup beside it */
    bolt_comm_t half, dup;
    CASE("nonblocking on split communicators");
    OK(bolt_comm_split(world, crank % 2, crank, &half));
    OK(bolt_comm_dup(world, &dup));
    int hr, hs, v = crank, sum = 0, sum2 = 0;
    OK(bolt_comm_rank(half, &hr));
    OK(bolt_comm_size(half, &hs));
    bolt_request_t r2[2];
    OK(bolt_iallreduce(&v, &sum, 1, BOLT_INT32, BOLT_SUM, half, &r2[0]));
    OK(bolt_iallreduce(&v, &sum2, 1, BOLT_INT32, BOLT_SUM, dup, &r2[1]));
    OK(bolt_waitall(2, r2, NULL));
    int want = 0;
    for (int i = crank % 2; i < csize; i += 2)
        want += i;
    EXPECT(sum == want, "sum over the half %d, want %d", sum, want);
    EXPECT(sum2 == csize * (csize - 1) / 2, "sum over dup %d", sum2);
    OK(bolt_comm_free(&half));
    OK(bolt_comm_free(&dup));
}

/* ---- errors suite ---- */

static void expect_err(int rc, int want, const char *what)
{
    CASE("%s", what);
    if (getenv("COLL_VERBOSE") && rc)
        fprintf(stderr, "rank %d: %s: %s\n", crank, what, bolt_error_message());
    EXPECT(rc == want, "returned %s, want %s (%s)", bolt_strerror(rc), bolt_strerror(want),
           bolt_error_message());
}

static void suite_errors(void)
{
    int x[8] = {0}, y[8] = {0};
    expect_err(bolt_bcast(x, 1, BOLT_INT32, csize, world), BOLT_ERR_ARG, "bcast root = size");
    expect_err(bolt_reduce(x, y, 1, BOLT_INT32, BOLT_SUM, -1, world), BOLT_ERR_ARG,
               "reduce root -1");
    expect_err(bolt_gather(x, y, 1, BOLT_INT32, csize + 3, world), BOLT_ERR_ARG, "gather root");
    expect_err(bolt_allreduce(x, y, 1, BOLT_FLOAT32, BOLT_BAND, world), BOLT_ERR_ARG,
               "BAND on float32");
    expect_err(bolt_allreduce(x, y, 1, BOLT_FLOAT64, BOLT_LAND, world), BOLT_ERR_ARG,
               "LAND on float64");
    expect_err(bolt_allreduce(x, y, 1, BOLT_INT32, BOLT_MAXLOC, world), BOLT_ERR_ARG,
               "MAXLOC on int32");
    expect_err(bolt_allreduce(x, y, 1, BOLT_2INT, BOLT_SUM, world), BOLT_ERR_ARG, "SUM on 2int");
    expect_err(bolt_allreduce(x, y, 1, BOLT_C_FLOAT_COMPLEX, BOLT_MAX, world), BOLT_ERR_ARG,
               "MAX on complex");
    expect_err(bolt_allreduce(x, y, 1, BOLT_BYTE, BOLT_SUM, world), BOLT_ERR_ARG, "SUM on byte");
    expect_err(bolt_allreduce(x, y, 1, BOLT_BOOL, BOLT_SUM, world), BOLT_ERR_ARG, "SUM on bool");
    expect_err(bolt_allreduce(x, y, 1, bolt_type_bytes(4), BOLT_SUM, world), BOLT_ERR_ARG,
               "SUM on opaque bytes");
    expect_err(bolt_allreduce(x, y, 1, (bolt_datatype_t)999, BOLT_SUM, world), BOLT_ERR_ARG,
               "invalid datatype");
    expect_err(bolt_allreduce(x, y, 1, BOLT_INT32, 77, world), BOLT_ERR_ARG, "invalid op");
    expect_err(bolt_allreduce(NULL, y, 1, BOLT_INT32, BOLT_SUM, world), BOLT_ERR_ARG,
               "NULL sendbuf");
    expect_err(bolt_allreduce(x, y, 1, BOLT_INT32, BOLT_SUM, BOLT_COMM_NULL), BOLT_ERR_ARG,
               "null communicator");
    /* sizes past memory, refused on every rank before any message */
    expect_err(bolt_bcast(x, SIZE_MAX / 4, BOLT_FLOAT64, 0, world), BOLT_ERR_ARG,
               "bcast of more bytes than memory holds");
    size_t huge_counts[8], zero_displs[8] = {0};
    for (int i = 0; i < 8; i++)
        huge_counts[i] = SIZE_MAX / 8;
    if (csize <= 8)
        expect_err(bolt_allgatherv(BOLT_IN_PLACE, 0, y, huge_counts, zero_displs, BOLT_FLOAT64, world),
                   BOLT_ERR_ARG, "allgatherv count past memory");
    expect_err(bolt_iallreduce(x, y, 1, BOLT_INT32, BOLT_SUM, world, NULL), BOLT_ERR_ARG,
               "NULL request");
    if (crank > 0) /* refused before any message: rank 0 need not take part */
        expect_err(bolt_reduce(BOLT_IN_PLACE, y, 1, BOLT_INT32, BOLT_SUM, 0, world),
                   BOLT_ERR_ARG, "IN_PLACE off the root");
    bolt_op_t op;
    OK(bolt_op_create((bolt_user_fn *)(void (*)(void))abort, 1, NULL, &op));
    bolt_op_t dead = op;
    OK(bolt_op_free(&op));
    expect_err(bolt_allreduce(x, y, 1, BOLT_INT32, dead, world), BOLT_ERR_ARG, "freed user op");
    expect_err(bolt_type_size(bolt_type_bytes(0)) == 0 ? BOLT_OK : BOLT_ERR_ARG, BOLT_OK,
               "bytes(0) is invalid");
    /* The calls above communicated nothing: everyone is still in step. */
    CASE("barrier after the refused calls");
    OK(bolt_barrier(world));
    if (csize == 2) { /* counts differ: each side sees the other's size */
        int rc = bolt_allreduce(x, y, crank == 0 ? 4 : 5, BOLT_INT32, BOLT_SUM, world);
        expect_err(rc, BOLT_ERR_ARG, "allreduce count mismatch");
        rc = bolt_bcast(x, crank == 0 ? 3 : 2, BOLT_INT32, 0, world);
        expect_err(rc, crank == 0 ? BOLT_OK : BOLT_ERR_ARG, "bcast count mismatch");
        /* the root sees a block of another size than its own */
        rc = bolt_reduce(x, crank == 0 ? y : NULL, crank == 0 ? 2 : 3, BOLT_INT32, BOLT_SUM, 0, world);
        expect_err(rc, crank == 0 ? BOLT_ERR_ARG : BOLT_OK, "reduce count mismatch");
        /* a rank expects another size than the root sends it */
        rc = bolt_scatter(x, y, crank == 0 ? 2 : 3, BOLT_INT32, 0, world);
        expect_err(rc, crank == 0 ? BOLT_OK : BOLT_ERR_ARG, "scatter count mismatch");
        /* the root expects another size than a rank sends it */
        rc = bolt_gather(x, y, crank == 0 ? 2 : 3, BOLT_INT32, 0, world);
        expect_err(rc, crank == 0 ? BOLT_ERR_ARG : BOLT_OK, "gather count mismatch");
        size_t vc[2] = {1, 2}, vd[2] = {0, 1};
        rc = bolt_gatherv(x, crank == 0 ? 1 : 3, y, vc, vd, BOLT_INT32, 0, world);
        expect_err(rc, crank == 0 ? BOLT_ERR_ARG : BOLT_OK, "gatherv count mismatch");
        rc = bolt_scatterv(x, vc, vd, y, crank == 0 ? 1 : 1, BOLT_INT32, 0, world);
        expect_err(rc, crank == 0 ? BOLT_OK : BOLT_ERR_ARG, "scatterv count mismatch");
        CASE("barrier after mismatches");
        OK(bolt_barrier(world));
    }
}

/* ---- a rank leaves mid-job ---- */

/* The last rank exits without bolt_finalize; every survivor's next
 * collective must fail (BOLT_ERR_PEER), never hang: directly when it talks
 * to the dead rank, or once a rank it waits for failed and finalized. */
static void suite_peer_exit(int nonblocking)
{
    enum { N = 70000 }; /* above the eager limits: rendezvous too */
    float *x = xmalloc(N * sizeof *x), *y = xmalloc(N * sizeof *y);
    CASE("before the exit");
    OK(bolt_allreduce(x, y, N, BOLT_FLOAT32, BOLT_SUM, world));
    if (crank == csize - 1) {
        fflush(stdout);
        _exit(0);
    }
    int rc;
    if (getenv("COLL_DEAD_GATHER")) {
        /* a small gather to rank 0: only the root hears from the dead rank
         * (the others' blocks leave at once), and it must not wait for ever */
        CASE("gather with a dead rank");
        rc = bolt_gather(x, y, 1, BOLT_FLOAT32, 0, world);
        EXPECT(crank == 0 ? rc == BOLT_ERR_PEER : rc == BOLT_OK || rc == BOLT_ERR_PEER, "got %s: %s",
               bolt_strerror(rc), bolt_error_message());
        printf("rank %d saw: %s\n", crank, rc ? bolt_error_message() : "nothing (its block left)");
        fflush(stdout);
        free(x);
        free(y);
        bolt_finalize();
        exit(0);
    }
    CASE("%sallreduce with a dead rank", nonblocking ? "i" : "");
    if (nonblocking) {
        bolt_request_t req;
        rc = bolt_iallreduce(x, y, N, BOLT_FLOAT32, BOLT_SUM, world, &req);
        if (rc == BOLT_OK)
            rc = bolt_wait(&req, NULL);
    } else {
        rc = bolt_allreduce(x, y, N, BOLT_FLOAT32, BOLT_SUM, world);
    }
    EXPECT(rc == BOLT_ERR_PEER, "got %s: %s", bolt_strerror(rc), bolt_error_message());
    printf("rank %d saw: %s\n", crank, bolt_error_message());
    fflush(stdout);
    free(x);
    free(y);
    bolt_finalize();
    exit(0);
}

/* ---- local kernels ---- */

static void suite_local(void)
{
    enum { N = 1031 };
    int32_t a[N], b[N];
    double c[N], d[N];
    uint16_t h[N], g[N];
    for (int i = 0; i < N; i++) {
        a[i] = i * 7 - 3000;
        b[i] = 5 - i;
        c[i] = i * 0.25;
        d[i] = -i * 0.5 + 3;
    }
    CASE("int32 SUM/MIN/BXOR kernels");
    int32_t s[N];
    memcpy(s, b, sizeof s);
    OK(bolt_reduce_local(a, s, N, BOLT_INT32, BOLT_SUM));
    for (int i = 0; i < N; i++)
        EXPECT(s[i] == a[i] + b[i], "sum at %d", i);
    memcpy(s, b, sizeof s);
    OK(bolt_reduce_local(a, s, N, BOLT_INT32, BOLT_MIN));
    for (int i = 0; i < N; i++)
        EXPECT(s[i] == (a[i] < b[i] ? a[i] : b[i]), "min at %d", i);
    memcpy(s, b, sizeof s);
    OK(bolt_reduce_local(a, s, N, BOLT_INT32, BOLT_BXOR));
    for (int i = 0; i < N; i++)
        EXPECT(s[i] == (a[i] ^ b[i]), "bxor at %d", i);
    CASE("float64 PROD/MAX kernels");
    double e[N];
    memcpy(e, d, sizeof e);
    OK(bolt_reduce_local(c, e, N, BOLT_FLOAT64, BOLT_PROD));
    for (int i = 0; i < N; i++)
        EXPECT(e[i] == c[i] * d[i], "prod at %d", i);
    memcpy(e, d, sizeof e);
    OK(bolt_reduce_local(c, e, N, BOLT_FLOAT64, BOLT_MAX));
    for (int i = 0; i < N; i++)
        EXPECT(e[i] == (c[i] > d[i] ? c[i] : d[i]), "max at %d", i);
    CASE("int8 SUM (wrapping) and uint16 MAX kernels, one element off alignment");
    {
        /* 1031 + 1: past several unrolled 512-bit passes, a tail, and a
         * start off every vector boundary */
        int8_t x8[N + 1], y8[N + 1];
        uint16_t x16[N + 1], y16[N + 1];
        for (int i = 0; i <= N; i++) {
            x8[i] = (int8_t)(i * 37 - 100);
            y8[i] = (int8_t)(90 - i * 11);
            x16[i] = (uint16_t)(i * 977);
            y16[i] = (uint16_t)(60000 - i * 313);
        }
        int8_t s8[N + 1];
        uint16_t s16[N + 1];
        memcpy(s8, y8, sizeof s8);
        memcpy(s16, y16, sizeof s16);
        OK(bolt_reduce_local(x8 + 1, s8 + 1, N, BOLT_INT8, BOLT_SUM));
        OK(bolt_reduce_local(x16 + 1, s16 + 1, N, BOLT_UINT16, BOLT_MAX));
        EXPECT(s8[0] == y8[0] && s16[0] == y16[0], "the element before the vector was written");
        for (int i = 1; i <= N; i++) {
            EXPECT(s8[i] == (int8_t)(uint8_t)((uint8_t)x8[i] + (uint8_t)y8[i]), "int8 sum at %d", i);
            EXPECT(s16[i] == (x16[i] > y16[i] ? x16[i] : y16[i]), "uint16 max at %d", i);
        }
    }
    CASE("float16 SUM kernel: 1 + 2^-11 rounds to even, 65504 + 32 overflows");
    for (int i = 0; i < N; i++) {
        h[i] = 0x3c00; /* 1.0 */
        g[i] = 0x1000; /* 2^-11 */
    }
    g[1] = 0x1001;      /* a bit more than half an ulp of 1.0: rounds up */
    h[2] = 0x7bff;      /* 65504 */
    g[2] = 0x5000;      /* 32 */
    OK(bolt_reduce_local(g, h, N, BOLT_FLOAT16, BOLT_SUM));
    EXPECT(h[0] == 0x3c00, "1 + 2^-11 = %#x, want 0x3c00 (ties to even)", h[0]);
    EXPECT(h[1] == 0x3c01, "1 + 2^-11+ = %#x, want 0x3c01", h[1]);
    EXPECT(h[2] == 0x7c00, "65504 + 32 = %#x, want inf", h[2]);
    CASE("bfloat16 SUM kernel");
    uint16_t p = 0x3f80, q = 0x3f80; /* 1 + 1 */
    OK(bolt_reduce_local(&p, &q, 1, BOLT_BFLOAT16, BOLT_SUM));
    EXPECT(q == 0x4000, "1 + 1 = %#x", q);
    CASE("MAXLOC ties take the lower index");
    struct { float v; int i; } m1 = {2.0f, 5}, m2 = {2.0f, 3}, m3 = {1.0f, 0};
    OK(bolt_reduce_local(&m1, &m2, 1, BOLT_FLOAT_INT, BOLT_MAXLOC));
    EXPECT(m2.v == 2.0f && m2.i == 3, "maxloc tie (%g, %d)", m2.v, m2.i);
    OK(bolt_reduce_local(&m1, &m3, 1, BOLT_FLOAT_INT, BOLT_MINLOC));
    EXPECT(m3.v == 1.0f && m3.i == 0, "minloc (%g, %d)", m3.v, m3.i);
    CASE("type sizes match the C layout");
    EXPECT(bolt_type_size(BOLT_DOUBLE_INT) == sizeof(struct { double v; int i; }), "double_int");
    EXPECT(bolt_type_size(BOLT_SHORT_INT) == sizeof(struct { short v; int i; }), "short_int");
    EXPECT(bolt_type_size(BOLT_LONG_DOUBLE_INT) == sizeof(struct { long double v; int i; }),
           "long_double_int");
    EXPECT(bolt_type_size(BOLT_BOOL) == sizeof(_Bool), "bool");
    EXPECT(bolt_type_size(bolt_type_bytes(12)) == 12, "bytes(12)");
    EXPECT(bolt_coll_algorithm("allreduce", 4, world) != NULL, "algorithm name");
    EXPECT(bolt_coll_algorithm("nonsense", 4, world) == NULL, "unknown op");
}

/* "choice OP:BYTES=NAME,OP:BYTES!=NAME,...": the algorithm every rank picks
 * (or does not pick) for OP at BYTES, the same on every rank. */
static void suite_choice(const char *spec)
{
    char *list = strdup(spec ? spec : ""), *save = NULL;
    for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        char op[32], name[32];
        size_t bytes;
        int neg = strstr(w, "!=") != NULL;
        if (sscanf(w, neg ? "%31[^:]:%zu!=%31s" : "%31[^:]:%zu=%31s", op, &bytes, name) != 3) {
            fprintf(stderr, "coll_check: choice '%s' is not OP:BYTES=NAME or OP:BYTES!=NAME\n", w);
            exit(2);
        }
        CASE("%s of %zu bytes on %d ranks %s %s", op, bytes, csize, neg ? "is not" : "is", name);
        const char *got = bolt_coll_algorithm(op, bytes, world);
        EXPECT(got && (strcmp(got, name) == 0) != neg, "picked %s", got ? got : "(none)");
        uint64_t h = 0, lo, hi; /* the name's hash, alike on every rank */
        for (const char *c = got ? got : ""; *c; c++)
            h = h * 131 + (unsigned char)*c;
        OK(bolt_allreduce(&h, &lo, 1, BOLT_UINT64, BOLT_MIN, world));
        OK(bolt_allreduce(&h, &hi, 1, BOLT_UINT64, BOLT_MAX, world));
        EXPECT(lo == hi, "ranks picked different algorithms (this one %s)", got ? got : "(none)");
    }
    free(list);
}

int main(int argc, char **argv)
{
    OK(bolt_init(&argc, &argv));
    world = bolt_comm_world();
    OK(bolt_comm_rank(world, &crank));
    OK(bolt_comm_size(world, &csize));
    cmatmul_create();
    const char *suite = argc > 1 ? argv[1] : "reduce";
    for (int i = 2; i < argc; i++) {
        large |= strcmp(argv[i], "--large") == 0;
        huge |= strcmp(argv[i], "--huge") == 0;
    }
    double t0 = bolt_wtime();
    char *list = strdup(suite), *save = NULL;
    for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        if (strcmp(name, "reduce") == 0)
            suite_reduce();
        else if (strcmp(name, "allreduce") == 0)
            suite_allreduce();
        else if (strcmp(name, "data") == 0)
            suite_data();
        else if (strcmp(name, "nonblocking") == 0)
            suite_nonblocking();
        else if (strcmp(name, "errors") == 0)
            suite_errors();
        else if (strcmp(name, "local") == 0)
            suite_local();
        else if (strcmp(name, "peer_exit") == 0)
            suite_peer_exit(large);
        else if (strcmp(name, "choice") == 0)
            suite_choice(argc > 2 ? argv[2] : NULL);
        else {
            fprintf(stderr, "coll_check: unknown suite %s\n", name);
            return 2;
        }
    }
    free(list);
    CASE("final barrier");
    OK(bolt_barrier(world));
    if (crank == 0)
        printf("rank 0: %s on %d ranks: %ld checks ok (%.2f s)\n", suite, csize, cchecks,
               bolt_wtime() - t0);
    OK(bolt_op_free(&cmatmul));
    OK(bolt_finalize());
    return 0;
}
