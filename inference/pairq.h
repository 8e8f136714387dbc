/*
 * pairq.h — the queue both tokenizers merge from (tok_spm.c, tok_bpe.c): a
 * binary heap of candidate merges of two adjacent symbols, the lowest key
 * first (SentencePiece: the negated score; BPE: the merge's rank), ties to
 * the leftmost pair.
 */
#ifndef INF_PAIRQ_H
#define INF_PAIRQ_H

#include <stdlib.h>

typedef struct inf_pair {
    int left, right, size;
    double key;
} inf_pair_t;

typedef struct inf_pairq {
    inf_pair_t *h;
    int n, cap;
} inf_pairq_t;

static inline int inf_pair_before(const inf_pair_t *a, const inf_pair_t *b)
{
    return a->key < b->key || (a->key == b->key && a->left < b->left);
}

static inline int inf_pairq_push(inf_pairq_t *q, inf_pair_t b)
{
    if (q->n == q->cap) {
        int cap = q->cap ? 2 * q->cap : 64;
        inf_pair_t *h = realloc(q->h, (size_t)cap * sizeof *h);
        if (!h)
            return -1;
        q->h = h;
        q->cap = cap;
    }
    int i = q->n++;
    q->h[i] = b;
    while (i > 0 && inf_pair_before(&q->h[i], &q->h[(i - 1) / 2])) {
        inf_pair_t t = q->h[i];
        q->h[i] = q->h[(i - 1) / 2];
        q->h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
    return 0;
}

static inline inf_pair_t inf_pairq_pop(inf_pairq_t *q)
{
    inf_pair_t top = q->h[0];
    q->h[0] = q->h[--q->n];
    for (int i = 0;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < q->n && inf_pair_before(&q->h[l], &q->h[m]))
            m = l;
        if (r < q->n && inf_pair_before(&q->h[r], &q->h[m]))
            m = r;
        if (m == i)
            break;
        inf_pair_t t = q->h[i];
        q->h[i] = q->h[m];
        q->h[m] = t;
        i = m;
    }
    return top;
}

#endif
