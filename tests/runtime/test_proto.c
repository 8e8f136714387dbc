/* The point-to-point protocol, driven frame by frame through a fake
 * transport: this process is rank 0 of 2, and the test plays rank 1 by
 * handing frames to the runtime's upcalls and reading what it sends. */
#include <check.h>
#include "tests/check_run.h"
#include <stdlib.h>
#include <string.h>

#include "runtime/proto.h"
#include "runtime/runtime.h"

#define MAXF 64
static struct bolt_tl_send *sent[MAXF];
static int nsent;
static int done_when_sent[MAXF]; /* was the frame's request already complete? */
static int is_control[MAXF];     /* CTS, SYNC_ACK, BYE: the runtime's own, freed on completion */
static int sync_complete = 1;    /* complete frames inside send(), as a fast socket does */
static int stripes = 3;

static int fake_send(struct bolt_tl_ctx *ctx, int peer, struct bolt_tl_send *s)
{
    (void)ctx;
    ck_assert_int_eq(peer, 1);
    struct bolt_request *r = ((struct bolt_frame_slot *)s)->req;
    done_when_sent[nsent] = r ? r->done : 0;
    is_control[nsent] = r == NULL;
    sent[nsent++] = s;
    if (sync_complete && r)
        s->complete(s, BOLT_OK);
    return BOLT_OK;
}
static size_t fake_eager(struct bolt_tl_ctx *c, int p) { (void)c; (void)p; return 1000; }
static int fake_stripes(struct bolt_tl_ctx *c, int p, size_t b) { (void)c; (void)p; (void)b; return stripes; }
static int fake_progress(struct bolt_tl_ctx *c) { (void)c; return 0; }
static int fake_pollfds(struct bolt_tl_ctx *c, struct pollfd *f, int m) { (void)c; (void)f; (void)m; return 0; }
/* The frame rank 1 has sent that is still in the transport (take_now). */
static struct bolt_frame_hdr held;
static int held_value, have_held, take_calls;
static int fake_take(struct bolt_tl_ctx *c, int p, const struct bolt_frame_hdr *w, void *buf)
{
    (void)c;
    ck_assert_int_eq(p, 1);
    take_calls++;
    if (!have_held || w->type != held.type || w->ctx != held.ctx || w->src != held.src ||
        w->tag != held.tag || w->len != held.len || w->flags != held.flags)
        return 0;
    memcpy(buf, &held_value, sizeof held_value);
    have_held = 0;
    return 1;
}
/* One-sided reads: "rank 1's memory" is this process's, so a get is a copy. */
static int get_allowed, get_works, get_calls;
static int get_fail_after = -1; /* >= 0: reads after this many fail */
static int fake_get_ok(struct bolt_tl_ctx *c, int p, size_t len, unsigned hints)
{
    (void)c, (void)p, (void)len, (void)hints;
    return get_allowed;
}
static int fake_get(struct bolt_tl_ctx *c, int p, void *dst, uint64_t raddr, size_t len)
{
    (void)c;
    ck_assert_int_eq(p, 1);
    get_calls++;
    if (!get_works || (get_fail_after >= 0 && get_calls > get_fail_after))
        return BOLT_ERR_SYS;
    memcpy(dst, (const void *)(uintptr_t)raddr, len);
    return BOLT_OK;
}
/* Writes into "rank 1's memory" (this process's, too). */
static int put_allowed, put_works, put_calls;
static int fake_put_ok(struct bolt_tl_ctx *c, int p, size_t len, unsigned hints)
{
    (void)c, (void)p, (void)len;
    return put_allowed && (hints & BOLT_TL_HINT_SENDER_WAITS);
}
static int fake_put(struct bolt_tl_ctx *c, int p, const void *src, uint64_t raddr, size_t len)
{
    (void)c;
    ck_assert_int_eq(p, 1);
    put_calls++;
    if (!put_works)
        return BOLT_ERR_SYS;
    memcpy((void *)(uintptr_t)raddr, src, len);
    return BOLT_OK;
}
/* One claim counter (slot 0) for split copies with rank 1: the receiver
 * claims from the front, the sender from the back; at the first claim the
 * other side takes `claim_rival` pieces, as if it had claimed them while
 * this one was starting. */
static uint32_t claim_front, claim_back, claim_rival;
static int claim_free, claim_opened;
static size_t claim_piece;
static int fake_claim_open(struct bolt_tl_ctx *c, int p, size_t len, size_t *piece)
{
    (void)c;
    ck_assert_int_eq(p, 1);
    if (!claim_free || claim_opened)
        return -1;
    claim_opened = 1;
    claim_front = 0;
    claim_back = (uint32_t)((len + claim_piece - 1) / claim_piece);
    *piece = claim_piece;
    return 0;
}
static int fake_claim(struct bolt_tl_ctx *c, int p, int slot, int from_back)
{
    (void)c;
    ck_assert_int_eq(p, 1);
    if (slot != 0)
        return -1;
    for (; claim_rival && claim_front < claim_back; claim_rival--)
        from_back ? claim_front++ : claim_back--;
    if (claim_front >= claim_back)
        return -1;
    return from_back ? (int)--claim_back : (int)claim_front++;
}
static void fake_claim_close(struct bolt_tl_ctx *c, int p, int slot)
{
    (void)c;
    ck_assert_int_eq(p, 1);
    ck_assert_int_eq(slot, 0);
    ck_assert(claim_opened);
    claim_opened = 0;
}
static const struct bolt_transport fake = {
    .name = "fake", .send = fake_send, .eager_limit = fake_eager, .data_stripes = fake_stripes,
    .progress = fake_progress, .pollfds = fake_pollfds, .take_now = fake_take,
    .get_ok = fake_get_ok, .get = fake_get, .put_ok = fake_put_ok, .put = fake_put,
    .claim_open = fake_claim_open, .claim = fake_claim, .claim_close = fake_claim_close,
};

static void setup(void)
{
    memset(&bolt_rt, 0, sizeof bolt_rt);
    bolt_rt.initialized = 1;
    bolt_rt.rank = 0;
    bolt_rt.size = 2;
    bolt_rt.peers = calloc(2, sizeof *bolt_rt.peers);
    bolt_rt.peers[0].tl = -1;
    strcpy(bolt_rt.peers[1].host, "peerhost");
    bolt_rt.ntls = 1;
    bolt_rt.tls[0] = &fake;
    bolt_proto_upcalls(&bolt_rt.up);
    int all[2] = {0, 1};
    bolt_rt.world = bolt_comm_create(BOLT_CTX_WORLD, 0, 2, all);
    nsent = 0;
    have_held = take_calls = 0;
    get_allowed = get_works = get_calls = 0;
    get_fail_after = -1;
    put_allowed = put_works = put_calls = 0;
    claim_front = claim_back = claim_rival = 0;
    claim_free = 1;
    claim_opened = 0;
    claim_piece = 4096;
    sync_complete = 1;
    stripes = 3;
}

