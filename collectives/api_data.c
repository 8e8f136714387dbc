/* api_data.c — public collectives that move data without reducing it:
 * barrier, bcast, gather(v), scatter(v), allgather(v), alltoall(v), blocking and
 * nonblocking (the same schedules, launched with a request). */
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "runtime/errors.h"

/* Communicator, datatype and request checks; *bytes = count elements. */
static int check(bolt_comm_t comm, size_t count, bolt_datatype_t dt, bolt_request_t *req,
                 size_t *bytes, const char *fn)
{
    int rc;
    if (req)
        *req = BOLT_REQUEST_NULL;
    if ((rc = bolt_comm_check(comm, fn)) || (rc = coll_type_check(dt, fn)) ||
        (rc = coll_bytes(count, dt, bytes, fn)))
        return rc;
    return BOLT_OK;
}

static int need_req(bolt_request_t *req, const char *fn)
{
    return req ? BOLT_OK : bolt_err_set(BOLT_ERR_ARG, "%s: request pointer is NULL", fn);
}

static int barrier(bolt_comm_t comm, bolt_request_t *req, const char *fn)
{
    int rc = bolt_comm_check(comm, fn);
    if (rc)
        return rc;
    if (req)
        *req = BOLT_REQUEST_NULL;
    int algo = coll_select(COLL_BARRIER, 0, comm, 1);
    if (algo < 0)
        return algo;
    if (!req && coll_barrier_algo(algo) == coll_barrier_dissemination)
        return coll_barrier_dissemination_now(comm, fn);
    struct coll_sched *s =
        coll_sched_new(comm, fn, coll_algo_name(COLL_BARRIER, algo), req == NULL);
    if (s)
        coll_barrier_algo(algo)(s);
    return coll_launch(s, req, fn);
}

int bolt_barrier(bolt_comm_t comm)
{
    return barrier(comm, NULL, "bolt_barrier");
}

int bolt_ibarrier(bolt_comm_t comm, bolt_request_t *req)
{
    int rc = need_req(req, "bolt_ibarrier");
    return rc ? rc : barrier(comm, req, "bolt_ibarrier");
}

static int bcast(void *buf, size_t count, bolt_datatype_t dt, int root, bolt_comm_t comm,
                 bolt_request_t *req, const char *fn)
{
    size_t bytes;
    int rc = check(comm, count, dt, req, &bytes, fn);
    if (rc || (rc = coll_check_root(comm, root, fn)) || (rc = coll_check_buf(buf, bytes, fn, "buf")))
        return rc;
    int algo = coll_select(COLL_BCAST, bytes, comm, 1);
    if (algo < 0)
        return algo;
    if (!req && comm->size > 1 && coll_bcast_algo(algo) == coll_bcast_binomial &&
        (rc = coll_bcast_binomial_now(comm, buf, bytes, root, fn)) != COLL_NOT_NOW)
        return rc;
    if (!req && comm->size > 1 && coll_bcast_algo(algo) == coll_bcast_flat &&
        (rc = coll_bcast_flat_now(comm, buf, bytes, root, fn)) != COLL_NOT_NOW)
        return rc;
    struct coll_sched *s =
        coll_sched_new(comm, fn, coll_algo_name(COLL_BCAST, algo), req == NULL);
    if (s && comm->size > 1)
        coll_bcast_algo(algo)(s, buf, bytes, root);
    return coll_launch(s, req, fn);
}

int bolt_bcast(void *buf, size_t count, bolt_datatype_t dt, int root, bolt_comm_t comm)
{
    return bcast(buf, count, dt, root, comm, NULL, "bolt_bcast");
}

int bolt_ibcast(void *buf, size_t count, bolt_datatype_t dt, int root, bolt_comm_t comm,
                bolt_request_t *req)
{
    int rc = need_req(req, "bolt_ibcast");
    return rc ? rc : bcast(buf, count, dt, root, comm, req, "bolt_ibcast");
}

