/*
 * linkplan.c — what a communicator's collectives take from the job's
 * measured links (bolt_rt.links, BOLT_COLL_LINKS from boltrun --calibration):
 *
 * - the ring order: the communicator's hosts in the cycle whose slowest link
 *   is the fastest (then the least in total, then the first in host order),
 *   each host's ranks in rank order; ring all-gather, ring all-reduce and the
 *   chain broadcast go around it, so a slow or missing link is left out when
 *   a cycle without it exists;
 * - the slowest link between any two of its hosts, the slowest on the
 *   ring and the slowest between recursive doubling's partners (its
 *   all-reduce and all-gather, Rabenseifner's), which the cost model uses
 *   for the algorithms that use them (a missing link takes no part; with
 *   none at all, the settings' alpha and beta; every good link counts as
 *   the slowest good one, so only a link flagged slow sets algorithms
 *   apart);
 * - whether the mesh is good: every pair of its hosts has a link, none
 *   flagged slow (the one-shot and mesh algorithms talk to every peer).
 *
 * Built from the links and the communicator's members alone, so the same on
 * every rank; kept with the communicator (freed with it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "runtime/errors.h"
#include "runtime/log.h"
#include "runtime/runtime.h"

/* Brute force up to this many hosts ((k-1)! cycles: 5040 at 8); beyond,
 * nearest neighbour from the first host. */
#define PLAN_EXACT_HOSTS 8
#define NO_LINK 1e12 /* us: a pair without a link */

static uint64_t plan_ids;

struct hosts {
    const struct linkmap *L;
    int k;
    int *h;    /* the communicator's hosts (link map indices), first seen first */
    double seg; /* bytes a ring step moves at most (its segment) */
};

/* A ring step's time over the link between hosts a and b, in us. */
static double step_us(const struct hosts *H, int a, int b)
{
    size_t i = (size_t)a * (size_t)H->L->nhost + (size_t)b;
    if (H->L->state[i] == LINK_NONE)
        return NO_LINK;
    return H->L->alpha_us[i] + H->L->beta_ns[i] * H->seg * 1e-3;
}

/* The cycle through cyc[0..k): its slowest step and their sum. */
static void cycle_cost(const struct hosts *H, const int *cyc, double *worst, double *sum)
{
    *worst = *sum = 0;
    for (int i = 0; i < H->k; i++) {
        double t = step_us(H, H->h[cyc[i]], H->h[cyc[(i + 1) % H->k]]);
        *worst = t > *worst ? t : *worst;
        *sum += t;
    }
}

/* Next permutation of p[1..k) in lexicographic order; 0 after the last. */
static int next_perm(int *p, int k)
{
    int i = k - 2;
    while (i >= 1 && p[i] >= p[i + 1])
        i--;
    if (i < 1)
        return 0;
    int j = k - 1;
    while (p[j] <= p[i])
        j--;
    int t = p[i];
    p[i] = p[j];
    p[j] = t;
    for (int a = i + 1, b = k - 1; a < b; a++, b--) {
        t = p[a];
        p[a] = p[b];
        p[b] = t;
    }
    return 1;
}

/* best[0..k): positions into H->h in ring order, starting at 0. */
static void best_cycle(const struct hosts *H, int *best, int *tmp)
{
    int k = H->k;
    for (int i = 0; i < k; i++)
        best[i] = tmp[i] = i;
    if (k <= 3)
        return; /* every cycle of 3 is the same (or its reverse) */
    if (k <= PLAN_EXACT_HOSTS) {
        double bw, bs, w, s;
        cycle_cost(H, best, &bw, &bs);
        while (next_perm(tmp, k)) {
            cycle_cost(H, tmp, &w, &s);
            /* Strictly better only: ties keep the first in order. */
            if (w < bw - 1e-9 || (w <= bw + 1e-9 && s < bs - 1e-9)) {
                bw = w;
                bs = s;
                memcpy(best, tmp, (size_t)k * sizeof *best);
            }
        }
        return;
    }
    for (int i = 1; i < k; i++) { /* nearest neighbour, first in order on ties */
        int pick = i;
        for (int j = i + 1; j < k; j++)
            if (step_us(H, H->h[best[i - 1]], H->h[best[j]]) < step_us(H, H->h[best[i - 1]], H->h[best[pick]]))
                pick = j;
        int t = best[i];
        best[i] = best[pick];
        best[pick] = t;
    }
}

/* Takes the link between hosts a and b into the slowest alpha and beta so
 * far; 0 when there is no link (it takes no part). A good link (not flagged
 * slow) counts as the slowest good one, good[]: alike cables measure apart
 * by more than their difference (here 0.29-0.87 ns/B and 8.7-14.9 us over
 * six identical veth pairs), and a ring's extra steps bought with that noise
 * made 256 KiB all-gathers 2x slower than recursive doubling. */
