/*
 * report.c — HPL's report, line for line, so that output compares with
 * HPL's and the scripts that parse HPL's output keep working: the parameter
 * listing, the "T/V N NB P Q Time Gflops" rows with HPL's T/V code, the start
 * and end times, the residual with PASSED/FAILED, the closing counts; with
 * --phases, HPL's "Max aggregated wall time" block.
 */
#include <string.h>

#include "hpl_port/report.h"

#define RULE_EQ "================================================================================"
#define RULE_MINUS "--------------------------------------------------------------------------------"

static const char *const fact_name[] = {"Left", "Crout", "Right"};
static const char fact_letter[] = {'L', 'C', 'R'};
static const char *const bcast_name[] = {"1ring", "1ringM", "2ring", "2ringM", "Blong", "BlongM", "Bolt"};

void hpl_tv_code(const hpl_algo_t *a, int pmap, char *out, size_t len)
{
    snprintf(out, len, "W%c%d%d%c%d%c%d", pmap == 0 ? 'R' : 'C', a->depth, a->bcast,
             fact_letter[a->rfact], a->ndiv, fact_letter[a->pfact], a->nbmin);
}

/* "KEY    :" then 8 values a line, as HPL lists them. */
static void list_ints(FILE *f, const char *key, const int *v, int n)
{
    fprintf(f, "%-7s:", key);
    for (int i = 0; i < n; i++) {
        if (i > 0 && i % 8 == 0)
            fprintf(f, "\n        ");
        fprintf(f, "%8d ", v[i]);
    }
    fputc('\n', f);
}

static void list_names(FILE *f, const char *key, const int *v, int n, const char *const *names)
{
    fprintf(f, "%-7s:", key);
    for (int i = 0; i < n; i++) {
        if (i > 0 && i % 8 == 0)
            fprintf(f, "\n        ");
        fprintf(f, "%8s ", names[v[i]]);
    }
    fputc('\n', f);
}

void hpl_report_header(hpl_report_t *r, const hpl_input_t *in, const char *notes)
{
    FILE *f = r->out;
    if (!f)
        return;
    fprintf(f, "%s\n", RULE_EQ);
    fprintf(f, "Bolt HPL %d.%d.%d  --  the HPL benchmark on Bolt's native API\n", BOLT_VERSION_MAJOR,
            BOLT_VERSION_MINOR, BOLT_VERSION_PATCH);
    fprintf(f, "Written from HPL's published algorithm (HPLinpack 2.3's input and report)\n");
    fprintf(f, "%s\n\n", RULE_EQ);
    fprintf(f, "An explanation of the input/output parameters follows:\n"
               "T/V    : Wall time / encoded variant.\n"
               "N      : The order of the coefficient matrix A.\n"
               "NB     : The partitioning blocking factor.\n"
               "P      : The number of process rows.\n"
               "Q      : The number of process columns.\n"
               "Time   : Time in seconds to solve the linear system.\n"
               "Gflops : Rate of execution for solving the linear system.\n\n"
               "The following parameter values will be used:\n\n");
    list_ints(f, "N", in->n, in->nn);
    list_ints(f, "NB", in->nb, in->nnb);
    fprintf(f, "PMAP   : %s process mapping\n", in->pmap == 0 ? "Row-major" : "Column-major");
    list_ints(f, "P", in->p, in->ngrid);
    list_ints(f, "Q", in->q, in->ngrid);
    list_names(f, "PFACT", in->pfact, in->npfact, fact_name);
    list_ints(f, "NBMIN", in->nbmin, in->nnbmin);
    list_ints(f, "NDIV", in->ndiv, in->nndiv);
    list_names(f, "RFACT", in->rfact, in->nrfact, fact_name);
    list_names(f, "BCAST", in->bcast, in->nbcast, bcast_name);
    list_ints(f, "DEPTH", in->depth, in->ndepth);
    if (in->swap == HPL_SWAP_BINEXCH)
        fprintf(f, "SWAP   : Binary-exchange\n");
    else if (in->swap == HPL_SWAP_LONG)
        fprintf(f, "SWAP   : Spread-roll (long)\n");
    else
        fprintf(f, "SWAP   : Mix (threshold = %d)\n", in->swap_threshold);
    fprintf(f, "L1     : %s form\n", in->l1_notrans ? "no-transposed" : "transposed");
    fprintf(f, "U      : %s form\n", in->u_notrans ? "no-transposed" : "transposed");
    fprintf(f, "EQUIL  : %s\n", in->equil ? "yes" : "no");
    fprintf(f, "ALIGN  : %d double precision words\n\n", in->align);
    fprintf(f, "%s\n\n", RULE_MINUS);
    fprintf(f, "- The matrix A is randomly generated for each test.\n"
               "- The following scaled residual check will be computed:\n"
               "      ||Ax-b||_oo / ( eps * ( || x ||_oo * || A ||_oo + || b ||_oo ) * N )\n");
    fprintf(f, "- The relative machine precision (eps) is taken to be %26.6e\n", 1.1102230246251565e-16);
    fprintf(f, "- Computational tests pass if scaled residuals are less than %19.1f\n",
            in->threshold);
    if (notes && *notes)
        fprintf(f, "%s", notes);
    fputc('\n', f);
    fflush(f);
}

