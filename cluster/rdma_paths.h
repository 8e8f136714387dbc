/*
 * rdma_paths.h — RDMA device pairs in a cluster check: which pairs to probe
 * (every usable device of a host toward every usable device of every other
 * reachable host, over the TCP path the address probes proved), and what
 * the answers say (pure): the device pairs proven both ways, which make the
 * peer -> local device map the rdma transport reads (cluster/outfiles.h),
 * and the problems (devices down, hosts whose devices reach each other one
 * way only or not at all).
 */
#ifndef BOLT_CLUSTER_RDMA_PATHS_H
#define BOLT_CLUSTER_RDMA_PATHS_H

#include "cluster/check_wire.h"
#include "cluster/wiring.h"

struct rd_path {              /* one probe: host a's device adev to host b's bdev */
    int a, b, adev, bdev;     /* devices: indexes in the hosts' ck_info.rdma */
    struct ck_rprobed r;
};

struct rd_link {              /* a device pair between hosts a < b */
    int a, b, adev, bdev;
    int ab, ba;               /* proven from a to b, from b to a */
};

struct rd_result {
    struct rd_link *links;
    int nlinks;
    int probed;               /* some host had a usable device */
};

/* The probes host a makes, in the order sent (grouped by peer host), into
 * paths[*np...] (room for every pair); the TCP addresses through `w`. */
void rdpaths_plan(int n, const int *ok, const struct ck_info *info, const struct wr_result *w, int a,
                  struct rd_path *paths, int *np, struct ck_rprobe *req, uint32_t *nreq);
/* Judges the answers into out; problems go to w. 0, or -1 out of memory. */
int rdpaths_judge(int n, const char *const *names, const int *ok, const struct ck_info *info,
                  const struct rd_path *paths, int np, struct wr_result *w, struct rd_result *out);
void rdpaths_free(struct rd_result *r);

#endif
