/*
 * probe.h — measuring the machine: the DGEMM rate (dgemm_probe.c) and the
 * choices of --auto (auto.c).
 */
#ifndef HPL_PROBE_H
#define HPL_PROBE_H

#include "hpl_port/hpl.h"

/* Best Gflop/s of reps DGEMM calls C(m x n) -= A(m x k) B(k x n), after one
 * to warm up. */
int hpl_dgemm_rate(int m, int n, int k, int reps, double *best_gflops);

/* --auto: N from `fraction` of the memory the smallest host can give each of
 * its ranks, P x Q as square as the job allows (P <= Q), NB from a DGEMM
 * probe on every rank at once. Fills in (one test) and writes what it chose
 * and why into notes (rank 0). Collective over the job. */
int hpl_auto(bolt_comm_t world, double fraction, int nb_given, int n_given, int p_given, int q_given,
             hpl_input_t *in, char *notes, size_t notes_len);

/* The aggregate DGEMM rate of the job (size x size x nb on every rank at
 * once, each with its own BLAS threads) and the slowest rank's (may be NULL). */
int hpl_dgemm_peak(bolt_comm_t world, int size, int nb, double *total, double *min_rank);

#endif
