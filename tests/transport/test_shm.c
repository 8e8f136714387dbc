/*
 * test_shm.c — unit tests of the shared-memory transport: its ring on its
 * own, then the transport driven through its ops (bolt_transport_shm) by
 * forked processes that share a segment made by launcher/shm_host.c, as
 * boltrun makes it, with a tiny stand-in for the runtime's upcalls.
 *
 * Built twice: test_shm (this platform: single-copy reads on Linux) and
 * test_shm_posix (shm_cma_posix.c: no single-copy, as on macOS).
 */
#include <check.h>

#include "tests/check_run.h"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher/shm_host.h"
#include "runtime/config.h"
#include "runtime/errors.h"
#include "transport/shm/shm.h"
#include "transport/shm/shm_cma.h"
#include "transport/shm/shm_prefault.h"
#include "transport/shm/shm_ring.h"
#include "transport/transport.h"

#define T (&bolt_transport_shm)
#define MiB (1024u * 1024u)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static unsigned char pat(uint64_t seq, uint64_t i)
{
    return (unsigned char)(seq * 131u + i * 7u + (i >> 9));
}

/* ------------------------------------------------------------------ */
/* the ring on its own                                                  */

struct ring_fixture {
    struct shm_chan *c;
    struct shm_tx_ring tx;
    struct shm_rx_ring rx;
};

static void ring_setup(struct ring_fixture *f, uint64_t cap)
{
    f->c = aligned_alloc(SHM_LINE, sizeof(struct shm_chan) + cap);
    ck_assert_ptr_nonnull(f->c);
    memset(f->c, 0, sizeof(struct shm_chan) + cap);
    shm_tx_ring_init(&f->tx, f->c, cap);
    shm_rx_ring_init(&f->rx, f->c, cap);
}

static struct bolt_frame_hdr hdr_of(uint64_t seq, uint64_t len)
{
    struct bolt_frame_hdr h;
    memset(&h, 0, sizeof h);
    h.magic = BOLT_FRAME_MAGIC;
    h.type = BOLT_FRAME_EAGER;
    h.sreq = seq;
    h.len = len;
    return h;
}

/* Reads one record and checks it is `seq` with its pattern. */
static void ring_expect(struct ring_fixture *f, uint64_t seq)
{
    struct shm_rec rec;
    ck_assert_int_eq(shm_ring_peek(&f->rx, &rec), 1);
    ck_assert_uint_eq(rec.kind, SHM_REC_FRAME);
    ck_assert_uint_eq(rec.hdr.sreq, seq);
    unsigned char buf[4096];
    ck_assert_uint_le(rec.hdr.len, sizeof buf);
    shm_ring_read_payload(&f->rx, buf, rec.hdr.len);
    for (uint64_t i = 0; i < rec.hdr.len; i++)
        ck_assert_uint_eq(buf[i], pat(seq, i));
    shm_ring_pop(&f->rx, rec.hdr.len);
}

static int ring_put_seq(struct ring_fixture *f, uint64_t seq, uint64_t len)
{
    unsigned char buf[4096];
    for (uint64_t i = 0; i < len; i++)
        buf[i] = pat(seq, i);
    struct bolt_frame_hdr h = hdr_of(seq, len);
    return shm_ring_put(&f->tx, SHM_REC_FRAME, 0, &h, buf, len);
}

START_TEST(test_ring_full_and_empty)
{
    struct ring_fixture f;
    ring_setup(&f, 1024); /* 16 cells */
    struct shm_rec rec;
    ck_assert_int_eq(shm_ring_peek(&f.rx, &rec), 0);
    /* Records of 1 + 3 cells: four fit in 16 cells, a fifth does not. */
    for (uint64_t s = 0; s < 4; s++)
        ck_assert_int_eq(ring_put_seq(&f, s, 130), 1);
    ck_assert_int_eq(ring_put_seq(&f, 4, 130), 0);
    ck_assert_int_eq(ring_put_seq(&f, 4, 0), 0); /* not even a header cell */
    ring_expect(&f, 0);
    ck_assert_int_eq(ring_put_seq(&f, 4, 130), 1); /* the space came back */
    for (uint64_t s = 1; s < 5; s++)
        ring_expect(&f, s);
    ck_assert_int_eq(shm_ring_peek(&f.rx, &rec), 0);
    free(f.c);
}
END_TEST

/* Payload bytes left in the ring by an earlier lap never pass for a record,
 * even when they hold exactly the sequence word the consumer waits for. */
START_TEST(test_ring_stale_payload_is_not_a_record)
{
    struct ring_fixture f;
    const uint64_t cap = 1024; /* 16 cells */
    ring_setup(&f, cap);
    struct shm_rec rec;
    /* Lap 1: records of 1 + 3 cells whose payload cells each carry, where a
     * header keeps its sequence word, the word of that cell one lap later. */
    for (uint64_t s = 0; s < 4; s++) {
        unsigned char buf[192];
        memset(buf, 0xab, sizeof buf);
        for (uint64_t c = 0; c < 3; c++) {
            uint64_t pos = f.tx.head + SHM_LINE * (c + 1) + cap;
            uint32_t w = shm_rec_seq(pos);
            memcpy(buf + c * SHM_LINE + offsetof(struct shm_rec, seq), &w, sizeof w);
        }
        struct bolt_frame_hdr h = hdr_of(s, sizeof buf);
        ck_assert_int_eq(shm_ring_put(&f.tx, SHM_REC_FRAME, 0, &h, buf, sizeof buf), 1);
        ck_assert_int_eq(shm_ring_peek(&f.rx, &rec), 1);
        ck_assert_uint_eq(rec.hdr.sreq, s);
        shm_ring_pop(&f.rx, rec.hdr.len);
    }
    ck_assert_int_eq(shm_ring_peek(&f.rx, &rec), 0);
    /* Lap 2: header-only records land on those cells one by one; after each
     * one is consumed, nothing else may look published. */
    for (uint64_t s = 0; s < 40; s++) {
        ck_assert_int_eq(ring_put_seq(&f, 100 + s, 0), 1);
        ck_assert_int_eq(shm_ring_nonempty(&f.rx), 1);
        ring_expect(&f, 100 + s);
        ck_assert_int_eq(shm_ring_nonempty(&f.rx), 0);
        ck_assert_int_eq(shm_ring_peek(&f.rx, &rec), 0);
    }
    free(f.c);
}
END_TEST

/* A cell last written as a header holds another lap's sequence word: the
 * producer leaves it alone (clearing it would take the line back from a
 * consumer that holds it, one more cache-line transfer per message). */
START_TEST(test_ring_clean_cells_are_left_alone)
{
    struct ring_fixture f;
    const uint64_t cap = 1024; /* 16 cells */
    ring_setup(&f, cap);
    for (uint64_t s = 0; s < 16; s++) { /* lap 1: header-only records */
        ck_assert_int_eq(ring_put_seq(&f, s, 0), 1);
        ring_expect(&f, s);
    }
    for (uint64_t s = 16; s < 48; s++) { /* laps 2 and 3 */
        uint64_t next = (f.tx.head + SHM_LINE) & (cap - 1);
        uint32_t before = atomic_load(shm_ring_seq_word(f.tx.ring, next));
        ck_assert_uint_eq(before, shm_rec_seq(f.tx.head + SHM_LINE - cap));
        ck_assert_int_eq(ring_put_seq(&f, s, 0), 1);
        ck_assert_uint_eq(atomic_load(shm_ring_seq_word(f.tx.ring, next)), before);
        ring_expect(&f, s);
        ck_assert_int_eq(shm_ring_nonempty(&f.rx), 0);
    }
    free(f.c);
}
END_TEST

/* A channel nothing was ever published on is all zeros: its producer marks
 * no cell for clearing. One that carried records (consumed or not) may hold
 * anything: every cell is marked, and the first lap clears as it goes. */
static int dirty_words(const struct shm_tx_ring *t, uint64_t want)
{
    for (size_t i = 0; i < sizeof t->dirty / sizeof t->dirty[0]; i++)
        if (t->dirty[i] != want)
            return 0;
    return 1;
}

START_TEST(test_ring_fresh_channel_needs_no_clearing)
{
    struct ring_fixture f;
    const uint64_t cap = 1024;
    ring_setup(&f, cap);
    ck_assert(dirty_words(&f.tx, 0));
    ck_assert_int_eq(ring_put_seq(&f, 1, 0), 1); /* published, not consumed */
    struct shm_tx_ring again;
    shm_tx_ring_init(&again, f.c, cap);
    ck_assert(dirty_words(&again, ~(uint64_t)0));
    ring_expect(&f, 1); /* consumed: the consumer is past 0 */
    shm_tx_ring_init(&again, f.c, cap);
    ck_assert(dirty_words(&again, ~(uint64_t)0));
    free(f.c);
}
END_TEST

