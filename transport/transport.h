/*
 * transport.h — the interface every transport fills.
 *
 * A transport moves frames (runtime/wire.h header + contiguous payload) to a
 * peer, in order per peer, and hands incoming frames to the runtime through
 * the callbacks in struct bolt_tl_upcalls. It knows nothing of matching,
 * communicators or collectives. One folder per transport (transport/<name>/)
 * defines one `const struct bolt_transport bolt_transport_<name>`.
 *
 * Frames of every type except DATA arrive in the order they were sent.
 * Peers are named by world rank. Everything is single-threaded: the runtime
 * calls progress() from its progress engine.
 */
#ifndef BOLT_TRANSPORT_H
#define BOLT_TRANSPORT_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/wire.h"

struct bolt_tl_ctx; /* a transport's private state, one per process */

/* One frame to send. Owned by the runtime; the transport must not touch it
 * after calling complete(). The payload is the user's buffer: it is written
 * straight from there (no copy) and must stay valid until complete(). */
struct bolt_tl_send {
    struct bolt_frame_hdr hdr;
    const void *payload;       /* hdr.len bytes */
    void (*complete)(struct bolt_tl_send *s, int error);
    unsigned hints;            /* BOLT_TL_HINT_*: advice a transport may ignore */
    /* Private to the transport that holds it. */
    uint64_t tl_done;          /* bytes of header+payload already written */
    struct bolt_tl_send *tl_next;
};

/* The sender has copying of its own to do meanwhile (it receives or reduces
 * as much: an exchange), so a copy made by the receiver alone beats one
 * shared by both sides (shm: single-copy rather than the staging pipeline). */
#define BOLT_TL_HINT_SENDER_BUSY 0x1u
/* The receiver failed to read this sender's memory (BOLT_FRAME_F_NO_READ):
 * the transport must not ask it to read the DATA either. */
#define BOLT_TL_HINT_NO_READ 0x2u
/* The sender waits for this send at once (a blocking call), in the library:
 * it may be asked to do part of the copy (split copies). Without it a send
 * must complete without the sender's help (an isend, then computation). */
#define BOLT_TL_HINT_SENDER_WAITS 0x4u
/* One of several sends the sender starts at once to different peers and then
 * only waits for (a scatter's root): each receiver copying its own message,
 * all in parallel, beats the sender copying them in turn, whole or in part
 * (shm, with more ranks than cores: single-copy up to BOLT_SHM_CMA_MAX, never
 * split; with a core each, as without the hint: not measured there). */
#define BOLT_TL_HINT_FAN_OUT 0x8u

/* Runtime callbacks a transport calls for incoming traffic. */
struct bolt_tl_upcalls {
    void *rt;
    /* A frame header arrived from `peer`. The runtime returns in *dst where the
     * hdr->len payload bytes must be stored (room for all of them; NULL when
     * len is 0) and an opaque *cookie. A negative return means the frame is
     * malformed: the transport then treats the peer as broken. */
    int (*frame_begin)(void *rt, int peer, const struct bolt_frame_hdr *hdr,
                       void **dst, void **cookie);
    /* All payload bytes of the frame are in *dst. `hdr` is the frame's header
     * again (the transport keeps it while the payload arrives). */
    void (*frame_end)(void *rt, int peer, const struct bolt_frame_hdr *hdr, void *cookie);
    /* The connection to `peer` broke (EOF, reset, protocol error). `why` says
     * what happened in words ("connection reset by peer"). After this, the
     * transport completes every pending send to that peer with `error` and
     * drops further sends to it with the same error. */
    void (*peer_failed)(void *rt, int peer, int error, const char *why);
    /* Failover: sends `len` bytes to the same transport of `peer` through the
     * peer's standby transport (the next of BOLT_TRANSPORTS that reaches it),
     * where they arrive in order through tunnel_recv. BOLT_OK, or an error
     * when the peer has no standby (then the transport fails the peer). */
    int (*tunnel_send)(void *rt, int peer, const void *buf, size_t len);
};

