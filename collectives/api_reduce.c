/* api_reduce.c — public reducing collectives: allreduce, reduce,
 * reduce-scatter, scan, exscan (blocking and nonblocking). */
#include <stdlib.h>

#include "collectives/coll.h"
#include "runtime/errors.h"

/* Checks shared by every reducing call. */
static int check(bolt_comm_t comm, size_t count, bolt_datatype_t dt, bolt_op_t op,
                 bolt_request_t *req, size_t *bytes, const char *fn)
{
    int rc;
    if (req)
        *req = BOLT_REQUEST_NULL;
    if ((rc = bolt_comm_check(comm, fn)) || (rc = coll_op_check(op, dt, fn)) ||
        (rc = coll_bytes(count, dt, bytes, fn)))
        return rc;
    return BOLT_OK;
}

static int allreduce(const void *sbuf, void *rbuf, size_t count, bolt_datatype_t dt, bolt_op_t op,
                     bolt_comm_t comm, bolt_request_t *req, const char *fn)
{
    size_t bytes;
    int rc = check(comm, count, dt, op, req, &bytes, fn);
    if (rc || (rc = coll_check_buf(rbuf, bytes, fn, "recvbuf")) ||
        (sbuf != BOLT_IN_PLACE && (rc = coll_check_buf(sbuf, bytes, fn, "sendbuf"))))
        return rc;
    int algo = coll_select(COLL_ALLREDUCE, bytes, comm, coll_op_commutative(op));
    if (algo < 0)
        return algo;
    if (!req && coll_allreduce_algo(algo) == coll_allreduce_rd &&
        (rc = coll_allreduce_rd_now(comm, sbuf == BOLT_IN_PLACE ? rbuf : sbuf, rbuf, count, dt, op, fn)) !=
            COLL_NOT_NOW)
        return rc;
    struct coll_sched *s =
        coll_sched_new(comm, fn, coll_algo_name(COLL_ALLREDUCE, algo), COLL_EXCHANGE | (req == NULL));
    if (s)
        coll_allreduce_algo(algo)(s, sbuf == BOLT_IN_PLACE ? rbuf : sbuf, rbuf, count, dt, op);
    return coll_launch(s, req, fn);
}

int bolt_allreduce(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                   bolt_op_t op, bolt_comm_t comm)
{
    return allreduce(sendbuf, recvbuf, count, dt, op, comm, NULL, "bolt_allreduce");
}

int bolt_iallreduce(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                    bolt_op_t op, bolt_comm_t comm, bolt_request_t *req)
{
    if (!req)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_iallreduce: request pointer is NULL");
    return allreduce(sendbuf, recvbuf, count, dt, op, comm, req, "bolt_iallreduce");
}

static int reduce(const void *sbuf, void *rbuf, size_t count, bolt_datatype_t dt, bolt_op_t op,
                  int root, bolt_comm_t comm, bolt_request_t *req, const char *fn)
{
    size_t bytes;
    int rc = check(comm, count, dt, op, req, &bytes, fn);
    if (rc || (rc = coll_check_root(comm, root, fn)))
        return rc;
    int at_root = comm->rank == root;
    if (sbuf == BOLT_IN_PLACE && !at_root)
        return bolt_err_set(BOLT_ERR_ARG, "%s: BOLT_IN_PLACE is for the root (%d) only", fn, root);
    const void *in = sbuf == BOLT_IN_PLACE ? rbuf : sbuf;
    if ((rc = coll_check_buf(in, bytes, fn, "sendbuf")) ||
        (at_root && (rc = coll_check_buf(rbuf, bytes, fn, "recvbuf"))))
        return rc;
    if (!req && (rc = coll_reduce_binomial_now(comm, in, rbuf, count, dt, op, root, fn)) != COLL_NOT_NOW)
        return rc;
    struct coll_sched *s = coll_sched_new(comm, fn, "binomial", req == NULL);
    if (s)
        coll_reduce_binomial(s, in, rbuf, count, dt, op, root);
    return coll_launch(s, req, fn);
}

int bolt_reduce(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt, bolt_op_t op,
                int root, bolt_comm_t comm)
{
    return reduce(sendbuf, recvbuf, count, dt, op, root, comm, NULL, "bolt_reduce");
}

int bolt_ireduce(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                 bolt_op_t op, int root, bolt_comm_t comm, bolt_request_t *req)
{
    if (!req)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_ireduce: request pointer is NULL");
    return reduce(sendbuf, recvbuf, count, dt, op, root, comm, req, "bolt_ireduce");
}

