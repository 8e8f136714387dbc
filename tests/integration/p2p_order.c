/* MPI's ordering rule: between two ranks on one communicator, messages with
 * the same tag match in the order they were sent, eager and rendezvous mixed. */
#include "tutil.h"

#define N 200

static size_t msg_size(int i)
{
    /* mostly small, some over the eager limit */
    return (i % 17 == 5) ? 200000 + (size_t)i : (size_t)(8 + i % 13);
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
    free(buf);
    CHECK_OK(bolt_finalize());
    if (rank == 0)
        printf("order: %d ranks ok\n", size);
    return 0;
}
