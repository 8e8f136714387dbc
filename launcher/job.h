/*
 * job.h — one boltrun job: the key-value store, the ranks under their
 * guards, output forwarding, signals and the timeout, all in one poll() loop.
 */
#ifndef BOLTRUN_JOB_H
#define BOLTRUN_JOB_H

#include <stddef.h>

struct bind_plan;
struct hostlist;

struct job_config {
    int np;
    int tag_output;
    double timeout;          /* 0 = none */
    const char *timeout_text;
    int stdin_rank;          /* the rank fed boltrun's stdin; -1 = none */
    double kill_grace;       /* BOLT_KILL_GRACE */
    double auth_timeout;     /* BOLT_TIMEOUT */
    const char *path;        /* resolved program */
    char **argv;
    const struct bind_plan *bind; /* --bind-to's plan (bind.h); NULL: no binding */
    /* Multi-host: every rank runs on a host of this list, under that host's
     * bolt-hostd (NULL: every rank here). */
    const struct hostlist *hosts;
    char **rsh_argv;         /* the remote shell, NULL-terminated */
    const char *hostd_path;  /* bolt-hostd on the hosts */
    const char *env_blob;    /* "NAME=VALUE\0"... for the remote ranks */
    size_t env_len;
    int nenv;
    int bind_to, map_by, report_bindings;
    double launch_timeout;   /* BOLT_LAUNCH_TIMEOUT */
};

/* Runs the job to the end. Returns boltrun's exit status. */
int job_run(const struct job_config *cfg);

#endif
