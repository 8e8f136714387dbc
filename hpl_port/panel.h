/*
 * panel.h — the parts of the factorisation: a panel, its factorisation, its
 * broadcast along the process row, and the row swaps and update it drives.
 */
#ifndef HPL_PANEL_H
#define HPL_PANEL_H

#include "hpl_port/hpl.h"

/* A panel broadcast in flight (bcast_*.c). */
typedef struct hpl_bcast {
    int active;  /* started and not finished */
    int have;    /* the data is here (a forwarder may still be sending it on) */
    int state;   /* the variant's */
    int sent;    /* long variants: pieces forwarded so far */
    int nreq;    /* requests in use */
    bolt_request_t *req; /* room for 2 Q + 2 */
} hpl_bcast_t;

/* Panel k: global columns j .. j+jb-1 of the process column pcol, and the
 * rows j .. N-1 of every process row. Its message, the same layout on every
 * process of one process row:
 *   L1   jb x jb: the factored top block (L11 unit lower, U11 upper), or its
 *        transpose (HPL.dat's L1 form)
 *   ipiv jb: the global row each of the jb pivot steps swapped in
 *   L2   ml2 x jb (leading dimension ml2): L21's rows of this process row */
typedef struct hpl_panel {
    int k, j, jb;
    int prow, pcol;
    int ii;  /* local index of global row j (the top block, on prow) */
    int i2;  /* local index of the first row at or after j + jb */
    int ml2; /* local rows below the top block */
    int jj;  /* local column of global column j (on pcol) */
    double *buf, *l1, *ipiv, *l2;
    size_t count; /* doubles in buf */
    hpl_bcast_t bc;
} hpl_panel_t;

/* What the factorisation of one run shares: grid, algorithm, matrix, times,
 * the pivot exchange's reduction, the progress hook. */
typedef struct hpl_lu {
    const hpl_grid_t *g;
    const hpl_algo_t *algo;
    hpl_mat_t *m;
    hpl_times_t *t;
    struct hpl_progress *pr;
    bolt_op_t pivot_op;
    double *work;      /* pivot payloads, 2 x (nb + 2) doubles */
    double *swapbuf;   /* row swaps: packing and receiving */
    size_t swapcap;    /* doubles in swapbuf */
    double *ubuf;      /* U of the current update (P > 1 or U transposed) */
    double *ubuf2;     /* U of a look-ahead panel's columns (depth > 1), jb x jb */
    int *iwork;        /* the swaps' plan and scratch: 12 nb + 4 P ints */
    bolt_request_t *sreq; /* the swaps' requests: 4 P + 4 */
    size_t *swapoff;   /* the swaps' block offsets: 2 (P + 1) */
    hpl_panel_t *pan;  /* depth + 2 panel slots */
    int nslot;
    bolt_request_t *allreq; /* every slot's broadcast requests, one array */
    int reqs_per_slot;
    struct hpl_pool *pool; /* bolt-hpl's own threads (one process row), or NULL */
    int blas_threads;  /* the BLAS's threads to give back when the pool goes */
    int chunk;         /* update chunk width (columns) while broadcasts fly */
    int swapw;         /* columns swapped at a time across process rows */
} hpl_lu_t;

/* Drives every broadcast in flight (forwarding along rings) without waiting. */
int hpl_lu_poll(hpl_lu_t *lu);
/* Whether a broadcast is in flight here. */
int hpl_lu_busy(const hpl_lu_t *lu);

/* ---- the panel's factorisation (panel.c, fact_*.c, pivot.c) ---- */

/* The panel as the factorisation sees it: the top block T (jb x jb, the same
 * on every process of the column) above this process's rows L (ml x jb). */
typedef struct hpl_pf {
    hpl_lu_t *lu;
    const hpl_panel_t *p;
    double *t;
    int ldt;
    double *l;
    int ldl, ml;
    int jb;
} hpl_pf_t;

#define PF_T(pf, r, c) ((pf)->t[(size_t)(c) * (size_t)(pf)->ldt + (size_t)(r)])
#define PF_L(pf, r, c) ((pf)->l[(size_t)(c) * (size_t)(pf)->ldl + (size_t)(r)])

/* Factors panel p of the process column (its owner column calls it). */
int hpl_panel_factor(hpl_lu_t *lu, hpl_panel_t *p);
/* Column c: the pivot search over the whole process column, the row
 * exchange, and the scaling of the column below the diagonal. */
int hpl_pivot(hpl_pf_t *pf, int c);
int hpl_pivot_op_create(bolt_op_t *op);

/* A variant factors columns [c0, c0 + n) (rows c0 and below); the leaf does
 * it column by column (PFACT), the recursion in NDIV parts down to NBMIN
 * columns (RFACT). Each file holds one variant's leaf and recursion step. */
