/*
 * shm_seg.h — the layout of a host's shared segment, shared by the launcher
 * (which creates it, launcher/shm_host.c) and the shm transport (which maps
 * it). One segment per host and job:
 *
 *   header   magic, version, random 128-bit id, local rank count, sizes
 *   slots    one per local rank: pid, state, world rank, "asleep" flag
 *   chans    one per ordered pair (from, to): producer line, consumer line,
 *            claim counters, a byte ring of 64-byte cells, a staging area
 *            of chunks
 *   shared   one per local rank: SHM_MCAST_SLOTS slots, each a reader count
 *            and mcast_bytes of data the rank writes once for several
 *            local peers to read (shm_mcast.c)
 *
 * Every counter is written by one side only (single producer, single
 * consumer) and lives on a cache line of its own, but the claim counters,
 * which both sides take pieces from with compare-and-swap, and the shared
 * slots' reader counts, which each reader decrements.
 */
#ifndef BOLT_SHM_SEG_H
#define BOLT_SHM_SEG_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define SHM_MAGIC 0x31304d5348534c42ull /* "BLSHSM01" */
#define SHM_VERSION 4u
/* Claim counters per channel: split copies from its producer to its consumer
 * under way at once (shm_claim.c). */
#define SHM_CLAIMS 16
#define SHM_LINE 64u
#define SHM_ID_BYTES 16
/* Defaults chosen by measurement (docs in the transport's README section). */
/* The ring: 256 KiB per channel on hosts of up to 16 ranks, 128 KiB beyond
 * (shm_seg_layout). 128 KiB made a stream of 1-4 KiB messages the sender's
 * copy into the ring's bound (2 ranks, 4 KiB broadcast loop 0.50 us per call,
 * its receiver waiting; two threads copying through a bare ring the same:
 * 0.50 us at 64 or 128 KiB, 0.32 at 256 KiB to 1 MiB). */
#define SHM_RING_BYTES (256u * 1024u)
#define SHM_RING_BYTES_MANY (128u * 1024u)
#define SHM_MANY_RANKS 16
_Static_assert(SHM_RING_BYTES_MANY <= SHM_RING_BYTES, "SHM_RING_BYTES bounds every ring");
#define SHM_CHUNK_BYTES (128u * 1024u)
#define SHM_NCHUNKS 4u
/* Shared slots per rank, and their size: one message copied once for many
 * local receivers (shm_mcast.c). */
#define SHM_MCAST_SLOTS 4
#define SHM_MCAST_BYTES (256u * 1024u)
#define SHM_MCAST_COUNTS_BYTES 4096u /* a rank's reader counts, before its slots' data */

enum { SHM_STATE_EMPTY = 0, SHM_STATE_ALIVE = 1, SHM_STATE_CLOSED = 2 };

struct shm_seg_hdr {
    uint64_t magic;
    uint32_t version;
    uint32_t nlocal;
    uint8_t id[SHM_ID_BYTES];
    uint64_t ring_bytes;  /* power of two, multiple of SHM_LINE */
    uint64_t chunk_bytes; /* multiple of SHM_LINE */
    uint64_t nchunks;
    uint64_t slot_off;    /* first struct shm_slot */
    uint64_t chan_off;    /* first channel */
    uint64_t chan_stride; /* bytes per channel */
    uint64_t mcast_bytes; /* bytes per shared slot */
    uint64_t mcast_off;   /* first rank's shared slots */
    uint64_t mcast_stride; /* bytes per rank's shared slots */
    uint64_t total;       /* bytes of the whole segment */
};

/* One per local rank, written by that rank (pid, world rank, state, probe
 * address at init; asleep whenever it sleeps). */
struct shm_slot {
    _Alignas(SHM_LINE) _Atomic uint32_t state;
    int32_t world_rank;
    int64_t pid;
    uint64_t probe_addr; /* SHM_ID_BYTES in the owner's memory equal to the id */
    _Alignas(SHM_LINE) _Atomic uint32_t asleep;
};

