/*
 * comm.h — communicators: an ordered group of world ranks and a context id.
 *
 * Each communicator owns two consecutive context ids: `ctx` for user
 * point-to-point and `ctx + 1` for traffic Bolt itself sends on it (split,
 * dup, collectives), so the two can never match each other's messages.
 */
#ifndef BOLT_COMM_H
#define BOLT_COMM_H

#include <stdint.h>

#include "bolt.h"

#define BOLT_CTX_WORLD 0u
#define BOLT_CTX_SELF 2u
#define BOLT_CTX_FIRST_FREE 4u

struct bolt_comm {
    uint32_t ctx;
    int rank;
    int size;
    int *world_ranks; /* comm rank -> world rank */
    int builtin;      /* world and self cannot be freed */
    int refs;         /* the user's handle + pending requests on it */
    uint32_t coll_seq; /* collectives started on it: tags their internal messages */
    /* The collectives' plan from the job's links (collectives/linkplan.c):
     * one malloc'd block, built at first use; none: there is no plan. */
    struct coll_plan *coll_plan;
    int coll_plan_none;
};

/* Pending requests hold their communicator, so freeing it (allowed in MPI
 * while operations are pending) destroys it only when the last one ends. */
static inline void bolt_comm_hold(struct bolt_comm *c)
{
    c->refs++;
}
void bolt_comm_release(struct bolt_comm *c);

struct bolt_comm *bolt_comm_create(uint32_t ctx, int rank, int size, const int *world_ranks);
void bolt_comm_destroy(struct bolt_comm *comm);
/* Checks a user-supplied communicator handle. */
int bolt_comm_check(bolt_comm_t comm, const char *fn);
/* Duplicates without an agreement round (MPI_Comm_idup): one member takes a
 * context id that is this process's alone and gives it to the others, which
 * each make the duplicate with it. */
int bolt_comm_ctx_reserve(uint32_t *ctx);
int bolt_comm_dup_ctx(bolt_comm_t comm, uint32_t ctx, bolt_comm_t *newcomm);
/* Comm rank of a world rank, or -1. */
int bolt_comm_rank_of_world(const struct bolt_comm *comm, int world_rank);

#endif
