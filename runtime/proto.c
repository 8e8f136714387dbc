/* proto.c — eager / rendezvous point-to-point protocol over the transports. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/config.h"
#include "runtime/errors.h"
#include "runtime/failover.h"
#include "runtime/log.h"
#include "runtime/progress.h"
#include "runtime/proto.h"
#include "runtime/proto_internal.h"
#include "runtime/runtime.h"
#include "runtime/memcopy.h"

/* Sends to oneself up to this size are buffered, like an eager send. */
#define SELF_EAGER_LIMIT (64 * 1024)

/* Frame cookies: the low bits of an aligned pointer say what it points at. */
enum { CK_DATA = 0, CK_EAGER_REQ = 1, CK_EAGER_UNEXP = 2, CK_CONTROL = 3 };
#define CK_MAKE(p, k) ((void *)((uintptr_t)(p) | (uintptr_t)(k)))
#define CK_KIND(c) ((int)((uintptr_t)(c) & 3u))
#define CK_PTR(c) ((void *)((uintptr_t)(c) & ~(uintptr_t)3u))

static void send_try_complete(struct bolt_request *req);

/* ---- sending frames ---------------------------------------------------- */

static int tl_send(int world_peer, struct bolt_frame_slot *slot)
{
    struct bolt_peer *p = &bolt_rt.peers[world_peer];
    if (p->failed)
        return BOLT_ERR_PEER;
    return bolt_rt.tls[p->tl]->send(bolt_rt.tlctx[p->tl], world_peer, &slot->s);
}

static void req_frame_done(struct bolt_tl_send *s, int err)
{
    struct bolt_request *req = ((struct bolt_frame_slot *)s)->req;
    req->frames_pending--;
    if (err && !req->err)
        req->err = err;
    send_try_complete(req);
}

static void control_frame_done(struct bolt_tl_send *s, int err)
{
    (void)err; /* a lost control frame shows up as the peer's failure */
    free(s);
}

static void frame_init(struct bolt_frame_slot *f, uint8_t type, struct bolt_request *req)
{
    memset(&f->s, 0, sizeof f->s);
    f->s.hdr.magic = BOLT_FRAME_MAGIC;
    f->s.hdr.type = type;
    f->req = req;
    f->s.complete = req ? req_frame_done : control_frame_done;
}

/* Sends a control frame of the runtime's own (CTS, SYNC_ACK, BYE, the DATA
 * that ends a split copy), with `len` bytes of payload copied along. */
static int send_control_with(int world_peer, uint8_t type, uint8_t flags, uint64_t sreq,
                             uint64_t rreq, uint64_t size, const void *payload, size_t len)
{
    struct bolt_frame_slot *f = malloc(sizeof *f + len);
    if (!f)
        return BOLT_ERR_NOMEM;
    frame_init(f, type, NULL);
    f->s.hdr.flags = flags;
    f->s.hdr.sreq = sreq;
    f->s.hdr.rreq = rreq;
    f->s.hdr.msg_size = size;
    f->s.hdr.src = bolt_rt.rank;
    if (len) {
        memcpy(f + 1, payload, len);
        f->s.hdr.len = len;
        f->s.payload = f + 1;
    }
    int rc = tl_send(world_peer, f);
    if (rc)
        free(f);
    return rc;
}

static int send_control(int world_peer, uint8_t type, uint8_t flags, uint64_t sreq,
                        uint64_t rreq, uint64_t size)
{
    return send_control_with(world_peer, type, flags, sreq, rreq, size, NULL, 0);
}

int proto_send_control(int world_peer, uint8_t type, uint64_t sreq, uint64_t rreq, uint64_t size)
{
    return send_control(world_peer, type, 0, sreq, rreq, size);
}

static void send_try_complete(struct bolt_request *req)
{
    if (req->done || req->frames_pending > 0)
        return;
    if (req->err) {
        bolt_req_complete(req, req->err);
        return;
    }
    if (req->awaiting_cts || req->sync_pending)
        return;
    bolt_req_complete(req, BOLT_OK);
}

void proto_send_fail(struct bolt_request *req, int err)
{
    if (!req->err)
        req->err = err;
    req->awaiting_cts = 0;
    req->sync_pending = 0;
    send_try_complete(req);
}

/* ---- receive completion ------------------------------------------------ */

