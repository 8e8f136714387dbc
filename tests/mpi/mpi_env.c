/* mpi_env.c — the environment calls and error handling: thread levels,
 * versions, names, clocks, memory, and MPI_ERRORS_RETURN for every kind
 * of invalid argument. */
#include "mtest.h"

int main(int argc, char **argv)
{
    int provided, flag, v, sv, len, cls;
    mt_name = "mpi_env";
    MPI_Initialized(&flag);
    if (flag)
        return 1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
    CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided %d", provided);
    int q;
    MPI_Query_thread(&q);
    CHECK(q == provided, "query_thread %d, provided %d", q, provided);
    MPI_Is_thread_main(&flag);
    CHECK(flag, "main thread is not main");
    MPI_Initialized(&flag);
    CHECK(flag, "not initialized after init");
    MPI_Get_version(&v, &sv);
    CHECK(v >= 3, "version %d.%d", v, sv);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], host[MPI_MAX_PROCESSOR_NAME];
    MPI_Get_library_version(lib, &len);
    /* (Open MPI 4.1 counts the terminating NUL in len; the standard says not to.) */
    CHECK(len > 0 && strlen(lib) > 0 && len <= (int)strlen(lib) + 1, "library version '%s'", lib);
    MPI_Get_processor_name(host, &len);
    CHECK(len > 0 && len == (int)strlen(host), "processor name '%s'", host);
    double t0 = MPI_Wtime(), tick = MPI_Wtick();
    CHECK(tick > 0 && tick < 0.01, "tick %g", tick);
    CHECK(MPI_Wtime() >= t0, "time went backwards");
    double *mem;
    CHECK_MPI(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &mem));
    mem[0] = 1;
    mem[(1 << 17) - 1] = 2;
    CHECK_MPI(MPI_Free_mem(mem));
    MPI_Pcontrol(1);

    /* Errors come back as codes with MPI_ERRORS_RETURN. */
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "default handler is not MPI_ERRORS_ARE_FATAL");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x = 0, rc;
    struct { int rc, want; const char *what; } cases[] = {
        {MPI_Send(&x, 1, MPI_INT, mt_size, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "rank = size"},
        {MPI_Send(&x, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "rank -5"},
        {MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "count -1"},
        {MPI_Send(&x, 1, MPI_INT, 0, -3, MPI_COMM_WORLD), MPI_ERR_TAG, "tag -3"},
        {MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "null type"},
        {MPI_Send(NULL, 4, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "null buffer"},
        {MPI_Recv(&x, 1, MPI_INT, 0, MPI_ANY_TAG - 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TAG, "recv tag"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        MPI_Error_class(cases[i].rc, &cls);
        CHECK(cls == cases[i].want, "%s: class %d, want %d", cases[i].what, cls, cases[i].want);
    }
    /* Uncommitted derived type. */
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_INT, &t);
    int two[2];
    rc = MPI_Send(two, 1, t, 0, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE, "uncommitted type: class %d", cls);
    MPI_Type_free(&t);
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Error_string(MPI_ERR_RANK, msg, &len);
    CHECK(len > 0 && len == (int)strlen(msg), "error string '%s'", msg);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return mt_finish();
}
