/*
 * bolt_info_coll.c — bolt-info --coll: what the collectives' cost model
 * chooses for a job, with or without a calibration file. It places the ranks
 * as boltrun does, turns the calibration into the BOLT_COLL_LINKS text
 * boltrun would hand the ranks, parses that text as a rank does and asks the
 * collectives' own selection: the same code path as a job's world.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bolt.h"
#include "collectives/coll.h"
#include "launcher/calib_job.h"
#include "launcher/hostlist.h"
#include "runtime/calibration.h"
#include "runtime/config.h"
#include "runtime/errors.h"
#include "runtime/linkmap.h"

int bolt_info_coll(int argc, char **argv);

static const size_t sizes[] = {8, 64, 1024, 8192, 65536, 262144, 1048576, 4194304, 16777216};

static void size_name(size_t b, char *out, size_t cap)
{
    if (b >= 1048576)
        snprintf(out, cap, "%zu MiB", b >> 20);
    else if (b >= 1024)
        snprintf(out, cap, "%zu KiB", b >> 10);
    else
        snprintf(out, cap, "%zu B", b);
}

/* "h1:C1,h2:C2" from the calibration's host records (C: cores, else 1). */
static int spec_of_calibration(const char *path, char **spec, char *err, size_t cap)
{
    struct calibration c;
    if (calib_load(&c, path, err, cap) != 0)
        return -1;
    size_t len = 1;
    for (int i = 0; i < c.nhost; i++)
        len += strlen(c.host[i].name) + 16;
    char *s = calloc(len, 1);
    int rc = s ? 0 : bolt_errbuf(err, cap, "out of memory");
    for (int i = 0; s && i < c.nhost; i++)
        snprintf(s + strlen(s), len - strlen(s), "%s%s:%d", i ? "," : "", c.host[i].name,
                 c.host[i].cores > 0 ? c.host[i].cores : 1);
    if (rc == 0 && c.nhost == 0)
        rc = bolt_errbuf(err, cap, "%s has no host record: give the hosts with --host or --hostfile", path);
    calib_free(&c);
    if (rc != 0) {
        free(s);
        s = NULL;
    }
    *spec = s;
    return rc;
}

static void print_links(const struct linkmap *L)
{
    printf("links between the hosts:\n");
    for (int a = 0; a < L->nhost; a++)
        for (int b = a + 1; b < L->nhost; b++) {
            size_t i = (size_t)a * (size_t)L->nhost + (size_t)b;
            if (L->state[i] == LINK_NONE)
                printf("  %s - %s  none\n", L->name[a], L->name[b]);
            else
                printf("  %s - %s  alpha %.2f us  beta %.4f ns/B (%.2f GB/s)%s\n", L->name[a], L->name[b],
                       L->alpha_us[i], L->beta_ns[i], L->beta_ns[i] > 0 ? 1 / L->beta_ns[i] : 0,
                       L->state[i] == LINK_SLOW ? "  slow" : "");
        }
}

static int report(const struct hostlist *hl, const char *text, const char *cal)
{
    struct linkmap L = {0};
    struct coll_plan *plan = NULL;
    char err[600];
    int np = hl ? hl->np : 0, rc = 0;
    if (text && linkmap_parse(&L, text, "BOLT_COLL_LINKS", err, sizeof err) != 0) {
        fprintf(stderr, "bolt-info: %s\n", err);
        return 1;
    }
    int *world = malloc((size_t)(np > 0 ? np : 1) * sizeof *world);
    for (int r = 0; world && r < np; r++)
        world[r] = r;
    if (!world || coll_plan_build(text ? &L : NULL, world, np, &plan) != BOLT_OK) {
        fprintf(stderr, "bolt-info: out of memory\n");
        rc = 1;
    }
    if (rc == 0) {
        printf("collectives' choices for %d ranks on %d host(s)%s\n", np, hl ? hl->n : 1,
               text ? ""
               : cal ? ": the calibration's links take no part on one host (BOLT_COLL_ALPHA_US and "
                       "BOLT_COLL_BETA_NS_PER_KB)"
                     : " without a calibration (BOLT_COLL_ALPHA_US and BOLT_COLL_BETA_NS_PER_KB for every pair)");
        for (int h = 0; hl && h < hl->n; h++) {
            printf("  %s:", hl->h[h].name);
            for (int k = 0; k < hl->h[h].nranks; k++)
                printf(" %d", hl->h[h].ranks[k]);
            printf("\n");
        }
        if (text)
            print_links(&L);
        if (plan) {
            char d[2048];
            coll_plan_describe(plan, &L, d, sizeof d);
            printf("model: %s\n", d);
            printf("ring order (ranks):");
            for (int i = 0; i < plan->n; i++)
                printf(" %d", plan->order[i]);
            printf("\nslowest link: on the ring alpha %.2f us, beta %.4f ns/B; between recursive doubling's partners "
                   "alpha %.2f us, beta %.4f ns/B; between any two hosts alpha %.2f us, beta %.4f ns/B\n",
                   plan->alpha_ring_us, plan->beta_ring_ns, plan->alpha_rd_us, plan->beta_rd_ns, plan->alpha_all_us,
                   plan->beta_all_ns);
        } else {
            printf("model: ring in rank order; mesh algorithms on\n");
        }
        printf("%-10s %-14s %-18s %s\n", "bytes", "allreduce", "bcast", "allgather");
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            char sz[32];
            size_name(sizes[i], sz, sizeof sz);
            printf("%-10s %-14s %-18s %s\n", sz,
                   coll_algo_name(COLL_ALLREDUCE, coll_select_model(COLL_ALLREDUCE, sizes[i], np, 1, plan)),
                   coll_algo_name(COLL_BCAST, coll_select_model(COLL_BCAST, sizes[i], np, 1, plan)),
                   coll_algo_name(COLL_ALLGATHER, coll_select_model(COLL_ALLGATHER, sizes[i], np, 1, plan)));
        }
    }
    free(plan);
    free(world);
    if (text)
        linkmap_free(&L);
    return rc;
}

