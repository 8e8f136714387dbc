/*
 * main.c — bolt-llm: text completion with a GGUF model, llama.cpp's option
 * names where they overlap. Prints the prompt and the text as it comes
 * (whole UTF-8 characters only), then the prompt and generation speeds.
 *
 *   bolt-llm -m model.gguf -p "Once upon a time" -n 64
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blas/kernels.h"
#include "bolt.h"
#include "inference/coll_times.h"
#include "inference/engine.h"
#include "inference/share_model.h"
#include "inference/sample.h"
#include "inference/vocab.h"

typedef struct opts {
    const char *model, *prompt, *file;
    int n_predict, threads, ctx, batch, ubatch, display_prompt, ignore_eos, no_mmap, moe_split, pp, share_model;
    uint32_t kv_type;
    float tp_balance;
    inf_sampler_params_t s;
    int seed_given;
} opts_t;

static void usage(FILE *f)
{
    fputs("usage: bolt-llm -m MODEL.gguf [-p PROMPT | -f FILE] [options]\n"
          "  -m, --model FILE        the model (GGUF; the first part of a split one)\n"
          "  -p, --prompt TEXT       the prompt (special tokens such as <|im_start|> recognised)\n"
          "  -f, --file FILE         the prompt from a file\n"
          "  -n, --n-predict N       tokens to generate (default 128; -1: until the end of text or context)\n"
          "  -t, --threads N         threads (default: the CPUs this process may use)\n"
          "  -c, --ctx-size N        context length (default: the model's, at most 4096)\n"
          "  -b, --batch-size N      prompt tokens a forward pass takes (default 512)\n"
          "  -ub, --ubatch-size N    across pipeline stages, prompt tokens a stage passes on at once\n"
          "                          (default: up to 2 x stages pieces of 64 tokens at least)\n"
          "  --temp T                temperature (default 0.8; 0: greedy)\n"
          "  --top-k K               (default 40; 0: off)\n"
          "  --top-p P               (default 0.95; 1: off)\n"
          "  --min-p P               (default 0.05; 0: off)\n"
          "  --repeat-penalty R      (default 1.0: off)\n"
          "  --repeat-last-n N       tokens the penalty looks back on (default 64)\n"
          "  -s, --seed S            the sampler's seed (default: from the clock)\n"
          "  -ctk, --cache-type-k T  KV cache type: f16 (default), f32, q8_0\n"
          "  --no-display-prompt     print only the generated text\n"
          "  --ignore-eos            do not stop at the end-of-text token\n"
          "  --no-mmap               read the model into memory instead of mapping its file (across\n"
          "                          ranks each rank reads its own shard into memory, whatever this says)\n"
          "  --moe-split S           across ranks, a mixture of experts: expert (default; whole\n"
          "                          experts a rank) or slice (a slice of every expert a rank)\n"
          "  --tp-balance F          across ranks: each rank holds up to F (a fraction of its share,\n"
          "                          under 0.5) more of the MLP's hidden units and of the vocabulary,\n"
          "                          and the ranks move those splits toward equal time a token, for\n"
          "                          ranks that differ in speed (default 0: the even split)\n"
          "  --share-model           across ranks, a host without the model file (at the same path)\n"
          "                          is sent by rank 0 the part its ranks need, each chunk checked\n"
          "  --pp K                  across ranks (boltrun -np N): K pipeline stages, the layers\n"
          "                          split between them, each stage N / K ranks in tensor parallel\n"
          "                          (default 1: every rank all layers, a slice of each)\n"
          "  -h, --help\n",
          f);
}

static int num(const char *opt, const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *end || errno || x < lo || x > hi) {
        fprintf(stderr, "bolt-llm: %s expects an integer from %ld to %ld, got '%s'\n", opt, lo, hi, v);
        return -1;
    }
    *out = x;
    return 0;
}

static int fnum(const char *opt, const char *v, float lo, float hi, float *out)
{
    char *end;
    float x = strtof(v, &end);
    if (!*v || *end || !(x >= lo && x <= hi)) {
        fprintf(stderr, "bolt-llm: %s expects a number from %g to %g, got '%s'\n", opt, (double)lo, (double)hi, v);
        return -1;
    }
    *out = x;
    return 0;
}

static int parse(int argc, char **argv, opts_t *o)
{
    *o = (opts_t){.n_predict = 128, .batch = 512, .pp = 1, .display_prompt = 1, .kv_type = GGML_F16,
                  .s = {.temp = 0.8f, .top_k = 40, .top_p = 0.95f, .min_p = 0.05f, .repeat_penalty = 1.0f, .repeat_last_n = 64}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long l;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 1;
        }
        if (!strcmp(a, "--no-display-prompt")) {
            o->display_prompt = 0;
            continue;
        }
        if (!strcmp(a, "--ignore-eos")) {
            o->ignore_eos = 1;
            continue;
        }
        if (!strcmp(a, "--no-mmap")) {
            o->no_mmap = 1;
            continue;
        }
        if (!strcmp(a, "--share-model")) {
            o->share_model = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "bolt-llm: %s: %s\n", a, a[0] == '-' ? "needs a value" : "unexpected argument");
            return -1;
        }
        const char *v = argv[++i];
        int rc = 0;
        if (!strcmp(a, "-m") || !strcmp(a, "--model"))
            o->model = v;
        else if (!strcmp(a, "-p") || !strcmp(a, "--prompt"))
            o->prompt = v;
        else if (!strcmp(a, "-f") || !strcmp(a, "--file"))
            o->file = v;
        else if (!strcmp(a, "-n") || !strcmp(a, "--n-predict"))
            rc = num(a, v, -1, INT_MAX, &l), o->n_predict = (int)l;
        else if (!strcmp(a, "-t") || !strcmp(a, "--threads"))
            rc = num(a, v, 1, 1024, &l), o->threads = (int)l;
        else if (!strcmp(a, "--tp-balance"))
            rc = fnum(a, v, 0.0f, 0.49f, &o->tp_balance);
        else if (!strcmp(a, "--pp"))
            rc = num(a, v, 1, 4096, &l), o->pp = (int)l;
        else if (!strcmp(a, "-c") || !strcmp(a, "--ctx-size"))
            rc = num(a, v, 0, 1 << 24, &l), o->ctx = (int)l;
        else if (!strcmp(a, "-ub") || !strcmp(a, "--ubatch-size"))
            rc = num(a, v, 1, 1 << 24, &l), o->ubatch = (int)l;
        else if (!strcmp(a, "-b") || !strcmp(a, "--batch-size"))
            rc = num(a, v, 1, 1 << 16, &l), o->batch = (int)l;
        else if (!strcmp(a, "--temp"))
            rc = fnum(a, v, -1e9f, 1e9f, &o->s.temp);
        else if (!strcmp(a, "--top-k"))
            rc = num(a, v, 0, INT_MAX, &l), o->s.top_k = (int)l;
        else if (!strcmp(a, "--top-p"))
            rc = fnum(a, v, 0, 1, &o->s.top_p);
        else if (!strcmp(a, "--min-p"))
            rc = fnum(a, v, 0, 1, &o->s.min_p);
        else if (!strcmp(a, "--repeat-penalty"))
            rc = fnum(a, v, 0.0001f, 100, &o->s.repeat_penalty);
        else if (!strcmp(a, "--repeat-last-n"))
            rc = num(a, v, -1, INT_MAX, &l), o->s.repeat_last_n = (int)l;
        else if (!strcmp(a, "-s") || !strcmp(a, "--seed")) {
            char *end;
            errno = 0;
            unsigned long long x = strtoull(v, &end, 10);
            if (!*v || *end || errno) {
                fprintf(stderr, "bolt-llm: %s expects an unsigned integer, got '%s'\n", a, v);
                rc = -1;
            }
            o->s.seed = x;
            o->seed_given = 1;
        } else if (!strcmp(a, "-ctk") || !strcmp(a, "--cache-type-k") || !strcmp(a, "-ctv") || !strcmp(a, "--cache-type-v")) {
            if (!strcmp(v, "f16"))
                o->kv_type = GGML_F16;
            else if (!strcmp(v, "f32"))
                o->kv_type = GGML_F32;
            else if (!strcmp(v, "q8_0"))
                o->kv_type = GGML_Q8_0;
            else {
                fprintf(stderr, "bolt-llm: %s expects f16, f32 or q8_0, got '%s'\n", a, v);
                rc = -1;
            }
        } else if (!strcmp(a, "--moe-split")) {
            if (!strcmp(v, "expert"))
                o->moe_split = INF_MOE_EXPERT;
            else if (!strcmp(v, "slice"))
                o->moe_split = INF_MOE_SLICE;
            else {
                fprintf(stderr, "bolt-llm: %s expects expert or slice, got '%s'\n", a, v);
                rc = -1;
            }
        } else {
            fprintf(stderr, "bolt-llm: unknown option '%s' (see --help)\n", a);
            rc = -1;
        }
        if (rc)
            return -1;
    }
    if (!o->model) {
        fprintf(stderr, "bolt-llm: -m MODEL.gguf is required (see --help)\n");
        return -1;
    }
    if (o->prompt && o->file) {
        fprintf(stderr, "bolt-llm: give -p or -f, not both\n");
        return -1;
    }
    return 0;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Prints the complete UTF-8 characters of buf, keeps an incomplete tail. */
