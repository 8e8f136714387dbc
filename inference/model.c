/*
 * model.c — loading a model (model.h): the architecture, the hyperparameters
 * under "<arch>." keys, and every tensor bound by name with the shape the
 * hyperparameters imply and a type the engine computes with. Every failure
 * names the file and the key or tensor.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inference/model.h"

typedef struct ld {
    inf_model_t *m;
    char *err;
    size_t errlen;
    char arch[64];
    uint64_t type_bytes[GGML_TTYPE_MAX];
} ld_t;

static int fail(ld_t *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(ld_t *l, const char *fmt, ...)
{
    int n = snprintf(l->err, l->errlen, "%s: ", l->m->path);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < l->errlen)
        vsnprintf(l->err + n, l->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* A getter's message lacks the file: put it in front. */
static int refile(ld_t *l)
{
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", l->err);
    return fail(l, "%s", tmp);
}

/* "<arch>.<name>" as a positive integer below `max`; 1 found, 0 absent. */
static int hp_int(ld_t *l, const char *name, int required, int *out, int max)
{
    char key[128];
    snprintf(key, sizeof key, "%s.%s", l->arch, name);
    uint64_t v;
    int r = gguf_get_u64(l->m->gguf, key, &v, l->err, l->errlen);
    if (r < 0)
        return refile(l);
    if (r == 0)
        return required ? fail(l, "key '%s' is missing (every %s model has it)", key, l->arch) : 0;
    if (v < 1 || v > (uint64_t)max)
        return fail(l, "key '%s' is %llu: it must be from 1 to %d", key, (unsigned long long)v, max);
    *out = (int)v;
    return 1;
}

static int hp_float(ld_t *l, const char *name, float *out)
{
    char key[128];
    snprintf(key, sizeof key, "%s.%s", l->arch, name);
    int r = gguf_get_f32(l->m->gguf, key, out, l->err, l->errlen);
    return r < 0 ? refile(l) : r;
}

/* A tensor by name with exactly the dims given (n of them); NULL data with
 * rc 0 when absent and optional. */
static int bind(ld_t *l, const char *name, int n, const int64_t *dims, int optional, inf_w_t *w)
{
    memset(w, 0, sizeof *w);
    const gguf_tensor_t *t = gguf_tensor(l->m->gguf, name);
    if (!t)
        return optional ? 0 : fail(l, "tensor '%s' is missing (the %s architecture needs it)", name, l->arch);
    int ok = 1;
    for (int d = 0; d < 4; d++)
        if ((int64_t)t->ne[d] != (d < n ? dims[d] : 1))
            ok = 0;
    if (!ok) {
        char want[96], got[96];
        int a = 0, b = 0;
        for (int d = 0; d < n; d++)
            a += snprintf(want + a, sizeof want - (size_t)a, "%s%lld", d ? " x " : "", (long long)dims[d]);
        for (uint32_t d = 0; d < t->n_dims; d++)
            b += snprintf(got + b, sizeof got - (size_t)b, "%s%llu", d ? " x " : "", (unsigned long long)t->ne[d]);
        return fail(l, "tensor '%s' is %s; the hyperparameters make it %s", name, got, want);
    }
    const inf_type_t *ty = inf_type(t->type);
    if (!ty || ty->activations_only)
        return fail(l, "tensor '%s' has type %s, which the engine cannot compute with (F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K)",
                    name, gguf_type_name(t->type));
    w->data = t->data;
    w->type = ty;
    for (int d = 0; d < 4; d++)
        w->ne[d] = (int64_t)t->ne[d];
    w->row_bytes = inf_row_bytes(ty, w->ne[0]);
    l->m->weight_bytes += t->nbytes;
    if (n >= 2)
        l->type_bytes[t->type] += t->nbytes;
    return 0;
}

/* A vector, read into F32. */
static int bind_vec(ld_t *l, const char *name, int64_t len, int optional, float **out)
{
    inf_w_t w;
    *out = NULL;
    if (bind(l, name, 1, &len, optional, &w))
        return -1;
    if (!w.data)
        return 0;
    if (!(*out = malloc((size_t)len * sizeof(float))))
        return fail(l, "out of memory for tensor '%s'", name);
    w.type->to_float(w.data, *out, len);
    return 0;
}

