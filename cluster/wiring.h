/*
 * wiring.h — judging how a cluster is wired, from the probes' results alone
 * (pure: no I/O). A source address that reached exactly one other host is
 * one end of a cable; one that reached several sits on a shared network (a
 * switch). The cables make a full mesh, a ring, or a partial wiring; every
 * pair of hosts without one is named, and so is every path that works one
 * way only and every address answered by another host than its own.
 */
#ifndef BOLT_CLUSTER_WIRING_H
#define BOLT_CLUSTER_WIRING_H

#include "cluster/check_wire.h"

struct wr_path {             /* one probe: host a, from src, to host b's dst */
    int a, b;
    char src[CK_ADDR], dst[CK_ADDR];
    struct ck_probed r;
};

struct wr_link {             /* two hosts that reach each other (or one of them the other) */
    int a, b;                /* a < b */
    int cable;               /* through a cable (else a shared network) */
    int ab, ba;              /* works from a to b, from b to a */
    char a_addr[CK_ADDR], b_addr[CK_ADDR], a_if[32], b_if[32];
    /* Measured (bolt-cluster fills these in). */
    int measured;
    double lat_us, ab_gbs, ba_gbs;
    char measure_err[CK_ERR];
    int slow;
    char slow_why[256];
};

struct wr_problem {
    int fatal;               /* a job cannot run because of it */
    char text[600];
};

struct wr_result {
    const char *verdict;     /* "full mesh", "ring", "partial", "no cables", "single host" */
    int ncables;
    struct wr_link *links;
    int nlinks;
    struct wr_problem *problems;
    int nproblems;
    int connected;           /* every pair of reachable hosts reaches each other both ways */
};

/* `names[i]`, `ok[i]` (reached, with `info[i]`) for n hosts; the probes. */
int wiring_judge(int n, const char *const *names, const int *ok, const struct ck_info *info,
                 const struct wr_path *paths, int npaths, struct wr_result *out);
/* Marks the measured links well below the others (latency or bandwidth):
 * links[i].slow and slow_why; returns how many. */
int wiring_mark_slow(struct wr_result *w);
/* Marks them and flags each as a problem that does not stop a job. */
void wiring_flag_slow(struct wr_result *w, const char *const *names);
void wiring_add_problem(struct wr_result *w, int fatal, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void wiring_free(struct wr_result *w);
/* The interface of host info `in` that holds address `addr` ("?" if none). */
const char *wiring_ifname(const struct ck_info *in, const char *addr);

#endif
