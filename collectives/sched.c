/*
 * sched.c — collective schedules: rounds of point-to-point messages on the
 * communicator's internal context (ctx + 1) and local steps between them.
 *
 * Tags: every collective on a communicator takes the next sequence number,
 * so the messages of two collectives in flight at once (nonblocking ones, or
 * a blocking one while a nonblocking one runs) never match each other's
 * receives. Tags below COLL_TAG_BASE belong to split/dup.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/coll.h"
#include "runtime/errors.h"
#include "runtime/progress.h"
#include "runtime/proto.h"
#include "runtime/memcopy.h"

#define COLL_TAG_BASE 16
#define COLL_TAG_SPAN 0x3fffff00u

enum step_kind { STEP_SEND, STEP_RECV, STEP_FOLD, STEP_REDUCE, STEP_COPY, STEP_ROUND };

/* A receive reduced as it arrives (coll_sched_recv_reduce). */
struct coll_fold {
    const char *own;
    char *out;
    size_t esize;
    bolt_datatype_t dt;
    bolt_op_t op;
    int own_first;
    coll_kernel3_fn *k3; /* out = a op b in one pass, when out is not own */
};

struct step {
    enum step_kind kind;
    const void *src; /* send, reduce (in), copy */
    void *dst;       /* recv, reduce (inout), copy; fold: where it lands unfolded */
    struct coll_fold *fold;
    size_t n;        /* bytes (send, recv, copy) or elements (reduce) */
    int peer;
    bolt_datatype_t dt;
    bolt_op_t op;
};

/* Small collectives, the ones whose time is mostly overhead, run without
 * touching the heap: the steps, requests and scratch memory of a schedule
 * start inline, and a finished blocking schedule is kept for the next one. */
#define INLINE_STEPS 16
#define INLINE_REQS 8
#define INLINE_TMP 1024
#define LAZY_MAX 8

struct coll_sched {
    struct bolt_comm *comm;
    const char *fn, *algo; /* static strings: "fn (algo)" in errors */
    int tag;
    int err; /* sticky build error */
    struct step *steps;
    int nsteps, cap;
    void **tmp; /* scratch blocks from the heap */
    int ntmp;
    size_t tmp_used; /* bytes of tmp_inline handed out */
    /* execution */
    int pos;                   /* first step of the next round */
    struct bolt_request **reqs; /* in flight in the current round */
    int *req_step;
    int nreqs, maxreqs;
    int leak_tmp; /* requests abandoned after a failure may still touch tmp */
    int direct;   /* blocking: each step runs as it is added (see direct_recv) */
    unsigned send_flags; /* bolt_proto_isend's */
    /* direct: small receives of this round waited for without a request
     * (step positions; -1 once taken or posted), at most one per peer */
    int lazy[LAZY_MAX];
    int nlazy;
    int lazy_err;
    /* Not cleared by coll_sched_new: */
    char msg[512]; /* the failure; msg[0] set to 0 */
    struct step steps_inline[INLINE_STEPS];
    struct bolt_request *reqs_inline[INLINE_REQS];
    int req_step_inline[INLINE_REQS];
    _Alignas(max_align_t) unsigned char tmp_inline[INLINE_TMP];
};

static struct coll_sched *spare; /* calls are serialized (the runtime lock under MPI_THREAD_MULTIPLE) */

struct coll_sched *coll_sched_new(struct bolt_comm *comm, const char *fn, const char *algo,
                                  int flags)
{
    struct coll_sched *s = coll_sched_resume(comm, fn, algo, flags, coll_tag_next(comm));
    if (s)
        comm->coll_seq++;
    return s;
}

