/* mpi_unsupported.c — what Bolt does not support says so: with
 * MPI_ERRORS_RETURN every such call returns MPI_ERR_UNSUPPORTED_OPERATION
 * (Open MPI supports them, so this program runs on Bolt only), while
 * MPI_Comm_get_parent and MPI_Comm_test_inter answer successfully. */
#include "mtest.h"

#define UNSUPPORTED(call)                                                                 \
    do {                                                                                  \
        int rc_ = (call), cls_ = -1;                                                      \
        MPI_Error_class(rc_, &cls_);                                                      \
        CHECK(cls_ == MPI_ERR_UNSUPPORTED_OPERATION, "%s returned class %d", #call, cls_); \
        n_calls++;                                                                        \
    } while (0)

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_unsupported");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int n_calls = 0, buf[4] = {0}, flag = -1;
    MPI_File fh = MPI_FILE_NULL;
    MPI_Comm c = MPI_COMM_WORLD;
    MPI_Offset off;
    char port[MPI_MAX_PORT_NAME] = "port";

    /* dynamic processes */
    UNSUPPORTED(MPI_Comm_spawn("true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c,
                               MPI_ERRCODES_IGNORE));
    CHECK(c == MPI_COMM_NULL, "Comm_spawn left intercomm = %d", c);
    char *cmds[1] = {"true"};
    int maxprocs[1] = {1};
    MPI_Info infos[1] = {MPI_INFO_NULL};
    UNSUPPORTED(MPI_Comm_spawn_multiple(1, cmds, MPI_ARGVS_NULL, maxprocs, infos, 0, MPI_COMM_SELF,
                                        &c, MPI_ERRCODES_IGNORE));
    UNSUPPORTED(MPI_Open_port(MPI_INFO_NULL, port));
    UNSUPPORTED(MPI_Close_port(port));
    UNSUPPORTED(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c));
    UNSUPPORTED(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c));
    c = MPI_COMM_SELF;
    UNSUPPORTED(MPI_Comm_disconnect(&c));
    UNSUPPORTED(MPI_Comm_join(-1, &c));
    UNSUPPORTED(MPI_Publish_name("svc", MPI_INFO_NULL, port));
    UNSUPPORTED(MPI_Unpublish_name("svc", MPI_INFO_NULL, port));
    UNSUPPORTED(MPI_Lookup_name("svc", MPI_INFO_NULL, port));
    c = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_get_parent(&c));
    CHECK(c == MPI_COMM_NULL, "a Bolt job has no parent, got %d", c);

    /* MPI-IO */
    UNSUPPORTED(MPI_File_open(MPI_COMM_SELF, "/tmp/bolt-unsupported", MPI_MODE_RDWR | MPI_MODE_CREATE,
                              MPI_INFO_NULL, &fh));
    CHECK(fh == MPI_FILE_NULL, "File_open left fh = %d", fh);
    UNSUPPORTED(MPI_File_read(fh, buf, 1, MPI_INT, MPI_STATUS_IGNORE));
    UNSUPPORTED(MPI_File_read_at(fh, 0, buf, 1, MPI_INT, MPI_STATUS_IGNORE));
    UNSUPPORTED(MPI_File_read_all(fh, buf, 1, MPI_INT, MPI_STATUS_IGNORE));
    UNSUPPORTED(MPI_File_write(fh, buf, 1, MPI_INT, MPI_STATUS_IGNORE));
    UNSUPPORTED(MPI_File_write_at(fh, 0, buf, 1, MPI_INT, MPI_STATUS_IGNORE));
    UNSUPPORTED(MPI_File_write_all(fh, buf, 1, MPI_INT, MPI_STATUS_IGNORE));
    UNSUPPORTED(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    UNSUPPORTED(MPI_File_get_size(fh, &off));
    UNSUPPORTED(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    UNSUPPORTED(MPI_File_sync(fh));
    UNSUPPORTED(MPI_File_close(&fh));
    UNSUPPORTED(MPI_File_delete("/tmp/bolt-unsupported", MPI_INFO_NULL));

    /* Intercommunicators are supported (mpi_intercomm.c); the world is not one. */
    CHECK_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
    CHECK(flag == 0, "MPI_COMM_WORLD is an intercommunicator? flag %d", flag);

    CHECK(n_calls == 24, "%d unsupported calls checked", n_calls);
    /* The error string names the class. */
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(MPI_ERR_UNSUPPORTED_OPERATION, text, &len);
    CHECK(strstr(text, "not supported") != NULL, "error string '%s'", text);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return mt_finish();
}
