/*
 * tp_check.c — tensor and pipeline parallel against one rank, run under boltrun:
 *   boltrun -np N tp_check MODEL.gguf TOL [TOKENS [expert|slice [K]]]
 * Every rank decodes a prompt (a batch) and then TOKENS tokens one at a
 * time with its slice of the model (inf_ctx_params_t.tp over Bolt's
 * collectives; a mixture of experts split as the fourth argument says; with
 * K, in K pipeline stages of N / K ranks, the stream passed between them by
 * Bolt's messages); rank 0 also runs the whole model alone in the same process,
 * fed the same tokens. After the prompt and after each token, rank 0
 * compares the logits: their relative RMS difference must stay within TOL
 * (the products' partial sums are added in another order, nothing else; in
 * the quantized types one activation then rounded the other way moves the
 * logits by about 1% from there on, as between Bolt and llama.cpp in
 * reference.sh), and the greedy token must be the same unless the whole
 * model's best two logits are closer than twice the largest difference (a
 * tie within rounding).
 * Every rank of the last stage must hold the same logits (each samples for
 * itself); rank 0 compares the first of them.
 * With TP_CHECK_BALANCE="MARGIN SKEW" the splits are balanced (tp_balance
 * MARGIN) and each rank r reports as its times what it holds times
 * (1 + SKEW x r) (the engine's own times must be measured, but on four ranks
 * over two cores they say anything), so that the splits must move toward
 * the lower ranks, each rank's
 * share at most its even share plus MARGIN of it, ranks of one stage
 * holding the same boundaries; the logits as above.
 * Prints the worst relative error, the tokens compared and the ties; exits 1
 * on a failure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bolt.h"
#include "inference/engine.h"

typedef struct group {
    bolt_comm_t comm;
    double skew; /* a unit costs (1 + skew x rank) on this rank */
    int rank;
    const inf_ctx_t *c; /* set once made: what this rank holds */
    int unmeasured;     /* periods whose times the engine left at 0 */
} group_t;

static int tp_allreduce(void *self, float *x, size_t n)
{
    return bolt_allreduce(BOLT_IN_PLACE, x, n, BOLT_FLOAT32, BOLT_SUM, ((group_t *)self)->comm) != BOLT_OK;
}

static int tp_allgatherv(void *self, float *x, const size_t *counts, const size_t *displs)
{
    return bolt_allgatherv(BOLT_IN_PLACE, 0, x, counts, displs, BOLT_FLOAT32, ((group_t *)self)->comm) != BOLT_OK;
}

/* The times a balanced split shares: the engine's must be measured (above
 * 0 where this rank holds units); the ones shared are made up, what this
 * rank holds times (1 + skew x rank), so that the splits move alike however
 * busy the machine is (four ranks on two cores time anything) */
static int tp_allgather(void *self, const void *mine, void *all, size_t bytes)
{
    group_t *g = self;
    int64_t t[2];
    if (bytes != sizeof t || !g->c)
        return 1;
    memcpy(t, mine, bytes);
    for (int vocab = 0; vocab < 2; vocab++) {
        const int *b;
        const int held = inf_ctx_balance(g->c, vocab, &b) >= 0 ? b[g->rank + 1] - b[g->rank] : 0;
        if (held > 0 && t[vocab] <= 0)
            g->unmeasured++;
        t[vocab] = (int64_t)(1e6 * held * (1 + g->skew * g->rank));
    }
    return bolt_allgather(t, all, bytes, BOLT_BYTE, g->comm) != BOLT_OK;
}

/* A split's boundaries: every rank of the group the same, moved toward the
 * lower ranks (skew > 0), no share above even + margin of it. Returns the
 * failures. */
