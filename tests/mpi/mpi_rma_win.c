/* mpi_rma_win.c — windows (MPI 3.1, 11.2 and 11.3): each way of making one
 * (Win_create over a user buffer, Win_allocate, Win_allocate_shared with
 * direct loads and stores between the ranks of a node, Win_create_dynamic
 * with memory attached and detached), the attributes every window carries
 * (MPI_WIN_BASE, SIZE, DISP_UNIT, CREATE_FLAVOR, MODEL), names, groups,
 * info, error handlers (an erroneous call returns an error of the right
 * class under MPI_ERRORS_RETURN; on Bolt every class the RMA chapter names:
 * RANK, RMA_RANGE, RMA_SYNC, RMA_ATTACH, RMA_FLAVOR), zero-size windows and user keyvals whose
 * delete callback Win_free runs. Data moved through a window is checked
 * against what each rank computes serially. */
#include "mtest.h"

#include <stdint.h>

enum { N = 16 };

/* The value rank r stores at element i of its window: different on every
 * rank and element. */
static int val(int r, int i)
{
    return 1000 * (r + 1) + 7 * i;
}

/* The attributes of win: base, size, disp_unit and flavor as expected; the
 * memory model either of the two the standard defines. */
static void check_attrs(MPI_Win win, const char *what, void *base, MPI_Aint size, int disp, int flavor)
{
    void *b = NULL;
    MPI_Aint *sz = NULL;
    int *du = NULL, *fl = NULL, *model = NULL, f1 = 0, f2 = 0, f3 = 0, f4 = 0, f5 = 0;
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &f1));
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &f2));
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &f3));
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &f4));
    CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &f5));
    CHECK(f1 && f2 && f3 && f4 && f5, "%s: an attribute is missing (base %d size %d disp_unit %d flavor %d model %d)",
          what, f1, f2, f3, f4, f5);
    if (!(f1 && f2 && f3 && f4 && f5))
        return;
    /* A zero-size window's base is whatever the caller gave (or any value
     * for allocated ones): only compare where there is memory. */
    if (size > 0 || flavor == MPI_WIN_FLAVOR_CREATE)
        CHECK(b == base, "%s: MPI_WIN_BASE is %p, the window's memory is at %p", what, b, base);
    CHECK(*sz == size, "%s: MPI_WIN_SIZE is %ld, expected %ld", what, (long)*sz, (long)size);
    CHECK(*du == disp, "%s: MPI_WIN_DISP_UNIT is %d, expected %d", what, *du, disp);
    CHECK(*fl == flavor, "%s: MPI_WIN_CREATE_FLAVOR is %d, expected %d", what, *fl, flavor);
    CHECK(*model == MPI_WIN_UNIFIED || *model == MPI_WIN_SEPARATE, "%s: MPI_WIN_MODEL is %d", what, *model);
}

/* Win_create over a buffer of N ints (rank 0's window is empty): every rank
 * puts its values into the next rank's second half and gets the previous
 * rank's first half, in one fence epoch. */
