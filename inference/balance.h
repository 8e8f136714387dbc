/*
 * balance.h — a split of tensor parallel (the MLP's hidden units, the
 * output's vocabulary rows) moved toward equal time on every rank. Ranks
 * are rarely equally fast: Macs of two generations in one cluster, a host
 * that also drives a display, cores a hypervisor shares (here one of the two
 * cores ran a token 15-30% slower than the other, and the faster rank spent
 * the difference waiting in every collective). Between two collectives the
 * slowest rank sets the pace, so each part between them is balanced on its
 * own. Each rank holds its even share plus a margin on every side it shares
 * with a neighbour; every few tokens the ranks share what the part cost each
 * and move the boundaries, in whole blocks and within the margins, to where
 * the slowest rank's predicted time (its cost a unit times its units) is
 * least. The arithmetic is on integers from numbers every rank got alike, so
 * every rank moves alike.
 */
#ifndef INF_BALANCE_H
#define INF_BALANCE_H

#include <stdint.h>

typedef struct inf_bal {
    int n;           /* ranks */
    int units;       /* hidden units, rows */
    int block;       /* a boundary moves in whole blocks of units */
    int *lo, *hi;    /* boundary k's window (k = 0 .. n; 0 and n stay at 0 and units) */
    int *b;          /* the boundaries now: rank r computes units [b[r], b[r + 1]) */
    int64_t *alpha;  /* per rank, ps a unit costs a token (smoothed; 0: not known yet) */
    int moves;       /* times the boundaries moved */
    int *next;       /* scratch: boundaries tried */
} inf_bal_t;

/* The half-width of every boundary's window, in units (whole blocks): a
 * rank holds at most `margin` (a fraction of its even share, under 0.5)
 * more units than its share. 0: no window (too small a margin for a block). */
int inf_bal_window(int units, int block, int n, double margin);

/* even[0 .. n]: the even split's boundaries (even[0] 0, even[n] units,
 * the others multiples of block). Returns 0, or -1 out of memory. */
int inf_bal_init(inf_bal_t *bal, int n, int units, int block, const int *even, int window);
void inf_bal_free(inf_bal_t *bal);

/* [*h0, *h0 + *nh): what rank r of n holds of `units` when its even share
 * is [a, a + na): the windows of the boundaries it shares with a neighbour
 * around it (those of inf_bal_init, so a split never leaves it). */
void inf_bal_hold(int units, int window, int r, int n, int a, int na, int *h0, int *nh);

/* A period's measurements, the same on every rank: ps[r * stride] the ps
 * rank r's part took a token. Moves the boundaries when the slowest rank's
 * predicted time falls by more than 3% (noise moves nothing); returns 1 when
 * they moved. */
int inf_bal_update(inf_bal_t *bal, const int64_t *ps, int stride);

#endif
