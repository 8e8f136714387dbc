/*
 * hpl.h — the HPL benchmark on Bolt's native API: the types every part shares.
 *
 * The matrix [A|b] (N rows, N + 1 columns) is dealt in NB x NB blocks over a
 * P x Q process grid (2-D block-cyclic), each process holding its blocks
 * column-major. LU with partial pivoting overwrites A with U (L is used once,
 * by the update it drives, then dropped: b rides along as column N, so the
 * forward substitution happens on the way); back substitution then solves
 * U x = b'. The variants are HPL's (HPL.dat lines 14-31).
 */
#ifndef HPL_H
#define HPL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bolt.h"

/* Lists of HPL.dat hold up to this many values (HPL's own limit). */
#define HPL_MAX_PARAM 20

enum hpl_fact { HPL_FACT_LEFT = 0, HPL_FACT_CROUT = 1, HPL_FACT_RIGHT = 2 };
/* Panel broadcasts: HPL's six, then Bolt's tuned broadcast. */
enum hpl_bcast_kind {
    HPL_BCAST_1RING = 0,
    HPL_BCAST_1RINGM = 1,
    HPL_BCAST_2RING = 2,
    HPL_BCAST_2RINGM = 3,
    HPL_BCAST_LONG = 4,
    HPL_BCAST_LONGM = 5,
    HPL_BCAST_BOLT = 6,
    HPL_BCAST_COUNT = 7
};
enum hpl_swap_kind { HPL_SWAP_BINEXCH = 0, HPL_SWAP_LONG = 1, HPL_SWAP_MIX = 2 };

/* The algorithm of one test. */
typedef struct hpl_algo {
    int pfact, nbmin, ndiv, rfact; /* enum hpl_fact for pfact and rfact */
    int bcast;                     /* enum hpl_bcast_kind */
    int depth;                     /* look-ahead depth */
    int swap, swap_threshold;      /* enum hpl_swap_kind; mix: bin-exch up to threshold columns */
    int l1_notrans, u_notrans;     /* forms of L1 and U: 0 transposed, 1 not */
    int equil;                     /* equilibrate U's rows before the long swap's roll */
    int align;                     /* memory alignment, in doubles */
} hpl_algo_t;

/* Everything HPL.dat (or the command line) asks for. */
typedef struct hpl_input {
    char outname[256]; /* line 3 */
    int device;        /* line 4: 6 stdout, 7 stderr, else the file outname */
    int nn, n[HPL_MAX_PARAM];
    int nnb, nb[HPL_MAX_PARAM];
    int pmap; /* 0 row-major, 1 column-major */
    int ngrid, p[HPL_MAX_PARAM], q[HPL_MAX_PARAM];
    double threshold;
    int npfact, pfact[HPL_MAX_PARAM];
    int nnbmin, nbmin[HPL_MAX_PARAM];
    int nndiv, ndiv[HPL_MAX_PARAM];
    int nrfact, rfact[HPL_MAX_PARAM];
    int nbcast, bcast[HPL_MAX_PARAM];
    int ndepth, depth[HPL_MAX_PARAM];
    int swap, swap_threshold;
    int l1_notrans, u_notrans, equil, align;
} hpl_input_t;

/* The process grid of one test. Ranks of the job beyond P x Q sit it out
 * (in_grid 0, communicators NULL). */
typedef struct hpl_grid {
    int in_grid;
    int nprow, npcol, myrow, mycol, order;
    int rank, size;    /* in `all` */
    bolt_comm_t all;   /* the P x Q ranks */
    bolt_comm_t row;   /* my process row: rank = mycol */
    bolt_comm_t col;   /* my process column: rank = myrow */
} hpl_grid_t;

/* This process's part of [A|b]. */
typedef struct hpl_mat {
    int n, nb;
    int mp, nq; /* local rows (of N), local columns (of N + 1, b included) */
    int nqa;    /* local columns of A alone (b excluded) */
    size_t lda;
    double *a;  /* lda x nq, column-major */
    double *x;  /* the solution's entries of my nqa columns (after the solve) */
    void *mem;
} hpl_mat_t;

/* Per-phase wall times of one process (seconds). */
typedef struct hpl_times {
    double pfact;  /* panel factorisation, pivoting included */
    double mxswp;  /* of which: the pivot searches and row exchanges across the column */
    double bcast;  /* starting, driving and waiting for panel broadcasts */
    double laswp;  /* row swaps of the trailing matrix (U's rows) */
    double update; /* DTRSM and DGEMM of the trailing matrix */
    double solve;  /* back substitution */
} hpl_times_t;

/* The number of indices of 0..n-1 (blocks of nb dealt round-robin to np
 * processes from process 0) that process p holds; with n = g it is the local
 * index of p's first index at or after g. */
static inline int hpl_numroc(int n, int nb, int p, int np)
{
    int nblocks = n / nb, count = (nblocks / np) * nb, rem = nblocks % np;
    if (p < rem)
        count += nb;
    else if (p == rem)
        count += n % nb;
    return count;
}

/* Global index of local index l of process p. */
static inline int hpl_global(int l, int nb, int p, int np)
{
    return ((l / nb) * np + p) * nb + l % nb;
}

/* Owner of global index g. */
static inline int hpl_owner(int g, int nb, int np)
{
    return (g / nb) % np;
}

/* ---- parts (one file each) ---- */

/* hpl_dat.c: HPL.dat from memory. On error returns -1 with a message naming
 * `fname`, the line and what was expected in err. nranks bounds the grids
 * (0: unchecked). */
int hpl_dat_parse(const char *text, size_t len, const char *fname, int nranks, hpl_input_t *in,
                  char *err, size_t errlen);
int hpl_dat_read(const char *path, int nranks, hpl_input_t *in, char *err, size_t errlen);
/* HPL.dat's defaults for the lines the command line does not set. */
void hpl_input_defaults(hpl_input_t *in);

/* grid.c */
int hpl_grid_init(bolt_comm_t world, int order, int nprow, int npcol, hpl_grid_t *g);
void hpl_grid_exit(hpl_grid_t *g);

/* matgen.c: [A|b] from the seed, this process's blocks only. */
void hpl_matgen(const hpl_grid_t *g, hpl_mat_t *m, uint64_t seed);
/* An order-independent checksum of the global [A|b] (summed over the grid). */
int hpl_matgen_checksum(const hpl_grid_t *g, const hpl_mat_t *m, uint64_t *sum);
/* The stream's value number idx (0-based) from seed: what entry idx of the
 * column-major [A|b] holds. */
double hpl_rand_at(uint64_t seed, uint64_t idx);

/* solve.c: back substitution U x = b' (b' is column N after the factorisation). */
int hpl_pdtrsv(const hpl_grid_t *g, hpl_mat_t *m);

/* check.c: the scaled residual of HPL, from a regenerated [A|b]. */
typedef struct hpl_resid {
    double resid;  /* ||Ax-b||_oo / (eps * (||A||_oo * ||x||_oo + ||b||_oo) * N) */
    double rnorm, anorm, xnorm, bnorm, eps;
} hpl_resid_t;
int hpl_check(const hpl_grid_t *g, hpl_mat_t *m, uint64_t seed, hpl_resid_t *r);

/* Errors: a message naming this rank and host, kept for the driver; both
 * return code. hpl_fail is for a Bolt call's failure (its details follow). */
int hpl_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int hpl_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *hpl_last_error(void);

#endif