static void teardown(void)
{
    for (int i = 0; i < nsent; i++)
        if (is_control[i])
            free(sent[i]); /* never completed by the fake, so never freed by the runtime */
    bolt_match_free_all(&bolt_rt.match);
    bolt_comm_destroy(bolt_rt.world);
    free(bolt_rt.peers);
    bolt_req_table_free();
}

/* Rank 1 sends a frame to us; payload copied into whatever the runtime gives. */
static int deliver(struct bolt_frame_hdr h, const void *payload)
{
    void *dst, *cookie;
    h.magic = BOLT_FRAME_MAGIC;
    int rc = bolt_rt.up.frame_begin(bolt_rt.up.rt, 1, &h, &dst, &cookie);
    if (rc)
        return rc;
    if (h.len)
        memcpy(dst, payload, h.len);
    bolt_rt.up.frame_end(bolt_rt.up.rt, 1, &h, cookie);
    return BOLT_OK;
}

/* n bytes of a pattern: byte i is i * mul + add. */
static void fill(void *buf, size_t n, unsigned mul, unsigned add)
{
    for (size_t i = 0; i < n; i++)
        ((unsigned char *)buf)[i] = (unsigned char)(i * mul + add);
}

/* The one frame this rank sent is an empty CTS (the sender released, the
 * receiver needs nothing more); freed. */
static void sent_only_an_empty_cts(void)
{
    ck_assert_int_eq(nsent, 1);
    ck_assert_int_eq(sent[0]->hdr.type, BOLT_FRAME_CTS);
    ck_assert_uint_eq(sent[0]->hdr.msg_size, 0);
    free(sent[0]);
}

/* Rank 1's RTS (tag `tag`) for `size` bytes offering its buffer: to read
 * (F_GET), and to split (also F_SPLIT). */
static struct bolt_frame_hdr rts_offering(const void *buf, size_t size, uint8_t flags, int tag,
                                          uint64_t sreq)
{
    return (struct bolt_frame_hdr){.type = BOLT_FRAME_RTS, .flags = flags, .src = 1, .tag = tag,
                                   .msg_size = size, .sreq = sreq,
                                   .rreq = (uint64_t)(uintptr_t)buf};
}

/* The receiver's split CTS for send sreq of `size` bytes (receive 66); its
 * payload is where: {buffer address, offset the sender writes from}. */
static struct bolt_frame_hdr split_cts(uint64_t sreq, size_t size)
{
    return (struct bolt_frame_hdr){.type = BOLT_FRAME_CTS, .flags = BOLT_FRAME_F_SPLIT,
                                   .sreq = sreq, .rreq = 66, .msg_size = size,
                                   .len = 3 * sizeof(uint64_t)};
}

START_TEST(large_send_finishes_only_after_every_stripe)
{
    static char buf[10000];
    struct bolt_request *req;
    ck_assert_int_eq(bolt_proto_isend(buf, sizeof buf, 1, 5, bolt_rt.world, 0, 0, &req), BOLT_OK);
    ck_assert_int_eq(nsent, 1);
    ck_assert_int_eq(sent[0]->hdr.type, BOLT_FRAME_RTS);
    ck_assert_uint_eq(sent[0]->hdr.msg_size, sizeof buf);
    ck_assert(!req->done); /* waits for the receiver */
    struct bolt_frame_hdr cts = {.type = BOLT_FRAME_CTS, .sreq = sent[0]->hdr.sreq, .rreq = 77,
                                 .msg_size = sizeof buf};
    ck_assert_int_eq(deliver(cts, NULL), BOLT_OK);
    ck_assert_int_eq(nsent, 1 + stripes);
    size_t total = 0;
    for (int i = 1; i <= stripes; i++) {
        ck_assert_int_eq(sent[i]->hdr.type, BOLT_FRAME_DATA);
        ck_assert_uint_eq(sent[i]->hdr.rreq, 77);
        ck_assert_uint_eq(sent[i]->hdr.msg_size, total); /* offset */
        ck_assert_msg(!done_when_sent[i], "request completed before stripe %d was sent", i);
        total += sent[i]->hdr.len;
    }
    ck_assert_uint_eq(total, sizeof buf);
    ck_assert(req->done);
    ck_assert_int_eq(req->status.error, BOLT_OK);
    bolt_req_release(req);
}
END_TEST

/* Where the transport lets the receiver read the sender's buffer, the RTS
 * offers it; an empty CTS (the receiver has read it) completes the send. */
START_TEST(rendezvous_send_offers_its_buffer_for_reading)
{
    static char buf[5000];
    struct bolt_request *req;
    get_allowed = 1;
    ck_assert_int_eq(bolt_proto_isend(buf, sizeof buf, 1, 5, bolt_rt.world, 0, 0, &req), BOLT_OK);
    ck_assert_int_eq(nsent, 1);
    ck_assert_int_eq(sent[0]->hdr.type, BOLT_FRAME_RTS);
    ck_assert(sent[0]->hdr.flags & BOLT_FRAME_F_GET);
    ck_assert_uint_eq(sent[0]->hdr.rreq, (uint64_t)(uintptr_t)buf);
    ck_assert(!req->done);
    struct bolt_frame_hdr cts = {.type = BOLT_FRAME_CTS, .sreq = sent[0]->hdr.sreq};
    ck_assert_int_eq(deliver(cts, NULL), BOLT_OK);
    ck_assert_int_eq(nsent, 1); /* no DATA */
    ck_assert(req->done);
    ck_assert_int_eq(req->status.error, BOLT_OK);
    bolt_req_release(req);
    /* The receiver could not read it: DATA follows, marked for the
     * transport as not to be read by the receiver. */
    ck_assert_int_eq(bolt_proto_isend(buf, sizeof buf, 1, 5, bolt_rt.world, 0, 0, &req), BOLT_OK);
    struct bolt_frame_hdr noread = {.type = BOLT_FRAME_CTS, .flags = BOLT_FRAME_F_NO_READ,
                                    .sreq = sent[1]->hdr.sreq, .rreq = 78, .msg_size = sizeof buf};
    ck_assert_int_eq(deliver(noread, NULL), BOLT_OK);
    ck_assert_int_eq(nsent, 2 + stripes);
    for (int i = 2; i < nsent; i++) {
        ck_assert_int_eq(sent[i]->hdr.type, BOLT_FRAME_DATA);
        ck_assert(sent[i]->hints & BOLT_TL_HINT_NO_READ);
    }
    ck_assert(req->done);
    bolt_req_release(req);
}
END_TEST

