/*
 * match.h — the matching engine: receives posted before their message
 * (posted queue) and messages that arrived before their receive (unexpected
 * queue), both kept in order so that MPI's ordering rule holds: between one
 * pair of ranks on one communicator, messages match in the order they were sent.
 */
#ifndef BOLT_MATCH_H
#define BOLT_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/request.h"

enum bolt_unexp_kind {
    BOLT_UNEXP_EAGER = 1, /* payload in `data` (maybe still arriving) */
    BOLT_UNEXP_RTS = 2,   /* large message: the sender waits for a CTS */
    BOLT_UNEXP_SELF = 3,  /* large send to oneself: `self_req` holds the data */
};

struct bolt_unexp {
    enum bolt_unexp_kind kind;
    uint32_t ctx;
    int src;            /* sender's rank in the communicator */
    int world_src;
    int tag;
    int sync;           /* sender waits for SYNC_ACK */
    size_t size;
    void *data;
    int arrived;        /* EAGER: the whole payload is in data */
    uint64_t sreq;      /* sender's request id (RTS, sync) */
    uint64_t raddr;     /* RTS with BOLT_FRAME_F_GET: the sender's buffer, else 0 */
    int split;          /* RTS with BOLT_FRAME_F_SPLIT */
    struct bolt_request *self_req;
    struct bolt_request *claimed; /* receive waiting for the payload to finish */
    int reserved;       /* taken by a matched probe: only bolt_mrecv may receive it */
    int pooled;         /* from the pool of small entries */
    int data_class;     /* data came from the payload cache: its size class */
    struct bolt_unexp *next, *prev;
    struct bolt_unexp *snext, *sprev; /* the same src's entries, in order */
    int in_src;                       /* linked there too */
    /* Small eager payloads live right after the entry (one allocation). */
    _Alignas(16) unsigned char inline_data[];
};

/* Up to this many payload bytes share the entry's (recycled) allocation;
 * larger ones take a buffer from the size-class cache. Up to 4 KiB used to
 * share a malloc'ed entry: a 2-rank 4 KiB broadcast loop then faulted pages
 * in on the receiver all the time (dozens of 4 KiB entries freed at once
 * went back to the kernel by heap trimming). */
#define BOLT_UNEXP_INLINE 256

/* A new zeroed entry with room for `inline_bytes` of payload after it.
 * Entries for small payloads are recycled: a sender running ahead leaves
 * hundreds queued, and malloc served them from its slow bins. */
struct bolt_unexp *bolt_unexp_new(size_t inline_bytes);
/* Gives u a separate payload buffer of n bytes (n > BOLT_UNEXP_INLINE) in
 * u->data; BOLT_ERR_NOMEM when there is no memory. Freed buffers are kept
 * for the next ones, up to a bound: returned to malloc, the memory of one
 * burst went back to the kernel (heap trimming, munmap) and the next burst
 * faulted it in again page by page, which cost 16 KiB messages 65 us each
 * instead of 1 (bench/README.md). */
int bolt_unexp_data_new(struct bolt_unexp *u, size_t n);
/* Frees the entry and its payload. */
void bolt_unexp_free(struct bolt_unexp *u);
/* Bytes of payload buffers kept for reuse. */
size_t bolt_unexp_cache_bytes(void);
/* Returns every recycled entry and buffer to malloc (finalize). */
void bolt_unexp_cache_release(void);

/* The unexpected messages of one source rank (on any communicator). */
struct bolt_unexp_src {
    struct bolt_unexp *head, *tail;
};

struct bolt_match {
    struct bolt_request *posted_head, *posted_tail;
    struct bolt_unexp *unexp_head, *unexp_tail; /* all, in arrival order */
    /* The same entries by source, so that a receive from one source looks
     * at that source's alone: a rank running ahead (a root that only
     * sends, in a loop of collectives) leaves thousands queued, which every
     * receive from another source walked past (a 4-rank scan loop: 72% of
     * the time). by_src_off: the index could not grow (no memory): every
     * search walks the whole queue. */
    struct bolt_unexp_src *by_src;
    int nsrc, by_src_off;
};

static inline int bolt_match_hits(int want_src, int want_tag, int src, int tag)
{
    return (want_src == BOLT_ANY_SOURCE || want_src == src) &&
           (want_tag == BOLT_ANY_TAG || want_tag == tag);
}

void bolt_match_post(struct bolt_match *m, struct bolt_request *req);
/* Removes and returns the first posted receive matching an envelope. */
struct bolt_request *bolt_match_take_posted(struct bolt_match *m, uint32_t ctx, int src, int tag);
/* Would a message (ctx, src, tag) match a posted receive? */
int bolt_match_has_posted(const struct bolt_match *m, uint32_t ctx, int src, int tag);
void bolt_match_remove_posted(struct bolt_match *m, struct bolt_request *req);

void bolt_match_add_unexp(struct bolt_match *m, struct bolt_unexp *u);
/* First unexpected message matching (ctx, src, tag) that no receive claimed
 * and no matched probe reserved yet. */
struct bolt_unexp *bolt_match_find_unexp(struct bolt_match *m, uint32_t ctx, int src, int tag);
void bolt_match_remove_unexp(struct bolt_match *m, struct bolt_unexp *u);
void bolt_match_free_all(struct bolt_match *m);

#endif
