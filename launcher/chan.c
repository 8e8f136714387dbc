/*
 * chan.c — buffered, nonblocking channel I/O (see chan.h).
 */
#include "launcher/chan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/kvs_wire.h"

/* Frames are handed out as they complete; this bounds one chan_read call so
 * that a busy host does not starve the others. */
#define READ_ROUNDS 16
#define READ_CHUNK (256 * 1024)

static void nonblock_cloexec(int fd)
{
    if (fd < 0)
        return;
    (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

void chan_open(struct chan *c, int rfd, int wfd)
{
    memset(c, 0, sizeof *c);
    c->rfd = rfd;
    c->wfd = wfd;
    nonblock_cloexec(rfd);
    nonblock_cloexec(wfd);
}

void chan_send(struct chan *c, uint8_t type, const void *body, size_t len)
{
    if (c->broken || c->wfd < 0)
        return;
    if (c->outoff > 0 && c->outoff == c->out.len)
        c->outoff = c->out.len = 0;
    chan_frame(&c->out, type, body, len);
    if (c->out.failed)
        c->broken = 1; /* out of memory: the channel cannot stay consistent */
}

size_t chan_pending(const struct chan *c)
{
    return c->out.len - c->outoff;
}

void chan_fill(struct chan *c, struct pollfd p[2])
{
    p[0] = (struct pollfd){.fd = c->eof ? -1 : c->rfd, .events = POLLIN};
    p[1] = (struct pollfd){.fd = (chan_pending(c) > 0 && !c->broken) ? c->wfd : -1, .events = POLLOUT};
}

void chan_flush(struct chan *c)
{
    while (!c->broken && c->wfd >= 0 && chan_pending(c) > 0) {
        ssize_t w = write(c->wfd, c->out.p + c->outoff, chan_pending(c));
        if (w > 0) {
            c->outoff += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        c->broken = 1; /* EPIPE: the other side is gone; its EOF tells the rest */
    }
    if (chan_pending(c) == 0)
        c->outoff = c->out.len = 0;
}

int chan_read(struct chan *c, chan_frame_fn fn, void *ctx, const char **why)
{
    if (c->eof || c->rfd < 0)
        return 1;
    for (int round = 0; round < READ_ROUNDS; round++) {
        if (c->incap - c->inlen < READ_CHUNK) {
            size_t cap = c->incap ? c->incap : READ_CHUNK;
            while (cap - c->inlen < READ_CHUNK)
                cap *= 2;
            uint8_t *n = realloc(c->in, cap);
            if (n == NULL) {
                *why = "out of memory";
                c->eof = 1;
                return -1;
            }
            c->in = n;
            c->incap = cap;
        }
        ssize_t r = read(c->rfd, c->in + c->inlen, c->incap - c->inlen);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (r <= 0) {
            c->eof = 1;
            return 1;
        }
        c->inlen += (size_t)r;
        size_t off = 0, fl = 0;
        int k;
        while ((k = chan_frame_complete(c->in + off, c->inlen - off, &fl, why)) == 1) {
            fn(ctx, c->in[off + 4], c->in + off + 5, fl - 5);
            off += fl;
        }
        if (k < 0) {
            c->eof = 1;
            return -1;
        }
        memmove(c->in, c->in + off, c->inlen - off);
        c->inlen -= off;
        if (c->incap > 4 * READ_CHUNK && c->inlen < READ_CHUNK) { /* give back a big frame's room */
            uint8_t *n = realloc(c->in, READ_CHUNK * 2);
            if (n) {
                c->in = n;
                c->incap = READ_CHUNK * 2;
            }
        }
    }
    return 0;
}

void chan_close(struct chan *c, double seconds)
{
    double until = bolt_kvs_now() + seconds;
    while (!c->broken && c->wfd >= 0 && chan_pending(c) > 0) {
        struct pollfd p = {.fd = c->wfd, .events = POLLOUT};
        double left = until - bolt_kvs_now();
        if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) <= 0)
            break;
        chan_flush(c);
    }
    if (c->rfd >= 0 && c->rfd != c->wfd)
        close(c->rfd);
    if (c->wfd >= 0)
        close(c->wfd);
    c->rfd = c->wfd = -1;
    free(c->in);
    c->in = NULL;
    c->inlen = c->incap = 0;
    chan_buf_free(&c->out);
    c->outoff = 0;
}
