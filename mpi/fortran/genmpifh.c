/*
 * genmpifh.c - writes the Fortran side of mpi.h's constants, run at build
 * time (genmpifh.sh): every object-like MPI_ macro of mpi.h with an integer
 * value becomes a PARAMETER of the same value, as the C compiler evaluates
 * it, so mpif.h and mpi.h cannot drift. genmpifh.inc (from the
 * preprocessor's list of macros) names them: P(MPI_X) each.
 *
 *   genmpifh consts   the constants and sentinels (mpif-consts.h: the mpi
 *                     module includes it)
 *   genmpifh mpif     the same and the declarations of MPI's Fortran
 *                     functions and predefined callbacks (mpif.h)
 *
 * The text is both fixed and free form: statements from column 7 and
 * shorter than 73 columns, comments with '!' in column 1.
 */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"

enum { SKIP, INT4, INT8 };
/* The kind of a macro's value: pointers (MPI_BOTTOM, the null callbacks)
 * are SKIP; Fortran has its own sentinels for those. */
#define KIND(x) _Generic((x), _Bool: INT4, char: INT4, signed char: INT4, unsigned char: INT4, \
                         short: INT4, unsigned short: INT4, int: INT4, unsigned: INT4,          \
                         long: INT8, unsigned long: INT8, long long: INT8,                      \
                         unsigned long long: INT8, default: SKIP)

_Static_assert(sizeof(MPI_Fint) == 4 && sizeof(MPI_Comm) == sizeof(MPI_Fint),
               "Fortran INTEGER handles are C ints");
_Static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0,
               "a Fortran status is the C status's bytes as INTEGERs");

static int failed;

static void line(const char *s)
{
    if (strlen(s) > 72 - 6) {
        fprintf(stderr, "genmpifh: a line of mpif.h would pass column 72: %s\n", s);
        failed = 1;
    }
    printf("      %s\n", s);
}

static void param(const char *name, const char *type, const char *value)
{
    char buf[160];
    snprintf(buf, sizeof buf, "%s %s", type, name);
    line(buf);
    snprintf(buf, sizeof buf, "PARAMETER (%s=%s)", name, value);
    line(buf);
}

/* A constant of C's value v: default INTEGER when it fits, else the
 * 8-byte kind that C's type has (MPI_ADDRESS_KIND for long, that is
 * MPI_Aint; MPI_OFFSET_KIND otherwise). */
static void put(const char *name, int kind, long long v, int is_long)
{
    char val[64];
    if (kind == SKIP)
        return;
    /* MPI_DISPLACEMENT_CURRENT is an MPI_Offset in Fortran (File_set_view's disp). */
    if (!strcmp(name, "MPI_DISPLACEMENT_CURRENT"))
        kind = INT8, is_long = 0;
    if (kind == INT4 && (v < INT_MIN || v > INT_MAX))
        kind = INT8;
    if (v == LLONG_MIN || (kind == INT4 && v == INT_MIN))
        snprintf(val, sizeof val, "(%lld-1)", v + 1); /* -2**31 is no literal */
    else
        snprintf(val, sizeof val, "%lld", v);
    if (kind == INT8) {
        const char *k = is_long ? "MPI_ADDRESS_KIND" : "MPI_OFFSET_KIND";
        char type[40];
        snprintf(type, sizeof type, "INTEGER(KIND=%s)", k);
        strcat(val, "_");
        strcat(val, k);
        param(name, type, val);
    } else {
        param(name, "INTEGER", val);
    }
}

#define IS_LONG(x) _Generic((x), long: 1, unsigned long: 1, default: 0)
#define P(n) put(#n, KIND(n), KIND(n) == SKIP ? 0 : (long long)(n), IS_LONG(n));

static void num(const char *name, long long v)
{
    char val[32];
    snprintf(val, sizeof val, "%lld", v);
    param(name, "INTEGER", val);
}

/* A sentinel: a variable in a common block of its own, whose address
 * libmpifort recognises (fortran.h's f_sent). */
static void sentinel(const char *name, const char *type, const char *dims)
{
    char buf[160];
    snprintf(buf, sizeof buf, "%s %s%s", type, name, dims);
    line(buf);
    snprintf(buf, sizeof buf, "COMMON /BOLT_%s/ %s", name, name);
    line(buf);
}

