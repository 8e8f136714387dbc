/*
 * shm_xfer.c — moving frames over a channel pair (see shm.h).
 *
 * Frames up to the eager limit are copied into the ring whole (header cell +
 * payload cells). A larger DATA frame (the payload of a rendezvous) puts only
 * its header in the ring; its payload then either
 *   - is read by the receiver straight from the sender's buffer into its own
 *     (SHM_REC_CMA, one copy), after which the receiver bumps cma_done and
 *     the sender completes the frame; or
 *   - streams through the channel's staging chunks (SHM_REC_PIPE): the
 *     sender fills chunk k+1 while the receiver empties chunk k, so the two
 *     copies overlap.
 * Records are consumed in order; only one staged DATA frame moves at a time
 * per channel, so the chunk sequence needs no framing of its own.
 */
#include <errno.h>
#include <string.h>

#include "transport/shm/shm.h"
#include "transport/shm/shm_cma.h"

static int is_large_data(const struct bolt_tl_ctx *ctx, struct shm_peer *p,
                         const struct bolt_tl_send *s)
{
    return s->hdr.type == BOLT_FRAME_DATA && s->hdr.len > shm_peer_eager_limit(ctx, p);
}

static void append(struct bolt_tl_send **head, struct bolt_tl_send **tail, struct bolt_tl_send *s)
{
    s->tl_next = NULL;
    if (*tail)
        (*tail)->tl_next = s;
    else
        *head = s;
    *tail = s;
}

static struct bolt_tl_send *pop(struct bolt_tl_send **head, struct bolt_tl_send **tail)
{
    struct bolt_tl_send *s = *head;
    *head = s->tl_next;
    if (!*head)
        *tail = NULL;
    s->tl_next = NULL;
    return s;
}

/* Should large DATA to p go single-copy? The receiver probed us at its
 * wire-up and left the answer on our channel (before it could send the CTS
 * that led to this DATA, so it is there by now). */
int shm_xfer_use_cma(struct bolt_tl_ctx *ctx, struct shm_peer *p, uint64_t len, unsigned hints)
{
    /* auto: up to cma_max, or when the sender is busy itself. On 2 ranks /
     * 2 cores one copy of a buffer still in the sender's cache was 1.7x
     * faster than the two overlapped copies of the pipeline at 64 KiB-1 MiB,
     * and 1.1-1.5x slower from 4 MiB, where both go to memory and the
     * pipeline puts an otherwise idle sender to work; in an exchange (a
     * 2-rank 16 MiB all-reduce) the sender is not idle, and one copy per
     * byte won again: 2.85 against 3.6 ms (bench/README.md). With more
     * ranks than cores, an idle sender waits for its receiver to get a
     * core: 4 ranks on 2 cores, MPI_Bcast of 64 KiB 15-16 us single-copy,
     * 11-16 pipelined; all-reduce of 1 MiB 404-410 us single-copy, 503-508
     * pipelined. The pipeline needs the sender's copies: after an isend
     * of more than cma_max the data moves when the sender is back in the
     * library (a window of isends then waitall: 2x the bandwidth of the
     * receiver reading alone from 4 MiB; BOLT_SHM_CMA=1 has the receiver
     * read every size alone, for overlap with computation).
     * A busy sender on crowded cores too: there is no idle core for the
     * receiver's copy to use, and the pipeline's two copies through chunks
     * that stay in the cache beat one from the sender's buffer. 4 ranks on
     * 2 cores, collectives that exchange (medians of 3, us, single-copy /
     * pipeline): all-reduce 256 KiB 146 / 115, 4 MiB 2369 / 1526; scan 1 MiB
     * 596 / 384; reduce-scatter 4 MiB 1125 / 901; all-gather 4 MiB 3846 /
     * 3178; all-to-all 64 KiB 64 / 57, 1 MiB 597 / 612.
     * But a fan-out up to cma_max (a scatter's root, idle while its
     * receivers copy) is read single-copy there too: the receivers' copies
     * run in parallel, the root's would run in turn (4 ranks on 2 cores,
     * MPI_Scatter of 256 KiB after a barrier 37-42 us single-copy, 49-52
     * staged, 60-66 split; from 4 MiB staged is as fast or faster). */
    int busy = (hints & BOLT_TL_HINT_SENDER_BUSY) != 0;
    int fan_out = (hints & BOLT_TL_HINT_FAN_OUT) != 0;
    if (ctx->cma_mode == 0 || (hints & BOLT_TL_HINT_NO_READ))
        return 0;
    if (ctx->cma_mode < 0 &&
        (ctx->crowded ? !fan_out || len > ctx->cma_max : len > ctx->cma_max && !busy))
        return 0;
    return shm_peer_cma(ctx, p); /* not known yet: stage this one */
}