static void win_create(void)
{
    int *buf = malloc(N * sizeof *buf), got[N / 2];
    for (int i = 0; i < N; i++)
        buf[i] = val(mt_rank, i);
    MPI_Win win;
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    CHECK_MPI(MPI_Win_create(buf, N * sizeof *buf, sizeof *buf, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    check_attrs(win, "Win_create", buf, N * sizeof *buf, sizeof *buf, MPI_WIN_FLAVOR_CREATE);
    int mine[N / 2];
    for (int i = 0; i < N / 2; i++)
        mine[i] = -val(mt_rank, i);
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Get(got, N / 2, MPI_INT, prev, 0, N / 2, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Put(mine, N / 2, MPI_INT, next, N / 2, N / 2, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < N / 2; i++) {
        CHECK(got[i] == val(prev, i), "Win_create: Get from rank %d element %d gave %d, expected %d", prev, i,
              got[i], val(prev, i));
        CHECK(buf[i] == val(mt_rank, i), "Win_create: element %d changed to %d", i, buf[i]);
        CHECK(buf[N / 2 + i] == -val(prev, i), "Win_create: element %d is %d after rank %d's Put, expected %d",
              N / 2 + i, buf[N / 2 + i], prev, -val(prev, i));
    }
    CHECK_MPI(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "Win_free did not set the handle to MPI_WIN_NULL");
    free(buf);
}

/* Win_allocate with a disp_unit of 8 and a size that differs per rank:
 * each rank puts one double into every rank's element [its own rank]. */
static void win_allocate(void)
{
    double *base = NULL;
    MPI_Aint size = (MPI_Aint)(mt_size + mt_rank) * sizeof(double);
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(size, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    CHECK(base != NULL, "Win_allocate of %ld bytes gave a NULL base", (long)size);
    check_attrs(win, "Win_allocate", base, size, sizeof(double), MPI_WIN_FLAVOR_ALLOCATE);
    for (int i = 0; i < mt_size + mt_rank; i++)
        base[i] = -1.0;
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int t = 0; t < mt_size; t++) {
        double v = mt_rank + 0.5 * t;
        CHECK_MPI(MPI_Put(&v, 1, MPI_DOUBLE, t, mt_rank, 1, MPI_DOUBLE, win));
    }
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < mt_size + mt_rank; i++) {
        double want = i < mt_size ? i + 0.5 * mt_rank : -1.0;
        CHECK(base[i] == want, "Win_allocate: element %d is %g, expected %g", i, base[i], want);
    }
    CHECK_MPI(MPI_Win_free(&win));
}

/* Win_allocate_shared over the ranks of this node: each writes its own
 * segment with plain stores, then (Win_sync, barrier, Win_sync: the
 * standard's unified-model idiom) reads every other rank's with plain loads
 * through the address Win_shared_query gives. Segments are contiguous by
 * default. */
static void win_allocate_shared(void)
{
    MPI_Comm node;
    int nr, ns;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &ns);
    int *mine = NULL;
    MPI_Aint size = (MPI_Aint)(nr + 1) * N * sizeof(int);
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate_shared(size, sizeof(int), MPI_INFO_NULL, node, &mine, &win));
    check_attrs(win, "Win_allocate_shared", mine, size, sizeof(int), MPI_WIN_FLAVOR_SHARED);
    CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    for (int i = 0; i < (nr + 1) * N; i++)
        mine[i] = val(nr, i);
    CHECK_MPI(MPI_Win_sync(win));
    CHECK_MPI(MPI_Barrier(node));
    CHECK_MPI(MPI_Win_sync(win));
    char *expect_at = NULL;
    for (int r = 0; r < ns; r++) {
        MPI_Aint qs = -1;
        int qd = -1;
        int *qb = NULL;
        CHECK_MPI(MPI_Win_shared_query(win, r, &qs, &qd, &qb));
        CHECK(qs == (MPI_Aint)(r + 1) * N * (MPI_Aint)sizeof(int) && qd == (int)sizeof(int),
              "Win_shared_query(rank %d): size %ld disp_unit %d, expected %ld and %d", r, (long)qs, qd,
              (long)((r + 1) * N * sizeof(int)), (int)sizeof(int));
        if (r == nr)
            CHECK(qb == mine, "Win_shared_query(own rank %d) gave %p, Win_allocate_shared %p", r, (void *)qb,
                  (void *)mine);
        if (expect_at)
            CHECK((char *)qb == expect_at, "segment of rank %d at %p, not right after rank %d's (%p)", r,
                  (void *)qb, r - 1, (void *)expect_at);
        expect_at = (char *)qb + qs;
        int bad = 0;
        for (int i = 0; i < (r + 1) * N && qb; i++)
            if (qb[i] != val(r, i) && bad++ == 0)
                CHECK(0, "load from node rank %d's segment, element %d: %d, expected %d", r, i, qb[i], val(r, i));
    }
    /* MPI_PROC_NULL: the segment of the lowest rank whose size is not 0. */
    MPI_Aint qs = -1;
    int qd = -1, *qb = NULL, *b0 = NULL;
    CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &qs, &qd, &qb));
    CHECK_MPI(MPI_Win_shared_query(win, 0, &qs, &qd, &b0));
    CHECK(qb == b0, "Win_shared_query(MPI_PROC_NULL) gave %p, rank 0's segment is at %p", (void *)qb, (void *)b0);
    /* Stores into the next rank's segment, seen by that rank after the
     * same synchronisation. */
    MPI_Aint ns_size;
    int ndu, *next = NULL;
    CHECK_MPI(MPI_Win_shared_query(win, (nr + 1) % ns, &ns_size, &ndu, &next));
    CHECK_MPI(MPI_Barrier(node)); /* everyone has read before anyone writes */
    next[0] = -nr - 1;
    CHECK_MPI(MPI_Win_sync(win));
    CHECK_MPI(MPI_Barrier(node));
    CHECK_MPI(MPI_Win_sync(win));
    int from = (nr + ns - 1) % ns;
    CHECK(mine[0] == -from - 1, "node rank %d's store into my segment: element 0 is %d, expected %d", from, mine[0],
          -from - 1);
    CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK_MPI(MPI_Win_free(&win));
    MPI_Comm_free(&node);
}

