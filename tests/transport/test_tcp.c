/*
 * test_tcp.c — unit tests of the TCP transport, driven through its ops
 * (bolt_transport_tcp) without bolt_init: two (or three) forked processes
 * over loopback, a file-backed fake of the bootstrap store
 * (tcp_fake_kvs.c), and a tiny stand-in for the runtime's upcalls.
 *
 * Built twice: test_tcp (this platform's build: epoll + MSG_NOSIGNAL on
 * Linux) and test_tcp_posix (-DBOLT_TCP_FORCE_POSIX: the poll loop and the
 * portable SIGPIPE handling that macOS uses).
 */
#include <arpa/inet.h>
#include <check.h>

#include "tests/check_run.h"
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/bootstrap.h"
#include "runtime/config.h"
#include "runtime/crypto.h"
#include "runtime/errors.h"
#include "runtime/hostid.h"
#include "transport/tcp/tcp.h"
#include "transport/tcp/tcp_os.h"
#include "transport/transport.h"

#define T (&bolt_transport_tcp)
#define MiB (1024u * 1024u)

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
    int failed_calls, failed_peer, failed_err;
    char why[256];
    int reject_type; /* frame_begin refuses this type (0: none) */
};

static int rt_begin(void *rtp, int peer, const struct bolt_frame_hdr *h, void **dst, void **cookie)
{
    struct rt *rt = rtp;
    if (rt->reject_type && h->type == rt->reject_type)
        return BOLT_ERR_PROTO;
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
    (void)peer;
    return 0;
}

static void rt_end(void *rtp, int peer, const struct bolt_frame_hdr *hdr, void *cookie)
{
    (void)hdr;
    struct rt *rt = rtp;
    rt->f[(intptr_t)cookie].done = 1;
    (void)peer;
}

static void rt_failed(void *rtp, int peer, int error, const char *why)
{
    struct rt *rt = rtp;
    rt->failed_calls++;
    rt->failed_peer = peer;
    rt->failed_err = error;
    snprintf(rt->why, sizeof rt->why, "%s", why);
}

struct snd {
    struct bolt_tl_send s;
    int done, err;
};

static int g_completed;

static void snd_complete(struct bolt_tl_send *s, int error)
{
    struct snd *x = (struct snd *)s;
    x->done++;
    x->err = error;
    g_completed++;
}

static unsigned char pat(uint64_t seq, uint64_t i)
{
    return (unsigned char)(seq * 131u + i * 7u + (i >> 9));
}

static unsigned char *make_payload(uint64_t seq, size_t len)
{
    unsigned char *p = malloc(len ? len : 1);
    for (size_t i = 0; i < len; i++)
        p[i] = pat(seq, i);
    return p;
}

static int check_payload(const unsigned char *p, uint64_t seq, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] != pat(seq, i))
            return 0;
    return 1;
}

static void snd_init(struct snd *x, int type, uint64_t seq, uint64_t offset, const void *payload,
                     size_t len)
{
    memset(x, 0, sizeof *x);
    x->s.hdr.magic = BOLT_FRAME_MAGIC;
    x->s.hdr.type = (uint8_t)type;
    x->s.hdr.len = len;
    x->s.hdr.sreq = seq;
    x->s.hdr.msg_size = offset;
    x->s.payload = payload;
    x->s.complete = snd_complete;
}

/* ------------------------------------------------------------------ */
/* endpoints and processes                                             */

struct ep {
    struct bolt_tl_ctx *ctx;
    struct rt rt;
    struct bolt_tl_upcalls up;
    int rank, size;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* init + the fence the runtime does after every transport's init. */
static int ep_init(struct ep *e, int rank, int size)
{
    memset(e, 0, sizeof *e);
    e->rank = rank;
    e->size = size;
    e->up.rt = &e->rt;
    e->up.frame_begin = rt_begin;
    e->up.frame_end = rt_end;
    e->up.peer_failed = rt_failed;
    int rc = bolt_config_load();
    if (rc)
        return rc;
    bolt_bootstrap_open(rank, size);
    struct bolt_tl_init_args a = {rank, size, &e->up};
    rc = T->init(&e->ctx, &a);
    if (rc)
        return rc;
    return bolt_bootstrap_fence();
}

static int ep_connect(struct ep *e)
{
    int peers[16], n = 0, rank = e->rank, size = e->size;
    for (int r = 0; r < size; r++)
        if (r != rank)
            peers[n++] = r;
    return T->connect(e->ctx, peers, n);
}

static void ep_close(struct ep *e)
{
    T->finalize(e->ctx);
    e->ctx = NULL;
    for (int i = 0; i < e->rt.n; i++)
        free(e->rt.f[i].buf);
    free(e->rt.f);
    memset(&e->rt, 0, sizeof e->rt);
}

static int ep_open(struct ep *e, int rank, int size)
{
    int rc = ep_init(e, rank, size);
    return rc ? rc : ep_connect(e);
}

/* Progress until cond(e, arg) or the deadline; sleeps on pollfds between. */
static int drive(struct ep *e, int (*cond)(struct ep *, void *), void *arg, double secs)
{
    double end = now() + secs;
    while (!cond(e, arg)) {
        if (now() > end)
            return 0;
        if (T->progress(e->ctx) == 0) {
            struct pollfd fds[64];
            int n = T->pollfds(e->ctx, fds, 64);
            if (n < 0)
                return 0;
            poll(fds, (nfds_t)n, 5);
        }
    }
    return 1;
}

static char g_dir[256];

static void setup_env(const char *evloop, const char *buf, int conns, double timeout)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/bolt-tcp-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(g_dir));
    setenv("BOLT_TEST_KVS_DIR", g_dir, 1);
    uint8_t key[BOLT_SECRET_BYTES];
    char hex[2 * BOLT_SECRET_BYTES + 1];
    ck_assert_int_eq(bolt_random_bytes(key, sizeof key), 0);
    bolt_hex_encode(key, sizeof key, hex);
    setenv("BOLT_JOB_SECRET", hex, 1);
    setenv("BOLT_TCP_EVLOOP", evloop, 1);
    setenv("BOLT_TCP_BUF", buf, 1);
    char v[32];
    snprintf(v, sizeof v, "%d", conns);
    setenv("BOLT_TCP_CONNS", v, 1);
    setenv("BOLT_TCP_STRIPE_MIN", "256K", 1); /* the striping tests send 1 MiB pieces */
    snprintf(v, sizeof v, "%g", timeout);
    setenv("BOLT_TIMEOUT", v, 1);
    setenv("BOLT_LOG_LEVEL", "1", 1);
}

static void cleanup_dir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", g_dir);
}

