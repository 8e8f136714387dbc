/*
 * vocab.c — the tokenizer's tables from the GGUF metadata, the split of a
 * text around special tokens, and decoding (vocab.h). The per-type
 * tokenizers are tok_spm.c and tok_bpe.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inference/vocab.h"

/* ---- a string -> int map, open addressing (FNV-1a) ---- */

struct inf_strmap {
    size_t cap; /* a power of two */
    const char **key;
    uint32_t *len;
    int *val;
};

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static inf_strmap_t *strmap_new(size_t n)
{
    inf_strmap_t *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->cap = 16;
    while (m->cap < 2 * n)
        m->cap *= 2;
    m->key = calloc(m->cap, sizeof *m->key);
    m->len = calloc(m->cap, sizeof *m->len);
    m->val = calloc(m->cap, sizeof *m->val);
    if (!m->key || !m->len || !m->val) {
        free(m->key);
        free(m->len);
        free(m->val);
        free(m);
        return NULL;
    }
    return m;
}

static void strmap_free(inf_strmap_t *m)
{
    if (!m)
        return;
    free(m->key);
    free(m->len);
    free(m->val);
    free(m);
}

/* Keeps the first value of a key given twice (a vocabulary's first id). */
static void strmap_put(inf_strmap_t *m, const char *s, size_t n, int v)
{
    for (size_t i = fnv(s, n) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->key[i]) {
            m->key[i] = s;
            m->len[i] = (uint32_t)n;
            m->val[i] = v;
            return;
        }
        if (m->len[i] == n && !memcmp(m->key[i], s, n))
            return;
    }
}

int inf_strmap_get(const inf_strmap_t *m, const char *s, size_t n)
{
    if (!m)
        return -1;
    for (size_t i = fnv(s, n) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->key[i])
            return -1;
        if (m->len[i] == n && !memcmp(m->key[i], s, n))
            return m->val[i];
    }
}

int inf_vocab_id(const inf_vocab_t *v, const char *s, size_t n)
{
    return inf_strmap_get(v->ids, s, n);
}

/* ---- loading ---- */

static int fail(char *err, size_t errlen, const char *path, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, const char *path, const char *fmt, ...)
{
    int n = snprintf(err, errlen, "%s: ", path);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < errlen)
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* Puts the file in front of a message already in err. */
static int refail(char *err, size_t errlen, const char *path)
{
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", err);
    return fail(err, errlen, path, "%s", tmp);
}

void inf_vocab_free(inf_vocab_t *v)
{
    if (!v)
        return;
    free(v->score);
    free(v->ttype);
    free(v->special);
    strmap_free(v->ids);
    strmap_free(v->merges);
    inf_bpe_pre_free(v->pre);
    free(v);
}

/* An optional token id key: -1 when absent; an id past the vocabulary is an error. */
static int token_key(const gguf_t *g, const char *key, int n, int *out, const char *path, char *err, size_t errlen)
{
    uint32_t id;
    int r = gguf_get_u32(g, key, &id, err, errlen);
    if (r < 0)
        return refail(err, errlen, path);
    if (r == 1 && id >= (uint32_t)n)
        return fail(err, errlen, path, "key '%s' is token %u, past the vocabulary of %d", key, id, n);
    if (r == 1)
        *out = (int)id;
    return 0;
}

static int bool_key(const gguf_t *g, const char *key, int *out, const char *path, char *err, size_t errlen)
{
    return gguf_get_bool(g, key, out, err, errlen) < 0 ? refail(err, errlen, path) : 0;
}

static const inf_vocab_t *sort_vocab;
static int by_length_desc(const void *a, const void *b)
{
    uint64_t x = sort_vocab->text[*(const int *)a].n, y = sort_vocab->text[*(const int *)b].n;
    if (x != y)
        return x > y ? -1 : 1;
    return *(const int *)a - *(const int *)b;
}

