/* mpi_dtype.c — derived datatypes: bounds as MPI defines them, packing,
 * and typed messages between ranks (non-contiguous on both ends, negative
 * displacements, resized types, subarrays, pair types). */
#include <stddef.h>

#include "mtest.h"

struct particle {
    double pos[3];
    char kind;
    int id;
};

static void bounds(void)
{
    MPI_Datatype v, r, s;
    MPI_Aint lb, ext, tlb, text;
    int size;
    /* vector: 3 blocks of 2 ints, stride 4 ints */
    CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &v));
    MPI_Type_size(v, &size);
    MPI_Type_get_extent(v, &lb, &ext);
    CHECK(size == 6 * (int)sizeof(int), "vector size %d", size);
    CHECK(lb == 0 && ext == 10 * (MPI_Aint)sizeof(int), "vector lb %ld extent %ld", (long)lb, (long)ext);
    /* resized to a stride of 1 int: interleaving */
    CHECK_MPI(MPI_Type_create_resized(v, 0, sizeof(int), &r));
    MPI_Type_get_extent(r, &lb, &ext);
    MPI_Type_get_true_extent(r, &tlb, &text);
    CHECK(ext == sizeof(int) && text == 10 * (MPI_Aint)sizeof(int), "resized extent %ld true %ld",
          (long)ext, (long)text);
    /* struct with padding, as the C compiler lays it out */
    int bl[3] = {3, 1, 1};
    MPI_Aint d[3] = {offsetof(struct particle, pos), offsetof(struct particle, kind),
                     offsetof(struct particle, id)};
    MPI_Datatype ts[3] = {MPI_DOUBLE, MPI_CHAR, MPI_INT};
    CHECK_MPI(MPI_Type_create_struct(3, bl, d, ts, &s));
    MPI_Type_get_extent(s, &lb, &ext);
    MPI_Type_size(s, &size);
    CHECK(ext == sizeof(struct particle), "struct extent %ld, C says %zu", (long)ext,
          sizeof(struct particle));
    CHECK(size == 3 * 8 + 1 + 4, "struct size %d", size);
    /* negative displacement */
    MPI_Datatype n;
    int nbl[2] = {1, 1};
    int nd[2] = {-2, 3};
    CHECK_MPI(MPI_Type_indexed(2, nbl, nd, MPI_DOUBLE, &n));
    MPI_Type_get_extent(n, &lb, &ext);
    CHECK(lb == -2 * 8 && ext == 6 * 8, "negative indexed lb %ld extent %ld", (long)lb, (long)ext);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Type_set_name(n, "neg");
    MPI_Type_get_name(n, name, &len);
    CHECK(!strcmp(name, "neg") && len == 3, "type name '%s'", name);
    MPI_Type_get_name(MPI_DOUBLE, name, &len);
    CHECK(!strcmp(name, "MPI_DOUBLE"), "predefined name '%s'", name);
    MPI_Type_free(&v);
    MPI_Type_free(&r);
    MPI_Type_free(&s);
    MPI_Type_free(&n);
    CHECK(n == MPI_DATATYPE_NULL, "free did not null the handle");
}

/* A column of a row-major matrix goes to the neighbour, which stores it as a row. */
static void column_to_row(void)
{
    enum { R = 50, C = 37 };
    static double m[R][C], row[R];
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            m[i][j] = mt_rank * 1e6 + i * 1000 + j;
    MPI_Datatype col;
    CHECK_MPI(MPI_Type_vector(R, 1, C, MPI_DOUBLE, &col));
    CHECK_MPI(MPI_Type_commit(&col));
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(&m[0][5], 1, col, right, 1, row, R, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &st));
    int ok = 1;
    for (int i = 0; i < R; i++)
        ok &= row[i] == left * 1e6 + i * 1000 + 5;
    CHECK(ok, "column received as a row is wrong");
    int count, elems;
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(count == R, "count %d", count);
    /* and back: row into a column, with Irecv on the typed side */
    static double m2[R][C];
    memset(m2, 0, sizeof m2);
    MPI_Request rq;
    CHECK_MPI(MPI_Irecv(&m2[0][2], 1, col, left, 2, MPI_COMM_WORLD, &rq));
    for (int i = 0; i < R; i++)
        row[i] = mt_rank + i;
    CHECK_MPI(MPI_Send(row, R, MPI_DOUBLE, right, 2, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&rq, &st));
    ok = 1;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            ok &= m2[i][j] == (j == 2 ? left + i : 0);
    CHECK(ok, "row received into a column is wrong");
    MPI_Get_elements(&st, col, &elems);
    CHECK(elems == R, "elements %d", elems);
    MPI_Get_count(&st, col, &count);
    CHECK(count == 1, "count in columns %d", count);
    MPI_Type_free(&col);
}