/* Waits for pid at most secs; kills it after. Returns the exit code, or -1. */
static int reap(pid_t pid, double secs)
{
    double end = now() + secs;
    int st;
    for (;;) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            break;
        if (now() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        usleep(2000);
    }
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

#define REQUIRE(c)                                                                        \
    do {                                                                                  \
        if (!(c)) {                                                                       \
            fprintf(stderr, "rank %d: %s:%d: failed: %s (%s)\n", e->rank, __FILE__,       \
                    __LINE__, #c, bolt_error_message());                                  \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)

typedef int (*role_fn)(struct ep *e, void *arg);

/* Rank 1 in a child process, rank 0 here; both must return 0. */
static void run_pair(role_fn r0, role_fn r1, void *arg)
{
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        alarm(60);
        struct ep e;
        int rc = ep_open(&e, 1, 2);
        if (rc) {
            fprintf(stderr, "rank 1: open: %s\n", bolt_error_message());
            _exit(2);
        }
        _exit(r1(&e, arg) ? 1 : 0);
    }
    struct ep e;
    int rc = ep_open(&e, 0, 2);
    ck_assert_msg(rc == BOLT_OK, "rank 0 open: %s", bolt_error_message());
    int r = r0(&e, arg);
    int code = reap(pid, 40);
    cleanup_dir();
    ck_assert_msg(r == 0, "rank 0 role failed");
    ck_assert_msg(code == 0, "rank 1 exited with %d", code);
}

/* ------------------------------------------------------------------ */
/* frames of many sizes, both directions, in order                     */

/* The last ones straddle TCP_WRITE_CAP (bytes a writev gathers): a header
 * and payload ending just short of it, at it, and just past it; then past
 * it by TCP_WRITE_TAIL (one write still) and by one more byte (two). */
#define CAP ((size_t)TCP_WRITE_CAP - TCP_HDR_BYTES)
static const size_t sizes[] = {0, 1, 48, 65536, 65537, 8 * MiB, 3, 0, 100000, 47, 49,
                               CAP - 20, 5, CAP, CAP + 1, 2, CAP + TCP_WRITE_TAIL,
                               CAP + TCP_WRITE_TAIL + 1, 7};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define NSMALL 300

struct xfer {
    int nframes;
    int slow; /* small socket buffers: the exchange takes many passes */
    size_t len[NSIZES + NSMALL];
};

static void xfer_plan(struct xfer *x, int slow)
{
    x->slow = slow;
    x->nframes = 0;
    for (size_t i = 0; i < NSIZES; i++)
        x->len[x->nframes++] = sizes[i];
    /* Many small frames: several per writev, parsed out of one staging read. */
    for (int i = 0; i < NSMALL; i++)
        x->len[x->nframes++] = (size_t)((i * 2654435761u) % 300u);
}

static int all_done(struct ep *e, void *arg)
{
    struct xfer *x = arg;
    int got = 0;
    for (int i = 0; i < e->rt.n; i++)
        got += e->rt.f[i].done;
    return got == x->nframes && g_completed == x->nframes;
}

static const char *evloops[] = {"poll",
#if TCP_HAVE_EPOLL
                                "epoll",
#endif
                                "auto"};
#define NEVLOOPS ((int)(sizeof evloops / sizeof evloops[0]))

/* Tests looped over n event loops twice: the second time the busy peers'
 * connections are read directly (tcp_direct.c), the first time only through
 * the event loop. */
static const char *evloop_of(int i, int n)
{
    setenv("BOLT_TCP_DIRECT_PEERS", i < n ? "0" : "3", 1);
    return evloops[i % n];
}

/* Whether frames were read directly (tcp_direct.c) exactly when
 * BOLT_TCP_DIRECT_PEERS lets them (its default does). A peer is read
 * directly once heard from, decided every few event-loop passes: an
 * exchange over large socket buffers may end within those passes, so only
 * one that takes many (slow) must have used direct reads. */
static int direct_as_set(const struct ep *e, int slow)
{
    if (bolt_param_int(BOLT_P_TCP_DIRECT_PEERS) == 0)
        return e->ctx->direct_frames == 0;
    return !slow || e->ctx->direct_frames > 0;
}

static int role_exchange(struct ep *e, void *arg)
{
    struct xfer *x = arg;
    int peer = 1 - e->rank;
    struct snd *s = calloc((size_t)x->nframes, sizeof *s);
    unsigned char **pl = calloc((size_t)x->nframes, sizeof *pl);
    g_completed = 0;
    for (int i = 0; i < x->nframes; i++) {
        uint64_t seq = (uint64_t)i + 1000u * (uint64_t)e->rank;
        pl[i] = make_payload(seq, x->len[i]);
        snd_init(&s[i], BOLT_FRAME_EAGER, seq, 0, pl[i], x->len[i]);
        REQUIRE(T->send(e->ctx, peer, &s[i].s) == BOLT_OK);
    }
    /* A small socket buffer cannot take 8 MiB at once: that send is queued,
     * partly written, and finishes in progress().  With the kernel's default
     * (autotuned) buffers the peer may drain it in time, so only check then. */
    const char *buf = getenv("BOLT_TCP_BUF");
    if (buf && strcmp(buf, "0") != 0)
        REQUIRE(s[5].done == 0);
    REQUIRE(drive(e, all_done, x, 30));
    REQUIRE(direct_as_set(e, x->slow));
    for (int i = 0; i < x->nframes; i++) {
        REQUIRE(s[i].done == 1 && s[i].err == BOLT_OK);
        struct rx *f = &e->rt.f[i];
        uint64_t seq = (uint64_t)i + 1000u * (uint64_t)peer;
        REQUIRE(f->hdr.magic == BOLT_FRAME_MAGIC && f->hdr.type == BOLT_FRAME_EAGER);
        REQUIRE(f->hdr.sreq == seq); /* in order */
        REQUIRE(f->hdr.len == x->len[i]);
        REQUIRE(check_payload(f->buf, seq, x->len[i]));
    }
    REQUIRE(e->rt.failed_calls == 0);
    ep_close(e);
    for (int i = 0; i < x->nframes; i++)
        free(pl[i]);
    free(pl);
    free(s);
    return 0;
}


START_TEST(test_sizes_in_order)
{
    setup_env(evloop_of(_i, NEVLOOPS), "8K", 1, 20);
    struct xfer x;
    xfer_plan(&x, 1);
    run_pair(role_exchange, role_exchange, &x);
}
END_TEST

START_TEST(test_default_buffers)
{
    setup_env(evloops[_i], "0", 1, 20);
    struct xfer x;
    xfer_plan(&x, 0);
    run_pair(role_exchange, role_exchange, &x);
}
END_TEST

/* ------------------------------------------------------------------ */
/* striping DATA frames over several connections                       */

#define NDATA 12
#define NCONNS 3

struct stripe_plan {
    int expect;
};

static int stripe_done(struct ep *e, void *arg)
{
    struct stripe_plan *p = arg;
    int got = 0;
    for (int i = 0; i < e->rt.n; i++)
        got += e->rt.f[i].done;
    return got == p->expect;
}

static int sent_done(struct ep *e, void *arg)
{
    return g_completed == *(int *)arg;
}

static int role_stripe_sender(struct ep *e, void *arg)
{
    REQUIRE(T->eager_limit(e->ctx, 1) == 64 * 1024);
    REQUIRE(T->data_stripes(e->ctx, 1, 1 * MiB) == NCONNS);
    REQUIRE(T->data_stripes(e->ctx, 1, 1000) == 1);
    REQUIRE(e->ctx->peers[1].nconns == NCONNS);
    static struct snd s[2 * NDATA + 1];
    unsigned char *big = make_payload(7, NDATA * MiB);
    g_completed = 0;
    int n = 0;
    for (int k = 0; k < NDATA; k++) {
        snd_init(&s[n], BOLT_FRAME_EAGER, (uint64_t)k, 0, big, 10);
        REQUIRE(T->send(e->ctx, 1, &s[n++].s) == BOLT_OK);
        snd_init(&s[n], BOLT_FRAME_DATA, 100, (uint64_t)k * MiB, big + (size_t)k * MiB, MiB);
        REQUIRE(T->send(e->ctx, 1, &s[n++].s) == BOLT_OK);
    }
    snd_init(&s[n], BOLT_FRAME_BYE, NDATA, 0, NULL, 0);
    REQUIRE(T->send(e->ctx, 1, &s[n++].s) == BOLT_OK);
    int busy = 0;
    for (int c = 0; c < NCONNS; c++)
        busy += e->ctx->peers[1].conns[c].sq_head != NULL;
    REQUIRE(busy >= 2); /* DATA spread over the links */
    REQUIRE(drive(e, sent_done, &n, 30));
    for (int i = 0; i < n; i++)
        REQUIRE(s[i].err == BOLT_OK);
    ep_close(e);
    free(big);
    return 0;
}

static int role_stripe_receiver(struct ep *e, void *arg)
{
    struct stripe_plan p = {2 * NDATA + 1};
    REQUIRE(drive(e, stripe_done, &p, 30));
    int seen[NDATA] = {0};
    uint64_t next_eager = 0;
    int bye = 0;
    for (int i = 0; i < e->rt.n; i++) {
        struct rx *f = &e->rt.f[i];
        if (f->hdr.type == BOLT_FRAME_DATA) {
            uint64_t k = f->hdr.msg_size / MiB;
            REQUIRE(k < NDATA && f->hdr.len == MiB);
            seen[k]++;
            /* payload is bytes [k MiB, (k+1) MiB) of pattern 7 */
            for (size_t j = 0; j < MiB; j += 4099)
                REQUIRE(f->buf[j] == pat(7, k * MiB + j));
            REQUIRE(f->buf[MiB - 1] == pat(7, k * MiB + MiB - 1));
        } else if (f->hdr.type == BOLT_FRAME_EAGER) {
            REQUIRE(!bye && f->hdr.sreq == next_eager);
            next_eager++;
            REQUIRE(check_payload(f->buf, 7, 10));
        } else {
            REQUIRE(f->hdr.type == BOLT_FRAME_BYE && next_eager == NDATA);
            bye = 1;
        }
    }
    for (int k = 0; k < NDATA; k++)
        REQUIRE(seen[k] == 1);
    ep_close(e);
    return 0;
}

START_TEST(test_striping)
{
    setup_env(evloop_of(_i, NEVLOOPS - 1), "16K", NCONNS, 20);
    run_pair(role_stripe_sender, role_stripe_receiver, NULL);
}
END_TEST

/* ------------------------------------------------------------------ */
/* peer death                                                          */

static int role_sleep(struct ep *e, void *arg)
{
    /* Connected; never reads. Killed by rank 0, or leaves on its own. */
    if (arg) {
        usleep(100000);
        _exit(0); /* closes the sockets: rank 0 sees EOF */
    }
    for (;;)
        pause();
    return 0;
}

static int failed_seen(struct ep *e, void *arg)
{
    return e->rt.failed_calls > 0;
}

static void death_test(int kill_it)
{
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        alarm(60);
        struct ep e;
        if (ep_open(&e, 1, 2)) {
            fprintf(stderr, "rank 1: open: %s\n", bolt_error_message());
            _exit(2);
        }
        role_sleep(&e, kill_it ? NULL : (void *)1);
        _exit(0);
    }
    struct ep e;
    ck_assert_msg(ep_open(&e, 0, 2) == BOLT_OK, "open: %s", bolt_error_message());
    static struct snd a, b, c;
    unsigned char *big = make_payload(1, 16 * MiB);
    g_completed = 0;
    if (kill_it) {
        snd_init(&a, BOLT_FRAME_EAGER, 1, 0, big, 16 * MiB);
        snd_init(&b, BOLT_FRAME_EAGER, 2, 0, big, 100);
        ck_assert_int_eq(T->send(e.ctx, 1, &a.s), BOLT_OK);
        ck_assert_int_eq(T->send(e.ctx, 1, &b.s), BOLT_OK);
        for (int i = 0; i < 20; i++)
            T->progress(e.ctx);
        ck_assert_int_eq(a.done, 0); /* the peer does not read: stuck */
        ck_assert_int_eq(b.done, 0);
        kill(pid, SIGKILL);
    }
    ck_assert_int_eq(reap(pid, 20), kill_it ? 128 + SIGKILL : 0);
    ck_assert_msg(drive(&e, failed_seen, NULL, 10), "peer death not detected");
    ck_assert_int_eq(e.rt.failed_calls, 1);
    ck_assert_int_eq(e.rt.failed_peer, 1);
    ck_assert_int_eq(e.rt.failed_err, BOLT_ERR_PEER);
    if (kill_it) {
        ck_assert_int_eq(a.done, 1);
        ck_assert_int_eq(a.err, BOLT_ERR_PEER);
        ck_assert_int_eq(b.done, 1);
        ck_assert_int_eq(b.err, BOLT_ERR_PEER);
    } else {
        ck_assert_msg(strstr(e.rt.why, "closed the connection"), "why: %s", e.rt.why);
    }
    /* Later sends fail the same way, at once; no second report. */
    snd_init(&c, BOLT_FRAME_EAGER, 3, 0, big, 10);
    ck_assert_int_eq(T->send(e.ctx, 1, &c.s), BOLT_OK);
    ck_assert_int_eq(c.done, 1);
    ck_assert_int_eq(c.err, BOLT_ERR_PEER);
    for (int i = 0; i < 10; i++)
        T->progress(e.ctx);
    ck_assert_int_eq(e.rt.failed_calls, 1);
    ep_close(&e);
    free(big);
    cleanup_dir();
}

START_TEST(test_peer_killed)
{
    setup_env(evloops[_i], "8K", 2, 20);
    death_test(1);
}
END_TEST

START_TEST(test_peer_exits)
{
    setup_env(evloops[_i], "0", 1, 20);
    death_test(0);
}
END_TEST

/* A frame with a bad magic breaks the peer; the runtime refusing a frame too. */
static int role_bad_frame_sender(struct ep *e, void *arg)
{
    static struct snd s;
    static unsigned char pl[64];
    snd_init(&s, BOLT_FRAME_EAGER, 1, 0, pl, sizeof pl);
    s.s.hdr.magic = 0xdead;
    g_completed = 0;
    REQUIRE(T->send(e->ctx, 1, &s.s) == BOLT_OK);
    int one = 1;
    REQUIRE(drive(e, sent_done, &one, 10));
    REQUIRE(drive(e, failed_seen, NULL, 10)); /* rank 1 closes on us */
    ep_close(e);
    return 0;
}

static int role_bad_frame_receiver(struct ep *e, void *arg)
{
    REQUIRE(drive(e, failed_seen, NULL, 10));
    REQUIRE(e->rt.failed_peer == 0 && strstr(e->rt.why, "malformed"));
    REQUIRE(e->rt.n == 0);
    ep_close(e);
    return 0;
}

START_TEST(test_bad_frame)
{
    setup_env("auto", "0", 1, 20);
    run_pair(role_bad_frame_sender, role_bad_frame_receiver, NULL);
}
END_TEST

/* ------------------------------------------------------------------ */
/* strangers and wrong secrets are refused; the wire-up goes on         */

static int read_port(void)
{
    char path[300], buf[2048];
    snprintf(path, sizeof path, "%s/tcp.0", g_dir);
    for (int i = 0; i < 5000; i++) {
        FILE *f = fopen(path, "r");
        if (f) {
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            fclose(f);
            buf[n] = '\0';
            char *p = strstr(buf, "port=");
            return p ? atoi(p + 5) : -1;
        }
        usleep(2000);
    }
    return -1;
}

static int dial(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    struct timeval tv = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

static int read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r <= 0)
            return (int)r;
        got += (size_t)r;
    }
    return 1;
}

