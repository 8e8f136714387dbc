/* dtype.c — MPI datatypes: the predefined ones and the handle table.
 *
 * Every type is kept flattened: the list of contiguous byte blocks of one
 * element (its typemap with adjacent pieces merged), its bounds, and the one
 * predefined type it is made of when there is one (reductions need it).
 * Constructors are in dtype_create.c; packing in pack.c.
 */
#include <complex.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "mpi/dtype.h"

struct face_type **face_types;
int face_ntypes;
static int cap_types;

#define PAIR(T) struct { T v; int i; }
typedef PAIR(float) pair_float_int;
typedef PAIR(double) pair_double_int;
typedef PAIR(long) pair_long_int;
typedef PAIR(int) pair_2int;
typedef PAIR(short) pair_short_int;
typedef PAIR(long double) pair_long_double_int;
/* Fortran's pairs: the index is stored as a value of the type. */
typedef struct { float v, i; } pair_2real;
typedef struct { double v, i; } pair_2double;
typedef struct { int v, i; } pair_2integer;

struct predef {
    const char *name;
    size_t size, align;
};

#define P(T) sizeof(T), _Alignof(T)
static const struct predef predefs[BOLT_MPI_N_PREDEFINED_TYPES] = {
    [MPI_CHAR] = {"MPI_CHAR", P(char)},
    [MPI_SIGNED_CHAR] = {"MPI_SIGNED_CHAR", P(signed char)},
    [MPI_UNSIGNED_CHAR] = {"MPI_UNSIGNED_CHAR", P(unsigned char)},
    [MPI_BYTE] = {"MPI_BYTE", 1, 1},
    [MPI_SHORT] = {"MPI_SHORT", P(short)},
    [MPI_UNSIGNED_SHORT] = {"MPI_UNSIGNED_SHORT", P(unsigned short)},
    [MPI_INT] = {"MPI_INT", P(int)},
    [MPI_UNSIGNED] = {"MPI_UNSIGNED", P(unsigned)},
    [MPI_LONG] = {"MPI_LONG", P(long)},
    [MPI_UNSIGNED_LONG] = {"MPI_UNSIGNED_LONG", P(unsigned long)},
    [MPI_LONG_LONG_INT] = {"MPI_LONG_LONG_INT", P(long long)},
    [MPI_UNSIGNED_LONG_LONG] = {"MPI_UNSIGNED_LONG_LONG", P(unsigned long long)},
    [MPI_FLOAT] = {"MPI_FLOAT", P(float)},
    [MPI_DOUBLE] = {"MPI_DOUBLE", P(double)},
    [MPI_LONG_DOUBLE] = {"MPI_LONG_DOUBLE", P(long double)},
    [MPI_WCHAR] = {"MPI_WCHAR", P(wchar_t)},
    [MPI_C_BOOL] = {"MPI_C_BOOL", P(_Bool)},
    [MPI_INT8_T] = {"MPI_INT8_T", P(int8_t)},
    [MPI_INT16_T] = {"MPI_INT16_T", P(int16_t)},
    [MPI_INT32_T] = {"MPI_INT32_T", P(int32_t)},
    [MPI_INT64_T] = {"MPI_INT64_T", P(int64_t)},
    [MPI_UINT8_T] = {"MPI_UINT8_T", P(uint8_t)},
    [MPI_UINT16_T] = {"MPI_UINT16_T", P(uint16_t)},
    [MPI_UINT32_T] = {"MPI_UINT32_T", P(uint32_t)},
    [MPI_UINT64_T] = {"MPI_UINT64_T", P(uint64_t)},
    [MPI_AINT] = {"MPI_AINT", P(MPI_Aint)},
    [MPI_OFFSET] = {"MPI_OFFSET", P(MPI_Offset)},
    [MPI_COUNT] = {"MPI_COUNT", P(MPI_Count)},
    [MPI_C_FLOAT_COMPLEX] = {"MPI_C_FLOAT_COMPLEX", P(float _Complex)},
    [MPI_C_DOUBLE_COMPLEX] = {"MPI_C_DOUBLE_COMPLEX", P(double _Complex)},
    [MPI_C_LONG_DOUBLE_COMPLEX] = {"MPI_C_LONG_DOUBLE_COMPLEX", P(long double _Complex)},
    [MPI_PACKED] = {"MPI_PACKED", 1, 1},
    [MPI_FLOAT_INT] = {"MPI_FLOAT_INT", P(pair_float_int)},
    [MPI_DOUBLE_INT] = {"MPI_DOUBLE_INT", P(pair_double_int)},
    [MPI_LONG_INT] = {"MPI_LONG_INT", P(pair_long_int)},
    [MPI_2INT] = {"MPI_2INT", P(pair_2int)},
    [MPI_SHORT_INT] = {"MPI_SHORT_INT", P(pair_short_int)},
    [MPI_LONG_DOUBLE_INT] = {"MPI_LONG_DOUBLE_INT", P(pair_long_double_int)},
    [MPI_CHARACTER] = {"MPI_CHARACTER", P(char)},
    [MPI_LOGICAL] = {"MPI_LOGICAL", P(int)},
    [MPI_INTEGER] = {"MPI_INTEGER", P(int)},
    [MPI_REAL] = {"MPI_REAL", P(float)},
    [MPI_DOUBLE_PRECISION] = {"MPI_DOUBLE_PRECISION", P(double)},
    [MPI_COMPLEX] = {"MPI_COMPLEX", P(float _Complex)},
    [MPI_DOUBLE_COMPLEX] = {"MPI_DOUBLE_COMPLEX", P(double _Complex)},
    [MPI_2REAL] = {"MPI_2REAL", P(pair_2real)},
    [MPI_2DOUBLE_PRECISION] = {"MPI_2DOUBLE_PRECISION", P(pair_2double)},
    [MPI_2INTEGER] = {"MPI_2INTEGER", P(pair_2integer)},
    [MPI_INTEGER1] = {"MPI_INTEGER1", P(int8_t)},
    [MPI_INTEGER2] = {"MPI_INTEGER2", P(int16_t)},
    [MPI_INTEGER4] = {"MPI_INTEGER4", P(int32_t)},
    [MPI_INTEGER8] = {"MPI_INTEGER8", P(int64_t)},
    [MPI_REAL4] = {"MPI_REAL4", P(float)},
    [MPI_REAL8] = {"MPI_REAL8", P(double)},
    [MPI_COMPLEX8] = {"MPI_COMPLEX8", P(float _Complex)},
    [MPI_COMPLEX16] = {"MPI_COMPLEX16", P(double _Complex)},
    [MPI_CXX_BOOL] = {"MPI_CXX_BOOL", P(_Bool)},
    [MPI_CXX_FLOAT_COMPLEX] = {"MPI_CXX_FLOAT_COMPLEX", P(float _Complex)},
    [MPI_CXX_DOUBLE_COMPLEX] = {"MPI_CXX_DOUBLE_COMPLEX", P(double _Complex)},
    [MPI_CXX_LONG_DOUBLE_COMPLEX] = {"MPI_CXX_LONG_DOUBLE_COMPLEX", P(long double _Complex)},
};

