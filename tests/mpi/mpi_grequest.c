/* mpi_grequest.c — generalized requests (MPI 3.1, 12.2): query_fn runs when
 * a wait or test completes the request (and at each MPI_Request_get_status
 * once it is complete), free_fn right after it, or at the later of
 * MPI_Request_free and MPI_Grequest_complete; cancel_fn at MPI_Cancel, told
 * whether the request is complete. Every completion call handles them, among
 * point-to-point requests too; callbacks' errors come back from the calls;
 * MPI_Grequest_complete may come from another thread. The statuses query_fn
 * fills with MPI_Status_set_elements(_x) and MPI_Status_set_cancelled read
 * back through MPI_Get_elements(_x), MPI_Get_count and MPI_Test_cancelled. */
#include <pthread.h>
#include <unistd.h>

#include "mtest.h"

struct op {
    int queries, frees, cancels, last_complete;
    int query_rc, free_rc; /* what the callbacks return */
    int tag;               /* what query_fn puts in the status */
    int cancelled;         /* cancel_fn asked, and query_fn says so */
    int order;             /* 1 when free_fn ran after query_fn */
};

static int query_fn(void *extra, MPI_Status *st)
{
    struct op *o = extra;
    o->queries++;
    st->MPI_SOURCE = mt_rank;
    st->MPI_TAG = o->tag;
    MPI_Status_set_elements(st, MPI_INT, 5);
    MPI_Status_set_cancelled(st, o->cancelled);
    return o->query_rc;
}

static int free_fn(void *extra)
{
    struct op *o = extra;
    o->frees++;
    o->order = o->queries > 0;
    return o->free_rc;
}

static int cancel_fn(void *extra, int complete)
{
    struct op *o = extra;
    o->cancels++;
    o->last_complete = complete;
    o->cancelled = 1;
    return MPI_SUCCESS;
}

static MPI_Request start(struct op *o, int tag)
{
    MPI_Request r = MPI_REQUEST_NULL;
    memset(o, 0, sizeof *o);
    o->tag = tag;
    CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, o, &r));
    CHECK(r != MPI_REQUEST_NULL, "MPI_Grequest_start gave MPI_REQUEST_NULL");
    return r;
}

static void wait_and_test(void)
{
    struct op o;
    MPI_Status st;
    int flag = -1, count = -1;
    MPI_Request r = start(&o, 11);
    CHECK_MPI(MPI_Test(&r, &flag, &st));
    CHECK(!flag && o.queries == 0 && o.frees == 0, "incomplete: flag %d, %d queries, %d frees",
          flag, o.queries, o.frees);
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK(o.queries == 0 && o.frees == 0, "MPI_Grequest_complete called a callback");
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL, "the request was not freed");
    CHECK(o.queries == 1 && o.frees == 1 && o.order, "%d queries, %d frees, free after query %d",
          o.queries, o.frees, o.order);
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(st.MPI_SOURCE == mt_rank && st.MPI_TAG == 11 && count == 5,
          "status from query_fn: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);

    /* Test completes it too; a status ignored still gets a query. */
    r = start(&o, 12);
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && r == MPI_REQUEST_NULL && o.queries == 1 && o.frees == 1,
          "test: flag %d, %d queries, %d frees", flag, o.queries, o.frees);
}

static void get_status_and_free(void)
{
    struct op o;
    MPI_Status st;
    int flag = -1;
    MPI_Request r = start(&o, 21);
    CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
    CHECK(!flag && o.queries == 0, "get_status before completion: flag %d, %d queries", flag,
          o.queries);
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
    CHECK_MPI(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && o.queries == 2 && o.frees == 0 && st.MPI_TAG == 21,
          "get_status: flag %d, %d queries, %d frees, tag %d", flag, o.queries, o.frees,
          st.MPI_TAG);
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(o.queries == 3 && o.frees == 1, "then wait: %d queries, %d frees", o.queries, o.frees);

    /* Freed before completion: free_fn waits for MPI_Grequest_complete,
     * which the program calls with its own copy of the handle. */
    r = start(&o, 22);
    MPI_Request copy = r;
    CHECK_MPI(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL && o.frees == 0, "freed early: handle %d, %d frees", r, o.frees);
    CHECK_MPI(MPI_Grequest_complete(copy));
    CHECK(o.frees == 1 && o.queries == 0, "completed after the free: %d frees, %d queries", o.frees,
          o.queries);
    /* Freed after completion: free_fn at once, no query. */
    r = start(&o, 23);
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_MPI(MPI_Request_free(&r));
    CHECK(o.frees == 1 && o.queries == 0, "freed when complete: %d frees, %d queries", o.frees,
          o.queries);
}

