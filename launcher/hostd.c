/*
 * hostd.c — bolt-hostd, the per-host daemon of a multi-host job.
 *
 * boltrun starts it through the remote shell (ssh) and talks to it over the
 * shell's stdin/stdout only (launcher/chan_wire.h): the job description and
 * secret come in first, then key-value store answers, signals and stdin;
 * out go the ranks' bootstrap traffic, their output and their exit statuses.
 * The ranks are started exactly as boltrun starts local ones (spawn.c:
 * guard per rank, shm_host.c: one segment per host, bind_setup.c), and they
 * reach the store through a relay on 127.0.0.1 that checks the job secret
 * (kvs_server.c in relay mode).
 *
 * No orphans: when the channel to boltrun ends (boltrun or ssh died, the
 * network dropped), or hostd is told to stop by a signal, it closes every
 * guard's lifeline; each guard then stops its rank (SIGTERM, grace, SIGKILL).
 * If hostd itself is killed, the guards see the same EOF.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bolt.h"
#include "cluster/agent.h"
#include "cluster/check_wire.h"
#include "launcher/args.h"
#include "launcher/bind_setup.h"
#include "launcher/chan.h"
#include "launcher/iofwd.h"
#include "launcher/kvs_server.h"
#include "launcher/shm_host.h"
#include "launcher/spawn.h"
#include "runtime/config.h"
#include "runtime/kvs_wire.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* Output read from the ranks waits in the channel up to this much; beyond,
 * the ranks' pipes are not read (back-pressure). */
#define OUT_HIGH (4u << 20)
/* Once the channel is gone: how long to wait for the guards to finish. */
#define ORPHAN_WAIT_S 10.0
#define HOST_NAME_CAP 256

struct lrank {
    int rank;                 /* world rank */
    pid_t guard;
    int life, out, err;       /* -1 once closed */
    uint8_t lbuf[SPAWN_STATUS_BYTES];
    size_t lhave;
    int status, have_status, reaped, guard_status, sent;
};

static struct {
    struct chan ch;
    char host[HOST_NAME_CAP];
    struct kvs_server *kvs;
    struct lrank *r;
    int n;
    int in_w;                 /* stdin pipe of the local rank fed stdin; -1 none */
    struct chan_buf inq;
    size_t inoff;
    int in_eof;
    int sigpipe[2];
    int stop;                 /* told to stop (signal, or the channel ended) */
} g = {.in_w = -1, .sigpipe = {-1, -1}};

static void on_sig(int sig)
{
    int e = errno;
    unsigned char c = (unsigned char)sig;
    ssize_t w = write(g.sigpipe[1], &c, 1);
    (void)w;
    errno = e;
}

/* The start failed: one line for boltrun to print, and its exit status. */
static void send_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void send_error(int code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct chan_buf b = {0};
    chan_buf_u32(&b, (uint32_t)code);
    chan_buf_bytes(&b, msg, strlen(msg));
    chan_send(&g.ch, CHAN_ERROR, b.p, b.len);
    chan_buf_free(&b);
    chan_close(&g.ch, 5.0);
}

/* ---- relay callbacks (kvs_server in relay mode) ---- */

static void relay_open(void *ctx, unsigned conn, int rank)
{
    (void)ctx;
    struct chan_buf b = {0};
    chan_buf_u32(&b, conn);
    chan_buf_u32(&b, (uint32_t)rank);
    chan_send(&g.ch, CHAN_OPEN, b.p, b.len);
    chan_buf_free(&b);
}

static void relay_frame(void *ctx, unsigned conn, const uint8_t *frame, size_t len)
{
    (void)ctx;
    struct chan_buf b = {0};
    chan_buf_u32(&b, conn);
    chan_buf_bytes(&b, frame, len);
    chan_send(&g.ch, CHAN_KVS_UP, b.p, b.len);
    chan_buf_free(&b);
}

