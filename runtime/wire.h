/*
 * wire.h — the frame header every transport carries in front of a payload.
 *
 * The runtime's protocol (runtime/proto.c) speaks in frames; a transport moves
 * frames between two processes in order and knows nothing of their meaning.
 * Fields are in host byte order: frames only travel between processes of one
 * job, and Bolt refuses to mix byte orders at wire-up.
 */
#ifndef BOLT_WIRE_H
#define BOLT_WIRE_H

#include <stdint.h>

#define BOLT_FRAME_MAGIC 0xB017u

enum bolt_frame_type {
    BOLT_FRAME_EAGER = 1, /* envelope + whole payload */
    BOLT_FRAME_RTS = 2,   /* envelope of a large message; payload follows after a CTS */
    BOLT_FRAME_CTS = 3,   /* receiver matched an RTS: send `len` bytes for request rreq */
    BOLT_FRAME_DATA = 4,  /* `len` payload bytes at `offset` of receive request rreq */
    BOLT_FRAME_SYNC_ACK = 5, /* receiver matched a synchronous eager send sreq */
    BOLT_FRAME_BYE = 6,   /* sender is finalizing: it sends nothing more */
    BOLT_FRAME_TUNNEL = 7, /* `len` bytes of the peer's primary transport, carried by its standby
                              after the primary's link failed (runtime/failover.c) */
    BOLT_FRAME_TYPE_MAX = 8
};

/* flags */
#define BOLT_FRAME_F_SYNC 0x01u /* EAGER of a synchronous send: answer with SYNC_ACK */
#define BOLT_FRAME_F_GET 0x02u  /* RTS: rreq is the sender's buffer, which the receiver may read
                                   itself (its transport's get); it then answers with a CTS for
                                   0 bytes, which completes the send */
#define BOLT_FRAME_F_NO_READ 0x04u /* CTS: the receiver could not read the sender's memory: the
                                      DATA must be written by the sender (no single-copy) */
#define BOLT_FRAME_F_SPLIT 0x08u /* RTS (with F_GET): the sender may write part of the message
                                   into the receiver's buffer itself while the receiver reads
                                   the rest. CTS: the receiver splits: a payload of three
                                   uint64_t, its buffer's address B, a piece size P and a
                                   claim slot; piece k is [edge(k), edge(k+1)) with edge(k) =
                                   (B + kP) rounded down to 4 KiB, minus B (0 and msg_size at
                                   the ends); the receiver reads pieces from the front and the
                                   sender writes pieces from the back, each claiming the next
                                   on the slot's counter (the transport's claim), until they
                                   meet at S; the sender then says so with a DATA frame with
                                   F_SPLIT (len 0, offset S; with F_NO_READ when its writes
                                   failed and its part follows as DATA), and the receiver,
                                   its part read, answers with a CTS for 0 bytes, which
                                   completes the send (or, when its read fails, a CTS with
                                   F_NO_READ for S bytes: DATA for them) */
#define BOLT_FRAME_TYPE_TRANSPORT 0xffu /* reserved: a transport's own frames (TCP failover acknowledgements), never handed to the runtime */

struct bolt_frame_hdr {
    uint16_t magic;    /* BOLT_FRAME_MAGIC */
    uint8_t type;      /* enum bolt_frame_type */
    uint8_t flags;
    uint32_t ctx;      /* communicator context id */
    int32_t src;       /* sender's rank in that communicator */
    int32_t tag;
    uint64_t len;      /* payload bytes that follow this header */
    uint64_t msg_size; /* total message size (EAGER, RTS); offset (DATA) */
    uint64_t sreq;     /* sender's request id */
    uint64_t rreq;     /* receiver's request id (CTS, DATA); RTS with F_GET: the sender's buffer */
};

_Static_assert(sizeof(struct bolt_frame_hdr) == 48, "frame header must stay 48 bytes");

#endif
