/*
 * bolt_coll.h — collective operations of the native API (included by bolt.h).
 *
 * Counts are numbers of elements of a datatype; the v-variants take arrays of
 * counts and displacements, both in elements. Argument order follows MPI
 * (sendbuf, recvbuf, count, datatype, op, root, comm). BOLT_IN_PLACE as the
 * send buffer (or, for scatter, the receive buffer at the root) means what
 * MPI_IN_PLACE means for that operation.
 *
 * Results are identical to the bit on every rank that receives them, and the
 * same from run to run for the same rank count and algorithm: every element
 * is reduced in an order fixed by the algorithm alone. Non-commutative user
 * operations are applied in rank order: x0 op x1 op ... op x(n-1).
 */
#ifndef BOLT_COLL_H
#define BOLT_COLL_H

#include <stddef.h>
#include <stdint.h>
#include "bolt.h" /* types; bolt.h includes this file after defining them */

/* Datatypes: builtins, and opaque elements of n bytes (bolt_type_bytes). */
typedef uint64_t bolt_datatype_t;

#define BOLT_DATATYPE_NULL ((bolt_datatype_t)0)
#define BOLT_BYTE ((bolt_datatype_t)1)
#define BOLT_INT8 ((bolt_datatype_t)2)
#define BOLT_INT16 ((bolt_datatype_t)3)
#define BOLT_INT32 ((bolt_datatype_t)4)
#define BOLT_INT64 ((bolt_datatype_t)5)
#define BOLT_UINT8 ((bolt_datatype_t)6)
#define BOLT_UINT16 ((bolt_datatype_t)7)
#define BOLT_UINT32 ((bolt_datatype_t)8)
#define BOLT_UINT64 ((bolt_datatype_t)9)
#define BOLT_FLOAT32 ((bolt_datatype_t)10)
#define BOLT_FLOAT64 ((bolt_datatype_t)11)
#define BOLT_FLOAT16 ((bolt_datatype_t)12)  /* IEEE binary16, reduced in float32 */
#define BOLT_BFLOAT16 ((bolt_datatype_t)13) /* bfloat16, reduced in float32 */
#define BOLT_LONG_DOUBLE ((bolt_datatype_t)14)
#define BOLT_C_FLOAT_COMPLEX ((bolt_datatype_t)15)
#define BOLT_C_DOUBLE_COMPLEX ((bolt_datatype_t)16)
#define BOLT_BOOL ((bolt_datatype_t)17)     /* C _Bool */
/* Value-index pairs for MAXLOC/MINLOC: struct { T v; int i; } (C layout). */
#define BOLT_FLOAT_INT ((bolt_datatype_t)18)
#define BOLT_DOUBLE_INT ((bolt_datatype_t)19)
#define BOLT_LONG_INT ((bolt_datatype_t)20)
#define BOLT_2INT ((bolt_datatype_t)21)
#define BOLT_SHORT_INT ((bolt_datatype_t)22)
#define BOLT_LONG_DOUBLE_INT ((bolt_datatype_t)23)

/* Elements of n bytes, moved as they are and reduced only by user ops
 * (BOLT_DATATYPE_NULL when n is 0). */
bolt_datatype_t bolt_type_bytes(size_t n);
/* Bytes per element; 0 for an invalid datatype. */
size_t bolt_type_size(bolt_datatype_t dt);
/* "float32", "bytes(12)", ...; "invalid" for an invalid datatype. */
const char *bolt_type_name(bolt_datatype_t dt);

/* Reduction operations. */
typedef int bolt_op_t;
#define BOLT_OP_NULL 0
#define BOLT_SUM 1
#define BOLT_PROD 2
#define BOLT_MIN 3
#define BOLT_MAX 4
#define BOLT_LAND 5
#define BOLT_LOR 6
#define BOLT_LXOR 7
#define BOLT_BAND 8
#define BOLT_BOR 9
#define BOLT_BXOR 10
#define BOLT_MAXLOC 11
#define BOLT_MINLOC 12

/* A user operation: inout[i] = in[i] op inout[i] for count elements (as MPI). */
typedef void bolt_user_fn(const void *in, void *inout, size_t count, bolt_datatype_t dt,
                          void *user);
int bolt_op_create(bolt_user_fn *fn, int commutative, void *user, bolt_op_t *op);
int bolt_op_free(bolt_op_t *op);

#define BOLT_IN_PLACE ((void *)(intptr_t)-1)

/* Blocking collectives. */
int bolt_barrier(bolt_comm_t comm);
int bolt_bcast(void *buf, size_t count, bolt_datatype_t dt, int root, bolt_comm_t comm);
int bolt_reduce(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                bolt_op_t op, int root, bolt_comm_t comm);
int bolt_allreduce(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                   bolt_op_t op, bolt_comm_t comm);
/* inout = in op inout, on this rank only. */
int bolt_reduce_local(const void *in, void *inout, size_t count, bolt_datatype_t dt,
                      bolt_op_t op);
