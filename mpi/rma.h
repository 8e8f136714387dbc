/*
 * rma.h — one-sided communication (MPI 3.1, chapter 11): the window and
 * what its files share.
 *
 *   win.c          keyvals, error handlers, attributes, names, info, group
 *   win_create.c   the four flavours, Win_free, attach/detach, shared_query
 *   win_shm.c      the host's shared segment of a window (POSIX shm_open)
 *   rma_ops.c      Put, Get, the accumulates and their R-variants (origin)
 *   rma_apply.c    typed copies and reductions into window memory
 *   rma_target.c   the target side: messages for the windows, applied
 *   rma_sync.c     fence, post/start/complete/wait, lock/unlock, flush
 *   rma_agent.c    the thread that serves passive targets while the
 *                  program computes
 *   rma_cma.c      a sibling's memory through the kernel
 *   rma_mail.c     ... or by the sibling itself, from its box, while it polls
 *
 * Two paths to a target's memory. Ranks of one host that mapped the
 * window's shared segment (Win_allocate, Win_allocate_shared) load and store
 * each other's memory directly; locks and the accumulate lock are atomics in
 * each rank's control block in that segment. Memory the program gave
 * (Win_create, Win_create_dynamic) on a rank of the same host is read and
 * written by that rank from its box while it polls (rma_mail.c), else
 * through the kernel (rma_cma.c), the control blocks and a dynamic
 * window's tables of attached memory in a segment as above. Every other
 * target (another host, or a kernel that refuses cross-process copies) gets
 * its operations as the runtime's messages on the window's own communicator,
 * applied by the target's progress: any call it makes, or the agent thread
 * while it makes none. The target's lock state is its control block in both
 * cases, so both kinds of origins can share one window.
 */
#ifndef BOLT_MPI_RMA_H
#define BOLT_MPI_RMA_H

#include <stdatomic.h>
#include <stdint.h>

#include "mpi/face.h"
#include "transport/shm/shm_cma.h"

#pragma GCC visibility push(hidden)

/* Tags on the window's communicator. Replies use RMA_TAG_REPLY + a
 * sequence number chosen by the origin. */
enum { RMA_TAG_HDR = 1, RMA_TAG_DATA, RMA_TAG_POST, RMA_TAG_COMPLETE, RMA_TAG_REPLY = 16 };
#define RMA_REPLY_SPAN 0x3fff0000
/* What a header message holds at most: the header, the target's layout and
 * the data inline; longer ones send the rest as one RMA_TAG_DATA message. */
#define RMA_HDR_BUF 8192

/* Per rank of a window, in the shared segment when the host has one. */
struct rma_ctrl {
    _Atomic long lock; /* >0: shared holders; -1: exclusive */
    atomic_int acc;    /* accumulates and their reads, one at a time */
    char pad[64 - sizeof(long) - sizeof(int)];
};

/* A target's layout: count elements of extent bytes, each nblocks pieces
 * (off from the element's start, len bytes); nblocks 0 means contiguous
 * count * extent bytes (extent then is the element's size). */
struct rma_block {
    int64_t off, len;
};
struct rma_layout {
    int64_t count, extent;
    int32_t nblocks;
    const struct rma_block *blocks;
};

enum rma_kind {
    RMA_PUT = 1, RMA_GET, RMA_ACC, RMA_GACC, RMA_CAS, RMA_LOCK, RMA_UNLOCK, RMA_FLUSH
};

/* What an origin sends to a target's RMA_TAG_HDR. */
struct rma_hdr {
    uint8_t kind;
    uint8_t rest_follows; /* blocks and data come as an RMA_TAG_DATA message */
    int16_t op;           /* MPI_Op for accumulates (predefined, REPLACE, NO_OP) */
    int32_t basic;        /* predefined MPI_Datatype of the elements (accumulates) */
    int32_t lock_type;
    uint32_t reply_tag;   /* RMA_TAG_REPLY + seq, 0: no reply */
    uint64_t disp;        /* bytes from the window's base (dynamic: an address) */
    uint64_t bytes;       /* data bytes (PUT/ACC/GACC: sent; GET: wanted) */
    int64_t count, extent;
    int32_t nblocks, pad;
};

