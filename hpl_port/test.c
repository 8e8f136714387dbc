/*
 * test.c — one test, as HPL runs it: [A|b] generated, the grid lined up, the
 * factorisation and solve timed (the slowest process's time counts), [A|b]
 * generated again for the residual check, the report's lines.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hpl_port/driver.h"
#include "hpl_port/sys.h"

static int mat_alloc(const hpl_grid_t *g, const hpl_algo_t *algo, int n, int nb, hpl_mat_t *m)
{
    memset(m, 0, sizeof *m);
    m->n = n;
    m->nb = nb;
    m->mp = hpl_numroc(n, nb, g->myrow, g->nprow);
    m->nq = hpl_numroc(n + 1, nb, g->mycol, g->npcol);
    m->nqa = hpl_numroc(n, nb, g->mycol, g->npcol);
    size_t align = (size_t)algo->align < 8 ? 8 : (size_t)algo->align; /* doubles: >= a cache line */
    size_t lda = ((size_t)(m->mp > 0 ? m->mp : 1) + align - 1) / align * align;
    /* a column stride of a multiple of 4 KiB makes the rows of a block fight
     * over the same cache sets */
    if ((lda * sizeof(double)) % 4096 == 0)
        lda += align;
    m->lda = lda;
    size_t bytes = lda * (size_t)m->nq * sizeof(double);
    if (posix_memalign(&m->mem, align * sizeof(double) > 64 ? align * sizeof(double) : 64,
                       bytes ? bytes : 64))
        return -1;
    hpl_sys_advise_huge(m->mem, bytes);
    m->a = m->mem;
    return 0;
}

static void mat_free(hpl_mat_t *m)
{
    free(m->mem);
    free(m->x);
    m->mem = m->a = m->x = NULL;
}

/* The solution, gathered in global order, written by rank 0. */
static int write_x(const hpl_grid_t *g, const hpl_mat_t *m, const char *path)
{
    double *x = calloc((size_t)m->n + 1, sizeof(double));
    if (!x)
        return hpl_error(BOLT_ERR_NOMEM, "--write-x: out of memory");
    if (g->myrow == 0) /* every process row holds x's entries of its columns: take row 0's */
        for (int lj = 0; lj < m->nqa; lj++)
            x[hpl_global(lj, m->nb, g->mycol, g->npcol)] = m->x[lj];
    int rc = bolt_allreduce(BOLT_IN_PLACE, x, (size_t)m->n, BOLT_FLOAT64, BOLT_SUM, g->all);
    if (rc) {
        free(x);
        return hpl_fail(rc, "--write-x: gathering x");
    }
    if (g->rank == 0) {
        FILE *f = fopen(path, "w");
        if (!f) {
            free(x);
            return hpl_error(BOLT_ERR_SYS, "--write-x: cannot create %s", path);
        }
        for (int i = 0; i < m->n; i++)
            fprintf(f, "%.17g\n", x[i]);
        if (fclose(f)) {
            free(x);
            return hpl_error(BOLT_ERR_SYS, "--write-x: cannot write %s", path);
        }
    }
    free(x);
    return 0;
}

/* The test hook: one element of U changed after the factorisation. */
static void inject_fault(const hpl_grid_t *g, hpl_mat_t *m, long row, long col)
{
    if (row >= m->n || col >= m->n)
        return;
    int gr = (int)row, gc = (int)col;
    if (hpl_owner(gr, m->nb, g->nprow) != g->myrow || hpl_owner(gc, m->nb, g->npcol) != g->mycol)
        return;
    double *a = m->a + (size_t)hpl_numroc(gc, m->nb, g->mycol, g->npcol) * m->lda +
                (size_t)hpl_numroc(gr, m->nb, g->myrow, g->nprow);
    *a = 2.0 * *a + 1.0;
}

