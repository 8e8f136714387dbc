/*
 * iofwd.h — forwarding a rank's stdout/stderr pipe to boltrun's, line by line.
 *
 * Only whole lines are written, each in one piece, so lines of different ranks
 * never mix. A line longer than IOFWD_MAX_LINE is written in pieces of that
 * size, each ended by a newline; a last line without newline gets one at EOF.
 */
#ifndef BOLTRUN_IOFWD_H
#define BOLTRUN_IOFWD_H

#include <stddef.h>

#define IOFWD_MAX_LINE (64 * 1024)

struct iofwd_stream {
    int fd;          /* read end of the rank's pipe; -1 once closed */
    int outfd;       /* 1 or 2 */
    int rank;
    int tag;         /* prefix lines with "[rank] " */
    char *buf;       /* IOFWD_MAX_LINE bytes */
    size_t len;
};

int iofwd_init(struct iofwd_stream *s, int fd, int outfd, int rank, int tag);
/* Reads what is available (fd is nonblocking) and writes out whole lines.
 * Returns 1 once the pipe reached EOF (it is then flushed and closed), else 0. */
int iofwd_pump(struct iofwd_stream *s);
/* Flushes a partial line (with a newline) and closes the pipe. */
void iofwd_close(struct iofwd_stream *s);
/* Writes all of buf to fd, retrying on EINTR/EAGAIN. Returns 0 or -1. */
int iofwd_write_all(int fd, const void *buf, size_t len);

#endif
