/* op.c — MPI reduction operations and datatypes as the native collectives
 * see them: predefined ops map to Bolt's, user functions are wrapped. */
#include <limits.h>
#include <stdlib.h>
#include <wchar.h>

#include "mpi/coll.h"

#define MAX_USER_OPS 256
struct user_op {
    MPI_User_function *fn;
    int commute;
    bolt_op_t native;
};
static struct user_op user_ops[MAX_USER_OPS];
static int n_user_ops;
#define FIRST_USER_OP 32

/* The MPI datatype of the collective in progress: user functions are called
 * with it. (The face is single-threaded; calls never overlap.) */
static MPI_Datatype current_dt;
static MPI_Aint current_shift; /* opaque elements start at lb: undo for the user */

/* A user function bound to an MPI datatype, called on count elements. */
struct face_call_op {
    MPI_User_function *fn;
    MPI_Datatype dt;
    MPI_Aint shift, extent;
    bolt_op_t native;
};

static void call_user(const struct face_call_op *b, const void *in, void *inout, size_t count)
{
    MPI_Datatype mdt = b->dt;
    while (count > 0) {
        /* Chunks of INT_MAX elements only matter for gigantic counts. */
        int len = count > INT_MAX ? INT_MAX : (int)count;
        b->fn((char *)in - b->shift, (char *)inout - b->shift, &len, &mdt);
        count -= (size_t)len;
        in = (const char *)in + (size_t)len * (size_t)b->extent;
        inout = (char *)inout + (size_t)len * (size_t)b->extent;
    }
}

static void user_wrapper(const void *in, void *inout, size_t count, bolt_datatype_t dt, void *user)
{
    struct user_op *u = user;
    struct face_type *t = face_type_get(current_dt);
    struct face_call_op b = {u->fn, current_dt, current_shift, t ? face_type_extent(t) : 1, 0};
    (void)dt;
    call_user(&b, in, inout, count);
}

bolt_datatype_t face_native_basic(MPI_Datatype dt)
{
    switch (dt) {
    case MPI_CHAR: return CHAR_MIN < 0 ? BOLT_INT8 : BOLT_UINT8;
    case MPI_SIGNED_CHAR: case MPI_INT8_T: case MPI_INTEGER1: return BOLT_INT8;
    case MPI_UNSIGNED_CHAR: case MPI_UINT8_T: case MPI_BYTE: return BOLT_UINT8;
    case MPI_SHORT: case MPI_INT16_T: case MPI_INTEGER2: return BOLT_INT16;
    case MPI_UNSIGNED_SHORT: case MPI_UINT16_T: return BOLT_UINT16;
    /* Fortran's LOGICAL is a C int whose logical ops give 0 or 1, as
     * gfortran's .FALSE. and .TRUE.; red_setup refuses other ops on it. */
    case MPI_INT: case MPI_INT32_T: case MPI_INTEGER: case MPI_INTEGER4: case MPI_LOGICAL:
        return BOLT_INT32;
    case MPI_UNSIGNED: case MPI_UINT32_T: return BOLT_UINT32;
    case MPI_LONG: return sizeof(long) == 8 ? BOLT_INT64 : BOLT_INT32;
    case MPI_UNSIGNED_LONG: return sizeof(long) == 8 ? BOLT_UINT64 : BOLT_UINT32;
    case MPI_LONG_LONG_INT: case MPI_INT64_T: case MPI_AINT: case MPI_OFFSET: case MPI_COUNT:
    case MPI_INTEGER8:
        return BOLT_INT64;
    case MPI_UNSIGNED_LONG_LONG: case MPI_UINT64_T: return BOLT_UINT64;
    case MPI_FLOAT: case MPI_REAL: case MPI_REAL4: return BOLT_FLOAT32;
    case MPI_DOUBLE: case MPI_DOUBLE_PRECISION: case MPI_REAL8: return BOLT_FLOAT64;
    case MPI_LONG_DOUBLE: return BOLT_LONG_DOUBLE;
    case MPI_WCHAR: return WCHAR_MIN < 0 ? BOLT_INT32 : BOLT_UINT32;
    case MPI_C_BOOL: case MPI_CXX_BOOL: return BOLT_BOOL;
    case MPI_C_FLOAT_COMPLEX: case MPI_COMPLEX: case MPI_COMPLEX8: case MPI_CXX_FLOAT_COMPLEX:
        return BOLT_C_FLOAT_COMPLEX;
    case MPI_C_DOUBLE_COMPLEX: case MPI_DOUBLE_COMPLEX: case MPI_COMPLEX16:
    case MPI_CXX_DOUBLE_COMPLEX:
        return BOLT_C_DOUBLE_COMPLEX;
    case MPI_FLOAT_INT: return BOLT_FLOAT_INT;
    case MPI_DOUBLE_INT: return BOLT_DOUBLE_INT;
    case MPI_LONG_INT: return BOLT_LONG_INT;
    case MPI_2INT: case MPI_2INTEGER: return BOLT_2INT; /* the same two ints */
    case MPI_SHORT_INT: return BOLT_SHORT_INT;
    case MPI_LONG_DOUBLE_INT: return BOLT_LONG_DOUBLE_INT;
    default: return BOLT_DATATYPE_NULL;
    }
}