struct coll_sched *coll_sched_resume(struct bolt_comm *comm, const char *fn, const char *algo, int flags, int tag)
{
    struct coll_sched *s = spare;
    if (s)
        spare = NULL;
    else if (!(s = malloc(sizeof *s)))
        return NULL;
    memset(s, 0, offsetof(struct coll_sched, msg));
    s->msg[0] = 0;
    s->comm = comm;
    s->fn = fn;
    s->algo = algo;
    s->steps = s->steps_inline;
    s->cap = INLINE_STEPS;
    s->reqs = s->reqs_inline;
    s->req_step = s->req_step_inline;
    s->maxreqs = INLINE_REQS;
    s->tag = tag;
    s->direct = (flags & COLL_BLOCKING) != 0;
    /* a nonblocking collective's caller computes meanwhile: like a rank of
     * an exchange, it is busy, so its receivers copy what it sends */
    s->send_flags = flags & COLL_EXCHANGE    ? BOLT_PROTO_SENDER_BUSY
                    : flags & COLL_BLOCKING  ? BOLT_PROTO_WAITS
                                             : BOLT_PROTO_SENDER_BUSY;
    if ((flags & COLL_FAN_OUT) && (flags & COLL_BLOCKING))
        s->send_flags |= BOLT_PROTO_FAN_OUT;
    return s;
}

void coll_sched_free(struct coll_sched *s)
{
    if (!s)
        return;
    if (s->leak_tmp)
        return; /* the inline scratch memory is in s itself */
    for (int i = 0; i < s->ntmp; i++)
        coll_scratch_put(s->tmp[i]);
    free(s->tmp);
    if (s->steps != s->steps_inline)
        free(s->steps);
    if (s->reqs != s->reqs_inline) {
        free(s->reqs);
        free(s->req_step);
    }
    if (!spare)
        spare = s;
    else
        free(s);
}

int coll_sched_error(const struct coll_sched *s)
{
    return s->err;
}

void coll_sched_fail(struct coll_sched *s, int err)
{
    if (!s->err)
        s->err = err;
}

struct bolt_comm *coll_sched_comm(const struct coll_sched *s)
{
    return s->comm;
}

static struct step *add(struct coll_sched *s, enum step_kind kind)
{
    if (s->err)
        return NULL;
    if (s->nsteps == s->cap) {
        int cap = s->cap * 2;
        struct step *t = s->steps == s->steps_inline ? malloc((size_t)cap * sizeof *t)
                                                     : realloc(s->steps, (size_t)cap * sizeof *t);
        if (!t) {
            s->err = BOLT_ERR_NOMEM;
            return NULL;
        }
        if (s->steps == s->steps_inline)
            memcpy(t, s->steps_inline, sizeof s->steps_inline);
        s->steps = t;
        s->cap = cap;
    }
    struct step *st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof *st);
    st->kind = kind;
    return st;
}

/* A blocking schedule (direct) runs each step as it is added (see
 * direct_recv); only the steps a request or a lazy receive refers to are
 * recorded: a send that left at once, a receive that was there, a local step
 * need no record. */
static int direct(const struct coll_sched *s)
{
    return s->direct && !s->err;
}

static void direct_post(struct coll_sched *s, int pos);
static void direct_recv(struct coll_sched *s, enum step_kind kind, void *dst, size_t n, int peer,
                        const struct coll_fold *fold);

void coll_sched_send(struct coll_sched *s, const void *buf, size_t bytes, int peer)
{
    /* Gone already (small, nothing queued to that peer): no request to wait
     * on. It cannot overtake an earlier frame to the same peer. */
    if (direct(s) && coll_send_now(s->comm, buf, bytes, peer, s->tag))
        return;
    struct step *st = add(s, STEP_SEND);
    if (st) {
        st->src = buf;
        st->n = bytes;
        st->peer = peer;
        if (s->direct)
            direct_post(s, s->nsteps - 1);
    }
}

void coll_sched_send_many(struct coll_sched *s, const void *buf, size_t bytes, const int *peers,
                          int n)
{
    /* Blocking and nothing failed yet: gone at once, to all, with one copy
     * of buf where the transport shares one; else one send each. */
    if (s->direct && !s->err &&
        bolt_proto_send_many_now(buf, bytes, peers, n, s->tag, s->comm, s->comm->ctx + 1))
        return;
    for (int i = 0; i < n; i++)
        coll_sched_send(s, buf, bytes, peers[i]);
}