/* 1 when the acceptor closed the connection without an ack. */
static int refused(int fd)
{
    char c;
    ssize_t r = read(fd, &c, 1);
    int ok = r == 0 || (r < 0 && errno == ECONNRESET);
    close(fd);
    return ok;
}

enum { BAD_SECRET, BAD_ORDER, BAD_GARBAGE, BAD_RANK };

static int stranger_try(int port, int how)
{
    int fd = dial(port);
    if (fd < 0)
        return 0;
    struct tcp_hs_challenge ch;
    if (read_full(fd, &ch, sizeof ch) != 1 || ch.magic != TCP_HS_MAGIC || ch.rank != 0) {
        close(fd);
        return 0;
    }
    struct tcp_hs_hello he;
    memset(&he, 0, sizeof he);
    he.magic = TCP_HS_MAGIC;
    he.version = TCP_HS_VERSION;
    he.order = TCP_HS_ORDER;
    he.rank = how == BAD_RANK ? 7 : 1;
    he.index = 0;
    he.target = 0;
    uint8_t wrong[BOLT_SECRET_BYTES];
    memset(wrong, 0x5a, sizeof wrong);
    tcp_hs_hello_mac(wrong, ch.nonce, he.target, he.rank, he.index, he.flags, he.mac);
    if (how == BAD_ORDER) {
        he.magic = __builtin_bswap32(TCP_HS_MAGIC);
        he.order = __builtin_bswap16(TCP_HS_ORDER);
    }
    if (how == BAD_GARBAGE)
        memset(&he, 0xee, sizeof he);
    if (write(fd, &he, sizeof he) != (ssize_t)sizeof he) {
        close(fd);
        return 0;
    }
    return refused(fd);
}