int inf_vocab_load(const gguf_t *g, const char *path, inf_vocab_t **out, char *err, size_t errlen)
{
    *out = NULL;
    gguf_str_t model;
    int r = gguf_get_str(g, "tokenizer.ggml.model", &model, err, errlen);
    if (r <= 0)
        return r < 0 ? refail(err, errlen, path) : fail(err, errlen, path, "key 'tokenizer.ggml.model' is missing");
    const gguf_kv_t *toks, *scores = NULL, *types = NULL;
    if ((r = gguf_get_arr(g, "tokenizer.ggml.tokens", GGUF_STRING, &toks, err, errlen)) <= 0)
        return r < 0 ? refail(err, errlen, path) : fail(err, errlen, path, "key 'tokenizer.ggml.tokens' is missing");
    if (toks->count < 1 || toks->count > (1u << 24))
        return fail(err, errlen, path, "key 'tokenizer.ggml.tokens' holds %llu tokens", (unsigned long long)toks->count);
    const int n = (int)toks->count;
    inf_vocab_t *v = calloc(1, sizeof *v);
    if (!v)
        return fail(err, errlen, path, "out of memory");
    v->n = n;
    v->text = toks->strs;
    if (gguf_str_eq(model, "llama")) {
        v->type = INF_VOCAB_SPM;
        v->add_bos = 1;
        v->add_space_prefix = 1;
    } else if (gguf_str_eq(model, "gpt2")) {
        v->type = INF_VOCAB_BPE;
    } else {
        inf_vocab_free(v);
        return fail(err, errlen, path, "key 'tokenizer.ggml.model' is '%.*s': the tokenizers supported are 'llama' (SentencePiece) and 'gpt2' (byte-level BPE)",
                    (int)(model.n < 40 ? model.n : 40), model.p);
    }
    int rc = 0;
    v->score = calloc((size_t)n, sizeof *v->score);
    v->ttype = malloc((size_t)n);
    v->ids = strmap_new((size_t)n);
    if (!v->score || !v->ttype || !v->ids)
        rc = fail(err, errlen, path, "out of memory for %d tokens", n);
    if (rc == 0 && (r = gguf_get_arr(g, "tokenizer.ggml.scores", GGUF_F32, &scores, err, errlen)) < 0)
        rc = refail(err, errlen, path);
    if (rc == 0 && scores && scores->count != (uint64_t)n)
        rc = fail(err, errlen, path, "key 'tokenizer.ggml.scores' has %llu entries for %d tokens", (unsigned long long)scores->count, n);
    if (rc == 0 && (r = gguf_get_arr(g, "tokenizer.ggml.token_type", GGUF_I32, &types, err, errlen)) < 0)
        rc = refail(err, errlen, path);
    if (rc == 0 && types && types->count != (uint64_t)n)
        rc = fail(err, errlen, path, "key 'tokenizer.ggml.token_type' has %llu entries for %d tokens", (unsigned long long)types->count, n);
    for (int i = 0; rc == 0 && i < n; i++) {
        v->score[i] = scores ? (float)gguf_arr_f64(scores, (uint64_t)i) : 0;
        int64_t t = types ? gguf_arr_i64(types, (uint64_t)i) : INF_TOK_NORMAL;
        v->ttype[i] = (uint8_t)(t >= 1 && t <= 6 ? t : INF_TOK_NORMAL);
        strmap_put(v->ids, v->text[i].p, (size_t)v->text[i].n, i);
    }
    v->bos = v->eos = v->eot = v->unk = v->pad = -1;
    if (rc == 0 && v->type == INF_VOCAB_SPM) {
        v->bos = 1 < n ? 1 : -1;
        v->eos = 2 < n ? 2 : -1;
        v->unk = 0;
    }
    if (rc == 0)
        rc = token_key(g, "tokenizer.ggml.bos_token_id", n, &v->bos, path, err, errlen) ||
             token_key(g, "tokenizer.ggml.eos_token_id", n, &v->eos, path, err, errlen) ||
             token_key(g, "tokenizer.ggml.eot_token_id", n, &v->eot, path, err, errlen) ||
             token_key(g, "tokenizer.ggml.unknown_token_id", n, &v->unk, path, err, errlen) ||
             token_key(g, "tokenizer.ggml.padding_token_id", n, &v->pad, path, err, errlen);
    if (rc == 0 && v->type == INF_VOCAB_BPE) {
        gguf_str_t pre = {"", 0};
        if ((r = gguf_get_str(g, "tokenizer.ggml.pre", &pre, err, errlen)) < 0)
            rc = refail(err, errlen, path);
        snprintf(v->pre_name, sizeof v->pre_name, "%.*s", (int)(pre.n < 31 ? pre.n : 31), pre.p);
        if (rc == 0 && (rc = inf_bpe_pre_load(v, err, errlen)))
            rc = refail(err, errlen, path);
        const gguf_kv_t *merges = NULL;
        if (rc == 0 && (r = gguf_get_arr(g, "tokenizer.ggml.merges", GGUF_STRING, &merges, err, errlen)) <= 0)
            rc = r < 0 ? refail(err, errlen, path)
                       : fail(err, errlen, path, "key 'tokenizer.ggml.merges' is missing (a BPE tokenizer needs its merges)");
        if (rc == 0 && !(v->merges = strmap_new((size_t)merges->count)))
            rc = fail(err, errlen, path, "out of memory for %llu merges", (unsigned long long)merges->count);
        for (uint64_t i = 0; rc == 0 && i < merges->count && i < (1u << 30); i++)
            strmap_put(v->merges, merges->strs[i].p, (size_t)merges->strs[i].n, (int)i);
    }
    if (rc == 0)
        rc = bool_key(g, "tokenizer.ggml.add_bos_token", &v->add_bos, path, err, errlen) ||
             bool_key(g, "tokenizer.ggml.add_eos_token", &v->add_eos, path, err, errlen) ||
             bool_key(g, "tokenizer.ggml.add_space_prefix", &v->add_space_prefix, path, err, errlen);
    if (rc == 0 && v->type == INF_VOCAB_SPM) {
        for (int b = 0; b < 256; b++) {
            char hex[8];
            snprintf(hex, sizeof hex, "<0x%02X>", b);
            v->byte_tok[b] = inf_strmap_get(v->ids, hex, 6);
            if (v->byte_tok[b] < 0) {
                char one = (char)b;
                v->byte_tok[b] = inf_strmap_get(v->ids, &one, 1);
            }
        }
    }
    /* the tokens split out of the text before the tokenizer sees it */
    if (rc == 0) {
        if (!(v->special = malloc((size_t)n * sizeof *v->special)))
            rc = fail(err, errlen, path, "out of memory");
        for (int i = 0; rc == 0 && i < n; i++)
            if ((v->ttype[i] == INF_TOK_CONTROL || v->ttype[i] == INF_TOK_USER || v->ttype[i] == INF_TOK_UNKNOWN) &&
                v->text[i].n > 0)
                v->special[v->n_special++] = i;
        sort_vocab = v;
        if (rc == 0)
            qsort(v->special, (size_t)v->n_special, sizeof *v->special, by_length_desc);
    }
    if (rc) {
        inf_vocab_free(v);
        return -1;
    }
    *out = v;
    return 0;
}