int bolt_gather(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt, int root,
                bolt_comm_t comm);
int bolt_gatherv(const void *sendbuf, size_t sendcount, void *recvbuf, const size_t *recvcounts,
                 const size_t *displs, bolt_datatype_t dt, int root, bolt_comm_t comm);
int bolt_scatter(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt, int root,
                 bolt_comm_t comm);
int bolt_scatterv(const void *sendbuf, const size_t *sendcounts, const size_t *displs,
                  void *recvbuf, size_t recvcount, bolt_datatype_t dt, int root,
                  bolt_comm_t comm);
int bolt_allgather(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                   bolt_comm_t comm);
int bolt_allgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                    const size_t *recvcounts, const size_t *displs, bolt_datatype_t dt,
                    bolt_comm_t comm);
int bolt_alltoall(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                  bolt_comm_t comm);
int bolt_alltoallv(const void *sendbuf, const size_t *sendcounts, const size_t *sdispls,
                   void *recvbuf, const size_t *recvcounts, const size_t *rdispls,
                   bolt_datatype_t dt, bolt_comm_t comm);
/* Rank i receives recvcounts[i] elements of the reduction (at the start of
 * recvbuf; in place, the whole input vector is taken from recvbuf). */
int bolt_reduce_scatter(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                        bolt_datatype_t dt, bolt_op_t op, bolt_comm_t comm);
int bolt_reduce_scatter_block(const void *sendbuf, void *recvbuf, size_t recvcount,
                              bolt_datatype_t dt, bolt_op_t op, bolt_comm_t comm);
int bolt_scan(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt, bolt_op_t op,
              bolt_comm_t comm);
/* recvbuf on rank 0 is left untouched. */
int bolt_exscan(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                bolt_op_t op, bolt_comm_t comm);

/* Nonblocking collectives: complete with bolt_wait/test/waitall... Buffers
 * must stay untouched until then. */
int bolt_ibarrier(bolt_comm_t comm, bolt_request_t *req);
int bolt_ibcast(void *buf, size_t count, bolt_datatype_t dt, int root, bolt_comm_t comm,
                bolt_request_t *req);
int bolt_ireduce(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                 bolt_op_t op, int root, bolt_comm_t comm, bolt_request_t *req);
int bolt_iallreduce(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                    bolt_op_t op, bolt_comm_t comm, bolt_request_t *req);
int bolt_iallgather(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                    bolt_comm_t comm, bolt_request_t *req);
int bolt_ialltoall(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                   bolt_comm_t comm, bolt_request_t *req);
/* The nonblocking twins of the calls above, with the same arguments: the
 * count and displacement arrays may be freed once the call returns. */
int bolt_igather(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt, int root,
                 bolt_comm_t comm, bolt_request_t *req);
int bolt_igatherv(const void *sendbuf, size_t sendcount, void *recvbuf, const size_t *recvcounts,
                  const size_t *displs, bolt_datatype_t dt, int root, bolt_comm_t comm,
                  bolt_request_t *req);
int bolt_iscatter(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt, int root,
                  bolt_comm_t comm, bolt_request_t *req);
int bolt_iscatterv(const void *sendbuf, const size_t *sendcounts, const size_t *displs,
                   void *recvbuf, size_t recvcount, bolt_datatype_t dt, int root,
                   bolt_comm_t comm, bolt_request_t *req);
int bolt_iallgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                     const size_t *recvcounts, const size_t *displs, bolt_datatype_t dt,
                     bolt_comm_t comm, bolt_request_t *req);
int bolt_ialltoallv(const void *sendbuf, const size_t *sendcounts, const size_t *sdispls,
                    void *recvbuf, const size_t *recvcounts, const size_t *rdispls,
                    bolt_datatype_t dt, bolt_comm_t comm, bolt_request_t *req);
int bolt_ireduce_scatter(const void *sendbuf, void *recvbuf, const size_t *recvcounts,
                         bolt_datatype_t dt, bolt_op_t op, bolt_comm_t comm, bolt_request_t *req);
int bolt_ireduce_scatter_block(const void *sendbuf, void *recvbuf, size_t recvcount,
                               bolt_datatype_t dt, bolt_op_t op, bolt_comm_t comm,
                               bolt_request_t *req);
int bolt_iscan(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt, bolt_op_t op,
               bolt_comm_t comm, bolt_request_t *req);
int bolt_iexscan(const void *sendbuf, void *recvbuf, size_t count, bolt_datatype_t dt,
                 bolt_op_t op, bolt_comm_t comm, bolt_request_t *req);

/* The algorithm automatic selection would use for `op` ("allreduce", "bcast",
 * "allgather", "barrier", "reduce", ...) on `bytes` bytes per rank over comm
 * (settings BOLT_<OP>_ALGO override it); NULL for an unknown op. */
const char *bolt_coll_algorithm(const char *op, size_t bytes, bolt_comm_t comm);

#endif