static int gather(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt, int root,
                  bolt_comm_t comm, bolt_request_t *req, const char *fn)
{
    size_t bytes;
    int rc = check(comm, count, dt, req, &bytes, fn);
    if (rc || (rc = coll_check_root(comm, root, fn)))
        return rc;
    int at_root = comm->rank == root;
    if (sendbuf == BOLT_IN_PLACE && !at_root)
        return bolt_err_set(BOLT_ERR_ARG, "%s: BOLT_IN_PLACE is for the root (%d) only", fn, root);
    if (at_root && (rc = coll_check_buf(recvbuf, bytes * (size_t)comm->size, fn, "recvbuf")))
        return rc;
    const void *in = sendbuf == BOLT_IN_PLACE ? (char *)recvbuf + (size_t)root * bytes : sendbuf;
    if ((rc = coll_check_buf(in, bytes, fn, "sendbuf")))
        return rc;
    /* ranks crowding the cores: every block straight to the root, so that
     * nothing waits for a forwarder to get a core (4 ranks on 2 cores, 4 B:
     * 3 us against 3-12 by the tree; 8 ranks 6-13 against 19-25) */
    if (!req && coll_rooted_use_linear())
        return coll_gatherv_linear_now(comm, in, bytes, recvbuf, NULL, NULL, root, fn);
    if (!req && (rc = coll_gather_binomial_now(comm, in, recvbuf, bytes, root, fn)) != COLL_NOT_NOW)
        return rc;
    struct coll_sched *s = coll_sched_new(comm, fn, "binomial", req == NULL);
    if (s)
        coll_gather_binomial(s, in, recvbuf, bytes, root);
    return coll_launch(s, req, fn);
}

int bolt_gather(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt, int root,
                bolt_comm_t comm)
{
    return gather(sendbuf, recvbuf, count, dt, root, comm, NULL, "bolt_gather");
}

int bolt_igather(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt, int root,
                 bolt_comm_t comm, bolt_request_t *req)
{
    int rc = need_req(req, "bolt_igather");
    return rc ? rc : gather(sendbuf, recvbuf, count, dt, root, comm, req, "bolt_igather");
}

/* The schedule keeps no pointer into b: its steps hold the sizes themselves. */
static int gatherv(const void *sendbuf, size_t sendcount, void *recvbuf, const size_t *recvcounts,
                   const size_t *displs, bolt_datatype_t dt, int root, bolt_comm_t comm,
                   bolt_request_t *req, const char *fn)
{
    size_t bytes;
    struct coll_vb b;
    coll_vb_init(&b);
    int rc = check(comm, sendcount, dt, req, &bytes, fn);
    if (rc || (rc = coll_check_root(comm, root, fn)))
        return rc;
    int at_root = comm->rank == root, n = comm->size;
    if (sendbuf == BOLT_IN_PLACE && !at_root)
        return bolt_err_set(BOLT_ERR_ARG, "%s: BOLT_IN_PLACE is for the root (%d) only", fn, root);
    if (at_root && (rc = coll_v_bytes(recvcounts, displs, n, bolt_type_size(dt), &b, fn)))
        return rc;
    const void *in = sendbuf;
    if (at_root && sendbuf == BOLT_IN_PLACE) {
        in = (char *)recvbuf + b.d[root];
        bytes = b.c[root];
    }
    if (at_root && bytes != b.c[root])
        rc = bolt_err_set(BOLT_ERR_ARG, "%s: the root sends %zu elements but expects %zu from itself",
                          fn, sendcount, recvcounts[root]);
    if (!rc && !(rc = coll_check_buf(in, bytes, fn, "sendbuf")) &&
        !(at_root && (rc = coll_check_buf(recvbuf, 1, fn, "recvbuf")))) {
        if (!req) {
            rc = coll_gatherv_linear_now(comm, in, bytes, recvbuf, b.c, b.d, root, fn);
        } else {
            struct coll_sched *s = coll_sched_new(comm, fn, "linear", 0);
            if (s)
                coll_gatherv_linear(s, in, bytes, recvbuf, b.c, b.d, root);
            rc = coll_launch(s, req, fn);
        }
    }
    coll_vb_free(&b);
    return rc;
}

