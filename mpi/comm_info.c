/* comm_info.c — MPI_Comm_idup, MPI_Comm_dup_with_info and a communicator's
 * hints (MPI 3.1, 6.4.2 and 6.4.4).
 *
 * Bolt acts on no communicator hint, so it keeps none: MPI_Comm_get_info
 * gives an info with the hints it uses, none, as the standard asks (hints
 * it ignores are not reported), and MPI_Comm_set_info and dup_with_info
 * check their info and drop it.
 *
 * MPI_Comm_idup is nonblocking for real: the parent's rank 0 takes a context
 * id of its own (bolt_comm_ctx_reserve: no agreement round) and broadcasts
 * it with a nonblocking broadcast; each rank makes the duplicate with it when
 * the broadcast completes in a wait or test. What the duplicate inherits
 * (error handler, topology, attributes through their copy callbacks) is
 * copied at the call, from the parent as it is then. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/face.h"
#include "runtime/comm.h"

static int info_ok(MPI_Comm comm, MPI_Info info, int null_ok, const char *fn)
{
    if ((null_ok && info == MPI_INFO_NULL) || face_info_live(info))
        return MPI_SUCCESS;
    return face_error(comm, fn, MPI_ERR_INFO,
                      info == MPI_INFO_NULL ? "the info is MPI_INFO_NULL"
                                            : "info handle %d is not a live info object (freed?)",
                      info);
}

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_dup_with_info";
    struct face_comm *c;
    int rc = face_comm_check(comm, fn, &c);
    if (rc || (rc = info_ok(comm, info, 1, fn)))
        return rc;
    return face_comm_dup(comm, newcomm, fn);
}

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    const char *fn = "MPI_Comm_set_info";
    struct face_comm *c;
    int rc = face_comm_check(comm, fn, &c);
    return rc ? rc : info_ok(comm, info, 0, fn);
}

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    const char *fn = "MPI_Comm_get_info";
    struct face_comm *c;
    int rc = face_comm_check(comm, fn, &c);
    if (rc)
        return rc;
    if (!info_used)
        return face_error(comm, fn, MPI_ERR_ARG, "info_used pointer is NULL");
    return PMPI_Info_create(info_used); /* the hints Bolt uses: none */
}

/* ---- MPI_Comm_idup ------------------------------------------------------------------ */
struct idup {
    uint32_t ctx[2];    /* the duplicate's context ids (its own, its topology's) */
    bolt_comm_t parent; /* held until the duplicate is made from it */
    bolt_comm_t nbr;    /* the parent's neighbourhood context, for a topology */
    MPI_Comm handle;    /* the duplicate's handle, taken at the call */
    MPI_Comm *out;      /* the program's variable: MPI_COMM_NULL if it fails */
    int abandoned;      /* the call failed after the broadcast started */
};

static void idup_free(struct idup *e)
{
    bolt_comm_release(e->parent);
    if (e->nbr)
        bolt_comm_release(e->nbr);
    free(e);
}

/* The broadcast is done: the duplicate gets its native communicators. */
static int idup_finish(struct face_req *q, int ok)
{
    struct idup *e = q->ext;
    int rc = MPI_SUCCESS;
    q->ext = NULL;
    if (!e->abandoned) {
        struct face_comm *d = face_comm_get(e->handle);
        int nrc = !ok ? BOLT_ERR_INTERNAL : e->ctx[0] == 0 ? BOLT_ERR_NOMEM : BOLT_OK;
        if (!nrc)
            nrc = bolt_comm_dup_ctx(e->parent, e->ctx[0], &d->native);
        /* A topology's neighbourhood context, an intercommunicator's twin. */
        if (!nrc && (d->cart || d->graph || d->inter))
            nrc = bolt_comm_dup_ctx(e->nbr, e->ctx[1], &d->nbr);
        if (nrc) {
            face_comm_destroy(e->handle);
            *e->out = MPI_COMM_NULL;
            if (ok) /* else the broadcast's own failure is reported */
                rc = e->ctx[0] == 0 ? face_error(q->comm, "MPI_Comm_idup", MPI_ERR_INTERN,
                                                 "the parent's rank 0 had no context id left")
                                    : face_native_error(q->comm, "MPI_Comm_idup", nrc);
        }
    }
    idup_free(e);
    return rc;
}

/* The duplicate's face, without native communicators until the broadcast
 * ends: c's groups (an intercommunicator's remote one too). */
static int pending_dup(const struct face_comm *c, MPI_Comm *out)
{
    struct face_comm *d = calloc(1, sizeof *d);
    if (d && !(d->world_ranks = malloc((size_t)c->size * sizeof *d->world_ranks)))
        goto fail;
    if (d && c->inter && !(d->remote_world = malloc((size_t)c->peers * sizeof *d->remote_world)))
        goto fail;
    if (!d)
        return MPI_ERR_NO_MEM;
    d->errh = MPI_ERRORS_ARE_FATAL;
    d->rank = c->rank;
    d->size = c->size;
    memcpy(d->world_ranks, c->world_ranks, (size_t)c->size * sizeof *d->world_ranks);
    d->peers = c->peers;
    d->peer_base = c->peer_base;
    d->inter = c->inter;
    if (c->inter)
        memcpy(d->remote_world, c->remote_world, (size_t)c->peers * sizeof *d->remote_world);
    if (!face_comm_insert(d, out))
        return MPI_SUCCESS;
fail:
    free(d->world_ranks);
    free(d->remote_world);
    free(d);
    return MPI_ERR_NO_MEM;
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    const char *fn = "MPI_Comm_idup";
    struct face_comm *c;
    struct face_req *q;
    MPI_Request r;
    int rc = face_comm_check(comm, fn, &c);
    if (rc)
        return rc;
    if (!newcomm || !request)
        return face_error(comm, fn, MPI_ERR_ARG, "newcomm or request pointer is NULL");
    struct idup *e = calloc(1, sizeof *e);
    if (!e || face_req_new(&q, &r)) {
        free(e);
        return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    }
    /* Rank 0 of the native communicator (an intercommunicator's spans both
     * groups) picks; out of context ids, it sends 0: every rank fails at
     * completion. */
    int nrank = -1;
    bolt_comm_rank(c->native, &nrank);
    if (nrank == 0 && (bolt_comm_ctx_reserve(&e->ctx[0]) || bolt_comm_ctx_reserve(&e->ctx[1])))
        e->ctx[0] = 0;
    e->parent = c->native;
    bolt_comm_hold(e->parent);
    if ((e->nbr = c->nbr))
        bolt_comm_hold(e->nbr);
    e->out = newcomm;
    q->kind = FACE_REQ_COLL;
    q->comm = comm;
    q->active = 1;
    q->ext = e;
    int nrc = bolt_ibcast(e->ctx, sizeof e->ctx, BOLT_BYTE, 0, c->native, &q->native);
    if (nrc) {
        face_req_release(r); /* nothing pending: idup_finish is not set yet */
        idup_free(e);
        return face_native_error(comm, fn, nrc);
    }
    q->finish_fn = idup_finish;
    *request = r;
    /* The broadcast runs: from here a failure leaves it to finish alone. */
    if ((rc = pending_dup(c, &e->handle)))
        rc = face_error(comm, fn, rc, "out of memory");
    else
        rc = face_comm_copy_into(comm, c, &e->handle, 0, fn);
    if (rc) {
        e->abandoned = 1;
        *newcomm = MPI_COMM_NULL;
        PMPI_Request_free(request);
        return rc;
    }
    *newcomm = e->handle;
    return MPI_SUCCESS;
}
