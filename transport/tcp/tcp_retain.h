/*
 * tcp_retain.h — what an armed TCP connection keeps of the stream it sent
 * until the peer confirms it consumed it (path failover, docs/multihost.md).
 *
 * A stream is the bytes of the frames written on one connection in one
 * direction, counted from 0; the transport's own frames (acknowledgements,
 * goodbye) are not part of it. Retention holds the bytes [confirmed, end):
 * a frame of at most TCP_RETAIN_COPY_MAX payload bytes is copied, header and
 * payload, into a ring (its send completes at once, as without retention); a
 * larger one is held by reference to its send, whose completion waits for
 * the confirmation. Consecutive copied frames form one segment of the FIFO,
 * a frame held by reference is a segment of its own; a confirmation may end
 * in the middle of a copied segment (the ring bytes before it are freed).
 *
 * Pure bookkeeping, no sockets: tests/transport/test_tcp_retain.c.
 */
#ifndef BOLT_TCP_RETAIN_H
#define BOLT_TCP_RETAIN_H

#include <stdint.h>
#include <sys/uio.h>

#include "transport/transport.h"

/* Ring of copies per armed connection (allocated at its first copy). */
#define TCP_RETAIN_RING ((uint64_t)4 << 20)
/* Frames with more payload are held by reference. */
#define TCP_RETAIN_COPY_MAX ((uint64_t)64 << 10)
/* The receiver confirms after consuming this much unconfirmed (and at once
 * after a frame held by reference), so the ring never stays full. */
#define TCP_RETAIN_ACK_EVERY (TCP_RETAIN_RING / 4)

struct tcp_rseg {
    uint64_t off, len;      /* stream bytes [off, off + len) */
    uint64_t ring;          /* copied: ring position of byte `off` */
    struct bolt_tl_send *s; /* held by reference (the whole frame), or NULL */
};

struct tcp_retain {
    unsigned char *ring;
    uint64_t cap;           /* ring bytes, a power of two */
    uint64_t rhead, rtail;  /* ring positions (never wrapped) in use: [rtail, rhead) */
    struct tcp_rseg *seg;   /* FIFO of segments, scap a power of two */
    uint32_t scap, sfirst, nseg;
    uint32_t nrefs;         /* segments held by reference */
    uint64_t confirmed, end; /* stream offsets */
};

static inline int tcp_retain_by_ref(uint64_t payload)
{
    return payload > TCP_RETAIN_COPY_MAX;
}

/* cap: ring bytes, a power of two (TCP_RETAIN_RING; tests use small ones). */
void tcp_retain_init(struct tcp_retain *r, uint64_t cap);
void tcp_retain_free(struct tcp_retain *r);
/* Ring bytes free for copies. */
uint64_t tcp_retain_room(const struct tcp_retain *r);
/* Appends a written frame at `end`, copied. -1 (nothing changed) when the
 * ring lacks room or memory. */
int tcp_retain_copy(struct tcp_retain *r, const struct bolt_frame_hdr *h, const void *payload);
/* Appends a written frame at `end`, held by reference to s. -1 without memory. */
int tcp_retain_ref(struct tcp_retain *r, struct bolt_tl_send *s);
/* The peer consumed the stream below `upto`: frees what lies below it and
 * links (tl_next, in stream order) into *done the sends held by reference
 * whose frames lie wholly below it. An offset below `confirmed` (an older
 * confirmation) changes nothing; one beyond `end` is a protocol error: -1. */
int tcp_retain_confirm(struct tcp_retain *r, uint64_t upto, struct bolt_tl_send **done);
/* The iovecs that write stream bytes [from, end) again, at most `max` of
 * them and `cap` bytes; *bytes gets their total. -1 when `from` lies outside
 * [confirmed, end]. */
int tcp_retain_iov(const struct tcp_retain *r, uint64_t from, struct iovec *iov, int max,
                   uint64_t cap, uint64_t *bytes);
/* Drops everything (as if confirmed up to `end`); returns the sends held by
 * reference, linked by tl_next. */
struct bolt_tl_send *tcp_retain_take_refs(struct tcp_retain *r);

#endif
