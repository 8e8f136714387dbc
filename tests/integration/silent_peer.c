/* silent_peer.c — rank 1 stops (SIGSTOP) right after bolt_init; rank 0 sends
 * it COUNT messages of 1 KiB and waits for them. Over a transport that needs
 * the peer's acknowledgements (rdma: credits), the sends cannot all finish:
 * rank 0 must end with an error naming the silent peer, not hang. Rank 0
 * prints the error and exits 1; boltrun then stops the job.
 *   silent_peer [COUNT]     (default 256)                                  */
#include <signal.h>

#include "tutil.h"

int main(int argc, char **argv)
{
    int rank, size;
    bolt_comm_t w = tinit(&argc, &argv, &rank, &size);
    int count = argc > 1 ? atoi(argv[1]) : 256;
    CHECK(size >= 2 && count > 0, "run with boltrun -np 2 [COUNT]");
    if (rank == 1) {
        raise(SIGSTOP); /* a peer that stops answering, process alive */
        return 0;
    }
    if (rank != 0)
        return bolt_finalize() == BOLT_OK ? 0 : 1;
    static char buf[1024];
    bolt_request_t *reqs = calloc((size_t)count, sizeof *reqs);
    CHECK(reqs != NULL, "out of memory");
    for (int i = 0; i < count; i++)
        CHECK_OK(bolt_isend(buf, sizeof buf, 1, i, w, &reqs[i]));
    int rc = bolt_waitall(count, reqs, NULL);
    if (rc == BOLT_OK) {
        printf("silent_peer: all %d sends completed although rank 1 is stopped\n", count);
        return 0;
    }
    fprintf(stderr, "silent_peer: rank 0: %s\n", bolt_error_message());
    return 1;
}
