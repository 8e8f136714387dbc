/* mpi_unsupported_more.c — the rest of MPI-IO (mpi_unsupported.c checks
 * the main calls): with MPI_ERRORS_RETURN every one returns
 * MPI_ERR_UNSUPPORTED_OPERATION and sets its output handles to NULL; the
 * rarer window calls, given MPI_WIN_NULL, return MPI_ERR_WIN (one-sided
 * communication is supported: mpi_rma_*.c). Window keyvals and error handlers, and MPI_FILE_NULL's error
 * handler, are real (mpi_keyval_errh.c); a file's MPI_File_call_errhandler
 * finds no open file (MPI_ERR_FILE). Open MPI supports all of these, so
 * this program runs on Bolt only. */
#include "mtest.h"

/* One-sided calls are supported: on MPI_WIN_NULL they fail with MPI_ERR_WIN. */
#define BAD_WIN(call)                                                                              \
    do {                                                                                           \
        int rc_ = (call), cls_ = -1;                                                               \
        MPI_Error_class(rc_, &cls_);                                                               \
        CHECK(cls_ == MPI_ERR_WIN, "%s on MPI_WIN_NULL returned class %d", #call, cls_);           \
        n_win++;                                                                                   \
    } while (0)

#define UNSUPPORTED(call)                                                                          \
    do {                                                                                           \
        int rc_ = (call), cls_ = -1;                                                               \
        MPI_Error_class(rc_, &cls_);                                                               \
        CHECK(cls_ == MPI_ERR_UNSUPPORTED_OPERATION, "%s returned class %d", #call, cls_);         \
        n_calls++;                                                                                 \
    } while (0)

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_unsupported_more");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int n_calls = 0, n_win = 0, buf[4] = {0}, n = 0, wk, rc, cls = -1;
    char text[MPI_MAX_OBJECT_NAME] = "";
    void *ptr = NULL;
    MPI_Win win = MPI_WIN_NULL;
    MPI_File fh = MPI_FILE_NULL;
    MPI_Datatype dt;
    MPI_Offset off;
    MPI_Aint aint;
    MPI_Request r = 1;
    MPI_Group g = MPI_GROUP_EMPTY;
    MPI_Info info = MPI_INFO_ENV;
    MPI_Errhandler eh = MPI_ERRORS_RETURN;
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &wk, NULL));

    UNSUPPORTED(MPI_File_get_amode(fh, &n));
    UNSUPPORTED(MPI_File_get_atomicity(fh, &n));
    UNSUPPORTED(MPI_File_get_byte_offset(fh, 0, &off));
    UNSUPPORTED(MPI_File_get_group(fh, &g));
    UNSUPPORTED(MPI_File_get_info(fh, &info));
    UNSUPPORTED(MPI_File_get_position(fh, &off));
    UNSUPPORTED(MPI_File_get_position_shared(fh, &off));
    UNSUPPORTED(MPI_File_get_type_extent(fh, MPI_INT, &aint));
    UNSUPPORTED(MPI_File_get_view(fh, &off, &dt, &dt, text));
    UNSUPPORTED(MPI_File_iread(fh, buf, 1, MPI_INT, &r));
    UNSUPPORTED(MPI_File_iread_all(fh, buf, 1, MPI_INT, &r));
    UNSUPPORTED(MPI_File_iread_at(fh, 0, buf, 1, MPI_INT, &r));
    UNSUPPORTED(MPI_File_iread_at_all(fh, 0, buf, 1, MPI_INT, &r));
    UNSUPPORTED(MPI_File_iread_shared(fh, buf, 1, MPI_INT, &r));
    UNSUPPORTED(MPI_File_iwrite(fh, buf, 1, MPI_INT, &r));
    UNSUPPORTED(MPI_File_iwrite_all(fh, buf, 1, MPI_INT, &r));
    UNSUPPORTED(MPI_File_iwrite_at(fh, 0, buf, 1, MPI_INT, &r));
    UNSUPPORTED(MPI_File_iwrite_at_all(fh, 0, buf, 1, MPI_INT, &r));
    UNSUPPORTED(MPI_File_iwrite_shared(fh, buf, 1, MPI_INT, &r));
    UNSUPPORTED(MPI_File_preallocate(fh, 0));
    UNSUPPORTED(MPI_File_read_all_begin(fh, buf, 1, MPI_INT));
    UNSUPPORTED(MPI_File_read_all_end(fh, buf, MPI_STATUS_IGNORE));
    UNSUPPORTED(MPI_File_read_at_all(fh, 0, buf, 1, MPI_INT, MPI_STATUS_IGNORE));
    UNSUPPORTED(MPI_File_read_at_all_begin(fh, 0, buf, 1, MPI_INT));
    UNSUPPORTED(MPI_File_read_at_all_end(fh, buf, MPI_STATUS_IGNORE));
    UNSUPPORTED(MPI_File_read_ordered(fh, buf, 1, MPI_INT, MPI_STATUS_IGNORE));
    UNSUPPORTED(MPI_File_read_ordered_begin(fh, buf, 1, MPI_INT));
    UNSUPPORTED(MPI_File_read_ordered_end(fh, buf, MPI_STATUS_IGNORE));
    UNSUPPORTED(MPI_File_read_shared(fh, buf, 1, MPI_INT, MPI_STATUS_IGNORE));
    UNSUPPORTED(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    UNSUPPORTED(MPI_File_set_atomicity(fh, 0));
    UNSUPPORTED(MPI_File_set_info(fh, MPI_INFO_NULL));
    UNSUPPORTED(MPI_File_set_size(fh, 0));
    UNSUPPORTED(MPI_File_write_all_begin(fh, buf, 1, MPI_INT));
    UNSUPPORTED(MPI_File_write_all_end(fh, buf, MPI_STATUS_IGNORE));
    UNSUPPORTED(MPI_File_write_at_all(fh, 0, buf, 1, MPI_INT, MPI_STATUS_IGNORE));
    UNSUPPORTED(MPI_File_write_at_all_begin(fh, 0, buf, 1, MPI_INT));
    UNSUPPORTED(MPI_File_write_at_all_end(fh, buf, MPI_STATUS_IGNORE));
    UNSUPPORTED(MPI_File_write_ordered(fh, buf, 1, MPI_INT, MPI_STATUS_IGNORE));
    UNSUPPORTED(MPI_File_write_ordered_begin(fh, buf, 1, MPI_INT));
    UNSUPPORTED(MPI_File_write_ordered_end(fh, buf, MPI_STATUS_IGNORE));
    UNSUPPORTED(MPI_File_write_shared(fh, buf, 1, MPI_INT, MPI_STATUS_IGNORE));
    BAD_WIN(MPI_Raccumulate(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win, &r));
    UNSUPPORTED(
        MPI_Register_datarep("x", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, NULL, NULL));
    BAD_WIN(
        MPI_Rget_accumulate(buf, 1, MPI_INT, buf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win, &r));
    BAD_WIN(MPI_Win_attach(win, buf, 0));
    BAD_WIN(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    BAD_WIN(MPI_Win_delete_attr(win, wk));
    BAD_WIN(MPI_Win_detach(win, buf));
    BAD_WIN(MPI_Win_flush_all(win));
    BAD_WIN(MPI_Win_flush_local(0, win));
    BAD_WIN(MPI_Win_flush_local_all(win));
    BAD_WIN(MPI_Win_get_attr(win, wk, &ptr, &n));
    BAD_WIN(MPI_Win_get_errhandler(win, &eh));
    BAD_WIN(MPI_Win_get_group(win, &g));
    BAD_WIN(MPI_Win_get_info(win, &info));
    BAD_WIN(MPI_Win_get_name(win, text, &n));
    BAD_WIN(MPI_Win_set_attr(win, wk, &ptr));
    BAD_WIN(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    BAD_WIN(MPI_Win_set_info(win, MPI_INFO_NULL));
    BAD_WIN(MPI_Win_set_name(win, "x"));
    BAD_WIN(MPI_Win_shared_query(win, 0, &aint, &n, &ptr));
    BAD_WIN(MPI_Win_test(win, &n));

    CHECK(g == MPI_GROUP_NULL && info == MPI_INFO_NULL, "output handles left: group %d info %d",
          g, info);
    (void)r, (void)eh;
    CHECK(n_calls == 43 && n_win == 20, "%d unsupported and %d window calls checked", n_calls,
          n_win);
    rc = MPI_File_call_errhandler(fh, MPI_ERR_OTHER);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_FILE, "MPI_File_call_errhandler on no file: class %d", cls);
    CHECK_MPI(MPI_Win_free_keyval(&wk));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return mt_finish();
}
