/*
 * bind.h — where boltrun puts each rank (--map-by) and what it binds it to
 * (--bind-to). boltrun plans once from the topology it sees (its own
 * affinity included: under taskset it places within that set); each rank's
 * process applies its slot between fork and exec, so the program inherits it.
 */
#ifndef BOLTRUN_BIND_H
#define BOLTRUN_BIND_H

#include <stddef.h>
#include <stdio.h>

#include "launcher/bind_policy.h"
#include "runtime/topo.h"

struct bind_slot {
    int bound;        /* apply pus[] in the rank */
    int hint;         /* apply the platform's hint (macOS: QoS class) */
    int first, npus;  /* the PUs it may run on: plan->pus[first .. first + npus - 1] */
    char what[48];    /* "core 3", "NUMA node 1", "" when not bound */
};

struct bind_plan {
    enum bind_to bind_to;  /* what is applied: never BIND_TO_DEFAULT */
    int np;
    struct bind_slot *slot;
    int *pus;
};

/* Plans np ranks on topology t. `requested` may be BIND_TO_DEFAULT. A
 * warning for boltrun to print (one line, no newline) lands in warn, or ""
 * there. Returns 0, or -1 with a message in err (out of memory). */
int bind_plan_make(struct bind_plan *p, const struct bolt_topo *t, int np, enum bind_to requested,
                   enum map_by map, char *warn, size_t wcap, char *err, size_t ecap);
void bind_plan_free(struct bind_plan *p);
/* One line per rank: "boltrun: rank 0 on HOST bound to core 0 (PUs 0-1)". */
void bind_plan_report(FILE *out, const struct bind_plan *p, const char *host);
/* In the rank's process, before exec. A binding the OS refuses is reported
 * on stderr and the rank runs unbound: a slower job beats no job. */
void bind_slot_apply(const struct bind_plan *p, int rank, const char *host);

#endif
