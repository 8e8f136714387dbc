/*
 * swap.h — the row swaps of a panel's pivots over some trailing columns,
 * across the process column (swap.c, swap_binexch.c, swap_long.c).
 *
 * The jb pivot steps, replayed on row numbers (the plan), say which original
 * row ends up in each of the jb rows of U (src) and which rows outside the
 * top block change (out positions): each of those gets an original top-block
 * row, so it comes from the top block's owner, prow. So two kinds of rows
 * travel: U's rows, from wherever they are to every process of the column,
 * and the displaced top rows, from prow to the owners of their new places.
 */
#ifndef HPL_SWAP_H
#define HPL_SWAP_H

#include "hpl_port/panel.h"

typedef struct hpl_swap {
    hpl_lu_t *lu;
    const hpl_panel_t *p;
    int c0, nn;     /* local columns [c0, c0 + nn) */
    double *u;      /* U: jb x nn (ld jb) or, transposed, nn x jb (ld nn) */
    int utrans;
    /* the plan */
    int *src;       /* [jb] original global row of U's row c */
    int nout;
    int *outpos;    /* [nout] global rows outside the top block that change */
    int *outsrc;    /* [nout] the original (top block) row each receives */
    int *nu;        /* [P] U rows each process row holds */
    int *scratch;   /* the variants': 4 nb + 3 P ints */
    int *li;        /* pack and unpack: 4 nb ints */
} hpl_swap_t;

/* The rows process row `pr` sends: U's rows it holds (increasing c), then,
 * for prow with `with_out`, the displaced rows (increasing o). Returns how
 * many; rows[] gets their global indices and role[] c (U) or -1 - o (out). */
int hpl_swap_rows_of(const hpl_swap_t *s, int pr, int with_out, int *rows, int *role);
/* Packs my global rows rows[0..n) over the columns into dst (n x nn, ld n),
 * a column at a time (A is column-major: one pass down each column). */
void hpl_swap_pack(const hpl_swap_t *s, const int *rows, int n, double *dst);
/* Puts the n rows of blk (n x nn, ld n) where role[r] says: U's row c
 * (role >= 0), or the out position -1 - role when this process holds it
 * (else nowhere); a column at a time. */
void hpl_swap_unpack(const hpl_swap_t *s, const int *role, int n, const double *blk);

int hpl_swap_binexch(hpl_swap_t *s);
int hpl_swap_long(hpl_swap_t *s);

/* The swaps of panel p over local columns [c0, c0 + nn) across a column of
 * more than one process: U's rows land in u on every process of the column,
 * the displaced rows in A. SWAP 0, 1 or 2 (mix: bin-exch up to the threshold
 * of columns, long beyond). */
int hpl_swap(hpl_lu_t *lu, const hpl_panel_t *p, int c0, int nn, double *u, int utrans);
/* With one process row: the jb interchanges in A itself, column by column. */
void hpl_swap_local(hpl_lu_t *lu, const hpl_panel_t *p, int c0, int nn);

#endif