/* A dynamic window's attached memory, in the host's segment for its
 * siblings to check an address against before they reach it through the
 * kernel: the first RMA_DYN_REGIONS attachments; `beyond` counts the ones
 * that did not fit (an address outside the table then goes unchecked, as
 * the kernel still refuses memory the target has not mapped). Written by
 * its rank only, as a sequence lock: gen is odd while it changes. */
#define RMA_DYN_REGIONS 127
struct rma_dyn_table {
    atomic_uint gen;
    int32_t n, beyond;
    int32_t pad;
    struct {
        uint64_t base, size;
    } r[RMA_DYN_REGIONS];
};

struct rma_lockreq {
    int origin, type;
    uint32_t reply_tag;
    struct rma_lockreq *next;
};

/* A target-side operation whose data is still on its way or whose reply is
 * still being sent: its buffers go when its request completes. */
struct rma_inflight {
    bolt_request_t req;
    int origin;
    int counts;          /* an operation from origin: applied once done */
    void *buf;           /* freed at completion */
    struct rma_hdr hdr;  /* applied at completion when apply is set */
    int apply;
    struct rma_inflight *next;
};

/* An origin-side operation not complete yet: a send whose buffer goes, or a
 * reply to receive (then unpacked into the user's buffer when plan is set). */
struct rma_pending {
    bolt_request_t req;
    int target;
    void *tmp;
    /* unpack tmp into user, count of type (held), at completion */
    void *user;
    int count;
    MPI_Datatype type;
    struct rma_pending *next;
};

/* A rank's box for Puts and Gets its siblings hand it to apply while it
 * polls (rma_mail.c), in a Win_create/Win_create_dynamic window's host
 * segment: a state word, the count of pieces, the pieces (address in the
 * target, length, direction) and their data back to back, so that a small
 * Put or Get and its answer share the state's cache line. */
enum { RMA_MAIL_ITEMS = 64, RMA_MAIL_DATA = 8192, RMA_MAIL_ATOMIC_MAX = 8192 };
/* Items of a shared large move (rma_mail_share): the target itself reads
 * (PULL: a Put's tail) or writes (PUSH: a Get's tail) the origin's memory
 * through the kernel; the item's data is a struct rma_mail_far. */
enum { RMA_MAIL_PULL = 64, RMA_MAIL_PUSH };
struct rma_mail_far {
    uint64_t local; /* the origin's address */
    int64_t origin; /* its rank in the window */
};
struct rma_mail_item {
    uint64_t addr;
    uint32_t len;
    uint8_t kind;  /* RMA_PUT, RMA_GET, RMA_ACC, RMA_GACC, RMA_CAS, RMA_MAIL_PULL, _PUSH */
    uint8_t pad;
    int16_t op;    /* accumulates: the MPI_Op */
    int32_t basic; /* accumulates: the predefined type of the elements */
    int32_t rc;    /* the target's answer: MPI_SUCCESS or an MPI class */
};
struct rma_mail {
    atomic_uint state;
    int32_t n;
    atomic_uint moving; /* its rank is moving data of its own (rma_mail_share) */
    int32_t pad;
    char body[RMA_MAIL_ITEMS * sizeof(struct rma_mail_item) + RMA_MAIL_DATA + 56];
};

struct win_peer {
    char *base;            /* direct: mapped here; else its address there */
    MPI_Aint size;
    int disp_unit;
    int host;
    struct rma_ctrl *ctrl; /* mapped (same host, shared segment), else NULL */
    struct rma_dyn_table *dyn; /* dynamic window, same host: its attachments */
    int direct;
    int cma;               /* same host, memory read and written by the kernel */
    long pid;
    struct rma_mail *mail;  /* its box (cma siblings and this rank), else NULL */
    /* origin side */
    unsigned mail_skip, mail_backoff; /* drains to go without the box after a miss */
    uint64_t sent;         /* operation messages sent to it (monotonic) */
    int lock;              /* held on it: 0, MPI_LOCK_SHARED/EXCLUSIVE */
    int nocheck;           /* ... taken with MPI_MODE_NOCHECK: nothing to release */
    uint64_t flushed;      /* sent when it was last flushed */
    uint64_t replied;      /* sent when the last one answered (get, fetch) was sent */
    /* target side */
    uint64_t applied;      /* its operation messages applied here */
    int busy;              /* its operations with data still arriving */
    uint32_t owed_tag;     /* a flush/unlock reply waiting for busy == 0 */
    int owed_unlock;
};