static int check_split(inf_ctx_t *c, int vocab, int all, int T, double margin, bolt_comm_t comm, int rank)
{
    const int *b;
    const int moves = inf_ctx_balance(c, vocab, &b);
    const char *what = vocab ? "vocabulary rows" : "hidden units";
    if (moves < 0)
        return 0;
    int fails = 0, *got = malloc(((size_t)T + 1) * sizeof *got);
    memcpy(got, b, ((size_t)T + 1) * sizeof *got);
    bolt_bcast(got, (size_t)T + 1, BOLT_INT32, 0, comm);
    if (memcmp(got, b, ((size_t)T + 1) * sizeof *got)) {
        fprintf(stderr, "FAIL: rank %d's split of the %s differs from its group's first rank's\n", rank, what);
        fails++;
    }
    printf("rank %d: %s split moved %d time%s:", rank, what, moves, moves == 1 ? "" : "s");
    for (int r = 0; r < T; r++)
        printf(" %d", b[r + 1] - b[r]);
    printf(" (even %d)\n", all / T);
    if (moves == 0 || b[1] - b[0] <= b[T] - b[T - 1]) {
        fprintf(stderr, "FAIL: rank %d: the %s split did not move toward rank 0, the fastest\n", rank, what);
        fails++;
    }
    const int block = vocab ? 1 : inf_ctx_shard(c).fblock;
    for (int r = 0; r < T; r++)
        if (b[r + 1] - b[r] > (all / T + block) * (1 + margin) || b[r + 1] < b[r]) {
            fprintf(stderr, "FAIL: rank %d: the %s split gives rank %d %d, more than its share and margin\n", rank, what, r,
                    b[r + 1] - b[r]);
            fails++;
        }
    free(got);
    return fails;
}

typedef struct link {
    bolt_comm_t world;
    int rank, group;
} link_t;

static int pp_send(void *self, const float *x, size_t n)
{
    link_t *l = self;
    return bolt_send(x, n * sizeof *x, l->rank + l->group, 7, l->world) != BOLT_OK;
}

static int pp_recv(void *self, float *x, size_t n)
{
    link_t *l = self;
    return bolt_recv(x, n * sizeof *x, l->rank - l->group, 7, l->world, NULL) != BOLT_OK;
}

static int argmax(const float *x, int n, float *second)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        best = x[i] > x[best] ? i : best;
    float s = -INFINITY;
    for (int i = 0; i < n; i++)
        if (i != best && x[i] > s)
            s = x[i];
    *second = s;
    return best;
}

