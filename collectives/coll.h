/*
 * coll.h — inside the collectives layer.
 *
 * Every collective is built as a schedule (sched.c): rounds of sends and
 * receives on the communicator's internal context, with local steps (reduce,
 * copy) between them. A blocking call runs its schedule to the end; a
 * nonblocking one hands it to the progress engine behind a request (nbc.c).
 * Algorithms only add steps to a schedule, so each one serves both.
 */
#ifndef BOLT_COLL_INTERNAL_H
#define BOLT_COLL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "bolt.h"
#include "runtime/comm.h"
#include "runtime/config.h"

/* ---- datatypes and operations (datatype.c, op.c, reduce_kernels.c) ---- */

/* Datatype handles: builtins are small numbers; bolt_type_bytes(n) is
 * n << 8 | COLL_DT_BYTES. */
#define COLL_DT_BYTES 0xffu
#define COLL_DT_NBUILTIN 24

int coll_type_valid(bolt_datatype_t dt);
/* Checks dt for a call that moves data; sets the message. */
int coll_type_check(bolt_datatype_t dt, const char *fn);
/* Checks that op may reduce dt; sets the message. */
int coll_op_check(bolt_op_t op, bolt_datatype_t dt, const char *fn);
int coll_op_commutative(bolt_op_t op);
/* inout[i] = in[i] op inout[i]; arguments already checked; in != inout. */
void coll_reduce(const void *in, void *inout, size_t count, bolt_datatype_t dt, bolt_op_t op);

typedef void coll_kernel_fn(const void *restrict in, void *restrict inout, size_t n);
/* Kernel of a builtin op on a builtin type, or NULL when they do not mix. */
coll_kernel_fn *coll_kernel(bolt_op_t op, bolt_datatype_t dt);
/* The same kernel for operands in this core's caches (up to COLL_NEAR_MAX
 * bytes): AVX-512 where the CPU has it (reduce_kernels.c says why not for
 * the collectives' folds). */
#define COLL_NEAR_MAX (512 * 1024)
coll_kernel_fn *coll_kernel_near(bolt_op_t op, bolt_datatype_t dt);
/* out[i] = a[i] op b[i] (out overlaps neither), for builtin ops on the
 * element-wise builtin types; NULL for the others (complex, pairs, user ops). */
typedef void coll_kernel3_fn(const void *restrict a, const void *restrict b, void *restrict out,
                             size_t n);
coll_kernel3_fn *coll_kernel3(bolt_op_t op, bolt_datatype_t dt);

/* ---- schedules (sched.c) ---- */

struct coll_sched;

/* A schedule for one collective on comm: takes the communicator's next
 * collective sequence number (every rank starts collectives in the same
 * order, so the numbers agree) and tags its messages with it. Flags:
 * COLL_BLOCKING: it will be run by coll_sched_run (coll_launch without a
 * request), so its steps run as they are added; COLL_EXCHANGE: every rank
 * receives (and reduces) about as much as it sends, so its large sends ask
 * the transport for a copy by the receiver alone (BOLT_PROTO_SENDER_BUSY);
 * COLL_FAN_OUT (with COLL_BLOCKING): a rank sends to several at once and only
 * waits, so each receiver copies its own (BOLT_PROTO_FAN_OUT). */
/* Messages of a blocking collective without a schedule or a request (see
 * coll_bcast_binomial_now). The tag the next schedule on comm would take
 * (the collective takes it for good with comm->coll_seq++). Send: 1 when the
 * transport took the eager message whole at once (else 0). Receive: 1 when
 * it has arrived whole with exactly `bytes`; 0 when not yet; -1 when only a
 * request can receive it (bolt_proto_recv_now). */
int coll_tag_next(const struct bolt_comm *comm);
/* The next tag, taken for good at once: the collectives run without a
 * schedule take theirs before they wait (under MPI_THREAD_MULTIPLE another
 * thread's collective may start meanwhile). */
