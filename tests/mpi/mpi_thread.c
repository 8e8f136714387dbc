/* mpi_thread.c — MPI_THREAD_MULTIPLE: several threads per rank call MPI at
 * once, and every byte they move is checked.
 *  - ring: each thread sends to the right and receives from the left with
 *    its own tag (blocking receive, eager and rendezvous sizes), so a thread
 *    blocked in MPI_Recv must let the others' sends through;
 *  - ping-pong between rank pairs, one tag per thread, blocking calls;
 *  - communicators made at once: each thread duplicates, splits and makes a
 *    group communicator of its own parent, then runs collectives on what it
 *    made while the others do too;
 *  - one thread receives with MPI_ANY_SOURCE / MPI_ANY_TAG while the others
 *    send, per sender in order;
 *  - matched probes: every thread takes messages with MPI_Mprobe(ANY, ANY)
 *    and MPI_Mrecv; each message must be received exactly once. */
#include <pthread.h>
#include <stdint.h>

#include "mtest.h"

#define NT 4       /* threads per rank */
#ifndef ROUNDS
#define ROUNDS 40 /* messages per thread and scenario (-DROUNDS=400: a longer soak) */
#endif
#define BIG 70000  /* bytes: past every transport's eager limit */

static pthread_mutex_t fails_mu = PTHREAD_MUTEX_INITIALIZER;
static int main_flag_in_thread = -1;

/* CHECK from a thread: mt_fails is shared. */
#define TCHECK(cond, ...)                        \
    do {                                         \
        if (!(cond)) {                           \
            pthread_mutex_lock(&fails_mu);       \
            CHECK(cond, __VA_ARGS__);            \
            pthread_mutex_unlock(&fails_mu);     \
        }                                        \
    } while (0)
#define TCHECK_MPI(call)                                                   \
    do {                                                                   \
        int rc_ = (call);                                                  \
        TCHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);          \
    } while (0)

/* The byte at i of message (src, tag, seq): a hash, so no two messages of
 * one size look alike. */
static unsigned char pattern(int src, int tag, int seq, size_t i)
{
    uint32_t h = (uint32_t)src * 2654435761u ^ (uint32_t)tag * 40503u ^
                 (uint32_t)seq * 2246822519u ^ (uint32_t)i * 374761393u;
    h ^= h >> 15;
    h *= 2246822519u;
    return (unsigned char)(h >> 13);
}

static void fill(unsigned char *b, size_t n, int src, int tag, int seq)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pattern(src, tag, seq, i);
}

static size_t bad_bytes(const unsigned char *b, size_t n, int src, int tag, int seq)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += b[i] != pattern(src, tag, seq, i);
    return bad;
}

static size_t size_of(int seq) { return seq % 4 == 3 ? BIG : (size_t)(1 + seq * 13); }

static void run_threads(void *(*fn)(void *))
{
    pthread_t t[NT];
    int ids[NT];
    for (int i = 0; i < NT; i++) {
        ids[i] = i;
        CHECK(pthread_create(&t[i], NULL, fn, &ids[i]) == 0, "pthread_create %d", i);
    }
    for (int i = 0; i < NT; i++)
        pthread_join(t[i], NULL);
}

/* ---- ring: blocking receive from the left, own tag ---------------------------- */
static void *ring(void *arg)
{
    int t = *(int *)arg, right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    unsigned char *out = malloc(BIG), *in = malloc(BIG);
    int flag;
    MPI_Is_thread_main(&flag);
    if (t == 0)
        main_flag_in_thread = flag;
    for (int s = 0; s < ROUNDS && out && in; s++) {
        size_t n = size_of(s);
        MPI_Request r;
        MPI_Status st;
        fill(out, n, mt_rank, t, s);
        memset(in, 0, n);
        TCHECK_MPI(MPI_Isend(out, (int)n, MPI_BYTE, right, t, MPI_COMM_WORLD, &r));
        TCHECK_MPI(MPI_Recv(in, BIG, MPI_BYTE, left, t, MPI_COMM_WORLD, &st));
        TCHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        size_t bad = bad_bytes(in, n, left, t, s);
        TCHECK(count == (int)n && st.MPI_SOURCE == left && st.MPI_TAG == t && bad == 0,
               "ring thread %d round %d: %d bytes from %d tag %d, %zu wrong", t, s, count,
               st.MPI_SOURCE, st.MPI_TAG, bad);
    }
    free(out);
    free(in);
    return NULL;
}

