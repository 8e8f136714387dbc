/* Ping-pong between ranks 0 and 1, and a ring exchange over all ranks, for
 * sizes from 0 B to 64 MiB (eager and rendezvous), content verified. */
#include "tutil.h"

static const size_t sizes[] = {0, 1, 7, 48, 1024, 65535, 65536, 65537, 1 << 20,
                               (1 << 20) + 3, 16 << 20, 64 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

int main(int argc, char **argv)
{
    int rank, size;
    bolt_comm_t w = tinit(&argc, &argv, &rank, &size);
    size_t max = sizes[NSIZES - 1];
    unsigned char *sbuf = malloc(max), *rbuf = malloc(max);
    CHECK(sbuf && rbuf, "out of memory");

    for (size_t s = 0; s < NSIZES; s++) {
        size_t n = sizes[s];
        /* ping-pong 0 <-> 1 */
        if (size >= 2 && rank < 2) {
            int iters = n >= (16 << 20) ? 2 : 5;
            for (int it = 0; it < iters; it++) {
                bolt_status_t st;
                unsigned seed = (unsigned)(s * 100 + it);
                if (rank == 0) {
                    tfill(sbuf, n, seed);
                    CHECK_OK(bolt_send(sbuf, n, 1, 7, w));
                    memset(rbuf, 0, n);
                    CHECK_OK(bolt_recv(rbuf, n, 1, 8, w, &st));
                    CHECK(st.bytes == n && st.source == 1 && st.tag == 8, "bad status");
                    long bad = tverify(rbuf, n, seed + 1);
                    CHECK(bad < 0, "pong of %zu bytes wrong at byte %ld", n, bad);
                } else {
                    memset(rbuf, 0, n);
                    CHECK_OK(bolt_recv(rbuf, n, 0, 7, w, &st));
                    CHECK(st.bytes == n && st.source == 0 && st.tag == 7, "bad status");
                    long bad = tverify(rbuf, n, seed);
                    CHECK(bad < 0, "ping of %zu bytes wrong at byte %ld", n, bad);
                    tfill(sbuf, n, seed + 1);
                    CHECK_OK(bolt_send(sbuf, n, 0, 8, w));
                }
            }
        }
        /* ring: everyone sends to the right and receives from the left */
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        bolt_request_t reqs[2];
        bolt_status_t st[2];
        tfill(sbuf, n, (unsigned)(rank * 1000 + s));
        memset(rbuf, 0, n);
        CHECK_OK(bolt_irecv(rbuf, n, left, 3, w, &reqs[0]));
        CHECK_OK(bolt_isend(sbuf, n, right, 3, w, &reqs[1]));
        CHECK_OK(bolt_waitall(2, reqs, st));
        CHECK(reqs[0] == BOLT_REQUEST_NULL && reqs[1] == BOLT_REQUEST_NULL, "requests not freed");
        CHECK(st[0].bytes == n && st[0].source == left, "ring status: %zu bytes from %d",
              st[0].bytes, st[0].source);
        long bad = tverify(rbuf, n, (unsigned)(left * 1000 + s));
        CHECK(bad < 0, "ring message of %zu bytes from %d wrong at byte %ld", n, left, bad);
    }
    free(sbuf);
    free(rbuf);
    CHECK_OK(bolt_finalize());
    if (rank == 0)
        printf("pingpong: %d ranks, %zu sizes up to %zu bytes: ok\n", size, NSIZES, max);
    return 0;
}
