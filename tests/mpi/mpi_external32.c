/* mpi_external32.c — MPI_Pack_external, MPI_Unpack_external and
 * MPI_Pack_external_size in "external32" (MPI 3.1, 13.5.2): the bytes of
 * predefined and derived types against hand-computed big-endian
 * expectations (the standard's sizes, no padding), round trips back to the
 * same values, packing in pieces through the position, and the packed bytes
 * carried between ranks as MPI_BYTE. */
#include <math.h>
#include <stddef.h>
#include <wchar.h>

#include "mtest.h"

static const char *X32 = "external32";

/* Packs count elements and compares with the expected bytes (and size). */
static void expect(const void *in, int count, MPI_Datatype t, const unsigned char *want,
                   int nwant, const char *what)
{
    unsigned char out[128];
    MPI_Aint size = -1, pos = 0;
    memset(out, 0xee, sizeof out);
    CHECK_MPI(MPI_Pack_external_size(X32, count, t, &size));
    CHECK(size == nwant, "%s: external32 size %ld, the standard says %d", what, (long)size, nwant);
    CHECK_MPI(MPI_Pack_external(X32, in, count, t, out, sizeof out, &pos));
    CHECK(pos == nwant, "%s: position %ld after packing, expected %d", what, (long)pos, nwant);
    if (pos != nwant)
        return;
    for (int i = 0; i < nwant; i++)
        if (out[i] != want[i]) {
            CHECK(0, "%s: byte %d is %02x, expected %02x", what, i, out[i], want[i]);
            return;
        }
    CHECK(out[nwant] == 0xee, "%s: wrote past its %d bytes", what, nwant);
}

/* Packs and unpacks back into zeroed memory of `bytes`: the same bytes. */
static void round_trip(const void *in, int count, MPI_Datatype t, size_t bytes, const char *what)
{
    MPI_Aint size, pos = 0;
    MPI_Pack_external_size(X32, count, t, &size);
    unsigned char *packed = malloc((size_t)size + 1), *back = calloc(1, bytes);
    CHECK_MPI(MPI_Pack_external(X32, in, count, t, packed, size, &pos));
    pos = 0;
    CHECK_MPI(MPI_Unpack_external(X32, packed, size, &pos, back, count, t));
    CHECK(pos == size, "%s: unpacked %ld of %ld bytes", what, (long)pos, (long)size);
    CHECK(!memcmp(in, back, bytes), "%s: did not come back the same", what);
    free(packed);
    free(back);
}

