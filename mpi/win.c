/* win.c — windows without one-sided communication (which is the next
 * issue): what needs no window is real — window keyvals
 * (MPI_Win_create_keyval/free_keyval) and window error handlers
 * (MPI_Win_create_errhandler) — and every call on a window exists with its
 * standard signature and reports MPI_ERR_UNSUPPORTED_OPERATION, like the
 * one-sided calls in unsupported.c (output handles set to NULL first). */
#include "mpi/face.h"

static const char *const ONE_SIDED = "one-sided communication";

/* ---- keyvals ------------------------------------------------------------------------------- */
/* In attr.c's table, made for windows: using one on another kind is caught. */
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state)
{
    return face_keyval_create(FACE_ATTR_WIN, win_copy_attr_fn, win_delete_attr_fn, extra_state,
                              win_keyval, "MPI_Win_create_keyval");
}

int PMPI_Win_free_keyval(int *win_keyval)
{
    int rc = face_check_init("MPI_Win_free_keyval");
    return rc ? rc : face_keyval_free(FACE_ATTR_WIN, win_keyval, "MPI_Win_free_keyval");
}

/* ---- error handlers ------------------------------------------------------------------------ */
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *function, MPI_Errhandler *errhandler)
{
    /* MPI_Win and MPI_Comm are both ints: a handler of one has the other's type. */
    return PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)function, errhandler);
}

/* ---- every call on a window ---------------------------------------------------------------- */
/* An expression: stubs list it among their (void) casts. */
#define SET(p, v) ((p) ? (void)(*(p) = (v)) : (void)0)
#define WIN_STUB(name, params, ...)                                                                \
    int PMPI_##name params                                                                         \
    {                                                                                              \
        __VA_ARGS__;                                                                               \
        return face_unsupported(MPI_COMM_NULL, "MPI_" #name, ONE_SIDED);                           \
    }
WIN_STUB(Raccumulate,
         (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
          MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
          MPI_Win win, MPI_Request *request),
         (void)origin_addr, (void)origin_count, (void)origin_datatype, (void)target_rank,
         (void)target_disp, (void)target_count, (void)target_datatype, (void)op, (void)win,
         SET(request, MPI_REQUEST_NULL))
WIN_STUB(Rget_accumulate,
         (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
          void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
          MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
          MPI_Win win, MPI_Request *request),
         (void)origin_addr, (void)origin_count, (void)origin_datatype, (void)result_addr,
         (void)result_count, (void)result_datatype, (void)target_rank, (void)target_disp,
         (void)target_count, (void)target_datatype, (void)op, (void)win,
         SET(request, MPI_REQUEST_NULL))
WIN_STUB(Win_attach, (MPI_Win win, void *base, MPI_Aint size), (void)win, (void)base, (void)size)
WIN_STUB(Win_call_errhandler, (MPI_Win win, int errorcode), (void)win, (void)errorcode)
WIN_STUB(Win_delete_attr, (MPI_Win win, int win_keyval), (void)win, (void)win_keyval)
WIN_STUB(Win_detach, (MPI_Win win, const void *base), (void)win, (void)base)
WIN_STUB(Win_flush_all, (MPI_Win win), (void)win)
WIN_STUB(Win_flush_local, (int rank, MPI_Win win), (void)rank, (void)win)
WIN_STUB(Win_flush_local_all, (MPI_Win win), (void)win)
WIN_STUB(Win_get_attr, (MPI_Win win, int win_keyval, void *attribute_val, int *flag), (void)win,
         (void)win_keyval, (void)attribute_val, SET(flag, 0))
WIN_STUB(Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler), (void)win,
         SET(errhandler, MPI_ERRHANDLER_NULL))
WIN_STUB(Win_get_group, (MPI_Win win, MPI_Group *group), (void)win, SET(group, MPI_GROUP_NULL))
WIN_STUB(Win_get_info, (MPI_Win win, MPI_Info *info_used), (void)win, SET(info_used, MPI_INFO_NULL))
WIN_STUB(Win_get_name, (MPI_Win win, char *win_name, int *resultlen), (void)win, (void)win_name,
         (void)resultlen)
WIN_STUB(Win_set_attr, (MPI_Win win, int win_keyval, void *attribute_val), (void)win,
         (void)win_keyval, (void)attribute_val)
WIN_STUB(Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler), (void)win, (void)errhandler)
WIN_STUB(Win_set_info, (MPI_Win win, MPI_Info info), (void)win, (void)info)
WIN_STUB(Win_set_name, (MPI_Win win, const char *win_name), (void)win, (void)win_name)
WIN_STUB(Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr),
         (void)win, (void)rank, (void)size, (void)disp_unit, (void)baseptr)
WIN_STUB(Win_test, (MPI_Win win, int *flag), (void)win, (void)flag)
