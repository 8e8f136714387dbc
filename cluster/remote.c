/*
 * remote.c — the hosts of a cluster check, seen from bolt-cluster (see
 * remote.h).
 */
#include "cluster/remote.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/kvs_wire.h"

static void fail(struct remote *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct remote *r, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
}

static void keep_last(void *ctx, const char *text)
{
    struct remote *r = ctx;
    snprintf(r->lasterr, sizeof r->lasterr, "%s", text);
}

/* Keeps the last whole line of the remote shell's stderr (ssh's reason). */
static void read_err(struct remote *r)
{
    while (r->rp.err_r >= 0) {
        ssize_t n = read(r->rp.err_r, r->errbuf + r->errlen, sizeof r->errbuf - 1 - r->errlen);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            close(r->rp.err_r);
            r->rp.err_r = -1;
        } else {
            r->errlen += (size_t)n;
        }
        r->errlen = rsh_err_lines(r->errbuf, r->errlen, sizeof r->errbuf, r->rp.err_r < 0, keep_last, r);
    }
}

static void on_frame(void *ctx, uint8_t type, const uint8_t *body, size_t len)
{
    struct remote *r = ctx;
    struct chan_rd rd = {body, body + len, 0};
    if (r->failed)
        return;
    switch (type) {
    case CK_INFO:
        if (ck_info_decode(body, len, &r->info) != 0)
            fail(r, "bolt-hostd on %s sent a malformed report (a different Bolt version?)", r->name);
        else
            r->have_info = 1;
        break;
    case CK_PROBED:
        if (r->nprobed == r->capprobed) {
            uint32_t nc = r->capprobed ? 2 * r->capprobed : 64;
            struct ck_probed *p = realloc(r->probed, nc * sizeof *p);
            if (p == NULL) {
                fail(r, "out of memory for the probes of %s", r->name);
                return;
            }
            r->probed = p;
            r->capprobed = nc;
        }
        if (ck_probed_decode(body, len, &r->probed[r->nprobed]) != 0)
            fail(r, "bolt-hostd on %s sent a malformed probe answer", r->name);
        else
            r->nprobed++;
        break;
    case CK_RPROBED:
        if (r->nrprobed == r->caprprobed) {
            uint32_t nc = r->caprprobed ? 2 * r->caprprobed : 64;
            struct ck_rprobed *p = realloc(r->rprobed, nc * sizeof *p);
            if (p == NULL) {
                fail(r, "out of memory for the RDMA probes of %s", r->name);
                return;
            }
            r->rprobed = p;
            r->caprprobed = nc;
        }
        if (ck_rprobed_decode(body, len, &r->rprobed[r->nrprobed]) != 0)
            fail(r, "bolt-hostd on %s sent a malformed RDMA probe answer", r->name);
        else
            r->nrprobed++;
        break;
    case CK_MEASURED:
        if (ck_measured_decode(body, len, &r->measured) != 0)
            fail(r, "bolt-hostd on %s sent a malformed measurement", r->name);
        else
            r->have_measured = 1;
        break;
    case CHAN_ERROR: {
        (void)chan_rd_u32(&rd);
        size_t n;
        const uint8_t *p = chan_rd_bytes(&rd, &n);
        fail(r, "%.*s", rd.bad ? 0 : (int)n, rd.bad ? "" : (const char *)p);
        break;
    }
    default:
        fail(r, "bolt-hostd on %s sent an unknown message (type %u): a different Bolt version?", r->name, type);
    }
}

void remote_start_all(struct remote *r, int n, char *const *rsh_argv, const char *hostd,
                      const uint8_t secret[BOLT_SECRET_BYTES])
{
    for (int i = 0; i < n; i++) {
        char err[600];
        r[i].ch.rfd = r[i].ch.wfd = -1;
        if (rsh_start(&r[i].rp, rsh_argv, r[i].name, hostd, err, sizeof err) != 0) {
            fail(&r[i], "%s", err);
            continue;
        }
        chan_open(&r[i].ch, r[i].rp.out_r, r[i].rp.in_w);
        struct ck_check c = {.index = (uint32_t)i, .nhosts = (uint32_t)n};
        snprintf(c.host, sizeof c.host, "%s", r[i].name);
        memcpy(c.secret, secret, BOLT_SECRET_BYTES);
        struct chan_buf b = {0};
        ck_check_encode(&b, &c);
        chan_send(&r[i].ch, CK_CHECK, b.p, b.len);
        chan_buf_free(&b);
        chan_flush(&r[i].ch);
    }
}

/* The channel ended before the answer: wait a moment for the remote shell's
 * last words, then say what it said. */
