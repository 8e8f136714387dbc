/* mpi_keyval_errh.c — keyvals and error handlers by their other names:
 * MPI-1's attribute calls (MPI_Keyval_create/free, MPI_Attr_put/get/delete,
 * with MPI_NULL_COPY_FN and MPI_DUP_FN), window keyvals and error handlers
 * (which need no window), and the error handler of MPI_FILE_NULL, which
 * files use by default and MPI_File_open's errors go to: MPI_ERRORS_RETURN
 * until the program sets another. MPI_Errhandler_create/set/get,
 * which MPI 3.0 removed (Open MPI 4.1 no longer declares them), are checked
 * on Bolt only. */
#include "mtest.h"

/* Open MPI marks the MPI-1 names deprecated. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static int deletes, handler_calls, handler_code;

static int count_delete(MPI_Comm c, int k, void *v, void *extra)
{
    (void)c, (void)k, (void)v, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static void record(MPI_Comm *c, int *code, ...)
{
    (void)c;
    handler_calls++;
    handler_code = *code;
}

static void record_file(MPI_File *f, int *code, ...)
{
    (void)f;
    handler_calls++;
    handler_code = *code;
}

static void record_win(MPI_Win *w, int *code, ...)
{
    (void)w;
    handler_calls++;
    handler_code = *code;
}

static void mpi1_attributes(void)
{
    int kdup, knull, flag = 0, *ub = NULL;
    static int x = 5, y = 6;
    void *v = NULL;
    MPI_Comm c, d;
    CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    CHECK(flag && ub && *ub >= 32767, "MPI_TAG_UB through MPI_Attr_get: flag %d", flag);
    CHECK_MPI(MPI_Keyval_create(MPI_DUP_FN, count_delete, &kdup, NULL));
    CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &knull, NULL));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Attr_put(c, kdup, &x));
    CHECK_MPI(MPI_Attr_put(c, knull, &y));
    CHECK_MPI(MPI_Attr_get(c, kdup, &v, &flag));
    CHECK(flag && v == &x, "MPI_Attr_get: flag %d", flag);
    deletes = 0;
    CHECK_MPI(MPI_Comm_dup(c, &d));
    CHECK_MPI(MPI_Attr_get(d, kdup, &v, &flag));
    CHECK(flag && v == &x, "MPI_DUP_FN copied: flag %d", flag);
    CHECK_MPI(MPI_Attr_get(d, knull, &v, &flag));
    CHECK(!flag, "MPI_NULL_COPY_FN did not stop the copy");
    CHECK_MPI(MPI_Attr_delete(c, kdup));
    CHECK(deletes == 1, "MPI_Attr_delete ran %d delete callbacks", deletes);
    CHECK_MPI(MPI_Attr_get(c, kdup, &v, &flag));
    CHECK(!flag, "the attribute is still there after MPI_Attr_delete");
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK(deletes == 2, "freeing the duplicate: %d delete callbacks in all", deletes);
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_MPI(MPI_Keyval_free(&kdup));
    CHECK_MPI(MPI_Keyval_free(&knull));
    CHECK(kdup == MPI_KEYVAL_INVALID && knull == MPI_KEYVAL_INVALID, "keyvals not invalidated");
}

static void windows(void)
{
    int k1 = MPI_KEYVAL_INVALID, k2 = MPI_KEYVAL_INVALID;
    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &k1, NULL));
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &k2, NULL));
    CHECK(k1 != MPI_KEYVAL_INVALID && k2 != MPI_KEYVAL_INVALID && k1 != k2, "keyvals %d %d", k1,
          k2);
    CHECK_MPI(MPI_Win_free_keyval(&k1));
    CHECK_MPI(MPI_Win_free_keyval(&k2));
    CHECK(k1 == MPI_KEYVAL_INVALID && k2 == MPI_KEYVAL_INVALID, "keyvals not invalidated");
    CHECK_MPI(MPI_Win_create_errhandler(record_win, &h));
    CHECK(h != MPI_ERRHANDLER_NULL, "no window error handler");
    CHECK_MPI(MPI_Errhandler_free(&h));
}

static void files(void)
{
    MPI_Errhandler h = MPI_ERRHANDLER_NULL, got = MPI_ERRHANDLER_NULL;
    CHECK_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
    CHECK(got == MPI_ERRORS_RETURN, "files' default handler is not MPI_ERRORS_RETURN");
    CHECK_MPI(MPI_Errhandler_free(&got));
    CHECK_MPI(MPI_File_create_errhandler(record_file, &h));
    CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, h));
    CHECK_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
    CHECK(got == h, "MPI_FILE_NULL's handler is not the one set");
    CHECK_MPI(MPI_Errhandler_free(&got));
    CHECK_MPI(MPI_Errhandler_free(&h)); /* still set: still called */
    /* Opening a file that cannot be opened raises on MPI_FILE_NULL's handler. */
    MPI_File fh;
    handler_calls = 0;
    int rc =
        MPI_File_open(MPI_COMM_SELF, "/nonexistent-dir/x", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(rc != MPI_SUCCESS && handler_calls == 1, "File_open: rc %d, %d handler calls", rc,
          handler_calls);
    CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    rc = MPI_File_open(MPI_COMM_SELF, "/nonexistent-dir/x", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(rc != MPI_SUCCESS, "File_open succeeded");
}

static void mpi1_errhandlers(void)
{
#ifdef BOLT_MPI
    MPI_Errhandler h, got;
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Errhandler_create(record, &h));
    CHECK_MPI(MPI_Errhandler_set(c, h));
    CHECK_MPI(MPI_Errhandler_get(c, &got));
    CHECK(got == h, "MPI_Errhandler_get: not the handler set");
    handler_calls = 0;
    CHECK_MPI(MPI_Comm_call_errhandler(c, MPI_ERR_OTHER));
    CHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER, "%d calls", handler_calls);
    CHECK_MPI(MPI_Errhandler_free(&got));
    CHECK_MPI(MPI_Errhandler_free(&h));
    CHECK_MPI(MPI_Comm_free(&c));
#endif
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_keyval_errh");
    mpi1_attributes();
    windows();
    files();
    mpi1_errhandlers();
    return mt_finish();
}
