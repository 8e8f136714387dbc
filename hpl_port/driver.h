/*
 * driver.h — bolt-hpl's command line (args.c) and one test (test.c).
 */
#ifndef HPL_DRIVER_H
#define HPL_DRIVER_H

#include "hpl_port/report.h"

typedef struct hpl_opts {
    const char *dat;          /* --dat FILE (default HPL.dat, read when no -N/--auto) */
    int dat_given;
    int n, nb, p, q;          /* overrides, 0 when not given */
    int pmap;                 /* -1 unless --pmap */
    int threads;              /* --threads, 0 when not given (main resolves it) */
    int autosize;             /* --auto[=FRACTION] */
    double auto_fraction;
    int progress;             /* 1 --progress, 0 --no-progress, -1 when stderr is a terminal */
    int progress_tty;         /* the line is rewritten in place (stderr is a terminal) */
    double progress_interval; /* --progress=SECONDS (-1: the default) */
    int phases;               /* --phases */
    const char *csv, *json;   /* --csv FILE, --json FILE (appended) */
    /* for tests and benchmarks */
    const char *write_x;      /* --write-x FILE: the solution, one value a line */
    int checksum;             /* --matrix-checksum: print [A|b]'s checksum, no solve */
    long fault_row, fault_col; /* --inject-fault ROW,COL: corrupt U there after the factorisation */
    int dgemm_peak;           /* --dgemm-peak[=SIZE]: the job's DGEMM rate, then exit */
    int peak_size;
    uint64_t seed;
} hpl_opts_t;

/* 0 on success, 1 to exit successfully (--help, --version printed), -1 on
 * a bad option (message in err). */
int hpl_opts_parse(int argc, char **argv, hpl_opts_t *o, char *err, size_t errlen);
const char *hpl_usage(void);

/* One test of the grid: allocate, generate, factor and solve (timed), check,
 * report. Collective over the grid. Returns a Bolt error code on a failure
 * that ends the run. */
int hpl_test_run(const hpl_grid_t *g, const hpl_algo_t *algo, int n, int nb, int pmap,
                 double threshold, const hpl_opts_t *o, hpl_report_t *r);

/* lu.c: the factorisation's state and buffers, allocated (and their pages
 * touched) before the clock starts, as vendor HPLs do; then [A|b] factored
 * in place (b becomes b', U x = b' is left to hpl_pdtrsv). The state is
 * reusable for one matrix. */
struct hpl_lu;
struct hpl_progress;
/* threads > 1 with one process row: bolt-hpl's own threads, BLAS
 * single-threaded while the state lives. */
int hpl_lu_create(const hpl_grid_t *g, const hpl_algo_t *algo, hpl_mat_t *m, int threads,
                  struct hpl_lu **out);
void hpl_lu_destroy(struct hpl_lu *lu);
int hpl_pdgetrf(struct hpl_lu *lu, hpl_times_t *t, struct hpl_progress *pr);

#endif