/* 1: s's record is in the ring (s is then complete, or waits on the pipe or
 * CMA list); 0: no room. */
static int post(struct bolt_tl_ctx *ctx, struct shm_peer *p, struct bolt_tl_send *s, int *whole)
{
    *whole = 0;
    if (is_large_data(ctx, p, s)) {
        if (shm_xfer_use_cma(ctx, p, s->hdr.len, s->hints)) {
            if (!shm_ring_put(&p->tx, SHM_REC_CMA, (uint64_t)(uintptr_t)s->payload, &s->hdr, NULL, 0))
                return 0;
            append(&p->cma_head, &p->cma_tail, s);
            return 1;
        }
        if (!shm_ring_put(&p->tx, SHM_REC_PIPE, 0, &s->hdr, NULL, 0))
            return 0;
        append(&p->pipe_head, &p->pipe_tail, s);
        return 1;
    }
    if (!shm_ring_put(&p->tx, SHM_REC_FRAME, 0, &s->hdr, s->payload, s->hdr.len))
        return 0;
    *whole = 1;
    return 1;
}

/* Fills free staging chunks from the head pipe(s). Returns frames completed
 * (+1 if chunks moved, so the engine keeps polling rather than sleeping). */
static int pump_pipe(struct bolt_tl_ctx *ctx, struct shm_peer *p)
{
    const uint64_t C = ctx->seg->chunk_bytes, K = ctx->seg->nchunks;
    int moved = 0;
    while (p->pipe_head && !p->failed) {
        struct bolt_tl_send *s = p->pipe_head;
        uint64_t len = s->hdr.len;
        uint64_t got = atomic_load_explicit(&p->tx.c->cons.chunks_got, memory_order_acquire);
        while (p->pipe_off < len) {
            if (p->chunks_put - got >= K) {
                got = atomic_load_explicit(&p->tx.c->cons.chunks_got, memory_order_acquire);
                if (p->chunks_put - got >= K)
                    break;
            }
            uint64_t n = len - p->pipe_off < C ? len - p->pipe_off : C;
            memcpy(p->tx_stage + (p->chunks_put % K) * C, (const char *)s->payload + p->pipe_off,
                   n);
            p->pipe_off += n;
            p->chunks_put++;
            atomic_store_explicit(&p->tx.c->prod.chunks_put, p->chunks_put, memory_order_release);
            shm_bell_wake(ctx, p, 0);
            moved = 1;
        }
        if (p->pipe_off < len)
            break;
        pop(&p->pipe_head, &p->pipe_tail);
        p->pipe_off = 0;
        s->complete(s, 0);
        moved++;
    }
    return moved;
}

static int flush_queue(struct bolt_tl_ctx *ctx, struct shm_peer *p)
{
    int frames = 0, posted = 0, whole;
    while (p->sq_head && !p->failed) {
        struct bolt_tl_send *s = p->sq_head, *next = s->tl_next;
        if (!post(ctx, p, s, &whole))
            break;
        /* Unlinked by the link read before post: a large DATA frame is now
         * on the pipe or CMA list, whose append cleared s->tl_next, and a
         * pop() would then drop every frame queued behind it (seen: RTS
         * frames behind a queued DATA never sent, their sends waiting for
         * a CTS for good under load). */
        p->sq_head = next;
        if (!next)
            p->sq_tail = NULL;
        posted++;
        if (whole) {
            s->complete(s, 0); /* may queue more: they land behind */
            frames++;
        }
    }
    if (posted)
        shm_bell_wake(ctx, p, 0);
    return frames;
}

