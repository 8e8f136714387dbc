/* mpi_p2p.c — point-to-point as MPI specifies it: blocking and nonblocking
 * modes, wildcards, MPI_PROC_NULL, probes, counts, persistent requests,
 * cancellation, buffered sends, the wait/test families, and small sends
 * completed by each of them. */
#include "mtest.h"

#define N 1000

static void fill(int *b, int n, int seed)
{
    for (int i = 0; i < n; i++)
        b[i] = seed * 100003 + i;
}

static int same(const int *b, int n, int seed)
{
    for (int i = 0; i < n; i++)
        if (b[i] != seed * 100003 + i)
            return 0;
    return 1;
}

/* Every mode to the right neighbour, received from the left one. */
static void ring_modes(void)
{
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    int sbuf[N], rbuf[N];
    MPI_Status st;
    fill(sbuf, N, mt_rank);
    for (int mode = 0; mode < 4; mode++) {
        MPI_Request r;
        memset(rbuf, 0, sizeof rbuf);
        CHECK_MPI(MPI_Irecv(rbuf, N, MPI_INT, left, 10 + mode, MPI_COMM_WORLD, &r));
        /* Everyone has posted its receive before a ready send (Rsend) goes:
         * a zero-byte exchange with both neighbours orders it. */
        int dummy = 0;
        CHECK_MPI(MPI_Sendrecv(&dummy, 1, MPI_INT, left, 5, &dummy, 1, MPI_INT, right, 5,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (mode == 0)
            CHECK_MPI(MPI_Send(sbuf, N, MPI_INT, right, 10, MPI_COMM_WORLD));
        else if (mode == 1)
            CHECK_MPI(MPI_Ssend(sbuf, N, MPI_INT, right, 11, MPI_COMM_WORLD));
        else if (mode == 2)
            CHECK_MPI(MPI_Rsend(sbuf, N, MPI_INT, right, 12, MPI_COMM_WORLD));
        else {
            int size;
            MPI_Pack_size(N, MPI_INT, MPI_COMM_WORLD, &size);
            size += MPI_BSEND_OVERHEAD;
            void *buf = malloc((size_t)size), *back;
            CHECK_MPI(MPI_Buffer_attach(buf, size));
            CHECK_MPI(MPI_Bsend(sbuf, N, MPI_INT, right, 13, MPI_COMM_WORLD));
            memset(sbuf, 0xff, sizeof sbuf); /* the message was copied: reuse is fine */
            CHECK_MPI(MPI_Buffer_detach(&back, &size));
            CHECK(back == buf, "detach returned a different buffer");
            free(buf);
            fill(sbuf, N, mt_rank);
        }
        CHECK_MPI(MPI_Wait(&r, &st));
        CHECK(r == MPI_REQUEST_NULL, "wait did not free the request");
        CHECK(same(rbuf, N, left), "mode %d: wrong data from %d", mode, left);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 10 + mode, "mode %d: status %d/%d", mode,
              st.MPI_SOURCE, st.MPI_TAG);
        int count;
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == N, "mode %d: count %d", mode, count);
    }
}

static void proc_null(void)
{
    int x = 7;
    MPI_Status st;
    MPI_Request r;
    CHECK_MPI(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    CHECK(x == 7, "a receive from MPI_PROC_NULL changed the buffer");
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "status %d/%d",
          st.MPI_SOURCE, st.MPI_TAG);
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 0, "count from MPI_PROC_NULL is %d", count);
    CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "irecv status source %d", st.MPI_SOURCE);
}

/* Rank 0 gathers one message from everyone by wildcards, with probes first.
 * On a communicator of its own: wildcards must not see the next test's
 * messages, which faster ranks may already have sent on the world. */
