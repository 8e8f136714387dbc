/*
 * check.h — one cluster check's findings, as bolt-cluster gathers them and
 * the reports (report.h) print them.
 */
#ifndef BOLT_CLUSTER_CHECK_H
#define BOLT_CLUSTER_CHECK_H

#include "cluster/check_wire.h"
#include "cluster/rdma_paths.h"
#include "cluster/wiring.h"

struct cl_check {
    int n;                    /* hosts, in the hostfile's order */
    const char **names;
    int *ok;                  /* reached, with info */
    const char **why;         /* when not: the remote shell's or daemon's reason */
    struct ck_info *info;
    struct wr_path *paths;    /* every probe */
    int npaths;
    struct wr_result w;
    struct rd_path *rpaths;   /* every RDMA device-pair probe */
    int nrpaths;
    struct rd_result rd;
    int measured;             /* latency and bandwidth were measured */
    int can_run;              /* a job can run on every host as wired */
};

#endif
