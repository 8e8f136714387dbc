/*
 * request.h — point-to-point requests and the id table that lets frames on
 * the wire name them (CTS, DATA and SYNC_ACK carry a request id, never a
 * pointer, so a stale or forged id is detected instead of followed).
 */
#ifndef BOLT_REQUEST_H
#define BOLT_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "bolt.h"
#include "transport/transport.h"

enum bolt_req_kind { BOLT_REQ_SEND = 1, BOLT_REQ_RECV = 2, BOLT_REQ_COLL = 3 };

/* A fold receive's consumer (bolt_proto_irecv_fold): bytes [off, off + len)
 * of the message are at data, which it may use as scratch. */
typedef void bolt_fold_fn(void *arg, size_t off, void *data, size_t len);

struct bolt_request;
/* A request the runtime does not drive itself (a nonblocking collective): its
 * owner frees its state and words its error. */
struct bolt_req_hooks {
    void (*release)(struct bolt_request *req);
    int (*error)(struct bolt_request *req); /* sets the message, returns the code */
};

/* A frame the runtime sends, with a link back to its request (NULL for
 * control frames the runtime sends on its own). */
struct bolt_frame_slot {
    struct bolt_tl_send s;
    struct bolt_request *req;
};

struct bolt_request {
    enum bolt_req_kind kind;
    int done;            /* completed: status is final */
    int user_freed;      /* bolt_request_free on a pending request: free on completion */
    uint64_t id;         /* id on the wire; 0 when not registered */
    struct bolt_comm *comm;
    uint32_t ctx;
    int peer;            /* comm rank: destination, or source filter (may be ANY) */
    int world_peer;      /* world rank of the destination, or of the matched sender */
    int tag;
    void *buf;
    size_t bytes;        /* send: message size; recv: buffer capacity */
    bolt_status_t status;
    /* send side */
    int sync;            /* synchronous: also wait for the receiver's match */
    unsigned hints;      /* BOLT_TL_HINT_* for its DATA frames */
    int sync_pending;
    int awaiting_cts;    /* rendezvous: RTS sent, no CTS yet */
    int err;             /* first error seen while frames were still in flight */
    int frames_pending;  /* frames handed to a transport and not yet complete */
    struct bolt_frame_slot env;     /* EAGER or RTS */
    struct bolt_frame_slot *data;   /* DATA stripes */
    int ndata;
    struct bolt_frame_slot *data_tail; /* DATA stripes of a split copy's tail (its write failed) */
    int ndata_tail;
    /* recv side */
    size_t expected;     /* bytes that will land in buf */
    size_t received;
    size_t msg_size;     /* the sender's size (truncation when > bytes) */
    uint64_t ack_sreq;   /* synchronous eager send to acknowledge at the end */
    void *trunc_tmp;     /* eager payload larger than buf lands here first */
    bolt_fold_fn *fold;  /* fold receive: buf is where the payload lands when it */
    void *fold_arg;      /* is not handed over in pieces; fold consumes it (NULL */
    size_t fold_unit;    /* once it has); pieces are multiples of fold_unit */
    size_t split_at;     /* split copy, receiver: where the sender's part starts */
    int split_slot;      /* split copy: receiver: 1 + its claim slot until the sender's
                            F_SPLIT DATA; sender: 1 once the split CTS came */
    /* posted-receive queue */
    struct bolt_request *next, *prev;
    /* self-send waiting for its receive (unexpected entry) */
    struct bolt_unexp *self_entry;
    /* BOLT_REQ_COLL */
    const struct bolt_req_hooks *hooks;
    void *hook_state;
};

struct bolt_request *bolt_req_new(enum bolt_req_kind kind);
/* Frees the request and removes it from the id table. */
void bolt_req_release(struct bolt_request *req);
/* Gives the request an id for the wire. */
int bolt_req_register(struct bolt_request *req);
/* Finds a live request by id (NULL when unknown or stale). */
struct bolt_request *bolt_req_lookup(uint64_t id);
/* Calls fn on every registered request (safe against completion in fn). */
void bolt_req_foreach(void (*fn)(struct bolt_request *req, void *arg), void *arg);
/* Marks complete with error code `err` (BOLT_OK for success). */
void bolt_req_complete(struct bolt_request *req, int err);
void bolt_req_table_free(void);

#endif
