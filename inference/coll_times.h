/*
 * coll_times.h — each collective call's time on this rank while bolt-llm
 * generates, so that the job can tell the collectives' own time from the
 * time ranks wait for each other. A call takes as long on a rank as the
 * collective itself plus the wait for the last rank to arrive; the last one
 * waits for no one, so the shortest time any rank spent in a call is that
 * call's own cost. Every rank of a group makes the same calls in the same
 * order: the i-th time on each rank is the same call.
 */
#ifndef INF_COLL_TIMES_H
#define INF_COLL_TIMES_H

#include <stddef.h>

#include "bolt.h"

typedef struct coll_times {
    double *t;
    size_t n, cap;
    int on;
} coll_times_t;

/* From now on calls are recorded (the earlier ones forgotten). */
void coll_times_start(coll_times_t *ct);
/* One call's seconds, when recording (past COLL_TIMES_MAX calls, or out of
 * memory, recording stops: the calls so far still compare rank for rank). */
void coll_times_add(coll_times_t *ct, double secs);
/* A collective over comm (every rank of it calls this): in *own the sum over
 * the calls every rank recorded of the shortest time a rank spent in each,
 * in *calls how many. BOLT_OK or Bolt's code. */
int coll_times_own(coll_times_t *ct, bolt_comm_t comm, double *own, size_t *calls);
void coll_times_free(coll_times_t *ct);

#define COLL_TIMES_MAX ((size_t)1 << 21) /* 16 MiB of times */

#endif