static void touch(const char *name)
{
    char path[300];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "w");
    if (f)
        fclose(f);
}

static void wait_file(const char *name, double secs)
{
    char path[300];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    double end = now() + secs;
    struct stat st;
    while (stat(path, &st) != 0 && now() < end)
        usleep(2000);
}

static int role_one_frame(struct ep *e, void *arg)
{
    static struct snd s;
    static unsigned char pl[1000];
    memset(pl, e->rank + 1, sizeof pl);
    g_completed = 0;
    snd_init(&s, BOLT_FRAME_EAGER, 1, 0, pl, sizeof pl);
    REQUIRE(T->send(e->ctx, 1 - e->rank, &s.s) == BOLT_OK);
    int one = 1;
    struct stripe_plan p = {1};
    REQUIRE(drive(e, sent_done, &one, 10));
    REQUIRE(drive(e, stripe_done, &p, 10));
    REQUIRE(e->rt.f[0].buf[999] == 2 - e->rank);
    ep_close(e);
    return 0;
}

START_TEST(test_stranger_refused)
{
    setup_env(evloops[_i], "0", 1, 20);
    fflush(stderr);
    pid_t stranger = fork();
    ck_assert_int_ge(stranger, 0);
    if (stranger == 0) {
        alarm(60);
        int port = read_port();
        int silent = dial(port); /* connects and says nothing throughout */
        int ok = port > 0 && silent >= 0;
        ok = ok && stranger_try(port, BAD_SECRET);
        ok = ok && stranger_try(port, BAD_ORDER);
        ok = ok && stranger_try(port, BAD_GARBAGE);
        ok = ok && stranger_try(port, BAD_RANK);
        touch("stranger.done");
        wait_file("rank1.done", 30);
        close(silent);
        _exit(ok ? 0 : 1);
    }
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        alarm(60);
        struct ep e;
        /* Rank 0 answers only once in its wire-up, after the fence. */
        int rc = ep_init(&e, 1, 2);
        wait_file("stranger.done", 30);
        if (rc || ep_connect(&e)) {
            fprintf(stderr, "rank 1: open: %s\n", bolt_error_message());
            _exit(2);
        }
        int r = role_one_frame(&e, NULL);
        touch("rank1.done");
        _exit(r ? 1 : 0);
    }
    struct ep e;
    ck_assert_msg(ep_open(&e, 0, 2) == BOLT_OK, "open: %s", bolt_error_message());
    ck_assert_int_eq(role_one_frame(&e, NULL), 0);
    ck_assert_int_eq(reap(pid, 30), 0);
    ck_assert_int_eq(reap(stranger, 30), 0);
    cleanup_dir();
}
END_TEST

/* A rank with another job's secret: it is refused and learns so; rank 0
 * keeps waiting for the right one until BOLT_TIMEOUT. */
START_TEST(test_wrong_secret)
{
    setup_env("auto", "0", 1, 2);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        alarm(30);
        setenv("BOLT_JOB_SECRET",
               "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", 1);
        struct ep e;
        int rc = ep_open(&e, 1, 2);
        if (rc != BOLT_ERR_AUTH) {
            fprintf(stderr, "rank 1: expected BOLT_ERR_AUTH, got %d (%s)\n", rc,
                    bolt_error_message());
            _exit(1);
        }
        ep_close(&e);
        _exit(0);
    }
    struct ep e;
    double t0 = now();
    int rc = ep_open(&e, 0, 2);
    ck_assert_int_eq(rc, BOLT_ERR_TIMEOUT);
    ck_assert_msg(strstr(bolt_error_message(), "rank 1"), "%s", bolt_error_message());
    ck_assert(now() - t0 < 10);
    ep_close(&e);
    ck_assert_int_eq(reap(pid, 20), 0);
    cleanup_dir();
}
END_TEST

/* ------------------------------------------------------------------ */
/* four ranks: the middle ones both accept and connect                 */

#define NGROUP 4

static int all_of_group(struct ep *e, void *arg)
{
    int got = 0;
    for (int i = 0; i < e->rt.n; i++)
        got += e->rt.f[i].done;
    return got == 2 * (NGROUP - 1) && g_completed == 2 * (NGROUP - 1);
}

static int role_group(struct ep *e, void *arg)
{
    static struct snd s[2 * NGROUP];
    unsigned char *pl = make_payload((uint64_t)e->rank, 300000);
    g_completed = 0;
    int n = 0;
    for (int q = 0; q < NGROUP; q++) {
        if (q == e->rank)
            continue;
        snd_init(&s[n], BOLT_FRAME_EAGER, (uint64_t)e->rank, 0, pl, 1000);
        REQUIRE(T->send(e->ctx, q, &s[n++].s) == BOLT_OK);
        snd_init(&s[n], BOLT_FRAME_DATA, (uint64_t)e->rank, 0, pl, 300000);
        REQUIRE(T->send(e->ctx, q, &s[n++].s) == BOLT_OK);
    }
    REQUIRE(drive(e, all_of_group, NULL, 20));
    for (int i = 0; i < e->rt.n; i++) {
        struct rx *f = &e->rt.f[i];
        REQUIRE(check_payload(f->buf, f->hdr.sreq, f->hdr.len));
    }
    /* A rank done before us may have finalized: EOF after all its frames. */
    REQUIRE(e->rt.failed_calls == 0 || strstr(e->rt.why, "closed the connection"));
    ep_close(e);
    free(pl);
    return 0;
}

