/* mpi_handles.c — handle conversions between C and Fortran (MPI 3.1, 17.2.4):
 * every kind of live handle survives c2f then f2c, the NULL handles stay
 * NULL, and statuses go to Fortran and back with their contents. For a
 * Fortran value that is no live handle (freed, or never made) the standard
 * only says f2c gives an invalid C handle; Bolt gives the NULL handle of its
 * kind, checked where BOLT_MPI is defined (Open MPI gives NULL for some kinds
 * and other values for the rest). */
#include "mtest.h"

#ifdef BOLT_MPI
#define CHECK_INVALID_IS_NULL(cond, ...) CHECK(cond, __VA_ARGS__)
#else
#define CHECK_INVALID_IS_NULL(cond, ...) ((void)0)
#endif

static void add_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void errh_fn(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
}

/* Values no MPI makes for a handle (Fortran handles are small indexes). */
static const MPI_Fint bogus[] = {-7, 123456, 99999999};
#define NBOGUS ((int)(sizeof bogus / sizeof bogus[0]))

static void comms(void)
{
    MPI_Comm d;
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "world");
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_SELF)) == MPI_COMM_SELF, "self");
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_NULL)) == MPI_COMM_NULL, "null");
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_Fint f = MPI_Comm_c2f(d);
    CHECK(MPI_Comm_f2c(f) == d, "a duplicate");
    /* The Fortran handle works as a C handle once converted back. */
    int size = 0;
    CHECK_MPI(MPI_Comm_size(MPI_Comm_f2c(f), &size));
    CHECK(size == mt_size, "size through the converted handle: %d", size);
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_INVALID_IS_NULL(MPI_Comm_f2c(f) == MPI_COMM_NULL,
                          "a freed communicator converts to MPI_COMM_NULL");
    for (int i = 0; i < NBOGUS; i++)
        CHECK_INVALID_IS_NULL(MPI_Comm_f2c(bogus[i]) == MPI_COMM_NULL, "bogus %d", (int)bogus[i]);
}

static void types(void)
{
    MPI_Datatype t, pre[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_2INT, MPI_BYTE};
    for (int i = 0; i < 5; i++)
        CHECK(MPI_Type_f2c(MPI_Type_c2f(pre[i])) == pre[i], "predefined type %d", i);
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DATATYPE_NULL)) == MPI_DATATYPE_NULL, "null");
    CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    MPI_Fint f = MPI_Type_c2f(t);
    CHECK(MPI_Type_f2c(f) == t, "a vector");
    int size = 0;
    CHECK_MPI(MPI_Type_size(MPI_Type_f2c(f), &size));
    CHECK(size == 3 * (int)sizeof(int), "size through the converted handle: %d", size);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_INVALID_IS_NULL(MPI_Type_f2c(f) == MPI_DATATYPE_NULL,
                          "a freed type converts to MPI_DATATYPE_NULL");
    for (int i = 0; i < NBOGUS; i++)
        CHECK_INVALID_IS_NULL(MPI_Type_f2c(bogus[i]) == MPI_DATATYPE_NULL, "bogus %d",
                              (int)bogus[i]);
}

static void groups(void)
{
    MPI_Group g;
    CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY, "empty");
    CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_NULL)) == MPI_GROUP_NULL, "null");
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &g));
    MPI_Fint f = MPI_Group_c2f(g);
    CHECK(MPI_Group_f2c(f) == g, "world's group");
    int size = 0;
    CHECK_MPI(MPI_Group_size(MPI_Group_f2c(f), &size));
    CHECK(size == mt_size, "size through the converted handle: %d", size);
    CHECK_MPI(MPI_Group_free(&g));
    CHECK_INVALID_IS_NULL(MPI_Group_f2c(f) == MPI_GROUP_NULL,
                          "a freed group converts to MPI_GROUP_NULL");
    for (int i = 0; i < NBOGUS; i++)
        CHECK_INVALID_IS_NULL(MPI_Group_f2c(bogus[i]) == MPI_GROUP_NULL, "bogus %d", (int)bogus[i]);
}

