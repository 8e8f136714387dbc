/*
 * balance.c — tensor parallel's MLP split moved toward equal time on every
 * rank (balance.h).
 */
#include <stdlib.h>

#include "inference/balance.h"

int inf_bal_window(int units, int block, int n, double margin)
{
    if (n < 2 || block <= 0 || margin <= 0)
        return 0;
    if (margin > 0.49)
        margin = 0.49;
    /* a rank between two others holds a window on each side: half each */
    const double share = (double)(units / block) / n, w = margin * share / (n > 2 ? 2 : 1);
    return (int)w * block;
}

void inf_bal_free(inf_bal_t *bal)
{
    free(bal->lo);
    free(bal->hi);
    free(bal->b);
    free(bal->alpha);
    free(bal->next);
    *bal = (inf_bal_t){0};
}

/* A boundary at `at` moves within [lo_of, hi_of] (the first and the last,
 * 0 and units, stay). Windows never cross: inf_bal_window keeps two of them
 * under half a share. */
static int lo_of(int at, int window, int inner)
{
    return inner && at - window > 0 ? at - window : inner ? 0 : at;
}

static int hi_of(int at, int window, int units, int inner)
{
    return inner && at + window < units ? at + window : inner ? units : at;
}

void inf_bal_hold(int units, int window, int r, int n, int a, int na, int *h0, int *nh)
{
    *h0 = lo_of(a, window, r > 0);
    *nh = hi_of(a + na, window, units, r + 1 < n) - *h0;
}

int inf_bal_init(inf_bal_t *bal, int n, int units, int block, const int *even, int window)
{
    *bal = (inf_bal_t){.n = n, .units = units, .block = block};
    bal->lo = calloc((size_t)n + 1, sizeof *bal->lo);
    bal->hi = calloc((size_t)n + 1, sizeof *bal->hi);
    bal->b = calloc((size_t)n + 1, sizeof *bal->b);
    bal->alpha = calloc((size_t)n, sizeof *bal->alpha);
    bal->next = calloc((size_t)n + 1, sizeof *bal->next);
    if (!bal->lo || !bal->hi || !bal->b || !bal->alpha || !bal->next) {
        inf_bal_free(bal);
        return -1;
    }
    for (int k = 0; k <= n; k++) {
        const int inner = k > 0 && k < n;
        bal->b[k] = even[k];
        bal->lo[k] = lo_of(even[k], window, inner);
        bal->hi[k] = hi_of(even[k], window, units, inner);
    }
    return 0;
}

/* The slowest rank's predicted ps with boundaries b. */
static int64_t slowest(const inf_bal_t *bal, const int *b)
{
    int64_t most = 0;
    for (int r = 0; r < bal->n; r++) {
        const int64_t t = bal->alpha[r] * (b[r + 1] - b[r]);
        most = t > most ? t : most;
    }
    return most;
}

/* Boundaries b where every rank's predicted time is at most T, each rank
 * in turn taking as many whole blocks as T allows within the windows:
 * 1, or 0 when none are. */
static int within(const inf_bal_t *bal, int64_t T, int *b)
{
    const int n = bal->n;
    b[0] = 0;
    b[n] = bal->units;
    for (int r = 0; r + 1 < n; r++) {
        int64_t want = b[r];
        if (bal->alpha[r] > 0)
            want += T / bal->alpha[r];
        else
            want = bal->units; /* a cost not known yet: what its window allows */
        want = want / bal->block * bal->block;
        if (want > bal->hi[r + 1])
            want = bal->hi[r + 1];
        if (want < bal->lo[r + 1])
            want = bal->lo[r + 1];
        b[r + 1] = want < b[r] ? b[r] : (int)want;
        if (bal->alpha[r] * (b[r + 1] - b[r]) > T)
            return 0;
    }
    return bal->alpha[n - 1] * (b[n] - b[n - 1]) <= T;
}

int inf_bal_update(inf_bal_t *bal, const int64_t *ps, int stride)
{
    const int n = bal->n;
    for (int r = 0; r < n; r++) {
        const int u = bal->b[r + 1] - bal->b[r];
        const int64_t a = u > 0 && ps[r * stride] > 0 ? ps[r * stride] / u : 0;
        /* three quarters the last estimate, a quarter this period's: a
         * period of 8 tokens varies by 10-15% on a shared host (another
         * process, an interrupt), and one slow period moves a quarter as far */
        if (a > 0)
            bal->alpha[r] = bal->alpha[r] > 0 ? (3 * bal->alpha[r] + a) / 4 : a;
    }
    int64_t hiT = 1;
    for (int r = 0; r < n; r++) {
        const int64_t t = bal->alpha[r] * bal->units;
        hiT = t >= hiT ? t + 1 : hiT;
    }
    int *b = bal->next;
    int64_t loT = 0; /* not within; hiT within */
    while (hiT - loT > 1) {
        const int64_t mid = loT + (hiT - loT) / 2;
        if (within(bal, mid, b))
            hiT = mid;
        else
            loT = mid;
    }
    within(bal, hiT, b);
    int moved = 0;
    if (slowest(bal, b) * 100 < slowest(bal, bal->b) * 97) {
        for (int k = 0; k <= n; k++)
            moved |= b[k] != bal->b[k];
        for (int k = 0; k <= n; k++)
            bal->b[k] = b[k];
    }
    bal->moves += moved;
    return moved;
}