START_TEST(test_four_ranks)
{
    setup_env(evloop_of(_i, NEVLOOPS - 1), "32K", 2, 20);
    pid_t pids[NGROUP];
    fflush(stderr);
    for (int r = 1; r < NGROUP; r++) {
        pids[r] = fork();
        ck_assert_int_ge(pids[r], 0);
        if (pids[r] == 0) {
            alarm(60);
            struct ep e;
            if (ep_open(&e, r, NGROUP)) {
                fprintf(stderr, "rank %d: open: %s\n", r, bolt_error_message());
                _exit(2);
            }
            _exit(role_group(&e, NULL) ? 1 : 0);
        }
    }
    struct ep e;
    ck_assert_msg(ep_open(&e, 0, NGROUP) == BOLT_OK, "open: %s", bolt_error_message());
    int r0 = role_group(&e, NULL);
    for (int r = 1; r < NGROUP; r++)
        ck_assert_int_eq(reap(pids[r], 30), 0);
    cleanup_dir();
    ck_assert_int_eq(r0, 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* path failover: connections cut mid-transfer resume, nothing lost    */

/* BOLT_TCP_FAILOVER=1 arms loopback peers, and the ranks publish only their
 * loopback address: a resume must not go over another test's interfaces
 * (tests/cluster's management links come and go while this runs; a
 * connection resumed over one that is then deleted is black-holed until
 * BOLT_TIMEOUT notices). */
static void failover_env(void)
{
    setenv("BOLT_TCP_FAILOVER", "1", 1);
    setenv("BOLT_IF_INCLUDE", "127.0.0.0/8", 1);
}

static void failover_env_clear(void)
{
    unsetenv("BOLT_TCP_FAILOVER");
    unsetenv("BOLT_IF_INCLUDE");
}

/* BOLT_TCP_FAILOVER=1 arms loopback peers too; a connection is "cut" with
 * shutdown(), which both ends see as an EOF without a goodbye. */
#define NRES 60

struct resume_plan {
    int cutter;       /* rank that cuts */
    unsigned conns;   /* bit k: cut connection k */
    int cut_after;    /* completed sends before the cut */
    int how;          /* SHUT_RDWR (both ends see an EOF), or -1: the cutter alone
                         notes a break (as when its TCP_USER_TIMEOUT fires) and,
                         the socket kept open by a dup, the peer learns of it
                         from the RESUME only */
};

static size_t resume_len(int i)
{
    static const size_t lens[] = {0, 10, 48, 1000, 65536, 65537, 100000, 3 * MiB, 7, 300000,
                                  40000, 2 * MiB};
    return lens[i % (int)(sizeof lens / sizeof lens[0])];
}

static int resume_type(int i)
{
    return resume_len(i) >= 300000 ? BOLT_FRAME_DATA : BOLT_FRAME_EAGER;
}

static int sent_atleast(struct ep *e, void *arg)
{
    return g_completed >= *(int *)arg;
}

static int resume_done_n(struct ep *e, int n)
{
    int got = 0;
    for (int i = 0; i < e->rt.n; i++)
        got += e->rt.f[i].done;
    return got >= n && g_completed >= n;
}

static int resume_done(struct ep *e, void *arg)
{
    (void)arg;
    return resume_done_n(e, NRES);
}

/* A stalled resume says where each connection end stands. */
static void resume_dump(struct ep *e, int peer, const struct snd *s, int n)
{
    struct tcp_peer *p = &e->ctx->peers[peer];
    int got = 0, sent = 0;
    for (int i = 0; i < e->rt.n; i++)
        got += e->rt.f[i].done;
    for (int i = 0; i < n; i++)
        sent += s[i].done;
    fprintf(stderr, "rank %d: stalled: %d frames in, %d sends done (completed %d)\n", e->rank, got,
            sent, g_completed);
    for (int k = 0; k < p->nconns; k++) {
        const struct tcp_conn *c = &p->conns[k];
        const struct tcp_fo *fo = c->fo;
        fprintf(stderr,
                "rank %d conn %d: fd %d dead %d interest %d rd_eof %d in_payload %d hgot %u "
                "rgot %llu/%llu sq %s tl_done %llu sq_bytes %llu | fo state %d gen %u dial %d "
                "confirmed %llu end %llu rs_pos %llu nrefs %u ring_wait %d ctl %u/%u "
                "ack_sent %llu ack_want %llu rx_done %llu kick %d bye %d/%d/%d answering %d\n",
                e->rank, k, c->fd, c->dead, c->interest, c->rd_eof, c->in_payload, c->hgot,
                (unsigned long long)c->rgot, (unsigned long long)c->rhdr.len,
                c->sq_head ? "yes" : "no",
                (unsigned long long)(c->sq_head ? c->sq_head->tl_done : 0),
                (unsigned long long)c->sq_bytes, fo->state, fo->gen, fo->dial.state,
                (unsigned long long)fo->rt.confirmed, (unsigned long long)fo->rt.end,
                (unsigned long long)fo->rs_pos, fo->rt.nrefs, fo->ring_wait, fo->ctl_done,
                fo->ctl_len, (unsigned long long)fo->ack_sent, (unsigned long long)fo->ack_want,
                (unsigned long long)fo->rx_done, fo->kick, fo->bye_want, fo->bye_sent,
                fo->peer_bye, fo->answering != NULL);
    }
}

/* Sends n frames to the peer at once: frame i of len(i) bytes, type type(i). */
static int resume_send_all(struct ep *e, int peer, struct snd *s, unsigned char **pay, int n,
                           size_t (*len)(int), int (*type)(int))
{
    g_completed = 0;
    for (int i = 0; i < n; i++) {
        uint64_t seq = (uint64_t)i + 1000u * (uint64_t)e->rank;
        pay[i] = make_payload(seq, len(i));
        snd_init(&s[i], type(i), seq, (uint64_t)i, pay[i], len(i));
        REQUIRE(T->send(e->ctx, peer, &s[i].s) == BOLT_OK);
    }
    return 0;
}

/* Every send done; every frame of the peer exactly once, intact, the
 * non-DATA ones in order; a peer done before us may have finalized (its EOF
 * after its GOODBYE). Frame i of the peer has len(i) bytes and type type(i). */
static int resume_check(struct ep *e, const struct snd *s, int n, int peer, size_t (*len)(int),
                        int (*type)(int))
{
    for (int i = 0; i < n; i++)
        REQUIRE(s[i].done == 1 && s[i].err == BOLT_OK);
    REQUIRE(e->rt.n == n);
    int *seen = calloc((size_t)n, sizeof *seen), next = 0;
    REQUIRE(seen);
    for (int i = 0; i < e->rt.n; i++) {
        struct rx *f = &e->rt.f[i];
        int k = (int)(f->hdr.sreq - 1000u * (uint64_t)peer);
        REQUIRE(k >= 0 && k < n && f->hdr.len == len(k));
        REQUIRE(check_payload(f->buf, f->hdr.sreq, f->hdr.len));
        seen[k]++;
        if (f->hdr.type != BOLT_FRAME_DATA) {
            while (type(next) == BOLT_FRAME_DATA)
                next++;
            REQUIRE(k == next);
            next++;
        }
    }
    for (int k = 0; k < n; k++)
        REQUIRE(seen[k] == 1);
    free(seen);
    REQUIRE(e->rt.failed_calls == 0 || strstr(e->rt.why, "closed the connection"));
    return 0;
}

static int role_resume(struct ep *e, void *arg)
{
    struct resume_plan *pl = arg;
    int peer = 1 - e->rank;
    struct tcp_peer *p = &e->ctx->peers[peer];
    REQUIRE(p->nconns == 2 && p->conns[0].fo && p->conns[1].fo); /* armed */
    static struct snd s[NRES];
    unsigned char *pay[NRES];
    if (resume_send_all(e, peer, s, pay, NRES, resume_len, resume_type))
        return 1;
    int kept[2] = {-1, -1};
    if (e->rank == pl->cutter && pl->cut_after) {
        int want = pl->cut_after;
        REQUIRE(drive(e, sent_atleast, &want, 20));
        for (int k = 0; k < 2; k++) {
            if (!(pl->conns & (1u << k)))
                continue;
            if (pl->how < 0) {
                kept[k] = dup(p->conns[k].fd);
                tcp_conn_broken(&p->conns[k], ETIMEDOUT, "write");
            } else {
                shutdown(p->conns[k].fd, pl->how);
            }
        }
    }
    if (!drive(e, resume_done, NULL, 30)) {
        resume_dump(e, peer, s, NRES);
        REQUIRE(0 && "every frame in and every send done within 30 s");
    }
    if (resume_check(e, s, NRES, peer, resume_len, resume_type))
        return 1;
    for (int k = 0; k < 2; k++)
        if (pl->conns & (1u << k))
            REQUIRE(p->conns[k].fo->gen >= 1); /* it did resume */
    ep_close(e);
    for (int k = 0; k < 2; k++)
        if (kept[k] >= 0)
            close(kept[k]);
    for (int i = 0; i < NRES; i++)
        free(pay[i]);
    return 0;
}

static const struct resume_plan resume_plans[] = {
    {0, 3, 12, SHUT_RDWR}, /* the lower rank cuts both connections */
    {1, 3, 20, SHUT_RDWR}, /* the higher rank cuts both */
    {0, 2, 25, SHUT_RDWR}, /* only the striping connection */
    {1, 1, 5, SHUT_RDWR},  /* only connection 0, early */
    {1, 3, 15, -1},        /* rank 1 notices: its RESUME tells rank 0 */
    {0, 1, 30, -1},        /* rank 0 notices */
    {0, 0, 0, 0},          /* no cut: armed, nothing breaks */
};
#define NRESUME_PLANS ((int)(sizeof resume_plans / sizeof resume_plans[0]))

START_TEST(test_resume)
{
    setup_env(_i % 2 ? "poll" : "auto", "16K", 2, 20);
    failover_env();
    struct resume_plan pl = resume_plans[_i / 2];
    run_pair(role_resume, role_resume, &pl);
    failover_env_clear();
}
END_TEST

/* A link that flaps: both ranks cut connections again and again, at
 * random moments and in every way, while frames of every size flow both
 * ways; each frame arrives once, intact, the ordered ones in order. */
#define NSTORM 240

static uint64_t storm_rand(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static size_t storm_len(int i)
{
    uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
    uint64_t r = storm_rand(&x);
    switch (r % 8) {
    case 0: return 0;
    case 1: case 2: return (size_t)(r >> 8) % 64;
    case 3: case 4: return 1000 + (size_t)(r >> 8) % 64000;
    case 5: return 65536 + (size_t)(r >> 8) % 2;
    case 6: return 65537 + (size_t)(r >> 8) % 400000;
    default: return (size_t)(r >> 8) % 3 == 0 ? 2 * MiB + 5 : 200000 + (size_t)(r >> 8) % 100000;
    }
}

static int storm_type(int i)
{
    return storm_len(i) >= 200000 ? BOLT_FRAME_DATA : BOLT_FRAME_EAGER;
}

static int role_storm(struct ep *e, void *arg)
{
    (void)arg;
    int peer = 1 - e->rank;
    struct tcp_peer *p = &e->ctx->peers[peer];
    REQUIRE(p->nconns == 2 && p->conns[0].fo && p->conns[1].fo);
    static struct snd s[NSTORM];
    static unsigned char *pay[NSTORM];
    if (resume_send_all(e, peer, s, pay, NSTORM, storm_len, storm_type))
        return 1;
    uint64_t rng = 0x1234567ull + (uint64_t)e->rank * 77 + (uint64_t)getpid();
    int kept[16], nkept = 0, cuts = 0, next_cut = 10 + (int)(storm_rand(&rng) % 20);
    double end = now() + 45;
    while (!resume_done_n(e, NSTORM)) {
        if (now() > end) {
            resume_dump(e, peer, s, NSTORM);
            REQUIRE(0 && "every frame in and every send done within 45 s");
        }
        if (cuts < 8 && g_completed >= next_cut) {
            int k = (int)(storm_rand(&rng) % 2);
            struct tcp_conn *c = &p->conns[k];
            if (c->fo->state == TCP_FO_UP && c->fd >= 0) {
                int how = (int)(storm_rand(&rng) % 3);
                if (how == 2 && nkept < 16) {
                    kept[nkept++] = dup(c->fd);
                    tcp_conn_broken(c, ETIMEDOUT, "write");
                } else {
                    shutdown(c->fd, how == 0 ? SHUT_RDWR : SHUT_WR);
                }
                cuts++;
            }
            next_cut = g_completed + 5 + (int)(storm_rand(&rng) % 30);
        }
        if (T->progress(e->ctx) == 0) {
            struct pollfd fds[64];
            int n = T->pollfds(e->ctx, fds, 64);
            REQUIRE(n >= 0);
            poll(fds, (nfds_t)n, 2);
        }
    }
    if (resume_check(e, s, NSTORM, peer, storm_len, storm_type))
        return 1;
    ep_close(e);
    for (int i = 0; i < nkept; i++)
        close(kept[i]);
    for (int i = 0; i < NSTORM; i++)
        free(pay[i]);
    return 0;
}

/* The sender's last frames completed (copied) and its connection broke
 * before the receiver read them; the sender finalizes at once. Finalize
 * must resume the connection and see the frames confirmed before its
 * goodbye, or they are lost with the reset. */
#define NLAST 20

static int role_last_sender(struct ep *e, void *arg)
{
    (void)arg;
    struct tcp_peer *p = &e->ctx->peers[1];
    static struct snd s[NLAST];
    unsigned char *pay[NLAST];
    g_completed = 0;
    for (int i = 0; i < NLAST; i++) {
        pay[i] = make_payload((uint64_t)i, 500);
        snd_init(&s[i], BOLT_FRAME_EAGER, (uint64_t)i, 0, pay[i], 500);
        REQUIRE(T->send(e->ctx, 1, &s[i].s) == BOLT_OK);
    }
    int want = NLAST;
    REQUIRE(drive(e, sent_atleast, &want, 10)); /* copies: complete at once */
    /* Reset on close: what the receiver has not read yet is destroyed. */
    struct linger lg = {1, 0};
    REQUIRE(setsockopt(p->conns[0].fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg) == 0);
    tcp_conn_broken(&p->conns[0], ECONNRESET, "write");
    ep_close(e);
    for (int i = 0; i < NLAST; i++)
        free(pay[i]);
    return 0;
}

static int got_atleast(struct ep *e, void *arg)
{
    int got = 0;
    for (int i = 0; i < e->rt.n; i++)
        got += e->rt.f[i].done;
    return got >= *(int *)arg || e->rt.failed_calls > 0;
}

static int role_last_receiver(struct ep *e, void *arg)
{
    (void)arg;
    usleep(500 * 1000); /* not reading while the sender breaks and finalizes */
    int want = NLAST;
    REQUIRE(drive(e, got_atleast, &want, 30));
    REQUIRE(e->rt.n == NLAST);
    for (int i = 0; i < NLAST; i++) {
        REQUIRE(e->rt.f[i].done && e->rt.f[i].hdr.sreq == (uint64_t)i);
        REQUIRE(check_payload(e->rt.f[i].buf, (uint64_t)i, 500));
    }
    ep_close(e);
    return 0;
}

START_TEST(test_resume_at_finalize)
{
    setup_env("auto", "16K", 2, 20);
    failover_env();
    run_pair(role_last_sender, role_last_receiver, NULL);
    failover_env_clear();
}
END_TEST

START_TEST(test_resume_storm)
{
    setup_env(_i % 2 ? "poll" : "auto", "16K", 2, 20);
    failover_env();
    run_pair(role_storm, role_storm, NULL);
    failover_env_clear();
}
END_TEST

/* An armed peer that exits without finalizing: its EOF is no goodbye, so a
 * resume is tried; every address refuses (nobody listens any more) and the
 * peer fails at once, the message naming it and the paths tried. */
START_TEST(test_resume_peer_gone)
{
    setup_env("auto", "0", 2, 20);
    failover_env();
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        alarm(60);
        struct ep e;
        if (ep_open(&e, 1, 2)) {
            fprintf(stderr, "rank 1: open: %s\n", bolt_error_message());
            _exit(2);
        }
        role_sleep(&e, (void *)1); /* exits, sockets closed */
        _exit(0);
    }
    struct ep e;
    ck_assert_msg(ep_open(&e, 0, 2) == BOLT_OK, "open: %s", bolt_error_message());
    ck_assert_ptr_nonnull(e.ctx->peers[1].conns[0].fo);
    static struct snd a;
    unsigned char *big = make_payload(1, MiB);
    g_completed = 0;
    snd_init(&a, BOLT_FRAME_EAGER, 1, 0, big, MiB); /* held by reference */
    ck_assert_int_eq(T->send(e.ctx, 1, &a.s), BOLT_OK);
    ck_assert_int_eq(reap(pid, 20), 0);
    double t0 = now();
    ck_assert_msg(drive(&e, failed_seen, NULL, 10), "peer death not detected");
    ck_assert(now() - t0 < 5);
    ck_assert_int_eq(e.rt.failed_calls, 1);
    ck_assert_int_eq(e.rt.failed_peer, 1);
    ck_assert_msg(strstr(e.rt.why, "could not be resumed") && strstr(e.rt.why, "paths tried") &&
                      strstr(e.rt.why, "rank 1 on "),
                  "why: %s", e.rt.why);
    ck_assert_int_eq(a.done, 1); /* failed, or (if confirmed before the exit) sent */
    ep_close(&e);
    free(big);
    cleanup_dir();
    failover_env_clear();
}
END_TEST

/* The listener stays open during the run for resumes: strangers there are
 * refused (a wire-up hello, a RESUME with another job's secret, garbage, a
 * silent connection) and the job goes on. */
static int stranger_resume_try(int port, int how)
{
    int fd = dial(port);
    if (fd < 0)
        return 0;
    struct tcp_hs_challenge ch;
    if (read_full(fd, &ch, sizeof ch) != 1 || ch.magic != TCP_HS_MAGIC || ch.rank != 0) {
        close(fd);
        return 0;
    }
    uint8_t wrong[BOLT_SECRET_BYTES];
    memset(wrong, 0x5a, sizeof wrong);
    unsigned char buf[sizeof(struct tcp_hs_resume)];
    size_t len = sizeof buf;
    if (how == BAD_SECRET) {
        struct tcp_hs_resume m;
        memset(&m, 0, sizeof m);
        m.magic = TCP_HS_RESUME_MAGIC;
        m.version = TCP_HS_VERSION;
        m.order = TCP_HS_ORDER;
        m.rank = 1;
        m.target = 0;
        tcp_hs_resume_mac(wrong, ch.nonce, &m, m.mac);
        memcpy(buf, &m, sizeof m);
    } else if (how == BAD_RANK) { /* a wire-up hello, after the wire-up */
        struct tcp_hs_hello he;
        memset(&he, 0, sizeof he);
        he.magic = TCP_HS_MAGIC;
        he.version = TCP_HS_VERSION;
        he.order = TCP_HS_ORDER;
        he.rank = 1;
        tcp_hs_hello_mac(wrong, ch.nonce, 0, 1, 0, 0, he.mac);
        memcpy(buf, &he, sizeof he);
        len = sizeof he;
    } else {
        memset(buf, 0xee, sizeof buf);
    }
    if (write(fd, buf, len) != (ssize_t)len) {
        close(fd);
        return 0;
    }
    return refused(fd);
}

static int file_exists(struct ep *e, void *arg)
{
    char path[300];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", g_dir, (const char *)arg);
    return stat(path, &st) == 0;
}

START_TEST(test_resume_strangers)
{
    setup_env("auto", "0", 1, 20);
    failover_env();
    fflush(stderr);
    pid_t stranger = fork();
    ck_assert_int_ge(stranger, 0);
    if (stranger == 0) {
        alarm(60);
        int port = read_port();
        wait_file("wired", 30);
        int silent = dial(port);
        int ok = port > 0 && silent >= 0;
        ok = ok && stranger_resume_try(port, BAD_SECRET);
        ok = ok && stranger_resume_try(port, BAD_RANK);
        ok = ok && stranger_resume_try(port, BAD_GARBAGE);
        touch("stranger.done");
        wait_file("rank1.done", 30);
        close(silent);
        _exit(ok ? 0 : 1);
    }
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        alarm(60);
        struct ep e;
        if (ep_open(&e, 1, 2)) {
            fprintf(stderr, "rank 1: open: %s\n", bolt_error_message());
            _exit(2);
        }
        int r = role_one_frame(&e, NULL);
        touch("rank1.done");
        _exit(r ? 1 : 0);
    }
    struct ep e;
    ck_assert_msg(ep_open(&e, 0, 2) == BOLT_OK, "open: %s", bolt_error_message());
    ck_assert(e.ctx->listening);
    touch("wired");
    /* The listener answers only while we progress. */
    ck_assert(drive(&e, file_exists, "stranger.done", 30));
    ck_assert_int_eq(role_one_frame(&e, NULL), 0);
    ck_assert_int_eq(reap(pid, 30), 0);
    ck_assert_int_eq(reap(stranger, 30), 0);
    cleanup_dir();
    failover_env_clear();
}
END_TEST

/* ------------------------------------------------------------------ */
/* congestion control                                                  */

#ifdef TCP_CONGESTION
static int read_line(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)cap, f) != NULL;
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return ok ? 0 : -1;
}
#endif