/* A small frame travels packed in its header cell and comes out as the
 * frame it was: every envelope field, the payload, and one cell consumed.
 * One byte more than SHM_SMALL_MAX, or a receiver request, takes the
 * ordinary two-cell form; a packed cell claiming more is refused. */
START_TEST(test_ring_small_frames_are_packed)
{
    struct ring_fixture f;
    ring_setup(&f, 1024);
    unsigned char pay[SHM_SMALL_MAX + 1], got[SHM_SMALL_MAX + 1];
    for (unsigned i = 0; i < sizeof pay; i++)
        pay[i] = (unsigned char)(7 * i + 1);
    struct bolt_frame_hdr h = hdr_of(0x1234567890ull, 5);
    h.msg_size = 5;
    h.flags = 1;
    h.ctx = 77;
    h.src = 3;
    h.tag = 99;
    ck_assert_int_eq(shm_ring_put(&f.tx, SHM_REC_FRAME, 0, &h, pay, 5), 1);
    ck_assert_uint_eq(f.tx.head, SHM_LINE); /* one cell */
    struct shm_rec rec;
    ck_assert_int_eq(shm_ring_peek(&f.rx, &rec), 1);
    ck_assert_uint_eq(rec.kind, SHM_REC_FRAME);
    ck_assert_uint_eq(rec.hdr.magic, BOLT_FRAME_MAGIC);
    ck_assert_uint_eq(rec.hdr.type, BOLT_FRAME_EAGER);
    ck_assert_uint_eq(rec.hdr.flags, 1);
    ck_assert_uint_eq(rec.hdr.ctx, 77);
    ck_assert_int_eq(rec.hdr.src, 3);
    ck_assert_int_eq(rec.hdr.tag, 99);
    ck_assert_uint_eq(rec.hdr.len, 5);
    ck_assert_uint_eq(rec.hdr.msg_size, 5);
    ck_assert_uint_eq(rec.hdr.sreq, 0x1234567890ull);
    ck_assert_uint_eq(rec.hdr.rreq, 0);
    shm_ring_read_payload(&f.rx, got, 5);
    ck_assert_mem_eq(got, pay, 5);
    shm_ring_pop(&f.rx, rec.hdr.len);
    ck_assert_uint_eq(f.rx.tail, SHM_LINE);
    /* Too long to pack: header cell plus a payload cell. */
    struct bolt_frame_hdr big = hdr_of(2, SHM_SMALL_MAX + 1);
    big.msg_size = big.len;
    ck_assert_int_eq(shm_ring_put(&f.tx, SHM_REC_FRAME, 0, &big, pay, big.len), 1);
    ck_assert_uint_eq(f.tx.head, 3 * SHM_LINE); /* 1 + 2 cells */
    ck_assert_int_eq(shm_ring_peek(&f.rx, &rec), 1);
    shm_ring_read_payload(&f.rx, got, big.len);
    ck_assert_mem_eq(got, pay, big.len);
    shm_ring_pop(&f.rx, rec.hdr.len);
    /* A receiver request must travel: not packed. */
    struct bolt_frame_hdr cts = hdr_of(3, 0);
    cts.rreq = 5;
    ck_assert_int_eq(shm_ring_put(&f.tx, SHM_REC_FRAME, 0, &cts, NULL, 0), 1);
    ck_assert_int_eq(shm_ring_peek(&f.rx, &rec), 1);
    ck_assert_uint_eq(rec.hdr.rreq, 5);
    shm_ring_pop(&f.rx, 0);
    /* A packed cell that claims more than fits is handed up as such. */
    struct bolt_frame_hdr e = hdr_of(4, 1);
    e.msg_size = 1;
    uint64_t at = f.tx.head;
    ck_assert_int_eq(shm_ring_put(&f.tx, SHM_REC_FRAME, 0, &e, pay, 1), 1);
    ((struct shm_small *)(void *)(f.tx.ring + (at & 1023)))->len = SHM_SMALL_MAX + 8;
    ck_assert_int_eq(shm_ring_peek(&f.rx, &rec), 1);
    ck_assert_uint_eq(rec.kind, SHM_REC_SMALL);
    free(f.c);
}
END_TEST

START_TEST(test_ring_wraps_in_order)
{
    struct ring_fixture f;
    ring_setup(&f, 1024);
    /* Sizes that do not divide the ring, so payloads split at its end. */
    uint64_t sent = 0, got = 0;
    const uint64_t sizes[] = {0, 1, 63, 64, 65, 200, 500, 7};
    while (got < 2000) {
        while (sent < 2000 && ring_put_seq(&f, sent, sizes[sent % 8]))
            sent++;
        ck_assert_uint_gt(sent, got); /* a free ring always takes one */
        uint64_t burst = (got % 3) + 1;
        for (uint64_t k = 0; k < burst && got < sent; k++)
            ring_expect(&f, got++);
    }
    ck_assert_uint_gt(f.tx.head, 100 * 1024); /* wrapped many times */
    free(f.c);
}
END_TEST

/* ------------------------------------------------------------------ */
/* stand-in runtime                                                     */

struct rx {
    struct bolt_frame_hdr hdr;
    unsigned char *buf;
    int done;
};

struct rt {
    struct rx *f;
    int n, cap;
    int failed_calls, failed_peer;
    char why[256];
};

static int rt_begin(void *rtp, int peer, const struct bolt_frame_hdr *h, void **dst, void **cookie)
{
    struct rt *rt = rtp;
    (void)peer;
    if (rt->n == rt->cap) {
        rt->cap = rt->cap ? rt->cap * 2 : 64;
        rt->f = realloc(rt->f, (size_t)rt->cap * sizeof *rt->f);
    }
    struct rx *x = &rt->f[rt->n];
    x->hdr = *h;
    x->buf = h->len ? malloc(h->len) : NULL;
    x->done = 0;
    *dst = x->buf;
    *cookie = (void *)(intptr_t)rt->n;
    rt->n++;
    return 0;
}

static void rt_end(void *rtp, int peer, const struct bolt_frame_hdr *hdr, void *cookie)
{
    (void)hdr;
    (void)peer;
    struct rt *rt = rtp;
    rt->f[(intptr_t)cookie].done = 1;
}

static void rt_failed(void *rtp, int peer, int error, const char *why)
{
    struct rt *rt = rtp;
    (void)error;
    rt->failed_calls++;
    rt->failed_peer = peer;
    snprintf(rt->why, sizeof rt->why, "%s", why);
}

struct snd {
    struct bolt_tl_send s;
    int done, err;
};

static void snd_complete(struct bolt_tl_send *s, int error)
{
    struct snd *x = (struct snd *)s;
    x->done++;
    x->err = error;
}

static void snd_init(struct snd *x, int type, uint64_t seq, const void *payload, size_t len)
{
    memset(x, 0, sizeof *x);
    x->s.hdr.magic = BOLT_FRAME_MAGIC;
    x->s.hdr.type = (uint8_t)type;
    x->s.hdr.len = len;
    x->s.hdr.sreq = seq;
    x->s.payload = payload;
    x->s.complete = snd_complete;
}

static unsigned char *make_payload(uint64_t seq, size_t len)
{
    unsigned char *p = malloc(len ? len : 1);
    for (size_t i = 0; i < len; i++)
        p[i] = pat(seq, i);
    return p;
}

static int payload_ok(const unsigned char *p, uint64_t seq, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] != pat(seq, i))
            return 0;
    return 1;
}

/* ------------------------------------------------------------------ */
/* processes sharing a segment                                          */

struct ep {
    struct bolt_tl_ctx *ctx;
    struct rt rt;
    struct bolt_tl_upcalls up;
    int rank, size;
};

static struct shm_host g_host;
static int g_killed_rank = -1; /* kills itself on purpose */

/* Child `rank`: inherit the segment as a rank does, init, wait until every
 * rank registered (the runtime's fence), connect to all. */
static int ep_open(struct ep *e, int rank, int size)
{
    memset(e, 0, sizeof *e);
    e->rank = rank;
    e->size = size;
    e->up.rt = &e->rt;
    e->up.frame_begin = rt_begin;
    e->up.frame_end = rt_end;
    e->up.peer_failed = rt_failed;
    shm_host_child_setup(&g_host, rank);
    int rc = bolt_config_load();
    if (rc)
        return rc;
    struct bolt_tl_init_args a = {rank, size, &e->up};
    if ((rc = T->init(&e->ctx, &a)))
        return rc;
    int peers[16], n = 0;
    double until = now() + 10;
    for (int r = 0; r < size; r++) {
        if (r == rank)
            continue;
        while (T->reachable(e->ctx, r) != 1) {
            if (now() > until)
                return BOLT_ERR_TIMEOUT;
            usleep(1000);
        }
        peers[n++] = r;
    }
    return T->connect(e->ctx, peers, n);
}