void coll_sched_recv(struct coll_sched *s, void *buf, size_t bytes, int peer)
{
    if (direct(s)) {
        direct_recv(s, STEP_RECV, buf, bytes, peer, NULL);
        return;
    }
    struct step *st = add(s, STEP_RECV);
    if (st) {
        st->dst = buf;
        st->n = bytes;
        st->peer = peer;
    }
}

/* Consumes a piece of a fold receive: out = own op piece (own_first) or
 * piece op own, in the order the reduction asks for. */
#define FOLD_BLOCK (8 * 1024)
static void fold_piece(void *arg, size_t off, void *vdata, size_t len)
{
    struct coll_fold *f = arg;
    char *data = vdata;
    if (f->k3) {
        const void *a = f->own_first ? f->own + off : data, *b = f->own_first ? data : f->own + off;
        f->k3(a, b, f->out + off, len / f->esize);
        return;
    }
    /* In blocks that stay in L1 between the reduction and the copy. */
    size_t block = FOLD_BLOCK >= f->esize ? FOLD_BLOCK - FOLD_BLOCK % f->esize : f->esize;
    for (size_t at = 0; at < len; at += block) {
        size_t n = len - at < block ? len - at : block, o = off + at;
        if (f->own_first) {
            coll_reduce(f->own + o, data + at, n / f->esize, f->dt, f->op);
            memcpy(f->out + o, data + at, n);
        } else {
            memmove(f->out + o, f->own + o, n);
            coll_reduce(data + at, f->out + o, n / f->esize, f->dt, f->op);
        }
    }
}

void coll_sched_recv_reduce(struct coll_sched *s, void *tmp, const void *own, void *out,
                            size_t count, bolt_datatype_t dt, bolt_op_t op, int own_first,
                            int peer)
{
    struct coll_fold fold = {own, out, bolt_type_size(dt), dt, op, own_first,
                             own == out ? NULL : coll_kernel3(op, dt)};
    if (direct(s)) {
        direct_recv(s, STEP_FOLD, tmp, count * fold.esize, peer, &fold);
        return;
    }
    struct coll_fold *f = coll_sched_tmp(s, sizeof *f);
    struct step *st = f ? add(s, STEP_FOLD) : NULL;
    if (st) {
        *f = fold;
        st->dst = tmp;
        st->n = count * f->esize;
        st->peer = peer;
        st->fold = f;
    }
}

void coll_sched_reduce(struct coll_sched *s, const void *in, void *inout, size_t count,
                       bolt_datatype_t dt, bolt_op_t op)
{
    if (direct(s)) {
        if (count)
            coll_reduce(in, inout, count, dt, op);
        return;
    }
    struct step *st = count ? add(s, STEP_REDUCE) : NULL;
    if (st) {
        st->src = in;
        st->dst = inout;
        st->n = count;
        st->dt = dt;
        st->op = op;
    }
}

void coll_sched_copy(struct coll_sched *s, void *dst, const void *src, size_t bytes)
{
    if (direct(s)) {
        if (bytes && dst != src)
            bolt_mem_move(dst, src, bytes);
        return;
    }
    struct step *st = bytes && dst != src ? add(s, STEP_COPY) : NULL;
    if (st) {
        st->dst = dst;
        st->src = src;
        st->n = bytes;
    }
}

static void direct_wait(struct coll_sched *s);

void coll_sched_round(struct coll_sched *s)
{
    if (s->direct) {
        if (!s->err && (s->nreqs || s->nlazy))
            direct_wait(s);
        return;
    }
    if (s->nsteps && s->steps[s->nsteps - 1].kind != STEP_ROUND)
        add(s, STEP_ROUND);
}