static void gone(struct remote *r)
{
    double until = bolt_kvs_now() + 2.0;
    int st = -1;
    while (bolt_kvs_now() < until && (r->rp.err_r >= 0 || r->rp.pid > 0)) {
        struct pollfd p = {.fd = r->rp.err_r, .events = POLLIN};
        poll(&p, 1, 20);
        read_err(r);
        if (r->rp.pid > 0 && waitpid(r->rp.pid, &st, WNOHANG) == r->rp.pid)
            r->rp.pid = 0;
    }
    char ex[64] = "";
    if (st >= 0 && WIFEXITED(st))
        snprintf(ex, sizeof ex, " (remote shell exit status %d)", WEXITSTATUS(st));
    if (!r->have_info && strstr(r->lasterr, "no valid start message"))
        fail(r, "bolt-hostd on %s does not know the cluster check: an older Bolt there (%s)", r->name, r->lasterr);
    else if (r->lasterr[0])
        fail(r, "cannot reach bolt-hostd on %s: %s%s", r->name, r->lasterr, ex);
    else
        fail(r, "cannot reach bolt-hostd on %s: the connection closed%s", r->name, ex);
}

void remote_wait(struct remote *r, int n, const unsigned char *want, int (*done)(const struct remote *),
                 double seconds)
{
    double until = bolt_kvs_now() + seconds;
    struct pollfd *p = calloc((size_t)n * 3 + 1, sizeof *p);
    if (p == NULL) {
        for (int i = 0; i < n; i++)
            if (want[i])
                fail(&r[i], "out of memory");
        return;
    }
    for (;;) {
        int waiting = 0;
        for (int i = 0; i < n; i++) {
            struct remote *h = &r[i];
            int active = want[i] && !h->failed && !done(h);
            waiting += active;
            chan_fill(&h->ch, p + 3 * i);
            if (!active)
                p[3 * i].fd = -1;
            p[3 * i + 2] = (struct pollfd){.fd = active ? h->rp.err_r : -1, .events = POLLIN};
        }
        double left = until - bolt_kvs_now();
        if (waiting == 0 || left <= 0)
            break;
        if (poll(p, (nfds_t)n * 3, (int)(left * 1000) + 1) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < n; i++) {
            struct remote *h = &r[i];
            const char *why = NULL;
            if (p[3 * i + 2].revents)
                read_err(h);
            if (p[3 * i + 1].revents)
                chan_flush(&h->ch);
            if (p[3 * i].revents && chan_read(&h->ch, on_frame, h, &why) < 0)
                fail(h, "the channel from bolt-hostd on %s is corrupt (%s); is something in the remote shell's "
                     "login scripts writing to stdout?", h->name, why);
            if (want[i] && !h->failed && !done(h) && (h->ch.eof || h->ch.broken))
                gone(h);
        }
    }
    for (int i = 0; i < n; i++)
        if (want[i] && !r[i].failed && !done(&r[i])) {
            read_err(&r[i]);
            fail(&r[i], "bolt-hostd on %s did not answer within %g s%s%s", r[i].name, seconds,
                 r[i].lasterr[0] ? "; last message: " : "", r[i].lasterr);
        }
    free(p);
}

static int info_done(const struct remote *r)
{
    return r->have_info;
}

void remote_wait_info(struct remote *r, int n, double seconds)
{
    unsigned char *want = malloc((size_t)n);
    if (want == NULL)
        return;
    memset(want, 1, (size_t)n);
    remote_wait(r, n, want, info_done, seconds);
    free(want);
}

void remote_close_all(struct remote *r, int n)
{
    for (int i = 0; i < n; i++)
        chan_close(&r[i].ch, 1.0);
    double until = bolt_kvs_now() + 3.0;
    for (int i = 0; i < n; i++) {
        while (r[i].rp.pid > 0) {
            pid_t w = waitpid(r[i].rp.pid, NULL, WNOHANG);
            if (w == r[i].rp.pid || (w < 0 && errno != EINTR)) {
                r[i].rp.pid = 0;
            } else if (bolt_kvs_now() >= until) {
                (void)killpg(r[i].rp.pid, SIGKILL);
                (void)kill(r[i].rp.pid, SIGKILL);
                waitpid(r[i].rp.pid, NULL, 0);
                r[i].rp.pid = 0;
            } else {
                struct timespec ts = {0, 10000000};
                nanosleep(&ts, NULL);
            }
        }
        if (r[i].rp.err_r >= 0)
            close(r[i].rp.err_r);
        r[i].rp.err_r = -1;
        free(r[i].probed);
        r[i].probed = NULL;
        free(r[i].rprobed);
        r[i].rprobed = NULL;
    }
}
