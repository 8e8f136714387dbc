/*
 * iofwd.c — line-by-line forwarding of the ranks' output (see iofwd.h).
 */
#include "launcher/iofwd.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/kvs_wire.h"

#ifndef PIPE_BUF
#define PIPE_BUF 512
#endif

struct sink {
    int fd;
    int chunked;     /* pipe or socket: at most PIPE_BUF bytes per readiness */
    int broken;      /* the reader is gone: output is dropped */
    char *q;         /* waiting bytes are q[off, len) */
    size_t off, len, cap;
};

static struct sink g_sink[2] = {{.fd = 1}, {.fd = 2}};
static double g_progress;

static struct sink *sink_of(int outfd)
{
    return &g_sink[outfd == 2];
}

void iofwd_sinks_init(void)
{
    for (int i = 0; i < 2; i++) {
        struct stat st;
        g_sink[i].chunked = fstat(g_sink[i].fd, &st) != 0 || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
    }
}

static size_t waiting(const struct sink *k)
{
    return k->len - k->off;
}

static void sink_drop(struct sink *k)
{
    k->off = k->len = 0;
}

static void sink_append(struct sink *k, const char *data, size_t n)
{
    if (k->broken || n == 0)
        return;
    if (waiting(k) == 0) {
        k->off = k->len = 0;
        g_progress = bolt_kvs_now(); /* it starts waiting now */
    }
    if (k->len + n > k->cap && k->off > 0) {
        memmove(k->q, k->q + k->off, k->len - k->off);
        k->len -= k->off;
        k->off = 0;
    }
    if (k->len + n > k->cap) {
        size_t cap = k->cap ? k->cap : 65536;
        while (cap < k->len + n)
            cap *= 2;
        char *q = realloc(k->q, cap);
        if (q == NULL)
            return; /* out of memory: these lines are lost, whole */
        k->q = q;
        k->cap = cap;
    }
    memcpy(k->q + k->len, data, n);
    k->len += n;
}

/* One write: 1 progress (or EINTR), 0 would block, -1 the reader is gone. */
static int sink_write_once(struct sink *k)
{
    size_t n = waiting(k);
    if (k->chunked && n > PIPE_BUF)
        n = PIPE_BUF;
    ssize_t w = write(k->fd, k->q + k->off, n);
    if (w > 0) {
        k->off += (size_t)w;
        if (k->off == k->len)
            k->off = k->len = 0;
        g_progress = bolt_kvs_now();
        return 1;
    }
    if (w < 0 && errno == EINTR)
        return 1;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return 0; /* someone made the descriptor nonblocking: wait for POLLOUT */
    k->broken = 1; /* EPIPE and the like: drop the output */
    sink_drop(k);
    return -1;
}

/* Writes while the descriptor says it is writable; bounded. */
static void sink_try(struct sink *k)
{
    for (int round = 0; round < 64 && waiting(k) > 0; round++) {
        struct pollfd p = {.fd = k->fd, .events = POLLOUT};
        if (poll(&p, 1, 0) <= 0 || !(p.revents & (POLLOUT | POLLERR | POLLHUP | POLLNVAL)))
            return;
        if (sink_write_once(k) <= 0)
            return;
    }
}

short iofwd_sink_events(int outfd)
{
    return waiting(sink_of(outfd)) > 0 ? POLLOUT : 0;
}

void iofwd_sink_handle(int outfd)
{
    sink_try(sink_of(outfd));
}

size_t iofwd_queued(void)
{
    return waiting(&g_sink[0]) + waiting(&g_sink[1]);
}

int iofwd_backpressured(void)
{
    return waiting(&g_sink[0]) > IOFWD_QUEUE_HIGH || waiting(&g_sink[1]) > IOFWD_QUEUE_HIGH;
}

double iofwd_last_progress(void)
{
    return g_progress;
}

void iofwd_sinks_drain(double stall)
{
    for (int i = 0; i < 2; i++) {
        struct sink *k = &g_sink[i];
        while (waiting(k) > 0) {
            struct pollfd p = {.fd = k->fd, .events = POLLOUT};
            int r = poll(&p, 1, stall > 0 ? (int)(stall * 1000) : 0);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                sink_drop(k); /* stalled: give up on what is left */
                break;
            }
            if (sink_write_once(k) < 0)
                break;
        }
    }
}

