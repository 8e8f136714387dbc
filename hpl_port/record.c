/*
 * record.c — one machine-readable record per test beside the report: a CSV
 * row (numbers and HPL's T/V code, nothing to quote) or a JSON object per
 * line, written through jansson.
 */
#include "hpl_port/report.h"

#ifdef BOLT_HAVE_JANSSON
#include <jansson.h>
#endif

static const char *status_of(const hpl_result_t *res)
{
    return !res->checked ? "UNCHECKED" : res->passed ? "PASSED" : "FAILED";
}

int hpl_record_csv(FILE *f, const hpl_result_t *res, int header)
{
    if (header)
        fprintf(f, "tv,n,nb,p,q,time_s,gflops,resid,status,rfact_s,mxswp_s,bcast_s,laswp_s,update_s,"
                   "solve_s\n");
    const hpl_times_t *t = &res->tmax;
    fprintf(f, "%s,%d,%d,%d,%d,%.6f,%.6e,%.8e,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n", res->tv, res->n,
            res->nb, res->p, res->q, res->time, res->gflops, res->checked ? res->resid.resid : 0.0,
            status_of(res), t->pfact, t->mxswp, t->bcast, t->laswp, t->update, t->solve);
    return fflush(f) == 0 ? 0 : -1;
}

int hpl_record_json_available(void)
{
#ifdef BOLT_HAVE_JANSSON
    return 1;
#else
    return 0;
#endif
}

int hpl_record_json(FILE *f, const hpl_result_t *res)
{
#ifdef BOLT_HAVE_JANSSON
    const hpl_times_t *t = &res->tmax;
    const hpl_algo_t *a = &res->algo;
    json_t *o = json_pack(
        "{s:s, s:i, s:i, s:i, s:i, s:s, s:f, s:f, s:I, s:I, s:s, s:f, s:f,"
        " s:{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i},"
        " s:{s:f, s:f, s:f, s:f, s:f, s:f}}",
        "tv", res->tv, "n", res->n, "nb", res->nb, "p", res->p, "q", res->q, "pmap",
        res->pmap ? "column" : "row", "time_s", res->time, "gflops", res->gflops, "start",
        (json_int_t)res->start, "end", (json_int_t)res->end, "status", status_of(res), "resid",
        res->checked ? res->resid.resid : 0.0, "threshold", res->threshold, "algo", "pfact", a->pfact,
        "nbmin", a->nbmin, "ndiv", a->ndiv, "rfact", a->rfact, "bcast", a->bcast, "depth", a->depth,
        "swap", a->swap, "swap_threshold", a->swap_threshold, "l1_notrans", a->l1_notrans, "u_notrans",
        a->u_notrans, "equil", a->equil, "align", a->align, "phases_s", "rfact", t->pfact, "mxswp",
        t->mxswp, "bcast", t->bcast, "laswp", t->laswp, "update", t->update, "solve", t->solve);
    if (!o)
        return -1;
    int rc = json_dumpf(o, f, JSON_COMPACT | JSON_REAL_PRECISION(10));
    json_decref(o);
    if (rc == 0 && fputc('\n', f) == EOF)
        rc = -1;
    return rc == 0 && fflush(f) == 0 ? 0 : -1;
#else
    (void)f;
    (void)res;
    return -1;
#endif
}