/* The schedule keeps no pointer into cd: its steps hold the sizes themselves. */
static int reduce_scatter(const void *sbuf, void *rbuf, const size_t *counts, size_t block,
                          bolt_datatype_t dt, bolt_op_t op, bolt_comm_t comm, bolt_request_t *req,
                          const char *fn)
{
    size_t esize, total = 0, bytes;
    int rc = check(comm, 0, dt, op, req, &bytes, fn);
    if (rc)
        return rc;
    int n = comm->size;
    esize = bolt_type_size(dt);
    if (!counts && block == SIZE_MAX)
        return bolt_err_set(BOLT_ERR_ARG, "%s: recvcounts is NULL", fn);
    size_t inl[2 * COLL_VB_INLINE], *cd = inl; /* element counts, then displacements */
    if (n > COLL_VB_INLINE && !(cd = malloc(2 * (size_t)n * sizeof *cd)))
        return bolt_err_set(BOLT_ERR_NOMEM, "%s: out of memory", fn);
    for (int i = 0; i < n && !rc; i++) {
        cd[i] = counts ? counts[i] : block;
        cd[n + i] = total;
        if (cd[i] > SIZE_MAX / esize / 2 - total)
            rc = bolt_err_set(BOLT_ERR_ARG, "%s: the counts add up to more than memory", fn);
        total += cd[i];
    }
    const void *in = sbuf == BOLT_IN_PLACE ? rbuf : sbuf;
    if (!rc && !(rc = coll_check_buf(in, total * esize, fn, "sendbuf")) &&
        !(rc = coll_check_buf(rbuf, cd[comm->rank] * esize, fn, "recvbuf")) &&
        (req || (rc = coll_reduce_scatter_direct_now(comm, in, rbuf, cd, cd + n, dt, op, fn)) == COLL_NOT_NOW)) {
        struct coll_sched *s = coll_sched_new(comm, fn, "direct", COLL_EXCHANGE | (req == NULL));
        if (s)
            coll_reduce_scatter_direct(s, in, rbuf, cd, cd + n, dt, op);
        rc = coll_launch(s, req, fn);
    }
    if (cd != inl)
        free(cd);
    return rc;
}

int bolt_reduce_scatter(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                        bolt_datatype_t dt, bolt_op_t op, bolt_comm_t comm)
{
    return reduce_scatter(sendbuf, recvbuf, recvcounts, SIZE_MAX, dt, op, comm, NULL,
                          "bolt_reduce_scatter");
}

int bolt_ireduce_scatter(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                         bolt_datatype_t dt, bolt_op_t op, bolt_comm_t comm, bolt_request_t *req)
{
    if (!req)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_ireduce_scatter: request pointer is NULL");
    return reduce_scatter(sendbuf, recvbuf, recvcounts, SIZE_MAX, dt, op, comm, req,
                          "bolt_ireduce_scatter");
}

int bolt_reduce_scatter_block(const void *sendbuf, void *recvbuf, size_t recvcount,
                              bolt_datatype_t dt, bolt_op_t op, bolt_comm_t comm)
{
    if (recvcount == SIZE_MAX)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_reduce_scatter_block: count too large");
    return reduce_scatter(sendbuf, recvbuf, NULL, recvcount, dt, op, comm, NULL,
                          "bolt_reduce_scatter_block");
}

int bolt_ireduce_scatter_block(const void *sendbuf, void *recvbuf, size_t recvcount,
                               bolt_datatype_t dt, bolt_op_t op, bolt_comm_t comm,
                               bolt_request_t *req)
{
    if (!req)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_ireduce_scatter_block: request pointer is NULL");
    if (recvcount == SIZE_MAX)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_ireduce_scatter_block: count too large");
    return reduce_scatter(sendbuf, recvbuf, NULL, recvcount, dt, op, comm, req,
                          "bolt_ireduce_scatter_block");
}

static int scan(const void *sbuf, void *rbuf, size_t count, bolt_datatype_t dt, bolt_op_t op,
                bolt_comm_t comm, int exclusive, bolt_request_t *req, const char *fn)
{
    size_t bytes;
    int rc = check(comm, count, dt, op, req, &bytes, fn);
    if (rc || (rc = coll_check_buf(rbuf, bytes, fn, "recvbuf")) ||
        (sbuf != BOLT_IN_PLACE && (rc = coll_check_buf(sbuf, bytes, fn, "sendbuf"))))
        return rc;
    const void *in = sbuf == BOLT_IN_PLACE ? rbuf : sbuf;
    if (!req && (rc = coll_scan_rd_now(comm, in, rbuf, count, dt, op, exclusive, fn)) != COLL_NOT_NOW)
        return rc;
    int linear = coll_scan_use_linear(comm, bytes);
    int (*algo)(struct coll_sched *, void *, size_t, bolt_datatype_t, bolt_op_t, int, void *) =
        linear ? coll_scan_linear : coll_scan_rd;
    struct coll_sched *s = coll_sched_new(comm, fn, linear ? "linear" : "rd", COLL_EXCHANGE | (req == NULL));
    if (s && exclusive) {
        void *partial = coll_sched_tmp(s, bytes);
        coll_sched_copy(s, partial, in, bytes);
        algo(s, partial, count, dt, op, 1, rbuf);
    } else if (s) {
        coll_sched_copy(s, rbuf, in, bytes);
        algo(s, rbuf, count, dt, op, 0, rbuf);
    }
    return coll_launch(s, req, fn);
}

int bolt_scan(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt, bolt_op_t op,
              bolt_comm_t comm)
{
    return scan(sendbuf, recvbuf, count, dt, op, comm, 0, NULL, "bolt_scan");
}

int bolt_iscan(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt, bolt_op_t op,
               bolt_comm_t comm, bolt_request_t *req)
{
    if (!req)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_iscan: request pointer is NULL");
    return scan(sendbuf, recvbuf, count, dt, op, comm, 0, req, "bolt_iscan");
}

int bolt_exscan(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                bolt_op_t op, bolt_comm_t comm)
{
    return scan(sendbuf, recvbuf, count, dt, op, comm, 1, NULL, "bolt_exscan");
}

int bolt_iexscan(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                 bolt_op_t op, bolt_comm_t comm, bolt_request_t *req)
{
    if (!req)
        return bolt_err_set(BOLT_ERR_ARG, "bolt_iexscan: request pointer is NULL");
    return scan(sendbuf, recvbuf, count, dt, op, comm, 1, req, "bolt_iexscan");
}