/* Written by the producer (sender) of a channel. (Ring records carry their
 * own sequence words: there is no shared head counter, see shm_ring.h.) */
struct shm_prod {
    _Alignas(SHM_LINE) _Atomic uint64_t chunks_put; /* staging chunks filled */
    _Atomic uint32_t waiting; /* blocked on ring space or a free chunk: consumer rings */
};

/* Written by the consumer (receiver) of a channel. */
struct shm_cons {
    _Alignas(SHM_LINE) _Atomic uint64_t tail;       /* ring bytes consumed */
    _Atomic uint64_t chunks_got;                     /* staging chunks emptied */
    _Atomic uint64_t cma_done;                       /* single-copy reads finished */
    _Atomic uint32_t cma_ok; /* 0 not probed, 1 the consumer can read the producer, 2 it cannot */
};

/* The pieces of one split copy (shm_claim.c): the consumer takes them from
 * the front, the producer from the back; low 32 bits the next front piece,
 * high 32 bits one past the last back piece left. */
struct shm_claim {
    _Alignas(SHM_LINE) _Atomic uint64_t word;
};

/* A shared slot's reader count: set by its owner when it fills the slot,
 * decremented by each reader once it copied the data out; free at 0. */
struct shm_mcast_hdr {
    _Alignas(SHM_LINE) _Atomic uint32_t readers;
};

struct shm_chan {
    struct shm_prod prod;
    struct shm_cons cons;
    struct shm_claim claims[SHM_CLAIMS];
    /* then ring_bytes of ring, then nchunks * chunk_bytes of staging */
};

/* Fills the header's sizes for `nlocal` ranks (id and magic left to the
 * caller). Returns the segment's size, or 0 if it would be absurdly large. */
size_t shm_seg_layout(int nlocal, struct shm_seg_hdr *h);

/* Creates an anonymous segment for `nlocal` ranks: shm_open with a fresh
 * name, unlinked at once (nothing stays in /dev/shm whatever happens), sized,
 * header written with a random id. Returns its fd (close-on-exec) or -1 with
 * a message in err. */
int shm_seg_create(int nlocal, char *err, size_t errcap);

/* Maps and checks a segment created by shm_seg_create. Returns the mapping
 * or NULL with a message in err. */
struct shm_seg_hdr *shm_seg_map(int fd, char *err, size_t errcap);
void shm_seg_unmap(struct shm_seg_hdr *h);

static inline struct shm_slot *shm_seg_slot(struct shm_seg_hdr *h, int i)
{
    return (struct shm_slot *)((char *)h + h->slot_off) + i;
}

static inline struct shm_chan *shm_seg_chan(struct shm_seg_hdr *h, int from, int to)
{
    size_t idx = (size_t)from * h->nlocal + (size_t)to;
    return (struct shm_chan *)((char *)h + h->chan_off + idx * h->chan_stride);
}

/* Slot `slot` of local rank `owner`: its reader count, its data. */
static inline struct shm_mcast_hdr *shm_seg_mcast_hdr(struct shm_seg_hdr *h, int owner, int slot)
{
    return (struct shm_mcast_hdr *)((char *)h + h->mcast_off + (size_t)owner * h->mcast_stride) +
           slot;
}

static inline unsigned char *shm_seg_mcast_data(struct shm_seg_hdr *h, int owner, int slot)
{
    return (unsigned char *)h + h->mcast_off + (size_t)owner * h->mcast_stride +
           SHM_MCAST_COUNTS_BYTES + (size_t)slot * h->mcast_bytes;
}
_Static_assert(SHM_MCAST_SLOTS * sizeof(struct shm_mcast_hdr) <= SHM_MCAST_COUNTS_BYTES,
               "reader counts fit before the data");

static inline unsigned char *shm_chan_ring(struct shm_chan *c)
{
    return (unsigned char *)(c + 1);
}

static inline unsigned char *shm_chan_stage(struct shm_seg_hdr *h, struct shm_chan *c)
{
    return (unsigned char *)(c + 1) + h->ring_bytes;
}

#endif