int bolt_gatherv(const void *sendbuf, size_t sendcount, void *recvbuf, const size_t *recvcounts,
                 const size_t *displs, bolt_datatype_t dt, int root, bolt_comm_t comm)
{
    return gatherv(sendbuf, sendcount, recvbuf, recvcounts, displs, dt, root, comm, NULL,
                   "bolt_gatherv");
}

int bolt_igatherv(const void *sendbuf, size_t sendcount, void *recvbuf, const size_t *recvcounts,
                  const size_t *displs, bolt_datatype_t dt, int root, bolt_comm_t comm,
                  bolt_request_t *req)
{
    int rc = need_req(req, "bolt_igatherv");
    return rc ? rc : gatherv(sendbuf, sendcount, recvbuf, recvcounts, displs, dt, root, comm, req,
                             "bolt_igatherv");
}

static int scatter(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt, int root,
                   bolt_comm_t comm, bolt_request_t *req, const char *fn)
{
    size_t bytes;
    int rc = check(comm, count, dt, req, &bytes, fn);
    if (rc || (rc = coll_check_root(comm, root, fn)))
        return rc;
    int at_root = comm->rank == root;
    if (recvbuf == BOLT_IN_PLACE && !at_root)
        return bolt_err_set(BOLT_ERR_ARG, "%s: BOLT_IN_PLACE is for the root (%d) only", fn, root);
    if (at_root && (rc = coll_check_buf(sendbuf, bytes * (size_t)comm->size, fn, "sendbuf")))
        return rc;
    void *out = recvbuf == BOLT_IN_PLACE ? (char *)sendbuf + (size_t)root * bytes : recvbuf;
    if ((rc = coll_check_buf(out, bytes, fn, "recvbuf")))
        return rc;
    /* ranks crowding the cores: every block straight from the root, as the
     * gather (4 ranks on 2 cores, 4-64 B: 0.22-0.34 us linear against
     * 1.9-2.7 by the tree, whose forwarders each wait for a core) */
    if (!req && coll_rooted_use_linear())
        return coll_scatterv_linear_now(comm, sendbuf, NULL, NULL, out, bytes, root, fn);
    if (!req && (rc = coll_scatter_binomial_now(comm, sendbuf, out, bytes, root, fn)) != COLL_NOT_NOW)
        return rc;
    struct coll_sched *s = coll_sched_new(comm, fn, "binomial", req == NULL);
    if (s)
        coll_scatter_binomial(s, sendbuf, out, bytes, root);
    return coll_launch(s, req, fn);
}

int bolt_scatter(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt, int root,
                 bolt_comm_t comm)
{
    return scatter(sendbuf, recvbuf, count, dt, root, comm, NULL, "bolt_scatter");
}

int bolt_iscatter(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt, int root,
                  bolt_comm_t comm, bolt_request_t *req)
{
    int rc = need_req(req, "bolt_iscatter");
    return rc ? rc : scatter(sendbuf, recvbuf, count, dt, root, comm, req, "bolt_iscatter");
}