int bolt_info_coll(int argc, char **argv)
{
    const char *cal = NULL, *spec = NULL, *file = NULL;
    int np = 0, by_node = 0, rc = 0;
    char err[1200], note[1200], *text = NULL, *cspec = NULL;
    for (int i = 2; i < argc && rc == 0; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--map-by") && v && !strcmp(v, "node"))
            by_node = 1, i++;
        else if (!strcmp(o, "--map-by") && v && !strcmp(v, "slot"))
            i++;
        else if (v && !strcmp(o, "--calibration"))
            cal = v, i++;
        else if (v && !strcmp(o, "--host"))
            spec = v, i++;
        else if (v && !strcmp(o, "--hostfile"))
            file = v, i++;
        else if (v && (!strcmp(o, "--np") || !strcmp(o, "-np"))) {
            char *end;
            long n = strtol(v, &end, 10);
            if (*v == '\0' || *end != '\0' || n < 1 || n > 1 << 20)
                rc = bolt_errbuf(err, sizeof err, "--np expects a number of ranks, got '%s'", v);
            np = (int)n, i++;
        } else {
            rc = bolt_errbuf(err, sizeof err, "--coll: unknown or incomplete option '%s' (--np N, --calibration "
                             "FILE, --host H1:N,H2:N, --hostfile FILE, --map-by slot|node)", o);
        }
    }
    if (rc == 0 && bolt_config_load() != BOLT_OK)
        rc = bolt_errbuf(err, sizeof err, "%s", bolt_error_message());
    struct hostlist hl;
    hostlist_init(&hl);
    if (rc == 0 && !spec && !file && cal && spec_of_calibration(cal, &cspec, err, sizeof err) != 0)
        rc = -1;
    if (rc == 0 && !spec && !file && !cal && np < 1)
        rc = bolt_errbuf(err, sizeof err, "--coll needs --np N, or the hosts (--host, --hostfile, --calibration)");
    if (rc == 0 && !spec && !file && !cal) {
        /* no hosts: N ranks, one per host, as a job spanning hosts sees them */
        size_t cap = (size_t)np * 16 + 1;
        cspec = calloc(cap, 1);
        for (int r = 0; cspec && r < np; r++)
            snprintf(cspec + strlen(cspec), cap - strlen(cspec), "%shost%d", r ? "," : "", r + 1);
        if (cspec == NULL)
            rc = bolt_errbuf(err, sizeof err, "out of memory");
    }
    if (rc == 0 && (spec || cspec) && hostlist_add_spec(&hl, spec ? spec : cspec, err, sizeof err) != 0)
        rc = -1;
    if (rc == 0 && file && hostlist_add_file(&hl, file, err, sizeof err) != 0)
        rc = -1;
    if (rc == 0 && hostlist_place(&hl, np, by_node, err, sizeof err) != 0)
        rc = -1;
    if (rc == 0 && cal && calib_job_links(cal, &hl, &text, &(unsigned long long){0}, note, sizeof note, err,
                                          sizeof err) != 0)
        rc = -1;
    if (rc == 0 && cal && note[0])
        printf("note: %s\n", note);
    if (rc == 0)
        rc = report(&hl, text, cal);
    else
        fprintf(stderr, "bolt-info: %s\n", err);
    free(text);
    free(cspec);
    hostlist_free(&hl);
    return rc ? (rc < 0 ? 2 : rc) : 0;
}