static void ep_close(struct ep *e)
{
    T->finalize(e->ctx);
    for (int i = 0; i < e->rt.n; i++)
        free(e->rt.f[i].buf);
    free(e->rt.f);
}

/* Progress until cond or timeout; sleeps like the engine when idle. */
#define PROGRESS_UNTIL(e, cond, secs)                                                          \
    do {                                                                                       \
        double until_ = now() + (secs);                                                        \
        while (!(cond) && now() < until_)                                                      \
            if (T->progress((e)->ctx) == 0)                                                    \
                idle_sleep(e);                                                                 \
    } while (0)

static void idle_sleep(struct ep *e)
{
    struct pollfd pf[4];
    int n = T->pollfds(e->ctx, pf, 4);
    if (T->sleep_prepare(e->ctx) == 0)
        poll(pf, (nfds_t)n, 20);
    T->sleep_done(e->ctx);
}

typedef int (*child_fn)(int rank, int size, void *arg);

/* Runs fn in `size` forked ranks; returns how many failed. */
static int run_ranks(int size, child_fn fn, void *arg)
{
    char err[256];
    ck_assert_msg(shm_host_create(&g_host, size, err, sizeof err) == 0, "%s", err);
    pid_t pids[16];
    for (int r = 0; r < size; r++) {
        pids[r] = fork();
        if (pids[r] == 0)
            _exit(fn(r, size, arg));
    }
    shm_host_close(&g_host);
    /* Reaped as they end, as a guard does: a zombie would look alive. */
    int bad = 0;
    for (int left = size; left > 0; left--) {
        int st;
        pid_t w = waitpid(-1, &st, 0);
        int r = 0;
        while (r < size && pids[r] != w)
            r++;
        int killed_on_purpose = WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && r == g_killed_rank;
        if ((!WIFEXITED(st) || WEXITSTATUS(st) != 0) && !killed_on_purpose) {
            fprintf(stderr, "rank %d ended with status 0x%x\n", r, (unsigned)st);
            bad++;
        }
    }
    return bad;
}

#define CHILD_CHECK(cond, ...)                                                                  \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "rank %d: line %d: ", rank, __LINE__);                             \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fprintf(stderr, "\n");                                                             \
            return 1;                                                                          \
        }                                                                                      \
    } while (0)

/* ---- small frames of every size up to the eager limit, in order ---- */

static int child_eager_order(int rank, int size, void *arg)
{
    (void)arg;
    struct ep e;
    int rc = ep_open(&e, rank, size);
    CHILD_CHECK(rc == 0, "open: %s", bolt_error_message());
    const int N = 3000;
    if (rank == 0) {
        struct snd *s = calloc(N, sizeof *s);
        unsigned char **p = calloc(N, sizeof *p);
        for (int i = 0; i < N; i++) {
            size_t len = (size_t)(i * 37) % 16385; /* wraps the ring, fills it */
            p[i] = make_payload((uint64_t)i, len);
            snd_init(&s[i], BOLT_FRAME_EAGER, (uint64_t)i, p[i], len);
            CHILD_CHECK(T->send(e.ctx, 1, &s[i].s) == 0, "send");
        }
        PROGRESS_UNTIL(&e, s[N - 1].done, 30);
        for (int i = 0; i < N; i++) {
            CHILD_CHECK(s[i].done == 1 && s[i].err == 0, "frame %d: done %d err %d", i, s[i].done,
                        s[i].err);
            free(p[i]);
        }
        free(s);
        free(p);
    } else {
        PROGRESS_UNTIL(&e, e.rt.n == N && e.rt.f[N - 1].done, 30);
        CHILD_CHECK(e.rt.n == N, "got %d of %d frames", e.rt.n, N);
        for (int i = 0; i < N; i++) {
            size_t len = (size_t)(i * 37) % 16385;
            CHILD_CHECK(e.rt.f[i].hdr.sreq == (uint64_t)i, "frame %d out of order", i);
            CHILD_CHECK(e.rt.f[i].hdr.len == len && payload_ok(e.rt.f[i].buf, (uint64_t)i, len),
                        "frame %d: payload differs", i);
        }
    }
    ep_close(&e);
    return 0;
}

START_TEST(test_eager_frames_in_order)
{
    ck_assert_int_eq(run_ranks(2, child_eager_order, NULL), 0);
}
END_TEST

/* ---- take_now: the next frame straight out of the ring, if it is the one ---- */

static int have_cma(void)
{
    return shm_cma_read(getpid(), &(char){0}, (uint64_t)(uintptr_t)"x", 1) == 0;
}

static struct bolt_frame_hdr take_hdr(int tag, uint64_t len, uint8_t flags)
{
    struct bolt_frame_hdr h;
    memset(&h, 0, sizeof h);
    h.magic = BOLT_FRAME_MAGIC;
    h.type = BOLT_FRAME_EAGER;
    h.flags = flags;
    h.ctx = 3;
    h.src = 0;
    h.tag = tag;
    h.len = len;
    h.msg_size = len;
    return h;
}

static int child_take_now(int rank, int size, void *arg)
{
    (void)arg;
    struct ep e;
    int rc = ep_open(&e, rank, size);
    CHILD_CHECK(rc == 0, "open: %s", bolt_error_message());
    const int tags[4] = {7, 8, 5, 6};
    const uint64_t lens[4] = {100, 3000, 10, 20};
    if (rank == 0) {
        for (int i = 0; i < 4; i++) {
            struct bolt_frame_hdr h = take_hdr(tags[i], lens[i], i == 2 ? BOLT_FRAME_F_SYNC : 0);
            unsigned char *p = make_payload((uint64_t)i, lens[i]);
            CHILD_CHECK(T->send_now(e.ctx, 1, &h, p) == 1, "send_now %d refused", i);
            free(p);
        }
        PROGRESS_UNTIL(&e, e.rt.n == 1 && e.rt.f[0].done, 30); /* rank 1's word: done */
        CHILD_CHECK(e.rt.n == 1, "no word from rank 1");
    } else {
        unsigned char buf[3000];
        struct bolt_frame_hdr w = take_hdr(7, 100, 0);
        double until = now() + 30;
        while (T->take_now(e.ctx, 0, &w, buf) == 0 && now() < until)
            ; /* no progress call: nothing else may deliver it */
        CHILD_CHECK(payload_ok(buf, 0, 100), "frame 0: payload differs");
        usleep(100000); /* the others are in the ring by now */
        w = take_hdr(9, 3000, 0);
        CHILD_CHECK(T->take_now(e.ctx, 0, &w, buf) == 0, "took a frame of another tag");
        w = take_hdr(8, 2999, 0);
        CHILD_CHECK(T->take_now(e.ctx, 0, &w, buf) == 0, "took a frame of another size");
        w = take_hdr(8, 3000, 0);
        CHILD_CHECK(T->take_now(e.ctx, 0, &w, buf) == 1, "frame 1 not taken");
        CHILD_CHECK(payload_ok(buf, 1, 3000), "frame 1: payload differs");
        w = take_hdr(5, 10, 0);
        CHILD_CHECK(T->take_now(e.ctx, 0, &w, buf) == 0, "took a synchronous frame");
        /* The rest reach the runtime as usual, the taken ones never. */
        PROGRESS_UNTIL(&e, e.rt.n == 2 && e.rt.f[1].done, 30);
        CHILD_CHECK(e.rt.n == 2, "%d frames delivered, expected 2", e.rt.n);
        for (int i = 0; i < 2; i++) {
            CHILD_CHECK(e.rt.f[i].hdr.tag == tags[i + 2] && e.rt.f[i].hdr.len == lens[i + 2] &&
                            payload_ok(e.rt.f[i].buf, (uint64_t)i + 2, lens[i + 2]),
                        "delivered frame %d is not frame %d", i, i + 2);
        }
        struct bolt_frame_hdr h = take_hdr(1, 0, 0);
        CHILD_CHECK(T->send_now(e.ctx, 0, &h, NULL) == 1, "word to rank 0 refused");
    }
    ep_close(&e);
    return 0;
}

/* The first frame from the peer, whole: its first n payload bytes in out;
 * 0 when none came within 30 s. */
static int first_frame(struct ep *e, void *out, size_t n)
{
    PROGRESS_UNTIL(e, e->rt.n == 1 && e->rt.f[0].done, 30);
    if (e->rt.n != 1)
        return 0;
    if (n)
        memcpy(out, e->rt.f[0].buf, n);
    return 1;
}

/* What offer (get_ok, put_ok) says to peer 1 for n bytes and hints, once it
 * says `want` or 10 s went by: the peer's single-copy probe result arrives
 * with its wire-up. */