/* Every connection to the peer runs the algorithm `arg` names: "default"
 * (cubic where the process may set it, else reno: never the system's BBR),
 * "system" (BOLT_TCP_CONGESTION=system), or a name. Then a frame each way. */
static int role_congestion(struct ep *e, void *arg)
{
    const char *want = arg;
#ifdef TCP_CONGESTION
    char sys[TCP_CONGESTION_MAX];
    if (strcmp(want, "default") == 0) {
        REQUIRE(strcmp(e->ctx->congestion, "cubic") == 0 ||
                strcmp(e->ctx->congestion, "reno") == 0);
        want = e->ctx->congestion;
    } else if (strcmp(want, "system") == 0) {
        REQUIRE(e->ctx->congestion[0] == '\0');
        REQUIRE(read_line("/proc/sys/net/ipv4/tcp_congestion_control", sys, sizeof sys) == 0);
        want = sys;
    } else {
        REQUIRE(strcmp(e->ctx->congestion, want) == 0);
    }
    const struct tcp_peer *p = &e->ctx->peers[1 - e->rank];
    REQUIRE(p->nconns == 2);
    for (int k = 0; k < p->nconns; k++) {
        char got[TCP_CONGESTION_MAX] = "";
        socklen_t l = sizeof got;
        REQUIRE(getsockopt(p->conns[k].fd, IPPROTO_TCP, TCP_CONGESTION, got, &l) == 0);
        REQUIRE(strcmp(got, want) == 0);
    }
#else
    REQUIRE(e->ctx->congestion[0] == '\0'); /* no per-connection choice: the system's */
#endif
    return role_one_frame(e, NULL);
}

