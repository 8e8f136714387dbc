/*
 * face.h — libmpi's private state: the handle tables and error raising.
 *
 * Handles are indexes into tables of objects; index 0 is the NULL handle of
 * each kind and the predefined objects take the next indexes, so the values
 * in mpi.h are compile-time constants.
 */
#ifndef BOLT_MPI_FACE_H
#define BOLT_MPI_FACE_H

#include <stddef.h>

#include "bolt.h"
#include "mpi.h"

/* Internal to libmpi: calls between its files go direct, not through the PLT. */
#pragma GCC visibility push(hidden)

/* The face's functions are face_impl_X: profile.c defines PMPI_X as the
 * call of face_impl_X under the runtime lock when the thread level is
 * MPI_THREAD_MULTIPLE (runtime/thread.h). A call from one of the face's
 * functions to another (PMPI_X in the source) goes straight to face_impl_X:
 * the lock is held already. */
#define BOLT_MPI_FN(name, params, args) int face_impl_##name params;
#include "mpi_functions.h"
#undef BOLT_MPI_FN
#include "face_impl.h"

/* ---- errors ------------------------------------------------------------------- */
/* Raises an MPI error in call `fn` on `comm` (MPI_COMM_NULL: the world's
 * handler): with MPI_ERRORS_ARE_FATAL prints "rank R on H: fn: message" and
 * ends the job; otherwise records the message and returns `cls`. */
