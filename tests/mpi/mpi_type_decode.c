/* mpi_type_decode.c — MPI_Type_get_envelope and MPI_Type_get_contents give
 * back how every kind of datatype was built (MPI 3.1, 4.1.13): the combiner,
 * the counts, the very arguments of the constructor. Each type is rebuilt
 * from what it decodes to (its inner types rebuilt the same way, down to the
 * named ones) and the two must have the same type map: the same size,
 * bounds and true bounds, and the same bytes packed from one buffer. Inner
 * derived types come back as handles the caller frees, usable even when the
 * program freed the type it built with. */
#include "mtest.h"

/* ---- comparing type maps -------------------------------------------------------------- */
static int is_freeable(MPI_Datatype t)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    return comb != MPI_COMBINER_NAMED && comb != MPI_COMBINER_F90_REAL &&
           comb != MPI_COMBINER_F90_COMPLEX && comb != MPI_COMBINER_F90_INTEGER;
}

/* a and b (committed here) have the same size, bounds and packed bytes. */
static void same_map(MPI_Datatype a, MPI_Datatype b, const char *what)
{
    MPI_Aint lb[2], ext[2], tlb[2], text[2];
    int size[2], psize[2];
    MPI_Datatype t[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        if (is_freeable(t[i]))
            CHECK_MPI(MPI_Type_commit(&t[i]));
        MPI_Type_size(t[i], &size[i]);
        MPI_Type_get_extent(t[i], &lb[i], &ext[i]);
        MPI_Type_get_true_extent(t[i], &tlb[i], &text[i]);
        MPI_Pack_size(3, t[i], MPI_COMM_WORLD, &psize[i]);
    }
    CHECK(size[0] == size[1] && lb[0] == lb[1] && ext[0] == ext[1] && tlb[0] == tlb[1] &&
              text[0] == text[1] && psize[0] == psize[1],
          "%s: size %d/%d lb %ld/%ld extent %ld/%ld true lb %ld/%ld true extent %ld/%ld", what,
          size[0], size[1], (long)lb[0], (long)lb[1], (long)ext[0], (long)ext[1], (long)tlb[0],
          (long)tlb[1], (long)text[0], (long)text[1]);
    if (size[0] != size[1] || ext[0] != ext[1] || tlb[0] != tlb[1] || text[0] != text[1] ||
        ext[0] < 0)
        return;
    /* three elements from a patterned buffer; the first byte of data at buf[0] */
    size_t span = (size_t)(text[0] + 2 * ext[0]) + 1;
    unsigned char *buf = malloc(span), *out[2];
    for (size_t i = 0; i < span; i++)
        buf[i] = (unsigned char)(i * 7 + 3);
    for (int i = 0; i < 2; i++) {
        int pos = 0;
        out[i] = calloc(1, (size_t)psize[0] + 1);
        CHECK_MPI(MPI_Pack(buf - tlb[0], 3, t[i], out[i], psize[0], &pos, MPI_COMM_WORLD));
        CHECK(pos == 3 * size[0], "%s: packed %d bytes of %d", what, pos, 3 * size[0]);
    }
    CHECK(!memcmp(out[0], out[1], (size_t)psize[0]), "%s: the types pack different bytes", what);
    free(out[0]);
    free(out[1]);
    free(buf);
}

/* ---- rebuilding from the contents ------------------------------------------------------- */
/* A type made by t's constructor from t's contents, its inner types rebuilt
 * the same way first; named and f90 types are themselves. */
