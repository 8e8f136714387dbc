/* coll.h — what the MPI face's collectives share (op.c, coll.c, coll_reduce.c). */
#ifndef BOLT_MPI_COLL_H
#define BOLT_MPI_COLL_H

#include "mpi/face.h"

/* Bolt's datatype for a predefined MPI type, or BOLT_DATATYPE_NULL. */
bolt_datatype_t face_native_basic(MPI_Datatype dt);
/* Bolt's op for an MPI op; *is_user says it wraps an MPI_User_function. */
int face_op_native(MPI_Comm comm, MPI_Op op, const char *fn, bolt_op_t *out, int *is_user);
/* User functions called during the next collective see this datatype; their
 * buffers are the native ones moved back by shift bytes (the type's lb). */
void face_op_set_call_type(MPI_Datatype dt, MPI_Aint shift);
/* op_extra.c: a predefined op on a predefined type that Bolt's collectives
 * have no kernel for, as a native op over opaque elements of *esize bytes;
 * *nop is BOLT_OP_NULL when (op, basic) is not such a pair. A native code
 * when the op cannot be made. */
int face_op_extra(MPI_Op op, MPI_Datatype basic, bolt_op_t *nop, size_t *esize);
void face_op_extra_finalize(void);

#endif