/* An RTS offering its buffer is read on the match (posted, or later from
 * the unexpected queue) and answered with an empty CTS; a read that fails
 * falls back to the CTS asking for DATA. A short buffer reads its part and
 * reports the truncation. */
START_TEST(rendezvous_receive_reads_an_offered_buffer)
{
    static char theirs[3000], mine[3000];
    fill(theirs, sizeof theirs, 7, 1);
    struct bolt_frame_hdr rts = rts_offering(theirs, sizeof theirs, BOLT_FRAME_F_GET, 2, 91);
    struct bolt_request *req;
    get_works = 1;
    for (int posted = 1; posted >= 0; posted--) {
        memset(mine, 0, sizeof mine);
        nsent = 0;
        if (!posted)
            ck_assert_int_eq(deliver(rts, NULL), BOLT_OK);
        ck_assert_int_eq(bolt_proto_irecv(mine, sizeof mine, 1, 2, bolt_rt.world, 0, &req), BOLT_OK);
        if (posted)
            ck_assert_int_eq(deliver(rts, NULL), BOLT_OK);
        ck_assert(req->done);
        ck_assert_int_eq(req->status.error, BOLT_OK);
        ck_assert_uint_eq(req->status.bytes, sizeof theirs);
        ck_assert_int_eq(memcmp(mine, theirs, sizeof mine), 0);
        ck_assert_int_eq(nsent, 1);
        ck_assert_int_eq(sent[0]->hdr.type, BOLT_FRAME_CTS);
        ck_assert_uint_eq(sent[0]->hdr.sreq, 91);
        ck_assert_uint_eq(sent[0]->hdr.msg_size, 0);
        free(sent[0]);
        bolt_req_release(req);
    }
    ck_assert_int_eq(get_calls, 2);
    /* Truncated: the receive's part is read, the error says so. */
    nsent = 0;
    ck_assert_int_eq(bolt_proto_irecv(mine, 1000, 1, 2, bolt_rt.world, 0, &req), BOLT_OK);
    ck_assert_int_eq(deliver(rts, NULL), BOLT_OK);
    ck_assert(req->done);
    ck_assert_int_eq(req->status.error, BOLT_ERR_TRUNCATE);
    ck_assert_int_eq(memcmp(mine, theirs, 1000), 0);
    free(sent[0]);
    bolt_req_release(req);
    /* The read fails: a CTS for the bytes, saying that the receiver cannot
     * read the sender (its DATA must not ask for that either). */
    get_works = 0;
    nsent = 0;
    ck_assert_int_eq(bolt_proto_irecv(mine, sizeof mine, 1, 2, bolt_rt.world, 0, &req), BOLT_OK);
    ck_assert_int_eq(deliver(rts, NULL), BOLT_OK);
    ck_assert(!req->done);
    ck_assert_int_eq(nsent, 1);
    ck_assert_uint_eq(sent[0]->hdr.msg_size, sizeof theirs);
    ck_assert_uint_eq(sent[0]->hdr.rreq, req->id);
    ck_assert(sent[0]->hdr.flags & BOLT_FRAME_F_NO_READ);
    struct bolt_frame_hdr data = {.type = BOLT_FRAME_DATA, .rreq = req->id, .len = sizeof theirs,
                                  .msg_size = 0};
    ck_assert_int_eq(deliver(data, theirs), BOLT_OK);
    ck_assert(req->done);
    ck_assert_int_eq(req->status.error, BOLT_OK);
    bolt_req_release(req);
    nsent = 1; /* teardown frees the CTS */
}
END_TEST

START_TEST(stripes_land_in_any_order)
{
    static char want[9000], got[9000];
    for (size_t i = 0; i < sizeof want; i++)
        want[i] = (char)(i * 13);
    struct bolt_request *req;
    ck_assert_int_eq(bolt_proto_irecv(got, sizeof got, 1, 4, bolt_rt.world, 0, &req), BOLT_OK);
    struct bolt_frame_hdr rts = {.type = BOLT_FRAME_RTS, .src = 1, .tag = 4, .msg_size = 9000,
                                 .sreq = 99};
    ck_assert_int_eq(deliver(rts, NULL), BOLT_OK);
    ck_assert_int_eq(nsent, 1);
    ck_assert_int_eq(sent[0]->hdr.type, BOLT_FRAME_CTS);
    ck_assert_uint_eq(sent[0]->hdr.sreq, 99);
    uint64_t rreq = sent[0]->hdr.rreq;
    size_t offs[3] = {6000, 0, 3000};
    for (int i = 0; i < 3; i++) {
        ck_assert(!req->done);
        struct bolt_frame_hdr d = {.type = BOLT_FRAME_DATA, .rreq = rreq, .msg_size = offs[i],
                                   .len = 3000};
        ck_assert_int_eq(deliver(d, want + offs[i]), BOLT_OK);
    }
    ck_assert(req->done);
    ck_assert_int_eq(memcmp(got, want, sizeof want), 0);
    ck_assert_int_eq(req->status.source, 1);
    ck_assert_int_eq(req->status.tag, 4);
    ck_assert_uint_eq(req->status.bytes, 9000);
    bolt_req_release(req);
}
END_TEST

START_TEST(forged_or_stale_frames_are_refused)
{
    struct bolt_frame_hdr d = {.type = BOLT_FRAME_DATA, .rreq = 12345, .len = 10};
    char junk[10] = {0};
    ck_assert_int_eq(deliver(d, junk), BOLT_ERR_PROTO);
    struct bolt_frame_hdr cts = {.type = BOLT_FRAME_CTS, .sreq = 4242, .msg_size = 1};
    ck_assert_int_eq(deliver(cts, NULL), BOLT_ERR_PROTO);
    struct bolt_frame_hdr bad = {.type = 99};
    ck_assert_int_eq(deliver(bad, NULL), BOLT_ERR_PROTO);
    /* DATA beyond the receive's bounds */
    char buf[100];
    struct bolt_request *req;
    ck_assert_int_eq(bolt_proto_irecv(buf, sizeof buf, 1, 0, bolt_rt.world, 0, &req), BOLT_OK);
    struct bolt_frame_hdr rts = {.type = BOLT_FRAME_RTS, .src = 1, .msg_size = 5000, .sreq = 1};
    ck_assert_int_eq(deliver(rts, NULL), BOLT_OK);
    ck_assert_uint_eq(sent[0]->hdr.msg_size, 100); /* only what fits is asked for */
    struct bolt_frame_hdr over = {.type = BOLT_FRAME_DATA, .rreq = sent[0]->hdr.rreq,
                                  .msg_size = 50, .len = 51};
    ck_assert_int_eq(deliver(over, junk), BOLT_ERR_PROTO);
    bolt_req_release(req);
}
END_TEST