/* Whether operations sent to a target (by messages) may still be unapplied
 * there once every answer this rank waits for has come: the target applies
 * one origin's operations in order, so the answer to the last one sent (a
 * get's data, a fetch's old values) says that all before it are applied,
 * and a flush needs no round trip of its own. */
static inline int rma_unflushed(const struct win_peer *p)
{
    return p->sent != p->flushed && p->sent != p->replied;
}

struct win_region {
    char *base;
    MPI_Aint size;
    struct win_region *next;
};

enum { EPOCH_NONE = 0, EPOCH_FENCE = 1, EPOCH_LOCK = 2, EPOCH_LOCK_ALL = 4, EPOCH_ACCESS = 8,
       EPOCH_EXPOSE = 16 };

/* [lo, hi) lies within [base, base + size). */
static inline int rma_within(uint64_t lo, uint64_t hi, uint64_t base, uint64_t size)
{
    return lo >= base && hi <= base + size;
}

/* Puts and Gets through the kernel waiting for the epoch's next
 * synchronisation (rma_cma.c); a Put's data up to RMA_CMA_PUT_COPY copied
 * into staged, a larger one's read from the program's buffer then. */
enum { RMA_CMA_QUEUE = 64, RMA_CMA_STAGE = 64 * 1024, RMA_CMA_PUT_COPY = 8192 };
struct rma_cma_queue {
    int n;
    size_t staged_bytes;
    char *staged; /* RMA_CMA_STAGE bytes, from the first queued Put */
    struct shm_cma_piece piece[RMA_CMA_QUEUE];
    int target[RMA_CMA_QUEUE];
    char write[RMA_CMA_QUEUE];
};

struct face_win {
    int live;
    MPI_Win handle;
    MPI_Comm comm;         /* a duplicate of the program's (face handle) */
    bolt_comm_t native;    /* comm's native: every message of the window */
    int rank, size;
    int flavor, model;
    void *base;
    MPI_Aint size_bytes;
    int disp_unit;
    struct win_peer *peers;
    struct rma_ctrl *ctrl; /* mine */
    struct rma_ctrl own_ctrl; /* when no segment */
    void *seg;             /* the host's shared segment, mapped */
    size_t seg_bytes;
    int remote_peers;      /* peers reached by messages: the target side runs */
    int any_remote;        /* some rank of the window has such peers */
    MPI_Errhandler errh;
    char name[MPI_MAX_OBJECT_NAME];
    struct face_attr *attrs;
    MPI_Info info;
    int shared_noncontig;
    int mail_on;           /* this rank serves its box (rma_mail.c) */
    double mail_wait;      /* seconds an origin waits for a box to be taken */
    struct win_region *regions; /* dynamic: attached memory */
    /* epochs */
    int epoch;
    int *access, naccess;  /* PSCW access group (window ranks) */
    int *expose, nexpose;  /* PSCW exposure group */
    int lock_all_nocheck;
    /* origin side */
    uint32_t seq;
    struct rma_pending *pending;
    struct rma_cma_queue cmaq;
    char *scratch;         /* rma_scratch's, kept for the window's life */
    size_t scratch_bytes;
    /* target side */
    bolt_request_t hdr_req;
    char *hdr_buf;
    /* A receive of the target side failed (a peer gone): not posted again;
     * raised on the handler at once, or after a grace for a dead peer. */
    int serve_lost;        /* 0, 1 waiting to be raised, 2 raised */
    int serve_err;         /* its native error, and what the runtime said */
    double serve_lost_at;
    char *serve_msg;
    struct rma_inflight *inflight;
    struct rma_lockreq *lockq;
    uint64_t *fence_counts; /* scratch: 2 * size entries */
    uint64_t *wait_counts;  /* PSCW: what each exposure origin said it sent, +1; 0 not yet */
};

/* This rank's attachment of a dynamic window holding [lo, hi), or NULL. */
static inline struct win_region *rma_region_of(const struct face_win *w, uint64_t lo,
                                               uint64_t hi)
{
    struct win_region *r = w->regions;
    while (r && !rma_within(lo, hi, (uint64_t)(uintptr_t)r->base, (uint64_t)r->size))
        r = r->next;
    return r;
}

