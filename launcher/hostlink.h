/*
 * hostlink.h — boltrun's side of one remote host: the remote shell process
 * (ssh) running bolt-hostd there, the channel over its stdin/stdout
 * (chan_wire.h), and its stderr (ssh's and hostd's messages).
 *
 * The host's ranks' bootstrap connections become virtual connections of
 * boltrun's key-value store (kvs_server_attach), so the store works the same
 * for local and remote ranks.
 */
#ifndef BOLTRUN_HOSTLINK_H
#define BOLTRUN_HOSTLINK_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "launcher/chan.h"

struct kvs_server;
struct hostlink;

struct hostlink_events {
    void *ctx;
    /* Bytes a rank wrote on fd (1 or 2), any split. */
    void (*on_out)(void *ctx, int rank, int fd, const uint8_t *data, size_t len);
    /* A rank ended with this wait status (its output came before). */
    void (*on_exit)(void *ctx, int rank, int status);
    /* The host cannot go on (start failed, connection lost): `why` is one
     * line naming the host and the cause; `code` a suggested exit status.
     * Called once; the host's ranks that have not ended never will. */
    void (*on_fail)(void *ctx, struct hostlink *h, int code, const char *why);
};

enum hostlink_state { HL_STARTING, HL_READY, HL_CLOSING, HL_GONE };

struct hostlink {
    char name[256];
    pid_t pid;                /* the remote shell; 0 once reaped */
    int exit_status;          /* its wait status, once reaped */
    struct chan ch;
    int errfd;                /* its stderr; -1 once closed */
    char errbuf[1024];
    size_t errlen;
    char lasterr[512];        /* last line on stderr before READY */
    char startlog[4096];      /* lines before READY, shown once it comes */
    size_t startlen;
    enum hostlink_state state;
    double start_deadline;
    double gone_deadline;     /* channel closed: wait this long for stderr and exit */
    int nranks, ndone;
    const int *ranks;         /* world ranks placed on this host */
    unsigned char *is_mine;   /* per world rank */
    struct kvs_server *kvs;
    struct hostlink_events ev;
    struct { unsigned remote, local; } *conns;
    int nconns, capconns;
    int failed;
    int ready_seen;
    int size;
    double launch_timeout;
};

/* Starts `rsh_argv... host 'exec HOSTD'` and queues the START body. Returns 0,
 * or -1 with err (nothing left running). */
int hostlink_start(struct hostlink *h, const char *name, char *const *rsh_argv, const char *hostd_path,
                   const uint8_t *start_body, size_t start_len, int size, const int *ranks, int nranks,
                   struct kvs_server *kvs, const struct hostlink_events *ev, double launch_timeout,
                   char *err, size_t errcap);
#define HOSTLINK_POLLFDS 3
void hostlink_fill(struct hostlink *h, struct pollfd p[HOSTLINK_POLLFDS]);
void hostlink_handle(struct hostlink *h, const struct pollfd p[HOSTLINK_POLLFDS], double now);
/* Earliest deadline, or negative. */
double hostlink_deadline(const struct hostlink *h);
void hostlink_signal(struct hostlink *h, int sig);
/* Stdin for the host's stdin rank; len 0 is end of input. */
void hostlink_stdin(struct hostlink *h, const void *data, size_t len);
size_t hostlink_pending(const struct hostlink *h);
/* The remote shell was reaped with `status` (waitpid). Returns 1 if it was ours. */
int hostlink_reaped(struct hostlink *h, pid_t pid, int status);
/* The job is over: close every channel (each hostd then stops whatever is
 * left and exits), pass on the remote shells' last messages, wait up to
 * `seconds` for them to exit, then kill those that did not. */
void hostlink_close_all(struct hostlink *h, int n, double seconds);
/* A host that takes no part (no rank placed on it). */
void hostlink_unused(struct hostlink *h, const char *name);
/* The ranks' host ended: it counts toward "every rank of the host is done". */
void hostlink_rank_done(struct hostlink *h);

#endif
