/*
 * topo.h — a summary of this host's hardware topology, shared by boltrun
 * (placement and binding), bolt-info (--topology) and the runtime (spin
 * count). Filled by hwloc where the build has it, else from sysconf.
 *
 * "Host" counts cover what this host lets the process group use (a cgroup
 * or container cpuset); "avail" counts cover what this process may run on
 * now (its affinity: taskset, or a binding boltrun made).
 */
#ifndef BOLT_TOPO_H
#define BOLT_TOPO_H

#include <stdio.h>

#define BOLT_TOPO_CACHE_LEVELS 3 /* L1 (data), L2, L3 */

struct bolt_topo_core {
    int index;      /* hwloc's logical index of the core on the host */
    int numa;       /* logical index of its NUMA node, 0 when unknown */
    int first_pu;   /* its PUs are pu[first_pu .. first_pu + npus - 1] */
    int npus;
};

struct bolt_topo {
    int from_hwloc;        /* 0: counts from sysconf, nothing finer */
    int can_bind;          /* the OS lets a process bind itself to PUs */
    int packages;          /* 0 when unknown */
    int numa_nodes;        /* 0 when unknown */
    int cores, pus;        /* on the host */
    int cores_avail, pus_avail; /* within this process's affinity */
    int bound;             /* pus_avail < pus: this process is bound */
    unsigned long long cache_bytes[BOLT_TOPO_CACHE_LEVELS]; /* size of one cache; 0 = none */
    int cache_count[BOLT_TOPO_CACHE_LEVELS];
    /* Cores this process may run on, in hwloc's logical order, with their
     * PUs' OS indexes (what sched_setaffinity takes). NULL without hwloc. */
    struct bolt_topo_core *core;
    int ncore;
    int *pu;
    int npu;
    char host[256];
    char host_id[256];     /* tells this host from others: see hostid.h */
};

/* Fills t. Returns BOLT_OK, or an error code with the message set
 * (bolt_error_message()); t is then empty but safe to free. */
int bolt_topo_load(struct bolt_topo *t);
void bolt_topo_free(struct bolt_topo *t);
/* One line: "2 cores, 2 PUs, 1 package, 1 NUMA node (hwloc)". */
void bolt_topo_print_summary(FILE *out, const struct bolt_topo *t);
/* The --topology report of bolt-info: one "key : value" per line. */
void bolt_topo_print(FILE *out, const struct bolt_topo *t);
/* Writes OS indexes as a sorted compact list ("0-3,8"); returns out. */
char *bolt_topo_cpulist(const int *pus, int n, char *out, size_t cap);

/* For a rank: *cores is the number of cores the ranks of this host share —
 * boltrun's count (BOLT_LOCAL_CORES, taken before it bound the ranks) when
 * started by it, else the cores this process may run on — and *bound says
 * whether this process is bound. Both are filled even on error (sysconf). */
int bolt_topo_local(int *cores, int *bound);

/* Backends (topo_hwloc.c or topo_sysconf.c): fill the counts and lists. */
int bolt_topo_backend_load(struct bolt_topo *t);

#endif
