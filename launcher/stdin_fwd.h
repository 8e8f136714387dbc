/*
 * stdin_fwd.h — forwarding boltrun's stdin to one rank through a pipe.
 *
 * Ranks run in process groups of their own, so a rank that read boltrun's
 * terminal directly would be a background reader and be stopped by SIGTTIN.
 * Like mpirun, boltrun reads its stdin itself and writes it into a pipe that
 * is the rank's stdin. All of it happens from boltrun's poll() loop and never
 * blocks it:
 *   - boltrun's stdin is left as it is (blocking; its open file description is
 *     shared with the shell) and read once per POLLIN event;
 *   - the pipe's write end is nonblocking; at most STDIN_FWD_BUF bytes wait
 *     for the rank, and stdin is not polled while that buffer is full;
 *   - EOF (or a read error) on stdin closes the pipe once the buffer has
 *     drained, so the rank sees EOF;
 *   - EPIPE (the rank is gone, or closed its stdin) drops what is buffered,
 *     closes the pipe and stops reading stdin;
 *   - a terminal is read only while boltrun's process group is its
 *     foreground group; in the background stdin is simply not polled and is
 *     looked at again on the next turn of the loop (at least once a second,
 *     and at once on SIGCONT). boltrun ignores SIGTTIN, so even the race
 *     between that check and read() gives EIO, never a stop.
 */
#ifndef BOLTRUN_STDIN_FWD_H
#define BOLTRUN_STDIN_FWD_H

#include <poll.h>
#include <stddef.h>

#define STDIN_FWD_BUF (64 * 1024)
/* stdin_fwd_fill always fills exactly this many pollfds (fd -1 when unused). */
#define STDIN_FWD_POLLFDS 2

struct stdin_fwd {
    int in_fd;     /* boltrun's stdin; -1 once no longer read (never closed here) */
    int out_fd;    /* write end of the pipe to the rank; -1 once closed */
    int in_tty;    /* in_fd is a terminal: mind job control */
    int rank;      /* for messages */
    char *buf;     /* STDIN_FWD_BUF bytes; data is buf[off, off + len) */
    size_t off, len;
};

/* An inactive forwarder (nothing to poll); stdin_fwd_close on it is a no-op. */
void stdin_fwd_init(struct stdin_fwd *f);
/* Creates the pipe for `rank`, to be fed from in_fd. *rank_fd gets the read
 * end (close-on-exec, blocking), which the rank's guard passes on as its
 * stdin; boltrun closes it once the rank is started. Returns 0, or -1 with
 * errno set (f is then inactive). */
int stdin_fwd_open(struct stdin_fwd *f, int in_fd, int rank, int *rank_fd);
/* Fills STDIN_FWD_POLLFDS pollfds. */
void stdin_fwd_fill(struct stdin_fwd *f, struct pollfd p[STDIN_FWD_POLLFDS]);
/* Handles the revents of the pollfds stdin_fwd_fill filled. */
void stdin_fwd_handle(struct stdin_fwd *f, const struct pollfd p[STDIN_FWD_POLLFDS]);
/* The rank is gone (or the job is over): drops what is buffered, closes the
 * pipe, stops reading stdin. */
void stdin_fwd_close(struct stdin_fwd *f);

#endif
