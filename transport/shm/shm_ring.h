/*
 * shm_ring.h — the single-producer/single-consumer ring of one channel.
 *
 * The ring is a power-of-two byte area of 64-byte cells. A record is one
 * header cell (struct shm_rec: kind, sequence word, aux word, frame header)
 * followed by its inline payload rounded up to whole cells; a payload may
 * wrap around the end, a header cell never does. head and tail are running
 * byte counts.
 *
 * The producer publishes a record by storing, with release and last, its
 * sequence word: shm_rec_seq(position), never 0. The consumer polls the
 * sequence word of the cell at its tail, so one cache line carries both the
 * news and the header (no shared head counter to miss on first). Before it
 * publishes a record the producer zeroes the sequence word of the cell just
 * after it, when that cell is free and was last written with payload bytes
 * (the producer keeps a bitmap): what such a cell holds can then never pass
 * for a record. A cell last written as a header holds another lap's
 * sequence and is left alone, so a stream of small records costs one cache
 * line each. (A cell that is not free is the header of an unconsumed
 * record, whose sequence is that of another position.) The consumer publishes tail with release after copying
 * a record out; the producer reads it only when its cached copy says full.
 *
 * A FRAME of at most SHM_SMALL_MAX payload bytes whose header carries nothing
 * but its envelope (msg_size == len, no receiver request) is packed, header
 * and payload, into its one header cell (struct shm_small): the consumer
 * then waits for one cache line instead of two. Peek, read_payload and pop
 * hide it: callers see an ordinary FRAME record.
 */
#ifndef BOLT_SHM_RING_H
#define BOLT_SHM_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/wire.h"
#include "transport/shm/shm_seg.h"

enum shm_rec_kind {
    SHM_REC_FRAME = 1, /* header + hdr.len payload bytes inline */
    SHM_REC_PIPE = 2,  /* DATA frame whose payload follows through the staging chunks */
    SHM_REC_CMA = 3,   /* DATA frame the consumer reads from the producer's memory at aux */
    SHM_REC_SMALL = 4, /* a small FRAME packed into its header cell (struct shm_small) */
    SHM_REC_MCAST = 5, /* FRAME whose payload is in the producer's shared slot aux (shm_mcast.c) */
};

#define SHM_SMALL_MAX 32

struct shm_small {
    uint32_t kind; /* SHM_REC_SMALL */
    uint32_t seq;
    uint8_t type, flags;
    uint16_t len;
    uint32_t ctx;
    int32_t src, tag;
    uint64_t sreq;
    unsigned char data[SHM_SMALL_MAX];
};

struct shm_rec {
    uint32_t kind;
    uint32_t seq; /* shm_rec_seq(position): written last, with release */
    uint64_t aux;
    struct bolt_frame_hdr hdr;
};
_Static_assert(sizeof(struct shm_rec) == SHM_LINE, "a record header is one cell");
_Static_assert(offsetof(struct shm_rec, seq) == 4, "the sequence word is 4-byte aligned");
_Static_assert(sizeof(struct shm_small) == SHM_LINE, "a small record is one cell");
_Static_assert(offsetof(struct shm_small, seq) == 4, "same sequence word");

/* The sequence word of a record at running position pos: never 0, and
 * different for positions that differ by less than 2^31 cells. */
static inline uint32_t shm_rec_seq(uint64_t pos)
{
    return (uint32_t)((pos / SHM_LINE) & 0x7fffffffu) | 0x80000000u;
}

#define SHM_RING_CELLS (SHM_RING_BYTES / SHM_LINE)

struct shm_tx_ring {
    struct shm_chan *c;
    unsigned char *ring;
    uint64_t cap;
    uint64_t head;       /* ours: what we have published */
    uint64_t tail_cache; /* the consumer's tail as last read */
    /* Cells last written with payload bytes (or of unknown content): their
     * sequence word may hold anything, so one must be cleared before the
     * record in front of it is published. Cells last written as headers hold
     * the sequence of an earlier lap and need nothing: clearing a line the
     * consumer holds cost each small message one more cache-line transfer
     * (0.39 against 0.47 us one way in a 4-byte ping-pong). */
    uint64_t dirty[SHM_RING_CELLS / 64];
};

struct shm_rx_ring {
    struct shm_chan *c;
    unsigned char *ring;
    uint64_t cap;
    uint64_t tail;       /* ours: what we have consumed */
    int small;           /* the record peeked at is a packed one; its payload: */
    unsigned char small_data[SHM_SMALL_MAX];
    int prefetch_next; /* the last record with payload had one payload cell */
};

void shm_tx_ring_init(struct shm_tx_ring *t, struct shm_chan *c, uint64_t cap);
void shm_rx_ring_init(struct shm_rx_ring *r, struct shm_chan *c, uint64_t cap);

/* Ring bytes a record with `inline_len` payload bytes takes. */
static inline uint64_t shm_rec_bytes(uint64_t inline_len)
{
    return SHM_LINE + (inline_len + SHM_LINE - 1) / SHM_LINE * SHM_LINE;
}

/* Room for a record of `inline_len` bytes now? (re-reads the tail if needed) */
int shm_ring_has_room(struct shm_tx_ring *t, uint64_t inline_len);
/* Writes and publishes a record. Returns 1, or 0 when there is no room. */
int shm_ring_put(struct shm_tx_ring *t, uint32_t kind, uint64_t aux,
                 const struct bolt_frame_hdr *h, const void *payload, uint64_t inline_len);

/* Is a record waiting? Copies its header cell into *rec. */
int shm_ring_peek(struct shm_rx_ring *r, struct shm_rec *rec);
/* Copies the inline payload of the record at the tail. */
void shm_ring_read_payload(struct shm_rx_ring *r, void *dst, uint64_t len);
/* Consumes the record at the tail and publishes the new tail. */
void shm_ring_pop(struct shm_rx_ring *r, uint64_t inline_len);
/* The sequence word of the cell at byte offset off of a ring. */
static inline _Atomic uint32_t *shm_ring_seq_word(unsigned char *ring, uint64_t off)
{
    return (_Atomic uint32_t *)(void *)(ring + off + offsetof(struct shm_rec, seq));
}

/* Cheap check, no copy: anything published beyond our tail? (relaxed: the
 * caller orders it, e.g. by sleep_prepare's fence; shm_ring_peek acquires) */
static inline int shm_ring_nonempty(const struct shm_rx_ring *r)
{
    return atomic_load_explicit(shm_ring_seq_word(r->ring, r->tail & (r->cap - 1)),
                                memory_order_relaxed) == shm_rec_seq(r->tail);
}

/* After a record of 33-64 payload bytes (two cache lines, the second asked
 * for only once the first is seen), a poll asks for the line after the next
 * header too, so both come together: 0.51 -> 0.38 us a 64-byte ping-pong.
 * Asked for after every record, 1-4 KiB messages paid 4-9%. A hint only.
 * always_inline: gcc 12 takes a function whose only effect is a prefetch
 * for pure and drops the call before it would inline it (no prefetch left
 * in shm_xfer_peer, the 64-byte gain gone). */
static inline __attribute__((always_inline)) void shm_ring_prefetch_next(const struct shm_rx_ring *r)
{
    if (r->prefetch_next)
        __builtin_prefetch(r->ring + ((r->tail + SHM_LINE) & (r->cap - 1)), 0, 3);
}

#endif
