/*
 * hostinfo.h — what bolt-hostd reports about its host for a cluster check:
 * OS, Bolt version, cores, memory, network interfaces and addresses, RDMA
 * devices (hostinfo_rdma_*.c: ibverbs when the build has it).
 */
#ifndef BOLT_CLUSTER_HOSTINFO_H
#define BOLT_CLUSTER_HOSTINFO_H

#include "cluster/check_wire.h"

/* Fills everything but `port`. */
void hostinfo_collect(struct ck_info *in);
/* The RDMA devices and their first port (none is fine: nrdma 0, a note). */
void hostinfo_rdma(struct ck_info *in);

#endif