static void ops(void)
{
    MPI_Op op, pre[] = {MPI_SUM, MPI_MAX, MPI_MAXLOC, MPI_BXOR, MPI_REPLACE};
    for (int i = 0; i < 5; i++)
        CHECK(MPI_Op_f2c(MPI_Op_c2f(pre[i])) == pre[i], "predefined op %d", i);
    CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_OP_NULL)) == MPI_OP_NULL, "null");
    CHECK_MPI(MPI_Op_create(add_fn, 1, &op));
    MPI_Fint f = MPI_Op_c2f(op);
    CHECK(MPI_Op_f2c(f) == op, "a user op");
    int in = mt_rank + 1, out = 0;
    CHECK_MPI(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_Op_f2c(f), MPI_COMM_WORLD));
    CHECK(out == mt_size * (mt_size + 1) / 2, "reduction through the converted op: %d", out);
    CHECK_MPI(MPI_Op_free(&op));
    CHECK_INVALID_IS_NULL(MPI_Op_f2c(f) == MPI_OP_NULL, "a freed op converts to MPI_OP_NULL");
    for (int i = 0; i < NBOGUS; i++)
        CHECK_INVALID_IS_NULL(MPI_Op_f2c(bogus[i]) == MPI_OP_NULL, "bogus %d", (int)bogus[i]);
}

static void infos(void)
{
    MPI_Info info;
    CHECK(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_NULL)) == MPI_INFO_NULL, "null");
    CHECK(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_ENV)) == MPI_INFO_ENV, "env");
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "color", "blue"));
    MPI_Fint f = MPI_Info_c2f(info);
    CHECK(MPI_Info_f2c(f) == info, "a user info");
    char v[16] = "";
    int flag = 0;
    CHECK_MPI(MPI_Info_get(MPI_Info_f2c(f), "color", 15, v, &flag));
    CHECK(flag && !strcmp(v, "blue"), "value through the converted handle: '%s'", v);
    CHECK_MPI(MPI_Info_free(&info));
    CHECK_INVALID_IS_NULL(MPI_Info_f2c(f) == MPI_INFO_NULL,
                          "a freed info converts to MPI_INFO_NULL");
    for (int i = 0; i < NBOGUS; i++)
        CHECK_INVALID_IS_NULL(MPI_Info_f2c(bogus[i]) == MPI_INFO_NULL, "bogus %d", (int)bogus[i]);
}

static void errhandlers(void)
{
    MPI_Errhandler h;
    CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_ARE_FATAL)) == MPI_ERRORS_ARE_FATAL,
          "fatal");
    CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN, "return");
    CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRHANDLER_NULL)) == MPI_ERRHANDLER_NULL,
          "null");
    CHECK_MPI(MPI_Comm_create_errhandler(errh_fn, &h));
    MPI_Fint f = MPI_Errhandler_c2f(h);
    CHECK(MPI_Errhandler_f2c(f) == h, "a user handler");
    CHECK_MPI(MPI_Errhandler_free(&h));
    CHECK_INVALID_IS_NULL(MPI_Errhandler_f2c(f) == MPI_ERRHANDLER_NULL,
                          "a freed handler converts to MPI_ERRHANDLER_NULL");
    for (int i = 0; i < NBOGUS; i++)
        CHECK_INVALID_IS_NULL(MPI_Errhandler_f2c(bogus[i]) == MPI_ERRHANDLER_NULL, "bogus %d",
                              (int)bogus[i]);
}

/* A pending receive's request, a message found by a matched probe, and a
 * status taken to Fortran and back. */