/* ---- windows (win_create.c) ----------------------------------------------------------- */
extern struct face_win **face_wins;
extern int face_nwins;
static inline struct face_win *face_win_get(MPI_Win w)
{
    struct face_win *p = w > 0 && w < face_nwins ? face_wins[w] : NULL;
    return p && p->live ? p : NULL;
}
/* Checks a window handle (MPI_ERR_WIN on the world's handler when bad). */
int face_win_check(MPI_Win w, const char *fn, struct face_win **out);
/* Raises an error on the window's handler. */
int face_win_error(struct face_win *w, const char *fn, int cls, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int face_win_native_error(struct face_win *w, const char *fn, int native);
void face_wins_finalize(void);

/* ---- the host's segment (win_shm.c) ----------------------------------------------- */
/* Creates (create: 1) or maps an existing segment named by (pid, seq). */
int rma_seg_map(int create, long pid, unsigned seq, size_t bytes, void **out);
void rma_seg_unlink(long pid, unsigned seq);
void rma_seg_unmap(void *p, size_t bytes);

/* ---- a sibling's memory through the kernel (rma_cma.c) ------------------------------ */
/* 1 when this build can (Linux). */
int rma_cma_built(void);
/* Reads (write 0) or writes the layout at remote address base of process pid
 * from or into packed local data. Returns 0 or an errno value. */
int rma_cma_move(long pid, const struct rma_layout *l, uint64_t base, char *packed, int write);
/* Queues a contiguous Put (write 1: up to RMA_CMA_PUT_COPY bytes at local
 * copied, so a program that reuses its buffer at once, as the standard does
 * not allow but loops over a variable do, still puts what it gave; more are
 * read from local at the next synchronisation, as the standard allows) or
 * Get (into local, at the next synchronisation) of len bytes at raddr in
 * target's memory, moving
 * what was queued first when the queue is full; drain moves everything
 * queued, in order. Both return 0, ENOMEM, or an errno value with *failed
 * set to the target that could not be reached (the rest of the queue is
 * dropped then: the job is ending). Free releases the staging buffer. */
int rma_cma_queue(struct face_win *w, int target, void *local, uint64_t raddr, size_t len,
                  int write, int *failed);
int rma_cma_drain(struct face_win *w, int *failed);
void rma_cma_free(struct face_win *w);
/* A buffer of at least n bytes kept with the window (the last one asked
 * for may move), or NULL: a large operation's copy through the kernel
 * reuses its pages instead of faulting fresh ones in per call. */
char *rma_scratch(struct face_win *w, size_t n);

/* ---- a sibling's window served by the sibling (rma_mail.c) -------------------------- */
/* Serving this rank's box from the progress hook: start when the window
 * has one, stop before it goes. */
int rma_mail_start(struct face_win *w);
void rma_mail_stop(struct face_win *w);
/* Hands n queued pieces (at most RMA_MAIL_ITEMS, RMA_MAIL_DATA bytes in all)
 * to target's box and waits for it to apply them: 1 when it did (a Get's
 * bytes are in place then), 0 when the kernel must move them (box busy,
 * not taken within w->mail_wait, or refused). */
int rma_mail_try(struct face_win *w, int target, const struct shm_cma_piece *p,
                 const char *write, int n);
/* Moves n pieces (at most RMA_MAIL_ITEMS) of Puts (write 1) or Gets between
 * this rank and a sibling through the kernel; from RMA_SPLIT_MIN bytes in
 * all the target moves the second half itself (through the kernel too, at
 * the same time) when it takes it from its box before the origin has moved
 * the first: two cores copy. Returns 0 or an errno value of the kernel. */
int rma_mail_share(struct face_win *w, int target, const struct shm_cma_piece *p, int n,
                   int write);
/* From this many bytes a move is worth sharing: below, the target's own
 * call into the kernel and the handshake cost about what half the copy
 * saves (OSU, 2 ranks, one Put and a flush, us: 32 KiB 4.15 alone, 4.40
 * shared; 64 KiB 5.45, 5.22; 128 KiB 7.3, 6.6; 256 KiB 11.7, 8.8). */
enum { RMA_SPLIT_MIN = 256 * 1024 };
/* One accumulate (kind RMA_ACC, RMA_GACC, RMA_CAS) of bytes (at most
 * RMA_MAIL_ATOMIC_MAX) at addr in target's memory, contiguous there, applied
 * by the target under its accumulate lock: src the packed operand (CAS: the
 * new value), compare CAS's, old (GACC, CAS) receives what was there. 1 when
 * applied (*rc then says MPI_SUCCESS or the class of what was wrong), 0 when
 * the kernel path must do it. */
int rma_mail_atomic(struct face_win *w, int target, int kind, uint64_t addr, size_t bytes,
                    MPI_Op op, MPI_Datatype basic, const char *src, const char *compare, char *old,
                    int *rc);
/* Runs of queued Puts and Gets, and accumulates, to siblings: applied by
 * the target from its box, moved through the kernel (MPI_T:
 * bolt_rma_box_moves, _kernel_moves); windows whose box this process
 * serves (bolt_rma_boxes). */
extern uint64_t rma_box_moves, rma_kernel_moves;
int rma_mail_serving(void);

/* ---- typed copies into and out of window memory (rma_apply.c) --------------------- */
/* A layout of count elements of type t: contiguous data in *one, else
 * blocks malloc'd into *blocks (free it). */
int rma_layout_of(const struct face_type *t, int count, struct rma_layout *l,
                  struct rma_block *one, struct rma_block **blocks);
int64_t rma_layout_bytes(const struct rma_layout *l);
/* The furthest byte the layout touches, from its start (its span). */
int64_t rma_layout_span(const struct rma_layout *l, int64_t *lowest);
/* Packs the layout at base into dst / unpacks src into it. */
void rma_layout_pack(const struct rma_layout *l, const char *base, char *dst);
void rma_layout_unpack(const struct rma_layout *l, const char *src, char *base);
/* Accumulates packed src (bytes of basic elements) into the layout at base
 * with op (REPLACE and NO_OP too); when old is set, first packs what was
 * there into it (Get_accumulate). Returns MPI_SUCCESS or an MPI class. */
int rma_layout_acc(const struct rma_layout *l, char *base, const char *src, MPI_Datatype basic,
                   MPI_Op op, char *old);
/* The most bytes rma_acc_few takes (and the atomic fast path with it). */
#define RMA_ACC_FEW_MAX 32
/* Accumulates up to RMA_ACC_FEW_MAX bytes of a common predefined C type in place
 * (len bytes of src into at) without the general reduction's dispatch;
 * 0 when the type or op is not one it does (nothing touched then). */
int rma_acc_few(MPI_Datatype basic, MPI_Op op, const char *src, char *at, size_t len);
/* Compare_and_swap's body: old = *at; *at = value where old equals compare.
 * Returns 1 when it swapped. Under the accumulate lock. */
int rma_cas(char *at, const char *value, const char *compare, char *old, size_t n);
/* The accumulate lock of a control block. */
void rma_acc_lock(struct rma_ctrl *c);
void rma_acc_unlock(struct rma_ctrl *c);

/* ---- the target side (rma_target.c) ------------------------------------------------ */
/* Starts serving the window's messages (its header receive) and the
 * progress hook; stop cancels it. */
int rma_target_start(struct face_win *w);
void rma_target_stop(struct face_win *w);
/* Tries to take a lock of type on the control block. */
int rma_lock_try(struct rma_ctrl *c, int type);
void rma_lock_release(struct rma_ctrl *c, int type);
/* Grants queued lock requests that can go now. */
void rma_target_grant(struct face_win *w);

/* ---- the origin side (rma_ops.c) --------------------------------------------------- */
/* A fresh reply tag. */
uint32_t rma_reply_tag(struct face_win *w);
/* Waits for the window's pending operations to target (-1: every one). */
int rma_pending_wait(struct face_win *w, int target, const char *fn);

/* ---- the agent (rma_agent.c) ------------------------------------------------------------ */
/* A window with targets reached by messages needs passive-target progress:
 * the first starts the agent thread (and the runtime lock), the last stops it. */
int rma_agent_hold(void);
void rma_agent_release(void);
/* Ends the call that started the agent: gives back the lock it took. */
void rma_agent_settle(void);

#pragma GCC visibility pop

#endif