static const char *const congestion_cases[][2] = {
    {NULL, "default"}, {"reno", "reno"}, {"system", "system"}, {"nosuch,reno", "reno"}};

START_TEST(test_congestion)
{
    setup_env(evloops[_i % NEVLOOPS], "0", 2, 20);
    const char *const *c = congestion_cases[_i / NEVLOOPS];
    if (c[0])
        setenv("BOLT_TCP_CONGESTION", c[0], 1);
    run_pair(role_congestion, role_congestion, (void *)c[1]);
    unsetenv("BOLT_TCP_CONGESTION");
}
END_TEST

/* ------------------------------------------------------------------ */
/* singleton, settings                                                 */

START_TEST(test_singleton)
{
    unsetenv("BOLT_JOB_SECRET");
    setenv("BOLT_TCP_EVLOOP", evloops[_i], 1);
    ck_assert_int_eq(bolt_config_load(), BOLT_OK);
    struct rt rt;
    memset(&rt, 0, sizeof rt);
    struct bolt_tl_upcalls up = {&rt, rt_begin, rt_end, rt_failed, NULL};
    struct bolt_tl_init_args a = {0, 1, &up};
    struct bolt_tl_ctx *ctx = NULL;
    ck_assert_int_eq(T->init(&ctx, &a), BOLT_OK);
    ck_assert_int_eq(T->reachable(ctx, 0), 1);
    ck_assert_int_eq(T->connect(ctx, NULL, 0), BOLT_OK);
    int self = 0;
    ck_assert_int_eq(T->connect(ctx, &self, 1), BOLT_OK);
    double t0 = now();
    for (int i = 0; i < 1000; i++)
        ck_assert_int_eq(T->progress(ctx), 0);
    struct pollfd fds[8];
    ck_assert_int_ge(T->pollfds(ctx, fds, 8), 0);
    ck_assert(now() - t0 < 1.0);
    ck_assert_int_eq(T->data_stripes(ctx, 0, 1u << 30), 1);
    T->finalize(ctx);
}
END_TEST