static size_t flush_utf8(char *buf, size_t n, int all)
{
    size_t ok = n;
    if (!all) {
        /* back over a trailing partial sequence */
        size_t i = n;
        int cont = 0;
        while (i > 0 && cont < 4 && ((unsigned char)buf[i - 1] & 0xc0) == 0x80) {
            i--;
            cont++;
        }
        if (i > 0) {
            unsigned char c = (unsigned char)buf[i - 1];
            int need = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
            if (need > cont)
                ok = i - 1;
        }
    }
    fwrite(buf, 1, ok, stdout);
    fflush(stdout);
    memmove(buf, buf + ok, n - ok);
    return n - ok;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    for (size_t k; b && (k = fread(b + n, 1, cap - n - 1, f)) > 0;) {
        n += k;
        if (n + 1 == cap) {
            char *g = realloc(b, cap *= 2);
            if (!g) {
                free(b);
                b = NULL;
            }
            b = g;
        }
    }
    fclose(f);
    if (b)
        b[n] = 0;
    return b;
}

/* Tensor and pipeline parallel over the job's ranks (boltrun -np N, --pp
 * K): the engine's collectives on Bolt's within a stage's group of ranks,
 * the stream from stage to stage by Bolt's messages, timed for the report. */
typedef struct tp_comm {
    bolt_comm_t comm; /* this stage's ranks */
    int rank, size;   /* in comm */
    bolt_comm_t world;
    int wrank, group; /* in world; the ranks of a stage */
    double secs;    /* inside the collectives and the stream's messages */
    coll_times_t calls; /* each collective's time, while generating under tensor parallel */
    uint64_t bytes; /* this rank's part of what they carried: its share of each sum, its logits, the stream it sent */
    /* the stream to the next stage leaves from one of two buffers while the
     * stage goes on with the next piece of a prompt (a blocking send waited
     * for the next stage to finish the piece before: no overlap) */
    float *sbuf[2];
    size_t scap[2];
    bolt_request_t sreq[2];
    int slot;
} tp_comm_t;