int coll_tag_take(struct bolt_comm *comm);
int coll_send_now(struct bolt_comm *comm, const void *buf, size_t bytes, int peer, int tag);
int coll_recv_now(struct bolt_comm *comm, void *buf, size_t bytes, int peer, int tag);
/* The same message to every other rank, at once: rank from + 1, from + 2,
 * ... (mod n), as one copy they all read where the transport shares one,
 * else one send_now each. The k of the first rank (from + k) it could not
 * go to; n when it went to all. */
int coll_send_all_now(struct bolt_comm *comm, const void *buf, size_t bytes, int from, int tag);
/* coll_recv_now waiting (driving progress) while the message is on its way:
 * 1 when taken; 0 when only a request can receive it (nothing taken). */
int coll_take_now(struct bolt_comm *comm, void *buf, size_t bytes, int peer, int tag);

/* Block i of a v-layout; counts and displs NULL: equal blocks of `bytes` in
 * rank order (gather, scatter and all-gather through their v-functions). */
static inline size_t coll_blk_bytes(const size_t *counts, size_t bytes, int i)
{
    return counts ? counts[i] : bytes;
}

/* Do the byte ranges [a, a + na) and [b, b + nb) share a byte? */
static inline int coll_overlap(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return na && nb && x < y + nb && y < x + na;
}

static inline size_t coll_blk_off(const size_t *displs, size_t bytes, int i)
{
    return displs ? displs[i] : (size_t)i * bytes;
}

#define COLL_BLOCKING 0x1
#define COLL_EXCHANGE 0x2
#define COLL_FAN_OUT 0x4
struct coll_sched *coll_sched_new(struct bolt_comm *comm, const char *fn, const char *algo,
                                  int flags);
/* A schedule for the rest of a collective begun without one (the *_now
 * functions), under the tag it took already. */
struct coll_sched *coll_sched_resume(struct bolt_comm *comm, const char *fn, const char *algo, int flags, int tag);
void coll_sched_free(struct coll_sched *s);
/* Builders: errors are sticky (checked once by coll_sched_error). Steps of a
 * round run in order when the round starts; sends and receives are posted,
 * local steps run at once, so a local step may use only data of earlier
 * rounds. coll_sched_round ends a round: the next starts when all of its
 * sends and receives completed. */
void coll_sched_send(struct coll_sched *s, const void *buf, size_t bytes, int peer);
/* The same buffer to each of n distinct peers: in a blocking schedule with
 * one copy that they all read where the transport can (bolt_proto_send_many_now),
 * else as n sends. */
void coll_sched_send_many(struct coll_sched *s, const void *buf, size_t bytes, const int *peers,
                          int n);
void coll_sched_recv(struct coll_sched *s, void *buf, size_t bytes, int peer);
void coll_sched_reduce(struct coll_sched *s, const void *in, void *inout, size_t count,
                       bolt_datatype_t dt, bolt_op_t op);
/* A receive of count elements from peer reduced with this rank's `own` as it
 * arrives, into out: out = own op received (own_first) or received op own.
 * A shm rendezvous is read piece by piece and each piece reduced while in
 * the cache; anything else lands in tmp (room for the message) first. own
 * is out (in place) or does not overlap it; own must not change during the
 * round, and out, written during it, must not overlap anything sent in it. */
void coll_sched_recv_reduce(struct coll_sched *s, void *tmp, const void *own, void *out,
                            size_t count, bolt_datatype_t dt, bolt_op_t op, int own_first,
                            int peer);
void coll_sched_copy(struct coll_sched *s, void *dst, const void *src, size_t bytes);
void coll_sched_round(struct coll_sched *s);
/* Scratch memory owned by the schedule (NULL and a sticky error when out of memory). */
void *coll_sched_tmp(struct coll_sched *s, size_t bytes);
/* Scratch buffers kept between calls (scratch.c): get one of at least
 * `bytes` (NULL when out of memory), give it back (NULL: nothing); the
 * bytes kept now; all of them freed (at bolt_finalize). */
void *coll_scratch_get(size_t bytes);
void coll_scratch_put(void *p);
size_t coll_scratch_kept(void);
void coll_scratch_release_all(void);
int coll_sched_error(const struct coll_sched *s);
/* Makes err the schedule's sticky error (the first one stays). */
void coll_sched_fail(struct coll_sched *s, int err);
struct bolt_comm *coll_sched_comm(const struct coll_sched *s);