int main(int argc, char **argv)
{
    if (bolt_init(&argc, &argv) != BOLT_OK || argc < 3) {
        fprintf(stderr, "usage: boltrun -np N tp_check MODEL.gguf TOL [TOKENS [expert|slice]]\n");
        return 2;
    }
    const double tol = atof(argv[2]);
    const int G = argc > 3 ? atoi(argv[3]) : 32;
    bolt_comm_t world = bolt_comm_world();
    int rank, size;
    bolt_comm_rank(world, &rank);
    bolt_comm_size(world, &size);
    const int K = argc > 5 ? atoi(argv[5]) : 1, T = K > 0 && size % K == 0 ? size / K : 0;
    if (!T) {
        fprintf(stderr, "tp_check: %d stages do not divide %d ranks\n", K, size);
        return 2;
    }
    const int stage = rank / T, holder = (K - 1) * T; /* the last stage's first rank */
    bolt_comm_t group = world;
    if (K > 1 && T > 1 && bolt_comm_split(world, stage, rank, &group) != BOLT_OK)
        bolt_abort(1, "tp_check: the stages' communicators");
    double margin = 0, skew = 0;
    const char *bal = getenv("TP_CHECK_BALANCE");
    if (bal && sscanf(bal, "%lf %lf", &margin, &skew) != 2) {
        fprintf(stderr, "tp_check: TP_CHECK_BALANCE is \"MARGIN SKEW\", not '%s'\n", bal);
        return 2;
    }
    group_t gr = {group, skew, rank % T, NULL, 0};
    inf_tp_t tp = {.rank = rank % T, .size = T, .self = &gr, .allreduce_sum = tp_allreduce,
                   .allgatherv = tp_allgatherv, .allgather = bal ? tp_allgather : NULL};
    link_t ln = {world, rank, T};
    inf_pp_t pp = {.stage = stage, .stages = K, .self = &ln, .send = pp_send, .recv = pp_recv};
    char err[512];
    inf_model_t *m;
    inf_ctx_t *c, *whole = NULL;
    /* a mixture of experts: whole experts a rank, or a slice of each */
    const int split = argc > 4 && !strcmp(argv[4], "slice") ? INF_MOE_SLICE : INF_MOE_EXPERT;
    inf_ctx_params_t cp = {.n_ctx = 128, .n_batch = 16, .n_threads = 1, .tp = T > 1 ? &tp : NULL, .moe_split = split,
                           .pp = K > 1 ? &pp : NULL, .tp_balance = margin};
    if (inf_model_load(argv[1], &m, err, sizeof err) || inf_ctx_new(m, &cp, &c, err, sizeof err)) {
        fprintf(stderr, "tp_check, rank %d: %s\n", rank, err);
        bolt_abort(1, err);
    }
    gr.c = c;
    inf_ctx_params_t one = cp;
    one.tp = NULL;
    one.pp = NULL;
    if (rank == 0 && inf_ctx_new(m, &one, &whole, err, sizeof err)) {
        fprintf(stderr, "tp_check: %s\n", err);
        bolt_abort(1, err);
    }
    const int V = m->hp.n_vocab;
    float *mine = malloc((size_t)V * sizeof *mine);
    int32_t tok[16];
    for (int i = 0; i < 16; i++)
        tok[i] = (int32_t)((1009u * (unsigned)i + 17u) % (unsigned)V);
    double worst = 0;
    int fails = 0, ties = 0, compared = 0;
    for (int step = 0; step <= G; step++) {
        const int n = step == 0 ? 16 : 1;
        const int32_t *in = step == 0 ? tok : &tok[0];
        if (inf_decode(c, in, n, err, sizeof err)) {
            fprintf(stderr, "tp_check, rank %d: %s\n", rank, err);
            bolt_abort(1, err);
        }
        /* every rank of the last stage the same logits; rank 0 the first's */
        const float *lg = inf_logits(c, -1);
        if ((stage == K - 1) != (lg != NULL)) {
            fprintf(stderr, "FAIL: rank %d (stage %d of %d) %s logits after step %d\n", rank, stage, K,
                    lg ? "has" : "has no", step);
            bolt_abort(1, "tp_check: logits where none belong");
        }
        float *got = malloc((size_t)V * sizeof *got);
        if (lg) {
            memcpy(mine, lg, (size_t)V * sizeof *mine);
            memcpy(got, lg, (size_t)V * sizeof *got);
        }
        bolt_bcast(got, (size_t)V, BOLT_FLOAT32, holder, world);
        if (lg && memcmp(got, mine, (size_t)V * sizeof *got)) {
            fprintf(stderr, "FAIL: rank %d's logits after step %d differ from rank %d's\n", rank, step, holder);
            fails++;
        }
        memcpy(mine, got, (size_t)V * sizeof *mine);
        free(got);
        int32_t next = 0;
        if (rank == 0) {
            if (inf_decode(whole, in, n, err, sizeof err)) {
                fprintf(stderr, "tp_check: %s\n", err);
                bolt_abort(1, err);
            }
            const float *ref = inf_logits(whole, -1);
            double ss = 0, sd = 0, maxdiff = 0;
            for (int i = 0; i < V; i++) {
                const double d = fabs((double)ref[i] - mine[i]);
                ss += (double)ref[i] * ref[i];
                sd += d * d;
                maxdiff = d > maxdiff ? d : maxdiff;
            }
            const double rel = sqrt(sd / (ss > 0 ? ss : 1));
            worst = rel > worst ? rel : worst;
            if (!(rel <= tol)) {
                fprintf(stderr, "FAIL: step %d: logits differ by %.3g, relative RMS (tolerance %.3g)\n", step, rel, tol);
                fails++;
            }
            float s1, s2;
            const int a = argmax(ref, V, &s1), b = argmax(mine, V, &s2);
            compared++;
            if (a != b) {
                if (ref[a] - s1 <= 2 * maxdiff)
                    ties++;
                else {
                    fprintf(stderr, "FAIL: step %d: greedy token %d on %d ranks, %d on one (gap %.3g, difference %.3g)\n",
                            step, b, size, a, (double)(ref[a] - s1), maxdiff);
                    fails++;
                }
            }
            next = a; /* both fed the whole model's token */
        }
        bolt_bcast(&next, 1, BOLT_INT32, 0, world);
        tok[0] = next;
    }
    if (bal && T > 1) {
        fails += check_split(c, 0, m->hp.n_ff, T, margin, group, rank);
        fails += check_split(c, 1, V, T, margin, group, rank);
        if (gr.unmeasured) {
            fprintf(stderr, "FAIL: rank %d: %d periods of balanced splits with no time measured\n", rank, gr.unmeasured);
            fails++;
        }
    }
    int all = 0;
    bolt_allreduce(&fails, &all, 1, BOLT_INT32, BOLT_SUM, world);
    if (rank == 0)
        printf("tp_check %s on %d ranks (%d stage%s): worst logits difference %.3g (relative RMS), %d greedy tokens compared, "
               "%d ties within rounding, %d failures\n",
               argv[1], size, K, K > 1 ? "s" : "", worst, compared, ties, all);
    free(mine);
    inf_ctx_free(whole);
    inf_ctx_free(c);
    inf_model_free(m);
    if (group != world)
        bolt_comm_free(&group);
    bolt_finalize();
    return all ? 1 : 0;
}