/* Win_create_dynamic: each rank attaches a buffer, publishes its address
 * (MPI_Get_address, exchanged with Allgather), and the previous rank puts
 * into it with the address as displacement (disp_unit 1). After Win_detach
 * the buffer is the rank's alone again. */
static void win_dynamic(void)
{
    MPI_Win win;
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    check_attrs(win, "Win_create_dynamic", MPI_BOTTOM, 0, 1, MPI_WIN_FLAVOR_DYNAMIC);
    long *buf = calloc(N, sizeof *buf);
    CHECK_MPI(MPI_Win_attach(win, buf, N * sizeof *buf));
    MPI_Aint mine, *all = malloc(mt_size * sizeof *all);
    CHECK_MPI(MPI_Get_address(buf, &mine));
    CHECK_MPI(MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD));
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    long out[N];
    for (int i = 0; i < N; i++)
        out[i] = (long)val(mt_rank, i) << 20;
    CHECK_MPI(MPI_Win_fence(0, win));
    /* Elements 2..N-1 of the next rank's buffer: an offset from its address. */
    CHECK_MPI(MPI_Put(out, N - 2, MPI_LONG, next, all[next] + 2 * (MPI_Aint)sizeof(long), N - 2, MPI_LONG, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++) {
        long want = i < 2 ? 0 : (long)val(prev, i - 2) << 20;
        CHECK(buf[i] == want, "dynamic window: element %d is %ld after rank %d's Put, expected %ld", i, buf[i],
              prev, want);
    }
    CHECK_MPI(MPI_Win_detach(win, buf));
    CHECK_MPI(MPI_Win_free(&win));
    free(all);
    free(buf);
}

/* Win_create_dynamic with many attachments, every operation on each rank's
 * memory under lock_all and flushes: each rank attaches NB buffers of
 * SLOTS longs (on Bolt more than a rank's table of attachments holds for
 * its siblings, 127; Open MPI's osc/ucx takes at most 32), every origin
 * writes its own slot of some buffers of every rank, reads them back, adds
 * to and swaps counters in others; then half the buffers are detached and
 * new ones attached and reached. Ranks of one host reach each other's
 * memory through the kernel on Bolt, others (BOLT_RMA_SHARED=0) by
 * messages; the results are the same. */
#ifdef BOLT_MPI
enum { NB = 150 };
#else
enum { NB = 24 };
#endif
enum { SLOTS = 8 };

static long dyn_val(int origin, int target, int b)
{
    return ((long)(origin + 1) << 32) + 1000L * target + b;
}

/* A buffer of its own page: Open MPI 4.1's osc/ucx (UCX's registration
 * cache) crashes in Win_free after six attachments that share pages, or
 * when a detached buffer's page was freed and attached again. */
static long *dyn_buf(void)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, 4096))
        return NULL;
    memset(p, 0, 4096);
    return p;
}

