/*
 * hostinfo_rdma_none.c — a build without a verbs library lists no device.
 */
#include "cluster/hostinfo.h"

#include <stdio.h>

void hostinfo_rdma(struct ck_info *in)
{
    snprintf(in->rdma_note, sizeof in->rdma_note, "no RDMA devices: this Bolt was built without a verbs library");
}
