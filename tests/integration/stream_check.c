/* stream_check.c — a steady, verified workload for tests that break a link
 * while it runs: ITERS rounds of a ring exchange of BYTES (both directions,
 * eager and rendezvous sizes alternating) and an all-reduce of BYTES/8
 * 64-bit integers, every byte checked. Rank 0 prints "round K ok" after each
 * round (the harness waits for it before pulling a cable) and "stream: ..."
 * at the end.
 *
 *   stream_check [ITERS [BYTES]]     (defaults: 40 rounds, 1 MiB)
 */
#include <stdint.h>

#include "bolt_coll.h"
#include "tutil.h"

int main(int argc, char **argv)
{
    int rank, size;
    bolt_comm_t w = tinit(&argc, &argv, &rank, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 40;
    size_t big = argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : (size_t)1 << 20;
    CHECK(iters > 0 && big >= 64, "usage: stream_check [ITERS [BYTES]]");
    unsigned char *sb = malloc(big), *rb = malloc(big);
    size_t count = big / 8;
    int64_t *in = malloc(count * 8), *out = malloc(count * 8);
    CHECK(sb && rb && in && out, "out of memory");
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int it = 0; it < iters; it++) {
        /* Small (eager) and large (rendezvous) messages in turn. */
        size_t n = (it % 2) ? big : 1000 + (size_t)it;
        tfill(sb, n, (unsigned)(rank * 1000 + it));
        memset(rb, 0, n);
        CHECK_OK(bolt_sendrecv(sb, n, right, it, rb, n, left, it, w, NULL));
        long bad = tverify(rb, n, (unsigned)(left * 1000 + it));
        CHECK(bad < 0, "round %d: byte %ld of %zu from rank %d is wrong", it, bad, n, left);
        for (size_t i = 0; i < count; i++)
            in[i] = (int64_t)(i * 7 + (size_t)rank + (size_t)it);
        CHECK_OK(bolt_allreduce(in, out, count, BOLT_INT64, BOLT_SUM, w));
        for (size_t i = 0; i < count; i++) {
            int64_t want = (int64_t)size * (int64_t)(i * 7 + (size_t)it) +
                           (int64_t)size * (size - 1) / 2;
            CHECK(out[i] == want, "round %d: allreduce element %zu is %lld, not %lld", it, i,
                  (long long)out[i], (long long)want);
        }
        if (rank == 0) {
            printf("round %d ok\n", it);
            fflush(stdout);
        }
    }
    if (rank == 0)
        printf("stream: %d ranks, %d rounds of %zu bytes: ok\n", size, iters, big);
    free(sb), free(rb), free(in), free(out);
    CHECK_OK(bolt_finalize());
    return 0;
}