START_TEST(unexpected_eager_messages_keep_their_order)
{
    for (int i = 0; i < 5; i++) {
        struct bolt_frame_hdr e = {.type = BOLT_FRAME_EAGER, .src = 1, .tag = 3, .len = sizeof i,
                                   .msg_size = sizeof i};
        ck_assert_int_eq(deliver(e, &i), BOLT_OK);
    }
    for (int i = 0; i < 5; i++) {
        int v = -1;
        struct bolt_request *req;
        ck_assert_int_eq(bolt_proto_irecv(&v, sizeof v, BOLT_ANY_SOURCE, 3, bolt_rt.world, 0, &req),
                         BOLT_OK);
        ck_assert(req->done);
        ck_assert_int_eq(v, i);
        bolt_req_release(req);
    }
}
END_TEST

/* A receive without a request takes its message from the unexpected queue,
 * else straight from the transport; never past an earlier message that
 * matches, nor past a posted receive that would match first. */
START_TEST(recv_now_keeps_the_matching_order)
{
    struct bolt_frame_hdr e = {.type = BOLT_FRAME_EAGER, .src = 1, .tag = 4, .len = sizeof(int),
                               .msg_size = sizeof(int)};
    held = e;
    held.magic = BOLT_FRAME_MAGIC;
    held_value = 42;
    have_held = 1;
    int v = -1, one = 1;
    /* In the transport only: taken from there. */
    ck_assert_int_eq(bolt_proto_recv_now(&v, sizeof v, 1, 4, bolt_rt.world, 0), 1);
    ck_assert_int_eq(v, 42);
    ck_assert_int_eq(have_held, 0);
    /* An earlier one in the unexpected queue goes first. */
    ck_assert_int_eq(deliver(e, &one), BOLT_OK);
    have_held = 1;
    ck_assert_int_eq(bolt_proto_recv_now(&v, sizeof v, 1, 4, bolt_rt.world, 0), 1);
    ck_assert_int_eq(v, 1);
    ck_assert_int_eq(have_held, 1);
    /* A posted receive that would match gets the next one: not taken. */
    int w = -1;
    struct bolt_request *req;
    ck_assert_int_eq(bolt_proto_irecv(&w, sizeof w, 1, BOLT_ANY_TAG, bolt_rt.world, 0, &req),
                     BOLT_OK);
    take_calls = 0;
    ck_assert_int_eq(bolt_proto_recv_now(&v, sizeof v, 1, 4, bolt_rt.world, 0), 0);
    ck_assert_int_eq(take_calls, 0);
    ck_assert_int_eq(have_held, 1);
    ck_assert_int_eq(deliver(e, &held_value), BOLT_OK); /* it arrives: the posted one has it */
    ck_assert(req->done);
    ck_assert_int_eq(w, 42);
    bolt_req_release(req);
    /* Another size, or a synchronous sender: left for a posted receive. */
    held.flags = BOLT_FRAME_F_SYNC;
    ck_assert_int_eq(bolt_proto_recv_now(&v, sizeof v, 1, 4, bolt_rt.world, 0), 0);
    held.flags = 0;
    ck_assert_int_eq(bolt_proto_recv_now(&v, 2, 1, 4, bolt_rt.world, 0), 0);
    ck_assert_int_eq(have_held, 1);
}
END_TEST

START_TEST(truncated_eager_message_is_an_error_with_the_prefix)
{
    char msg[50], small[20];
    for (int i = 0; i < 50; i++)
        msg[i] = (char)i;
    struct bolt_request *req;
    ck_assert_int_eq(bolt_proto_irecv(small, sizeof small, 1, 0, bolt_rt.world, 0, &req), BOLT_OK);
    struct bolt_frame_hdr e = {.type = BOLT_FRAME_EAGER, .src = 1, .len = 50, .msg_size = 50};
    ck_assert_int_eq(deliver(e, msg), BOLT_OK);
    ck_assert(req->done);
    ck_assert_int_eq(req->status.error, BOLT_ERR_TRUNCATE);
    ck_assert_uint_eq(req->status.bytes, 20);
    ck_assert_int_eq(memcmp(small, msg, 20), 0);
    bolt_req_release(req);
}
END_TEST

START_TEST(synchronous_send_waits_for_the_match)
{
    int v = 7;
    struct bolt_request *req;
    ck_assert_int_eq(bolt_proto_isend(&v, sizeof v, 1, 2, bolt_rt.world, 0, 1, &req), BOLT_OK);
    ck_assert_int_eq(sent[0]->hdr.type, BOLT_FRAME_EAGER);
    ck_assert(sent[0]->hdr.flags & BOLT_FRAME_F_SYNC);
    ck_assert(!req->done);
    struct bolt_frame_hdr ack = {.type = BOLT_FRAME_SYNC_ACK, .sreq = sent[0]->hdr.sreq};
    ck_assert_int_eq(deliver(ack, NULL), BOLT_OK);
    ck_assert(req->done);
    bolt_req_release(req);
}
END_TEST

START_TEST(a_broken_peer_fails_what_waits_for_it)
{
    sync_complete = 0;
    int a, b;
    static char big[5000];
    struct bolt_request *r1, *r2, *s1;
    ck_assert_int_eq(bolt_proto_irecv(&a, sizeof a, 1, 0, bolt_rt.world, 0, &r1), BOLT_OK);
    ck_assert_int_eq(bolt_proto_irecv(&b, sizeof b, BOLT_ANY_SOURCE, 0, bolt_rt.world, 0, &r2), BOLT_OK);
    ck_assert_int_eq(bolt_proto_isend(big, sizeof big, 1, 0, bolt_rt.world, 0, 0, &s1), BOLT_OK);
    bolt_rt.up.peer_failed(bolt_rt.up.rt, 1, BOLT_ERR_PEER, "connection reset by peer");
    ck_assert(r1->done && r1->status.error == BOLT_ERR_PEER);
    ck_assert(r2->done && r2->status.error == BOLT_ERR_PEER);
    /* the RTS is still in the transport's hands: done only once it gives it back */
    ck_assert(!s1->done);
    sent[0]->complete(sent[0], BOLT_ERR_PEER);
    ck_assert(s1->done && s1->status.error == BOLT_ERR_PEER);
    ck_assert_int_eq(bolt_proto_req_error(r1), BOLT_ERR_PEER);
    ck_assert_ptr_nonnull(strstr(bolt_error_message(), "peer rank 1 on peerhost"));
    ck_assert_ptr_nonnull(strstr(bolt_error_message(), "connection reset by peer"));
    bolt_req_release(r1);
    bolt_req_release(r2);
    bolt_req_release(s1);
}
END_TEST


