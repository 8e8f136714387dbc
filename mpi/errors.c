/* errors.c — error classes, strings and handlers of the MPI face. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/face.h"
#include "runtime/errors.h"

static const char *const class_text[MPI_ERR_LASTCODE] = {
    [MPI_SUCCESS] = "MPI_SUCCESS: no error",
    [MPI_ERR_BUFFER] = "MPI_ERR_BUFFER: invalid buffer pointer",
    [MPI_ERR_COUNT] = "MPI_ERR_COUNT: invalid count argument",
    [MPI_ERR_TYPE] = "MPI_ERR_TYPE: invalid datatype",
    [MPI_ERR_TAG] = "MPI_ERR_TAG: invalid tag",
    [MPI_ERR_COMM] = "MPI_ERR_COMM: invalid communicator",
    [MPI_ERR_RANK] = "MPI_ERR_RANK: invalid rank",
    [MPI_ERR_REQUEST] = "MPI_ERR_REQUEST: invalid request",
    [MPI_ERR_ROOT] = "MPI_ERR_ROOT: invalid root",
    [MPI_ERR_GROUP] = "MPI_ERR_GROUP: invalid group",
    [MPI_ERR_OP] = "MPI_ERR_OP: invalid reduce operation",
    [MPI_ERR_TOPOLOGY] = "MPI_ERR_TOPOLOGY: invalid communicator topology",
    [MPI_ERR_DIMS] = "MPI_ERR_DIMS: invalid dimension argument",
    [MPI_ERR_ARG] = "MPI_ERR_ARG: invalid argument",
    [MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN: unknown error",
    [MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE: message truncated",
    [MPI_ERR_OTHER] = "MPI_ERR_OTHER: known error not in this list",
    [MPI_ERR_INTERN] = "MPI_ERR_INTERN: internal error",
    [MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS: error code is in status",
    [MPI_ERR_PENDING] = "MPI_ERR_PENDING: pending request",
    [MPI_ERR_KEYVAL] = "MPI_ERR_KEYVAL: invalid key value",
    [MPI_ERR_NO_MEM] = "MPI_ERR_NO_MEM: out of memory",
    [MPI_ERR_BASE] = "MPI_ERR_BASE: invalid base address",
    [MPI_ERR_INFO_KEY] = "MPI_ERR_INFO_KEY: key too long",
    [MPI_ERR_INFO_VALUE] = "MPI_ERR_INFO_VALUE: value too long",
    [MPI_ERR_INFO_NOKEY] = "MPI_ERR_INFO_NOKEY: no such key",
    [MPI_ERR_SPAWN] = "MPI_ERR_SPAWN: error in spawning processes",
    [MPI_ERR_PORT] = "MPI_ERR_PORT: invalid port name",
    [MPI_ERR_SERVICE] = "MPI_ERR_SERVICE: invalid service name",
    [MPI_ERR_NAME] = "MPI_ERR_NAME: invalid service name",
    [MPI_ERR_WIN] = "MPI_ERR_WIN: invalid window",
    [MPI_ERR_SIZE] = "MPI_ERR_SIZE: invalid size",
    [MPI_ERR_DISP] = "MPI_ERR_DISP: invalid displacement",
    [MPI_ERR_INFO] = "MPI_ERR_INFO: invalid info object",
    [MPI_ERR_LOCKTYPE] = "MPI_ERR_LOCKTYPE: invalid lock type",
    [MPI_ERR_ASSERT] = "MPI_ERR_ASSERT: invalid assert",
    [MPI_ERR_RMA_CONFLICT] = "MPI_ERR_RMA_CONFLICT: conflicting accesses to window",
    [MPI_ERR_RMA_SYNC] = "MPI_ERR_RMA_SYNC: wrong synchronization of RMA calls",
    [MPI_ERR_FILE] = "MPI_ERR_FILE: invalid file handle",
    [MPI_ERR_NOT_SAME] = "MPI_ERR_NOT_SAME: collective argument not identical on all processes",
    [MPI_ERR_AMODE] = "MPI_ERR_AMODE: invalid amode",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "MPI_ERR_UNSUPPORTED_DATAREP: unsupported datarep",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "MPI_ERR_UNSUPPORTED_OPERATION: operation not supported by Bolt",
    [MPI_ERR_NO_SUCH_FILE] = "MPI_ERR_NO_SUCH_FILE: file does not exist",
    [MPI_ERR_FILE_EXISTS] = "MPI_ERR_FILE_EXISTS: file exists",
    [MPI_ERR_BAD_FILE] = "MPI_ERR_BAD_FILE: invalid file name",
    [MPI_ERR_ACCESS] = "MPI_ERR_ACCESS: permission denied",
    [MPI_ERR_NO_SPACE] = "MPI_ERR_NO_SPACE: no space left on device",
    [MPI_ERR_QUOTA] = "MPI_ERR_QUOTA: quota exceeded",
    [MPI_ERR_READ_ONLY] = "MPI_ERR_READ_ONLY: read-only file or file system",
    [MPI_ERR_FILE_IN_USE] = "MPI_ERR_FILE_IN_USE: file in use",
    [MPI_ERR_DUP_DATAREP] = "MPI_ERR_DUP_DATAREP: datarep already defined",
    [MPI_ERR_CONVERSION] = "MPI_ERR_CONVERSION: error in data conversion",
    [MPI_ERR_IO] = "MPI_ERR_IO: I/O error",
    [MPI_ERR_RMA_RANGE] = "MPI_ERR_RMA_RANGE: target memory is not part of the window",
    [MPI_ERR_RMA_ATTACH] = "MPI_ERR_RMA_ATTACH: memory cannot be attached",
    [MPI_ERR_RMA_SHARED] = "MPI_ERR_RMA_SHARED: memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "MPI_ERR_RMA_FLAVOR: wrong window flavor",
    [MPI_T_ERR_MEMORY] = "MPI_T_ERR_MEMORY: out of memory",
    [MPI_T_ERR_NOT_INITIALIZED] =
        "MPI_T_ERR_NOT_INITIALIZED: the tools interface is not initialized",
    [MPI_T_ERR_CANNOT_INIT] = "MPI_T_ERR_CANNOT_INIT: the tools interface cannot be initialized",
    [MPI_T_ERR_INVALID_INDEX] = "MPI_T_ERR_INVALID_INDEX: index invalid or out of range",
    [MPI_T_ERR_INVALID_ITEM] = "MPI_T_ERR_INVALID_ITEM: item index out of range",
    [MPI_T_ERR_INVALID_HANDLE] = "MPI_T_ERR_INVALID_HANDLE: invalid handle",
    [MPI_T_ERR_OUT_OF_HANDLES] = "MPI_T_ERR_OUT_OF_HANDLES: no more handles available",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "MPI_T_ERR_OUT_OF_SESSIONS: no more sessions available",
    [MPI_T_ERR_INVALID_SESSION] = "MPI_T_ERR_INVALID_SESSION: invalid session",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] =
        "MPI_T_ERR_CVAR_SET_NOT_NOW: the control variable cannot be set now",
    [MPI_T_ERR_CVAR_SET_NEVER] = "MPI_T_ERR_CVAR_SET_NEVER: the control variable cannot be set",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] =
        "MPI_T_ERR_PVAR_NO_STARTSTOP: the performance variable cannot be started or stopped",
    [MPI_T_ERR_PVAR_NO_WRITE] =
        "MPI_T_ERR_PVAR_NO_WRITE: the performance variable cannot be written or reset",
    [MPI_T_ERR_PVAR_NO_ATOMIC] = "MPI_T_ERR_PVAR_NO_ATOMIC: the performance variable cannot be "
                                 "read and written atomically",
    [MPI_T_ERR_INVALID_NAME] = "MPI_T_ERR_INVALID_NAME: no variable or category has this name",
    [MPI_T_ERR_INVALID] = "MPI_T_ERR_INVALID: invalid use of the tools interface",
};

/* User error handlers created with MPI_Comm_create_errhandler. A handler
 * is an object with references (MPI 3.1, 8.3): its handle holds one until
 * MPI_Errhandler_free, every communicator using it one, and each
 * MPI_Comm_get_errhandler gives one more. The last release frees the slot
 * for the next handler. */