static int bind_layer(ld_t *l, int i)
{
    inf_model_t *m = l->m;
    const inf_hparams_t *hp = &m->hp;
    inf_layer_t *L = &m->layers[i];
    char n[96];
    const int64_t e = hp->n_embd, q = (int64_t)hp->n_head * hp->head_dim, k = (int64_t)hp->n_head_kv * hp->head_dim,
                  v = (int64_t)hp->n_head_kv * hp->head_dim_v, o = (int64_t)hp->n_head * hp->head_dim_v;
#define NAME(s) (snprintf(n, sizeof n, "blk.%d.%s", i, s), n)
    int64_t dq[2] = {e, q}, dk[2] = {e, k}, dv[2] = {e, v}, dout[2] = {o, e};
    if (bind_vec(l, NAME("attn_norm.weight"), e, 0, &L->attn_norm) || bind(l, NAME("attn_q.weight"), 2, dq, 0, &L->wq) ||
        bind(l, NAME("attn_k.weight"), 2, dk, 0, &L->wk) || bind(l, NAME("attn_v.weight"), 2, dv, 0, &L->wv) ||
        bind(l, NAME("attn_output.weight"), 2, dout, 0, &L->wo) || bind_vec(l, NAME("ffn_norm.weight"), e, 0, &L->ffn_norm))
        return -1;
    if (m->arch->flags & INF_ARCH_QKV_BIAS)
        if (bind_vec(l, NAME("attn_q.bias"), q, 0, &L->bq) || bind_vec(l, NAME("attn_k.bias"), k, 0, &L->bk) ||
            bind_vec(l, NAME("attn_v.bias"), v, 0, &L->bv))
            return -1;
    if (m->arch->flags & INF_ARCH_QK_NORM)
        if (bind_vec(l, NAME("attn_q_norm.weight"), hp->head_dim, 0, &L->q_norm) ||
            bind_vec(l, NAME("attn_k_norm.weight"), hp->head_dim, 0, &L->k_norm))
            return -1;
    if (m->arch->flags & INF_ARCH_MOE) {
        int64_t dr[2] = {e, hp->n_expert}, dgu[3] = {e, hp->n_ff_exp, hp->n_expert}, dd[3] = {hp->n_ff_exp, e, hp->n_expert};
        if (bind(l, NAME("ffn_gate_inp.weight"), 2, dr, 0, &L->router) ||
            bind(l, NAME("ffn_gate_exps.weight"), 3, dgu, 0, &L->gate_exps) ||
            bind(l, NAME("ffn_up_exps.weight"), 3, dgu, 0, &L->up_exps) ||
            bind(l, NAME("ffn_down_exps.weight"), 3, dd, 0, &L->down_exps))
            return -1;
    } else {
        int64_t dgu[2] = {e, hp->n_ff}, dd[2] = {hp->n_ff, e};
        if (bind(l, NAME("ffn_gate.weight"), 2, dgu, 0, &L->w_gate) || bind(l, NAME("ffn_up.weight"), 2, dgu, 0, &L->w_up) ||
            bind(l, NAME("ffn_down.weight"), 2, dd, 0, &L->w_down))
            return -1;
    }
#undef NAME
    return 0;
}