void *coll_sched_tmp(struct coll_sched *s, size_t bytes)
{
    if (s->err)
        return NULL;
    size_t a = _Alignof(max_align_t), rounded = (bytes + a - 1) / a * a;
    if (rounded <= INLINE_TMP - s->tmp_used) {
        void *p = s->tmp_inline + s->tmp_used;
        s->tmp_used += rounded ? rounded : a;
        return p;
    }
    void **t = realloc(s->tmp, (size_t)(s->ntmp + 1) * sizeof *t);
    void *p = coll_scratch_get(bytes);
    if (!t || !p) {
        coll_scratch_put(p);
        if (t)
            s->tmp = t;
        s->err = BOLT_ERR_NOMEM;
        return NULL;
    }
    s->tmp = t;
    s->tmp[s->ntmp++] = p;
    return p;
}

/* ---- execution ---------------------------------------------------------- */

/* The message without the "rank R on host: " identity bolt_err_set adds. */
static const char *detail_of(const char *msg)
{
    const char *p = strstr(msg, ": ");
    return strncmp(msg, "rank ", 5) == 0 && p ? p + 2 : msg;
}

/* "bolt_allreduce (ring)": formatted only when something failed. */
static const char *name_of(const struct coll_sched *s, char *buf, size_t cap)
{
    if (!s->algo)
        return s->fn;
    snprintf(buf, cap, "%s (%s)", s->fn, s->algo);
    return buf;
}

/* Records the failure in the schedule (a nonblocking one reports it later). */
static int fail(struct coll_sched *s, int err, const char *detail)
{
    char name[120];
    bolt_err_set(err, "%s: %s", name_of(s, name, sizeof name), detail);
    snprintf(s->msg, sizeof s->msg, "%s", detail_of(bolt_error_message()));
    return err;
}

static int grow_reqs(struct coll_sched *s)
{
    int m = s->maxreqs * 2, inl = s->reqs == s->reqs_inline;
    struct bolt_request **t = inl ? malloc((size_t)m * sizeof *t)
                                  : realloc(s->reqs, (size_t)m * sizeof *t);
    if (t && inl)
        memcpy(t, s->reqs_inline, sizeof s->reqs_inline);
    if (t)
        s->reqs = t;
    int *ts = !t ? NULL : inl ? malloc((size_t)m * sizeof *ts)
                              : realloc(s->req_step, (size_t)m * sizeof *ts);
    if (!ts) {
        if (t && inl) { /* keep both arrays inline, or both on the heap */
            free(t);
            s->reqs = s->reqs_inline;
        }
        return fail(s, BOLT_ERR_NOMEM, "out of memory");
    }
    if (inl)
        memcpy(ts, s->req_step_inline, sizeof s->req_step_inline);
    s->req_step = ts;
    s->maxreqs = m;
    return BOLT_OK;
}

/* Runs a local step (reduce, copy). */
static void run_local(const struct step *st)
{
    if (st->kind == STEP_REDUCE)
        coll_reduce(st->src, st->dst, st->n, st->dt, st->op);
    else
        bolt_mem_move(st->dst, st->src, st->n);
}

/* Posts the send or receive of step pos into the round's requests. */
static int post_step(struct coll_sched *s, int pos)
{
    const struct step *st = &s->steps[pos];
    struct bolt_request *r = NULL;
    int rc;
    if (s->nreqs == s->maxreqs && (rc = grow_reqs(s)))
        return rc;
    if (st->kind == STEP_SEND)
        rc = bolt_proto_isend(st->src, st->n, st->peer, s->tag, s->comm, s->comm->ctx + 1,
                              s->send_flags, &r);
    else if (st->kind == STEP_FOLD)
        rc = bolt_proto_irecv_fold(st->dst, st->n, st->fold->esize, fold_piece, st->fold, st->peer,
                                   s->tag, s->comm, s->comm->ctx + 1, &r);
    else
        rc = bolt_proto_irecv(st->dst, st->n, st->peer, s->tag, s->comm, s->comm->ctx + 1, &r);
    if (rc) {
        char d[400];
        snprintf(d, sizeof d, "%s", detail_of(bolt_error_message()));
        return fail(s, rc, d);
    }
    s->reqs[s->nreqs] = r;
    s->req_step[s->nreqs++] = pos;
    return BOLT_OK;
}

