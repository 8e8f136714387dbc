/*
 * bind_setup.c — boltrun's side of binding: the policy from the options or
 * BOLT_BIND_TO / BOLT_MAP_BY, the topology, the plan, its warning and report.
 */
#include "launcher/bind_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bolt.h"
#include "runtime/config.h"

int bind_setup(const struct boltrun_args *a, struct bind_plan *p, char *err, size_t cap)
{
    enum bind_to b = a->bind_to;
    enum map_by m = a->map_by;
    const char *env_b = bolt_param_string(BOLT_P_BIND_TO), *env_m = bolt_param_string(BOLT_P_MAP_BY);
    struct bolt_topo t;
    char warn[512];
    int rc = 0;
    memset(p, 0, sizeof *p);
    if (b == BIND_TO_DEFAULT && env_b && *env_b && bind_to_parse(env_b, &b) != 0) {
        snprintf(err, cap, "boltrun: BOLT_BIND_TO expects " BIND_TO_VALUES ", got '%s'", env_b);
        return 2;
    }
    if (!a->map_by_given && env_m && *env_m && map_by_parse(env_m, &m) != 0) {
        snprintf(err, cap, "boltrun: BOLT_MAP_BY expects " MAP_BY_VALUES ", got '%s'", env_m);
        return 2;
    }
    if (bolt_topo_load(&t) != BOLT_OK) {
        /* No topology: nothing can be placed, but the job can still run. */
        if (b == BIND_TO_CORE || b == BIND_TO_NUMA)
            fprintf(stderr, "boltrun: warning: --bind-to %s: %s; the ranks run unbound\n", bind_to_name(b),
                    bolt_error_message());
        b = BIND_TO_NONE;
    }
    if (bind_plan_make(p, &t, a->np, b, m, warn, sizeof warn, err, cap) != 0) {
        rc = 1;
        goto out;
    }
    if (warn[0])
        fprintf(stderr, "%s\n", warn);
    if (a->report_bindings)
        bind_plan_report(stderr, p, t.host);
    /* The ranks count the cores they share from this (their own affinity
     * may be one core once bound): runtime/topo.c bolt_topo_local. */
    char num[32];
    snprintf(num, sizeof num, "%d", t.cores_avail > 0 ? t.cores_avail : 1);
    if (setenv("BOLT_LOCAL_CORES", num, 1) != 0) {
        snprintf(err, cap, "boltrun: cannot set BOLT_LOCAL_CORES for the ranks (out of memory?)");
        bind_plan_free(p);
        rc = 1;
    }
out:
    bolt_topo_free(&t);
    return rc;
}