static void requests_messages_statuses(void)
{
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    int out[3] = {mt_rank, 7, 8}, in[3] = {0};
    MPI_Request r;
    CHECK(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL, "null request");
    CHECK_MPI(MPI_Irecv(in, 3, MPI_INT, prev, 42, MPI_COMM_WORLD, &r));
    MPI_Fint fr = MPI_Request_c2f(r);
    CHECK(MPI_Request_f2c(fr) == r, "a pending receive");
    CHECK_MPI(MPI_Send(out, 3, MPI_INT, next, 42, MPI_COMM_WORLD));
    MPI_Request back = MPI_Request_f2c(fr);
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&back, &st));
    CHECK(back == MPI_REQUEST_NULL && in[0] == prev, "the converted request completed (%d)", in[0]);
    CHECK_INVALID_IS_NULL(MPI_Request_f2c(fr) == MPI_REQUEST_NULL,
                          "a completed request converts to NULL");
    for (int i = 0; i < NBOGUS; i++)
        CHECK_INVALID_IS_NULL(MPI_Request_f2c(bogus[i]) == MPI_REQUEST_NULL, "bogus request %d",
                              (int)bogus[i]);

    /* The status, in Fortran's layout (MPI_SOURCE, MPI_TAG, MPI_ERROR first), and
     * back. */
    MPI_Fint fst[sizeof(MPI_Status) / sizeof(MPI_Fint) + 4];
    MPI_Status c2;
    memset(&c2, 0, sizeof c2);
    CHECK_MPI(MPI_Status_c2f(&st, fst));
    CHECK(fst[0] == prev && fst[1] == 42, "Fortran status: source %d tag %d", (int)fst[0],
          (int)fst[1]);
    CHECK_MPI(MPI_Status_f2c(fst, &c2));
    int count = -1;
    CHECK_MPI(MPI_Get_count(&c2, MPI_INT, &count));
    CHECK(c2.MPI_SOURCE == prev && c2.MPI_TAG == 42 && count == 3,
          "status back from Fortran: source %d tag %d count %d", c2.MPI_SOURCE, c2.MPI_TAG, count);

    /* A message reserved by a matched probe. */
    MPI_Message m = MPI_MESSAGE_NULL;
    int flag = 0;
    CHECK(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NULL)) == MPI_MESSAGE_NULL, "null message");
    CHECK(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC, "no proc");
    CHECK_MPI(MPI_Send(out, 3, MPI_INT, next, 43, MPI_COMM_WORLD));
    while (!flag)
        CHECK_MPI(MPI_Improbe(prev, 43, MPI_COMM_WORLD, &flag, &m, MPI_STATUS_IGNORE));
    MPI_Fint fm = MPI_Message_c2f(m);
    CHECK(MPI_Message_f2c(fm) == m, "a probed message");
    MPI_Message mb = MPI_Message_f2c(fm);
    CHECK_MPI(MPI_Mrecv(in, 3, MPI_INT, &mb, MPI_STATUS_IGNORE));
    CHECK_INVALID_IS_NULL(MPI_Message_f2c(fm) == MPI_MESSAGE_NULL,
                          "a received message converts to NULL");
}

/* No window or file exists: their NULL handles round-trip. */
static void windows_files(void)
{
    CHECK(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL, "window null");
    CHECK(MPI_File_f2c(MPI_File_c2f(MPI_FILE_NULL)) == MPI_FILE_NULL, "file null");
    for (int i = 0; i < NBOGUS; i++) {
        CHECK_INVALID_IS_NULL(MPI_Win_f2c(bogus[i]) == MPI_WIN_NULL, "bogus window %d",
                              (int)bogus[i]);
        CHECK_INVALID_IS_NULL(MPI_File_f2c(bogus[i]) == MPI_FILE_NULL, "bogus file %d",
                              (int)bogus[i]);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_handles");
    comms();
    types();
    groups();
    ops();
    infos();
    errhandlers();
    requests_messages_statuses();
    windows_files();
    return mt_finish();
}