static int reap_cma(struct shm_peer *p)
{
    if (!p->cma_head)
        return 0;
    uint64_t done = atomic_load_explicit(&p->tx.c->cons.cma_done, memory_order_acquire);
    int frames = 0;
    while (p->cma_head && p->cma_completed < done && !p->failed) {
        struct bolt_tl_send *s = pop(&p->cma_head, &p->cma_tail);
        p->cma_completed++;
        s->complete(s, 0);
        frames++;
    }
    return frames;
}

int shm_xfer_take_now(struct bolt_tl_ctx *ctx, int peer, const struct bolt_frame_hdr *want,
                      void *buf)
{
    struct shm_peer *p = &ctx->peers[peer];
    struct shm_rec rec;
    /* A pipe in progress: left to read_records (frames after it could go,
     * but nothing here needs them). */
    if (p->failed || !p->wired || p->rx_pipe || !shm_ring_peek(&p->rx, &rec) ||
        (rec.kind != SHM_REC_FRAME && rec.kind != SHM_REC_MCAST))
        return 0;
    const struct bolt_frame_hdr *h = &rec.hdr;
    if (h->magic != want->magic || h->type != want->type || h->flags != want->flags ||
        h->ctx != want->ctx || h->src != want->src || h->tag != want->tag ||
        h->len != want->len || h->msg_size != want->msg_size)
        return 0;
    if (rec.kind == SHM_REC_MCAST) {
        if (!shm_mcast_rec_ok(ctx, &rec))
            return 0; /* malformed: read_records fails the peer */
        shm_mcast_read(ctx, p, rec.aux, buf, h->len);
        shm_ring_pop(&p->rx, 0);
    } else {
        if (h->len)
            shm_ring_read_payload(&p->rx, buf, h->len);
        shm_ring_pop(&p->rx, h->len);
    }
    shm_bell_wake(ctx, p, 1); /* ring space came back */
    return 1;
}

int shm_xfer_send_now(struct bolt_tl_ctx *ctx, int peer, const struct bolt_frame_hdr *h,
                      const void *payload)
{
    struct shm_peer *p = &ctx->peers[peer];
    /* Behind queued frames it would overtake them: MPI's order forbids. */
    if (p->failed || !p->wired || p->sq_head || h->len > ctx->eager_limit ||
        (h->len > ctx->cma_min && h->len > shm_peer_eager_limit(ctx, p)) ||
        !shm_ring_put(&p->tx, SHM_REC_FRAME, 0, h, payload, h->len))
        return 0;
    shm_bell_wake(ctx, p, 0);
    return 1;
}

void shm_xfer_send(struct bolt_tl_ctx *ctx, int peer, struct bolt_tl_send *s)
{
    struct shm_peer *p = &ctx->peers[peer];
    int whole;
    s->tl_done = 0;
    s->tl_next = NULL;
    if (!p->sq_head && post(ctx, p, s, &whole)) {
        shm_bell_wake(ctx, p, 0);
        if (whole)
            s->complete(s, 0);
        else if (p->pipe_head == s)
            pump_pipe(ctx, p); /* start staging now: the receiver may be waiting */
        return;
    }
    append(&p->sq_head, &p->sq_tail, s);
    shm_bell_set_waiting(p, 1);
}

