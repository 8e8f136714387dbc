/* A peer that resets the connection while this rank acknowledges its
 * synchronous send: the failure is noticed while the runtime is sending the
 * acknowledgement for a request the user already let go of
 * (bolt_request_free). The rank must carry on cleanly (the sanitizer build
 * checks that no freed request is touched). */
#include <unistd.h>

#include "tutil.h"

int main(int argc, char **argv)
{
    int rank, size;
    bolt_comm_t w = tinit(&argc, &argv, &rank, &size);
    CHECK(size == 2, "run with 2 ranks");
    static char buf[1000], junk[1000];
    if (rank == 0) {
        bolt_request_t r;
        CHECK_OK(bolt_irecv(buf, sizeof buf, 1, 1, w, &r));
        CHECK_OK(bolt_request_free(&r));
        /* unread data at rank 1 makes its exit a reset rather than a close */
        CHECK_OK(bolt_send(junk, sizeof junk, 1, 99, w));
        usleep(1500000);
        for (int i = 0; i < 200; i++) {
            bolt_progress();
            usleep(1000);
        }
        printf("reset_in_send: ok\n");
        fflush(stdout);
        _exit(0);
    }
    usleep(300000);
    bolt_request_t s;
    CHECK_OK(bolt_issend(buf, sizeof buf, 0, 1, w, &s));
    usleep(200000);
    _exit(0);
}
