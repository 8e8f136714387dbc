/*
 * mkmodel.c — bolt-llm-mkmodel: writes a GGUF model with random weights on
 * top of a real tokenizer (a vocab-only GGUF such as llama.cpp's
 * ggml-vocab-*.gguf), in the shape of a known model, quantized by the
 * engine's own quantizers: the models every test and benchmark uses (no
 * weights can be downloaded here). Deterministic for a seed.
 *
 *   bolt-llm-mkmodel --vocab VOCAB.gguf --shape stories110M --type Q4_K_M -o out.gguf
 *       [--seed S] [--split N] [--layers L] [--ctx C]
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inference/gguf.h"
#include "inference/gguf_write.h"
#include "inference/types.h"

typedef struct shape {
    const char *name, *arch;
    int n_embd, n_layer, n_head, n_head_kv, head_dim, n_ff, n_ctx;
    float rope_base, eps;
    int tied;
    int n_expert, n_expert_used, n_ff_exp;
} shape_t;

/* head_dim 0: n_embd / n_head. Shapes of public models (their sizes, not
 * their weights); "tiny-*" ones are for quick tests. */
static const shape_t shapes[] = {
    {"stories15M", "llama", 288, 6, 6, 6, 0, 768, 256, 10000, 1e-5f, 1, 0, 0, 0},
    {"stories110M", "llama", 768, 12, 12, 12, 0, 2048, 1024, 10000, 1e-5f, 1, 0, 0, 0},
    {"llama3-small", "llama", 512, 4, 8, 2, 0, 1536, 2048, 500000, 1e-5f, 0, 0, 0, 0},
    {"qwen3-0.6B", "qwen3", 1024, 28, 16, 8, 128, 3072, 40960, 1000000, 1e-6f, 1, 0, 0, 0},
    {"qwen3moe-small", "qwen3moe", 512, 4, 8, 4, 64, 0, 4096, 1000000, 1e-6f, 0, 16, 4, 256},
    {"qwen2-small", "qwen2", 256, 2, 4, 2, 0, 768, 2048, 1000000, 1e-6f, 0, 0, 0, 0},
    {"tiny-llama", "llama", 256, 2, 4, 2, 0, 512, 512, 10000, 1e-5f, 0, 0, 0, 0},
    {"tiny-qwen3", "qwen3", 256, 2, 4, 2, 64, 512, 512, 1000000, 1e-6f, 1, 0, 0, 0},
};

typedef struct tensor_spec {
    char name[64];
    int n_dims;
    uint64_t ne[3];
    uint32_t type;
    float scale; /* std of the values; 0: a norm weight (1 + noise) */
} tspec_t;

typedef struct ctx {
    uint64_t seed;
    tspec_t *t;
} ctx_t;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Roughly normal values from (seed, tensor, index). */
static float gauss(uint64_t *s)
{
    float a = 0;
    for (int i = 0; i < 4; i++) {
        *s = mix(*s + 0x9e3779b97f4a7c15ull);
        a += (float)(*s >> 40) / 16777216.0f - 0.5f;
    }
    return a * 1.7320508f;
}

static int fill(void *vctx, int index, void *dst, size_t nbytes)
{
    ctx_t *c = vctx;
    const tspec_t *t = &c->t[index];
    uint64_t row = t->ne[0], rows = t->n_dims > 1 ? t->ne[1] * (t->n_dims > 2 ? t->ne[2] : 1) : 1;
    const inf_type_t *ty = inf_type(t->type);
    if (!ty || inf_row_bytes(ty, (int64_t)row) * rows != nbytes)
        return -1;
    float *f = malloc(row * sizeof *f);
    if (!f)
        return -1;
    uint64_t s = mix(c->seed * 1000003ull + (uint64_t)index);
    for (uint64_t r = 0; r < rows; r++) {
        for (uint64_t i = 0; i < row; i++)
            f[i] = t->scale == 0 ? 1.0f + 0.1f * gauss(&s) : t->scale * gauss(&s);
        ty->from_float(f, (char *)dst + r * inf_row_bytes(ty, (int64_t)row), (int64_t)row);
    }
    free(f);
    return 0;
}

/* The type a 2-D weight gets under a file type (UINT32_MAX: no such file
 * type); block sizes that do not divide the row fall back to Q8_0 (then
 * F16), as llama.cpp's quantizer does. */