static void cancel(void)
{
    struct op o;
    MPI_Status st;
    int flag = 0;
    MPI_Request r = start(&o, 31);
    CHECK_MPI(MPI_Cancel(&r));
    CHECK(o.cancels == 1 && o.last_complete == 0, "cancel before: %d calls, complete %d", o.cancels,
          o.last_complete);
    CHECK_MPI(MPI_Grequest_complete(r));
    CHECK_MPI(MPI_Cancel(&r));
    CHECK(o.cancels == 2 && o.last_complete != 0, "cancel after: %d calls, complete %d", o.cancels,
          o.last_complete);
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "query_fn set the status cancelled, MPI_Test_cancelled says %d", flag);
}

/* Generalized requests among receives, in every completion call. */
static void mixed(void)
{
    enum { N = 4 };
    struct op o[N];
    MPI_Request r[N + 1];
    MPI_Status sts[N + 1];
    int idx = -1, flag = -1, out = 0, indices[N + 1];
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size, in = -1;
    for (int i = 0; i < N; i++)
        r[i] = start(&o[i], 40 + i);
    CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, prev, 5, MPI_COMM_WORLD, &r[N]));

    CHECK_MPI(MPI_Testany(N, r, &idx, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag && idx == MPI_UNDEFINED, "testany with none complete: flag %d index %d", flag, idx);
    CHECK_MPI(MPI_Grequest_complete(r[2]));
    CHECK_MPI(MPI_Waitany(N, r, &idx, &sts[0]));
    CHECK(idx == 2 && r[2] == MPI_REQUEST_NULL && sts[0].MPI_TAG == 42 && o[2].frees == 1,
          "waitany: index %d, tag %d, %d frees", idx, sts[0].MPI_TAG, o[2].frees);
    CHECK_MPI(MPI_Testsome(N, r, &out, indices, sts));
    CHECK(out == 0, "testsome with none complete: %d", out);
    CHECK_MPI(MPI_Grequest_complete(r[0]));
    CHECK_MPI(MPI_Grequest_complete(r[3]));
    CHECK_MPI(MPI_Waitsome(N, r, &out, indices, sts));
    CHECK(out == 2 && indices[0] + indices[1] == 3 && o[0].frees == 1 && o[3].frees == 1,
          "waitsome: %d done (%d, %d)", out, indices[0], indices[1]);
    CHECK_MPI(MPI_Testall(N + 1, r, &flag, MPI_STATUSES_IGNORE));
    CHECK(!flag && o[1].queries == 0, "testall with one incomplete: flag %d", flag);
    /* The last: completed, and the receive's message sent, then all at once. */
    CHECK_MPI(MPI_Grequest_complete(r[1]));
    int v = mt_rank;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, next, 5, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Waitall(N + 1, r, sts));
    CHECK(sts[1].MPI_TAG == 41 && sts[N].MPI_TAG == 5 && in == prev && o[1].frees == 1,
          "waitall: tags %d and %d, received %d", sts[1].MPI_TAG, sts[N].MPI_TAG, in);
    for (int i = 0; i <= N; i++)
        CHECK(r[i] == MPI_REQUEST_NULL, "request %d left", i);
}

/* A callback's error is the call's, and in a call completing several
 * requests, MPI_ERR_IN_STATUS with the error in the request's status.
 * free_fn's comes first, as the last callback's (MPI 3.1, 12.2); Open MPI
 * 4.1 drops free_fn's errors, so that part is Bolt's alone. */
static void errors(void)
{
    struct op o[2];
    MPI_Request r[2];
    MPI_Status sts[2];
    int mine, theirs, rc;
    CHECK_MPI(MPI_Add_error_class(&mine));
    CHECK_MPI(MPI_Add_error_code(mine, &theirs));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    r[0] = start(&o[0], 51);
    o[0].query_rc = theirs;
    CHECK_MPI(MPI_Grequest_complete(r[0]));
    rc = MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    CHECK(rc == theirs && o[0].frees == 1, "wait gave %d, want query_fn's %d", rc, theirs);
    r[0] = start(&o[0], 52);
    r[1] = start(&o[1], 53);
    o[1].query_rc = mine;
    CHECK_MPI(MPI_Grequest_complete(r[0]));
    CHECK_MPI(MPI_Grequest_complete(r[1]));
    rc = MPI_Waitall(2, r, sts);
    CHECK(rc == MPI_ERR_IN_STATUS, "waitall gave %d, want MPI_ERR_IN_STATUS", rc);
    CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && sts[1].MPI_ERROR == mine,
          "statuses' errors %d and %d (want 0 and %d)", sts[0].MPI_ERROR, sts[1].MPI_ERROR, mine);
    CHECK(o[0].frees == 1 && o[1].frees == 1, "frees %d %d", o[0].frees, o[1].frees);
