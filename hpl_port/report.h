/*
 * report.h — what a run prints: HPL's report line for line (report.c), a
 * machine-readable record per test (record_*.c), and the progress line.
 */
#ifndef HPL_REPORT_H
#define HPL_REPORT_H

#include <stdio.h>
#include <time.h>

#include "hpl_port/hpl.h"

/* One test's outcome, as rank 0 reports it. */
typedef struct hpl_result {
    int n, nb, p, q, pmap;
    hpl_algo_t algo;
    char tv[32];         /* HPL's T/V code, e.g. WR11C2R4 */
    double time, gflops; /* wall time of the slowest process */
    time_t start, end;
    int checked, passed;
    double threshold;
    hpl_resid_t resid;
    hpl_times_t tmax;    /* per phase, the slowest process's */
} hpl_result_t;

typedef struct hpl_report {
    FILE *out;    /* the report (rank 0; NULL elsewhere) */
    int phases;   /* print the per-phase breakdown */
    int kpass, kfail, kskip, kunchecked;
    FILE *csv;    /* one row per test, or NULL */
    FILE *json;   /* one JSON object per line per test, or NULL */
} hpl_report_t;

void hpl_tv_code(const hpl_algo_t *a, int pmap, char *out, size_t len);
/* The banner and the parameter listing; notes (may be NULL) are lines of
 * remarks (variants run in place of others, choices of --auto). */
void hpl_report_header(hpl_report_t *r, const hpl_input_t *in, const char *notes);
void hpl_report_test(hpl_report_t *r, const hpl_result_t *res);
void hpl_report_skip(hpl_report_t *r, const char *why);
void hpl_report_summary(hpl_report_t *r, double threshold);

/* Machine-readable records (CSV by hand: numbers and a code; JSON through
 * jansson where the build has it). */
int hpl_record_csv(FILE *f, const hpl_result_t *res, int header);
int hpl_record_json(FILE *f, const hpl_result_t *res);
int hpl_record_json_available(void);

/* The progress line: column reached, fraction of the work done, Gflop/s so
 * far; on stderr, rank 0, at most every `interval` seconds (a terminal gets
 * one line rewritten in place). */
typedef struct hpl_progress {
    int tty;
    int n;
    double t0, last, interval;
} hpl_progress_t;
void hpl_progress_start(hpl_progress_t *pr, int n, int tty);
void hpl_progress_note(hpl_progress_t *pr, int col);
void hpl_progress_end(hpl_progress_t *pr);

#endif
