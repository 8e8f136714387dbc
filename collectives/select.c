/*
 * select.c — choosing an algorithm: the BOLT_<OP>_ALGO setting, else the
 * cheapest by a cost model
 *
 *     time = alpha * steps + msg * extra messages per step
 *            + beta * bytes moved per rank + gamma * bytes reduced per rank
 *
 * with alpha, msg, beta, gamma from BOLT_COLL_*; a broadcast tree's rank
 * forwarding a whole buffer pays beyond its share of the cache at
 * BOLT_COLL_BETA_MEM (model_get). When the ranks of a
 * single-host job outnumber its cores, transfers no longer run side by side:
 * an algorithm then costs its steps plus the bytes all ranks move (and
 * reduce), shared among the cores (crowded_cost); the barrier counts its
 * messages so too (barrier_cost). Only the operation, the
 * byte count, the communicator size, the settings, the job's ranks and
 * cores per host and whether it spans hosts, what the first transport
 * says of itself by build and settings (local_reads), and the measured links
 * between the communicator's hosts (BOLT_COLL_LINKS, linkplan.c) enter,
 * which are the same on every rank, so every rank picks the same algorithm.
 */
#include <string.h>

#include "collectives/coll.h"
#include "runtime/config.h"
#include "runtime/errors.h"
#include "runtime/runtime.h"

static const char *const allreduce_names[] = {"rd", "ring", "rabenseifner", "oneshot", "mesh"};
static coll_allreduce_fn *const allreduce_fns[] = {coll_allreduce_rd, coll_allreduce_ring,
                                                   coll_allreduce_rabenseifner,
                                                   coll_allreduce_oneshot, coll_allreduce_mesh};
enum { AR_RD, AR_RING, AR_RAB, AR_ONESHOT, AR_MESH, AR_N };

static const char *const bcast_names[] = {"binomial", "chain", "scatter_allgather", "flat"};
static coll_bcast_fn *const bcast_fns[] = {coll_bcast_binomial, coll_bcast_chain,
                                           coll_bcast_scatter_allgather, coll_bcast_flat};
enum { BC_BINOMIAL, BC_CHAIN, BC_SAG, BC_FLAT, BC_N };

static const char *const allgather_names[] = {"ring", "rd", "bruck", "direct"};
static coll_allgather_fn *const allgather_fns[] = {coll_allgather_ring, coll_allgather_rd,
                                                   coll_allgather_bruck, coll_allgather_direct};
enum { AG_RING, AG_RD, AG_BRUCK, AG_DIRECT, AG_N };

static const char *const barrier_names[] = {"dissemination", "linear"};
static coll_barrier_fn *const barrier_fns[] = {coll_barrier_dissemination, coll_barrier_linear};
enum { BA_DISSEMINATION, BA_LINEAR, BA_N };

static const struct {
    const char *op;
    const char *const *names;
    int n;
    enum bolt_param_id param;
} kinds[COLL_NKINDS] = {
    [COLL_ALLREDUCE] = {"allreduce", allreduce_names, AR_N, BOLT_P_ALLREDUCE_ALGO},
    [COLL_BCAST] = {"bcast", bcast_names, BC_N, BOLT_P_BCAST_ALGO},
    [COLL_ALLGATHER] = {"allgather", allgather_names, AG_N, BOLT_P_ALLGATHER_ALGO},
    [COLL_BARRIER] = {"barrier", barrier_names, BA_N, BOLT_P_BARRIER_ALGO},
};

size_t coll_segment_bytes(void)
{
    long long seg = bolt_param_int(BOLT_P_COLL_SEGMENT);
    return seg >= 1024 ? (size_t)seg : 1024;
}

struct model {
    double a, o, b, g; /* seconds per step, per extra message, per byte, per byte reduced */
    double fwd;        /* per buffer a tree rank forwards after receiving it whole */
};

size_t coll_cache_share(void)
{
    size_t share = (size_t)bolt_param_int(BOLT_P_COLL_CACHE);
    int cores = coll_crowded_cores(); /* crowded: one host, local_size == size */
    return cores ? share * (size_t)cores / (size_t)bolt_rt.local_size : share;
}