static MPI_Datatype rebuild(MPI_Datatype t)
{
    int ni, na, nd, comb;
    CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    if (comb == MPI_COMBINER_NAMED)
        return t;
    int *I = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *A = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *D = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1)), r = MPI_DATATYPE_NULL;
    CHECK_MPI(MPI_Type_get_contents(t, ni, na, nd, I, A, D));
    for (int i = 0; i < nd; i++) {
        MPI_Datatype in = D[i];
        D[i] = rebuild(in);
        if (is_freeable(in))
            MPI_Type_free(&in);
    }
    int n = ni > 0 ? I[0] : 0;
    switch (comb) {
    case MPI_COMBINER_DUP: CHECK_MPI(MPI_Type_dup(D[0], &r)); break;
    case MPI_COMBINER_CONTIGUOUS: CHECK_MPI(MPI_Type_contiguous(I[0], D[0], &r)); break;
    case MPI_COMBINER_VECTOR: CHECK_MPI(MPI_Type_vector(I[0], I[1], I[2], D[0], &r)); break;
    case MPI_COMBINER_HVECTOR: CHECK_MPI(MPI_Type_create_hvector(I[0], I[1], A[0], D[0], &r)); break;
    case MPI_COMBINER_INDEXED: CHECK_MPI(MPI_Type_indexed(n, I + 1, I + 1 + n, D[0], &r)); break;
    case MPI_COMBINER_HINDEXED: CHECK_MPI(MPI_Type_create_hindexed(n, I + 1, A, D[0], &r)); break;
    case MPI_COMBINER_INDEXED_BLOCK:
        CHECK_MPI(MPI_Type_create_indexed_block(n, I[1], I + 2, D[0], &r));
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        CHECK_MPI(MPI_Type_create_hindexed_block(n, I[1], A, D[0], &r));
        break;
    case MPI_COMBINER_STRUCT: CHECK_MPI(MPI_Type_create_struct(n, I + 1, A, D, &r)); break;
    case MPI_COMBINER_SUBARRAY:
        CHECK_MPI(MPI_Type_create_subarray(n, I + 1, I + 1 + n, I + 1 + 2 * n, I[1 + 3 * n], D[0],
                                           &r));
        break;
    case MPI_COMBINER_DARRAY: {
        int k = I[2];
        CHECK_MPI(MPI_Type_create_darray(I[0], I[1], k, I + 3, I + 3 + k, I + 3 + 2 * k,
                                         I + 3 + 3 * k, I[3 + 4 * k], D[0], &r));
        break;
    }
    case MPI_COMBINER_RESIZED: CHECK_MPI(MPI_Type_create_resized(D[0], A[0], A[1], &r)); break;
    case MPI_COMBINER_F90_REAL: CHECK_MPI(MPI_Type_create_f90_real(I[0], I[1], &r)); break;
    case MPI_COMBINER_F90_COMPLEX: CHECK_MPI(MPI_Type_create_f90_complex(I[0], I[1], &r)); break;
    case MPI_COMBINER_F90_INTEGER: CHECK_MPI(MPI_Type_create_f90_integer(I[0], &r)); break;
    default: CHECK(0, "unknown combiner %d", comb); break;
    }
    for (int i = 0; i < nd; i++)
        if (is_freeable(D[i]))
            MPI_Type_free(&D[i]);
    free(I);
    free(A);
    free(D);
    return r;
}

/* t decodes to exactly this (inner types compared by type map), and
 * rebuilds to a type with t's type map. */
static void check_decode(MPI_Datatype t, int comb, int ni, const int *I, int na,
                         const MPI_Aint *A, int nd, const MPI_Datatype *D, const char *what)
{
    int gni = -1, gna = -1, gnd = -1, gcomb = -1;
    CHECK_MPI(MPI_Type_get_envelope(t, &gni, &gna, &gnd, &gcomb));
    CHECK(gcomb == comb && gni == ni && gna == na && gnd == nd,
          "%s: envelope combiner %d (%d), %d integers (%d), %d addresses (%d), %d types (%d)",
          what, gcomb, comb, gni, ni, gna, na, gnd, nd);
    if (gcomb != comb || gni != ni || gna != na || gnd != nd)
        return;
    int gi[64];
    MPI_Aint ga[16];
    MPI_Datatype gd[16];
    CHECK_MPI(MPI_Type_get_contents(t, ni, na, nd, gi, ga, gd));
    for (int i = 0; i < ni; i++)
        CHECK(gi[i] == I[i], "%s: integer %d is %d, not %d", what, i, gi[i], I[i]);
    for (int i = 0; i < na; i++)
        CHECK(ga[i] == A[i], "%s: address %d is %ld, not %ld", what, i, (long)ga[i], (long)A[i]);
    for (int i = 0; i < nd; i++) {
        if (!is_freeable(D[i]))
            CHECK(gd[i] == D[i], "%s: type %d is not the predefined handle it was built with",
                  what, i);
        else
            same_map(gd[i], D[i], what);
        if (is_freeable(gd[i]))
            CHECK_MPI(MPI_Type_free(&gd[i]));
    }
    MPI_Datatype r = rebuild(t);
    same_map(t, r, what);
    if (r != MPI_DATATYPE_NULL && is_freeable(r))
        MPI_Type_free(&r);
}

