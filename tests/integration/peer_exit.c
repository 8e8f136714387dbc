/* A peer that vanishes (exits without bolt_finalize, or is killed) turns the
 * survivors' pending receives into an error that names it: never a hang.
 * argv[1]: "exit" (the victim calls _exit(0)), "kill" (it raises SIGKILL) or
 * "split" (it exits, the others then try a communicator split). */
#include <signal.h>
#include <unistd.h>

#include "tutil.h"

int main(int argc, char **argv)
{
    int rank, size;
    bolt_comm_t w = tinit(&argc, &argv, &rank, &size);
    int victim = size - 1;
    const char *how = argc > 1 ? argv[1] : "exit";
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    /* some healthy traffic first */
    for (int i = 0; i < 20; i++) {
        int v = i, got;
        CHECK_OK(bolt_sendrecv(&v, sizeof v, right, 1, &got, sizeof got, left, 1, w, NULL));
    }
    if (rank == victim) {
        usleep(200000);
        if (!strcmp(how, "kill"))
            raise(SIGKILL);
        fflush(stdout);
        _exit(0);
    }
    if (!strcmp(how, "split")) {
        /* a collective call with a dead member fails on every survivor */
        bolt_comm_t half;
        int rc = bolt_comm_split(w, rank % 2, 0, &half);
        CHECK(rc == BOLT_ERR_PEER, "split: expected BOLT_ERR_PEER, got %s", bolt_strerror(rc));
        printf("rank %d saw: %s\n", rank, bolt_error_message());
        bolt_finalize();
        return 0;
    }
    /* Wait for a message the victim will never send. */
    int v;
    bolt_status_t st;
    int rc = bolt_recv(&v, sizeof v, victim, 2, w, &st);
    CHECK(rc == BOLT_ERR_PEER, "expected BOLT_ERR_PEER, got %s", bolt_strerror(rc));
    char needle[64];
    snprintf(needle, sizeof needle, "peer rank %d on ", victim);
    CHECK(strstr(bolt_error_message(), needle), "message does not name the peer: %s",
          bolt_error_message());
    printf("rank %d saw: %s\n", rank, bolt_error_message());
    fflush(stdout);
    /* Any-source receive also fails rather than hanging. */
    rc = bolt_recv(&v, sizeof v, BOLT_ANY_SOURCE, 3, w, &st);
    CHECK(rc == BOLT_ERR_PEER, "any-source: expected BOLT_ERR_PEER, got %s", bolt_strerror(rc));
    bolt_finalize();
    return 0;
}
