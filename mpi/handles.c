/* handles.c — conversions between C and Fortran handles (MPI 3.1, 17.2.4).
 * Both are ints with the same values; what f2c adds is the check: a Fortran
 * value that is no live object gives the NULL handle of its kind (the
 * standard only asks for an invalid handle), so that a stale handle is seen
 * as what it is at once. */
#include <stddef.h>
#include <string.h>

#include "mpi/face.h"
#include "mpi/rma.h"
#include "runtime/thread.h"

_Static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0 &&
                   offsetof(MPI_Status, MPI_SOURCE) == 0 &&
                   offsetof(MPI_Status, MPI_TAG) == sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_ERROR) == 2 * sizeof(MPI_Fint),
               "a Fortran status is the MPI_Status as INTEGERs, MPI_SOURCE, MPI_TAG and "
               "MPI_ERROR first");

static int comm_live(MPI_Comm h) { return face_comm_get(h) != NULL; }
static int type_live(MPI_Datatype h) { return face_type_get(h) != NULL; }
static int request_live(MPI_Request h) { return face_req_get(h) != NULL; }
/* Bolt makes no windows and opens no files: no such handle is live. */
static int win_live(MPI_Win h) { return face_win_get(h) != NULL; }
static int file_live(MPI_File h) { return (void)h, 0; }
#define group_live face_group_live
#define op_live face_op_live
#define info_live face_info_live
#define errhandler_live face_errh_live
#define message_live face_message_live

/* f2c reads the handle tables, which another thread may grow at the same
 * time under MPI_THREAD_MULTIPLE: under the runtime lock then. */
static int live_locked(int (*live)(int), int handle)
{
    if (!atomic_load_explicit(&bolt_lock_on, memory_order_relaxed))
        return live(handle);
    bolt_lock_take();
    int r = live(handle);
    bolt_lock_release();
    return r;
}

#define CONVERSIONS(T, name, live, null)                                                           \
    MPI_Fint PMPI_##name##_c2f(T handle) { return (MPI_Fint)handle; }                              \
    MPI_Fint MPI_##name##_c2f(T handle) { return PMPI_##name##_c2f(handle); }                      \
    T PMPI_##name##_f2c(MPI_Fint handle) { return live_locked(live, handle) ? (T)handle : null; }  \
    T MPI_##name##_f2c(MPI_Fint handle) { return PMPI_##name##_f2c(handle); }
CONVERSIONS(MPI_Comm, Comm, comm_live, MPI_COMM_NULL)
CONVERSIONS(MPI_Datatype, Type, type_live, MPI_DATATYPE_NULL)
CONVERSIONS(MPI_Group, Group, group_live, MPI_GROUP_NULL)
CONVERSIONS(MPI_Request, Request, request_live, MPI_REQUEST_NULL)
CONVERSIONS(MPI_Op, Op, op_live, MPI_OP_NULL)
CONVERSIONS(MPI_Info, Info, info_live, MPI_INFO_NULL)
CONVERSIONS(MPI_Errhandler, Errhandler, errhandler_live, MPI_ERRHANDLER_NULL)
CONVERSIONS(MPI_Win, Win, win_live, MPI_WIN_NULL)
CONVERSIONS(MPI_File, File, file_live, MPI_FILE_NULL)
CONVERSIONS(MPI_Message, Message, message_live, MPI_MESSAGE_NULL)
#undef CONVERSIONS

/* A Fortran status is the C one, integer for integer (the assert above). */
int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    if (STATUS_IGNORED(c_status) || !f_status)
        return face_error(MPI_COMM_NULL, "MPI_Status_c2f", MPI_ERR_ARG,
                          c_status
                              ? "f_status is NULL"
                              : "c_status is MPI_STATUS_IGNORE: there is no status to convert");
    memcpy(f_status, c_status, sizeof *c_status);
    return MPI_SUCCESS;
}

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    if (!f_status || STATUS_IGNORED(c_status))
        return face_error(MPI_COMM_NULL, "MPI_Status_f2c", MPI_ERR_ARG,
                          f_status
                              ? "c_status is MPI_STATUS_IGNORE"
                              : "f_status is MPI_F_STATUS_IGNORE: there is no status to convert");
    memcpy(c_status, f_status, sizeof *c_status);
    return MPI_SUCCESS;
}