struct bolt_tl_init_args {
    int rank;                 /* my world rank */
    int size;                 /* world size */
    const struct bolt_tl_upcalls *up;
};

struct bolt_transport {
    const char *name;
    /* Opens local resources and publishes this process's address through the
     * bootstrap store (runtime/bootstrap.h). Called by every rank before the
     * init fence. */
    int (*init)(struct bolt_tl_ctx **ctx, const struct bolt_tl_init_args *args);
    /* After the fence: can this transport reach `peer`? (1 yes, 0 no) */
    int (*reachable)(struct bolt_tl_ctx *ctx, int peer);
    /* Collective wire-up with the given peers (all ranks call it with the
     * peers this transport was selected for). Bounded by BOLT_TIMEOUT. */
    int (*connect)(struct bolt_tl_ctx *ctx, const int *peers, int npeers);
    /* Queues a frame to `peer`; may write part or all of it immediately.
     * Completion (s->complete) may be called from inside send(). */
    int (*send)(struct bolt_tl_ctx *ctx, int peer, struct bolt_tl_send *s);
    /* Optional: writes an eager frame (header and its h->len payload bytes)
     * at once when nothing of ours to `peer` waits before it and there is
     * room: returns 1 when the payload is copied out (the caller's buffer is
     * free again), 0 when it would have to wait (the caller then goes through
     * send()). Lets a blocking send skip its request. */
    int (*send_now)(struct bolt_tl_ctx *ctx, int peer, const struct bolt_frame_hdr *h,
                    const void *payload);
    /* Optional: send_now to each of the n distinct peers at once, with one
     * copy of the payload that they all read (an eager frame h of up to the
     * transport's own bound, larger than the eager limit allowed: one
     * buffer for many receivers on one host). 1 when the frame went to every
     * peer (the caller's buffer is free again); 0 when it went to none (a
     * peer not reachable this way or with frames queued before it, no room,
     * too large): the caller then sends to each. */
    int (*send_many_now)(struct bolt_tl_ctx *ctx, const int *peers, int n,
                         const struct bolt_frame_hdr *h, const void *payload);
    /* Optional: when the next frame from `peer` not yet delivered is whole
     * in the transport and its header has want's magic, type, flags, ctx,
     * src, tag, len and msg_size, copies its want->len payload bytes into
     * buf, consumes it (it never reaches frame_begin) and returns 1; else 0,
     * nothing consumed. Lets a receive whose message is still in the
     * transport take it with one copy, not two through the unexpected
     * queue. */
    int (*take_now)(struct bolt_tl_ctx *ctx, int peer, const struct bolt_frame_hdr *want,
                    void *buf);
    /* Optional, together: one-sided reads for rendezvous. get_ok (sender):
     * may `peer` read `len` bytes of this process's memory itself, and is
     * that the better way for a send with these BOLT_TL_HINT_* hints? get
     * (receiver): reads len bytes at raddr in peer's memory into dst;
     * BOLT_OK, or an error (the runtime then falls back to DATA frames). The
     * RTS carries the address; a successful get saves the CTS -> DATA round
     * trip (runtime/wire.h, BOLT_FRAME_F_GET). */
    int (*get_ok)(struct bolt_tl_ctx *ctx, int peer, size_t len, unsigned hints);
    int (*get)(struct bolt_tl_ctx *ctx, int peer, void *dst, uint64_t raddr, size_t len);
    /* Optional, with get: split copies. put_ok (sender): is a `len`-byte
     * message with these hints better copied in part by the receiver (get)
     * and in part by this process writing into the receiver's memory (an idle
     * sender waiting in the library: BOLT_TL_HINT_SENDER_WAITS, a core for
     * each)? put: writes len bytes of src at raddr in peer's memory;
     * BOLT_OK, or an error (the runtime then sends DATA). A transport with
     * put never fails a peer inside send(): the receiver goes on with its
     * request after handing over the split CTS. */
    int (*put_ok)(struct bolt_tl_ctx *ctx, int peer, size_t len, unsigned hints);
    int (*put)(struct bolt_tl_ctx *ctx, int peer, const void *src, uint64_t raddr, size_t len);
    /* Required with put: counters shared by the two sides of a split copy,
     * whose pieces go to whichever side claims them first (the side with a
     * core copies more). claim_open (receiver): for a copy of `len` bytes
     * from `peer` to this process, sets *piece (a multiple of 4 KiB below
     * len) and a counter for its ceil(len / *piece) pieces, none claimed;
     * the counter's slot (>= 0), or -1 when none is free (no split).
     * claim: takes the lowest piece left (the receiver, from_back 0) or the
     * highest (the sender, 1) of the copy between this process and `peer`
     * that `slot` counts; its index, or -1 when none is left. claim_close
     * (receiver): frees the slot once the sender has stopped claiming. */
    int (*claim_open)(struct bolt_tl_ctx *ctx, int peer, size_t len, size_t *piece);
    int (*claim)(struct bolt_tl_ctx *ctx, int peer, int slot, int from_back);
    void (*claim_close)(struct bolt_tl_ctx *ctx, int peer, int slot);
    /* Moves bytes without blocking. Returns how many frames moved (>= 0). */
    int (*progress)(struct bolt_tl_ctx *ctx);
    /* Fills up to `max` pollfds the engine may sleep on while idle (readable
     * data, writable sockets with queued sends). Returns how many. */
    int (*pollfds)(struct bolt_tl_ctx *ctx, struct pollfd *fds, int max);
    /* Frames at most this large are sent eagerly; larger ones by rendezvous. */
    size_t (*eager_limit)(struct bolt_tl_ctx *ctx, int peer);
    /* Optional: 1 when, by this build, the settings and the job's set-up
     * alone (so alike on every rank), receivers on one host may read large
     * messages out of their senders' memory themselves, so that a sender
     * serving many receivers at once need not copy for each in turn
     * (collectives choose flat trees by it). */
    int (*local_reads)(struct bolt_tl_ctx *ctx);
    /* Into how many DATA frames the runtime should cut a rendezvous payload
     * of `bytes` to `peer` (>= 1). DATA frames, unlike all others, may be
     * delivered in any order relative to each other and to later frames (each
     * names its offset), so a transport may spread them over several links. */
    int (*data_stripes)(struct bolt_tl_ctx *ctx, int peer, size_t bytes);
    /* Closes everything; pending sends complete with BOLT_ERR_PEER. */
    void (*finalize)(struct bolt_tl_ctx *ctx);
    /* Optional (NULL when a transport's pollfds alone wake the engine, as
     * TCP's sockets do). Before sleeping in poll() on pollfds, the engine
     * calls sleep_prepare: the transport announces that it sleeps (so that
     * peers ring its doorbell fd) and re-checks for work; > 0 means work
     * arrived and the engine must not sleep. sleep_done is called after the
     * poll (or instead of it) whenever sleep_prepare was. */
    int (*sleep_prepare)(struct bolt_tl_ctx *ctx);
    void (*sleep_done)(struct bolt_tl_ctx *ctx);
    /* Optional: after reachable() said 0, why (1 and buf filled), for the
     * error that names a peer no transport reaches. */
    int (*unreachable_why)(struct bolt_tl_ctx *ctx, int peer, char *buf, size_t cap);
    /* Optional: bytes a peer's same transport sent through tunnel_send. A
     * transport that has it gets a standby transport for its peers, so that
     * it can move its traffic there when its own link fails. */
    void (*tunnel_recv)(struct bolt_tl_ctx *ctx, int peer, const void *buf, size_t len);
};

extern const struct bolt_transport bolt_transport_tcp;
extern const struct bolt_transport bolt_transport_shm;
#ifdef BOLT_HAVE_RDMA
extern const struct bolt_transport bolt_transport_rdma;
#endif

#endif
