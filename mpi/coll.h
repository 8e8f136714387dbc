/* coll.h — what the MPI face's collectives share (op.c, coll.c, coll_reduce.c,
 * coll_nbv.c, alltoallw.c). */
#ifndef BOLT_MPI_COLL_H
#define BOLT_MPI_COLL_H

#include "mpi/face.h"

#pragma GCC visibility push(hidden)

/* Bolt's datatype for a predefined MPI type, or BOLT_DATATYPE_NULL. */
bolt_datatype_t face_native_basic(MPI_Datatype dt);
/* Bolt's op for an MPI op; *is_user says it wraps an MPI_User_function. */
int face_op_native(MPI_Comm comm, MPI_Op op, const char *fn, bolt_op_t *out, int *is_user);
/* User functions called during the next collective see this datatype; their
 * buffers are the native ones moved back by shift bytes (the type's lb). */
void face_op_set_call_type(MPI_Datatype dt, MPI_Aint shift);
/* op_extra.c: a predefined op on a predefined type that Bolt's collectives
 * have no kernel for, as a native op over opaque elements of *esize bytes;
 * *nop is BOLT_OP_NULL when (op, basic) is not such a pair. A native code
 * when the op cannot be made. */
int face_op_extra(MPI_Op op, MPI_Datatype basic, bolt_op_t *nop, size_t *esize);
void face_op_extra_finalize(void);

/* ---- coll.c: argument checks and buffers of the data-moving collectives ---- */
/* The common case of a collective, told in one pass: MPI initialised, comm a
 * live intracommunicator, dt a committed contiguous datatype, count not
 * negative. Then the call needs no view, no pack and none of the checks
 * below, whose messages are for the other cases (which take the full path).
 * A 4-byte broadcast or gather of 2 ranks spent ~250 instructions a call in
 * the face before it reached the native call (about 0.05 us a call of
 * 0.11-0.18 in a loop of them). */
static inline int face_coll_fast(MPI_Comm comm, MPI_Datatype dt, int count, struct face_comm **c,
                                 struct face_type **t)
{
    struct face_comm *fc = face_comm_get(comm);
    struct face_type *ft = face_type_get(dt);
    if (!fc || fc->inter || !ft || !ft->committed || !ft->contig || count < 0 ||
        !face_initialized || face_finalized)
        return 0;
    *c = fc;
    *t = ft;
    return 1;
}

/* Checks comm, a count (MPI_ERR_COUNT when negative) and a datatype. */
int face_coll_type(MPI_Comm comm, MPI_Datatype dt, int count, const char *fn,
                   struct face_comm **c, struct face_type **t);
int face_check_root(MPI_Comm comm, struct face_comm *c, int root, const char *fn);
/* MPI_ERR_TRUNCATE unless what one rank sends is what its peer receives. */
int face_check_match(MPI_Comm comm, const char *fn, size_t sbytes, size_t rbytes);
/* A v-variant's buffer as the native call sees it: byte counts bc and
 * displacements bd for n ranks; p is the user's buffer when the type is
 * contiguous, else tmp, where the blocks lie packed end to end (packed from
 * buf at once when pack_in). bc and bd may point into the struct itself:
 * it is not copied. */
#define FACE_VBUF_INLINE 16 /* ranks whose sizes need no malloc */
struct face_vbuf {
    size_t *bc, *bd;
    char *p;
    void *tmp;
    size_t inl[2 * FACE_VBUF_INLINE];
};
int face_vbuf_make(MPI_Comm comm, const char *fn, int n, const void *buf, const int *counts,
                   const int *displs, struct face_type *t, int pack_in, struct face_vbuf *v);
void face_vbuf_free(struct face_vbuf *v);
/* An empty one (not = {0}: that would clear inl too). */
static inline void face_vbuf_none(struct face_vbuf *v)
{
    v->bc = v->bd = NULL;
    v->p = NULL;
    v->tmp = NULL;
}

