/* dtype_f90.c — datatypes for Fortran's parameterized kinds (MPI 3.1,
 * 17.1.9): MPI_Type_create_f90_integer/real/complex pick the kind gfortran's
 * SELECTED_INT_KIND / SELECTED_REAL_KIND would, and MPI_Type_match_size
 * the named type of a size. Bolt has the kinds of 1 to 8 byte integers and
 * 4 and 8 byte reals (MPI_INTEGER16 and MPI_REAL16 are MPI_DATATYPE_NULL);
 * asking for more precision or range is MPI_ERR_ARG.
 *
 * An f90 type is predefined (it cannot be freed) but not named: its
 * envelope is MPI_COMBINER_F90_xxx with the (p, r) asked for. Two calls with
 * the same arguments give the same handle, as the standard's matching rule
 * wants (types match when their p and r are the same).
 */
#include <string.h>

#include "mpi/dtype.h"

/* The f90 type made for (combiner, p, r) before, if any. */
static MPI_Datatype f90_find(int combiner, int p, int r)
{
    for (int i = BOLT_MPI_N_PREDEFINED_TYPES; i < face_ntypes; i++) {
        const struct face_type *t = face_types[i];
        if (t && t->predefined && t->combiner == combiner &&
            (combiner == MPI_COMBINER_F90_INTEGER ? t->contents->ints[0] == r
                                                   : t->contents->ints[0] == p &&
                                                         t->contents->ints[1] == r))
            return i;
    }
    return MPI_DATATYPE_NULL;
}

static int f90_type(const char *fn, int combiner, int p, int r, MPI_Datatype match,
                    MPI_Datatype *newtype)
{
    if ((*newtype = f90_find(combiner, p, r)) != MPI_DATATYPE_NULL)
        return MPI_SUCCESS;
    int integer = combiner == MPI_COMBINER_F90_INTEGER;
    struct face_contents *c = face_contents_new(integer ? 1 : 2, 0, 0);
    MPI_Datatype h;
    if (!c || face_type_clone(match, &h)) {
        face_contents_free(c);
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    if (integer) {
        c->ints[0] = r;
    } else {
        c->ints[0] = p;
        c->ints[1] = r;
    }
    struct face_type *t = face_types[h];
    t->combiner = combiner;
    t->contents = c;
    t->predefined = t->committed = 1;
    *newtype = h;
    return MPI_SUCCESS;
}

/* MPI_UNDEFINED (or any negative value) asks for nothing: 0 does as well. */
static int wanted(int v)
{
    return v < 0 ? 0 : v;
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_f90_integer";
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    if (!newtype)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "newtype pointer is NULL");
    int w = wanted(r);
    MPI_Datatype match = w <= 2 ? MPI_INTEGER1 : w <= 4 ? MPI_INTEGER2 : w <= 9 ? MPI_INTEGER4
                       : w <= 18 ? MPI_INTEGER8 : MPI_DATATYPE_NULL;
    if (match == MPI_DATATYPE_NULL)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          "no integer kind has a range of 10^%d: Bolt's largest, MPI_INTEGER8, "
                          "has 10^18",
                          r);
    return f90_type(fn, MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, match, newtype);
}

/* The real kind of precision p and range r: 4 or 8 bytes, or 0 for none. */
static int real_kind(const char *fn, int p, int r, int *bytes)
{
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          "p and r are both MPI_UNDEFINED: one of them is needed");
    int wp = wanted(p), wr = wanted(r);
    *bytes = wp <= 6 && wr <= 37 ? 4 : wp <= 15 && wr <= 307 ? 8 : 0;
    if (!*bytes)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          "no real kind has %d decimal digits and a range of 10^%d: Bolt's "
                          "largest (8 bytes) has 15 and 10^307",
                          p, r);
    return MPI_SUCCESS;
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_f90_real";
    int bytes = 0, rc = face_check_init(fn);
    if (rc)
        return rc;
    if (!newtype)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "newtype pointer is NULL");
    if ((rc = real_kind(fn, p, r, &bytes)))
        return rc;
    return f90_type(fn, MPI_COMBINER_F90_REAL, p, r, bytes == 4 ? MPI_REAL4 : MPI_REAL8, newtype);
}

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_f90_complex";
    int bytes = 0, rc = face_check_init(fn);
    if (rc)
        return rc;
    if (!newtype)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "newtype pointer is NULL");
    if ((rc = real_kind(fn, p, r, &bytes)))
        return rc;
    return f90_type(fn, MPI_COMBINER_F90_COMPLEX, p, r,
                    bytes == 4 ? MPI_COMPLEX8 : MPI_COMPLEX16, newtype);
}

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    const char *fn = "MPI_Type_match_size";
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    if (!datatype)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "datatype pointer is NULL");
    MPI_Datatype t = MPI_DATATYPE_NULL;
    const char *what = NULL;
    switch (typeclass) {
    case MPI_TYPECLASS_INTEGER:
        what = "integer";
        t = size == 1 ? MPI_INTEGER1 : size == 2 ? MPI_INTEGER2 : size == 4 ? MPI_INTEGER
          : size == 8 ? MPI_INTEGER8 : MPI_DATATYPE_NULL;
        break;
    case MPI_TYPECLASS_REAL:
        what = "real";
        t = size == 4 ? MPI_REAL : size == 8 ? MPI_DOUBLE_PRECISION : MPI_DATATYPE_NULL;
        break;
    case MPI_TYPECLASS_COMPLEX:
        what = "complex";
        t = size == 8 ? MPI_COMPLEX : size == 16 ? MPI_DOUBLE_COMPLEX : MPI_DATATYPE_NULL;
        break;
    default:
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          "typeclass %d is not MPI_TYPECLASS_INTEGER, _REAL or _COMPLEX",
                          typeclass);
    }
    if (t == MPI_DATATYPE_NULL)
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                          "no %s type has %d bytes (integers have 1, 2, 4 or 8, reals 4 or 8, "
                          "complex 8 or 16)",
                          what, size);
    *datatype = t;
    return MPI_SUCCESS;
}