/* The model for S bytes. A tree rank forwards a buffer it received whole:
 * the bytes beyond its share of the cache (BOLT_COLL_CACHE per core, shared
 * by ranks crowding a core) it reads again from memory, at
 * BOLT_COLL_BETA_MEM. A pipeline forwards each segment just in. A fitted
 * term: the root's own repeated sends are not charged (see params.def). */
static struct model model_get(double S, const double *link)
{
    struct model m = {bolt_param_double(BOLT_P_COLL_ALPHA_US) * 1e-6,
                      bolt_param_double(BOLT_P_COLL_MSG_US) * 1e-6,
                      bolt_param_double(BOLT_P_COLL_BETA_NS_PER_KB) * 1e-9 / 1024,
                      bolt_param_double(BOLT_P_COLL_GAMMA_NS_PER_KB) * 1e-9 / 1024, 0};
    if (link) { /* a measured link between hosts: {alpha us, beta ns per byte} */
        /* A further message costs its share of a step as on the fitted
         * link: most of a step is the ends' work per message (over TCP the
         * system calls), which a mesh's links do not share. With the
         * settings' o against a measured alpha of 9-15 us, one-shot and flat
         * were chosen on 4 hosts x 2 ranks over TCP, 1.5x and 4.4-5.3x
         * slower at 4 B-1 KiB than recursive doubling and the binomial tree
         * (bench/calib-compare). */
        double fitted_a = m.a;
        m.a = link[0] * 1e-6;
        m.b = link[1] * 1e-9;
        if (fitted_a > 0)
            m.o *= m.a / fitted_a;
    }
    double share = (double)coll_cache_share(), cold = 0;
    if (share > 0 && S > share)
        cold = S - share;
    m.fwd = S * m.b + cold * (bolt_param_double(BOLT_P_COLL_BETA_MEM_NS_PER_KB) * 1e-9 / 1024 - m.b);
    return m;
}

/* The last choice made per operation: a loop of collectives of one size
 * asks the same question every time, and the model's answer only depends
 * on the question and on settings that do not change while a job runs. */
static struct {
    int valid;
    size_t bytes;
    int size, commutative, algo;
    uint64_t plan; /* its id, 0 for none */
} last[COLL_NKINDS];

/* ceil for the non-negative values here (no libm) */
static double ceil_pos(double x)
{
    double t = (double)(unsigned long long)x;
    return t < x ? t + 1 : t;
}

static double log2i(int n)
{
    double l = 0;
    while ((1 << (int)l) < n)
        l++;
    return l;
}

static double allreduce_cost(int algo, double S, int n, struct model m)
{
    int p = coll_pof2_floor(n);
    double lp = log2i(p), fold = n == p ? 0 : 2 * (m.a + S * m.b) + S * m.g;
    double part = (double)(n - 1) / n, segs = ceil_pos(S / n / (double)coll_segment_bytes());
    switch (algo) {
    case AR_RD:
        return lp * (m.a + S * (m.b + m.g)) + fold;
    case AR_RING:
        return 2 * (n - 1) * (segs < 1 ? 1 : segs) * m.a + part * S * (2 * m.b + m.g);
    case AR_RAB: /* half the ranks also copy what they reduced: about half a reduction */
        return 2 * lp * m.a + (double)(p - 1) / p * S * (2 * m.b + 1.5 * m.g) + fold;
    case AR_ONESHOT:
        return m.a + (n - 2) * m.o + (n - 1) * S * (m.b + m.g);
    default: /* AR_MESH */
        return 2 * (m.a + (n - 2) * m.o) + part * S * (2 * m.b + m.g);
    }
}

