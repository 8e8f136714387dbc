/*
 * iofwd.c — line-by-line forwarding of the ranks' output (see iofwd.h).
 */
#include "launcher/iofwd.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int iofwd_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w > 0) {
            p += w;
            len -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            /* Someone made our stdout nonblocking: wait a little for room. */
            struct pollfd pfd = {.fd = fd, .events = POLLOUT};
            (void)poll(&pfd, 1, 1000);
            continue;
        }
        return -1; /* EPIPE and the like: the reader is gone; drop the output */
    }
    return 0;
}

int iofwd_init(struct iofwd_stream *s, int fd, int outfd, int rank, int tag)
{
    s->fd = fd;
    s->outfd = outfd;
    s->rank = rank;
    s->tag = tag;
    s->len = 0;
    s->buf = malloc(IOFWD_MAX_LINE);
    return s->buf ? 0 : -1;
}

/* Writes `len` bytes that hold whole lines (each ended by '\n'), prefixing
 * each line when tagging; `add_nl` appends a newline to the last one. */
static void emit(struct iofwd_stream *s, const char *data, size_t len, int add_nl)
{
    if (!s->tag) {
        if (!add_nl) {
            iofwd_write_all(s->outfd, data, len);
            return;
        }
        /* One write so nothing lands between the piece and its newline. */
        char *tmp = malloc(len + 1);
        if (tmp == NULL) {
            iofwd_write_all(s->outfd, data, len);
            iofwd_write_all(s->outfd, "\n", 1);
            return;
        }
        memcpy(tmp, data, len);
        tmp[len] = '\n';
        iofwd_write_all(s->outfd, tmp, len + 1);
        free(tmp);
        return;
    }
    char prefix[24];
    int pl = snprintf(prefix, sizeof prefix, "[%d] ", s->rank);
    size_t lines = add_nl ? 1 : 0;
    for (size_t i = 0; i < len; i++)
        lines += data[i] == '\n';
    size_t cap = len + lines * (size_t)pl + 1;
    char *out = malloc(cap);
    if (out == NULL)
        return;
    size_t o = 0, start = 0;
    for (size_t i = 0; i <= len; i++) {
        int end_line = (i < len && data[i] == '\n') || (i == len && add_nl);
        if (!end_line)
            continue;
        memcpy(out + o, prefix, (size_t)pl);
        o += (size_t)pl;
        memcpy(out + o, data + start, i - start);
        o += i - start;
        out[o++] = '\n';
        start = i + 1;
    }
    iofwd_write_all(s->outfd, out, o);
    free(out);
}

/* Writes every complete line in the buffer; keeps the partial tail. */
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
    if (s->len > 0)
        emit(s, s->buf, s->len, 1);
    s->len = 0;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    free(s->buf);
    s->buf = NULL;
}

int iofwd_pump(struct iofwd_stream *s)
{
    if (s->fd < 0)
        return 1;
    /* A bounded number of reads per call keeps one chatty rank from starving
     * the event loop. */
    for (int round = 0; round < 16; round++) {
        ssize_t r = read(s->fd, s->buf + s->len, IOFWD_MAX_LINE - s->len);
        if (r > 0) {
            s->len += (size_t)r;
            flush_lines(s);
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        iofwd_close(s); /* EOF, or an error that ends the stream */
        return 1;
    }
    return 0;
}
