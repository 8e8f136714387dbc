/*
 * failover.h — a peer's standby transport, and the tunnel through it.
 *
 * A transport that can lose its link (rdma: a cable pulled, a port down, a
 * UC message lost) gets, per peer, the next transport of BOLT_TRANSPORTS
 * that also reaches the peer as its standby, wired up at init. When its
 * link fails it does not fail the peer: it sends its own messages through
 * the standby (TUNNEL frames) and resends what the peer did not get, so the
 * job goes on with every message delivered once.
 */
#ifndef BOLT_FAILOVER_H
#define BOLT_FAILOVER_H

#include "runtime/wire.h"
#include "transport/transport.h"

/* The upcalls transport `t` gets: proto's, plus tunnel_send, and a
 * peer_failed that only demotes a standby whose link broke. */
void bolt_failover_upcalls(int t, struct bolt_tl_upcalls *up);
/* After peers[p].tl is chosen: its standby transport, or -1. */
int bolt_failover_standby(int p);
/* A TUNNEL frame from `peer` (frame_begin / frame_end of runtime/proto.c). */
int bolt_failover_tunnel_begin(int peer, const struct bolt_frame_hdr *h, void **dst,
                               void **cookie);
void bolt_failover_tunnel_end(int peer, const struct bolt_frame_hdr *h, void *cookie);

#endif