#define PP_TAG 0x11f /* the stream between stages */

static int pp_send(void *self, const float *x, size_t n)
{
    tp_comm_t *t = self;
    const double t0 = bolt_wtime();
    const int k = t->slot;
    int rc = t->sreq[k] != BOLT_REQUEST_NULL && bolt_wait(&t->sreq[k], NULL) != BOLT_OK;
    if (!rc && t->scap[k] < n) {
        float *b = realloc(t->sbuf[k], n * sizeof *b);
        rc = !b;
        if (b) {
            t->sbuf[k] = b;
            t->scap[k] = n;
        }
    }
    if (!rc) {
        memcpy(t->sbuf[k], x, n * sizeof *x);
        rc = bolt_isend_overlap(t->sbuf[k], n * sizeof *x, t->wrank + t->group, PP_TAG, t->world, &t->sreq[k]) != BOLT_OK;
    }
    t->slot ^= 1;
    t->secs += bolt_wtime() - t0;
    t->bytes += n * sizeof *x;
    return rc;
}

/* The stream's last sends complete (0), or not (-1). */
static int pp_flush(tp_comm_t *t)
{
    int rc = 0;
    for (int k = 0; k < 2; k++)
        if (t->sreq[k] != BOLT_REQUEST_NULL && bolt_wait(&t->sreq[k], NULL) != BOLT_OK)
            rc = -1;
    return rc;
}

static int pp_recv(void *self, float *x, size_t n)
{
    tp_comm_t *t = self;
    const double t0 = bolt_wtime();
    const int rc = bolt_recv(x, n * sizeof *x, t->wrank - t->group, PP_TAG, t->world, NULL) != BOLT_OK;
    t->secs += bolt_wtime() - t0;
    return rc;
}

static int tp_allreduce(void *self, float *x, size_t n)
{
    tp_comm_t *t = self;
    const double t0 = bolt_wtime();
    const int rc = bolt_allreduce(BOLT_IN_PLACE, x, n, BOLT_FLOAT32, BOLT_SUM, t->comm) != BOLT_OK;
    const double dt = bolt_wtime() - t0;
    t->secs += dt;
    coll_times_add(&t->calls, dt);
    t->bytes += n * sizeof(float);
    return rc;
}

/* BOLT_LLM_TP_SKEW=S (for tests of balanced splits): this rank reports
 * the times a balanced split shares as (1 + S x its rank) times what they
 * were, so that the splits must move toward the lower ranks */
