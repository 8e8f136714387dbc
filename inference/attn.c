/*
 * attn.c — attention of the query heads of one key/value head, in blocks
 * or by dot products (attn.h says what and why).
 */
#include <string.h>

#include "inference/attn.h"

#ifdef INF_HAVE_BLAS
#ifdef BOLT_BLAS_ACCELERATE
#define ACCELERATE_NEW_LAPACK
#include <Accelerate/Accelerate.h>
#else
#include <cblas.h>
#endif
#endif

void inf_attn_softmax(float *s, int n, int f16)
{
    inf_softmax.run(s, n, f16);
}

size_t inf_attn_scratch(int n_ctx, int D)
{
    /* blocks: the block's scores over every position, a chunk of widened
     * rows, the block's queries; dot products: the heads' scores and
     * rounded queries, a widened row */
    const size_t blocks =
        (size_t)INF_ATTN_TQ * (size_t)n_ctx + (size_t)INF_ATTN_KC * (size_t)D + (size_t)INF_ATTN_TQ * (size_t)D;
    const size_t dots = (size_t)INF_ATTN_NH * ((size_t)n_ctx + (size_t)D) + (size_t)D;
    return blocks > dots ? blocks : dots;
}

void inf_attn_dots(const inf_attn_t *a, float *scratch)
{
    const int D = a->D, nh = a->nh, f16 = a->kt->id == GGML_F16, f32 = a->kt->id == GGML_F32;
    int npos = 0;
    for (int t = 0; t < a->n; t++)
        npos = a->tpos[t] + 1 > npos ? a->tpos[t] + 1 : npos;
    float *s = scratch, *qh = s + (size_t)nh * (size_t)npos, *row = qh + (size_t)nh * (size_t)D;
    for (int t = 0; t < a->n; t++) {
        const int np = a->tpos[t] + 1; /* causal: positions 0 .. its own */
        const float *q = a->q + (size_t)t * (size_t)a->ld;
        float *o = a->o + (size_t)t * (size_t)a->ld;
        if (f16) {
            memcpy(qh, q, (size_t)nh * (size_t)D * sizeof *qh);
            inf_round_to_f16(qh, nh * D);
            inf_f16_attn.scores(np, D, (const uint16_t *)(const void *)a->k, qh, nh, a->scale, s, np);
            for (int g = 0; g < nh; g++)
                inf_attn_softmax(s + (size_t)g * (size_t)np, np, 1);
            inf_f16_attn.mix(np, D, (const uint16_t *)(const void *)a->v, s, np, nh, o, D);
            continue;
        }
        for (int g = 0; g < nh; g++) {
            const float *qg = q + (size_t)g * (size_t)D;
            float *og = o + (size_t)g * (size_t)D;
            for (int p = 0; p < np; p++) {
                const uint8_t *kr = a->k + (size_t)p * a->kv_row;
                float d;
                if (f32) {
                    a->kt->vec_dot(D, &d, kr, qg);
                } else { /* Q8_0 keys: dequantized, then a float dot */
                    a->kt->to_float(kr, row, D);
                    inf_type_f32.vec_dot(D, &d, row, qg);
                }
                s[p] = d * a->scale;
            }
            inf_attn_softmax(s, np, 0);
            memset(og, 0, (size_t)D * sizeof(float));
            for (int p = 0; p < np; p++) {
                const float *vf = (const float *)(const void *)(a->v + (size_t)p * a->kv_row);
                if (!f32) {
                    a->kt->to_float(a->v + (size_t)p * a->kv_row, row, D);
                    vf = row;
                }
                for (int d = 0; d < D; d++)
                    og[d] += s[p] * vf[d];
            }
        }
    }
}

#ifdef INF_HAVE_BLAS
/* Rows p0 .. p0 + kc of the cache (keys or values) as floats, D a row. */
static void widen(const inf_attn_t *a, const uint8_t *base, int p0, int kc, float *dst)
{
    if (a->kv_row == inf_row_bytes(a->kt, a->D)) { /* rows one after another: at once */
        a->kt->to_float(base + (size_t)p0 * a->kv_row, dst, (int64_t)kc * a->D);
        return;
    }
    for (int p = 0; p < kc; p++)
        a->kt->to_float(base + (size_t)(p0 + p) * a->kv_row, dst + (size_t)p * (size_t)a->D, a->D);
}

/* Tokens t0 .. t0 + tq: scores, softmax, then the values. */
static void attn_block(const inf_attn_t *a, int t0, int tq, float *scratch, int lds)
{
    const int D = a->D, f16 = a->kt->id == GGML_F16;
    float *s = scratch, *rows = s + (size_t)INF_ATTN_TQ * (size_t)lds, *qb = rows + (size_t)INF_ATTN_KC * (size_t)D;
    int npos = 0;
    for (int t = 0; t < tq; t++) {
        const int last = a->tpos[t0 + t];
        npos = last + 1 > npos ? last + 1 : npos;
        memcpy(qb + (size_t)t * (size_t)D, a->q + (size_t)(t0 + t) * (size_t)a->ld, (size_t)D * sizeof(float));
    }
    if (f16) /* the F16 dot product's other side is F16 too */
        inf_round_to_f16(qb, tq * D);
    for (int p0 = 0; p0 < npos; p0 += INF_ATTN_KC) {
        const int kc = npos - p0 < INF_ATTN_KC ? npos - p0 : INF_ATTN_KC;
        widen(a, a->k, p0, kc, rows);
        /* s (tq x kc) = scale * qb (tq x D) . rows (kc x D)^T */
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, tq, kc, D, a->scale, qb, D, rows, D, 0.0f, s + p0,
                    lds);
    }
    for (int t = 0; t < tq; t++) {
        float *st = s + (size_t)t * (size_t)lds;
        const int last = a->tpos[t0 + t];
        inf_attn_softmax(st, last + 1, f16);
        /* positions after its own: none of its attention */
        memset(st + last + 1, 0, (size_t)(npos - last - 1) * sizeof(float));
        memset(a->o + (size_t)(t0 + t) * (size_t)a->ld, 0, (size_t)D * sizeof(float));
    }
    for (int p0 = 0; p0 < npos; p0 += INF_ATTN_KC) {
        const int kc = npos - p0 < INF_ATTN_KC ? npos - p0 : INF_ATTN_KC;
        widen(a, a->v, p0, kc, rows);
        /* o (tq x D) += s (tq x kc) . rows (kc x D) */
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, tq, D, kc, 1.0f, s + p0, lds, rows, D, 1.0f,
                    a->o + (size_t)t0 * (size_t)a->ld, a->ld);
    }
}
#endif

int inf_attn_blocked(const inf_attn_t *a, float *scratch)
{
#ifdef INF_HAVE_BLAS
    inf_sgemm_one_thread();
    int npos = 0;
    for (int t = 0; t < a->n; t++)
        npos = a->tpos[t] + 1 > npos ? a->tpos[t] + 1 : npos;
    for (int g = 0; g < a->nh; g++) {
        inf_attn_t h = *a;
        h.q += (size_t)g * (size_t)a->D;
        h.o += (size_t)g * (size_t)a->D;
        for (int t0 = 0; t0 < a->n; t0 += INF_ATTN_TQ)
            attn_block(&h, t0, a->n - t0 < INF_ATTN_TQ ? a->n - t0 : INF_ATTN_TQ, scratch, npos);
    }
    return 0;
#else
    (void)a;
    (void)scratch;
    return -1;
#endif
}