static void wildcards_and_probes(void)
{
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    if (mt_rank != 0) {
        int msg[3] = {mt_rank, mt_rank * 2, mt_rank * 3};
        CHECK_MPI(MPI_Send(msg, mt_rank % 3 + 1, MPI_INT, 0, 100 + mt_rank, c));
        MPI_Comm_free(&c);
        return;
    }
    int seen = 0;
    for (int k = 1; k < mt_size; k++) {
        MPI_Status st;
        int flag = 0, count;
        while (!flag)
            CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &flag, &st));
        CHECK(st.MPI_TAG == 100 + st.MPI_SOURCE, "probe tag %d from %d", st.MPI_TAG, st.MPI_SOURCE);
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == st.MPI_SOURCE % 3 + 1, "probe count %d from %d", count, st.MPI_SOURCE);
        MPI_Status st2;
        CHECK_MPI(MPI_Probe(st.MPI_SOURCE, st.MPI_TAG, c, &st2));
        CHECK(st2.MPI_SOURCE == st.MPI_SOURCE, "probe disagrees with iprobe");
        int msg[3];
        CHECK_MPI(MPI_Recv(msg, 3, MPI_INT, st.MPI_SOURCE, MPI_ANY_TAG, c, &st2));
        CHECK(msg[0] == st.MPI_SOURCE, "payload %d from %d", msg[0], st.MPI_SOURCE);
        seen |= 1 << st.MPI_SOURCE;
    }
    CHECK(seen == ((1 << mt_size) - 2), "senders seen: %x", seen);
    MPI_Comm_free(&c);
}