static int scatterv(const void *sendbuf, const size_t *sendcounts, const size_t *displs,
                    void *recvbuf, size_t recvcount, bolt_datatype_t dt, int root, bolt_comm_t comm,
                    bolt_request_t *req, const char *fn)
{
    size_t bytes;
    struct coll_vb b;
    coll_vb_init(&b);
    int rc = check(comm, recvcount, dt, req, &bytes, fn);
    if (rc || (rc = coll_check_root(comm, root, fn)))
        return rc;
    int at_root = comm->rank == root, n = comm->size;
    if (recvbuf == BOLT_IN_PLACE && !at_root)
        return bolt_err_set(BOLT_ERR_ARG, "%s: BOLT_IN_PLACE is for the root (%d) only", fn, root);
    if (at_root && (rc = coll_v_bytes(sendcounts, displs, n, bolt_type_size(dt), &b, fn)))
        return rc;
    void *out = recvbuf;
    if (at_root && recvbuf == BOLT_IN_PLACE) {
        out = (char *)sendbuf + b.d[root];
        bytes = b.c[root];
    }
    if (at_root && bytes != b.c[root])
        rc = bolt_err_set(BOLT_ERR_ARG, "%s: the root receives %zu elements but sends itself %zu",
                          fn, recvcount, sendcounts[root]);
    if (!rc && !(rc = coll_check_buf(out, bytes, fn, "recvbuf")) &&
        !(at_root && (rc = coll_check_buf(sendbuf, 1, fn, "sendbuf")))) {
        if (!req) {
            rc = coll_scatterv_linear_now(comm, sendbuf, b.c, b.d, out, bytes, root, fn);
        } else {
            struct coll_sched *s = coll_sched_new(comm, fn, "linear", 0);
            if (s)
                coll_scatterv_linear(s, sendbuf, b.c, b.d, out, bytes, root);
            rc = coll_launch(s, req, fn);
        }
    }
    coll_vb_free(&b);
    return rc;
}

int bolt_scatterv(const void *sendbuf, const size_t *sendcounts, const size_t *displs,
                  void *recvbuf, size_t recvcount, bolt_datatype_t dt, int root, bolt_comm_t comm)
{
    return scatterv(sendbuf, sendcounts, displs, recvbuf, recvcount, dt, root, comm, NULL,
                    "bolt_scatterv");
}

int bolt_iscatterv(const void *sendbuf, const size_t *sendcounts, const size_t *displs,
                   void *recvbuf, size_t recvcount, bolt_datatype_t dt, int root,
                   bolt_comm_t comm, bolt_request_t *req)
{
    int rc = need_req(req, "bolt_iscatterv");
    return rc ? rc : scatterv(sendbuf, sendcounts, displs, recvbuf, recvcount, dt, root, comm, req,
                              "bolt_iscatterv");
}

static int allgather(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                     bolt_comm_t comm, bolt_request_t *req, const char *fn)
{
    size_t bytes;
    int rc = check(comm, count, dt, req, &bytes, fn);
    if (rc || (rc = coll_check_buf(recvbuf, bytes * (size_t)comm->size, fn, "recvbuf")) ||
        (sendbuf != BOLT_IN_PLACE && (rc = coll_check_buf(sendbuf, bytes, fn, "sendbuf"))))
        return rc;
    if (bytes > SIZE_MAX / (size_t)comm->size)
        return bolt_err_set(BOLT_ERR_ARG, "%s: the result does not fit in memory", fn);
    int algo = coll_select(COLL_ALLGATHER, bytes, comm, 1);
    if (algo < 0)
        return algo;
    char *mine = (char *)recvbuf + (size_t)comm->rank * bytes;
    if (!req && coll_allgather_algo(algo) == coll_allgather_direct)
        return coll_allgatherv_direct_now(comm, sendbuf == BOLT_IN_PLACE ? mine : sendbuf, recvbuf, NULL, NULL,
                                          bytes, fn);
    struct coll_sched *s =
        coll_sched_new(comm, fn, coll_algo_name(COLL_ALLGATHER, algo), COLL_EXCHANGE | (req == NULL));
    if (s && sendbuf != BOLT_IN_PLACE)
        coll_sched_copy(s, mine, sendbuf, bytes);
    if (s && comm->size > 1)
        coll_allgather_algo(algo)(s, sendbuf == BOLT_IN_PLACE ? mine : sendbuf, recvbuf, bytes);
    return coll_launch(s, req, fn);
}

int bolt_allgather(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                   bolt_comm_t comm)
{
    return allgather(sendbuf, recvbuf, count, dt, comm, NULL, "bolt_allgather");
}