/* Bytes of a pair type that hold data (value and index, not the padding). */
static size_t pair_data_blocks(MPI_Datatype dt, struct face_block *b)
{
    size_t vsize, ioff;
    MPI_Datatype vtype;
    switch (dt) {
    case MPI_FLOAT_INT: vtype = MPI_FLOAT; ioff = offsetof(pair_float_int, i); break;
    case MPI_DOUBLE_INT: vtype = MPI_DOUBLE; ioff = offsetof(pair_double_int, i); break;
    case MPI_LONG_INT: vtype = MPI_LONG; ioff = offsetof(pair_long_int, i); break;
    case MPI_2INT: vtype = MPI_INT; ioff = offsetof(pair_2int, i); break;
    case MPI_SHORT_INT: vtype = MPI_SHORT; ioff = offsetof(pair_short_int, i); break;
    case MPI_LONG_DOUBLE_INT:
        /* long double has padding bytes of its own on x86; send the whole 16. */
        vtype = MPI_LONG_DOUBLE;
        ioff = offsetof(pair_long_double_int, i);
        break;
    default: return 0;
    }
    vsize = predefs[vtype].size;
    int vcode = face_x32_code(vtype);
    if (ioff == vsize) {
        b[0] = (struct face_block){0, vsize + sizeof(int), vsize + sizeof(int),
                                   vcode == FACE_X32_SWAP4 ? vcode : FACE_X32_PAIR | vcode};
        return 1;
    }
    /* esize 0: the index belongs to the element its value block started. */
    b[0] = (struct face_block){0, vsize, vsize, vcode};
    b[1] = (struct face_block){(MPI_Aint)ioff, sizeof(int), 0, FACE_X32_SWAP4};
    return 2;
}