START_TEST(peer_dying_mid_payload_fails_the_matched_receive)
{
    char buf[100];
    struct bolt_request *req;
    ck_assert_int_eq(bolt_proto_irecv(buf, sizeof buf, 1, 0, bolt_rt.world, 0, &req), BOLT_OK);
    struct bolt_frame_hdr e = {.magic = BOLT_FRAME_MAGIC, .type = BOLT_FRAME_EAGER, .src = 1,
                               .len = 80, .msg_size = 80};
    void *dst, *cookie;
    ck_assert_int_eq(bolt_rt.up.frame_begin(bolt_rt.up.rt, 1, &e, &dst, &cookie), BOLT_OK);
    ck_assert(!req->done); /* payload still streaming in... */
    bolt_rt.up.peer_failed(bolt_rt.up.rt, 1, BOLT_ERR_PEER, "connection reset by peer");
    ck_assert(req->done);
    ck_assert_int_eq(req->status.error, BOLT_ERR_PEER);
    bolt_req_release(req);
}
END_TEST

START_TEST(a_peer_that_finalizes_releases_sends_waiting_for_it)
{
    int v = 1;
    static char big[5000];
    struct bolt_request *ss, *rs;
    ck_assert_int_eq(bolt_proto_isend(&v, sizeof v, 1, 0, bolt_rt.world, 0, 1, &ss), BOLT_OK);
    ck_assert_int_eq(bolt_proto_isend(big, sizeof big, 1, 0, bolt_rt.world, 0, 0, &rs), BOLT_OK);
    ck_assert(!ss->done && !rs->done);
    struct bolt_frame_hdr bye = {.type = BOLT_FRAME_BYE};
    ck_assert_int_eq(deliver(bye, NULL), BOLT_OK);
    ck_assert(ss->done && ss->status.error == BOLT_ERR_PEER);
    ck_assert(rs->done && rs->status.error == BOLT_ERR_PEER);
    ck_assert_int_eq(bolt_proto_req_error(ss), BOLT_ERR_PEER);
    ck_assert_ptr_nonnull(strstr(bolt_error_message(), "already called bolt_finalize"));
    bolt_req_release(ss);
    bolt_req_release(rs);
}
END_TEST

START_TEST(no_empty_stripes)
{
    static char buf[5000];
    stripes = 4;
    struct bolt_request *req;
    ck_assert_int_eq(bolt_proto_isend(buf, sizeof buf, 1, 5, bolt_rt.world, 0, 0, &req), BOLT_OK);
    struct bolt_frame_hdr cts = {.type = BOLT_FRAME_CTS, .sreq = sent[0]->hdr.sreq, .rreq = 1,
                                 .msg_size = 5}; /* the receiver only has room for 5 bytes */
    ck_assert_int_eq(deliver(cts, NULL), BOLT_OK);
    size_t total = 0;
    for (int i = 1; i < nsent; i++) {
        ck_assert_uint_gt(sent[i]->hdr.len, 0);
        total += sent[i]->hdr.len;
    }
    ck_assert_uint_eq(total, 5);
    ck_assert(req->done);
    bolt_req_release(req);
    /* and an empty DATA frame is refused */
    struct bolt_frame_hdr d = {.type = BOLT_FRAME_DATA, .rreq = 1};
    ck_assert_int_eq(deliver(d, NULL), BOLT_ERR_PROTO);
}
END_TEST

START_TEST(freeing_a_communicator_with_pending_receives_is_safe)
{
    int all[2] = {0, 1};
    bolt_comm_t c = bolt_comm_create(10, 0, 2, all);
    int a;
    struct bolt_request *r;
    ck_assert_int_eq(bolt_proto_irecv(&a, sizeof a, BOLT_ANY_SOURCE, 0, c, 10, &r), BOLT_OK);
    c->refs--; /* what bolt_comm_free does to the user's handle */
    bolt_rt.up.peer_failed(bolt_rt.up.rt, 1, BOLT_ERR_PEER, "gone");
    ck_assert(r->done && r->status.error == BOLT_ERR_PEER);
    ck_assert_int_eq(r->status.source, 1);
    bolt_req_release(r); /* the last reference: the communicator goes too */
}
END_TEST

static int fail_on_cts(struct bolt_tl_ctx *ctx, int peer, struct bolt_tl_send *s)
{
    (void)ctx;
    /* like TCP when the write hits EPIPE: the peer fails inside send() */
    sent[nsent++] = s;
    bolt_rt.up.peer_failed(bolt_rt.up.rt, peer, BOLT_ERR_PEER, "broken pipe");
    s->complete(s, BOLT_ERR_PEER);
    return BOLT_OK;
}

START_TEST(a_cts_that_breaks_the_link_does_not_touch_a_freed_request)
{
    static struct bolt_transport failing;
    failing = fake;
    failing.send = fail_on_cts;
    bolt_rt.tls[0] = &failing;
    static char buf[5000];
    struct bolt_request *req;
    ck_assert_int_eq(bolt_proto_irecv(buf, sizeof buf, 1, 0, bolt_rt.world, 0, &req), BOLT_OK);
    req->user_freed = 1; /* bolt_request_free on a pending receive */
    struct bolt_frame_hdr rts = {.type = BOLT_FRAME_RTS, .src = 1, .msg_size = 5000, .sreq = 3};
    deliver(rts, NULL); /* ASan would flag a use after free here */
    ck_assert_int_eq(nsent, 1);
    bolt_rt.tls[0] = &fake;
    nsent = 0; /* the CTS was freed by its completion */
}
END_TEST

START_TEST(receiving_into_a_null_zero_byte_buffer_is_a_truncation)
{
    int v = 42;
    struct bolt_frame_hdr e = {.type = BOLT_FRAME_EAGER, .src = 1, .len = 4, .msg_size = 4};
    ck_assert_int_eq(deliver(e, &v), BOLT_OK);
    struct bolt_request *req;
    ck_assert_int_eq(bolt_proto_irecv(NULL, 0, 1, 0, bolt_rt.world, 0, &req), BOLT_OK);
    ck_assert(req->done);
    ck_assert_int_eq(req->status.error, BOLT_ERR_TRUNCATE);
    ck_assert_uint_eq(req->status.bytes, 0);
    bolt_req_release(req);
}
END_TEST

/* A fold receive's consumer: what each byte became, how often it came,
 * and whether every piece was whole units. */
