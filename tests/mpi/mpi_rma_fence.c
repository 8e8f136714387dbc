/* mpi_rma_fence.c — active-target communication with fences (MPI 3.1,
 * 11.3 and 11.5.1): Put, Get and Accumulate of contiguous data and of
 * derived datatypes on either side (vector, indexed, struct, resized; origin
 * and target types that differ in layout but share a type signature); a 1-D
 * halo exchange with Put against the same stencil computed serially; every
 * predefined reduction op with Accumulate on the types the standard allows
 * it for (MAXLOC/MINLOC on the pair types, REPLACE on any), from every rank
 * into every rank at once; Get_accumulate (with SUM each origin fetches a
 * distinct prefix of the updates; with NO_OP it reads, with REPLACE it
 * swaps); transfers of a few MiB. */
#include "mtest.h"

#include <stddef.h>

/* ---- contiguous Put and Get ------------------------------------------------ */

static int val(int r, int i)
{
    return 100000 * (r + 1) + i;
}

/* Every rank gets all of every rank's window, then puts one element into
 * each rank's slot [its own rank]. */
static void put_get_contiguous(void)
{
    enum { M = 32 };
    int *w = malloc((M + mt_size) * sizeof *w), *got = malloc((size_t)mt_size * M * sizeof *got);
    for (int i = 0; i < M; i++)
        w[i] = val(mt_rank, i);
    for (int i = 0; i < mt_size; i++)
        w[M + i] = -1;
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(w, (M + mt_size) * sizeof *w, sizeof *w, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    for (int t = 0; t < mt_size; t++)
        CHECK_MPI(MPI_Get(got + t * M, M, MPI_INT, t, 0, M, MPI_INT, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int t = 0; t < mt_size; t++) {
        int v = -val(mt_rank, t);
        CHECK_MPI(MPI_Put(&v, 1, MPI_INT, t, M + mt_rank, 1, MPI_INT, win));
    }
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    int bad = 0;
    for (int t = 0; t < mt_size; t++)
        for (int i = 0; i < M; i++)
            if (got[t * M + i] != val(t, i) && bad++ == 0)
                CHECK(0, "Get from rank %d element %d: %d, expected %d", t, i, got[t * M + i], val(t, i));
    for (int r = 0; r < mt_size; r++)
        CHECK(w[M + r] == -val(r, mt_rank), "slot %d after rank %d's Put: %d, expected %d", M + r, r, w[M + r],
              -val(r, mt_rank));
    CHECK_MPI(MPI_Win_free(&win));
    free(w);
    free(got);
}

/* ---- derived datatypes ------------------------------------------------------- */

struct rec_a { int a; double d; char c; };  /* the target's layout */
struct rec_b { char c; double d; int a; };  /* the origin's: same signature int, double, char */

/* Origin contiguous, target vector; origin indexed, target resized; struct
 * types of different layouts with the same signature; Accumulate into a
 * vector; Get into an indexed origin type. Each rank works on the next
 * rank's window. */
static void derived(void)
{
    enum { M = 64, RECS = 5 };
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    int *w = calloc(M, sizeof *w);
    struct rec_a *recs = calloc(RECS, sizeof *recs);
    MPI_Win win, rwin;
    CHECK_MPI(MPI_Win_create(w, M * sizeof *w, sizeof *w, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_MPI(MPI_Win_create(recs, RECS * sizeof *recs, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &rwin));

    /* vector: 4 blocks of 3 ints every 5 (target), 12 ints (origin) */
    MPI_Datatype vec, idx, every3, ta, tb, tb_r, ta_r;
    MPI_Type_vector(4, 3, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    /* indexed: blocks of 2, 1, 3 at 0, 4, 7 (6 ints) */
    int bl[3] = {2, 1, 3}, dl[3] = {0, 4, 7};
    MPI_Type_indexed(3, bl, dl, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    /* one int with the extent of three: count k touches every third int */
    MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &every3);
    MPI_Type_commit(&every3);
    int sbl[3] = {1, 1, 1};
    MPI_Datatype st[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Aint da[3] = {offsetof(struct rec_a, a), offsetof(struct rec_a, d), offsetof(struct rec_a, c)};
    MPI_Aint db[3] = {offsetof(struct rec_b, a), offsetof(struct rec_b, d), offsetof(struct rec_b, c)};
    MPI_Type_create_struct(3, sbl, da, st, &ta);
    MPI_Type_create_struct(3, sbl, db, st, &tb);
    MPI_Type_create_resized(ta, 0, sizeof(struct rec_a), &ta_r);
    MPI_Type_create_resized(tb, 0, sizeof(struct rec_b), &tb_r);
    MPI_Type_commit(&ta_r);
    MPI_Type_commit(&tb_r);

    int src[12];
    for (int i = 0; i < 12; i++)
        src[i] = val(mt_rank, i);
    int isrc[10]; /* read through idx: elements 0,1,4,7,8,9 */
    for (int i = 0; i < 10; i++)
        isrc[i] = -val(mt_rank, i);
    struct rec_b out[RECS];
    for (int k = 0; k < RECS; k++) {
        out[k].a = val(mt_rank, k);
        out[k].d = mt_rank + k / 4.0;
        out[k].c = (char)('a' + mt_rank + k);
    }
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Win_fence(0, rwin));
    CHECK_MPI(MPI_Put(src, 12, MPI_INT, next, 0, 1, vec, win));               /* ints 0..18 */
    CHECK_MPI(MPI_Put(isrc, 1, idx, next, 20, 6, every3, win));               /* ints 20,23,..,35 */
    CHECK_MPI(MPI_Put(out, RECS, tb_r, next, 0, RECS, ta_r, rwin));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Win_fence(0, rwin));
    /* reference: what prev wrote into my window */
    int ref[M] = {0};
    for (int b = 0, k = 0; b < 4; b++)
        for (int j = 0; j < 3; j++)
            ref[b * 5 + j] = val(prev, k++);
    int order[6] = {0, 1, 4, 7, 8, 9};
    for (int k = 0; k < 6; k++)
        ref[20 + 3 * k] = -val(prev, order[k]);
    for (int i = 0; i < M; i++)
        CHECK(w[i] == ref[i], "derived Put from rank %d: int %d is %d, expected %d", prev, i, w[i], ref[i]);
    for (int k = 0; k < RECS; k++)
        CHECK(recs[k].a == val(prev, k) && recs[k].d == prev + k / 4.0 && recs[k].c == (char)('a' + prev + k),
              "struct Put from rank %d: record %d is {%d, %g, %c}", prev, k, recs[k].a, recs[k].d, recs[k].c);
    /* A fence opens the next epoch too: another one keeps prev's next
     * update from landing while the window is being checked. */
    CHECK_MPI(MPI_Win_fence(0, win));

    /* Accumulate SUM through the vector into the same ints; Get back through
     * indexed origin and every3 target. */
    int ones[12];
    for (int i = 0; i < 12; i++)
        ones[i] = i + 1;
    CHECK_MPI(MPI_Accumulate(ones, 12, MPI_INT, next, 0, 1, vec, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int b = 0, k = 0; b < 4; b++)
        for (int j = 0; j < 3; j++, k++)
            ref[b * 5 + j] += k + 1;
    for (int i = 0; i < M; i++)
        CHECK(w[i] == ref[i], "Accumulate through a vector from rank %d: int %d is %d, expected %d", prev, i, w[i],
              ref[i]);
    int back[10];
    for (int i = 0; i < 10; i++)
        back[i] = 7;
    CHECK_MPI(MPI_Get(back, 1, idx, next, 20, 6, every3, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int k = 0; k < 6; k++)
        CHECK(back[order[k]] == -val(mt_rank, order[k]), "Get through indexed/resized: element %d is %d, expected %d",
              order[k], back[order[k]], -val(mt_rank, order[k]));
    CHECK(back[2] == 7 && back[3] == 7 && back[5] == 7 && back[6] == 7, "Get wrote into the indexed type's holes");

    MPI_Type_free(&vec);
    MPI_Type_free(&idx);
    MPI_Type_free(&every3);
    MPI_Type_free(&ta);
    MPI_Type_free(&tb);
    MPI_Type_free(&ta_r);
    MPI_Type_free(&tb_r);
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Win_free(&rwin));
    free(w);
    free(recs);
}

/* ---- a halo exchange with Put --------------------------------------------------- */

/* A periodic 1-D three-point stencil over NL cells per rank: each step puts
 * the rank's edge cells into its neighbours' ghost cells, fence, update. */
static void halo(void)
{
    enum { NL = 10, STEPS = 6 };
    int n = NL * mt_size;
    double *all = malloc(n * sizeof *all), *tmp = malloc(n * sizeof *tmp);
    for (int i = 0; i < n; i++)
        all[i] = (i * 37 % 11) - 3.5;
    double u[NL + 2], v[NL + 2];
    for (int i = 0; i < NL; i++)
        u[i + 1] = all[mt_rank * NL + i];
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(u, sizeof u, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    int left = (mt_rank + mt_size - 1) % mt_size, right = (mt_rank + 1) % mt_size;
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    for (int s = 0; s < STEPS; s++) {
        /* my first cell is the left neighbour's right ghost, my last its left's */
        CHECK_MPI(MPI_Put(&u[1], 1, MPI_DOUBLE, left, NL + 1, 1, MPI_DOUBLE, win));
        CHECK_MPI(MPI_Put(&u[NL], 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, win));
        /* No Put reaches u until the next fence (the assertion says so). */
        CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPUT, win));
        for (int i = 1; i <= NL; i++)
            v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
        /* The ghosts are read before a neighbour's next Put overwrites them;
         * u itself was not stored to since the last fence. */
        CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSTORE, win));
        for (int i = 1; i <= NL; i++)
            u[i] = v[i];
        for (int i = 0; i < n; i++)
            tmp[i] = 0.25 * all[(i + n - 1) % n] + 0.5 * all[i] + 0.25 * all[(i + 1) % n];
        memcpy(all, tmp, n * sizeof *all);
    }
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    for (int i = 0; i < NL; i++)
        CHECK(u[i + 1] == all[mt_rank * NL + i], "halo: cell %d after %d steps is %.17g, serially %.17g",
              mt_rank * NL + i, STEPS, u[i + 1], all[mt_rank * NL + i]);
    CHECK_MPI(MPI_Win_free(&win));
    free(all);
    free(tmp);
}

/* ---- every predefined op ---------------------------------------------------------- */

enum kind { K_INT, K_LONG, K_DOUBLE, K_FLOAT, K_SCHAR, K_UCHAR };
static const struct { enum kind k; MPI_Datatype dt; size_t size; const char *name; int is_int, is_signed; } types[] = {
    {K_INT, MPI_INT, sizeof(int), "MPI_INT", 1, 1},
    {K_LONG, MPI_LONG, sizeof(long), "MPI_LONG", 1, 1},
    {K_DOUBLE, MPI_DOUBLE, sizeof(double), "MPI_DOUBLE", 0, 1},
    {K_FLOAT, MPI_FLOAT, sizeof(float), "MPI_FLOAT", 0, 1},
    {K_SCHAR, MPI_SIGNED_CHAR, 1, "MPI_SIGNED_CHAR", 1, 1},
    {K_UCHAR, MPI_UNSIGNED_CHAR, 1, "MPI_UNSIGNED_CHAR", 1, 0},
};
enum op { O_SUM, O_PROD, O_MAX, O_MIN, O_LAND, O_BAND, O_LOR, O_BOR, O_LXOR, O_BXOR, O_REPLACE, O_N };
static const char *op_names[O_N] = {"SUM", "PROD", "MAX", "MIN", "LAND", "BAND", "LOR", "BOR", "LXOR", "BXOR", "REPLACE"};

static MPI_Op mpi_op(int o)
{
    MPI_Op ops[O_N] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND, MPI_BAND,
                       MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_REPLACE};
    return ops[o];
}

static void put_elem(void *p, int i, enum kind k, long long v)
{
    switch (k) {
    case K_INT: ((int *)p)[i] = (int)v; break;
    case K_LONG: ((long *)p)[i] = (long)v; break;
    case K_DOUBLE: ((double *)p)[i] = (double)v; break;
    case K_FLOAT: ((float *)p)[i] = (float)v; break;
    case K_SCHAR: ((signed char *)p)[i] = (signed char)v; break;
    case K_UCHAR: ((unsigned char *)p)[i] = (unsigned char)v; break;
    }
}

static long long get_elem(const void *p, int i, enum kind k)
{
    switch (k) {
    case K_INT: return ((const int *)p)[i];
    case K_LONG: return ((const long *)p)[i];
    case K_DOUBLE: return (long long)((const double *)p)[i];
    case K_FLOAT: return (long long)((const float *)p)[i];
    case K_SCHAR: return ((const signed char *)p)[i];
    default: return ((const unsigned char *)p)[i];
    }
}

/* The value rank r contributes to element i for op o (r = -1: the target's
 * initial value): small enough that every result is exact in every type. */
static long long contrib(int o, int r, int i, int is_signed)
{
    int s = r + 1;
    switch (o) {
    case O_SUM: return is_signed ? (s * 3 + i) % 7 - 3 : (s * 3 + i) % 7;
    case O_PROD: return (s + i) % 4 == 0 ? 2 : (s + i) % 4 == 1 && is_signed ? -1 : 1;
    case O_MAX:
    case O_MIN: return is_signed ? (s * 5 + i * 3) % 11 - 5 : (s * 5 + i * 3) % 11;
    case O_LAND:
    case O_LOR:
    case O_LXOR: return (s + i) % 3 == 0 ? 0 : (s + i) % 3 == 1 ? 1 : 2 + (i & 1) * 4;
    case O_BAND:
    case O_BOR:
    case O_BXOR: return ((s * 37 + i * 11) ^ (s << 3)) & 0x7f;
    default: return 1000 * s % 97 + i; /* REPLACE */
    }
}

static long long apply(int o, long long a, long long b)
{
    switch (o) {
    case O_SUM: return a + b;
    case O_PROD: return a * b;
    case O_MAX: return a > b ? a : b;
    case O_MIN: return a < b ? a : b;
    case O_LAND: return a && b;
    case O_LOR: return a || b;
    case O_LXOR: return !a != !b;
    case O_BAND: return a & b;
    case O_BOR: return a | b;
    case O_BXOR: return a ^ b;
    default: return b;
    }
}

/* Every rank accumulates EL elements into every rank's window with op o on
 * type t (for REPLACE, each element is replaced by one rank only, the
 * result being then defined). */
static void accumulate_op(void *w, MPI_Win win, int ti, int o)
{
    enum { EL = 12 };
    enum kind k = types[ti].k;
    int sg = types[ti].is_signed;
    unsigned char in[EL * sizeof(double)];
    for (int i = 0; i < EL; i++) {
        put_elem(w, i, k, contrib(o, -1, i, sg));
        put_elem(in, i, k, contrib(o, mt_rank, i, sg));
    }
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int t = 0; t < mt_size; t++) {
        if (o != O_REPLACE) {
            CHECK_MPI(MPI_Accumulate(in, EL, types[ti].dt, t, 0, EL, types[ti].dt, mpi_op(o), win));
        } else {
            for (int i = mt_rank; i < EL; i += mt_size)
                CHECK_MPI(MPI_Accumulate(in + i * types[ti].size, 1, types[ti].dt, t, i, 1, types[ti].dt,
                                         MPI_REPLACE, win));
        }
    }
    CHECK_MPI(MPI_Win_fence(0, win));
    for (int i = 0; i < EL; i++) {
        long long want = contrib(o, -1, i, sg);
        if (o == O_REPLACE)
            want = contrib(o, i % mt_size, i, sg);
        else
            for (int r = 0; r < mt_size; r++)
                want = apply(o, want, contrib(o, r, i, sg));
        long long got = get_elem(w, i, k);
        CHECK(got == want, "Accumulate %s on %s from %d ranks: element %d is %lld, expected %lld", op_names[o],
              types[ti].name, mt_size, i, got, want);
    }
}