static int offer_settled(struct ep *e, int (*offer)(struct bolt_tl_ctx *, int, size_t, unsigned),
                         size_t n, unsigned hints, int want)
{
    double until = now() + 10;
    while (offer(e->ctx, 1, n, hints) != want && now() < until)
        usleep(1000);
    return offer(e->ctx, 1, n, hints);
}

/* Opens this rank's endpoint with BOLT_SHM_CMA=cma; *want: whether
 * single-copy reads and writes should then be offered. */
static int open_with_cma(struct ep *e, int rank, int size, const char *cma, int *want)
{
    setenv("BOLT_SHM_CMA", cma, 1);
    *want = strcmp(cma, "0") != 0 && have_cma();
    return ep_open(e, rank, size);
}

/* get_ok / get: rank 1 reads rank 0's buffer itself, whose address came in
 * a frame (as in an RTS with BOLT_FRAME_F_GET). Offered under the same rule
 * as single-copy DATA: not with BOLT_SHM_CMA=0, nor where reads fail. */
static int child_get(int rank, int size, void *arg)
{
    const char *cma = arg;
    struct ep e;
    int want, rc = open_with_cma(&e, rank, size, cma, &want);
    CHILD_CHECK(rc == 0, "open: %s", bolt_error_message());
    const size_t n = 64 * 1024;
    if (rank == 0) {
        unsigned char *buf = make_payload(5, n);
        uint64_t addr = (uint64_t)(uintptr_t)buf;
        int ok = offer_settled(&e, T->get_ok, n, 0, want);
        CHILD_CHECK(ok == want, "get_ok %d, expected %d", ok, want);
        struct bolt_frame_hdr h = take_hdr(1, sizeof addr, 0);
        CHILD_CHECK(T->send_now(e.ctx, 1, &h, &addr) == 1, "address refused");
        CHILD_CHECK(first_frame(&e, NULL, 0), "no word from rank 1"); /* rank 1: done */
        free(buf);
    } else {
        uint64_t addr;
        CHILD_CHECK(first_frame(&e, &addr, sizeof addr), "no address from rank 0");
        unsigned char *got = calloc(1, n);
        rc = T->get(e.ctx, 0, got, addr, n);
        if (want) {
            CHILD_CHECK(rc == BOLT_OK && payload_ok(got, 5, n), "get: rc %d or bytes differ", rc);
        } else {
            CHILD_CHECK(rc != BOLT_OK || strcmp(cma, "0") == 0, "get worked where reads fail");
        }
        free(got);
        struct bolt_frame_hdr h = take_hdr(2, 0, 0);
        CHILD_CHECK(T->send_now(e.ctx, 0, &h, NULL) == 1, "word to rank 0 refused");
    }
    ep_close(&e);
    return 0;
}

/* A 2-rank child run with BOLT_SHM_CMA=auto, then with single-copy off. */
static void run_cma_auto_and_off(child_fn fn)
{
    ck_assert_int_eq(run_ranks(2, fn, "auto"), 0);
    ck_assert_int_eq(run_ranks(2, fn, "0"), 0);
}

START_TEST(test_get_reads_the_peer_buffer_where_allowed)
{
    run_cma_auto_and_off(child_get);
}
END_TEST

/* put_ok / put: rank 0 writes part of a message into rank 1's buffer,
 * whose address came in a frame (a split CTS). Offered to an idle sender
 * that waits for its send from BOLT_SHM_SPLIT_MIN, never to a busy one, one
 * that goes on computing, nor with BOLT_SHM_CMA=0. */
static int child_put(int rank, int size, void *arg)
{
    setenv("BOLT_SHM_SPLIT_MIN", "32K", 1);
    struct ep e;
    int want, rc = open_with_cma(&e, rank, size, arg, &want);
    CHILD_CHECK(rc == 0, "open: %s", bolt_error_message());
    const size_t n = 64 * 1024;
    if (rank == 0) {
        uint64_t addr;
        CHILD_CHECK(first_frame(&e, &addr, sizeof addr), "no address from rank 1");
        const unsigned waits = BOLT_TL_HINT_SENDER_WAITS;
        int ok = offer_settled(&e, T->put_ok, n, waits, want);
        CHILD_CHECK(ok == want, "put_ok %d, expected %d", ok, want);
        CHILD_CHECK(!T->put_ok(e.ctx, 1, n, waits | BOLT_TL_HINT_SENDER_BUSY),
                    "offered by a busy sender");
        CHILD_CHECK(!T->put_ok(e.ctx, 1, n, 0), "offered by a sender that does not wait for it");
        CHILD_CHECK(T->put_ok(e.ctx, 1, n, waits | BOLT_TL_HINT_FAN_OUT) == (ok && !e.ctx->crowded),
                    "a fan-out: offered where ranks crowd the cores, or not where each has one");
        CHILD_CHECK(!T->put_ok(e.ctx, 1, 16 * 1024, waits), "offered below BOLT_SHM_SPLIT_MIN");
        unsigned char *buf = make_payload(6, n);
        rc = T->put(e.ctx, 1, buf + 4096, addr + 4096, n - 4096);
        CHILD_CHECK(!want || rc == BOLT_OK, "put failed where allowed: %d", rc);
        free(buf);
        struct bolt_frame_hdr h = take_hdr(2, sizeof rc, 0);
        CHILD_CHECK(T->send_now(e.ctx, 1, &h, &rc) == 1, "word to rank 1 refused");
    } else {
        unsigned char *mine = calloc(1, n);
        uint64_t addr = (uint64_t)(uintptr_t)mine;
        struct bolt_frame_hdr h = take_hdr(1, sizeof addr, 0);
        CHILD_CHECK(T->send_now(e.ctx, 0, &h, &addr) == 1, "address refused");
        int put_rc;
        CHILD_CHECK(first_frame(&e, &put_rc, sizeof put_rc), "no word from rank 0"); /* written */
        unsigned char *want_bytes = make_payload(6, n);
        if (put_rc == BOLT_OK)
            CHILD_CHECK(memcmp(mine + 4096, want_bytes + 4096, n - 4096) == 0 && mine[4095] == 0,
                        "the bytes written differ");
        free(want_bytes);
        free(mine);
    }
    ep_close(&e);
    return 0;
}

START_TEST(test_put_writes_the_peer_buffer_where_allowed)
{
    run_cma_auto_and_off(child_put);
}
END_TEST

/* claim_open / claim / claim_close: rank 1 opens the counter of a 4 MiB
 * split copy from rank 0 and says which (a frame); both claim, rank 1 from
 * the front and rank 0 from the back, a pause between claims so that they
 * interleave, until none is left: rank 1's pieces are 0, 1, ... in order,
 * rank 0's the last, the one before, ..., and together each piece once.
 * Pieces: halves with a core for each rank, 32 on crowded cores. At most
 * SHM_CLAIMS counters are open at once; a closed one is free again; a bad
 * slot claims nothing. (3 ranks: crowded on 2 cores; rank 2 looks on.) */
static int child_claims(int rank, int size, void *arg)
{
    (void)arg;
    struct ep e;
    int rc = ep_open(&e, rank, size);
    CHILD_CHECK(rc == 0, "open: %s", bolt_error_message());
    const size_t len = 4 * MiB;
    size_t want_piece = size > sysconf(_SC_NPROCESSORS_ONLN) ? len / 32 : len / 2;
    struct timespec pause = {0, 200 * 1000};
    if (rank == 1) {
        size_t piece = 0;
        int slot = T->claim_open(e.ctx, 0, len, &piece);
        CHILD_CHECK(slot >= 0 && piece == want_piece, "slot %d, piece %zu (want %zu)", slot, piece,
                    want_piece);
        uint64_t msg[2] = {(uint64_t)slot, piece};
        struct bolt_frame_hdr h = take_hdr(1, sizeof msg, 0);
        CHILD_CHECK(T->send_now(e.ctx, 0, &h, msg) == 1, "counter refused");
        int mine = 0;
        for (int k; (k = T->claim(e.ctx, 0, slot, 0)) >= 0; mine++) {
            CHILD_CHECK(k == mine, "front piece %d after %d", k, mine);
            nanosleep(&pause, NULL);
        }
        int theirs;
        CHILD_CHECK(first_frame(&e, &theirs, sizeof theirs), "no count from rank 0");
        CHILD_CHECK(mine + theirs == (int)(len / piece), "%d + %d pieces of %zu", mine, theirs,
                    len / piece);
        T->claim_close(e.ctx, 0, slot);
        int slots[SHM_CLAIMS];
        for (int i = 0; i < SHM_CLAIMS; i++) {
            slots[i] = T->claim_open(e.ctx, 0, len, &piece);
            CHILD_CHECK(slots[i] >= 0, "counter %d of %d refused", i, SHM_CLAIMS);
            for (int j = 0; j < i; j++)
                CHILD_CHECK(slots[j] != slots[i], "slot %d given twice", slots[i]);
        }
        CHILD_CHECK(T->claim_open(e.ctx, 0, len, &piece) == -1, "more than SHM_CLAIMS counters");
        T->claim_close(e.ctx, 0, slots[3]);
        CHILD_CHECK(T->claim_open(e.ctx, 0, len, &piece) == slots[3], "a closed counter not reused");
        CHILD_CHECK(T->claim(e.ctx, 0, -1, 0) == -1 && T->claim(e.ctx, 0, SHM_CLAIMS, 0) == -1,
                    "a bad slot claimed a piece");
        CHILD_CHECK(T->claim_open(e.ctx, 0, 4096, &piece) == -1, "a counter for one page");
    } else if (rank == 0) {
        uint64_t msg[2];
        CHILD_CHECK(first_frame(&e, msg, sizeof msg), "no counter from rank 1");
        int pieces = (int)(len / msg[1]), theirs = 0;
        for (int k; (k = T->claim(e.ctx, 1, (int)msg[0], 1)) >= 0; theirs++) {
            CHILD_CHECK(k == pieces - 1 - theirs, "back piece %d after %d", k, theirs);
            nanosleep(&pause, NULL);
        }
        struct bolt_frame_hdr h = take_hdr(2, sizeof theirs, 0);
        CHILD_CHECK(T->send_now(e.ctx, 1, &h, &theirs) == 1, "count refused");
    }
    ep_close(&e);
    return 0;
}

