/* win.c — what a window carries beside its memory: keyvals and
 * attributes (the predefined MPI_WIN_BASE, SIZE, DISP_UNIT, CREATE_FLAVOR
 * and MODEL too), error handlers, its name, info and group. */
#include <stdio.h>
#include <string.h>

#include "mpi/rma.h"

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

/* ---- error handlers on windows ----------------------------------------------------------- */
int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errh)
{
    struct face_win *w = NULL;
    int rc = face_win_check(win, "MPI_Win_set_errhandler", &w);
    if (rc)
        return rc;
    if (errh != MPI_ERRORS_ARE_FATAL && errh != MPI_ERRORS_RETURN && !face_errh_live(errh))
        return face_win_error(w, "MPI_Win_set_errhandler", MPI_ERR_ARG,
                              "error handler %d is not a valid handler", errh);
    face_errh_hold(errh);
    face_errh_release(w->errh);
    w->errh = errh;
    return MPI_SUCCESS;
}

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errh)
{
    struct face_win *w = NULL;
    int rc = face_win_check(win, "MPI_Win_get_errhandler", &w);
    if (rc)
        return rc;
    if (!errh)
        return face_win_error(w, "MPI_Win_get_errhandler", MPI_ERR_ARG,
                              "errhandler pointer is NULL");
    face_errh_hold(w->errh);
    *errh = w->errh;
    return MPI_SUCCESS;
}

int PMPI_Win_call_errhandler(MPI_Win win, int code)
{
    struct face_win *w = NULL;
    int rc = face_win_check(win, "MPI_Win_call_errhandler", &w);
    if (rc)
        return rc;
    face_win_error(w, "MPI_Win_call_errhandler", code, "called by the program");
    return MPI_SUCCESS;
}

/* ---- attributes ------------------------------------------------------------------------------ */
int PMPI_Win_set_attr(MPI_Win win, int keyval, void *value)
{
    struct face_win *w = NULL;
    int rc = face_win_check(win, "MPI_Win_set_attr", &w);
    if (rc)
        return rc;
    if (keyval >= MPI_WIN_BASE && keyval <= MPI_WIN_MODEL)
        return face_win_error(w, "MPI_Win_set_attr", MPI_ERR_KEYVAL,
                              "keyval %d is predefined and read-only", keyval);
    return face_attr_set(FACE_ATTR_WIN, win, &w->attrs, keyval, value, w->comm,
                         "MPI_Win_set_attr");
}

int PMPI_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag)
{
    struct face_win *w = NULL;
    int rc = face_win_check(win, "MPI_Win_get_attr", &w);
    if (rc)
        return rc;
    if (!value || !flag)
        return face_win_error(w, "MPI_Win_get_attr", MPI_ERR_ARG, "value or flag pointer is NULL");
    /* The predefined ones give a pointer (to the base itself, to the others'
     * values), as the standard's C binding says. */
    void *v = NULL;
    switch (keyval) {
    case MPI_WIN_BASE: v = w->base; break;
    case MPI_WIN_SIZE: v = &w->size_bytes; break;
    case MPI_WIN_DISP_UNIT: v = &w->disp_unit; break;
    case MPI_WIN_CREATE_FLAVOR: v = &w->flavor; break;
    case MPI_WIN_MODEL: v = &w->model; break;
    default:
        return face_attr_get(FACE_ATTR_WIN, w->attrs, keyval, value, flag, w->comm,
                             "MPI_Win_get_attr");
    }
    *flag = 1;
    memcpy(value, &v, sizeof v);
    return MPI_SUCCESS;
}

int PMPI_Win_delete_attr(MPI_Win win, int keyval)
{
    struct face_win *w = NULL;
    int rc = face_win_check(win, "MPI_Win_delete_attr", &w);
    if (rc)
        return rc;
    return face_attr_delete(FACE_ATTR_WIN, win, &w->attrs, keyval, w->comm,
                            "MPI_Win_delete_attr");
}

/* ---- name, info, group --------------------------------------------------------------------- */
int PMPI_Win_set_name(MPI_Win win, const char *name)
{
    struct face_win *w = NULL;
    int rc = face_win_check(win, "MPI_Win_set_name", &w);
    if (rc)
        return rc;
    if (!name)
        return face_win_error(w, "MPI_Win_set_name", MPI_ERR_ARG, "name is NULL");
    snprintf(w->name, sizeof w->name, "%s", name);
    return MPI_SUCCESS;
}

int PMPI_Win_get_name(MPI_Win win, char *name, int *len)
{
    struct face_win *w = NULL;
    int rc = face_win_check(win, "MPI_Win_get_name", &w);
    if (rc)
        return rc;
    if (!name || !len)
        return face_win_error(w, "MPI_Win_get_name", MPI_ERR_ARG, "name or length is NULL");
    snprintf(name, MPI_MAX_OBJECT_NAME, "%s", w->name);
    *len = (int)strlen(name);
    return MPI_SUCCESS;
}

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    struct face_win *w = NULL;
    int rc = face_win_check(win, "MPI_Win_set_info", &w);
    if (rc)
        return rc;
    if (info != MPI_INFO_NULL && !face_info_live(info))
        return face_win_error(w, "MPI_Win_set_info", MPI_ERR_INFO,
                              "info handle %d is not a live info", info);
    MPI_Info copy = MPI_INFO_NULL;
    if (info != MPI_INFO_NULL && (rc = PMPI_Info_dup(info, &copy)))
        return rc;
    if (w->info != MPI_INFO_NULL)
        PMPI_Info_free(&w->info);
    w->info = copy;
    return MPI_SUCCESS;
}

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info)
{
    struct face_win *w = NULL;
    int rc = face_win_check(win, "MPI_Win_get_info", &w);
    if (rc)
        return rc;
    if (!info)
        return face_win_error(w, "MPI_Win_get_info", MPI_ERR_ARG, "info pointer is NULL");
    if (w->info != MPI_INFO_NULL)
        return PMPI_Info_dup(w->info, info);
    if ((rc = PMPI_Info_create(info)))
        return rc;
    /* What this window does, as the standard's keys say it. */
    PMPI_Info_set(*info, "no_locks", "false");
    PMPI_Info_set(*info, "accumulate_ordering", "rar,raw,war,waw");
    PMPI_Info_set(*info, "accumulate_ops", "same_op_no_op");
    PMPI_Info_set(*info, "same_size", "false");
    PMPI_Info_set(*info, "same_disp_unit", "false");
    if (w->flavor == MPI_WIN_FLAVOR_SHARED)
        PMPI_Info_set(*info, "alloc_shared_noncontig", w->shared_noncontig ? "true" : "false");
    return MPI_SUCCESS;
}

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    struct face_win *w = NULL;
    int rc = face_win_check(win, "MPI_Win_get_group", &w);
    if (rc)
        return rc;
    if (!group)
        return face_win_error(w, "MPI_Win_get_group", MPI_ERR_ARG, "group pointer is NULL");
    return PMPI_Comm_group(w->comm, group);
}