static void relay_close(void *ctx, unsigned conn)
{
    (void)ctx;
    struct chan_buf b = {0};
    chan_buf_u32(&b, conn);
    chan_send(&g.ch, CHAN_CLOSE, b.p, b.len);
    chan_buf_free(&b);
}

/* ---- the ranks ---- */

static void send_out(struct lrank *r, int which, const uint8_t *data, size_t n)
{
    struct chan_buf b = {0};
    chan_buf_u32(&b, (uint32_t)r->rank);
    chan_buf_u32(&b, (uint32_t)which);
    chan_buf_bytes(&b, data, n);
    chan_send(&g.ch, CHAN_OUT, b.p, b.len);
    chan_buf_free(&b);
}

/* Reads a bounded amount of a rank's stdout or stderr into the channel. */
static void pump(struct lrank *r, int which)
{
    int *fd = which == 1 ? &r->out : &r->err;
    uint8_t buf[65536];
    for (int round = 0; round < 16 && *fd >= 0; round++) {
        ssize_t n = read(*fd, buf, sizeof buf);
        if (n > 0) {
            send_out(r, which, buf, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        close(*fd);
        *fd = -1;
    }
}

/* The rank's status is known: its last output, then the status, go out. */
static void report(struct lrank *r)
{
    if (r->sent)
        return;
    for (int k = 0; k < 8 && (r->out >= 0 || r->err >= 0); k++) {
        pump(r, 1);
        pump(r, 2);
        struct pollfd p[2] = {{.fd = r->out, .events = POLLIN}, {.fd = r->err, .events = POLLIN}};
        if (poll(p, 2, 0) <= 0)
            break;
    }
    r->sent = 1;
    struct chan_buf b = {0};
    chan_buf_u32(&b, (uint32_t)r->rank);
    chan_buf_u32(&b, (uint32_t)r->status);
    chan_send(&g.ch, CHAN_EXIT, b.p, b.len);
    chan_buf_free(&b);
}

static void read_life(struct lrank *r)
{
    for (;;) {
        ssize_t n = read(r->life, r->lbuf + r->lhave, sizeof r->lbuf - r->lhave);
        if (n > 0) {
            r->lhave += (size_t)n;
            if (r->lhave == sizeof r->lbuf) {
                int st;
                if (spawn_decode_status(r->lbuf, &st) == 0 && !r->have_status) {
                    r->have_status = 1;
                    r->status = st;
                    report(r);
                }
                r->lhave = 0;
            }
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        close(r->life);
        r->life = -1;
        if (!r->have_status) { /* the guard died without a report */
            (void)killpg(r->guard, SIGKILL);
            int st = 0;
            if (!r->reaped && waitpid(r->guard, &st, 0) == r->guard) {
                r->reaped = 1;
                r->guard_status = st;
            }
            r->have_status = 1;
            r->status = r->guard_status ? r->guard_status : SIGKILL;
            report(r);
        }
        return;
    }
}

static void reap(void)
{
    for (;;) {
        int st;
        pid_t p = waitpid(-1, &st, WNOHANG);
        if (p <= 0)
            return;
        for (int i = 0; i < g.n; i++)
            if (g.r[i].guard == p) {
                g.r[i].reaped = 1;
                g.r[i].guard_status = st;
            }
    }
}

static void signal_ranks(int sig)
{
    for (int i = 0; i < g.n; i++)
        if (!g.r[i].have_status && g.r[i].guard > 0)
            (void)killpg(g.r[i].guard, sig);
}

/* boltrun is gone, or hostd was told to stop: every guard stops its rank. */
static void orphaned(void)
{
    for (int i = 0; i < g.n; i++) {
        struct lrank *r = &g.r[i];
        if (r->life >= 0)
            close(r->life);
        r->life = -1;
    }
    double until = bolt_kvs_now() + ORPHAN_WAIT_S;
    for (;;) {
        reap();
        int left = 0;
        for (int i = 0; i < g.n; i++)
            left += g.r[i].guard > 0 && !g.r[i].reaped;
        if (left == 0 || bolt_kvs_now() >= until)
            break;
        poll(NULL, 0, 20);
    }
    for (int i = 0; i < g.n; i++)
        if (g.r[i].guard > 0 && !g.r[i].reaped) {
            (void)killpg(g.r[i].guard, SIGKILL);
            (void)kill(g.r[i].guard, SIGKILL);
        }
}

/* ---- frames from boltrun ---- */

static void on_frame(void *ctx, uint8_t type, const uint8_t *body, size_t len)
{
    (void)ctx;
    struct chan_rd rd = {body, body + len, 0};
    if (type == CHAN_KVS) {
        uint32_t conn = chan_rd_u32(&rd);
        size_t n;
        const uint8_t *p = chan_rd_bytes(&rd, &n);
        if (!rd.bad)
            kvs_server_conn_send(g.kvs, conn, p, n);
    } else if (type == CHAN_SIGNAL) {
        uint32_t sig = chan_rd_u32(&rd);
        if (!rd.bad && sig > 0 && sig < 128)
            signal_ranks((int)sig);
    } else if (type == CHAN_STDIN) {
        size_t n;
        const uint8_t *p = chan_rd_bytes(&rd, &n);
        if (rd.bad || g.in_w < 0)
            return;
        if (n == 0)
            g.in_eof = 1;
        else
            chan_buf_raw(&g.inq, p, n);
    }
}

static void stdin_flush(void)
{
    while (g.in_w >= 0 && g.inoff < g.inq.len) {
        ssize_t w = write(g.in_w, g.inq.p + g.inoff, g.inq.len - g.inoff);
        if (w > 0) {
            g.inoff += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        close(g.in_w); /* the rank closed its stdin, or is gone */
        g.in_w = -1;
    }
    if (g.inoff == g.inq.len)
        g.inoff = g.inq.len = 0;
    if (g.in_w >= 0 && g.in_eof && g.inq.len == 0) {
        close(g.in_w);
        g.in_w = -1;
    }
}

/* Reads the first message, START from boltrun or CHECK from bolt-cluster
 * (blocking, bounded). */
static int read_start(uint8_t **body, size_t *len)
{
    uint8_t hdr[4];
    double deadline = bolt_kvs_now() + 60;
    if (bolt_kvs_read_full(g.ch.rfd, hdr, 4, deadline) != BOLT_OK)
        return -1;
    uint32_t l = bolt_kvs_get_u32(hdr);
    if (l < 2 || l > CHAN_MAX_FRAME)
        return -1;
    uint8_t *b = malloc(l);
    if (b == NULL || bolt_kvs_read_full(g.ch.rfd, b, l, deadline) != BOLT_OK || (b[0] != CHAN_START && b[0] != CK_CHECK)) {
        free(b);
        return -1;
    }
    *body = b;
    *len = l;
    return 0;
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    /* The channel moves off fds 0 and 1, which become /dev/null: nothing a
     * guard or rank inherits can write into it. */
    int rfd = dup(0), wfd = dup(1);
    int devnull = open("/dev/null", O_RDWR);
    if (rfd < 0 || wfd < 0 || devnull < 0) {
        fprintf(stderr, "bolt-hostd: cannot set up its channel: %s\n", strerror(errno));
        return 1;
    }
    dup2(devnull, 0);
    dup2(devnull, 1);
    if (devnull > 2)
        close(devnull);
    chan_open(&g.ch, rfd, wfd);
    (void)fcntl(rfd, F_SETFL, fcntl(rfd, F_GETFL) & ~O_NONBLOCK); /* blocking for the start */
    if (gethostname(g.host, sizeof g.host - 1) != 0)
        snprintf(g.host, sizeof g.host, "unknown");
    iofwd_sinks_init();

    uint8_t *body = NULL;
    size_t blen = 0;
    if (read_start(&body, &blen) != 0) {
        fprintf(stderr, "bolt-hostd on %s: no valid start message from boltrun or bolt-cluster on stdin; it "
                "is started by them, not by hand\n", g.host);
        return 1;
    }
    (void)fcntl(rfd, F_SETFL, fcntl(rfd, F_GETFL) | O_NONBLOCK);
    if (body[0] == CK_CHECK) {
        int rc = agent_run(&g.ch, g.host, body + 1, blen - 1);
        free(body);
        return rc;
    }
    struct chan_start st;
    const char *why = NULL;
    if (chan_start_decode(body + 1, blen - 1, &st, &why) != 0) {
        send_error(1, "bolt-hostd on %s: bad start message from boltrun: %s", g.host, why);
        return 1;
    }
    snprintf(g.host, sizeof g.host, "%s", st.host);
    for (const char *e = st.env_blob; e < st.env_blob + st.env_len; e += strlen(e) + 1) {
        const char *eq = strchr(e, '=');
        if (eq == NULL)
            continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(eq - e), e);
        setenv(name, eq + 1, 1);
    }
    if (st.cwd[0] && chdir(st.cwd) != 0 && st.argv_blob[0] != '/')
        fprintf(stderr, "bolt-hostd on %s: cannot enter boltrun's working directory %s (%s); the ranks start in "
                "%s\n", g.host, st.cwd, strerror(errno), getenv("HOME") ? getenv("HOME") : "/");
    if (bolt_config_load() != BOLT_OK) {
        send_error(1, "bolt-hostd on %s: %s", g.host, bolt_error_message());
        return 1;
    }

    char **pargv = calloc((size_t)st.argc + 1, sizeof *pargv);
    g.n = (int)st.nlocal;
    g.r = calloc((size_t)g.n, sizeof *g.r);
    if (pargv == NULL || g.r == NULL) {
        send_error(1, "bolt-hostd on %s: out of memory", g.host);
        return 1;
    }
    const char *a = st.argv_blob;
    for (uint32_t i = 0; i < st.argc; i++, a += strlen(a) + 1)
        pargv[i] = (char *)a;
    char path[PATH_MAX], err[PATH_MAX + 256];
    int rrc = spawn_resolve(pargv[0], path, sizeof path, err, sizeof err);
    if (rrc != 0) {
        /* "boltrun: cannot find program 'x' ..." becomes "... on host h". */
        send_error(rrc, "cannot start the ranks on %s: %s", g.host, err + (strncmp(err, "boltrun: ", 9) == 0 ? 9 : 0));
        return 1;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    if (pipe(g.sigpipe) != 0) {
        send_error(1, "bolt-hostd on %s: cannot create a pipe: %s", g.host, strerror(errno));
        return 1;
    }
    for (int k = 0; k < 2; k++) {
        (void)fcntl(g.sigpipe[k], F_SETFD, FD_CLOEXEC);
        (void)fcntl(g.sigpipe[k], F_SETFL, O_NONBLOCK);
    }
    sa.sa_handler = on_sig;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_flags = SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, NULL);

    struct kvs_events ev = {.on_open = relay_open, .on_frame = relay_frame, .on_close = relay_close};
    char addr[64], name[HOST_NAME_CAP + 32];
    double auth = st.timeout_ms / 1000.0;
    if (kvs_server_start(&g.kvs, (int)st.size, st.secret, auth > 0 ? auth : 60, &ev, addr, sizeof addr, err,
                         sizeof err) != 0) {
        send_error(1, "bolt-hostd on %s: %s", g.host, err);
        return 1;
    }
    snprintf(name, sizeof name, "bolt-hostd on %s", g.host);
    kvs_server_set_name(g.kvs, name);

    struct boltrun_args ba;
    memset(&ba, 0, sizeof ba);
    ba.np = g.n;
    ba.bind_to = (enum bind_to)st.bind_to;
    ba.map_by = st.map_by == MAP_BY_NODE ? MAP_BY_SLOT : (enum map_by)st.map_by;
    ba.map_by_given = 1;
    ba.report_bindings = (int)st.report_bindings;
    struct bind_plan plan;
    if (bind_setup(&ba, &plan, err, sizeof err) != 0) {
        send_error(1, "%s (on %s)", err, g.host);
        return 1;
    }
    struct shm_host shm;
    int have_shm = g.n > 1 && shm_host_create(&shm, g.n, err, sizeof err) == 0;
    if (g.n > 1 && !have_shm)
        fprintf(stderr, "bolt-hostd on %s: no shared memory for the ranks (%s); they talk over TCP\n", g.host, err);

    char secret_hex[2 * BOLT_SECRET_BYTES + 1];
    bolt_hex_encode(st.secret, BOLT_SECRET_BYTES, secret_hex);
    int *closefds = malloc(((size_t)g.n * 3 + 8) * sizeof *closefds);
    if (closefds == NULL) {
        send_error(1, "bolt-hostd on %s: out of memory", g.host);
        return 1;
    }
    sigset_t none;
    sigemptyset(&none);
    int failed = 0;
    for (int i = 0; i < g.n; i++) {
        struct lrank *r = &g.r[i];
        r->rank = (int)bolt_kvs_get_u32(st.ranks_be + 4 * (size_t)i);
        r->life = r->out = r->err = -1;
        int nclose = 0;
        closefds[nclose++] = rfd;
        closefds[nclose++] = wfd;
        closefds[nclose++] = g.sigpipe[0];
        closefds[nclose++] = g.sigpipe[1];
        closefds[nclose++] = kvs_server_listen_fd(g.kvs);
        for (int k = 0; k < i; k++) {
            int fds[3] = {g.r[k].life, g.r[k].out, g.r[k].err};
            for (int m = 0; m < 3; m++)
                if (fds[m] >= 0)
                    closefds[nclose++] = fds[m];
        }
        int rank_in = -1;
        if ((uint32_t)r->rank == st.stdin_rank) {
            int p[2];
            if (pipe(p) == 0) {
                (void)fcntl(p[0], F_SETFD, FD_CLOEXEC);
                (void)fcntl(p[1], F_SETFD, FD_CLOEXEC);
                (void)fcntl(p[1], F_SETFL, O_NONBLOCK);
                rank_in = p[0];
                g.in_w = p[1];
                closefds[nclose++] = g.in_w;
            }
        }
        struct spawn_opts so = {.path = path, .argv = pargv, .rank = r->rank, .size = (int)st.size,
                                .local_rank = i, .local_size = g.n, .kvs_addr = addr, .secret_hex = secret_hex,
                                .job_id = st.job_id, .host = g.host, .grace = st.grace_ms / 1000.0,
                                .stdin_fd = rank_in, .ignored = NULL, .close_fds = closefds, .nclose = nclose,
                                .bind = &plan, .shm = have_shm ? &shm : NULL};
        struct spawn_result sr;
        int rc = spawn_rank(&so, &sr, err, sizeof err);
        if (rank_in >= 0)
            close(rank_in);
        if (rc != 0) {
            failed = 1;
            break;
        }
        r->guard = sr.guard;
        r->life = sr.lifeline;
        r->out = sr.out_fd;
        r->err = sr.err_fd;
    }
    free(closefds);
    if (have_shm)
        shm_host_close(&shm);
    bind_plan_free(&plan);
    if (failed) {
        send_error(1, "bolt-hostd on %s: %s", g.host, err);
        orphaned();
        return 1;
    }
    sigprocmask(SIG_SETMASK, &none, NULL);
    {
        struct chan_buf b = {0};
        chan_buf_u32(&b, (uint32_t)getpid());
        chan_send(&g.ch, CHAN_READY, b.p, b.len);
        chan_buf_free(&b);
    }

    size_t cap = 0;
    struct pollfd *pfd = NULL;
    for (;;) {
        int all_sent = 1;
        for (int i = 0; i < g.n; i++)
            all_sent &= g.r[i].sent;
        if (all_sent && chan_pending(&g.ch) == 0)
            break;
        if (g.ch.eof || g.ch.broken || g.stop) {
            orphaned();
            break;
        }
        size_t need = 4 + (size_t)kvs_server_max_pollfds(g.kvs) + 3 * (size_t)g.n;
        if (need > cap) {
            struct pollfd *np = realloc(pfd, need * 2 * sizeof *pfd);
            if (np == NULL) {
                orphaned();
                break;
            }
            pfd = np;
            cap = need * 2;
        }
        int np = 0;
        pfd[np++] = (struct pollfd){.fd = g.sigpipe[0], .events = POLLIN};
        chan_fill(&g.ch, pfd + np);
        np += 2;
        pfd[np++] = (struct pollfd){.fd = g.inq.len > g.inoff || g.in_eof ? g.in_w : -1, .events = POLLOUT};
        int kvs_first = np;
        int nkvs = kvs_server_fill(g.kvs, pfd + np);
        np += nkvs;
        int rank_first = np;
        int hold = chan_pending(&g.ch) > OUT_HIGH;
        for (int i = 0; i < g.n; i++) {
            pfd[np++] = (struct pollfd){.fd = g.r[i].life, .events = POLLIN};
            pfd[np++] = (struct pollfd){.fd = hold ? -1 : g.r[i].out, .events = POLLIN};
            pfd[np++] = (struct pollfd){.fd = hold ? -1 : g.r[i].err, .events = POLLIN};
        }
        double dl = kvs_server_deadline(g.kvs);
        int ms = 500;
        if (dl >= 0) {
            double left = dl - bolt_kvs_now();
            ms = left <= 0 ? 0 : left > 0.5 ? 500 : (int)(left * 1000) + 1;
        }
        int pr = poll(pfd, (nfds_t)np, ms);
        if (pr < 0 && errno != EINTR) {
            fprintf(stderr, "bolt-hostd on %s: poll failed: %s; stopping the ranks\n", g.host, strerror(errno));
            orphaned();
            break;
        }
        if (pfd[0].revents & POLLIN) {
            unsigned char buf[64];
            ssize_t n;
            while ((n = read(g.sigpipe[0], buf, sizeof buf)) > 0)
                for (ssize_t k = 0; k < n; k++)
                    if (buf[k] != SIGCHLD)
                        g.stop = 1;
            reap();
        }
        if (pfd[1].revents) {
            if (chan_read(&g.ch, on_frame, NULL, &why) < 0)
                fprintf(stderr, "bolt-hostd on %s: the channel from boltrun is corrupt (%s); stopping the ranks\n",
                        g.host, why);
        }
        if (pfd[2].revents)
            chan_flush(&g.ch);
        if (pfd[3].revents)
            stdin_flush();
        for (int i = 0; i < g.n; i++) {
            struct pollfd *p = &pfd[rank_first + 3 * i];
            if (p[1].revents)
                pump(&g.r[i], 1);
            if (p[2].revents)
                pump(&g.r[i], 2);
        }
        for (int i = 0; i < g.n; i++) {
            struct pollfd *p = &pfd[rank_first + 3 * i];
            if (p[0].fd >= 0 && p[0].fd == g.r[i].life && p[0].revents)
                read_life(&g.r[i]);
        }
        kvs_server_handle(g.kvs, pfd + kvs_first, nkvs, bolt_kvs_now());
        stdin_flush();
        chan_flush(&g.ch);
        if (pr == 0)
            reap();
    }
    free(pfd);
    kvs_server_destroy(g.kvs);
    chan_close(&g.ch, 5.0);
    for (int i = 0; i < g.n; i++) {
        if (g.r[i].life >= 0)
            close(g.r[i].life);
        if (g.r[i].out >= 0)
            close(g.r[i].out);
        if (g.r[i].err >= 0)
            close(g.r[i].err);
    }
    reap();
    iofwd_sinks_drain(1.0);
    free(pargv);
    free(g.r);
    free(body);
    chan_buf_free(&g.inq);
    return 0;
}