START_TEST(test_bad_settings)
{
    struct rt rt;
    memset(&rt, 0, sizeof rt);
    struct bolt_tl_upcalls up = {&rt, rt_begin, rt_end, rt_failed, NULL};
    struct bolt_tl_ctx *ctx = NULL;
    /* Several ranks need the secret. */
    unsetenv("BOLT_JOB_SECRET");
    ck_assert_int_eq(bolt_config_load(), BOLT_OK);
    struct bolt_tl_init_args a = {0, 2, &up};
    ck_assert_int_eq(T->init(&ctx, &a), BOLT_ERR_AUTH);
    setenv("BOLT_JOB_SECRET", "not-hex", 1);
    ck_assert_int_eq(T->init(&ctx, &a), BOLT_ERR_CONFIG);
    setenv("BOLT_JOB_SECRET",
           "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", 1);
    setenv("BOLT_TCP_EVLOOP", "select", 1);
    ck_assert_int_eq(bolt_config_load(), BOLT_OK);
    ck_assert_int_eq(T->init(&ctx, &a), BOLT_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(bolt_error_message(), "BOLT_TCP_EVLOOP"));
#if !TCP_HAVE_EPOLL
    setenv("BOLT_TCP_EVLOOP", "epoll", 1);
    ck_assert_int_eq(bolt_config_load(), BOLT_OK);
    ck_assert_int_eq(T->init(&ctx, &a), BOLT_ERR_CONFIG);
#endif
    setenv("BOLT_TCP_EVLOOP", "auto", 1);
    /* peers read directly: 0 (none) to TCP_DIRECT_MAX */
    setenv("BOLT_TCP_DIRECT_PEERS", "9", 1);
    ck_assert_int_eq(bolt_config_load(), BOLT_OK);
    ck_assert_int_eq(T->init(&ctx, &a), BOLT_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(bolt_error_message(), "BOLT_TCP_DIRECT_PEERS=9: must be between 0 and 8"));
    setenv("BOLT_TCP_DIRECT_PEERS", "-1", 1);
    ck_assert_int_eq(bolt_config_load(), BOLT_OK);
    ck_assert_int_eq(T->init(&ctx, &a), BOLT_ERR_CONFIG);
    unsetenv("BOLT_TCP_DIRECT_PEERS");
    setenv("BOLT_TCP_IF_ADDR", "999.1.1.1", 1);
    ck_assert_int_eq(bolt_config_load(), BOLT_OK);
    ck_assert_int_eq(T->init(&ctx, &a), BOLT_ERR_CONFIG);
    unsetenv("BOLT_TCP_IF_ADDR");
    /* Not a list of names; a list of names none of which the system has. */
    setenv("BOLT_TCP_CONGESTION", "cubic;reno", 1);
    ck_assert_int_eq(bolt_config_load(), BOLT_OK);
    ck_assert_int_eq(T->init(&ctx, &a), BOLT_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(bolt_error_message(), "BOLT_TCP_CONGESTION=cubic;reno"));
#ifdef TCP_CONGESTION
    setenv("BOLT_TCP_CONGESTION", "nosuch,norenoeither", 1);
    ck_assert_int_eq(bolt_config_load(), BOLT_OK);
    ck_assert_int_eq(T->init(&ctx, &a), BOLT_ERR_CONFIG);
    ck_assert_ptr_nonnull(strstr(bolt_error_message(), "tcp_allowed_congestion_control"));
#endif
    unsetenv("BOLT_TCP_CONGESTION");
}
END_TEST

/* BOLT_TCP_IF_ADDR: listen on that address alone and reach it there. */
START_TEST(test_if_addr)
{
    setup_env("auto", "0", 1, 20);
    setenv("BOLT_TCP_IF_ADDR", "127.0.0.1", 1);
    run_pair(role_one_frame, role_one_frame, NULL);
}
END_TEST

START_TEST(test_os_seam)
{
#ifdef BOLT_TCP_FORCE_POSIX
    ck_assert_str_eq(tcp_os_name, "posix");
#else
    ck_assert_str_eq(tcp_os_name,
#ifdef __linux__
                     "linux"
#else
                     "posix"
#endif
    );
#endif
    char id[TCP_HOST_ID_MAX];
    ck_assert_int_eq(bolt_host_id(id, sizeof id), BOLT_OK);
    ck_assert_int_gt((int)strlen(id), 0);
}
END_TEST

static Suite *tcp_suite(void)
{
    Suite *s = suite_create("tcp");
    TCase *tc = tcase_create("transport");
    tcase_set_timeout(tc, 90);
    tcase_add_test(tc, test_os_seam);
    tcase_add_loop_test(tc, test_singleton, 0, NEVLOOPS);
    tcase_add_test(tc, test_bad_settings);
    tcase_add_loop_test(tc, test_sizes_in_order, 0, 2 * NEVLOOPS);
    tcase_add_loop_test(tc, test_default_buffers, 0, NEVLOOPS - 1);
    tcase_add_loop_test(tc, test_striping, 0, 2 * (NEVLOOPS - 1));
    tcase_add_loop_test(tc, test_peer_killed, 0, NEVLOOPS - 1);
    tcase_add_loop_test(tc, test_peer_exits, 0, NEVLOOPS - 1);
    tcase_add_test(tc, test_bad_frame);
    tcase_add_loop_test(tc, test_four_ranks, 0, 2 * (NEVLOOPS - 1));
    tcase_add_loop_test(tc, test_stranger_refused, 0, NEVLOOPS - 1);
    tcase_add_test(tc, test_wrong_secret);
    tcase_add_test(tc, test_if_addr);
    tcase_add_loop_test(tc, test_congestion, 0,
                        NEVLOOPS * (int)(sizeof congestion_cases / sizeof congestion_cases[0]));
    suite_add_tcase(s, tc);
    /* Path failover (CK_RUN_CASE=failover runs these alone). */
    tc = tcase_create("failover");
    tcase_set_timeout(tc, 90);
    tcase_add_loop_test(tc, test_resume, 0, 2 * NRESUME_PLANS);
    tcase_add_loop_test(tc, test_resume_storm, 0, 2);
    tcase_add_test(tc, test_resume_at_finalize);
    tcase_add_test(tc, test_resume_peer_gone);
    tcase_add_test(tc, test_resume_strangers);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return bolt_check_run(tcp_suite());
}