static double bcast_cost(int algo, double S, int n, struct model m)
{
    double seg = (double)coll_segment_bytes(), L = log2i(n);
    switch (algo) {
    case BC_BINOMIAL: {
        /* One port: the root sends to vranks 2^(L-1), ..., 2, 1 in turn,
         * each child on to its own children; a step where some rank
         * forwards costs a forward: L - 2 steps, one more when
         * n >= 2^(L-1) + 2 (checked against the tree for n = 2..64). */
        int l = (int)L, fwd = l < 2 ? 0 : l - 2 + (n >= (1 << (l - 1)) + 2);
        return L * m.a + (L - fwd) * S * m.b + fwd * m.fwd;
    }
    case BC_CHAIN: {
        double segs = ceil_pos(S / seg) < 1 ? 1 : ceil_pos(S / seg), s = S < seg ? S : seg;
        return (segs + n - 2) * (m.a + s * m.b);
    }
    case BC_FLAT: /* each of the root's messages costs o: binomial's small
                     ones go without a schedule (coll_bcast_binomial_now) */
        return m.a + (n - 1) * m.o + S * m.b;
    default: /* BC_SAG */
        return (L + n - 1) * m.a + 2.0 * (n - 1) / n * S * m.b;
    }
}

static double allgather_cost(int algo, double S, int n, struct model m)
{
    int p = coll_pof2_floor(n);
    switch (algo) {
    case AG_RING:
        return (n - 1) * (m.a + S * m.b);
    case AG_RD:
        return log2i(p) * m.a + (n - 1) * S * m.b + (n == p ? 0 : 2 * m.a + (n + 1) * S * m.b);
    case AG_DIRECT: /* one step of n - 1 messages */
        return m.a + (n - 2) * m.o + (n - 1) * S * m.b;
    default: /* AG_BRUCK: plus one local rotation of the result */
        return log2i(n) * m.a + (n - 1) * S * m.b + n * S * m.b / 4;
    }
}

int coll_crowded_cores(void)
{
    if (bolt_rt.local_size != bolt_rt.size || bolt_rt.host_cores <= 0 ||
        bolt_rt.size <= bolt_rt.host_cores)
        return 0;
    return bolt_rt.host_cores;
}

int coll_rooted_use_linear(void)
{
    return coll_crowded_cores() > 0;
}

/* How many of x transfers (or ranks' copies) run side by side on the cores
 * crowded ranks share. */
static double side_by_side(int x, int cores)
{
    return x < cores ? x : cores;
}

/* A flat tree's root sends n - 1 copies of the buffer at once. Between
 * hosts (a mesh of links, each with its own copy engine) they move side by
 * side; on one host only when receivers can read the root's memory
 * (single-copy: the shm transport then also splits large copies, the root
 * writing half): over TCP on 4 ranks / 2 cores the root's kernel copies
 * made 64 KiB-4 MiB broadcasts 1.1-1.2x slower flat than by binomial tree.
 * Settings must agree on every rank (BOLT_TRANSPORTS, BOLT_SHM_CMA). */
static int flat_ok(void)
{
    if (bolt_rt.local_size != bolt_rt.size || bolt_rt.ntls == 0)
        return 1;
    return bolt_rt.tls[0]->local_reads && bolt_rt.tls[0]->local_reads(bolt_rt.tlctx[0]);
}

/* 1 when the first transport hands messages over through memory it shares
 * with every receiver on the host (it can give one buffer to many:
 * send_many_now), with no system call per message. By build and
 * BOLT_TRANSPORTS alone, so alike on every rank. */
static int shared_msgs(void)
{
    return bolt_rt.ntls > 0 && bolt_rt.tls[0]->send_many_now != NULL;
}

/* A broadcast tree on crowded cores where receivers copy (flat_ok): a
 * level's transfers share the cores, but cannot start before the level
 * before it is in, so the last levels leave cores idle (binomial, 4 ranks
 * on 2 cores: two copies at once, then one). The flat tree's root hands
 * out every message itself: with the ranks it serves on its core, each
 * counted as a step (4 ranks on 2 cores, MPI_Bcast in a loop: binomial 0.12
 * us at 4 B and 14.0 at 64 KiB, flat 0.25 and 12.1; at 16 KiB even). Where
 * one copy serves all receivers (shared_msgs: send_many_now) it is one
 * step: each receiver waits once, for the root, where a tree's forwarders
 * each wait for a core first. Timed after a barrier (as the common suites
 * time a collective), 4 ranks: flat 0.56-0.62 us at 4 B-1 KiB, binomial
 * 1.4-2.1, Open MPI 0.55-8.3; 8 ranks 0.54-0.66 against 13-14 and 32-44.
 * In a tight loop small ones pay for it (4 ranks, 4-64 B: 0.36-0.37 us
 * against 0.21-0.23; Open MPI 0.40-0.88). */
