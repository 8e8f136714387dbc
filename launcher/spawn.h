/*
 * spawn.h — starting one rank under a guard process.
 *
 * boltrun forks a guard (not exec'd) per rank. The guard makes itself the
 * leader of a new process group, forks the rank into it, and watches a
 * socketpair "lifeline" to boltrun:
 *   - the rank ends: the guard sends its raw wait status over the lifeline,
 *     SIGKILLs whatever is left in the group (the rank's stray children), exits;
 *   - the lifeline reaches EOF (boltrun died, even by kill -9): the guard sends
 *     SIGTERM to the group, waits up to the grace period, SIGKILLs it, exits.
 * boltrun signals a rank's whole group with killpg(guard pid, sig); the guard
 * ignores SIGINT/SIGTERM/SIGHUP so it survives to report, and SIGKILL of the
 * group takes it too (boltrun then sees the lifeline close).
 */
#ifndef BOLTRUN_SPAWN_H
#define BOLTRUN_SPAWN_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#define SPAWN_STATUS_BYTES 8

struct bind_plan;
struct shm_host;

struct spawn_opts {
    const char *path;        /* resolved program */
    char **argv;             /* NULL-terminated */
    int rank, size;
    int local_rank, local_size; /* on this host; local_size 0: the job is this host's alone */
    const char *kvs_addr, *secret_hex, *job_id, *host;
    double grace;            /* seconds from SIGTERM to SIGKILL when boltrun is gone */
    int stdin_fd;            /* the rank's stdin (the guard closes its copy); -1 = /dev/null */
    const sigset_t *ignored; /* signals the rank keeps ignored (NULL: none) */
    const int *close_fds;    /* boltrun's descriptors the guard must not keep */
    int nclose;
    const struct bind_plan *bind; /* where to bind the rank (bind.h); NULL: leave it */
    const struct shm_host *shm;   /* the host's shared segment and doorbells; NULL: none */
};

struct spawn_result {
    pid_t guard;             /* also the rank's process group id */
    int lifeline;            /* boltrun's end: nonblocking, close-on-exec */
    int out_fd, err_fd;      /* read ends of the rank's stdout/stderr: nonblocking */
};

/* Returns 0, or -1 with a message in err (nothing is left running). */
int spawn_rank(const struct spawn_opts *o, struct spawn_result *r, char *err, size_t errcap);
/* Decodes a status message read from the lifeline: 0 and *status, or -1. */
int spawn_decode_status(const uint8_t buf[SPAWN_STATUS_BYTES], int *status);
/* Resolves PROGRAM like execvp would. Returns 0 with the path in out, or the
 * exit status boltrun should use (127 not found, 126 not executable) with err. */
int spawn_resolve(const char *prog, char *out, size_t outcap, char *err, size_t errcap);

#endif
