/* file.c — MPI-IO (MPI 3.1, chapter 13) is not supported by Bolt: every file
 * call exists with its standard signature, so codes link, and reports
 * MPI_ERR_UNSUPPORTED_OPERATION (output handles set to their NULL value
 * first). As the standard says for file errors, they are raised on the
 * error handler of MPI_FILE_NULL (no file handle is ever valid here), which
 * is MPI_ERRORS_RETURN unless the program sets another: a code that tries
 * MPI-IO and falls back to plain I/O keeps running. That handler is real:
 * MPI_File_create_errhandler and MPI_File_set/get_errhandler work on
 * MPI_FILE_NULL. File handles convert with MPI_File_c2f/f2c (handles.c);
 * MPI_Register_datarep, tied to no file, is in unsupported.c. */
#include "mpi/face.h"

static MPI_Errhandler file_null_errh = MPI_ERRORS_RETURN;

static int file_error(const char *fn, int cls, const char *detail)
{
    return face_error_on(file_null_errh, MPI_FILE_NULL, "file", fn, cls, "%s", detail);
}

static int unsupported(const char *fn)
{
    int rc = face_check_init(fn);
    if (rc)
        return rc;
    return file_error(fn, MPI_ERR_UNSUPPORTED_OPERATION,
                      "MPI-IO (parallel file access) is not supported by Bolt (see README: MPI "
                      "support)");
}

/* A call on a file handle: none is valid but MPI_FILE_NULL, where allowed. */
static int check_file(MPI_File fh, const char *fn)
{
    int rc = face_check_init(fn);
    if (rc || fh == MPI_FILE_NULL)
        return rc;
    return file_error(
        fn, MPI_ERR_FILE,
        "no file is open (Bolt does not support MPI-IO): only MPI_FILE_NULL is valid");
}

/* ---- the error handler of MPI_FILE_NULL, the default of files ------------------------------ */
int PMPI_File_create_errhandler(MPI_File_errhandler_function *function, MPI_Errhandler *errhandler)
{
    /* MPI_File and MPI_Comm are both ints: a handler of one has the other's type. */
    return PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)function, errhandler);
}

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    const char *fn = "MPI_File_set_errhandler";
    int rc = check_file(file, fn);
    if (rc)
        return rc;
    if (!face_errh_live(errhandler))
        return file_error(fn, MPI_ERR_ARG, "the error handler is not a live handler");
    face_errh_hold(errhandler); /* first: it may be the one it replaces */
    face_errh_release(file_null_errh);
    file_null_errh = errhandler;
    return MPI_SUCCESS;
}

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_File_get_errhandler";
    int rc = check_file(file, fn);
    if (rc)
        return rc;
    if (!errhandler)
        return file_error(fn, MPI_ERR_ARG, "errhandler pointer is NULL");
    face_errh_hold(file_null_errh); /* a reference of the caller's, to free */
    *errhandler = file_null_errh;
    return MPI_SUCCESS;
}

/* Its file must be an open one: there is none. */
int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    const char *fn = "MPI_File_call_errhandler";
    int rc = face_check_init(fn);
    (void)errorcode;
    if (rc)
        return rc;
    return file_error(fn, MPI_ERR_FILE,
                      fh == MPI_FILE_NULL ? "the file is MPI_FILE_NULL (no file is open: Bolt does "
                                            "not support MPI-IO)"
                                          : "no file is open (Bolt does not support MPI-IO)");
}

