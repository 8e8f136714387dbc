/*
 * main.c — bolt-hpl: the HPL benchmark on Bolt's native API. Rank 0 reads
 * HPL.dat (or takes the command line's sizes), every rank gets the same
 * input, and every combination of its lists runs, in HPL's order: grids,
 * then N, NB, DEPTH, BCAST, RFACT, PFACT, NBMIN, NDIV.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blas/kernels.h"
#include "hpl_port/blas.h"
#include "hpl_port/driver.h"
#include "hpl_port/probe.h"
#include "hpl_port/sys.h"

static int rank_ = 0;

static void die(const char *what)
{
    fprintf(stderr, "bolt-hpl: %s\n", what);
    bolt_abort(1, "bolt-hpl failed");
}

/* Rank 0 found the input; everyone gets it, or everyone gets the error. */
static int share_input(hpl_input_t *in, char *err, size_t errlen, int ok)
{
    int rc = bolt_bcast(&ok, 1, BOLT_INT32, 0, bolt_comm_world());
    if (rc == 0 && !ok)
        rc = bolt_bcast(err, errlen, BOLT_BYTE, 0, bolt_comm_world());
    if (rc == 0 && ok)
        rc = bolt_bcast(in, sizeof *in, BOLT_BYTE, 0, bolt_comm_world());
    if (rc) {
        hpl_fail(rc, "sharing the input");
        die(hpl_last_error());
    }
    return ok;
}

/* HPL.dat or the command line, overridden by the command line. */
static int read_input(const hpl_opts_t *o, int size, hpl_input_t *in, char *err, size_t errlen)
{
    if (o->dat_given || (!o->n && !o->autosize)) {
        /* -P/-Q replace the file's grids: they are checked below instead */
        if (hpl_dat_read(o->dat, o->p || o->q ? 0 : size, in, err, errlen))
            return 0;
    } else {
        hpl_input_defaults(in);
    }
    if (o->n) {
        in->nn = 1;
        in->n[0] = o->n;
    }
    if (o->nb) {
        in->nnb = 1;
        in->nb[0] = o->nb;
    }
    if (o->pmap >= 0)
        in->pmap = o->pmap;
    if (o->p || o->q) {
        int P = o->p ? o->p : (size % o->q == 0 ? size / o->q : 1);
        int Q = o->q ? o->q : (size % P == 0 ? size / P : 1);
        in->ngrid = 1;
        in->p[0] = P;
        in->q[0] = Q;
    } else if (!o->dat_given && (o->n || o->autosize)) {
        /* no grid given: the most square one */
        int P = 1;
        for (int p = 1; p * p <= size; p++)
            if (size % p == 0)
                P = p;
        in->ngrid = 1;
        in->p[0] = P;
        in->q[0] = size / P;
    }
    for (int i = 0; i < in->ngrid; i++)
        if ((long)in->p[i] * in->q[i] > size) {
            snprintf(err, errlen, "grid %d x %d needs %ld ranks, the job has %d (boltrun -np %ld, or a "
                     "smaller -P/-Q)", in->p[i], in->q[i], (long)in->p[i] * in->q[i], size,
                     (long)in->p[i] * in->q[i]);
            return 0;
        }
    return 1;
}

static FILE *open_out(const hpl_input_t *in, char *err, size_t errlen)
{
    if (in->device == 6)
        return stdout;
    if (in->device == 7)
        return stderr;
    FILE *f = fopen(in->outname, "w");
    if (!f)
        snprintf(err, errlen, "cannot create the output file %s (HPL.dat line 3)", in->outname);
    return f;
}

/* A warning worth a line: more BLAS threads than the rank may run on. */
static void check_threads(char *notes, size_t len)
{
    int threads = hpl_blas_threads(), cpus = hpl_sys_cpus(), mine = threads > cpus, any = 0;
    if (bolt_allreduce(&mine, &any, 1, BOLT_INT32, BOLT_MAX, bolt_comm_world()) == 0 && any &&
        rank_ == 0) {
        size_t at = strlen(notes);
        snprintf(notes + at, len - at,
                 "- warning: a rank's BLAS runs %d threads but it may run on %d CPU(s): run boltrun "
                 "with --bind-to none, or set OPENBLAS_NUM_THREADS\n",
                 threads, cpus);
    }
}

