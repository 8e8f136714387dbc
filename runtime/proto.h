/*
 * proto.h — the point-to-point protocol over transports: eager sends for small
 * messages, rendezvous (RTS / CTS / DATA straight into the user's buffer) for
 * large ones, synchronous sends, self-sends, BYE at finalize, and what happens
 * to requests when a peer breaks.
 */
#ifndef BOLT_PROTO_H
#define BOLT_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/comm.h"
#include "runtime/request.h"

/* A blocking standard-mode send without a request: when the message goes
 * eagerly and the peer's transport takes it at once (send_now), on context ctx
 * (the communicator's, or its collective one). Returns 1
 * when it was sent, 0 when the caller must take the request path. */
int bolt_proto_send_now(const void *buf, size_t bytes, int dest, int tag, struct bolt_comm *comm,
                        uint32_t ctx);
/* The same message to each of n distinct ranks of comm (dests, none this
 * rank) as bolt_proto_send_now would send it to each, but with one copy of
 * the payload that they all read, where their transport can share one
 * (send_many_now: shm). Any size that transport takes, the eager limit
 * aside. Returns 1 when it went to all, 0 when to none: the caller then
 * sends to each. */
#define BOLT_PROTO_MANY_MAX 64
int bolt_proto_send_many_now(const void *buf, size_t bytes, const int *dests, int n, int tag,
                             struct bolt_comm *comm, uint32_t ctx);
/* A receive without a request: when the first message from `source` (a rank
 * of comm) with `tag` on context ctx that a receive would match has fully
 * arrived eagerly, with exactly `bytes` bytes and no synchronous sender to
 * answer, it is copied into buf and consumed; from the unexpected queue, or
 * straight from the transport (take_now) when it is the next frame from that
 * peer there and no posted receive would match it. Returns 1 then; 0 when it
 * is not (all) there yet; -1 when it can only be received with a request:
 * the message is large (rendezvous) or synchronous or of another size (the
 * receive reports it), or the peer is gone (the receive reports that). */
int bolt_proto_recv_now(void *buf, size_t bytes, int source, int tag, const struct bolt_comm *comm,
                        uint32_t ctx);
/* flags: BOLT_PROTO_SYNC (complete when matched: MPI_Ssend),
 * BOLT_PROTO_SENDER_BUSY (this rank copies as much meanwhile: see
 * BOLT_TL_HINT_SENDER_BUSY), BOLT_PROTO_WAITS (the caller waits for it at
 * once, in the library: BOLT_TL_HINT_SENDER_WAITS), BOLT_PROTO_FAN_OUT (one
 * of several sends to different ranks started at once, then only waited for:
 * BOLT_TL_HINT_FAN_OUT). */
#define BOLT_PROTO_SYNC 0x1u
#define BOLT_PROTO_SENDER_BUSY 0x2u
#define BOLT_PROTO_WAITS 0x4u
#define BOLT_PROTO_FAN_OUT 0x8u
int bolt_proto_isend(const void *buf, size_t bytes, int dest, int tag, struct bolt_comm *comm,
                     uint32_t ctx, unsigned flags, struct bolt_request **out);
int bolt_proto_irecv(void *buf, size_t bytes, int source, int tag, struct bolt_comm *comm,
                     uint32_t ctx, struct bolt_request **out);
/* A receive whose payload the caller consumes itself, in pieces while they
 * are still in the cache: fold(arg, off, data, len) for consecutive pieces,
 * each a multiple of `unit` bytes, when the transport reads the sender's
 * memory (a rendezvous get, read piece by piece into a small buffer);
 * otherwise the payload lands in tmp (room for `bytes`) and fold is called
 * once for all of it. Either way every byte once, before the request
 * completes, and only when the message fits (a truncated one completes with
 * BOLT_ERR_TRUNCATE, nothing folded). A read that fails after its first piece
 * ends the receive with BOLT_ERR_SYS (the sender is released). */
int bolt_proto_irecv_fold(void *tmp, size_t bytes, size_t unit, bolt_fold_fn *fold, void *arg,
                          int source, int tag, struct bolt_comm *comm, uint32_t ctx,
                          struct bolt_request **out);
/* Looks for a matching message without receiving it. */
int bolt_proto_iprobe(int source, int tag, struct bolt_comm *comm, uint32_t ctx, int *flag,
                      bolt_status_t *status);
/* Receives the unexpected message u that a matched probe reserved (it must
 * have fully arrived if eager); u is consumed. */
struct bolt_unexp;
int bolt_proto_imrecv(void *buf, size_t bytes, struct bolt_comm *comm, struct bolt_unexp *u,
                      struct bolt_request **out);
/* Cancels a posted receive that has not matched (1 when cancelled). */
int bolt_proto_cancel(struct bolt_request *req);
/* 1 when a pending receive can never be matched while this rank waits: every
 * rank it accepts messages from, other than this one, finalized or failed.
 * bolt_proto_fail_orphan ends it: BOLT_ERR_PEER naming a departed rank, or
 * BOLT_ERR_DEADLOCK when only this rank could have sent it. */
int bolt_proto_orphaned(struct bolt_request *req);
void bolt_proto_fail_orphan(struct bolt_request *req);
/* Formats the message of a failed request into the thread's error message. */
int bolt_proto_req_error(struct bolt_request *req);

/* Transport upcalls. */
void bolt_proto_upcalls(struct bolt_tl_upcalls *up);

/* Finalize: tell every peer we are done, then wait (bounded) for theirs. */
int bolt_proto_goodbye(void);

#endif