typedef int hpl_pfact_fn(hpl_pf_t *pf, int c0, int n);
int hpl_pfact_left(hpl_pf_t *pf, int c0, int n);
int hpl_pfact_crout(hpl_pf_t *pf, int c0, int n);
int hpl_pfact_right(hpl_pf_t *pf, int c0, int n);
int hpl_rfact(hpl_pf_t *pf, int c0, int n); /* dispatches on algo->rfact */
int hpl_rfact_left(hpl_pf_t *pf, int c0, int n, int c, int w);
int hpl_rfact_crout(hpl_pf_t *pf, int c0, int n, int c, int w);
int hpl_rfact_right(hpl_pf_t *pf, int c0, int n, int c, int w);

/* ---- the broadcast along the process row (bcast.c, bcast_*.c) ---- */

int hpl_bcast_start(hpl_lu_t *lu, hpl_panel_t *p);
/* Advances it; *have says whether the data is here. */
int hpl_bcast_test(hpl_lu_t *lu, hpl_panel_t *p);
/* Until the data is here (driving every other broadcast meanwhile). */
int hpl_bcast_wait_data(hpl_lu_t *lu, hpl_panel_t *p);
/* Until it is finished here (the buffer may be reused). */
int hpl_bcast_finish(hpl_lu_t *lu, hpl_panel_t *p);

/* One variant: start posts what it can, test advances (both non-blocking).
 * rr is this process's distance from the root along the row, q the row's size. */
typedef struct hpl_bcast_ops {
    int (*start)(hpl_lu_t *lu, hpl_panel_t *p, int rr, int q);
    int (*test)(hpl_lu_t *lu, hpl_panel_t *p, int rr, int q);
} hpl_bcast_ops_t;
extern const hpl_bcast_ops_t hpl_bcast_ring_ops, hpl_bcast_long_ops, hpl_bcast_bolt_ops;
/* The row rank at distance rr from the root, and the panel's tag. */
int hpl_bcast_peer(const hpl_lu_t *lu, const hpl_panel_t *p, int rr);
int hpl_bcast_tag(const hpl_panel_t *p);
/* Tests request i of b (BOLT_REQUEST_NULL once complete); *done says whether
 * it is (a null request is). */
int hpl_req_test(hpl_bcast_t *b, int i, int *done);
/* Whether every request of b is complete (testing those that are not). */
int hpl_reqs_test(hpl_bcast_t *b, int *all);

/* ---- row swaps and the update (swap.c, swap_*.c, update.c) ---- */

/* An update of local columns [c0, c1) with panel p, in two steps: begin
 * does the row swaps (across several process rows, one exchange for all the
 * columns, U landing in u, room for jb x (c1 - c0) doubles), then any
 * sub-ranges, in order, get U = L11^-1 U and A -= L2 U below the top block
 * (and, with one process row, their swaps, done in A as they come). So the
 * owner of the next panel swaps once for its columns and the rest, updates
 * the panel's columns, factors it, and only then the rest. */
typedef struct hpl_upd {
    hpl_panel_t *p;
    int c0, c1;
    double *u;
    int s0, s1; /* the swapped columns whose U is in u */
} hpl_upd_t;
int hpl_update_begin(hpl_lu_t *lu, hpl_panel_t *p, int c0, int c1, double *u, hpl_upd_t *up);
/* Columns [a, b) of the begun range; poll drives the broadcasts between
 * chunks. */
int hpl_update_cols(hpl_lu_t *lu, hpl_upd_t *up, int a, int b, int poll);
/* Both at once, U in lu->ubuf. */
int hpl_update(hpl_lu_t *lu, hpl_panel_t *p, int c0, int c1, int poll);

/* With bolt-hpl's own threads (lu->pool, one process row): start puts the
 * update of local columns [a, b) with panel p on the workers (U in
 * lu->ubuf when transposed), so that the caller can factor the next panel
 * meanwhile; finish has the caller help until it is done, driving the
 * broadcasts between its items when poll. */
typedef struct hpl_tjob {
    hpl_lu_t *lu;
    const hpl_panel_t *p;
    int a, b;
    double *ut;       /* U transposed ((b - a) x jb), or NULL: U stays in A */
    int ncol;         /* column chunks: swaps, DTRSM */
    int rowh, nrow;   /* row blocks: the DGEMM */
    int started;
} hpl_tjob_t;
void hpl_update_threads_start(hpl_lu_t *lu, hpl_panel_t *p, int a, int b, hpl_tjob_t *j);
int hpl_update_threads_finish(hpl_lu_t *lu, hpl_tjob_t *j, int poll);

#endif
