/*
 * bolt.h — Bolt's native API.
 *
 * Every function returns an int error code: BOLT_OK (0) on success, a negative
 * BOLT_ERR_* value otherwise. bolt_strerror() names the code;
 * bolt_error_message() returns the detailed message of the last error raised
 * by this thread (which rank, which peer, which host, what to do).
 */
#ifndef BOLT_H
#define BOLT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BOLT_VERSION_MAJOR 0
#define BOLT_VERSION_MINOR 1
#define BOLT_VERSION_PATCH 0

/* Error codes. Keep in sync with runtime/errors.c. */
enum {
    BOLT_OK = 0,
    BOLT_ERR_ARG = -1,         /* invalid argument (bad rank, tag, count, NULL buffer) */
    BOLT_ERR_NOMEM = -2,       /* out of memory */
    BOLT_ERR_TRUNCATE = -3,    /* message larger than the receive buffer */
    BOLT_ERR_PEER = -4,        /* a peer process died or its connection broke */
    BOLT_ERR_TIMEOUT = -5,     /* a bounded wait ran out (BOLT_TIMEOUT) */
    BOLT_ERR_BOOTSTRAP = -6,   /* cannot reach or use the job's key-value store */
    BOLT_ERR_AUTH = -7,        /* authentication with the job secret failed */
    BOLT_ERR_SYS = -8,         /* a system call failed */
    BOLT_ERR_NOT_INIT = -9,    /* bolt_init has not been called (or finalize has) */
    BOLT_ERR_UNSUPPORTED = -10,/* operation not supported by this build or transport */
    BOLT_ERR_PROTO = -11,      /* malformed message on the wire */
    BOLT_ERR_CONFIG = -12,     /* bad BOLT_* environment setting */
    BOLT_ERR_INTERNAL = -13,   /* a bug in Bolt: please report it */
    BOLT_ERR_PENDING = -14,    /* a request in a wait-all set did not complete (see its status) */
    BOLT_ERR_DEADLOCK = -15,   /* a blocking call waits for a message only this rank could send */
    BOLT_ERR_LAST = -16
};

/* Wildcards for receives and probes. */
#define BOLT_ANY_SOURCE (-1)
#define BOLT_ANY_TAG (-1)
/* Largest tag a user may pass; tags above it are reserved for Bolt itself. */
#define BOLT_TAG_UB 0x3fffffff
/* Color for bolt_comm_split that leaves the caller out of every new communicator. */
#define BOLT_UNDEFINED (-32766)

typedef struct bolt_comm *bolt_comm_t;
typedef struct bolt_request *bolt_request_t;

#define BOLT_COMM_NULL ((bolt_comm_t)0)
#define BOLT_REQUEST_NULL ((bolt_request_t)0)

/* What a completed receive (or a probe) found. */
typedef struct bolt_status {
    int source;   /* rank of the sender in the communicator */
    int tag;      /* tag of the message */
    int error;    /* BOLT_OK or the error of this request */
    size_t bytes; /* bytes received (for probes: bytes of the pending message) */
} bolt_status_t;

/* Environment. */
int bolt_init(int *argc, char ***argv);
int bolt_finalize(void);
int bolt_initialized(int *flag);
int bolt_finalized(int *flag);
/* Ends the whole job with the given exit code: every rank is stopped by boltrun. */
void bolt_abort(int code, const char *why);
double bolt_wtime(void);
const char *bolt_hostname(void);

/* Errors. */
const char *bolt_strerror(int code);
const char *bolt_error_message(void);

/* Communicators. */
bolt_comm_t bolt_comm_world(void);
bolt_comm_t bolt_comm_self(void);
int bolt_comm_rank(bolt_comm_t comm, int *rank);
int bolt_comm_size(bolt_comm_t comm, int *size);
/* Rank in the world communicator of rank `rank` of `comm`. */
int bolt_comm_world_rank(bolt_comm_t comm, int rank, int *world_rank);
int bolt_comm_dup(bolt_comm_t comm, bolt_comm_t *newcomm);
/* Collective over comm. Ranks with the same color form a new communicator,
 * ordered by (key, rank in comm). color BOLT_UNDEFINED gives BOLT_COMM_NULL. */
int bolt_comm_split(bolt_comm_t comm, int color, int key, bolt_comm_t *newcomm);
int bolt_comm_free(bolt_comm_t *comm);
/* Collective over the n ranks of comm listed in ranks (the caller among them),
 * not over comm: a communicator of those ranks, in that order. Concurrent
 * calls over overlapping lists must use different tags (0..BOLT_TAG_UB). */
int bolt_comm_create_group(bolt_comm_t comm, int n, const int *ranks, int tag,
                           bolt_comm_t *newcomm);