static int slowest(const struct linkmap *L, const double *good, int a, int b, double *al, double *be)
{
    size_t i = (size_t)a * (size_t)L->nhost + (size_t)b;
    if (L->state[i] == LINK_NONE)
        return 0;
    double la = L->state[i] == LINK_OK ? good[0] : L->alpha_us[i], lb = L->state[i] == LINK_OK ? good[1] : L->beta_ns[i];
    *al = la > *al ? la : *al;
    *be = lb > *be ? lb : *be;
    return 1;
}

/* The link map's host of communicator rank r (host 0 for a rank the map
 * does not know). */
static int host_of_rank(const struct linkmap *L, const int *world_ranks, int r)
{
    int w = world_ranks[r];
    return w >= 0 && w < L->nrank ? L->host_of[w] : 0;
}

/* Takes the link under comm ranks a and b into the plan's recursive
 * doubling link; a pair with no link between its hosts goes some other way,
 * no faster than the slowest of all. Returns 1 when the pair leaves a host. */
static int rd_pair(struct coll_plan *p, const struct linkmap *L, const double *good, const int *world_ranks, int a,
                   int b)
{
    int ha = host_of_rank(L, world_ranks, a), hb = host_of_rank(L, world_ranks, b);
    if (ha == hb)
        return 0;
    if (!slowest(L, good, ha, hb, &p->alpha_rd_us, &p->beta_rd_ns)) {
        p->alpha_rd_us = p->alpha_rd_us > p->alpha_all_us ? p->alpha_rd_us : p->alpha_all_us;
        p->beta_rd_ns = p->beta_rd_ns > p->beta_all_ns ? p->beta_rd_ns : p->beta_all_ns;
    }
    return 1;
}

/* The slowest link recursive doubling's exchanges cross (allreduce_rd.c,
 * allgather_rd.c, allreduce_rabenseifner.c: the first 2 rem ranks fold in
 * pairs, then newrank v talks to v ^ mask, rank 2 v + 1 below rem, else
 * v + rem). Two ranks a host in rank order never pair across h2-h3, the
 * cable the rank-order ring crosses: a slow link there need not slow
 * them. Returns 0 when every pair is within a host. */
static int rd_slowest(struct coll_plan *p, const struct linkmap *L, const double *good, const int *world_ranks, int n)
{
    int pof2 = coll_pof2_floor(n), rem = n - pof2, any = 0;
    for (int v = 0; v < rem; v++)
        any |= rd_pair(p, L, good, world_ranks, 2 * v, 2 * v + 1);
    for (int v = 0; v < pof2; v++)
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int x = v ^ mask;
            if (x > v)
                any |= rd_pair(p, L, good, world_ranks, v < rem ? 2 * v + 1 : v + rem, x < rem ? 2 * x + 1 : x + rem);
        }
    return any;
}