START_TEST(test_split_copy_pieces_go_to_whoever_claims_first)
{
    ck_assert_int_eq(run_ranks(3, child_claims, NULL), 0);
}
END_TEST

START_TEST(test_take_now_takes_only_the_next_frame_asked_for)
{
    ck_assert_int_eq(run_ranks(2, child_take_now, NULL), 0);
}
END_TEST

/* ---- one copy for many receivers: shared slots (send_many_now) ---- */

static int g_go[2], g_done[2]; /* pipes: rank 0 -> receivers, receivers -> rank 0 */

/* One byte from fd within 30 s: 1, else 0. */
static int pipe_take(int fd)
{
    struct pollfd pf = {fd, POLLIN, 0};
    char c;
    return poll(&pf, 1, 30000) == 1 && read(fd, &c, 1) == 1;
}

#define MC_N (SHM_MCAST_SLOTS + 1)
static const uint64_t mc_lens[MC_N] = {65536, 1, 0, SHM_MCAST_BYTES, 100003};

static int child_mcast(int rank, int size, void *arg)
{
    (void)arg;
    struct ep e;
    int rc = ep_open(&e, rank, size);
    CHILD_CHECK(rc == 0, "open: %s", bolt_error_message());
    if (rank == 0) {
        const int peers[2] = {1, 2}, twice[2] = {1, 1}, self[2] = {0, 1};
        unsigned char *p[MC_N];
        struct bolt_frame_hdr h[MC_N];
        for (int i = 0; i < MC_N; i++) {
            p[i] = make_payload((uint64_t)i, mc_lens[i]);
            h[i] = take_hdr(10 + i, mc_lens[i], 0);
        }
        /* Each of the first SHM_MCAST_SLOTS takes a slot, and the
         * receivers, held back, read none: the next finds no slot. */
        for (int i = 0; i < SHM_MCAST_SLOTS; i++)
            CHILD_CHECK(T->send_many_now(e.ctx, peers, 2, &h[i], p[i]) == 1, "message %d refused", i);
        CHILD_CHECK(T->send_many_now(e.ctx, peers, 2, &h[MC_N - 1], p[MC_N - 1]) == 0,
                    "a message with every slot being read");
        struct bolt_frame_hdr big = take_hdr(30, SHM_MCAST_BYTES + 1, 0);
        CHILD_CHECK(T->send_many_now(e.ctx, peers, 2, &big, p[3]) == 0, "a message over a slot");
        CHILD_CHECK(T->send_many_now(e.ctx, twice, 2, &h[1], p[1]) == 0, "a peer twice");
        CHILD_CHECK(T->send_many_now(e.ctx, self, 2, &h[1], p[1]) == 0, "this rank as a peer");
        CHILD_CHECK(write(g_go[1], "gg", 2) == 2, "go");
        /* Once the receivers read, slots come back. */
        int sent = 0;
        PROGRESS_UNTIL(&e, (sent = T->send_many_now(e.ctx, peers, 2, &h[MC_N - 1], p[MC_N - 1])), 30);
        CHILD_CHECK(sent == 1, "no slot came back");
        memset(p[MC_N - 1], 0, mc_lens[MC_N - 1]); /* the receivers read the slot, not this */
        CHILD_CHECK(pipe_take(g_done[0]) && pipe_take(g_done[0]), "the receivers did not finish");
        for (int k = 0; k < SHM_MCAST_SLOTS; k++)
            CHILD_CHECK(atomic_load(&shm_seg_mcast_hdr(e.ctx->seg, e.ctx->index, k)->readers) == 0,
                        "slot %d still counts readers", k);
        for (int i = 0; i < MC_N; i++)
            free(p[i]);
    } else {
        CHILD_CHECK(pipe_take(g_go[0]), "no go from rank 0");
        int first = 0;
        if (rank == 1) {
            /* Taken straight from rank 0's slot (a receive already posted). */
            static unsigned char buf[65536];
            struct bolt_frame_hdr w = take_hdr(10, mc_lens[0], 0);
            double until = now() + 30;
            while (T->take_now(e.ctx, 0, &w, buf) == 0 && now() < until)
                ;
            CHILD_CHECK(payload_ok(buf, 0, mc_lens[0]), "message 0 taken: payload differs");
            first = 1;
        }
        int want = MC_N - first;
        PROGRESS_UNTIL(&e, e.rt.n == want && e.rt.f[want - 1].done, 30);
        CHILD_CHECK(e.rt.n == want, "%d messages delivered, expected %d", e.rt.n, want);
        for (int i = 0; i < want; i++) {
            int m = i + first;
            CHILD_CHECK(e.rt.f[i].hdr.type == BOLT_FRAME_EAGER && e.rt.f[i].hdr.tag == 10 + m &&
                            e.rt.f[i].hdr.len == mc_lens[m] &&
                            payload_ok(e.rt.f[i].buf, (uint64_t)m, mc_lens[m]),
                        "delivered message %d is not message %d", i, m);
        }
        CHILD_CHECK(write(g_done[1], "d", 1) == 1, "done");
    }
    ep_close(&e);
    return 0;
}

/* A message copied once into rank 0's shared slot reaches both receivers,
 * in order with the rest, by progress or taken at once; a slot is reused
 * only after every receiver read it; all or nothing: none for too large a
 * message, a peer named twice or this rank. */
START_TEST(test_one_copy_for_many_receivers)
{
    ck_assert_int_eq(pipe(g_go), 0);
    ck_assert_int_eq(pipe(g_done), 0);
    ck_assert_int_eq(run_ranks(3, child_mcast, NULL), 0);
    close(g_go[0]), close(g_go[1]), close(g_done[0]), close(g_done[1]);
}
END_TEST

/* ---- large DATA: single-copy or pipelined, with small frames around ---- */

struct large_arg {
    const char *cma;  /* BOLT_SHM_CMA */
    int expect_cma;   /* 1: some must go single-copy, 0: none */
    int expect_pipe;  /* 1: some must be staged (16 MiB under auto), 2: that one alone, 0: none */
    unsigned hints;   /* of the DATA frames */
};