int bolt_iallgather(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                    bolt_comm_t comm, bolt_request_t *req)
{
    int rc = need_req(req, "bolt_iallgather");
    return rc ? rc : allgather(sendbuf, recvbuf, count, dt, comm, req, "bolt_iallgather");
}

static int allgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                      const size_t *recvcounts, const size_t *displs, bolt_datatype_t dt,
                      bolt_comm_t comm, bolt_request_t *req, const char *fn)
{
    size_t bytes;
    struct coll_vb b;
    coll_vb_init(&b);
    int rc = check(comm, sendcount, dt, req, &bytes, fn);
    if (rc || (rc = coll_v_bytes(recvcounts, displs, comm->size, bolt_type_size(dt), &b, fn)))
        return rc;
    int r = comm->rank, n = comm->size;
    if (sendbuf != BOLT_IN_PLACE && bytes != b.c[r])
        rc = bolt_err_set(BOLT_ERR_ARG, "%s: rank %d sends %zu elements but recvcounts[%d] is %zu",
                          fn, r, sendcount, r, recvcounts[r]);
    size_t any = 0, most = 0;
    for (int i = 0; i < n; i++) {
        any |= b.c[i];
        most = b.c[i] > most ? b.c[i] : most;
    }
    /* direct where the all-gather of the largest block would be (the same
     * on every rank: the counts are), else by ring */
    int algo = rc ? 0 : coll_select(COLL_ALLGATHER, most, comm, 1);
    if (algo < 0)
        rc = algo;
    int direct = !rc && coll_allgather_algo(algo) == coll_allgather_direct;
    const void *in = sendbuf == BOLT_IN_PLACE ? (char *)recvbuf + b.d[r] : sendbuf;
    if (!rc && !(rc = coll_check_buf(recvbuf, any, fn, "recvbuf")) &&
        !(sendbuf != BOLT_IN_PLACE && (rc = coll_check_buf(sendbuf, bytes, fn, "sendbuf")))) {
        if (direct && !req) {
            rc = coll_allgatherv_direct_now(comm, in, recvbuf, b.c, b.d, 0, fn);
        } else {
            struct coll_sched *s =
                coll_sched_new(comm, fn, direct ? "direct" : "ring", COLL_EXCHANGE | (req == NULL));
            if (s && sendbuf != BOLT_IN_PLACE)
                coll_sched_copy(s, (char *)recvbuf + b.d[r], sendbuf, b.c[r]);
            if (s)
                (direct ? coll_allgatherv_direct : coll_allgatherv_ring)(s, in, recvbuf, b.c, b.d);
            rc = coll_launch(s, req, fn);
        }
    }
    coll_vb_free(&b);
    return rc;
}

int bolt_allgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                    const size_t *recvcounts, const size_t *displs, bolt_datatype_t dt,
                    bolt_comm_t comm)
{
    return allgatherv(sendbuf, sendcount, recvbuf, recvcounts, displs, dt, comm, NULL,
                      "bolt_allgatherv");
}

int bolt_iallgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                     const size_t *recvcounts, const size_t *displs, bolt_datatype_t dt,
                     bolt_comm_t comm, bolt_request_t *req)
{
    int rc = need_req(req, "bolt_iallgatherv");
    return rc ? rc : allgatherv(sendbuf, sendcount, recvbuf, recvcounts, displs, dt, comm, req,
                                "bolt_iallgatherv");
}

