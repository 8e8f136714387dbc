/*
 * bind.c — placing ranks on cores and NUMA nodes, and binding them (see
 * bind.h). Placement is a pure function of the topology summary, so it is
 * tested on made-up machines (tests/launcher/check_bind.c).
 */
#include "launcher/bind.h"

#include <stdlib.h>
#include <string.h>

#include "launcher/bind_os.h"

/* The NUMA nodes that hold cores boltrun may use, with those cores. */
struct nodes {
    int n;
    int *id;        /* NUMA logical index of node k */
    int *start;     /* its cores: order[start[k] .. start[k + 1] - 1] */
    int *order;     /* core positions in t->core, grouped by node */
    int *pu_first;  /* its PUs in plan->pus */
    int *pu_n;
    int *of_core;   /* node k of core c */
};

static void nodes_free(struct nodes *nd)
{
    free(nd->id);
    free(nd->start);
    free(nd->order);
    free(nd->pu_first);
    free(nd->pu_n);
    free(nd->of_core);
}

/* Groups the cores by node and copies each node's PUs to pus + t->npu. */
static int nodes_make(struct nodes *nd, const struct bolt_topo *t, int *pus)
{
    int nc = t->ncore;
    memset(nd, 0, sizeof *nd);
    nd->id = malloc((size_t)nc * sizeof *nd->id);
    nd->start = malloc(((size_t)nc + 1) * sizeof *nd->start);
    nd->order = malloc((size_t)nc * sizeof *nd->order);
    nd->pu_first = malloc((size_t)nc * sizeof *nd->pu_first);
    nd->pu_n = malloc((size_t)nc * sizeof *nd->pu_n);
    nd->of_core = malloc((size_t)nc * sizeof *nd->of_core);
    if (!nd->id || !nd->start || !nd->order || !nd->pu_first || !nd->pu_n || !nd->of_core)
        return -1;
    for (int c = 0; c < nc; c++) {
        int k = 0;
        while (k < nd->n && nd->id[k] != t->core[c].numa)
            k++;
        if (k == nd->n)
            nd->id[nd->n++] = t->core[c].numa;
    }
    int pos = 0, pu = t->npu;
    for (int k = 0; k < nd->n; k++) {
        nd->start[k] = pos;
        nd->pu_first[k] = pu;
        for (int c = 0; c < nc; c++) {
            if (t->core[c].numa != nd->id[k])
                continue;
            nd->order[pos++] = c;
            nd->of_core[c] = k;
            memcpy(pus + pu, t->pu + t->core[c].first_pu, (size_t)t->core[c].npus * sizeof *pus);
            pu += t->core[c].npus;
        }
        nd->pu_n[k] = pu - nd->pu_first[k];
    }
    nd->start[nd->n] = pos;
    return 0;
}

/* The core (position in t->core) and node of rank i. */
static void place(const struct nodes *nd, int ncore, enum map_by map, int i, int *core, int *node)
{
    if (map == MAP_BY_NUMA) {
        int k = i % nd->n, j = i / nd->n;
        int len = nd->start[k + 1] - nd->start[k];
        *core = nd->order[nd->start[k] + j % len];
        *node = k;
        return;
    }
    *core = i % ncore;
    *node = nd->of_core[*core];
}

