/* shm_busy — a job that keeps its ranks talking until it is killed: pairs
 * (0-1, 2-3, ...) ping-pong small and large messages forever. Each rank
 * prints "ready RANK PID SHM" once wired (SHM: 1 when boltrun handed it a
 * shared segment). argv[1] is a marker for pgrep. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bolt.h"

int main(int argc, char **argv)
{
    int rank, size;
    if (bolt_init(&argc, &argv) != BOLT_OK)
        return 1;
    bolt_comm_t w = bolt_comm_world();
    bolt_comm_rank(w, &rank);
    bolt_comm_size(w, &size);
    printf("ready %d %ld %d\n", rank, (long)getpid(), getenv("BOLT_SHM_FD") != NULL);
    fflush(stdout);
    size_t big = (size_t)4 << 20;
    char *buf = calloc(1, big);
    int peer = rank ^ 1;
    for (unsigned long i = 0; peer < size; i++) {
        size_t n = i % 8 == 0 ? big : 64;
        int rc = rank % 2 ? bolt_recv(buf, n, peer, 0, w, NULL) : bolt_send(buf, n, peer, 0, w);
        if (rc == BOLT_OK)
            rc = rank % 2 ? bolt_send(buf, n, peer, 0, w) : bolt_recv(buf, n, peer, 0, w, NULL);
        if (rc != BOLT_OK) {
            fprintf(stderr, "rank %d: %s\n", rank, bolt_error_message());
            return 3;
        }
    }
    pause();
    (void)argv;
    return 0;
}