static void wait_families(void)
{
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    enum { K = 8 };
    int sb[K][64], rb[K][64];
    MPI_Request rr[K], sr[K];
    MPI_Status sts[K];
    for (int k = 0; k < K; k++) {
        fill(sb[k], 64, mt_rank * K + k);
        CHECK_MPI(MPI_Irecv(rb[k], 64, MPI_INT, left, k, MPI_COMM_WORLD, &rr[k]));
    }
    for (int k = K - 1; k >= 0; k--)
        CHECK_MPI(MPI_Isend(sb[k], 64, MPI_INT, right, k, MPI_COMM_WORLD, &sr[k]));
    /* Waitany until three are done, Waitsome for more, Testall/Waitall for the rest. */
    int done = 0, idx, out, idxs[K];
    for (int i = 0; i < 3; i++) {
        CHECK_MPI(MPI_Waitany(K, rr, &idx, &sts[0]));
        CHECK(idx >= 0 && idx < K && rr[idx] == MPI_REQUEST_NULL, "waitany index %d", idx);
        CHECK(sts[0].MPI_TAG == idx, "waitany status tag %d for index %d", sts[0].MPI_TAG, idx);
        done++;
    }
    CHECK_MPI(MPI_Waitsome(K, rr, &out, idxs, sts));
    CHECK(out >= 1 && out <= K - 3, "waitsome outcount %d", out);
    int flag = 0;
    while (!flag)
        CHECK_MPI(MPI_Testall(K, rr, &flag, MPI_STATUSES_IGNORE));
    for (int k = 0; k < K; k++)
        CHECK(same(rb[k], 64, left * K + k), "message %d", k);
    CHECK_MPI(MPI_Waitall(K, sr, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Waitany(K, sr, &idx, MPI_STATUS_IGNORE));
    CHECK(idx == MPI_UNDEFINED, "waitany on null requests gave %d", idx);
    CHECK_MPI(MPI_Testany(K, sr, &idx, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && idx == MPI_UNDEFINED, "testany on null requests: flag %d index %d", flag, idx);
    CHECK_MPI(MPI_Waitsome(K, sr, &out, idxs, MPI_STATUSES_IGNORE));
    CHECK(out == MPI_UNDEFINED, "waitsome on null requests gave %d", out);
}

/* Small sends that leave at once (in Bolt all of them share one completed
 * request, as in Open MPI): many outstanding at once, each completed by
 * another of the wait and test families, cancelled, freed, its status read
 * first; every message delivered once, in order. */
static void sends_left_at_once(void)
{
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    enum { S = 16 };
    int sb[S], rb[S], flag = 0, idx = -1, out = 0, idxs[S];
    MPI_Request sr[S], rr[S];
    MPI_Status st, sts[S];
    for (int k = 0; k < S; k++) {
        sb[k] = mt_rank * 1000 + k;
        rb[k] = -1;
        CHECK_MPI(MPI_Isend(&sb[k], 1, MPI_INT, right, 70, MPI_COMM_WORLD, &sr[k]));
        CHECK(sr[k] != MPI_REQUEST_NULL, "Isend %d gave MPI_REQUEST_NULL", k);
    }
    /* its status read, the request left as it is */
    CHECK_MPI(MPI_Request_get_status(sr[0], &flag, &st));
    CHECK(flag && sr[0] != MPI_REQUEST_NULL, "Request_get_status: flag %d", flag);
    CHECK_MPI(MPI_Test(&sr[0], &flag, &st));
    CHECK(flag && sr[0] == MPI_REQUEST_NULL, "Test: flag %d", flag);
    CHECK_MPI(MPI_Cancel(&sr[1])); /* too late: it is delivered, and reads so */
    CHECK_MPI(MPI_Wait(&sr[1], &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag && sr[1] == MPI_REQUEST_NULL, "a sent message's Wait after Cancel: cancelled %d", flag);
    CHECK_MPI(MPI_Request_free(&sr[2]));
    CHECK(sr[2] == MPI_REQUEST_NULL, "Request_free did not null");
    CHECK_MPI(MPI_Waitany(S, sr, &idx, &st));
    CHECK(idx >= 3 && idx < S && sr[idx] == MPI_REQUEST_NULL, "Waitany index %d", idx);
    CHECK_MPI(MPI_Testany(S, sr, &idx, &flag, &st));
    CHECK(flag && idx >= 3 && idx < S && sr[idx] == MPI_REQUEST_NULL, "Testany: flag %d index %d", flag, idx);
    CHECK_MPI(MPI_Waitsome(S, sr, &out, idxs, sts));
    CHECK(out >= 1 && out <= S - 5, "Waitsome outcount %d", out);
    for (int i = 0; i < out; i++)
        CHECK(sr[idxs[i]] == MPI_REQUEST_NULL, "Waitsome left %d live", idxs[i]);
    CHECK_MPI(MPI_Testsome(S, sr, &out, idxs, sts));
    CHECK(out == MPI_UNDEFINED || (out >= 0 && out <= S), "Testsome outcount %d", out);
    for (int i = 0; out != MPI_UNDEFINED && i < out; i++)
        CHECK(sr[idxs[i]] == MPI_REQUEST_NULL, "Testsome left %d live", idxs[i]);
    CHECK_MPI(MPI_Waitall(S, sr, sts));
    for (int k = 0; k < S; k++)
        CHECK(sr[k] == MPI_REQUEST_NULL && sts[k].MPI_ERROR == MPI_SUCCESS, "Waitall left %d live", k);
    for (int k = 0; k < S; k++)
        CHECK_MPI(MPI_Irecv(&rb[k], 1, MPI_INT, left, 70, MPI_COMM_WORLD, &rr[k]));
    CHECK_MPI(MPI_Waitall(S, rr, sts));
    for (int k = 0; k < S; k++)
        CHECK(rb[k] == left * 1000 + k && sts[k].MPI_SOURCE == left, "message %d: %d from %d", k, rb[k],
              sts[k].MPI_SOURCE);
}

static void persistent(void)
{
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    int s = 0, r = -1;
    MPI_Request req[2];
    CHECK_MPI(MPI_Recv_init(&r, 1, MPI_INT, left, 50, MPI_COMM_WORLD, &req[0]));
    CHECK_MPI(MPI_Send_init(&s, 1, MPI_INT, right, 50, MPI_COMM_WORLD, &req[1]));
    for (int it = 0; it < 5; it++) {
        s = mt_rank * 10 + it;
        CHECK_MPI(MPI_Startall(2, req));
        CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        CHECK(req[0] != MPI_REQUEST_NULL, "a persistent request was freed by wait");
        CHECK(r == left * 10 + it, "iteration %d: got %d", it, r);
    }
    /* An inactive persistent request completes at once. */
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&req[0], &st));
    CHECK_MPI(MPI_Request_free(&req[0]));
    CHECK_MPI(MPI_Request_free(&req[1]));
    CHECK(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL, "free did not null");
}

static void cancel_and_free(void)
{
    int x;
    MPI_Request r;
    MPI_Status st;
    int flag;
    CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 4242, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Cancel(&r));
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "a receive nobody sends to was not cancelled");
    /* A freed send still gets delivered. */
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    int s = mt_rank + 7;
    CHECK_MPI(MPI_Isend(&s, 1, MPI_INT, right, 60, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Request_free(&r));
    CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, left, 60, MPI_COMM_WORLD, &st));
    CHECK(x == left + 7, "freed send delivered %d", x);
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag, "a delivered message reads as cancelled");
}

