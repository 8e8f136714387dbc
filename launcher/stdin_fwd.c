/*
 * stdin_fwd.c — boltrun's stdin to one rank, from the poll() loop (see
 * stdin_fwd.h).
 */
#include "launcher/stdin_fwd.h"

#include "launcher/iofwd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void stdin_fwd_init(struct stdin_fwd *f)
{
    memset(f, 0, sizeof *f);
    f->in_fd = -1;
    f->out_fd = -1;
    f->rank = -1;
}

int stdin_fwd_open(struct stdin_fwd *f, int in_fd, int rank, int *rank_fd)
{
    stdin_fwd_init(f);
    *rank_fd = -1;
    f->buf = malloc(STDIN_FWD_BUF);
    if (f->buf == NULL) {
        errno = ENOMEM;
        return -1;
    }
    int p[2];
    if (pipe(p) != 0) {
        int e = errno;
        free(f->buf);
        f->buf = NULL;
        errno = e;
        return -1;
    }
    (void)fcntl(p[0], F_SETFD, FD_CLOEXEC);
    (void)fcntl(p[1], F_SETFD, FD_CLOEXEC);
    (void)fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK);
    f->in_fd = in_fd;
    f->in_tty = isatty(in_fd);
    f->out_fd = p[1];
    f->rank = rank;
    *rank_fd = p[0];
    return 0;
}

/* Whether reading in_fd now is safe: not a terminal of which boltrun is a
 * background process. tcgetpgrp fails when the terminal is not boltrun's
 * controlling terminal; job control does not apply then. */
static int may_read(const struct stdin_fwd *f)
{
    if (!f->in_tty)
        return 1;
    pid_t fg = tcgetpgrp(f->in_fd);
    return fg < 0 || fg == getpgrp();
}

void stdin_fwd_close(struct stdin_fwd *f)
{
    if (f->out_fd >= 0)
        close(f->out_fd);
    f->out_fd = -1;
    f->in_fd = -1;
    f->off = f->len = 0;
    free(f->buf);
    f->buf = NULL;
}

/* Stops reading stdin (EOF or error); the pipe closes once drained. */
static void end_input(struct stdin_fwd *f)
{
    f->in_fd = -1;
}

/* Writes what the pipe takes now. */
static void drain(struct stdin_fwd *f)
{
    while (f->out_fd >= 0 && f->len > 0) {
        ssize_t w = write(f->out_fd, f->buf + f->off, f->len);
        if (w > 0) {
            f->off += (size_t)w;
            f->len -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        /* EPIPE (SIGPIPE is ignored) or another error: the rank does not
         * read its stdin any more. What it would have got is dropped. */
        stdin_fwd_close(f);
        return;
    }
    if (f->len == 0)
        f->off = 0;
    if (f->out_fd >= 0 && f->in_fd < 0 && f->len == 0) {
        close(f->out_fd); /* boltrun's stdin ended: the rank sees EOF */
        f->out_fd = -1;
    }
}

/* One read() of stdin into the free space. stdin is blocking, so this is
 * called once per POLLIN event only. */
static void read_input(struct stdin_fwd *f)
{
    if (!may_read(f))
        return; /* moved to the background since poll(): leave it */
    if (f->off > 0 && f->len > 0)
        memmove(f->buf, f->buf + f->off, f->len);
    f->off = 0;
    if (f->len >= STDIN_FWD_BUF)
        return;
    ssize_t n = read(f->in_fd, f->buf + f->len, STDIN_FWD_BUF - f->len);
    if (n > 0) {
        f->len += (size_t)n;
        return;
    }
    if (n == 0) {
        end_input(f);
        return;
    }
    if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
        return;
    if (errno == EIO && f->in_tty && !may_read(f))
        return; /* a background read (SIGTTIN is ignored): try again later */
    iofwd_log("boltrun: cannot read stdin (%s); rank %d gets end-of-file", strerror(errno), f->rank);
    end_input(f);
}

void stdin_fwd_fill(struct stdin_fwd *f, struct pollfd p[STDIN_FWD_POLLFDS])
{
    p[0] = (struct pollfd){.fd = -1, .events = POLLIN};
    p[1] = (struct pollfd){.fd = -1, .events = POLLOUT};
    if (f->out_fd < 0)
        return;
    if (f->in_fd >= 0 && f->len < STDIN_FWD_BUF && may_read(f))
        p[0].fd = f->in_fd;
    if (f->len > 0)
        p[1].fd = f->out_fd; /* POLLERR there: the rank closed its end */
}

void stdin_fwd_handle(struct stdin_fwd *f, const struct pollfd p[STDIN_FWD_POLLFDS])
{
    if (f->out_fd < 0)
        return;
    if (p[0].fd >= 0 && p[0].fd == f->in_fd) {
        if (p[0].revents & POLLNVAL)
            end_input(f);
        else if (p[0].revents & (POLLIN | POLLHUP | POLLERR))
            read_input(f); /* on POLLHUP too: read() tells EOF from data left */
    }
    /* Write after every turn (not only on POLLOUT): new data usually fits at
     * once, and a stdin at EOF with nothing buffered closes the pipe here. */
    drain(f);
}