/* Empties the staging chunks that are full into the receive buffer. */
static int drain_rx_pipe(struct bolt_tl_ctx *ctx, struct shm_peer *p, int peer)
{
    if (!p->rx_pipe)
        return 0;
    const uint64_t C = ctx->seg->chunk_bytes, K = ctx->seg->nchunks;
    uint64_t put = atomic_load_explicit(&p->rx.c->prod.chunks_put, memory_order_acquire);
    int moved = 0;
    while (p->chunks_got < put && p->rx_off < p->rx_hdr.len) {
        uint64_t n = p->rx_hdr.len - p->rx_off < C ? p->rx_hdr.len - p->rx_off : C;
        memcpy(p->rx_dst + p->rx_off, p->rx_stage + (p->chunks_got % K) * C, n);
        p->rx_off += n;
        p->chunks_got++;
        atomic_store_explicit(&p->rx.c->cons.chunks_got, p->chunks_got, memory_order_release);
        shm_bell_wake(ctx, p, 1);
        moved = 1;
        if (p->chunks_got == put)
            put = atomic_load_explicit(&p->rx.c->prod.chunks_put, memory_order_acquire);
    }
    if (p->rx_off < p->rx_hdr.len)
        return moved;
    p->rx_pipe = 0;
    ctx->up->frame_end(ctx->up->rt, peer, &p->rx_hdr, p->rx_cookie);
    return 1;
}

/* Delivers the records waiting in the peer's ring. */
static int read_records(struct bolt_tl_ctx *ctx, struct shm_peer *p, int peer)
{
    const struct bolt_tl_upcalls *up = ctx->up;
    int frames = 0, freed = 0;
    struct shm_rec rec;
    while (!p->failed && frames < SHM_READ_BATCH && shm_ring_peek(&p->rx, &rec)) {
        void *dst = NULL, *cookie = NULL;
        if (rec.kind == SHM_REC_PIPE && p->rx_pipe)
            break; /* its chunks follow the current one's */
        /* A shared-slot message only first in a pass: the ones behind the
         * one a receive waits for (a root broadcasting ahead) stay in the
         * ring for their own receives to take (take_now, one copy) rather
         * than go through the unexpected queue (two, and a buffer each). */
        if (rec.kind == SHM_REC_MCAST && frames > 0)
            break;
        uint64_t len = rec.hdr.len;
        if (rec.kind == SHM_REC_FRAME && len > p->rx.cap - SHM_LINE) {
            shm_peer_fail(ctx, peer, "sent a malformed record (%llu bytes inline)",
                          (unsigned long long)len);
            break;
        }
        if (rec.kind == SHM_REC_MCAST && !shm_mcast_rec_ok(ctx, &rec)) {
            shm_peer_fail(ctx, peer, "sent a malformed shared-slot record (slot %llu, %llu bytes)",
                          (unsigned long long)rec.aux, (unsigned long long)len);
            break;
        }
        if (rec.kind != SHM_REC_FRAME && rec.kind != SHM_REC_PIPE && rec.kind != SHM_REC_CMA &&
            rec.kind != SHM_REC_MCAST) {
            shm_peer_fail(ctx, peer, "sent a record of unknown kind %u", rec.kind);
            break;
        }
        if (up->frame_begin(up->rt, peer, &rec.hdr, &dst, &cookie) < 0) {
            shm_peer_fail(ctx, peer, "sent a malformed frame (type %u)", rec.hdr.type);
            break;
        }
        if (len && !dst) {
            shm_peer_fail(ctx, peer, "sent %llu bytes nobody can take",
                          (unsigned long long)len);
            break;
        }
        switch (rec.kind) {
        case SHM_REC_FRAME:
            if (len)
                shm_ring_read_payload(&p->rx, dst, len);
            shm_ring_pop(&p->rx, len);
            freed = 1;
            up->frame_end(up->rt, peer, &rec.hdr, cookie);
            frames++;
            break;
        case SHM_REC_MCAST:
            shm_mcast_read(ctx, p, rec.aux, dst, len); /* checked above */
            shm_ring_pop(&p->rx, 0);
            freed = 1;
            up->frame_end(up->rt, peer, &rec.hdr, cookie);
            frames++;
            break;
        case SHM_REC_PIPE:
            shm_ring_pop(&p->rx, 0);
            freed = 1;
            p->rx_pipe = 1;
            p->rx_hdr = rec.hdr;
            p->rx_dst = dst;
            p->rx_cookie = cookie;
            p->rx_off = 0;
            frames += drain_rx_pipe(ctx, p, peer);
            break;
        case SHM_REC_CMA: {
            int e = shm_cma_read(p->pid, dst, rec.aux, (size_t)len);
            if (e) {
                shm_peer_fail(ctx, peer, e == ESRCH ? "exited without finalizing (its memory is "
                                                      "gone in the middle of a message)"
                                                    : "single-copy read of its buffer failed: %s",
                              strerror(e));
                return frames;
            }
            shm_ring_pop(&p->rx, 0);
            p->cma_done++;
            atomic_store_explicit(&p->rx.c->cons.cma_done, p->cma_done, memory_order_release);
            shm_bell_wake(ctx, p, 0); /* the sender waits for this one */
            up->frame_end(up->rt, peer, &rec.hdr, cookie);
            frames++;
            break;
        }
        }
    }
    /* Ring space came back: one wake-up check for the whole pass (a producer
     * blocked on space waits for it), after the frames were delivered. */
    if (freed && !p->failed)
        shm_bell_wake(ctx, p, 1);
    return frames;
}