static double crowded_tree_cost(int flat, double S, int n, struct model m, int cores)
{
    if (flat)
        return (shared_msgs() ? m.a : (n - 1) * m.a) + S * m.b * (n - 1) / side_by_side(n - 1, cores);
    /* Binomial: vrank v receives at level popcount(v) (each hop sets a bit),
     * and a level's transfers run together once the level before is in. */
    double t = 0;
    for (int level = 1; (1 << (level - 1)) < n; level++) {
        int xfers = 0;
        for (int v = 1; v < n; v++)
            xfers += __builtin_popcount((unsigned)v) == level;
        if (xfers) /* level 1: the root's own messages; then forwards */
            t += m.a + (level == 1 ? S * m.b : m.fwd) * xfers / side_by_side(xfers, cores);
    }
    return t;
}

/* The crowded model: steps, plus every rank's bytes moved and reduced over
 * the cores. 4 ranks on 2 cores over TCP: broadcast by binomial tree took
 * 52 us at 256 KiB, by scatter + all-gather 148 us (more bytes in all, in
 * more steps), by chain 68 us (more steps); from 1.5 MiB the chain wins, by
 * the forwarding cost of model_get (4 MiB: 2.3-2.5 against 1.7-1.8 ms). */
static double crowded_cost(enum coll_op_kind kind, int algo, double S, int n, struct model m,
                           int cores)
{
    int p = coll_pof2_floor(n);
    double L = log2i(n), lp = log2i(p), fold = n == p ? 0 : 2 * m.a, fbytes = n == p ? 0 : 2 * (n - p) * S;
    double steps, moved, reduced = 0;
    if (kind == COLL_ALLREDUCE) {
        /* further: a rank's messages beyond one per step, at o each. Where
         * messages go through shared memory (shared_msgs), each costs no
         * system call, and the crowded cores share posting and matching all
         * ranks' msgs instead, like the bytes, at o / 2 each (o counts a
         * further message at both of its ends). Fitted on 2 cores, shm, 4
         * B-1 KiB: 4 ranks, one-shot 2.6-4.0 us against recursive doubling
         * 2.7-5.0 (one step: fewer waits for a core-mate); 8 ranks, 16.9
         * against 12.5 (56 messages against 24). Over TCP, 4 ranks, one-shot
         * took 27-30 us against 21-25. */
        double msgs, further = 0, fold_msgs = 2.0 * (n - p);
        switch (algo) {
        case AR_RD:
            steps = lp * m.a + fold, msgs = p * lp + fold_msgs;
            moved = p * lp * S + fbytes, reduced = p * lp * S + (n - p) * S;
            break;
        case AR_RING: {
            double segs = ceil_pos(S / n / (double)coll_segment_bytes());
            double rounds = 2 * (n - 1) * (segs < 1 ? 1 : segs);
            steps = rounds * m.a, msgs = rounds * n;
            moved = 2 * (n - 1) * S, reduced = (n - 1) * S;
            break;
        }
        case AR_RAB:
            steps = 2 * lp * m.a + fold, msgs = 2 * lp * p + fold_msgs;
            moved = 2 * (p - 1) * S + fbytes, reduced = (p - 1) * S * 1.5 + (n - p) * S;
            break;
        case AR_ONESHOT:
            steps = m.a, msgs = (double)n * (n - 1), further = n - 2;
            moved = (double)n * (n - 1) * S, reduced = (double)n * (n - 1) * S;
            break;
        default: /* AR_MESH */
            steps = 2 * m.a, msgs = 2.0 * n * (n - 1), further = 2 * (n - 2);
            moved = 2 * (n - 1) * S, reduced = (n - 1) * S;
        }
        steps += shared_msgs() ? msgs * m.o / 2 / side_by_side(n, cores) : further * m.o;
    } else if (kind == COLL_BCAST) {
        double seg = (double)coll_segment_bytes(), segs = ceil_pos(S / seg) < 1 ? 1 : ceil_pos(S / seg);
        if (flat_ok() && (algo == BC_BINOMIAL || algo == BC_FLAT))
            return crowded_tree_cost(algo == BC_FLAT, S, n, m, cores);
        moved = (n - 1) * S;
        steps = algo == BC_BINOMIAL ? L * m.a
                : algo == BC_CHAIN  ? (segs + n - 2) * m.a
                                    : (L + n - 1) * m.a;
        if (algo == BC_SAG)
            moved += S * L / 2; /* the scatter */
        if (algo == BC_CHAIN) {
            /* Nor does a chain share its bytes better than its pipeline
             * runs: a segment crosses every link in turn. */
            double path = (segs + n - 2) * (S < seg ? S : seg), shared = moved / side_by_side(n, cores);
            return steps + (path > shared ? path : shared) * m.b;
        }
        if (algo == BC_BINOMIAL) /* the root sends L messages, the others forward */
            return steps + (L * S * m.b + (n - 1 - L) * m.fwd) / side_by_side(n, cores);
    } else {
        moved = (double)n * (n - 1) * S;
        steps = algo == AG_RING ? (n - 1) * m.a : algo == AG_RD ? lp * m.a + (n == p ? 0 : 2 * m.a) : L * m.a;
        /* One step of n - 1 messages in and out. Where one copy serves all
         * readers (shared_msgs: send_many_now) the messages are not what
         * costs but the waits: each rank waits once, for peers that sent as
         * they started, where recursive doubling waits log2(n) times for a
         * partner to get a core. 2 cores, shm, against recursive doubling:
         * 4 ranks 0.5-0.8x at 4 B-1 KiB, 0.3-0.8x at 16 KiB-1 MiB; 6 and 8
         * ranks 0.55-0.7x at 4 B-1 KiB, 0.3x at 16 KiB. Over TCP its further
         * messages cost as elsewhere (4 ranks: 1.1-1.2x rd, 3: 0.8-1.0x ring). */
        if (algo == AG_DIRECT)
            steps = m.a + (shared_msgs() ? 0 : (n - 2) * m.o);
        if (algo == AG_BRUCK)
            moved += (double)n * n * S / 4; /* the local rotation */
        else if (algo == AG_RD && n != p)
            moved += (double)(n + 1) * S;
    }
    return steps + (moved * m.b + reduced * m.g) / side_by_side(n, cores);
}