static int child_large(int rank, int size, void *argp)
{
    struct large_arg *a = argp;
    setenv("BOLT_SHM_CMA", a->cma, 1);
    struct ep e;
    int rc = ep_open(&e, rank, size);
    CHILD_CHECK(rc == 0, "open: %s", bolt_error_message());
    /* Sizes around the chunk size and far beyond the staging area. */
    const size_t sizes[] = {16385, 128 * 1024, 128 * 1024 + 1, MiB + 13, 16 * MiB};
    const int NS = 5, per = 2 * NS + 1;
    if (rank == 0) {
        struct snd s[16];
        unsigned char *p[16];
        /* In the runtime a large DATA follows the receiver's CTS, so its
         * answer to single-copy (left at its wire-up) is there by then;
         * here DATA comes unasked: wait for the answer (under the
         * sanitizers, rank 1 was still wiring up, and 13 chunks went staged
         * with BOLT_SHM_CMA=1). */
        double until = now() + 10;
        while (strcmp(a->cma, "0") != 0 && !shm_peer_cma(e.ctx, &e.ctx->peers[1]) &&
               e.ctx->peers[1].cma == 0 && now() < until)
            usleep(1000);
        if (a->hints & BOLT_TL_HINT_FAN_OUT)
            CHILD_CHECK(!e.ctx->crowded || !T->put_ok(e.ctx, 1, MiB, a->hints),
                        "a fan-out split where ranks crowd the cores");
        int k = 0;
        for (int i = 0; i < NS; i++) {
            p[k] = make_payload((uint64_t)k, 100);
            snd_init(&s[k], BOLT_FRAME_EAGER, (uint64_t)k, p[k], 100);
            T->send(e.ctx, 1, &s[k].s);
            k++;
            p[k] = make_payload((uint64_t)k, sizes[i]);
            snd_init(&s[k], BOLT_FRAME_DATA, (uint64_t)k, p[k], sizes[i]);
            s[k].s.hints = a->hints;
            T->send(e.ctx, 1, &s[k].s);
            k++;
        }
        p[k] = make_payload((uint64_t)k, 10);
        snd_init(&s[k], BOLT_FRAME_EAGER, (uint64_t)k, p[k], 10);
        T->send(e.ctx, 1, &s[k].s);
        k++;
        int all = 0;
        PROGRESS_UNTIL(&e, (all = 1, ({ for (int i = 0; i < k; i++) all &= s[i].done; all; })), 60);
        for (int i = 0; i < k; i++) {
            CHILD_CHECK(s[i].done == 1 && s[i].err == 0, "send %d: done %d err %d", i, s[i].done,
                        s[i].err);
            free(p[i]);
        }
        CHILD_CHECK((e.ctx->peers[1].cma == 1) == a->expect_cma,
                    "single-copy %d, expected %d", e.ctx->peers[1].cma, a->expect_cma);
        CHILD_CHECK((e.ctx->peers[1].chunks_put > 0) == (a->expect_pipe > 0),
                    "%llu chunks staged, expected %s", (unsigned long long)e.ctx->peers[1].chunks_put,
                    a->expect_pipe ? "some" : "none");
        const uint64_t C = e.ctx->seg->chunk_bytes, largest = (16 * MiB + C - 1) / C;
        CHILD_CHECK(a->expect_pipe != 2 || e.ctx->peers[1].chunks_put == largest,
                    "%llu chunks staged, expected the 16 MiB message's %llu alone",
                    (unsigned long long)e.ctx->peers[1].chunks_put, (unsigned long long)largest);
    } else if (rank == 1) {
        int all = 0;
        PROGRESS_UNTIL(&e, (all = e.rt.n == per, ({ for (int i = 0; all && i < e.rt.n; i++) all &= e.rt.f[i].done; all; })), 60);
        CHILD_CHECK(e.rt.n == per, "got %d of %d frames", e.rt.n, per);
        for (int i = 0; i < per; i++) {
            size_t len = i == per - 1 ? 10 : i % 2 == 0 ? 100 : sizes[i / 2];
            CHILD_CHECK(e.rt.f[i].done, "frame %d not finished", i);
            CHILD_CHECK(e.rt.f[i].hdr.sreq == (uint64_t)i, "frame %d out of order", i);
            CHILD_CHECK(e.rt.f[i].hdr.len == len && payload_ok(e.rt.f[i].buf, (uint64_t)i, len),
                        "frame %d (%zu bytes): payload differs", i, len);
        }
    }
    ep_close(&e);
    return 0;
}

START_TEST(test_large_two_copy_pipeline)
{
    struct large_arg a = {"0", 0, 1, 0};
    ck_assert_int_eq(run_ranks(2, child_large, &a), 0);
}
END_TEST

/* The default reads large DATA single-copy up to BOLT_SHM_CMA_MAX (2 MiB)
 * where that works, and stages what is larger (the 16 MiB one). */
START_TEST(test_large_auto_single_copy_up_to_max)
{
    struct large_arg a = {"auto", have_cma(), 1, 0};
    ck_assert_int_eq(run_ranks(2, child_large, &a), 0);
}
END_TEST

/* A sender busy with copies of its own (an exchange) has the receiver read
 * single-copy beyond BOLT_SHM_CMA_MAX too. */
START_TEST(test_large_auto_busy_sender_single_copy)
{
    struct large_arg a = {"auto", have_cma(), !have_cma(), BOLT_TL_HINT_SENDER_BUSY};
    ck_assert_int_eq(run_ranks(2, child_large, &a), 0);
}
END_TEST

/* But where ranks crowd the cores (one more rank than this host has, the
 * others look on), a busy sender's large DATA is staged too: no core is
 * idle for the receiver's copy alone. */
START_TEST(test_large_auto_busy_sender_crowded_staged)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1 || cores + 1 > 8)
        return; /* a host too large to crowd in a test */
    struct large_arg a = {"auto", have_cma(), 1, BOLT_TL_HINT_SENDER_BUSY};
    ck_assert_int_eq(run_ranks((int)cores + 1, child_large, &a), 0);
}
END_TEST

/* A fan-out (a scatter's root, waiting while its receivers copy) has them
 * read single-copy up to BOLT_SHM_CMA_MAX even where ranks crowd the cores,
 * and is never split there: their copies run in parallel, the sender's would
 * run in turn. */
START_TEST(test_large_auto_fan_out_crowded_single_copy)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1 || cores + 1 > 8 || !have_cma())
        return; /* a host too large to crowd in a test, or no single-copy reads */
    struct large_arg a = {"auto", 1, 2, BOLT_TL_HINT_FAN_OUT | BOLT_TL_HINT_SENDER_WAITS};
    ck_assert_int_eq(run_ranks((int)cores + 1, child_large, &a), 0);
}
END_TEST

/* A receiver that could not read the sender (BOLT_TL_HINT_NO_READ on the
 * DATA) gets it staged, even where single-copy is required otherwise. */
START_TEST(test_large_no_read_hint_is_staged)
{
    if (!have_cma())
        return;
    struct large_arg a = {"1", 1, 1, BOLT_TL_HINT_NO_READ};
    ck_assert_int_eq(run_ranks(2, child_large, &a), 0);
}
END_TEST

START_TEST(test_large_single_copy)
{
    if (!have_cma())
        return; /* this build or kernel has no single-copy reads: test_cma_unsupported covers it */
    struct large_arg a = {"1", 1, 0, 0};
    ck_assert_int_eq(run_ranks(2, child_large, &a), 0);
}
END_TEST

static int child_cma_required(int rank, int size, void *arg)
{
    (void)arg;
    setenv("BOLT_SHM_CMA", "1", 1);
    struct ep e;
    int rc = ep_open(&e, rank, size);
    CHILD_CHECK(rc == BOLT_ERR_UNSUPPORTED, "BOLT_SHM_CMA=1 without CMA: rc %d", rc);
    CHILD_CHECK(strstr(bolt_error_message(), "BOLT_SHM_CMA=auto") != NULL, "message: %s",
                bolt_error_message());
    return 0;
}

START_TEST(test_cma_unsupported)
{
    if (shm_cma_read(getpid(), &(char){0}, (uint64_t)(uintptr_t)"x", 1) != ENOSYS)
        return; /* this build has single-copy reads */
    ck_assert_int_eq(run_ranks(2, child_cma_required, NULL), 0);
    /* auto falls back to the staged path */
    struct large_arg a = {"auto", 0, 1, 0};
    ck_assert_int_eq(run_ranks(2, child_large, &a), 0);
}
END_TEST

/* ---- vectored moves: many pieces in as few calls; a bad address stops them ---- */

START_TEST(test_cma_movev_moves_every_piece)
{
    enum { N = 2500 }; /* more pieces than one call takes */
    struct shm_cma_piece *p = calloc(N, sizeof *p);
    unsigned char *src = malloc(N * 3), *dst = calloc(N * 3, 1);
    ck_assert_ptr_nonnull(p);
    for (int i = 0; i < N * 3; i++)
        src[i] = (unsigned char)(i * 31 + 7);
    /* piece i: i % 4 bytes (some empty) from src, written backwards into dst */
    size_t at = 0;
    for (int i = 0; i < N; i++) {
        size_t len = (size_t)(i % 4);
        if (at + len > N * 3)
            len = 0;
        p[i] = (struct shm_cma_piece){src + at, (uint64_t)(uintptr_t)(dst + N * 3 - at - len), len};
        at += len;
    }
    int e = shm_cma_movev(getpid(), p, N, 1);
    if (!have_cma()) {
        ck_assert_int_eq(e, ENOSYS);
        goto out;
    }
    ck_assert_int_eq(e, 0);
    at = 0;
    for (int i = 0; i < N; i++) {
        ck_assert_int_eq(memcmp(dst + N * 3 - at - p[i].len, src + at, p[i].len), 0);
        at += p[i].len;
    }
    /* the same pieces read back */
    memset(src, 0, N * 3);
    ck_assert_int_eq(shm_cma_movev(getpid(), p, N, 0), 0);
    at = 0;
    for (int i = 0; i < N; i++) {
        for (size_t k = 0; k < p[i].len; k++)
            ck_assert_int_eq(src[at + k], (unsigned char)((at + k) * 31 + 7));
        at += p[i].len;
    }
    /* a piece over an unmapped page: EFAULT, not a loop */
    long page = sysconf(_SC_PAGESIZE);
    char *hole = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
    ck_assert_ptr_ne(hole, MAP_FAILED);
    munmap(hole + page, (size_t)page);
    struct shm_cma_piece bad[2] = {{src, (uint64_t)(uintptr_t)hole, 16},
                                   {src, (uint64_t)(uintptr_t)(hole + page - 8), 16}};
    ck_assert_int_eq(shm_cma_movev(getpid(), bad, 2, 1), EFAULT);
    munmap(hole, (size_t)page);
out:
    free(p);
    free(src);
    free(dst);
}
END_TEST