static void win_dynamic_ops(void)
{
    MPI_Win win;
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    long *bufs[NB], *gone[NB / 2];
    MPI_Aint mine[NB], *all = malloc((size_t)mt_size * NB * sizeof *all);
    long *olds = malloc((size_t)mt_size * NB * sizeof *olds);
    for (int i = 0; i < mt_size * NB; i++)
        olds[i] = -1;
    for (int b = 0; b < NB; b++) {
        bufs[b] = dyn_buf();
        CHECK_MPI(MPI_Win_attach(win, bufs[b], SLOTS * sizeof(long)));
        CHECK_MPI(MPI_Get_address(bufs[b], &mine[b]));
    }
    CHECK_MPI(MPI_Allgather(mine, NB, MPI_AINT, all, NB, MPI_AINT, MPI_COMM_WORLD));
    int slot = mt_rank % SLOTS;
    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int t = 0; t < mt_size; t++)
        for (int b = 0; b < NB; b += 7) {
            /* Puts into even buffers' own slot; odd buffers' slot 0 is a counter. */
            MPI_Aint at = all[t * NB + b];
            if (b % 2 == 0) {
                long v = dyn_val(mt_rank, t, b);
                CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, t, at + slot * (MPI_Aint)sizeof(long), 1, MPI_LONG, win));
            } else {
                static const long one = 1;
                CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, t, at, 1, MPI_LONG, MPI_SUM, win));
                /* The old value is there once the operation completes (flush). */
                CHECK_MPI(MPI_Fetch_and_op(&one, &olds[t * NB + b], MPI_LONG, t, at + sizeof(long), MPI_SUM,
                                           win));
            }
        }
    CHECK_MPI(MPI_Win_flush_all(win));
    for (int t = 0; t < mt_size; t++)
        for (int b = 7; b < NB; b += 14)
            CHECK(olds[t * NB + b] >= 0 && olds[t * NB + b] < mt_size, "Fetch_and_op on rank %d buffer %d read %ld",
                  t, b, olds[t * NB + b]);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (int t = 0; t < mt_size; t++)
        for (int b = 0; b < NB; b += 14) {
            long got[SLOTS], want = dyn_val(mt_rank, t, b);
            CHECK_MPI(MPI_Get(got, SLOTS, MPI_LONG, t, all[t * NB + b], SLOTS, MPI_LONG, win));
            CHECK_MPI(MPI_Win_flush(t, win));
            CHECK(got[slot] == want, "Get of rank %d buffer %d slot %d: %ld, expected %ld", t, b, slot, got[slot],
                  want);
        }
    /* Compare_and_swap: each rank tries to swap its number into slot 2 of
     * rank 0's buffer 1 where it is -1: one wins. */
    if (mt_rank == 0)
        bufs[1][2] = -1;
    CHECK_MPI(MPI_Win_sync(win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    long me = mt_rank, cmp = -1, was = -2;
    CHECK_MPI(MPI_Compare_and_swap(&me, &cmp, &was, MPI_LONG, 0, all[1] + 2 * (MPI_Aint)sizeof(long), win));
    CHECK_MPI(MPI_Win_flush(0, win));
    int won = was == -1, winners = 0;
    CHECK_MPI(MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(winners == 1, "%d ranks' Compare_and_swap found -1, expected one", winners);
    CHECK_MPI(MPI_Win_unlock_all(win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* Each rank's own memory: every origin's slot, the counters. */
    for (int b = 0; b < NB; b += 7) {
        if (b % 2 == 0) {
            for (int o = 0; o < mt_size && o < SLOTS; o++)
                CHECK(bufs[b][o] == dyn_val(o, mt_rank, b), "buffer %d slot %d: %ld after rank %d's Put, expected %ld",
                      b, o, bufs[b][o], o, dyn_val(o, mt_rank, b));
        } else {
            CHECK(bufs[b][0] == mt_size && bufs[b][1] == mt_size,
                  "buffer %d counters: %ld and %ld, expected %d each", b, bufs[b][0], bufs[b][1], mt_size);
        }
    }
    if (mt_rank == 0)
        CHECK(bufs[1][2] >= 0 && bufs[1][2] < mt_size, "the Compare_and_swap winner stored %ld", bufs[1][2]);
    /* Half the buffers go, as many new ones come; the new ones are reached. */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (int b = 0; b < NB / 2; b++) {
        CHECK_MPI(MPI_Win_detach(win, bufs[b]));
        gone[b] = bufs[b]; /* freed after Win_free: osc/ucx again */
        bufs[b] = dyn_buf();
        CHECK_MPI(MPI_Win_attach(win, bufs[b], SLOTS * sizeof(long)));
        CHECK_MPI(MPI_Get_address(bufs[b], &mine[b]));
    }
    CHECK_MPI(MPI_Allgather(mine, NB, MPI_AINT, all, NB, MPI_AINT, MPI_COMM_WORLD));
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win));
    for (int b = 0; b < NB; b += 5) {
        long v[SLOTS];
        for (int i = 0; i < SLOTS; i++)
            v[i] = dyn_val(mt_rank, next, b) + i;
        CHECK_MPI(MPI_Put(v, SLOTS, MPI_LONG, next, all[next * NB + b], SLOTS, MPI_LONG, win));
    }
    CHECK_MPI(MPI_Win_unlock(next, win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (int b = 0; b < NB; b += 5)
        for (int i = 0; i < SLOTS; i++)
            CHECK(bufs[b][i] == dyn_val(prev, mt_rank, b) + i,
                  "after detach and attach: buffer %d element %d is %ld, expected %ld from rank %d", b, i,
                  bufs[b][i], dyn_val(prev, mt_rank, b) + i, prev);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (int b = 0; b < NB; b++) {
        CHECK_MPI(MPI_Win_detach(win, bufs[b]));
        free(bufs[b]);
    }
    CHECK_MPI(MPI_Win_free(&win));
    for (int b = 0; b < NB / 2; b++)
        free(gone[b]);
    free(all);
    free(olds);
}

/* Names, groups, info. */
static void win_name_group_info(void)
{
    int buf[4];
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    /* A new window's name is the implementation's (Open MPI: "rdma window
     * 3"); one set is the one got. */
    CHECK_MPI(MPI_Win_get_name(win, name, &len));
    CHECK(len >= 0 && len < MPI_MAX_OBJECT_NAME && len == (int)strlen(name), "a new window's name has length %d", len);
    CHECK_MPI(MPI_Win_set_name(win, "halo window"));
    CHECK_MPI(MPI_Win_get_name(win, name, &len));
    CHECK(len == 11 && !strcmp(name, "halo window"), "window name '%s' (length %d), expected 'halo window'",
          name, len);

    MPI_Group wg, cg;
    int cmp = -1;
    CHECK_MPI(MPI_Win_get_group(win, &wg));
    MPI_Comm_group(MPI_COMM_WORLD, &cg);
    CHECK_MPI(MPI_Group_compare(wg, cg, &cmp));
    CHECK(cmp == MPI_IDENT, "Win_get_group vs the communicator's group: %d, expected MPI_IDENT", cmp);
    MPI_Group_free(&wg);
    MPI_Group_free(&cg);

    /* get_info gives a new object with the hints in use; values of the
     * standard's hints, where reported, are among those it allows. */
    MPI_Info set, got = MPI_INFO_NULL;
    MPI_Info_create(&set);
    MPI_Info_set(set, "no_locks", "false");
    MPI_Info_set(set, "accumulate_ordering", "rar,raw,war,waw");
    CHECK_MPI(MPI_Win_set_info(win, set));
    MPI_Info_free(&set);
    CHECK_MPI(MPI_Win_get_info(win, &got));
    CHECK(got != MPI_INFO_NULL, "Win_get_info gave MPI_INFO_NULL");
    if (got != MPI_INFO_NULL) {
        char v[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        MPI_Info_get(got, "no_locks", MPI_MAX_INFO_VAL, v, &flag);
        CHECK(!flag || !strcmp(v, "false") || !strcmp(v, "true"), "Win_get_info: no_locks = '%s'", v);
        MPI_Info_get(got, "accumulate_ops", MPI_MAX_INFO_VAL, v, &flag);
        CHECK(!flag || !strcmp(v, "same_op") || !strcmp(v, "same_op_no_op"), "Win_get_info: accumulate_ops = '%s'",
              v);
        CHECK_MPI(MPI_Info_free(&got));
    }
    CHECK_MPI(MPI_Win_free(&win));
}

static int handler_calls, handler_code;
static MPI_Win handler_win;

static void win_handler(MPI_Win *win, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_win = *win;
}

static int err_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* Error handlers: a window's default is MPI_ERRORS_ARE_FATAL; with
 * MPI_ERRORS_RETURN an erroneous operation returns a code of the right
 * class and the window stays usable; a user handler is called with the
 * window and the code. */
static void win_errors(void)
{
    int buf[N + 4] = {0}, x = 1;
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(buf, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Win_get_errhandler(win, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "a new window's error handler is not MPI_ERRORS_ARE_FATAL");
    MPI_Errhandler_free(&eh);
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_fence(0, win));
    int rc = MPI_Put(&x, 1, MPI_INT, mt_size, 0, 1, MPI_INT, win);
    CHECK(rc != MPI_SUCCESS && err_class(rc) == MPI_ERR_RANK, "Put to rank %d (of %d): code %d of class %d, expected MPI_ERR_RANK",
          mt_size, mt_size, rc, err_class(rc));
    rc = MPI_Get(&x, 1, MPI_INT, -3, 0, 1, MPI_INT, win);
    CHECK(rc != MPI_SUCCESS && err_class(rc) == MPI_ERR_RANK, "Get from rank -3: class %d, expected MPI_ERR_RANK",
          err_class(rc));
    /* Past the window's end: erroneous, and which MPIs detect it varies
     * (Open MPI's osc/rdma does, its osc/ucx and osc/pt2pt do not: the
     * buffer has a guard after the window for them); Bolt must. */
    rc = MPI_Put(&x, 1, MPI_INT, 0, N, 1, MPI_INT, win);
#ifdef BOLT_MPI
    CHECK(err_class(rc) == MPI_ERR_RMA_RANGE, "Put at displacement %d of a window of %d ints: class %d, expected MPI_ERR_RMA_RANGE",
          N, N, err_class(rc));
    rc = MPI_Get(&x, 2, MPI_INT, 0, N - 1, 2, MPI_INT, win);
    CHECK(err_class(rc) == MPI_ERR_RMA_RANGE, "Get of 2 ints at displacement %d of a window of %d ints: class %d, expected MPI_ERR_RMA_RANGE",
          N - 1, N, err_class(rc));
#endif
    rc = MPI_Put(&x, -1, MPI_INT, 0, 0, 1, MPI_INT, win);
    CHECK(rc != MPI_SUCCESS && err_class(rc) == MPI_ERR_COUNT, "Put of -1 elements: class %d, expected MPI_ERR_COUNT",
          err_class(rc));
    rc = MPI_Accumulate(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_OP_NULL, win);
    CHECK(rc != MPI_SUCCESS && err_class(rc) == MPI_ERR_OP, "Accumulate with MPI_OP_NULL: class %d, expected MPI_ERR_OP",
          err_class(rc));
    /* MPI_PROC_NULL is a valid target that moves nothing. */
    CHECK_MPI(MPI_Put(&x, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    /* Still usable: a correct epoch after the errors. */
    x = 40 + mt_rank;
    CHECK_MPI(MPI_Accumulate(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    if (mt_rank == 0) {
        int want = 40 * mt_size + mt_size * (mt_size - 1) / 2;
        CHECK(buf[0] == want, "after the errors, Accumulate SUM into rank 0 gave %d, expected %d", buf[0], want);
    }
    /* A user handler, called by Win_call_errhandler and by an error. */
    CHECK_MPI(MPI_Win_create_errhandler(win_handler, &eh));
    CHECK_MPI(MPI_Win_set_errhandler(win, eh));
    CHECK_MPI(MPI_Errhandler_free(&eh));
    handler_calls = 0;
    CHECK_MPI(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER && handler_win == win,
          "Win_call_errhandler: handler ran %d times with code %d", handler_calls, handler_code);
    CHECK_MPI(MPI_Win_fence(0, win));
    handler_calls = 0;
    rc = MPI_Get(&x, 1, MPI_INT, mt_size + 5, 0, 1, MPI_INT, win);
    CHECK(handler_calls == 1 && err_class(handler_code) == MPI_ERR_RANK && handler_win == win,
          "Get from rank %d: user handler ran %d times with code class %d", mt_size + 5, handler_calls,
          err_class(handler_code));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Win_free(&win));
}

/* Synchronisation errors (MPI_ERR_RMA_SYNC): an operation outside any epoch,
 * an unlock without a lock, a complete without a start, a second lock of
 * the same target. Dynamic windows: an operation on memory not attached,
 * and a detach of memory never attached. Shared memory queries on a window
 * that is not shared (MPI_ERR_RMA_FLAVOR). What other MPIs detect varies:
 * Bolt must detect them all; the window stays usable after each. */
static void win_sync_errors(void)
{
    int buf[N] = {0}, x = 5;
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
#ifdef BOLT_MPI
    /* (Open MPI 4.1's osc/rdma detects all but the complete without a start
     * and the second lock.) */
    int rc = MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    CHECK(err_class(rc) == MPI_ERR_RMA_SYNC, "Put outside any epoch: class %d, expected MPI_ERR_RMA_SYNC", err_class(rc));
    rc = MPI_Win_unlock(0, win);
    CHECK(err_class(rc) == MPI_ERR_RMA_SYNC, "Win_unlock without a lock: class %d, expected MPI_ERR_RMA_SYNC",
          err_class(rc));
    rc = MPI_Win_complete(win);
    CHECK(err_class(rc) == MPI_ERR_RMA_SYNC, "Win_complete without Win_start: class %d, expected MPI_ERR_RMA_SYNC",
          err_class(rc));
    rc = MPI_Win_flush(0, win);
    CHECK(err_class(rc) == MPI_ERR_RMA_SYNC, "Win_flush without a lock: class %d, expected MPI_ERR_RMA_SYNC",
          err_class(rc));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    rc = MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    CHECK(err_class(rc) == MPI_ERR_RMA_SYNC, "a second Win_lock of rank 0: class %d, expected MPI_ERR_RMA_SYNC",
          err_class(rc));
    CHECK_MPI(MPI_Win_unlock(0, win));
    MPI_Aint qs;
    int qd, *qb;
    rc = MPI_Win_shared_query(win, 0, &qs, &qd, &qb);
    CHECK(err_class(rc) == MPI_ERR_RMA_FLAVOR, "Win_shared_query on a Win_create window: class %d, expected "
          "MPI_ERR_RMA_FLAVOR", err_class(rc));
#endif
    /* Still usable: a lock epoch that adds to rank 0's first element. */
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK_MPI(MPI_Accumulate(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (mt_rank == 0) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK(buf[0] == 5 * mt_size, "after the errors, %d Accumulates of 5 gave %d", mt_size, buf[0]);
        CHECK_MPI(MPI_Win_unlock(0, win));
    }
    CHECK_MPI(MPI_Win_free(&win));

    MPI_Win dyn;
    long att[4] = {0}, other[4] = {0};
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn));
    CHECK_MPI(MPI_Win_set_errhandler(dyn, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_attach(dyn, att, sizeof att));
#ifdef BOLT_MPI
    MPI_Aint where;
    MPI_Get_address(other, &where);
    long v = 1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, mt_rank, 0, dyn));
    rc = MPI_Put(&v, 1, MPI_LONG, mt_rank, where, 1, MPI_LONG, dyn);
    CHECK(err_class(rc) == MPI_ERR_RMA_RANGE, "Put to memory not attached to a dynamic window: class %d, expected "
          "MPI_ERR_RMA_RANGE", err_class(rc));
    CHECK_MPI(MPI_Win_unlock(mt_rank, dyn));
    rc = MPI_Win_detach(dyn, other);
    CHECK(err_class(rc) == MPI_ERR_RMA_ATTACH, "Win_detach of memory never attached: class %d, expected "
          "MPI_ERR_RMA_ATTACH", err_class(rc));
    /* Another rank's memory not attached: refused at the origin where it
     * reaches the target through the kernel (ranks of one host; by
     * messages the target refuses it, on its own error handler). */
    MPI_Comm node;
    int nodesize = 0;
    const char *shared = getenv("BOLT_RMA_SHARED");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nodesize);
    MPI_Comm_free(&node);
    if (mt_size > 1 && nodesize == mt_size && !(shared && strcmp(shared, "0") == 0)) {
        MPI_Aint *wheres = malloc(mt_size * sizeof *wheres);
        MPI_Allgather(&where, 1, MPI_AINT, wheres, 1, MPI_AINT, MPI_COMM_WORLD);
        int next = (mt_rank + 1) % mt_size;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, dyn));
        rc = MPI_Put(&v, 1, MPI_LONG, next, wheres[next], 1, MPI_LONG, dyn);
        CHECK(err_class(rc) == MPI_ERR_RMA_RANGE, "Put to rank %d's memory not attached to a dynamic window: "
              "class %d, expected MPI_ERR_RMA_RANGE", next, err_class(rc));
        long got = -1;
        rc = MPI_Get(&got, 1, MPI_LONG, next, wheres[next] + sizeof(long), 1, MPI_LONG, dyn);
        CHECK(err_class(rc) == MPI_ERR_RMA_RANGE, "Get from rank %d's memory not attached to a dynamic window: "
              "class %d, expected MPI_ERR_RMA_RANGE", next, err_class(rc));
        CHECK_MPI(MPI_Win_unlock(next, dyn));
        free(wheres);
    }
    MPI_Barrier(MPI_COMM_WORLD);
#endif
    CHECK(other[0] == 0, "memory not attached was written: %ld", other[0]);
    CHECK_MPI(MPI_Win_detach(dyn, att));
    CHECK_MPI(MPI_Win_free(&dyn));
}

/* Zero-size windows: Win_create with no memory on odd ranks (base NULL),
 * Win_allocate of 0 bytes everywhere; even ranks' memory is still
 * reachable. */
static void win_zero(void)
{
    int buf[2] = {0, 0};
    int has = mt_rank % 2 == 0;
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(has ? buf : NULL, has ? sizeof buf : 0, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                             &win));
    check_attrs(win, "zero-size Win_create", has ? buf : NULL, has ? sizeof buf : 0, sizeof(int),
                MPI_WIN_FLAVOR_CREATE);
    CHECK_MPI(MPI_Win_fence(0, win));
    int one = 1;
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    if (mt_rank == 0)
        CHECK(buf[0] == 0 && buf[1] == mt_size, "rank 0's window after %d Accumulates: %d %d", mt_size, buf[0],
              buf[1]);
    CHECK_MPI(MPI_Win_free(&win));
    void *base = NULL;
    CHECK_MPI(MPI_Win_allocate(0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    check_attrs(win, "zero-size Win_allocate", base, 0, 1, MPI_WIN_FLAVOR_ALLOCATE);
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Win_free(&win));
}

static int deletes, delete_key;
static intptr_t delete_val;
static MPI_Win delete_win;

static int copy_fn(MPI_Win oldwin, int key, void *extra, void *in, void *out, int *flag)
{
    /* Windows are never duplicated: never called. */
    (void)oldwin, (void)key, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_ERR_OTHER;
}

static int delete_fn(MPI_Win win, int key, void *value, void *extra)
{
    deletes++;
    delete_key = key;
    delete_val = (intptr_t)value;
    delete_win = win;
    CHECK(extra == (void *)&deletes, "delete callback's extra_state is %p, expected %p", extra, (void *)&deletes);
    return MPI_SUCCESS;
}

/* User keyvals: set, get, replace (the old value's delete runs), delete,
 * and Win_free running delete for what is still attached. */
static void win_keyvals(void)
{
    int key = MPI_KEYVAL_INVALID, buf[1];
    CHECK_MPI(MPI_Win_create_keyval(copy_fn, delete_fn, &key, &deletes));
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    void *v = NULL;
    int flag = 1;
    CHECK_MPI(MPI_Win_get_attr(win, key, &v, &flag));
    CHECK(!flag, "a new window has a value for a new keyval");
    deletes = 0;
    CHECK_MPI(MPI_Win_set_attr(win, key, (void *)(intptr_t)(100 + mt_rank)));
    CHECK_MPI(MPI_Win_get_attr(win, key, &v, &flag));
    CHECK(flag && (intptr_t)v == 100 + mt_rank, "Win_get_attr: flag %d value %ld", flag, (long)(intptr_t)v);
    CHECK_MPI(MPI_Win_set_attr(win, key, (void *)(intptr_t)(200 + mt_rank)));
    CHECK(deletes == 1 && delete_val == 100 + mt_rank && delete_key == key && delete_win == win,
          "replacing a value: %d deletes, last of %ld", deletes, (long)delete_val);
    CHECK_MPI(MPI_Win_delete_attr(win, key));
    CHECK(deletes == 2 && delete_val == 200 + mt_rank, "Win_delete_attr: %d deletes, last of %ld", deletes,
          (long)delete_val);
    CHECK_MPI(MPI_Win_get_attr(win, key, &v, &flag));
    CHECK(!flag, "after Win_delete_attr the value is still there");
    CHECK_MPI(MPI_Win_set_attr(win, key, (void *)(intptr_t)(300 + mt_rank)));
    MPI_Win old = win;
    CHECK_MPI(MPI_Win_free(&win));
    CHECK(deletes == 3 && delete_val == 300 + mt_rank && delete_win == old,
          "Win_free: %d deletes (expected 3), last of %ld (expected %d)", deletes, (long)delete_val, 300 + mt_rank);
    CHECK_MPI(MPI_Win_free_keyval(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "Win_free_keyval left the key %d", key);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_rma_win");
    win_create();
    win_allocate();
    win_allocate_shared();
    win_dynamic();
    win_dynamic_ops();
    win_name_group_info();
    win_errors();
    win_sync_errors();
    win_zero();
    win_keyvals();
    return mt_finish();
}