#define FOLD_UNIT 12
#define FOLD_BYTES (FOLD_UNIT * 20000) /* several of the runtime's read pieces */
static unsigned char folded[FOLD_BYTES], fold_seen[FOLD_BYTES];
static int fold_calls, fold_ragged;
static void fold_record(void *arg, size_t off, void *data, size_t len)
{
    ck_assert_ptr_eq(arg, folded);
    ck_assert_uint_le(off + len, FOLD_BYTES);
    fold_calls++;
    fold_ragged |= len % FOLD_UNIT != 0 || off % FOLD_UNIT != 0;
    for (size_t i = 0; i < len; i++) {
        folded[off + i] = ((unsigned char *)data)[i];
        fold_seen[off + i]++;
    }
}
static void fold_record_any(void *arg, size_t off, void *data, size_t len)
{
    (void)arg, (void)off, (void)data, (void)len;
    fold_calls++;
}
static void fold_reset(void)
{
    memset(folded, 0, sizeof folded);
    memset(fold_seen, 0, sizeof fold_seen);
    fold_calls = fold_ragged = 0;
}
/* A fold receive (tag 4, from rank 1) of `bytes` landing in tmp when it
 * is not read in pieces; fold_record keeps what is folded. */
static struct bolt_request *fold_recv(void *tmp, size_t bytes)
{
    struct bolt_request *req;
    ck_assert_int_eq(bolt_proto_irecv_fold(tmp, bytes, FOLD_UNIT, fold_record, folded, 1, 4,
                                           bolt_rt.world, 0, &req),
                     BOLT_OK);
    return req;
}
static int fold_once(const unsigned char *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fold_seen[i] != 1 || folded[i] != want[i])
            return 0;
    return 1;
}

START_TEST(a_fold_receive_consumes_every_byte_once_whatever_the_path)
{
    static unsigned char theirs[FOLD_BYTES], tmp[FOLD_BYTES];
    fill(theirs, sizeof theirs, 13, 5);
    struct bolt_frame_hdr rts = rts_offering(theirs, sizeof theirs, BOLT_FRAME_F_GET, 4, 77);
    struct bolt_request *req;
    get_works = 1;
    /* Read by the receiver: in pieces of whole units, before and after the
     * RTS arrives; tmp is not used. */
    for (int posted = 1; posted >= 0; posted--) {
        fold_reset();
        memset(tmp, 0, sizeof tmp);
        nsent = 0;
        if (!posted)
            ck_assert_int_eq(deliver(rts, NULL), BOLT_OK);
        req = fold_recv(tmp, sizeof tmp);
        if (posted)
            ck_assert_int_eq(deliver(rts, NULL), BOLT_OK);
        ck_assert(req->done);
        ck_assert_int_eq(req->status.error, BOLT_OK);
        ck_assert_uint_eq(req->status.bytes, sizeof theirs);
        ck_assert(fold_once(theirs, sizeof theirs));
        ck_assert_int_gt(fold_calls, 2);
        ck_assert(!fold_ragged);
        ck_assert_int_eq(tmp[1], 0);
        sent_only_an_empty_cts();
        bolt_req_release(req);
    }
    /* Eager: lands in tmp, folded once when whole. */
    fold_reset();
    nsent = 0;
    req = fold_recv(tmp, 120);
    struct bolt_frame_hdr eager = {.type = BOLT_FRAME_EAGER, .src = 1, .tag = 4, .len = 120,
                                   .msg_size = 120};
    ck_assert_int_eq(deliver(eager, theirs), BOLT_OK);
    ck_assert(req->done);
    ck_assert_int_eq(req->status.error, BOLT_OK);
    ck_assert_int_eq(fold_calls, 1);
    ck_assert(fold_once(theirs, 120));
    bolt_req_release(req);
    /* The first read fails: DATA stripes land in tmp, folded once at the end. */
    fold_reset();
    get_works = 0;
    req = fold_recv(tmp, sizeof tmp);
    ck_assert_int_eq(deliver(rts, NULL), BOLT_OK);
    ck_assert_int_eq(nsent, 1);
    ck_assert(sent[0]->hdr.flags & BOLT_FRAME_F_NO_READ);
    size_t third = sizeof theirs / 3;
    for (int i = 2; i >= 0; i--) {
        struct bolt_frame_hdr data = {.type = BOLT_FRAME_DATA, .rreq = req->id, .len = third,
                                      .msg_size = (size_t)i * third};
        ck_assert_int_eq(deliver(data, theirs + (size_t)i * third), BOLT_OK);
        ck_assert_int_eq(fold_calls, 0 + (i == 0));
    }
    ck_assert(req->done);
    ck_assert_int_eq(req->status.error, BOLT_OK);
    ck_assert(fold_once(theirs, sizeof theirs));
    free(sent[0]);
    bolt_req_release(req);
    /* A read that fails after its first piece: nothing is folded twice, the
     * receive fails and the sender is released. */
    fold_reset();
    get_works = 1;
    get_fail_after = get_calls + 1;
    nsent = 0;
    req = fold_recv(tmp, sizeof tmp);
    ck_assert_int_eq(deliver(rts, NULL), BOLT_OK);
    ck_assert(req->done);
    ck_assert_int_eq(req->status.error, BOLT_ERR_SYS);
    ck_assert_int_eq(fold_calls, 1);
    sent_only_an_empty_cts();
    bolt_req_release(req);
    /* Too large for the receive: an error, nothing folded. */
    fold_reset();
    get_fail_after = -1;
    nsent = 0;
    req = fold_recv(tmp, 1200);
    ck_assert_int_eq(deliver(rts, NULL), BOLT_OK);
    ck_assert(req->done);
    ck_assert_int_eq(req->status.error, BOLT_ERR_TRUNCATE);
    ck_assert_int_eq(fold_calls, 0);
    ck_assert_int_eq(nsent, 1); /* the CTS, which teardown frees */
    bolt_req_release(req);
}
END_TEST

/* A split copy, sender's side: the RTS offers it where the transport can
 * write the receiver's memory; the receiver's split CTS says where its
 * buffer is, the piece size and the claim counter; the sender writes the
 * pieces it claims from the back (here the receiver took piece 0 first) and
 * says where its part starts (DATA with F_SPLIT), and completes when the
 * receiver has read the other part (an empty CTS). When its write fails,
 * it says so (F_NO_READ) and sends its part as DATA. A split CTS for a send
 * that did not offer one, or with bad pieces, is refused. */
