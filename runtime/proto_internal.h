/*
 * proto_internal.h — what proto.c (the protocol) and peers.c (departed
 * peers) share. Not for other layers.
 */
#ifndef BOLT_PROTO_INTERNAL_H
#define BOLT_PROTO_INTERNAL_H

#include <stdint.h>

#include "runtime/comm.h"
#include "runtime/request.h"

/* Sends a payload-less control frame (CTS, SYNC_ACK, BYE). */
int proto_send_control(int world_peer, uint8_t type, uint64_t sreq, uint64_t rreq, uint64_t size);
/* Fails a send; it completes once the transport gave back its frames. */
void proto_send_fail(struct bolt_request *req, int err);
/* 1 when every member of c other than this rank finalized or failed; *last
 * gets one of them (-1 if c has no other member). */
int proto_comm_others_gone(const struct bolt_comm *c, int *last);
/* The peer said BYE at finalize. */
void proto_peer_bye(int peer);
/* The transports' peer_failed upcall. */
void proto_peer_failed(void *rt, int peer, int error, const char *why);

#endif