/* Posts the steps of the next round. */
static int post_round(struct coll_sched *s)
{
    int rc = BOLT_OK;
    s->nreqs = 0;
    for (; s->pos < s->nsteps && !rc; s->pos++) {
        struct step *st = &s->steps[s->pos];
        if (st->kind == STEP_ROUND) {
            if (s->nreqs) {
                s->pos++;
                break;
            }
            continue; /* nothing in flight: go on with the next round at once */
        }
        if (st->kind == STEP_REDUCE || st->kind == STEP_COPY)
            run_local(st);
        else
            rc = post_step(s, s->pos);
    }
    return rc;
}

/* After a failure: receives nobody matched are cancelled; requests still
 * in flight are abandoned (freed when they complete), and the scratch memory
 * they may still touch is never freed. */
static void abandon(struct coll_sched *s)
{
    for (int i = 0; i < s->nreqs; i++) {
        struct bolt_request *r = s->reqs[i];
        if (!r)
            continue;
        if (!r->done)
            bolt_proto_cancel(r);
        if (r->done) {
            bolt_req_release(r);
        } else {
            r->user_freed = 1;
            s->leak_tmp = 1;
        }
        s->reqs[i] = NULL;
    }
    s->nreqs = 0;
    s->nlazy = 0; /* their messages, if they come, stay unexpected */
}

/* Checks a completed request of the round; frees it. */
static int reap(struct coll_sched *s, int i)
{
    struct bolt_request *r = s->reqs[i];
    struct step *st = &s->steps[s->req_step[i]];
    bolt_status_t status;
    s->reqs[i] = NULL;
    int rc = bolt_wait(&r, &status); /* done already: sets the message on failure */
    if (rc == BOLT_ERR_TRUNCATE || (!rc && st->kind != STEP_SEND && status.bytes != st->n)) {
        char d[300];
        snprintf(d, sizeof d,
                 "rank %d sent %s bytes than this rank expects (%zu): the ranks passed "
                 "different counts or datatypes",
                 st->peer, rc ? "more" : "fewer", st->n);
        return fail(s, BOLT_ERR_ARG, d);
    }
    if (rc) {
        char d[400];
        snprintf(d, sizeof d, "%s", detail_of(bolt_error_message()));
        return fail(s, rc, d);
    }
    return BOLT_OK;
}

/* ---- direct execution (blocking calls) ----------------------------------- */

/* A blocking collective does not need its schedule replayed: each step runs
 * as the algorithm adds it (sends and receives posted at once, local steps
 * run, a round's end waits for its requests), in the very order the replay
 * would take, without recording rounds and walking them again. */
/* A receive whose eager message has arrived (in the unexpected queue, or
 * next in the transport) is taken without a request. A small one not there
 * yet is waited for the same way, at the round's end (a lazy receive):
 * posting a request, waiting on it and reaping it cost more than copying a
 * small message out, and with more ranks than cores every instruction of a
 * rank delays the others. */
#define LAZY_BYTES_MAX 1024

/* Posts lazy receive i: a request will get the message (or the error). */
static void lazy_post(struct coll_sched *s, int i)
{
    int pos = s->lazy[i];
    s->lazy[i] = -1;
    int rc = post_step(s, pos);
    if (rc && !s->lazy_err)
        s->lazy_err = rc;
}

/* Takes the lazy receives whose message came; posts those that need a
 * request after all (a large or mismatched message, a peer gone). 1 when
 * none is left. */
