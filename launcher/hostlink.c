/*
 * hostlink.c — one remote host seen from boltrun (see hostlink.h).
 */
#include "launcher/hostlink.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher/iofwd.h"
#include "launcher/kvs_server.h"
#include "launcher/rsh.h"
#include "runtime/kvs_wire.h"

/* Once the channel ends: how long to wait for the remote shell's last words
 * (ssh's reason) and its exit before reporting. */
#define GONE_WAIT_S 0.5

static void fail(struct hostlink *h, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(struct hostlink *h, int code, const char *fmt, ...)
{
    if (h->failed)
        return;
    h->failed = 1;
    char why[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (h->ev.on_fail)
        h->ev.on_fail(h->ev.ctx, h, code, why);
}

int hostlink_start(struct hostlink *h, const char *name, char *const *rsh_argv, const char *hostd_path,
                   const uint8_t *start_body, size_t start_len, int size, const int *ranks, int nranks,
                   struct kvs_server *kvs, const struct hostlink_events *ev, double launch_timeout,
                   char *err, size_t errcap)
{
    memset(h, 0, sizeof *h);
    h->errfd = -1;
    h->ch.rfd = h->ch.wfd = -1;
    snprintf(h->name, sizeof h->name, "%s", name);
    h->ranks = ranks;
    h->nranks = nranks;
    h->kvs = kvs;
    h->ev = *ev;
    h->size = size;
    h->launch_timeout = launch_timeout;
    h->exit_status = -1;
    h->is_mine = calloc((size_t)size, 1);
    if (h->is_mine == NULL) {
        snprintf(err, errcap, "out of memory for host %s", name);
        return -1;
    }
    for (int i = 0; i < nranks; i++)
        h->is_mine[ranks[i]] = 1;

    struct rsh_proc rp;
    if (rsh_start(&rp, rsh_argv, name, hostd_path, err, errcap) != 0) {
        free(h->is_mine);
        h->is_mine = NULL;
        return -1;
    }
    h->pid = rp.pid;
    chan_open(&h->ch, rp.out_r, rp.in_w);
    h->errfd = rp.err_r;
    h->start_deadline = bolt_kvs_now() + launch_timeout;
    h->gone_deadline = -1;
    chan_send(&h->ch, CHAN_START, start_body, start_len);
    chan_flush(&h->ch);
    return 0;
}

void hostlink_fill(struct hostlink *h, struct pollfd p[HOSTLINK_POLLFDS])
{
    chan_fill(&h->ch, p);
    if (h->state == HL_GONE)
        p[0].fd = p[1].fd = -1;
    p[2] = (struct pollfd){.fd = h->errfd, .events = POLLIN};
}

double hostlink_deadline(const struct hostlink *h)
{
    if (h->state == HL_STARTING)
        return h->start_deadline;
    if (h->state == HL_CLOSING)
        return h->gone_deadline;
    return -1;
}

static void kvs_to_host(void *ctx, unsigned tag, const uint8_t *data, size_t len)
{
    struct hostlink *h = ctx;
    struct chan_buf b = {0};
    chan_buf_u32(&b, tag);
    chan_buf_bytes(&b, data, len);
    chan_send(&h->ch, CHAN_KVS, b.p, b.len);
    chan_buf_free(&b);
}

static unsigned local_conn(struct hostlink *h, unsigned remote, int remove)
{
    for (int i = 0; i < h->nconns; i++)
        if (h->conns[i].remote == remote) {
            unsigned l = h->conns[i].local;
            if (remove)
                h->conns[i] = h->conns[--h->nconns];
            return l;
        }
    return 0;
}

static void bad_frame(struct hostlink *h, const char *what)
{
    fail(h, 1, "bolt-hostd on %s sent a malformed %s message; stopping the job", h->name, what);
    h->ch.eof = 1;
}

static void on_frame(void *ctx, uint8_t type, const uint8_t *body, size_t len)
{
    struct hostlink *h = ctx;
    struct chan_rd rd = {body, body + len, 0};
    if (h->failed && type != CHAN_OUT && type != CHAN_EXIT)
        return;
    switch (type) {
    case CHAN_READY:
        if (h->state == HL_STARTING) {
            h->state = HL_READY;
            /* What hostd said while starting (--report-bindings, warnings). */
            for (char *l = h->startlog, *nl; h->startlen && (nl = strchr(l, '\n')) != NULL; l = nl + 1) {
                *nl = '\0';
                iofwd_log("%s", l);
            }
            h->startlen = 0;
        }
        h->ready_seen = 1;
        break;
    case CHAN_ERROR: {
        uint32_t code = chan_rd_u32(&rd);
        size_t n;
        const uint8_t *p = chan_rd_bytes(&rd, &n);
        if (rd.bad)
            return bad_frame(h, "error");
        fail(h, code > 0 && code < 256 ? (int)code : 1, "%.*s", (int)n, (const char *)p);
        break;
    }
    case CHAN_OPEN: {
        uint32_t conn = chan_rd_u32(&rd), rank = chan_rd_u32(&rd);
        if (rd.bad || rank >= (uint32_t)h->size || !h->is_mine[rank])
            return bad_frame(h, "open");
        char peer[300];
        snprintf(peer, sizeof peer, "via bolt-hostd on %s", h->name);
        unsigned l = kvs_server_attach(h->kvs, (int)rank, peer, kvs_to_host, h, conn);
        if (l == 0)
            return; /* out of memory or a rank outside the job: the rank's bootstrap fails */
        if (h->nconns == h->capconns) {
            int nc = h->capconns ? 2 * h->capconns : 16;
            void *n = realloc(h->conns, (size_t)nc * sizeof *h->conns);
            if (n == NULL) {
                kvs_server_detach(h->kvs, l);
                return;
            }
            h->conns = n;
            h->capconns = nc;
        }
        h->conns[h->nconns].remote = conn;
        h->conns[h->nconns++].local = l;
        break;
    }
    case CHAN_KVS_UP: {
        uint32_t conn = chan_rd_u32(&rd);
        size_t n;
        const uint8_t *p = chan_rd_bytes(&rd, &n);
        if (rd.bad)
            return bad_frame(h, "key-value");
        unsigned l = local_conn(h, conn, 0);
        if (l)
            kvs_server_feed(h->kvs, l, p, n);
        break;
    }
    case CHAN_CLOSE: {
        uint32_t conn = chan_rd_u32(&rd);
        if (rd.bad)
            return bad_frame(h, "close");
        unsigned l = local_conn(h, conn, 1);
        if (l)
            kvs_server_detach(h->kvs, l);
        break;
    }
    case CHAN_OUT: {
        uint32_t rank = chan_rd_u32(&rd), fd = chan_rd_u32(&rd);
        size_t n;
        const uint8_t *p = chan_rd_bytes(&rd, &n);
        if (rd.bad || (fd != 1 && fd != 2) || rank >= (uint32_t)h->size || !h->is_mine[rank])
            return bad_frame(h, "output");
        if (h->ev.on_out)
            h->ev.on_out(h->ev.ctx, (int)rank, (int)fd, p, n);
        break;
    }
    case CHAN_EXIT: {
        uint32_t rank = chan_rd_u32(&rd), st = chan_rd_u32(&rd);
        if (rd.bad || rank >= (uint32_t)h->size || !h->is_mine[rank])
            return bad_frame(h, "exit");
        if (h->ev.on_exit)
            h->ev.on_exit(h->ev.ctx, (int)rank, (int)st);
        break;
    }
    default:
        bad_frame(h, "unknown");
    }
}

/* A line of the remote shell's stderr: while starting (or after a failure)
 * it may explain the failure; once the host is up it is forwarded. */
static void err_line(void *ctx, const char *text)
{
    struct hostlink *h = ctx;
    size_t l = strlen(text);
    if (h->state == HL_STARTING || h->failed)
        snprintf(h->lasterr, sizeof h->lasterr, "%s", text);
    if (h->state == HL_STARTING && h->startlen + l + 2 < sizeof h->startlog) {
        memcpy(h->startlog + h->startlen, text, l);
        h->startlen += l;
        h->startlog[h->startlen++] = '\n';
        h->startlog[h->startlen] = '\0';
    }
    if (h->state != HL_STARTING && !h->failed)
        iofwd_log("%s", text);
}

static void read_err(struct hostlink *h)
{
    for (int round = 0; round < 16 && h->errfd >= 0; round++) {
        ssize_t n = read(h->errfd, h->errbuf + h->errlen, sizeof h->errbuf - 1 - h->errlen);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        int eof = n <= 0;
        if (n > 0)
            h->errlen += (size_t)n;
        h->errlen = rsh_err_lines(h->errbuf, h->errlen, sizeof h->errbuf, eof, err_line, h);
        if (eof) {
            close(h->errfd);
            h->errfd = -1;
            return;
        }
    }
}

static void describe_exit(const struct hostlink *h, char *out, size_t cap)
{
    if (h->pid != 0 || h->exit_status < 0)
        snprintf(out, cap, "the remote shell is still running");
    else if (WIFEXITED(h->exit_status))
        snprintf(out, cap, "remote shell exit status %d", WEXITSTATUS(h->exit_status));
    else if (WIFSIGNALED(h->exit_status))
        snprintf(out, cap, "remote shell killed by signal %d", WTERMSIG(h->exit_status));
    else
        snprintf(out, cap, "remote shell ended");
}

/* The channel is gone, and the remote shell has said its last (or we
 * stopped waiting): report, if the host still had ranks running. */
static void gone(struct hostlink *h)
{
    h->state = HL_GONE;
    if (h->ndone >= h->nranks || h->failed)
        return;
    char ex[96];
    describe_exit(h, ex, sizeof ex);
    if (h->lasterr[0])
        fail(h, 1, "%s bolt-hostd on %s: %s (%s)", h->ready_seen ? "lost the connection to" : "cannot start",
             h->name, h->lasterr, ex);
    else
        fail(h, 1, "%s bolt-hostd on %s (%s)", h->ready_seen ? "lost the connection to" : "cannot start", h->name,
             ex);
}

void hostlink_handle(struct hostlink *h, const struct pollfd p[HOSTLINK_POLLFDS], double now)
{
    if (p[2].revents)
        read_err(h);
    if (p[1].revents)
        chan_flush(&h->ch);
    if (p[0].revents && h->state != HL_GONE) {
        const char *why = NULL;
        int r = chan_read(&h->ch, on_frame, h, &why);
        if (r < 0)
            fail(h, 1, "the channel from bolt-hostd on %s is corrupt (%s); is something in the remote shell's "
                 "login scripts writing to stdout?", h->name, why);
    }
    chan_flush(&h->ch);
    if ((h->ch.eof || h->ch.broken) && (h->state == HL_STARTING || h->state == HL_READY)) {
        h->state = HL_CLOSING;
        h->gone_deadline = now + GONE_WAIT_S;
    }
    if (h->state == HL_CLOSING && ((h->errfd < 0 && h->pid == 0) || now >= h->gone_deadline))
        gone(h);
    if (h->state == HL_STARTING && now >= h->start_deadline) {
        char ex[96];
        describe_exit(h, ex, sizeof ex);
        fail(h, 1, "bolt-hostd on %s did not start its ranks within %g s (BOLT_LAUNCH_TIMEOUT; %s)%s%s; is the "
             "host reachable?", h->name, h->launch_timeout, ex, h->lasterr[0] ? "; last message: " : "",
             h->lasterr);
        h->state = HL_GONE;
    }
}

void hostlink_signal(struct hostlink *h, int sig)
{
    if (h->state == HL_GONE || h->ch.broken)
        return;
    struct chan_buf b = {0};
    chan_buf_u32(&b, (uint32_t)sig);
    chan_send(&h->ch, CHAN_SIGNAL, b.p, b.len);
    chan_buf_free(&b);
    chan_flush(&h->ch);
}

void hostlink_stdin(struct hostlink *h, const void *data, size_t len)
{
    struct chan_buf b = {0};
    chan_buf_bytes(&b, data, len);
    chan_send(&h->ch, CHAN_STDIN, b.p, b.len);
    chan_buf_free(&b);
    chan_flush(&h->ch);
}

size_t hostlink_pending(const struct hostlink *h)
{
    return chan_pending(&h->ch);
}

int hostlink_reaped(struct hostlink *h, pid_t pid, int status)
{
    if (h->pid == 0 || h->pid != pid)
        return 0;
    h->pid = 0;
    h->exit_status = status;
    return 1;
}

void hostlink_rank_done(struct hostlink *h)
{
    h->ndone++;
}

void hostlink_unused(struct hostlink *h, const char *name)
{
    memset(h, 0, sizeof *h);
    snprintf(h->name, sizeof h->name, "%s", name);
    h->ch.rfd = h->ch.wfd = h->errfd = -1;
    h->state = HL_GONE;
}

void hostlink_close_all(struct hostlink *hs, int n, double seconds)
{
    for (int i = 0; i < n; i++)
        chan_close(&hs[i].ch, 0.5);
    double until = bolt_kvs_now() + seconds;
    for (;;) {
        int left = 0;
        for (int i = 0; i < n; i++) {
            struct hostlink *h = &hs[i];
            if (h->errfd >= 0)
                read_err(h);
            if (h->pid != 0) {
                int st;
                pid_t p = waitpid(h->pid, &st, WNOHANG);
                if (p == h->pid || (p < 0 && errno == ECHILD)) {
                    h->pid = 0;
                    h->exit_status = st;
                }
            }
            left += h->pid != 0 || h->errfd >= 0;
        }
        if (left == 0)
            break;
        if (bolt_kvs_now() >= until) {
            /* Each hostd stops its ranks by itself once its channel is
             * closed; the remote shells have nothing more to do. */
            for (int i = 0; i < n; i++)
                if (hs[i].pid != 0) {
                    (void)killpg(hs[i].pid, SIGKILL);
                    (void)kill(hs[i].pid, SIGKILL);
                    waitpid(hs[i].pid, NULL, 0);
                    hs[i].pid = 0;
                }
            break;
        }
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < n; i++) {
        struct hostlink *h = &hs[i];
        if (h->errfd >= 0)
            close(h->errfd);
        h->errfd = -1;
        free(h->is_mine);
        h->is_mine = NULL;
        free(h->conns);
        h->conns = NULL;
        h->state = HL_GONE;
    }
}