static int read_hparams(ld_t *l)
{
    inf_model_t *m = l->m;
    inf_hparams_t *hp = &m->hp;
    const int BIG = 1 << 24;
    if (hp_int(l, "embedding_length", 1, &hp->n_embd, BIG) < 0 || hp_int(l, "block_count", 1, &hp->n_layer, 4096) < 0 ||
        hp_int(l, "attention.head_count", 1, &hp->n_head, 65536) < 0)
        return -1;
    hp->n_head_kv = hp->n_head;
    hp->n_ctx_train = 2048;
    if (hp_int(l, "attention.head_count_kv", 0, &hp->n_head_kv, 65536) < 0 ||
        hp_int(l, "context_length", 0, &hp->n_ctx_train, 1 << 30) < 0)
        return -1;
    if (hp->n_head % hp->n_head_kv)
        return fail(l, "key '%s.attention.head_count' (%d) is not a multiple of '%s.attention.head_count_kv' (%d)", l->arch,
                    hp->n_head, l->arch, hp->n_head_kv);
    hp->head_dim = hp->n_embd / hp->n_head;
    if (hp_int(l, "attention.key_length", 0, &hp->head_dim, 65536) < 0)
        return -1;
    hp->head_dim_v = hp->head_dim;
    if (hp_int(l, "attention.value_length", 0, &hp->head_dim_v, 65536) < 0)
        return -1;
    if (hp->head_dim_v != hp->head_dim)
        return fail(l, "keys '%s.attention.key_length' and value_length differ (%d, %d): not supported", l->arch,
                    hp->head_dim, hp->head_dim_v);
    hp->n_rot = hp->head_dim;
    if (hp_int(l, "rope.dimension_count", 0, &hp->n_rot, 65536) < 0)
        return -1;
    if (hp->n_rot > hp->head_dim || hp->n_rot % 2)
        return fail(l, "key '%s.rope.dimension_count' is %d: it must be even and at most the head size %d", l->arch,
                    hp->n_rot, hp->head_dim);
    hp->norm_eps = 1e-5f;
    hp->rope_base = 10000.0f;
    hp->rope_scale = 1.0f;
    if (hp_float(l, "attention.layer_norm_rms_epsilon", &hp->norm_eps) < 0 || hp_float(l, "rope.freq_base", &hp->rope_base) < 0 ||
        hp_float(l, "rope.scale_linear", &hp->rope_scale) < 0)
        return -1;
    if (!(hp->norm_eps > 0 && hp->norm_eps < 1) || !(hp->rope_base > 1) || !(hp->rope_scale > 0))
        return fail(l, "the RMS epsilon (%g), RoPE base (%g) or scale (%g) is out of range", (double)hp->norm_eps,
                    (double)hp->rope_base, (double)hp->rope_scale);
    char key[128];
    gguf_str_t st;
    snprintf(key, sizeof key, "%s.rope.scaling.type", l->arch);
    int r = gguf_get_str(m->gguf, key, &st, l->err, l->errlen);
    if (r < 0)
        return refile(l);
    if (r == 1 && gguf_str_eq(st, "linear")) {
        float f = 1;
        if (hp_float(l, "rope.scaling.factor", &f) < 0)
            return -1;
        if (!(f > 0))
            return fail(l, "key '%s.rope.scaling.factor' is %g", l->arch, (double)f);
        hp->rope_scale = f;
    } else if (r == 1 && !gguf_str_eq(st, "none")) {
        return fail(l, "key '%s' is '%.*s': only linear RoPE scaling is supported", key, (int)(st.n < 40 ? st.n : 40), st.p);
    }
    if (m->arch->flags & INF_ARCH_MOE) {
        if (hp_int(l, "expert_count", 1, &hp->n_expert, 65536) < 0 || hp_int(l, "expert_used_count", 1, &hp->n_expert_used, 65536) < 0 ||
            hp_int(l, "expert_feed_forward_length", 1, &hp->n_ff_exp, BIG) < 0)
            return -1;
        if (hp->n_expert_used > hp->n_expert)
            return fail(l, "key '%s.expert_used_count' (%d) exceeds expert_count (%d)", l->arch, hp->n_expert_used, hp->n_expert);
        hp->moe_norm = m->arch->moe_norm_default;
        snprintf(key, sizeof key, "%s.expert_weights_norm", l->arch);
        if ((r = gguf_get_bool(m->gguf, key, &hp->moe_norm, l->err, l->errlen)) < 0)
            return refile(l);
        hp->moe_scale = 1.0f;
        if (hp_float(l, "expert_weights_scale", &hp->moe_scale) < 0)
            return -1;
        if (hp->moe_scale == 0)
            hp->moe_scale = 1.0f;
        hp->n_ff = hp->n_ff_exp;
    } else if (hp_int(l, "feed_forward_length", 1, &hp->n_ff, BIG) < 0) {
        return -1;
    }
    return 0;
}

void inf_model_free(inf_model_t *m)
{
    if (!m)
        return;
    if (m->layers) {
        for (int i = 0; i < m->hp.n_layer; i++) {
            inf_layer_t *L = &m->layers[i];
            free(L->attn_norm);
            free(L->ffn_norm);
            free(L->bq);
            free(L->bk);
            free(L->bv);
            free(L->q_norm);
            free(L->k_norm);
        }
        free(m->layers);
    }
    free(m->output_norm);
    free(m->rope_freqs);
    gguf_close(m->gguf);
    free(m->path);
    free(m);
}