int face_type_check(MPI_Comm comm, MPI_Datatype dt, const char *fn, struct face_type **out)
{
    struct face_type *t = face_type_get(dt);
    if (!t)
        return face_error(comm, fn, MPI_ERR_TYPE,
                          dt == MPI_DATATYPE_NULL ? "the datatype is MPI_DATATYPE_NULL"
                                                  : "datatype handle %d is not a live datatype",
                          dt);
    if (!t->committed)
        return face_error(comm, fn, MPI_ERR_TYPE,
                          "datatype %d (%s) is not committed: call MPI_Type_commit before using "
                          "it in communication",
                          dt, t->name[0] ? t->name : "unnamed");
    *out = t;
    return MPI_SUCCESS;
}

int face_type_add(struct face_type *t, MPI_Datatype *out)
{
    int slot = -1;
    for (int i = BOLT_MPI_N_PREDEFINED_TYPES; i < face_ntypes; i++)
        if (!face_types[i]) {
            slot = i;
            break;
        }
    if (slot < 0) {
        if (face_ntypes == cap_types) {
            int n = cap_types ? cap_types * 2 : 64;
            struct face_type **p = realloc(face_types, (size_t)n * sizeof *p);
            if (!p)
                return MPI_ERR_NO_MEM;
            face_types = p;
            cap_types = n;
        }
        slot = face_ntypes++;
    }
    t->live = 1;
    face_types[slot] = t;
    *out = slot;
    return MPI_SUCCESS;
}

void face_type_destroy(struct face_type *t)
{
    if (!t)
        return;
    face_contents_free(t->contents);
    face_attrs_free(&t->attrs);
    free(t->blocks);
    free(t);
}

void face_type_remove(MPI_Datatype dt)
{
    struct face_type *t = face_types[dt];
    face_types[dt] = NULL;
    /* The types it was built from may go with it (recursively). */
    face_contents_release(t->contents);
    t->contents = NULL;
    face_type_destroy(t);
}

void face_type_release(MPI_Datatype dt)
{
    struct face_type *t = face_types[dt];
    if (t->refs > 0)
        t->live = 0; /* the last face_type_unhold removes it */
    else
        face_type_remove(dt);
}

int face_type_clone(MPI_Datatype dt, MPI_Datatype *out)
{
    const struct face_type *src = face_type_held(dt);
    struct face_type *t = malloc(sizeof *t);
    if (!t)
        return MPI_ERR_NO_MEM;
    *t = *src;
    t->refs = 0;
    t->attrs = NULL;
    t->contents = NULL;
    t->blocks = malloc((size_t)(src->nblocks > 0 ? src->nblocks : 1) * sizeof *t->blocks);
    if (!t->blocks || (src->contents && !(t->contents = face_contents_copy(src->contents)))) {
        face_type_destroy(t);
        return MPI_ERR_NO_MEM;
    }
    memcpy(t->blocks, src->blocks, (size_t)src->nblocks * sizeof *t->blocks);
    int rc = face_type_add(t, out);
    if (rc) {
        face_contents_release(t->contents);
        t->contents = NULL;
        face_type_destroy(t);
    }
    return rc;
}

void face_type_hold(MPI_Datatype dt)
{
    face_types[dt]->refs++;
}

void face_type_unhold(MPI_Datatype dt)
{
    struct face_type *t = face_types[dt];
    if (--t->refs == 0 && !t->live)
        face_type_remove(dt); /* its handle was freed while held: now it goes */
}

void face_type_set_contig(struct face_type *t)
{
    MPI_Aint ext = face_type_extent(t);
    t->contig = t->nblocks == 0 ||
                (t->nblocks == 1 && t->blocks[0].off == t->true_lb && ext == (MPI_Aint)t->size);
}