static double tp_skew = -1;

static int tp_allgather(void *self, const void *mine, void *all, size_t bytes)
{
    tp_comm_t *t = self;
    const double t0 = bolt_wtime();
    int64_t v[8];
    if (tp_skew < 0) {
        const char *e = getenv("BOLT_LLM_TP_SKEW");
        tp_skew = e ? atof(e) : 0;
        tp_skew = tp_skew > 0 ? tp_skew : 0;
    }
    if (tp_skew > 0 && bytes <= sizeof v && bytes % sizeof *v == 0) {
        memcpy(v, mine, bytes);
        for (size_t i = 0; i < bytes / sizeof *v; i++)
            v[i] = (int64_t)((double)v[i] * (1 + tp_skew * t->rank));
        mine = v;
    }
    const int rc = bolt_allgather(mine, all, bytes, BOLT_BYTE, t->comm) != BOLT_OK;
    const double dt = bolt_wtime() - t0;
    t->secs += dt;
    coll_times_add(&t->calls, dt);
    t->bytes += bytes;
    return rc;
}

static int tp_allgatherv(void *self, float *x, const size_t *counts, const size_t *displs)
{
    tp_comm_t *t = self;
    const double t0 = bolt_wtime();
    const int rc = bolt_allgatherv(BOLT_IN_PLACE, 0, x, counts, displs, BOLT_FLOAT32, t->comm) != BOLT_OK;
    const double dt = bolt_wtime() - t0;
    t->secs += dt;
    coll_times_add(&t->calls, dt);
    t->bytes += counts[t->rank] * sizeof(float);
    return rc;
}

/* What each rank tells rank 0 at the end: its memory, and how long its
 * MLP and output products took a token under tensor parallel. */
typedef struct {
    double resident, weights, kv, margin, t_mlp, t_out;
    int peak, own;
    char host[64];
} rank_report_t;

/* Under tensor parallel, how long each of the n ranks' MLP and output
 * products took a token: the slowest sets the pace between two
 * collectives, so ranks that differ in speed are told, with the balance
 * that would even them out. */
static void report_speeds(const rank_report_t *all, int n, float balance)
{
    const char *what[2] = {"MLP", "output"};
    double most_ratio = 1;
    for (int k = 0; k < 2; k++) {
        double lo = 0, hi = 0;
        int slow = 0, fast = 0;
        for (int r = 0; r < n; r++) {
            const double t = k ? all[r].t_out : all[r].t_mlp;
            if (t <= 0)
                continue;
            if (lo == 0 || t < lo)
                lo = t, fast = r;
            if (t > hi)
                hi = t, slow = r;
        }
        if (lo <= 0)
            continue; /* not timed (a mixture of experts' MLP) */
        fprintf(stderr, "bolt-llm: a token's %s products took %.3f-%.3f ms on the ranks (rank %d the fastest, rank %d the "
                "slowest, %.2fx)\n", what[k], lo * 1e3, hi * 1e3, fast, slow, hi / lo);
        most_ratio = hi / lo > most_ratio ? hi / lo : most_ratio;
    }
    /* two ranks apart by x even out at shares 2x / (1 + x) and 2 / (1 + x)
     * of the even one; a rank between two others holds half the margin on
     * each side, so a boundary between them moves half as far */
    if (balance == 0 && most_ratio > 1.1) {
        double f = ((most_ratio - 1) / (most_ratio + 1) + 0.05) * (n > 2 ? 2 : 1);
        f = f > 0.45 ? 0.45 : f;
        fprintf(stderr, "bolt-llm: the ranks differ in speed: --tp-balance %.2f would give the faster ones more of the MLP "
                "and the vocabulary (each rank then holds up to %.0f%% more of them)\n", f, f * 100);
    }
}

/* The ranks of the job on this host (they share its CPUs). */
static int ranks_here(bolt_comm_t world)
{
    unsigned h = 5381;
    for (const char *p = bolt_hostname(); *p; p++)
        h = h * 33u + (unsigned char)*p;
    bolt_comm_t local;
    int n = 1;
    if (bolt_comm_split(world, (int)(h & 0x3fffffff), 0, &local) == BOLT_OK) {
        bolt_comm_size(local, &n);
        bolt_comm_free(&local);
    }
    return n;
}

