/* Ranks in pairs (0-1, 2-3, ...) ping-pong small messages many times. With
 * more ranks than cores the waits sleep in poll(); a lost wake-up would cost
 * the engine's 20 ms poll cap, so the average round trip must stay well
 * under it: argv[1] = bound in ms (default 2). Prints the measured average. */
#include <time.h>

#include "tutil.h"

int main(int argc, char **argv)
{
    int rank, size;
    bolt_comm_t w = tinit(&argc, &argv, &rank, &size);
    double bound_ms = argc > 1 ? atof(argv[1]) : 2.0;
    const int N = 2000;
    int peer = rank ^ 1;
    char b[8] = {0};
    double t0 = bolt_wtime();
    if (peer < size) {
        for (int i = 0; i < N; i++) {
            if (rank % 2 == 0) {
                CHECK_OK(bolt_send(b, sizeof b, peer, 1, w));
                CHECK_OK(bolt_recv(b, sizeof b, peer, 1, w, NULL));
            } else {
                CHECK_OK(bolt_recv(b, sizeof b, peer, 1, w, NULL));
                CHECK_OK(bolt_send(b, sizeof b, peer, 1, w));
            }
        }
    }
    double per_ms = (bolt_wtime() - t0) / N * 1e3;
    CHECK(per_ms < bound_ms, "%.3f ms per round trip (bound %.1f ms): wake-ups are being lost",
          per_ms, bound_ms);
    if (rank == 0)
        printf("wakeups: %d ranks, %d round trips per pair, %.1f us each: ok\n", size, N,
               per_ms * 1e3);
    CHECK_OK(bolt_finalize());
    return 0;
}