static int lazy_done(struct coll_sched *s)
{
    int left = 0;
    for (int i = 0; i < s->nlazy; i++) {
        if (s->lazy[i] < 0)
            continue;
        const struct step *st = &s->steps[s->lazy[i]];
        int r = coll_recv_now(s->comm, st->dst, st->n, st->peer, s->tag);
        if (r > 0)
            s->lazy[i] = -1;
        else if (r < 0)
            lazy_post(s, i);
        else
            left = 1;
    }
    return !left;
}

static int round_done(void *arg)
{
    struct coll_sched *s = arg;
    if (s->nlazy && !lazy_done(s))
        return 0;
    for (int i = 0; i < s->nreqs; i++)
        if (s->reqs[i] && !s->reqs[i]->done)
            return 0;
    return 1;
}

/* Waits for the round's receives and requests and checks them; a failure
 * sticks. */
static void direct_wait(struct coll_sched *s)
{
    bolt_progress_until(round_done, s, 0);
    int rc = s->lazy_err;
    for (int i = 0; i < s->nreqs; i++) {
        int r = reap(s, i);
        if (r && !rc)
            rc = r;
    }
    s->nreqs = 0;
    s->nlazy = 0;
    s->lazy_err = 0;
    if (rc) {
        abandon(s);
        s->err = rc;
    }
    s->nsteps = 0; /* nothing refers to this round's records any more */
}

/* Posts recorded step pos; a failure sticks. A receive is not posted once a
 * lazy one failed (a send still is: its peer waits for it). */
static void direct_post(struct coll_sched *s, int pos)
{
    int rc = s->lazy_err && s->steps[pos].kind != STEP_SEND ? s->lazy_err : post_step(s, pos);
    if (rc) {
        abandon(s);
        s->err = rc;
    }
}

/* A receive: taken at once, else recorded and left lazy or posted. A
 * message matches receives in the order they were posted, so a receive from
 * a peer that already has a lazy one waits behind it: that one is posted
 * first. */
static void direct_recv(struct coll_sched *s, enum step_kind kind, void *dst, size_t n, int peer,
                        const struct coll_fold *fold)
{
    int same = -1;
    for (int i = 0; i < s->nlazy; i++)
        if (s->lazy[i] >= 0 && s->steps[s->lazy[i]].peer == peer)
            same = i;
    /* Behind a lazy receive from the same peer, the message that comes
     * first is that one's: this one is posted after it. */
    int r = same >= 0 ? -1 : coll_recv_now(s->comm, dst, n, peer, s->tag);
    if (r > 0) {
        /* arrived already (a peer ahead of us): taken */
        if (fold && n)
            fold_piece((void *)fold, 0, dst, n);
        return;
    }
    struct coll_fold *f = NULL;
    if (fold && (f = coll_sched_tmp(s, sizeof *f)))
        *f = *fold;
    struct step *st = !fold || f ? add(s, kind) : NULL;
    if (!st)
        return; /* out of memory (sticky): coll_sched_run waits for what is in flight */
    st->dst = dst;
    st->n = n;
    st->peer = peer;
    st->fold = f;
    int pos = s->nsteps - 1;
    if (r == 0 && kind == STEP_RECV && n <= LAZY_BYTES_MAX && s->nlazy < LAZY_MAX) {
        s->lazy[s->nlazy++] = pos;
        return;
    }
    if (same >= 0)
        lazy_post(s, same);
    direct_post(s, pos);
}

int coll_tag_next(const struct bolt_comm *comm)
{
    return COLL_TAG_BASE + (int)(comm->coll_seq % COLL_TAG_SPAN);
}

int coll_tag_take(struct bolt_comm *comm)
{
    int tag = coll_tag_next(comm);
    comm->coll_seq++;
    return tag;
}

int coll_send_now(struct bolt_comm *comm, const void *buf, size_t bytes, int peer, int tag)
{
    return bolt_proto_send_now(buf, bytes, peer, tag, comm, comm->ctx + 1);
}