int main(int argc, char **argv)
{
    /* F32 prompts run on the BLAS's SGEMM; before anything starts, as a
     * restart must find nothing running */
    blas_kernels_ensure("bolt-llm", argv);
    if (bolt_init(&argc, &argv) != BOLT_OK) {
        fprintf(stderr, "bolt-llm: %s\n", bolt_error_message());
        return 1;
    }
    opts_t o;
    int prc = parse(argc, argv, &o);
    if (prc) {
        bolt_finalize();
        return prc > 0 ? 0 : 2;
    }
    bolt_comm_t world = bolt_comm_world();
    int rank = 0, size = 1;
    bolt_comm_rank(world, &rank);
    bolt_comm_size(world, &size);
    /* K stages of T ranks: world ranks [s T, (s + 1) T) are stage s */
    const int K = o.pp, T = size / o.pp, stage = rank / (T ? T : 1), last = stage == K - 1;
    if (size % K) {
        if (rank == 0)
            fprintf(stderr, "bolt-llm: --pp %d does not divide the job's %d ranks: each pipeline stage is np / pp ranks "
                    "(boltrun -np %d --pp %d, say)\n", K, size, K * (size / K + 1), K);
        bolt_finalize();
        return 2;
    }
    bolt_comm_t group = world;
    if (K > 1 && T > 1 && bolt_comm_split(world, stage, rank, &group) != BOLT_OK) {
        fprintf(stderr, "bolt-llm: rank %d: %s\n", rank, bolt_error_message());
        bolt_finalize();
        return 1;
    }
    tp_comm_t tpc = {.comm = group, .rank = rank % T, .size = T, .world = world, .wrank = rank, .group = T};
    inf_tp_t tp = {.rank = rank % T, .size = T, .self = &tpc, .allreduce_sum = tp_allreduce,
                   .allgatherv = tp_allgatherv, .allgather = tp_allgather};
    inf_pp_t pp = {.stage = stage, .stages = K, .self = &tpc, .send = pp_send, .recv = pp_recv};
    if (!o.seed_given)
        o.s.seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 20);
    /* every rank samples the same token from the same logits: one seed */
    if (size > 1 && bolt_bcast(&o.s.seed, 1, BOLT_UINT64, 0, world) != BOLT_OK) {
        fprintf(stderr, "bolt-llm: rank %d: %s\n", rank, bolt_error_message());
        bolt_finalize();
        return 1;
    }
    /* the text and the report from rank 0; the others say only what fails */
    if (rank != 0 && !freopen("/dev/null", "w", stdout)) {
        bolt_finalize();
        return 1;
    }
    char err[1024], *text = NULL;
    if (o.file && !(text = read_file(o.file))) {
        fprintf(stderr, "bolt-llm: cannot read the prompt file %s: %s\n", o.file, strerror(errno));
        bolt_finalize();
        return 1;
    }
    const char *prompt = text ? text : o.prompt ? o.prompt : "";
    inf_model_t *m = NULL;
    inf_vocab_t *v = NULL;
    inf_ctx_t *c = NULL;
    inf_sampler_t *smp = NULL;
    int32_t *toks = NULL;
    int rc = 1;
    double t_load = now();
    /* across ranks: every rank the model rank 0 has, or (--share-model) a
     * copy of the part it needs */
    share_t shm = {0};
    if (size > 1 && share_check(o.model, o.share_model, world, &shm, err, sizeof err)) {
        fprintf(stderr, "bolt-llm: %s\n", err);
        goto out;
    }
    /* across ranks, each copies its shard out of the file's mapping (and lets
     * the rest go): --no-mmap would read every byte into every rank */
    if (inf_model_load_with(size > 1 ? shm.path : o.model, &(inf_load_params_t){.no_mmap = o.no_mmap && size == 1}, &m,
                            err, sizeof err) ||
        (shm.any && share_fetch(&shm, &m, &(inf_ctx_params_t){.tp = T > 1 ? &tp : NULL, .pp = K > 1 ? &pp : NULL,
                                                               .moe_split = o.moe_split, .tp_balance = o.tp_balance}, world, err, sizeof err)) || inf_vocab_load(m->gguf, o.model, &v, err, sizeof err)) {
        fprintf(stderr, "bolt-llm: %s\n", err);
        goto out;
    }
    /* the CPUs, shared between the ranks on this host (asked on every rank,
     * whatever its -t: a collective) */
    const int here = size > 1 ? ranks_here(world) : 1;
    if (o.threads <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        o.threads = cpus > here ? (int)(cpus / here) : 1;
    }
    if (!(smp = inf_sampler_new(&o.s, m->hp.n_vocab))) {
        fprintf(stderr, "bolt-llm: out of memory\n");
        goto out;
    }
    /* greedy across ranks: each rank its slice's best token, then the best
     * of those (MAXLOC), not every logit to every rank */
    inf_ctx_params_t cp = {.n_ctx = o.ctx, .n_batch = o.batch, .n_threads = o.threads, .kv_type = o.kv_type,
                           .tp = T > 1 ? &tp : NULL, .local_logits = T > 1 && inf_sampler_greedy(smp),
                           .moe_split = o.moe_split, .pp = K > 1 ? &pp : NULL, .n_ubatch = o.ubatch,
                           .tp_balance = o.tp_balance};
    if (inf_ctx_new(m, &cp, &c, err, sizeof err)) {
        fprintf(stderr, "bolt-llm: %s\n", err);
        goto out;
    }
    const int n_ctx = inf_ctx_size(c);
    if (!(toks = malloc((size_t)n_ctx * sizeof *toks))) {
        fprintf(stderr, "bolt-llm: out of memory\n");
        goto out;
    }
    int n = inf_tokenize(v, prompt, strlen(prompt), 1, 1, toks, n_ctx);
    if (n < 0) {
        fprintf(stderr, "bolt-llm: the prompt is longer than the context of %d tokens (-c)\n", n_ctx);
        goto out;
    }
    if (n == 0) {
        fprintf(stderr, "bolt-llm: the prompt is empty and the model adds no BOS token: nothing to continue\n");
        goto out;
    }
    if (rank == 0)
        fprintf(stderr, "bolt-llm: %s: %s, %s, %d layers, %d x %d, %d threads, context %d, prompt %d tokens\n", o.model,
                m->arch->name, m->ftype_name, m->hp.n_layer, m->hp.n_embd, m->hp.n_vocab, o.threads, n_ctx, n);
    if (size > 1) {
        /* the layout, each rank its line, in rank order */
        const inf_shard_t sh = inf_ctx_shard(c);
        for (int r = 0; r < size; r++) {
            if (r == rank && K > 1)
                fprintf(stderr, "bolt-llm: pipeline stage %d of %d, rank %d on %s: layers %d-%d of %d%s\n", stage, K, rank,
                        bolt_hostname(), sh.l0, sh.l0 + sh.nl - 1, m->hp.n_layer, last ? " and the output" : "");
            if (r == rank && T == 1)
                ;
            else if (r == rank && m->hp.n_expert)
                fprintf(stderr, "bolt-llm: tensor parallel, rank %d of %d on %s: key/value heads %d-%d of %d, experts "
                        "%d-%d of %d, their hidden units %d-%d of %d, vocabulary %d-%d of %d\n", rank % T, T, bolt_hostname(),
                        sh.hk0, sh.hk0 + sh.nhk - 1, m->hp.n_head_kv, sh.x0, sh.x0 + sh.nx - 1, m->hp.n_expert, sh.fe0,
                        sh.fe0 + sh.nfe - 1, m->hp.n_ff_exp, sh.v0, sh.v0 + sh.nv - 1, m->hp.n_vocab);
            else if (r == rank)
                fprintf(stderr, "bolt-llm: tensor parallel, rank %d of %d on %s: key/value heads %d-%d of %d, hidden units "
                        "%d-%d of %d (held: %d-%d), vocabulary %d-%d of %d\n", rank % T, T, bolt_hostname(), sh.hk0,
                        sh.hk0 + sh.nhk - 1, m->hp.n_head_kv, sh.f0, sh.f0 + sh.nf - 1, m->hp.n_ff, sh.fh0,
                        sh.fh0 + sh.nfh - 1, sh.v0, sh.v0 + sh.nv - 1, m->hp.n_vocab);
            bolt_barrier(world);
        }
    }
    t_load = now() - t_load;
    if (o.display_prompt) {
        fputs(prompt, stdout);
        fflush(stdout);
    }
    double t0 = now();
    if (inf_decode(c, toks, n, err, sizeof err)) {
        fprintf(stderr, "bolt-llm: %s%s%s\n", err, size > 1 ? ": " : "", size > 1 ? bolt_error_message() : "");
        goto out;
    }
    /* the prompt is done when the last stage is */
    if (K > 1 && pp_flush(&tpc)) {
        fprintf(stderr, "bolt-llm: pipeline parallel, stage %d of %d: passing the stream between the stages failed: %s\n",
                stage, K, bolt_error_message());
        goto out;
    }
    if (K > 1 && bolt_barrier(world) != BOLT_OK) {
        fprintf(stderr, "bolt-llm: rank %d: %s\n", rank, bolt_error_message());
        goto out;
    }
    double t_prompt = now() - t0;
    char out[4096];
    size_t pend = 0;
    int gen = 0;
    t0 = now();
    double t_flush = t0;
    tpc.secs = 0;
    tpc.bytes = 0;
    if (K == 1)
        coll_times_start(&tpc.calls);
    while (o.n_predict < 0 || gen < o.n_predict) {
        if (n >= n_ctx) {
            fprintf(stderr, "\nbolt-llm: the context of %d tokens is full (-c)\n", n_ctx);
            break;
        }
        int32_t t = 0;
        if (!last)
            ; /* the last stage's token, below */
        else if (cp.local_logits) {
            const inf_shard_t sh = inf_ctx_shard(c);
            struct {
                float v;
                int i;
            } mine = {-INFINITY, INT_MAX}, best;
            if (sh.nv > 0)
                mine.i = inf_sample_greedy_range(smp, inf_logits(c, -1), sh.v0, sh.nv, toks, n, &mine.v);
            const double ts = bolt_wtime();
            if (bolt_allreduce(&mine, &best, 1, BOLT_FLOAT_INT, BOLT_MAXLOC, group) != BOLT_OK) {
                flush_utf8(out, pend, 1); /* the text so far, then why it stops */
                fprintf(stderr, "\nbolt-llm: rank %d: %s\n", rank, bolt_error_message());
                goto out;
            }
            const double dt = bolt_wtime() - ts;
            tpc.secs += dt;
            coll_times_add(&tpc.calls, dt);
            tpc.bytes += sizeof mine;
            t = best.i;
        } else
            t = inf_sample(smp, inf_logits(c, -1), toks, n);
        if (K > 1) {
            const double ts = bolt_wtime();
            if (bolt_bcast(&t, 1, BOLT_INT32, (K - 1) * T, world) != BOLT_OK) {
                flush_utf8(out, pend, 1); /* the text so far, then why it stops */
                fprintf(stderr, "\nbolt-llm: rank %d: %s\n", rank, bolt_error_message());
                goto out;
            }
            tpc.secs += bolt_wtime() - ts;
        }
        toks[n++] = t;
        gen++;
        if (!o.ignore_eos && inf_token_is_eog(v, t))
            break;
        int k = inf_token_piece(v, t, 0, out + pend, (int)(sizeof out - pend));
        if (k > 0)
            pend += (size_t)k;
        /* the text at most every 30 ms (no eye sees finer): a write a token
         * woke boltrun, which forwards rank 0's output, 500 times a second on
         * a core the ranks share (two ranks, stories110M Q4_K_M: 543 -> 564
         * tokens/s, medians of 8 alternating runs) */
        if (pend > sizeof out / 2 || now() - t_flush > 0.03) {
            pend = flush_utf8(out, pend, 0);
            t_flush = now();
        }
        if ((o.n_predict < 0 || gen < o.n_predict) && inf_decode(c, &t, 1, err, sizeof err)) {
            flush_utf8(out, pend, 1); /* the text so far, then why it stops */
            fprintf(stderr, "\nbolt-llm: %s%s%s\n", err, size > 1 ? ": " : "", size > 1 ? bolt_error_message() : "");
            goto out;
        }
    }
    flush_utf8(out, pend, 1);
    double t_gen = now() - t0;
    /* the last token was sampled, not decoded: speed over the decodes made */
    int decoded = gen > 0 ? gen - 1 : 0;
    printf("\n");
    /* each rank's memory, to rank 0 */
    rank_report_t me = {0}, *all = rank == 0 ? calloc((size_t)size, sizeof *all) : NULL;
    {
        size_t w, kv;
        me.resident = (double)inf_mem_resident(&me.peak);
        inf_ctx_memory(c, &w, &me.own, &kv);
        me.weights = (double)w;
        me.kv = (double)kv;
        me.margin = (double)inf_ctx_margin_bytes(c);
        inf_ctx_tp_times(c, &me.t_mlp, &me.t_out);
        snprintf(me.host, sizeof me.host, "%s", bolt_hostname());
    }
    if (size > 1 && bolt_gather(&me, all, sizeof me, BOLT_BYTE, 0, world) != BOLT_OK) {
        free(all);
        all = NULL;
    }
    if (size == 1 && all)
        all[0] = me;
    /* each rank's time in the collectives: the one that waited most */
    struct {
        double v;
        int i;
    } coll = {tpc.secs, rank}, most = coll;
    if (size > 1 && bolt_allreduce(&coll, &most, 1, BOLT_DOUBLE_INT, BOLT_MAXLOC, world) != BOLT_OK)
        most = coll;
    /* of that, the collectives' own: each call's shortest time on any rank */
    double own = 0;
    size_t ncalls = 0;
    if (K == 1 && size > 1 && coll_times_own(&tpc.calls, tpc.comm, &own, &ncalls) != BOLT_OK)
        ncalls = 0;
    if (rank != 0)
        goto done;
    fprintf(stderr, "bolt-llm: load time = %10.2f ms\n", t_load * 1e3);
    for (int r = 0; all && r < size; r++) {
        char margin[64] = "";
        if (all[r].margin > 0)
            snprintf(margin, sizeof margin, ", %.1f MiB of it margins to balance", all[r].margin / 1048576.0);
        fprintf(stderr, "bolt-llm: memory, rank %d on %s: %.1f MiB resident%s, weights %.1f MiB (%s%s), KV cache %.1f MiB\n",
                r, all[r].host, all[r].resident / 1048576.0, all[r].peak ? " at the peak" : "", all[r].weights / 1048576.0,
                all[r].own ? "its own shard" : o.no_mmap ? "the model's, read in" : "the model's, mapped", margin,
                all[r].kv / 1048576.0);
    }
    if (all && T > 1 && K == 1)
        report_speeds(all, size, o.tp_balance);
    free(all);
    all = NULL;
    fprintf(stderr, "bolt-llm: prompt eval time = %10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)\n",
            t_prompt * 1e3, n - gen, t_prompt * 1e3 / (n - gen), (n - gen) / t_prompt);
    if (decoded > 0)
        fprintf(stderr, "bolt-llm:        eval time = %10.2f ms / %5d runs   (%8.2f ms per token, %8.2f tokens per second)\n",
                t_gen * 1e3, decoded, t_gen * 1e3 / decoded, decoded / t_gen);
    if (decoded > 0 && K > 1)
        fprintf(stderr, "bolt-llm: pipeline parallel, %d stages of %d rank%s: the stream and collectives %.3f ms per token "
                "(%.1f%% of it, waits for the stage before included) on rank 0, %.3f ms (%.1f%%) on rank %d, the most; "
                "%.1f KB a token rank 0's part of them\n", K, T, T > 1 ? "s" : "", tpc.secs * 1e3 / decoded,
                100.0 * tpc.secs / t_gen, most.v * 1e3 / decoded, 100.0 * most.v / t_gen, most.i,
                (double)tpc.bytes / 1024.0 / decoded);
    else if (decoded > 0 && size > 1)
        fprintf(stderr, "bolt-llm: tensor parallel over %d ranks: collectives %.3f ms per token (%.1f%% of it) on rank 0, "
                "%.3f ms (%.1f%%) on rank %d, the most; %.1f KB a token rank 0's part of them\n", size,
                tpc.secs * 1e3 / decoded, 100.0 * tpc.secs / t_gen, most.v * 1e3 / decoded, 100.0 * most.v / t_gen, most.i,
                (double)tpc.bytes / 1024.0 / decoded);
    if (decoded > 0 && K == 1 && ncalls > 0)
        fprintf(stderr, "bolt-llm: tensor parallel over %d ranks: the collectives' own time %.3f ms per token (%.1f%% of it; "
                "%zu calls, each the time of the rank that spent least in it, the last to arrive); the rest of a rank's "
                "time in them is waiting for slower ranks\n", size, own * 1e3 / decoded, 100.0 * own / t_gen, ncalls);
    for (int vocab = 0; vocab < 2; vocab++) {
        const int *bounds;
        const int moves = inf_ctx_balance(c, vocab, &bounds);
        if (moves < 0)
            continue;
        /* rank 0's group; under pipeline parallel each stage moves its own */
        fprintf(stderr, "bolt-llm: the %s split (--tp-balance %.3g) moved %d time%s%s:", vocab ? "vocabulary's" : "MLP's hidden units'",
                (double)o.tp_balance, moves, moves == 1 ? "" : "s", K > 1 && !vocab ? " in rank 0's stage" : "");
        for (int r = 0; r < T; r++)
            fprintf(stderr, " %d", bounds[r + 1] - bounds[r]);
        fprintf(stderr, " a rank (even: %d)\n", (vocab ? m->hp.n_vocab : m->hp.n_ff) / T);
    }
done:
    free(all);
    rc = 0;
out:
    if (shm.fetch)
        unlink(shm.path); /* a copy not loaded (share_fetch unlinks it once it is) */
    inf_sampler_free(smp);
    free(toks);
    inf_ctx_free(c);
    inf_vocab_free(v);
    inf_model_free(m);
    free(text);
    if (group != world)
        bolt_comm_free(&group);
    (void)pp_flush(&tpc); /* nothing left in flight from the buffers freed here */
    free(tpc.sbuf[0]);
    free(tpc.sbuf[1]);
    coll_times_free(&tpc.calls);
    bolt_finalize();
    return rc;
}
