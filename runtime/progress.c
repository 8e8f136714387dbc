/* progress.c — polling the transports, and backing off when idle. */
#include <errno.h>
#include <poll.h>
#include <time.h>

#include "bolt.h"
#include "runtime/progress.h"
#include "runtime/runtime.h"

#define MAX_WAIT_FDS 1024
/* Longest single sleep: bounds how late a wait notices a deadline. */
#define IDLE_SLEEP_MS 20

double bolt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int (*bolt_progress_hook)(void);

int bolt_progress_poll(void)
{
    int n = 0;
    for (int i = 0; i < bolt_rt.ntls; i++) {
        int r = bolt_rt.tls[i]->progress(bolt_rt.tlctx[i]);
        if (r > 0)
            n += r;
    }
    if (bolt_progress_hook)
        n += bolt_progress_hook();
    return n;
}

void bolt_progress_backoff(long *idle)
{
    if (++*idle <= bolt_rt.spin_count)
        return;
    /* Sleep until a descriptor is ready: the kernel wakes us on data, so no
     * CPU is burnt while other ranks on this core need it. */
    struct pollfd fds[MAX_WAIT_FDS];
    int nfds = 0;
    for (int i = 0; i < bolt_rt.ntls && nfds < MAX_WAIT_FDS; i++) {
        int r = bolt_rt.tls[i]->pollfds(bolt_rt.tlctx[i], fds + nfds, MAX_WAIT_FDS - nfds);
        if (r > 0)
            nfds += r;
    }
    /* Transports woken by a doorbell announce the sleep and re-check first,
     * so a message published meanwhile is never slept through. */
    int busy = 0;
    for (int i = 0; i < bolt_rt.ntls; i++)
        if (bolt_rt.tls[i]->sleep_prepare && bolt_rt.tls[i]->sleep_prepare(bolt_rt.tlctx[i]) > 0)
            busy = 1;
    if (!busy && poll(fds, (nfds_t)nfds, IDLE_SLEEP_MS) < 0 && errno != EINTR)
        (void)0; /* a poll failure only costs a busier loop */
    for (int i = 0; i < bolt_rt.ntls; i++)
        if (bolt_rt.tls[i]->sleep_done)
            bolt_rt.tls[i]->sleep_done(bolt_rt.tlctx[i]);
}

int bolt_progress_until(int (*done)(void *arg), void *arg, double timeout)
{
    double deadline = timeout > 0 ? bolt_now() + timeout : 0;
    long idle = 0;
    while (!done(arg)) {
        if (bolt_progress_poll() > 0) {
            idle = 0;
            continue;
        }
        if (deadline && bolt_now() > deadline)
            return done(arg) ? BOLT_OK : BOLT_ERR_TIMEOUT;
        bolt_progress_backoff(&idle);
    }
    return BOLT_OK;
}
