/*
 * shm_claim.c — claim counters for split copies (transport.h: claim_open,
 * claim, claim_close). A split copy of a large message moves in pieces that
 * its receiver reads from the front while its sender writes from the back,
 * each taking the next piece with a compare-and-swap on a counter in the
 * channel from sender to receiver, until they meet: whichever side has a
 * core copies more. With more ranks than cores a fixed half each left the
 * side sharing its core waiting for the other (4 ranks on 2 cores, MPI_Bcast
 * of 4 MiB: 1.0-1.2 ms whenever the root shared its core, 0.6 ms when not).
 *
 * The receiver owns the counters of its incoming channel: it opens one per
 * split copy and closes it when the sender has said it stopped claiming.
 */
#include "transport/shm/shm.h"

#include <stdatomic.h>

_Static_assert(SHM_CLAIMS <= 32, "claims_used has a bit per slot");

/* Piece sizes: on crowded cores SHM_CLAIM_PIECES pieces (none below
 * SHM_CLAIM_PIECE_MIN), so that the side that has a core takes the larger
 * share; with a core for each side two halves, whose one system call each
 * the finer pieces would multiply (2 ranks on 2 cores, MPI_Bcast of 1 MiB:
 * 20 us in halves, 26 in 64 KiB pieces). */
#define SHM_CLAIM_PIECES 32
#define SHM_CLAIM_PIECE_MIN (64 * 1024)
#define SHM_CLAIM_ALIGN 4096

static size_t claim_piece(const struct bolt_tl_ctx *ctx, size_t len)
{
    size_t a = SHM_CLAIM_ALIGN - 1, half = (len / 2 + a) & ~a;
    if (!ctx->crowded)
        return half;
    size_t piece = (len / SHM_CLAIM_PIECES + a) & ~a;
    size_t floor = half < SHM_CLAIM_PIECE_MIN ? half : SHM_CLAIM_PIECE_MIN;
    return piece > floor ? piece : floor;
}

int shm_claim_open(struct bolt_tl_ctx *ctx, int peer, size_t len, size_t *piece)
{
    struct shm_peer *p = shm_live_peer(ctx, peer);
    if (!p || len < 2 * SHM_CLAIM_ALIGN)
        return -1;
    size_t size = claim_piece(ctx, len);
    uint64_t pieces = (len + size - 1) / size;
    for (int slot = 0; slot < SHM_CLAIMS; slot++) {
        if (p->claims_used & (1u << slot))
            continue;
        p->claims_used |= 1u << slot;
        /* Published to the sender by the split CTS that names the slot. */
        atomic_store_explicit(&p->rx.c->claims[slot].word, pieces << 32, memory_order_release);
        *piece = size;
        return slot;
    }
    return -1;
}

int shm_claim(struct bolt_tl_ctx *ctx, int peer, int slot, int from_back)
{
    struct shm_peer *p = shm_live_peer(ctx, peer);
    if (!p || slot < 0 || slot >= SHM_CLAIMS)
        return -1;
    /* Ours to read from (receiver) or write to (sender): the same channel. */
    struct shm_chan *c = from_back ? p->tx.c : p->rx.c;
    _Atomic uint64_t *w = &c->claims[slot].word;
    uint64_t cur = atomic_load_explicit(w, memory_order_acquire);
    for (;;) {
        uint32_t front = (uint32_t)cur, back = (uint32_t)(cur >> 32);
        if (front >= back)
            return -1;
        uint64_t next = from_back ? cur - ((uint64_t)1 << 32) : cur + 1;
        if (atomic_compare_exchange_weak_explicit(w, &cur, next, memory_order_acq_rel,
                                                  memory_order_acquire))
            return (int)(from_back ? back - 1 : front);
    }
}

void shm_claim_close(struct bolt_tl_ctx *ctx, int peer, int slot)
{
    if (!ctx || peer < 0 || peer >= ctx->size || slot < 0 || slot >= SHM_CLAIMS)
        return;
    ctx->peers[peer].claims_used &= ~(1u << slot);
}