/* ---- coll_reduce.c: reductions and the nonblocking collectives' requests ---- */
struct face_red {
    struct face_type *t;
    bolt_datatype_t ndt;
    bolt_op_t nop;
    size_t per;      /* native elements per MPI element */
    int user;        /* user op: opaque extent-sized elements, no packing */
    int packed;      /* predefined op on a type with holes: pack around the call */
};
/* Checks comm, datatype, count and op, and says how the native call sees them. */
int face_red_setup(MPI_Comm comm, const char *fn, MPI_Datatype dt, int count, MPI_Op op,
                   struct face_comm **c, struct face_red *r);
/* Reduce-scatter's bytes for each rank (rcounts, or block elements each when
 * block >= 0) in a new *nc, and the elements in all; counts checked. */
int face_red_scatter_counts(MPI_Comm comm, const char *fn, const struct face_comm *c, const struct face_red *r,
                            const int *rcounts, int block, size_t **nc, size_t *total);
/* Where the native call reads or writes the elements of buf. */
char *face_red_base(const struct face_red *r, const void *buf);
/* A new active collective request in *req (errors raised on comm). */
int face_nb_request(MPI_Comm comm, const char *fn, MPI_Request *req, struct face_req **q);
/* The native call's code: on failure the request goes and the error is raised. */
int face_nb_started(MPI_Comm comm, const char *fn, MPI_Request *req, int rc);
/* The request goes and MPI_ERR_NO_MEM is raised. */
int face_nb_nomem(MPI_Comm comm, const char *fn, MPI_Request *req);
/* count elements of buf packed into the request's send copy (NULL: no memory). */
void *face_nb_pack_in(struct face_req *q, struct face_type *t, const void *buf, size_t count);
/* The request's receive copy of count elements of dt, packed from buf first
 * when copy, unpacked into buf at completion when unpack (NULL: no memory). */
void *face_nb_out(struct face_req *q, MPI_Datatype dt, struct face_type *t, void *buf,
                  size_t count, int copy, int unpack);

/* ---- intercoll.c: the collectives on intercommunicators ---------------------------- */
static inline int face_is_inter(MPI_Comm comm)
{
    struct face_comm *c = face_comm_get(comm);
    return c && c->inter;
}
/* Each with the arguments of its MPI call (a v-variant's counts and
 * displacements, else NULL); nb: the nonblocking form, giving *req; fn: the
 * call, for errors. */
int face_inter_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, int nb,
                     MPI_Request *req, const char *fn);
int face_inter_gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                      const int *rcounts, const int *displs, MPI_Datatype rdt, int root,
                      MPI_Comm comm, int nb, MPI_Request *req, const char *fn);
int face_inter_scatter(const void *sbuf, int scount, const int *scounts, const int *displs,
                       MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root,
                       MPI_Comm comm, int nb, MPI_Request *req, const char *fn);
int face_inter_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                         const int *rcounts, const int *displs, MPI_Datatype rdt, MPI_Comm comm,
                         int nb, MPI_Request *req, const char *fn);
int face_inter_alltoall(const void *sbuf, int scount, const int *scounts, const int *sdispls,
                        MPI_Datatype sdt, void *rbuf, int rcount, const int *rcounts,
                        const int *rdispls, MPI_Datatype rdt, MPI_Comm comm, int nb,
                        MPI_Request *req, const char *fn);
int face_inter_alltoallw(const void *sbuf, const int *scounts, const int *sdispls,
                         const MPI_Datatype *sdts, void *rbuf, const int *rcounts,
                         const int *rdispls, const MPI_Datatype *rdts, MPI_Comm comm, int nb,
                         MPI_Request *req, const char *fn);
/* Reduce at root, or allreduce when everyone. */
int face_inter_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                      int root, int everyone, MPI_Comm comm, int nb, MPI_Request *req,
                      const char *fn);
/* Reduce_scatter (block < 0) or reduce_scatter_block (block elements each). */
int face_inter_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, int block,
                              MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int nb, MPI_Request *req,
                              const char *fn);

#pragma GCC visibility pop

#endif