static void all_ops(void)
{
    void *w;
    MPI_Win win;
    /* One window per type, its disp_unit the element's size. */
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        CHECK_MPI(MPI_Win_allocate(12 * types[ti].size, (int)types[ti].size, MPI_INFO_NULL, MPI_COMM_WORLD, &w,
                                   &win));
        for (int o = 0; o < O_N; o++) {
            /* logical and bitwise ops are defined on C integers only (5.9.2) */
            if (!types[ti].is_int && (o == O_LAND || o == O_LOR || o == O_LXOR || o == O_BAND || o == O_BOR ||
                                      o == O_BXOR))
                continue;
            accumulate_op(w, win, (int)ti, o);
        }
        CHECK_MPI(MPI_Win_free(&win));
    }
}

/* MAXLOC and MINLOC on the pair types: every rank's (value, index) pairs
 * into every window; ties go to the lower index. */
struct dint { double v; int i; };
struct lint { long v; int i; };
static void maxloc_minloc(void)
{
    enum { EL = 6 };
    int nt = mt_size;
    struct { int v, i; } *w2, in2[EL];
    struct dint *wd, ind[EL];
    struct lint *wl, inl[EL];
    MPI_Win win2, wind, winl;
    CHECK_MPI(MPI_Win_allocate(2 * EL * sizeof *w2, sizeof *w2, MPI_INFO_NULL, MPI_COMM_WORLD, &w2, &win2));
    CHECK_MPI(MPI_Win_allocate(2 * EL * sizeof *wd, sizeof *wd, MPI_INFO_NULL, MPI_COMM_WORLD, &wd, &wind));
    CHECK_MPI(MPI_Win_allocate(2 * EL * sizeof *wl, sizeof *wl, MPI_INFO_NULL, MPI_COMM_WORLD, &wl, &winl));
#define PAIRVAL(r, e) (((r) * 5 + (e) * 3) % 7) /* ties between ranks are frequent */
    for (int e = 0; e < 2 * EL; e++) { /* the target's own pair, index nt (above every rank) */
        w2[e].v = PAIRVAL(nt, e % EL), w2[e].i = nt;
        wd[e].v = PAIRVAL(nt, e % EL) + 0.5, wd[e].i = nt;
        wl[e].v = -PAIRVAL(nt, e % EL), wl[e].i = nt;
    }
    for (int e = 0; e < EL; e++) {
        in2[e].v = PAIRVAL(mt_rank, e), in2[e].i = mt_rank;
        ind[e].v = PAIRVAL(mt_rank, e) + 0.5, ind[e].i = mt_rank;
        inl[e].v = -PAIRVAL(mt_rank, e), inl[e].i = mt_rank;
    }
    CHECK_MPI(MPI_Win_fence(0, win2));
    CHECK_MPI(MPI_Win_fence(0, wind));
    CHECK_MPI(MPI_Win_fence(0, winl));
    for (int t = 0; t < mt_size; t++) { /* MAXLOC into elements 0..EL-1, MINLOC into EL.. */
        CHECK_MPI(MPI_Accumulate(in2, EL, MPI_2INT, t, 0, EL, MPI_2INT, MPI_MAXLOC, win2));
        CHECK_MPI(MPI_Accumulate(in2, EL, MPI_2INT, t, EL, EL, MPI_2INT, MPI_MINLOC, win2));
        CHECK_MPI(MPI_Accumulate(ind, EL, MPI_DOUBLE_INT, t, 0, EL, MPI_DOUBLE_INT, MPI_MAXLOC, wind));
        CHECK_MPI(MPI_Accumulate(ind, EL, MPI_DOUBLE_INT, t, EL, EL, MPI_DOUBLE_INT, MPI_MINLOC, wind));
        CHECK_MPI(MPI_Accumulate(inl, EL, MPI_LONG_INT, t, 0, EL, MPI_LONG_INT, MPI_MAXLOC, winl));
        CHECK_MPI(MPI_Accumulate(inl, EL, MPI_LONG_INT, t, EL, EL, MPI_LONG_INT, MPI_MINLOC, winl));
    }
    CHECK_MPI(MPI_Win_fence(0, win2));
    CHECK_MPI(MPI_Win_fence(0, wind));
    CHECK_MPI(MPI_Win_fence(0, winl));
    for (int e = 0; e < EL; e++) {
        /* serially, over the pairs (target's first, index nt, then ranks 0..) */
        int mx = PAIRVAL(nt, e), mxi = nt, mn = mx, mni = nt;
        for (int r = 0; r < mt_size; r++) {
            int v = PAIRVAL(r, e);
            if (v > mx || (v == mx && r < mxi)) mx = v, mxi = r;
            if (v < mn || (v == mn && r < mni)) mn = v, mni = r;
        }
        CHECK(w2[e].v == mx && w2[e].i == mxi, "MAXLOC 2INT element %d: (%d, %d), expected (%d, %d)", e, w2[e].v,
              w2[e].i, mx, mxi);
        CHECK(w2[EL + e].v == mn && w2[EL + e].i == mni, "MINLOC 2INT element %d: (%d, %d), expected (%d, %d)", e,
              w2[EL + e].v, w2[EL + e].i, mn, mni);
        CHECK(wd[e].v == mx + 0.5 && wd[e].i == mxi, "MAXLOC DOUBLE_INT element %d: (%g, %d), expected (%g, %d)", e,
              wd[e].v, wd[e].i, mx + 0.5, mxi);
        CHECK(wd[EL + e].v == mn + 0.5 && wd[EL + e].i == mni,
              "MINLOC DOUBLE_INT element %d: (%g, %d), expected (%g, %d)", e, wd[EL + e].v, wd[EL + e].i, mn + 0.5,
              mni);
        /* LONG_INT holds the negated values: MAXLOC finds the smallest */
        CHECK(wl[e].v == -mn && wl[e].i == mni, "MAXLOC LONG_INT element %d: (%ld, %d), expected (%d, %d)", e,
              wl[e].v, wl[e].i, -mn, mni);
        CHECK(wl[EL + e].v == -mx && wl[EL + e].i == mxi, "MINLOC LONG_INT element %d: (%ld, %d), expected (%d, %d)",
              e, wl[EL + e].v, wl[EL + e].i, -mx, mxi);
    }
#undef PAIRVAL
    CHECK_MPI(MPI_Win_free(&win2));
    CHECK_MPI(MPI_Win_free(&wind));
    CHECK_MPI(MPI_Win_free(&winl));
}