/* In place, the send data is the receive buffer: copy it to scratch first. */
static int alltoallv(const void *sendbuf, const size_t *sc, const size_t *sd, void *recvbuf,
                     const size_t *rc_, const size_t *rd, bolt_datatype_t dt, bolt_comm_t comm,
                     bolt_request_t *req, const char *fn)
{
    size_t bytes, extent = 0;
    struct coll_vb sb, rb;
    coll_vb_init(&sb);
    coll_vb_init(&rb);
    int rc = check(comm, 0, dt, req, &bytes, fn), n = 0;
    if (rc)
        return rc;
    n = comm->size;
    size_t esize = bolt_type_size(dt);
    if (sendbuf == BOLT_IN_PLACE) {
        sc = rc_;
        sd = rd;
    }
    if ((rc = coll_v_bytes(sc, sd, n, esize, &sb, fn)) ||
        (rc = coll_v_bytes(rc_, rd, n, esize, &rb, fn))) {
        coll_vb_free(&sb);
        return rc;
    }
    for (int i = 0; i < n; i++)
        if (rb.d[i] + rb.c[i] > extent)
            extent = rb.d[i] + rb.c[i];
    if (!(rc = coll_check_buf(recvbuf, extent, fn, "recvbuf")) &&
        !(sendbuf != BOLT_IN_PLACE && (rc = coll_check_buf(sendbuf, 1, fn, "sendbuf")))) {
        if (!req && sendbuf != BOLT_IN_PLACE) {
            rc = coll_alltoallv_pairwise_now(comm, sendbuf, sb.c, sb.d, recvbuf, rb.c, rb.d, fn);
        } else {
            struct coll_sched *s = coll_sched_new(comm, fn, "pairwise", COLL_EXCHANGE | (req == NULL));
            const void *in = sendbuf;
            if (s && sendbuf == BOLT_IN_PLACE) {
                void *copy = coll_sched_tmp(s, extent);
                coll_sched_copy(s, copy, recvbuf, extent);
                in = copy;
            }
            if (s)
                coll_alltoallv_pairwise(s, in, sb.c, sb.d, recvbuf, rb.c, rb.d);
            rc = coll_launch(s, req, fn);
        }
    }
    coll_vb_free(&sb);
    coll_vb_free(&rb);
    return rc;
}

static int alltoall(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                    bolt_comm_t comm, bolt_request_t *req, const char *fn)
{
    size_t bytes;
    int rc = check(comm, count, dt, req, &bytes, fn);
    if (rc)
        return rc;
    int n = comm->size;
    size_t inl[2 * COLL_VB_INLINE] = {0}, *cd = inl; /* zeroed: gcc 12 takes a const argument for a read */
    if (n > COLL_VB_INLINE && !(cd = malloc(2 * (size_t)n * sizeof *cd)))
        return bolt_err_set(BOLT_ERR_NOMEM, "%s: out of memory", fn);
    for (int i = 0; i < n; i++) {
        cd[i] = count;
        cd[n + i] = (size_t)i * count;
    }
    rc = alltoallv(sendbuf, cd, cd + n, recvbuf, cd, cd + n, dt, comm, req, fn);
    if (cd != inl)
        free(cd);
    return rc;
}

int bolt_alltoall(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                  bolt_comm_t comm)
{
    return alltoall(sendbuf, recvbuf, count, dt, comm, NULL, "bolt_alltoall");
}

int bolt_ialltoall(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                   bolt_comm_t comm, bolt_request_t *req)
{
    int rc = need_req(req, "bolt_ialltoall");
    return rc ? rc : alltoall(sendbuf, recvbuf, count, dt, comm, req, "bolt_ialltoall");
}

int bolt_alltoallv(const void *sendbuf, const size_t *sendcounts, const size_t *sdispls,
                   void *recvbuf, const size_t *recvcounts, const size_t *rdispls,
                   bolt_datatype_t dt, bolt_comm_t comm)
{
    return alltoallv(sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, dt, comm, NULL,
                     "bolt_alltoallv");
}

int bolt_ialltoallv(const void *sendbuf, const size_t *sendcounts, const size_t *sdispls,
                    void *recvbuf, const size_t *recvcounts, const size_t *rdispls,
                    bolt_datatype_t dt, bolt_comm_t comm, bolt_request_t *req)
{
    int rc = need_req(req, "bolt_ialltoallv");
    return rc ? rc : alltoallv(sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, dt,
                               comm, req, "bolt_ialltoallv");
}