START_TEST(a_split_copy_sender_writes_its_part_and_waits_for_the_receivers)
{
    static char buf[9000];
    static _Alignas(4096) char theirs[9000]; /* pieces [0, 4096) [4096, 8192) [8192, 9000) */
    fill(buf, sizeof buf, 3, 1);
    struct bolt_request *req;
    get_allowed = put_allowed = put_works = 1;
    for (int works = 1; works >= 0; works--) {
        put_works = works;
        memset(theirs, 0, sizeof theirs);
        int first = nsent;
        ck_assert_int_eq(bolt_proto_isend(buf, sizeof buf, 1, 5, bolt_rt.world, 0,
                                          BOLT_PROTO_WAITS, &req),
                         BOLT_OK);
        ck_assert_int_eq(nsent, first + 1);
        ck_assert_int_eq(sent[first]->hdr.flags & (BOLT_FRAME_F_GET | BOLT_FRAME_F_SPLIT),
                         BOLT_FRAME_F_GET | BOLT_FRAME_F_SPLIT);
        claim_front = 0, claim_back = 3, claim_rival = 1;
        uint64_t where[3] = {(uint64_t)(uintptr_t)theirs, 4096, 0};
        ck_assert_int_eq(deliver(split_cts(sent[first]->hdr.sreq, sizeof buf), where), BOLT_OK);
        ck_assert(!req->done);
        ck_assert_uint_eq(claim_front, claim_back); /* it claimed all it could */
        ck_assert_int_eq(sent[first + 1]->hdr.type, BOLT_FRAME_DATA);
        ck_assert_uint_eq(sent[first + 1]->hdr.rreq, 66);
        ck_assert_uint_eq(sent[first + 1]->hdr.msg_size, 4096);
        ck_assert_uint_eq(sent[first + 1]->hdr.len, 0);
        if (works) {
            ck_assert_int_eq(memcmp(theirs + 4096, buf + 4096, sizeof buf - 4096), 0);
            ck_assert_int_eq(theirs[4095], 0);
            ck_assert_int_eq(nsent, first + 2);
            ck_assert_int_eq(sent[first + 1]->hdr.flags, BOLT_FRAME_F_SPLIT);
        } else { /* then DATA for [4096, end) */
            ck_assert_int_eq(sent[first + 1]->hdr.flags,
                             BOLT_FRAME_F_SPLIT | BOLT_FRAME_F_NO_READ);
            ck_assert_int_eq(nsent, first + 2 + stripes);
            size_t covered = 0;
            for (int i = first + 2; i < nsent; i++) {
                ck_assert_int_eq(sent[i]->hdr.type, BOLT_FRAME_DATA);
                ck_assert_uint_ge(sent[i]->hdr.msg_size, 4096);
                ck_assert_ptr_eq(sent[i]->payload, buf + sent[i]->hdr.msg_size);
                covered += sent[i]->hdr.len;
            }
            ck_assert_uint_eq(covered, sizeof buf - 4096);
        }
        struct bolt_frame_hdr read = {.type = BOLT_FRAME_CTS, .sreq = sent[first]->hdr.sreq};
        ck_assert_int_eq(deliver(read, NULL), BOLT_OK);
        ck_assert(req->done);
        ck_assert_int_eq(req->status.error, BOLT_OK);
        bolt_req_release(req);
    }
    ck_assert_int_eq(put_calls, 3); /* two pieces, then one that failed */
    /* Pieces smaller than a page, or more than the runtime takes: refused. */
    put_works = 1;
    uint64_t bad[2][3] = {{(uint64_t)(uintptr_t)theirs, 100, 0}, {(uint64_t)(uintptr_t)theirs, 4096, 0}};
    for (int b = 0; b < 2; b++) {
        static char big[1 << 20];
        char *what = b ? big : buf;
        size_t n = b ? sizeof big : sizeof buf;
        int first = nsent;
        ck_assert_int_eq(bolt_proto_isend(what, n, 1, 5, bolt_rt.world, 0, BOLT_PROTO_WAITS, &req),
                         BOLT_OK);
        ck_assert_int_eq(deliver(split_cts(sent[first]->hdr.sreq, n), bad[b]), BOLT_OK);
        ck_assert(req->done);
        ck_assert_int_eq(req->status.error, BOLT_ERR_PROTO);
        bolt_req_release(req);
    }
    /* Not offered by a sender that does not wait for it at once (an isend,
     * then computation: the receiver must not depend on it), and then
     * refused. */
    int first = nsent;
    ck_assert_int_eq(bolt_proto_isend(buf, sizeof buf, 1, 5, bolt_rt.world, 0, 0, &req), BOLT_OK);
    ck_assert(!(sent[first]->hdr.flags & BOLT_FRAME_F_SPLIT));
    ck_assert(sent[first]->hdr.flags & BOLT_FRAME_F_GET);
    uint64_t where[3] = {(uint64_t)(uintptr_t)theirs, 4096, 0};
    ck_assert_int_eq(deliver(split_cts(sent[first]->hdr.sreq, sizeof buf), where), BOLT_ERR_PROTO);
    bolt_req_release(req);
}
END_TEST

/* A split copy, receiver's side: an RTS offering one is answered with a
 * split CTS (this rank's buffer, the transport's piece size, the claim
 * counter); this rank reads the pieces it claims from the front (here the
 * sender took the last two first) and releases the sender (empty CTS); the
 * receive completes when the sender's DATA with F_SPLIT says its part,
 * from where they met, is in, or (F_NO_READ) when that part has come as
 * DATA too; the counter is then closed. A failed read asks for this rank's
 * part as DATA instead. Receives that fold or would truncate, or find no
 * counter free, read it all themselves. */