/* ---- the constructors ------------------------------------------------------------------------ */
static void named(void)
{
    MPI_Datatype ts[] = {MPI_INT, MPI_DOUBLE_INT, MPI_CHAR, MPI_PACKED, MPI_C_DOUBLE_COMPLEX};
    for (size_t i = 0; i < sizeof ts / sizeof *ts; i++) {
        int ni = -1, na = -1, nd = -1, comb = -1;
        CHECK_MPI(MPI_Type_get_envelope(ts[i], &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_NAMED && !ni && !na && !nd, "named type %zu: %d %d %d %d", i,
              comb, ni, na, nd);
    }
    /* a named type has no contents: asking is an error */
    int I[1];
    MPI_Aint A[1];
    MPI_Datatype D[1];
    CHECK(MPI_Type_get_contents(MPI_INT, 1, 1, 1, I, A, D) != MPI_SUCCESS,
          "MPI_Type_get_contents of MPI_INT succeeded");
}

static void simple(void)
{
    MPI_Datatype t, vec, hvec;
    {
        MPI_Datatype D[] = {MPI_INT};
        CHECK_MPI(MPI_Type_dup(MPI_INT, &t));
        check_decode(t, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, D, "dup");
        MPI_Type_free(&t);
    }
    {
        int I[] = {5};
        MPI_Datatype D[] = {MPI_SHORT};
        CHECK_MPI(MPI_Type_contiguous(5, MPI_SHORT, &t));
        check_decode(t, MPI_COMBINER_CONTIGUOUS, 1, I, 0, NULL, 1, D, "contiguous");
        MPI_Type_free(&t);
    }
    {
        int I[] = {3, 2, 5};
        MPI_Datatype D[] = {MPI_INT};
        CHECK_MPI(MPI_Type_vector(3, 2, 5, MPI_INT, &vec));
        check_decode(vec, MPI_COMBINER_VECTOR, 3, I, 0, NULL, 1, D, "vector");
        int J[] = {3, 1, -2};
        CHECK_MPI(MPI_Type_vector(3, 1, -2, MPI_DOUBLE, &t));
        MPI_Datatype E[] = {MPI_DOUBLE};
        check_decode(t, MPI_COMBINER_VECTOR, 3, J, 0, NULL, 1, E, "vector, negative stride");
        MPI_Type_free(&t);
    }
    {
        int I[] = {4, 1};
        MPI_Aint A[] = {24};
        MPI_Datatype D[] = {MPI_DOUBLE};
        CHECK_MPI(MPI_Type_create_hvector(4, 1, 24, MPI_DOUBLE, &hvec));
        check_decode(hvec, MPI_COMBINER_HVECTOR, 2, I, 1, A, 1, D, "hvector");
    }
    {
        int bl[] = {2, 1, 3}, dp[] = {0, 5, 9};
        int I[] = {3, 2, 1, 3, 0, 5, 9};
        MPI_Datatype D[] = {vec};
        CHECK_MPI(MPI_Type_indexed(3, bl, dp, vec, &t));
        check_decode(t, MPI_COMBINER_INDEXED, 7, I, 0, NULL, 1, D, "indexed of a vector");
        MPI_Type_free(&t);
    }
    {
        int bl[] = {1, 2};
        MPI_Aint dp[] = {8, 40};
        int I[] = {2, 1, 2};
        MPI_Datatype D[] = {MPI_FLOAT};
        CHECK_MPI(MPI_Type_create_hindexed(2, bl, dp, MPI_FLOAT, &t));
        check_decode(t, MPI_COMBINER_HINDEXED, 3, I, 2, dp, 1, D, "hindexed");
        MPI_Type_free(&t);
    }
    {
        int dp[] = {0, 4, 9};
        int I[] = {3, 2, 0, 4, 9};
        MPI_Datatype D[] = {MPI_INT};
        CHECK_MPI(MPI_Type_create_indexed_block(3, 2, dp, MPI_INT, &t));
        check_decode(t, MPI_COMBINER_INDEXED_BLOCK, 5, I, 0, NULL, 1, D, "indexed_block");
        MPI_Type_free(&t);
    }
    {
        MPI_Aint dp[] = {0, 64};
        int I[] = {2, 3};
        MPI_Datatype D[] = {hvec};
        CHECK_MPI(MPI_Type_create_hindexed_block(2, 3, dp, hvec, &t));
        check_decode(t, MPI_COMBINER_HINDEXED_BLOCK, 2, I, 2, dp, 1, D,
                     "hindexed_block of an hvector");
        MPI_Type_free(&t);
    }
    {
        int bl[] = {1, 2, 1};
        MPI_Aint dp[] = {0, 8, 200};
        MPI_Datatype ts[] = {MPI_INT, hvec, MPI_CHAR};
        int I[] = {3, 1, 2, 1};
        CHECK_MPI(MPI_Type_create_struct(3, bl, dp, ts, &t));
        check_decode(t, MPI_COMBINER_STRUCT, 4, I, 3, dp, 3, ts, "struct");
        MPI_Type_free(&t);
    }
    {
        MPI_Aint A[] = {-8, 100};
        MPI_Datatype D[] = {vec};
        CHECK_MPI(MPI_Type_create_resized(vec, -8, 100, &t));
        check_decode(t, MPI_COMBINER_RESIZED, 0, NULL, 2, A, 1, D, "resized");
        MPI_Type_free(&t);
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&hvec);
}

static void arrays(void)
{
    MPI_Datatype t;
    {
        int sizes[] = {6, 8}, subs[] = {2, 3}, starts[] = {1, 4};
        int I[] = {2, 6, 8, 2, 3, 1, 4, MPI_ORDER_C};
        MPI_Datatype D[] = {MPI_INT};
        CHECK_MPI(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t));
        check_decode(t, MPI_COMBINER_SUBARRAY, 8, I, 0, NULL, 1, D, "subarray, C order");
        MPI_Type_free(&t);
    }
    {
        int sizes[] = {4, 3, 5}, subs[] = {2, 1, 3}, starts[] = {2, 1, 0};
        int I[] = {3, 4, 3, 5, 2, 1, 3, 2, 1, 0, MPI_ORDER_FORTRAN};
        MPI_Datatype D[] = {MPI_DOUBLE};
        CHECK_MPI(MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_DOUBLE,
                                           &t));
        check_decode(t, MPI_COMBINER_SUBARRAY, 11, I, 0, NULL, 1, D, "subarray, Fortran order");
        MPI_Type_free(&t);
    }
    {
        int g[] = {9, 10}, d[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
            a[] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, p[] = {2, 2};
        int I[] = {4, 3, 2, 9, 10, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC,
                   MPI_DISTRIBUTE_DFLT_DARG, 2, 2, 2, MPI_ORDER_C};
        MPI_Datatype D[] = {MPI_DOUBLE};
        CHECK_MPI(MPI_Type_create_darray(4, 3, 2, g, d, a, p, MPI_ORDER_C, MPI_DOUBLE, &t));
        check_decode(t, MPI_COMBINER_DARRAY, 12, I, 0, NULL, 1, D, "darray, C order");
        MPI_Type_free(&t);
    }
    {
        int g[] = {7, 4, 6},
            d[] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK},
            a[] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, 4}, p[] = {3, 1, 2};
        int I[] = {6, 4, 3, 7, 4, 6, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE,
                   MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, 4,
                   3, 1, 2, MPI_ORDER_FORTRAN};
        MPI_Datatype D[] = {MPI_SHORT_INT};
        CHECK_MPI(MPI_Type_create_darray(6, 4, 3, g, d, a, p, MPI_ORDER_FORTRAN, MPI_SHORT_INT,
                                         &t));
        check_decode(t, MPI_COMBINER_DARRAY, 16, I, 0, NULL, 1, D, "darray, Fortran order");
        MPI_Type_free(&t);
    }
}