void hpl_report_test(hpl_report_t *r, const hpl_result_t *res)
{
    if (res->checked)
        res->passed ? r->kpass++ : r->kfail++;
    else
        r->kunchecked++;
    FILE *f = r->out;
    if (!f)
        return;
    char tbuf[64];
    fprintf(f, "%s\n", RULE_EQ);
    fprintf(f, "T/V                N    NB     P     Q               Time                 Gflops\n");
    fprintf(f, "%s\n", RULE_MINUS);
    fprintf(f, "%-8s%12d %5d %5d %5d %18.2f %18.4e\n", res->tv, res->n, res->nb, res->p, res->q,
            res->time, res->gflops);
    /* ctime_r's text ends in a newline, so each line is followed by a blank one (as HPL's) */
    fprintf(f, "HPL_pdgesv() start time %s\n", ctime_r(&res->start, tbuf));
    fprintf(f, "HPL_pdgesv() end time   %s\n", ctime_r(&res->end, tbuf));
    if (r->phases) {
        const hpl_times_t *t = &res->tmax;
        fprintf(f, "--VVV--VVV--VVV--VVV--VVV--VVV--VVV--VVV--VVV--VVV--VVV--VVV--VVV--VVV--VVV-\n");
        fprintf(f, "Max aggregated wall time rfact . . . : %18.2f\n", t->pfact);
        fprintf(f, "+ Max aggregated wall time pfact . . : %18.2f\n", t->pfact - t->mxswp);
        fprintf(f, "+ Max aggregated wall time mxswp . . : %18.2f\n", t->mxswp);
        fprintf(f, "Max aggregated wall time update  . . : %18.2f\n", t->update + t->laswp);
        fprintf(f, "+ Max aggregated wall time laswp . . : %18.2f\n", t->laswp);
        fprintf(f, "Max aggregated wall time bcast . . . : %18.2f\n", t->bcast);
        fprintf(f, "Max aggregated wall time up tr sv  . : %18.2f\n", t->solve);
    }
    if (res->checked) {
        fprintf(f, "%s\n", RULE_MINUS);
        fprintf(f, "||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)= %16.8e ...... %s\n",
                res->resid.resid, res->passed ? "PASSED" : "FAILED");
        if (!res->passed) {
            fprintf(f, "||Ax-b||_oo  . . . . . . . . . . . . . . . . . = %18.6f\n", res->resid.rnorm);
            fprintf(f, "||A||_oo . . . . . . . . . . . . . . . . . . . = %18.6f\n", res->resid.anorm);
            fprintf(f, "||x||_oo . . . . . . . . . . . . . . . . . . . = %18.6f\n", res->resid.xnorm);
            fprintf(f, "||b||_oo . . . . . . . . . . . . . . . . . . . = %18.6f\n", res->resid.bnorm);
        }
    }
    fflush(f);
}

void hpl_report_skip(hpl_report_t *r, const char *why)
{
    r->kskip++;
    if (r->out) {
        fprintf(r->out, "%s\n%s\n", RULE_EQ, why);
        fflush(r->out);
    }
}

void hpl_report_summary(hpl_report_t *r, double threshold)
{
    FILE *f = r->out;
    if (!f)
        return;
    int ktest = r->kpass + r->kfail + r->kskip + r->kunchecked;
    fprintf(f, "%s\n\n", RULE_EQ);
    fprintf(f, "Finished %6d tests with the following results:\n", ktest);
    if (threshold > 0.0) {
        fprintf(f, "         %6d tests completed and passed residual checks,\n", r->kpass);
        fprintf(f, "         %6d tests completed and failed residual checks,\n", r->kfail);
        fprintf(f, "         %6d tests skipped because of illegal input values.\n", r->kskip);
    } else {
        fprintf(f, "         %6d tests completed without checking,\n", r->kunchecked);
        fprintf(f, "         %6d tests skipped because of illegal input values.\n", r->kskip);
    }
    fprintf(f, "%s\n\nEnd of Tests.\n%s\n", RULE_MINUS, RULE_EQ);
    fflush(f);
}

void hpl_progress_start(hpl_progress_t *pr, int n, int tty)
{
    pr->tty = tty;
    pr->n = n;
    pr->t0 = pr->last = bolt_wtime();
    if (pr->interval < 0)
        pr->interval = tty ? 0.5 : 5.0;
}

void hpl_progress_note(hpl_progress_t *pr, int col)
{
    double now = bolt_wtime();
    if (now - pr->last < pr->interval && col < pr->n)
        return;
    pr->last = now;
    double n = pr->n, rest = n - col;
    double done = (2.0 / 3.0) * (n * n * n - rest * rest * rest);
    double frac = n > 0 ? done / ((2.0 / 3.0) * n * n * n) : 1.0;
    double gf = now > pr->t0 ? done / (now - pr->t0) / 1e9 : 0.0;
    fprintf(stderr, "Column=%09d Fraction=%4.1f%% Gflops=%.3e%s", col, 100.0 * frac, gf,
            pr->tty ? "\r" : "\n");
    fflush(stderr);
}

void hpl_progress_end(hpl_progress_t *pr)
{
    if (pr->tty)
        fputc('\n', stderr);
}