int hpl_test_run(const hpl_grid_t *g, const hpl_algo_t *algo, int n, int nb, int pmap,
                 double threshold, const hpl_opts_t *o, hpl_report_t *r)
{
    hpl_mat_t m;
    int ok = mat_alloc(g, algo, n, nb, &m) == 0, all_ok = 0, rc;
    if ((rc = bolt_allreduce(&ok, &all_ok, 1, BOLT_INT32, BOLT_MIN, g->all)))
        return hpl_fail(rc, "test N=%d NB=%d: agreeing on the allocation", n, nb);
    if (!all_ok) {
        char why[256];
        double gib = (double)n * (n + 1.0) * 8.0 / g->size / 1073741824.0;
        snprintf(why, sizeof why,
                 "Memory allocation failed for A, x and b (N=%d, about %.2f GiB a rank). Skip.", n, gib);
        hpl_report_skip(r, why);
        mat_free(&m);
        return 0;
    }
    hpl_matgen(g, &m, o->seed);
    if (o->checksum) {
        uint64_t sum;
        if ((rc = hpl_matgen_checksum(g, &m, &sum)) == 0 && g->rank == 0 && r->out)
            fprintf(r->out, "matrix N=%d NB=%d P=%d Q=%d checksum %016llx\n", n, nb, g->nprow,
                    g->npcol, (unsigned long long)sum);
        mat_free(&m);
        return rc;
    }

    hpl_result_t res = {.n = n, .nb = nb, .p = g->nprow, .q = g->npcol, .pmap = pmap, .algo = *algo,
                        .threshold = threshold};
    hpl_tv_code(algo, pmap, res.tv, sizeof res.tv);
    hpl_times_t t = {0};
    hpl_progress_t pr = {.interval = o->progress_interval};
    int show = g->rank == 0 && o->progress > 0;
    struct hpl_lu *lu = NULL;
    if ((rc = hpl_lu_create(g, algo, &m, o->threads, &lu)) == 0 && (rc = bolt_barrier(g->all)))
        rc = hpl_fail(rc, "test %s N=%d: lining up the grid", res.tv, n);
    if (rc) {
        hpl_lu_destroy(lu);
        mat_free(&m);
        return rc;
    }
    res.start = time(NULL);
    double t0 = bolt_wtime();
    if (show)
        hpl_progress_start(&pr, n, o->progress_tty);
    rc = hpl_pdgetrf(lu, &t, show ? &pr : NULL);
    if (rc == 0 && o->fault_row >= 0)
        inject_fault(g, &m, o->fault_row, o->fault_col);
    if (rc == 0) {
        double ts = bolt_wtime();
        rc = hpl_pdtrsv(g, &m);
        t.solve = bolt_wtime() - ts;
    }
    double wall = bolt_wtime() - t0;
    hpl_lu_destroy(lu);
    res.end = time(NULL);
    if (show)
        hpl_progress_end(&pr);
    if (rc) {
        mat_free(&m);
        return rc;
    }
    double mine[7] = {wall, t.pfact, t.mxswp, t.bcast, t.laswp, t.update, t.solve}, mx[7];
    if ((rc = bolt_allreduce(mine, mx, 7, BOLT_FLOAT64, BOLT_MAX, g->all))) {
        mat_free(&m);
        return hpl_fail(rc, "test %s N=%d: the slowest process's times", res.tv, n);
    }
    res.time = mx[0];
    res.tmax = (hpl_times_t){mx[1], mx[2], mx[3], mx[4], mx[5], mx[6]};
    double dn = n;
    res.gflops = res.time > 0 ? ((2.0 / 3.0) * dn * dn * dn + 1.5 * dn * dn) / res.time / 1e9 : 0.0;

    if (o->write_x && (rc = write_x(g, &m, o->write_x))) {
        mat_free(&m);
        return rc;
    }
    if (threshold > 0.0) {
        if ((rc = hpl_check(g, &m, o->seed, &res.resid))) {
            mat_free(&m);
            return rc;
        }
        res.checked = 1;
        res.passed = res.resid.resid < threshold; /* a NaN fails */
    }
    mat_free(&m);
    if (g->rank == 0) {
        hpl_report_test(r, &res);
        if (r->csv && hpl_record_csv(r->csv, &res, ftell(r->csv) == 0))
            return hpl_error(BOLT_ERR_SYS, "--csv: cannot write the record");
        if (r->json && hpl_record_json(r->json, &res))
            return hpl_error(BOLT_ERR_SYS, "--json: cannot write the record");
    }
    return 0;
}