static void fortran_kinds(void)
{
    MPI_Datatype t;
    int ni, na, nd, comb;
    CHECK_MPI(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t));
    CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_F90_REAL && ni == 2 && !na && !nd, "f90 real: %d %d %d %d", comb,
          ni, na, nd);
    CHECK_MPI(MPI_Type_create_f90_complex(MPI_UNDEFINED, 300, &t));
    CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_F90_COMPLEX && ni == 2 && !na && !nd, "f90 complex: %d %d %d %d",
          comb, ni, na, nd);
    CHECK_MPI(MPI_Type_create_f90_integer(5, &t));
    CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_F90_INTEGER && ni == 1 && !na && !nd, "f90 integer: %d %d %d %d",
          comb, ni, na, nd);
#ifndef OPEN_MPI /* Open MPI 4.1's MPI_Type_get_contents crashes on the f90 types */
    {
        int I[] = {6, MPI_UNDEFINED};
        CHECK_MPI(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t));
        check_decode(t, MPI_COMBINER_F90_REAL, 2, I, 0, NULL, 0, NULL, "f90 real");
        int J[] = {MPI_UNDEFINED, 300};
        CHECK_MPI(MPI_Type_create_f90_complex(MPI_UNDEFINED, 300, &t));
        check_decode(t, MPI_COMBINER_F90_COMPLEX, 2, J, 0, NULL, 0, NULL, "f90 complex");
        int K[] = {5};
        CHECK_MPI(MPI_Type_create_f90_integer(5, &t));
        check_decode(t, MPI_COMBINER_F90_INTEGER, 1, K, 0, NULL, 0, NULL, "f90 integer");
        /* built from: comes back as the same (predefined) handle */
        MPI_Datatype v, D[1];
        int I2[] = {3};
        CHECK_MPI(MPI_Type_contiguous(3, t, &v));
        check_decode(v, MPI_COMBINER_CONTIGUOUS, 1, I2, 0, NULL, 1, &t, "contiguous of f90");
        MPI_Aint A[1];
        CHECK_MPI(MPI_Type_get_contents(v, 1, 0, 1, I2, A, D));
        CHECK(D[0] == t, "an f90 type came back as another handle");
        MPI_Type_free(&v);
    }
