/* alltoallw.c — MPI_Alltoallw and MPI_Ialltoallw: all-to-all with a
 * datatype per peer and displacements in bytes, over the native
 * all-to-all-v on bytes.
 *
 * When every block is of a contiguous type at or after the buffer's start,
 * the native call moves the user's bytes directly; otherwise every block is
 * packed end to end into a copy (the send side at the call, the receive side
 * unpacked block by block when the operation completes).
 */
#include <stdlib.h>
#include <string.h>

#include "mpi/coll.h"

/* One side of the exchange as the native call sees it. */
struct wside {
    size_t *bc, *bd; /* byte counts and displacements, per rank */
    char *p;         /* the native call's buffer: the user's, or tmp */
    void *tmp;       /* the blocks, packed end to end */
};

static void wside_free(struct wside *w)
{
    free(w->bc);
    free(w->tmp);
    w->bc = NULL;
    w->tmp = NULL;
}

/* Checks one side's arrays and lays it out; packs the blocks of buf into
 * tmp when pack_in and the layout is not direct. */
static int wside_make(MPI_Comm comm, const char *fn, int n, const void *buf, const int *counts,
                      const int *displs, const MPI_Datatype *types, int pack_in, struct wside *w)
{
    struct face_type *t = NULL;
    size_t total = 0;
    int rc = MPI_SUCCESS, direct = 1;
    memset(w, 0, sizeof *w);
    if (!counts || !displs || !types)
        return face_error(comm, fn, MPI_ERR_ARG, "a counts, displacements or datatypes array is NULL");
    if (!(w->bc = malloc(2 * (size_t)n * sizeof *w->bc)))
        return face_error(comm, fn, MPI_ERR_NO_MEM, "out of memory");
    w->bd = w->bc + n;
    for (int i = 0; i < n && !rc; i++) {
        if (counts[i] < 0) {
            rc = face_error(comm, fn, MPI_ERR_COUNT, "count %d for rank %d is negative", counts[i], i);
        } else if (!(rc = face_type_check(comm, types[i], fn, &t))) {
            w->bc[i] = (size_t)counts[i] * t->size;
            MPI_Aint at = (MPI_Aint)displs[i] + t->true_lb; /* where the block's bytes start */
            w->bd[i] = at >= 0 ? (size_t)at : 0;
            if (w->bc[i] && (!t->contig || at < 0))
                direct = 0;
            total += w->bc[i];
        }
    }
    if (rc || direct) {
        w->p = (char *)buf;
        if (rc)
            wside_free(w);
        return rc;
    }
    if (!(w->tmp = calloc(1, total ? total : 1))) {
        wside_free(w);
        return face_error(comm, fn, MPI_ERR_NO_MEM, "cannot allocate %zu bytes", total);
    }
    w->p = w->tmp;
    size_t off = 0;
    for (int i = 0; i < n; i++) { /* types were checked above */
        w->bd[i] = off;
        off += w->bc[i];
        if (pack_in && w->bc[i])
            face_pack(face_type_get(types[i]), (const char *)buf + displs[i], (size_t)counts[i],
                      w->p + w->bd[i]);
    }
    return MPI_SUCCESS;
}

/* Both sides of an all-to-all-w. In place, what is sent is in rbuf, laid
 * out as what is received: only the receive side is made (packed in). */
static int wsides_make(MPI_Comm comm, const char *fn, int n, const void *sbuf, const int *scounts,
                       const int *sdispls, const MPI_Datatype *stypes, void *rbuf, const int *rcounts,
                       const int *rdispls, const MPI_Datatype *rtypes, struct wside *sw, struct wside *rw)
{
    const int in_place = sbuf == MPI_IN_PLACE;
    memset(sw, 0, sizeof *sw);
    int rc = wside_make(comm, fn, n, rbuf, rcounts, rdispls, rtypes, in_place, rw);
    if (!rc && !in_place)
        rc = wside_make(comm, fn, n, sbuf, scounts, sdispls, stypes, 1, sw);
    return rc;
}

int PMPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                   const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                   const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm)
{
    if (face_is_inter(comm))
        return face_inter_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,
                                    comm, 0, NULL, "MPI_Alltoallw");
    const char *fn = "MPI_Alltoallw";
    struct face_comm *c = NULL;
    struct wside sw = {0}, rw = {0};
    int in_place = sbuf == MPI_IN_PLACE;
    int rc = face_comm_check(comm, fn, &c);
    if (rc)
        return rc;
    if ((rc = wsides_make(comm, fn, c->size, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,
                          &sw, &rw)))
        goto out;
    const struct wside *s = in_place ? &rw : &sw;
    int nrc = bolt_alltoallv(in_place ? BOLT_IN_PLACE : sw.p, s->bc, s->bd, rw.p, rw.bc, rw.bd,
                             BOLT_BYTE, c->native);
    if (nrc) {
        rc = face_native_error(comm, fn, nrc);
        goto out;
    }
    for (int i = 0; rw.tmp && i < c->size; i++)
        if (rw.bc[i])
            face_unpack(face_type_get(rtypes[i]), rw.p + rw.bd[i], (size_t)rcounts[i],
                        (char *)rbuf + rdispls[i]);
out:
    wside_free(&sw);
    wside_free(&rw);
    return rc;
}

int PMPI_Ialltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                    const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                    const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                    MPI_Request *req)
{
    if (face_is_inter(comm))
        return face_inter_alltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,
                                    comm, 1, req, "MPI_Ialltoallw");
    const char *fn = "MPI_Ialltoallw";
    struct face_comm *c = NULL;
    struct face_req *q = NULL;
    struct wside sw = {0}, rw = {0};
    int in_place = sbuf == MPI_IN_PLACE;
    int rc = face_comm_check(comm, fn, &c);
    if (rc)
        return rc;
    if ((rc = wsides_make(comm, fn, c->size, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,
                          &sw, &rw)) ||
        (rc = face_nb_request(comm, fn, req, &q)))
        goto out;
    /* The packed copies go to the request; received blocks are unpacked at
     * completion, each with its own type (held until then). */
    q->coll_in = sw.tmp;
    sw.tmp = NULL;
    if (rw.tmp) {
        q->tmp = rw.tmp;
        rw.tmp = NULL;
        for (int i = 0; i < c->size; i++)
            if (rw.bc[i] && face_plan_add(q, rtypes[i], (size_t)rcounts[i],
                                          (char *)rbuf + rdispls[i], rw.bd[i])) {
                rc = face_nb_nomem(comm, fn, req);
                goto out;
            }
    }
    const struct wside *s = in_place ? &rw : &sw;
    rc = face_nb_started(comm, fn, req,
                         bolt_ialltoallv(in_place ? BOLT_IN_PLACE : sw.p, s->bc, s->bd, rw.p,
                                         rw.bc, rw.bd, BOLT_BYTE, c->native, &q->native));
out:
    wside_free(&sw);
    wside_free(&rw);
    return rc;
}