/* ---- every other call ------------------------------------------------------------------------ */
/* An expression: stubs list it among their (void) casts. */
#define SET(p, v) ((p) ? (void)(*(p) = (v)) : (void)0)
#define FILE_STUB(name, params, ...)                                                               \
    int PMPI_##name params                                                                         \
    {                                                                                              \
        __VA_ARGS__;                                                                               \
        return unsupported("MPI_" #name);                                                          \
    }
FILE_STUB(File_close, (MPI_File *fh), (void)fh)
FILE_STUB(File_delete, (const char *filename, MPI_Info info), (void)filename, (void)info)
FILE_STUB(File_get_amode, (MPI_File fh, int *amode), (void)fh, (void)amode)
FILE_STUB(File_get_atomicity, (MPI_File fh, int *flag), (void)fh, (void)flag)
FILE_STUB(File_get_byte_offset, (MPI_File fh, MPI_Offset offset, MPI_Offset *disp), (void)fh,
          (void)offset, (void)disp)
FILE_STUB(File_get_group, (MPI_File fh, MPI_Group *group), (void)fh, SET(group, MPI_GROUP_NULL))
FILE_STUB(File_get_info, (MPI_File fh, MPI_Info *info_used), (void)fh,
          SET(info_used, MPI_INFO_NULL))
FILE_STUB(File_get_position, (MPI_File fh, MPI_Offset *offset), (void)fh, (void)offset)
FILE_STUB(File_get_position_shared, (MPI_File fh, MPI_Offset *offset), (void)fh, (void)offset)
FILE_STUB(File_get_size, (MPI_File fh, MPI_Offset *size), (void)fh, (void)size)
FILE_STUB(File_get_type_extent, (MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent), (void)fh,
          (void)datatype, (void)extent)
FILE_STUB(File_get_view,
          (MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
           char *datarep),
          (void)fh, (void)disp, (void)etype, (void)filetype, (void)datarep)
FILE_STUB(File_iread,
          (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request),
          (void)fh, (void)buf, (void)count, (void)datatype, SET(request, MPI_REQUEST_NULL))
FILE_STUB(File_iread_all,
          (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request),
          (void)fh, (void)buf, (void)count, (void)datatype, SET(request, MPI_REQUEST_NULL))
FILE_STUB(File_iread_at,
          (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
           MPI_Request *request),
          (void)fh, (void)offset, (void)buf, (void)count, (void)datatype,
          SET(request, MPI_REQUEST_NULL))
FILE_STUB(File_iread_at_all,
          (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
           MPI_Request *request),
          (void)fh, (void)offset, (void)buf, (void)count, (void)datatype,
          SET(request, MPI_REQUEST_NULL))
FILE_STUB(File_iread_shared,
          (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request),
          (void)fh, (void)buf, (void)count, (void)datatype, SET(request, MPI_REQUEST_NULL))
FILE_STUB(File_iwrite,
          (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request),
          (void)fh, (void)buf, (void)count, (void)datatype, SET(request, MPI_REQUEST_NULL))
FILE_STUB(File_iwrite_all,
          (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request),
          (void)fh, (void)buf, (void)count, (void)datatype, SET(request, MPI_REQUEST_NULL))
FILE_STUB(File_iwrite_at,
          (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
           MPI_Request *request),
          (void)fh, (void)offset, (void)buf, (void)count, (void)datatype,
          SET(request, MPI_REQUEST_NULL))
FILE_STUB(File_iwrite_at_all,
          (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
           MPI_Request *request),
          (void)fh, (void)offset, (void)buf, (void)count, (void)datatype,
          SET(request, MPI_REQUEST_NULL))
FILE_STUB(File_iwrite_shared,
          (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request),
          (void)fh, (void)buf, (void)count, (void)datatype, SET(request, MPI_REQUEST_NULL))
FILE_STUB(File_preallocate, (MPI_File fh, MPI_Offset size), (void)fh, (void)size)
FILE_STUB(File_read, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status),
          (void)fh, (void)buf, (void)count, (void)datatype, (void)status)
FILE_STUB(File_read_all,
          (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status), (void)fh,
          (void)buf, (void)count, (void)datatype, (void)status)
FILE_STUB(File_read_all_begin, (MPI_File fh, void *buf, int count, MPI_Datatype datatype), (void)fh,
          (void)buf, (void)count, (void)datatype)
FILE_STUB(File_read_all_end, (MPI_File fh, void *buf, MPI_Status *status), (void)fh, (void)buf,
          (void)status)
FILE_STUB(File_read_at,
          (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
           MPI_Status *status),
          (void)fh, (void)offset, (void)buf, (void)count, (void)datatype, (void)status)