int face_op_native(MPI_Comm comm, MPI_Op op, const char *fn, bolt_op_t *out, int *is_user)
{
    static const bolt_op_t map[] = {
        [MPI_MAX] = BOLT_MAX, [MPI_MIN] = BOLT_MIN, [MPI_SUM] = BOLT_SUM,
        [MPI_PROD] = BOLT_PROD, [MPI_LAND] = BOLT_LAND, [MPI_BAND] = BOLT_BAND,
        [MPI_LOR] = BOLT_LOR, [MPI_BOR] = BOLT_BOR, [MPI_LXOR] = BOLT_LXOR,
        [MPI_BXOR] = BOLT_BXOR, [MPI_MINLOC] = BOLT_MINLOC, [MPI_MAXLOC] = BOLT_MAXLOC,
    };
    *is_user = 0;
    if (op >= MPI_MAX && op <= MPI_MAXLOC) {
        *out = map[op];
        return MPI_SUCCESS;
    }
    if (op == MPI_REPLACE || op == MPI_NO_OP)
        return face_error(comm, fn, MPI_ERR_OP, "%s is for one-sided operations only",
                          op == MPI_REPLACE ? "MPI_REPLACE" : "MPI_NO_OP");
    int i = op - FIRST_USER_OP;
    if (i >= 0 && i < n_user_ops && user_ops[i].fn) {
        *out = user_ops[i].native;
        *is_user = 1;
        return MPI_SUCCESS;
    }
    return face_error(comm, fn, MPI_ERR_OP,
                      op == MPI_OP_NULL ? "the operation is MPI_OP_NULL"
                                        : "operation handle %d is not a live operation",
                      op);
}

/* A nonblocking reduction may run its user function while other calls set
 * the global call type: it gets a native op of its own, carrying its type. */
static void call_wrapper(const void *in, void *inout, size_t count, bolt_datatype_t dt, void *user)
{
    (void)dt;
    call_user(user, in, inout, count);
}

int face_op_bind(MPI_Op op, MPI_Datatype dt, MPI_Aint shift, struct face_call_op **out)
{
    int i = op - FIRST_USER_OP;
    struct face_type *t = face_type_get(dt);
    struct face_call_op *b;
    if (i < 0 || i >= n_user_ops || !user_ops[i].fn || !t || !(b = calloc(1, sizeof *b)))
        return BOLT_ERR_NOMEM;
    b->fn = user_ops[i].fn;
    b->dt = dt;
    b->shift = shift;
    b->extent = face_type_extent(t);
    int rc = bolt_op_create(call_wrapper, user_ops[i].commute, b, &b->native);
    if (rc) {
        free(b);
        return rc;
    }
    *out = b;
    return BOLT_OK;
}

bolt_op_t face_op_bound(const struct face_call_op *b)
{
    return b->native;
}

void face_op_unbind(struct face_call_op *b)
{
    if (!b)
        return;
    bolt_op_free(&b->native);
    free(b);
}

void face_op_set_call_type(MPI_Datatype dt, MPI_Aint shift)
{
    current_dt = dt;
    current_shift = shift;
}

int PMPI_Op_create(MPI_User_function *fn, int commute, MPI_Op *op)
{
    int rc = face_check_init("MPI_Op_create"), slot = -1;
    if (rc)
        return rc;
    if (!fn || !op)
        return face_error(MPI_COMM_NULL, "MPI_Op_create", MPI_ERR_ARG, "function or op pointer is NULL");
    for (int i = 0; i < n_user_ops && slot < 0; i++)
        if (!user_ops[i].fn)
            slot = i;
    if (slot < 0) {
        if (n_user_ops == MAX_USER_OPS)
            return face_error(MPI_COMM_NULL, "MPI_Op_create", MPI_ERR_NO_MEM,
                              "at most %d user operations may exist at once", MAX_USER_OPS);
        slot = n_user_ops++;
    }
    struct user_op *u = &user_ops[slot];
    if ((rc = bolt_op_create(user_wrapper, commute != 0, u, &u->native)))
        return face_native_error(MPI_COMM_NULL, "MPI_Op_create", rc);
    u->fn = fn;
    u->commute = commute != 0;
    *op = FIRST_USER_OP + slot;
    return MPI_SUCCESS;
}

int face_op_live(MPI_Op op)
{
    int i = op - FIRST_USER_OP;
    return (op >= MPI_MAX && op <= MPI_NO_OP) || (i >= 0 && i < n_user_ops && user_ops[i].fn);
}

int PMPI_Op_free(MPI_Op *op)
{
    if (!op)
        return face_error(MPI_COMM_NULL, "MPI_Op_free", MPI_ERR_ARG, "op pointer is NULL");
    int i = *op - FIRST_USER_OP;
    if (i < 0 || i >= n_user_ops || !user_ops[i].fn)
        return face_error(MPI_COMM_NULL, "MPI_Op_free", MPI_ERR_OP,
                          *op >= MPI_MAX && *op <= MPI_NO_OP
                              ? "operation %d is predefined and cannot be freed"
                              : "operation handle %d is not a live user operation",
                          *op);
    bolt_op_free(&user_ops[i].native);
    user_ops[i].fn = NULL;
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    if (!commute)
        return face_error(MPI_COMM_NULL, "MPI_Op_commutative", MPI_ERR_ARG, "commute pointer is NULL");
    int i = op - FIRST_USER_OP;
    if (op >= MPI_MAX && op <= MPI_NO_OP) {
        *commute = 1;
        return MPI_SUCCESS;
    }
    if (i < 0 || i >= n_user_ops || !user_ops[i].fn)
        return face_error(MPI_COMM_NULL, "MPI_Op_commutative", MPI_ERR_OP,
                          "operation handle %d is not a live operation", op);
    *commute = user_ops[i].commute;
    return MPI_SUCCESS;
}