static uint32_t wtype(const char *ftype, const char *name, int layer, int n_layer, uint64_t row)
{
    uint32_t t;
    int upgrade = strstr(name, "output.weight") || ((strstr(name, "attn_v") || strstr(name, "ffn_down")) &&
                                                    (layer < n_layer / 8 + 1 || layer % 2 == 0));
    if (!strcmp(ftype, "F32"))
        t = GGML_F32;
    else if (!strcmp(ftype, "F16"))
        t = GGML_F16;
    else if (!strcmp(ftype, "BF16"))
        t = GGML_BF16;
    else if (!strcmp(ftype, "Q8_0"))
        t = GGML_Q8_0;
    else if (!strcmp(ftype, "Q4_0"))
        t = GGML_Q4_0;
    else if (!strcmp(ftype, "Q4_K_M"))
        t = upgrade ? GGML_Q6_K : GGML_Q4_K;
    else if (!strcmp(ftype, "Q5_K_M"))
        t = upgrade ? GGML_Q6_K : GGML_Q5_K;
    else if (!strcmp(ftype, "Q6_K"))
        t = GGML_Q6_K;
    else
        return UINT32_MAX;
    size_t bytes;
    int blk = gguf_type_block(t, &bytes);
    if (row % (uint64_t)blk)
        t = row % 32 ? GGML_F16 : GGML_Q8_0;
    return t;
}

static int file_type_id(const char *ftype)
{
    static const struct {
        const char *n;
        int id;
    } ids[] = {{"F32", 0}, {"F16", 1}, {"Q4_0", 2}, {"Q8_0", 7}, {"Q4_K_M", 15}, {"Q5_K_M", 17}, {"Q6_K", 18}, {"BF16", 32}};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (!strcmp(ids[i].n, ftype))
            return ids[i].id;
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: bolt-llm-mkmodel --vocab VOCAB.gguf --shape SHAPE --type TYPE -o OUT.gguf [--seed S] "
                    "[--split N] [--layers L] [--ctx C]\n  shapes:");
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        fprintf(stderr, " %s", shapes[i].name);
    fprintf(stderr, "\n  types: F32 F16 BF16 Q8_0 Q4_0 Q4_K_M Q5_K_M Q6_K\n");
}