/* ---- ping-pong between ranks 2k and 2k+1, blocking both ways ------------------- */
static void *pingpong(void *arg)
{
    int t = *(int *)arg, peer = mt_rank ^ 1;
    if (peer >= mt_size)
        return NULL; /* the odd rank out */
    unsigned char *b = malloc(BIG);
    for (int s = 0; s < ROUNDS && b; s++) {
        size_t n = size_of(s + t);
        int tag = 1000 + t;
        if (mt_rank % 2 == 0) {
            fill(b, n, mt_rank, tag, s);
            TCHECK_MPI(MPI_Send(b, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
            memset(b, 0, n);
            TCHECK_MPI(MPI_Recv(b, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            size_t bad = bad_bytes(b, n, peer, tag, s);
            TCHECK(bad == 0, "pingpong thread %d round %d: %zu of %zu bytes wrong", t, s, bad, n);
        } else {
            TCHECK_MPI(MPI_Recv(b, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            size_t bad = bad_bytes(b, n, peer, tag, s);
            TCHECK(bad == 0, "pingpong thread %d round %d: %zu of %zu bytes wrong", t, s, bad, n);
            fill(b, n, mt_rank, tag, s);
            TCHECK_MPI(MPI_Send(b, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
        }
    }
    free(b);
    return NULL;
}

/* ---- communicators made at once, collectives on them at once ------------------- */
static MPI_Comm parents[NT];

static void *comms(void *arg)
{
    int t = *(int *)arg;
    MPI_Comm dup = MPI_COMM_NULL, half = MPI_COMM_NULL, grp = MPI_COMM_NULL;
    MPI_Group g;
    TCHECK_MPI(MPI_Comm_dup(parents[t], &dup));
    TCHECK_MPI(MPI_Comm_split(parents[t], mt_rank % 2, -mt_rank, &half));
    /* Collective over the group only, its tag the thread's. */
    TCHECK_MPI(MPI_Comm_group(parents[t], &g));
    TCHECK_MPI(MPI_Comm_create_group(parents[t], g, t, &grp));
    MPI_Group_free(&g);
    if (dup == MPI_COMM_NULL || half == MPI_COMM_NULL || grp == MPI_COMM_NULL)
        return NULL;
    int hsize, hrank;
    MPI_Comm_size(half, &hsize);
    MPI_Comm_rank(half, &hrank);
    long vec[64];
    for (int s = 0; s < ROUNDS; s++) {
        /* Allreduce on the duplicate: sum over ranks of (rank + 1) * (t + s + i). */
        for (int i = 0; i < 64; i++)
            vec[i] = (long)(mt_rank + 1) * (t + s + i);
        TCHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, vec, 64, MPI_LONG, MPI_SUM, dup));
        long ranks = (long)mt_size * (mt_size + 1) / 2;
        int bad = 0;
        for (int i = 0; i < 64; i++)
            bad += vec[i] != ranks * (t + s + i);
        TCHECK(bad == 0, "allreduce thread %d round %d: %d of 64 wrong", t, s, bad);
        /* Bcast on the half from its rank 0 (the highest world rank of the half). */
        int root_world = -1;
        if (hrank == 0)
            root_world = mt_rank;
        TCHECK_MPI(MPI_Bcast(&root_world, 1, MPI_INT, 0, half));
        int expect = mt_size - 1 - (mt_size - 1 - mt_rank % 2) % 2;
        TCHECK(root_world == expect, "bcast thread %d round %d: root %d, want %d", t, s,
               root_world, expect);
        /* Allgather on the duplicate: every rank's (rank, t, s). */
        int mine[3] = {mt_rank, t, s}, *all = malloc((size_t)mt_size * sizeof mine);
        if (all) {
            TCHECK_MPI(MPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, dup));
            for (int r = 0; r < mt_size; r++)
                TCHECK(all[3 * r] == r && all[3 * r + 1] == t && all[3 * r + 2] == s,
                       "allgather thread %d round %d: slot %d holds %d %d %d", t, s, r,
                       all[3 * r], all[3 * r + 1], all[3 * r + 2]);
            free(all);
        }
        TCHECK_MPI(MPI_Barrier(half));
        /* Reduce on the group's communicator to its last rank. */
        int one = t + s, sum = -1;
        TCHECK_MPI(MPI_Reduce(&one, &sum, 1, MPI_INT, MPI_SUM, mt_size - 1, grp));
        TCHECK(mt_rank != mt_size - 1 || sum == mt_size * (t + s),
               "reduce thread %d round %d: %d, want %d", t, s, sum, mt_size * (t + s));
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
    MPI_Comm_free(&grp);
    return NULL;
}

/* ---- one receiver with MPI_ANY_SOURCE while the other threads send ----------- */
static MPI_Comm anyc;

static void *any_source(void *arg)
{
    int t = *(int *)arg;
    if (t > 0) {
        /* Senders: ROUNDS messages to every rank, tag t, [rank, t, seq, payload...]. */
        int msg[16];
        for (int s = 0; s < ROUNDS; s++)
            for (int r = 0; r < mt_size; r++) {
                msg[0] = mt_rank, msg[1] = t, msg[2] = s;
                for (int i = 3; i < 16; i++)
                    msg[i] = mt_rank * 1000 + t * 100 + s + i;
                TCHECK_MPI(MPI_Send(msg, 16, MPI_INT, r, t, anyc));
            }
        return NULL;
    }
    int total = mt_size * (NT - 1) * ROUNDS, *next = calloc((size_t)mt_size * NT, sizeof(int));
    for (int k = 0; k < total && next; k++) {
        int msg[16];
        MPI_Status st;
        TCHECK_MPI(MPI_Recv(msg, 16, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, anyc, &st));
        int src = st.MPI_SOURCE, tag = st.MPI_TAG, bad = 0;
        if (src < 0 || src >= mt_size || tag < 1 || tag >= NT) {
            TCHECK(0, "any-source: message from %d tag %d", src, tag);
            continue;
        }
        for (int i = 3; i < 16; i++)
            bad += msg[i] != src * 1000 + tag * 100 + msg[2] + i;
        /* Messages of one sending thread arrive in the order it sent them. */
        TCHECK(msg[0] == src && msg[1] == tag && msg[2] == next[src * NT + tag] && !bad,
               "any-source: from %d tag %d: header %d %d seq %d (want %d), %d wrong", src, tag,
               msg[0], msg[1], msg[2], next[src * NT + tag], bad);
        next[src * NT + tag]++;
    }
    free(next);
    return NULL;
}

/* ---- matched probes from every thread ------------------------------------------ */
static MPI_Comm mprc;
static unsigned char seen[NT][ROUNDS * 8]; /* by tag and (source, seq) */
static pthread_mutex_t seen_mu = PTHREAD_MUTEX_INITIALIZER;

static void *mprobe(void *arg)
{
    int t = *(int *)arg, right = (mt_rank + 1) % mt_size;
    /* Send ROUNDS messages of varied sizes to the right, tag t; then take ROUNDS
     * of whatever came (any source, any tag): all threads compete for them. */
    MPI_Request reqs[ROUNDS];
    unsigned char *bufs[ROUNDS];
    for (int s = 0; s < ROUNDS; s++) {
        size_t n = size_of(s);
        bufs[s] = malloc(n);
        if (bufs[s])
            fill(bufs[s], n, mt_rank, t, s);
        TCHECK_MPI(MPI_Isend(bufs[s], (int)n, MPI_BYTE, right, t, mprc, &reqs[s]));
    }
    for (int k = 0; k < ROUNDS; k++) {
        MPI_Message m;
        MPI_Status st;
        int count = -1;
        TCHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, mprc, &m, &st));
        MPI_Get_count(&st, MPI_BYTE, &count);
        unsigned char *in = malloc(count > 0 ? (size_t)count : 1);
        TCHECK_MPI(MPI_Mrecv(in, count, MPI_BYTE, &m, &st));
        TCHECK(m == MPI_MESSAGE_NULL, "Mrecv did not set the message to MPI_MESSAGE_NULL%s", "");
        int seq = -1;
        for (int s = 0; s < ROUNDS; s++)
            if ((size_t)count == size_of(s) && in &&
                bad_bytes(in, (size_t)count, st.MPI_SOURCE, st.MPI_TAG, s) == 0) {
                seq = s;
                break;
            }
        TCHECK(seq >= 0 && st.MPI_TAG >= 0 && st.MPI_TAG < NT,
               "mprobe thread %d: %d bytes from %d tag %d match no message sent", t, count,
               st.MPI_SOURCE, st.MPI_TAG);
        if (seq >= 0 && st.MPI_TAG >= 0 && st.MPI_TAG < NT) {
            pthread_mutex_lock(&seen_mu);
            seen[st.MPI_TAG][seq]++;
            pthread_mutex_unlock(&seen_mu);
        }
        free(in);
    }
    TCHECK_MPI(MPI_Waitall(ROUNDS, reqs, MPI_STATUSES_IGNORE));
    for (int s = 0; s < ROUNDS; s++)
        free(bufs[s]);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1, query = -1, is_main = 0;
    mt_name = "mpi_thread";
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
    MPI_Query_thread(&query);
    MPI_Is_thread_main(&is_main);
    CHECK(query == provided && is_main, "Query_thread %d, provided %d, main %d", query, provided,
          is_main);
#ifdef BOLT_MPI
    /* Bolt grants MULTIPLE unless BOLT_THREAD_MULTIPLE=0 (then SERIALIZED). */
    const char *on = getenv("BOLT_THREAD_MULTIPLE");
    int want = mt_bolt_multiple();
    CHECK(provided == want, "MPI_THREAD_MULTIPLE asked with BOLT_THREAD_MULTIPLE=%s: %d provided, "
          "want %d", on ? on : "(unset)", provided, want);
#endif
    if (provided < MPI_THREAD_MULTIPLE) {
        if (mt_rank == 0)
            printf("mpi_thread: MPI_THREAD_MULTIPLE not provided (%d): nothing to test\n",
                   provided);
        return mt_finish();
    }
    run_threads(ring);
    CHECK(main_flag_in_thread == 0, "MPI_Is_thread_main in a thread: %d", main_flag_in_thread);
    run_threads(pingpong);
    for (int t = 0; t < NT; t++)
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &parents[t]));
    run_threads(comms);
    for (int t = 0; t < NT; t++)
        MPI_Comm_free(&parents[t]);
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &anyc));
    run_threads(any_source);
    MPI_Comm_free(&anyc);
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &mprc));
    run_threads(mprobe);
    /* Every message sent to this rank (tag t from the left rank, ROUNDS of them) once. */
    for (int t = 0; t < NT; t++)
        for (int s = 0; s < ROUNDS; s++)
            CHECK(seen[t][s] == 1, "mprobe: message tag %d seq %d received %d times", t, s,
                  seen[t][s]);
    MPI_Comm_free(&mprc);
    return mt_finish();
}