/* ---- Get_accumulate ------------------------------------------------------------- */

/* Every rank adds 1 << rank to rank 0's counter and fetches what was there
 * before: the fetched values, in increasing order, must each be a subset of
 * the next (the updates applied one at a time), none holding its own bit;
 * the final value holds every bit. NO_OP reads; REPLACE swaps. */
static void get_accumulate(void)
{
    long *w, before = -1, *all = malloc(mt_size * sizeof *all);
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(2 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
    w[0] = 0;
    w[1] = 1000 + mt_rank;
    long add = 1L << mt_rank;
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Get_accumulate(&add, 1, MPI_LONG, &before, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK(!(before & add), "Get_accumulate SUM: rank %d fetched %#lx, which already holds its own bit", mt_rank,
          before);
    CHECK_MPI(MPI_Gather(&before, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD));
    if (mt_rank == 0) {
        CHECK(w[0] == (1L << mt_size) - 1, "Get_accumulate SUM from %d ranks left %#lx", mt_size, w[0]);
        for (int i = 0; i < mt_size; i++)
            for (int j = i + 1; j < mt_size; j++) {
                long a = all[i] < all[j] ? all[i] : all[j], b = all[i] < all[j] ? all[j] : all[i];
                CHECK(a != b && (a & b) == a, "Get_accumulate SUM: ranks %d and %d fetched %#lx and %#lx, not one "
                      "update apart in order", i, j, all[i], all[j]);
            }
    }
    /* NO_OP: a read, no change; REPLACE: each rank swaps its own value into
     * the next rank's slot 1 and gets the old one. */
    long seen = -1, mine = 2000 + mt_rank, old = -1;
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_LONG, &seen, 1, MPI_LONG, prev, 1, 1, MPI_LONG, MPI_NO_OP, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK(seen == 1000 + prev, "Get_accumulate NO_OP of rank %d's slot 1: %ld, expected %d", prev, seen, 1000 + prev);
    CHECK(w[1] == 1000 + mt_rank, "Get_accumulate NO_OP changed the target to %ld", w[1]);
    CHECK_MPI(MPI_Win_fence(0, win)); /* checked before prev's REPLACE */
    CHECK_MPI(MPI_Get_accumulate(&mine, 1, MPI_LONG, &old, 1, MPI_LONG, next, 1, 1, MPI_LONG, MPI_REPLACE, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK(old == 1000 + next, "Get_accumulate REPLACE fetched %ld from rank %d, expected %d", old, next, 1000 + next);
    CHECK(w[1] == 2000 + prev, "after rank %d's Get_accumulate REPLACE slot 1 is %ld, expected %d", prev, w[1],
          2000 + prev);
    CHECK_MPI(MPI_Win_free(&win));
    free(all);
}

/* ---- large transfers ---------------------------------------------------------------- */

/* 4 MiB Put to the next rank, 2 MiB Get from the previous one (every other
 * double of its window, through a vector). */
static void large(void)
{
    enum { EL = (4 << 20) / sizeof(double) };
    double *w, *src = malloc(EL * sizeof *src), *got = malloc(EL / 2 * sizeof *got);
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate(EL * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    for (int i = 0; i < EL; i++)
        src[i] = mt_rank * 1e7 + i;
    CHECK_MPI(MPI_Win_fence(0, win));
    CHECK_MPI(MPI_Put(src, EL, MPI_DOUBLE, next, 0, EL, MPI_DOUBLE, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    int bad = 0;
    for (int i = 0; i < EL; i++)
        if (w[i] != prev * 1e7 + i && bad++ == 0)
            CHECK(0, "4 MiB Put from rank %d: double %d is %.1f, expected %.1f", prev, i, w[i], prev * 1e7 + i);
    MPI_Datatype strided;
    MPI_Type_vector(EL / 2, 1, 2, MPI_DOUBLE, &strided);
    MPI_Type_commit(&strided);
    CHECK_MPI(MPI_Get(got, EL / 2, MPI_DOUBLE, prev, 1, 1, strided, win));
    CHECK_MPI(MPI_Win_fence(0, win));
    /* prev's window holds what prev's prev put */
    int pp = (prev + mt_size - 1) % mt_size;
    bad = 0;
    for (int i = 0; i < EL / 2; i++)
        if (got[i] != pp * 1e7 + 2 * i + 1 && bad++ == 0)
            CHECK(0, "2 MiB strided Get from rank %d: double %d is %.1f, expected %.1f", prev, i, got[i],
                  pp * 1e7 + 2 * i + 1);
    MPI_Type_free(&strided);
    CHECK_MPI(MPI_Win_free(&win));
    free(src);
    free(got);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_rma_fence");
    put_get_contiguous();
    derived();
    halo();
    all_ops();
    maxloc_minloc();
    get_accumulate();
    large();
    return mt_finish();
}
