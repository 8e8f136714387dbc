/*
 * tok_spm.c — SentencePiece-style tokenizing of one fragment (spaces
 * already U+2581): start from UTF-8 characters, merge the adjacent pair
 * whose union is the token of highest score (ties: the leftmost) until no
 * pair is a token; a character that is no token becomes its bytes'
 * <0xXX> tokens.
 */
#include <stdlib.h>
#include <string.h>

#include "inference/pairq.h"
#include "inference/vocab.h"

typedef struct {
    int prev, next;
    const char *p;
    int n; /* 0: merged away */
} sym_t;

static int try_pair(const inf_vocab_t *v, inf_pairq_t *q, const sym_t *s, int left, int right)
{
    if (left < 0 || right < 0)
        return 0;
    int id = inf_vocab_id(v, s[left].p, (size_t)(s[left].n + s[right].n));
    if (id < 0)
        return 0;
    /* the highest score first: the lowest negated one */
    return inf_pairq_push(q, (inf_pair_t){left, right, s[left].n + s[right].n, -(double)v->score[id]});
}

static int utf8_len(unsigned char c)
{
    return c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
}

int inf_tok_spm(const inf_vocab_t *v, const char *text, size_t len, int32_t *out, int n, int max)
{
    if (len == 0)
        return n;
    sym_t *s = malloc(len * sizeof *s);
    inf_pairq_t q = {0};
    if (!s)
        return -1;
    int ns = 0;
    for (size_t off = 0; off < len;) {
        int k = utf8_len((unsigned char)text[off]);
        if ((size_t)k > len - off)
            k = (int)(len - off);
        s[ns] = (sym_t){.prev = ns - 1, .next = off + (size_t)k < len ? ns + 1 : -1, .p = text + off, .n = k};
        ns++;
        off += (size_t)k;
    }
    int rc = 0;
    for (int i = 1; i < ns && rc == 0; i++)
        rc = try_pair(v, &q, s, i - 1, i);
    while (rc == 0 && q.n > 0) {
        inf_pair_t b = inf_pairq_pop(&q);
        sym_t *l = &s[b.left], *r = &s[b.right];
        if (l->n == 0 || r->n == 0 || l->n + r->n != b.size)
            continue; /* one side changed since the pair was queued */
        l->n += r->n;
        r->n = 0;
        l->next = r->next;
        if (r->next >= 0)
            s[r->next].prev = b.left;
        rc = try_pair(v, &q, s, l->prev, b.left);
        if (rc == 0)
            rc = try_pair(v, &q, s, b.left, l->next);
    }
    for (int i = 0; rc == 0 && i >= 0 && i < ns; i = s[i].next) {
        int id = inf_vocab_id(v, s[i].p, (size_t)s[i].n);
        if (id >= 0) {
            if (n >= max) {
                n = -1;
                break;
            }
            out[n++] = id;
            continue;
        }
        for (int k = 0; k < s[i].n; k++) {
            int bt = v->byte_tok[(unsigned char)s[i].p[k]];
            if (bt < 0)
                bt = v->unk;
            if (bt < 0)
                continue;
            if (n >= max) {
                n = -1;
                break;
            }
            out[n++] = bt;
        }
        if (n < 0)
            break;
    }
    free(q.h);
    free(s);
    return rc ? -1 : n;
}