void iofwd_log(const char *fmt, ...)
{
    char buf[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof buf - 1 ? (size_t)n : sizeof buf - 2;
    buf[len++] = '\n';
    struct sink *k = sink_of(2);
    sink_append(k, buf, len);
    sink_try(k);
}

int iofwd_init(struct iofwd_stream *s, int fd, int outfd, int rank, int tag)
{
    s->fd = fd;
    s->outfd = outfd;
    s->rank = rank;
    s->tag = tag;
    s->len = 0;
    s->buf = malloc(IOFWD_MAX_LINE);
    if (s->buf != NULL)
        return 0;
    if (fd >= 0)
        close(fd);
    s->fd = -1;
    return -1;
}

int iofwd_poll_fd(const struct iofwd_stream *s)
{
    return waiting(sink_of(s->outfd)) > IOFWD_QUEUE_HIGH ? -1 : s->fd;
}

/* Queues `len` bytes that hold whole lines (each ended by '\n'), prefixing
 * each line when tagging; `add_nl` appends a newline to the last one. */
static void emit(struct iofwd_stream *s, const char *data, size_t len, int add_nl)
{
    struct sink *k = sink_of(s->outfd);
    if (!s->tag) {
        sink_append(k, data, len);
        if (add_nl)
            sink_append(k, "\n", 1); /* same queue, right after: nothing lands between */
        return;
    }
    char prefix[24];
    int pl = snprintf(prefix, sizeof prefix, "[%d] ", s->rank);
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        int end_line = (i < len && data[i] == '\n') || (i == len && add_nl);
        if (!end_line)
            continue;
        sink_append(k, prefix, (size_t)pl);
        sink_append(k, data + start, i - start);
        sink_append(k, "\n", 1);
        start = i + 1;
    }
}

/* Queues every complete line in the buffer; keeps the partial tail. */
static void flush_lines(struct iofwd_stream *s)
{
    size_t last = 0;
    for (size_t i = s->len; i > 0; i--)
        if (s->buf[i - 1] == '\n') {
            last = i;
            break;
        }
    if (last > 0) {
        emit(s, s->buf, last, 0);
        memmove(s->buf, s->buf + last, s->len - last);
        s->len -= last;
    }
    if (s->len == IOFWD_MAX_LINE) { /* a line too long to hold: pass it on in pieces */
        emit(s, s->buf, s->len, 1);
        s->len = 0;
    }
}

void iofwd_close(struct iofwd_stream *s)
{
    if (s->len > 0 && s->buf != NULL)
        emit(s, s->buf, s->len, 1);
    s->len = 0;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    free(s->buf);
    s->buf = NULL;
    sink_try(sink_of(s->outfd));
}

int iofwd_pump(struct iofwd_stream *s)
{
    if (s->fd < 0)
        return 1;
    struct sink *k = sink_of(s->outfd);
    /* A bounded number of reads per call keeps one chatty rank from starving
     * the event loop, and a bounded queue keeps a stalled reader from making
     * boltrun hoard the ranks' output. */
    int ret = 0;
    for (int round = 0; round < 16 && waiting(k) <= 4 * IOFWD_QUEUE_HIGH; round++) {
        ssize_t r = read(s->fd, s->buf + s->len, IOFWD_MAX_LINE - s->len);
        if (r > 0) {
            s->len += (size_t)r;
            flush_lines(s);
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        iofwd_close(s); /* EOF, or an error that ends the stream */
        ret = 1;
        break;
    }
    sink_try(k);
    return ret;
}

void iofwd_feed(struct iofwd_stream *s, const void *data, size_t len)
{
    const char *d = data;
    if (s->buf == NULL)
        return;
    while (len > 0) {
        size_t room = IOFWD_MAX_LINE - s->len, n = len < room ? len : room;
        memcpy(s->buf + s->len, d, n);
        s->len += n;
        flush_lines(s);
        d += n;
        len -= n;
    }
    sink_try(sink_of(s->outfd));
}
