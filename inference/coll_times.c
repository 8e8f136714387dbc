/*
 * coll_times.c — the collectives' own time, told apart from waiting for the
 * slower ranks (coll_times.h).
 */
#include <stdint.h>
#include <stdlib.h>

#include "inference/coll_times.h"

void coll_times_start(coll_times_t *ct)
{
    ct->n = 0;
    ct->on = 1;
}

void coll_times_add(coll_times_t *ct, double secs)
{
    if (!ct->on)
        return;
    if (ct->n == ct->cap) {
        size_t cap = ct->cap ? 2 * ct->cap : 4096;
        double *t = cap <= COLL_TIMES_MAX ? realloc(ct->t, cap * sizeof *t) : NULL;
        if (!t) {
            ct->on = 0;
            return;
        }
        ct->t = t;
        ct->cap = cap;
    }
    ct->t[ct->n++] = secs;
}

int coll_times_own(coll_times_t *ct, bolt_comm_t comm, double *own, size_t *calls)
{
    uint64_t mine = ct->n, n = 0;
    int rc = bolt_allreduce(&mine, &n, 1, BOLT_UINT64, BOLT_MIN, comm);
    /* the calls every rank recorded: the same prefix of the same sequence */
    if (rc == BOLT_OK && n > 0)
        rc = bolt_allreduce(BOLT_IN_PLACE, ct->t, (size_t)n, BOLT_FLOAT64, BOLT_MIN, comm);
    *own = 0;
    *calls = 0;
    if (rc != BOLT_OK)
        return rc;
    for (uint64_t i = 0; i < n; i++)
        *own += ct->t[i];
    *calls = (size_t)n;
    return BOLT_OK;
}

void coll_times_free(coll_times_t *ct)
{
    free(ct->t);
    *ct = (coll_times_t){0};
}