int face_error(MPI_Comm comm, const char *fn, int cls, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Error classes and codes the program added (errclass.c): the class of
 * code, or -1 when it is not one of them; its string ("" when none is set). */
int face_errcode_class(int code);
const char *face_errcode_string(int code);
extern int face_lastusedcode; /* the MPI_LASTUSEDCODE attribute's value */
void face_errcodes_finalize(void);
/* face_error for an error of another object (a file, a window): raised on
 * handler h, which is called with obj; `what` names the object's kind. */
int face_error_on(MPI_Errhandler h, int obj, const char *what, const char *fn, int cls,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* References on an error handler held by an object that uses it. */
void face_errh_hold(MPI_Errhandler h);
void face_errh_release(MPI_Errhandler h);
/* Raises MPI_ERR_UNSUPPORTED_OPERATION: "<what> is not supported by Bolt". */
int face_unsupported(MPI_Comm comm, const char *fn, const char *what);
/* The thread level granted for `required` (mpit.c): as asked, but
 * SERIALIZED at most with BOLT_THREAD_MULTIPLE=0. */
int face_thread_grant(int required);
/* Turns a native error (its detail in bolt_error_message()) into an MPI one. */
int face_native_error(MPI_Comm comm, const char *fn, int native);
int face_class_of_native(int native);
/* Every call but a few starts with this: MPI must be initialized. It and the
 * handle look-ups below are inline: the face's cost per call is what it adds
 * to the native one (bench/mpi_pingpong against bench/bolt_pingpong). */
extern int face_initialized, face_finalized;
int face_check_init_slow(const char *fn);
static inline int face_check_init(const char *fn)
{
    return face_initialized && !face_finalized ? MPI_SUCCESS : face_check_init_slow(fn);
}

/* ---- communicators -------------------------------------------------------------- */
struct face_attr {
    int keyval;
    void *value;
    struct face_attr *next;
};

/* ---- attributes (attr.c) -------------------------------------------------------- */
/* The kinds of objects with attributes; a keyval is made for one kind. */
enum face_attr_kind { FACE_ATTR_COMM, FACE_ATTR_TYPE, FACE_ATTR_WIN /* keyvals only (win.c) */ };
/* The callbacks of every kind (MPI_Comm_copy_attr_function, MPI_Type_..., with
 * the object's handle first: handles are ints). */
typedef int face_attr_copy_fn(int h, int keyval, void *extra, void *in, void *out, int *flag);
typedef int face_attr_delete_fn(int h, int keyval, void *value, void *extra);
/* The MPI_X_create_keyval and MPI_X_free_keyval bodies. */
int face_keyval_create(int kind, face_attr_copy_fn *copy_fn, face_attr_delete_fn *delete_fn,
                       void *extra, int *keyval, const char *fn);
int face_keyval_free(int kind, int *keyval, const char *fn);
/* MPI_X_set_attr, _get_attr, _delete_attr on the list of object h; errors
 * (a callback's too) are raised on errcomm. */
int face_attr_set(int kind, int h, struct face_attr **list, int keyval, void *value,
                  MPI_Comm errcomm, const char *fn);
int face_attr_get(int kind, const struct face_attr *list, int keyval, void *value, int *flag,
                  MPI_Comm errcomm, const char *fn);
int face_attr_delete(int kind, int h, struct face_attr **list, int keyval, MPI_Comm errcomm,
                     const char *fn);
/* Copies a duplicate's attributes as each keyval's copy callback says: the
 * first callback's error (or MPI_ERR_NO_MEM) is returned, not raised. */
int face_attrs_copy(int from, const struct face_attr *src, struct face_attr **dst);
/* Deletes the attributes through their delete callbacks. The first callback
 * that fails stops it (that attribute and the ones after it stay) and its
 * code is returned; with `force` every attribute goes regardless. */
int face_attrs_delete(int h, struct face_attr **list, int force);
/* Drops the list without calling anything. */
void face_attrs_free(struct face_attr **list);

struct face_cart {
    int ndims;
    int *dims, *periods;
};

/* A graph (MPI_GRAPH: the whole graph, every rank's neighbours both in and out)
 * or distributed graph (MPI_DIST_GRAPH: only this rank's edges) topology. */
struct face_graph {
    int kind;
    int nnodes, *index, *edges;   /* MPI_GRAPH: the arrays of MPI_Graph_create */
    int indegree, outdegree;      /* MPI_DIST_GRAPH: this rank's edges, in order */
    int *sources, *destinations;
    int weighted, *sourceweights, *destweights;
};
/* Frees g and its arrays (NULL: nothing). */
void face_graph_free(struct face_graph *g);

struct face_comm {
    bolt_comm_t native;
    int rank, size;
    MPI_Errhandler errh;
    char name[MPI_MAX_OBJECT_NAME];
    struct face_attr *attrs;
    struct face_cart *cart;
    struct face_graph *graph;
    /* A topology's neighbourhood collectives run point-to-point on this
     * duplicate, so their messages never meet the program's own. */
    bolt_comm_t nbr;
    int *world_ranks; /* rank i of this comm is world rank world_ranks[i] */
    /* Point-to-point peers are native ranks peer_base .. peer_base + peers - 1:
     * an intracommunicator's own ranks (0, size), an intercommunicator's
     * remote group. */
    int peers, peer_base;
    /* An intercommunicator (intercomm.c): native spans both groups, the one
     * whose leader has the lower world rank first, each in its own order;
     * rank, size and world_ranks are the local group's; nbr is a twin of
     * native for the collectives' messages (intercoll.c). */
    int inter;
    int *remote_world; /* remote rank j is world rank remote_world[j] */
};

extern struct face_comm **face_comms;
extern int face_ncomms;
static inline struct face_comm *face_comm_get(MPI_Comm comm)
{
    return comm > 0 && comm < face_ncomms ? face_comms[comm] : NULL;
}
/* The native rank of point-to-point peer `peer` of c (wildcards as they are). */
static inline int face_native_peer(const struct face_comm *c, int peer)
{
    return peer >= 0 ? peer + c->peer_base : peer;
}
/* Checks a communicator handle: MPI_ERR_COMM when it is not a live one. */
int face_comm_check(MPI_Comm comm, const char *fn, struct face_comm **out);
int face_comm_add(bolt_comm_t native, MPI_Comm *out);
/* Gives c (made by the caller) a handle. */
int face_comm_insert(struct face_comm *c, MPI_Comm *out);
/* Deletes its attributes (callbacks' errors ignored) and frees it. */
void face_comm_destroy(MPI_Comm h);
/* Comm_dup's body, and its second half: *newcomm, a duplicate of comm (c)
 * just made, gets comm's error handler, topology (and, when with_nbr, its
 * neighbourhood context) and attributes, or is destroyed and set to
 * MPI_COMM_NULL when one cannot be copied. */
int face_comm_dup(MPI_Comm comm, MPI_Comm *newcomm, const char *fn);
int face_comm_copy_into(MPI_Comm comm, struct face_comm *c, MPI_Comm *newcomm, int with_nbr,
                        const char *fn);
int face_comms_init(void);
void face_comms_finalize(void);
/* Checks a rank of `c` as a peer: MPI_PROC_NULL and (if any_ok) MPI_ANY_SOURCE allowed. */
int face_check_rank(MPI_Comm comm, struct face_comm *c, int rank, int any_ok, const char *fn);
int face_check_tag(MPI_Comm comm, int tag, int any_ok, const char *fn);
/* Gives c the error handler h, holding a reference on it and dropping the
 * one on the handler it had (errors.c). */
void face_comm_set_errh(struct face_comm *c, MPI_Errhandler h);
/* The color of this rank's host: ranks with equal colors share memory. */
int face_host_color(void);
/* Comm_split's body; the new communicator inherits comm's error handler. */
int face_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm, const char *fn);

/* ---- intercommunicators (intercomm.c) ----------------------------------------------- */
/* MPI_ERR_COMM, saying so, when comm is an intercommunicator: for the calls
 * MPI defines on intracommunicators only. */
int face_check_intra(MPI_Comm comm, const struct face_comm *c, const char *fn);
/* Comm_dup and Comm_split of an intercommunicator: a new one (or, for a
 * split color with no process in one of the groups, MPI_COMM_NULL). */
int face_inter_dup(MPI_Comm comm, struct face_comm *c, MPI_Comm *newcomm, const char *fn);
int face_inter_split(MPI_Comm comm, struct face_comm *c, int color, int key, MPI_Comm *newcomm,
                     const char *fn);
/* Checks comm, and that it is an intercommunicator (else MPI_ERR_COMM). */
int face_inter_check(MPI_Comm comm, const char *fn, struct face_comm **c);
/* Comm_compare when either is an intercommunicator. */
int face_inter_compare(const struct face_comm *a, const struct face_comm *b);

/* ---- topologies (cart.c, graph.c) ------------------------------------------------- */
struct face_cart *face_cart_new(int ndims, const int *dims, const int *periods);
/* rank's neighbours, for each dimension the -1 then the +1 one (MPI_PROC_NULL
 * off the edge of a non-periodic dimension): 2 * ndims entries. */
void face_cart_neighbors(const struct face_cart *t, int rank, int *nbrs);
/* Gives a communicator just made with topology its neighbourhood context. */
int face_topo_attach(MPI_Comm comm, const char *fn);
/* Copies from's topology to a duplicate, with a new neighbourhood context
 * (collective) when with_nbr (else the caller gives it one). */
int face_topo_copy(const struct face_comm *from, struct face_comm *to, int with_nbr);
void face_topo_free(struct face_comm *c);
/* This rank's in- and out-neighbours in the standard's order (MPI_PROC_NULL
 * where a Cartesian one is missing), in arrays to free; MPI_ERR_TOPOLOGY
 * when comm has no topology. */
struct face_nbrs {
    int nin, nout;
    int *in, *out;
};
int face_topo_neighbors(MPI_Comm comm, struct face_comm *c, const char *fn, struct face_nbrs *n);

/* ---- groups ------------------------------------------------------------------------ */
struct face_group {
    int live;
    int size;
    int *world_ranks; /* rank i of the group is world rank world_ranks[i] */
};

/* Checks a group handle: MPI_ERR_GROUP when it is not a live group. */
int face_group_check(MPI_Comm comm, MPI_Group g, const char *fn, struct face_group **out);
void face_groups_finalize(void);

/* ---- datatypes ----------------------------------------------------------------------- */
struct face_block {
    MPI_Aint off;  /* from the start of one element */
    size_t len;    /* bytes */
    size_t esize;  /* size of the basic elements in this block (for Get_elements) */
    int x32;       /* how its elements convert to external32 (external32.c's FACE_X32_*) */
};

struct face_type {
    int live;
    int predefined;
    int committed;
    size_t size;              /* bytes of data in one element */
    MPI_Aint lb, ub;          /* extent = ub - lb */
    MPI_Aint true_lb, true_ub;
    size_t align;             /* strictest alignment of a member (struct padding) */
    int contig;               /* data is size bytes from true_lb, and extent == size */
    int nblocks;
    struct face_block *blocks; /* the typemap, flattened, in order */
    MPI_Datatype basic;       /* the one predefined type every block is made of, or NULL */
    int combiner;
    char name[MPI_MAX_OBJECT_NAME];
    int refs;                 /* pending operations and types built from it holding it */
    struct face_contents *contents; /* how it was built (dtype_contents.c); NULL if named */
    struct face_attr *attrs;
};

extern struct face_type **face_types;
extern int face_ntypes;
static inline struct face_type *face_type_get(MPI_Datatype dt)
{
    struct face_type *t = dt > 0 && dt < face_ntypes ? face_types[dt] : NULL;
    return t && t->live ? t : NULL;
}
/* The live datatype behind a handle, committed or not, after the
 * initialisation check; else MPI_ERR_TYPE through fn's error path. */
int face_type_lookup(MPI_Datatype dt, const char *fn, struct face_type **out);
/* A type as a pending operation holding it sees it, even once MPI_Type_free
 * has retired its handle. */
static inline struct face_type *face_type_held(MPI_Datatype dt)
{
    return dt > 0 && dt < face_ntypes ? face_types[dt] : NULL;
}
/* An operation that will use a type after its call returns (a persistent
 * request at every start, a receive or collective unpacking at completion)
 * holds it: MPI_Type_free then only retires the handle, and the last
 * face_type_unhold destroys the type, as MPI 3.1 (4.1.9) defers the free. */
void face_type_hold(MPI_Datatype dt);
void face_type_unhold(MPI_Datatype dt);
/* Checks a datatype handle: MPI_ERR_TYPE for NULL, freed or uncommitted types. */
int face_type_check(MPI_Comm comm, MPI_Datatype dt, const char *fn, struct face_type **out);
static inline MPI_Aint face_type_extent(const struct face_type *t) { return t->ub - t->lb; }
int face_types_init(void);
void face_types_finalize(void);
/* Copies count elements of type t at src into the contiguous dst (size*count bytes). */
void face_pack(const struct face_type *t, const void *src, size_t count, void *dst);
void face_unpack(const struct face_type *t, const void *src, size_t count, void *dst);
/* Data of count elements as one contiguous range, when the type allows it. */
int face_type_contig_span(const struct face_type *t, size_t count);

/* ---- requests --------------------------------------------------------------------------- */
enum face_req_kind { FACE_REQ_SEND, FACE_REQ_RECV, FACE_REQ_DONE, FACE_REQ_COLL, FACE_REQ_GREQ };

struct face_req {
    int live;
    int kind;
    bolt_request_t native;
    MPI_Comm comm;
    int dt_held;              /* holds dt (face_type_hold): released with the request */
    /* Non-contiguous receives land in tmp and are unpacked at completion;
     * non-contiguous sends are packed into tmp first. */
    void *tmp;
    void *user_buf;
    int count;
    MPI_Datatype dt;
    int cancelled;
    int proc_null;            /* to or from MPI_PROC_NULL: completes at once */
    MPI_Status done_status;   /* for FACE_REQ_DONE */
    /* Persistent requests: the arguments to start again with. */
    int persistent;
    int active;
    int pmode;                /* 0 send, 1 ssend, 2 rsend, 3 bsend, 4 recv */
    void *pbuf;
    int peer, tag;
    /* Nonblocking collectives on datatypes with holes run on packed copies:
     * coll_in holds the packed send data; tmp, when user_buf is set, holds
     * coll_count elements of dt, unpacked into user_buf at completion. */
    void *coll_in;
    size_t coll_count;
    struct face_call_op *coll_op; /* a user op bound to this call's datatype */
    struct face_unpack_plan *coll_plan; /* v- and w-variants: blocks to unpack (coll.h) */
    /* Freed by MPI_Request_free while still active: release at completion. */
    int freed;
    void *bsend_block;        /* Bsend: the attached-buffer block to give back */
    /* A neighbourhood or intercommunicator collective: many native requests, no q->native. */
    struct face_multi *multi;
    int peer_base;            /* its communicator's (statuses: native source - peer_base) */
    /* A generalized request (FACE_REQ_GREQ): the program's callbacks. */
    struct face_greq *greq;
    /* Work of the face's own once the native part is done (MPI_Comm_idup):
     * called once, by the completion (ok: the native part succeeded; its
     * MPI error class is the call's) or, failed, when the request goes. */
    int (*finish_fn)(struct face_req *q, int ok);
    void *ext;
    struct face_req *next_free;
};

/* neighbor.c: the native sends and receives of one neighbourhood or
 * intercommunicator collective, done when all of them are. done: have they
 * all completed (no progress made)? wait: until they have; BOLT_OK or the
 * first one's error. finish: unpacks what came (when ok), runs its fin and
 * frees it all. */
struct face_multi;
int face_multi_done(struct face_multi *m);
int face_multi_wait(struct face_multi *m);
void face_multi_finish(struct face_multi *m, int ok);
/* One side of an exchange: the block for (or from) peer k. */
enum face_layout {
    FACE_SAME,   /* every peer: buf, count, type (allgather's send) */
    FACE_BLOCKS, /* peer k: the k-th block of count elements */
    FACE_V,      /* peer k: counts[k] elements at displs[k] extents */
    FACE_W       /* peer k: counts[k] of types[k] at byte bdispls[k] */
};
struct face_side {
    enum face_layout layout;
    char *buf;
    int count;
    MPI_Datatype type;
    const int *counts, *displs;
    const MPI_Aint *bdispls;
    const MPI_Datatype *types;
};
/* Who an exchange talks to, on native: block k comes from in[k] and goes to
 * out[k] (MPI_PROC_NULL: skipped). dirtags: a Cartesian neighbourhood's
 * tags (neighbor.c). fin(arg, ok), when set, runs once at the end, whatever
 * happens (ok: every part succeeded), after the unpacking. */
struct face_peers {
    bolt_comm_t native;
    int nin, nout;
    const int *in, *out;
    int dirtags;
    void (*fin)(void *arg, int ok);
    void *arg;
};
/* Checks both sides, posts every receive and send, and waits for them all
 * (req NULL) or gives the new request *req. Errors raised on comm. */
int face_exchange(MPI_Comm comm, const struct face_peers *p, const struct face_side *snd,
                  const struct face_side *rcv, MPI_Request *req, const char *fn);

/* grequest.c: generalized requests, whose completion the program
 * signals (MPI_Grequest_complete). done: has it? The others are the
 * request calls' parts for them, each calling the program's callbacks as
 * MPI 3.1 (12.2) says; wait and test complete the request (*r). */
struct face_greq;
int face_greq_done(const struct face_req *q);
int face_greq_wait(MPI_Request *r, struct face_req *q, MPI_Status *st, const char *fn);
int face_greq_test(MPI_Request *r, struct face_req *q, int *flag, MPI_Status *st);
int face_greq_get_status(struct face_req *q, int *flag, MPI_Status *st);
int face_greq_free(MPI_Request *r, struct face_req *q);
int face_greq_cancel(struct face_req *q);

/* op.c: a user operation bound to one call's datatype, for a nonblocking
 * reduction (its function may run during any later call). */
struct face_call_op;
int face_op_bind(MPI_Op op, MPI_Datatype dt, MPI_Aint shift, struct face_call_op **out);
bolt_op_t face_op_bound(const struct face_call_op *b);
void face_op_unbind(struct face_call_op *b);
/* coll_nbv.c: a nonblocking v- or w-collective's receive blocks, packed in
 * the request's tmp (block at offset off: count elements of dt for user),
 * unpacked at a successful completion. The plan holds each type until the
 * request goes. */
int face_plan_add(struct face_req *q, MPI_Datatype dt, size_t count, void *user, size_t off);
void face_plan_unpack(struct face_req *q);
void face_plan_free(struct face_req *q);

int face_req_new(struct face_req **out, MPI_Request *handle);
/* *handle := the one request every send that left at once shares (as Open
 * MPI's ob1 does): complete, never released, nothing in it changes; a send
 * that costs no request of its own to make, wait on and release. */
int face_req_sent(MPI_Request *handle);
struct face_req *face_req_get(MPI_Request r);
/* Frees r's request (not the shared one of face_req_sent). */
void face_req_release(MPI_Request r);
/* Fills status (may be ignore) from a native status on a communicator
 * whose peers start at native rank base. */
void face_status_set(MPI_Status *st, const bolt_status_t *ns, int base);
void face_status_empty(MPI_Status *st);
/* The status of an operation with MPI_PROC_NULL: source MPI_PROC_NULL, nothing received. */
void face_status_proc_null(MPI_Status *st);
/* Starts a point-to-point operation into the request (used by Isend and Start). */
int face_p2p_start(struct face_req *q, const char *fn);
/* Completes an active request: unpacks, fills status, releases it unless persistent. */
int face_req_finish(MPI_Request *r, MPI_Status *st, const char *fn);
/* Ends an operation whose native request completed with status ns. */
int face_req_complete(struct face_req *q, const bolt_status_t *ns, int native_rc, MPI_Status *st,
                      const char *fn);
/* Is the request done? (progress is made by the caller) */
int face_req_done(struct face_req *q);

/* ---- buffered sends ------------------------------------------------------------------------- */
int face_bsend_reserve(size_t bytes, void **block);
void face_bsend_release(void *block);
void face_bsend_progress(void);

/* ---- info objects and messages ---------------------------------------------------- */
void face_infos_finalize(void);
void face_messages_finalize(void);

/* ---- handle validity (handles.c: MPI_X_f2c gives the NULL handle for a value
 * that is no live object) ---------------------------------------------------- */
int face_group_live(MPI_Group g);       /* group.c */
int face_op_live(MPI_Op op);            /* op.c */
int face_info_live(MPI_Info info);      /* info.c */
int face_errh_live(MPI_Errhandler h);   /* errors.c */
int face_message_live(MPI_Message m);   /* mprobe.c */

#define STATUS_IGNORED(st) ((st) == MPI_STATUS_IGNORE || (st) == NULL)

#pragma GCC visibility pop

#endif