int bind_plan_make(struct bind_plan *p, const struct bolt_topo *t, int np, enum bind_to requested,
                   enum map_by map, char *warn, size_t wcap, char *err, size_t ecap)
{
    struct nodes nd;
    int rc = 0;
    memset(p, 0, sizeof *p);
    memset(&nd, 0, sizeof nd);
    if (wcap)
        warn[0] = '\0';
    int placeable = t->from_hwloc && t->can_bind && t->ncore > 0;
    enum bind_to b = requested;
    if (b == BIND_TO_DEFAULT) {
        /* Oversubscribed ranks that are bound cannot be moved by the OS to
         * an idle core: leave them free. */
        b = placeable && np <= t->ncore ? BIND_TO_CORE : BIND_TO_NONE;
    } else if (b != BIND_TO_NONE && !placeable) {
        snprintf(warn, wcap, "boltrun: warning: --bind-to %s: %s; the ranks run unbound (--bind-to none "
                 "silences this)", bind_to_name(b),
                 !t->from_hwloc ? "this Bolt was built without hwloc, which binding needs (install hwloc, "
                                  "e.g. libhwloc-dev, and rebuild)"
                                : "this host does not let processes bind to cores (hwloc reports no support)");
        b = BIND_TO_NONE;
    } else if (b == BIND_TO_CORE && np > t->ncore) {
        snprintf(warn, wcap, "boltrun: warning: --bind-to core: %d ranks on the %d core%s of %s, so ranks share "
                 "cores (--bind-to none lets the OS spread them)", np, t->ncore, t->ncore == 1 ? "" : "s", t->host);
    }
    p->bind_to = b;
    p->np = np;
    p->slot = calloc((size_t)np, sizeof *p->slot);
    p->pus = calloc(2 * (size_t)t->npu + 1, sizeof *p->pus);
    if (p->slot == NULL || p->pus == NULL || (t->ncore > 0 && nodes_make(&nd, t, p->pus) != 0)) {
        snprintf(err, ecap, "boltrun: out of memory placing %d ranks on %s", np, t->host);
        rc = -1;
        goto out;
    }
    if (t->npu > 0) /* without hwloc there is no PU list */
        memcpy(p->pus, t->pu, (size_t)t->npu * sizeof *p->pus);
    for (int i = 0; i < np; i++) {
        struct bind_slot *s = &p->slot[i];
        s->hint = requested != BIND_TO_NONE;
        s->first = 0;
        s->npus = t->npu; /* unbound: every PU boltrun may use */
        if (b == BIND_TO_NONE)
            continue;
        int c = 0, k = 0;
        place(&nd, t->ncore, map, i, &c, &k);
        s->bound = 1;
        if (b == BIND_TO_CORE) {
            s->first = t->core[c].first_pu;
            s->npus = t->core[c].npus;
            snprintf(s->what, sizeof s->what, "core %d", t->core[c].index);
        } else {
            s->first = nd.pu_first[k];
            s->npus = nd.pu_n[k];
            snprintf(s->what, sizeof s->what, "NUMA node %d", nd.id[k]);
        }
    }
out:
    nodes_free(&nd);
    if (rc != 0)
        bind_plan_free(p);
    return rc;
}

void bind_plan_free(struct bind_plan *p)
{
    free(p->slot);
    free(p->pus);
    p->slot = NULL;
    p->pus = NULL;
}

void bind_plan_report(FILE *out, const struct bind_plan *p, const char *host)
{
    const char *hint = bind_os_hint_name();
    for (int i = 0; i < p->np; i++) {
        const struct bind_slot *s = &p->slot[i];
        char list[512];
        bolt_topo_cpulist(p->pus + s->first, s->npus, list, sizeof list);
        if (s->bound)
            fprintf(out, "boltrun: rank %d on %s bound to %s (PUs %s)\n", i, host, s->what, list);
        else if (s->npus > 0)
            fprintf(out, "boltrun: rank %d on %s not bound (PUs %s)%s%s\n", i, host, list,
                    s->hint && hint ? ", " : "", s->hint && hint ? hint : "");
        else
            fprintf(out, "boltrun: rank %d on %s not bound%s%s\n", i, host, s->hint && hint ? ", " : "",
                    s->hint && hint ? hint : "");
    }
}

void bind_slot_apply(const struct bind_plan *p, int rank, const char *host)
{
    const struct bind_slot *s = &p->slot[rank];
    int rc;
    if (s->bound && (rc = bind_os_set_cpus(p->pus + s->first, s->npus)) != 0)
        fprintf(stderr, "boltrun: warning: rank %d on %s cannot be bound to %s: %s; it runs unbound\n", rank, host,
                s->what, strerror(rc));
    if (s->hint && (rc = bind_os_hint()) != 0)
        fprintf(stderr, "boltrun: warning: rank %d on %s: cannot set %s: %s\n", rank, host, bind_os_hint_name(),
                strerror(rc));
}