struct user_errh {
    MPI_Comm_errhandler_function *fn; /* NULL: a free slot */
    int refs;
};
static struct user_errh *user_errh;
static int n_errh = 3, cap_errh; /* 0 NULL, 1 fatal, 2 return: predefined, not counted */

static int is_user_errh(MPI_Errhandler h)
{
    return h > MPI_ERRORS_RETURN && h < n_errh && user_errh[h].fn;
}

int face_errh_live(MPI_Errhandler h)
{
    return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN || is_user_errh(h);
}

void face_errh_hold(MPI_Errhandler h)
{
    if (is_user_errh(h))
        user_errh[h].refs++;
}

void face_errh_release(MPI_Errhandler h)
{
    if (is_user_errh(h) && --user_errh[h].refs == 0)
        user_errh[h].fn = NULL;
}

void face_comm_set_errh(struct face_comm *c, MPI_Errhandler h)
{
    face_errh_hold(h); /* first: h may be the one it replaces */
    face_errh_release(c->errh);
    c->errh = h;
}

static _Thread_local char last_message[1024];

int face_class_of_native(int native)
{
    switch (native) {
    case BOLT_OK: return MPI_SUCCESS;
    case BOLT_ERR_ARG: return MPI_ERR_ARG;
    case BOLT_ERR_NOMEM: return MPI_ERR_NO_MEM;
    case BOLT_ERR_TRUNCATE: return MPI_ERR_TRUNCATE;
    case BOLT_ERR_PENDING: return MPI_ERR_IN_STATUS;
    case BOLT_ERR_UNSUPPORTED: return MPI_ERR_UNSUPPORTED_OPERATION;
    case BOLT_ERR_INTERNAL: return MPI_ERR_INTERN;
    default: return MPI_ERR_OTHER; /* a dead peer, a timeout, ...: the message says which */
    }
}

