/* A sender that computes between bolt_isend and bolt_wait does not hold up
 * its receiver over shared memory: the receiver reads the sender's buffer
 * itself (a large message is never split into a part the sender would have
 * to write when it comes back), up to BOLT_SHM_CMA_MAX (2 MiB; larger ones
 * are pipelined, which needs the sender: unless BOLT_SHM_CMA=1, then at
 * every size). bolt_isend_overlap says the sender computes: then at every
 * size. Over TCP the data moves only when the sender is in the library
 * again: there only the content is checked. */
#include <time.h>

#include "tutil.h"

#define COMPUTE_S 0.6

int main(int argc, char **argv)
{
    int rank, size;
    bolt_comm_t w = tinit(&argc, &argv, &rank, &size);
    CHECK(size == 2, "run with 2 ranks");
    const char *tl = getenv("BOLT_TRANSPORTS");
    const char *cma = getenv("BOLT_SHM_CMA");
    int shm = !tl || strncmp(tl, "shm", 3) == 0, every = cma && strcmp(cma, "1") == 0;
    static const size_t sizes[] = {64 << 10, 2 << 20, 8 << 20};
    unsigned char *buf = malloc(sizes[2]);
    CHECK(buf != NULL, "out of memory");
    const size_t nsizes = sizeof sizes / sizeof sizes[0];
    for (size_t k = 0; k < 2 * nsizes; k++) {
        size_t s = k % nsizes, n = sizes[s];
        int overlap = k >= nsizes; /* the second pass: bolt_isend_overlap */
        CHECK_OK(bolt_barrier(w));
        if (rank == 0) {
            tfill(buf, n, (unsigned)s);
            bolt_request_t req;
            if (overlap)
                CHECK_OK(bolt_isend_overlap(buf, n, 1, 3, w, &req));
            else
                CHECK_OK(bolt_isend(buf, n, 1, 3, w, &req));
            struct timespec c = {0, (long)(COMPUTE_S * 1e9)};
            nanosleep(&c, NULL); /* computing, not in the library */
            CHECK_OK(bolt_wait(&req, NULL));
        } else {
            memset(buf, 0, n);
            double t0 = bolt_wtime();
            CHECK_OK(bolt_recv(buf, n, 0, 3, w, NULL));
            double dt = bolt_wtime() - t0;
            long bad = tverify(buf, n, (unsigned)s);
            CHECK(bad < 0, "%zu bytes wrong at byte %ld", n, bad);
            CHECK(!shm || (n > sizes[1] && !every && !overlap) || dt < COMPUTE_S / 2,
                  "receiving %zu bytes over shm (%s) took %.3f s: it waited for the computing sender",
                  n, overlap ? "bolt_isend_overlap" : "bolt_isend", dt);
        }
    }
    free(buf);
    CHECK_OK(bolt_finalize());
    if (rank == 0)
        printf("rank 0: overlap ok\n");
    return 0;
}