int shm_xfer_peer(struct bolt_tl_ctx *ctx, int peer)
{
    struct shm_peer *p = &ctx->peers[peer];
    int frames = 0;
    if (p->failed)
        return 0;
    shm_ring_prefetch_next(&p->rx);
    /* The idle pass a wait spins on: nothing of ours in flight, nothing in. */
    if (!p->sq_head && !p->pipe_head && !p->cma_head && !p->rx_pipe && !shm_ring_nonempty(&p->rx)) {
        shm_bell_set_waiting(p, 0);
        return 0;
    }
    if (p->sq_head)
        frames += flush_queue(ctx, p);
    if (p->pipe_head)
        frames += pump_pipe(ctx, p);
    if (p->cma_head)
        frames += reap_cma(p);
    if (p->rx_pipe && !p->failed)
        frames += drain_rx_pipe(ctx, p, peer);
    if (!p->failed)
        frames += read_records(ctx, p, peer);
    if (!p->failed) {
        int blocked = p->sq_head != NULL ||
                      (p->pipe_head && p->chunks_put - atomic_load_explicit(
                                           &p->tx.c->cons.chunks_got, memory_order_relaxed) >=
                                           ctx->seg->nchunks);
        shm_bell_set_waiting(p, blocked);
    }
    return frames;
}

int shm_xfer_pending(struct bolt_tl_ctx *ctx, int peer)
{
    struct shm_peer *p = &ctx->peers[peer];
    if (p->rx_pipe) {
        if (atomic_load_explicit(&p->rx.c->prod.chunks_put, memory_order_relaxed) != p->chunks_got)
            return 1;
    } else if (shm_ring_nonempty(&p->rx)) {
        return 1;
    }
    if (p->sq_head) {
        uint64_t need = is_large_data(ctx, p, p->sq_head) ? 0 : p->sq_head->hdr.len;
        if (shm_ring_has_room(&p->tx, need))
            return 1;
    }
    if (p->pipe_head &&
        p->chunks_put - atomic_load_explicit(&p->tx.c->cons.chunks_got, memory_order_relaxed) <
            ctx->seg->nchunks)
        return 1;
    if (p->cma_head &&
        atomic_load_explicit(&p->tx.c->cons.cma_done, memory_order_relaxed) != p->cma_completed)
        return 1;
    return 0;
}

int shm_xfer_outgoing(const struct shm_peer *p)
{
    return p->sq_head || p->pipe_head || p->cma_head;
}

struct bolt_tl_send *shm_xfer_take_sends(struct shm_peer *p)
{
    struct bolt_tl_send *head = NULL, **tail = &head;
    struct bolt_tl_send *lists[3] = {p->pipe_head, p->cma_head, p->sq_head};
    for (int i = 0; i < 3; i++) {
        *tail = lists[i];
        while (*tail)
            tail = &(*tail)->tl_next;
    }
    p->pipe_head = p->pipe_tail = p->cma_head = p->cma_tail = p->sq_head = p->sq_tail = NULL;
    p->pipe_off = 0;
    return head;
}