static int comm_errhandler(MPI_Comm comm)
{
    struct face_comm *c = face_comm_get(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm);
    return c ? c->errh : MPI_ERRORS_ARE_FATAL;
}

/* Calls handler h for an error of object obj (a communicator, window or
 * file: all ints), or ends the job under MPI_ERRORS_ARE_FATAL. */
static int raise_on(MPI_Errhandler h, int obj, const char *what, const char *fn, int cls,
                    const char *msg)
{
    if (h == MPI_ERRORS_RETURN)
        return cls;
    if (is_user_errh(h)) {
        int o = obj, code = cls;
        user_errh[h].fn(&o, &code, fn);
        return cls;
    }
    fprintf(stderr, "%s\n%s: MPI_ERRORS_ARE_FATAL is set on the %s: ending the job\n", msg, fn,
            what);
    fflush(stderr);
    bolt_abort(cls ? cls : 1, msg);
    return cls; /* not reached */
}

static int raise(MPI_Comm comm, const char *fn, int cls, const char *msg)
{
    return raise_on(comm_errhandler(comm), comm, "communicator", fn, cls, msg);
}

/* The message of an error: "rank R on H: fn: detail (CLASS)", kept for
 * bolt_error_message() too. */
static void message(const char *fn, int cls, const char *fmt, va_list ap)
{
    char detail[768];
    vsnprintf(detail, sizeof detail, fmt, ap);
    char name[64];
    if (cls > 0 && cls < MPI_ERR_LASTCODE && class_text[cls])
        snprintf(name, sizeof name, "%.*s", (int)strcspn(class_text[cls], ":"), class_text[cls]);
    else if (face_errcode_class(cls) >= 0) /* added by the program */
        snprintf(name, sizeof name, "error code %d, of class %d", cls, face_errcode_class(cls));
    else
        snprintf(name, sizeof name, "error %d", cls);
    /* bolt_err_set puts "rank R on H: " in front, as in every Bolt message. */
    bolt_err_set(BOLT_ERR_ARG, "%s: %s (%s)", fn, detail, name);
    snprintf(last_message, sizeof last_message, "%s", bolt_error_message());
}

int face_error(MPI_Comm comm, const char *fn, int cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message(fn, cls, fmt, ap);
    va_end(ap);
    return raise(comm, fn, cls, last_message);
}

int face_error_on(MPI_Errhandler h, int obj, const char *what, const char *fn, int cls,
                  const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message(fn, cls, fmt, ap);
    va_end(ap);
    return raise_on(h, obj, what, fn, cls, last_message);
}

int face_native_error(MPI_Comm comm, const char *fn, int native)
{
    int cls = face_class_of_native(native);
    snprintf(last_message, sizeof last_message, "%s: %s", fn, bolt_error_message());
    return raise(comm, fn, cls, last_message);
}

const char *face_last_message(void) { return last_message; }

