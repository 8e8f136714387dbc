/* progress.c — polling the transports, and backing off when idle. */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <time.h>

#include "bolt.h"
#include "runtime/errors.h"
#include "runtime/progress.h"
#include "runtime/runtime.h"
#include "runtime/thread.h"

#define MAX_WAIT_FDS 1024
/* Longest single sleep: bounds how late a wait notices a deadline. */
#define IDLE_SLEEP_MS 20
/* When ranks do not outnumber cores (spin_count > 0), a wait spins at least
 * this long before it sleeps, however cheap a poll is: a peer that answers
 * within it (a ping-pong, a peer briefly preempted by another process) is
 * seen without a doorbell write and a wake-up, which cost tens of
 * microseconds each. Measured on 2 ranks / 2 cores (bench/README.md). */
#define SPIN_MIN_S 1e-3

double bolt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int (*bolt_progress_hook)(void);
static int (*hooks[BOLT_PROGRESS_HOOKS])(void);
static int nhooks;

int bolt_progress_hook_add(int (*fn)(void))
{
    if (nhooks == BOLT_PROGRESS_HOOKS)
        return bolt_err_set(BOLT_ERR_INTERNAL, "bolt_progress_hook_add: %d hooks already",
                            nhooks);
    hooks[nhooks++] = fn;
    return BOLT_OK;
}

void bolt_progress_hook_remove(int (*fn)(void))
{
    for (int i = 0; i < nhooks; i++)
        if (hooks[i] == fn) {
            hooks[i] = hooks[--nhooks];
            hooks[nhooks] = NULL;
            return;
        }
}

/* The transports that carry traffic for at least one peer. One with no peer
 * is not polled: TCP's poll is a system call (epoll_wait) even when it has
 * nothing to watch, and it would otherwise cost every shared-memory wait one
 * per pass. Computed once the peers are wired (bolt_rt.initialized) and
 * again whenever the runtime's peer table or transport list changes. */
static struct {
    const struct bolt_peer *peers;
    int ntls, size;
    int n;
    int idx[BOLT_MAX_TRANSPORTS];
    int standby_only[BOLT_MAX_TRANSPORTS]; /* by position in idx */
} active;

static void active_refresh(void)
{
    int used[BOLT_MAX_TRANSPORTS] = {0}, primary[BOLT_MAX_TRANSPORTS] = {0};
    for (int p = 0; p < bolt_rt.size; p++) {
        int t = bolt_rt.peers[p].tl, s = bolt_rt.peers[p].standby;
        if (t >= 0 && t < bolt_rt.ntls)
            used[t] = primary[t] = 1;
        if (s >= 0 && s < bolt_rt.ntls)
            used[s] = 1;
    }
    active.n = 0;
    for (int t = 0; t < bolt_rt.ntls; t++)
        if (used[t]) {
            active.standby_only[active.n] = !primary[t];
            active.idx[active.n++] = t;
        }
    active.peers = bolt_rt.peers;
    active.ntls = bolt_rt.ntls;
    active.size = bolt_rt.size;
}

/* Fills idx with the transports to poll; returns how many. */
static inline int polled(const int **idx)
{
    static const int all[BOLT_MAX_TRANSPORTS] = {0, 1, 2, 3};
    if (!bolt_rt.initialized || !bolt_rt.peers) {
        *idx = all; /* during set-up: every transport */
        return bolt_rt.ntls;
    }
    if (active.peers != bolt_rt.peers || active.ntls != bolt_rt.ntls || active.size != bolt_rt.size)
        active_refresh();
    *idx = active.idx;
    return active.n;
}

atomic_ulong bolt_progress_passes;

int bolt_progress_poll(void)
{
    static unsigned passes;
    atomic_fetch_add_explicit(&bolt_progress_passes, 1, memory_order_relaxed);
    int n = 0;
    const int *idx;
    int k = polled(&idx);
    /* A standby transport carries nothing until a link fails: every 32nd
     * pass is enough to notice its peer going away (and sleeping watches its
     * descriptors anyway); once it tunnels traffic, every pass. */
    int rare = (++passes & 31u) != 0 && bolt_rt.tunnels == 0 && bolt_rt.initialized;
    for (int i = 0; i < k; i++) {
        int t = idx[i];
        if (rare && idx == active.idx && active.standby_only[i])
            continue;
        int r = bolt_rt.tls[t]->progress(bolt_rt.tlctx[t]);
        if (r > 0)
            n += r;
    }
    if (bolt_progress_hook)
        n += bolt_progress_hook();
    for (int i = 0; i < nhooks; i++)
        n += hooks[i]();
    return n;
}