int inf_model_load(const char *path, inf_model_t **out, char *err, size_t errlen)
{
    return inf_model_load_with(path, &(inf_load_params_t){0}, out, err, errlen);
}

int inf_model_load_with(const char *path, const inf_load_params_t *lp, inf_model_t **out, char *err, size_t errlen)
{
    *out = NULL;
    inf_model_t *m = calloc(1, sizeof *m);
    if (!m || !(m->path = strdup(path))) {
        free(m);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    ld_t l = {.m = m, .err = err, .errlen = errlen};
    int rc = gguf_open_with(path, lp->no_mmap ? GGUF_OPEN_NO_MMAP : 0, &m->gguf, err, errlen);
    gguf_str_t an;
    if (rc == 0) {
        int r = gguf_get_str(m->gguf, "general.architecture", &an, err, errlen);
        if (r < 0)
            rc = refile(&l);
        else if (r == 0)
            rc = fail(&l, "key 'general.architecture' is missing");
        else if (!(m->arch = inf_arch_find(an.p, (size_t)an.n)))
            rc = fail(&l, "architecture '%.*s' is not supported (supported: %s)", (int)(an.n < 40 ? an.n : 40), an.p,
                      inf_arch_names());
        else
            snprintf(l.arch, sizeof l.arch, "%s", m->arch->name);
    }
    if (rc == 0)
        rc = read_hparams(&l);
    inf_hparams_t *hp = &m->hp;
    /* the vocabulary: the token list's length, which the embeddings must match */
    if (rc == 0) {
        const gguf_kv_t *toks;
        int r = gguf_get_arr(m->gguf, "tokenizer.ggml.tokens", GGUF_STRING, &toks, err, errlen);
        if (r < 0)
            rc = refile(&l);
        else if (r == 0)
            rc = fail(&l, "key 'tokenizer.ggml.tokens' is missing: the model has no vocabulary");
        else if (toks->count < 1 || toks->count > (1u << 24))
            rc = fail(&l, "key 'tokenizer.ggml.tokens' holds %llu tokens", (unsigned long long)toks->count);
        else
            hp->n_vocab = (int)toks->count;
    }
    if (rc == 0) {
        int64_t de[2] = {hp->n_embd, hp->n_vocab}, dn = hp->n_embd;
        rc = bind(&l, "token_embd.weight", 2, de, 0, &m->tok_embd) || bind_vec(&l, "output_norm.weight", dn, 0, &m->output_norm) ||
             bind(&l, "output.weight", 2, de, 1, &m->output);
        if (rc == 0 && !m->output.data)
            m->output = m->tok_embd; /* tied */
        if (rc == 0)
            rc = bind_vec(&l, "rope_freqs.weight", hp->n_rot / 2, 1, &m->rope_freqs);
    }
    if (rc == 0 && !(m->layers = calloc((size_t)hp->n_layer, sizeof *m->layers)))
        rc = fail(&l, "out of memory for %d layers", hp->n_layer);
    for (int i = 0; rc == 0 && i < hp->n_layer; i++)
        rc = bind_layer(&l, i);
    if (rc) {
        inf_model_free(m);
        return -1;
    }
    m->token_bytes = m->weight_bytes;
    if (m->output.data != m->tok_embd.data)
        m->token_bytes -= (uint64_t)m->tok_embd.row_bytes * (uint64_t)(m->tok_embd.ne[1] - 1);
    for (int i = 0; i < hp->n_layer && hp->n_expert > 0; i++) {
        const inf_layer_t *ly = &m->layers[i];
        const inf_w_t *ex[] = {&ly->gate_exps, &ly->up_exps, &ly->down_exps};
        for (int e = 0; e < 3; e++) {
            const uint64_t all = (uint64_t)ex[e]->row_bytes * (uint64_t)ex[e]->ne[1] * (uint64_t)ex[e]->ne[2];
            m->token_bytes -= all - all / (uint64_t)hp->n_expert * (uint64_t)hp->n_expert_used;
        }
    }
    uint64_t best = 0;
    m->ftype_name = "F32";
    for (int t = 0; t < GGML_TTYPE_MAX; t++)
        if (l.type_bytes[t] > best) {
            best = l.type_bytes[t];
            m->ftype_name = gguf_type_name((uint32_t)t);
        }
    *out = m;
    return 0;
}
