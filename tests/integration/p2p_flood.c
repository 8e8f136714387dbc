/* p2p_flood.c — every rank floods every other with a window of nonblocking
 * sends of mixed sizes (small and large eager, rendezvous) while receiving
 * theirs, receives posted first, so that the transport's queue toward each
 * peer overflows: a rendezvous DATA frame then waits in the send queue with
 * eager frames, RTSes and CTSes behind it, and each must still go out in
 * order, once. Every byte is checked; a lost frame shows as a stall, which
 * the alarm turns into a failure naming the rank and what it waits for. */
#include <signal.h>
#include <unistd.h>

#include "tutil.h"

#define WINDOW 96   /* messages per peer per round */
#define ROUNDS 4
#define BIG (100 * 1024)
#define STALL_S 15 /* a pass takes well under a second */

static int me;
static volatile sig_atomic_t phase_round = -1;

static size_t size_of(int i)
{
    switch (i % 4) {
    case 0: return 8 * 1024;            /* eager, fills the ring fast */
    case 1: return BIG + (size_t)i;     /* rendezvous */
    case 2: return 1 + (size_t)i;       /* small eager */
    default: return 15 * 1024 + (size_t)i; /* eager (single-copy toward some peers) */
    }
}

static void stalled(int sig)
{
    (void)sig;
    char msg[160];
    int n = snprintf(msg, sizeof msg,
                     "FAIL p2p_flood: rank %d stalled in round %d for %d s: a message never "
                     "arrived or a send never completed\n",
                     me, (int)phase_round, STALL_S);
    if (n > 0 && write(2, msg, (size_t)n) < 0)
        (void)0;
    _exit(1);
}

int main(int argc, char **argv)
{
    int size;
    bolt_comm_t w = tinit(&argc, &argv, &me, &size);
    signal(SIGALRM, stalled);
    alarm(STALL_S);
    int npeer = size - 1, n = npeer * WINDOW;
    bolt_request_t *rreq = calloc((size_t)n, sizeof *rreq), *sreq = calloc((size_t)n, sizeof *sreq);
    unsigned char **rbuf = calloc((size_t)n, sizeof *rbuf), **sbuf = calloc((size_t)n, sizeof *sbuf);
    bolt_status_t *st = calloc((size_t)n, sizeof *st);
    CHECK(rreq && sreq && rbuf && sbuf && st, "out of memory");
    for (int k = 0; k < n; k++) {
        rbuf[k] = malloc(BIG + WINDOW);
        sbuf[k] = malloc(BIG + WINDOW);
        CHECK(rbuf[k] && sbuf[k], "out of memory");
    }
    for (int round = 0; round < ROUNDS; round++) {
        phase_round = round;
        /* Slot k: peer index k / WINDOW (skipping this rank), message k % WINDOW. */
        for (int k = 0; k < n; k++) {
            int q = k / WINDOW, i = k % WINDOW, peer = q < me ? q : q + 1;
            CHECK_OK(bolt_irecv(rbuf[k], BIG + WINDOW, peer, i, w, &rreq[k]));
        }
        /* Interleaved over the peers, so every peer's queue fills at once. */
        for (int i = 0; i < WINDOW; i++)
            for (int q = 0; q < npeer; q++) {
                int k = q * WINDOW + i, peer = q < me ? q : q + 1;
                tfill(sbuf[k], size_of(i), (unsigned)(me * 7919 + peer * 131 + i * 3 + round));
                CHECK_OK(bolt_isend(sbuf[k], size_of(i), peer, i, w, &sreq[k]));
            }
        CHECK_OK(bolt_waitall(n, rreq, st));
        CHECK_OK(bolt_waitall(n, sreq, NULL));
        for (int k = 0; k < n; k++) {
            int q = k / WINDOW, i = k % WINDOW, peer = q < me ? q : q + 1;
            long bad = tverify(rbuf[k], size_of(i), (unsigned)(peer * 7919 + me * 131 + i * 3 + round));
            CHECK(st[k].bytes == size_of(i) && st[k].source == peer && st[k].tag == i && bad < 0,
                  "rank %d round %d: message %d from %d: %zu bytes (want %zu), first wrong byte %ld",
                  me, round, i, peer, st[k].bytes, size_of(i), bad);
        }
    }
    for (int k = 0; k < n; k++) {
        free(rbuf[k]);
        free(sbuf[k]);
    }
    free(rreq), free(sreq), free(rbuf), free(sbuf), free(st);
    alarm(0);
    CHECK_OK(bolt_finalize());
    if (me == 0)
        printf("p2p_flood: ok (%d ranks, %d rounds of %d messages per peer)\n", size, ROUNDS,
               WINDOW);
    return 0;
}
