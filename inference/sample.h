/*
 * sample.h — choosing the next token from the logits, in llama.cpp's order:
 * repetition penalty, top-k, top-p, min-p, temperature, then a draw from a
 * seeded generator (temperature 0 or less: the most likely token).
 */
#ifndef INF_SAMPLE_H
#define INF_SAMPLE_H

#include <stdint.h>

typedef struct inf_sampler_params {
    float temp;           /* 0.8; <= 0: greedy */
    int top_k;            /* 40; <= 0: all */
    float top_p;          /* 0.95; 1: off */
    float min_p;          /* 0.05; 0: off */
    float repeat_penalty; /* 1.0: off */
    int repeat_last_n;    /* 64 */
    uint64_t seed;
} inf_sampler_params_t;

typedef struct inf_sampler inf_sampler_t;

inf_sampler_t *inf_sampler_new(const inf_sampler_params_t *p, int n_vocab);
void inf_sampler_free(inf_sampler_t *s);
/* The next token; history: the tokens so far (prompt and generated). */
int32_t inf_sample(inf_sampler_t *s, const float *logits, const int32_t *history, int n_history);
/* Whether s takes the most likely token (temperature 0 or less). */
int inf_sampler_greedy(const inf_sampler_t *s);
/* Greedy over tokens [v0, v0 + nv) only (a rank's slice of the vocabulary):
 * the most likely after the repetition penalty, the lower on a tie, and its
 * logit; what inf_sample gives when the range is the whole vocabulary. */
int32_t inf_sample_greedy_range(const inf_sampler_t *s, const float *logits, int v0, int nv, const int32_t *history,
                                int n_history, float *logit);

#endif