/* Dissemination: ceil(log2 n) steps of one message per rank. Linear: two
 * steps, rank 0 taking n - 1 messages in, then sending n - 1 out. Crowded
 * where messages go through shared memory (shared_msgs), every rank's
 * messages are work the cores share (as for all-reduce): on 2 cores over
 * shm, barrier by linear against dissemination (bench/mpi_coll, medians of
 * alternating runs on a loaded machine): 8 ranks 28 -> 20 us (quick) and
 * 68 -> 38-44 (200 calls); 3 ranks 4.4 -> 4.2; 4 ranks even within the
 * noise (8-10 us either way; Open MPI, linear there, 5.5-7). Else the
 * root's further messages cost o each: over TCP, or with a core per
 * rank, dissemination. */
static double barrier_cost(int algo, int n, struct model m, int cores)
{
    double L = log2i(n), msgs = algo == BA_LINEAR ? 2.0 * (n - 1) : n * L;
    double steps = algo == BA_LINEAR ? 2 * m.a : L * m.a;
    if (cores && shared_msgs())
        return steps + msgs * m.o / 2 / side_by_side(n, cores);
    return steps + (algo == BA_LINEAR ? 2.0 * (n - 2) * m.o : 0);
}

/* Algorithms that talk to every peer at once: only where every link
 * between the communicator's hosts is good. */