/* Execution: start posts the first round; advance moves on while rounds
 * complete and returns 1 when the schedule ended (then *err is its result,
 * with the message in the schedule). */
int coll_sched_start(struct coll_sched *s);
int coll_sched_advance(struct coll_sched *s, int *err);
/* Sets the thread's error message to the schedule's failure. */
int coll_sched_raise(struct coll_sched *s, int err);
/* Blocking: start, run to the end, free. */
int coll_sched_run(struct coll_sched *s);
/* Nonblocking: start and return a request that owns the schedule (nbc.c). */
int coll_sched_request(struct coll_sched *s, bolt_request_t *req);

/* ---- algorithms: each adds its steps to s ---- */

/* All-reduce of count elements: this rank's input in `in`, the result in
 * buf (in == buf in place). `in` is only read: an algorithm may send from it
 * instead of from a copy in buf that it writes next. Writing lines a peer
 * has just read single-copy (shm CMA) takes each back from the peer's cache:
 * a 2-rank 16 KiB recursive doubling took 2x longer. */
typedef int coll_allreduce_fn(struct coll_sched *s, const void *in, void *buf, size_t count,
                              bolt_datatype_t dt, bolt_op_t op);
coll_allreduce_fn coll_allreduce_rd, coll_allreduce_ring, coll_allreduce_rabenseifner,
    coll_allreduce_oneshot, coll_allreduce_mesh;

/* A binomial tree around vrank v of n (tree_binomial.c): its parent (-1 at
 * the root, vrank 0) and its children in the order they are sent to.
 * near_first picks the layout (the root's first child 1, or the largest
 * power of two below n). */
struct coll_tree {
    int parent;
    int nkids;
    int kid[31];
};
void coll_tree_binomial(struct coll_tree *t, int v, int n, int near_first);
/* A rank's place in the far-first tree rooted at root: its vrank v, the mask
 * of its parent edge and the blocks of its subtree (vranks v..v + sub - 1),
 * as gather and scatter walk it. */
void coll_tree_place(int rank, int root, int n, int *v, int *mask, int *sub);
/* The layout for this job: near first when its ranks crowd the cores of its
 * one host (coll_crowded_cores), the same on every rank. */
int coll_tree_near_first(void);
/* Cores shared by more ranks than there are, in a job on one host; else 0
 * (select.c). */
int coll_crowded_cores(void);
/* Whether a blocking gather(v) or scatter(v) goes linearly (every block
 * straight to or from the root) rather than by tree: where ranks crowd the
 * cores, so that no forwarder waits for a core (api_data.c; reported by
 * bolt_coll_algorithm). */
int coll_rooted_use_linear(void);
/* This rank's share of the cache (BOLT_COLL_CACHE per core, shared by
 * ranks crowding a core): what an algorithm may hold whole and still reduce
 * from the cache. Alike on every rank of a job. */
size_t coll_cache_share(void);

typedef int coll_bcast_fn(struct coll_sched *s, void *buf, size_t bytes, int root);
coll_bcast_fn coll_bcast_binomial, coll_bcast_chain, coll_bcast_scatter_allgather,
    coll_bcast_flat;
/* A blocking binomial broadcast without a schedule while each message goes
 * or is taken at once; from the first that cannot, the rest of this rank's
 * part as a schedule under the same tag. BOLT_OK or an error (raised) when
 * done; COLL_NOT_NOW when nothing was done (its message has not arrived):
 * the caller runs the whole schedule. */
#define COLL_NOT_NOW 1
int coll_bcast_binomial_now(struct bolt_comm *c, void *buf, size_t bytes, int root, const char *fn);
/* The same for the flat broadcast (at most COLL_NOW_MAX bytes). */
int coll_bcast_flat_now(struct bolt_comm *c, void *buf, size_t bytes, int root, const char *fn);

/* A blocking binomial reduce of at most COLL_NOW_MAX bytes without a
 * schedule while each message is taken or goes at once (the same tree and
 * order of folds as coll_reduce_binomial); the rest as a schedule from the
 * first that cannot. BOLT_OK or an error (raised); COLL_NOT_NOW for a larger
 * reduce (nothing done). */