/* ---- doorbells: ring only a sleeper; a sleeper wakes at once ---- */

static int bell_has_bytes(int fd)
{
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    return poll(&pf, 1, 0) == 1;
}

static int child_bell(int rank, int size, void *arg)
{
    (void)arg;
    struct ep e;
    int rc = ep_open(&e, rank, size);
    CHILD_CHECK(rc == 0, "open: %s", bolt_error_message());
    struct snd s[3];
    unsigned char p[8] = {0};
    if (rank == 0) {
        /* 1: rank 1 is awake: no bell rung. 2 and 3: rank 1 sleeps. */
        PROGRESS_UNTIL(&e, atomic_load(&e.ctx->peers[1].slot->asleep) == 0, 5); /* sync: it wired */
        snd_init(&s[0], BOLT_FRAME_EAGER, 0, p, 8);
        T->send(e.ctx, 1, &s[0].s);
        /* Wait for its word that it checked its bell, then for its sleep. */
        PROGRESS_UNTIL(&e, e.rt.n == 1, 10);
        CHILD_CHECK(e.rt.n == 1, "no reply from rank 1");
        double until = now() + 10;
        while (!atomic_load(&e.ctx->peers[1].slot->asleep) && now() < until)
            usleep(100);
        CHILD_CHECK(atomic_load(&e.ctx->peers[1].slot->asleep), "rank 1 never slept");
        usleep(20000); /* well inside its poll() */
        snd_init(&s[1], BOLT_FRAME_EAGER, 1, p, 8);
        T->send(e.ctx, 1, &s[1].s);
        PROGRESS_UNTIL(&e, e.rt.n == 2, 10);
        CHILD_CHECK(e.rt.n == 2, "rank 1 did not answer the second frame");
    } else {
        /* Awake the whole time (spinning, never announcing a sleep): once
         * rank 0 has seen the flag down it cannot see it up again. (Waiting
         * with idle_sleep, a ring meant for a sleep of ours raced with the
         * 20 ms wake-up of the same sleep on a loaded machine.) */
        double until = now() + 10;
        while (e.rt.n < 1 && now() < until)
            T->progress(e.ctx);
        CHILD_CHECK(e.rt.n == 1, "first frame never came");
        CHILD_CHECK(!bell_has_bytes(e.ctx->bell_r), "rung although awake");
        snd_init(&s[0], BOLT_FRAME_EAGER, 0, p, 8);
        T->send(e.ctx, 0, &s[0].s);
        /* Nothing pending: sleep_prepare says so and sets the flag. */
        T->progress(e.ctx);
        CHILD_CHECK(T->sleep_prepare(e.ctx) == 0, "work reported while idle");
        CHILD_CHECK(atomic_load(&e.ctx->me->asleep) == 1, "asleep flag not set");
        struct pollfd pf[4];
        int n = T->pollfds(e.ctx, pf, 4);
        CHILD_CHECK(n == 1 && pf[0].fd == e.ctx->bell_r, "pollfds gives the doorbell");
        double t0 = now();
        int r = poll(pf, (nfds_t)n, 5000);
        double took = now() - t0;
        T->sleep_done(e.ctx);
        CHILD_CHECK(r == 1, "the doorbell did not ring within 5 s");
        CHILD_CHECK(took < 1.0, "woke after %.3f s", took);
        CHILD_CHECK(atomic_load(&e.ctx->me->asleep) == 0 && !bell_has_bytes(e.ctx->bell_r),
                    "sleep_done clears the flag and drains the bell");
        /* The frame is there: sleep_prepare now refuses to sleep. */
        CHILD_CHECK(T->sleep_prepare(e.ctx) > 0, "pending frame not seen by sleep_prepare");
        T->sleep_done(e.ctx);
        PROGRESS_UNTIL(&e, e.rt.n == 2, 5);
        CHILD_CHECK(e.rt.n == 2, "second frame lost");
        snd_init(&s[1], BOLT_FRAME_EAGER, 1, p, 8);
        T->send(e.ctx, 0, &s[1].s);
    }
    ep_close(&e);
    return 0;
}

START_TEST(test_doorbell_wakes_only_sleepers)
{
    ck_assert_int_eq(run_ranks(2, child_bell, NULL), 0);
}
END_TEST

/* Many round trips where both sides always sleep between messages: lost
 * wake-ups would cost the 20 ms poll cap each, which the bound forbids. */
static int child_sleepy_pingpong(int rank, int size, void *arg)
{
    (void)arg;
    struct ep e;
    int rc = ep_open(&e, rank, size);
    CHILD_CHECK(rc == 0, "open: %s", bolt_error_message());
    const int N = 2000;
    struct snd s;
    unsigned char b[8] = {0};
    double t0 = now();
    for (int i = 0; i < N; i++) {
        if (rank == 0) {
            snd_init(&s, BOLT_FRAME_EAGER, (uint64_t)i, b, 8);
            T->send(e.ctx, 1, &s.s);
        }
        /* never spin: every idle pass sleeps */
        PROGRESS_UNTIL(&e, e.rt.n == i + 1, 10);
        CHILD_CHECK(e.rt.n == i + 1, "round %d lost", i);
        if (rank == 1) {
            snd_init(&s, BOLT_FRAME_EAGER, (uint64_t)i, b, 8);
            T->send(e.ctx, 0, &s.s);
        }
    }
    double per = (now() - t0) / N;
    CHILD_CHECK(per < 2e-3, "%.3f ms per round trip: wake-ups are lost", per * 1e3);
    ep_close(&e);
    return 0;
}

START_TEST(test_sleeping_pingpong_is_fast)
{
    ck_assert_int_eq(run_ranks(2, child_sleepy_pingpong, NULL), 0);
}
END_TEST

/* ---- dead and departed peers ---- */

static int child_peer_dies(int rank, int size, void *arg)
{
    int how = *(int *)arg; /* 0: SIGKILL, 1: exits, 2: finalizes */
    struct ep e;
    int rc = ep_open(&e, rank, size);
    CHILD_CHECK(rc == 0, "open: %s", bolt_error_message());
    if (rank == 1) {
        struct snd s;
        unsigned char b[8] = {0};
        snd_init(&s, BOLT_FRAME_EAGER, 7, b, 8);
        T->send(e.ctx, 0, &s.s); /* its last words must still arrive */
        if (how == 0)
            kill(getpid(), SIGKILL);
        if (how == 2)
            ep_close(&e);
        _exit(0);
    }
    /* A large send it will never take: it must fail, not hang. */
    unsigned char *big = make_payload(1, 4 * MiB);
    struct snd s;
    snd_init(&s, BOLT_FRAME_DATA, 1, big, 4 * MiB);
    T->send(e.ctx, 1, &s.s);
    double t0 = now();
    PROGRESS_UNTIL(&e, e.rt.failed_calls > 0, 10);
    double took = now() - t0;
    CHILD_CHECK(e.rt.failed_calls == 1 && e.rt.failed_peer == 1, "peer_failed calls %d",
                e.rt.failed_calls);
    CHILD_CHECK(took < 2.0, "detected after %.2f s", took);
    CHILD_CHECK(e.rt.n == 1 && e.rt.f[0].hdr.sreq == 7 && e.rt.f[0].done,
                "its last frame before leaving was not delivered first");
    CHILD_CHECK(strstr(e.rt.why, how == 2 ? "closed" : "exited without finalizing") != NULL,
                "why: %s", e.rt.why);
    CHILD_CHECK(s.done == 1 && s.err == BOLT_ERR_PEER, "pending send: done %d err %d", s.done,
                s.err);
    free(big);
    ep_close(&e);
    return 0;
}

