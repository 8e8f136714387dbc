/*
 * probe.h — the authenticated exchange that proves a path between two hosts
 * of a cluster check, and the measurement of a proven path.
 *
 * On a TCP connection from the prober P (bound to a source address) to the
 * listener L (any address of its host):
 *   L -> P  hello: magic + nonce nL                       (runtime/kvs_wire.h)
 *   P -> L  auth: P's index + HMAC(secret, nL, index); hello nP; u8 mode
 *   L -> P  auth: L's index + HMAC(secret, nP, index)     (L closes if P's is wrong)
 * Both ends thus know the other holds the check's secret and which host it
 * is. Mode 1 (measure) goes on: u32 pings, then that many 8-byte round
 * trips (latency: the lowest median of four batches, halved); then three times u32 n and n bytes each way at once, L reporting after
 * each how long its receiving took (u32 microseconds). Mode 2 (RDMA) goes on
 * with the device-pair exchange of probe_rdma.c.
 */
#ifndef BOLT_CLUSTER_PROBE_H
#define BOLT_CLUSTER_PROBE_H

#include <stdint.h>

#include "cluster/check_wire.h"

struct probe_self {
    uint8_t secret[BOLT_SECRET_BYTES];
    uint32_t index;
};

/* Listens on every IPv4 address of the host, on a port the system picks.
 * Returns 0 with *fd and *port, or -1 with err. */
int probe_listen(int *fd, uint32_t *port, char *err, size_t cap);
/* Serves one accepted connection to its end (blocking, bounded); closes it. */
void probe_serve(const struct probe_self *me, int conn);
/* Connects from p->src to p->dst:p->port and proves both ends. */
void probe_connect(const struct probe_self *me, const struct ck_probe *p, struct ck_probed *out);
/* Connects from src to dst:port within a second and proves both ends, then
 * asks for `mode` (0 probe, 1 measure, 2 RDMA). Returns the descriptor, or
 * -1 with err. */
int probe_open_proven(const struct probe_self *me, const char *src, const char *dst, uint32_t port, int mode,
                      uint32_t *who, char *err, size_t cap);
/* Proves n RDMA device pairs toward one host (every p[i] has the same src,
 * dst and port), all at once (probe_rdma.c). */
void probe_rdma(const struct probe_self *me, const struct ck_rprobe *p, uint32_t n, struct ck_rprobed *out);
/* The listener's side of mode 2, for the prober `who`. */
void probe_rdma_serve(const struct probe_self *me, int fd, uint32_t who);
/* Latency and bandwidth of the path m->src -> m->dst:m->port. */
void probe_measure(const struct probe_self *me, const struct ck_measure *m, struct ck_measured *out);

#endif