int main(int argc, char **argv)
{
    const char *vocab = NULL, *shape_name = NULL, *ftype = "F32", *out = NULL;
    uint64_t seed = 1;
    int split = 1, layers = 0, ctxlen = 0;
    static const struct option opts[] = {{"vocab", 1, 0, 'v'}, {"shape", 1, 0, 's'}, {"type", 1, 0, 't'}, {"seed", 1, 0, 'r'},
                                         {"split", 1, 0, 'p'}, {"layers", 1, 0, 'l'}, {"ctx", 1, 0, 'c'},  {"help", 0, 0, 'h'},
                                         {0, 0, 0, 0}};
    for (int c; (c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1;) {
        switch (c) {
        case 'v': vocab = optarg; break;
        case 's': shape_name = optarg; break;
        case 't': ftype = optarg; break;
        case 'r': seed = strtoull(optarg, NULL, 10); break;
        case 'p': split = atoi(optarg); break;
        case 'l': layers = atoi(optarg); break;
        case 'c': ctxlen = atoi(optarg); break;
        case 'o': out = optarg; break;
        default: usage(); return c == 'h' ? 0 : 2;
        }
    }
    const shape_t *sh = NULL;
    for (size_t i = 0; shape_name && i < sizeof shapes / sizeof shapes[0]; i++)
        if (!strcmp(shapes[i].name, shape_name))
            sh = &shapes[i];
    if (!vocab || !sh || !out || wtype(ftype, "x", 0, 1, 256) == UINT32_MAX || split < 1) {
        usage();
        return 2;
    }
    char err[512];
    gguf_t *v;
    if (gguf_open(vocab, &v, err, sizeof err)) {
        fprintf(stderr, "bolt-llm-mkmodel: %s\n", err);
        return 1;
    }
    const gguf_kv_t *toks = gguf_find(v, "tokenizer.ggml.tokens");
    if (!toks || toks->type != GGUF_ARRAY || !toks->strs) {
        fprintf(stderr, "bolt-llm-mkmodel: %s: no tokenizer.ggml.tokens\n", vocab);
        return 1;
    }
    const uint64_t n_vocab = toks->count;
    shape_t s = *sh;
    if (layers > 0)
        s.n_layer = layers;
    if (ctxlen > 0)
        s.n_ctx = ctxlen;
    const int hd = s.head_dim ? s.head_dim : s.n_embd / s.n_head;
    const int moe = s.n_expert > 0;
    gguf_w_t *w = gguf_w_new();
    char key[128];
#define K(k) (snprintf(key, sizeof key, "%s.%s", s.arch, k), key)
    gguf_w_str(w, "general.architecture", s.arch);
    snprintf(key, sizeof key, "bolt random %s %s seed %llu", s.name, ftype, (unsigned long long)seed);
    gguf_w_str(w, "general.name", key);
    gguf_w_u32(w, "general.file_type", (uint32_t)file_type_id(ftype));
    gguf_w_u32(w, "general.quantization_version", 2);
    gguf_w_u32(w, K("context_length"), (uint32_t)s.n_ctx);
    gguf_w_u32(w, K("embedding_length"), (uint32_t)s.n_embd);
    gguf_w_u32(w, K("block_count"), (uint32_t)s.n_layer);
    gguf_w_u32(w, K("feed_forward_length"), (uint32_t)(moe ? s.n_ff_exp : s.n_ff));
    gguf_w_u32(w, K("attention.head_count"), (uint32_t)s.n_head);
    gguf_w_u32(w, K("attention.head_count_kv"), (uint32_t)s.n_head_kv);
    if (s.head_dim) {
        gguf_w_u32(w, K("attention.key_length"), (uint32_t)hd);
        gguf_w_u32(w, K("attention.value_length"), (uint32_t)hd);
    }
    gguf_w_u32(w, K("rope.dimension_count"), (uint32_t)hd);
    gguf_w_f32(w, K("rope.freq_base"), s.rope_base);
    gguf_w_f32(w, K("attention.layer_norm_rms_epsilon"), s.eps);
    gguf_w_u32(w, K("vocab_size"), (uint32_t)n_vocab);
    if (moe) {
        gguf_w_u32(w, K("expert_count"), (uint32_t)s.n_expert);
        gguf_w_u32(w, K("expert_used_count"), (uint32_t)s.n_expert_used);
        gguf_w_u32(w, K("expert_feed_forward_length"), (uint32_t)s.n_ff_exp);
    }
#undef K
    for (size_t i = 0; i < v->n_kv; i++)
        if (v->kv[i].key.n > 10 && !memcmp(v->kv[i].key.p, "tokenizer.", 10))
            gguf_w_copy(w, &v->kv[i]);

    /* the tensors, in llama.cpp's order */
    size_t cap = 16 + (size_t)s.n_layer * 16;
    tspec_t *t = calloc(cap, sizeof *t);
    int nt = 0;
    const float e = (float)s.n_embd;
    /* embeddings of 1 / sqrt(n_embd): unit-size rows; weights of 1 / sqrt(fan in) */
#define ADD(nm, nd, a, b, c, ty, sc)                                                                            \
    do {                                                                                                        \
        snprintf(t[nt].name, sizeof t[nt].name, "%s", nm);                                                      \
        t[nt].n_dims = nd;                                                                                      \
        t[nt].ne[0] = a;                                                                                        \
        t[nt].ne[1] = b;                                                                                        \
        t[nt].ne[2] = c;                                                                                        \
        t[nt].type = ty;                                                                                        \
        t[nt].scale = sc;                                                                                       \
        nt++;                                                                                                   \
    } while (0)
    ADD("token_embd.weight", 2, (uint64_t)s.n_embd, n_vocab, 1, wtype(ftype, "token_embd", 0, 1, (uint64_t)s.n_embd), 1.0f);
    char nm[64];
    for (int l = 0; l < s.n_layer; l++) {
        const uint64_t q = (uint64_t)s.n_head * (uint64_t)hd, kv = (uint64_t)s.n_head_kv * (uint64_t)hd;
#define W(suffix, a, b, fan)                                                                                   \
    do {                                                                                                        \
        snprintf(nm, sizeof nm, "blk.%d.%s", l, suffix);                                                        \
        ADD(nm, 2, a, b, 1, wtype(ftype, nm, l, s.n_layer, a), 1.0f / sqrtf((float)(fan)));                     \
    } while (0)
#define V(suffix, a, sc)                                                                                       \
    do {                                                                                                        \
        snprintf(nm, sizeof nm, "blk.%d.%s", l, suffix);                                                        \
        ADD(nm, 1, a, 1, 1, GGML_F32, sc);                                                                      \
    } while (0)
        V("attn_norm.weight", (uint64_t)s.n_embd, 0);
        W("attn_q.weight", (uint64_t)s.n_embd, q, e);
        W("attn_k.weight", (uint64_t)s.n_embd, kv, e);
        W("attn_v.weight", (uint64_t)s.n_embd, kv, e);
        if (!strcmp(s.arch, "qwen2")) {
            V("attn_q.bias", q, 0.02f);
            V("attn_k.bias", kv, 0.02f);
            V("attn_v.bias", kv, 0.02f);
        }
        W("attn_output.weight", q, (uint64_t)s.n_embd, (float)q);
        if (!strcmp(s.arch, "qwen3") || !strcmp(s.arch, "qwen3moe")) {
            V("attn_q_norm.weight", (uint64_t)hd, 0);
            V("attn_k_norm.weight", (uint64_t)hd, 0);
        }
        V("ffn_norm.weight", (uint64_t)s.n_embd, 0);
        if (moe) {
            snprintf(nm, sizeof nm, "blk.%d.ffn_gate_inp.weight", l);
            ADD(nm, 2, (uint64_t)s.n_embd, (uint64_t)s.n_expert, 1, GGML_F32, 1.0f / sqrtf(e));
            const uint64_t f = (uint64_t)s.n_ff_exp, x = (uint64_t)s.n_expert;
            snprintf(nm, sizeof nm, "blk.%d.ffn_gate_exps.weight", l);
            ADD(nm, 3, (uint64_t)s.n_embd, f, x, wtype(ftype, nm, l, s.n_layer, (uint64_t)s.n_embd), 1.0f / sqrtf(e));
            snprintf(nm, sizeof nm, "blk.%d.ffn_down_exps.weight", l);
            ADD(nm, 3, f, (uint64_t)s.n_embd, x, wtype(ftype, nm, l, s.n_layer, f), 1.0f / sqrtf((float)f));
            snprintf(nm, sizeof nm, "blk.%d.ffn_up_exps.weight", l);
            ADD(nm, 3, (uint64_t)s.n_embd, f, x, wtype(ftype, nm, l, s.n_layer, (uint64_t)s.n_embd), 1.0f / sqrtf(e));
        } else {
            W("ffn_gate.weight", (uint64_t)s.n_embd, (uint64_t)s.n_ff, e);
            W("ffn_down.weight", (uint64_t)s.n_ff, (uint64_t)s.n_embd, (float)s.n_ff);
            W("ffn_up.weight", (uint64_t)s.n_embd, (uint64_t)s.n_ff, e);
        }
#undef W
#undef V
    }
    ADD("output_norm.weight", 1, (uint64_t)s.n_embd, 1, 1, GGML_F32, 0);
    if (!s.tied)
        ADD("output.weight", 2, (uint64_t)s.n_embd, n_vocab, 1, wtype(ftype, "output.weight", 0, 1, (uint64_t)s.n_embd),
            1.0f / sqrtf(e) * 4);
#undef ADD
    ctx_t c = {.seed = seed, .t = t};
    for (int i = 0; i < nt; i++)
        if (gguf_w_tensor(w, t[i].name, t[i].n_dims, t[i].ne, t[i].type, NULL, fill, &c) != i) {
            fprintf(stderr, "bolt-llm-mkmodel: tensor %s: bad shape for %s\n", t[i].name, gguf_type_name(t[i].type));
            return 1;
        }
    int rc = gguf_w_write(w, out, split, err, sizeof err);
    if (rc)
        fprintf(stderr, "bolt-llm-mkmodel: %s\n", err);
    gguf_w_free(w);
    free(t);
    gguf_close(v);
    return rc ? 1 : 0;
}
