/* rdma_flow.c — credit and sequence arithmetic (rdma_flow.h). */
#include "transport/rdma/rdma_flow.h"

void rdma_flow_init(struct rdma_flow *f, uint32_t depth)
{
    *f = (struct rdma_flow){.depth = depth};
}

uint32_t rdma_flow_unacked(const struct rdma_flow *f)
{
    return f->sent - f->acked; /* wraps correctly */
}

uint32_t rdma_flow_credits(const struct rdma_flow *f)
{
    uint32_t out = rdma_flow_unacked(f);
    return out >= f->depth ? 0 : f->depth - out;
}

int rdma_flow_may_send(const struct rdma_flow *f, int ack_only)
{
    return rdma_flow_credits(f) >= (ack_only ? 1u : 2u);
}

uint32_t rdma_flow_sent(struct rdma_flow *f)
{
    return f->sent++;
}

int rdma_flow_ack(struct rdma_flow *f, uint32_t acked)
{
    /* Both queue pairs carry acknowledgements of both, and they are read in
     * whatever order their completions come: an older count is no news. */
    if ((int32_t)(acked - f->acked) <= 0)
        return 0;
    if (acked - f->acked > rdma_flow_unacked(f))
        return -1;
    f->acked = acked;
    return 0;
}

int rdma_flow_received(struct rdma_flow *f, uint32_t seq, uint32_t *lost)
{
    *lost = seq - f->expect;
    if (seq != f->expect)
        return -1;
    f->expect++;
    return 0;
}

void rdma_flow_consumed(struct rdma_flow *f)
{
    f->consumed++;
}

uint32_t rdma_flow_unadvertised(const struct rdma_flow *f)
{
    return f->consumed - f->advertised;
}

int rdma_flow_ack_due(const struct rdma_flow *f)
{
    uint32_t half = f->depth / 2 ? f->depth / 2 : 1;
    return rdma_flow_unadvertised(f) >= half;
}

uint32_t rdma_flow_advertise(struct rdma_flow *f)
{
    f->advertised = f->consumed;
    return f->consumed;
}