/* ---- tokenizing ---- */

typedef struct frag {
    const char *p; /* NULL: a special token */
    size_t n;
    int tok;
} frag_t;

static int push(int32_t *out, int n, int max, int32_t t)
{
    if (n < 0 || n >= max)
        return -1;
    out[n] = t;
    return n + 1;
}

int inf_tokenize(const inf_vocab_t *v, const char *text, size_t len, int add_special, int parse_special, int32_t *out,
                 int max)
{
    /* fragments: the text split around each special token in turn, longest first */
    size_t cap = 16, nf = 1;
    frag_t *f = malloc(cap * sizeof *f);
    if (!f)
        return -1;
    f[0] = (frag_t){.p = text, .n = len, .tok = -1};
    for (int s = 0; s < v->n_special; s++) {
        int id = v->special[s];
        if (!parse_special && v->ttype[id] != INF_TOK_USER)
            continue;
        const char *st = v->text[id].p;
        size_t sn = (size_t)v->text[id].n;
        for (size_t i = 0; i < nf; i++) {
            if (!f[i].p || f[i].n < sn)
                continue;
            const char *hit = NULL;
            for (size_t k = 0; k + sn <= f[i].n; k++)
                if (!memcmp(f[i].p + k, st, sn)) {
                    hit = f[i].p + k;
                    break;
                }
            if (!hit)
                continue;
            /* [left][token][right]: right is searched again on the next pass of i */
            if (nf + 2 > cap) {
                cap *= 2;
                frag_t *g = realloc(f, cap * sizeof *f);
                if (!g) {
                    free(f);
                    return -1;
                }
                f = g;
            }
            frag_t left = {f[i].p, (size_t)(hit - f[i].p), -1}, right = {hit + sn, f[i].n - (size_t)(hit - f[i].p) - sn, -1};
            frag_t tok = {NULL, 0, id};
            size_t put = i;
            frag_t repl[3];
            int k = 0;
            if (left.n)
                repl[k++] = left;
            repl[k++] = tok;
            if (right.n)
                repl[k++] = right;
            memmove(&f[put + (size_t)k], &f[put + 1], (nf - put - 1) * sizeof *f);
            memcpy(&f[put], repl, (size_t)k * sizeof *f);
            nf += (size_t)k - 1;
            i = put + (left.n ? 1 : 0); /* continue after the token (the loop adds 1) */
        }
    }
    int n = 0;
    if (add_special && v->add_bos && v->bos >= 0)
        n = push(out, n, max, v->bos);
    int prev_special = 1;
    for (size_t i = 0; i < nf && n >= 0; i++) {
        if (!f[i].p) {
            n = push(out, n, max, f[i].tok);
            prev_special = 1;
            continue;
        }
        if (f[i].n == 0)
            continue; /* an empty text has no tokens (not even the space prefix) */
        if (v->type == INF_VOCAB_SPM) {
            /* ' ' -> U+2581, with one in front after the start or a special token */
            size_t extra = 0;
            for (size_t k = 0; k < f[i].n; k++)
                extra += f[i].p[k] == ' ' ? 2 : 0;
            int pre = v->add_space_prefix && prev_special;
            char *t = malloc(f[i].n + extra + 3 + 1);
            if (!t) {
                n = -1;
                break;
            }
            size_t m = 0;
            if (pre) {
                memcpy(t, "\xe2\x96\x81", 3);
                m = 3;
            }
            for (size_t k = 0; k < f[i].n; k++) {
                if (f[i].p[k] == ' ') {
                    memcpy(t + m, "\xe2\x96\x81", 3);
                    m += 3;
                } else {
                    t[m++] = f[i].p[k];
                }
            }
            n = inf_tok_spm(v, t, m, out, n, max);
            free(t);
        } else {
            n = inf_tok_bpe(v, f[i].p, f[i].n, out, n, max);
        }
        prev_special = 0;
    }
    free(f);
    if (n >= 0 && add_special && v->add_eos && v->eos >= 0)
        n = push(out, n, max, v->eos);
    return n;
}

