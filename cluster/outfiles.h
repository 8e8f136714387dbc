/*
 * outfiles.h — the files a cluster check writes for later jobs:
 *
 * A hostfile boltrun takes (--hostfile): one reachable host a line, as it was
 * named to bolt-cluster (the name ssh reaches), slots = its cores.
 *
 * A calibration file: what the collectives' cost model needs to know about
 * this cluster, one record a line, '#' comments:
 *   bolt-calibration 1
 *   host NAME cores=C pus=P mem=BYTES l1d=BYTES l2=BYTES l3=BYTES
 *   link A B transport=tcp kind=cable|shared a_if=IF a_addr=ADDR b_if=IF b_addr=ADDR
 *        alpha_us=LATENCY beta_ab_ns=NS_PER_BYTE beta_ba_ns=NS_PER_BYTE [slow=1]
 * alpha is the small-message half round trip, beta the time per byte each
 * way (1 / bandwidth) measured with both ways busy at once. boltrun reads it
 * (launcher/calibration.c, --calibration FILE).
 *
 * A device map: the RDMA device pairs the check proved both ways, one a line,
 * '#' comments:
 *   bolt-devmap 1
 *   pair HOST_A DEV_A GID_A HOST_B DEV_B GID_B
 * GIDs as IPv6 text (an IPv4-mapped one reads ::ffff:169.254.12.1): the GID
 * each end sends from, the one the rdma transport picks. A rank whose device
 * has GID_A reaches a peer that publishes GID_B through that device (and the
 * reverse); host and device names are for people. The rdma transport reads
 * it at start-up from BOLT_RDMA_DEVMAP (transport/rdma/rdma_devmap.c).
 */
#ifndef BOLT_CLUSTER_OUTFILES_H
#define BOLT_CLUSTER_OUTFILES_H

#include <stddef.h>

#include "cluster/check.h"

/* 0, or -1 with err naming the file. */
int outfiles_hostfile(const char *path, const struct cl_check *c, char *err, size_t cap);
int outfiles_calibration(const char *path, const struct cl_check *c, char *err, size_t cap);
int outfiles_devmap(const char *path, const struct cl_check *c, char *err, size_t cap);

#endif