static int mesh_algo(enum coll_op_kind kind, int i)
{
    return (kind == COLL_ALLREDUCE && (i == AR_ONESHOT || i == AR_MESH)) || (kind == COLL_BCAST && i == BC_FLAT) ||
           (kind == COLL_ALLGATHER && i == AG_DIRECT);
}

/* Algorithms whose messages go between recursive doubling's partners. */
static int rd_algo(enum coll_op_kind kind, int i)
{
    return (kind == COLL_ALLREDUCE && (i == AR_RD || i == AR_RAB)) || (kind == COLL_ALLGATHER && i == AG_RD);
}

/* Algorithms whose messages go around the ring (linkplan.c's order). */
static int ring_algo(enum coll_op_kind kind, int i)
{
    return (kind == COLL_ALLREDUCE && i == AR_RING) || (kind == COLL_BCAST && i == BC_CHAIN) ||
           (kind == COLL_ALLGATHER && i == AG_RING);
}

/* With a plan (the communicator spans hosts whose links were measured):
 * each algorithm costed with the slowest link it uses, the ring's on the
 * ring, recursive doubling's between its partners, any pair's otherwise;
 * the mesh ones left out unless every link is good. Without one: the
 * settings' alpha and beta, as before. */
static int select_auto(enum coll_op_kind kind, size_t bytes, int n, int commutative, const struct coll_plan *plan)
{
    int cores = plan ? 0 : coll_crowded_cores();
    const double all[2] = {plan ? plan->alpha_all_us : 0, plan ? plan->beta_all_ns : 0},
                 ring[2] = {plan ? plan->alpha_ring_us : 0, plan ? plan->beta_ring_ns : 0},
                 rd[2] = {plan ? plan->alpha_rd_us : 0, plan ? plan->beta_rd_ns : 0};
    struct model m0 = model_get((double)bytes, plan ? all : NULL), mr = model_get((double)bytes, plan ? ring : NULL),
                 mrd = model_get((double)bytes, plan ? rd : NULL);
    double S = (double)bytes, best = 1e300;
    int pick = 0;
    /* Ties go to the first in this order: fewer messages, then less state. */
    static const int ar_order[] = {AR_RD, AR_ONESHOT, AR_MESH, AR_RAB, AR_RING};
    if (n == 1)
        return 0;
    /* Two ranks: every all-gather is the one exchange; the direct one's
     * small blocking calls go without a schedule. */
    if (kind == COLL_ALLGATHER && n == 2 && (!plan || plan->mesh_ok))
        return AG_DIRECT;
    for (int k = 0; k < kinds[kind].n; k++) {
        int i = kind == COLL_ALLREDUCE ? ar_order[k] : k;
        double t;
        if (kind == COLL_ALLREDUCE && i == AR_RING && !commutative)
            continue;
        /* Up to 3 ranks the binomial tree is flat, with a faster path for
         * small messages. */
        if (kind == COLL_BCAST && i == BC_FLAT && (n <= 3 || !flat_ok()))
            continue;
        if (plan && !plan->mesh_ok && mesh_algo(kind, i))
            continue;
        struct model m = ring_algo(kind, i) ? mr : rd_algo(kind, i) ? mrd : m0;
        if (kind == COLL_BARRIER) {
            t = barrier_cost(i, n, m, cores);
        } else if (cores) {
            t = crowded_cost(kind, i, S, n, m, cores);
        } else if (kind == COLL_ALLREDUCE) {
            t = allreduce_cost(i, S, n, m);
        } else if (kind == COLL_BCAST) {
            t = bcast_cost(i, S, n, m);
        } else {
            t = allgather_cost(i, S, n, m);
        }
        if (t < best) {
            best = t;
            pick = i;
        }
    }
    return pick;
}

int coll_select_model(enum coll_op_kind kind, size_t bytes, int size, int commutative, const struct coll_plan *plan)
{
    return select_auto(kind, bytes, size, commutative, plan);
}