#endif
}

/* Deeply nested, with the inner types freed by the program before decoding:
 * the decoded handles still describe them, and freeing those handles leaves
 * the outer type whole. */
static void nested(void)
{
    MPI_Datatype sub, idx, didx, st, rst, twice;
    int sizes[] = {5, 7}, subs[] = {3, 2}, starts[] = {1, 3};
    CHECK_MPI(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_FLOAT, &sub));
    int bl[] = {1, 2}, dp[] = {3, 0};
    CHECK_MPI(MPI_Type_indexed(2, bl, dp, MPI_DOUBLE, &idx));
    CHECK_MPI(MPI_Type_dup(idx, &didx));
    int sbl[] = {2, 1, 1};
    MPI_Aint sdp[] = {0, 400, 480};
    MPI_Datatype sts[] = {sub, didx, MPI_LONG_INT};
    CHECK_MPI(MPI_Type_create_struct(3, sbl, sdp, sts, &st));
    CHECK_MPI(MPI_Type_create_resized(st, 4, 512, &rst));
    CHECK_MPI(MPI_Type_contiguous(2, rst, &twice));
    /* a copy to compare with once the parts are gone */
    MPI_Datatype ref = rebuild(twice);
    MPI_Type_free(&sub);
    MPI_Type_free(&idx);
    MPI_Type_free(&didx);
    MPI_Type_free(&st);
    MPI_Type_free(&rst);
    same_map(twice, ref, "nested, its parts freed");
    for (int round = 0; round < 2; round++) { /* decoding twice: the first frees nothing */
        int I[1], ni, na, nd, comb;
        MPI_Aint A[2];
        MPI_Datatype D[1], D1[1], D2[3];
        CHECK_MPI(MPI_Type_get_contents(twice, 1, 0, 1, I, A, D));
        CHECK(I[0] == 2, "nested: count %d", I[0]);
        CHECK_MPI(MPI_Type_get_envelope(D[0], &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_RESIZED && ni == 0 && na == 2 && nd == 1,
              "nested: the resized type decodes as %d %d %d %d", comb, ni, na, nd);
        CHECK_MPI(MPI_Type_get_contents(D[0], 0, 2, 1, I, A, D1));
        CHECK(A[0] == 4 && A[1] == 512, "nested: resized to %ld, %ld", (long)A[0], (long)A[1]);
        CHECK_MPI(MPI_Type_get_envelope(D1[0], &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_STRUCT && ni == 4 && na == 3 && nd == 3,
              "nested: the struct decodes as %d %d %d %d", comb, ni, na, nd);
        int I2[4];
        MPI_Aint A2[3];
        CHECK_MPI(MPI_Type_get_contents(D1[0], 4, 3, 3, I2, A2, D2));
        CHECK(D2[2] == MPI_LONG_INT, "nested: the third member is not MPI_LONG_INT");
        CHECK_MPI(MPI_Type_get_envelope(D2[0], &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 8, "nested: first member combiner %d", comb);
        CHECK_MPI(MPI_Type_get_envelope(D2[1], &ni, &na, &nd, &comb));
        CHECK(comb == MPI_COMBINER_DUP, "nested: second member combiner %d", comb);
        MPI_Type_free(&D2[0]);
        MPI_Type_free(&D2[1]);
        MPI_Type_free(&D1[0]);
        MPI_Type_free(&D[0]);
    }
    same_map(twice, ref, "nested, after decoding");
    /* and it still carries data between ranks */
    CHECK_MPI(MPI_Type_commit(&twice));
    MPI_Aint tlb, text;
    MPI_Type_get_true_extent(twice, &tlb, &text);
    int n = (int)((tlb + text) / (MPI_Aint)sizeof(double)) + 1;
    double *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b);
    for (int i = 0; i < n; i++)
        a[i] = mt_rank * 1000 + i;
    int to = (mt_rank + 1) % mt_size, from = (mt_rank + mt_size - 1) % mt_size;
    CHECK_MPI(MPI_Sendrecv(a, 1, twice, to, 5, b, 1, twice, from, 5, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    int psize, pos = 0;
    MPI_Pack_size(1, twice, MPI_COMM_WORLD, &psize);
    char *pa = malloc((size_t)psize), *pb = malloc((size_t)psize);
    for (int i = 0; i < n; i++)
        a[i] = from * 1000 + i; /* what the sender had */
    MPI_Pack(a, 1, twice, pa, psize, &pos, MPI_COMM_WORLD);
    pos = 0;
    MPI_Pack(b, 1, twice, pb, psize, &pos, MPI_COMM_WORLD);
    CHECK(!memcmp(pa, pb, (size_t)psize), "nested: the message did not carry the type's data");
    free(pa);
    free(pb);
    free(a);
    free(b);
    MPI_Type_free(&twice);
    MPI_Type_free(&ref);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_type_decode");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    named();
    simple();
    arrays();
    fortran_kinds();
    nested();
    return mt_finish();
}
