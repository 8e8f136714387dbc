/*
 * shard.h — how tensor, expert and pipeline parallel cut a model: each
 * rank's part of it (inf_shard_t, engine.h) and its own copy of the weights
 * of that part (the engine's context holds it).
 */
#ifndef INF_SHARD_H
#define INF_SHARD_H

#include "inference/engine.h"

/* Rank r of n's heads, hidden units, vocabulary rows and experts (split
 * INF_MOE_SLICE or INF_MOE_EXPERT); every layer. */
inf_shard_t inf_shard_of(const inf_model_t *m, int r, int n, int split);
/* Stage s of n's layers [*l0, *l0 + *nl). */
void inf_shard_layers(const inf_model_t *m, int s, int n, int *l0, int *nl);
/* Bytes of a weight (every expert of one). */
uint64_t inf_w_bytes(const inf_w_t *w);

/* Where inf_shard_weights copies: mem (NULL: it only counts into used and
 * tells need every run of the model's bytes a copy would read); the
 * model's gguf, whose pages it lets go as it copies each weight. */
typedef struct inf_own {
    uint8_t *mem;
    size_t used;
    void (*need)(void *arg, const void *at, size_t len);
    void *arg;
    const gguf_t *g;
} inf_own_t;
void inf_shard_weights(const inf_model_t *m, const inf_shard_t *s, int last, inf_own_t *o, inf_layer_t *lw, inf_w_t *out);

#endif