START_TEST(test_peer_death)
{
    int how = _i;
    g_killed_rank = how == 0 ? 1 : -1;
    ck_assert_int_eq(run_ranks(2, child_peer_dies, &how), 0);
    g_killed_rank = -1;
}
END_TEST

/* ---- four ranks, everyone to everyone ---- */

static int child_all_to_all(int rank, int size, void *arg)
{
    (void)arg;
    struct ep e;
    int rc = ep_open(&e, rank, size);
    CHILD_CHECK(rc == 0, "open: %s", bolt_error_message());
    struct snd s[8];
    unsigned char *p[8];
    int k = 0;
    for (int r = 0; r < size; r++) {
        if (r == rank)
            continue;
        size_t len = 300 * 1024 + (size_t)rank;
        p[k] = make_payload((uint64_t)rank, len);
        snd_init(&s[k], BOLT_FRAME_DATA, (uint64_t)rank, p[k], len);
        T->send(e.ctx, r, &s[k].s);
        k++;
    }
    int all = 0;
    PROGRESS_UNTIL(&e, (all = e.rt.n == size - 1, ({ for (int i = 0; all && i < k; i++) all &= s[i].done; for (int i = 0; all && i < e.rt.n; i++) all &= e.rt.f[i].done; all; })), 30);
    CHILD_CHECK(all, "exchange did not finish");
    for (int i = 0; i < e.rt.n; i++) {
        uint64_t from = e.rt.f[i].hdr.sreq;
        CHILD_CHECK(payload_ok(e.rt.f[i].buf, from, 300 * 1024 + from), "from %d differs",
                    (int)from);
    }
    for (int i = 0; i < k; i++)
        free(p[i]);
    ep_close(&e);
    return 0;
}

START_TEST(test_four_ranks)
{
    ck_assert_int_eq(run_ranks(4, child_all_to_all, NULL), 0);
}
END_TEST

/* ---- without boltrun: present, reaching nobody ---- */

START_TEST(test_singleton)
{
    unsetenv("BOLT_SHM_FD");
    ck_assert_int_eq(bolt_config_load(), 0);
    struct rt rt;
    memset(&rt, 0, sizeof rt);
    struct bolt_tl_upcalls up = {&rt, rt_begin, rt_end, rt_failed, NULL};
    struct bolt_tl_init_args a = {0, 2, &up};
    struct bolt_tl_ctx *ctx;
    ck_assert_int_eq(T->init(&ctx, &a), 0);
    ck_assert_int_eq(T->reachable(ctx, 1), 0);
    struct pollfd pf;
    ck_assert_int_eq(T->pollfds(ctx, &pf, 1), 0);
    ck_assert_int_eq(T->sleep_prepare(ctx), 0);
    T->sleep_done(ctx);
    T->finalize(ctx);
}
END_TEST

START_TEST(test_segment_is_unlinked)
{
    /* Nothing to find in the shm namespace: the name is gone at once. */
    char err[256];
    struct shm_host h;
    ck_assert_int_eq(shm_host_create(&h, 3, err, sizeof err), 0);
    struct shm_seg_hdr *seg = shm_seg_map(h.seg_fd, err, sizeof err);
    ck_assert_msg(seg != NULL, "%s", err);
    ck_assert_uint_eq(seg->nlocal, 3);
    int zero = 1;
    for (int i = 0; i < SHM_ID_BYTES; i++)
        zero &= seg->id[i] == 0;
    ck_assert_msg(!zero, "the segment id is random, not zero");
    shm_seg_unmap(seg);
    shm_host_close(&h);
}
END_TEST

/* Up to SHM_MANY_RANKS local ranks, each channel has the large ring and four
 * staging chunks; beyond, a smaller ring and two chunks, so that a host of
 * many ranks touches a bounded amount of memory. The ring is a power of two
 * the transmit side's cell bitmap covers; a layout too large is refused. */
START_TEST(test_layout_sizes_rings_by_rank_count)
{
    struct shm_seg_hdr h;
    for (int n = 1; n <= 40; n++) {
        memset(&h, 0, sizeof h);
        size_t total = shm_seg_layout(n, &h);
        ck_assert_uint_gt(total, 0);
        ck_assert_uint_eq(h.ring_bytes, n <= SHM_MANY_RANKS ? SHM_RING_BYTES : SHM_RING_BYTES_MANY);
        ck_assert_uint_eq(h.nchunks, n <= SHM_MANY_RANKS ? SHM_NCHUNKS : 2);
        ck_assert_uint_eq(h.ring_bytes & (h.ring_bytes - 1), 0);
        ck_assert_uint_le(h.ring_bytes, SHM_RING_CELLS * SHM_LINE);
        ck_assert_uint_ge(h.chan_stride, sizeof(struct shm_chan) + h.ring_bytes + h.nchunks * h.chunk_bytes);
        ck_assert_uint_eq(h.mcast_off, h.chan_off + (uint64_t)n * (uint64_t)n * h.chan_stride);
        ck_assert_uint_ge(h.mcast_stride, SHM_MCAST_COUNTS_BYTES + SHM_MCAST_SLOTS * h.mcast_bytes);
        ck_assert_uint_eq(total, h.mcast_off + (uint64_t)n * h.mcast_stride);
    }
    ck_assert_uint_eq(shm_seg_layout(0, &h), 0);
    ck_assert_uint_eq(shm_seg_layout(4097, &h), 0);
}
END_TEST

/* shm_prefault (madvise here, reads per page in test_shm_posix) maps every
 * page a range touches, from an address and length off page boundaries,
 * and changes no byte. */
START_TEST(test_prefault_maps_the_pages_and_changes_nothing)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), npages = 8;
    unsigned char *m = mmap(NULL, npages * page, PROT_READ | PROT_WRITE,
                            MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(m, MAP_FAILED);
    m[3 * page + 5] = 0xa5; /* one page in already, with a byte to keep */
    unsigned char vec[8];
    ck_assert_int_eq(mincore(m, npages * page, vec), 0);
    ck_assert_int_eq(vec[1] & 1, 0);
    shm_prefault(m + page + 100, 4 * page); /* pages 1..5, by an unaligned range */
    ck_assert_int_eq(mincore(m, npages * page, vec), 0);
    for (size_t i = 1; i <= 5; i++)
        ck_assert_msg(vec[i] & 1, "page %zu not mapped in", i);
    ck_assert_int_eq(vec[7] & 1, 0);
    for (size_t i = 0; i < npages * page; i++)
        ck_assert_int_eq(m[i], i == 3 * page + 5 ? 0xa5 : 0);
    munmap(m, npages * page);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("shm");
    TCase *tc = tcase_create("shm");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_ring_full_and_empty);
    tcase_add_test(tc, test_ring_wraps_in_order);
    tcase_add_test(tc, test_ring_stale_payload_is_not_a_record);
    tcase_add_test(tc, test_ring_clean_cells_are_left_alone);
    tcase_add_test(tc, test_ring_fresh_channel_needs_no_clearing);
    tcase_add_test(tc, test_prefault_maps_the_pages_and_changes_nothing);
    tcase_add_test(tc, test_ring_small_frames_are_packed);
    tcase_add_test(tc, test_segment_is_unlinked);
    tcase_add_test(tc, test_layout_sizes_rings_by_rank_count);
    tcase_add_test(tc, test_singleton);
    tcase_add_test(tc, test_eager_frames_in_order);
    tcase_add_test(tc, test_take_now_takes_only_the_next_frame_asked_for);
    tcase_add_test(tc, test_get_reads_the_peer_buffer_where_allowed);
    tcase_add_test(tc, test_put_writes_the_peer_buffer_where_allowed);
    tcase_add_test(tc, test_split_copy_pieces_go_to_whoever_claims_first);
    tcase_add_test(tc, test_one_copy_for_many_receivers);
    tcase_add_test(tc, test_large_two_copy_pipeline);
    tcase_add_test(tc, test_large_single_copy);
    tcase_add_test(tc, test_large_auto_single_copy_up_to_max);
    tcase_add_test(tc, test_large_auto_busy_sender_single_copy);
    tcase_add_test(tc, test_large_auto_busy_sender_crowded_staged);
    tcase_add_test(tc, test_large_auto_fan_out_crowded_single_copy);
    tcase_add_test(tc, test_large_no_read_hint_is_staged);
    tcase_add_test(tc, test_cma_unsupported);
    tcase_add_test(tc, test_cma_movev_moves_every_piece);
    tcase_add_test(tc, test_doorbell_wakes_only_sleepers);
    tcase_add_test(tc, test_sleeping_pingpong_is_fast);
    tcase_add_loop_test(tc, test_peer_death, 0, 3);
    tcase_add_test(tc, test_four_ranks);
    suite_add_tcase(s, tc);
    return bolt_check_run(s);
}