int coll_plan_build(const struct linkmap *L, const int *world_ranks, int n, struct coll_plan **out)
{
    *out = NULL;
    if (L == NULL || n < 2)
        return BOLT_OK;
    int *h = malloc((size_t)n * sizeof *h), *seen = calloc((size_t)L->nhost, sizeof *seen), k = 0;
    if (!h || !seen) {
        free(h);
        free(seen);
        return bolt_err_set(BOLT_ERR_NOMEM, "out of memory for a communicator's link plan");
    }
    for (int r = 0; r < n; r++) {
        int x = host_of_rank(L, world_ranks, r);
        if (!seen[x]) {
            seen[x] = 1;
            h[k++] = x;
        }
    }
    struct coll_plan *p = NULL;
    if (k > 1) /* one block: freed by free() with the communicator */
        p = calloc(1, sizeof *p + (size_t)(2 * n + 3 * k) * sizeof(int));
    if (k > 1 && p == NULL) {
        free(h);
        free(seen);
        return bolt_err_set(BOLT_ERR_NOMEM, "out of memory for a communicator's link plan");
    }
    if (p) {
        struct hosts H = {L, k, h, (double)coll_segment_bytes()};
        int *cyc = p->mem + 2 * n, *tmp = cyc + k;
        p->id = ++plan_ids;
        p->n = n;
        p->nhost = k;
        p->order = p->mem;
        p->pos = p->mem + n;
        p->hosts = tmp + k;
        best_cycle(&H, cyc, tmp);
        int at = 0;
        for (int i = 0; i < k; i++) {
            p->hosts[i] = h[cyc[i]];
            for (int r = 0; r < n; r++)
                if (host_of_rank(L, world_ranks, r) == p->hosts[i])
                    p->order[at++] = r;
        }
        for (int i = 0; i < n; i++)
            p->pos[p->order[i]] = i;
        int none_ring = 0, present = 0;
        double good[2] = {0, 0};
        for (int i = 0; i < k; i++)
            for (int j = i + 1; j < k; j++) {
                size_t x = (size_t)h[i] * (size_t)L->nhost + (size_t)h[j];
                if (L->state[x] == LINK_OK) {
                    good[0] = L->alpha_us[x] > good[0] ? L->alpha_us[x] : good[0];
                    good[1] = L->beta_ns[x] > good[1] ? L->beta_ns[x] : good[1];
                }
            }
        p->mesh_ok = 1;
        for (int i = 0; i < k; i++) {
            for (int j = i + 1; j < k; j++) {
                present += slowest(L, good, h[i], h[j], &p->alpha_all_us, &p->beta_all_ns);
                if (L->state[(size_t)h[i] * (size_t)L->nhost + (size_t)h[j]] != LINK_OK)
                    p->mesh_ok = 0;
            }
            if ((k > 2 || i == 0) &&
                !slowest(L, good, p->hosts[i], p->hosts[(i + 1) % k], &p->alpha_ring_us, &p->beta_ring_ns))
                none_ring = 1;
        }
        if (present == 0) { /* no link measured at all: the settings */
            p->alpha_all_us = bolt_param_double(BOLT_P_COLL_ALPHA_US);
            p->beta_all_ns = bolt_param_double(BOLT_P_COLL_BETA_NS_PER_KB) / 1024;
        }
        if (!rd_slowest(p, L, good, world_ranks, n)) { /* no exchange leaves a host */
            p->alpha_rd_us = p->alpha_all_us;
            p->beta_rd_ns = p->beta_all_ns;
        }
        p->ring_complete = !none_ring;
        if (none_ring) { /* around a gap by some other way: no faster than the slowest link */
            p->alpha_ring_us = p->alpha_all_us;
            p->beta_ring_ns = p->beta_all_ns;
        }
    }
    free(h);
    free(seen);
    *out = p;
    return BOLT_OK;
}

void coll_plan_describe(const struct coll_plan *p, const struct linkmap *L, char *buf, size_t cap)
{
    size_t at = 0;
#define PUT(...) (at += (size_t)snprintf(at < cap ? buf + at : NULL, at < cap ? cap - at : 0, __VA_ARGS__))
    PUT("ring");
    for (int i = 0; i < p->nhost; i++)
        PUT(" %s", L->name[p->hosts[i]]);
    PUT("%s; mesh algorithms %s", p->ring_complete ? "" : " (a step has no link)", p->mesh_ok ? "on" : "off");
    for (int i = 0; !p->mesh_ok && i < p->nhost; i++)
        for (int j = i + 1; j < p->nhost; j++) {
            int a = p->hosts[i], b = p->hosts[j];
            unsigned char st = L->state[(size_t)a * (size_t)L->nhost + (size_t)b];
            if (st != LINK_OK)
                PUT(" (%s-%s %s)", L->name[a < b ? a : b], L->name[a < b ? b : a], st == LINK_SLOW ? "slow" : "missing");
        }
#undef PUT
}

int coll_plan_get(struct bolt_comm *c, const struct coll_plan **out)
{
    int rc = BOLT_OK;
    if (c->coll_plan == NULL && !c->coll_plan_none) {
        rc = coll_plan_build(bolt_rt.links, c->world_ranks, c->size, &c->coll_plan);
        c->coll_plan_none = rc == BOLT_OK && c->coll_plan == NULL;
        if (c->coll_plan && c->rank == 0) {
            char d[1024];
            coll_plan_describe(c->coll_plan, bolt_rt.links, d, sizeof d);
            bolt_log(BOLT_LOG_INFO, "collectives on %d ranks over %d hosts (BOLT_COLL_LINKS): %s", c->size,
                     c->coll_plan->nhost, d);
        }
    }
    *out = c->coll_plan;
    return rc;
}

int coll_ring_get(struct coll_sched *s, struct coll_ring *g)
{
    struct bolt_comm *c = coll_sched_comm(s);
    const struct coll_plan *p;
    int rc = coll_plan_get(c, &p);
    g->n = c->size;
    g->order = p ? p->order : NULL;
    g->pos = p ? p->pos : NULL;
    g->me = p ? p->pos[c->rank] : c->rank;
    if (rc != BOLT_OK)
        coll_sched_fail(s, rc);
    return rc;
}