/* Collective over local and, at once, over the local communicator of a
 * disjoint remote group making the same call: a communicator over both
 * groups (an MPI intercommunicator's), the group whose leader has the lower
 * world rank first, each in its own order. The leaders (local_leader of
 * local; remote_leader of peer, a communicator holding both leaders) agree
 * on the context over peer's internal traffic; peer and remote_leader count
 * only at the local leader. An error at the leader fails every member's call. */
int bolt_comm_join(bolt_comm_t local, int local_leader, bolt_comm_t peer, int remote_leader,
                   bolt_comm_t *newcomm);

/* Point-to-point. Sizes are in bytes. Message order between a pair of ranks on
 * one communicator and tag is kept. */
int bolt_send(const void *buf, size_t bytes, int dest, int tag, bolt_comm_t comm);
int bolt_recv(void *buf, size_t bytes, int source, int tag, bolt_comm_t comm,
              bolt_status_t *status);
/* Completes only once the receiver has matched the message. */
int bolt_ssend(const void *buf, size_t bytes, int dest, int tag, bolt_comm_t comm);
int bolt_isend(const void *buf, size_t bytes, int dest, int tag, bolt_comm_t comm,
               bolt_request_t *req);
int bolt_issend(const void *buf, size_t bytes, int dest, int tag, bolt_comm_t comm,
                bolt_request_t *req);
/* A small message sent at once when it can leave without waiting (copied
 * into the transport, behind nothing queued for dest): *sent is 1 then and
 * buf is free, as after a completed bolt_isend; 0 when it cannot now (send
 * it with bolt_isend, which keeps the order). What a nonblocking send that
 * needs no request does. */
int bolt_send_now(const void *buf, size_t bytes, int dest, int tag, bolt_comm_t comm, int *sent);
/* bolt_isend for a sender that computes until it waits: the data moves
 * without it wherever the transport allows (over shared memory the receiver
 * reads the sender's buffer at any size, rather than have a large message
 * staged by the sender's own copies at its next call). */
int bolt_isend_overlap(const void *buf, size_t bytes, int dest, int tag, bolt_comm_t comm,
                       bolt_request_t *req);
int bolt_irecv(void *buf, size_t bytes, int source, int tag, bolt_comm_t comm,
               bolt_request_t *req);
int bolt_sendrecv(const void *sbuf, size_t sbytes, int dest, int stag, void *rbuf,
                  size_t rbytes, int source, int rtag, bolt_comm_t comm,
                  bolt_status_t *status);

/* Completion. A completed request is freed and set to BOLT_REQUEST_NULL.
 * A NULL status pointer means "ignore". */
int bolt_wait(bolt_request_t *req, bolt_status_t *status);
int bolt_test(bolt_request_t *req, int *flag, bolt_status_t *status);
/* Returns BOLT_ERR_PENDING when some request failed; each status says which. */
int bolt_waitall(int count, bolt_request_t *reqs, bolt_status_t *statuses);
/* *index is -1 when every request is BOLT_REQUEST_NULL. */
int bolt_waitany(int count, bolt_request_t *reqs, int *index, bolt_status_t *status);
int bolt_testall(int count, bolt_request_t *reqs, int *flag, bolt_status_t *statuses);
int bolt_testany(int count, bolt_request_t *reqs, int *index, int *flag,
                 bolt_status_t *status);
/* Is the request complete? Unlike bolt_test, leaves it alone (no free). */
int bolt_request_get_status(bolt_request_t req, int *flag, bolt_status_t *status);
/* Cancels a pending receive that has not matched; bolt_wait then completes it. */
int bolt_cancel(bolt_request_t *req);
int bolt_request_free(bolt_request_t *req);

/* Probes. */
int bolt_probe(int source, int tag, bolt_comm_t comm, bolt_status_t *status);
int bolt_iprobe(int source, int tag, bolt_comm_t comm, int *flag, bolt_status_t *status);

/* Matched probes: the message found is taken out of matching at once, so no
 * other receive or probe can get it; only bolt_mrecv/bolt_imrecv on the
 * returned handle receive it (once; the handle is then BOLT_MESSAGE_NULL). */
typedef struct bolt_message *bolt_message_t;
#define BOLT_MESSAGE_NULL ((bolt_message_t)0)
int bolt_improbe(int source, int tag, bolt_comm_t comm, int *flag, bolt_message_t *msg,
                 bolt_status_t *status);
int bolt_mprobe(int source, int tag, bolt_comm_t comm, bolt_message_t *msg,
                bolt_status_t *status);
int bolt_mrecv(void *buf, size_t bytes, bolt_message_t *msg, bolt_status_t *status);
int bolt_imrecv(void *buf, size_t bytes, bolt_message_t *msg, bolt_request_t *req);

/* Drive communication without waiting (for codes that compute while messages fly). */
int bolt_progress(void);

#include "bolt_coll.h"

#ifdef __cplusplus
}
#endif
#endif /* BOLT_H */
