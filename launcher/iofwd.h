/*
 * iofwd.h — forwarding a rank's stdout/stderr pipe to boltrun's, line by line.
 *
 * Only whole lines are queued, each in one piece, so lines of different ranks
 * never mix. A line longer than IOFWD_MAX_LINE is passed on in pieces of that
 * size, each ended by a newline; a last line without newline gets one at EOF.
 *
 * Nothing here blocks boltrun's event loop on a slow reader: lines go to one
 * queue per output ("sink", boltrun's fd 1 and fd 2), written when poll()
 * says the descriptor is writable. On a pipe or socket at most PIPE_BUF bytes
 * are written per readiness (such a write cannot block); a terminal or a file
 * gets blocking writes, which is acceptable there. The descriptors' flags are
 * left alone (their open file descriptions are shared with the shell). While
 * a sink holds more than IOFWD_QUEUE_HIGH bytes, the ranks' pipes feeding it
 * are not read (back-pressure on the ranks; nothing is lost). boltrun's own
 * messages (iofwd_log) go through fd 2's queue, after the lines before them.
 */
#ifndef BOLTRUN_IOFWD_H
#define BOLTRUN_IOFWD_H

#include <stddef.h>

#define IOFWD_MAX_LINE (64 * 1024)
#define IOFWD_QUEUE_HIGH (256 * 1024)

struct iofwd_stream {
    int fd;          /* read end of the rank's pipe; -1 once closed */
    int outfd;       /* 1 or 2 */
    int rank;
    int tag;         /* prefix lines with "[rank] " */
    char *buf;       /* IOFWD_MAX_LINE bytes */
    size_t len;
};

/* Returns 0, or -1 when out of memory (fd is then closed and s->fd is -1). */
int iofwd_init(struct iofwd_stream *s, int fd, int outfd, int rank, int tag);
/* Reads what is available (fd is nonblocking) and queues whole lines.
 * Returns 1 once the pipe reached EOF (it is then flushed and closed), else 0. */
int iofwd_pump(struct iofwd_stream *s);
/* Queues a partial line (with a newline) and closes the pipe. */
void iofwd_close(struct iofwd_stream *s);
/* Bytes of the stream that arrived some other way (a remote rank's output
 * relayed by its host's daemon): cut into lines like pumped bytes. */
void iofwd_feed(struct iofwd_stream *s, const void *data, size_t len);
/* The descriptor to poll for input: s->fd, or -1 while its sink is too full. */
int iofwd_poll_fd(const struct iofwd_stream *s);

/* ---- The sinks: boltrun's fd 1 and fd 2. ---- */

/* Looks at what fds 1 and 2 are (pipe, socket, terminal, file). */
void iofwd_sinks_init(void);
/* The poll events fd `outfd` (1 or 2) needs: POLLOUT while output waits. */
short iofwd_sink_events(int outfd);
/* Writes what the sink can take now (call on POLLOUT/POLLERR/POLLHUP). */
void iofwd_sink_handle(int outfd);
/* Bytes waiting in both sinks. */
size_t iofwd_queued(void);
/* 1 when some sink is over IOFWD_QUEUE_HIGH (its pipes are not being read). */
int iofwd_backpressured(void);
/* Time (bolt_kvs_now) of the last write that made progress, or when output
 * last started waiting. */
double iofwd_last_progress(void);
/* Writes what is queued, giving up (and dropping the rest) once a sink has
 * not been writable for `stall` seconds. */
void iofwd_sinks_drain(double stall);
/* A line of boltrun's own on stderr (the newline is added). */
void iofwd_log(const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#endif