int main(int argc, char **argv)
{
    /* before anything starts: a restart must find nothing running */
    blas_kernels_ensure("bolt-hpl", argv);
    if (bolt_init(&argc, &argv) != BOLT_OK) {
        fprintf(stderr, "bolt-hpl: %s\n", bolt_error_message());
        return 1;
    }
    int size;
    bolt_comm_rank(bolt_comm_world(), &rank_);
    bolt_comm_size(bolt_comm_world(), &size);
    hpl_opts_t o;
    char err[1024] = "";
    int prc = hpl_opts_parse(argc, argv, &o, err, sizeof err);
    if (prc != 0) {
        /* every rank parsed the same line */
        if (prc < 0 && rank_ == 0)
            fprintf(stderr, "bolt-hpl: %s\n%s", err, hpl_usage());
        bolt_finalize();
        return prc < 0 ? 2 : 0;
    }
    /* threads a rank: --threads (the BLAS gets as many where bolt-hpl does
     * not run its own), else the BLAS's own count, within the CPUs this rank
     * may run on */
    if (o.threads > 0) {
        (void)hpl_blas_set_threads(o.threads);
    } else {
        int bt = hpl_blas_threads(), cpus = hpl_sys_cpus();
        o.threads = bt < 1 ? 1 : bt > cpus ? cpus : bt;
    }
    if (o.progress < 0) {
        o.progress_tty = isatty(2);
        o.progress = o.progress_tty;
    } else {
        o.progress_tty = o.progress && isatty(2);
    }

    if (o.dgemm_peak) {
        double total, slowest;
        int nb = o.nb ? o.nb : 192;
        if (hpl_dgemm_peak(bolt_comm_world(), o.peak_size, nb, &total, &slowest))
            die(hpl_last_error());
        if (rank_ == 0)
            printf("dgemm-peak: ranks=%d m=n=%d k=%d blas_threads=%d total_gflops=%.3f slowest_rank_gflops=%.3f\n",
                   size, o.peak_size, nb, hpl_blas_threads(), total, slowest);
        bolt_finalize();
        return 0;
    }

    hpl_input_t in;
    int ok = rank_ == 0 ? read_input(&o, size, &in, err, sizeof err) : 1;
    if (!share_input(&in, err, sizeof err, ok)) {
        if (rank_ == 0)
            fprintf(stderr, "bolt-hpl: %s\n", err);
        bolt_finalize();
        return 1;
    }
    char notes[4096] = "";
    if (o.autosize) {
        hpl_input_t chosen = in;
        if (hpl_auto(bolt_comm_world(), o.auto_fraction, o.nb, o.n, o.p, o.q, &chosen, notes,
                     sizeof notes))
            die(hpl_last_error());
        in = chosen;
        if (rank_ == 0)
            fputs(notes, stderr);
    }
    check_threads(notes, sizeof notes);

    hpl_report_t rep = {.phases = o.phases};
    ok = 1;
    if (rank_ == 0) {
        rep.out = open_out(&in, err, sizeof err);
        if (!rep.out)
            ok = 0;
        if (ok && o.csv && !(rep.csv = fopen(o.csv, "a"))) {
            snprintf(err, sizeof err, "--csv: cannot open %s", o.csv);
            ok = 0;
        }
        if (ok && o.json && !hpl_record_json_available()) {
            snprintf(err, sizeof err, "--json: this build has no JSON writer (configure found no jansson; "
                                      "scripts/deps installs it)");
            ok = 0;
        }
        if (ok && o.json && !(rep.json = fopen(o.json, "a"))) {
            snprintf(err, sizeof err, "--json: cannot open %s", o.json);
            ok = 0;
        }
    }
    if (!share_input(&in, err, sizeof err, ok)) {
        if (rank_ == 0)
            fprintf(stderr, "bolt-hpl: %s\n", err);
        bolt_finalize();
        return 1;
    }
    if (rank_ == 0) {
        size_t at = strlen(notes);
        if (o.threads > 1)
            snprintf(notes + at, sizeof notes - at,
                     "- Bolt: %d rank%s, BLAS: %s, %d threads a rank (with one process row bolt-hpl's "
                     "own, the BLAS single-threaded in each; else the BLAS's)\n",
                     size, size == 1 ? "" : "s", hpl_blas_name(), o.threads);
        else
            snprintf(notes + at, sizeof notes - at, "- Bolt: %d rank%s, BLAS: %s, 1 thread a rank\n", size,
                     size == 1 ? "" : "s", hpl_blas_name());
    }
    hpl_report_header(&rep, &in, notes);

    for (int ig = 0; ig < in.ngrid; ig++) {
        hpl_grid_t g;
        if (hpl_grid_init(bolt_comm_world(), in.pmap, in.p[ig], in.q[ig], &g))
            die(hpl_last_error());
        for (int a = 0; g.in_grid && a < in.nn; a++)
            for (int b = 0; b < in.nnb; b++)
                for (int c = 0; c < in.ndepth; c++)
                    for (int d = 0; d < in.nbcast; d++)
                        for (int e = 0; e < in.nrfact; e++)
                            for (int f = 0; f < in.npfact; f++)
                                for (int h = 0; h < in.nnbmin; h++)
                                    for (int k = 0; k < in.nndiv; k++) {
                                        hpl_algo_t algo = {
                                            .pfact = in.pfact[f], .nbmin = in.nbmin[h], .ndiv = in.ndiv[k],
                                            .rfact = in.rfact[e], .bcast = in.bcast[d], .depth = in.depth[c],
                                            .swap = in.swap, .swap_threshold = in.swap_threshold,
                                            .l1_notrans = in.l1_notrans, .u_notrans = in.u_notrans,
                                            .equil = in.equil, .align = in.align};
                                        if (hpl_test_run(&g, &algo, in.n[a], in.nb[b], in.pmap,
                                                         in.threshold, &o, &rep))
                                            die(hpl_last_error());
                                    }
        hpl_grid_exit(&g);
    }
    hpl_report_summary(&rep, in.threshold);
    int failed = rep.kfail;
    if (rep.out && rep.out != stdout && rep.out != stderr)
        fclose(rep.out);
    if (rep.csv)
        fclose(rep.csv);
    if (rep.json)
        fclose(rep.json);
    bolt_finalize();
    return failed ? 1 : 0;
}