int face_types_init(void)
{
    face_ntypes = 0;
    for (int dt = 0; dt < BOLT_MPI_N_PREDEFINED_TYPES; dt++) {
        struct face_type *t = NULL;
        MPI_Datatype h;
        if (dt > 0) {
            const struct predef *p = &predefs[dt];
            if (!(t = calloc(1, sizeof *t)) || !(t->blocks = calloc(2, sizeof *t->blocks)))
                goto fail;
            t->predefined = t->committed = 1;
            t->size = p->size;
            t->lb = t->true_lb = 0;
            t->ub = t->true_ub = (MPI_Aint)p->size;
            t->align = p->align;
            t->basic = dt;
            t->combiner = MPI_COMBINER_NAMED;
            snprintf(t->name, sizeof t->name, "%s", p->name);
            size_t nb = pair_data_blocks(dt, t->blocks);
            if (nb) {
                /* size counts data bytes only, as MPI_Type_size does */
                t->nblocks = (int)nb;
                t->size = 0;
                for (size_t i = 0; i < nb; i++)
                    t->size += t->blocks[i].len;
                t->true_ub = t->blocks[nb - 1].off + (MPI_Aint)t->blocks[nb - 1].len;
            } else {
                t->nblocks = 1;
                t->blocks[0] = (struct face_block){0, p->size, p->size, face_x32_code(dt)};
            }
            face_type_set_contig(t);
        }
        if (face_ntypes == cap_types) {
            int n = cap_types ? cap_types * 2 : 64;
            struct face_type **q = realloc(face_types, (size_t)n * sizeof *q);
            if (!q)
                goto fail;
            face_types = q;
            cap_types = n;
        }
        h = face_ntypes++;
        face_types[h] = t;
        if (t)
            t->live = 1;
        continue;
    fail:
        face_type_destroy(t);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

void face_types_finalize(void)
{
    for (int i = 0; i < face_ntypes; i++)
        face_type_destroy(face_types[i]);
    free(face_types);
    face_types = NULL;
    face_ntypes = cap_types = 0;
}

/* ---- queries ----------------------------------------------------------------------------- */
int face_type_lookup(MPI_Datatype dt, const char *fn, struct face_type **out)
{
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    if (!(*out = face_type_get(dt)))
        return face_error(MPI_COMM_NULL, fn, MPI_ERR_TYPE,
                          dt == MPI_DATATYPE_NULL ? "the datatype is MPI_DATATYPE_NULL"
                                                  : "datatype handle %d is not a live datatype",
                          dt);
    return MPI_SUCCESS;
}

int PMPI_Type_size(MPI_Datatype dt, int *size)
{
    struct face_type *t = NULL;
    int rc = face_type_lookup(dt, "MPI_Type_size", &t);
    if (rc)
        return rc;
    if (!size)
        return face_error(MPI_COMM_NULL, "MPI_Type_size", MPI_ERR_ARG, "size pointer is NULL");
    *size = t->size > (size_t)INT32_MAX ? MPI_UNDEFINED : (int)t->size;
    return MPI_SUCCESS;
}

int PMPI_Type_size_x(MPI_Datatype dt, MPI_Count *size)
{
    struct face_type *t = NULL;
    int rc = face_type_lookup(dt, "MPI_Type_size_x", &t);
    if (rc)
        return rc;
    if (!size)
        return face_error(MPI_COMM_NULL, "MPI_Type_size_x", MPI_ERR_ARG, "size pointer is NULL");
    *size = (MPI_Count)t->size;
    return MPI_SUCCESS;
}

int PMPI_Type_get_extent(MPI_Datatype dt, MPI_Aint *lb, MPI_Aint *extent)
{
    struct face_type *t = NULL;
    int rc = face_type_lookup(dt, "MPI_Type_get_extent", &t);
    if (rc)
        return rc;
    if (!lb || !extent)
        return face_error(MPI_COMM_NULL, "MPI_Type_get_extent", MPI_ERR_ARG, "lb or extent pointer is NULL");
    *lb = t->lb;
    *extent = face_type_extent(t);
    return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent(MPI_Datatype dt, MPI_Aint *lb, MPI_Aint *extent)
{
    struct face_type *t = NULL;
    int rc = face_type_lookup(dt, "MPI_Type_get_true_extent", &t);
    if (rc)
        return rc;
    if (!lb || !extent)
        return face_error(MPI_COMM_NULL, "MPI_Type_get_true_extent", MPI_ERR_ARG,
                          "lb or extent pointer is NULL");
    *lb = t->true_lb;
    *extent = t->true_ub - t->true_lb;
    return MPI_SUCCESS;
}

int PMPI_Type_get_extent_x(MPI_Datatype dt, MPI_Count *lb, MPI_Count *extent)
{
    struct face_type *t = NULL;
    int rc = face_type_lookup(dt, "MPI_Type_get_extent_x", &t);
    if (rc)
        return rc;
    if (!lb || !extent)
        return face_error(MPI_COMM_NULL, "MPI_Type_get_extent_x", MPI_ERR_ARG,
                          "lb or extent pointer is NULL");
    *lb = t->lb;
    *extent = face_type_extent(t);
    return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent_x(MPI_Datatype dt, MPI_Count *lb, MPI_Count *extent)
{
    struct face_type *t = NULL;
    int rc = face_type_lookup(dt, "MPI_Type_get_true_extent_x", &t);
    if (rc)
        return rc;
    if (!lb || !extent)
        return face_error(MPI_COMM_NULL, "MPI_Type_get_true_extent_x", MPI_ERR_ARG,
                          "lb or extent pointer is NULL");
    *lb = t->true_lb;
    *extent = t->true_ub - t->true_lb;
    return MPI_SUCCESS;
}

int PMPI_Type_get_name(MPI_Datatype dt, char *name, int *resultlen)
{
    struct face_type *t = NULL;
    int rc = face_type_lookup(dt, "MPI_Type_get_name", &t);
    if (rc)
        return rc;
    if (!name || !resultlen)
        return face_error(MPI_COMM_NULL, "MPI_Type_get_name", MPI_ERR_ARG, "name or length pointer is NULL");
    snprintf(name, MPI_MAX_OBJECT_NAME, "%s", t->name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

int PMPI_Type_set_name(MPI_Datatype dt, const char *name)
{
    struct face_type *t = NULL;
    int rc = face_type_lookup(dt, "MPI_Type_set_name", &t);
    if (rc)
        return rc;
    if (!name)
        return face_error(MPI_COMM_NULL, "MPI_Type_set_name", MPI_ERR_ARG, "name is NULL");
    snprintf(t->name, sizeof t->name, "%s", name);
    return MPI_SUCCESS;
}

int PMPI_Type_commit(MPI_Datatype *dt)
{
    struct face_type *t = NULL;
    if (!dt)
        return face_error(MPI_COMM_NULL, "MPI_Type_commit", MPI_ERR_ARG, "datatype pointer is NULL");
    int rc = face_type_lookup(*dt, "MPI_Type_commit", &t);
    if (rc)
        return rc;
    t->committed = 1;
    return MPI_SUCCESS;
}

int PMPI_Type_free(MPI_Datatype *dt)
{
    struct face_type *t = NULL;
    if (!dt)
        return face_error(MPI_COMM_NULL, "MPI_Type_free", MPI_ERR_ARG, "datatype pointer is NULL");
    int rc = face_type_lookup(*dt, "MPI_Type_free", &t);
    if (rc)
        return rc;
    if (t->predefined)
        return face_error(MPI_COMM_NULL, "MPI_Type_free", MPI_ERR_TYPE,
                          "%s is predefined and cannot be freed", t->name);
    /* A failing delete callback fails the free: the type stays. */
    if ((rc = face_attrs_delete(*dt, &t->attrs, 0)))
        return face_error(MPI_COMM_NULL, "MPI_Type_free", rc,
                          "an attribute delete callback failed (it returned %d)", rc);
    /* Pending operations, and the contents of types built from this one
     * (MPI_Type_get_contents gives it back), hold it: while they do, only the
     * handle goes (its slot stays taken, so no new type is put where they look). */
    face_type_release(*dt);
    *dt = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    if (!address)
        return face_error(MPI_COMM_NULL, "MPI_Get_address", MPI_ERR_ARG, "address pointer is NULL");
    *address = (MPI_Aint)(intptr_t)location;
    return MPI_SUCCESS;
}
