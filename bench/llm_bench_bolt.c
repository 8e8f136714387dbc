/*
 * llm_bench_bolt.c — bolt-llm's engine timed as llama-bench times
 * llama.cpp: pp (a prompt of P tokens in one batch) and tg (G tokens
 * generated one at a time after it), REPS times each, medians of the
 * tokens per second. Prints one CSV row:
 *   engine,model,threads,pp_tokens,pp_tps,tg_tokens,tg_tps,token_bytes
 * token_bytes: the weights one generated token reads (model.h), the
 * roofline's bytes per token.
 *
 *   llm_bench_bolt MODEL THREADS [P G REPS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_stats.h"

#include "blas/kernels.h"
#include "inference/engine.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Tokens/s of G tokens generated one at a time from where the context is. */
static double generate(inf_ctx_t *c, const int32_t *tok, int G, char *err, size_t cap)
{
    const double t0 = now();
    for (int g = 0; g < G; g++)
        inf_decode(c, &tok[g], 1, err, cap);
    return G / (now() - t0);
}

int main(int argc, char **argv)
{
    blas_kernels_ensure("llm_bench_bolt", argv);
    if (argc < 3) {
        fprintf(stderr, "usage: llm_bench_bolt MODEL THREADS [P G REPS [mmap|read]]\n");
        return 2;
    }
    int th = atoi(argv[2]), P = argc > 3 ? atoi(argv[3]) : 512, G = argc > 4 ? atoi(argv[4]) : 128,
        reps = argc > 5 ? atoi(argv[5]) : 3;
    /* read: the model read into memory (bolt-llm --no-mmap) */
    inf_load_params_t lp = {.no_mmap = argc > 6 && !strcmp(argv[6], "read")};
    char err[1024];
    inf_model_t *m;
    inf_ctx_t *c;
    inf_ctx_params_t cp = {.n_ctx = P + G + 16, .n_batch = P, .n_threads = th, .kv_type = GGML_F16};
    if (inf_model_load_with(argv[1], &lp, &m, err, sizeof err) || inf_ctx_new(m, &cp, &c, err, sizeof err)) {
        fprintf(stderr, "llm_bench_bolt: %s\n", err);
        return 1;
    }
    int32_t *tok = malloc((size_t)(P + G) * sizeof *tok);
    uint64_t s = 12345;
    for (int i = 0; i < P + G; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        tok[i] = (int32_t)((s >> 33) % (uint64_t)m->hp.n_vocab);
    }
    double *pp = calloc((size_t)reps, sizeof *pp), *tg = calloc((size_t)reps, sizeof *tg),
           *tg0 = calloc((size_t)reps, sizeof *tg0);
    /* warm-up: the weights into the page cache, the threads started */
    if (inf_decode(c, tok, P < 16 ? P : 16, err, sizeof err)) {
        fprintf(stderr, "llm_bench_bolt: %s\n", err);
        return 1;
    }
    for (int r = 0; r < reps; r++) {
        inf_ctx_truncate(c, 0);
        double t0 = now();
        inf_decode(c, tok, P, err, sizeof err);
        pp[r] = P / (now() - t0);
        tg[r] = generate(c, &tok[P], G, err, sizeof err);
        /* generation from an empty context, as llama-bench's tg test */
        inf_ctx_truncate(c, 0);
        tg0[r] = generate(c, &tok[P], G, err, sizeof err);
    }
    const double ppm = bench_median(pp, reps), tgm = bench_median(tg, reps), tg0m = bench_median(tg0, reps);
    /* the cache bytes a generated token reads at each position it attends to */
    const uint64_t kv_pos =
        2ull * (uint64_t)m->hp.n_layer * (uint64_t)m->hp.n_head_kv * (uint64_t)inf_row_bytes(inf_type(cp.kv_type), m->hp.head_dim);
    const char *name = strrchr(argv[1], '/');
    printf("bolt,%s,%d,%d,%.2f,%d,%.2f,%llu,%.2f,%llu\n", name ? name + 1 : argv[1], th, P, ppm, G, tgm,
           (unsigned long long)m->token_bytes, tg0m, (unsigned long long)kv_pos);
    inf_ctx_free(c);
    inf_model_free(m);
    free(tok);
    free(pp);
    free(tg);
    free(tg0);
    return 0;
}
