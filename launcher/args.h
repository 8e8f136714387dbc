/*
 * args.h — boltrun's command line, parsed by a pure function.
 */
#ifndef BOLTRUN_ARGS_H
#define BOLTRUN_ARGS_H

#include <stddef.h>

#include "launcher/bind_policy.h"

#define BOLTRUN_MAX_NP 100000

struct boltrun_args {
    int np;                 /* ranks to start (default 1; with hosts, their slots) */
    int np_given;           /* -np was on the command line */
    const char *host_spec;  /* --host h1:2,h2:2 (NULL: none) */
    const char *hostfile;   /* --hostfile FILE (NULL: none) */
    const char *launch_agent; /* --launch-agent "CMD ARGS" (remote shell; NULL: BOLT_RSH) */
    const char *calibration; /* --calibration FILE (bolt-cluster's; NULL: none) */
    int tag_output;         /* --tag-output */
    double timeout;         /* --timeout seconds; 0 = none */
    const char *timeout_text; /* as given, for messages */
    int stdin_rank;         /* --stdin: the rank fed boltrun's stdin (default 0); -1 = none */
    enum bind_to bind_to;   /* --bind-to (BIND_TO_DEFAULT when not given) */
    enum map_by map_by;     /* --map-by */
    int map_by_given;
    int report_bindings;    /* --report-bindings */
    char **exports;         /* -x values, "VAR" or "VAR=VAL" (point into argv) */
    int nexports;
    char **prog_argv;       /* PROGRAM ARGS... (points into argv, NULL-terminated) */
    int prog_argc;
    int help, version;
};

/* Parses argv. Returns 0 on success, or 2 with a one-line message (starting
 * "boltrun: ") in err. exports is malloc'd: free it with boltrun_args_free. */
int boltrun_parse_args(int argc, char **argv, struct boltrun_args *a, char *err, size_t errcap);
void boltrun_args_free(struct boltrun_args *a);
const char *boltrun_usage(void);

#endif