static void constants(void)
{
    printf("! Kinds (gfortran's kinds are sizes in bytes).\n");
    num("MPI_ADDRESS_KIND", sizeof(MPI_Aint));
    num("MPI_OFFSET_KIND", sizeof(MPI_Offset));
    num("MPI_COUNT_KIND", sizeof(MPI_Count));
    num("MPI_INTEGER_KIND", sizeof(MPI_Fint));
    printf("! A status is an INTEGER array of MPI_STATUS_SIZE: C's MPI_Status\n"
           "! word by word; MPI_SOURCE, MPI_TAG and MPI_ERROR index it.\n");
    num("MPI_STATUS_SIZE", sizeof(MPI_Status) / sizeof(MPI_Fint));
    num("MPI_SOURCE", offsetof(MPI_Status, MPI_SOURCE) / sizeof(MPI_Fint) + 1);
    num("MPI_TAG", offsetof(MPI_Status, MPI_TAG) / sizeof(MPI_Fint) + 1);
    num("MPI_ERROR", offsetof(MPI_Status, MPI_ERROR) / sizeof(MPI_Fint) + 1);
    printf("! Fortran support (MPI 3.1 section 17.1.3): no subarrays as\n"
           "! buffers, no ASYNCHRONOUS protection of nonblocking buffers.\n");
    line("LOGICAL MPI_SUBARRAYS_SUPPORTED");
    line("PARAMETER (MPI_SUBARRAYS_SUPPORTED=.FALSE.)");
    line("LOGICAL MPI_ASYNC_PROTECTS_NONBLOCKING");
    line("PARAMETER (MPI_ASYNC_PROTECTS_NONBLOCKING=.FALSE.)");
    printf("! mpi.h's integer constants, with C's values.\n");
#include "genmpifh.inc"
    printf("! Sentinels: libmpifort knows them by their addresses.\n");
    sentinel("MPI_BOTTOM", "INTEGER", "");
    sentinel("MPI_IN_PLACE", "INTEGER", "");
    sentinel("MPI_STATUS_IGNORE", "INTEGER", "(MPI_STATUS_SIZE)");
    sentinel("MPI_STATUSES_IGNORE", "INTEGER", "(MPI_STATUS_SIZE,1)");
    sentinel("MPI_ERRCODES_IGNORE", "INTEGER", "(1)");
    sentinel("MPI_UNWEIGHTED", "INTEGER", "(1)");
    sentinel("MPI_WEIGHTS_EMPTY", "INTEGER", "(1)");
    sentinel("MPI_ARGV_NULL", "CHARACTER*1", "(1)");
    sentinel("MPI_ARGVS_NULL", "CHARACTER*1", "(1,1)");
}

/* What mpif.h adds to the constants (the mpi module has interfaces instead). */
static void declarations(void)
{
    static const char *callbacks[] = {
        "MPI_COMM_NULL_COPY_FN", "MPI_COMM_NULL_DELETE_FN", "MPI_COMM_DUP_FN",
        "MPI_TYPE_NULL_COPY_FN", "MPI_TYPE_NULL_DELETE_FN", "MPI_TYPE_DUP_FN",
        "MPI_WIN_NULL_COPY_FN",  "MPI_WIN_NULL_DELETE_FN",  "MPI_WIN_DUP_FN",
        "MPI_NULL_COPY_FN",      "MPI_NULL_DELETE_FN",      "MPI_DUP_FN",
        "MPI_CONVERSION_FN_NULL",
    };
    char buf[80];
    printf("! The predefined attribute callbacks, and MPI's functions.\n");
    for (size_t i = 0; i < sizeof callbacks / sizeof *callbacks; i++) {
        snprintf(buf, sizeof buf, "EXTERNAL %s", callbacks[i]);
        line(buf);
    }
    line("DOUBLE PRECISION MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK");
    line("EXTERNAL MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK");
    line("INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_ADD, MPI_AINT_DIFF");
    line("INTEGER(KIND=MPI_ADDRESS_KIND) PMPI_AINT_ADD, PMPI_AINT_DIFF");
    line("EXTERNAL MPI_AINT_ADD, MPI_AINT_DIFF, PMPI_AINT_ADD");
    line("EXTERNAL PMPI_AINT_DIFF");
}

int main(int argc, char **argv)
{
    int mpif = argc == 2 && !strcmp(argv[1], "mpif");
    if (argc != 2 || (!mpif && strcmp(argv[1], "consts"))) {
        fprintf(stderr, "usage: genmpifh consts|mpif\n");
        return 2;
    }
    printf("! %s - Bolt's MPI %d.%d constants for Fortran, generated from mpi.h\n"
           "! at build time by mpi/fortran/genmpifh.c: do not edit.\n",
           mpif ? "mpif.h" : "mpif-consts.h", MPI_VERSION, MPI_SUBVERSION);
    constants();
    if (mpif)
        declarations();
    return failed;
}
