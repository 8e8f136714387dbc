/*
 * model.h — a transformer model from a GGUF file: its architecture (a row
 * of a table, arch.c), hyperparameters from the metadata and weight tensors
 * bound by name and checked against the shapes the architecture implies.
 * The weights stay in the mapped file.
 */
#ifndef INF_MODEL_H
#define INF_MODEL_H

#include "inference/gguf.h"
#include "inference/types.h"

/* RoPE on adjacent pairs (x[2i], x[2i+1]) or on halves (x[i], x[i+d/2]). */
enum inf_rope { INF_ROPE_NORM, INF_ROPE_NEOX };

/* What an architecture is made of: the engine's forward pass reads these
 * flags, so a new architecture is a new row (and, for a new kind of block,
 * a new flag), not a new forward pass. */
enum {
    INF_ARCH_QKV_BIAS = 1 << 0, /* attn_{q,k,v}.bias (qwen2) */
    INF_ARCH_QK_NORM = 1 << 1,  /* RMSNorm of each head of Q and K (qwen3) */
    INF_ARCH_MOE = 1 << 2,      /* experts instead of the dense MLP */
};

typedef struct inf_arch {
    const char *name;
    enum inf_rope rope;
    unsigned flags;
    int moe_norm_default; /* top-k weights renormalised unless the file says */
} inf_arch_t;

const inf_arch_t *inf_arch_find(const char *name, size_t len);
/* The architectures known, comma-separated (for messages). */
const char *inf_arch_names(void);

/* A weight: its bytes in the map, its type's kernels, its shape. */
typedef struct inf_w {
    const void *data;
    const inf_type_t *type;
    int64_t ne[4];
    size_t row_bytes; /* bytes of one row of ne[0] elements */
} inf_w_t;

/* Matrices stay in the map; vectors (norms, biases) are read into F32. */
typedef struct inf_layer {
    float *attn_norm, *ffn_norm;
    inf_w_t wq, wk, wv, wo;
    float *bq, *bk, *bv;          /* INF_ARCH_QKV_BIAS */
    float *q_norm, *k_norm;       /* INF_ARCH_QK_NORM */
    inf_w_t w_gate, w_up, w_down; /* dense */
    inf_w_t router, gate_exps, up_exps, down_exps; /* INF_ARCH_MOE: [.., .., n_expert] */
} inf_layer_t;

typedef struct inf_hparams {
    int n_vocab, n_ctx_train, n_embd, n_layer, n_ff;
    int n_head, n_head_kv, head_dim, head_dim_v;
    int n_rot;
    float norm_eps, rope_base, rope_scale; /* rope_scale: positions are divided by it (linear) */
    int n_expert, n_expert_used, n_ff_exp, moe_norm;
    float moe_scale;
} inf_hparams_t;

typedef struct inf_model {
    char *path;
    gguf_t *gguf;
    const inf_arch_t *arch;
    inf_hparams_t hp;
    inf_w_t tok_embd, output;
    float *output_norm;
    float *rope_freqs; /* per-dimension divisors (llama 3.1), or NULL */
    inf_layer_t *layers;
    uint64_t weight_bytes; /* every tensor the forward pass reads */
    /* what generating one token reads of them: every weight, but one row of
     * an embedding table that is not also the output, and n_expert_used of
     * n_expert experts (a memory roofline's bytes per token) */
    uint64_t token_bytes;
    const char *ftype_name; /* the weights' most common type, for reports */
} inf_model_t;

/* Opens and checks a model. Returns 0, or -1 with a message naming the file
 * and the key or tensor in err. */
int inf_model_load(const char *path, inf_model_t **out, char *err, size_t errlen);
/* How a model is loaded; zeroed is inf_model_load's way. */
typedef struct inf_load_params {
    int no_mmap; /* read the file into memory rather than map it (--no-mmap) */
} inf_load_params_t;
int inf_model_load_with(const char *path, const inf_load_params_t *lp, inf_model_t **out, char *err, size_t errlen);
void inf_model_free(inf_model_t *m);

#endif