FILE_STUB(File_read_at_all,
          (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
           MPI_Status *status),
          (void)fh, (void)offset, (void)buf, (void)count, (void)datatype, (void)status)
FILE_STUB(File_read_at_all_begin,
          (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype), (void)fh,
          (void)offset, (void)buf, (void)count, (void)datatype)
FILE_STUB(File_read_at_all_end, (MPI_File fh, void *buf, MPI_Status *status), (void)fh, (void)buf,
          (void)status)
FILE_STUB(File_read_ordered,
          (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status), (void)fh,
          (void)buf, (void)count, (void)datatype, (void)status)
FILE_STUB(File_read_ordered_begin, (MPI_File fh, void *buf, int count, MPI_Datatype datatype),
          (void)fh, (void)buf, (void)count, (void)datatype)
FILE_STUB(File_read_ordered_end, (MPI_File fh, void *buf, MPI_Status *status), (void)fh, (void)buf,
          (void)status)
FILE_STUB(File_read_shared,
          (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status), (void)fh,
          (void)buf, (void)count, (void)datatype, (void)status)
FILE_STUB(File_seek, (MPI_File fh, MPI_Offset offset, int whence), (void)fh, (void)offset,
          (void)whence)
FILE_STUB(File_seek_shared, (MPI_File fh, MPI_Offset offset, int whence), (void)fh, (void)offset,
          (void)whence)
FILE_STUB(File_set_atomicity, (MPI_File fh, int flag), (void)fh, (void)flag)
FILE_STUB(File_set_info, (MPI_File fh, MPI_Info info), (void)fh, (void)info)
FILE_STUB(File_set_size, (MPI_File fh, MPI_Offset size), (void)fh, (void)size)
FILE_STUB(File_set_view,
          (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
           const char *datarep, MPI_Info info),
          (void)fh, (void)disp, (void)etype, (void)filetype, (void)datarep, (void)info)
FILE_STUB(File_sync, (MPI_File fh), (void)fh)
FILE_STUB(File_write,
          (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status),
          (void)fh, (void)buf, (void)count, (void)datatype, (void)status)
FILE_STUB(File_write_all,
          (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status),
          (void)fh, (void)buf, (void)count, (void)datatype, (void)status)
FILE_STUB(File_write_all_begin, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype),
          (void)fh, (void)buf, (void)count, (void)datatype)
FILE_STUB(File_write_all_end, (MPI_File fh, const void *buf, MPI_Status *status), (void)fh,
          (void)buf, (void)status)
FILE_STUB(File_write_at,
          (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
           MPI_Status *status),
          (void)fh, (void)offset, (void)buf, (void)count, (void)datatype, (void)status)
FILE_STUB(File_write_at_all,
          (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype,
           MPI_Status *status),
          (void)fh, (void)offset, (void)buf, (void)count, (void)datatype, (void)status)
FILE_STUB(File_write_at_all_begin,
          (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype),
          (void)fh, (void)offset, (void)buf, (void)count, (void)datatype)
FILE_STUB(File_write_at_all_end, (MPI_File fh, const void *buf, MPI_Status *status), (void)fh,
          (void)buf, (void)status)
FILE_STUB(File_write_ordered,
          (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status),
          (void)fh, (void)buf, (void)count, (void)datatype, (void)status)
FILE_STUB(File_write_ordered_begin,
          (MPI_File fh, const void *buf, int count, MPI_Datatype datatype), (void)fh, (void)buf,
          (void)count, (void)datatype)
FILE_STUB(File_write_ordered_end, (MPI_File fh, const void *buf, MPI_Status *status), (void)fh,
          (void)buf, (void)status)
FILE_STUB(File_write_shared,
          (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status),
          (void)fh, (void)buf, (void)count, (void)datatype, (void)status)

int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    (void)comm, (void)filename, (void)amode, (void)info;
    SET(fh, MPI_FILE_NULL);
    return unsupported("MPI_File_open");
}
