/*
 * llm_bench_ref.c — llama.cpp (its prebuilt libllama from the test data)
 * timed the way llm_bench_bolt.c times Bolt: pp (P tokens in one batch), tg
 * (G tokens one at a time after it), REPS times, medians; one CSV row:
 *   engine,model,threads,pp_tokens,pp_tps,tg_tokens,tg_tps,0
 * Built by bench/llm-compare against the llama.h of the same release.
 *
 *   llm_bench_ref BACKEND_DIR MODEL THREADS [P G REPS [mmap|read]]
 * (read: the model read into memory, llama.cpp's --no-mmap)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_stats.h"

#include "ggml-backend.h"
#include "llama.h"

static void quiet(enum ggml_log_level level, const char *text, void *user)
{
    (void)user;
    if (level >= GGML_LOG_LEVEL_ERROR)
        fputs(text, stderr);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Tokens/s of G tokens generated one at a time from where the context is. */
static double generate(struct llama_context *ctx, llama_token *tok, int G)
{
    const double t0 = now();
    for (int g = 0; g < G; g++)
        llama_decode(ctx, llama_batch_get_one(&tok[g], 1));
    llama_synchronize(ctx);
    return G / (now() - t0);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: llm_bench_ref BACKEND_DIR MODEL THREADS [P G REPS [mmap|read]]\n");
        return 2;
    }
    int th = atoi(argv[3]), P = argc > 4 ? atoi(argv[4]) : 512, G = argc > 5 ? atoi(argv[5]) : 128,
        reps = argc > 6 ? atoi(argv[6]) : 3;
    llama_log_set(quiet, NULL);
    ggml_backend_load_all_from_path(argv[1]);
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    if (argc > 7 && !strcmp(argv[7], "read"))
        mp.load_mode = LLAMA_LOAD_MODE_NONE;
    struct llama_model *model = llama_model_load_from_file(argv[2], mp);
    if (!model)
        return 1;
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = (uint32_t)(P + G + 16);
    cp.n_batch = (uint32_t)P;
    cp.n_ubatch = (uint32_t)P;
    cp.n_threads = th;
    cp.n_threads_batch = th;
    struct llama_context *ctx = llama_init_from_model(model, cp);
    if (!ctx)
        return 1;
    const int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
    llama_token *tok = malloc((size_t)(P + G) * sizeof *tok);
    unsigned long long s = 12345;
    for (int i = 0; i < P + G; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        tok[i] = (llama_token)((s >> 33) % (unsigned long long)n_vocab);
    }
    double *pp = calloc((size_t)reps, sizeof *pp), *tg = calloc((size_t)reps, sizeof *tg),
           *tg0 = calloc((size_t)reps, sizeof *tg0);
    llama_decode(ctx, llama_batch_get_one(tok, P < 16 ? P : 16));
    for (int r = 0; r < reps; r++) {
        llama_memory_clear(llama_get_memory(ctx), true);
        double t0 = now();
        llama_decode(ctx, llama_batch_get_one(tok, P));
        llama_synchronize(ctx);
        pp[r] = P / (now() - t0);
        tg[r] = generate(ctx, &tok[P], G);
        /* generation from an empty context, as llama-bench's tg test */
        llama_memory_clear(llama_get_memory(ctx), true);
        tg0[r] = generate(ctx, &tok[P], G);
    }
    const double ppm = bench_median(pp, reps), tgm = bench_median(tg, reps), tg0m = bench_median(tg0, reps);
    const char *name = strrchr(argv[2], '/');
    printf("llama.cpp,%s,%d,%d,%.2f,%d,%.2f,0,%.2f,0\n", name ? name + 1 : argv[2], th, P, ppm, G, tgm, tg0m);
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}
