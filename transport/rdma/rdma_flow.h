/*
 * rdma_flow.h — credits and sequence numbers of one queue pair, both ways.
 *
 * UC queue pairs drop a SEND that finds no posted RECV, and drop lost
 * packets silently. So nothing is sent without a credit (a receive the peer
 * has posted for us), and every message carries a sequence number, checked
 * on arrival. Credits come back as cumulative counts of consumed messages in
 * every message header (a lost or repeated count does no harm). One credit
 * is kept for acknowledgement-only messages, so that two sides that have
 * spent their credits can always tell each other they may go on.
 *
 * Pure arithmetic on 32-bit counters that wrap: no verbs, unit-tested.
 */
#ifndef BOLT_RDMA_FLOW_H
#define BOLT_RDMA_FLOW_H

#include <stdint.h>

struct rdma_flow {
    uint32_t depth;       /* receives each side keeps posted on this queue pair */
    uint32_t sent;        /* messages we posted (our next sequence number) */
    uint32_t acked;       /* of those, how many the peer consumed */
    uint32_t expect;      /* next sequence number we should receive */
    uint32_t consumed;    /* messages we received and posted a receive for again */
    uint32_t advertised;  /* the consumed count the peer last heard from us */
};

void rdma_flow_init(struct rdma_flow *f, uint32_t depth);
/* Credits left: receives the peer has posted for us that we have not used. */
uint32_t rdma_flow_credits(const struct rdma_flow *f);
/* May a message go now? `ack_only` messages may use the reserved credit. */
int rdma_flow_may_send(const struct rdma_flow *f, int ack_only);
/* A message is posted: returns its sequence number. */
uint32_t rdma_flow_sent(struct rdma_flow *f);
/* The peer says it consumed `acked` of our messages. 0 (an older count than
 * one already seen is ignored), or -1 when it is more than we sent: a
 * protocol error. */
int rdma_flow_ack(struct rdma_flow *f, uint32_t acked);
/* A message with sequence number `seq` arrived. 0 in order, -1 when some
 * were lost (or it is stale): *lost gets how many are missing. */
int rdma_flow_received(struct rdma_flow *f, uint32_t seq, uint32_t *lost);
/* Its slot is posted again: the peer may have the credit back. */
void rdma_flow_consumed(struct rdma_flow *f);
/* Consumed messages the peer has not heard about. */
uint32_t rdma_flow_unadvertised(const struct rdma_flow *f);
/* Should an acknowledgement-only message go now (half the window waits)? */
int rdma_flow_ack_due(const struct rdma_flow *f);
/* The count to put in an outgoing header; marks it advertised. */
uint32_t rdma_flow_advertise(struct rdma_flow *f);
/* Messages sent and not yet acknowledged. */
uint32_t rdma_flow_unacked(const struct rdma_flow *f);

#endif
