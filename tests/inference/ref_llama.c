/*
 * ref_llama.c — the independent reference: llama.cpp's prebuilt libllama
 * (npm @node-llama-cpp/linux-x64), built by the tests against the llama.h of
 * the same release (the node-llama-cpp package) and run on the same GGUF as
 * Bolt. Prints, as lines a test can diff:
 *   tokens: the prompt's tokens (BOS as the model says, special tokens parsed)
 *   greedy: N tokens of greedy continuation
 *   and, with a logits file, the prompt's last logits (float32, n_vocab).
 *
 *   ref_llama BACKEND_DIR MODEL PROMPT N THREADS [LOGITS_OUT]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ggml-backend.h"
#include "llama.h"

static void quiet(enum ggml_log_level level, const char *text, void *user)
{
    (void)user;
    if (level >= GGML_LOG_LEVEL_ERROR)
        fputs(text, stderr);
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: ref_llama BACKEND_DIR MODEL PROMPT N THREADS [LOGITS_OUT]\n");
        return 2;
    }
    llama_log_set(quiet, NULL);
    ggml_backend_load_all_from_path(argv[1]);
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    struct llama_model *model = llama_model_load_from_file(argv[2], mp);
    if (!model) {
        fprintf(stderr, "ref_llama: cannot load %s\n", argv[2]);
        return 1;
    }
    const struct llama_vocab *vocab = llama_model_get_vocab(model);
    const int n_vocab = llama_vocab_n_tokens(vocab), n_predict = atoi(argv[4]), threads = atoi(argv[5]);
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = 512;
    cp.n_batch = 512;
    cp.n_threads = threads;
    cp.n_threads_batch = threads;
    cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    struct llama_context *ctx = llama_init_from_model(model, cp);
    if (!ctx) {
        fprintf(stderr, "ref_llama: cannot create a context\n");
        return 1;
    }
    llama_token toks[512];
    int n = llama_tokenize(vocab, argv[3], (int32_t)strlen(argv[3]), toks, 512, true, true);
    if (n < 0) {
        fprintf(stderr, "ref_llama: prompt too long\n");
        return 1;
    }
    printf("tokens:");
    for (int i = 0; i < n; i++)
        printf(" %d", toks[i]);
    printf("\n");
    if (llama_decode(ctx, llama_batch_get_one(toks, n))) {
        fprintf(stderr, "ref_llama: decode failed\n");
        return 1;
    }
    if (argc > 6) {
        FILE *f = fopen(argv[6], "wb");
        if (!f || fwrite(llama_get_logits_ith(ctx, -1), sizeof(float), (size_t)n_vocab, f) != (size_t)n_vocab) {
            fprintf(stderr, "ref_llama: cannot write %s\n", argv[6]);
            return 1;
        }
        fclose(f);
    }
    printf("greedy:");
    for (int i = 0; i < n_predict; i++) {
        const float *lg = llama_get_logits_ith(ctx, -1);
        int best = 0;
        for (int k = 1; k < n_vocab; k++)
            if (lg[k] > lg[best])
                best = k;
        printf(" %d", best);
        llama_token t = best;
        if (llama_decode(ctx, llama_batch_get_one(&t, 1))) {
            fprintf(stderr, "ref_llama: decode failed\n");
            return 1;
        }
    }
    printf("\n");
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
