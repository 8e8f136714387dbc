/* 1000 outstanding nonblocking requests at once, completed by waitall,
 * waitany and testall. */
#include "tutil.h"

#define NREQ 1000

int main(int argc, char **argv)
{
    int rank, size;
    bolt_comm_t w = tinit(&argc, &argv, &rank, &size);
    static bolt_request_t rreq[NREQ], sreq[NREQ];
    static bolt_status_t st[NREQ];
    static int rbuf[NREQ][4], sbuf[NREQ][4];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < NREQ; i++) {
            rbuf[i][0] = -1;
            CHECK_OK(bolt_irecv(rbuf[i], sizeof rbuf[i], left, i, w, &rreq[i]));
        }
        for (int i = NREQ - 1; i >= 0; i--) { /* sent in reverse tag order */
            for (int j = 0; j < 4; j++)
                sbuf[i][j] = rank * 100000 + i * 4 + j + round;
            CHECK_OK(bolt_isend(sbuf[i], sizeof sbuf[i], right, i, w, &sreq[i]));
        }
        if (round == 0) {
            CHECK_OK(bolt_waitall(NREQ, rreq, st));
        } else if (round == 1) {
            int left_to_do = NREQ, idx;
            while (left_to_do--) {
                bolt_status_t s1;
                CHECK_OK(bolt_waitany(NREQ, rreq, &idx, &s1));
                CHECK(idx >= 0 && rreq[idx] == BOLT_REQUEST_NULL, "waitany index %d", idx);
                st[idx] = s1;
            }
            CHECK_OK(bolt_waitany(NREQ, rreq, &idx, NULL));
            CHECK(idx == -1, "waitany on all-null array gave %d", idx);
        } else {
            int flag = 0;
            while (!flag)
                CHECK_OK(bolt_testall(NREQ, rreq, &flag, st));
        }
        for (int i = 0; i < NREQ; i++) {
            CHECK(st[i].tag == i && st[i].source == left && st[i].bytes == sizeof rbuf[i],
                  "status %d", i);
            for (int j = 0; j < 4; j++)
                CHECK(rbuf[i][j] == left * 100000 + i * 4 + j + round, "payload %d", i);
        }
        CHECK_OK(bolt_waitall(NREQ, sreq, NULL));
    }
    CHECK_OK(bolt_finalize());
    if (rank == 0)
        printf("many: %d ranks x %d outstanding requests ok\n", size, NREQ);
    return 0;
}