static void recv_finish(struct bolt_request *req, int src, int tag, size_t msg_size, size_t got)
{
    if (req->fold && got && msg_size <= req->bytes)
        req->fold(req->fold_arg, 0, req->buf, got);
    req->status.source = src;
    req->status.tag = tag;
    req->status.bytes = got;
    req->msg_size = msg_size;
    bolt_req_complete(req, msg_size > req->bytes ? BOLT_ERR_TRUNCATE : BOLT_OK);
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* A fold receive's rendezvous read: piece by piece into a buffer small
 * enough to stay in the cache while fold consumes it (the payload is then
 * read from memory once instead of written to tmp and read back). 0 when
 * all was folded; -1 when the first piece could not be read (nothing
 * folded: DATA frames will bring it to tmp); 1 when a later one failed. */
#define FOLD_PIECE (64 * 1024)
static int fold_get(struct bolt_request *req, const struct bolt_transport *tl, int world_src,
                    uint64_t raddr)
{
    static _Alignas(64) unsigned char piece[FOLD_PIECE];
    size_t step = FOLD_PIECE - FOLD_PIECE % req->fold_unit;
    struct bolt_tl_ctx *tc = bolt_rt.tlctx[bolt_rt.peers[world_src].tl];
    for (size_t off = 0; off < req->expected; off += step) {
        size_t len = min_size(step, req->expected - off);
        if (tl->get(tc, world_src, piece, raddr + off, len) != BOLT_OK) {
            if (off == 0)
                return -1;
            bolt_log(BOLT_LOG_ERROR,
                     "reading %zu bytes from rank %d failed after %zu bytes: receive ended",
                     req->expected, world_src, off);
            return 1;
        }
        req->fold(req->fold_arg, off, piece, len);
    }
    req->fold = NULL; /* consumed: nothing is left in buf for recv_finish */
    return 0;
}

/* A split copy (BOLT_FRAME_F_SPLIT): this rank reads pieces of the message
 * from the front while the sender writes pieces into buf from the back, each
 * claiming the next piece on a counter the transport shares between them,
 * until they meet; a core each, two copies at once, and on crowded cores
 * whichever side has one copies more. 1 when under way or ended (the
 * request completes when the sender says its pieces are in); 0 when not
 * split after all. */
#define SPLIT_ALIGN 4096 /* pieces share no page of buf */
#define SPLIT_PIECES_MAX 128 /* a split CTS with more pieces is refused */

/* Where piece k of a split copy of len bytes into the buffer at base
 * starts (k = pieces: where the last ends): page boundaries of that buffer,
 * so that the two sides never copy into one page at once. */
static size_t split_edge(uint64_t base, size_t len, size_t piece, uint64_t k)
{
    if (k == 0)
        return 0;
    if (k * piece >= len) /* past the last piece, ceil(len / piece) - 1 */
        return len;
    /* below k * piece, so below len */
    return (size_t)(((base + k * piece) & ~(uint64_t)(SPLIT_ALIGN - 1)) - base);
}

/* Pieces both sides can cut len bytes into: a page or more each, at least
 * two, at most SPLIT_PIECES_MAX. */
static int split_pieces_ok(size_t len, uint64_t piece)
{
    return piece >= SPLIT_ALIGN && piece < len && (len - 1) / piece < SPLIT_PIECES_MAX;
}

static int rndv_split(struct bolt_request *req, const struct bolt_transport *tl, int world_src,
                      uint64_t raddr, uint64_t sreq)
{
    size_t len = req->expected;
    if (len / 2 < SPLIT_ALIGN || req->fold || req->msg_size > req->bytes || !tl->claim_open ||
        !tl->claim || !tl->claim_close)
        return 0;
    struct bolt_tl_ctx *tc = bolt_rt.tlctx[bolt_rt.peers[world_src].tl];
    size_t piece = 0;
    uint64_t base = (uint64_t)(uintptr_t)req->buf;
    int slot = tl->claim_open(tc, world_src, len, &piece);
    if (slot < 0)
        return 0;
    if (!split_pieces_ok(len, piece)) { /* the transport's mistake: do not split */
        tl->claim_close(tc, world_src, slot);
        return 0;
    }
    if (bolt_req_register(req)) {
        tl->claim_close(tc, world_src, slot);
        return 0;
    }
    uint64_t where[3] = {base, piece, (uint64_t)slot};
    req->split_slot = slot + 1;
    int rc = send_control_with(world_src, BOLT_FRAME_CTS, BOLT_FRAME_F_SPLIT, sreq, req->id,
                               req->expected, where, sizeof where);
    if (rc) {
        bolt_req_complete(req, rc);
        return 1;
    }
    /* Ours: the pieces below the meeting point. After a failed read the
     * claims go on (no reads) so that both sides agree where that is. */
    size_t upto = 0;
    int read = 1;
    for (int k; (k = tl->claim(tc, world_src, slot, 0)) >= 0;) {
        size_t a = split_edge(base, len, piece, (uint64_t)k);
        upto = split_edge(base, len, piece, (uint64_t)k + 1);
        if (read && tl->get(tc, world_src, (char *)req->buf + a, raddr + a, upto - a) != BOLT_OK)
            read = 0;
    }
    req->split_at = upto;
    if (!read) {
        /* Our part then comes as DATA, which the sender writes. */
        rc = send_control(world_src, BOLT_FRAME_CTS, BOLT_FRAME_F_NO_READ, sreq, req->id, upto);
        if (rc)
            bolt_req_complete(req, rc);
        return 1;
    }
    /* Our part is read: the sender's buffer is free again. The receive
     * completes when the sender's part is in (on_split_done). */
    req->received += upto;
    rc = proto_send_control(world_src, BOLT_FRAME_CTS, sreq, 0, 0);
    if (rc)
        bolt_req_complete(req, rc);
    return 1;
}

/* An RTS offered its buffer (F_GET): read it here and release the sender
 * with an empty CTS, one round trip instead of two (CTS, then DATA). 1 when
 * done; 0 when there is nothing to read this way; -1 when the read failed
 * (the CTS then asks for DATA that the receiver does not read itself: the
 * same read would fail again). */
static int rndv_get(struct bolt_request *req, int world_src, uint64_t raddr, int split,
                    uint64_t sreq)
{
    const struct bolt_peer *p = &bolt_rt.peers[world_src];
    const struct bolt_transport *tl = bolt_rt.tls[p->tl];
    if (!raddr || !tl->get)
        return 0;
    if (split && rndv_split(req, tl, world_src, raddr, sreq))
        return 1;
    if (req->fold && req->msg_size <= req->bytes && req->fold_unit <= FOLD_PIECE) {
        int rc = fold_get(req, tl, world_src, raddr);
        if (rc < 0)
            return -1;
        if (rc > 0) {
            bolt_req_complete(req, BOLT_ERR_SYS);
            proto_send_control(world_src, BOLT_FRAME_CTS, sreq, 0, 0);
            return 1;
        }
    } else if (tl->get(bolt_rt.tlctx[p->tl], world_src, req->buf, raddr, req->expected) != BOLT_OK) {
        return -1;
    }
    recv_finish(req, req->status.source, req->status.tag, req->msg_size, req->expected);
    proto_send_control(world_src, BOLT_FRAME_CTS, sreq, 0, 0);
    return 1;
}

/* Starts the data phase of a rendezvous the receive `req` matched. */
static void rndv_accept(struct bolt_request *req, int world_src, int src, int tag, size_t size,
                        uint64_t sreq, uint64_t raddr, int split)
{
    req->world_peer = world_src;
    req->status.source = src;
    req->status.tag = tag;
    req->msg_size = size;
    req->expected = min_size(size, req->bytes);
    req->received = 0;
    if (bolt_rt.peers[world_src].failed) {
        bolt_req_complete(req, BOLT_ERR_PEER);
        return;
    }
    if (req->expected == 0) {
        /* Nothing to move: finish now, then release the sender. */
        recv_finish(req, src, tag, size, 0);
        proto_send_control(world_src, BOLT_FRAME_CTS, sreq, 0, 0);
        return;
    }
    int got = rndv_get(req, world_src, raddr, split, sreq);
    if (got > 0)
        return;
    int rc = bolt_req_register(req);
    uint64_t id = req->id;
    size_t expected = req->expected;
    if (!rc)
        rc = send_control(world_src, BOLT_FRAME_CTS, got < 0 ? BOLT_FRAME_F_NO_READ : 0, sreq, id,
                          expected);
    /* A failed write may have failed the peer, and with it this request:
     * from here on `req` is only touched when the CTS was never handed over. */
    if (rc)
        bolt_req_complete(req, rc);
}

/* A receive matched an unexpected message. */
static void recv_take_unexp(struct bolt_request *req, struct bolt_unexp *u)
{
    switch (u->kind) {
    case BOLT_UNEXP_EAGER:
        if (!u->arrived) {
            u->claimed = req; /* frame_end finishes it */
            req->world_peer = u->world_src;
            return;
        }
        req->world_peer = u->world_src;
        if (min_size(u->size, req->bytes))
            bolt_mem_copy(req->buf, u->data, min_size(u->size, req->bytes));
        bolt_match_remove_unexp(&bolt_rt.match, u);
        recv_finish(req, u->src, u->tag, u->size, min_size(u->size, req->bytes));
        if (u->sync)
            proto_send_control(u->world_src, BOLT_FRAME_SYNC_ACK, u->sreq, 0, 0);
        bolt_unexp_free(u);
        return;
    case BOLT_UNEXP_RTS:
        bolt_match_remove_unexp(&bolt_rt.match, u);
        rndv_accept(req, u->world_src, u->src, u->tag, u->size, u->sreq, u->raddr, u->split);
        free(u);
        return;
    case BOLT_UNEXP_SELF: {
        struct bolt_request *sreq = u->self_req;
        bolt_match_remove_unexp(&bolt_rt.match, u);
        req->world_peer = bolt_rt.rank;
        if (min_size(u->size, req->bytes))
            bolt_mem_copy(req->buf, sreq->buf, min_size(u->size, req->bytes));
        recv_finish(req, u->src, u->tag, u->size, min_size(u->size, req->bytes));
        sreq->self_entry = NULL;
        sreq->sync_pending = 0;
        send_try_complete(sreq);
        free(u);
        return;
    }
    }
}

/* ---- public protocol entry points -------------------------------------- */

static int send_to_self(struct bolt_request *req, int src)
{
    struct bolt_request *r = bolt_match_take_posted(&bolt_rt.match, req->ctx, src, req->tag);
    if (r) {
        r->world_peer = bolt_rt.rank;
        if (min_size(req->bytes, r->bytes))
            bolt_mem_copy(r->buf, req->buf, min_size(req->bytes, r->bytes));
        recv_finish(r, src, req->tag, req->bytes, min_size(req->bytes, r->bytes));
        bolt_req_complete(req, BOLT_OK);
        return BOLT_OK;
    }
    struct bolt_unexp *u = calloc(1, sizeof *u);
    if (!u)
        return BOLT_ERR_NOMEM;
    u->ctx = req->ctx;
    u->src = src;
    u->world_src = bolt_rt.rank;
    u->tag = req->tag;
    u->size = req->bytes;
    if (req->bytes <= SELF_EAGER_LIMIT && !req->sync) {
        u->kind = BOLT_UNEXP_EAGER;
        u->arrived = 1;
        if (req->bytes) {
            u->data = malloc(req->bytes);
            if (!u->data) {
                free(u);
                return BOLT_ERR_NOMEM;
            }
            bolt_mem_copy(u->data, req->buf, req->bytes);
        }
        bolt_match_add_unexp(&bolt_rt.match, u);
        bolt_req_complete(req, BOLT_OK);
        return BOLT_OK;
    }
    u->kind = BOLT_UNEXP_SELF;
    u->self_req = req;
    req->self_entry = u;
    req->sync_pending = 1; /* completes when a receive takes it */
    bolt_match_add_unexp(&bolt_rt.match, u);
    return BOLT_OK;
}

/* The header of a whole eager message of `bytes` from rank src with tag,
 * on context ctx: what send_now and send_many_now write, and what take_now
 * looks for. */
static struct bolt_frame_hdr eager_hdr(uint32_t ctx, int src, int tag, size_t bytes)
{
    struct bolt_frame_hdr h = {
        .magic = BOLT_FRAME_MAGIC,
        .type = BOLT_FRAME_EAGER,
        .ctx = ctx,
        .src = src,
        .tag = tag,
        .len = bytes,
        .msg_size = bytes,
    };
    return h;
}

/* Hands an eager frame to the transport's send_now: 1 when it left. */
static int eager_now(const struct bolt_transport *tl, int wp, const void *buf, size_t bytes,
                     int tag, const struct bolt_comm *comm, uint32_t ctx)
{
    struct bolt_frame_hdr h = eager_hdr(ctx, comm->rank, tag, bytes);
    int t = bolt_rt.peers[wp].tl;
    int sent = tl->send_now(bolt_rt.tlctx[t], wp, &h, buf);
    if (sent)
        bolt_sent_count(t, 1, bytes);
    return sent;
}

int bolt_proto_send_now(const void *buf, size_t bytes, int dest, int tag, struct bolt_comm *comm,
                        uint32_t ctx)
{
    int wp = comm->world_ranks[dest];
    if (wp == bolt_rt.rank)
        return 0;
    const struct bolt_peer *p = &bolt_rt.peers[wp];
    const struct bolt_transport *tl = bolt_rt.tls[p->tl];
    if (p->failed || p->bye || !tl->send_now)
        return 0;
    return eager_now(tl, wp, buf, bytes, tag, comm, ctx);
}

int bolt_proto_send_many_now(const void *buf, size_t bytes, const int *dests, int n, int tag,
                             struct bolt_comm *comm, uint32_t ctx)
{
    int wps[BOLT_PROTO_MANY_MAX], tl = -1;
    if (n < 2 || n > BOLT_PROTO_MANY_MAX)
        return 0;
    for (int i = 0; i < n; i++) {
        int wp = comm->world_ranks[dests[i]];
        const struct bolt_peer *p = &bolt_rt.peers[wp];
        if (wp == bolt_rt.rank || p->failed || p->bye || (tl >= 0 && p->tl != tl))
            return 0;
        tl = p->tl;
        wps[i] = wp;
    }
    const struct bolt_transport *t = bolt_rt.tls[tl];
    if (!t->send_many_now)
        return 0;
    struct bolt_frame_hdr h = eager_hdr(ctx, comm->rank, tag, bytes);
    int sent = t->send_many_now(bolt_rt.tlctx[tl], wps, n, &h, buf);
    if (sent)
        bolt_sent_count(tl, n, (uint64_t)n * bytes);
    return sent;
}

/* The message is not in the unexpected queue: the next frame from the peer,
 * still in its transport, if it is the one (it is then the oldest from that
 * peer a receive could match) and no posted receive would take it first.
 * bolt_proto_recv_now's answers; a peer gone is left to a receive. */
static int take_from_transport(void *buf, size_t bytes, int source, int tag,
                               const struct bolt_comm *comm, uint32_t ctx)
{
    int wp = comm->world_ranks[source]; /* source is a rank: no BOLT_ANY_SOURCE here */
    if (wp == bolt_rt.rank)
        return 0;
    const struct bolt_peer *p = &bolt_rt.peers[wp];
    const struct bolt_transport *tl = bolt_rt.tls[p->tl];
    if (p->failed || p->bye)
        return -1;
    if (!tl->take_now || bolt_match_has_posted(&bolt_rt.match, ctx, source, tag))
        return 0;
    struct bolt_frame_hdr want = eager_hdr(ctx, source, tag, bytes);
    return tl->take_now(bolt_rt.tlctx[p->tl], wp, &want, buf);
}

int bolt_proto_recv_now(void *buf, size_t bytes, int source, int tag, const struct bolt_comm *comm,
                        uint32_t ctx)
{
    if (source < 0 || source >= comm->size)
        return -1; /* any source (or a bad rank): a receive handles it */
    /* The entry a posted receive would take (no posted receive can match
     * it: it would have taken it on arrival). */
    struct bolt_unexp *u = bolt_match_find_unexp(&bolt_rt.match, ctx, source, tag);
    if (!u)
        return take_from_transport(buf, bytes, source, tag, comm, ctx);
    if (!u->arrived && u->kind == BOLT_UNEXP_EAGER)
        return 0; /* its payload is still coming in */
    if (u->kind != BOLT_UNEXP_EAGER || u->size != bytes || u->sync)
        return -1;
    if (bytes)
        bolt_mem_copy(buf, u->data, bytes);
    bolt_match_remove_unexp(&bolt_rt.match, u);
    bolt_unexp_free(u);
    return 1;
}

int bolt_proto_isend(const void *buf, size_t bytes, int dest, int tag, struct bolt_comm *comm,
                     uint32_t ctx, unsigned flags, struct bolt_request **out)
{
    int sync = (flags & BOLT_PROTO_SYNC) != 0;
    struct bolt_request *req = bolt_req_new(BOLT_REQ_SEND);
    if (!req)
        return bolt_err_set(BOLT_ERR_NOMEM, "out of memory for a send request");
    req->comm = comm;
    bolt_comm_hold(comm);
    req->ctx = ctx;
    req->peer = dest;
    req->world_peer = comm->world_ranks[dest];
    req->tag = tag;
    req->buf = (void *)buf;
    req->bytes = bytes;
    req->sync = sync;
    req->hints = (flags & BOLT_PROTO_SENDER_BUSY ? BOLT_TL_HINT_SENDER_BUSY : 0) |
                 (flags & BOLT_PROTO_WAITS ? BOLT_TL_HINT_SENDER_WAITS : 0) |
                 (flags & BOLT_PROTO_FAN_OUT ? BOLT_TL_HINT_FAN_OUT : 0);
    *out = req;

    int wp = req->world_peer, rc;
    if (wp == bolt_rt.rank) {
        rc = send_to_self(req, comm->rank);
        goto out;
    }
    struct bolt_peer *p = &bolt_rt.peers[wp];
    if (p->failed || p->bye) {
        bolt_req_complete(req, BOLT_ERR_PEER);
        return BOLT_OK; /* the error is reported by wait, with the peer named */
    }
    const struct bolt_transport *tl = bolt_rt.tls[p->tl];
    int eager = bytes <= tl->eager_limit(bolt_rt.tlctx[p->tl], wp);
    /* Copied out at once: complete, no frame to track. */
    if (eager && !sync && tl->send_now && eager_now(tl, wp, buf, bytes, tag, comm, ctx)) {
        bolt_req_complete(req, BOLT_OK);
        return BOLT_OK;
    }
    struct bolt_frame_hdr *h = &req->env.s.hdr;
    frame_init(&req->env, eager ? BOLT_FRAME_EAGER : BOLT_FRAME_RTS, req);
    h->ctx = ctx;
    h->src = comm->rank;
    h->tag = tag;
    h->msg_size = bytes;
    if (eager) {
        h->len = bytes;
        req->env.s.payload = buf;
        if (sync) {
            h->flags |= BOLT_FRAME_F_SYNC;
            req->sync_pending = 1;
        }
    } else {
        req->awaiting_cts = 1;
        /* The receiver may read the payload itself (transport get), or
         * part of it while this rank writes the rest (put). */
        struct bolt_tl_ctx *tc = bolt_rt.tlctx[p->tl];
        int split = tl->put_ok && tl->put && tl->put_ok(tc, wp, bytes, req->hints);
        if (split || (tl->get_ok && tl->get_ok(tc, wp, bytes, req->hints))) {
            h->flags |= BOLT_FRAME_F_GET | (split ? BOLT_FRAME_F_SPLIT : 0);
            h->rreq = (uint64_t)(uintptr_t)buf;
        }
    }
    if (sync || !eager) {
        rc = bolt_req_register(req);
        if (rc)
            goto out;
        h->sreq = req->id;
    }
    req->frames_pending = 1;
    rc = tl_send(wp, &req->env);
    if (rc) {
        req->frames_pending = 0;
        proto_send_fail(req, rc);
        rc = BOLT_OK;
    } else {
        bolt_sent_count(p->tl, 1, bytes);
    }
out:
    if (rc) {
        bolt_req_release(req);
        *out = NULL;
        return bolt_err_set(rc, "send to rank %d failed: %s", dest, bolt_strerror(rc));
    }
    return BOLT_OK;
}

static int irecv_fill(struct bolt_request *req, void *buf, size_t bytes, int source, int tag,
                      struct bolt_comm *comm, uint32_t ctx, struct bolt_request **out);

int bolt_proto_irecv(void *buf, size_t bytes, int source, int tag, struct bolt_comm *comm,
                     uint32_t ctx, struct bolt_request **out)
{
    struct bolt_request *req = bolt_req_new(BOLT_REQ_RECV);
    if (!req)
        return bolt_err_set(BOLT_ERR_NOMEM, "out of memory for a receive request");
    return irecv_fill(req, buf, bytes, source, tag, comm, ctx, out);
}

int bolt_proto_irecv_fold(void *tmp, size_t bytes, size_t unit, bolt_fold_fn *fold, void *arg,
                          int source, int tag, struct bolt_comm *comm, uint32_t ctx,
                          struct bolt_request **out)
{
    struct bolt_request *req = bolt_req_new(BOLT_REQ_RECV);
    if (!req)
        return bolt_err_set(BOLT_ERR_NOMEM, "out of memory for a receive request");
    req->fold = fold;
    req->fold_arg = arg;
    req->fold_unit = unit ? unit : 1;
    return irecv_fill(req, tmp, bytes, source, tag, comm, ctx, out);
}

static int irecv_fill(struct bolt_request *req, void *buf, size_t bytes, int source, int tag,
                      struct bolt_comm *comm, uint32_t ctx, struct bolt_request **out)
{
    req->comm = comm;
    bolt_comm_hold(comm);
    req->ctx = ctx;
    req->peer = source;
    req->world_peer = source == BOLT_ANY_SOURCE ? -1 : comm->world_ranks[source];
    req->tag = tag;
    req->buf = buf;
    req->bytes = bytes;
    *out = req;

    struct bolt_unexp *u = bolt_match_find_unexp(&bolt_rt.match, ctx, source, tag);
    if (u) {
        recv_take_unexp(req, u);
        return BOLT_OK;
    }
    /* Nothing arrived: a peer that is gone will never send it. */
    if (req->world_peer >= 0) {
        struct bolt_peer *p = &bolt_rt.peers[req->world_peer];
        if (p->failed || p->bye) {
            bolt_req_complete(req, BOLT_ERR_PEER);
            return BOLT_OK;
        }
    } else {
        for (int i = 0; i < comm->size; i++) {
            int w = comm->world_ranks[i];
            if (bolt_rt.peers[w].failed && !bolt_rt.peers[w].bye) {
                req->world_peer = w;
                bolt_req_complete(req, BOLT_ERR_PEER);
                return BOLT_OK;
            }
        }
    }
    bolt_match_post(&bolt_rt.match, req);
    return BOLT_OK;
}

int bolt_proto_iprobe(int source, int tag, struct bolt_comm *comm, uint32_t ctx, int *flag,
                      bolt_status_t *status)
{
    struct bolt_unexp *u = bolt_match_find_unexp(&bolt_rt.match, ctx, source, tag);
    *flag = u != NULL;
    if (u && status) {
        status->source = u->src;
        status->tag = u->tag;
        status->bytes = u->size;
        status->error = BOLT_OK;
    }
    if (!u && source != BOLT_ANY_SOURCE) {
        struct bolt_peer *p = &bolt_rt.peers[comm->world_ranks[source]];
        if (p->failed || p->bye)
            return bolt_peer_error(comm->world_ranks[source], "probe");
    }
    if (!u && source == BOLT_ANY_SOURCE) {
        int last = -1;
        for (int i = 0; i < comm->size; i++) {
            int w = comm->world_ranks[i];
            if (bolt_rt.peers[w].failed && !bolt_rt.peers[w].bye)
                return bolt_peer_error(w, "probe for any source");
        }
        if (bolt_rt.gone && proto_comm_others_gone(comm, &last) && last >= 0)
            return bolt_peer_error(last, "probe for any source");
    }
    return BOLT_OK;
}

int bolt_proto_imrecv(void *buf, size_t bytes, struct bolt_comm *comm, struct bolt_unexp *u,
                      struct bolt_request **out)
{
    struct bolt_request *req = bolt_req_new(BOLT_REQ_RECV);
    if (!req)
        return bolt_err_set(BOLT_ERR_NOMEM, "out of memory for a receive request");
    req->comm = comm;
    bolt_comm_hold(comm);
    req->ctx = u->ctx;
    req->peer = u->src;
    req->world_peer = u->world_src;
    req->tag = u->tag;
    req->buf = buf;
    req->bytes = bytes;
    *out = req;
    u->reserved = 0; /* it leaves the queue here: a rendezvous sends its CTS now */
    recv_take_unexp(req, u);
    return BOLT_OK;
}

int bolt_proto_cancel(struct bolt_request *req)
{
    if (req->kind != BOLT_REQ_RECV || req->done)
        return 0;
    for (struct bolt_request *r = bolt_rt.match.posted_head; r; r = r->next) {
        if (r == req) {
            bolt_match_remove_posted(&bolt_rt.match, req);
            req->status.source = BOLT_ANY_SOURCE;
            req->status.tag = BOLT_ANY_TAG;
            req->status.bytes = 0;
            bolt_req_complete(req, BOLT_OK);
            return 1;
        }
    }
    return 0;
}

int bolt_proto_req_error(struct bolt_request *req)
{
    int err = req->status.error;
    if (req->hooks)
        return req->hooks->error(req);
    const char *what = req->kind == BOLT_REQ_SEND ? "send to" : "receive from";
    char doing[128];
    if (req->kind == BOLT_REQ_RECV && req->peer == BOLT_ANY_SOURCE)
        snprintf(doing, sizeof doing, "receive from any source (tag %d)", req->tag);
    else
        snprintf(doing, sizeof doing, "%s rank %d (tag %d)", what, req->peer, req->tag);
    if (err == BOLT_ERR_PEER && req->world_peer >= 0)
        return bolt_peer_error(req->world_peer, doing);
    if (err == BOLT_ERR_DEADLOCK)
        return bolt_err_set(err,
                            "%s would wait forever: no other rank can send that message and this "
                            "rank is blocked waiting for it (post the matching send first)",
                            doing);
    if (err == BOLT_ERR_TRUNCATE)
        return bolt_err_set(err,
                            "%s: message of %zu bytes from rank %d (tag %d) does not fit the "
                            "receive buffer of %zu bytes; post a larger buffer (bolt_probe tells "
                            "the size)",
                            doing, req->msg_size, req->status.source, req->status.tag, req->bytes);
    return bolt_err_set(err, "%s failed: %s", doing, bolt_strerror(err));
}

/* ---- upcalls from transports ------------------------------------------- */

static int proto_error(int peer, const char *what)
{
    bolt_log(BOLT_LOG_ERROR, "malformed frame from rank %d: %s", peer, what);
    return BOLT_ERR_PROTO;
}

static int on_envelope(int peer, const struct bolt_frame_hdr *h, void **dst, void **cookie)
{
    int eager = h->type == BOLT_FRAME_EAGER;
    if (eager && h->len != h->msg_size)
        return proto_error(peer, "eager length differs from message size");
    if (!eager && h->len != 0)
        return proto_error(peer, "RTS with payload");
    struct bolt_request *r = bolt_match_take_posted(&bolt_rt.match, h->ctx, h->src, h->tag);
    if (r) {
        if (!eager) {
            rndv_accept(r, peer, h->src, h->tag, h->msg_size, h->sreq,
                        h->flags & BOLT_FRAME_F_GET ? h->rreq : 0,
                        (h->flags & BOLT_FRAME_F_SPLIT) != 0);
            return BOLT_OK;
        }
        r->world_peer = peer;
        r->status.source = h->src;
        r->status.tag = h->tag;
        r->msg_size = h->msg_size;
        /* Registered so that peer_failed finds it while its payload streams in. */
        if (bolt_req_register(r)) {
            bolt_req_complete(r, BOLT_ERR_NOMEM);
            return proto_error(peer, "out of memory");
        }
        if (h->flags & BOLT_FRAME_F_SYNC)
            r->sync = 1, r->ack_sreq = h->sreq;
        if (h->len > r->bytes) {
            r->trunc_tmp = malloc(h->len);
            if (!r->trunc_tmp)
                return proto_error(peer, "out of memory for a truncated message");
            *dst = r->trunc_tmp;
        } else {
            *dst = r->buf;
        }
        *cookie = CK_MAKE(r, CK_EAGER_REQ);
        return BOLT_OK;
    }
    size_t inl = eager && h->len <= BOLT_UNEXP_INLINE ? h->len : 0;
    struct bolt_unexp *u = bolt_unexp_new(inl);
    if (!u)
        return proto_error(peer, "out of memory for an unexpected message");
    u->kind = eager ? BOLT_UNEXP_EAGER : BOLT_UNEXP_RTS;
    u->ctx = h->ctx;
    u->src = h->src;
    u->world_src = peer;
    u->tag = h->tag;
    u->size = h->msg_size;
    u->sreq = h->sreq;
    u->raddr = !eager && (h->flags & BOLT_FRAME_F_GET) ? h->rreq : 0;
    u->split = u->raddr && (h->flags & BOLT_FRAME_F_SPLIT);
    u->sync = (h->flags & BOLT_FRAME_F_SYNC) != 0;
    if (inl) {
        u->data = u->inline_data;
    } else if (eager && h->len && bolt_unexp_data_new(u, h->len) != BOLT_OK) {
        bolt_unexp_free(u);
        return proto_error(peer, "out of memory for an unexpected message");
    }
    u->arrived = !eager || h->len == 0;
    bolt_match_add_unexp(&bolt_rt.match, u);
    *dst = u->data;
    *cookie = eager ? CK_MAKE(u, CK_EAGER_UNEXP) : CK_MAKE(u, CK_CONTROL);
    return BOLT_OK;
}

/* Sends bytes [first, end) of send req as DATA frames for receive rreq, in
 * the stripes its transport asks for (slots, *nslots: where they live). */
static void send_stripes(struct bolt_request *req, int peer, uint64_t rreq, size_t first,
                         size_t end, struct bolt_frame_slot **slots, int *nslots)
{
    size_t total = end - first;
    struct bolt_peer *p = &bolt_rt.peers[peer];
    int n = bolt_rt.tls[p->tl]->data_stripes(bolt_rt.tlctx[p->tl], peer, total);
    if (n < 1)
        n = 1;
    if ((size_t)n > total)
        n = (int)total;
    *slots = calloc((size_t)n, sizeof **slots);
    if (!*slots) {
        proto_send_fail(req, BOLT_ERR_NOMEM);
        return;
    }
    size_t piece = (total + (size_t)n - 1) / (size_t)n, off = first;
    n = (int)((total + piece - 1) / piece); /* no empty stripe at the end */
    *nslots = n;
    /* Count every stripe before sending any: a transport may complete the
     * first one inside send(), and the request must not finish early. */
    req->frames_pending += n;
    for (int i = 0; i < n; i++) {
        size_t len = min_size(piece, end - off);
        struct bolt_frame_slot *f = &(*slots)[i];
        frame_init(f, BOLT_FRAME_DATA, req);
        f->s.hdr.rreq = rreq;
        f->s.hdr.sreq = req->id;
        f->s.hdr.msg_size = off;
        f->s.hdr.len = len;
        f->s.payload = (const char *)req->buf + off;
        f->s.hints = req->hints;
        int rc = tl_send(peer, f);
        if (rc) {
            req->frames_pending -= n - i;
            proto_send_fail(req, rc);
            return;
        }
        off += len;
    }
}

static struct bolt_request *cts_send_req(int peer, const struct bolt_frame_hdr *h)
{
    struct bolt_request *req = bolt_req_lookup(h->sreq);
    if (!req || req->kind != BOLT_REQ_SEND || req->world_peer != peer || !req->awaiting_cts)
        return NULL;
    return req;
}

static int on_cts(int peer, const struct bolt_frame_hdr *h)
{
    struct bolt_request *req = cts_send_req(peer, h);
    if (!req)
        return proto_error(peer, "CTS for an unknown send");
    if (h->msg_size > req->bytes)
        return proto_error(peer, "CTS asks for more bytes than the message has");
    if (h->flags & BOLT_FRAME_F_SPLIT) {
        /* Its payload says where: on_split_cts, once it is in. */
        if (h->len != sizeof bolt_rt.peers[peer].split_cts || h->msg_size != req->bytes ||
            !(req->env.s.hdr.flags & BOLT_FRAME_F_SPLIT) || req->split_slot)
            return proto_error(peer, "split CTS for a send that did not offer one");
        return BOLT_OK;
    }
    if (h->len)
        return proto_error(peer, "CTS with payload");
    req->awaiting_cts = 0;
    if (h->flags & BOLT_FRAME_F_NO_READ)
        req->hints |= BOLT_TL_HINT_NO_READ;
    if (h->msg_size == 0) {
        send_try_complete(req);
        return BOLT_OK;
    }
    send_stripes(req, peer, h->rreq, 0, h->msg_size, &req->data, &req->ndata);
    return BOLT_OK;
}

/* The receiver split the copy (BOLT_FRAME_F_SPLIT): it reads pieces from
 * the front; we write pieces from the back into its buffer until we meet,
 * then say where our part starts (DATA with F_SPLIT), and send our part as
 * DATA instead when a write fails. The send completes with the receiver's
 * next CTS (its part read). */
static void on_split_cts(int peer, const struct bolt_frame_hdr *h)
{
    struct bolt_request *req = cts_send_req(peer, h);
    const uint64_t *where = bolt_rt.peers[peer].split_cts;
    uint64_t base = where[0], piece = where[1], slot = where[2];
    size_t len = h->msg_size;
    if (!req || req->done)
        return; /* failed meanwhile */
    if (!split_pieces_ok(len, piece) || slot > INT_MAX) {
        proto_send_fail(req, proto_error(peer, "split CTS with bad pieces"));
        return;
    }
    req->split_slot = 1; /* a second split CTS is refused */
    struct bolt_peer *p = &bolt_rt.peers[peer];
    const struct bolt_transport *tl = bolt_rt.tls[p->tl];
    struct bolt_tl_ctx *tc = bolt_rt.tlctx[p->tl];
    size_t from = len;
    int wrote = 1;
    for (int k; tl->claim && (k = tl->claim(tc, peer, (int)slot, 1)) >= 0;) {
        size_t end = split_edge(base, len, piece, (uint64_t)k + 1);
        from = split_edge(base, len, piece, (uint64_t)k);
        if (wrote && tl->put(tc, peer, (const char *)req->buf + from, base + from, end - from) !=
                         BOLT_OK)
            wrote = 0;
    }
    /* Claims over: the receiver may reuse the counter. */
    int rc = send_control(peer, BOLT_FRAME_DATA,
                          BOLT_FRAME_F_SPLIT | (wrote ? 0 : BOLT_FRAME_F_NO_READ), req->id,
                          h->rreq, from);
    if (rc) {
        proto_send_fail(req, rc);
        return;
    }
    if (!wrote) {
        /* Staged, not written by us: this pair's single-copy access just
         * failed one way. */
        req->hints |= BOLT_TL_HINT_NO_READ;
        send_stripes(req, peer, h->rreq, from, len, &req->data_tail, &req->ndata_tail);
    }
}

/* The sender stopped claiming pieces of a split copy: its part, from
 * msg_size on, is in the receive's buffer (or comes as DATA: F_NO_READ). */
static int on_split_done(int peer, struct bolt_request *req, const struct bolt_frame_hdr *h)
{
    if (!req)
        return BOLT_OK; /* the receive ended early (an error), the sender did not know */
    if (req->kind != BOLT_REQ_RECV || req->world_peer != peer || h->len || !req->split_slot ||
        h->msg_size != req->split_at)
        return proto_error(peer, "split DATA for an unknown receive or at the wrong offset");
    const struct bolt_peer *p = &bolt_rt.peers[peer];
    bolt_rt.tls[p->tl]->claim_close(bolt_rt.tlctx[p->tl], peer, req->split_slot - 1);
    req->split_slot = 0;
    if (!(h->flags & BOLT_FRAME_F_NO_READ))
        req->received += req->expected - h->msg_size;
    if (req->received == req->expected)
        recv_finish(req, req->status.source, req->status.tag, req->msg_size, req->received);
    return BOLT_OK;
}

static int frame_begin(void *rt, int peer, const struct bolt_frame_hdr *h, void **dst,
                       void **cookie)
{
    (void)rt;
    *dst = NULL;
    *cookie = CK_MAKE(NULL, CK_CONTROL);
    if (h->magic != BOLT_FRAME_MAGIC)
        return proto_error(peer, "bad magic");
    switch (h->type) {
    case BOLT_FRAME_EAGER:
    case BOLT_FRAME_RTS:
        return on_envelope(peer, h, dst, cookie);
    case BOLT_FRAME_CTS: {
        int rc = on_cts(peer, h);
        if (!rc && h->len)
            *dst = bolt_rt.peers[peer].split_cts;
        return rc;
    }
    case BOLT_FRAME_DATA: {
        struct bolt_request *req = bolt_req_lookup(h->rreq);
        if (h->flags & BOLT_FRAME_F_SPLIT)
            return on_split_done(peer, req, h);
        if (!req || req->kind != BOLT_REQ_RECV || req->world_peer != peer || h->len == 0 ||
            h->msg_size > req->expected || h->len > req->expected - h->msg_size)
            return proto_error(peer, "DATA for an unknown receive or out of its bounds");
        *dst = (char *)req->buf + h->msg_size;
        *cookie = CK_MAKE(req, CK_DATA);
        return BOLT_OK;
    }
    case BOLT_FRAME_SYNC_ACK: {
        struct bolt_request *req = bolt_req_lookup(h->sreq);
        if (!req || req->kind != BOLT_REQ_SEND || req->world_peer != peer)
            return proto_error(peer, "SYNC_ACK for an unknown send");
        req->sync_pending = 0;
        send_try_complete(req);
        return BOLT_OK;
    }
    case BOLT_FRAME_BYE:
        proto_peer_bye(peer);
        return BOLT_OK;
    case BOLT_FRAME_TUNNEL:
        return bolt_failover_tunnel_begin(peer, h, dst, cookie);
    default:
        return proto_error(peer, "unknown frame type");
    }
}

static void frame_end(void *rt, int peer, const struct bolt_frame_hdr *h, void *cookie)
{
    (void)rt;
    if (h->type == BOLT_FRAME_TUNNEL) {
        bolt_failover_tunnel_end(peer, h, cookie);
        return;
    }
    if (h->type == BOLT_FRAME_CTS && (h->flags & BOLT_FRAME_F_SPLIT)) {
        on_split_cts(peer, h);
        return;
    }
    void *p = CK_PTR(cookie);
    switch (CK_KIND(cookie)) {
    case CK_DATA: {
        /* Stripes may land in any order: each counts its own length. */
        struct bolt_request *req = p;
        req->received += h->len;
        /* A split copy ends with the sender's F_SPLIT DATA (on_split_done). */
        if (req->received == req->expected && !req->split_slot)
            recv_finish(req, req->status.source, req->status.tag, req->msg_size, req->received);
        break;
    }
    case CK_EAGER_REQ: {
        struct bolt_request *r = p;
        size_t got = min_size(r->msg_size, r->bytes);
        if (r->trunc_tmp) {
            if (got)
                memcpy(r->buf, r->trunc_tmp, got);
            free(r->trunc_tmp);
            r->trunc_tmp = NULL;
        }
        /* Finish first: the request may be freed by then, so the ack is sent
         * from copies. */
        int sync = r->sync, to = r->world_peer;
        uint64_t ack = r->ack_sreq;
        recv_finish(r, r->status.source, r->status.tag, r->msg_size, got);
        if (sync)
            proto_send_control(to, BOLT_FRAME_SYNC_ACK, ack, 0, 0);
        break;
    }
    case CK_EAGER_UNEXP: {
        struct bolt_unexp *u = p;
        u->arrived = 1;
        if (u->claimed) {
            struct bolt_request *r = u->claimed;
            u->claimed = NULL;
            recv_take_unexp(r, u);
        }
        break;
    }
    default:
        break;
    }
}

void bolt_proto_upcalls(struct bolt_tl_upcalls *up)
{
    up->rt = &bolt_rt;
    up->frame_begin = frame_begin;
    up->frame_end = frame_end;
    up->peer_failed = proto_peer_failed;
}