#define COLL_NOW_MAX 1024
/* A block that goes straight between a rank's buffer and the transport (a
 * scatter's leaf or a root sending from its input: no stack) may be larger:
 * up to the shared-memory eager limit's default, beyond which a message
 * waits for its receiver anyway (2 ranks, scatter after a barrier at 4 KiB:
 * 0.93 against 1.05 us by a schedule). */
#define COLL_TAKE_MAX 65536
int coll_reduce_binomial_now(struct bolt_comm *c, const void *in, void *out, size_t count, bolt_datatype_t dt,
                             bolt_op_t op, int root, const char *fn);
/* The same for recursive doubling's all-reduce (in == buf in place). */
int coll_allreduce_rd_now(struct bolt_comm *c, const void *in, void *buf, size_t count, bolt_datatype_t dt,
                          bolt_op_t op, const char *fn);
/* The same for the recursive-doubling scan (in == out in place). */
int coll_scan_rd_now(struct bolt_comm *c, const void *in, void *out, size_t count, bolt_datatype_t dt, bolt_op_t op,
                     int exclusive, const char *fn);
/* The same for the binomial scatter (a subtree's blocks at most
 * COLL_NOW_MAX bytes). */
int coll_scatter_binomial_now(struct bolt_comm *c, const void *in, void *out, size_t bytes, int root,
                              const char *fn);
/* The same for the binomial gather (a subtree's blocks at most COLL_NOW_MAX
 * bytes, or one block at root 0). */
int coll_gather_binomial_now(struct bolt_comm *c, const void *in, void *out, size_t bytes, int root,
                             const char *fn);
/* The linear gatherv and scatterv (counts and displs NULL: gather's or
 * scatter's equal blocks in rank order, every block straight to or from the
 * root, for ranks that crowd the cores: no forwarder waits for a core),
 * blocking, without a schedule
 * while blocks of at most COLL_NOW_MAX bytes go or are taken at once, the
 * rest as a schedule; never COLL_NOT_NOW. */
int coll_gatherv_linear_now(struct bolt_comm *c, const void *in, size_t bytes, void *out, const size_t *counts,
                            const size_t *displs, int root, const char *fn);
int coll_scatterv_linear_now(struct bolt_comm *c, const void *in, const size_t *counts, const size_t *displs,
                             void *out, size_t bytes, int root, const char *fn);

typedef int coll_barrier_fn(struct coll_sched *s);
coll_barrier_fn coll_barrier_dissemination, coll_barrier_linear;
/* A blocking dissemination barrier without a schedule while each signal
 * goes and is taken at once; the rest as a schedule (BOLT_OK or an error,
 * raised). */
int coll_barrier_dissemination_now(struct bolt_comm *c, const char *fn);

/* All-gather of blocks: rank i's block is counts[i] bytes at buf + displs[i]
 * (already in place on rank i). */
typedef int coll_allgatherv_fn(struct coll_sched *s, const void *in, void *buf,
                               const size_t *counts, const size_t *displs);
coll_allgatherv_fn coll_allgatherv_ring;
/* Equal blocks of `bytes` bytes, rank i's at buf + i * bytes. */
/* `in`: this rank's block (the caller's send buffer, or its place in buf in
 * place), already copied into buf too; only read, and sent from where the
 * copy in buf would be read by a peer single-copy and written again by the
 * next call (the lines go back and forth between the caches, as all-reduce's
 * did). */
typedef int coll_allgather_fn(struct coll_sched *s, const void *in, void *buf, size_t bytes);
coll_allgather_fn coll_allgather_ring, coll_allgather_rd, coll_allgather_bruck, coll_allgather_direct;
coll_allgatherv_fn coll_allgatherv_direct;
/* The direct all-gather(v) (counts and displs NULL: equal blocks of
 * `bytes`), blocking, without a schedule while this rank's block of at most
 * COLL_NOW_MAX bytes goes to every peer at once and the peers' blocks are
 * taken as they come; the rest as a schedule (never COLL_NOT_NOW). Copies
 * in into its place in buf unless it is there. */