int coll_send_all_now(struct bolt_comm *comm, const void *buf, size_t bytes, int from, int tag)
{
    int n = comm->size, k = 1;
    if (n > 2 && n - 1 <= BOLT_PROTO_MANY_MAX) { /* one copy for all, where the transport has one */
        int peers[BOLT_PROTO_MANY_MAX];
        for (int i = 1; i < n; i++)
            peers[i - 1] = (from + i) % n;
        if (bolt_proto_send_many_now(buf, bytes, peers, n - 1, tag, comm, comm->ctx + 1))
            return n;
    }
    for (; k < n && coll_send_now(comm, buf, bytes, (from + k) % n, tag); k++)
        ;
    return k;
}

int coll_recv_now(struct bolt_comm *comm, void *buf, size_t bytes, int peer, int tag)
{
    return bolt_proto_recv_now(buf, bytes, peer, tag, comm, comm->ctx + 1);
}

struct take_wait {
    struct bolt_comm *c;
    void *buf;
    size_t bytes;
    int peer, tag, r;
};

static int taken(void *arg)
{
    struct take_wait *w = arg;
    w->r = coll_recv_now(w->c, w->buf, w->bytes, w->peer, w->tag);
    return w->r != 0;
}

int coll_take_now(struct bolt_comm *comm, void *buf, size_t bytes, int peer, int tag)
{
    struct take_wait w = {comm, buf, bytes, peer, tag, coll_recv_now(comm, buf, bytes, peer, tag)};
    if (w.r == 0)
        bolt_progress_until(taken, &w, 0);
    return w.r > 0;
}

int coll_sched_start(struct coll_sched *s)
{
    if (s->err)
        return fail(s, s->err, s->err == BOLT_ERR_NOMEM ? "out of memory" : "bad schedule");
    int rc = post_round(s);
    if (rc)
        abandon(s);
    return rc;
}

int coll_sched_advance(struct coll_sched *s, int *err)
{
    *err = BOLT_OK;
    for (;;) {
        for (int i = 0; i < s->nreqs; i++)
            if (s->reqs[i] && !s->reqs[i]->done)
                return 0;
        int rc = BOLT_OK;
        for (int i = 0; i < s->nreqs; i++)
            if (s->reqs[i]) {
                int r = reap(s, i);
                if (r && !rc)
                    rc = r;
            }
        s->nreqs = 0;
        if (!rc && s->pos < s->nsteps)
            rc = post_round(s);
        if (rc) {
            abandon(s);
            *err = rc;
            return 1;
        }
        if (s->pos >= s->nsteps && s->nreqs == 0)
            return 1;
    }
}

int coll_sched_raise(struct coll_sched *s, int err)
{
    char name[120];
    if (!s->msg[0])
        return bolt_err_set(err, "%s: %s", name_of(s, name, sizeof name), bolt_strerror(err));
    return bolt_err_set(err, "%s", s->msg);
}

struct run_arg {
    struct coll_sched *s;
    int done, err;
};

static int run_done(void *arg)
{
    struct run_arg *a = arg;
    if (!a->done)
        a->done = coll_sched_advance(a->s, &a->err);
    return a->done;
}

int coll_sched_run(struct coll_sched *s)
{
    struct run_arg a = {s, 0, BOLT_OK};
    int rc;
    if (s->direct) {
        int build_err = s->err;
        /* The last round, when the algorithm did not end it, or the one a build
         * error (out of memory) stopped half-way: its requests use the
         * caller's buffers and the peers complete it, so it ends here. */
        if (s->nreqs || s->nlazy)
            direct_wait(s);
        rc = build_err ? build_err : s->err;
        if (rc && !s->msg[0])
            fail(s, rc, rc == BOLT_ERR_NOMEM ? "out of memory" : "bad schedule");
    } else if (!(rc = coll_sched_start(s))) {
        bolt_progress_until(run_done, &a, 0);
        rc = a.err;
    }
    if (rc)
        coll_sched_raise(s, rc);
    coll_sched_free(s);
    return rc;
}
