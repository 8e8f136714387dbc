/*
 * runtime.h — the process-wide state of the runtime (one per process).
 */
#ifndef BOLT_RUNTIME_H
#define BOLT_RUNTIME_H

#include <stdint.h>

#include "runtime/comm.h"
#include "runtime/linkmap.h"
#include "runtime/match.h"
#include "transport/transport.h"

#define BOLT_MAX_TRANSPORTS 4

struct bolt_peer {
    int tl;                 /* index into rt.tls, -1 for self */
    int standby;            /* transport that carries tl's traffic if its link fails; -1 */
    int tunneling;          /* ... and it does: tl's link failed */
    int failed;             /* error code once broken, else 0 */
    int bye;                /* peer said BYE (it finalized) */
    char host[256];
    char why[256];          /* what broke */
    uint64_t split_cts[3];  /* payload of a CTS with BOLT_FRAME_F_SPLIT from it */
};

struct bolt_runtime {
    int initialized;
    int finalized;
    int rank, size;
    int local_rank, local_size;
    char host[256];
    int singleton;          /* started without boltrun */
    struct bolt_peer *peers;
    int ntls;
    const struct bolt_transport *tls[BOLT_MAX_TRANSPORTS];
    struct bolt_tl_ctx *tlctx[BOLT_MAX_TRANSPORTS];
    struct bolt_tl_upcalls up;
    struct bolt_tl_upcalls up_tl[BOLT_MAX_TRANSPORTS]; /* up, as each transport sees it */
    int tl_index[BOLT_MAX_TRANSPORTS];
    struct bolt_comm *world;
    struct bolt_comm *self;
    struct bolt_match match;
    long spin_count;
    long yield_count; /* polls with sched_yield between them, after the spin */
    int host_cores;         /* cores the ranks of this host share (topo.h bolt_topo_local) */
    int bound;              /* this process is bound to part of the host */
    int gone;               /* peers that finalized or failed */
    int tunnels;            /* peers whose traffic goes through their standby transport */
    /* Messages handed to each transport (by the index of the peer's, tl),
     * and their payload bytes: what the MPI tools interface reports. */
    uint64_t sent_msgs[BOLT_MAX_TRANSPORTS], sent_bytes[BOLT_MAX_TRANSPORTS];
    /* The links between the job's hosts (BOLT_COLL_LINKS), for the
     * collectives' cost model; NULL without a calibration. */
    struct linkmap *links;
};

extern struct bolt_runtime bolt_rt;

static inline void bolt_sent_count(int tl, uint64_t msgs, uint64_t bytes)
{
    bolt_rt.sent_msgs[tl] += msgs;
    bolt_rt.sent_bytes[tl] += bytes;
}

/* Fills the error message of a request that failed because of its peer. */
int bolt_peer_error(int world_peer, const char *doing);
/* fn runs when bolt_finalize tears the runtime down (layers above free what
 * they keep between calls); up to 4, BOLT_ERR_NOMEM past that. */
int bolt_rt_on_teardown(void (*fn)(void));

#endif