int coll_allgatherv_direct_now(struct bolt_comm *c, const void *in, void *buf, const size_t *counts,
                               const size_t *displs, size_t bytes, const char *fn);

/* Reduce-scatter by direct exchange: rank j gets counts[j] elements at
 * offset displs[j] of the reduction of every rank's buf, reduced in rank
 * order into out (count = sum of counts). */
int coll_reduce_scatter_direct(struct coll_sched *s, const void *buf, void *out,
                               const size_t *counts, const size_t *displs, bolt_datatype_t dt,
                               bolt_op_t op);
/* The same, blocking, without a schedule while chunks of at most
 * COLL_NOW_MAX bytes go and are taken at once, the rest as a schedule;
 * COLL_NOT_NOW (nothing done) for a chunk too large for that. */
int coll_reduce_scatter_direct_now(struct bolt_comm *c, const void *buf, void *out,
                                   const size_t *counts, const size_t *displs, bolt_datatype_t dt,
                                   bolt_op_t op, const char *fn);
/* Binomial reduce of buf (count elements) to root's out (root only). */
int coll_reduce_binomial(struct coll_sched *s, const void *in, void *out, size_t count,
                         bolt_datatype_t dt, bolt_op_t op, int root);
int coll_gather_binomial(struct coll_sched *s, const void *in, void *out, size_t bytes, int root);
int coll_gatherv_linear(struct coll_sched *s, const void *in, size_t bytes, void *out,
                        const size_t *counts, const size_t *displs, int root);
int coll_scatter_binomial(struct coll_sched *s, const void *in, void *out, size_t bytes, int root);
int coll_scatterv_linear(struct coll_sched *s, const void *in, const size_t *counts,
                         const size_t *displs, void *out, size_t bytes, int root);
int coll_alltoallv_pairwise(struct coll_sched *s, const void *in, const size_t *scounts,
                            const size_t *sdispls, void *out, const size_t *rcounts,
                            const size_t *rdispls);
/* Blocking, without a schedule while blocks of at most COLL_NOW_MAX bytes go
 * and are taken at once; the rest as a schedule (never COLL_NOT_NOW). */
int coll_alltoallv_pairwise_now(struct bolt_comm *c, const void *in, const size_t *scounts,
                                const size_t *sdispls, void *out, const size_t *rcounts,
                                const size_t *rdispls, const char *fn);
int coll_scan_rd(struct coll_sched *s, void *buf, size_t count, bolt_datatype_t dt, bolt_op_t op,
                 int exclusive, void *out);
/* The same result along a chain, rank r - 1 to r (scan.c); whether a scan
 * of `bytes` on c goes that way (the same on every rank). */
int coll_scan_linear(struct coll_sched *s, void *buf, size_t count, bolt_datatype_t dt, bolt_op_t op,
                     int exclusive, void *out);
int coll_scan_use_linear(const struct bolt_comm *c, size_t bytes);

/* ---- public entry points (api_*.c) ---- */

/* Runs s to the end (req NULL) or starts it behind *req; NULL s: out of memory. */
int coll_launch(struct coll_sched *s, bolt_request_t *req, const char *fn);
/* Argument checks shared by the entry points; each sets the message. */
int coll_check_root(struct bolt_comm *c, int root, const char *fn);
int coll_check_buf(const void *buf, size_t bytes, const char *fn, const char *which);
/* count elements of dt in bytes, or an error when that overflows. */
int coll_bytes(size_t count, bolt_datatype_t dt, size_t *bytes, const char *fn);
/* Element counts/displacements in bytes, checked against overflow: c and d
 * are the caller's arrays themselves for 1-byte elements (the MPI face's
 * calls), else a copy, inline up to COLL_VB_INLINE ranks (a small
 * collective's time is mostly overhead: no malloc). coll_vb_init first;
 * coll_vb_free is safe on one never filled. */
#define COLL_VB_INLINE 16
struct coll_vb {
    const size_t *c, *d;
    size_t *heap;
    size_t inl[2 * COLL_VB_INLINE];
};
static inline void coll_vb_init(struct coll_vb *v) /* not = {0}: it would clear inl too */
{
    v->c = v->d = v->heap = NULL;
}
int coll_v_bytes(const size_t *counts, const size_t *displs, int n, size_t esize, struct coll_vb *v,
                 const char *fn);