#ifdef BOLT_MPI
    r[0] = start(&o[0], 54);
    o[0].query_rc = mine;
    o[0].free_rc = theirs;
    CHECK_MPI(MPI_Grequest_complete(r[0]));
    rc = MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    CHECK(rc == theirs, "wait gave %d, want free_fn's %d", rc, theirs);
    r[0] = start(&o[0], 55);
    o[0].free_rc = theirs;
    CHECK_MPI(MPI_Grequest_complete(r[0]));
    rc = MPI_Request_free(&r[0]);
    CHECK(rc == theirs, "free gave %d, want free_fn's %d", rc, theirs);
#endif
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* The usual use: another thread does the work and completes the request
 * while this one waits. */
static int worker_is_main = -1;

static void *worker(void *arg)
{
    usleep(20000);
    MPI_Is_thread_main(&worker_is_main);
    MPI_Grequest_complete(*(MPI_Request *)arg);
    return NULL;
}

static void threaded(int provided)
{
#ifndef BOLT_MPI
    if (provided < MPI_THREAD_MULTIPLE)
        return; /* elsewhere two threads may only call MPI at once with MULTIPLE */
#endif
    (void)provided;
    struct op o;
    MPI_Request r = start(&o, 61), copy = r;
    pthread_t t;
    MPI_Status st;
    CHECK(pthread_create(&t, NULL, worker, &copy) == 0, "pthread_create failed");
    CHECK_MPI(MPI_Wait(&r, &st));
    pthread_join(t, NULL);
    CHECK(st.MPI_TAG == 61 && o.queries == 1 && o.frees == 1, "threaded: tag %d", st.MPI_TAG);
    CHECK(worker_is_main == 0, "MPI_Is_thread_main in another thread: %d", worker_is_main);
}

/* Statuses filled by hand: elements of a derived type, more than an int holds. */
static void statuses(void)
{
    MPI_Status st;
    MPI_Datatype vec;
    int n = -1;
    MPI_Count nx = -1;
    CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    CHECK_MPI(MPI_Status_set_elements(&st, vec, 7));
    CHECK_MPI(MPI_Get_elements(&st, vec, &n));
    CHECK(n == 7, "elements of the vector: %d", n);
    CHECK_MPI(MPI_Get_count(&st, vec, &n));
    CHECK(n == MPI_UNDEFINED, "7 ints are no whole number of vectors: count %d", n);
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 7, "as ints: %d", n);
    CHECK_MPI(MPI_Status_set_elements(&st, vec, 6));
    CHECK_MPI(MPI_Get_count(&st, vec, &n));
    CHECK(n == 2, "6 ints are 2 vectors: %d", n);
    CHECK_MPI(MPI_Type_free(&vec));
    MPI_Count big = (MPI_Count)3 << 30;
    CHECK_MPI(MPI_Status_set_elements_x(&st, MPI_BYTE, big));
    CHECK_MPI(MPI_Get_elements_x(&st, MPI_BYTE, &nx));
    CHECK(nx == big, "elements_x: %lld", (long long)nx);
    CHECK_MPI(MPI_Get_elements(&st, MPI_BYTE, &n));
    CHECK(n == MPI_UNDEFINED, "more than an int holds: %d", n);
    CHECK_MPI(MPI_Status_set_cancelled(&st, 1));
    CHECK_MPI(MPI_Test_cancelled(&st, &n));
    CHECK(n, "set cancelled");
    CHECK_MPI(MPI_Status_set_cancelled(&st, 0));
    CHECK_MPI(MPI_Test_cancelled(&st, &n));
    CHECK(!n, "set not cancelled");
}

int main(int argc, char **argv)
{
    int provided;
    mt_name = "mpi_grequest";
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
    int query = -1, is_main = 0;
    MPI_Query_thread(&query);
    MPI_Is_thread_main(&is_main);
    CHECK(query == provided && is_main, "query_thread %d, provided %d, main %d", query, provided,
          is_main);
#ifdef BOLT_MPI
    /* MULTIPLE unless BOLT_THREAD_MULTIPLE=0 (then SERIALIZED: calls never at once). */
    CHECK(provided == mt_bolt_multiple(), "MPI_THREAD_MULTIPLE asked, %d provided, want %d",
          provided, mt_bolt_multiple());
#endif
    wait_and_test();
    get_status_and_free();
    cancel();
    mixed();
    errors();
    threaded(provided);
    statuses();
    return mt_finish();
}