static void predefined(void)
{
    int i4[2] = {0x01020304, -2};
    const unsigned char e_int[] = {1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe};
    expect(i4, 2, MPI_INT, e_int, 8, "MPI_INT");
    short s = -3;
    const unsigned char e_short[] = {0xff, 0xfd};
    expect(&s, 1, MPI_SHORT, e_short, 2, "MPI_SHORT");
    unsigned short us = 0xabcd;
    const unsigned char e_ushort[] = {0xab, 0xcd};
    expect(&us, 1, MPI_UNSIGNED_SHORT, e_ushort, 2, "MPI_UNSIGNED_SHORT");
    long long ll = 0x0102030405060708LL;
    const unsigned char e_ll[] = {1, 2, 3, 4, 5, 6, 7, 8};
    expect(&ll, 1, MPI_LONG_LONG, e_ll, 8, "MPI_LONG_LONG");
    double dd[2] = {1.0, -2.5};
    const unsigned char e_double[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xc0, 0x04, 0, 0, 0, 0, 0, 0};
    expect(dd, 2, MPI_DOUBLE, e_double, 16, "MPI_DOUBLE");
    float f = 1.5f;
    const unsigned char e_float[] = {0x3f, 0xc0, 0, 0};
    expect(&f, 1, MPI_FLOAT, e_float, 4, "MPI_FLOAT");
    char c[3] = {'A', 'b', 0};
    const unsigned char e_char[] = {0x41, 0x62, 0};
    expect(c, 3, MPI_CHAR, e_char, 3, "MPI_CHAR");
    _Bool b = 1;
    const unsigned char e_bool[] = {1};
    expect(&b, 1, MPI_C_BOOL, e_bool, 1, "MPI_C_BOOL");
    float fc[2] = {1.0f, 2.0f}; /* float _Complex 1 + 2i */
    const unsigned char e_fc[] = {0x3f, 0x80, 0, 0, 0x40, 0, 0, 0};
    expect(fc, 1, MPI_C_FLOAT_COMPLEX, e_fc, 8, "MPI_C_FLOAT_COMPLEX");
    MPI_Aint aint = 0x1122334455667788LL;
    const unsigned char e_aint[] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
    expect(&aint, 1, MPI_AINT, e_aint, 8, "MPI_AINT");
    MPI_Offset off = -1;
    const unsigned char e_off[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    expect(&off, 1, MPI_OFFSET, e_off, 8, "MPI_OFFSET");
    /* the pair types: value then int, no padding */
    struct { double v; int i; } di = {1.0, 7};
    const unsigned char e_di[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};
    expect(&di, 1, MPI_DOUBLE_INT, e_di, 12, "MPI_DOUBLE_INT");
    struct { short v; int i; } si = {-1, 5};
    const unsigned char e_si[] = {0xff, 0xff, 0, 0, 0, 5};
    expect(&si, 1, MPI_SHORT_INT, e_si, 6, "MPI_SHORT_INT");
    int ii[2] = {1, 2};
    const unsigned char e_ii[] = {0, 0, 0, 1, 0, 0, 0, 2};
    expect(ii, 1, MPI_2INT, e_ii, 8, "MPI_2INT");
    struct { float v; int i; } fi = {-1.0f, 3};
    const unsigned char e_fi[] = {0xbf, 0x80, 0, 0, 0, 0, 0, 3};
    expect(&fi, 1, MPI_FLOAT_INT, e_fi, 8, "MPI_FLOAT_INT");
    int fint = 9;
    const unsigned char e_fint[] = {0, 0, 0, 9};
    expect(&fint, 1, MPI_INTEGER, e_fint, 4, "MPI_INTEGER");
}

/* Where table 13.2 and the machine's C types differ: Open MPI 4.1 keeps the
 * machine's sizes and formats for these (8-byte long, 4-byte wchar_t, x87
 * long double), so they are checked on other MPIs only. */
static void standard_sizes(void)
{
#ifndef OPEN_MPI
    long l[2] = {-5, 0x12345678};
    const unsigned char e_long[] = {0xff, 0xff, 0xff, 0xfb, 0x12, 0x34, 0x56, 0x78};
    expect(l, 2, MPI_LONG, e_long, 8, "MPI_LONG (4 bytes)");
    unsigned long ul = 0x89abcdefUL;
    const unsigned char e_ulong[] = {0x89, 0xab, 0xcd, 0xef};
    expect(&ul, 1, MPI_UNSIGNED_LONG, e_ulong, 4, "MPI_UNSIGNED_LONG (4 bytes)");
    wchar_t w[2] = {L'A', 0xe9};
    const unsigned char e_wchar[] = {0, 0x41, 0, 0xe9};
    expect(w, 2, MPI_WCHAR, e_wchar, 4, "MPI_WCHAR (2 bytes)");
    long double ld[2] = {1.0L, -2.5L};
    unsigned char e_ld[32] = {0x3f, 0xff};
    e_ld[16] = 0xc0, e_ld[17] = 0x00, e_ld[18] = 0x40;
    expect(ld, 2, MPI_LONG_DOUBLE, e_ld, 32, "MPI_LONG_DOUBLE (IEEE binary128)");
    struct { long v; int i; } li;
    memset(&li, 0, sizeof li); /* the padding too: round_trip compares every byte */
    li.v = -5;
    li.i = 9;
    const unsigned char e_li[] = {0xff, 0xff, 0xff, 0xfb, 0, 0, 0, 9};
    expect(&li, 1, MPI_LONG_INT, e_li, 8, "MPI_LONG_INT");
    /* back: sign extended, zero extended */
    round_trip(l, 2, MPI_LONG, sizeof l, "MPI_LONG");
    round_trip(&ul, 1, MPI_UNSIGNED_LONG, sizeof ul, "MPI_UNSIGNED_LONG");
    round_trip(w, 2, MPI_WCHAR, sizeof w, "MPI_WCHAR");
    round_trip(&li, 1, MPI_LONG_INT, sizeof li, "MPI_LONG_INT");
    /* long double values through binary128 and back */
    long double v[6] = {1.0L / 3, -0.0L, INFINITY, -1e-300L, 12345.6789e100L, NAN}, back[6];
    MPI_Aint size, pos = 0;
    unsigned char packed[96];
    MPI_Pack_external_size(X32, 6, MPI_LONG_DOUBLE, &size);
    CHECK(size == 96, "6 long doubles: %ld bytes", (long)size);
    CHECK_MPI(MPI_Pack_external(X32, v, 6, MPI_LONG_DOUBLE, packed, sizeof packed, &pos));
    pos = 0;
    CHECK_MPI(MPI_Unpack_external(X32, packed, sizeof packed, &pos, back, 6, MPI_LONG_DOUBLE));
    for (int i = 0; i < 5; i++)
        CHECK(back[i] == v[i] && signbit(back[i]) == signbit(v[i]),
              "long double %d: %Lg came back as %Lg", i, v[i], back[i]);
    CHECK(isnan(back[5]), "NaN came back as %Lg", back[5]);
    /* 1/3: exponent 0x3ffd, then the fraction 0101... */
    CHECK(packed[0] == 0x3f && packed[1] == 0xfd && packed[2] == 0x55 && packed[3] == 0x55,
          "1/3 as binary128 starts %02x %02x %02x %02x", packed[0], packed[1], packed[2],
          packed[3]);
#endif
}

struct rec {
    char c;
    double d;
    int i[2];
};

static void derived(void)
{
    /* a struct with padding: its data only, 1 + 8 + 8 bytes */
    MPI_Datatype st, vec;
    int bl[3] = {1, 1, 2};
    MPI_Aint dp[3] = {offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i)};
    MPI_Datatype ts[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    CHECK_MPI(MPI_Type_create_struct(3, bl, dp, ts, &st));
    CHECK_MPI(MPI_Type_commit(&st));
    struct rec r[2];
    memset(r, 0, sizeof r);
    r[0].c = 'x', r[0].d = 1.0, r[0].i[0] = 1, r[0].i[1] = -1;
    r[1].c = 'y', r[1].d = -2.5, r[1].i[0] = 256, r[1].i[1] = 2;
    const unsigned char e_rec[34] = {
        'x', 0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff,
        'y', 0xc0, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2};
    expect(r, 2, st, e_rec, 34, "struct {char; double; int[2]}");
    round_trip(r, 2, st, sizeof r, "struct {char; double; int[2]}");
    /* a vector with holes: the holes are not packed, and stay untouched */
    int a[6] = {10, -1, 20, -1, 30, -1};
    CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    const unsigned char e_vec[] = {0, 0, 0, 10, 0, 0, 0, 20, 0, 0, 0, 30};
    expect(a, 1, vec, e_vec, 12, "vector of ints");
    /* in pieces: two calls one after the other, then unpacked in one */
    unsigned char buf[64];
    MPI_Aint pos = 0;
    CHECK_MPI(MPI_Pack_external(X32, a, 1, vec, buf, sizeof buf, &pos));
    CHECK_MPI(MPI_Pack_external(X32, &r[1], 1, st, buf, sizeof buf, &pos));
    CHECK(pos == 12 + 17, "two pieces end at %ld", (long)pos);
    int a2[6] = {0};
    struct rec r2;
    memset(&r2, 0, sizeof r2);
    MPI_Aint upos = 0;
    CHECK_MPI(MPI_Unpack_external(X32, buf, pos, &upos, a2, 1, vec));
    CHECK_MPI(MPI_Unpack_external(X32, buf, pos, &upos, &r2, 1, st));
    CHECK(upos == pos && a2[0] == 10 && a2[1] == 0 && a2[2] == 20 && a2[4] == 30 &&
              r2.c == 'y' && r2.d == -2.5 && r2.i[0] == 256 && r2.i[1] == 2,
          "unpacking the pieces: position %ld, %d %d %d, '%c' %g %d %d", (long)upos, a2[0],
          a2[2], a2[4], r2.c, r2.d, r2.i[0], r2.i[1]);
    /* too small a buffer */
    pos = 0;
    CHECK(MPI_Pack_external(X32, r, 2, st, buf, 20, &pos) != MPI_SUCCESS,
          "34 bytes packed into 20");
    /* between ranks: external32 bytes travel as MPI_BYTE */
    int to = (mt_rank + 1) % mt_size, from = (mt_rank + mt_size - 1) % mt_size;
    struct rec mine = {(char)('a' + mt_rank), mt_rank + 0.25, {mt_rank, -mt_rank}}, theirs;
    unsigned char out[17], in[17];
    pos = 0;
    CHECK_MPI(MPI_Pack_external(X32, &mine, 1, st, out, sizeof out, &pos));
    CHECK_MPI(MPI_Sendrecv(out, 17, MPI_BYTE, to, 3, in, 17, MPI_BYTE, from, 3, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    pos = 0;
    CHECK_MPI(MPI_Unpack_external(X32, in, sizeof in, &pos, &theirs, 1, st));
    CHECK(theirs.c == 'a' + from && theirs.d == from + 0.25 && theirs.i[0] == from &&
              theirs.i[1] == -from,
          "from rank %d: '%c' %g %d %d", from, theirs.c, theirs.d, theirs.i[0], theirs.i[1]);
    MPI_Type_free(&st);
    MPI_Type_free(&vec);
}

static void errors(void)
{
#ifdef BOLT_MPI /* other MPIs take any name as external32 */
    int x = 1, cls = -1;
    unsigned char buf[8];
    MPI_Aint pos = 0, size;
    MPI_Error_class(MPI_Pack_external("native", &x, 1, MPI_INT, buf, sizeof buf, &pos), &cls);
    CHECK(cls == MPI_ERR_ARG, "datarep \"native\": class %d", cls);
    MPI_Error_class(MPI_Pack_external_size("external64", 1, MPI_INT, &size), &cls);
    CHECK(cls == MPI_ERR_ARG, "datarep \"external64\": class %d", cls);
    MPI_Error_class(MPI_Unpack_external("EXTERNAL32", buf, 4, &pos, &x, 1, MPI_INT), &cls);
    CHECK(cls == MPI_ERR_ARG, "datarep \"EXTERNAL32\": class %d", cls);
    pos = 0;
    MPI_Error_class(MPI_Pack_external(X32, &x, 3, MPI_INT, buf, sizeof buf, &pos), &cls);
    CHECK(cls == MPI_ERR_TRUNCATE && pos == 0, "12 bytes into 8: class %d", cls);
    /* user data representations belong to MPI-IO, which Bolt does not have */
    MPI_Error_class(MPI_Register_datarep("mine", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                         NULL, NULL),
                    &cls);
    CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Register_datarep: class %d", cls);
#endif
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_external32");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    predefined();
    standard_sizes();
    derived();
    errors();
    return mt_finish();
}
