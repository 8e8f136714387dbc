/*
 * bolt_dump.c — Bolt's side of the reference comparison, the same output as
 * ref_llama.c: the prompt's tokens, N greedy tokens, and the prompt's last
 * logits (float32) when a file is named.
 *
 *   bolt_dump MODEL PROMPT N THREADS [LOGITS_OUT] [KV_TYPE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inference/engine.h"
#include "inference/vocab.h"

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: bolt_dump MODEL PROMPT N THREADS [LOGITS_OUT] [f16|f32|q8_0]\n");
        return 2;
    }
    char err[1024];
    inf_model_t *m;
    inf_vocab_t *v;
    inf_ctx_t *c;
    uint32_t kv = argc > 6 && !strcmp(argv[6], "f32") ? GGML_F32 : argc > 6 && !strcmp(argv[6], "q8_0") ? GGML_Q8_0 : GGML_F16;
    inf_ctx_params_t cp = {.n_ctx = 512, .n_batch = 512, .n_threads = atoi(argv[4]), .kv_type = kv};
    if (inf_model_load(argv[1], &m, err, sizeof err) || inf_vocab_load(m->gguf, argv[1], &v, err, sizeof err) ||
        inf_ctx_new(m, &cp, &c, err, sizeof err)) {
        fprintf(stderr, "bolt_dump: %s\n", err);
        return 1;
    }
    int32_t toks[512];
    int n = inf_tokenize(v, argv[2], strlen(argv[2]), 1, 1, toks, 512);
    printf("tokens:");
    for (int i = 0; i < n; i++)
        printf(" %d", toks[i]);
    printf("\n");
    if (inf_decode(c, toks, n, err, sizeof err)) {
        fprintf(stderr, "bolt_dump: %s\n", err);
        return 1;
    }
    if (argc > 5) {
        FILE *f = fopen(argv[5], "wb");
        if (!f || fwrite(inf_logits(c, -1), sizeof(float), (size_t)m->hp.n_vocab, f) != (size_t)m->hp.n_vocab)
            return 1;
        fclose(f);
    }
    printf("greedy:");
    for (int i = 0, np = atoi(argv[3]); i < np; i++) {
        const float *lg = inf_logits(c, -1);
        int32_t best = 0;
        for (int k = 1; k < m->hp.n_vocab; k++)
            if (lg[k] > lg[best])
                best = k;
        printf(" %d", best);
        if (inf_decode(c, &best, 1, err, sizeof err)) {
            fprintf(stderr, "bolt_dump: %s\n", err);
            return 1;
        }
    }
    printf("\n");
    inf_ctx_free(c);
    inf_vocab_free(v);
    inf_model_free(m);
    return 0;
}
