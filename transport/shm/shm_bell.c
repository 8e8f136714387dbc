/*
 * shm_bell.c — sleeping without lost wake-ups.
 *
 * A rank that found nothing to do sets its "asleep" flag in the segment,
 * re-checks everything it could be waiting for, and only then sleeps in
 * poll() on the read end of its doorbell pipe. A rank that publishes
 * something (a record, a chunk, a finished read, freed space) checks the
 * peer's flag afterwards and, if set, writes one byte to the peer's pipe.
 * Both sides put a fence between their store and their load (the
 * store-buffering pattern; asymmetric where possible, shm_fence.h), so at
 * least one of them sees the other: either the sleeper sees the new data and
 * does not sleep, or the waker sees the flag and rings. A full pipe (EAGAIN)
 * means the bell is already ringing.
 */
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "transport/shm/shm.h"
#include "transport/shm/shm_fence.h"

void shm_bell_wake(struct bolt_tl_ctx *ctx, struct shm_peer *p, int only_if_waiting)
{
    /* Our publication (a release store) before our reading of the flags. */
    shm_fence_light(ctx->fence_light);
    if (only_if_waiting && !atomic_load_explicit(&p->rx.c->prod.waiting, memory_order_relaxed))
        return;
    if (!atomic_load_explicit(&p->slot->asleep, memory_order_relaxed))
        return;
    char b = 1;
    ssize_t n;
    do
        n = write(p->bell_w, &b, 1);
    while (n < 0 && errno == EINTR);
    /* EAGAIN: the pipe is full, so the bell is ringing already. */
}

int shm_bell_sleep_prepare(struct bolt_tl_ctx *ctx)
{
    if (!ctx || !ctx->enabled || ctx->nwired == 0)
        return 0;
    atomic_store_explicit(&ctx->me->asleep, 1, memory_order_relaxed);
    /* Our flag before our re-check of the channels. */
    shm_fence_heavy();
    for (int i = 0; i < ctx->nwired; i++) {
        int peer = ctx->wired[i];
        if (!ctx->peers[peer].failed && shm_xfer_pending(ctx, peer))
            return 1;
    }
    return 0;
}

void shm_bell_sleep_done(struct bolt_tl_ctx *ctx)
{
    if (!ctx || !ctx->enabled || ctx->nwired == 0)
        return;
    atomic_store_explicit(&ctx->me->asleep, 0, memory_order_relaxed);
    char buf[64];
    while (read(ctx->bell_r, buf, sizeof buf) > 0) {
    }
    /* A sleep may have lasted long: look at the peers' liveness soon. */
    ctx->polls |= 63u;
}