int coll_select(enum coll_op_kind kind, size_t bytes, struct bolt_comm *comm, int commutative)
{
    const struct coll_plan *plan;
    int size = comm->size, rc = coll_plan_get(comm, &plan);
    if (rc != BOLT_OK)
        return rc;
    uint64_t id = plan ? plan->id : 0;
    if (last[kind].valid && last[kind].bytes == bytes && last[kind].size == size &&
        last[kind].commutative == commutative && last[kind].plan == id)
        return last[kind].algo;
    const char *want = bolt_param_string(kinds[kind].param);
    if (!want || !*want || strcmp(want, "auto") == 0) {
        int algo = select_auto(kind, bytes, size, commutative, plan);
        last[kind].valid = 1;
        last[kind].bytes = bytes;
        last[kind].size = size;
        last[kind].commutative = commutative;
        last[kind].plan = id;
        last[kind].algo = algo;
        return algo;
    }
    for (int i = 0; i < kinds[kind].n; i++) {
        if (strcmp(want, kinds[kind].names[i]) != 0)
            continue;
        /* The ring combines out of rank order: a non-commutative op takes
         * recursive doubling instead (same choice on every rank). */
        if (kind == COLL_ALLREDUCE && i == AR_RING && !commutative)
            return AR_RD;
        return i;
    }
    char list[200] = "auto";
    for (int i = 0; i < kinds[kind].n; i++) {
        strcat(list, ", ");
        strcat(list, kinds[kind].names[i]);
    }
    return bolt_err_set(BOLT_ERR_CONFIG, "%s=%s is not an algorithm of %s: use one of %s",
                        bolt_param_info(kinds[kind].param)->env, want, kinds[kind].op, list);
}

const char *coll_algo_name(enum coll_op_kind kind, int algo)
{
    return kinds[kind].names[algo];
}

coll_allreduce_fn *coll_allreduce_algo(int algo)
{
    return allreduce_fns[algo];
}

coll_bcast_fn *coll_bcast_algo(int algo)
{
    return bcast_fns[algo];
}

coll_allgather_fn *coll_allgather_algo(int algo)
{
    return allgather_fns[algo];
}

coll_barrier_fn *coll_barrier_algo(int algo)
{
    return barrier_fns[algo];
}

const char *coll_algo_choice(enum bolt_param_id param, int i)
{
    for (int k = 0; k < COLL_NKINDS; k++)
        if (kinds[k].param == param)
            return i >= 0 && i < kinds[k].n ? kinds[k].names[i] : NULL;
    return NULL;
}

const char *bolt_coll_algorithm(const char *op, size_t bytes, bolt_comm_t comm)
{
    static const char *const fixed[][2] = {
        {"reduce", "binomial"},       {"gather", "binomial"},
        {"gatherv", "linear"},        {"scatter", "binomial"},
        {"scatterv", "linear"},
        {"alltoall", "pairwise"},     {"alltoallv", "pairwise"},
        {"reduce_scatter", "direct"}, {"reduce_scatter_block", "direct"},
    };
    if (!op || bolt_comm_check(comm, "bolt_coll_algorithm"))
        return NULL;
    if (strcmp(op, "scan") == 0 || strcmp(op, "exscan") == 0)
        return coll_scan_use_linear(comm, bytes) ? "linear" : "rd";
    if ((strcmp(op, "gather") == 0 || strcmp(op, "scatter") == 0) && coll_rooted_use_linear())
        return "linear";
    if (strcmp(op, "allgatherv") == 0) { /* blocks of `bytes`: as api_data.c's allgatherv */
        int algo = coll_select(COLL_ALLGATHER, bytes, comm, 1);
        return algo < 0 ? NULL : algo == AG_DIRECT ? "direct" : "ring";
    }
    for (int k = 0; k < COLL_NKINDS; k++) {
        if (strcmp(op, kinds[k].op) != 0)
            continue;
        int algo = coll_select((enum coll_op_kind)k, bytes, comm, 1);
        return algo < 0 ? NULL : kinds[k].names[algo];
    }
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (strcmp(op, fixed[i][0]) == 0)
            return fixed[i][1];
    return NULL;
}

