/* Waiting on ranks that have already finalized ends in an error that says
 * so (never a hang): an any-source receive, a receive naming one of them, a
 * synchronous send and a large send that needs their answer. A receive that
 * only the waiting rank itself could satisfy is reported as a deadlock. */
#include <unistd.h>

#include "tutil.h"

static void expect_finalized(int rc, const char *what)
{
    CHECK(rc == BOLT_ERR_PEER, "%s: expected BOLT_ERR_PEER, got %s", what, bolt_strerror(rc));
    CHECK(strstr(bolt_error_message(), "bolt_finalize"), "%s: message does not say why: %s", what,
          bolt_error_message());
}

int main(int argc, char **argv)
{
    int rank, size;
    bolt_comm_t w = tinit(&argc, &argv, &rank, &size);
    if (rank != 0) {
        CHECK_OK(bolt_finalize());
        return 0;
    }
    int v = 0;
    static char big[1 << 20];
    /* a receive only this (blocked) rank could satisfy is a deadlock, said so */
    int rc = bolt_recv(&v, sizeof v, 0, 1, w, NULL);
    CHECK(rc == BOLT_ERR_DEADLOCK && strstr(bolt_error_message(), "wait forever"),
          "receive from oneself: got %s: %s", bolt_strerror(rc), bolt_error_message());
    if (size == 1) {
        rc = bolt_recv(&v, sizeof v, BOLT_ANY_SOURCE, 1, w, NULL);
        CHECK(rc == BOLT_ERR_DEADLOCK, "any-source alone: got %s", bolt_strerror(rc));
    } else {
        expect_finalized(bolt_recv(&v, sizeof v, BOLT_ANY_SOURCE, 1, w, NULL), "any-source receive");
        expect_finalized(bolt_recv(&v, sizeof v, 1, 1, w, NULL), "receive from rank 1");
        expect_finalized(bolt_ssend(&v, sizeof v, 1, 1, w), "synchronous send to rank 1");
        expect_finalized(bolt_send(big, sizeof big, 1, 1, w), "large send to rank 1");
    }
    printf("finalized_peer: %d ranks ok (%s)\n", size, bolt_error_message());
    CHECK_OK(bolt_finalize());
    return 0;
}
