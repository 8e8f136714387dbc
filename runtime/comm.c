/* comm.c — communicator objects and rank translation. */
#include <stdlib.h>
#include <string.h>

#include "runtime/comm.h"
#include "runtime/errors.h"
#include "runtime/runtime.h"

struct bolt_comm *bolt_comm_create(uint32_t ctx, int rank, int size, const int *world_ranks)
{
    struct bolt_comm *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->world_ranks = malloc((size_t)size * sizeof *c->world_ranks);
    if (!c->world_ranks) {
        free(c);
        return NULL;
    }
    memcpy(c->world_ranks, world_ranks, (size_t)size * sizeof *world_ranks);
    c->ctx = ctx;
    c->rank = rank;
    c->size = size;
    c->refs = 1;
    return c;
}

void bolt_comm_destroy(struct bolt_comm *comm)
{
    if (!comm)
        return;
    free(comm->world_ranks);
    free(comm->coll_plan);
    free(comm);
}

void bolt_comm_release(struct bolt_comm *c)
{
    if (c && --c->refs == 0)
        bolt_comm_destroy(c);
}

int bolt_comm_check(bolt_comm_t comm, const char *fn)
{
    if (!bolt_rt.initialized || bolt_rt.finalized)
        return bolt_err_set(BOLT_ERR_NOT_INIT, "%s called %s bolt_init", fn,
                            bolt_rt.finalized ? "after bolt_finalize, outside" : "before");
    if (comm == BOLT_COMM_NULL)
        return bolt_err_set(BOLT_ERR_ARG, "%s: the communicator is BOLT_COMM_NULL", fn);
    return BOLT_OK;
}

int bolt_comm_rank_of_world(const struct bolt_comm *comm, int world_rank)
{
    for (int i = 0; i < comm->size; i++)
        if (comm->world_ranks[i] == world_rank)
            return i;
    return -1;
}