static void structs_and_pairs(void)
{
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    struct particle out[4] = {0}, in[4];
    int bl[3] = {3, 1, 1};
    MPI_Aint base, d[3];
    MPI_Get_address(&out[0], &base);
    MPI_Get_address(&out[0].pos, &d[0]);
    MPI_Get_address(&out[0].kind, &d[1]);
    MPI_Get_address(&out[0].id, &d[2]);
    for (int i = 0; i < 3; i++)
        d[i] = MPI_Aint_diff(d[i], base);
    MPI_Datatype ts[3] = {MPI_DOUBLE, MPI_CHAR, MPI_INT}, pt;
    CHECK_MPI(MPI_Type_create_struct(3, bl, d, ts, &pt));
    CHECK_MPI(MPI_Type_commit(&pt));
    for (int i = 0; i < 4; i++) {
        out[i].pos[0] = mt_rank + i;
        out[i].pos[1] = -i;
        out[i].pos[2] = 0.25 * i;
        out[i].kind = (char)('a' + i);
        out[i].id = mt_rank * 10 + i;
    }
    memset(in, 0, sizeof in);
    CHECK_MPI(MPI_Sendrecv(out, 4, pt, right, 3, in, 4, pt, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; i++)
        CHECK(in[i].pos[0] == left + i && in[i].pos[1] == -i && in[i].kind == 'a' + i &&
                  in[i].id == left * 10 + i,
              "particle %d wrong", i);
    MPI_Type_free(&pt);
    struct { double v; int i; } p = {mt_rank * 1.5, mt_rank}, q = {0, -1};
    CHECK_MPI(MPI_Sendrecv(&p, 1, MPI_DOUBLE_INT, right, 4, &q, 1, MPI_DOUBLE_INT, left, 4,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(q.v == left * 1.5 && q.i == left, "double_int pair %g %d", q.v, q.i);
}

static void subarray_and_pack(void)
{
    enum { X = 6, Y = 5 };
    int full[X][Y], back[X][Y];
    int sizes[2] = {X, Y}, sub[2] = {3, 2}, starts[2] = {2, 1};
    for (int i = 0; i < X; i++)
        for (int j = 0; j < Y; j++)
            full[i][j] = i * 10 + j;
    MPI_Datatype sa;
    CHECK_MPI(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &sa));
    CHECK_MPI(MPI_Type_commit(&sa));
    MPI_Aint lb, ext;
    MPI_Type_get_extent(sa, &lb, &ext);
    CHECK(lb == 0 && ext == (MPI_Aint)sizeof full, "subarray extent %ld", (long)ext);
    char packed[256];
    int pos = 0, psize;
    MPI_Pack_size(1, sa, MPI_COMM_WORLD, &psize);
    CHECK(psize == 6 * (int)sizeof(int), "pack size %d", psize);
    CHECK_MPI(MPI_Pack(full, 1, sa, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(pos == psize, "pack position %d", pos);
    int *pi = (int *)packed;
    CHECK(pi[0] == 21 && pi[1] == 22 && pi[2] == 31 && pi[5] == 42, "packed %d %d %d %d", pi[0],
          pi[1], pi[2], pi[5]);
    memset(back, 0, sizeof back);
    pos = 0;
    CHECK_MPI(MPI_Unpack(packed, sizeof packed, &pos, back, 1, sa, MPI_COMM_WORLD));
    CHECK(back[2][1] == 21 && back[4][2] == 42 && back[0][0] == 0 && back[2][3] == 0,
          "unpack placed data wrongly");
    /* Fortran order: the first index runs fastest. */
    MPI_Datatype fa;
    int fsizes[2] = {Y, X}, fsub[2] = {2, 3}, fstarts[2] = {1, 2};
    CHECK_MPI(MPI_Type_create_subarray(2, fsizes, fsub, fstarts, MPI_ORDER_FORTRAN, MPI_INT, &fa));
    CHECK_MPI(MPI_Type_commit(&fa));
    pos = 0;
    char packed2[256];
    CHECK_MPI(MPI_Pack(full, 1, fa, packed2, sizeof packed2, &pos, MPI_COMM_WORLD));
    CHECK(!memcmp(packed, packed2, (size_t)pos), "Fortran-order subarray differs from C order");
    MPI_Type_free(&sa);
    MPI_Type_free(&fa);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_dtype");
    bounds();
    column_to_row();
    structs_and_pairs();
    subarray_and_pack();
    return mt_finish();
}