static void sendrecv_replace(void)
{
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    int b[N];
    MPI_Status st;
    fill(b, N, mt_rank);
    CHECK_MPI(MPI_Sendrecv_replace(b, N, MPI_INT, right, 70, left, 70, MPI_COMM_WORLD, &st));
    CHECK(same(b, N, left), "sendrecv_replace data");
    CHECK(st.MPI_SOURCE == left, "sendrecv_replace source %d", st.MPI_SOURCE);
    /* Large enough for the rendezvous path. */
    size_t n = 1 << 20;
    double *big = malloc(n * sizeof *big), *in = malloc(n * sizeof *in);
    for (size_t i = 0; i < n; i++)
        big[i] = mt_rank + i * 0.5;
    CHECK_MPI(MPI_Sendrecv(big, (int)n, MPI_DOUBLE, right, 71, in, (int)n, MPI_DOUBLE, left, 71,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++)
        ok = in[i] == left + i * 0.5;
    CHECK(ok, "8 MiB sendrecv data");
    free(big);
    free(in);
}

static void truncation(void)
{
    if (mt_size < 2)
        return;
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    if (mt_rank == 0) {
        int big[4] = {1, 2, 3, 4};
        CHECK_MPI(MPI_Send(big, 4, MPI_INT, 1, 80, c));
    } else if (mt_rank == 1) {
        int small[2], cls;
        MPI_Status st;
        int rc = MPI_Recv(small, 2, MPI_INT, 0, 80, c, &st);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "truncated receive returned class %d", cls);
    }
    /* Nonblocking: one of two receives truncated. MPI_Waitall says so in the
     * status of that one; MPI_Wait returns the error itself. */
    if (mt_rank == 0) {
        int big[4] = {5, 6, 7, 8};
        CHECK_MPI(MPI_Send(big, 4, MPI_INT, 1, 81, c));
        CHECK_MPI(MPI_Send(big, 1, MPI_INT, 1, 82, c));
        CHECK_MPI(MPI_Send(big, 3, MPI_INT, 1, 83, c));
    } else if (mt_rank == 1) {
        int small[2] = {0, 0}, one = 0, cls;
        MPI_Request r[2];
        MPI_Status st[2];
        CHECK_MPI(MPI_Irecv(small, 2, MPI_INT, 0, 81, c, &r[0]));
        CHECK_MPI(MPI_Irecv(&one, 1, MPI_INT, 0, 82, c, &r[1]));
        int rc = MPI_Waitall(2, r, st);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_IN_STATUS, "Waitall with a truncated receive returned class %d", cls);
        MPI_Error_class(st[0].MPI_ERROR, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "the truncated receive's status says class %d", cls);
        CHECK(st[1].MPI_ERROR == MPI_SUCCESS && one == 5 && st[1].MPI_TAG == 82,
              "the other receive: error %d, value %d, tag %d", st[1].MPI_ERROR, one, st[1].MPI_TAG);
        CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL, "Waitall left a request live");
        CHECK_MPI(MPI_Irecv(small, 2, MPI_INT, 0, 83, c, &r[0]));
        rc = MPI_Wait(&r[0], &st[0]);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "Wait on a truncated receive returned class %d", cls);
        CHECK(r[0] == MPI_REQUEST_NULL, "Wait left a failed request live");
    }
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_p2p");
    ring_modes();
    proc_null();
    wildcards_and_probes();
    wait_families();
    sends_left_at_once();
    persistent();
    cancel_and_free();
    sendrecv_replace();
    truncation();
    return mt_finish();
}