int inf_token_is_eog(const inf_vocab_t *v, int32_t tok)
{
    return tok >= 0 && (tok == v->eos || tok == v->eot);
}

static int copy_out(const char *p, size_t n, char *buf, int len)
{
    if ((int64_t)n > len)
        return -1;
    memcpy(buf, p, n);
    return (int)n;
}

int inf_token_piece(const inf_vocab_t *v, int32_t tok, int special, char *buf, int len)
{
    if (tok < 0 || tok >= v->n)
        return 0;
    const gguf_str_t s = v->text[tok];
    switch (v->ttype[tok]) {
    case INF_TOK_CONTROL:
    case INF_TOK_UNKNOWN:
        return special ? copy_out(s.p, (size_t)s.n, buf, len) : 0;
    case INF_TOK_USER:
        return copy_out(s.p, (size_t)s.n, buf, len);
    case INF_TOK_BYTE:
        if (s.n == 6 && !memcmp(s.p, "<0x", 3)) {
            char hex[3] = {s.p[3], s.p[4], 0};
            return copy_out(&(char){(char)strtol(hex, NULL, 16)}, 1, buf, len);
        }
        return copy_out(s.p, (size_t)s.n, buf, len);
    case INF_TOK_NORMAL:
        break;
    default:
        return 0; /* unused */
    }
    if (v->type == INF_VOCAB_BPE)
        return inf_bpe_decode(s.p, (size_t)s.n, buf, len);
    /* SentencePiece: U+2581 is a space */
    int m = 0;
    for (uint64_t k = 0; k < s.n; k++) {
        if (m >= len)
            return -1;
        if (k + 2 < s.n && !memcmp(s.p + k, "\xe2\x96\x81", 3)) {
            buf[m++] = ' ';
            k += 2;
        } else {
            buf[m++] = s.p[k];
        }
    }
    return m;
}
