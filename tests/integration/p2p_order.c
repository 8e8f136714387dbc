/* MPI's ordering rule: between two ranks on one communicator, messages with
 * the same tag match in the order they were sent, eager and rendezvous mixed. */
#include <time.h>

#include "tutil.h"

#define N 200

static size_t msg_size(int i)
{
    /* mostly small, some over the eager limit */
    return (i % 17 == 5) ? 200000 + (size_t)i : (size_t)(8 + i % 13);
}

/* Rank 0, ms late, receives from rank 1 on tag the M messages of the two
 * late-receiver cases below: message i is 4 + (i * 7919) % 12000 bytes of
 * tfill(i) led by i; checked in order and intact. */
enum { M = 3000 };
static void late_receive(bolt_comm_t w, unsigned char *buf, int tag, long ms, const char *what)
{
    struct timespec late_by = {0, ms * 1000 * 1000};
    nanosleep(&late_by, NULL);
    unsigned char *want = malloc(12004);
    CHECK(want, "oom");
    for (int i = 0; i < M; i++) {
        bolt_status_t st;
        size_t n = (size_t)(4 + (i * 7919) % 12000);
        CHECK_OK(bolt_recv(buf, 300000, 1, tag, w, &st));
        tfill(want, n, (unsigned)i);
        memcpy(want, &i, sizeof i);
        CHECK(st.bytes == n && memcmp(buf, want, n) == 0,
              "%s: message %d came as %zu bytes (want %zu) or altered", what, i, st.bytes, n);
    }
    free(want);
}

int main(int argc, char **argv)
{
    int rank, size;
    bolt_comm_t w = tinit(&argc, &argv, &rank, &size);
    unsigned char *buf = malloc(300000);
    CHECK(buf, "oom");
    if (size >= 2 && rank != 0) {
        /* tags alternate 1,2; payload starts with the per-tag sequence number */
        /* nonblocking: a blocking large send could wait for a receive that
         * rank 0 only posts after all the other tag's messages */
        int seq[3] = {0, 0, 0};
        static bolt_request_t reqs[N];
        unsigned char *bufs[N];
        for (int i = 0; i < N; i++) {
            int tag = 1 + i % 2;
            size_t n = msg_size(i);
            bufs[i] = malloc(n);
            tfill(bufs[i], n, (unsigned)i);
            memcpy(bufs[i], &seq[tag], sizeof(int));
            seq[tag]++;
            CHECK_OK(bolt_isend(bufs[i], n, 0, tag, w, &reqs[i]));
        }
        CHECK_OK(bolt_waitall(N, reqs, NULL));
        for (int i = 0; i < N; i++)
            free(bufs[i]);
    } else if (rank == 0 && size >= 2) {
        for (int src = 1; src < size; src++) {
            /* all of tag 2 first, then tag 1: each stream must arrive in order */
            for (int tag = 2; tag >= 1; tag--) {
                for (int k = 0; k < N / 2; k++) {
                    bolt_status_t st;
                    CHECK_OK(bolt_recv(buf, 300000, src, tag, w, &st));
                    int s;
                    memcpy(&s, buf, sizeof s);
                    CHECK(s == k, "from %d tag %d: got sequence %d, expected %d", src, tag, s, k);
                    int i = 2 * k + (tag - 1);
                    CHECK(st.bytes == msg_size(i), "size %zu for message %d", st.bytes, i);
                }
            }
        }
    }
    /* any-tag from one source sees send order */
    if (size >= 2 && rank == 1) {
        for (int i = 0; i < 50; i++)
            CHECK_OK(bolt_send(&i, sizeof i, 0, 10 + i % 5, w));
    } else if (size >= 2 && rank == 0) {
        for (int i = 0; i < 50; i++) {
            int v;
            bolt_status_t st;
            CHECK_OK(bolt_recv(&v, sizeof v, 1, BOLT_ANY_TAG, w, &st));
            CHECK(v == i && st.tag == 10 + i % 5, "any-tag order: got %d (tag %d), expected %d", v,
                  st.tag, i);
        }
    }
    /* Blocking small sends leave at once when the channel has room and queue
     * behind what waits otherwise: a late receiver (the channel fills up)
     * sees them, mixed with nonblocking sends, in send order and intact. */
    if (size >= 2 && rank == 1) {
        static bolt_request_t late[M];
        static unsigned char *lbufs[M];
        int nlate = 0;
        for (int i = 0; i < M; i++) {
            size_t n = (size_t)(4 + (i * 7919) % 12000);
            unsigned char *b = malloc(n);
            CHECK(b, "oom");
            tfill(b, n, (unsigned)i);
            memcpy(b, &i, sizeof i);
            if (i % 7 == 3) {
                lbufs[nlate] = b;
                CHECK_OK(bolt_isend(b, n, 0, 20, w, &late[nlate++]));
            } else {
                CHECK_OK(bolt_send(b, n, 0, 20, w));
                free(b);
            }
        }
        CHECK_OK(bolt_waitall(nlate, late, NULL));
        for (int i = 0; i < nlate; i++)
            free(lbufs[i]);
    } else if (size >= 2 && rank == 0) {
        late_receive(w, buf, 20, 200, "late receiver");
    }
    /* bolt_send_now: a message that left at once frees its buffer (it is
     * overwritten right after); one that cannot leave now (the channel full
     * behind a late receiver) is sent with bolt_isend instead; the receiver
     * sees them all in send order and intact, and some did leave at once. */
    if (size >= 2 && rank == 1) {
        static bolt_request_t later[M];
        static unsigned char *kept[M];
        unsigned char *b = malloc(12004);
        CHECK(b, "oom");
        int nlater = 0, now = 0, sent = -1;
        CHECK(bolt_send_now(b, 4, size, 21, w, &sent) == BOLT_ERR_ARG && sent == 0,
              "bolt_send_now to rank %d of %d: not refused", size, size);
        for (int i = 0; i < M; i++) {
            size_t n = (size_t)(4 + (i * 7919) % 12000);
            tfill(b, n, (unsigned)i);
            memcpy(b, &i, sizeof i);
            CHECK_OK(bolt_send_now(b, n, 0, 21, w, &sent));
            if (sent) {
                now++;
                memset(b, 0xEE, n);
                continue;
            }
            CHECK(kept[nlater] = malloc(n), "oom");
            memcpy(kept[nlater], b, n);
            CHECK_OK(bolt_isend(kept[nlater], n, 0, 21, w, &later[nlater]));
            nlater++;
        }
        /* The rdma transport has no send-at-once (every message there has a
         * request): only shm and tcp must have sent some so. */
        const char *tls = getenv("BOLT_TRANSPORTS");
        if (!tls || !strstr(tls, "rdma"))
            CHECK(now > 0, "bolt_send_now: none of %d messages left at once", M);
        CHECK_OK(bolt_waitall(nlater, later, NULL));
        for (int i = 0; i < nlater; i++)
            free(kept[i]);
        free(b);
    } else if (size >= 2 && rank == 0) {
        late_receive(w, buf, 21, 100, "bolt_send_now");
    }
    free(buf);
    CHECK_OK(bolt_finalize());
    if (rank == 0)
        printf("order: %d ranks ok\n", size);
    return 0;
}