/* The part of a backoff past the plain spin: *idle was just incremented and
 * is past spin_count (or spin_count is 0). Then, in turn: spin on until
 * SPIN_MIN_S has gone by (if spinning at all), yield the core yield_count
 * times, sleep. */
static void backoff_slow(long *idle)
{
    static double spin_start;
    static long yield_end; /* the idle count up to which we yield; 0: not yet */
    long past = *idle - bolt_rt.spin_count;
    if (past == 1) {
        yield_end = 0;
        if (bolt_rt.spin_count > 0) {
            spin_start = bolt_now();
            return;
        }
    }
    if (spin_start > 0) {
        /* The clock is read once per spin_count/8 polls, not on every one. */
        long every = bolt_rt.spin_count / 8 + 1;
        if (past % every != 0 || bolt_now() - spin_start < SPIN_MIN_S)
            return;
        spin_start = 0;
    }
    if (yield_end == 0)
        yield_end = *idle + bolt_rt.yield_count;
    if (*idle < yield_end) {
        sched_yield(); /* a rank waiting for this core runs now */
        return;
    }
    /* Sleep until a descriptor is ready: the kernel wakes us on data, so no
     * CPU is burnt while other ranks on this core need it. With several
     * threads, one sleeps; another waits until that sleep ends (the lock
     * dropped meanwhile), then polls again. */
    bolt_progress_sleep();
}

void bolt_progress_sleep(void)
{
    if (!bolt_lock_sleep_claim())
        return;
    struct pollfd fds[MAX_WAIT_FDS];
    int nfds = 0;
    const int *idx;
    int k = polled(&idx);
    for (int i = 0; i < k && nfds < MAX_WAIT_FDS; i++) {
        int t = idx[i];
        int r = bolt_rt.tls[t]->pollfds(bolt_rt.tlctx[t], fds + nfds, MAX_WAIT_FDS - nfds);
        if (r > 0)
            nfds += r;
    }
    int wake = bolt_lock_wake_fd();
    if (wake >= 0 && nfds < MAX_WAIT_FDS)
        fds[nfds++] = (struct pollfd){.fd = wake, .events = POLLIN};
    /* Transports woken by a doorbell announce the sleep and re-check first,
     * so a message published meanwhile is never slept through. */
    int busy = 0;
    for (int i = 0; i < k; i++) {
        int t = idx[i];
        if (bolt_rt.tls[t]->sleep_prepare && bolt_rt.tls[t]->sleep_prepare(bolt_rt.tlctx[t]) > 0)
            busy = 1;
    }
    /* The lock is dropped while asleep, so another thread's send runs. */
    bolt_lock_sleep_drop();
    if (!busy && poll(fds, (nfds_t)nfds, IDLE_SLEEP_MS) < 0 && errno != EINTR)
        (void)0; /* a poll failure only costs a busier loop */
    bolt_lock_sleep_end();
    for (int i = 0; i < k; i++) {
        int t = idx[i];
        if (bolt_rt.tls[t]->sleep_done)
            bolt_rt.tls[t]->sleep_done(bolt_rt.tlctx[t]);
    }
}

void bolt_progress_backoff(long *idle)
{
    bolt_lock_yield();
    if (++*idle <= bolt_rt.spin_count)
        return;
    backoff_slow(idle);
}

int bolt_progress_until(int (*done)(void *arg), void *arg, double timeout)
{
    double deadline = timeout > 0 ? bolt_now() + timeout : 0;
    long idle = 0;
    /* Read once: the lock is turned on before a second thread calls in. */
    int threaded = atomic_load_explicit(&bolt_lock_on, memory_order_relaxed);
    while (!done(arg)) {
        if (threaded)
            bolt_lock_yield_slow(); /* a thread waiting to call in runs now */
        if (bolt_progress_poll() > 0) {
            idle = 0;
            continue;
        }
        if (deadline && bolt_now() > deadline)
            return done(arg) ? BOLT_OK : BOLT_ERR_TIMEOUT;
        if (++idle <= bolt_rt.spin_count)
            continue; /* the plain spin: nothing more per pass */
        backoff_slow(&idle);
    }
    return BOLT_OK;
}