START_TEST(a_split_copy_receiver_reads_its_part_and_waits_for_the_senders)
{
    static char theirs[20000];
    static _Alignas(4096) char mine[20000]; /* pieces of 4 KiB, the last 3616 bytes */
    fill(theirs, sizeof theirs, 5, 2);
    struct bolt_frame_hdr rts =
        rts_offering(theirs, sizeof theirs, BOLT_FRAME_F_GET | BOLT_FRAME_F_SPLIT, 2, 93);
    struct bolt_request *req;
    /* read and written; read, the sender's part as DATA; our read failed */
    for (int way = 0; way < 3; way++) {
        int works = way < 2;
        get_works = works;
        claim_rival = 2;
        memset(mine, 0, sizeof mine);
        int first = nsent;
        ck_assert_int_eq(bolt_proto_irecv(mine, sizeof mine, 1, 2, bolt_rt.world, 0, &req), BOLT_OK);
        ck_assert_int_eq(deliver(rts, NULL), BOLT_OK);
        ck_assert_int_eq(sent[first]->hdr.type, BOLT_FRAME_CTS);
        ck_assert_int_eq(sent[first]->hdr.flags, BOLT_FRAME_F_SPLIT);
        ck_assert_uint_eq(sent[first]->hdr.sreq, 93);
        ck_assert_uint_eq(sent[first]->hdr.rreq, req->id);
        ck_assert_uint_eq(sent[first]->hdr.msg_size, sizeof mine);
        ck_assert_uint_eq(sent[first]->hdr.len, 24);
        uint64_t where[3];
        memcpy(where, sent[first]->payload, sizeof where);
        ck_assert_uint_eq(where[0], (uint64_t)(uintptr_t)mine);
        ck_assert_uint_eq(where[1], 4096);
        ck_assert_uint_eq(where[2], 0);
        ck_assert_uint_eq(claim_front, 3); /* pieces 0-2 ours, 3-4 the sender's */
        ck_assert_uint_eq(claim_back, 3);
        ck_assert_int_eq(nsent, first + 2);
        if (works) {
            ck_assert_int_eq(memcmp(mine, theirs, 12288), 0);
            ck_assert_int_eq(mine[12288], 0);
            ck_assert_uint_eq(sent[first + 1]->hdr.msg_size, 0); /* read: sender released */
            ck_assert_int_eq(sent[first + 1]->hdr.flags, 0);
        } else {
            ck_assert_int_eq(sent[first + 1]->hdr.flags, BOLT_FRAME_F_NO_READ);
            ck_assert_uint_eq(sent[first + 1]->hdr.msg_size, 12288);
            ck_assert_uint_eq(sent[first + 1]->hdr.rreq, req->id);
            struct bolt_frame_hdr data = {.type = BOLT_FRAME_DATA, .rreq = req->id, .len = 12288};
            ck_assert_int_eq(deliver(data, theirs), BOLT_OK);
        }
        ck_assert(!req->done);
        /* A DATA F_SPLIT at another offset is refused. */
        struct bolt_frame_hdr bad = {.type = BOLT_FRAME_DATA, .flags = BOLT_FRAME_F_SPLIT,
                                     .rreq = req->id, .msg_size = 8192};
        ck_assert_int_eq(deliver(bad, NULL), BOLT_ERR_PROTO);
        ck_assert(claim_opened);
        struct bolt_frame_hdr done = {.type = BOLT_FRAME_DATA, .flags = BOLT_FRAME_F_SPLIT,
                                      .rreq = req->id, .msg_size = 12288};
        if (way == 1) {
            /* Its part comes as DATA: the receive waits for it. */
            done.flags |= BOLT_FRAME_F_NO_READ;
            ck_assert_int_eq(deliver(done, NULL), BOLT_OK);
            ck_assert(!claim_opened);
            ck_assert(!req->done);
            struct bolt_frame_hdr data = {.type = BOLT_FRAME_DATA, .rreq = req->id,
                                          .msg_size = 12288, .len = sizeof mine - 12288};
            ck_assert_int_eq(deliver(data, theirs + 12288), BOLT_OK);
        } else {
            memcpy(mine + 12288, theirs + 12288, sizeof mine - 12288); /* the sender's writes */
            ck_assert_int_eq(deliver(done, NULL), BOLT_OK);
            ck_assert(!claim_opened);
        }
        ck_assert(req->done);
        ck_assert_int_eq(req->status.error, BOLT_OK);
        ck_assert_uint_eq(req->status.bytes, sizeof mine);
        ck_assert_int_eq(memcmp(mine, theirs, sizeof mine), 0);
        bolt_req_release(req);
    }
    /* Truncating and folding receives read it all themselves, as does one
     * that finds no counter free or gets pieces it cannot use. */
    get_works = 1;
    int first = nsent;
    ck_assert_int_eq(bolt_proto_irecv(mine, 10000, 1, 2, bolt_rt.world, 0, &req), BOLT_OK);
    ck_assert_int_eq(deliver(rts, NULL), BOLT_OK);
    ck_assert(req->done);
    ck_assert_int_eq(req->status.error, BOLT_ERR_TRUNCATE);
    ck_assert_int_eq(sent[first]->hdr.flags, 0);
    bolt_req_release(req);
    fold_reset();
    first = nsent;
    ck_assert_int_eq(bolt_proto_irecv_fold(mine, sizeof mine, 4, fold_record_any, NULL, 1, 2,
                                           bolt_rt.world, 0, &req),
                     BOLT_OK);
    ck_assert_int_eq(deliver(rts, NULL), BOLT_OK);
    ck_assert(req->done);
    ck_assert_int_eq(req->status.error, BOLT_OK);
    ck_assert_int_eq(sent[first]->hdr.flags, 0);
    ck_assert_int_eq(nsent, first + 1);
    bolt_req_release(req);
    for (int why = 0; why < 2; why++) {
        claim_free = why;        /* none free; then one... */
        claim_piece = 1000;      /* ...with pieces below a page */
        memset(mine, 0, sizeof mine);
        first = nsent;
        ck_assert_int_eq(bolt_proto_irecv(mine, sizeof mine, 1, 2, bolt_rt.world, 0, &req), BOLT_OK);
        ck_assert_int_eq(deliver(rts, NULL), BOLT_OK);
        ck_assert(req->done);
        ck_assert_int_eq(req->status.error, BOLT_OK);
        ck_assert_int_eq(memcmp(mine, theirs, sizeof mine), 0);
        ck_assert(!claim_opened);
        ck_assert_int_eq(nsent, first + 1);
        ck_assert_int_eq(sent[first]->hdr.flags, 0);
        bolt_req_release(req);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("proto");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, large_send_finishes_only_after_every_stripe);
    tcase_add_test(tc, stripes_land_in_any_order);
    tcase_add_test(tc, forged_or_stale_frames_are_refused);
    tcase_add_test(tc, unexpected_eager_messages_keep_their_order);
    tcase_add_test(tc, truncated_eager_message_is_an_error_with_the_prefix);
    tcase_add_test(tc, synchronous_send_waits_for_the_match);
    tcase_add_test(tc, a_broken_peer_fails_what_waits_for_it);
    tcase_add_test(tc, peer_dying_mid_payload_fails_the_matched_receive);
    tcase_add_test(tc, a_peer_that_finalizes_releases_sends_waiting_for_it);
    tcase_add_test(tc, no_empty_stripes);
    tcase_add_test(tc, freeing_a_communicator_with_pending_receives_is_safe);
    tcase_add_test(tc, a_cts_that_breaks_the_link_does_not_touch_a_freed_request);
    tcase_add_test(tc, receiving_into_a_null_zero_byte_buffer_is_a_truncation);
    tcase_add_test(tc, recv_now_keeps_the_matching_order);
    tcase_add_test(tc, rendezvous_send_offers_its_buffer_for_reading);
    tcase_add_test(tc, rendezvous_receive_reads_an_offered_buffer);
    tcase_add_test(tc, a_fold_receive_consumes_every_byte_once_whatever_the_path);
    tcase_add_test(tc, a_split_copy_sender_writes_its_part_and_waits_for_the_receivers);
    tcase_add_test(tc, a_split_copy_receiver_reads_its_part_and_waits_for_the_senders);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}
