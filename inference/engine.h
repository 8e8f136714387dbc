/*
 * engine.h — running a model: a context holds the KV cache, the scratch of
 * a batch and the threads; decode runs a batch of tokens (a prompt's many at
 * once, or one when generating) through every layer and leaves the logits.
 */
#ifndef INF_ENGINE_H
#define INF_ENGINE_H

#include "inference/model.h"
#include "inference/pool.h"

/* Tensor parallel: this process is rank `rank` of `size`, each holding a
 * slice of every layer (attention by key/value heads, the MLP by hidden
 * units, the output by vocabulary rows) and the whole residual stream. The
 * engine calls these between its products; each returns 0, or nonzero to
 * stop the pass (the caller reports its own error). */
typedef struct inf_tp {
    int rank, size;
    void *self;
    /* x[0 .. n) summed over the ranks, the sum on every rank */
    int (*allreduce_sum)(void *self, float *x, size_t n);
    /* rank r's counts[r] floats at x + displs[r] to every rank */
    int (*allgatherv)(void *self, float *x, const size_t *counts, const size_t *displs);
    /* every rank's `bytes` at mine, in rank order at all (NULL: the MLP's
     * split stays even, whatever tp_balance asks) */
    int (*allgather)(void *self, const void *mine, void *all, size_t bytes);
} inf_tp_t;

/* Pipeline parallel: this process is stage `stage` of `stages`, holding
 * the layers [l0, l0 + nl) of inf_ctx_shard (split by their bytes, the
 * output weights counted with the last stage); the residual stream goes
 * from stage to stage, the last one makes the logits (the others have none).
 * With tensor parallel too, each stage is a group of ranks and a rank sends
 * to the rank of the same place in the next group. Every stage decodes the
 * same token counts (the tokens matter only to the first). */
typedef struct inf_pp {
    int stage, stages;
    void *self;
    /* n floats of the stream to the next stage, from the previous one */
    int (*send)(void *self, const float *x, size_t n);
    int (*recv)(void *self, float *x, size_t n);
} inf_pp_t;

typedef struct inf_ctx_params {
    int n_ctx;         /* positions the cache holds (0: the model's training context, at most 4096) */
    int n_batch;       /* tokens a forward pass takes at most */
    int n_threads;
    uint32_t kv_type;  /* GGML_F16 (default), GGML_F32 or GGML_Q8_0 */
    int all_logits;    /* keep every token's logits, not only the last one's */
    const inf_tp_t *tp; /* NULL: the whole model here */
    int local_logits;   /* under tp: leave each rank only its slice of the logits, in place
                           (the caller reduces what it needs, a greedy token by MAXLOC) */
    int moe_split;      /* under tp, a mixture of experts: INF_MOE_SLICE or INF_MOE_EXPERT (0: the default) */
    const inf_pp_t *pp; /* NULL: every layer here */
    int n_ubatch;       /* under pp, tokens a stage passes on at once (0: a prompt in up to
                           2 x stages pieces of 64 tokens at least, so that the stages overlap) */
    double tp_balance;  /* under tp, a dense MLP: each rank holds up to this fraction (under 0.5)
                           of its even share of hidden units more, and the ranks move the split
                           within it toward equal time a token (balance.h); 0: the even split */
} inf_ctx_params_t;

/* How tensor parallel shares a mixture of experts: every rank a slice of
 * every expert's hidden units (as the dense MLP), or whole experts a rank
 * (expert parallel: each evaluates only the experts it holds of those the
 * router chose). Either way one all-reduce a block. */
enum { INF_MOE_SLICE = 1, INF_MOE_EXPERT = 2 };
#define INF_MOE_DEFAULT INF_MOE_EXPERT

typedef struct inf_ctx inf_ctx_t;

int inf_ctx_new(inf_model_t *m, const inf_ctx_params_t *p, inf_ctx_t **out, char *err, size_t errlen);
void inf_ctx_free(inf_ctx_t *c);

/* Runs n tokens at the next n positions (in batches of n_batch). Returns 0,
 * or -1 with a message (context full, a token out of the vocabulary, a
 * collective of tensor parallel that failed). */
int inf_decode(inf_ctx_t *c, const int32_t *tokens, int n, char *err, size_t errlen);
/* The logits of token i of the last decode (-1: its last); with all_logits
 * any i, else only the last. */
const float *inf_logits(const inf_ctx_t *c, int i);
int inf_ctx_pos(const inf_ctx_t *c);
int inf_ctx_size(const inf_ctx_t *c);
/* Forgets the cache from position pos on (0: all). */
void inf_ctx_truncate(inf_ctx_t *c, int pos);
const inf_model_t *inf_ctx_model(const inf_ctx_t *c);
/* This rank's part under tensor and pipeline parallel: key/value heads [hk0, hk0 + nhk),
 * hidden units [f0, f0 + nf), vocabulary rows [v0, v0 + nv); of a mixture
 * of experts, experts [x0, x0 + nx) and of each their hidden units
 * [fe0, fe0 + nfe). */
typedef struct inf_shard {
    int hk0, nhk, f0, nf, v0, nv;
    int fh0, nfh, fblock; /* hidden units held [fh0, fh0 + nfh) (f0 .. within them, moving when
                             the split is balanced); the split moves in blocks of fblock */
    int vh0, nvh;         /* vocabulary rows held, v0 .. within them */
    int x0, nx, fe0, nfe;
    int l0, nl; /* layers (pipeline parallel) */
} inf_shard_t;
inf_shard_t inf_ctx_shard(const inf_ctx_t *c);
/* Bytes of the weights this context multiplies by (under tensor or pipeline
 * parallel its own copy of its shard; else the model's, *own 0) and of its
 * KV cache. */
void inf_ctx_memory(const inf_ctx_t *c, size_t *weights, int *own, size_t *kv);
/* Bytes of this rank's weights held beyond its even share, for a balanced
 * split to move within (tp_balance). */
size_t inf_ctx_margin_bytes(const inf_ctx_t *c);
/* Under a balanced split (tp_balance): the times the MLP's split (vocab 0)
 * or the output's (vocab 1) moved and its boundaries now (rank r of the
 * tensor-parallel group computes hidden units, or vocabulary rows,
 * [bounds[r], bounds[r + 1])); -1 when that split stays even. */
int inf_ctx_balance(const inf_ctx_t *c, int vocab, const int **bounds);
/* Under tensor parallel: the seconds this rank's MLP products and output
 * product took a generated token, on average over the tokens it returns
 * (single-token decodes; 0 before any). */
int inf_ctx_tp_times(const inf_ctx_t *c, double *mlp, double *out);
/* Every run of the model's bytes a context made with p would read, told to
 * need (in the order of the weights, the embeddings last): what a rank
 * without the file must be sent (bolt-llm --share-model). The model's
 * vectors (norms, biases), read when it loads, are not told. Returns 0 or
 * -1 with a message. */
int inf_ctx_plan(inf_model_t *m, const inf_ctx_params_t *p, void (*need)(void *arg, const void *at, size_t len),
                 void *arg, char *err, size_t errlen);

#endif