int PMPI_Error_class(int code, int *cls)
{
    if (!cls)
        return MPI_ERR_ARG;
    int added = face_errcode_class(code);
    if (added >= 0) {
        *cls = added;
        return MPI_SUCCESS;
    }
    if (code < 0 || code >= MPI_ERR_LASTCODE)
        return face_error(MPI_COMM_NULL, "MPI_Error_class", MPI_ERR_ARG,
                          "error code %d is not an MPI error code (0..%d, or one added by "
                          "MPI_Add_error_class or MPI_Add_error_code)",
                          code, MPI_ERR_LASTCODE - 1);
    *cls = code;
    return MPI_SUCCESS;
}

int PMPI_Error_string(int code, char *string, int *len)
{
    if (!string || !len)
        return MPI_ERR_ARG;
    /* A code added by the program: its string, empty until it sets one. */
    const char *t = face_errcode_class(code) >= 0 ? face_errcode_string(code)
                    : code >= 0 && code < MPI_ERR_LASTCODE && class_text[code]
                        ? class_text[code]
                        : "unknown error code";
    snprintf(string, MPI_MAX_ERROR_STRING, "%s", t);
    *len = (int)strlen(string);
    return MPI_SUCCESS;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errh)
{
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, "MPI_Comm_set_errhandler", &c);
    if (rc)
        return rc;
    if (errh != MPI_ERRORS_ARE_FATAL && errh != MPI_ERRORS_RETURN && !is_user_errh(errh))
        return face_error(comm, "MPI_Comm_set_errhandler", MPI_ERR_ARG,
                          "error handler %d is not a valid handler", errh);
    face_comm_set_errh(c, errh);
    return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errh)
{
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, "MPI_Comm_get_errhandler", &c);
    if (rc)
        return rc;
    if (!errh)
        return face_error(comm, "MPI_Comm_get_errhandler", MPI_ERR_ARG, "errhandler pointer is NULL");
    /* A new reference, as the standard says: the caller frees it. */
    face_errh_hold(c->errh);
    *errh = c->errh;
    return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errh)
{
    if (!fn || !errh)
        return face_error(MPI_COMM_NULL, "MPI_Comm_create_errhandler", MPI_ERR_ARG,
                          "function or handle pointer is NULL");
    int slot = -1;
    for (int i = MPI_ERRORS_RETURN + 1; i < n_errh && slot < 0; i++)
        if (!user_errh[i].fn)
            slot = i;
    if (slot < 0) {
        if (n_errh >= cap_errh) { /* the first time, the predefined three get slots too */
            int n = cap_errh ? cap_errh * 2 : 16;
            struct user_errh *t = realloc(user_errh, (size_t)n * sizeof *t);
            if (!t)
                return face_error(MPI_COMM_NULL, "MPI_Comm_create_errhandler", MPI_ERR_NO_MEM,
                                  "out of memory for %d error handlers", n_errh);
            user_errh = t;
            cap_errh = n;
        }
        slot = n_errh++;
    }
    user_errh[slot] = (struct user_errh){fn, 1}; /* the handle's reference */
    *errh = slot;
    return MPI_SUCCESS;
}

int PMPI_Comm_call_errhandler(MPI_Comm comm, int code)
{
    struct face_comm *c = NULL;
    int rc = face_comm_check(comm, "MPI_Comm_call_errhandler", &c);
    if (rc)
        return rc;
    /* MPI_SUCCESS once the handler returns (MPI 3.1, 8.3.6), whatever the code. */
    face_error(comm, "MPI_Comm_call_errhandler", code, "called by the program");
    return MPI_SUCCESS;
}

int PMPI_Errhandler_free(MPI_Errhandler *errh)
{
    if (!errh)
        return face_error(MPI_COMM_NULL, "MPI_Errhandler_free", MPI_ERR_ARG, "handle pointer is NULL");
    /* Predefined handlers (as MPI_Comm_get_errhandler may give) are never
     * released; a user one goes when no communicator uses it any more. */
    if (*errh != MPI_ERRORS_ARE_FATAL && *errh != MPI_ERRORS_RETURN && !is_user_errh(*errh))
        return face_error(MPI_COMM_NULL, "MPI_Errhandler_free", MPI_ERR_ARG,
                          "error handler %d is not a live handler (freed already?)", *errh);
    face_errh_release(*errh);
    *errh = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
