/* bcast_flood.c — a root broadcasting small buffers in a loop runs ahead of
 * the other ranks; what it sends ahead must wait in bounded buffers (the
 * transport's), not pile up in a receiver's memory. Every rank checks every
 * value; each non-root rank's peak resident memory may grow by at most
 * BOUND_MIB over the loop (it grew by 20-33 MiB in 400 000 broadcasts of
 * 4 bytes when the shm transport drained its ring without limit; 0.1 MiB since).
 * With BYTES, broadcasts of that many bytes, each a different pattern that
 * every rank checks whole (a 64 KiB flat broadcast on one host goes through
 * the shm transport's shared slots while one is free, and by rendezvous
 * when the receivers are behind).
 *
 *   bcast_flood [ITERS [BYTES]]      (default 400000, 4)
 */
#include <sys/resource.h>

#include "cutil.h"

#ifdef __SANITIZE_ADDRESS__
#define BOUND_MIB 16 /* ASan's quarantine and redzones: 4-4.5 MiB measured with the fix */
#else
#define BOUND_MIB 8
#endif

static long peak_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss; /* KiB on Linux */
}

int main(int argc, char **argv)
{
    OK(bolt_init(&argc, &argv));
    bolt_comm_t w = bolt_comm_world();
    OK(bolt_comm_rank(w, &crank));
    OK(bolt_comm_size(w, &csize));
    long iters = argc > 1 ? atol(argv[1]) : 400000;
    size_t bytes = argc > 2 ? (size_t)atol(argv[2]) : 4;
    size_t words = bytes / 4 ? bytes / 4 : 1;
    int32_t *v = calloc(words, sizeof *v);
    EXPECT(v != NULL, "out of memory for %zu bytes", bytes);
    CASE("warm-up");
    for (int i = 0; i < 1000; i++)
        OK(bolt_bcast(v, words, BOLT_INT32, 0, w));
    OK(bolt_barrier(w));
    long before = peak_kib();
    CASE("flood of %ld broadcasts of %zu bytes from rank 0", iters, words * 4);
    for (long i = 0; i < iters; i++) {
        for (size_t k = 0; k < words; k++)
            v[k] = crank == 0 ? (int32_t)(i * 7 + (long)k) : -1;
        OK(bolt_bcast(v, words, BOLT_INT32, 0, w));
        for (size_t k = 0; k < words; k++)
            if (v[k] != (int32_t)(i * 7 + (long)k)) {
                EXPECT(0, "broadcast %ld delivered %d at element %zu", i, (int)v[k], k);
                break;
            }
    }
    free(v);
    int64_t grown = peak_kib() - before, most = 0, mine = crank ? grown : 0;
    OK(bolt_allreduce(&mine, &most, 1, BOLT_INT64, BOLT_MAX, w));
    if (crank != 0)
        EXPECT(grown <= BOUND_MIB * 1024L,
               "peak memory grew by %lld KiB over the loop (bound %d MiB): messages sent ahead "
               "piled up here",
               (long long)grown, BOUND_MIB);
    if (crank == 0)
        printf("bcast_flood: %d ranks, %ld broadcasts of %zu bytes, every value checked; the other "
               "ranks' peak memory grew by %lld KiB at most: ok\n", csize, iters, words * 4,
               (long long)most);
    OK(bolt_finalize());
    return 0;
}