void coll_vb_free(struct coll_vb *v);

/* ---- the job's measured links (linkplan.c) ---- */

/* What a communicator's collectives take from bolt_rt.links (see
 * linkplan.c); none (NULL) without links or on one host. One malloc'd block. */
struct coll_plan {
    uint64_t id;                      /* unique in this process */
    int n, nhost;
    int *order;                       /* ring position -> comm rank */
    int *pos;                         /* comm rank -> ring position */
    int *hosts;                       /* link map host indices in ring order */
    double alpha_all_us, beta_all_ns; /* slowest link between any two hosts (ns per byte) */
    double alpha_ring_us, beta_ring_ns; /* slowest link on the ring */
    double alpha_rd_us, beta_rd_ns;   /* slowest link between recursive doubling's partners */
    int mesh_ok;                      /* every pair linked, none slow */
    int ring_complete;                /* every step of the ring has a link */
    int mem[];
};
struct linkmap;
/* The plan of the communicator of world_ranks[0..n) (*out NULL: none). */
int coll_plan_build(const struct linkmap *L, const int *world_ranks, int n, struct coll_plan **out);
/* "ring h1 h2 h4 h3; mesh algorithms off (h2-h3 slow)": the plan in words
 * (host names from L), truncated to cap. */
void coll_plan_describe(const struct coll_plan *p, const struct linkmap *L, char *buf, size_t cap);
/* c's plan, built at first use and kept with c (comm rank 0 logs it at
 * BOLT_LOG_LEVEL 2). */
int coll_plan_get(struct bolt_comm *c, const struct coll_plan **out);
/* The ring a schedule goes around: comm rank at position p is
 * coll_ring_at(g, p); this rank sits at g->me. An error (out of memory) is
 * also made the schedule's; the ring is then rank order. */
struct coll_ring {
    const int *order, *pos;
    int n, me;
};
int coll_ring_get(struct coll_sched *s, struct coll_ring *g);
static inline int coll_ring_at(const struct coll_ring *g, int p)
{
    p = ((p % g->n) + g->n) % g->n;
    return g->order ? g->order[p] : p;
}
static inline int coll_ring_pos(const struct coll_ring *g, int r)
{
    return g->pos ? g->pos[r] : r;
}

/* ---- selection (select.c) ---- */

enum coll_op_kind { COLL_ALLREDUCE, COLL_BCAST, COLL_ALLGATHER, COLL_BARRIER, COLL_NKINDS };
/* The algorithm for kind on `bytes` bytes per rank: the BOLT_<OP>_ALGO
 * setting, else the cheapest by the cost model; commutative = 0 excludes
 * algorithms that reorder operands. Returns its index in the kind's table
 * (see select.c), or a negative error code for a bad setting. */
int coll_select(enum coll_op_kind kind, size_t bytes, struct bolt_comm *comm, int commutative);
/* The same for a communicator of `size` ranks whose plan is `plan` (NULL:
 * none), settings aside: the cost model's pick (bolt-info shows it). */
int coll_select_model(enum coll_op_kind kind, size_t bytes, int size, int commutative, const struct coll_plan *plan);
const char *coll_algo_name(enum coll_op_kind kind, int algo);
/* The i-th algorithm a BOLT_<OP>_ALGO setting names besides "auto", or NULL
 * past the last one (and for any other param). */
const char *coll_algo_choice(enum bolt_param_id param, int i);
coll_allreduce_fn *coll_allreduce_algo(int algo);
coll_bcast_fn *coll_bcast_algo(int algo);
coll_allgather_fn *coll_allgather_algo(int algo);
coll_barrier_fn *coll_barrier_algo(int algo);
size_t coll_segment_bytes(void);

/* Splits count elements into n near-equal parts: part i starts at
 * coll_part_start(count, n, i). */
static inline size_t coll_part_start(size_t count, int n, int i)
{
    size_t q = count / (size_t)n, r = count % (size_t)n;
    return q * (size_t)i + ((size_t)i < r ? (size_t)i : r);
}

static inline int coll_pof2_floor(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

#endif
